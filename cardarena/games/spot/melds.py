"""Spot's melds (§3.1): what a meld is, which cards fit one, the melds a hand holds."""

from __future__ import annotations

import itertools
from typing import Sequence

from ..cards import STANDARD_DECK, Card
from .actions import KING, MAX_GROUP, MIN_MELD, MeldKind
from .views import SpotTableMeld


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


def fitting_cards(meld: SpotTableMeld) -> frozenset[Card]:
    """Every card that may be laid off on ``meld`` (``fits`` over the deck, memoised)."""
    key = (meld.kind, meld.cards)
    out = _FITTING.get(key)
    if out is None:
        out = _FITTING[key] = frozenset(c for c in STANDARD_DECK if fits(c, meld))
    return out


def _table_kind(cards: Sequence[Card]) -> MeldKind:
    """The kind of a table meld of any length (sequences may exceed 4 cards)."""
    if len({c // 4 for c in cards}) == 1:
        return MeldKind.GROUP
    return MeldKind.SEQUENCE
