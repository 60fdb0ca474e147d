"""What a spectator is sent about a live match, as plain values: a header when the deal
is done, a step per decision, and the result.

The arbiter's spectating hub builds them, ``cardarena.wire.frames`` encodes and decodes
them, and ``arbiter watch`` renders them. Hands appear only in frames for a delayed
hidden-cards watcher; a live frame's ``action`` is the public text of the action.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cardarena.games import Card, Event, Outcome

Hands = tuple[tuple[Card, ...], ...]



@dataclass(frozen=True)
class HeaderFrame:
    """The match as dealt: who sits where, and the public view."""

    match_id: str
    game: str
    seat_names: tuple[str, ...]
    started: float  # Unix time
    view: Any  # spectator view
    hands: Hands | None = None  # every seat's hand; only for a hidden-cards watch
    delay_ms: int = 0


@dataclass(frozen=True)
class StepFrame:
    """One decision: who played what, the public events, the public view after it."""

    index: int  # 1-based
    seat: int
    action: str  # as it reads to this frame's watcher (the engine's action_text)
    events: tuple[Event, ...]
    view: Any
    hands: Hands | None = None
    at: float = 0.0  # seconds since the match started
    #: The full notation, kept for a delayed hidden-cards watcher only; never encoded.
    private_action: str = ""


@dataclass(frozen=True)
class OverFrame:
    """The result and the full deal (``final_view`` None after a forfeit mid-game)."""

    outcome: Outcome
    final_view: Any
    seed: int
    actions: tuple[str, ...]
    action_seats: tuple[int, ...]
    options: dict[str, str]


Frame = HeaderFrame | StepFrame | OverFrame
