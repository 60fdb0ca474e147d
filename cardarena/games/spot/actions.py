"""Spot's constants, its phases, and its actions with their notation (§3.2)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Sequence

from ..base import Action
from ..cards import STANDARD_DECK, Card, format_cards


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


def named_twice(cards: Sequence[Card]) -> Card | None:
    """A card named more than once in ``cards`` (one deck: no two copies exist), or None."""
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            return c
        seen.add(c)
    return None


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
        source = self.source  # a DrawSource; anything else is refused, and named in the refusal
        return f"draw {source.value if source.__class__ is DrawSource else source}"


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


_GAME_OVER, _DRAW, _DROP = Phase.GAME_OVER, Phase.DRAW, Phase.DROP  # cheap aliases (Python 3.11 enums)
_STOCK = DrawSource.STOCK
_CARD_TEXT = tuple(str(c) for c in STANDARD_DECK)
_ONE_CARD = tuple((c,) for c in STANDARD_DECK)  # shared one-card ``cards`` of events
_SEAT_SETS = tuple(frozenset((s,)) for s in range(MAX_PLAYERS))  # one-seat audiences
