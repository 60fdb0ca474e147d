"""Spite and Malice: seeded property tests (card conservation, rule invariants,
termination) and hidden-information tests (leaks against the true state), on the
default options, each preset and several variants. The generic checks (playouts,
determinism, re-deal invariance, no hidden card in views, events or action texts) run
for every game in test_conformance.py."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from cardarena.games import Card, Event, IllegalActionError, events_for
from cardarena.games.cards import JOKER
from cardarena.games.spite_malice import (
    FIRST_PLAYER_TIE_GUARD,
    JOKER_FIRST_PLAYER_RANK,
    Load,
    Play,
    SourceKind,
    SpiteAndMalice,
    SpiteAndMaliceState,
    SpiteAndMaliceView,
)
from tests.games.conformance import same_cards, walk_cards
from tests.games.test_spite_malice import do, layout, pile

CONFIGS: dict[str, tuple[dict, str | None]] = {
    "default": ({}, None),
    "standard": ({}, "standard"),
    "massachusetts": ({}, "massachusetts"),
    "book": ({}, "book"),
    "book-reshuffle": ({"deadlock_rule": "reshuffle", "max_deadlock_reshuffles": 2}, "book"),
    "book-hand-ace-two": ({"deadlock_rule": "hand_ace_two_then_end", "center_limit": 4}, "book"),
    "three-players": ({"players": 3, "center_limit": 4, "stalemate_rule": "fewer_payoff_wins"}, None),
    "partners-4": ({"players": 4, "partnerships": True, "payoff_size": 8}, None),
    "partners-6-series": ({"players": 6, "partnerships": True, "payoff_size": 5, "series_scoring": True, "match_target": 6}, None),
    "jokers-kings-natural": ({"jokers": 4, "kings_wild": False, "wild_excluded_ranks": "A,7"}, None),
    "loading": ({"loading": True, "payoff_size": 10}, None),
    "deferred": ({"center_limit": "unlimited", "recycle": "deferred", "payoff_size": 8}, None),
    "series": ({"series_scoring": True, "match_target": 8, "payoff_size": 6}, None),
    "small-fast-win": ({"payoff_size": 3, "decks": 1, "jokers": 2}, None),
}


def make(name: str) -> SpiteAndMalice:
    opts, preset = CONFIGS[name]
    return SpiteAndMalice(opts, preset)


def probes(state: SpiteAndMaliceState) -> list:
    """Plausible wrong actions: cards not in hand, wrong piles, forbidden moves."""
    g, p = state.game, state.current_seat
    hand = set(state.hands[p])
    out = []
    for c in (Card.parse("AS"), Card.parse("KH"), Card.parse("7C"), Card.parse("JK")):
        if c not in hand:
            out.append(g.parse_action(f"play hand:{c} -> center:new"))
            out.append(g.parse_action(f"play hand:{c} -> side:0"))
    own = sorted(hand)[0] if hand else Card.parse("2C")
    out += [
        g.parse_action("play payoff -> side:0"),
        g.parse_action("play side:0 -> side:1"),
        g.parse_action(f"play hand:{own} -> center:{len(state.center)}"),
        g.parse_action(f"play hand:{own} -> side:7"),
        g.parse_action("load side:0 -> payoff:1"),
        g.parse_action(f"load hand:{own} -> payoff:{p}"),
        g.parse_action("play side:5 -> center:0"),
    ]
    if g.partner_of[p] is None:
        out.append(g.parse_action("play partner_payoff -> center:0"))
    if not g.options.may_end_without_discard:
        out.append(g.parse_action("end"))
    return out


def in_order(g: SpiteAndMalice, stack: list[Card]) -> bool:
    """Whether every card of a side stack is one ``side_accepts`` took on the cards below
    it; remembered per game and stack (``_IN_ORDER``): at every step of a playout all but
    one stack are those of the step before, and reading each again was a sixth of this
    file's CPU."""
    key = (g, *stack)
    ok = _IN_ORDER.get(key)
    if ok is None:
        if len(_IN_ORDER) > 20_000:
            _IN_ORDER.clear()
        ok = _IN_ORDER[key] = all(g.side_accepts(stack[:i], c) for i, c in enumerate(stack))
    return ok


_IN_ORDER: dict[tuple, bool] = {}


def check_invariants(state: SpiteAndMaliceState, pack: Counter) -> None:
    g = state.game
    cards = state.all_cards()
    assert same_cards(cards, pack), \
        f"every card must be in exactly one place: {cards - pack} appeared, {pack - cards} vanished"
    if g.limit is not None:
        assert len(state.center) <= g.limit
    for pl in state.center:
        assert 0 < len(pl) < g.top_rank
        assert all(g.fits(c, i) for i, c in enumerate(pl)), pl
    for pl in state.completed:
        assert len(pl) == g.top_rank
    assert all(len(h) <= 5 for h in state.hands)
    for s in range(g.n):
        assert 0 <= state.hidden[s] <= max(0, len(state.payoff[s]) - 1)
        for stack in state.side[s]:
            assert in_order(g, stack), stack
    assert state.turns_played <= g.options.max_turns


# ---------------------------------------------------------------------------------------
# Properties over many seeded games.


@pytest.mark.parametrize("name", list(CONFIGS))
def test_conservation_invariants_and_termination(name):
    g = make(name)
    for seed in range(6):
        rng = random.Random(1000 + seed)
        st = g.new_initial_state(seed)
        pack = st.all_cards()
        steps = 0
        while not st.is_terminal:
            check_invariants(st, pack)
            st.apply(rng.choice(st.legal_actions()))
            steps += 1
            assert steps < 200_000
        check_invariants(st, pack)
        assert st.turns_played <= g.options.max_turns


def test_guard_bounds_a_never_ending_game():
    # Players who only ever discard (the stock is large) never empty a pile or the
    # stock: the max_turns guard must stop the game at exactly max_turns.
    g = SpiteAndMalice({"max_turns": 25, "payoff_size": 5, "decks": 6})
    st = g.new_initial_state(0)
    while not st.is_terminal:
        acts = st.legal_actions()
        st.apply(next(a for a in acts if isinstance(a, Play) and a.source.kind is SourceKind.HAND and a.target.value == "side"))
    assert st.turns_played == 25 and st.outcome().reason.value == "turn_limit"


def test_book_pass_loops_always_end():
    for rule in ("end_game", "hand_ace_two_then_end", "reshuffle"):
        g = SpiteAndMalice({"deadlock_rule": rule}, preset="book")
        for seed in range(3):
            st = g.new_initial_state(seed)
            while not st.is_terminal:  # everybody passes whenever allowed
                acts = st.legal_actions()
                st.apply(acts[-1] if str(acts[-1]) == "end" else acts[0])
            assert st.turns_played < 200


# ---------------------------------------------------------------------------------------
# Hidden information.

#: Single-deck configurations: every card is unique, so "a hidden card in a view" is exact.
UNIQUE = {
    "unique-standard": {"decks": 1, "payoff_size": 10},
    "unique-loading": {"decks": 1, "payoff_size": 10, "loading": True},
    "unique-deferred": {"decks": 1, "payoff_size": 8, "center_limit": "unlimited", "recycle": "deferred"},
    "unique-partners": {"players": 4, "partnerships": True, "decks": 1, "payoff_size": 4},
}


def hidden_from(state: SpiteAndMaliceState, seat: int) -> set[Card]:
    """Cards ``seat`` may not see: other hands, the stock, every face-down pay-off card."""
    out = set(state.stock)
    for s in range(state.game.n):
        if s != seat:
            out.update(state.hands[s])
        out.update(state.payoff[s][: state.hidden[s]])
    return out


def public_choice(events: list[Event]) -> tuple[int, tuple[tuple[int, int, Card], ...]]:
    """The current game's first-player choice (§2.3) as the public events a viewer saw
    tell it: the seat of the last ``first_player`` event, and (round, seat, card) of every
    card the ``turn_up`` events of the table just before it turned up."""
    end = max(i for i, e in enumerate(events) if e.kind == "first_player")
    rounds = []
    i = end - 1
    while i >= 0 and (events[i].kind == "first_player_tie" or (events[i].kind == "turn_up" and events[i].seat is None)):
        if events[i].kind == "turn_up":
            rounds.append(list(zip(map(int, re.findall(r"seat (\d+)", events[i].text)), events[i].cards)))
        i -= 1
    rounds.reverse()
    return events[end].seat, tuple((r, s, c) for r, cards in enumerate(rounds) for s, c in cards)


def view_choice(view: SpiteAndMaliceView) -> tuple[int, tuple[tuple[int, int, Card], ...]]:
    """The view's first-player choice, as ``public_choice`` gives it."""
    return view.first_player, tuple((t.round, t.seat, t.card) for t in view.first_player_turn_ups)


def view_cards_now(view: SpiteAndMaliceView) -> list[Card]:
    """Cards of a view except the public-history fields (recycled, turn_moves, the
    first player's turn-ups), whose cards may legitimately have gone back into the stock
    or a pay-off pile since they were seen."""
    parts = [view.hand, view.players, view.center, view.completed, view.reveal]
    return walk_cards(parts)


@pytest.mark.parametrize("name", list(UNIQUE))
def test_views_and_events_never_show_hidden_cards(name):
    g = SpiteAndMalice(UNIQUE[name])
    for seed in range(8):
        rng = random.Random(seed)
        st = g.new_initial_state(seed)
        choice = {s: public_choice(events_for(st.log, s)) for s in (*range(g.n), None)}
        assert len(set(choice.values())) == 1 and view_choice(st.spectator_view()) == choice[None]
        for s in range(g.n):  # the initial deal
            for e in events_for(st.log, s):
                if e.visible_to is not None:
                    assert e.visible_to == frozenset({s}) and set(e.cards) <= set(st.hands[s])
        while not st.is_terminal:
            before = {s: hidden_from(st, s) for s in range(g.n)}
            action = rng.choice(st.legal_actions())
            moved = action.source.card if isinstance(action, (Play, Load)) else None
            new = st.apply(action)
            for s in range(g.n):
                after = hidden_from(st, s)
                v = st.view(s)
                assert v.hand == tuple(sorted(st.hands[s]))
                assert view_choice(v) == choice[s], "the first-player choice is not what its events told the seat"
                assert not set(view_cards_now(v)) & after, "a view shows a hidden card"
                assert set(v.recycled) | {m.card for m in v.turn_moves} <= set(st.all_cards())
                for e in events_for(new, s):
                    if e.visible_to is not None:
                        assert e.visible_to == frozenset({s}) and set(e.cards) <= set(st.hands[s])
                    leaked = (set(e.cards) & before[s] & after) - {moved}
                    assert not leaked, f"event {e.text!r} shows hidden cards {leaked}"
                    if e.kind == "draw" and e.visible_to is None:
                        assert e.cards == ()
            if not st.is_terminal:
                sv = st.spectator_view()
                assert sv.hand == () and sv.reveal is None and view_choice(sv) == choice[None]
                assert not set(view_cards_now(sv)) & hidden_from(st, -1)


def _rank(card: Card) -> int:
    """A card's rank in the first player's choice (§2.3: A = 1 .. K = 13, JK = 14)."""
    return JOKER_FIRST_PLAYER_RANK if card == JOKER else card // 4 + 1


@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_first_player_choice_is_public_the_rules_own_and_every_games(name):
    """Every view (each seat's, the spectator's) shows the current game's choice of its
    first player as its public events told it, the same for all: round 0 turns up every
    seat's pay-off top, each later round the tops of the seats tied at the highest card,
    and the highest card of the last round plays first. A series' next game chooses again."""
    g = make(name)
    games = ties = 0
    for seed in range(60):
        if games >= 12 and ties:
            break
        rng = random.Random(seed)
        st = g.new_initial_state(seed)
        number = -1
        while not st.is_terminal and (number < 0 or g.options.series_scoring):  # a series: every game's start
            if st.game_index != number:  # a game begins (no action of it played yet)
                number = st.game_index
                views = [st.view(s) for s in range(g.n)] + [st.spectator_view()]
                first, turn_ups = public_choice(events_for(st.log, None))
                assert {view_choice(v) for v in views} == {(first, turn_ups)}
                assert first == st.current_seat and all(v.turn_number == 0 for v in views)
                rounds = [[(s, c) for r, s, c in turn_ups if r == k] for k in range(turn_ups[-1][0] + 1)]
                assert [s for s, _ in rounds[0]] == list(range(g.n))
                for this, after in zip(rounds, rounds[1:]):
                    best = max(_rank(c) for _, c in this)
                    assert [s for s, _ in after] == [s for s, c in this if _rank(c) == best]
                best = max(_rank(c) for _, c in rounds[-1])
                assert [s for s, c in rounds[-1] if _rank(c) == best] == [first] or len(rounds) == FIRST_PLAYER_TIE_GUARD
                games += 1
                ties += len(rounds) > 1
            st.apply(rng.choice(st.legal_actions()))
    assert games >= 12 and ties, "no tie was turned up: the later rounds went untested"


def test_the_first_player_choice_is_the_same_whatever_the_hidden_cards():
    """Every card hidden from a seat (the other hands, the stock, every face-down pay-off
    card: the tied tops reshuffled into their piles among them) shuffled among its places,
    again and again: the seat's view, the first player's turn-ups with it, is unchanged."""
    g = SpiteAndMalice({"decks": 1, "payoff_size": 8})
    tied = [seed for seed in range(40) if g.new_initial_state(seed).view(0).first_player_turn_ups[-1].round]
    assert len(tied) >= 2
    for seed in tied[:3]:
        st = g.new_initial_state(seed)
        # the tops turned up in round 0 and reshuffled face down into their piles
        buried = {(s, c) for s in range(g.n) for c in st.payoff[s][: st.hidden[s]]}
        reshuffled = {(t.seat, t.card) for t in st.view(0).first_player_turn_ups if t.round == 0} & buried
        assert reshuffled
        moved = 0
        for seat in range(g.n):
            view, rng = st.view(seat), random.Random(seed)
            for _ in range(5):
                other = st.clone()
                places = [other.stock] + [other.hands[s] for s in range(g.n) if s != seat]
                places += [other.payoff[s] for s in range(g.n)]
                cut = [len(x) if i < g.n else other.hidden[i - g.n] for i, x in enumerate(places)]
                pool = [c for x, k in zip(places, cut) for c in x[:k]]
                rng.shuffle(pool)
                for x, k in zip(places, cut):
                    x[:k], pool = pool[:k], pool[k:]
                other._pv = other._sv = other._sc = other._cv = other._rv = None  # the views' caches
                assert other.view(seat) == view
                assert other.spectator_view() == st.spectator_view()
                moved += sum(c not in other.payoff[s] for s, c in reshuffled)
        assert moved, "no reshuffled top left its pile: the shuffles hid nothing"


def test_recycled_cards_public_but_stock_order_not():
    """After a recycle both seats see which cards went in (sorted), never their order."""
    base = dict(hands=["QS 9S 9H 9H 9C", "8S 8S 8H 8H 8C"], center=[pile(11)], stock="5H 5D 6D 6H 7D")
    a = layout(**base, seed=1)
    b = layout(**base, seed=2)  # another shuffle stream: another stock order
    ea, eb = do(a, "play hand:QS -> center:0"), do(b, "play hand:QS -> center:0")
    assert a.stock != b.stock and Counter(a.stock) == Counter(b.stock)
    for s in range(2):
        assert a.view(s) == b.view(s)
        assert a.view(s).recycled == tuple(sorted(pile(11) + [Card.parse("QS")]))
    rec = [e for e in ea if e.kind == "recycle"]
    assert rec and rec[0].visible_to is None and list(rec[0].cards) == sorted(rec[0].cards)
    assert [e for e in ea if e.kind == "recycle"] == [e for e in eb if e.kind == "recycle"]


def test_owner_does_not_see_own_face_down_payoff():
    a = layout(payoffs=["2H 3H 4H 5H 9C", "4D 4D 10C"])
    b = layout(payoffs=["JH QH KH AH 9C", "4D 4D 10C"])
    for s in range(2):
        assert a.view(s) == b.view(s)
    v = a.view(0).players[0]
    assert v.payoff_face_up == (Card.parse("9C"),) and v.payoff_count == 5
    for s in range(2):
        assert not {Card.parse(t) for t in ("2H", "3H", "4H", "5H")} & set(walk_cards(a.view(s)))


def test_other_hands_and_stock_not_in_view():
    a = layout(hands=["9S 9S 9H 9H 9C", "2C 3C 4C 5C 6C"], stock="7D 8D 10D")
    b = layout(hands=["9S 9S 9H 9H 9C", "JC QC KC 2D 3D"], stock="10D 8D 7D")
    assert a.view(0) == b.view(0)
    assert a.view(0).players[1].hand_count == 5 and a.view(0).stock_count == 3
    assert a.view(1) != b.view(1)  # but seat 1 does see its own hand


def test_spectator_view_reveals_everything_after_the_end():
    st = layout(payoffs=["7C", "4D 4D 5D"], center=[pile(6)])
    do(st, "play payoff -> center:0")
    sv = st.spectator_view()
    assert sv.reveal is not None and sv.reveal.payoffs[1].cards == tuple(st.payoff[1])
    assert sv.reveal.hands[1].cards == tuple(st.hands[1]) and sv.reveal.stock == tuple(st.stock)


def test_illegal_probe_messages_are_illegal_action_errors():
    st = make("default").new_initial_state(0)
    for pr in probes(st):
        if pr in st.legal_actions():
            continue
        with pytest.raises(IllegalActionError):
            st.apply(pr)
