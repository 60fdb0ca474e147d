"""Spot's options (``arbiter rules spot`` prints them)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

from ..base import option


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
            in sixtieths of a unit: a multiple of 0.05 (2 players), 0.1 (3 or 4), 0.2 (5)
            or 1 (6).
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

    players: int = option(4, min=2, max=6)
    ante: int = option(5, min=0, max=1_000_000)  # (units are doubles on the wire: exact below 2**53)
    unit_per_spot: float = option(1.0, min=0, max=1_000_000)
    pot_carry_over: bool = True
    tie_rule: TieRule = TieRule.SPLIT
    allow_discard_of_taken_card: bool = False
    first_dealer: int | Literal["random"] = "random"
    hands: int | None = option(None, min=1, max=10_000)
    end_pot: EndPot = EndPot.SPLIT_EQUALLY
    max_turns_per_hand: int = option(500, min=1, max=100_000)
    max_extra_hands: int = option(20, min=0, max=10_000)
