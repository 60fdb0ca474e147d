"""A bot's life in one match: the one driver behind every transport.

Whichever path plays a bot (over gRPC with ``sdk.run``, in the arbiter's process as a
trusted seat, or in ``sdk.harness``), one ``SeatDriver`` per (match, seat) does
everything that happens to the bot's code, in the same order and with the same
results, so the same bot, seed and options give the same match on every path:

- a fresh copy of the bot for the match, started with its ``MatchInfo``
  (``self.info``, ``self.rng`` seeded per seat, then ``on_match_start``);
- the events the seat may see, held and delivered in order, each once, in one
  ``on_events`` call before each decision and before ``on_match_end``;
- ``choose`` for each decision, and its answer read as an action of the match's game
  (a returned string is parsed as notation);
- every failure of the bot's code turned into one value, a ``Decision``, with its
  reason in words: a hook that raised (any ``BaseException``: a ``CancelledError`` or a
  class of the bot's own too; only a real Ctrl-C stops the program) (``on_match_start`` and ``on_events`` are reported
  with the seat's next answer), a hook written ``async def`` (called without await, its
  body never ran), ``choose`` returning None or something that is not an action, a text
  that is not an action of the game, and a bot that exits its process (``sys.exit``);
- ``on_match_end`` with the result; what it raises is returned, to be logged.

A transport only moves a ``Decision`` to the arbiter: the gRPC session sends it as an
``Act`` (an action, its notation, or ``Act.failure``), the in-process seat hands it to
the match runner (an action, or the runner's ``MalformedAction``/``BotFailed``/
``SeatDisconnected``), the harness raises ``HarnessError`` on anything but an action.
Whether an action is legal is the arbiter's to judge, never the driver's.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import operator
import os
import re
import sys
import sysconfig
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import cardarena
from cardarena.games import Action, Card, Event, GameError, game_class
from cardarena.records import MatchInfo, MatchResult, bound_note
from sdk.bot import Bot, fresh_copy

#: What of a failure or a notation a bot's answer carries at most (the arbiter echoes 200
#: characters of it in the record). The same on every path, so clipped texts agree.
FAILURE_LIMIT = 1000


@dataclass(frozen=True, slots=True)
class Decision:
    """A bot's answer to one turn, as a value. Exactly one of ``action``, ``malformed``,
    ``failure`` and ``exited`` says what happened:

    - ``action``: an action of the match's game (legal or not: the arbiter judges that);
    - ``malformed``: why ``notation``, the text the bot answered, is not an action of it;
    - ``failure``: why the bot's code could not choose (it raised, returned None, ...);
    - ``exited``: the bot's code called ``sys.exit`` (``exit_code``): its process ends.

    ``notation`` is the text the bot answered (a string, or an action that is not one of
    the game's), "" when it returned one of its legal actions.
    """

    action: Action | None = None
    notation: str = ""
    malformed: str = ""
    failure: str = ""
    exited: bool = False
    exit_code: Any = None
    #: What the bot noted during this decision (``Bot.note``), bounded (``bound_note``).
    note: str = ""


def _card_answer(card: Card, legal_actions: Sequence[Action]) -> str:
    """Why a card is no answer, and which legal actions move it (by their notation naming
    it): at a decision where none does (a Spot draw, a Spades bid) "the one that plays it"
    sent the author looking for an action that is not there."""
    named = re.compile(rf"(?<![\w]){re.escape(str(card))}(?![\w])")
    moves = [str(a) for a in legal_actions if named.search(str(a))]
    if moves:
        shown = ", ".join(moves[:3]) + (", ..." if len(moves) > 3 else "")
        return f"choose returned the card {card}, not an action: return the one of legal_actions that moves it ({shown})"
    shown = ", ".join(str(a) for a in legal_actions[:4]) + (", ..." if len(legal_actions) > 4 else "")
    return (f"choose returned the card {card}, not an action: return one of legal_actions (none moves {card} now"
            + (f"; they are: {shown})" if shown else ")"))


def _not_an_action_hint(answer: Any) -> str:
    """What to change where the answer's kind shows the slip: ``async def choose`` (a
    coroutine, never awaited: it is closed, so Python does not warn of it too), ``yield``
    (a generator), a list or tuple of actions; "" otherwise."""
    if inspect.iscoroutine(answer):
        answer.close()
        return " (choose is called without await: define it with def, not async def)"
    if inspect.isgenerator(answer):
        return " (return it: a choose that yields is a generator)"
    if isinstance(answer, (list, tuple)):
        return " (one action, not a sequence of them)"
    return ""


def _int_answer(answer: int, legal_actions: Sequence[Action]) -> str:
    """Why an int is no answer: an index into ``legal_actions`` is named as the action to
    return instead; one that is no index of them (``return 42`` of 13) is not, where
    "legal_actions[42]" sent the author to an IndexError."""
    if 0 <= answer < len(legal_actions):
        return (f"choose returned the int {answer}, not an action: return one of legal_actions itself "
                f"(legal_actions[{answer}], {legal_actions[answer]}), not its index")
    return (f"choose returned the int {answer}, not an action (nor an index of the {len(legal_actions)} legal "
            "actions): return one of legal_actions")


def describe_failure(exc: BaseException, hook: str) -> str:
    """``RuntimeError: boom (mybot.py:12 in choose)``: the exception and the bot's own line
    (the innermost frame outside the SDK, the core and Python's library), and its traceback
    on stderr. An exception that came out of a call into those (a helper given the wrong
    argument, ``rng.choice([])``) says which function it came out of as well,
    ``(mybot.py:12 in choose, inside trick_winner)``: their file's line is not one the author
    wrote. Where no frame is the bot's own (an installed bot), the innermost outside the SDK."""
    traceback.print_exception(exc, file=sys.stderr)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not _in_sdk(f.filename)]
    own = [f for f in frames if not _in_library(f.filename)] or frames
    where = ""
    if own:
        where = f"{Path(own[-1].filename).name}:{own[-1].lineno} in {own[-1].name}"
        if own[-1] is not frames[-1]:
            where += f", inside {frames[-1].name}"
        where = f" ({where})"
    text = str(exc)
    return f"{hook} raised {type(exc).__name__}" + (f": {text}" if text else "") + where


_SDK_DIR = str(Path(__file__).resolve().parent)


@functools.lru_cache(maxsize=None)
def _library_dirs() -> tuple[str, ...]:
    """Code a bot calls but did not write: the core (the games' helpers the SDK re-exports),
    Python's own library and installed packages. Read at the first failure, not at import:
    a bot process's start pays nothing for it."""
    paths = sysconfig.get_paths()
    dirs = {Path(cardarena.__file__).resolve().parent,
            *(Path(paths[k]).resolve() for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths)}
    return tuple(sorted(str(d) + os.sep for d in dirs))


def _in_sdk(filename: str) -> bool:
    return str(Path(filename).resolve()).startswith(_SDK_DIR)


def _in_library(filename: str) -> bool:
    return filename.startswith("<frozen ") or str(Path(filename).resolve()).startswith(_library_dirs())


@functools.lru_cache(maxsize=None)
def _notation_parser(game: str) -> Any:
    """A default-configured engine of ``game``: its notation (which no option changes)."""
    return game_class(game)()


def parse_notation(game: str, text: str) -> Action:
    """``text`` as an action of ``game``; GameError (its message names what is wrong)."""
    return _notation_parser(game).parse_action(text)


def wants_events(bot: Bot) -> bool:
    """False if the bot keeps ``Bot.on_events``, which does nothing: a transport then need
    not decode its events at all (a fifth of the SDK's work per Turn; docs/performance.md)."""
    return getattr(bot.on_events, "__func__", None) is not Bot.on_events


def _interrupted(exc: BaseException) -> bool:
    """A real Ctrl-C (``KeyboardInterrupt`` itself), which stops the program, not a failure
    of the bot: every other exception its code raises, ``BaseException``s included
    (``asyncio.CancelledError``, ``GeneratorExit``, a class of its own), is its failure."""
    return type(exc) is KeyboardInterrupt


def cannot_copy(exc: BaseException) -> str:
    """Why a bot could not be copied for a match (``exc``: what ``fresh_copy`` raised), and
    what to do: every path plays each match on a fresh copy of the bot."""
    return (f"the bot cannot be copied for a match ({type(exc).__name__}: {exc}): make locks, sockets and open "
            "files in on_match_start, not __init__ (each match plays a copy)")


def _exited(exc: SystemExit) -> Decision:
    return Decision(exited=True, exit_code=exc.code, failure=f"the bot exited (sys.exit({exc.code!r}))")


class SeatDriver:
    """One bot at one seat of one match, from its start to its end.

    ``SeatDriver(bot, info)`` makes the bot's fresh copy and starts it; ``push(events)``
    holds events for the seat; ``decide(view, legal_actions)`` delivers what is held and
    asks ``choose``; ``end(result)`` delivers the rest and calls ``on_match_end``.
    Nothing the bot's code does raises out of these, but ``sys.exit`` in ``end``.
    """

    __slots__ = ("bot", "info", "game", "wants_events", "_held", "_broken", "_uncopied", "_noted")

    @property
    def exited(self) -> bool:
        """The bot's code called ``sys.exit``: it is not called again."""
        return self._broken is not None and self._broken.exited

    def __init__(self, bot: Bot, info: MatchInfo):
        self.info = info
        self.game = info.game
        self._held: list[Event] = []
        self._noted = 0  # bytes of notes so far in the match
        #: what went wrong before the next decision (on_match_start, on_events, an exit)
        self._broken: Decision | None = None
        #: the bot could not be copied for this match: every decision's answer (no hook runs)
        self._uncopied: Decision | None = None
        try:
            self.bot = fresh_copy(bot)
        except Exception as exc:  # noqa: BLE001 - what the bot holds: a lock, a socket, an open file
            self._uncopied = Decision(failure=_clip(cannot_copy(exc)))
            self.bot = bot  # never called: its hooks would share one object between matches
            self.wants_events = False
            return
        self.wants_events = wants_events(self.bot)
        try:
            _ran(self.bot._start(info), "on_match_start")
        except SystemExit as exc:
            self._broken = _exited(exc)
        except _AsyncHook as exc:
            self._broken = Decision(failure=str(exc))
        except BaseException as exc:  # noqa: BLE001 - the bot's bug: reported with its next answer
            if _interrupted(exc):
                raise
            self._broken = Decision(failure=_clip(describe_failure(exc, "on_match_start")))

    def push(self, events: Sequence[Event]) -> None:
        """Hold ``events`` (already filtered for this seat) for the bot's next hook."""
        if self.wants_events:
            self._held.extend(events)

    def _deliver(self) -> None:
        """The held events to ``on_events``, as the wire carries them: without
        ``visible_to``, which the arbiter does not send (it filters per seat instead). In
        process a private event kept it, so a bot that read it (``visible_to is None``
        for "public") played otherwise hosted than in the harness."""
        if self._held:
            events, self._held = self._held, []
            if any(map(_VISIBLE_TO, events)):  # (in C, once a delivery: most hold no private event)
                events = [e if e.visible_to is None else _as_sent(e) for e in events]
            _ran(self.bot.on_events(events), "on_events")

    def decide(self, view: Any, legal_actions: Sequence[Action]) -> Decision:
        """The bot's answer to one decision. A failure held from ``on_match_start`` or an
        exit is the answer, once (the bot is asked again at its next decision)."""
        if self._uncopied is not None:
            return self._uncopied
        if self._broken is not None:
            broken, self._broken = self._broken, None
            if broken.exited:
                self._broken = broken  # an exited bot stays gone
            return broken
        try:
            self._deliver()
        except SystemExit as exc:
            self._broken = _exited(exc)
            return self._broken
        except _AsyncHook as exc:
            return Decision(failure=str(exc))
        except BaseException as exc:  # noqa: BLE001 - the bot's bug, this decision's answer
            if _interrupted(exc):
                raise
            return Decision(failure=_clip(describe_failure(exc, "on_events")))
        self.bot.__dict__["_notes"] = []
        try:
            answer = self.bot.choose(view, list(legal_actions))
        except SystemExit as exc:
            self._broken = _exited(exc)
            return self._broken
        except BaseException as exc:  # noqa: BLE001
            if _interrupted(exc):
                raise
            return self._noting(Decision(failure=_clip(describe_failure(exc, "choose"))))
        return self._noting(self._read(answer, legal_actions))

    def _noting(self, decision: Decision) -> Decision:
        """``decision`` with the notes the bot made while choosing, bounded."""
        notes = self.bot.__dict__.get("_notes")
        if not notes:
            return decision
        note = bound_note("\n".join(notes), self._noted)
        self._noted += len(note.encode())
        return dataclasses.replace(decision, note=note) if note else decision

    def _read(self, answer: Any, legal_actions: Sequence[Action]) -> Decision:
        """``answer`` as an action of this game: one of ``legal_actions`` as it is (the
        usual case, checked by identity), anything else through its notation, so that an
        action of another game or a hand-made one reads the same on every transport."""
        for action in legal_actions:
            if action is answer:
                return _chosen(answer)
        if isinstance(answer, str):
            text = answer
        elif isinstance(answer, Action):
            text = str(answer)
        elif answer is None:
            return Decision(failure="choose returned None: return one of legal_actions, or its notation")
        elif isinstance(answer, Card):  # a card is an int: not to be taken for an index
            return Decision(failure=_card_answer(answer, legal_actions))
        elif isinstance(answer, int) and not isinstance(answer, bool):
            return Decision(failure=_int_answer(answer, legal_actions))
        else:
            kind = type(answer).__name__
            return Decision(failure=f"choose returned {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not an action: "
                                    f"return one of legal_actions{_not_an_action_hint(answer)}")
        text = text[:FAILURE_LIMIT]
        try:
            return Decision(action=parse_notation(self.game, text), notation=text)
        except GameError as exc:
            return Decision(notation=text, malformed=str(exc))

    def end(self, result: MatchResult) -> str:
        """Deliver the held events, then ``on_match_end``; what they raised, in words ("" if
        nothing). A bot that exited is not called again; one that exits here is
        ``exited`` afterwards."""
        if self.exited or self._uncopied is not None:
            return ""
        try:
            self._deliver()
            _ran(self.bot.on_match_end(result), "on_match_end")
        except SystemExit as exc:
            self._broken = _exited(exc)
            return self._broken.failure
        except _AsyncHook as exc:
            return str(exc)
        except BaseException as exc:  # noqa: BLE001 - the match is over: nothing to report to
            if _interrupted(exc):
                raise
            return describe_failure(exc, "on_match_end")
        return ""


class _AsyncHook(Exception):
    """A hook written ``async def``: called without await, its body never ran."""


def _ran(result: Any, hook: str) -> None:
    """Raise _AsyncHook if ``result``, what ``hook`` returned, is a coroutine: an ``async
    def on_events`` was called, returned its coroutine and was never run, and the bot played
    on without its events and no word of it (Python's "never awaited" at best)."""
    if inspect.iscoroutine(result):
        result.close()
        raise _AsyncHook(f"{hook} is async def: the SDK calls it without await, so its body never ran; "
                         "define it with def")


_VISIBLE_TO = operator.attrgetter("visible_to")


@functools.lru_cache(maxsize=4096)
def _as_sent(event: Event) -> Event:
    """``event`` as a seat receives it over the wire (``codec.event_fields``: no
    ``visible_to``); cached, as the engines intern their events."""
    return dataclasses.replace(event, visible_to=None)


#: id(action) -> (action, Decision(action=action)): a Decision is an immutable value and
#: the engines hand out the same action objects again (interned), so the usual answer's
#: Decision is made once (the entry holds the action, so its id stays unique). Bounded.
_CHOSEN: dict[int, tuple[Any, Decision]] = {}


def _chosen(action: Any) -> Decision:
    hit = _CHOSEN.get(id(action))
    if hit is None or hit[0] is not action:
        if len(_CHOSEN) >= 4096:
            _CHOSEN.clear()
        hit = _CHOSEN[id(action)] = (action, Decision(action=action))
    return hit[1]


def _clip(text: str) -> str:
    return text[:FAILURE_LIMIT]
