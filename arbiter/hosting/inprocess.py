"""A seat played by an SDK bot in this process: the in-process transport.

Only trusted bots run this way (bundled bots by default; a file's bot when
``--transport inproc`` is asked for; the self-test inside its sandbox): the bot shares the
arbiter's memory. Its life in the match is the SDK's one driver (``sdk.driver.SeatDriver``),
as over gRPC; this class only hands the driver's ``Decision`` to the match runner in the
runner's terms. The driver itself is exported here too: re-asking a recorded decision
(``arbiter.analysis.reask``) drives a bot through it in this process, decision by
decision, without a match runner.

In-process trust is trust: a bot here can reach every object of the arbiter (``gc``,
frames) and so every hand, the deal seed and the referee itself; nothing below stops a bot
that means to (README, "Security"). What keeps a bot in process from touching the
referee by mistake:

* it is handed copies, never the runner's objects: its ``MatchInfo``, every view, legal
  action list, event and its result are copies sharing nothing mutable (``bot_copy``), so a bot that rewrites what it is
  given (even a frozen value, through ``object.__setattr__``) changes nothing but its copy;
* every exception its code raises, ``BaseException``s included, is the driver's failure
  value (a recorded incident), never the arbiter's exception;
* ``os._exit`` called from its code while it is asked is ``sys.exit``: the seat
  disconnects, as a bot process that ends does, instead of the arbiter ending with nothing
  stored or said;
* a bot that cannot be copied for a match (``cannot_play_in_process``) is refused before
  any match (``arbiter.batch.venue``);
* its ``on_match_start`` runs at its first decision, on that decision's clock, as a bot
  process's does (it reads its Start just before the Turn it is timed on).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import enum
import functools
import logging
import os
import sys
import threading
from typing import Any, Iterator

from arbiter.match import BotFailed, MalformedAction, SeatClient, SeatDisconnected, TurnRequest
from cardarena.games import Action, Event, Outcome
from cardarena.records import MatchInfo, MatchResult
from sdk.bot import fresh_copy
from sdk.driver import Decision, SeatDriver, cannot_copy

__all__ = ["Decision", "InProcessSeat", "SeatDriver", "bot_code", "cannot_play_in_process"]

log = logging.getLogger(__name__)


def cannot_play_in_process(bot: Any) -> str:
    """Why ``bot`` cannot play a match in this process, in words ("" if it can): each
    match plays a fresh copy of it, and one that cannot be copied (it holds a lock, a
    socket, an open file...) would fail at its first match, inside the referee."""
    try:
        fresh_copy(bot)
    except Exception as exc:  # noqa: BLE001 - any failure to copy is the reason
        return cannot_copy(exc)
    return ""


#: ``bot_copy``'s loop in C (arbiter/hosting/_copyc.c), when the install built it (``make
#: venv`` does, with a C compiler; ARENA_NO_COPYC=1 turns it off): ``_py_copy`` below is the
#: reference and the fallback, copy for copy the same. It reads ``_KINDS`` as it is here.
_COPYC_VERSION = 6


def _load_copyc() -> Any:
    if os.environ.get("ARENA_NO_COPYC"):
        return None
    try:
        from arbiter.hosting import _copyc
    except ImportError:
        return None
    return _copyc if getattr(_copyc, "VERSION", None) == _COPYC_VERSION else None  # a stale build: not used


_copyc = _load_copyc()

#: How ``bot_copy`` copies a value of each type (found once per type).
#: (_copyc.c copies the first three and _DATACLASS itself, by these numbers; the rest it hands
#: to ``_py_copy``.)
_ATOM, _TUPLE, _LIST, _DICT, _DATACLASS, _OTHER, _SLOTTED = range(7)  # _SLOTTED: a dataclass with slots
_KINDS: dict[type, int] = {}


def _kind_of(kind: type) -> int:
    how = _KINDS.get(kind)
    if how is None:
        if issubclass(kind, (str, bytes, float, complex, bool, type(None), enum.Enum)) or (
                issubclass(kind, int) and "__dict__" not in dir(kind)):  # a card is an int without attributes
            how = _ATOM
        elif kind is tuple:
            how = _TUPLE
        elif kind is list:
            how = _LIST
        elif kind is dict:
            how = _DICT
        elif dataclasses.is_dataclass(kind):
            how = _DATACLASS if _in_dict(kind) else _SLOTTED
        else:
            how = _OTHER
        _KINDS[kind] = how
    return how


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind))


@functools.cache
def _in_dict(kind: type) -> bool:
    """Whether ``kind``'s instances keep every attribute in their ``__dict__`` (no slot in it
    or its bases, and a ``__dict__``: a base's empty ``__slots__``, as ``Action``'s, holds
    nothing): then a copy's dict is filled at once, not a setattr per field."""
    mro = kind.__mro__[:-1]
    return all(not k.__dict__.get("__slots__", ()) for k in mro) and any("__slots__" not in k.__dict__ for k in mro)


def bot_copy(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """A copy of ``value`` that shares nothing mutable with it, for a bot.

    What the games hand out (views, actions, events, outcomes) are trees of frozen
    dataclasses, tuples, enums, numbers and strings (a card is an ``int``): the dataclasses
    are copied field by field (a frozen one can still be written through
    ``object.__setattr__``), a tuple only when something in it is copied (a tuple itself
    cannot be written), anything else is deep-copied. ``memo`` (one per seat of a match:
    the originals it has copied, kept alive, and their copies) makes each step cost what
    is new in it: an engine shares the unchanged parts of a view from one step to the next,
    and so does this copy, with that seat only; a bot that scribbles on its copy changes
    nothing but what it is shown itself. The loop is C's where it is built (``_copyc``:
    the same copies, a few times quicker), else ``_py_copy``'s."""
    if _copyc is None:
        return _py_copy(value, memo)
    return _copyc.copy(value, {} if memo is None else memo, _KINDS, _py_copy)


def _copy_each(items: list[Any], memo: dict[int, Any]) -> list[Any]:
    """A list of each item's ``bot_copy`` (a legal-action list: the engines' actions are
    interned, so mostly the memo's hits; the list itself is not kept in the memo)."""
    if _copyc is not None:
        return _copyc.copy_each(items, memo, _KINDS, _py_copy)
    get, out = memo.get, []
    for a in items:  # a hit inline, without a call
        c = get(id(a))
        out.append(_py_copy(a, memo) if c is None else c)
    return out


def _py_copy(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """``bot_copy`` in Python: the reference, and what serves where ``_copyc`` is not built
    (the C copy calls it for a type it does not know or copy itself). An in-process seat
    copies every view and legal list it is given, so the atoms and the memo's hits are
    taken inline, without a call."""
    kinds = _KINDS
    how = kinds.get(type(value))
    if how is None:
        how = _kind_of(type(value))
    if how == _ATOM:
        return value
    if memo is None:
        memo = {}
    get = memo.get
    new = get(id(value))
    if new is not None:
        return new
    if how == _TUPLE:
        changed = False
        items = []
        for v in value:
            if kinds.get(type(v)) != _ATOM:
                c = get(id(v))
                if c is None:
                    c = _py_copy(v, memo)
                if c is not v:
                    changed = True
                v = c
            items.append(v)
        new = tuple(items) if changed else value
    elif how == _LIST:  # an atom as it is; a memo hit without a call (as in a tuple)
        new = []
        for v in value:
            if kinds.get(type(v)) != _ATOM:
                c = get(id(v))
                v = _py_copy(v, memo) if c is None else c
            new.append(v)
    elif how == _DICT:
        new = {}
        for k, v in value.items():
            if kinds.get(type(k)) != _ATOM:
                c = get(id(k))
                k = _py_copy(k, memo) if c is None else c
            if kinds.get(type(v)) != _ATOM:
                c = get(id(v))
                v = _py_copy(v, memo) if c is None else c
            new[k] = v
    elif how == _DATACLASS or how == _SLOTTED:
        kind = type(value)
        new = object.__new__(kind)
        if how == _DATACLASS:  # the fields and anything set beside them (a cached property)
            fields = new.__dict__
            fields.update(value.__dict__)  # the atoms as they are; the rest replaced below
            for name, v in value.__dict__.items():
                if kinds.get(type(v)) != _ATOM:  # a memo hit without a call
                    c = get(id(v))
                    fields[name] = _py_copy(v, memo) if c is None else c
        else:
            names = _field_names(kind)
            for name in names:
                v = getattr(value, name)
                if kinds.get(type(v)) != _ATOM:
                    c = get(id(v))
                    v = _py_copy(v, memo) if c is None else c
                object.__setattr__(new, name, v)
            for name, v in getattr(value, "__dict__", {}).items():  # set beside the fields
                if name not in names:
                    object.__setattr__(new, name, _py_copy(v, memo))
    else:
        new = copy.deepcopy(value)
    memo[id(value)] = new
    memo[-id(value)] = value  # kept alive: its id is not another object's while the memo lasts
    return new


def _original(answer: Any, offered: list[Any], legal: list[Action]) -> Any:
    """What the runner is given for a bot's ``answer``: the engine's own action when the
    answer is one of the copies it was ``offered`` (found by identity) and still holds
    what it was copied from (a bot may have rewritten its copy: the same type, its
    ``__dict__`` equal to the original's); else a copy of the answer. The runner's legality
    check and the engine's ``apply`` find their own object by identity, where a copy was
    compared field by field (a dataclass's ``__eq__``, in Python) at each."""
    for copy_, original in zip(offered, legal):
        if copy_ is answer:
            held = getattr(answer, "__dict__", None)
            if held is not None and type(answer) is type(original) and held == original.__dict__:
                return original
            break
    return bot_copy(answer)


class _Exited(SystemExit):
    """``os._exit`` called by a bot's code in this process."""


#: The process's own ``os._exit``, and what stands in for it once a bot's code has run here.
_REAL_EXIT = os._exit
_in_bot = threading.local()  # ``depth``: how many bot calls this thread is inside
_REPLACED_IN: int | None = None  # the process whose ``os._exit`` was replaced


def _exit_instead(code: int = 0) -> None:
    """``os._exit``, once a bot's code has run in this process: on a thread inside a bot's
    call, ``_Exited`` (the driver's exit: the seat disconnects); anywhere else (another
    thread, or a child forked meanwhile, whose end is an ``os._exit``) the real exit."""
    if getattr(_in_bot, "depth", 0) and os.getpid() == _REPLACED_IN:
        raise _Exited(code)
    _REAL_EXIT(code)


class _BotsStdoutAway:
    """``sys.stdout`` once a bot's code has run in this process: what a thread inside a bot's
    call writes is thrown away, as a bot process's stdout is (it is started with stdout on
    /dev/null: ``arbiter.hosting.sandbox``), and everything else is the stream it stands for
    (``stream``), the command's tables and standings among it. A stream per thread, since
    bots are asked on one thread while the command prints on another (a tournament's
    progress, the web server, the arena's loop): swapping ``sys.stdout`` for each call
    (``contextlib.redirect_stdout``) would throw their output away too, or leave the swap in
    place when two calls overlap."""

    def __init__(self, stream: Any):
        self.stream = stream

    def write(self, text: str) -> int:
        if getattr(_in_bot, "depth", 0):
            return len(text)
        return self.stream.write(text)

    def writelines(self, lines: Any) -> None:
        if not getattr(_in_bot, "depth", 0):
            self.stream.writelines(lines)

    def flush(self) -> None:
        if not getattr(_in_bot, "depth", 0):
            self.stream.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, encoding, fileno, buffer...: the stream's
        return getattr(self.stream, name)


@contextlib.contextmanager
def bot_code() -> Iterator[None]:
    """While a bot's code runs here, ``os._exit`` on its thread is ``sys.exit``: the driver's
    exit (the seat disconnects), not the end of the arbiter with its match unstored; and what
    it prints to stdout is thrown away (``_BotsStdoutAway``), as a bot process's is, instead
    of landing among the command's output. Its stderr is left as it is: its diagnostics.

    The replacement is put in once per process and stays (it passes every other caller to
    the real exit): replacing it per call and putting the old one back raced between the
    threads that run bots (two overlapping calls could leave it replaced for good), and a
    process forked by another thread meanwhile (a pool's worker) inherited the replacement,
    so the child's own final ``os._exit`` raised and it ran on as a copy of its parent."""
    global _REPLACED_IN
    if os._exit is not _exit_instead or _REPLACED_IN != os.getpid():
        os._exit = _exit_instead  # type: ignore[assignment]
        _REPLACED_IN = os.getpid()
    if sys.stdout is not None and type(sys.stdout) is not _BotsStdoutAway:  # once; again if replaced since
        sys.stdout = _BotsStdoutAway(sys.stdout)
    _in_bot.depth = getattr(_in_bot, "depth", 0) + 1
    try:
        yield
    finally:
        _in_bot.depth -= 1


class InProcessSeat(SeatClient):
    """A trusted SDK bot running in this process (`--transport inproc`, evaluate, the arena)."""

    def __init__(self, bot: Any, name: str | None = None):
        self._template = bot
        self._drivers: dict[tuple[str, int], SeatDriver] = {}
        #: per (match, seat) not started yet: its MatchInfo and the events held for it
        self._starting: dict[tuple[str, int], tuple[MatchInfo, list[Event]]] = {}
        #: per (match, seat): what that seat's bot was given, copied (``bot_copy``)
        self._copies: dict[tuple[str, int], dict[int, Any]] = {}
        #: per (match, seat): the last view it was shown (the original), see ``decide``
        self._shown: dict[tuple[str, int], Any] = {}
        self.name = name or getattr(bot, "name", "bot")

    async def start(self, info: MatchInfo) -> None:
        # The bot starts (its copy made, ``on_match_start`` called) at its first hook, its
        # first decision's as a rule: so the time it takes is on that decision's clock, as
        # it is for a bot process, which reads its Start before the Turn it is timed on.
        self._copies[(info.match_id, info.seat)] = {}
        self._starting[(info.match_id, info.seat)] = (bot_copy(info), [])

    def _driver(self, key: tuple[str, int]) -> SeatDriver | None:
        """The seat's driver, started now if it was not (``start``)."""
        driver = self._drivers.get(key)
        if driver is None and key in self._starting:
            info, held = self._starting.pop(key)
            with bot_code():
                driver = self._drivers[key] = SeatDriver(self._template, info)
            driver.push(held)
        return driver

    async def decide(self, turn: TurnRequest) -> Action:
        """The driver's decision in the runner's terms: an action, or the failure the
        runner applies the match's policy to (the same the gRPC seat raises for it)."""
        key = (turn.match_id, turn.seat)
        memo, legal = self._copies[key], turn.legal_actions
        offered, view = _copy_each(legal, memo), bot_copy(turn.view, memo)
        shown = self._shown.get(key)
        if shown is not turn.view:
            # An engine makes a new view at every step: the last one's entry would never be
            # hit again, and kept, the view and its copy are long-lived objects the garbage
            # collector walks for the rest of the match. Its parts stay: the next views
            # share them.
            if shown is not None:
                memo.pop(id(shown), None)
                memo.pop(-id(shown), None)
            self._shown[key] = turn.view
        driver = self._driver(key)
        assert driver is not None, "decide before start"
        with bot_code():
            decision = driver.decide(view, offered)  # (the bot is given a list of its own)
        self._note = decision.note
        if decision.action is not None:
            # the runner judges the action by value; it never holds the bot's object
            return _original(decision.action, offered, legal)
        if decision.exited:  # over gRPC the process ends and its stream with it
            raise SeatDisconnected(f"{self.name}: connection closed")
        if decision.malformed:
            raise MalformedAction(decision.malformed)
        raise BotFailed(decision.failure)

    def reported_note(self) -> str:
        return getattr(self, "_note", "")

    async def notify(self, match_id: str, seat: int, events: list[Event]) -> None:
        starting = self._starting.get((match_id, seat))
        if starting is not None:  # held for the bot's start
            starting[1].extend(bot_copy(e, self._copies[(match_id, seat)]) for e in events)
            return
        driver = self._drivers.get((match_id, seat))
        if driver is not None and driver.wants_events:  # a bot that keeps Bot.on_events is given none
            driver.push([bot_copy(e, self._copies[(match_id, seat)]) for e in events])

    async def reject(self, match_id: str, request_id: int, code: str, message: str) -> None:
        log.info("bot %s: %s: %s", self.name, code, message)

    def stopped(self, match_id: str, seat: int) -> None:
        """The match stopped before its end: the seat's bot is dropped, never told a result."""
        self._starting.pop((match_id, seat), None)
        self._drivers.pop((match_id, seat), None)
        self._copies.pop((match_id, seat), None)
        self._shown.pop((match_id, seat), None)

    async def finish(self, match_id: str, seat: int, outcome: Outcome, final_view: Any) -> None:
        self._driver((match_id, seat))  # a seat never asked starts now, as its process would have
        driver = self._drivers.pop((match_id, seat), None)
        self._copies.pop((match_id, seat), None)
        self._shown.pop((match_id, seat), None)
        if driver is not None:
            with bot_code():
                try:
                    failure = driver.end(MatchResult(match_id, bot_copy(outcome), seat))
                except SystemExit:  # its exit after the match: nothing is left to end
                    failure = "the bot exited in on_match_end"
            if failure:
                log.error("bot %s: %s", self.name, failure)
