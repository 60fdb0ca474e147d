"""Spot (Irish 8-card rummy): a pure rules engine.

Rules: docs/rules/spot.md (section numbers below refer to it; ``arbiter rules spot``
prints a summary and every option).

Design choices:

* A match is ``hands`` deals (default ``3 × players``); the deal passes to the right
  (``dealer' = dealer − 1``). Each hand's shuffle comes from
  ``random.Random(f"{seed}:deal:{k}")`` (k = 0-based hand index), the first dealer from
  ``random.Random(f"{seed}:first_dealer")``, so the cards of hand k depend only on
  ``(seed, k)``: replaying a seed with the bots rotated gives duplicate deals.
* Money is kept as integers in sixtieths of a unit (§4.2 engine choice); views, events
  and ``Outcome.scores`` show units as floats. ``validate`` rejects a ``unit_per_spot``
  that would make a tied payment inexact in sixtieths.
* Legality has one source: each action type has a ``_why_*`` check returning the reason
  it is illegal (or None), ``legal_actions`` enumerates candidates and keeps those the
  checks accept, and ``apply`` reports the check's reason.
* Melds are stored with their cards sorted by card index, which is rank order for a
  sequence and suit order (S H D C) for a group; a ``Meld`` action sorts its cards too,
  so equal melds compare equal whatever order they were written in.
* Views carry the full ordered discard pile, every meld, and every discard picked up this
  hand (who took which card), but never a card drawn from the stock; at the end of a hand
  the remaining hands and spot totals are published in ``last_hand``. The unused stock is
  published only in the spectator view once the match is over.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import itertools
import math
import random
import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, Sequence

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
from .cards import STANDARD_DECK, Card, InvalidCardError, format_cards, parse_cards

# --------------------------------------------------------------------------------------
# Constants

MIN_PLAYERS = 2
MAX_PLAYERS = 6
HAND_SIZE = 8  # every player gets 8 cards; the first player one extra
MAX_DROP_PER_TURN = 4  # cards laid down (melds + layoffs) per turn
MIN_MELD = 3
MAX_GROUP = 4
ACE, KING = 1, 13
SIXTIETHS = 60  # money is counted in sixtieths of a unit


def card_value(card: Card) -> int:
    """Spots of a card: A = 1, 2..10 face value, J = Q = K = 10."""
    return min(card // 4 + 1, 10)


def spots(cards: Sequence[Card]) -> int:
    """Sum of card values ("spots") of a hand."""
    return sum(min(c // 4 + 1, 10) for c in cards)


# --------------------------------------------------------------------------------------
# Options


class TieRule(enum.Enum):
    """How joint lowest totals are paid at a stock-exhausted end (§4.2)."""

    SPLIT = "split"


class EndPot(enum.Enum):
    """What happens to a non-empty pot after the last hand (§4.3)."""

    SPLIT_EQUALLY = "split_equally"
    PLAY_UNTIL_WON = "play_until_won"


@dataclass(frozen=True)
class SpotOptions:
    """The variant table of §6; field names are the option names.

    Attributes:
        players: the number of players, 2-6.
        ante: units each player pays into the pot before every hand.
        unit_per_spot: units paid per spot left in hand; must keep tied payments exact
            in sixtieths of a unit (any whole number; halves up to 4 players).
        pot_carry_over: whether an unwon pot carries over to the next hand (false: at a
            stock-exhausted end the pot is split among the lowest totals).
        tie_rule: how joint lowest totals are paid at a stock-exhausted end: ``split``
            (they share the payments; the only rule).
        allow_discard_of_taken_card: whether the card just taken from the discard pile
            may be discarded again in the same turn.
        first_dealer: the first dealer: ``random`` (drawn from the seed) or a seat.
        hands: the number of hands in a match (default: 3 x players, so everyone deals
            three times).
        end_pot: what happens to a pot left after the last hand: ``split_equally``
            among all players, or ``play_until_won`` (extra hands until someone goes out).
        max_turns_per_hand: termination guard: a hand ends as "stock exhausted" after
            this many turns.
        max_extra_hands: the most extra hands ``play_until_won`` plays before splitting
            the pot equally.
    """

    players: int = 4
    ante: int = 5
    unit_per_spot: float = 1.0
    pot_carry_over: bool = True
    tie_rule: TieRule = TieRule.SPLIT
    allow_discard_of_taken_card: bool = False
    first_dealer: int | Literal["random"] = "random"
    hands: int | None = None
    end_pot: EndPot = EndPot.SPLIT_EQUALLY
    max_turns_per_hand: int = 500
    max_extra_hands: int = 20


# --------------------------------------------------------------------------------------
# Actions (notation §3.2)


class DrawSource(enum.Enum):
    """Where a draw takes its card from."""

    STOCK = "stock"
    DISCARD = "discard"


@dataclass(frozen=True)
class Draw(Action):
    """``draw stock`` / ``draw discard``."""

    source: DrawSource

    def __str__(self) -> str:
        return f"draw {self.source.value}"


@dataclass(frozen=True)
class Meld(Action):
    """``meld [c1 c2 c3]``: lay down one new group or sequence (cards kept sorted)."""

    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(Card(int(c)) for c in self.cards)))

    def __str__(self) -> str:
        return f"meld [{format_cards(self.cards)}]"


@dataclass(frozen=True)
class LayOff(Action):
    """``layoff <card> -> m<k>``: add one card from hand to meld ``m<k>``."""

    card: Card
    meld: int

    def __str__(self) -> str:
        return f"layoff {self.card} -> m{self.meld}"


@dataclass(frozen=True)
class Discard(Action):
    """``discard <card>``: put a card face up on the discard pile; ends the turn."""

    card: Card

    def __str__(self) -> str:
        return f"discard {self.card}"


DRAW_STOCK = Draw(DrawSource.STOCK)
DRAW_DISCARD = Draw(DrawSource.DISCARD)

# Interned actions: legal-action generation looks them up instead of building frozen
# dataclasses at every decision (they compare equal to freshly built ones).
_DISCARDS = tuple(Discard(c) for c in STANDARD_DECK)
_MELDS: dict[tuple[Card, ...], Meld] = {}
_LAYOFFS: list[tuple[LayOff, ...]] = []


def _layoff(card: int, meld: int) -> LayOff:
    while len(_LAYOFFS) <= meld:
        _LAYOFFS.append(tuple(LayOff(c, len(_LAYOFFS)) for c in STANDARD_DECK))
    return _LAYOFFS[meld][card]

# --------------------------------------------------------------------------------------
# Views


class Phase(enum.Enum):
    """Where the seat to act is in its turn (§3.3)."""

    DRAW = "draw"  # must draw from the stock or the discard pile
    DROP = "drop"  # may meld / lay off, must finally discard
    GAME_OVER = "game_over"


class MeldKind(enum.Enum):
    GROUP = "group"  # 3 or 4 cards of one rank
    SEQUENCE = "sequence"  # 3+ consecutive ranks of one suit, ace low


class HandEnd(enum.Enum):
    """How a hand ended (§4.1)."""

    WENT_OUT = "went_out"
    STOCK_EXHAUSTED = "stock_exhausted"
    TURN_LIMIT = "turn_limit"  # max_turns_per_hand guard; scored as stock exhausted


@dataclass(frozen=True)
class SpotTableMeld:
    """A meld on the table (public).

    Attributes:
        id: the meld's id k, written ``m<k>`` in actions: its creation order in the hand,
            from 0.
        owner: the seat that made it (no effect on scoring or on who may lay off onto it).
        kind: GROUP (3 or 4 cards of one rank) or SEQUENCE (3 or more consecutive cards
            of one suit, ace low).
        cards: its cards: ascending rank for a sequence, suit order S H D C for a group.
    """

    id: int
    owner: int
    kind: MeldKind
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class SpotPickup:
    """A card taken from the discard pile this hand (public: it was face up).

    Attributes:
        seat: the seat that took it.
        card: the card taken.
        turn: the hand's turn number (from 1) in which it was taken.
    """

    seat: int
    card: Card
    turn: int


@dataclass(frozen=True)
class SpotRevealedHand:
    """One seat's cards shown at the end of a hand.

    Attributes:
        seat: the seat.
        cards: its remaining cards, sorted (empty for the seat that went out).
        spots: their spot total (A = 1, 2-10 face value, J = Q = K = 10).
    """

    seat: int
    cards: tuple[Card, ...]
    spots: int


@dataclass(frozen=True)
class SpotHandSummary:
    """The result of a finished hand (public).

    Attributes:
        hand_number: the hand's number in the match, from 1.
        end: how it ended: WENT_OUT, STOCK_EXHAUSTED or TURN_LIMIT (scored as stock
            exhausted).
        went_out: the seat that went out; None if nobody did.
        hands: every seat's remaining cards and spot total, by seat.
        winners: the seats that collected the payments (who went out, or the lowest
            totals).
        net: units won (+) or lost (-) by each seat in this hand, the ante included.
        pot_after: units left in the pot after the hand (carried over).
    """

    hand_number: int
    end: HandEnd
    went_out: int | None
    hands: tuple[SpotRevealedHand, ...]
    winners: tuple[int, ...]
    net: tuple[float, ...]
    pot_after: float


@dataclass(frozen=True)
class SpotView:
    """Everything one seat may see (§5); ``seat`` is None in the spectator view.

    Attributes:
        seat: the seat this view is for; None in the spectator view.
        num_players: the number of players N (2-6).
        phase: where the seat to act is in its turn: DRAW (it must draw first), DROP
            (it may meld and lay off, and must finally discard) or GAME_OVER.
        current_seat: the seat to act; None once the match is over.
        hand_number: the current hand's number, from 1 (extra hands count on).
        hands_in_match: the regular match length in hands (option ``hands``).
        dealer: the current hand's dealer.
        first_player: the current hand's first player (left of the dealer; dealt 9
            cards, no draw on the first turn).
        hand: this seat's own cards, sorted; empty in the spectator view.
        hand_counts: the number of cards each seat holds, by seat.
        stock_count: the number of cards left in the face-down stock.
        discard_pile: the whole face-up discard pile of this hand, bottom first, top
            (the last discard, the one ``draw discard`` takes) last.
        melds: every meld on the table this hand, in id order.
        pickups: every card taken from the discard pile this hand, in order (who took
            which card).
        pot: units in the pot.
        balances: each seat's balance in units (antes paid, payments received), by seat.
        turn_number: turns completed in this hand (a turn ends with a discard).
        first_turn: whether the current turn is the hand's first (no draw).
        dropped: how many cards the seat to act has laid down (melded or laid off)
            this turn; at most 4 per turn.
        new_meld_made: whether the seat to act has already made its one new meld this
            turn (a second ``meld`` is illegal; layoffs still are not).
        taken_discard: the card the seat to act took from the discard pile this turn,
            if any; it may not be discarded again this turn (unless option
            ``allow_discard_of_taken_card``).
        last_hand: the previous finished hand (revealed hands, payments); the last one
            once the match is over; None before the first hand ends.
        game_over: whether the match is over.
        unused_stock: the last hand's unused stock, top first: only in the spectator
            view once the match is over; empty otherwise.
    """

    seat: int | None
    num_players: int
    phase: Phase
    current_seat: int | None
    hand_number: int
    hands_in_match: int
    dealer: int
    first_player: int
    hand: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    stock_count: int
    discard_pile: tuple[Card, ...]
    melds: tuple[SpotTableMeld, ...]
    pickups: tuple[SpotPickup, ...]
    pot: float
    balances: tuple[float, ...]
    turn_number: int
    first_turn: bool
    dropped: int
    new_meld_made: bool
    taken_discard: Card | None
    last_hand: SpotHandSummary | None
    game_over: bool
    unused_stock: tuple[Card, ...] = ()


_GAME_OVER, _DRAW, _DROP = Phase.GAME_OVER, Phase.DRAW, Phase.DROP  # cheap aliases (Python 3.11 enums)
_STOCK = DrawSource.STOCK
_CARD_TEXT = tuple(str(c) for c in STANDARD_DECK)
_ONE_CARD = tuple((c,) for c in STANDARD_DECK)  # shared one-card ``cards`` of events
_SEAT_SETS = tuple(frozenset((s,)) for s in range(MAX_PLAYERS))  # one-seat audiences


_ViewTwin = twin_class(SpotView)


# --------------------------------------------------------------------------------------
# Scoring (pure)


def settle_hand(
    hand_spots: Sequence[int],
    went_out: int | None,
    pot60: int,
    unit60: int,
    pot_carry_over: bool = True,
) -> tuple[list[int], int, tuple[int, ...]]:
    """Payments of one finished hand (§4.2), in sixtieths of a unit.

    Returns ``(delta per seat, pot left, winners)``; deltas exclude the antes.
    ``unit60`` is ``unit_per_spot`` in sixtieths.
    """
    n = len(hand_spots)
    delta = [0] * n
    if went_out is not None:
        w = went_out
        delta[w] += pot60
        for s in range(n):
            if s != w:
                pay = hand_spots[s] * unit60
                delta[s] -= pay
                delta[w] += pay
        return delta, 0, (w,)
    low = min(hand_spots)
    winners = tuple(s for s in range(n) if hand_spots[s] == low)
    for s in range(n):
        if s in winners:
            continue
        pay = hand_spots[s] * unit60
        share, rem = divmod(pay, len(winners))
        assert rem == 0, "payments must be exact in sixtieths"
        delta[s] -= pay
        for w in winners:
            delta[w] += share
    if not pot_carry_over and pot60:
        share, rem = divmod(pot60, len(winners))
        assert rem == 0
        for w in winners:
            delta[w] += share
        pot60 = 0
    return delta, pot60, winners


def meld_kind(cards: Sequence[Card]) -> MeldKind | None:
    """The kind of a valid 3- or 4-card meld, None if the cards are not one (§3.1)."""
    if not MIN_MELD <= len(cards) <= MAX_GROUP or len(set(cards)) != len(cards):
        return None
    ranks = sorted(c // 4 for c in cards)
    if len(set(ranks)) == 1:
        return MeldKind.GROUP
    if len({c % 4 for c in cards}) == 1 and all(b - a == 1 for a, b in zip(ranks, ranks[1:])):
        return MeldKind.SEQUENCE  # ace low: ranks are 0..12, no wrap
    return None


def fits(card: Card, meld: SpotTableMeld) -> bool:
    """Whether ``card`` may be laid off on ``meld`` (§3.1 layoff rules)."""
    if meld.kind is MeldKind.GROUP:
        return len(meld.cards) < MAX_GROUP and card // 4 == meld.cards[0] // 4
    lo, hi = meld.cards[0], meld.cards[-1]
    if card % 4 != lo % 4:
        return False
    r = card // 4
    return (r == lo // 4 - 1 and lo // 4 > 0) or (r == hi // 4 + 1 and hi // 4 < KING - 1)


def candidate_melds(hand: Sequence[Card]) -> list[tuple[Card, ...]]:
    """Every valid 3- or 4-card meld that can be made from ``hand`` (sorted tuples)."""
    return _candidate_melds_sorted(sorted(hand))


def _candidate_melds_sorted(hand: list[Card]) -> list[tuple[Card, ...]]:
    """``candidate_melds`` of a hand already sorted. Most hands hold no meld at all, so
    that case is settled first: no rank held three times and no three in a row."""
    in_hand = set(hand)
    # Sequences: c, c+4, c+8 (and c+12) are the same suit, ranks in a row (cards < 52).
    starts = [c for c in hand if c + 8 in in_hand and c + 4 in in_hand]
    ranks = [c // 4 for c in hand]
    if not starts and len(set(ranks)) > len(ranks) - 2:
        return []
    out: list[tuple[Card, ...]] = []
    by_rank: dict[int, list[Card]] = {}
    for c, r in zip(hand, ranks):
        by_rank.setdefault(r, []).append(c)
    for cards in by_rank.values():
        for size in range(MIN_MELD, min(len(cards), MAX_GROUP) + 1):
            out.extend(itertools.combinations(cards, size))
    deck = STANDARD_DECK
    for c in starts:
        out.append((c, deck[c + 4], deck[c + 8]))
        if c + 12 in in_hand:
            out.append((c, deck[c + 4], deck[c + 8], deck[c + 12]))
    return sorted(set(out))


#: ``meld.cards -> the cards that fit it`` (``fits`` as a table), by kind and cards.
_FITTING: dict[tuple[MeldKind, tuple[Card, ...]], frozenset[Card]] = {}


def _fitting(meld: SpotTableMeld) -> frozenset[Card]:
    """Every card that may be laid off on ``meld`` (``fits``, memoised)."""
    key = (meld.kind, meld.cards)
    out = _FITTING.get(key)
    if out is None:
        out = _FITTING[key] = frozenset(c for c in STANDARD_DECK if fits(c, meld))
    return out


# --------------------------------------------------------------------------------------
# Game


_ACTION_RE = {
    "draw": re.compile(r"^draw\s+(\S+)$", re.IGNORECASE),
    "meld": re.compile(r"^meld\s*\[?([^\]]*)\]?$", re.IGNORECASE),
    "layoff": re.compile(r"^layoff\s+(\S+)\s*->\s*m(\d+)$", re.IGNORECASE),
    "discard": re.compile(r"^discard\s+(\S+)$", re.IGNORECASE),
}


class Spot(Game):
    """Spot for 2–6 players; a match is ``hands`` deals with antes and a pot.

    Every action is public once taken (§5): ``draw stock`` names no card (the drawer
    learns it from its private event), ``draw discard`` takes a face-up card, melds,
    layoffs and discards are face up. So every viewer reads the notation: ``action_text``
    is the default of ``Game``.
    """

    name = "spot"
    rules_summary = """\
Irish 8-card rummy for 2-6 players (default 4), each for themselves, with antes and a pot.
One 52-card deck, no jokers; aces are low (A 2 3 is a sequence, Q K A is not). Card values
("spots"): A = 1, 2-10 face value, J = Q = K = 10.

Each hand: everyone pays the ante into the pot; 8 cards each, the first player (left of the
dealer) one more; the rest is the face-down stock; the deal passes to the right.

A turn: draw the top card of the stock or of the discard pile (not on the hand's first turn),
then lay down at most 4 cards in all: at most one new meld (a group of 3-4 cards of one rank,
or a sequence of 3+ cards of one suit) and layoffs onto any meld on the table; then discard
one card (not the card just taken from the discard pile). No drop may leave you without a
card to discard.

A player who discards their last card goes out: they take the pot and every other player pays
them 1 unit per spot left in hand. If the stock runs out first, the lowest spot total(s)
collect the payments and the pot carries over. A match is 3 x players hands; the player with
the highest balance wins."""
    notation = """\
draw stock           take the top card of the stock (only you see it)
draw discard         take the top card of the discard pile
meld [7S 7H 7D]      lay down a new group or sequence of 3 or 4 cards (one per turn)
layoff 8H -> m2      add a card from your hand to meld m2 (melds are numbered m0, m1, ...)
discard 9C           put a card face up on the discard pile; ends the turn
Cards: rank A 2..10 J Q K then suit S H D C, e.g. QS, 10H, AC."""
    Options = SpotOptions
    action_types = (Draw, Meld, LayOff, Discard)
    view_type = SpotView

    def validate(self) -> None:
        o = self.options
        if not MIN_PLAYERS <= o.players <= MAX_PLAYERS:
            raise ConfigError(f"option 'players': must be 2-6, got {o.players}")
        if o.ante < 0:
            raise ConfigError(f"option 'ante': must be ≥ 0, got {o.ante}")
        if o.unit_per_spot < 0:
            raise ConfigError(f"option 'unit_per_spot': must be ≥ 0, got {o.unit_per_spot}")
        u60 = Fraction(str(o.unit_per_spot)) * SIXTIETHS
        lcm = math.lcm(*range(1, o.players))
        if u60.denominator != 1 or u60.numerator % lcm:
            raise ConfigError(
                f"option 'unit_per_spot': {o.unit_per_spot} would make tied payments inexact in "
                f"sixtieths of a unit; use a multiple of {Fraction(lcm, SIXTIETHS)}"
            )
        if o.first_dealer != "random" and not 0 <= o.first_dealer < o.players:
            raise ConfigError(f"option 'first_dealer': seat {o.first_dealer} not in 0..{o.players - 1}")
        if o.hands is not None and o.hands < 1:
            raise ConfigError(f"option 'hands': must be ≥ 1, got {o.hands}")
        if o.max_turns_per_hand < 1:
            raise ConfigError(f"option 'max_turns_per_hand': must be ≥ 1, got {o.max_turns_per_hand}")
        if o.max_extra_hands < 0:
            raise ConfigError(f"option 'max_extra_hands': must be ≥ 0, got {o.max_extra_hands}")
        self._unit60 = int(u60)

    @property
    def num_seats(self) -> int:
        return self.options.players

    @property
    def num_hands(self) -> int:
        """The regular match length."""
        return self.options.hands if self.options.hands is not None else 3 * self.options.players

    def new_initial_state(self, seed: int) -> "SpotState":
        return SpotState(self, seed)

    def state_from_deal(
        self,
        hands: Sequence[str | Sequence[Card | str]],
        stock: str | Sequence[Card | str],
        *,
        dealer: int,
        discard_pile: str | Sequence[Card | str] = (),
        melds: Sequence[tuple[int, str | Sequence[Card | str]]] = (),
        current: int | None = None,
        first_turn: bool | None = None,
        pot: int | None = None,
        balances60: Sequence[int] | None = None,
        hand_index: int = 0,
        seed: int = 0,
    ) -> "SpotState":
        """Test helper: a hand in progress built from explicit cards.

        Cards may be given as notation strings (``"7S 7H 7D"``). ``stock`` is listed
        top first, ``discard_pile`` bottom first. ``melds`` are ``(owner, cards)`` on the table
        (ids in order). By default the antes of this hand are paid (pot = N·ante) and
        the first player is to act on the first turn when the discard pile is empty,
        else the seat ``current`` must draw. ``hand_index`` is the 0-based number of this
        hand in the match; the later hands are seeded.
        """
        n = self.num_seats
        state = SpotState(self, seed, deal=False)

        def cardify(cs: str | Sequence[Card | str]) -> list[Card]:
            if isinstance(cs, str):
                return list(parse_cards(cs))
            return [c if isinstance(c, Card) else Card.parse(c) for c in cs]

        state._hand_index = hand_index
        state._dealer = dealer
        state._first_player = (dealer + 1) % n
        state._hands = [cardify(h) for h in hands]
        state._stock = list(reversed(cardify(stock)))
        state._discard = cardify(discard_pile)
        state._melds = []
        for owner, cards in melds:
            cs = tuple(sorted(cardify(cards)))
            kind = _table_kind(cs)
            state._melds.append(SpotTableMeld(len(state._melds), owner, kind, cs))
        all_cards = [c for h in state._hands for c in h] + state._stock + state._discard
        all_cards += [c for m in state._melds for c in m.cards]
        if len(all_cards) != len(set(all_cards)):
            raise ValueError("state_from_deal: a card appears twice")
        ante60 = self.options.ante * SIXTIETHS
        state._balances60 = list(balances60) if balances60 is not None else [-ante60] * n
        state._pot60 = pot * SIXTIETHS if pot is not None else ante60 * n
        if first_turn is None:
            first_turn = not state._discard
        state._current = current if current is not None else state._first_player
        state._first_turn = first_turn
        state._phase = Phase.DROP if first_turn else Phase.DRAW
        return state

    def parse_action(self, text: str) -> Action:
        t = " ".join(text.strip().split())  # cards keep the case they were typed in, for the error
        verb = t.split(" ", 1)[0].lower() if t else ""
        pattern = _ACTION_RE.get(verb)
        if pattern is None:
            raise InvalidActionError(
                f"{text!r}: unknown action (expected draw stock|discard, meld [..], layoff <card> -> m<k>, discard <card>)"
            )
        m = pattern.match(t)
        if m is None:
            raise InvalidActionError(f"{text!r}: malformed {verb} (see the notation of rules §3.2)")
        try:
            if verb == "draw":
                try:
                    return Draw(DrawSource(m.group(1).lower()))
                except ValueError:
                    raise InvalidActionError(f"{text!r}: draw from 'stock' or 'discard'") from None
            if verb == "meld":
                cards = parse_cards(m.group(1), jokers=False)
                if not cards:
                    raise InvalidActionError(f"{text!r}: a meld names its cards, e.g. meld [7S 7H 7D]")
                return Meld(cards)
            if verb == "layoff":
                return LayOff(Card.parse(m.group(1), jokers=False), int(m.group(2)))
            return Discard(Card.parse(m.group(1), jokers=False))
        except InvalidCardError as exc:
            raise InvalidActionError(f"{text!r}: {exc}") from None

    # -- forward model (sdk.forward): a state from a view plus sampled hidden cards -----

    def state_from_view(
        self, view: "SpotView", hands: Sequence[Sequence[Card]], stock: Sequence[Card], seed: int
    ) -> "SpotState":
        """A state that shows ``view`` to ``view.seat``, with ``hands`` (per seat) and the
        ``stock`` (top first) filled in by the caller; later hands are dealt from ``seed``.

        For the SDK's forward model: the public facts (discard pile, melds, pickups, money,
        the turn in progress) come from the view only. The caller guarantees the cards
        are consistent with it; ``state_from_deal`` rejects a card given twice.
        """
        if view.game_over:
            raise ValueError("state_from_view: the match is over")
        sixty = lambda x: round(x * SIXTIETHS)  # noqa: E731 - view money is in units
        st = self.state_from_deal(
            [list(h) for h in hands], list(stock), dealer=view.dealer, discard_pile=list(view.discard_pile),
            melds=[(m.owner, m.cards) for m in view.melds], current=view.current_seat,
            first_turn=view.first_turn, balances60=[sixty(b) for b in view.balances],
            hand_index=view.hand_number - 1, seed=seed,
        )
        st._pot60 = sixty(view.pot)
        st._melds = list(view.melds)
        st._first_player = view.first_player
        st._phase = view.phase
        st._pickups = list(view.pickups)
        st._turns = view.turn_number
        st._dropped = view.dropped
        st._new_meld = view.new_meld_made
        st._taken = view.taken_discard
        st._extra_hands = max(0, view.hand_number - view.hands_in_match)
        st._last_hand = view.last_hand
        return st


def _table_kind(cards: Sequence[Card]) -> MeldKind:
    """The kind of a table meld of any length (sequences may exceed 4 cards)."""
    if len({c // 4 for c in cards}) == 1:
        return MeldKind.GROUP
    return MeldKind.SEQUENCE


# --------------------------------------------------------------------------------------
# State


class SpotState(State):
    """A Spot match in progress: the current hand plus the money ledger."""

    def __init__(self, game: Spot, seed: int, deal: bool = True):
        """Only ``Spot.new_initial_state`` / ``state_from_deal`` should call this."""
        self.game = game
        self._o: SpotOptions = game.options
        self._n = game.num_seats
        self._seed = seed
        self._hand_index = 0
        self._extra_hands = 0
        n = self._n
        if self._o.first_dealer == "random":
            self._dealer = random.Random(f"{seed}:first_dealer").randrange(n)
        else:
            self._dealer = int(self._o.first_dealer)
        self._first_player = (self._dealer + 1) % n
        self._balances60 = [0] * n
        self._pot60 = 0
        self._hands: list[list[Card]] = [[] for _ in range(n)]
        self._stock: list[Card] = []  # top is the last element
        self._discard: list[Card] = []  # top is the last element
        self._melds: list[SpotTableMeld] = []
        self._pickups: list[SpotPickup] = []
        self._current: int | None = self._first_player
        self._phase = Phase.DROP
        self._first_turn = True
        self._turns = 0
        self._dropped = 0
        self._new_meld = False
        self._taken: Card | None = None
        self._last_hand: SpotHandSummary | None = None
        self._outcome: Outcome | None = None
        self._log: list[Event] = []
        self._hands_in_match = game.num_hands
        # View parts cached until their source changes (reset where it is changed): the
        # discard pile as a tuple, and (pot, balances) in units.
        self._v_discard: tuple[Card, ...] | None = None
        self._v_money: tuple[float, tuple[float, ...]] | None = None
        if deal:
            self._log.extend(self._start_hand())

    # -- generic surface ------------------------------------------------------------

    @property
    def current_seat(self) -> int | None:
        return None if self._phase is _GAME_OVER else self._current

    @property
    def is_terminal(self) -> bool:
        return self._phase is _GAME_OVER

    @property
    def log(self) -> list[Event]:
        return self._log

    def outcome(self) -> Outcome:
        if self._outcome is None:
            raise IllegalActionError("the match is not over")
        return self._outcome

    def clone(self) -> "SpotState":
        new = copy.copy(self)
        new._hands = [list(h) for h in self._hands]
        new._stock = list(self._stock)
        new._discard = list(self._discard)
        new._melds = list(self._melds)
        new._pickups = list(self._pickups)
        new._balances60 = list(self._balances60)
        new._log = list(self._log)
        return new

    #: The legal actions of the current position, once computed; reset by ``apply``.
    _legal: list[Action] | None = None

    def legal_actions(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            if self._phase is _DRAW:
                legal = self._draw_legal_actions()
            elif self._phase is _DROP:
                legal = self._drop_legal_actions()
            else:
                return []
            self._legal = legal
        return legal.copy()

    def apply(self, action: Action) -> list[Event]:
        if self._phase is _GAME_OVER:
            raise IllegalActionError(f"{action}: the match is over")
        # One of the listed legal actions itself (identity: the dataclass __eq__ is slow)
        # passes the _why_* checks by construction; anything else is checked.
        legal = self._legal
        if legal is not None:
            for a in legal:
                if a is action:
                    break
            else:
                legal = None
        if legal is None:
            reason = self._why_illegal(action)
            if reason is not None:
                raise IllegalActionError(f"{action}: {reason}")
        self._legal = None
        cls = action.__class__
        if cls is Discard:
            events = self._apply_discard(action)
        elif cls is Draw:
            events = self._apply_draw(action)
        elif cls is Meld:
            events = self._apply_meld(action)
        elif cls is LayOff:
            events = self._apply_layoff(action)
        # Accepted by the checks, so an instance of an action type: a subclass of one.
        elif isinstance(action, Draw):
            events = self._apply_draw(action)
        elif isinstance(action, Meld):
            events = self._apply_meld(action)
        elif isinstance(action, LayOff):
            events = self._apply_layoff(action)
        else:
            events = self._apply_discard(action)
        self._log.extend(events)
        return events

    # -- legality ---------------------------------------------------------------------

    def _why_illegal(self, action: Action) -> str | None:
        if isinstance(action, Draw):
            return self._why_draw(action)
        if isinstance(action, Meld):
            return self._why_meld(action.cards)
        if isinstance(action, LayOff):
            return self._why_layoff(action.card, action.meld)
        if isinstance(action, Discard):
            return self._why_discard(action.card)
        return "not a Spot action"

    def _why_draw(self, action: Draw) -> str | None:
        if self._phase is not Phase.DRAW:
            if self._first_turn:
                return "no draw on the first turn of a hand"
            return "already drew this turn"
        if action.source is DrawSource.STOCK and not self._stock:
            return "the stock is empty"
        if action.source is DrawSource.DISCARD and not self._discard:
            return "the discard pile is empty"
        return None

    def _keeps_discardable(self, removed: Sequence[Card]) -> bool:
        """Whether the hand keeps a card that may legally be discarded (§7.4)."""
        rest = [c for c in self._hands[self._current] if c not in removed]
        if self._o.allow_discard_of_taken_card or self._taken is None:
            return bool(rest)
        return any(c != self._taken for c in rest)

    def _why_meld(self, cards: tuple[Card, ...]) -> str | None:
        if self._phase is not Phase.DROP:
            return "draw first"
        hand = self._hands[self._current]
        if any(c not in hand for c in cards) or len(set(cards)) != len(cards):
            return "those cards are not all in your hand"
        if len(cards) < MIN_MELD:
            return "a meld has at least 3 cards"
        if self._new_meld:
            return "only one new meld per turn"
        if self._dropped + len(cards) > MAX_DROP_PER_TURN:
            return f"at most {MAX_DROP_PER_TURN} cards may be dropped per turn ({self._dropped} already)"
        if meld_kind(cards) is None:
            return "not a group (3-4 of a rank) nor a sequence (3+ of a suit in a row, ace low)"
        if not self._keeps_discardable(cards):
            return "you must keep a card you may discard"
        return None

    def _why_layoff(self, card: Card, meld_id: int) -> str | None:
        if self._phase is not Phase.DROP:
            return "draw first"
        if card not in self._hands[self._current]:
            return f"{card} is not in your hand"
        if not 0 <= meld_id < len(self._melds):
            return f"there is no meld m{meld_id}"
        if self._dropped + 1 > MAX_DROP_PER_TURN:
            return f"at most {MAX_DROP_PER_TURN} cards may be dropped per turn"
        if not fits(card, self._melds[meld_id]):
            return f"{card} does not fit m{meld_id}"
        if not self._keeps_discardable((card,)):
            return "you must keep a card you may discard"
        return None

    def _why_discard(self, card: Card) -> str | None:
        if self._phase is not Phase.DROP:
            return "draw first"
        if card not in self._hands[self._current]:
            return f"{card} is not in your hand"
        if card == self._taken and not self._o.allow_discard_of_taken_card:
            return "you may not discard the card you just took from the discard pile"
        return None

    # -- DRAW phase -------------------------------------------------------------------

    def _draw_legal_actions(self) -> list[Action]:
        # The draws _why_draw accepts in the DRAW phase: from a non-empty pile.
        out: list[Action] = []
        if self._stock:
            out.append(DRAW_STOCK)
        if self._discard:
            out.append(DRAW_DISCARD)
        return out

    def _apply_draw(self, action: Draw) -> list[Event]:
        p = self._current
        self._phase = _DROP
        if action.source is _STOCK:
            card = self._stock.pop()
            self._hands[p].append(card)
            # The card is seen by the drawer only.
            return [
                new_event("draw", p, f"seat {p} draws from the stock ({len(self._stock)} left)"),
                new_event("draw", p, f"seat {p} draws {_CARD_TEXT[card]} from the stock", _ONE_CARD[card], _SEAT_SETS[p]),
            ]
        card = self._discard.pop()
        self._v_discard = None
        self._hands[p].append(card)
        self._taken = card
        self._pickups.append(SpotPickup(p, card, self._turns + 1))
        return [new_event("draw", p, f"seat {p} draws {_CARD_TEXT[card]} from the discard pile", _ONE_CARD[card])]

    # -- DROP phase -------------------------------------------------------------------

    def _drop_legal_actions(self) -> list[Action]:
        # The candidates that the _why_* checks accept, with the checks that hold by
        # construction (cards in hand, a valid meld, the phase) left out; interned actions.
        hand = sorted(self._hands[self._current])
        out: list[Action] = []
        taken = self._taken
        free = self._o.allow_discard_of_taken_card or taken is None
        # _keeps_discardable: the hand keeps a card that may be discarded.
        others = len(hand) - (0 if free or taken not in hand else 1)  # discardable cards

        def keeps(removed: Sequence[Card]) -> bool:
            if free:
                return len(hand) > len(removed)
            return others - sum(1 for c in removed if c != taken) > 0

        dropped = self._dropped
        if not self._new_meld and dropped + MIN_MELD <= MAX_DROP_PER_TURN:
            for m in _candidate_melds_sorted(hand):
                if dropped + len(m) <= MAX_DROP_PER_TURN and keeps(m):
                    meld = _MELDS.get(m)
                    if meld is None:
                        meld = _MELDS[m] = Meld(m)
                    out.append(meld)
        if dropped < MAX_DROP_PER_TURN and self._melds:
            for mid, meld in enumerate(self._melds):
                fitting = _fitting(meld)
                for c in hand:
                    if c in fitting and keeps((c,)):
                        out.append(_layoff(c, mid))
        if free:
            out.extend([_DISCARDS[c] for c in hand])
        else:
            out.extend([_DISCARDS[c] for c in hand if c != taken])
        return out

    def _remove(self, cards: Sequence[Card]) -> None:
        hand = self._hands[self._current]
        for c in cards:
            hand.remove(c)

    def _apply_meld(self, action: Meld) -> list[Event]:
        p = self._current
        self._remove(action.cards)
        mid = len(self._melds)
        self._melds.append(SpotTableMeld(mid, p, meld_kind(action.cards), action.cards))
        self._dropped += len(action.cards)
        self._new_meld = True
        return [Event("meld", p, f"seat {p} melds m{mid} [{format_cards(action.cards)}]", action.cards)]

    def _apply_layoff(self, action: LayOff) -> list[Event]:
        p = self._current
        self._remove((action.card,))
        m = self._melds[action.meld]
        self._melds[action.meld] = dataclasses.replace(m, cards=tuple(sorted(m.cards + (action.card,))))
        self._dropped += 1
        return [Event("layoff", p, f"seat {p} lays off {action.card} -> m{action.meld}", (action.card,))]

    def _apply_discard(self, action: Discard) -> list[Event]:
        p = self._current
        card = action.card
        self._hands[p].remove(card)
        self._discard.append(card)
        self._v_discard = None
        self._turns += 1
        self._first_turn = False
        events = [new_event("discard", p, f"seat {p} discards {_CARD_TEXT[card]}", _ONE_CARD[card])]
        # END_TURN (§3.3)
        if not self._hands[p]:
            events.extend(self._end_hand(HandEnd.WENT_OUT, p))
        elif not self._stock:
            events.extend(self._end_hand(HandEnd.STOCK_EXHAUSTED, None))
        elif self._turns >= self._o.max_turns_per_hand:
            events.extend(self._end_hand(HandEnd.TURN_LIMIT, None))
        else:
            self._current = (p + 1) % self._n
            self._phase = _DRAW
            self._dropped = 0
            self._new_meld = False
            self._taken = None
        return events

    # -- forced events: deal, hand end, match end ----------------------------------------

    def _start_hand(self) -> list[Event]:
        """HAND_START (§2.2): antes, shuffle, deal; the first player acts without drawing."""
        n, o = self._n, self._o
        ante60 = o.ante * SIXTIETHS
        for s in range(n):
            self._balances60[s] -= ante60
        self._pot60 += ante60 * n
        self._v_discard = self._v_money = None
        deck = list(STANDARD_DECK)
        random.Random(f"{self._seed}:deal:{self._hand_index}").shuffle(deck)
        d = self._dealer
        fp = (d + 1) % n
        self._first_player = fp
        self._hands = [[] for _ in range(n)]
        for i in range(HAND_SIZE * n):
            self._hands[(fp + i) % n].append(deck[i])
        self._hands[fp].append(deck[HAND_SIZE * n])
        self._stock = list(reversed(deck[HAND_SIZE * n + 1 :]))
        self._discard = []
        self._melds = []
        self._pickups = []
        self._current = fp
        self._phase = Phase.DROP
        self._first_turn = True
        self._turns = 0
        self._dropped = 0
        self._new_meld = False
        self._taken = None
        hn = self._hand_index + 1
        events = [
            Event(
                "hand_start",
                None,
                f"hand {hn}: dealer seat {d}, first player seat {fp}; antes {o.ante} each, pot {self._pot60 / SIXTIETHS:g}",
            ),
            Event("deal", None, f"dealt {HAND_SIZE} cards each, {HAND_SIZE + 1} to seat {fp}; stock {len(self._stock)}"),
        ]
        for s in range(n):
            cards = tuple(sorted(self._hands[s]))
            events.append(Event("deal", s, f"seat {s} is dealt {format_cards(cards)}", cards, frozenset((s,))))
        return events

    def _end_hand(self, end: HandEnd, went_out: int | None) -> list[Event]:
        """HAND_END (§4.1-4.2): reveal, pay, then the next hand or the end of the match."""
        n, o = self._n, self._o
        hand_spots = [spots(h) for h in self._hands]
        delta, pot_after, winners = settle_hand(
            hand_spots, went_out, self._pot60, self.game._unit60, o.pot_carry_over
        )
        ante60 = o.ante * SIXTIETHS
        for s in range(n):
            self._balances60[s] += delta[s]
        self._pot60 = pot_after
        self._v_money = None
        revealed = tuple(SpotRevealedHand(s, tuple(sorted(self._hands[s])), hand_spots[s]) for s in range(n))
        self._last_hand = SpotHandSummary(
            hand_number=self._hand_index + 1,
            end=end,
            went_out=went_out,
            hands=revealed,
            winners=winners,
            net=tuple((delta[s] - ante60) / SIXTIETHS for s in range(n)),
            pot_after=pot_after / SIXTIETHS,
        )
        events = [Event("reveal", r.seat, f"seat {r.seat} shows {format_cards(r.cards)} ({r.spots} spots)", r.cards) for r in revealed]
        how = f"seat {went_out} went out" if went_out is not None else (
            "stock exhausted" if end is HandEnd.STOCK_EXHAUSTED else "turn limit reached (scored as stock exhausted)"
        )
        moves = ", ".join(f"seat {s} {delta[s] / SIXTIETHS:+g}" for s in range(n))
        events.append(
            Event("score", None, f"hand {self._hand_index + 1}: {how}; winners {list(winners)}; {moves}; pot {pot_after / SIXTIETHS:g}")
        )
        # Next hand, or the end of the match (§4.3).
        played = self._hand_index + 1
        regular = self.game.num_hands
        more = played < regular
        guard_hit = False
        if not more and self._pot60 > 0 and o.end_pot is EndPot.PLAY_UNTIL_WON:
            if self._extra_hands < o.max_extra_hands:
                more = True
                self._extra_hands += 1
            else:
                guard_hit = True
        if more:
            self._hand_index += 1
            self._dealer = (self._dealer - 1) % n  # the deal passes to the right
            events.extend(self._start_hand())
            return events
        if self._pot60:
            share = self._pot60 // n
            for s in range(n):
                self._balances60[s] += share
            self._v_money = None
            events.append(Event("pot", None, f"the pot of {self._pot60 / SIXTIETHS:g} is split equally: {share / SIXTIETHS:g} each"))
            self._pot60 = 0
        self._phase = Phase.GAME_OVER
        self._current = None
        scores = tuple(b / SIXTIETHS for b in self._balances60)
        ranks = ranks_from_scores(self._balances60)
        reason = EndReason.TURN_LIMIT if guard_hit else EndReason.COMPLETED
        detail = f"{played} hand{'' if played == 1 else 's'}" + (" (max_extra_hands reached; pot split equally)" if guard_hit else "")
        self._outcome = Outcome(scores, ranks, reason, detail)
        events.append(
            Event("game_over", None, "match over: " + ", ".join(f"seat {s} {scores[s]:+g}" for s in range(n)))
        )
        return events

    def all_cards(self) -> Counter:
        """The 52 cards of the current hand: hands, stock, discard pile and melds (for
        conservation checks)."""
        out = Counter(c for h in self._hands for c in h)
        out.update(self._stock)
        out.update(self._discard)
        out.update(c for m in self._melds for c in m.cards)
        return out

    # -- views --------------------------------------------------------------------------

    def view(self, seat: int) -> SpotView:
        if not 0 <= seat < self._n:
            raise ValueError(f"no seat {seat}")
        return self._make_view(seat, tuple(sorted(self._hands[seat])))

    def spectator_view(self) -> SpotView:
        over = self._phase is Phase.GAME_OVER
        return self._make_view(None, (), tuple(reversed(self._stock)) if over else ())

    def _make_view(self, seat: int | None, hand: tuple[Card, ...], unused_stock: tuple[Card, ...] = ()) -> SpotView:
        over = self._phase is _GAME_OVER
        discard = self._v_discard
        if discard is None:
            discard = self._v_discard = tuple(self._discard)
        money = self._v_money
        if money is None:
            money = self._v_money = (self._pot60 / SIXTIETHS, tuple([b / SIXTIETHS for b in self._balances60]))
        # Built without the frozen dataclass's __init__, field by field (see base.twin_class): the
        # same fields, in field order, and the same values as SpotView(...).
        view = _ViewTwin()
        view.seat = seat
        view.num_players = self._n
        view.phase = self._phase
        view.current_seat = None if over else self._current
        view.hand_number = self._hand_index + 1
        view.hands_in_match = self._hands_in_match
        view.dealer = self._dealer
        view.first_player = self._first_player
        view.hand = hand
        view.hand_counts = tuple(map(len, self._hands))
        view.stock_count = len(self._stock)
        view.discard_pile = discard
        view.melds = tuple(self._melds)
        view.pickups = tuple(self._pickups)
        view.pot = money[0]
        view.balances = money[1]
        view.turn_number = self._turns
        view.first_turn = self._first_turn and not over
        view.dropped = self._dropped
        view.new_meld_made = self._new_meld
        view.taken_discard = self._taken
        view.last_hand = self._last_hand
        view.game_over = over
        view.unused_stock = unused_stock
        view.__class__ = SpotView
        return view
