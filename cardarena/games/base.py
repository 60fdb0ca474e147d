"""The game-agnostic engine interface every rules engine implements.

A game is ``(rules, options, seed)``. ``Game`` holds the validated options and creates
states; ``State`` is advanced only by ``apply(action)``. Given the seed and the action
list a match replays bit for bit, so engines own a private ``random.Random`` derived
from the seed and never touch the global RNG, clocks, threads, I/O or protobuf.

Hidden information is filtered in exactly one place per game: ``State.view(seat)`` and
``State.spectator_view()``; events carry the seats allowed to see them and
``events_for`` filters them; ``Game.action_text`` says how an action just taken reads to
each viewer (the notation itself names cards some viewers may not see). Nothing else may
build a player-facing picture of a state.

Shape modelled on OpenSpiel's ``Game``/``State``.

Every field of a game's Options and view dataclasses is described once, in the class
docstring's ``Attributes:`` section (one ``name: meaning`` entry per field), so that
``pydoc`` shows it and ``field_docs`` reads it back (``arbiter rules GAME`` prints the
options from there; a test checks every field has its line).
"""

from __future__ import annotations

import abc
import dataclasses
import enum
import types
import typing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Mapping, Sequence

if TYPE_CHECKING:
    from collections import Counter

    from .cards import Card


class GameError(Exception):
    """Base of every error an engine raises."""


class InvalidActionError(GameError):
    """The action text is malformed: not in the game's notation at all."""


class IllegalActionError(GameError):
    """A well-formed action that is not legal in this state. The state is unchanged.

    The message names the action and the reason, computed only from what the actor
    may see (it never mentions another seat's cards).
    """


class ConfigError(GameError):
    """A bad option: unknown key, wrong type, out of range or contradicting another."""


class EndReason(enum.Enum):
    """Why a game ended. Engines produce the first group; the match runner the forfeits."""

    COMPLETED = "completed"  # the rules' normal end: a side reached the target, a pile emptied...
    STALEMATE = "stalemate"  # the rules' blocked end: stock exhausted, deadlock
    TURN_LIMIT = "turn_limit"  # an engine termination guard (max_deals, max_turns)
    FORFEIT_TIMEOUT = "forfeit_timeout"
    FORFEIT_ILLEGAL = "forfeit_illegal"
    FORFEIT_DISCONNECT = "forfeit_disconnect"
    FORFEIT_CRASH = "forfeit_crash"
    ABORTED = "aborted"  # the arbiter stopped the match (shutdown); no result counts

    @property
    def is_forfeit(self) -> bool:
        """A seat failed (timeout, illegal action, disconnect, crash) and its side lost."""
        return self.name.startswith("FORFEIT")

    @property
    def finishes_the_game(self) -> bool:
        """The rules ended the game (its actions reach a terminal state), not the arbiter."""
        return not (self.is_forfeit or self is EndReason.ABORTED)


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game.

    ``scores`` are the game's own numbers per seat (Spades: the side's total score,
    Spot: net units, Spite and Malice: series points or 1/0.5/0), ``ranks`` the
    placement per seat (1 = best; equal ranks are a tie; partners share a rank).
    """

    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    reason: EndReason
    detail: str = ""

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats ranked first (all seats on a full draw)."""
        return tuple(s for s, r in enumerate(self.ranks) if r == 1)


def ranks_from_scores(scores: Sequence[float]) -> tuple[int, ...]:
    """Competition ranking (1, 1, 3, ...): higher score is better."""
    return tuple(1 + sum(1 for o in scores if o > s) for s in scores)


@dataclass(frozen=True)
class Event:
    """Something that happened, with who may see it.

    ``visible_to`` is None for a public event, else the seats that may see it. A forced
    event with a private part is emitted twice: a public one without the cards ("seat 2
    drew 1 card") and a private one with them for the seats entitled to them.
    """

    kind: str  # e.g. "deal", "bid", "play", "trick", "draw", "score", "game_over"
    seat: int | None  # the seat it concerns, if any
    text: str  # human-readable, in card notation; e.g. "seat 2 plays QS"
    cards: tuple = ()  # cards it shows to those who may see it
    visible_to: frozenset[int] | None = None

    def visible_for(self, seat: int | None) -> bool:
        """True if ``seat`` may see this event (``None`` means a spectator: public only)."""
        return self.visible_to is None or (seat is not None and seat in self.visible_to)


def events_for(events: Iterable[Event], seat: int | None) -> list[Event]:
    """The events ``seat`` may see (``None``: the public ones, for spectators)."""
    return [e for e in events if e.visible_for(seat)]


def twin_class(cls: type) -> type:
    """A plain class with the instance layout of the frozen dataclass ``cls``.

    Engine hot paths (events, views) build an instance of the twin attribute by
    attribute (plain stores: no frozen ``__setattr__``), then turn it into a ``cls`` with
    ``obj.__class__ = cls``: equal to ``cls(...)`` field for field, in a third of the time
    of the generated ``__init__``. Python allows the assignment because both are plain
    classes of the same layout; it is tried once here, so a Python that refuses it fails
    at import rather than building wrong objects.
    """
    twin = type(f"_{cls.__name__}Twin", (), {"__module__": cls.__module__, "__qualname__": f"_{cls.__name__}Twin"})
    probe = twin()
    for name in cls.__dataclass_fields__:
        setattr(probe, name, None)
    probe.__class__ = cls
    if type(probe) is not cls or vars(probe) != dict.fromkeys(cls.__dataclass_fields__):
        raise RuntimeError(f"cannot build {cls.__name__} instances through a twin class")
    return twin


_EventTwin = twin_class(Event)


def new_event(kind: str, seat: int | None, text: str, cards: tuple = (), visible_to: frozenset[int] | None = None) -> Event:
    """``Event(kind, seat, text, cards, visible_to)``, built through its twin (see twin_class)."""
    ev = _EventTwin()
    ev.kind = kind
    ev.seat = seat
    ev.text = text
    ev.cards = cards
    ev.visible_to = visible_to
    ev.__class__ = Event
    return ev


class Action:
    """Base of every game's action types: frozen dataclasses whose ``str`` is the notation."""

    __slots__ = ()


class State(abc.ABC):
    """A game in progress. Mutable; ``clone`` for a copy. Only ``apply`` advances it."""

    game: "Game"

    # The generic surface, once for every engine: an engine keeps where the game stands in
    # ``phase`` (a member of its own Phase enum, ``GAME_OVER`` once over), the seat to act
    # in ``to_act``, every event in ``_log`` and, unless it overrides ``outcome``, the
    # result in ``_outcome`` once the game is over.

    #: The engine's phase of a finished game (its ``Phase.GAME_OVER``).
    GAME_OVER: ClassVar[Any]
    phase: Any
    to_act: int | None
    _log: list[Event]
    _outcome: Outcome | None = None

    @property
    def current_seat(self) -> int | None:
        """The seat that must act now; None once the game is over."""
        return None if self.phase is self.GAME_OVER else self.to_act

    @abc.abstractmethod
    def legal_actions(self) -> list[Action]:
        """Every legal action of the current seat, in a deterministic order; [] when over."""

    @abc.abstractmethod
    def apply(self, action: Action) -> list[Event]:
        """Apply the current seat's action and the forced events it triggers.

        Returns the new events (all of them, with their visibility). Raises
        IllegalActionError and leaves the state unchanged if the action is not legal.
        """

    @property
    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.phase is self.GAME_OVER

    def outcome(self) -> Outcome:
        """The result; only valid once ``is_terminal`` (IllegalActionError before)."""
        if self._outcome is None:
            raise IllegalActionError("the game is not over")
        return self._outcome

    @abc.abstractmethod
    def view(self, seat: int) -> Any:
        """Everything ``seat`` may see, as the game's frozen view dataclass. THE seam."""

    @abc.abstractmethod
    def spectator_view(self) -> Any:
        """The public view (no private cards) while running; the full deal once over."""

    def revealed_view(self, seat: int) -> Any:
        """``seat``'s view with its own hand shown even where the rules keep it from the
        seat for now (Spades before ``look``): what a replay with every hand visible
        draws, never what a seat is sent. By default the seat's view."""
        return self.view(seat)

    @abc.abstractmethod
    def clone(self) -> "State": ...

    @property
    def log(self) -> list[Event]:
        """Every event so far, with visibility, from the initial deal on."""
        return self._log

    def all_cards(self) -> "Counter[Card] | None":
        """Every card of the game wherever it lies (hands, piles, stock, table), as a
        multiset; for conservation checks. None if the engine does not count its cards.

        Nothing enters or leaves a game: the multiset is the same after every ``apply``.
        """
        return None

    def legal_action_for(self, action: Action) -> Action:
        """``action`` if it is legal now, else IllegalActionError with the reason."""
        if self.is_terminal:
            raise IllegalActionError(f"{action}: the game is over")
        if action not in self.legal_actions():
            raise IllegalActionError(f"{action}: not a legal action now")
        return action


@dataclass(frozen=True)
class Platform:
    """A game's facts for the platform around its engine, declared beside the engine as
    ``Game.platform`` (the one registration of a game on the core side; ``facts(field)``
    in ``cardarena.games`` reads one of them for every registered game).

    Attributes:
        seats: The fewest and the most seats over every option set (OpenSpiel's GameType).
        smoke_options: The shortest option set a bot check plays (as on a command line).
        value_units: What a decision value of the analysis counts, in words.
        value_margin: The smallest loss, in ``value_units``, that counts as a mistake.
        value_reference: The bundled bot that values decisions (by its name).
    """

    seats: tuple[int, int]
    smoke_options: Mapping[str, str]
    value_units: str
    value_margin: float
    value_reference: str


class Game(abc.ABC):
    """Rules plus validated options; creates states. Variants are options, not subclasses."""

    name: ClassVar[str]
    #: The frozen dataclass of options; its fields and defaults are the variant table,
    #: its docstring's ``Attributes:`` section the meaning of each (``field_docs``).
    Options: ClassVar[type]
    #: Named option sets (e.g. Spite and Malice's ``book``).
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    #: One line per preset: what it is (``arbiter rules GAME``).
    preset_docs: ClassVar[Mapping[str, str]] = {}
    #: The rules in a few paragraphs, for ``arbiter rules GAME`` (docs/rules/ has the whole).
    rules_summary: ClassVar[str] = ""
    #: The action notation, with examples, for ``arbiter rules GAME``.
    notation: ClassVar[str] = ""
    #: Every action type of the game, and its view type (for the wire conversion).
    action_types: ClassVar[tuple[type, ...]] = ()
    view_type: ClassVar[type]
    #: The game's facts for the platform (smoke options, value description, seats).
    platform: ClassVar[Platform]

    def __init__(self, options: Mapping[str, Any] | None = None, preset: str | None = None):
        self.options = parse_options(self.Options, options or {}, self.presets, preset)
        self.validate()

    def validate(self) -> None:
        """Reject contradictory option combinations with ConfigError."""

    @property
    @abc.abstractmethod
    def num_seats(self) -> int: ...

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        """Seats grouped by side; every seat alone in a free-for-all."""
        return tuple((s,) for s in range(self.num_seats))

    @abc.abstractmethod
    def new_initial_state(self, seed: int) -> State:
        """The state after the seeded deal, ready for the first decision."""

    @abc.abstractmethod
    def parse_action(self, text: str) -> Action:
        """Parse the notation; raises InvalidActionError (malformed) naming what is wrong."""

    def action_text(self, action: Action, actor: int, viewer: int | None) -> str:
        """How ``action``, taken by seat ``actor``, reads to ``viewer`` (a seat; None: a spectator).

        ``str(action)`` is the full notation (records and ``parse_action`` use it) and
        names every card the action involves. A viewer the rules do not let see some of
        them (cards handed over face down, say) reads a text that says only what the
        game's public event for the action says; that text is computed from public
        information alone, so it is the same whichever hidden cards were involved.
        Privileged viewers (the actor, and whoever the engine's own events show the
        cards to) read the notation. The text is meant for an action just taken; it
        never discloses more than the events ``apply`` emits for it.

        Default: the notation for everyone, for games in which every part of every
        action is public once it is taken. Games with a private part override this.
        """
        return str(action)

    def margin_bounds(self) -> tuple[float, float] | None:
        """The bounds of a match's margin (one side's score minus the other's) that the
        rules fix under these options, for the betting confidence sequences of
        ``arbiter.rating.betting``; None where the game derives none."""
        return None

    def describe_options(self) -> dict[str, Any]:
        """The full option set in force, for records and displays."""
        return options_to_dict(self.options)


# --------------------------------------------------------------------------------------
# Field descriptions: the ``Attributes:`` section of a dataclass's docstring.


def field_docs(cls: type) -> dict[str, str]:
    """``{field: meaning}`` from the ``Attributes:`` section of ``cls.__doc__``.

    The section is a line ``Attributes:`` followed by indented entries ``name: meaning``;
    a meaning may continue on further lines indented deeper than its name. The section
    ends at the first line indented no deeper than ``Attributes:`` (or the docstring's
    end). Fields without an entry are simply absent from the result.
    """
    lines = (cls.__dict__.get("__doc__") or "").expandtabs().splitlines()
    out: dict[str, str] = {}
    base = None
    entry_indent = None
    current = None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if base is None:
            if stripped == "Attributes:":
                base = indent
            continue
        if not stripped:
            continue
        if indent <= base:
            break
        if entry_indent is None:
            entry_indent = indent
        name, sep, text = stripped.partition(":")
        if indent == entry_indent and sep and name.isidentifier():
            current = name
            out[current] = text.strip()
        elif current is not None:
            out[current] = f"{out[current]} {stripped}".strip()
    return out


@dataclass(frozen=True)
class OptionSpec:
    """One option of a game as declared: for ``arbiter rules GAME``, the web form and the docs."""

    name: str
    type: str  # e.g. "int", "bool", "draw | fewer_payoff_wins", "int or unlimited"
    default: str  # as it would be written on a command line ("none" for an unset one)
    meaning: str  # from the Options docstring (field_docs)
    min: float | None = None  # the declared range of a number (``option(min=, max=)``)
    max: float | None = None

    @property
    def range_text(self) -> str:
        """The declared range in words ("2..6", "at least 1", ""), as errors say it."""
        return range_text(self.min, self.max)


def option(default: Any, *, min: float | None = None, max: float | None = None) -> Any:
    """A field of a game's Options with its range declared beside its type and default:
    ``players: int = option(4, min=2, max=6)``. ``parse_options`` refuses a number outside
    it ("option 'players': must be 2..6, got 7"); ``arbiter rules`` and the web form show
    it. A value that is not a number (None, ``"unlimited"``) is not checked."""
    return dataclasses.field(default=default, metadata={"min": min, "max": max})


def range_text(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"{lo:g}..{hi:g}"
    if lo is not None:
        return f"at least {lo:g}"
    return f"at most {hi:g}" if hi is not None else ""


def _check_ranges(obj: Any) -> None:
    for f in dataclasses.fields(obj):
        lo, hi = f.metadata.get("min"), f.metadata.get("max")
        if lo is None and hi is None:
            continue
        v = getattr(obj, f.name)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and (
                (lo is not None and v < lo) or (hi is not None and v > hi)):
            raise ConfigError(f"option {f.name!r}: must be {range_text(lo, hi)}, got {v:g}")


def _type_text(tp: Any) -> str:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        arms = [_type_text(a) for a in args if a is not type(None)]
        text = " or ".join(arms)
        return f"{text} or none" if type(None) in args else text
    if origin is typing.Literal:
        return " | ".join(str(a) for a in args)
    if origin is frozenset:
        return "comma-separated list"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return " | ".join(str(m.value) for m in tp)
    return {bool: "bool", int: "int", float: "number", str: "text"}.get(tp, getattr(tp, "__name__", str(tp)))


def _value_text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, frozenset):
        return ",".join(sorted(map(str, value))) or "(empty)"
    return f"{value:g}" if isinstance(value, float) else str(value)


def option_specs(options_cls: type) -> list[OptionSpec]:
    """Every option of an Options dataclass, in declaration order, with its type, default
    and meaning (the defaults are the declared ones, before any derived value)."""
    hints = typing.get_type_hints(options_cls)
    docs = field_docs(options_cls)
    out = []
    for f in dataclasses.fields(options_cls):
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else None)  # type: ignore[misc]
        out.append(OptionSpec(f.name, _type_text(hints[f.name]), _value_text(default), docs.get(f.name, ""),
                              f.metadata.get("min"), f.metadata.get("max")))
    return out


def value_text(value: Any) -> str:
    """An option value as written on a command line (``true``, ``A,7``, ``unlimited``)."""
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value)) or "(empty)"
    return _value_text(value)


# --------------------------------------------------------------------------------------
# Options: one generic parser for every game's Options dataclass.


def options_to_dict(options: Any) -> dict[str, Any]:
    out = {}
    for f in dataclasses.fields(options):
        v = getattr(options, f.name)
        if isinstance(v, enum.Enum):
            v = v.value
        elif isinstance(v, frozenset):
            v = sorted(v)
        out[f.name] = v
    return out


def parse_options(
    cls: type,
    given: Mapping[str, Any],
    presets: Mapping[str, Mapping[str, Any]] | None = None,
    preset: str | None = None,
) -> Any:
    """Build ``cls`` from defaults, then the preset, then ``given`` (later wins).

    Values may be typed or strings from a command line (``"true"``, ``"off"``, ``"A,7"``).
    Raises ConfigError naming the option and the reason.
    """
    values: dict[str, Any] = {}
    if preset is not None:
        if not presets or preset not in presets:
            known = ", ".join(sorted(presets or {})) or "none"
            raise ConfigError(f"unknown preset {preset!r} (known: {known})")
        values.update(presets[preset])
    values.update(given)
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise ConfigError(
            f"unknown option {', '.join(map(repr, unknown))} (known: {', '.join(sorted(fields))})"
        )
    kwargs = {}
    for name, raw in values.items():
        try:
            kwargs[name] = _coerce(hints[name], raw)
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"option {name!r}: {exc}") from None
    try:
        obj = cls(**kwargs)
    except (ValueError, TypeError) as exc:
        raise ConfigError(str(exc)) from None
    _check_ranges(obj)
    return obj


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def _coerce(tp: Any, raw: Any) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if raw is None or (isinstance(raw, str) and raw.strip().lower() in ("off", "none", "")):
            if type(None) in args:
                return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _coerce(arg, raw)
            except (ValueError, TypeError) as exc:
                errors.append(str(exc))
        raise ValueError("; ".join(errors) or f"bad value {raw!r}")
    if origin is typing.Literal:
        for arg in args:
            if raw == arg or (isinstance(raw, str) and str(arg) == raw.strip().lower()):
                return arg
        raise ValueError(f"expected one of {', '.join(map(str, args))}, got {raw!r}")
    if origin is frozenset:
        (inner,) = args
        if isinstance(raw, str):
            raw = [p for p in raw.replace("{", "").replace("}", "").split(",") if p.strip()]
        return frozenset(_coerce(inner, r) for r in raw)
    if tp is bool:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
            return raw.strip().lower() in _TRUE
        raise ValueError(f"expected true or false, got {raw!r}")
    if tp is int:
        if isinstance(raw, bool):
            raise ValueError(f"expected an integer, got {raw!r}")
        if isinstance(raw, int):
            return raw
        if isinstance(raw, str):
            try:
                return int(raw.strip())
            except ValueError:
                pass
        raise ValueError(f"expected an integer, got {raw!r}")
    if tp is float:
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            return float(raw)
        if isinstance(raw, str):
            return float(raw.strip())
        raise ValueError(f"expected a number, got {raw!r}")
    if tp is str:
        if isinstance(raw, str):
            return raw.strip()
        raise ValueError(f"expected text, got {raw!r}")
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        if isinstance(raw, tp):
            return raw
        for member in tp:
            if isinstance(raw, str) and raw.strip().lower() in (str(member.value).lower(), member.name.lower()):
                return member
        raise ValueError(f"expected one of {', '.join(str(m.value) for m in tp)}, got {raw!r}")
    raise TypeError(f"unsupported option type {tp!r}")
