"""Spot engine: properties over many seeded random matches, and hidden information.

Invariants checked at every step: card conservation, only legal melds on the table,
the 4-card drop limit and one new meld per turn, money conservation (balances + pot = 0),
every hand ends within its guard. Hidden information: no view or visible event shows a
card of another hand (unless it was publicly picked up from the discard pile) or of the
stock. The generic checks (playouts, determinism, re-deal invariance of views and
events, no hidden card in views, events or action texts) run for every game in
test_conformance.py.
"""

from __future__ import annotations

import dataclasses
import random
import re

import pytest

from cardarena.games import events_for, get_game
from cardarena.games.cards import STANDARD_DECK, Card
from cardarena.games.spot import Discard, LayOff, Meld, MeldKind, Phase, SpotLayoff, SpotTableMeld
from tests.games.conformance import walk_cards


def _valid_table_meld(m: SpotTableMeld) -> bool:
    ranks = [x.rank for x in m.cards]
    suits = {x.suit for x in m.cards}
    if m.kind is MeldKind.GROUP:
        return 3 <= len(m.cards) <= 4 and len(set(ranks)) == 1 and len(suits) == len(m.cards)
    return len(m.cards) >= 3 and len(suits) == 1 and ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def _check_invariants(state) -> None:
    n = state.game.num_seats
    # card conservation: every card of the deck exactly once
    cards = [c for h in state._hands for c in h] + state._stock + state._discard
    cards += [c for m in state._melds for c in m.cards]
    assert sorted(cards) == list(STANDARD_DECK)
    # only legal melds, ids in creation order
    for i, m in enumerate(state._melds):
        assert m.id == i and _valid_table_meld(m), m
    # the drop limit; money conservation (in sixtieths, exactly)
    assert 0 <= state._dropped <= 4
    assert sum(state._balances60) + state._pot60 == 0
    v = state.view(state.current_seat)
    assert abs(sum(v.balances) + v.pot) < 1e-9
    assert sum(v.hand_counts) + v.stock_count + len(v.discard_pile) + sum(len(m.cards) for m in v.melds) == 52
    assert len(v.hand_counts) == n and v.turn_number < state.game.options.max_turns_per_hand


def _pick(state, rng, greedy):
    legal = state.legal_actions()
    if greedy:  # drop whenever possible, so that hands are often gone out of
        drops = [a for a in legal if isinstance(a, (Meld, LayOff))]
        if drops and rng.random() < 0.9:
            return rng.choice(drops)
    return rng.choice(legal)


def _playout(game, seed, on_step=None, on_turn=None, greedy=False):
    """A seeded random match; after each turn ``on_turn(actions, cards at its start, state,
    seat, the summary of the hand it ended or None)``."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    turn: list = []
    start = len(state._hands[state.current_seat])
    steps = 0
    while not state.is_terminal:
        if on_step:
            on_step(state)
        seat = state.current_seat
        action = _pick(state, rng, greedy)
        before = state.view(seat).last_hand
        state.apply(action)
        steps += 1
        assert steps < 200_000
        turn.append(action)
        if isinstance(action, Discard):
            if on_turn:
                after = state.view(seat).last_hand
                on_turn(turn, start, state, seat, after if after is not before else None)
            turn = []
            if not state.is_terminal:
                start = len(state._hands[state.current_seat])
    return state


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_invariants_over_random_matches(players):
    game = get_game("spot", {"players": players, "hands": players})
    stats = {"turns": 0, "went_out": 0}

    def on_turn(actions, start, state, seat, ended):
        stats["turns"] += 1
        melds = [a for a in actions if isinstance(a, Meld)]
        drops = sum(len(a.cards) for a in melds) + sum(isinstance(a, LayOff) for a in actions)
        assert len(melds) <= 1 and drops <= 4
        assert isinstance(actions[-1], Discard) and sum(isinstance(a, Discard) for a in actions) == 1
        if ended is not None and ended.went_out is not None:
            assert ended.went_out == seat
            stats["went_out"] += 1
            assert start <= 4  # more than 4 cards at the start of the turn: cannot go out

    for seed in range(12 if players < 6 else 20):
        state = _playout(game, 1000 * players + seed, _check_invariants, on_turn, greedy=seed % 2 == 0)
        assert abs(sum(state.outcome().scores)) < 1e-9
        starts = sum(e.kind == "hand_start" for e in state.log)
        assert starts == players  # every deal ended
    assert stats["turns"] > 100
    assert stats["went_out"] > 0 or players == 6  # 6 players: a 3-card stock, no time to go out


def test_going_out_happens_and_pays_the_pot():
    """Random players do go out sometimes; each time the pot is taken and the others pay."""
    game = get_game("spot", {"players": 2, "hands": 6})
    outs = 0
    for seed in range(30):
        state = _playout(game, seed)
        for e in state.log:
            if e.kind == "score" and "went out" in e.text:
                outs += 1
                assert e.text.endswith("pot 0")
    assert outs > 0


def test_deal_depends_only_on_seed_and_hand_index():
    game = get_game("spot", {"players": 3, "hands": 3, "first_dealer": 0})
    deals = []
    for play_seed in (1, 2):
        rng = random.Random(play_seed)
        state = game.new_initial_state(77)
        while not state.is_terminal:
            state.apply(rng.choice(state.legal_actions()))
        deals.append([(e.seat, e.cards) for e in state.log if e.kind == "deal" and e.visible_to])
    assert deals[0] == deals[1] and len(deals[0]) == 9
    other = get_game("spot", {"players": 3, "hands": 3, "first_dealer": 0}).new_initial_state(78)
    assert [(e.seat, e.cards) for e in other.log if e.kind == "deal" and e.visible_to] != deals[0][:3]


# --------------------------------------------------------------------------------------
# Hidden information


def _hidden_from(state, seat) -> set[Card]:
    """Cards ``seat`` may not know: the stock and other hands, minus public pickups."""
    public = {p.card for p in state._pickups}
    hidden = set(state._stock)
    for p, h in enumerate(state._hands):
        if p != seat:
            hidden |= set(h) - public
    return hidden


def _current_hand_events(state, seat):
    log = state.log
    start = next(i for i in range(len(log) - 1, -1, -1) if log[i].kind == "hand_start")  # the last, read from the end
    return events_for(log[start:], seat)


def _public_layoffs(events) -> tuple[SpotLayoff, ...]:
    """The layoffs of a hand as its public events tell them (``events``: the hand's, from
    its ``hand_start``): who laid off which card onto which meld, in which turn."""
    out, turn = [], 1
    for e in events:
        if e.kind == "discard":
            turn += 1
        elif e.kind == "layoff":
            (card,) = e.cards
            out.append(SpotLayoff(e.seat, card, int(re.search(r"-> m(\d+)", e.text).group(1)), turn))
    return tuple(out)


def test_views_and_events_never_show_hidden_cards():
    checked = 0
    for players in (2, 4, 6):
        game = get_game("spot", {"players": players, "hands": 2})

        def on_step(state):
            nonlocal checked
            for seat in range(players):
                v = state.view(seat)
                assert v.hand == tuple(sorted(state._hands[seat]))
                hidden = _hidden_from(state, seat)
                seen = set(walk_cards(dataclasses.replace(v, last_hand=None)))
                events = _current_hand_events(state, seat)
                seen |= set(walk_cards(events))
                assert not (seen & hidden), (seat, seen & hidden)
                assert v.layoffs == _public_layoffs(events)  # what the rules make public, no more
                checked += 1
            spec = state.spectator_view()
            assert spec.hand == () and spec.unused_stock == () and spec.layoffs == v.layoffs
            assert not (set(walk_cards(dataclasses.replace(spec, last_hand=None))) & _hidden_from(state, -1))

        for seed in range(4):
            state = _playout(game, seed, on_step=on_step)
            spec = state.spectator_view()
            assert spec.game_over and set(spec.unused_stock) == set(state._stock)
    assert checked > 1000


def test_first_players_ninth_card_and_stock_draws_are_private():
    game = get_game("spot", {"first_dealer": 0})
    for seed in range(20):
        state = game.new_initial_state(seed)
        fp_cards = set(state._hands[1])
        assert len(fp_cards) == 9 and set(state.view(1).hand) == fp_cards
        for seat in (0, 2, 3):
            seen = set(walk_cards(state.view(seat))) | set(walk_cards(events_for(state.log, seat)))
            assert not seen & fp_cards
            assert state.view(seat).hand_counts[1] == 9
        # play the first turn, then the next player draws from the stock
        rng = random.Random(seed)
        while state.current_seat == 1:
            state.apply(rng.choice(state.legal_actions()))
        top = state._stock[-1]
        events = state.apply(state.game.parse_action("draw stock"))
        assert top in state._hands[2]
        for seat in (0, 1, 3):
            assert top not in walk_cards(events_for(events, seat))
            assert top not in walk_cards(state.view(seat))
        assert top in walk_cards(events_for(events, 2)) and top in state.view(2).hand


def test_discard_pickup_is_public():
    game = get_game("spot", {"first_dealer": 0})
    state = game.new_initial_state(3)
    rng = random.Random(0)
    while state.current_seat == 1:
        state.apply(rng.choice(state.legal_actions()))
    top = state.view(2).discard_pile[-1]
    events = state.apply(state.game.parse_action("draw discard"))
    for seat in range(4):
        assert top in walk_cards(events_for(events, seat))
        assert state.view(seat).pickups[-1].card == top and state.view(seat).pickups[-1].seat == 2


def test_layoffs_are_public_and_the_same_for_every_viewer():
    """Every layoff of the hand is in every view (each seat's, the spectator's), in order:
    who laid off which card onto which meld, in which turn; with the owner's melds they
    make the meld's cards. A new hand starts with none."""
    game = get_game("spot", {"players": 3, "hands": 3})
    laid = hands = 0
    for seed in range(3):
        rng = random.Random(seed)
        state, melded = game.new_initial_state(seed), {}
        hand = 1
        while not state.is_terminal:
            action = _pick(state, rng, greedy=True)
            seat, turn = state.current_seat, state.view(0).turn_number + 1
            before = state.view(0).layoffs
            state.apply(action)
            views = [state.view(s) for s in range(3)] + [state.spectator_view()]
            assert len({v.layoffs for v in views}) == 1
            layoffs = views[0].layoffs
            if views[0].hand_number != hand or state.is_terminal:
                hand, melded = views[0].hand_number, {}
                hands += 1
                assert state.is_terminal or layoffs == ()
                continue
            if isinstance(action, Meld):
                melded[len(melded)] = action.cards
            if isinstance(action, LayOff):
                assert layoffs == before + (SpotLayoff(seat, action.card, action.meld, turn),)
                laid += 1
            else:
                assert layoffs == before
            for m in views[0].melds:
                assert sorted(m.cards) == sorted(melded[m.id] + tuple(x.card for x in layoffs if x.meld == m.id))
    assert laid > 10 and hands >= 9


def test_layoffs_are_the_same_whatever_the_hidden_cards():
    """Every card hidden from a seat (the stock, the other hands but for the cards seen
    taken from the discard pile) shuffled among its places, again and again: the seat's
    view, the layoffs with it, is unchanged."""
    game = get_game("spot", {"players": 4})
    rng = random.Random(5)
    checked = 0
    for seed in range(4):
        state = game.new_initial_state(seed)
        while not state.is_terminal and not state.view(0).layoffs:
            state.apply(_pick(state, rng, greedy=True))
        assert state.view(0).layoffs
        for seat in range(4):
            view = state.view(seat)
            taken = {p.card for p in view.pickups}
            for _ in range(4):
                other = state.clone()
                places = [other._stock] + [other._hands[s] for s in range(4) if s != seat]
                pool = [c for x in places for c in x if c not in taken]
                rng.shuffle(pool)
                for x in places:
                    for i, c in enumerate(x):
                        if c not in taken:
                            x[i] = pool.pop()
                assert other.view(seat) == view and other.spectator_view() == state.spectator_view()
                checked += other._hands != state._hands
    assert checked  # the shuffles moved hidden cards


def test_spectator_view_hides_hands_while_running():
    state = get_game("spot").new_initial_state(1)
    v = state.spectator_view()
    assert v.seat is None and v.hand == () and sum(v.hand_counts) == 33 and 9 in v.hand_counts
    assert v.phase is Phase.DROP and not walk_cards(v)
