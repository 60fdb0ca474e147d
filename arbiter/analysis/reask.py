"""Re-ask a bot any decision of a recorded match: "why did my bot do that?", and "what
does my fixed bot do there now?".

``decisions(record, seat)`` rebuilds, from the record alone, every decision the seat was
asked: the view it had, its legal actions, the events it was shown since its previous
decision, and what was played. It steps the record with the one verifier
(``cardarena.replay.step_record`` from the seat's viewpoint), so what it rebuilds is
exactly what the match runner gave the seat (``state.view(seat)``, the legal actions,
``events_for(events, seat)``) and a record that does not replay is refused.

``reask(record, seat, at, bot)`` puts a bot back in front of the seat's ``at``-th decision
(1-based) through the one bot driver (``SeatDriver``), the way every transport drives it:
a fresh copy started with the ``MatchInfo`` the seat had (the same match id, options, seat
names and bot seed ``bot_seed_for(record.seed, seat)``), then, for every earlier decision
of the seat, the events it was shown and the decision itself, so that the bot's own state
(its counters, its memory, its ``self.rng``) is what it was when the match reached the
decision. The bot's answers to earlier decisions are not played: the record's actions are
(a bot that would have played otherwise is still shown the match as it went). Then the
``at``-th decision is asked, its answer read as the arbiter reads it, and whatever the bot
wrote to stderr there (the traceback in full, for a bot that raised) is kept.

What the record does not keep, and so is given here: the match's clock (``decision_ms``,
``bank_ms`` in ``MatchInfo``; by default ``arbiter play``'s). A bot that does not answer
within ``timeout`` seconds is reported as timed out, with the stack of where it was.

Only trusted code runs this way: the bot runs in this process (as with ``arbiter play
--transport inproc``). The record must be one its reader may see (the CLI loads it through
the disclosure rule, as ``arbiter replay`` does).
"""

from __future__ import annotations

import contextlib
import io
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from arbiter.hosting.loading import game_names, load_bot
from arbiter.hosting.inprocess import Decision, SeatDriver, bot_code
from cardarena.games import Action, Event, get_game
from cardarena.records import MatchInfo, MatchRecord, bot_seed_for
from cardarena.replay import illegal_reason_at, step_number, step_record
from cardarena.names import does_not_play

__all__ = ["DecisionPoint", "Reask", "decisions", "decision_at", "match_info", "reask"]

#: ``arbiter play``'s clock, given to the bot as its match's when the record says none.
DEFAULT_DECISION_MS = 10_000
DEFAULT_BANK_MS = 60_000


@dataclass(frozen=True)
class DecisionPoint:
    """One decision of one seat, as the seat had it.

    ``number``: the seat's decision count, from 1. ``step``: actions played before it (an
    index into the record's actions; a reader shows it as ``cardarena.replay.step_number``).
    ``events``: what the seat was shown since its previous decision (for the first, since
    the deal), in order. ``played``: the recorded action (the seat's own notation), or None
    when the match ended here (the seat's failure ended it: see ``forced`` / the record's
    incidents). ``forced``: why the arbiter chose the action, if it did.
    """

    seat: int
    number: int
    step: int
    view: Any
    legal: tuple[Action, ...]
    events: tuple[Event, ...]
    played: str | None
    forced: str = ""
    ms: int = 0


def decisions(record: MatchRecord, seat: int) -> Iterator[DecisionPoint]:
    """Every decision ``seat`` was asked in ``record``, in order (ReplayError if the record
    does not replay; ValueError for a seat the game does not have)."""
    held: list[Event] = []
    number = 0
    for step in step_record(record, seat):
        held.extend(step.events)
        if step.to_act != seat:
            continue
        number += 1
        ra = record.actions[step.index] if step.index < len(record.actions) else None
        yield DecisionPoint(seat, number, step.index, step.view, step.legal, tuple(held),
                            ra.action if ra else None, ra.forced if ra else "", ra.ms if ra else 0)
        held = []


def decision_at(record: MatchRecord, seat: int, at: int) -> tuple[DecisionPoint, list[DecisionPoint]]:
    """The ``at``-th decision (from 1) of ``seat`` and the ones before it; ValueError naming
    how many decisions the seat had if there is no such decision."""
    if at < 1:
        raise ValueError(f"--at {at}: decisions are counted from 1")
    before: list[DecisionPoint] = []
    for point in decisions(record, seat):
        if point.number == at:
            return point, before
        before.append(point)
    raise ValueError(f"--at {at}: seat {seat} had {len(before)} decision{'s' if len(before) != 1 else ''} in match "
                     f"{record.match_id} (1 to {len(before)})")


def match_info(record: MatchRecord, seat: int, decision_ms: int = DEFAULT_DECISION_MS,
               bank_ms: int = DEFAULT_BANK_MS) -> MatchInfo:
    """The ``MatchInfo`` the match runner gave ``seat`` (the clock, which the record does not
    keep, as given)."""
    game = get_game(record.game, record.options)
    return MatchInfo(
        match_id=record.match_id, game=game.name, options=dict(record.options), seat=seat,
        num_seats=game.num_seats, teams=game.teams, seat_names=record.seat_names,
        decision_ms=decision_ms, bank_ms=bank_ms, seed=bot_seed_for(record.seed, seat),
    )


@dataclass(frozen=True)
class Reask:
    """What a bot answers, now, to a recorded decision.

    ``decision`` is the driver's ``Decision`` (None if the bot timed out or had exited
    before). ``chosen``: its action in notation ("" if none). ``legal``: whether it is
    among the decision's legal actions; ``why``: if it is not, the engine's reason.
    ``stderr``: what the bot wrote to stderr at this
    decision (a raised exception's traceback in full). ``timed_out``: no answer within
    the limit; ``stack``: where the bot was then. ``note``: anything that happened before
    this decision that the reader must know (the bot exited or timed out earlier).
    """

    point: DecisionPoint
    bot: str
    decision: Decision | None
    chosen: str
    legal: bool
    ms: float
    stderr: str = ""
    timed_out: bool = False
    stack: str = ""
    note: str = ""
    why: str = ""

    @property
    def same(self) -> bool:
        """It chose what was played."""
        return bool(self.chosen) and self.chosen == self.point.played


class _Late(Exception):
    def __init__(self, stack: str):
        self.stack = stack


def _within(fn: Callable[[], Any], seconds: float | None) -> Any:
    """``fn()``, a call into the bot, in a daemon thread, as the in-process seat makes it
    (``bot_code``); _Late with its stack if it does not return in time. (A bot that never
    returns is left running: this process ends with the command.)"""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            with bot_code():  # as in a match in this process: its stdout thrown away, os._exit its seat's end
                box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - the driver turns the bot's into values; anything else is ours
            box["error"] = exc

    thread = threading.Thread(target=run, name="reask-bot", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        frame = sys._current_frames().get(thread.ident or -1)
        stack = "".join(traceback.format_stack(frame)) if frame is not None else ""
        raise _Late(stack)
    if "error" in box:
        raise box["error"]
    return box.get("value")


def reask(record: MatchRecord, seat: int, at: int, bot: str, *, decision_ms: int = DEFAULT_DECISION_MS,
          bank_ms: int = DEFAULT_BANK_MS, timeout: float | None = None) -> Reask:
    """Ask ``bot`` (a bundled name, a file, ``module:Class``) the ``at``-th decision of
    ``seat`` in ``record`` (see the module docstring). ``timeout``: seconds per decision
    (default: the decision limit plus the bank, as the runner allows; None if both are 0).

    Raises BotLoadError for a bot that cannot be loaded, ValueError for a bot that does not
    play the match's game or a seat or decision the match does not have, ReplayError for a record that does not replay."""
    point, before = decision_at(record, seat, at)
    template = load_bot(bot)
    if not template.plays(record.game):  # as a match refuses it (arbiter.batch.venue): its answer would mean nothing
        raise ValueError(does_not_play(bot, record.game, game_names(template.games)))
    info = match_info(record, seat, decision_ms, bank_ms)
    if timeout is None:
        timeout = (decision_ms + bank_ms) / 1000 if decision_ms else None
    try:
        driver: SeatDriver = _within(lambda: SeatDriver(template, info), timeout)
    except _Late as late:
        return Reask(point, bot, None, "", False, 0.0, timed_out=True, stack=late.stack,
                     note="the bot did not return from on_match_start")
    gone = False
    for p in before:  # the bot's own state as it was: every earlier decision, as it was asked
        if gone:
            break
        driver.push(p.events)
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                d = _within(lambda p=p: driver.decide(p.view, p.legal), timeout)
        except _Late as late:
            return Reask(point, bot, None, "", False, 0.0, timed_out=True, stack=late.stack,
                         note=f"the bot did not answer its earlier decision {p.number} (step {step_number(p.step)}) in time")
        if driver.exited:
            return Reask(point, bot, d, "", False, 0.0,
                         note=f"the bot exited at its earlier decision {p.number}: {d.failure}")
        gone = p.forced == "disconnected"  # the runner asks a disconnected seat nothing more
    driver.push(point.events)
    buf = io.StringIO()
    t0 = time.perf_counter()
    try:
        with contextlib.redirect_stderr(buf):
            decision: Decision = _within(lambda: driver.decide(point.view, point.legal), timeout)
    except _Late as late:
        return Reask(point, bot, None, "", False, (time.perf_counter() - t0) * 1000, buf.getvalue(), True, late.stack)
    ms = (time.perf_counter() - t0) * 1000
    note = "the seat was disconnected before this decision: the arbiter played for it" if gone else ""
    chosen = str(decision.action) if decision.action is not None else ""
    legal = decision.action in point.legal
    why = illegal_reason_at(record, point.step, decision.action) if decision.action is not None and not legal else ""
    return Reask(point, bot, decision, chosen, legal, ms, buf.getvalue(), note=note, why=why)
