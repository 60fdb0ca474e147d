"""The Spot forward model: samples agree with the view and the pickups, cover the
possibilities uniformly, and depend on the view alone."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from cardarena.games import get_game
from cardarena.games.cards import STANDARD_DECK, parse_cards
from cardarena.games.spot import DRAW_DISCARD, Discard
from sdk.forward import knowledge, sample_states
from tests.sdk._forward_helpers import chi_square, chi_square_bound, play_out, random_states

GAME = get_game("spot", {"hands": 2})


def test_samples_never_contradict_the_view() -> None:
    rng = random.Random(4)
    checked = pickups_checked = 0
    for state, seat in random_states(GAME, 120, seed=8, max_steps=120):
        view = state.view(seat)
        visible = set(view.discard_pile) | {c for m in view.melds for c in m.cards}
        holder = {p.card: p.seat for p in view.pickups}
        for sample in sample_states(GAME, view, 3, random.Random(checked)):
            checked += 1
            assert sample.view(seat) == view
            hands = [sample.view(s).hand for s in range(view.num_players)]
            assert [len(h) for h in hands] == list(view.hand_counts)
            for card, s in holder.items():
                if card not in visible:  # taken and not seen since: still with the taker
                    assert card in hands[s]
                    pickups_checked += 1
            stock = view.stock_count
            assert sorted(c for h in hands for c in h) + [] == sorted(set(STANDARD_DECK) - visible - set(sample._stock))
            assert len(sample._stock) == stock
            play_out(sample, rng)
    assert checked == 360 and pickups_checked > 0


def test_a_card_taken_from_the_discard_pile_stays_with_the_taker() -> None:
    state = GAME.state_from_deal(
        ["AS 2S 3S 9H 10H JH QH KH 5C", "4D 5D 6D 7D 8D 9D 10D JD", "AC 2C 3C 4C 6C 7C 8C 9C", "AH 2H 3H 4H 5H 6H 7H 8H"],
        "QD KD AD 2D 3D 10C JC QC KC 4S 5S 6S 7S 8S 9S 10S JS QS KS",
        dealer=3,
    )
    state.apply(Discard(parse_cards("5C")[0]))  # seat 0 opens with 5C
    state.apply(DRAW_DISCARD)  # seat 1 takes it
    view = state.view(2)
    five_clubs = parse_cards("5C")[0]
    for sample in sample_states(GAME, view, 30, random.Random(3)):
        assert five_clubs in sample.view(1).hand
    off = sample_states(GAME, view, 60, random.Random(3), {"infer": False})
    assert any(five_clubs not in s.view(1).hand for s in off)


def test_samples_cover_the_places_of_an_unseen_card_uniformly() -> None:
    state, seat = random_states(GAME, 1, seed=21, max_steps=2)[0]
    view = state.view(seat)
    card = next(c for c in STANDARD_DECK if c not in view.hand)
    n = 4000
    places: Counter = Counter()
    for sample in sample_states(GAME, view, n, random.Random(6)):
        where = next((s for s in range(view.num_players) if card in sample.view(s).hand), "stock")
        places[where] += 1
    others = [s for s in range(view.num_players) if s != seat]
    unseen = sum(view.hand_counts[s] for s in others) + view.stock_count
    expected = {s: n * view.hand_counts[s] / unseen for s in others} | {"stock": n * view.stock_count / unseen}
    assert set(places) == set(expected)
    assert chi_square(places, expected) < chi_square_bound(len(expected) - 1)


def test_samples_depend_on_the_view_alone() -> None:
    hands = ["AS 2S 3S 9H 10H JH QH KH 5C", "4D 5D 6D 7D 8D 9D 10D JD", "AC 2C 3C 4C 6C 7C 8C 9C", "AH 2H 3H 4H 5H 6H 7H 8H"]
    stock = "QD KD AD 2D 3D 10C JC QC KC 4S 5S 6S 7S 8S 9S 10S JS QS KS"
    swapped = list(hands)
    swapped[1] = hands[1].replace("4D", "KS")  # seat 1 holds KS instead of 4D, the stock 4D
    a = GAME.state_from_deal(hands, stock, dealer=3)
    b = GAME.state_from_deal(swapped, stock.replace("KS", "4D"), dealer=3)
    assert a.view(0) == b.view(0) and a.view(1) != b.view(1)
    sa = sample_states(GAME, a.view(0), 20, random.Random(5))
    sb = sample_states(GAME, b.view(0), 20, random.Random(5))
    for x, y in zip(sa, sb):
        assert [x.view(s) for s in range(4)] == [y.view(s) for s in range(4)] and x._stock == y._stock
    # the view's knowledge worked out once and passed in (``known``): the same samples
    sk = sample_states(GAME, b.view(0), 20, random.Random(5), known=knowledge(GAME, a.view(0)))
    assert [[x.view(s) for s in range(4)] for x in sk] == [[x.view(s) for s in range(4)] for x in sb]
    with pytest.raises(TypeError):
        sample_states(GAME, a, 1, random.Random(0))
