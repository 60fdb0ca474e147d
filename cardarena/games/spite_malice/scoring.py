"""Scoring a Spite and Malice game and a series (§4.4, §8.9, §8.10): pure."""

from __future__ import annotations

from typing import Sequence

from .actions import WIN_BONUS
from .options import StalemateRule


# --------------------------------------------------------------------------------------
# Scoring (pure).


def game_points(counts: Sequence[int], winner: int | None) -> list[int]:
    """Series points of one game per team (§4.4, §8.9, §8.10).

    ``counts``: pay-off cards left per team; ``winner``: the team that went out, or None
    for any stalemate. The winner scores 5 + every other team's cards; in a stalemate the
    unique team with fewest cards scores the sum of the differences (a tie: nobody).

    >>> game_points([0, 6], 0), game_points([4, 9], None), game_points([4, 4], None)
    ([11, 0], [5, 0], [0, 0])
    """
    out = [0] * len(counts)
    if winner is not None:
        out[winner] = WIN_BONUS + sum(c for t, c in enumerate(counts) if t != winner)
        return out
    fewest = min(counts)
    leaders = [t for t, c in enumerate(counts) if c == fewest]
    if len(leaders) == 1:
        out[leaders[0]] = sum(c - fewest for c in counts)
    return out


def game_result(counts: Sequence[int], winner: int | None, rule: StalemateRule) -> list[float]:
    """Single-game result per team: 1 win, 0.5 draw, 0 loss (§4.2, §4.3).

    A stalemate is a draw for all, or under ``fewer_payoff_wins`` a win for the team with
    fewest cards; teams tied for fewest draw (0.5), the others lose (engine choice).
    """
    if winner is not None:
        return [1.0 if t == winner else 0.0 for t in range(len(counts))]
    fewest = min(counts)
    leaders = [t for t, c in enumerate(counts) if c == fewest]
    if rule is StalemateRule.DRAW or len(leaders) == len(counts):
        return [0.5] * len(counts)
    share = 1.0 if len(leaders) == 1 else 0.5
    return [share if t in leaders else 0.0 for t in range(len(counts))]


def series_over(points: Sequence[int], target: int) -> bool:
    """§4.4: the match ends once a side has reached ``target`` at the end of a game."""
    return max(points) >= target
