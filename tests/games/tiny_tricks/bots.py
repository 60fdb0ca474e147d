"""Tiny Tricks for the bundled reference bots: its heuristic (the ``heuristic`` bot plays
it, the ``search`` bot's rollouts too) and its part of the ``search`` bot (single cards as
candidates, played out to the last trick; the value is the tricks won). Named by its
line in ``sdk.games`` and nowhere else."""

from __future__ import annotations

from typing import Any, Sequence

from tests.games.tiny_tricks.engine import Play, high

#: The search bot's (rollouts, worlds sampled) per decision: a small game.
BUDGET = (24, 4)


def choose(view: Any, legal: Sequence[Play], rng: Any) -> Play:
    """Lead the highest card; follow with the lowest card that takes the trick, else the lowest."""
    by_rank = sorted(legal, key=lambda a: (high(a.card), a.card.suit.value))
    if not view.trick:
        return by_rank[-1]
    suit = view.trick[0].card.suit
    best = max(high(p.card) for p in view.trick if p.card.suit == suit)
    winning = [a for a in by_rank if a.card.suit == suit and high(a.card) > best]
    return winning[0] if winning else by_rank[0]


def candidates(view: Any, legal: Sequence[Play], base: Play) -> list[Play]:
    """Every card, the heuristic's first."""
    return [base] + [a for a in legal if a != base]


def horizon(seat: int, start: Any, bot: Any):
    """No horizon short of the end: a hand is a few tricks."""
    return lambda view, actor: None


def terminal_value(state: Any, seat: int) -> float:
    return float(state.outcome().scores[seat])
