"""The Spite and Malice forward model: samples agree with the view (and forced aces),
cover the possibilities uniformly, and depend on the view alone."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cardarena.games import get_game
from sdk.forward import knowledge, sample_states
from tests.sdk._forward_helpers import chi_square, chi_square_bound, play_out, random_states


@pytest.mark.parametrize("options", [{}, {"loading": True}, {"deck_split": True, "decks": 2, "jokers": 2}])
def test_samples_never_contradict_the_view(options) -> None:
    game = get_game("spite-and-malice", options)
    rng = random.Random(2)
    checked = 0
    for state, seat in random_states(game, 40, seed=5, max_steps=150):
        view = state.view(seat)
        truth = state.all_cards()
        for sample in sample_states(game, view, 3, random.Random(checked)):
            checked += 1
            assert sample.view(seat) == view
            assert sample.all_cards() == truth  # the same pack, card for card
            if options.get("loading"):  # forced aces: a seat that ended a turn holds no natural ace
                for s in knowledge(game, view).no_ace:
                    assert not any(c // 4 == 0 and c != 52 for c in sample.hands[s])
            play_out(sample, rng, limit=300)
    assert checked == 120


def test_forced_aces_inference_is_drawn_from_the_turn_order() -> None:
    game = get_game("spite-and-malice", {"loading": True})
    for state, seat in random_states(game, 30, seed=9, max_steps=60):
        view = state.view(seat)
        know = knowledge(game, view)
        if view.turn_number >= 1 and view.current_seat != seat:
            assert (view.current_seat - 1) % 2 in know.no_ace | {seat}
        for s in know.no_ace:  # the truth agrees: the engine forced those aces out
            assert not any(c // 4 == 0 and c != 52 for c in state.hands[s])


def test_samples_cover_the_places_of_an_unseen_card_uniformly() -> None:
    game = get_game("spite-and-malice")
    state = game.new_initial_state(4)
    seat = state.current_seat
    view = state.view(seat)
    know = knowledge(game, view)
    card = know.unseen[0]
    copies = know.unseen.count(card)
    n = 3000
    places: Counter = Counter()
    for sample in sample_states(game, view, n, random.Random(1)):
        for s in range(2):
            if s != seat:
                places["hand"] += sample.hands[s].count(card)
            places["payoff"] += sample.payoff[s][: sample.hidden[s]].count(card)
        places["stock"] += sample.stock.count(card)
    total = len(know.unseen)
    other = 1 - seat
    sizes = {"hand": know.hand_counts[other], "payoff": sum(know.hidden_counts), "stock": know.stock_count}
    expected = {k: n * copies * v / total for k, v in sizes.items()}
    assert chi_square(places, expected) < chi_square_bound(len(expected) - 1)


def test_samples_depend_on_the_view_alone() -> None:
    """Two true states that differ only where seat ``me`` cannot see give the same samples."""
    game = get_game("spite-and-malice")
    a = game.new_initial_state(4)
    me = a.current_seat
    other = 1 - me
    b = a.clone()
    # Swap one of the opponent's cards with a different card deep in the stock (test-only surgery).
    i = next(i for i, c in enumerate(b.stock) if c != b.hands[other][0])
    b.hands[other][0], b.stock[i] = b.stock[i], b.hands[other][0]
    assert a.view(me) == b.view(me) and a.view(other) != b.view(other)
    sa = sample_states(game, a.view(me), 20, random.Random(5))
    sb = sample_states(game, b.view(me), 20, random.Random(5))
    for x, y in zip(sa, sb):
        assert (x.hands, x.payoff, x.stock) == (y.hands, y.payoff, y.stock)
