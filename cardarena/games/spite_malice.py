"""Spite and Malice (Cat and Mouse): a competitive patience for 2-6 players.

Rules: docs/rules/spite-and-malice.md (§1-§7 the standard two-player game, §8 every
variant as an option, presets ``standard``, ``massachusetts`` and ``book``; ``arbiter rules
spite-and-malice`` prints a summary and every option).

Design choices (each "engine choice" of the rules is implemented as written there):

* A card is a ``Card`` int; identical cards of the mixed pack are the same value and
  are told apart only by where they lie. No internal card ids exist.
* Every pile is a plain list, top = last. A centre pile is built upward from A, one
  rank per card, so its value is simply ``len(pile)``; it completes at ``top_rank``.
* A turn is a sequence of decisions: every centre play, discard, fill, load or ``end``
  is one action. Draws, recycling, turning up pay-off cards, dealing the next game of
  a series and deadlock reshuffles are forced events run inside ``apply``.
* Randomness: game ``k`` of a series is dealt (and its first player decided) from
  ``Random(f"{seed}:deal:{k}")`` only, so duplicate deals are identical whatever was
  played. Every shuffle during play (recycled pile, deferred restock, deadlock
  reshuffle) uses ``Random(f"{seed}:shuffle:{k}:{n}")`` for the n-th shuffle.
* Face-down pay-off cards are tracked by ``hidden[seat]``: the bottom ``hidden`` cards
  of a pay-off pile have never been seen (not even by the owner); everything above
  (the turned-up top, and with ``loading`` the loaded cards) is public.
* ``loading`` implies ``forced_aces`` and ``forced_aces`` implies ``center_limit =
  unlimited`` (§8.3, §8.4). Enforced by SETTING them when the user did not give the
  option, and by REJECTING (ConfigError) an explicit contradicting value
  (``loading=true, forced_aces=false`` or ``forced_aces=true, center_limit=4``).
* Further contradictions rejected: ``recycle=deferred`` without unlimited piles;
  ``partnerships`` without 4 or 6 players; the card-count check of §2.4;
  ``side_stack_order=descending`` without ``may_end_without_discard`` (a player could be
  left without any legal action); ``fill_empty_side_stacks`` with
  ``may_end_without_discard`` (the filling rule is defined before the ending discard);
  a ``deadlock_rule`` other than ``end_game`` without ``may_end_without_discard`` (no
  pass can ever happen); ``deck_split`` unless 2 players and 2 decks.
* ``deck_split``: deck A (52 cards) is dealt to the pay-off piles; any deck-A cards
  left over are shuffled into the stock with the rest of deck B (engine choice).
* Descending side stacks (§8.12.2) generalised to any wild card (jokers, and kings
  when ``kings_wild``): a wild on an empty slot gives ``[wmin, top_rank]``, on
  ``[lo, hi]`` gives ``[max(wmin, lo-1), hi]``, where ``wmin`` is 2 if A is in
  ``wild_excluded_ranks`` else 1; a wild is legal iff ``hi >= wmin``.
* Emptying the hand by a load (or by a Massachusetts fill) draws 5 like an emptied hand
  after a centre play (engine choice, as §8.11 says for fills).
* Termination: ``max_turns`` turns per game end it as a stalemate (reason TURN_LIMIT,
  scored like a stalemate). Pass-pass loops exist only with ``may_end_without_discard``:
  a full round of passes is a deadlock handled by ``deadlock_rule`` (``reshuffle`` at
  most ``max_deadlock_reshuffles`` times, then ``end_game``; ``hand_ace_two_then_end``:
  the first seat in turn order from the one due to move that holds a hand A or natural 2
  playable to the centre takes a turn in which it must play one, then play continues
  from it; only when nobody holds one does ``end_game`` apply). A single turn is capped at
  ``MAX_TURN_ACTIONS`` decisions (unreachable in practice; ends as TURN_LIMIT), and a
  series at ``MAX_SERIES_GAMES`` games (then TURN_LIMIT, ranked by points).
* Results: without ``series_scoring`` a seat scores 1 (win), 0.5 (draw) or 0 (loss);
  partners share. Under ``fewer_payoff_wins`` with several players tied for fewest,
  the tied ones draw (0.5) and the rest lose (engine choice). With ``series_scoring``
  the scores are the series points (a team's points are shown for both partners).
  Partnership stalemates compare team totals of pay-off cards (engine choice).
"""

from __future__ import annotations

import bisect
import enum
import random
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Literal, Mapping, Sequence

from .base import (
    Action,
    ConfigError,
    EndReason,
    Event,
    Game,
    IllegalActionError,
    InvalidActionError,
    Outcome,
    State,
    ranks_from_scores,
    new_event,
    twin_class,
)
from .cards import JOKER, RANK_TOKENS, STANDARD_DECK, Card, InvalidCardError, parse_cards

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
#: Series points for going out (§4.4).
WIN_BONUS = 5
#: §2.3 comparison scale: A=1 .. Q=12, K=13, JK=14.
JOKER_FIRST_PLAYER_RANK = 14


class Recycle(enum.Enum):
    IMMEDIATE = "immediate"
    DEFERRED = "deferred"


class StalemateRule(enum.Enum):
    DRAW = "draw"
    FEWER_PAYOFF_WINS = "fewer_payoff_wins"


class SideStackOrder(enum.Enum):
    FREE = "free"
    DESCENDING = "descending"


class DeadlockRule(enum.Enum):
    END_GAME = "end_game"
    HAND_ACE_TWO_THEN_END = "hand_ace_two_then_end"
    RESHUFFLE = "reshuffle"


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
# Options (field names and defaults = the variant table of §8.0).


@dataclass(frozen=True)
class SpiteAndMaliceOptions:
    """The variant table of §8.0; field names are the option names.

    Attributes:
        players: the number of players, 2-6 (§8.9).
        partnerships: teams of two partners sitting opposite (4 or 6 players, §8.10).
        decks: the number of 52-card decks shuffled together (default: one per player,
            at least 2).
        jokers: jokers added to the pack; they are always wild (§8.7).
        kings_wild: whether kings are wild (centre piles then run A to Q); false: kings
            are natural rank 13 and piles run A to K.
        wild_excluded_ranks: ranks a wild card may not represent on a centre pile, e.g.
            A or A,7 (§8.8).
        payoff_size: cards dealt to each pay-off pile.
        center_limit: the most active centre piles at once, or ``unlimited``.
        recycle: what happens to a completed centre pile: ``immediate`` (shuffled into
            the stock at once) or ``deferred`` (set aside until the stock runs out; needs
            unlimited piles, §8.6).
        forced_aces: an ace in hand or on top of the pay-off pile must be played at once
            (implies unlimited piles, §8.3).
        loading: cards may be put on an opponent's pay-off pile: same suit, one rank up
            or down (implies forced_aces, §8.4).
        side_stacks_spread: side stacks are spread so every card shows (no effect on
            play: views always carry whole side stacks, §8.5).
        stalemate_rule: the single-game result when the stock runs out or play is
            deadlocked: ``draw``, or ``fewer_payoff_wins`` (fewer pay-off cards left wins).
        series_scoring: play a series of games scored in points (5 for going out plus 1
            per card left in the other pay-off piles; a stalemate gives the difference),
            up to ``match_target`` (§4.4). Without it a game scores 1 / 0.5 / 0.
        match_target: the points that win a series (with ``series_scoring``).
        initial_side_cards: 1: each side stack starts with one face-up card from the
            stock (Massachusetts); 0: empty.
        fill_empty_side_stacks: before the discard that ends the turn, fill every empty
            side stack from the hand (Massachusetts, §8.11).
        side_stack_order: ``free`` (any card on any side stack) or ``descending`` (a card
            equal to or one lower than the top, book rule §8.12.2).
        may_end_without_discard: the ``end`` action: end the turn without a discard (a
            turn with no card moved is a pass; book rule §8.12.5).
        ace_two_compulsion: an ace or natural 2 on top of the own pay-off pile or a side
            stack must be played to the centre first when it can (book rule §8.12.4).
        deadlock_rule: what a full round of passes does: ``end_game``,
            ``hand_ace_two_then_end`` (a player holding a playable A or 2 in hand must play it;
            only if nobody does, the game ends) or ``reshuffle`` (everything but the
            pay-off piles is reshuffled and dealt again) (book rule §8.12.6).
        deck_split: pay-off piles from one deck, hands and stock from the other (2
            players and 2 decks; book rule §8.12.1).
        max_turns: termination guard: a game ends as a stalemate after this many turns.
        max_deadlock_reshuffles: with ``deadlock_rule = reshuffle``, the most
            reshuffles in a game; the next deadlock ends it.
    """

    players: int = 2
    partnerships: bool = False
    decks: int | None = None  # None: max(2, players), resolved on construction
    jokers: int = 0
    kings_wild: bool = True
    wild_excluded_ranks: frozenset[str] = frozenset()  # rank tokens, e.g. {"A", "7"}
    payoff_size: int = 20
    center_limit: int | Literal["unlimited"] = 3
    recycle: Recycle = Recycle.IMMEDIATE
    forced_aces: bool = False
    loading: bool = False
    side_stacks_spread: bool = False
    stalemate_rule: StalemateRule = StalemateRule.DRAW
    series_scoring: bool = False
    match_target: int = 50
    initial_side_cards: int = 0
    fill_empty_side_stacks: bool = False
    side_stack_order: SideStackOrder = SideStackOrder.FREE
    may_end_without_discard: bool = False
    ace_two_compulsion: bool = False
    deadlock_rule: DeadlockRule = DeadlockRule.END_GAME
    deck_split: bool = False
    max_turns: int = 2000
    max_deadlock_reshuffles: int = 10

    def __post_init__(self) -> None:
        if self.decks is None:
            object.__setattr__(self, "decks", max(2, self.players))
        ranks = set()
        for token in self.wild_excluded_ranks:
            t = str(token).strip().upper()
            t = {"1": "A", "T": "10", "11": "J", "12": "Q", "13": "K"}.get(t, t)
            if t not in RANK_TOKENS:
                raise ValueError(f"option 'wild_excluded_ranks': unknown rank {token!r} (use A,2-10,J,Q,K)")
            ranks.add(t)
        object.__setattr__(self, "wild_excluded_ranks", frozenset(ranks))


# --------------------------------------------------------------------------------------
# Actions.


@dataclass(frozen=True)
class Source:
    """A card source: ``hand:<card>``, ``payoff``, ``side:<j>``, ``partner_payoff``,
    ``partner_side:<j>``. ``index`` is the side slot (0 otherwise), ``card`` the hand card."""

    kind: SourceKind
    index: int = 0
    card: Card | None = None

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

    def __str__(self) -> str:
        dest = "new" if self.index is None else str(self.index)
        return f"play {self.source} -> {self.target.value}:{dest}"


@dataclass(frozen=True)
class Load(Action):
    """``load <src> -> payoff:<seat>`` (option ``loading``): onto an opponent's pay-off pile."""

    source: Source
    seat: int

    def __str__(self) -> str:
        return f"load {self.source} -> payoff:{self.seat}"


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


# --------------------------------------------------------------------------------------
# Views.


@dataclass(frozen=True)
class SpiteAndMaliceCards:
    """An ordered run of face-up cards (a side stack, a hand in the final reveal).

    Attributes:
        cards: the cards, bottom first, top (the playable one) last.
    """

    cards: tuple[Card, ...]


@dataclass(frozen=True)
class SpiteAndMalicePile:
    """A centre pile (or a completed one).

    Attributes:
        cards: all its cards, bottom (the ace, or a wild card acting as one) first, top
            last.
        value: the rank its top card represents (= its number of cards): A = 1 .. Q = 12
            (K = 13 with natural kings). The next card must represent value + 1.
    """

    cards: tuple[Card, ...]
    value: int


@dataclass(frozen=True)
class SpiteAndMalicePlayer:
    """The public picture of one seat.

    Attributes:
        seat: the seat.
        team: its team (partners share it; without partnerships, team = seat).
        payoff_count: cards left in its pay-off pile.
        payoff_top: the face-up top card of its pay-off pile; None once it is empty.
        payoff_face_up: the publicly known top part of its pay-off pile, bottom first,
            ending with the top card (with ``loading``, loaded cards stay known once
            covered); the other ``payoff_count - len(payoff_face_up)`` cards are face
            down, seen by nobody, not even the owner.
        hand_count: the number of cards in its hand.
        side_stacks: its 4 side stacks, ``side:0`` to ``side:3``, each whole (every
            card in them was placed face up).
        points: its series points (option ``series_scoring``; partners show their
            team's points); 0 otherwise.
    """

    seat: int
    team: int
    payoff_count: int
    payoff_top: Card | None
    payoff_face_up: tuple[Card, ...]
    hand_count: int
    side_stacks: tuple[SpiteAndMaliceCards, ...]
    points: int


@dataclass(frozen=True)
class SpiteAndMaliceMove:
    """One card moved during the current turn (public).

    Attributes:
        seat: the seat that moved it.
        action: the action in notation, e.g. ``play hand:5C -> center:0``.
        card: the card moved.
    """

    seat: int
    action: str
    card: Card


@dataclass(frozen=True)
class SpiteAndMaliceReveal:
    """Everything, published in the spectator view once the game is over.

    Attributes:
        hands: every seat's hand, by seat.
        payoffs: every seat's whole pay-off pile, bottom first, by seat.
        stock: the stock, bottom first (the last card would have been drawn next).
    """

    hands: tuple[SpiteAndMaliceCards, ...]
    payoffs: tuple[SpiteAndMaliceCards, ...]
    stock: tuple[Card, ...]


@dataclass(frozen=True)
class SpiteAndMaliceView:
    """What one seat (or a spectator, ``seat`` None) may see (§6): its own hand, every
    face-up card and counts of the rest.

    Attributes:
        seat: the seat this view is for; None in the spectator view.
        phase: the phase of the current turn: MAIN, FILLING (Massachusetts filling, after
            a fill) or GAME_OVER.
        current_seat: the seat to act; None once the game is over.
        hand: this seat's own hand, sorted; empty in the spectator view.
        players: every seat's public picture, by seat.
        center: the active centre piles; index i is ``center:i`` (creation order).
        completed: completed piles set aside for recycling (``recycle = deferred``).
        center_limit: the most active centre piles at once; 0 = unlimited.
        top_rank: the value at which a centre pile completes: 12 (Q) with wild kings,
            13 (K) otherwise.
        kings_wild: whether kings are wild (jokers always are).
        wild_excluded_ranks: ranks (1 = A .. 13 = K) a wild card may not represent on a
            centre pile.
        stock_count: the number of cards in the face-down stock.
        recycled: the sorted face-up cards shuffled into the stock during this game
            (recycled centre piles, deadlock reshuffles); where they lie is unknown and
            some may since have been drawn.
        game_number: the current game of a series, from 0 (always 0 without
            ``series_scoring``).
        turn_number: turns completed in the current game.
        turn_moves: the cards moved so far in the current turn, in order.
        consecutive_passes: turns in a row that ended with ``end`` and no card moved
            (book rules); a deadlock is when it reaches the number of players.
        deadlock_reshuffles: deadlock reshuffles so far in the current game
            (``deadlock_rule = reshuffle``; the next deadlock after
            ``max_deadlock_reshuffles`` of them ends the game).
        reveal: in the spectator view once the game is over, every hidden card; None
            otherwise.
    """

    seat: int | None
    phase: Phase
    current_seat: int | None
    hand: tuple[Card, ...]
    players: tuple[SpiteAndMalicePlayer, ...]
    center: tuple[SpiteAndMalicePile, ...]
    completed: tuple[SpiteAndMalicePile, ...]
    center_limit: int
    top_rank: int
    kings_wild: bool
    wild_excluded_ranks: tuple[int, ...]
    stock_count: int
    recycled: tuple[Card, ...]
    game_number: int
    turn_number: int
    turn_moves: tuple[SpiteAndMaliceMove, ...]
    consecutive_passes: int
    deadlock_reshuffles: int
    reveal: SpiteAndMaliceReveal | None = None


_new = object.__new__
_set = object.__setattr__


_BIT_LENGTHS = tuple(n.bit_length() for n in range(512))


def _shuffle(rng: random.Random, x: list) -> None:
    """``rng.shuffle(x)``: the same permutation from the same generator state, in about
    half the time (CPython's ``Random.shuffle`` with ``_randbelow_with_getrandbits``
    inlined). Checked against ``Random.shuffle`` at import; if this Python shuffles
    differently, ``_shuffle`` is ``Random.shuffle`` itself."""
    getrandbits = rng.getrandbits
    bits = _BIT_LENGTHS
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = bits[n] if n < 512 else n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        x[i], x[r] = x[r], x[i]


def _check_shuffle() -> bool:
    for size in (0, 1, 2, 53, 104, 600):
        a, b = list(range(size)), list(range(size))
        r1, r2 = random.Random(f"check:{size}"), random.Random(f"check:{size}")
        r1.shuffle(a)
        _shuffle(r2, b)
        if a != b or r1.random() != r2.random():
            return False
    return True


if not _check_shuffle():  # pragma: no cover - another Python's random module
    _shuffle = random.Random.shuffle


def _build(cls: type, fields: dict) -> Any:
    """A frozen dataclass instance from its complete field dict (in field order), without
    running ``__init__`` (one object.__setattr__ per field): equal to ``cls(**fields)``."""
    obj = _new(cls)
    _set(obj, "__dict__", fields)
    return obj


_EMPTY_CARDS = SpiteAndMaliceCards(())
_CardsTwin = twin_class(SpiteAndMaliceCards)
_ViewTwin = twin_class(SpiteAndMaliceView)


def _pile_view(pile: list[Card]) -> SpiteAndMalicePile:
    return _build(SpiteAndMalicePile, {"cards": tuple(pile), "value": len(pile)})


# --------------------------------------------------------------------------------------
# The game.


class SpiteAndMalice(Game):
    """Spite and Malice with every option of §8; create states with ``new_initial_state``.

    Every action is public once taken (§6): a ``play`` or ``load`` moves a card face up
    (to a centre pile, an own side stack, an opponent's pay-off pile) and ``end`` names
    none. So every viewer reads the notation: ``action_text`` is the default of ``Game``.
    """

    name = "spite-and-malice"
    rules_summary = """\
A competitive patience for 2 players (3-6, and partnerships of 4 or 6, as options). Two
decks shuffled together; suits do not matter; kings are wild (they stand for the rank they
are played as); ranks run A (low) to Q.

Each player has a pay-off pile (20 cards, only the top one face up), a hand of 5 and four
side stacks (side:0 to side:3, empty at first); the rest is the stock. Up to 3 centre piles
are shared: each is built upward from an ace, one rank at a time whatever the suits, and is
shuffled back into the stock once it reaches Q.

A turn: draw up to 5 cards, then play any number of cards to the centre from your hand, the
top of your pay-off pile or the tops of your side stacks (a hand emptied this way draws 5
more), and end the turn by discarding a hand card onto one of your side stacks. Side-stack
and pay-off cards only ever go to the centre.

The first player to empty their pay-off pile wins. If a player must draw from an empty
stock, the game is a draw (option stalemate_rule). Presets give the Massachusetts and the
book versions; option series_scoring plays a series of games scored in points."""
    notation = """\
play hand:5C -> center:2  a hand card onto centre pile 2 (active piles are numbered from 0)
play payoff -> center:new  the top of your pay-off pile starts a new centre pile
play side:1 -> center:0  the top of your side stack 1 onto centre pile 0
play hand:9D -> side:2  discard a hand card onto your side stack 2 (ends the turn)
load hand:9H -> payoff:1  (option loading) a card onto seat 1's pay-off pile
end  (book rules) end the turn without a discard; with no card moved, a pass
play partner_payoff -> center:0  (partnerships) the top of your partner's pay-off pile
play partner_side:1 -> center:0  (partnerships) the top of your partner's side stack 1
Cards: rank A 2..10 J Q K then suit S H D C, e.g. QS, 10H; JK is a joker. Side stacks and
centre piles are numbered from 0 (side:0 .. side:3, center:0 ...), seats from 0."""
    preset_docs = {
        "standard": "the standard two-player game: every option at its default",
        "massachusetts": "14 pay-off cards, side stacks start with one card each and must be filled before the discard",
        "book": "two separate decks (jokers wild, kings natural), 26 pay-off cards, descending side stacks, "
                "the end action, the ace-and-two compulsion, unlimited centre piles",
    }
    Options = SpiteAndMaliceOptions
    presets = {
        "standard": {},
        "massachusetts": {"payoff_size": 14, "initial_side_cards": 1, "fill_empty_side_stacks": True},
        "book": {
            "players": 2,
            "deck_split": True,
            "decks": 2,
            "jokers": 4,
            "kings_wild": False,
            "wild_excluded_ranks": frozenset({"A"}),
            "payoff_size": 26,
            "side_stack_order": "descending",
            "may_end_without_discard": True,
            "ace_two_compulsion": True,
            "center_limit": UNLIMITED,
            "deadlock_rule": "end_game",
        },
    }
    action_types = (Play, Load, End)
    view_type = SpiteAndMaliceView

    def __init__(self, options: Mapping[str, Any] | None = None, preset: str | None = None):
        explicit = set(options or {})
        if preset is not None and preset in self.presets:
            explicit |= set(self.presets[preset])
        self._explicit = explicit
        super().__init__(options, preset)

    # -- validation --------------------------------------------------------------------

    def validate(self) -> None:
        o = self.options
        if not MIN_PLAYERS <= o.players <= MAX_PLAYERS:
            raise ConfigError(f"option 'players': must be 2..6, got {o.players}")
        if o.partnerships and o.players not in (4, 6):
            raise ConfigError(f"option 'partnerships' needs 4 or 6 'players', got {o.players}")
        if o.decks < 1:
            raise ConfigError(f"option 'decks': must be at least 1, got {o.decks}")
        if o.jokers < 0:
            raise ConfigError(f"option 'jokers': must be >= 0, got {o.jokers}")
        if o.payoff_size < 1:
            raise ConfigError(f"option 'payoff_size': must be >= 1, got {o.payoff_size}")
        if o.center_limit != UNLIMITED and o.center_limit < 1:
            raise ConfigError(f"option 'center_limit': must be >= 1 or unlimited, got {o.center_limit}")
        if o.initial_side_cards not in (0, 1):
            raise ConfigError(f"option 'initial_side_cards': must be 0 or 1, got {o.initial_side_cards}")
        if o.match_target < 1:
            raise ConfigError(f"option 'match_target': must be >= 1, got {o.match_target}")
        if o.max_turns < 1:
            raise ConfigError(f"option 'max_turns': must be >= 1, got {o.max_turns}")
        if o.max_deadlock_reshuffles < 0:
            raise ConfigError(f"option 'max_deadlock_reshuffles': must be >= 0, got {o.max_deadlock_reshuffles}")
        # §8.4: loading is played with forced aces; §8.3: forced aces with unlimited piles.
        if o.loading and not o.forced_aces:
            if "forced_aces" in self._explicit:
                raise ConfigError("option 'loading' requires 'forced_aces' (§8.4); forced_aces=false contradicts it")
            o = replace(o, forced_aces=True)
        if o.forced_aces and o.center_limit != UNLIMITED:
            if "center_limit" in self._explicit:
                raise ConfigError(
                    f"option 'forced_aces' (or 'loading') requires 'center_limit' = unlimited (§8.3), "
                    f"got {o.center_limit}"
                )
            o = replace(o, center_limit=UNLIMITED)
        if o.recycle is Recycle.DEFERRED and o.center_limit != UNLIMITED:
            raise ConfigError("option 'recycle' = deferred requires 'center_limit' = unlimited (§8.6)")
        if o.side_stack_order is SideStackOrder.DESCENDING and not o.may_end_without_discard:
            raise ConfigError(
                "option 'side_stack_order' = descending requires 'may_end_without_discard' "
                "(a player may have no legal discard, §8.12.5)"
            )
        if o.fill_empty_side_stacks and o.may_end_without_discard:
            raise ConfigError(
                "options 'fill_empty_side_stacks' and 'may_end_without_discard' contradict each other "
                "(the filling rule precedes the discard that ends the turn, §8.11)"
            )
        if o.deadlock_rule is not DeadlockRule.END_GAME and not o.may_end_without_discard:
            raise ConfigError(
                f"option 'deadlock_rule' = {o.deadlock_rule.value} needs 'may_end_without_discard' "
                "(without 'end' nobody can pass)"
            )
        # §2.4 card-count check.
        side = NUM_SIDE_STACKS * o.initial_side_cards
        if o.deck_split:
            if o.players != 2 or o.decks != 2:
                raise ConfigError(
                    f"option 'deck_split' needs 'players' = 2 and 'decks' = 2 (got {o.players} and {o.decks})"
                )
            if o.players * o.payoff_size > 52:
                raise ConfigError(
                    f"options 'deck_split'/'payoff_size': {o.players} pay-off piles of {o.payoff_size} "
                    "do not fit in deck A (52 cards)"
                )
            if o.players * (HAND_SIZE + side) >= 52 + o.jokers:
                raise ConfigError("options 'deck_split'/'jokers': deck B leaves no stock (§2.4)")
        else:
            total = 52 * o.decks + o.jokers
            need = o.players * (o.payoff_size + HAND_SIZE + side)
            if need >= total:
                raise ConfigError(
                    f"options 'players'/'payoff_size'/'decks'/'jokers'/'initial_side_cards': "
                    f"{o.players}·({o.payoff_size}+5+{side}) = {need} is not below the {total} cards (§2.4)"
                )
        self.options = o
        self._derive()

    def _derive(self) -> None:
        """Tables used by the states (read only)."""
        o = self.options
        self.n = o.players
        self.top_rank = 12 if o.kings_wild else 13
        self.limit: int | None = None if o.center_limit == UNLIMITED else int(o.center_limit)
        self.excluded = frozenset(RANK_TOKENS.index(t) + 1 for t in o.wild_excluded_ranks)
        self.wmin = 2 if 1 in self.excluded else 1
        self.wild = [c == JOKER or (o.kings_wild and c // 4 == 12) for c in range(53)]
        #: Per card, the centre-pile values (0 = a new pile) it may go on: ``fits`` as a table.
        self.fit_values: tuple[frozenset[int], ...] = tuple(
            frozenset(v for v in range(self.top_rank) if self.fits(Card(c), v)) for c in range(53)
        )
        #: Per card, its class for ``fits``: the rank index (0 = A .. 12 = K) of a natural
        #: card, 13 for a wild one; cards of one class fit the same pile values.
        self.fit_class = tuple(13 if self.wild[c] else c // 4 for c in range(53))
        self.view_wild_excluded = tuple(sorted(self.excluded))
        self.view_center_limit = self.limit or 0
        self.view_kings_wild = o.kings_wild
        #: Any hand card may be discarded to any side stack (free order, no filling rule).
        self.plain_discards = o.side_stack_order is SideStackOrder.FREE and not o.fill_empty_side_stacks
        self.fill_rule = o.fill_empty_side_stacks
        #: Some compulsory play (forced aces, ace-and-two) may apply whatever the position.
        self.compulsions = o.forced_aces or o.ace_two_compulsion
        self.hand_ace_two = o.deadlock_rule is DeadlockRule.HAND_ACE_TWO_THEN_END
        if o.partnerships:
            half = self.n // 2
            self.team_of = [s % half for s in range(self.n)]
            self.partner_of: list[int | None] = [(s + half) % self.n for s in range(self.n)]
        else:
            self.team_of = list(range(self.n))
            self.partner_of = [None] * self.n
        self.team_members = tuple(
            tuple(s for s in range(self.n) if self.team_of[s] == t) for t in range(max(self.team_of) + 1)
        )

    @property
    def num_seats(self) -> int:
        return self.options.players

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        return self.team_members

    # -- card rules --------------------------------------------------------------------

    def fits(self, card: Card, value: int) -> bool:
        """§3.2: may ``card`` go on a centre pile of value ``value`` (0 = a new pile)?"""
        need = value + 1
        if need > self.top_rank:
            return False
        if self.wild[card]:
            return need not in self.excluded
        return card // 4 + 1 == need

    def side_interval(self, stack: Sequence[Card]) -> tuple[int, int] | None:
        """§8.12.2: the interval of possible effective values of a side stack's top."""
        lo = hi = 0
        empty = True
        for c in stack:
            if self.wild[c]:
                if empty:
                    lo, hi = self.wmin, self.top_rank
                else:
                    lo = max(self.wmin, lo - 1)
            else:
                lo = hi = c // 4 + 1
            empty = False
        return None if empty else (lo, hi)

    def side_accepts(self, stack: Sequence[Card], card: Card) -> bool:
        """Side-stack order rule (§8.12.2); always true with ``side_stack_order = free``."""
        if self.options.side_stack_order is SideStackOrder.FREE or not stack:
            return True
        lo, hi = self.side_interval(stack)  # type: ignore[misc]
        if self.wild[card]:
            return hi >= self.wmin
        return lo - 1 <= card // 4 + 1 <= hi

    # -- states ------------------------------------------------------------------------

    def new_initial_state(self, seed: int) -> "SpiteAndMaliceState":
        state = SpiteAndMaliceState(self, seed)
        state._start_game(0)
        return state

    def state_from_layout(
        self,
        *,
        payoffs: Sequence[str | Sequence[Card]],
        hands: Sequence[str | Sequence[Card]],
        stock: str | Sequence[Card] = (),
        side: Sequence[Sequence[str | Sequence[Card]]] | None = None,
        center: Sequence[str | Sequence[Card]] = (),
        completed: Sequence[str | Sequence[Card]] = (),
        current: int = 0,
        seed: int = 0,
        consecutive_passes: int = 0,
    ) -> "SpiteAndMaliceState":
        """TEST ONLY: a state from an explicit layout, ``current`` to move (its turn starts:
        it draws up to 5). Every pile is given bottom first, top last (the stock's last card
        is drawn first); only the top pay-off card counts as turned up."""

        def cards(x: str | Sequence[Card | str]) -> list[Card]:
            if isinstance(x, str):
                return list(parse_cards(x))
            return [Card.parse(c) if isinstance(c, str) else c for c in x]

        st = SpiteAndMaliceState(self, seed)
        st.payoff = [cards(p) for p in payoffs]
        st.hidden = [max(0, len(p) - 1) for p in st.payoff]
        st.hands = [cards(h) for h in hands]
        st.stock = cards(stock)
        st.side = [[cards(x) for x in slots] for slots in side] if side else [[[] for _ in range(4)] for _ in range(self.n)]
        for slots in st.side:
            while len(slots) < NUM_SIDE_STACKS:
                slots.append([])
        st.center = [cards(c) for c in center]
        st.completed = [cards(c) for c in completed]
        assert len(st.payoff) == len(st.hands) == len(st.side) == self.n
        st.turn_seat = current
        st.consecutive_passes = consecutive_passes
        st._start_turn()
        return st

    # -- notation ----------------------------------------------------------------------

    def parse_action(self, text: str) -> Action:
        raw = text
        t = re.sub(r"\s*:\s*", ":", text.strip())  # a card keeps the case it was typed in, for the error
        t = re.sub(r"\s+", " ", t)
        if t.lower() == "end":
            return End()
        m = re.fullmatch(r"(play|load) (\S+) ?-> ?(\S+)", t, re.IGNORECASE)
        if not m:
            raise InvalidActionError(
                f"cannot parse {raw!r}: expected 'play <src> -> center:<i>|center:new|side:<j>', "
                "'load <src> -> payoff:<seat>' or 'end'"
            )
        verb, src_text, dst = m.group(1).lower(), m.group(2), m.group(3).lower()
        source = _parse_source(src_text, raw)
        if verb == "load":
            dm = re.fullmatch(r"payoff:(\d+)", dst)
            if not dm:
                raise InvalidActionError(f"cannot parse {raw!r}: a load goes to 'payoff:<seat>'")
            return Load(source, int(dm.group(1)))
        if dst == "center:new":
            return Play(source, TargetKind.CENTER, None)
        dm = re.fullmatch(r"(center|side):(\d+)", dst)
        if dm:
            return Play(source, TargetKind(dm.group(1)), int(dm.group(2)))
        if dst.startswith("partner_side") or dst.startswith("partner_payoff"):
            raise InvalidActionError(
                f"cannot parse {raw!r}: {dst} is a source only, never a destination "
                "(you may discard only to your own side stacks)"
            )
        if dst.startswith("payoff"):
            raise InvalidActionError(f"cannot parse {raw!r}: a card goes onto a pay-off pile only with 'load'")
        raise InvalidActionError(
            f"cannot parse {raw!r}: unknown destination {dst!r} (center:<i>, center:new or side:<j>)"
        )

    # -- forward model (sdk.forward): a state from a view plus sampled hidden cards -----

    def state_from_view(
        self,
        view: "SpiteAndMaliceView",
        hands: Sequence[Sequence[Card]],
        hidden_payoffs: Sequence[Sequence[Card]],
        stock: Sequence[Card],
        seed: int,
    ) -> "SpiteAndMaliceState":
        """A state that shows ``view`` to ``view.seat``, with the hidden parts filled in.

        ``hands`` per seat, ``hidden_payoffs`` the face-down bottom of each pay-off pile
        (bottom first), ``stock`` bottom first (the last card is drawn first). Every face-up
        pile, the turn in progress and the counters come from the view; later shuffles
        and deals come from ``seed``. For the SDK's forward model.
        """
        if view.phase is Phase.GAME_OVER:
            raise ValueError("state_from_view: the game is over")
        st = SpiteAndMaliceState(self, seed)
        st.game_index = view.game_number
        st.payoff = [list(h) + list(p.payoff_face_up) for h, p in zip(hidden_payoffs, view.players)]
        st.hidden = [len(h) for h in hidden_payoffs]
        st.hands = [list(h) for h in hands]
        st.side = [[list(x.cards) for x in p.side_stacks] for p in view.players]
        st.center = [list(p.cards) for p in view.center]
        st.completed = [list(p.cards) for p in view.completed]
        st.stock = list(stock)
        st.recycled = list(view.recycled)
        st.points = [p.points for p in view.players]
        st.turn_seat = view.current_seat if view.current_seat is not None else 0
        st.phase = view.phase
        st.turns_played = view.turn_number
        st.turn_moves = list(view.turn_moves)
        st.moved = bool(view.turn_moves)
        st.turn_actions = len(view.turn_moves)
        st.consecutive_passes = view.consecutive_passes
        st.deadlock_reshuffles = view.deadlock_reshuffles
        # The hand A/2 compulsion (§8.12.6) holds from the turn start until a hand A or 2 is played.
        played_low = any(
            m.action.startswith("play hand:") and "-> center" in m.action and m.card // 4 in (0, 1) and not self.wild[m.card]
            for m in view.turn_moves
        )
        st.hand_compel = (
            self.options.deadlock_rule is DeadlockRule.HAND_ACE_TWO_THEN_END
            and view.consecutive_passes >= 1 and not played_low
        )
        if st.hand_compel and not st._compelled_hand_cards():
            st.hand_compel = False
        return st


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


# --------------------------------------------------------------------------------------
# Scoring (pure).


def game_points(counts: Sequence[int], winner: int | None) -> list[int]:
    """Series points of one game per team (§4.4, §8.9, §8.10).

    ``counts``: pay-off cards left per team; ``winner``: the team that went out, or None
    for any stalemate. The winner scores 5 + every other team's cards; in a stalemate the
    unique team with fewest cards scores the sum of the differences (a tie: nobody).

    >>> game_points([0, 6], 0), game_points([4, 9], None), game_points([4, 4], None)
    ([11, 0], [5, 0], [0, 0])
    """
    out = [0] * len(counts)
    if winner is not None:
        out[winner] = WIN_BONUS + sum(c for t, c in enumerate(counts) if t != winner)
        return out
    fewest = min(counts)
    leaders = [t for t, c in enumerate(counts) if c == fewest]
    if len(leaders) == 1:
        out[leaders[0]] = sum(c - fewest for c in counts)
    return out


def game_result(counts: Sequence[int], winner: int | None, rule: StalemateRule) -> list[float]:
    """Single-game result per team: 1 win, 0.5 draw, 0 loss (§4.2, §4.3).

    A stalemate is a draw for all, or under ``fewer_payoff_wins`` a win for the team with
    fewest cards; teams tied for fewest draw (0.5), the others lose (engine choice).
    """
    if winner is not None:
        return [1.0 if t == winner else 0.0 for t in range(len(counts))]
    fewest = min(counts)
    leaders = [t for t, c in enumerate(counts) if c == fewest]
    if rule is StalemateRule.DRAW or len(leaders) == len(counts):
        return [0.5] * len(counts)
    share = 1.0 if len(leaders) == 1 else 0.5
    return [share if t in leaders else 0.0 for t in range(len(counts))]


def series_over(points: Sequence[int], target: int) -> bool:
    """§4.4: the match ends once a side has reached ``target`` at the end of a game."""
    return max(points) >= target


# --------------------------------------------------------------------------------------
# The state.


class SpiteAndMaliceState(State):
    """A game (or a series of games) in progress."""

    def __init__(self, game: SpiteAndMalice, seed: int):
        self.game = game
        self.seed = seed
        n = game.n
        self.game_index = 0
        self.payoff: list[list[Card]] = [[] for _ in range(n)]
        self.hidden: list[int] = [0] * n
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.side: list[list[list[Card]]] = [[[] for _ in range(NUM_SIDE_STACKS)] for _ in range(n)]
        self.center: list[list[Card]] = []
        self.completed: list[list[Card]] = []
        self.stock: list[Card] = []
        self.recycled: list[Card] = []  # sorted multiset of face-up cards shuffled into the stock
        self.points: list[int] = [0] * n
        self.turn_seat = 0
        self.phase = _MAIN
        self.turns_played = 0
        self.turn_actions = 0
        self.moved = False
        self.turn_moves: list[SpiteAndMaliceMove] = []
        self.consecutive_passes = 0
        self.hand_compel = False
        self.shuffles = 0
        self.deadlock_reshuffles = 0
        self._outcome: Outcome | None = None
        self._log: list[Event] = []
        # View caches (immutable parts, rebuilt when their source changes): the public
        # picture of each seat, (centre piles, completed piles), the recycled cards.
        self._pv: list[SpiteAndMalicePlayer | None] | None = None
        self._cv: tuple | None = None
        self._rv: tuple[Card, ...] | None = None
        self._sv: list[tuple | None] | None = None  # side stacks per seat
        self._sc: list[list[SpiteAndMaliceCards | None]] | None = None  # each side stack (with _sv)
        # Centre plays of the current centre piles (reset when they change): see _new_fit.
        # Only ever replaced, never cleared, so a clone may share it.
        self._fit: tuple[list[bool], dict[int, tuple[Action, ...]]] | None = None

    def clone(self) -> "SpiteAndMaliceState":
        c = SpiteAndMaliceState.__new__(SpiteAndMaliceState)
        c.__dict__.update(self.__dict__)
        c.payoff = [list(p) for p in self.payoff]
        c.hidden = list(self.hidden)
        c.hands = [list(h) for h in self.hands]
        c.side = [[list(s) for s in slots] for slots in self.side]
        c.center = [list(p) for p in self.center]
        c.completed = [list(p) for p in self.completed]
        c.stock = list(self.stock)
        c.recycled = list(self.recycled)
        c.points = list(self.points)
        c.turn_moves = list(self.turn_moves)
        c._log = list(self._log)
        c._pv = None if self._pv is None else list(self._pv)
        c._sv = None if self._sv is None else list(self._sv)
        c._sc = None if self._sc is None else [list(x) for x in self._sc]
        return c

    # -- interface ---------------------------------------------------------------------

    @property
    def current_seat(self) -> int | None:
        return None if self.phase is _GAME_OVER else self.turn_seat

    @property
    def is_terminal(self) -> bool:
        return self.phase is _GAME_OVER

    @property
    def log(self) -> list[Event]:
        return self._log

    def outcome(self) -> Outcome:
        if self._outcome is None:
            raise IllegalActionError("the game is not over")
        return self._outcome

    def all_cards(self) -> Counter:
        """The multiset of every card on the table (for conservation checks)."""
        out: Counter = Counter()
        for p in self.payoff:
            out.update(p)
        for h in self.hands:
            out.update(h)
        for slots in self.side:
            for s in slots:
                out.update(s)
        for p in self.center:
            out.update(p)
        for p in self.completed:
            out.update(p)
        out.update(self.stock)
        return out

    # -- legal actions -----------------------------------------------------------------

    #: The legal actions of the current position, computed once; reset by ``apply``.
    _legal: list[Action] | None = None

    def legal_actions(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            if self.phase is _MAIN and not (self.game.compulsions or self.hand_compel):
                legal = self._legal = self._main_actions()  # _compute_legal_actions() without a compulsion
            else:
                legal = self._legal = self._compute_legal_actions()
        return legal.copy()

    def _compute_legal_actions(self) -> list[Action]:
        if self.phase is _GAME_OVER:
            return []
        if self.game.compulsions or self.hand_compel:
            compelled = self._compelled()
            if compelled:
                return compelled
        if self.phase is _FILLING:
            return self._discards()
        return self._main_actions()

    def _centre_targets(self, card: Card) -> tuple[int | None, ...]:
        """The centre piles ``card`` fits (index order), then None for a new pile (§3.2);
        memoised in _fit by fit class (cards of one class fit the same piles)."""
        g = self.game
        memo = (self._fit or self._new_fit())[1]
        key = -1 - g.fit_class[card]
        targets = memo.get(key)
        if targets is None:
            fv = g.fit_values[card]
            out: list[int | None] = [i for i, pile in enumerate(self.center) if len(pile) in fv] if fv else []
            if fv and (g.limit is None or len(self.center) < g.limit) and 0 in fv:
                out.append(None)
            targets = memo[key] = tuple(out)
        return targets

    def _centre_plays(self, source: Source, card: Card) -> tuple[Action, ...]:
        """Centre plays of one card: every active pile it fits, then a new pile (§3.2).
        ``source`` must be interned."""
        targets = self._centre_targets(card)
        if not targets:
            return ()
        try:
            return tuple(map(_PLAYS[id(source)].__getitem__, targets))
        except KeyError:  # a pile index beyond the ones made at import
            return tuple(_play(source, _CENTER, i) for i in targets)

    def _compelled(self) -> list[Action]:
        """Forced aces (§8.3), ace-and-two compulsion (§8.12.4), hand A/2 after a pass (§8.12.6)."""
        g, o, p = self.game, self.game.options, self.turn_seat
        if not (o.forced_aces or o.ace_two_compulsion or self.hand_compel):
            return []
        out: list[Action] = []
        if o.forced_aces:
            for c in sorted(set(self.hands[p])):
                if c // 4 == 0 and not g.wild[c]:
                    out.extend(self._centre_plays(_HAND_SOURCES[c], c))
            for kind, owner in ((_PAYOFF, p), (_PARTNER_PAYOFF, g.partner_of[p])):
                if owner is not None and self.payoff[owner] and self.payoff[owner][-1] // 4 == 0:
                    out.extend(self._centre_plays(_source(kind), self.payoff[owner][-1]))
        if o.ace_two_compulsion:
            tops: list[tuple[Source, Card]] = []
            if self.payoff[p]:
                tops.append((_source(_PAYOFF), self.payoff[p][-1]))
            for j, stack in enumerate(self.side[p]):
                if stack:
                    tops.append((_source(_SIDE, j), stack[-1]))
            for src, c in tops:
                if c // 4 in (0, 1) and not g.wild[c]:
                    out.extend(self._centre_plays(src, c))
        if self.hand_compel:
            for c in sorted(set(self.hands[p])):
                if c // 4 in (0, 1) and not g.wild[c]:
                    out.extend(self._centre_plays(_HAND_SOURCES[c], c))
        if len(out) > 1:
            out = list(dict.fromkeys(out))
        return out

    def _discards(self) -> list[Action]:
        """Hand card -> own side stack, subject to the side order and the filling rule."""
        g, p = self.game, self.turn_seat
        slots = self.side[p]
        fill = g.options.fill_empty_side_stacks
        any_empty = any(not s for s in slots)
        out: list[Action] = []
        # §8.11: with the filling rule, the ending discard waits until every slot is filled.
        open_slots = [(j, stack) for j, stack in enumerate(slots) if not (fill and stack and any_empty)]
        if g.options.side_stack_order is SideStackOrder.FREE:
            for c in sorted(set(self.hands[p])):
                src = _HAND_SOURCES[c]
                out += [_play(src, _TO_SIDE, j) for j, _ in open_slots]
            return out
        for c in sorted(set(self.hands[p])):
            src = _HAND_SOURCES[c]
            for j, stack in open_slots:
                if g.side_accepts(stack, c):
                    out.append(_play(src, _TO_SIDE, j))
        return out

    def _loads(self) -> list[Action]:
        """§8.4: same suit, natural rank one apart, from hand or own pay-off top."""
        g, p = self.game, self.turn_seat
        cands = [(_HAND_SOURCES[c], c) for c in sorted(set(self.hands[p]))]
        if self.payoff[p]:
            cands.append((_source(_PAYOFF), self.payoff[p][-1]))
        out: list[Action] = []
        for src, c in cands:
            if c == JOKER:
                continue
            for t in range(g.n):
                if g.team_of[t] == g.team_of[p] or not self.payoff[t]:
                    continue
                top = self.payoff[t][-1]
                if top != JOKER and top % 4 == c % 4 and abs(top // 4 - c // 4) == 1:
                    out.append(Load(src, t))
        return out

    def _new_fit(self) -> tuple[list[bool], dict[int, tuple[Action, ...]]]:
        """The _fit cache of the current centre piles: per card, whether it may fit
        anywhere (a superset, by fit class: see SpiteAndMalice.fit_class), and an empty
        memo of centre plays."""
        g = self.game
        want = [False] * 14
        for pile in self.center:
            v = len(pile)
            if v < 13:
                want[v] = True  # a natural card of rank index v (rank v + 1)
        can_new = g.limit is None or len(self.center) < g.limit
        if can_new:
            want[0] = True
        want[13] = bool(self.center) or can_new  # a wild card
        fit = self._fit = ([want[k] for k in g.fit_class], {})
        return fit

    def _main_actions(self) -> list[Action]:
        # Every card the actor may move to the centre (§3.3 (a), §8.10), in this order:
        # the hand's (sorted), the pay-off top, the side tops, the partner's pay-off and
        # side tops; each with its _centre_plays, memoised in _fit for the current centre
        # piles (a hand card by card, another source by fit class: the plays of a card
        # depend only on its class). Then the discards, loads and end.
        g = self.game
        p = self.turn_seat
        want, memo = self._fit or self._new_fit()
        fit_class = g.fit_class
        out: list[Action] = []
        hand = sorted(set(self.hands[p]))
        for c in hand:
            if want[c]:
                t = memo.get(c)
                if t is None:
                    t = memo[c] = self._centre_plays(_HAND_SOURCES[c], c)
                out += t
        pile = self.payoff[p]
        if pile:
            c = pile[-1]
            if want[c]:
                k = fit_class[c]
                t = memo.get(64 + k)
                if t is None:
                    t = memo[64 + k] = self._centre_plays(_PAYOFF_SOURCE, c)
                out += t
        for j, stack in enumerate(self.side[p]):
            if stack:
                c = stack[-1]
                if want[c]:
                    key = _SIDE_KEYS[j] + fit_class[c]
                    t = memo.get(key)
                    if t is None:
                        t = memo[key] = self._centre_plays(_SIDE_SOURCES[j], c)
                    out += t
        q = g.partner_of[p]
        if q is not None:
            pile = self.payoff[q]
            if pile:
                out += self._centre_plays(_PARTNER_PAYOFF_SOURCE, pile[-1])
            for j, stack in enumerate(self.side[q]):
                if stack:
                    out += self._centre_plays(_PARTNER_SIDE_SOURCES[j], stack[-1])
        if g.plain_discards and self.phase is _MAIN:
            # _discards() without the filling rule: every hand card to every side stack.
            for c in hand:
                out += _HAND_DISCARDS[c]
        else:
            out += self._discards()
        if g.options.loading:
            out += self._loads()
        if g.options.may_end_without_discard:
            out.append(_END)
        return out

    # -- apply -------------------------------------------------------------------------

    def apply(self, action: Action) -> list[Event]:
        if self.phase is _GAME_OVER:
            raise IllegalActionError(f"{action}: the game is over")
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal_actions()
        for a in legal:  # identity first: the dataclass __eq__ is slow
            if a is action:
                break
        else:
            if action not in legal:
                raise IllegalActionError(self._why_illegal(action, legal))
        self._legal = None
        log = self._log
        start = len(log)  # the events of this action are log[start:]
        p = self.turn_seat
        self.turn_actions += 1
        # Legal, hence equal to an action built by the generator: exactly one of its classes.
        cls = action.__class__
        if cls is Play:
            if action.target is _CENTER:
                self._apply_centre_play(p, action)
            else:
                self._apply_discard(p, action)
        elif cls is Load:
            self._apply_load(p, action)
        else:
            self._apply_end(p)
        if self.turn_actions >= MAX_TURN_ACTIONS and self.phase is not _GAME_OVER and self.turn_seat == p:
            self._finish_game(None, EndReason.TURN_LIMIT, f"turn guard: {MAX_TURN_ACTIONS} decisions in one turn")
        # Forget the cached public picture of every seat whose pay-off pile this action can
        # have changed: the actor, its partner (partner sources) and a loaded seat. A new
        # game or a reshuffle cleared them all; hand counts and side stacks are checked
        # by _view (a discard and a draw change nothing else).
        pv = self._pv
        if pv is not None and (cls is not Play or action.target is _CENTER):
            pv[p] = None
            q = self.game.partner_of[p]
            if q is not None:
                pv[q] = None
            if cls is Load:
                pv[action.seat] = None
        return log[start:]

    def _side_changed(self, s: int, j: int) -> None:
        """Forget the cached view of seat ``s``'s side stack ``j``."""
        if self._sv is not None:
            self._sv[s] = None
            self._sc[s][j] = None  # type: ignore[index]

    def _take(self, p: int, src: Source) -> Card:
        """Remove the source card from where it lies (legality already checked)."""
        g = self.game
        kind = src.kind
        if kind is _HAND:
            self.hands[p].remove(src.card)
            return src.card  # type: ignore[return-value]
        if kind is _SIDE:
            self._side_changed(p, src.index)
            return self.side[p][src.index].pop()
        if kind is _PARTNER_SIDE:
            self._side_changed(g.partner_of[p], src.index)  # type: ignore[arg-type]
            return self.side[g.partner_of[p]][src.index].pop()  # type: ignore[index]
        owner = p if kind is _PAYOFF else g.partner_of[p]
        return self.payoff[owner].pop()  # type: ignore[index]

    def _record(self, p: int, action: Action, card: Card, kind: str) -> None:
        self.moved = True
        text = _ACTION_TEXT.get(id(action)) or _action_text(action)
        move = _new(SpiteAndMaliceMove)
        _set(move, "__dict__", {"seat": p, "action": text, "card": card})
        self.turn_moves.append(move)
        self._log.append(new_event(kind, p, f"seat {p}: {text}", (card,)))

    def _apply_centre_play(self, p: int, action: Play) -> None:
        g, src = self.game, action.source
        self._cv = self._fit = None
        card = self._take(p, src)
        if action.index is None:
            self.center.append([])
            pile = self.center[-1]
        else:
            pile = self.center[action.index]
        pile.append(card)
        self._record(p, action, card, "play")
        if self.hand_compel and src.kind is _HAND and card // 4 in (0, 1) and not g.wild[card]:
            self.hand_compel = False
        # The pile completes at top_rank: removed at once, recycled (§3.2, §8.6).
        if len(pile) == g.top_rank:
            self.center.remove(pile)
            if g.options.recycle is Recycle.DEFERRED:
                self.completed.append(pile)
                self._emit("complete", p, f"centre pile complete ({g.top_rank} cards), set aside", tuple(pile))
            else:
                self._shuffle_into_stock(pile, "centre pile complete, shuffled into the stock")
        if src.kind is _PAYOFF or src.kind is _PARTNER_PAYOFF:
            owner = p if src.kind is _PAYOFF else g.partner_of[p]
            self._turn_up(owner)  # type: ignore[arg-type]
        if self._check_win(p):
            return
        if not self.hands[p]:
            self.phase = _MAIN  # §8.11: a hand emptied while filling starts afresh
            self._draw_to(p, HAND_SIZE)

    def _apply_discard(self, p: int, action: Play) -> None:
        j = action.index
        stack = self.side[p][j]  # type: ignore[index]
        if self._sv is not None:
            self._sv[p] = None
            self._sc[p][j] = None  # type: ignore[index]
        is_fill = self.game.fill_rule and not stack
        card = action.source.card  # a discard comes from the hand (legal)
        self.hands[p].remove(card)
        stack.append(card)
        if not is_fill:
            # _record(p, action, card, "discard"), inline: the most frequent action. Its
            # move is recorded only if this turn's moves outlive _end_turn (the game ended
            # before the next turn began): a new turn starts them afresh.
            self.moved = True
            text = _ACTION_TEXT.get(id(action)) or _action_text(action)
            self._log.append(new_event("discard", p, f"seat {p}: {text}", _ONE_CARD[card]))
            moves = self.turn_moves
            self._end_turn(p)
            if self.turn_moves is moves:
                moves.append(_build(SpiteAndMaliceMove, {"seat": p, "action": text, "card": card}))
            return
        self._record(p, action, card, "fill")  # type: ignore[arg-type]
        # §8.11: a fill does not end the turn; with an empty hand draw 5 and return to MAIN.
        self.phase = _FILLING
        if not self.hands[p]:
            self.phase = _MAIN
            self._draw_to(p, HAND_SIZE)

    def _apply_load(self, p: int, action: Load) -> None:
        card = self._take(p, action.source)
        self.payoff[action.seat].append(card)
        self._record(p, action, card, "load")
        if action.source.kind is _PAYOFF:
            self._turn_up(p)
            if self._check_win(p):
                return
        if not self.hands[p]:
            self._draw_to(p, HAND_SIZE)

    def _apply_end(self, p: int) -> None:
        self._emit("end" if self.moved else "pass", p, f"seat {p}: end" + ("" if self.moved else " (pass)"))
        self._end_turn(p)

    # -- forced events -----------------------------------------------------------------

    def _emit(self, kind: str, seat: int | None, text: str, cards: tuple = (), visible_to=None) -> None:
        self._log.append(new_event(kind, seat, text, cards, visible_to))

    def _rng(self) -> random.Random:
        self.shuffles += 1
        return random.Random(f"{self.seed}:shuffle:{self.game_index}:{self.shuffles}")

    def _shuffle_into_stock(self, cards: list[Card], text: str) -> None:
        self._rv = None
        self.stock.extend(cards)
        self._rng().shuffle(self.stock)
        for c in cards:
            bisect.insort(self.recycled, c)
        self._emit("recycle", None, f"{text}; stock {len(self.stock)}", tuple(sorted(cards)))

    def _turn_up(self, owner: int) -> None:
        pile = self.payoff[owner]
        if self.hidden[owner] > max(0, len(pile) - 1):
            self.hidden[owner] = max(0, len(pile) - 1)
            if pile:
                self._emit("turn_up", owner, f"seat {owner} turns up pay-off card {pile[-1]}", (pile[-1],))

    def _check_win(self, p: int) -> bool:
        """§4.1 / §8.10: the acting side wins once all its pay-off piles are empty."""
        team = self.game.team_members[self.game.team_of[p]]
        if all(not self.payoff[s] for s in team):
            self._finish_game(team, EndReason.COMPLETED, f"seat {p} emptied the pay-off pile" + ("s" if len(team) > 1 else ""))
            return True
        return False

    def _draw_to(self, p: int, k: int) -> bool:
        """Draw until the hand holds ``k``; False if the game ended by stalemate (§4.2, §8.6)."""
        hand = self.hands[p]
        need = k - len(hand)
        if need <= 0:
            return True
        stock = self.stock
        if len(stock) >= need:
            # The usual case: the top ``need`` cards, the top one first (as popped one by one).
            drawn = stock[-need:]
            drawn.reverse()
            del stock[-need:]
            self._emit_draw(p, drawn)
            hand.extend(drawn)
            return True
        drawn: list[Card] = []
        ok = True
        while len(hand) + len(drawn) < k:
            if not self.stock and self.completed:
                cards = [c for pile in self.completed for c in pile]
                self.completed = []
                self._cv = None
                self._emit_draw(p, drawn)
                hand.extend(drawn)
                drawn = []
                self._shuffle_into_stock(cards, "completed piles shuffled to form a new stock")
            if not self.stock:
                ok = False
                break
            drawn.append(self.stock.pop())
        self._emit_draw(p, drawn)
        hand.extend(drawn)
        if not ok:
            self._finish_game(None, EndReason.STALEMATE, f"seat {p} must draw and the stock is empty")
        return ok

    def _emit_draw(self, p: int, drawn: list[Card]) -> None:
        """The public and the private event of drawing ``drawn`` (none if empty)."""
        if drawn:
            log = self._log
            log.append(new_event("draw", p, f"seat {p} {_DRAWS_TEXT[len(drawn)]}; stock {len(self.stock)}"))
            log.append(new_event("draw", p, f"seat {p} draws {' '.join([_CARD_TEXT[c] for c in drawn])}", tuple(drawn),
                              _SEAT_SETS[p]))

    def _start_turn(self) -> None:
        """TURN_START: draw to 5 (stalemate if impossible), then MAIN (§3.3)."""
        p = self.turn_seat
        self.phase = _MAIN
        self.moved = False
        self.turn_actions = 0
        self.turn_moves = []
        self.hand_compel = False
        log = self._log
        log.append(new_event("turn", p, f"seat {p} to play (turn {self.turns_played + 1})"))
        hand = self.hands[p]
        need = HAND_SIZE - len(hand)
        stock = self.stock
        if need == 1 and stock:
            # _draw_to(p, HAND_SIZE) for the usual single card (the turn after a discard).
            c = stock.pop()
            log.append(new_event("draw", p, f"seat {p} draws 1 card; stock {len(stock)}"))
            log.append(new_event("draw", p, f"seat {p} draws {_CARD_TEXT[c]}", _ONE_CARD[c], _SEAT_SETS[p]))
            hand.append(c)
        elif not self._draw_to(p, HAND_SIZE):
            return
        if self.game.hand_ace_two and self.consecutive_passes >= 1:
            self.hand_compel = True
            if not self._compelled_hand_cards():
                self.hand_compel = False

    def _compelled_hand_cards(self) -> bool:
        g, p = self.game, self.turn_seat
        return any(
            c // 4 in (0, 1) and not g.wild[c] and self._centre_plays(_HAND_SOURCES[c], c)
            for c in self.hands[p]
        )

    def _end_turn(self, p: int) -> None:
        g, o = self.game, self.game.options
        self.turns_played += 1
        self.consecutive_passes = 0 if self.moved else self.consecutive_passes + 1
        nxt = (p + 1) % g.n
        if self.consecutive_passes >= g.n:
            # §8.12.6: everybody passed in succession.
            if o.deadlock_rule is DeadlockRule.RESHUFFLE and self.deadlock_reshuffles < o.max_deadlock_reshuffles:
                self._deadlock_reshuffle(nxt)
            else:
                breaker = self._deadlock_breaker(nxt) if g.hand_ace_two else None
                if breaker is None:
                    self._finish_game(None, EndReason.STALEMATE, "deadlock: every player passed")
                    return
                # The first seat in turn order (from the one due to move) holding a hand A
                # or natural 2 it can play to the centre moves next and must play one.
                self._emit("deadlock", breaker, f"deadlock: every player passed; seat {breaker} holds a playable "
                           "A or 2 and must play it")
                nxt = breaker
        if self.turns_played >= o.max_turns:
            self._finish_game(None, EndReason.TURN_LIMIT, f"turn guard: {o.max_turns} turns played")
            return
        self.turn_seat = nxt
        self._start_turn()

    def _deadlock_breaker(self, due: int) -> int | None:
        """§8.12.6 ``hand_ace_two_then_end``: the first seat in turn order from ``due``
        holding a natural A or 2 in hand that fits a centre pile; None if nobody does."""
        g = self.game
        for k in range(g.n):
            s = (due + k) % g.n
            if any(c // 4 in (0, 1) and not g.wild[c] and self._centre_targets(c) for c in self.hands[s]):
                return s
        return None

    def _deadlock_reshuffle(self, due: int) -> None:
        """§8.12.6 reshuffle: everything but the pay-off piles, new 5-card hands from ``due``."""
        g = self.game
        self._pv = self._cv = self._rv = self._sv = self._sc = self._fit = None
        self.deadlock_reshuffles += 1
        face_up = [c for slots in self.side for s in slots for c in s]
        face_up += [c for pile in self.center + self.completed for c in pile]
        pool = [c for h in self.hands for c in h] + face_up + self.stock
        for c in face_up:
            bisect.insort(self.recycled, c)
        self.hands = [[] for _ in range(g.n)]
        self.side = [[[] for _ in range(NUM_SIDE_STACKS)] for _ in range(g.n)]
        self.center, self.completed = [], []
        self._rng().shuffle(pool)
        self.stock = pool
        self._emit(
            "reshuffle", None,
            f"deadlock: hands, side stacks, centre and stock reshuffled ({self.deadlock_reshuffles})",
            tuple(sorted(face_up)),
        )
        for k in range(HAND_SIZE * g.n):
            if not self.stock:
                break
            self.hands[(due + k) % g.n].append(self.stock.pop())
        for s in range(g.n):
            self._emit("deal", s, f"seat {s} receives {len(self.hands[s])} cards")
            self._emit("deal", s, f"seat {s} receives {' '.join(map(str, self.hands[s]))}", tuple(self.hands[s]), frozenset({s}))
        self.consecutive_passes = 0

    # -- deal, first player, end of game -----------------------------------------------

    def _start_game(self, k: int) -> None:
        """Deal game ``k`` from the seed and the game index only (§2.2), then §2.3."""
        g, o = self.game, self.game.options
        n, size = g.n, o.payoff_size
        rng = random.Random(f"{self.seed}:deal:{k}")
        self._pv = self._cv = self._rv = self._sv = self._sc = self._fit = None
        self.game_index = k
        self.shuffles = 0
        self.deadlock_reshuffles = 0
        self.turns_played = 0
        self.consecutive_passes = 0
        self.center, self.completed, self.recycled = [], [], []
        self.side = [[[] for _ in range(NUM_SIDE_STACKS)] for _ in range(n)]
        if o.deck_split:
            deck_a = list(STANDARD_DECK)
            _shuffle(rng, deck_a)
            deck_b = list(STANDARD_DECK) + [JOKER] * o.jokers
            _shuffle(rng, deck_b)
            self.payoff = [deck_a[s * size:(s + 1) * size] for s in range(n)]
            self.hands = [deck_b[s * HAND_SIZE:(s + 1) * HAND_SIZE] for s in range(n)]
            self.stock = deck_b[n * HAND_SIZE:] + deck_a[n * size:]
            if len(deck_a) > n * size:
                _shuffle(rng, self.stock)
        else:
            deck = list(STANDARD_DECK) * o.decks + [JOKER] * o.jokers
            _shuffle(rng, deck)
            self.payoff = [deck[s * size:(s + 1) * size] for s in range(n)]
            base = n * size
            self.hands = [deck[base + s * HAND_SIZE: base + (s + 1) * HAND_SIZE] for s in range(n)]
            self.stock = deck[base + n * HAND_SIZE:]
        self.hidden = [size - 1] * n
        self._emit("deal", None, f"game {k + 1}: {size} pay-off cards and {HAND_SIZE} cards to each seat; stock {len(self.stock)}")
        for s in range(n):
            self._emit("deal", s, f"seat {s} receives {' '.join(map(str, self.hands[s]))}", tuple(self.hands[s]), frozenset({s}))
        if o.initial_side_cards:
            for s in range(n):
                for j in range(NUM_SIDE_STACKS):
                    self.side[s][j].append(self.stock.pop())
                self._emit("side_deal", s, f"seat {s} side stacks start with {' '.join(str(x[-1]) for x in self.side[s])}",
                           tuple(x[-1] for x in self.side[s]))
        self.turn_seat = self._first_player(rng)
        self._start_turn()

    def _first_player(self, rng: random.Random) -> int:
        """§2.3 / §8.9: highest turned-up pay-off card; tied seats reshuffle and turn again."""

        def value(c: Card) -> int:
            return JOKER_FIRST_PLAYER_RANK if c == JOKER else c // 4 + 1

        cands = list(range(self.game.n))
        for _ in range(FIRST_PLAYER_TIE_GUARD):
            tops = {s: self.payoff[s][-1] for s in cands}
            self._emit("turn_up", None, "pay-off tops: " + ", ".join(f"seat {s} {tops[s]}" for s in cands),
                       tuple(tops[s] for s in cands))
            best = max(value(c) for c in tops.values())
            tied = [s for s in cands if value(tops[s]) == best]
            if len(tied) == 1:
                first = tied[0]
                break
            for s in tied:
                rng.shuffle(self.payoff[s])
            self._emit("first_player_tie", None, f"tie between seats {tied}: their pay-off piles are reshuffled")
            cands = tied
        else:
            first = rng.choice(cands)
        self._emit("first_player", first, f"seat {first} plays first")
        return first

    def _finish_game(self, winners: tuple[int, ...] | None, reason: EndReason, detail: str) -> None:
        """Score the game (§4), then end or (series) deal the next one (§4.4)."""
        g, o = self.game, self.game.options
        self._pv = None
        counts = [sum(len(self.payoff[s]) for s in team) for team in g.team_members]
        winner = None if winners is None else g.team_of[winners[0]]
        gained = game_points(counts, winner)
        result = game_result(counts, winner, o.stalemate_rule)
        text = f"game {self.game_index + 1} over ({reason.value}): {detail}; pay-off cards left {counts}"
        if o.series_scoring:
            for s in range(g.n):
                self.points[s] += gained[g.team_of[s]]
            text += f"; points {self.points}"
        self._emit("game_over", None, text)
        if o.series_scoring:
            if series_over(self.points, o.match_target):
                self._end(tuple(float(x) for x in self.points), EndReason.COMPLETED, f"series won; {detail}")
            elif self.game_index + 1 >= MAX_SERIES_GAMES:
                self._end(tuple(float(x) for x in self.points), EndReason.TURN_LIMIT, f"series guard: {MAX_SERIES_GAMES} games")
            else:
                self._start_game(self.game_index + 1)
            return
        self._end(tuple(result[g.team_of[s]] for s in range(g.n)), reason, detail)

    def _end(self, scores: tuple[float, ...], reason: EndReason, detail: str) -> None:
        self.phase = _GAME_OVER
        self._outcome = Outcome(scores, ranks_from_scores(scores), reason, detail)

    # -- illegal-action reasons (from the actor's information only) --------------------

    def _why_illegal(self, action: Action, legal: list[Action]) -> str:
        o = self.game.options
        why = self._source_problem(action)
        if why is None:
            if isinstance(action, End):
                why = None if o.may_end_without_discard else "ending a turn without a discard is not allowed (book rule)"
            elif isinstance(action, Load):
                why = self._load_problem(action)
            elif isinstance(action, Play) and action.target is _TO_SIDE:
                why = self._discard_problem(action)
            elif isinstance(action, Play):
                why = self._centre_problem(action)
        if why is None:
            compelled = self._compelled()
            if compelled:
                why = "a compulsory play is pending: " + ", ".join(map(str, compelled))
            elif self.phase is _FILLING:
                why = "you are filling your empty side stacks: only a fill or, once all are filled, the final discard"
            else:
                why = "not a legal action now"
        return f"{action}: {why}"

    def _source_problem(self, action: Action) -> str | None:
        if isinstance(action, End):
            return None
        g, p = self.game, self.turn_seat
        src: Source = action.source  # type: ignore[attr-defined]
        k = src.kind
        if k is _HAND:
            if src.card is None:
                return "a hand source must name the card"
            if src.card not in self.hands[p]:
                return f"no {src.card} in your hand"
        elif k in (_PARTNER_PAYOFF, _PARTNER_SIDE) and g.partner_of[p] is None:
            return "there are no partnerships in this game"
        elif k in (_PAYOFF, _PARTNER_PAYOFF):
            owner = p if k is _PAYOFF else g.partner_of[p]
            if not self.payoff[owner]:  # type: ignore[index]
                return "that pay-off pile is empty"
        else:
            owner = p if k is _SIDE else g.partner_of[p]
            if not 0 <= src.index < NUM_SIDE_STACKS:
                return f"side stacks are numbered 0..{NUM_SIDE_STACKS - 1}"
            if not self.side[owner][src.index]:  # type: ignore[index]
                return f"{src} is empty"
        return None

    def _source_card(self, src: Source) -> Card:
        g, p = self.game, self.turn_seat
        if src.kind is _HAND:
            return src.card  # type: ignore[return-value]
        if src.kind is _PAYOFF:
            return self.payoff[p][-1]
        if src.kind is _PARTNER_PAYOFF:
            return self.payoff[g.partner_of[p]][-1]  # type: ignore[index]
        owner = p if src.kind is _SIDE else g.partner_of[p]
        return self.side[owner][src.index][-1]  # type: ignore[index]

    def _centre_problem(self, action: Play) -> str | None:
        g = self.game
        card = self._source_card(action.source)
        if action.index is None:
            if g.limit is not None and len(self.center) >= g.limit:
                return f"the centre limit of {g.limit} active piles is reached"
            if not g.fits(card, 0):
                return f"a new centre pile must start with an ace (or a wild card allowed to represent one); {card} cannot"
            return None
        if not 0 <= action.index < len(self.center):
            return f"there is no center:{action.index} ({len(self.center)} active piles)"
        v = len(self.center[action.index])
        if not g.fits(card, v):
            return f"{card} does not fit on center:{action.index} (value {v})"
        return None

    def _discard_problem(self, action: Play) -> str | None:
        g, p = self.game, self.turn_seat
        if action.source.kind is not _HAND:
            return "only a card from your hand may go to a side stack (pay-off and side cards go to the centre)"
        if action.index is None or not 0 <= action.index < NUM_SIDE_STACKS:
            return f"side stacks are numbered 0..{NUM_SIDE_STACKS - 1}"
        stack = self.side[p][action.index]
        if not g.side_accepts(stack, action.source.card):  # type: ignore[arg-type]
            return f"side:{action.index} takes only a card equal to or one lower than its top (descending order)"
        if g.options.fill_empty_side_stacks and stack and any(not s for s in self.side[p]):
            return "fill every empty side stack before the discard that ends the turn"
        return None

    def _load_problem(self, action: Load) -> str | None:
        g, p = self.game, self.turn_seat
        if not g.options.loading:
            return "loading is not played in this game"
        if action.source.kind not in (_HAND, _PAYOFF):
            return "only a hand card or your pay-off top may be loaded"
        if not 0 <= action.seat < g.n or g.team_of[action.seat] == g.team_of[p]:
            return "you may load only an opponent's pay-off pile"
        if not self.payoff[action.seat]:
            return f"seat {action.seat}'s pay-off pile is empty"
        card, top = self._source_card(action.source), self.payoff[action.seat][-1]
        if card == JOKER or top == JOKER or card % 4 != top % 4 or abs(card // 4 - top // 4) != 1:
            return f"{card} is not of the same suit and one rank from {top}"
        return None

    # -- views -------------------------------------------------------------------------

    def _side_view(self, s: int) -> tuple[SpiteAndMaliceCards, ...]:
        """Seat ``s``'s side stacks as views, cached until one of them changes (_sv, and
        each stack in _sc: a discard rebuilds one stack's view, not four)."""
        sv = self._sv
        if sv is None:
            n = self.game.n
            sv = self._sv = [None] * n
            self._sc = [[None] * NUM_SIDE_STACKS for _ in range(n)]
        x = sv[s]
        if x is None:
            sc = self._sc[s]  # type: ignore[index]
            stacks = self.side[s]
            for j in range(NUM_SIDE_STACKS):
                if sc[j] is None:
                    stack = stacks[j]
                    if stack:
                        cards = sc[j] = _CardsTwin()  # SpiteAndMaliceCards(tuple(stack)) (see base.twin_class)
                        cards.cards = tuple(stack)
                        cards.__class__ = SpiteAndMaliceCards
                    else:
                        sc[j] = _EMPTY_CARDS
            x = sv[s] = tuple(sc)
        return x

    def _player(self, s: int) -> SpiteAndMalicePlayer:
        pile = self.payoff[s]
        player = _new(SpiteAndMalicePlayer)
        _set(player, "__dict__", {
            "seat": s,
            "team": self.game.team_of[s],
            "payoff_count": len(pile),
            "payoff_top": pile[-1] if pile else None,
            "payoff_face_up": tuple(pile[self.hidden[s]:]),
            "hand_count": len(self.hands[s]),
            "side_stacks": self._side_view(s),
            "points": self.points[s],
        })
        return player

    def _view(self, seat: int | None, reveal: SpiteAndMaliceReveal | None) -> SpiteAndMaliceView:
        # Built from cached immutable parts (see _pv, _cv, _rv) and without the frozen
        # dataclass's __init__: the same fields and values as SpiteAndMaliceView(...).
        # Every seat's picture is patched here, not in apply: apply stays lean for
        # searches that never look at a view.
        g = self.game
        pv = self._pv
        if pv is None:
            pv = self._pv = [None] * g.n
        # A cached picture is kept unless its hand count or side stacks are stale (see apply).
        hands = self.hands
        sv = self._sv
        for s in range(g.n):
            x = pv[s]
            if x is None:
                pv[s] = self._player(s)
                continue
            side = sv[s] if sv is not None else None
            if side is None:
                side = self._side_view(s)
                sv = self._sv
            d = x.__dict__
            if d["hand_count"] != len(hands[s]) or d["side_stacks"] is not side:
                d = d.copy()
                d["hand_count"] = len(hands[s])
                d["side_stacks"] = side
                x = pv[s] = _new(SpiteAndMalicePlayer)
                _set(x, "__dict__", d)
        cv = self._cv
        if cv is None:
            cv = self._cv = (tuple([_pile_view(p) for p in self.center]), tuple([_pile_view(p) for p in self.completed]))
        rv = self._rv
        if rv is None:
            rv = self._rv = tuple(self.recycled)
        view = _ViewTwin()  # SpiteAndMaliceView(...), field by field (see base.twin_class)
        view.seat = seat
        view.phase = self.phase
        view.current_seat = None if self.phase is _GAME_OVER else self.turn_seat
        view.hand = tuple(sorted(self.hands[seat])) if seat is not None else ()
        view.players = tuple(pv)
        view.center = cv[0]
        view.completed = cv[1]
        view.center_limit = g.view_center_limit
        view.top_rank = g.top_rank
        view.kings_wild = g.view_kings_wild
        view.wild_excluded_ranks = g.view_wild_excluded
        view.stock_count = len(self.stock)
        view.recycled = rv
        view.game_number = self.game_index
        view.turn_number = self.turns_played
        view.turn_moves = tuple(self.turn_moves)
        view.consecutive_passes = self.consecutive_passes
        view.deadlock_reshuffles = self.deadlock_reshuffles
        view.reveal = reveal
        view.__class__ = SpiteAndMaliceView
        return view

    def view(self, seat: int) -> SpiteAndMaliceView:
        if not 0 <= seat < self.game.n:
            raise ValueError(f"no seat {seat}")
        return self._view(seat, None)

    def spectator_view(self) -> SpiteAndMaliceView:
        reveal = None
        if self.phase is _GAME_OVER:
            reveal = SpiteAndMaliceReveal(
                hands=tuple(SpiteAndMaliceCards(tuple(h)) for h in self.hands),
                payoffs=tuple(SpiteAndMaliceCards(tuple(p)) for p in self.payoff),
                stock=tuple(self.stock),
            )
        return self._view(None, reveal)
