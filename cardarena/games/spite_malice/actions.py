"""Spite and Malice's constants, phases, and actions with their notation (§3.1)."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from ..base import Action, Event, InvalidActionError, new_event
from ..cards import JOKER, Card, InvalidCardError


# --------------------------------------------------------------------------------------
# Constants.

HAND_SIZE = 5
NUM_SIDE_STACKS = 4
MIN_PLAYERS, MAX_PLAYERS = 2, 6
UNLIMITED = "unlimited"
#: §2.3 guard: after this many consecutive first-player ties, pick at random.
FIRST_PLAYER_TIE_GUARD = 100
#: Termination guards (engine choice): decisions within one turn, games in one series.
MAX_TURN_ACTIONS = 1000
MAX_SERIES_GAMES = 200
#: The most centre-pile layouts whose centre plays are kept for one set of fitting rules
#: (SpiteAndMalice.fit_memo), and the most sets of fitting rules kept (FIT_MEMOS): a layout
#: holds ~6.5 KiB (tracemalloc over 400 random games: 171 layouts of the default game, 367
#: with unlimited piles), so at most ~6.7 MiB a set and ~54 MiB in all.
FIT_MEMO_SIZE = 1024
FIT_RULES_KEPT = 8
#: The centre plays of each layout of centre piles met so far in this process, per set of
#: fitting rules (which card classes fit which pile values, the limit of piles): a game made
#: for every match and replay takes its rules' dict, so that the matches of one arbiter (and
#: the games of one bench run) share them. Deterministic: a function of the layout and the
#: rules only, filled whole for a layout when it is first met (legal._new_fit).
FIT_MEMOS: dict[tuple, dict] = {}


def shared_fit_memo(rules: tuple) -> dict:
    """The layouts' memo of one set of fitting rules (FIT_MEMOS), made when first asked."""
    memo = FIT_MEMOS.get(rules)
    if memo is None:
        if len(FIT_MEMOS) >= FIT_RULES_KEPT:
            FIT_MEMOS.clear()  # bounded: games of ever new options
        memo = FIT_MEMOS[rules] = {}
    return memo


#: Series points for going out (§4.4).
WIN_BONUS = 5
#: §2.3 comparison scale: A=1 .. Q=12, K=13, JK=14.
JOKER_FIRST_PLAYER_RANK = 14


class Phase(enum.Enum):
    """MAIN: centre plays, discards, loads, end. FILLING: Massachusetts fills (§8.11)."""

    MAIN = "main"
    FILLING = "filling"
    GAME_OVER = "game_over"


class SourceKind(enum.Enum):
    """Where a moved card comes from (§3.1)."""

    HAND = "hand"
    PAYOFF = "payoff"
    SIDE = "side"
    PARTNER_PAYOFF = "partner_payoff"
    PARTNER_SIDE = "partner_side"


class TargetKind(enum.Enum):
    """Where a ``play`` puts the card: a centre pile or one of the actor's side stacks."""

    CENTER = "center"
    SIDE = "side"


# Module-level aliases of hot enum members: an Enum member looked up through its class
# costs a descriptor call on every use (Python 3.11).
_MAIN, _FILLING, _GAME_OVER = Phase.MAIN, Phase.FILLING, Phase.GAME_OVER
_HAND, _PAYOFF, _SIDE = SourceKind.HAND, SourceKind.PAYOFF, SourceKind.SIDE
_PARTNER_PAYOFF, _PARTNER_SIDE = SourceKind.PARTNER_PAYOFF, SourceKind.PARTNER_SIDE
_CENTER, _TO_SIDE = TargetKind.CENTER, TargetKind.SIDE


# --------------------------------------------------------------------------------------
# Actions.


@dataclass(frozen=True)
class Source:
    """A card source: ``hand:<card>``, ``payoff``, ``side:<j>``, ``partner_payoff``,
    ``partner_side:<j>``. ``index`` is the side slot (0 otherwise), ``card`` the hand card
    (None for the others: the card they move is the top of that pile in the seat's view,
    ``view.players[view.seat].payoff_top`` or ``.side_stacks[j].cards[-1]``, a partner's
    likewise)."""

    kind: SourceKind
    index: int = 0
    card: Card | None = None

    def __post_init__(self) -> None:
        # A bot's typed answer (arena.proto SpiteAndMaliceSource) is refused here as malformed,
        # naming the field, rather than judged illegal as "hand:None", or as a "payoff" that
        # carries a card and so equals none of the legal actions its notation reads like.
        if (self.kind is SourceKind.HAND) != (self.card is not None):
            raise ValueError(f"only a hand source names a card: {self.kind.value} moves the top of its pile (leave "
                             "card unset)" if self.card is not None else "a hand source names its card (hand:5C): card is unset")
        if self.kind in (SourceKind.SIDE, SourceKind.PARTNER_SIDE):
            if self.index < 0:
                raise ValueError(f"{self.kind.value}: a side stack's slot is 0 or more, got {self.index}")
        elif self.index:
            raise ValueError(f"only a side stack source has an index: {self.kind.value} has none (leave index 0), got {self.index}")

    def __str__(self) -> str:
        if self.kind is SourceKind.HAND:
            return f"hand:{self.card}"
        if self.kind in (SourceKind.SIDE, SourceKind.PARTNER_SIDE):
            return f"{self.kind.value}:{self.index}"
        return self.kind.value


@dataclass(frozen=True)
class Play(Action):
    """``play <src> -> center:<i>|center:new|side:<j>``; ``index`` None means ``center:new``."""

    source: Source
    target: TargetKind
    index: int | None = None

    def __post_init__(self) -> None:
        # as Source's: a typed answer that is no play at all is malformed, not "side:new"
        if self.index is None and self.target is TargetKind.SIDE:
            raise ValueError("a side stack target names its slot (side:0): index is unset")
        if self.index is not None and self.index < 0:
            raise ValueError(f"{self.target.value}: index is 0 or more, got {self.index}")

    def __str__(self) -> str:
        # kept on the instance beside the fields (not one of them: equality, hashing and the
        # wire read fields only): plays are interned, and their notation is read at every
        # decision (legal-action texts, events, parsing back)
        text = self.__dict__.get("_text")
        if text is None:
            dest = "new" if self.index is None else str(self.index)
            text = self.__dict__["_text"] = f"play {self.source} -> {self.target.value}:{dest}"
        return text


@dataclass(frozen=True)
class Load(Action):
    """``load <src> -> payoff:<seat>`` (option ``loading``): onto an opponent's pay-off pile."""

    source: Source
    seat: int

    def __str__(self) -> str:
        text = self.__dict__.get("_text")  # kept, as Play's
        if text is None:
            text = self.__dict__["_text"] = f"load {self.source} -> payoff:{self.seat}"
        return text


@dataclass(frozen=True)
class End(Action):
    """``end`` (option ``may_end_without_discard``): end the turn without a discard."""

    def __str__(self) -> str:
        return "end"


# Interned sources and plays: legal-action generation looks them up instead of building
# new frozen dataclasses at every decision (they compare equal to freshly built ones).
# Interned sources are never freed, so their id() is a stable key for their plays.
_SOURCES: dict[tuple, Source] = {}
_HAND_SOURCES: list[Source] = []
_PLAYS: dict[int, dict[int | None, Play]] = {}


def _source(kind: SourceKind, index: int = 0, card: Card | None = None) -> Source:
    key = (kind.value, index, card)
    src = _SOURCES.get(key)
    if src is None:
        src = _SOURCES[key] = Source(kind, index, card)
    return src


def _hand_source(card: int) -> Source:
    return _HAND_SOURCES[card]


def _play(source: Source, target: TargetKind, index: int | None) -> Play:
    """The interned ``Play(source, target, index)`` (``source`` must be interned)."""
    plays = _PLAYS.get(id(source))
    if plays is None:
        plays = _PLAYS[id(source)] = {}
    key = index if target is TargetKind.CENTER else -2 - index  # type: ignore[operator]  # side j: -2-j
    play = plays.get(key)
    if play is None:
        play = plays[key] = Play(source, target, index)
    return play


_HAND_SOURCES.extend(_source(SourceKind.HAND, 0, Card(c)) for c in range(JOKER + 1))
_END = End()
_PAYOFF_SOURCE = _source(SourceKind.PAYOFF)
_PARTNER_PAYOFF_SOURCE = _source(SourceKind.PARTNER_PAYOFF)
_SIDE_SOURCES = tuple(_source(SourceKind.SIDE, j) for j in range(4))
_PARTNER_SIDE_SOURCES = tuple(_source(SourceKind.PARTNER_SIDE, j) for j in range(4))
_CARD_TEXT = tuple(str(Card(c)) for c in range(JOKER + 1))
_ONE_CARD = tuple((Card(c),) for c in range(JOKER + 1))  # shared one-card ``cards`` of events
#: _fit memo keys: the centre plays of a hand card by the card (0..52), of the pay-off
#: top by 64 + its fit class, of side stack j's top by _SIDE_KEYS[j] + its fit class;
#: the target piles of a fit class k (_centre_targets) by -1 - k.
_SIDE_KEYS = tuple(64 * (2 + j) for j in range(NUM_SIDE_STACKS))
#: ``draws N card(s)`` by N, and the one-seat audiences of private events, by seat.
_DRAWS_TEXT = tuple(f"draws {n} card{'s' * (n != 1)}" for n in range(HAND_SIZE + 1))  # a draw is at most a hand
_SEAT_SETS = tuple(frozenset({s}) for s in range(MAX_PLAYERS))
#: The events of the hot path (a discard, then the next turn's single draw), interned:
#: events are immutable values (the codec caches their bytes by value), so a decision
#: looks these up instead of building four. ``seat S draws C`` (private to S) by seat and
#: card; per seat, filled on use: ``seat S: <action>`` by id of an interned discard,
#: ``seat S to play (turn N)`` by N (under _EVENT_CACHE_TURNS), and ``seat S draws 1 card;
#: stock N`` by N (at most the cards of a game).
_DRAW_CARD_EVENT = tuple(
    tuple(new_event("draw", s, f"seat {s} draws {t}", _ONE_CARD[c], _SEAT_SETS[s]) for c, t in enumerate(_CARD_TEXT))
    for s in range(MAX_PLAYERS)
)
_DISCARD_EVENT: tuple[dict[int, Event], ...] = tuple({} for _ in range(MAX_PLAYERS))
_TURN_EVENT: tuple[dict[int, Event], ...] = tuple({} for _ in range(MAX_PLAYERS))
_DRAW_ONE_EVENT: tuple[dict[int, Event], ...] = tuple({} for _ in range(MAX_PLAYERS))
_EVENT_CACHE_TURNS = 4096


def _turn_event(p: int, turn: int) -> Event:
    """``seat p to play (turn N)``, remembered for the first turns."""
    event = new_event("turn", p, f"seat {p} to play (turn {turn})")
    if turn < _EVENT_CACHE_TURNS:
        _TURN_EVENT[p][turn] = event
    return event


def _draw_one_event(p: int, stock: int) -> Event:
    """The public event of drawing a single card, ``stock`` cards left; remembered."""
    event = _DRAW_ONE_EVENT[p][stock] = new_event("draw", p, f"seat {p} draws 1 card; stock {stock}")
    return event

#: The discards of each hand card to side stacks 0..3.
_HAND_DISCARDS: tuple[tuple[Play, ...], ...] = tuple(
    tuple(_play(src, TargetKind.SIDE, j) for j in range(4)) for src in _HAND_SOURCES
)
#: ``id(action) -> str(action)`` for interned actions (immortal, so ids are never reused).
_ACTION_TEXT: dict[int, str] = {}
# The centre plays of every source to the first piles and to a new one, made up front
# so that _centre_plays finds them in _PLAYS (more are made on demand).
for _src in (*_HAND_SOURCES, _PAYOFF_SOURCE, _PARTNER_PAYOFF_SOURCE, *_SIDE_SOURCES, *_PARTNER_SIDE_SOURCES):
    for _i in (*range(8), None):
        _play(_src, TargetKind.CENTER, _i)
del _src, _i


def _action_text(action: Action) -> str:
    text = _ACTION_TEXT.get(id(action))
    if text is None:
        text = str(action)
        if (action.__class__ is Play and _PLAYS.get(id(action.source), {}).get(
                action.index if action.target is TargetKind.CENTER else -2 - action.index) is action):
            _ACTION_TEXT[id(action)] = text  # interned: safe to remember by id
    return text


def _discard_event(p: int, action: Action) -> Event:
    """The event of seat ``p``'s discard ``action`` (a hand card to a side stack);
    remembered by id if the action is interned (see _action_text)."""
    event = new_event("discard", p, f"seat {p}: {_action_text(action)}", _ONE_CARD[action.source.card])
    if id(action) in _ACTION_TEXT:
        _DISCARD_EVENT[p][id(action)] = event
    return event


def _parse_source(given: str, raw: str) -> Source:
    text = given.lower()
    if text.startswith("hand:"):
        try:
            return Source(SourceKind.HAND, 0, Card.parse(given[5:]))
        except InvalidCardError as exc:
            raise InvalidActionError(f"cannot parse {raw!r}: {exc}") from None
    if text in ("payoff", "partner_payoff"):
        return Source(SourceKind(text))
    m = re.fullmatch(r"(side|partner_side):(\d+)", text)
    if m:
        return Source(SourceKind(m.group(1)), int(m.group(2)))
    raise InvalidActionError(
        f"cannot parse {raw!r}: unknown source {given!r} (hand:<card>, payoff, side:<j>, "
        "partner_payoff, partner_side:<j>)"
    )
