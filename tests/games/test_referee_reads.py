"""The engines' referee-side reads (``stock_cards``, ``hand_cards``, Spot's ``table_melds``): what a
replay of a record needs beside the views (arbiter/rating/draws.py, issue 39). Over seeded games of
random legal play, each agrees with the views (a seat's hand, the stock's size, the melds, Spot's
unused stock once over), the stock is in draw order (the next draw takes its first cards), and each
is an immutable copy that later play does not change."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cardarena.games import get_game

GAMES = [("spot", {"hands": 2}), ("spite-and-malice", {"payoff_size": 5, "stalemate_rule": "fewer_payoff_wins"})]


def _private_draw(events):
    """The action's first private draw (a draw its drawer alone sees), if any."""
    for e in events:
        if e.kind == "draw" and e.cards and e.visible_to is not None:
            return e
    return None


@pytest.mark.parametrize("name,options", GAMES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_reads_agree_with_the_views_and_the_stock_is_in_draw_order(name, options, seed) -> None:
    game = get_game(name, options)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    steps = draws = 0
    while not state.is_terminal and steps < 400:
        for seat in range(game.num_seats):
            hand = state.hand_cards(seat)
            assert isinstance(hand, tuple) and tuple(sorted(hand)) == state.view(seat).hand
        stock = state.stock_cards()
        assert isinstance(stock, tuple) and len(stock) == state.spectator_view().stock_count
        if name == "spot":
            melds = state.table_melds()
            assert isinstance(melds, tuple) and melds == state.spectator_view().melds
        events = state.apply(rng.choice(state.legal_actions()))
        draw = _private_draw(events)
        if draw is not None and events[0].kind != "deal" and not any(e.kind in ("recycle", "deadlock") for e in events):
            # the draw took the stock's first cards, into its drawer's hand; the read taken before is unchanged
            assert Counter(draw.cards) == Counter(stock[:len(draw.cards)])
            assert Counter(draw.cards) <= Counter(state.hand_cards(draw.seat))
            assert len(state.stock_cards()) == len(stock) - len(draw.cards)
            draws += 1
        steps += 1
    assert draws > 3


def test_spots_unused_stock_once_over_is_the_stock_in_draw_order() -> None:
    game = get_game("spot", {"hands": 1})
    state = game.new_initial_state(7)
    rng = random.Random(7)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    assert state.spectator_view().unused_stock == state.stock_cards()
