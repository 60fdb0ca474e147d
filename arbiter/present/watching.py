"""What a running tournament's page shows of its matches as they are played: the matches
its private arbiter offers to watch now (``arbiter.spectating.runs`` says where that
arbiter is, for a run from this store on this machine), each with its seats and the
decisions played so far, from the arbiter's Spectate service with the run's spectator
token. Public facts only: what any spectator of the run may see (the spectator hub
decides, with its delay); nothing when no run of that tournament is going on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arbiter.server.client import SpectateError, list_matches
from arbiter.spectating import runs


@dataclass(frozen=True)
class Playing:
    match_id: str
    game: str
    seats: tuple[str, ...]
    steps: int


def now_playing(db: Path, tournament: str, timeout: float = 2.0) -> list[Playing] | None:
    """The matches of ``tournament`` being played now from the store ``db`` (None: no run
    of it is going on here, or its arbiter does not answer within ``timeout``)."""
    try:
        address, token, name = runs.running_from(db)
    except runs.NotRunning:
        return None
    if name != tournament:
        return None
    try:
        listed = list_matches(address, include_finished=False, timeout=timeout, token=token)
    except SpectateError:
        return None
    return [Playing(m.match_id, m.game, tuple(m.seat_names), m.steps) for m in listed if m.running]
