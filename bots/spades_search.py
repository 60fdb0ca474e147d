"""Spades for the ``search`` bot (bots/search.py): single actions as candidates.

Candidates: in card play every legal card; at the bid the heuristic's bid, one more, one
less and nil when legal (the look/blind-nil choice and the exchange are the heuristic's).
Horizon: the end of the current deal; value: the side's score minus the other side's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sdk.forward import Action, State
from sdk.spades import Bid, Play

#: (rollouts per decision, worlds sampled per decision).
BUDGET = (240, 24)


def candidates(view: Any, legal: Sequence[Action], base: Action) -> list[Action]:
    """The actions worth searching (the heuristic's choice ``base`` first)."""
    if isinstance(base, Play):
        others = [a for a in legal if a != base]
    elif isinstance(base, Bid) and not base.blind:
        near = {Bid(t) for t in (base.tricks - 1, base.tricks + 1) if t >= 1}
        if base.tricks != 0:
            near.add(Bid(0))
        others = [a for a in legal if a in near]
    else:  # Look, blind nil, Give: the heuristic decides
        return [base]
    return [base] + others


def _value(view: Any, seat: int) -> float:
    side = seat % 2
    return float(view.sides[side].score - view.sides[1 - side].score)


def horizon(seat: int, start: Any, bot: Any) -> Callable[[Any, int], float | None]:
    """Stops a rollout once the deal of ``start`` is over: the side's margin then."""
    return lambda view, actor: _value(view, seat) if view.deal != start.deal else None


def terminal_value(state: State, seat: int) -> float:
    out = state.outcome()
    return out.scores[seat] - out.scores[(seat + 1) % 4]
