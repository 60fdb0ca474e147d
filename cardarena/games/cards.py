"""Playing cards: one compact value type and its notation, shared by every game.

Notation (rules/README.md §2): ``<rank><suit>`` upper case, ten is ``10``, the joker is
``JK``. Input is case-insensitive and accepts ``T`` for ten; output is always canonical.

A card is an ``int`` (``(rank - 1) * 4 + suit``; the joker is 52), so hands can be sorted,
hashed and stored in sets or bitmasks cheaply. Identical cards of a multi-deck game are
the same value; they are told apart only by where they lie.

>>> Card.parse("qs"), str(Card.parse("10H")), Card.parse("JK").is_joker
(Card('QS'), '10H', True)
"""

from __future__ import annotations

import enum
from typing import Iterable


class Suit(enum.IntEnum):
    """Suits in a fixed order; the letter is the notation."""

    S = 0
    H = 1
    D = 2
    C = 3

    @property
    def letter(self) -> str:
        return self.name


RANK_TOKENS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER_TOKEN = "JK"
JOKER_INDEX = 52


class InvalidCardError(ValueError):
    """A card token that is not in the notation of rules/README.md §2."""


class Card(int):
    """One card. ``rank`` is 1 (ace) .. 13 (king), 0 for the joker; ``suit`` is None for it.

    ``Card("QS")`` (or ``Card.parse``) reads the notation, ``str(card)`` writes it. A card is
    an ``int``, its index ``(rank - 1) * 4 + suit`` (suits S H D C = 0..3), and compares
    and sorts as that number: by rank with the ace lowest, then suit. That is not a game's
    own order: in Spades the ace is high (``sdk.spades.power``, A = 14), so ``max(hand)``
    takes a king over an ace, and ``max(hand, key=power)`` is the highest card."""

    __slots__ = ()
    _by_token: dict[str, "Card"] = {}
    _all: list["Card"] = []

    def __new__(cls, value: int | str) -> "Card":
        if isinstance(value, str):
            return cls.parse(value)
        if not 0 <= value <= JOKER_INDEX:
            raise InvalidCardError(f"card index out of range: {value}")
        if cls._all:
            return cls._all[value]
        return super().__new__(cls, value)

    @classmethod
    def of(cls, rank: int, suit: Suit) -> "Card":
        """The card of ``rank`` (1..13) and ``suit``."""
        return cls._all[(rank - 1) * 4 + int(suit)]

    @classmethod
    def parse(cls, token: str, jokers: bool = True) -> "Card":
        """Parse one card token; raises InvalidCardError naming the token as it was given.
        ``jokers=False``: for a game without jokers, whose error offers none (the joker
        still parses: the game says why it is not one of its cards)."""
        card = cls._by_token.get(token.strip().upper())
        if card is None:
            raise InvalidCardError(
                f"unknown card {token!r}: expected rank A,2-10,J,Q,K then suit S,H,D,C (e.g. QS, 10H)"
                + (" or JK" if jokers else "")
            )
        return card

    @property
    def is_joker(self) -> bool:
        return self == JOKER_INDEX

    # rank and suit are read from tables (built below, one entry per card): the bots'
    # heuristics and rollouts ask them millions of times, and ``Suit(i)`` is an enum
    # lookup each time (a quarter of a Spot search's CPU, measured with cProfile).
    @property
    def rank(self) -> int:
        return _RANK_OF[self]

    @property
    def suit(self) -> Suit | None:
        return _SUIT_OF[self]

    def __str__(self) -> str:
        if self == JOKER_INDEX:
            return JOKER_TOKEN
        return RANK_TOKENS[self // 4] + "SHDC"[self % 4]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def __reduce__(self):
        return (Card, (int(self),))


def _build_tables() -> None:
    cards = [int.__new__(Card, i) for i in range(JOKER_INDEX + 1)]
    Card._all.extend(cards)
    for card in cards:
        token = str(card)
        Card._by_token[token] = card
        if token.startswith("10"):
            Card._by_token["T" + token[2:]] = card


_build_tables()

#: Card index -> rank (1 ace .. 13 king, 0 the joker) and suit (None for the joker).
_RANK_OF: tuple[int, ...] = tuple(i // 4 + 1 for i in range(JOKER_INDEX)) + (0,)
_SUIT_OF: tuple[Suit | None, ...] = tuple(Suit(i % 4) for i in range(JOKER_INDEX)) + (None,)

#: The 52 cards of one standard deck, in index order.
STANDARD_DECK: tuple[Card, ...] = tuple(Card._all[:52])
JOKER: Card = Card._all[JOKER_INDEX]


def parse_cards(text: str | Iterable[str], jokers: bool = True) -> tuple[Card, ...]:
    """Parse ``"[7S 7H 7D]"``, ``"7S 7H 7D"`` or a list of tokens (``jokers``: as ``Card.parse``)."""
    if isinstance(text, str):
        text = text.replace("[", " ").replace("]", " ").replace(",", " ").split()
    return tuple(Card.parse(t, jokers) for t in text)


def format_cards(cards: Iterable[Card]) -> str:
    """Cards as space-separated tokens."""
    return " ".join(str(c) for c in cards)
