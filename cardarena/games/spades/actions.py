"""Spades' constants and card helpers, its phases, and its actions with their notation (§3.1)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Sequence

from ..base import Action
from ..cards import STANDARD_DECK, Card, Suit


# --------------------------------------------------------------------------------------
# Constants

NUM_SEATS = 4
HAND_SIZE = 13
NUM_TRICKS = 13
MAX_BID = 13
EXCHANGE_SIZE = 2
SPADE = int(Suit.S)
SIDE_NAMES = ("A", "B")
SIDES = ((0, 2), (1, 3))


def power(card: int) -> int:
    """Rank for comparison inside a suit: 2..10, J=11, Q=12, K=13, A=14."""
    rank = card // 4 + 1
    return 14 if rank == 1 else rank


#: Sort key of a card in a hand: suit S, H, D, C, then rank high to low.
SORT_KEY: tuple[int, ...] = tuple((c % 4) * 16 + (14 - power(c)) for c in range(52))


def sort_cards(cards) -> list[Card]:
    return sorted(cards, key=SORT_KEY.__getitem__)


def partner(seat: int) -> int:
    return (seat + 2) % NUM_SEATS


def side_of(seat: int) -> int:
    return seat % 2


def trick_winner(plays: Sequence[tuple[int, int]]) -> int:
    """The seat that wins a trick: highest spade, else highest card of the led suit.

    ``plays`` are (seat, card) pairs in play order, the leader's first; from a view,
    ``trick_winner([(p.seat, p.card) for p in view.trick])`` (a trick in progress: the seat
    winning it so far; a completed one of ``view.tricks`` carries its ``winner``)."""
    led = plays[0][1] % 4
    best_seat, best = plays[0]
    for seat, card in plays[1:]:
        suit, best_suit = card % 4, best % 4
        if suit == best_suit:
            if power(card) > power(best):
                best_seat, best = seat, card
        elif suit == SPADE:
            best_seat, best = seat, card
        # any other off-suit card never wins
    assert best % 4 in (led, SPADE)
    return best_seat


# --------------------------------------------------------------------------------------
# Actions (§3.1)


@dataclass(frozen=True)
class Look(Action):
    """Pick up and look at the own hand (only while blind nil is possible)."""

    def __str__(self) -> str:
        return "look"


@dataclass(frozen=True)
class Bid(Action):
    """A bid: ``tricks`` 1..13, or 0 for nil; ``blind`` marks a blind nil (tricks 0)."""

    tricks: int
    blind: bool = False

    def __post_init__(self) -> None:
        if self.blind and self.tricks != 0:
            raise ValueError(f"a blind bid must be nil (tricks 0), got {self.tricks}")
        if self.tricks < 0:
            raise ValueError(f"a bid cannot be negative, got {self.tricks}")

    def __str__(self) -> str:
        if self.blind:
            return "bid blind_nil"
        return "bid nil" if self.tricks == 0 else f"bid {self.tricks}"


@dataclass(frozen=True)
class Give(Action):
    """Hand two cards face down to the partner in a blind-nil exchange (stored sorted)."""

    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sort_cards(Card(int(c)) for c in self.cards)))

    def __str__(self) -> str:
        return "give " + " ".join(map(str, self.cards))


@dataclass(frozen=True)
class Play(Action):
    """Play a card to the current trick."""

    card: Card

    def __str__(self) -> str:
        return f"play {self.card}"


#: A ``give`` as it reads to everyone but the giver and the receiver (Spades.action_text).
PUBLIC_GIVE_TEXT = "give two cards"

_LOOK = Look()
_BLIND_NIL = Bid(0, True)
_BIDS = tuple(Bid(n) for n in range(MAX_BID + 1))  # _BIDS[0] is nil
_PLAYS = tuple(Play(c) for c in STANDARD_DECK)
_BIT = tuple(1 << c for c in range(52))
_CARD_STR = tuple(str(c) for c in STANDARD_DECK)
#: Every give, keyed by its two cards in hand order (hands are kept sorted).
_GIVES = {
    (g.cards[0], g.cards[1]): g
    for g in (Give((a, b)) for i, a in enumerate(STANDARD_DECK) for b in STANDARD_DECK[i + 1 :])
}

#: Every action a Spades state may offer (``Spades.every_action``), the interned objects, in
#: the order ``sdk.encoding`` numbers them: look, nil, the bids 1..13, blind nil, the 52
#: plays, the 1,326 gives (deck order, i < j).
_EVERY_ACTION: tuple[Action, ...] = (_LOOK, *_BIDS, _BLIND_NIL, *_PLAYS, *_GIVES.values())


class Phase(enum.Enum):
    """Where a deal stands (scoring is a forced step, not a phase anyone acts in)."""

    BIDDING = 1
    EXCHANGE = 2
    PLAY = 3
    GAME_OVER = 4


# Module-level aliases of the phases: an Enum member looked up through its class costs a
# descriptor call on every use (Python 3.11), and the hot paths test the phase constantly.
_BIDDING, _EXCHANGE, _PLAY, _GAME_OVER = Phase.BIDDING, Phase.EXCHANGE, Phase.PLAY, Phase.GAME_OVER
