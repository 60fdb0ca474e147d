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
import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Hashable, Iterable, Mapping, Sequence

from .errors import ConfigError, GameError, IllegalActionError, InvalidActionError  # noqa: F401  (re-exported)
from .options import (  # noqa: F401  (re-exported: the option schema's home is .options)
    OptionSpec,
    field_docs,
    option,
    option_specs,
    options_to_dict,
    parse_options,
    range_text,
    value_text,
)

if TYPE_CHECKING:
    from collections import Counter

    from .cards import Card


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
    ``reason`` is why it ended (``EndReason``): by the rules, ``COMPLETED``,
    ``STALEMATE`` or ``TURN_LIMIT`` (a termination guard such as ``max_turns``); when a
    seat failed, ``FORFEIT_TIMEOUT``, ``FORFEIT_ILLEGAL``, ``FORFEIT_DISCONNECT`` or
    ``FORFEIT_CRASH``: its side ranks last, every other side shares first, and every
    score is 0; ``ABORTED`` when the arbiter stopped the match. ``detail`` says it in
    words ("side A wins 178 to -960 after 3 deals").
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
    Each game's ``kind`` values, and what ``seat`` and ``cards`` hold in each: the Events
    section of ``pydoc sdk.spades``, ``sdk.spite_and_malice``, ``sdk.spot``. A bot is
    given only the events its seat may see, as the wire carries them, on every path:
    ``visible_to`` is None in each (the arbiter filters per seat; it never sends it).
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

    def standing(self) -> "tuple[tuple[float, ...], ...] | None":
        """Where each seat stands now, from public facts only (higher is better, compared
        element by element; a side's seats stand alike): who was ahead when a forfeit ended
        the match, so the sides that did not fail are ranked by it rather than all sharing
        first (``cardarena.records.forfeit_outcome``). None where the game has nothing to
        rank them by (two sides: the one that did not fail is first anyway)."""
        return None

    def all_cards(self) -> "Counter[Card] | None":
        """Every card of the game wherever it lies (hands, piles, stock, table), as a
        multiset; for conservation checks. None if the engine does not count its cards.

        Nothing enters or leaves a game: the multiset is the same after every ``apply``.
        """
        return None

    def legal_action_for(self, action: Action) -> Action:
        """``action`` if it is legal now, else IllegalActionError with the reason: the one
        ``apply`` gives (each engine's, from the actor's own information only: "you do not
        hold AS", "must follow suit (H)"), found on a clone, this state untouched."""
        if self.is_terminal:
            raise IllegalActionError(f"{action}: the game is over")
        if action not in self.legal_actions():
            try:
                self.clone().apply(action)
            except IllegalActionError:
                raise
            except GameError as exc:
                raise IllegalActionError(f"{action}: {exc}") from None
            raise IllegalActionError(f"{action}: not a legal action now")
        return action

    def illegal_reason(self, action: Action) -> str:
        """Why ``action`` is not legal now, in ``legal_action_for``'s words ("play AS: you do not
        hold AS"); "" if it is legal. For the author's own tools (the self-test, the harness, a
        replay): the reason may tell of the actor's hand, so a match record never carries it."""
        try:
            self.legal_action_for(action)
        except GameError as exc:
            return str(exc)
        return ""


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
        value_reference: The bundled bot that values decisions (by its name): one that
            plays the game and has ``policy``, ``action_values`` and ``state_value``
            (``arbiter.analysis.values``): ``search``, which plays every game whose SDK
            line names a search part (``sdk.games``), or Spades' ``dds``.
        value_unit: The unit of a value in one or two words, after a number ("10 points"):
            what the analysis's verdicts are stated in (``values.meaning``).
        value_fine: The loss, in ``value_units``, below which a decision may be called
            "fine" (never above ``value_margin``); None: ``value_margin`` itself.
        same_play: The game's "same play" rule, ``same_play(game, view, action)``: a key
            such that two legal actions of a seat's decision with equal keys are provably
            the same play under the rules and options of ``game`` (each maps to the other
            with the same outcome however everyone plays on), read from the seat's
            ``view`` only; the analysis values one action of each such class
            (``arbiter.analysis.values``). None: no two actions are the same play.
        value_stake: ``value_stake(game, view)``: how far apart, in ``value_units``, two
            actions' values on one sampled state can lie at the seat's decision, read from
            its ``view`` only (what the rest of the deal can still change: a range of
            outcomes still possible); the analysis's "fine" bounds a difference it has not
            seen by it (``arbiter.analysis.values``, ``RARE``). None: by the largest
            difference of values seen so far (the decision's spread).
        deal_of: ``deal_of(view)``: which deal of the match ``view`` (a spectator's) is of
            (Spades' deal, Spot's hand, Spite and Malice's game of a series). A hand seen
            in a deal tells where its cards are until that deal ends, however late it is
            shown (less the cards played since, which every seat sees): the spectator hub
            shows a frame's hands only once its deal is over (``arbiter.spectating.hub``).
            None: the match is one deal (hands only once it is over).
    """

    seats: tuple[int, int]
    smoke_options: Mapping[str, str]
    value_units: str
    value_margin: float
    value_reference: str
    value_unit: str = ""
    value_fine: float | None = None
    same_play: Callable[[Any, Any, Any], Hashable] | None = None
    value_stake: Callable[[Any, Any], float] | None = None
    deal_of: Callable[[Any], int] | None = None


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

    def every_action(self) -> Sequence[Action]:
        """Every action the engine may offer, under any options, as the very objects its
        states hand out (interned), in a fixed order; () for a game that does not list them.

        What a process may prepare once per game before its first match: an arbiter keeps
        each one's bytes and reads an answer back as the engine's object
        (``codec.warm_actions``), and ``sdk.encoding`` numbers the actions in this order."""
        return ()

    def margin_bounds(self) -> tuple[float, float] | None:
        """The bounds of a match's margin (one side's score minus the other's) that the
        rules fix under these options, for the betting confidence sequences of
        ``arbiter.rating.betting`` and what a forfeit costs in a margin (the widest:
        ``arbiter.rating.ratings.forfeit_stake``, so no bot gains by forfeiting); None where the
        game derives none (a forfeit then counts by rank, +-1, which a bot losing by more than 1
        could gain from: a game should derive them)."""
        return None

    def describe_options(self) -> dict[str, Any]:
        """The full option set in force, for records and displays."""
        return options_to_dict(self.options)
