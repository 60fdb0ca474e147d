"""The Spite and Malice forward model: samples agree with the view (and forced aces),
cover the possibilities uniformly, and depend on the view alone."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cardarena.games import get_game
from cardarena.games.cards import Card
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


@pytest.mark.parametrize("options, seed", [({"decks": 1, "payoff_size": 8}, 0), ({"decks": 1, "payoff_size": 8}, 34),
                                            ({"deck_split": True, "decks": 2, "payoff_size": 8}, None),
                                            # two decks: 7S turned up in two rounds may be one card come back up
                                            ({"players": 3, "loading": True, "jokers": 2, "kings_wild": False,
                                              "payoff_size": 5}, 101)])
def test_a_card_turned_up_in_a_tie_stays_in_its_pay_off_pile_until_the_pile_turns_one_up(options, seed) -> None:
    """The first player's choice (§2.3) is public since the views carry it: a seat tied in a
    round reshuffled the card it had turned up into its pay-off pile, so the card lies face down
    there (less a copy of its last turn-up, the top). The samples put it anywhere unseen: in an
    opponent's hand, in the stock. Once the pile has turned a face-down card up, it may have been
    played, and the samples are free again."""
    game = get_game("spite-and-malice", options)
    if seed is None:  # the first seed whose choice had a tie leaving a card below
        seed = next(s for s in range(500) if any(knowledge(game, game.new_initial_state(s).view(0)).payoff_known))
    state = game.new_initial_state(seed)
    view = state.view(0)
    known = knowledge(game, view).payoff_known
    assert any(known), "this deal's choice of the first player had a tie"
    if seed == 101:  # seat 0 turned up 7S, 7S, then QD: one 7S is known below; seat 2 7S three times: none
        assert (known[0], known[2]) == ((Card("7S"),), ())
    for s, cards in enumerate(known):
        assert Counter(cards) <= Counter(state.payoff[s][:-1])  # the truth: face down in that pile
    for sample in sample_states(game, view, 60, random.Random(3)):
        assert sample.view(0) == view
        for s, cards in enumerate(known):
            assert Counter(cards) <= Counter(sample.payoff[s][:-1]), (s, cards)
    rng = random.Random(1)  # play on until a pile with a known card turns a face-down card up
    holder = next(s for s, cards in enumerate(known) if cards)
    for _ in range(2000):
        p = state.view(0).players[holder]
        if p.payoff_count - len(p.payoff_face_up) < game.options.payoff_size - 1 or state.is_terminal:
            break
        state.apply(rng.choice(state.legal_actions()))
    if not state.is_terminal:
        later = knowledge(game, state.view(0)).payoff_known
        assert not later or not later[holder]
