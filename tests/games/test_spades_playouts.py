"""Spades over many seeded random games: rule invariants and hidden information (rules
§6) checked on views and events alike. The generic checks (playouts, determinism, card
conservation, re-deal invariance, no hidden card in views, events or action texts) run
for every game in test_conformance.py."""

from __future__ import annotations

import random

import pytest

from cardarena.games import Card, get_game
from cardarena.games.cards import STANDARD_DECK
from cardarena.games.spades import SORT_KEY, Bid, Give, Look, Phase, Play, SpadesState
from tests.games.conformance import walk_cards

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


@pytest.mark.parametrize("options", [
    {"max_deals": 3},
    {"max_deals": 3, "blind_nil_exchange_order": "bidder_first"},
    {"target": 150, "lose_at": -150, "simultaneous_target_rule": "higher_deal_score"},
])
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


def allowed_cards(st: SpadesState, seat: int, played: set[Card] | None = None) -> set[Card]:
    """What ``seat`` may see: the cards played, those it exchanged, its hand once looked at
    (``played``: the played cards' set, when already known for this state)."""
    allowed = (set(played_cards(st)) if played is None else played) | exchanged_with(st, seat)
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
            played = set(played_cards(st))  # once a step, for every seat's checks
            for seat in range(4):
                v = st.view(seat)
                cards = set(walk_cards(v))
                allowed = allowed_cards(st, seat, played)
                assert cards <= allowed, f"seed {seed}: seat {seat} sees {cards - allowed}"
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
                        assert not set(c) & cards - played
            spectator = set(walk_cards(st.spectator_view()))
            assert spectator <= played and st.spectator_view().hand == ()
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


@pytest.mark.parametrize("seed", range(4))
def test_views_patched_by_a_bid_or_a_card_equal_views_built_afresh(seed):
    """Bids, looks and card plays patch the shared view fields in place (attempt 96):
    every seat's view and the spectator's, asked at every decision, equal the views of a
    clone that builds them from the state."""
    st = get_game("spades", {"deals": 2}).new_initial_state(seed)
    rng = random.Random(seed)
    while not st.is_terminal:
        fresh = st.clone()  # (a clone's views are built afresh)
        assert [st.view(s) for s in range(4)] == [fresh.view(s) for s in range(4)]
        assert st.spectator_view() == fresh.spectator_view()
        shared, bidding = st._view_cache, st.phase is Phase.BIDDING
        st.apply(rng.choice(st.legal_actions()))
        if bidding and st.phase is Phase.BIDDING:  # patched, not built again
            assert st._view_cache is shared


def test_recurring_events_are_interned():
    """A deal's, a look's, a bid's, an exchange's and a give's events are the engine's
    interned objects (attempt 98: the wire finds their bytes by identity), as plays and
    tricks are: two games from the same seed and actions log the same objects."""
    game = get_game("spades", {"deals": 2})
    kinds = {"deal", "look", "bid", "exchange", "give", "play", "trick"}
    for seed in range(6):
        one, two = game.new_initial_state(seed), game.new_initial_state(seed)
        rng = random.Random(seed)
        while not one.is_terminal:
            action = rng.choice(one.legal_actions())
            one.apply(action)
            two.apply(action)
        pairs = [(a, b) for a, b in zip(one.log, two.log, strict=True) if a.kind in kinds]
        assert {a.kind for a, _ in pairs} == kinds and all(a is b for a, b in pairs)


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
    planned = st.view(1).exchanges
    st.apply(st.legal_actions()[0])
    assert st.view(1).exchanges[0].cards == () and st.view(2).exchanges[0].cards != ()
    assert st.view(1).exchanges[0].done and not st.view(1).exchanges[1].done
    # the exchange facts are interned (attempt 99): the give not made yet is the same object
    assert st.view(1).exchanges[1] is planned[1] and st.view(3).exchanges[1] is planned[1]
    rng = random.Random(0)
    while not st.is_terminal:
        st.apply(rng.choice(st.legal_actions()))
    assert len(st.spectator_view().record[0].exchanges[0].cards) == 2
