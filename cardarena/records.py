"""Match-level types both sides share: how a match is configured, what a bot is told
when it starts and ends, and the record that replays it.

Plain dataclasses, no I/O: the arbiter's match runner fills them, the store keeps them,
the SDK hands ``MatchInfo`` and ``MatchResult`` to a bot, and ``cardarena.replay``
verifies a ``MatchRecord`` against the engine.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from cardarena.disclosure import UNSAID, Disclosure
from cardarena.games import EndReason, Game, Outcome, get_game

# --------------------------------------------------------------------------------------
# Configuration.


@dataclass(frozen=True)
class Clock:
    """Per-decision limit and per-match bank, in ms (0 = unlimited)."""

    decision_ms: int = 10_000
    bank_ms: int = 60_000


class Policy(enum.Enum):
    """What happens to a seat that fails (times out, acts illegally, disconnects)."""

    FORFEIT = "forfeit"  # its side loses the match at once
    DEFAULT = "default"  # the first legal action is played for it, up to max_strikes


@dataclass(frozen=True)
class FailurePolicy:
    on_timeout: Policy = Policy.FORFEIT
    on_illegal: Policy = Policy.FORFEIT
    on_disconnect: Policy = Policy.FORFEIT
    max_strikes: int = 3

    @classmethod
    def uniform(cls, policy: Policy | str, max_strikes: int = 3) -> "FailurePolicy":
        p = Policy(policy)
        return cls(p, p, p, max_strikes)


#: The clock's settings at most (decision_ms, bank_ms): a day. Past it a limit is no limit
#: (0 says "none"), and a typo of a few zeros reaches past what a timer or the store's
#: 64-bit INTEGER takes.
MAX_CLOCK_MS = 86_400_000
#: Failures tolerated per seat at most: far more than any match has decisions.
MAX_STRIKES = 10_000
#: The largest seed a match keeps: the store holds it as a 64-bit INTEGER.
MAX_SEED = 2**63 - 1

#: What the clock and failure settings mean wherever matches are set up (a tournament's
#: spec, a ladder's), written once: ``cardarena.games.options.with_attributes`` adds them
#: to each such class's ``Attributes:`` section, which pydoc, ``field_docs`` and the
#: command line's help read.
MATCH_SETTINGS = {
    "decision_ms": "The time limit of one decision in ms (0: none).",
    "bank_ms": "Each seat's time bank of a match in ms, used past the decision limit.",
    "policy": "What happens to a seat that times out, acts illegally or disconnects: its side loses the match "
              "(forfeit), or its first legal action is played for it, up to max_strikes (default).",
    "max_strikes": "Failures tolerated per seat under the default policy.",
}


@dataclass(frozen=True)
class MatchConfig:
    """Everything that defines a match; with the recorded actions it replays exactly."""

    game: str
    seed: int
    options: Mapping[str, Any] = field(default_factory=dict)
    preset: str | None = None
    clock: Clock = Clock()
    policy: FailurePolicy = FailurePolicy()
    match_id: str = ""
    #: What of the match may be shown, and when (``cardarena.disclosure``): it decides the
    #: final view each seat (and each observer) receives when the match ends. Not part of
    #: the replay. The default (``UNSAID``) is closed: each seat gets only its own view.
    disclosure: Disclosure = UNSAID
    #: A phase of the game (the name of its spectator view's ``phase``, e.g. Spades' "BIDDING"):
    #: the match is played only while the game is in it, and stops before the first decision
    #: of any other (the record then has no outcome; the seats and observers are told it
    #: stopped). "" (the default): played to its end. What a bidding-only probe is.
    stop_after: str = ""

    def make_game(self) -> Game:
        return get_game(self.game, self.options, self.preset)



@dataclass(frozen=True)
class MatchInfo:
    """What a bot learns when a match starts (``Bot.info``, ``on_match_start``).

    Attributes:
        match_id: the match's id (``arbiter replay MATCH_ID``).
        game: ``"spades"``, ``"spite-and-malice"`` or ``"spot"``.
        options: every option in force, by name (the game's defaults included: what
            ``arbiter rules GAME`` lists), e.g. ``options["players"]``.
        seat: this bot's seat, from 0.
        num_seats: how many seats the match has.
        teams: the seats grouped by side, e.g. ``((0, 2), (1, 3))`` in Spades; one seat
            a side where each plays for itself.
        seat_names: the name shown for the bot at each seat, by seat.
        decision_ms: the per-decision limit in ms (0: none). Past it a decision draws on
            the bank; with the bank spent, the decision has timed out.
        bank_ms: the per-match time bank in ms (0: none), shared by all of the seat's
            decisions.
        seed: this bot's own seed for the match (``self.rng`` is seeded with it): one per
            match and seat, never the deal seed, which it does not reveal.
    """

    match_id: str
    game: str
    options: dict[str, Any]
    seat: int
    num_seats: int
    teams: tuple[tuple[int, ...], ...]
    seat_names: tuple[str, ...] = ()
    decision_ms: int = 0
    bank_ms: int = 0
    seed: int = field(default=0)


@dataclass(frozen=True)
class MatchResult:
    """How a match ended, as the bot is told (``on_match_end``).

    Attributes:
        match_id: the match's id.
        outcome: the ``Outcome``: every seat's score and rank, why it ended.
        seat: this bot's seat (``outcome.ranks[result.seat]`` is its own rank).
    """

    match_id: str
    outcome: Outcome
    seat: int



# --------------------------------------------------------------------------------------
# The record.


#: What of a bot's own input is echoed back anywhere (errors, incidents, outcomes): at most this much.
ECHO_LIMIT = 200


def clip(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` on one line, its control characters shown (``visible``; a newline as ``\\n``),
    cut to ``limit`` characters (and says so), for anything that echoes bot input: an
    incident's detail, an error. Where it is shown on a line of its own (``incident: seat 0:
    crash: ...``), a newline in a bot's exception message started a line of the bot's that read
    as the command's own."""
    text = visible(text).replace("\n", "\\n")
    if len(text) <= limit:
        return text
    # Text clipped once already, then prefixed ("the bot failed: " + a clipped Act.failure),
    # is cut again in its own part, its count kept: a second clip cut into the first's note
    # and counted what was left of it ("(41 more characters)" of 300 the bot sent).
    more = 0
    if (m := _CLIPPED.fullmatch(text)) is not None:
        text, more = m.group(1), int(m.group(2))
        if len(text) <= limit:
            return m.group(0)
    return text[:limit] + f"... ({len(text) - limit + more} more characters)"


_CLIPPED = re.compile(r"(.*)\.\.\. \((\d+) more characters\)", re.S)


#: What ``visible`` writes for a character a terminal or a parser would act on instead of
#: showing: the C0 controls but newline and tab (ESC starts a terminal's escape sequence:
#: colours, clearing the screen, an OSC 8 hyperlink; CR overwrites the line; BEL rings),
#: DEL, the C1 controls (0x9b is CSI on some terminals) and the bidirectional overrides
#: (which reorder what is shown after them); each as its Python escape, ``\\x1b``.
_VISIBLE = {c: ({0x0d: "\\r", 0x00: "\\0"}.get(c) or f"\\x{c:02x}")
            for c in (*range(0x00, 0x20), 0x7f, *range(0x80, 0xa0)) if c not in (0x09, 0x0a)}
_VISIBLE.update({c: f"\\u{c:04x}" for c in (0x200e, 0x200f, 0x2028, 0x2029, *range(0x202a, 0x202f),
                                            *range(0x2066, 0x206a))})


def visible(text: str) -> str:
    """``text`` with every control character shown as its escape (``_VISIBLE``) instead of
    acted on: for anything that shows text someone else wrote (a bot's notes, stderr and
    errors, a tournament's name) where a terminal, a log line or an XML page would read it.
    Newlines and tabs are kept."""
    return text.translate(_VISIBLE)


def number(text: str) -> int | None:
    """``text`` as the whole number it writes in ASCII digits, or None if it is not one or has
    more than 18 digits, for anything that reads a number a person (or a URL) wrote: ``isdigit``
    alone also passes '²' and '١' and 5,000 digits, which ``int`` refuses or SQLite cannot hold."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


@dataclass(frozen=True)
class RecordedAction:
    seat: int
    action: str  # notation
    ms: int  # wall time the seat took, as the arbiter saw it (its clock is charged this)
    forced: str = ""  # non-empty when the arbiter chose it (policy "default"): why
    #: The arbiter's own time for this decision, in microseconds, charged to no clock: from
    #: the previous answer (or the deal) until this seat was asked (applying the previous
    #: action, telling the seats and spectators, this seat's view and legal actions). 0 in
    #: records stored before it was measured (docs/latency.md).
    overhead_us: int = 0
    #: The bot's own time for this decision, in microseconds, as its SDK reported it
    #: (``Act.think_us``); None when not said (a seat in the arbiter's process, an SDK that
    #: does not say, an older record). The bot's word: shown to its author beside ``ms``
    #: (the difference is the transport), never used for the clock.
    bot_us: int | None = None
    #: The bot's notes on this decision (``Bot.note``), bounded by ``bound_note``; "" for
    #: none. Disclosed like the seat's view (``cardarena.disclosure.notes_visible``);
    #: never read by the match.
    note: str = ""


#: A bot's notes: at most this many bytes (UTF-8) a decision, and this many a match.
NOTE_LIMIT = 1024
MATCH_NOTE_LIMIT = 64 * 1024


def bound_note(text: str, used: int = 0) -> str:
    """``text`` cut to ``NOTE_LIMIT`` bytes, and to what is left of ``MATCH_NOTE_LIMIT``
    after ``used`` bytes of notes earlier in the match; a cut note ends saying so. The one
    bound: the SDK applies it before sending, the arbiter again on what it receives."""
    if not text:
        return ""
    room = max(0, min(NOTE_LIMIT, MATCH_NOTE_LIMIT - used))
    data = text.encode("utf-8", "replace")
    if len(data) <= room:
        return text
    why = " [cut: the match's notes are over 64 KB]" if room < NOTE_LIMIT else " [cut: notes over 1 KB]"
    keep = max(0, room - len(why.encode()))
    return (data[:keep].decode("utf-8", "ignore") + why) if room > len(why.encode()) else ""


@dataclass(frozen=True)
class Incident:
    seat: int
    kind: str  # "timeout", "illegal", "malformed", "disconnect", "crash"
    detail: str
    stderr: str = ""  # the tail of the bot process's stderr, when the arbiter started the process


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind))


def _fields_of(value: Any) -> dict[str, Any]:
    """A dataclass's fields by name (the values themselves, not copies)."""
    return {name: getattr(value, name) for name in _field_names(type(value))}


#: The record's format, written as ``format`` in its JSON: a reader refuses a record of a later
#: format (written by a newer arbiter, whose fields it might misread) with a message saying so,
#: and reads one without the field (written before 7 December 2026) as format 1. Raise it when a
#: field changes meaning or a reader must know of a new one; a field older readers may ignore
#: (with a default) needs no new format. Format 2 (December 2026): a forfeit ranks the sides
#: that did not fail by their standing when it ended (``forfeit_outcome``); in format 1 they
#: all shared first, and a record of format 1 is verified by its own rule.
RECORD_FORMAT = 2


class NewerRecordFormat(ValueError):
    """A record of a format later than ``RECORD_FORMAT``: not corrupt, but not ours to read."""


@dataclass
class MatchRecord:
    """Enough to replay the match: game, options, seed, seats, actions, timings, result."""

    match_id: str
    game: str
    options: dict[str, Any]
    seed: int
    seat_names: tuple[str, ...]
    actions: list[RecordedAction] = field(default_factory=list)
    incidents: list[Incident] = field(default_factory=list)
    outcome: Outcome | None = None
    started: float = 0.0
    seconds: float = 0.0
    #: where it was played, when that is worth saying: "" for the usual (bots installed
    #: with the arbiter in process, anything else hosted), else what ``arbiter.batch.venue``
    #: says (a file's bot played in process because it was asked for)
    venue: str = ""
    #: the format it was written in (``RECORD_FORMAT`` for a match played now): the rules a
    #: reader checks it by (a forfeit's ranks) are those of its format
    format: int = RECORD_FORMAT

    def to_json(self) -> str:
        # ``dataclasses.asdict``'s text, field by field: its deep copy (of a dict per action,
        # thousands a match) was most of what storing a match cost; the parts are flat
        # (numbers, strings, tuples of them), read by json.dumps without a copy
        d = _fields_of(self)
        actions = d["actions"] = [_fields_of(a) for a in self.actions]
        for a in actions:  # most decisions have no note: kept out of the stored text
            if not a["note"]:
                del a["note"]
        d["incidents"] = [_fields_of(i) for i in self.incidents]
        if self.outcome is not None:
            d["outcome"] = _fields_of(self.outcome)
            d["outcome"]["reason"] = self.outcome.reason.value
        if not self.venue:
            del d["venue"]
        return json.dumps(d, sort_keys=True)

    def content(self) -> dict[str, Any]:
        """What the match was, and nothing of how it was run: game, options, seed, seats,
        each action (seat, notation, forced), each incident (seat, kind, detail) and the
        result. Not the match id, timings, stderr tails or the venue: the same match played
        in process, over gRPC or on a cluster has the same content."""
        o = self.outcome
        return {
            "game": self.game, "options": self.options, "seed": self.seed, "seats": list(self.seat_names),
            "actions": [[a.seat, a.action, a.forced] for a in self.actions],
            "incidents": [[i.seat, i.kind, i.detail] for i in self.incidents],
            "outcome": None if o is None else [list(o.scores), list(o.ranks), o.reason.value, o.detail],
        }

    def content_hash(self) -> str:
        """The sha256 (hex) of ``content``: two records say they are the same match when
        their hashes agree (the parity tests compare them across venues)."""
        text = json.dumps(self.content(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    @classmethod
    def from_json(cls, text: str) -> "MatchRecord":
        """Parse a stored record; ValueError naming what is wrong. Every field is checked
        for its type here, since a record file may have been edited by hand: a seat name
        that is a number or a game that is a list would otherwise fail later, in whatever
        reader first used it (a replay's heading, the engine's lookup), as a traceback."""
        try:
            d = json.loads(text)
            if not isinstance(d, dict):
                raise ValueError(f"expected a JSON object, got {type(d).__name__}")
            fmt = _typed(d, "format", int, default=1)
            if fmt > RECORD_FORMAT:
                raise NewerRecordFormat(f"match record of format {fmt}: this arbiter reads formats 1 to {RECORD_FORMAT}; "
                                        "a newer arbiter wrote it (upgrade card-arena to read it)")
            if fmt < 1:
                raise ValueError(f"format: expected a record format from 1, got {fmt}")
            _typed(d, "options", dict)
            outcome = d.get("outcome")
            if outcome is not None:
                _typed({"outcome": outcome}, "outcome", dict)
                scores, ranks = _typed(outcome, "scores", list, "outcome."), _typed(outcome, "ranks", list, "outcome.")
                for name, values, kinds in (("scores", scores, (int, float)), ("ranks", ranks, int)):
                    if any(type(v) is bool or not isinstance(v, kinds) for v in values):
                        raise ValueError(f"outcome.{name}: expected a list of numbers{'' if name == 'scores' else ' (whole)'}, "
                                         f"got {clip(json.dumps(values), 80)}")
                outcome = Outcome(tuple(scores), tuple(ranks), _reason(_typed(outcome, "reason", str, "outcome.")),
                                  _typed(outcome, "detail", str, "outcome."))
            actions = [RecordedAction(**_fields_typed(a, RecordedAction, f"action {i}: "))
                       for i, a in enumerate(_typed(d, "actions", list), 1)]
            incidents = [Incident(**_fields_typed(x, Incident, f"incident {i}: "))
                         for i, x in enumerate(_typed(d, "incidents", list), 1)]
            names = _typed(d, "seat_names", list)
            if not all(isinstance(n, str) for n in names):
                raise ValueError(f"seat_names: expected a list of names (text), got {clip(json.dumps(names), 80)}")
            return cls(
                match_id=_typed(d, "match_id", str),
                game=_typed(d, "game", str),
                options=d["options"],
                seed=_typed(d, "seed", int),
                seat_names=tuple(names),
                actions=actions,
                incidents=incidents,
                outcome=outcome,
                started=_typed(d, "started", (int, float), default=0.0),
                seconds=_typed(d, "seconds", (int, float), default=0.0),
                venue=_typed(d, "venue", str, default=""),
                format=fmt,
            )
        except NewerRecordFormat:
            raise
        except json.JSONDecodeError as exc:
            raise ValueError(f"corrupt match record: not JSON: {exc}") from None
        except RecursionError:  # json's parser recurses per level: '[[[[...' many thousand deep
            raise ValueError("corrupt match record: its JSON is nested too deeply to be one") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"corrupt match record: {exc if type(exc) is ValueError else repr(exc)}") from None


def _reason(value: str) -> EndReason:
    """The end reason ``value`` names; ValueError listing the reasons a record may give."""
    try:
        return EndReason(value)
    except ValueError:
        raise ValueError(f"outcome.reason: {clip(json.dumps(value), 80)} is no end reason (they are "
                         f"{', '.join(r.value for r in EndReason)})") from None


_KIND_NAMES = {str: "text", int: "a whole number", float: "a number", list: "a list", dict: "an object"}
_MISSING = object()


def _typed(d: dict[str, Any], key: str, kinds: type | tuple[type, ...], where: str = "", default: Any = _MISSING) -> Any:
    """``d[key]`` if it is of ``kinds`` (a bool is not a number), else ValueError naming the
    field, what it should be and what it is; ``default`` when it is absent and one is given."""
    if key not in d:
        if default is not _MISSING:
            return default
        raise ValueError(f"{where}{key}: missing")
    value = d[key]
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if (type(value) is bool and bool not in kinds) or not isinstance(value, kinds):
        said = " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
        raise ValueError(f"{where}{key}: expected {said}, got {clip(json.dumps(value), 80)}")
    return value


#: The type each field of an action or incident holds (None: may be null).
_FIELD_KINDS: dict[str, tuple[Any, ...]] = {
    "seat": (int,), "action": (str,), "ms": (int,), "forced": (str,), "overhead_us": (int,),
    "bot_us": (int, None), "note": (str,), "kind": (str,), "detail": (str,), "stderr": (str,),
}


#: Per field of ``_FIELD_KINDS``, the exact types its value may have (``type(None)`` where it may
#: be null; a bool is its own type, never a number): checked with one lookup a field, since a
#: record's every action is (a record read 2.8x slower with ``_typed`` a field).
_EXACT = {k: frozenset(type(None) if t is None else t for t in kinds) for k, kinds in _FIELD_KINDS.items()}


@functools.cache
def _required(kind: type) -> tuple[str, ...]:
    """The fields of ``kind`` without a default: a record must give each."""
    return tuple(f.name for f in dataclasses.fields(kind)
                 if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)


def _fields_typed(d: Any, kind: type, where: str) -> dict[str, Any]:
    """An action's or an incident's fields, each checked for its type (``_FIELD_KINDS``)."""
    if type(d) is not dict:
        raise ValueError(f"{where.rstrip(': ')}: expected an object, got {clip(json.dumps(d), 80)}")
    names = _field_names(kind)
    if missing := [name for name in _required(kind) if name not in d]:
        raise ValueError(f"{where}{', '.join(missing)}: missing")
    for key, value in d.items():
        if key not in names:
            raise ValueError(f"{where}unknown field {key!r}")
        if type(value) not in _EXACT[key]:  # only then the slower check, for its message
            _typed(d, key, tuple(k for k in _FIELD_KINDS[key] if k is not None), where)
    return d


def bot_seed_for(seed: int, seat: int) -> int:
    """The seed a seat's bot gets for its own random choices: a one-way function of the
    match seed, so the bot cannot compute the deal seed back from it (an invertible mix
    such as ``seed * k + seat`` would hand every bot the whole deal)."""
    digest = hashlib.sha256(f"bot-seed:{seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


#: The forfeit each kind of failure ends a match with: the match runner ends it so, and the
#: replay checks a forfeit's result against the record's last incident with it.
FORFEIT_REASON = {
    "timeout": EndReason.FORFEIT_TIMEOUT,
    "illegal": EndReason.FORFEIT_ILLEGAL,
    "malformed": EndReason.FORFEIT_ILLEGAL,
    "disconnect": EndReason.FORFEIT_DISCONNECT,
    "crash": EndReason.FORFEIT_CRASH,
}


def forfeit_outcome(game: Game, seat: int, reason: EndReason, detail: str,
                    standing: Sequence[Sequence[float]] | None = None) -> Outcome:
    """The failing seat's side ranks last; every other side by its ``standing`` when the match
    ended (``State.standing``: the money so far at Spot, the pay-off cards left at Spite and
    Malice), sides that stand alike sharing a rank; without one (a record of format 1, a game
    of two sides) every other side shares first. With three sides or more, every other side
    first let one side's forfeit make the sides it was losing to equal to the leader (the
    leader's share of first halved or worse, a side far behind raised to it): a bot could hand
    a result to another, its author's own among them, by failing."""
    team = next(t for t in game.teams if seat in t)
    last = len(game.teams)
    ranks = [last if s in team else 1 for s in range(game.num_seats)]
    if standing is not None:
        others = [t for t in game.teams if seat not in t]
        for t in others:
            ahead = sum(1 for u in others if tuple(standing[u[0]]) > tuple(standing[t[0]]))
            for s in t:
                ranks[s] = 1 + ahead
    return Outcome(tuple(0.0 for _ in range(game.num_seats)), tuple(ranks), reason, detail)
