"""The Spades forward model: samples agree with the view and the forced inferences,
cover the possibilities uniformly, and depend on the view alone."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from cardarena.games import get_game
from cardarena.games.cards import STANDARD_DECK, parse_cards
from cardarena.games.spades import Bid, Look, Play
from sdk.forward import ConsistencyError, knowledge, sample_states
from tests.sdk._forward_helpers import chi_square, chi_square_bound, play_out, random_states

GAME = get_game("spades", {"deals": 1})


def voids_from_tricks(view) -> dict[int, set[int]]:
    """Independent of the sampler: suits each seat failed to follow this deal."""
    out: dict[int, set[int]] = {s: set() for s in range(4)}
    for cards in [t.cards for t in view.tricks] + [view.trick]:
        if not cards:
            continue
        led = cards[0].card % 4
        for pc in cards[1:]:
            if pc.card % 4 != led:
                out[pc.seat].add(led)
    return out


def test_samples_never_contradict_the_view() -> None:
    rng = random.Random(11)
    checked = 0
    for state, seat in random_states(GAME, 120, seed=3, max_steps=70):
        view = state.view(seat)
        voids = voids_from_tricks(view)
        for sample in sample_states(GAME, view, 4, random.Random(checked)):
            checked += 1
            assert sample.view(seat) == view  # every public and own-hand fact is the same
            hands = sample.hands  # the sampled (hidden) hands: test-only look inside
            for s in range(4):
                assert len(hands[s]) == view.seats[s].hand_count
                assert not {c % 4 for c in hands[s]} & voids[s], f"seat {s} holds a suit it showed void in"
            played = [pc.card for t in view.tricks for pc in t.cards] + [pc.card for pc in view.trick]
            assert sorted(played + [c for h in hands for c in h]) == list(STANDARD_DECK)
            play_out(sample, rng)
    assert checked == 480


def test_voids_and_spade_leads_are_inferred() -> None:
    # Seat 1 holds no club: when seat 0 leads a club, seat 1 must ruff or discard.
    hands = [
        "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C",
        "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S",
        "AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
        "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D",
    ]
    state = GAME.state_from_deal(hands, dealer=3)
    for _ in range(4):
        state.apply(Look())
        state.apply(Bid(3))
    state.apply(Play(parse_cards("2C")[0]))
    state.apply(Play(parse_cards("2S")[0]))  # seat 1 trumps: void in clubs
    view = state.view(2)
    know = knowledge(GAME, view)
    assert 3 in know.voids[1]  # clubs
    for sample in sample_states(GAME, view, 50, random.Random(1)):
        assert not any(c % 4 == 3 for c in sample.view(1).hand)
    # With inference off, clubs may be dealt to seat 1 again.
    off = sample_states(GAME, view, 200, random.Random(1), {"infer": False})
    assert any(any(c % 4 == 3 for c in s.view(1).hand) for s in off)


def _late_state():
    """A deal after 11 tricks with a known void: 2 cards left per hand."""
    rng = random.Random(5)
    for seed in range(200):
        state = GAME.new_initial_state(seed)
        while not state.is_terminal and not (
            len(state.view(0).tricks) == 11 and not state.view(0).trick
        ):
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal:
            continue
        view = state.view(0)
        if any(voids_from_tricks(view)[s] & {c % 4 for c in state.view(s).hand} for s in (1, 2, 3)):
            continue  # impossible: the engine enforces following suit
        if any(voids_from_tricks(view)[s] for s in (1, 2, 3)):
            return view
    raise AssertionError("no late state with a void found")


def test_samples_cover_every_consistent_deal_uniformly() -> None:
    view = _late_state()
    voids = voids_from_tricks(view)
    know = knowledge(GAME, view)
    unseen = list(know.unseen)
    assert len(unseen) == 6
    # Brute force: every way to give the 6 unseen cards 2 each to seats 1-3, respecting voids.
    consistent = set()
    for perm in itertools.permutations(unseen):
        deal = tuple(frozenset(perm[2 * i:2 * i + 2]) for i in range(3))
        if all(not {c % 4 for c in deal[i]} & voids[i + 1] for i in range(3)):
            consistent.add(deal)
    assert len(consistent) >= 2
    n = 600 * len(consistent) if len(consistent) < 10 else 6000
    counts: Counter = Counter()
    for sample in sample_states(GAME, view, n, random.Random(2)):
        deal = tuple(frozenset(sample.view(s).hand) for s in (1, 2, 3))
        assert deal in consistent
        counts[deal] += 1
    expected = {d: n / len(consistent) for d in consistent}
    assert set(counts) == consistent  # every possibility occurs
    assert chi_square(counts, expected) < chi_square_bound(len(consistent) - 1)


def test_samples_depend_on_the_view_alone() -> None:
    """Two different true deals that look the same to seat 0 give the same samples."""
    base = [list(parse_cards(h)) for h in (
        "AS 9S 5S AH 9H 5H AD 9D 5D AC 9C 5C KS",
        "KH 8S 4S 8H 4H 8D 4D 8C 4C KD KC QS QH",
        "QD 7S 3S 7H 3H 7D 3D 7C 3C QC JS JH JD",
        "JC 6S 2S 6H 2H 6D 2D 6C 2C 10S 10H 10D 10C",
    )]
    other = [list(h) for h in base]
    # Swap a low diamond of seat 1 with a low diamond of seat 3: seat 0 cannot tell.
    a, b = parse_cards("4D")[0], parse_cards("2D")[0]
    other[1][other[1].index(a)], other[3][other[3].index(b)] = b, a
    states = [GAME.state_from_deal(h, dealer=3) for h in (base, other)]
    for st in states:
        for _ in range(4):
            st.apply(Look())
            st.apply(Bid(3))
        for _ in range(4):  # one trick, avoiding the swapped cards
            act = next(x for x in st.legal_actions() if x.card not in (a, b))
            st.apply(act)
    assert states[0].view(0) == states[1].view(0)
    assert states[0].view(1) != states[1].view(1)  # the true deals differ
    samples = [sample_states(GAME, st.view(0), 20, random.Random(9)) for st in states]
    for x, y in zip(*samples):
        assert [x.view(s) for s in range(4)] == [y.view(s) for s in range(4)]
    with pytest.raises(TypeError):
        sample_states(GAME, states[0], 1, random.Random(0))  # a state is refused


def test_an_impossible_view_is_refused() -> None:
    state = GAME.new_initial_state(1)
    state.apply(Look())
    view = state.view(state.view(0).to_act)
    import dataclasses

    bad = dataclasses.replace(view, seats=tuple(dataclasses.replace(s, hand_count=14) for s in view.seats))
    with pytest.raises(ConsistencyError):
        sample_states(GAME, bad, 1, random.Random(0))
