"""What a running tournament's page shows of its matches as they are played: the matches
its private arbiter offers to watch now (``arbiter.spectating.runs`` says where that
arbiter is, for a run from this store on this machine), each with its seats and the
decisions played so far, from the arbiter's Spectate service with the run's spectator
token. Public facts only, as the one disclosure rule says (``Disclosure.live_tables``):
each match's public table as it stood ``LIVE_DELAY_S`` ago (no hidden card; the spectator
hub decides what a frame holds), and none at all while the tournament is closed (its
deals come back in seatings still to be played): then only who plays, not how far (the
count of decisions, read live, told when each seat answered, so its think times, which the
standings count only over whole deals, and where a match stopped short of its deal's
length: a forfeit, one seating's result); nothing when no run of it is going on."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup

from arbiter.present.table import render_table, seat_labels, table_model
from arbiter.spectating import runs
from cardarena.disclosure import LIVE_DELAY_S, Disclosure
from cardarena.frames import HeaderFrame, OverFrame, StepFrame


@dataclass(frozen=True)
class Playing:
    match_id: str
    game: str
    seats: tuple[str, ...]
    steps: int | None  # the decisions played so far; None while the tournament is closed (who plays, not how far)
    table: Markup = Markup("")  # its public table as of ``shown`` decisions (not interactive); "" if none may be shown
    shown: int = 0  # the decisions the table shows (the delay keeps it behind ``steps``)


#: The frames read to catch up with one match (far above any match's decisions).
MAX_FRAMES = 5000


def _table(address: str, token: str, match_id: str, steps: int, delay: float,
           versions: dict[str, str]) -> tuple[Markup, int]:
    """The match's public table as it stood ``delay`` seconds ago, at most ``steps``
    decisions in, and the decisions it shows; ("", 0) if the match is younger than that.
    The spectator hub replays a running match's frames to a late watcher first, so this
    reads only frames already there."""
    from arbiter.server.client import SpectateError, watch  # (see now_playing)

    game, names, view, shown, started = "", (), None, 0, 0.0
    upto = time.time() - delay
    try:
        for k, frame in enumerate(watch(address, match_id, False, token)):
            if isinstance(frame, HeaderFrame):
                if frame.started > upto:
                    break  # dealt less than ``delay`` ago: nothing to show yet
                game, names, view, started = frame.game, frame.seat_names, frame.view, frame.started
            elif isinstance(frame, StepFrame):
                if started + frame.at > upto:
                    break
                view, shown = frame.view, frame.index
            if isinstance(frame, OverFrame) or shown >= steps or k >= MAX_FRAMES:
                break
    except SpectateError:
        return Markup(""), 0
    if view is None:
        return Markup(""), 0
    labels = seat_labels(names, [versions.get(n, "") for n in names])
    return render_table(table_model(game, view, labels), interactive=False), shown


def now_playing(db: Path, tournament: str, policy: Disclosure, timeout: float = 2.0,
                delay: float = LIVE_DELAY_S, versions: dict[str, str] | None = None) -> list[Playing] | None:
    """The matches of ``tournament`` being played now from the store ``db`` (None: no run
    of it is going on here, or its arbiter does not answer within ``timeout``), each with
    its public table ``delay`` seconds late if ``policy`` (the tournament's disclosure)
    lets one be shown, its seats named with their entrants' ``versions`` (name -> version)."""
    try:
        address, token, name = runs.running_from(db)
    except runs.NotRunning:
        return None
    if name != tournament or runs.run_kind(db) != "tournament":  # (a ladder of the same name is not it)
        return None
    # The gRPC client (grpc, the protobuf messages, the codec) only when a run is going on:
    # the web server imports this module at its start, and most of its pages never ask
    from arbiter.server.client import SpectateError, list_matches

    try:
        listed = list_matches(address, include_finished=False, timeout=timeout, token=token)
    except SpectateError:
        return None
    shown: list[Playing] = []
    for m in listed:
        if not m.running:
            continue
        table, upto = _table(address, token, m.match_id, m.steps, delay, versions or {}) if policy.live_tables else (Markup(""), 0)
        shown.append(Playing(m.match_id, m.game, tuple(m.seat_names), m.steps if policy.live_tables else None, table, upto))
    return shown
