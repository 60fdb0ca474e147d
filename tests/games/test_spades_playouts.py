"""Spades over many seeded random games: the generic conformance suite, rule invariants,
and hidden information (rules §6) checked on views and events alike."""

from __future__ import annotations

import random

import pytest

from cardarena.games import Card, get_game
from cardarena.games.cards import STANDARD_DECK
from cardarena.games.spades import SORT_KEY, Bid, Give, Look, Phase, Play, SpadesState
from tests.games.conformance import check_deterministic, check_random_playouts, walk_cards

VARIANTS = [
    {"max_deals": 4},
    {"deals": 1},
    {"max_deals": 3, "blind_nil_exchange_order": "bidder_first"},
    {"max_deals": 3, "blind_nil_exchange": False},
    {"max_deals": 3, "blind_nil": False, "nil": False},
    {"max_deals": 3, "failed_nil_tricks": "count_for_partner", "bag_limit": 5},
    {"target": 150, "lose_at": -150, "simultaneous_target_rule": "higher_deal_score"},
    {"max_deals": 6, "blind_nil_min_deficit": 50, "first_dealer": 1},
]


def probes(st: SpadesState) -> list:
    """Plausible wrong actions: others' cards, spade leads, revoking, wrong phase, bad bids."""
    seat = st.current_seat
    out: list = [Look(), Bid(14), Bid(0, True), Bid(0), Bid(7)]
    others = [c for s in range(4) if s != seat for c in st.hands[s]]
    out += [Play(c) for c in others[:3]]
    out += [Play(c) for c in st.hands[seat]]  # illegal outside PLAY, or revokes / spade leads
    if others:
        out.append(Give((st.hands[seat][0], others[0])) if st.hands[seat] else Give((others[0], others[1])))
    if len(st.hands[seat]) >= 2:
        out.append(Give((st.hands[seat][0], st.hands[seat][1])))
    return out


# ---- the generic suite ---------------------------------------------------------------------


def test_conformance_default_options():
    # Random bids rarely make contracts, so a default game runs the 200-deal guard.
    check_random_playouts(get_game("spades"), [0], illegal_probes=probes, check_every=29)


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_conformance_variants(options):
    outcomes = check_random_playouts(get_game("spades", options), range(4), illegal_probes=probes, check_every=3)
    assert len(outcomes) == 4


def test_deterministic_default_options():
    check_deterministic(get_game("spades"), 11)


@pytest.mark.parametrize("options", VARIANTS[2:4])
def test_deterministic_variants(options):
    check_deterministic(get_game("spades", options), 12)


# ---- invariants over random games ------------------------------------------------------------


def played_cards(st: SpadesState) -> list[Card]:
    return [pc.card for t in st.tricks for pc in t.cards] + [c for _, c in st.trick]


def check_invariants(st: SpadesState) -> None:
    played = played_cards(st)
    in_hands = [c for h in st.hands for c in h]
    if st.phase is not Phase.GAME_OVER:
        # Card conservation: every card is in exactly one hand or on the table.
        assert sorted(in_hands + played) == list(STANDARD_DECK)
    counts = [len(h) for h in st.hands]
    if st.phase is Phase.PLAY:
        n = len(st.tricks)
        assert all(c in (13 - n, 12 - n) for c in counts)
        assert sum(st.tricks_won) == n
        assert st.spades_broken == any(c.suit.name == "S" for c in played)
        for t in st.tricks:
            assert len(t.cards) == 4 and [pc.seat for pc in t.cards] == [(t.leader + i) % 4 for i in range(4)]
    elif st.phase is Phase.BIDDING:
        assert counts == [13] * 4 and not played
    elif st.phase is Phase.EXCHANGE:
        assert sum(counts) == 52 and all(c in (11, 13, 15) for c in counts)
    for h in st.hands:
        assert h == sorted(h, key=SORT_KEY.__getitem__)
    for side in (0, 1):
        history = [d.sides[side] for d in st.history]
        if history:
            assert (history[-1].score, history[-1].bags) == (st.scores[side], st.bags[side])


@pytest.mark.parametrize("options", [{"max_deals": 3}, VARIANTS[2], VARIANTS[6]])
def test_invariants_every_step(options):
    game = get_game("spades", options)
    for seed in range(15):
        st = game.new_initial_state(seed)
        rng = random.Random(seed)
        steps = 0
        while not st.is_terminal:
            check_invariants(st)
            st.apply(rng.choice(st.legal_actions()))
            steps += 1
        assert steps < 5000
        for d in st.history:
            assert sum(d.tricks_won) == 13




def test_trick_winner_rule_over_random_tricks():
    game = get_game("spades", {"max_deals": 2})
    checked = 0
    for seed in range(30):
        st = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not st.is_terminal:
            before = len(st.tricks)
            deal_no = st.deal_no
            st.apply(rng.choice(st.legal_actions()))
            if not st.is_terminal and st.deal_no == deal_no and len(st.tricks) > before:
                t = st.tricks[-1]
                cards = [(pc.seat, pc.card) for pc in t.cards]
                spades = [x for x in cards if x[1].suit.name == "S"]
                pool = spades or [x for x in cards if x[1].suit == cards[0][1].suit]
                best = max(pool, key=lambda x: 14 if x[1].rank == 1 else x[1].rank)
                assert t.winner == best[0] and st.current_seat == best[0]
                checked += 1
    assert checked > 500


# ---- hidden information (§6) ----------------------------------------------------------------------


def exchanged_with(st: SpadesState, seat: int) -> set[Card]:
    """Cards ``seat`` gave or received in this deal's exchange (it knows them)."""
    return {c for g, r, cards in st.exchanges if cards and seat in (g, r) for c in cards}


def allowed_cards(st: SpadesState, seat: int) -> set[Card]:
    allowed = set(played_cards(st)) | exchanged_with(st, seat)
    if st.sees[seat]:
        allowed |= set(st.hands[seat])
    return allowed


LEAK_OPTIONS = [{"max_deals": 2}, {"max_deals": 2, "blind_nil_exchange_order": "bidder_first"},
                {"max_deals": 2, "blind_nil_exchange": False}, {"max_deals": 2, "blind_nil": False}]


@pytest.mark.parametrize("options", LEAK_OPTIONS)
def test_views_and_events_show_only_what_the_seat_may_see(options):
    game = get_game("spades", options)
    blind_states = blind_bidders_waiting = exchanges_seen = 0
    for seed in range(25):
        st = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not st.is_terminal:
            for seat in range(4):
                v = st.view(seat)
                cards = set(walk_cards(v))
                assert cards <= allowed_cards(st, seat), f"seed {seed}: seat {seat} sees {cards - allowed_cards(st, seat)}"
                partner = (seat + 2) % 4
                assert not (cards & set(st.hands[partner])) - exchanged_with(st, seat)
                if st.sees[seat]:
                    assert v.hand_visible and list(v.hand) == st.hands[seat]
                else:
                    # Not looked, blind nil possible: none of its own cards anywhere.
                    assert not v.hand_visible and v.hand == () and not cards & set(st.hands[seat])
                    blind_states += 1
                    if st.bids[seat] is not None:
                        blind_bidders_waiting += 1
                    if st.current_seat == seat:
                        assert not walk_cards(st.legal_actions())
                for g, r, c in st.exchanges:
                    if c and seat not in (g, r):
                        exchanges_seen += 1
                        assert not set(c) & cards - set(played_cards(st))
            spectator = set(walk_cards(st.spectator_view()))
            assert spectator <= set(played_cards(st)) and st.spectator_view().hand == ()
            action = rng.choice(st.legal_actions())
            events = st.apply(action)
            for e in events:
                if e.visible_to is None:
                    # Public events show no card but the one just played.
                    assert not e.cards or (e.kind == "play" and e.cards == (action.card,))
                    continue
                assert e.kind in ("hand", "give")
                for seat in e.visible_to:  # (the deal may have changed: check against the new one)
                    assert set(e.cards) <= allowed_cards(st, seat), f"seed {seed}: event {e.text} to {seat}"
                if e.kind == "hand":
                    assert e.visible_to == {e.seat} and st.sees[e.seat]
                else:
                    g, r = next((g, r) for g, r, c in st.exchanges if c == e.cards)
                    assert e.visible_to == {g, r}
    if options.get("blind_nil", True):
        assert blind_states > 100 and blind_bidders_waiting > 0
    if options.get("blind_nil_exchange", True) and options.get("blind_nil", True):
        assert exchanges_seen > 0
    if not options.get("blind_nil", True):
        assert blind_states == 0


def shuffle_hidden(st: SpadesState, seat: int, rng: random.Random) -> SpadesState:
    """A copy that differs only in cards ``seat`` cannot see (others' hands, and its own
    hand if it has not seen it), keeping every hand size."""
    other = st.clone()
    known = exchanged_with(st, seat)
    hidden_seats = [s for s in range(4) if s != seat or not st.sees[seat]]
    pool = [c for s in hidden_seats for c in st.hands[s] if c not in known]
    rng.shuffle(pool)
    for s in hidden_seats:
        keep = [c for c in st.hands[s] if c in known]
        need = len(st.hands[s]) - len(keep)
        other.hands[s] = sorted(keep + pool[:need], key=SORT_KEY.__getitem__)
        pool = pool[need:]
    assert not pool
    # The exchanges of the other side (cards the seat never saw) are scrambled too.
    other.exchanges = [[g, r, (None if c is None else c if seat in (g, r) else tuple(reversed(c)))]
                       for g, r, c in st.exchanges]
    return other


@pytest.mark.parametrize("options", LEAK_OPTIONS[:2])
def test_view_invariant_under_hidden_changes(options):
    game = get_game("spades", options)
    compared = changed = 0
    for seed in range(20):
        st = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not st.is_terminal:
            if rng.random() < 0.3:
                for seat in range(4):
                    other = shuffle_hidden(st, seat, rng)
                    other._view_cache = None
                    changed += other.hands != st.hands
                    assert other.view(seat) == st.view(seat)
                    if st.current_seat == seat:
                        assert other.legal_actions() == st.legal_actions()
                    compared += 1
            st.apply(rng.choice(st.legal_actions()))
    assert compared > 1000 and changed > compared // 2


def test_blind_seat_view_invariant_under_own_hand_swap():
    game = get_game("spades", {"first_dealer": 3})
    st = game.new_initial_state(7)
    assert st.legal_actions() == [Look(), Bid(0, True)]
    other = st.clone()
    other.hands[0], other.hands[1] = st.hands[1], st.hands[0]
    other._view_cache = None
    assert other.view(0) == st.view(0)  # seat 0 has not looked: its cards are unknown to it
    st.apply(Look())
    other.apply(Look())
    assert other.view(0) != st.view(0) and other.view(0).hand == tuple(st.hands[1])


def test_spectator_sees_everything_after_the_game():
    game = get_game("spades", {"deals": 2})
    st = game.new_initial_state(4)
    rng = random.Random(4)
    while not st.is_terminal:
        assert st.spectator_view().record == () and st.spectator_view().seat is None
        st.apply(rng.choice(st.legal_actions()))
    final = st.spectator_view()
    assert [r.deal for r in final.record] == [1, 2]
    for r in final.record:
        assert sorted(c for h in r.hands for c in h.cards) == list(STANDARD_DECK)
    assert final.phase is Phase.GAME_OVER and final.to_act is None


def test_exchange_cards_shown_after_the_game_only():
    game = get_game("spades", {"deals": 1, "first_dealer": 3})
    st = game.new_initial_state(2)
    for a in ("look", "bid 3", "look", "bid 3", "bid blind_nil", "look", "bid 3"):
        st.apply(game.parse_action(a))
    st.apply(st.legal_actions()[0])
    assert st.view(1).exchanges[0].cards == () and st.view(2).exchanges[0].cards != ()
    assert st.view(1).exchanges[0].done and not st.view(1).exchanges[1].done
    rng = random.Random(0)
    while not st.is_terminal:
        st.apply(rng.choice(st.legal_actions()))
    assert len(st.spectator_view().record[0].exchanges[0].cards) == 2


def test_views_and_actions_round_trip_through_the_wire():
    from cardarena.wire import codec as convert

    game = get_game("spades", {"deals": 1, "first_dealer": 3})
    checked_kinds = set()
    for seed in range(6):
        st = game.new_initial_state(seed)
        rng = random.Random(seed)
        while True:
            views = [st.view(s) for s in range(4)] + [st.spectator_view()]
            for v in views:
                assert convert.view_from_proto("spades", convert.view_to_proto("spades", v)) == v
            if st.is_terminal:
                break
            for a in st.legal_actions()[:20]:
                assert convert.action_from_proto("spades", convert.action_to_proto("spades", a)) == a
                checked_kinds.add(type(a).__name__)
            st.apply(rng.choice(st.legal_actions()))
    assert checked_kinds == {"Look", "Bid", "Give", "Play"}
