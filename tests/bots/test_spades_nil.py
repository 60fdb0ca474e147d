"""The double-dummy nil search (bots/spades_nil.py) against a plain minimax over every legal
card (no equivalence, no memo, no shortcut) on small seeded endings, and on positions whose
answer is known."""

from __future__ import annotations

import random

import pytest

from bots.spades_nil import _POWER, _SPADE, _wins, nil_taken
from cardarena.games.cards import Card


def _legal(hand, trick, broken):
    if trick:
        follow = [c for c in hand if c % 4 == trick[0][1] % 4]
        return follow or list(hand)
    if not broken and any(c % 4 != _SPADE for c in hand):
        return [c for c in hand if c % 4 != _SPADE]
    return list(hand)


def _plain(hands, seat, trick, broken, nil):
    """Every legal card tried: True when the opponents can force ``nil`` to win a trick."""
    if not any(hands):
        return False
    team = {nil, (nil + 2) % 4}
    results = []
    for c in _legal(hands[seat], trick, broken):
        nh = [list(h) for h in hands]
        nh[seat].remove(c)
        plays = trick + [(seat, c)]
        nb = broken or c % 4 == _SPADE
        if len(plays) == 4:
            w = _wins(plays)
            r = True if w == nil else _plain(nh, w, [], nb, nil)
        else:
            r = _plain(nh, (seat + 1) % 4, plays, nb, nil)
        results.append(r)
    return any(results) if seat not in team else all(results)


@pytest.mark.parametrize("seed", range(24))
def test_the_search_agrees_with_plain_minimax(seed):
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    n = 3 if seed % 4 else 4
    hands = [deck[i * n:(i + 1) * n] for i in range(4)]
    leader, nil, broken = rng.randrange(4), rng.randrange(4), rng.random() < 0.5
    assert nil_taken(hands, leader, [], broken, nil) == _plain(hands, leader, [], broken, nil)


def test_the_highest_spade_always_takes_a_trick():
    hands = [[Card("AS"), Card("2H")], [Card("3H"), Card("4H")], [Card("5H"), Card("6H")], [Card("7H"), Card("8H")]]
    assert nil_taken(hands, 1, [], True, 0) is True


def test_the_lowest_cards_never_take_a_trick():
    hands = [[Card("2H"), Card("2D")], [Card("3H"), Card("4D")], [Card("5H"), Card("6D")], [Card("7H"), Card("8D")]]
    assert nil_taken(hands, 1, [], True, 0) is False
    assert _POWER[int(Card("AH"))] == 14


def test_a_trick_in_progress_is_finished_first():
    # Seat 0 (nil) must follow hearts with its king over the queen led: it wins.
    hands = [[Card("KH")], [Card("AC")], [Card("2C")], []]
    assert nil_taken(hands, 0, [(3, Card("QH"))], False, 0) is True
    hands = [[Card("JH")], [Card("AC")], [Card("2C")], []]
    assert nil_taken(hands, 0, [(3, Card("QH"))], False, 0) is False


def test_the_budget_says_none():
    rng = random.Random(3)
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [deck[i * 13:(i + 1) * 13] for i in range(4)]
    assert nil_taken(hands, 0, [], False, 1, budget=5) is None


def test_a_long_hand_gets_a_quick_search_that_still_sees_a_certain_end():
    from bots.spades_nil import NilSolver
    rng = random.Random(5)
    deck = [c for c in range(52) if c != int(Card("AS"))]
    rng.shuffle(deck)
    hands = [[Card("AS")] + deck[:12]] + [deck[12 + 13 * i:25 + 13 * i] for i in range(3)]
    assert NilSolver(0).taken(hands, 1, [], False) is True
