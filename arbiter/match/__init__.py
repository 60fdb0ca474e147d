"""The match layer: drives one game between seats (see ``runner``)."""

from arbiter.match.runner import (  # noqa: F401  (the layer's API)
    BotFailed,
    MalformedAction,
    ManualClock,
    MatchClock,
    MatchObserver,
    SeatClient,
    SeatCrashed,
    SeatDisconnected,
    SeatError,
    TurnRequest,
    matches_in_flight,
    run_match,
)
