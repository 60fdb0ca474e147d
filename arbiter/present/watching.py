"""What a running tournament's page shows of its matches as they are played: the matches
its private arbiter offers to watch now (``arbiter.spectating.runs`` says where that
arbiter is, for a run from this store on this machine), each with its seats and the
decisions played so far, from the arbiter's Spectate service with the run's spectator
token. Public facts only: what any spectator of the run may see (the spectator hub
decides, with its delay); nothing when no run of that tournament is going on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from typing import Any

from markupsafe import Markup

from arbiter.present.table import render_table, table_model
from arbiter.server.client import SpectateError, list_matches, watch
from arbiter.spectating import runs
from cardarena.frames import HeaderFrame, OverFrame, StepFrame


@dataclass(frozen=True)
class Playing:
    match_id: str
    game: str
    seats: tuple[str, ...]
    steps: int
    table: Markup = Markup("")  # its public table as of ``steps`` (the card table, not interactive)


#: The frames read to catch up with one match (far above any match's decisions).
MAX_FRAMES = 5000


def _table(address: str, token: str, match_id: str, steps: int) -> Markup:
    """The match's public table after ``steps`` decisions: the spectator hub replays a
    running match's frames to a late watcher first, so this reads only frames already there."""
    game, names, view = "", (), None
    try:
        for k, frame in enumerate(watch(address, match_id, False, token)):
            if isinstance(frame, HeaderFrame):
                game, names, view = frame.game, frame.seat_names, frame.view
            elif isinstance(frame, StepFrame):
                view = frame.view
            if isinstance(frame, OverFrame) or (isinstance(frame, (HeaderFrame, StepFrame)) and _index(frame) >= steps) \
                    or k >= MAX_FRAMES:
                break
    except SpectateError:
        return Markup("")
    if view is None:
        return Markup("")
    return render_table(table_model(game, view, names), interactive=False)


def _index(frame: Any) -> int:
    return getattr(frame, "index", 0)


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
    return [Playing(m.match_id, m.game, tuple(m.seat_names), m.steps, _table(address, token, m.match_id, m.steps))
            for m in listed if m.running]
