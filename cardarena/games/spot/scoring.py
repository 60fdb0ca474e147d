"""Settling a Spot hand (§4): pure, on spots and sixtieths of a unit."""

from __future__ import annotations

from typing import Sequence


# --------------------------------------------------------------------------------------
# Scoring (pure)


def settle_hand(
    hand_spots: Sequence[int],
    went_out: int | None,
    pot60: int,
    unit60: int,
    pot_carry_over: bool = True,
) -> tuple[list[int], int, tuple[int, ...]]:
    """Payments of one finished hand (§4.2), in sixtieths of a unit.

    Returns ``(delta per seat, pot left, winners)``; deltas exclude the antes.
    ``unit60`` is ``unit_per_spot`` in sixtieths.
    """
    n = len(hand_spots)
    delta = [0] * n
    if went_out is not None:
        w = went_out
        delta[w] += pot60
        for s in range(n):
            if s != w:
                pay = hand_spots[s] * unit60
                delta[s] -= pay
                delta[w] += pay
        return delta, 0, (w,)
    low = min(hand_spots)
    winners = tuple(s for s in range(n) if hand_spots[s] == low)
    for s in range(n):
        if s in winners:
            continue
        pay = hand_spots[s] * unit60
        share, rem = divmod(pay, len(winners))
        assert rem == 0, "payments must be exact in sixtieths"
        delta[s] -= pay
        for w in winners:
            delta[w] += share
    if not pot_carry_over and pot60:
        share, rem = divmod(pot60, len(winners))
        assert rem == 0
        for w in winners:
            delta[w] += share
        pot60 = 0
    return delta, pot60, winners
