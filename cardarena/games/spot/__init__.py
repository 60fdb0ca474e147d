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

from .actions import (
    card_value, Discard, Draw, DRAW_DISCARD, DRAW_STOCK, DrawSource, HAND_SIZE, HandEnd, LayOff,
    MAX_DROP_PER_TURN, MAX_GROUP, MAX_PLAYERS, Meld, MeldKind, MIN_MELD, MIN_PLAYERS, Phase,
    SIXTIETHS, spots,
)
from .options import EndPot, SpotOptions, TieRule
from .views import SpotHandSummary, SpotLayoff, SpotPickup, SpotRevealedHand, SpotTableMeld, SpotView
from .melds import candidate_melds, fits, fitting_cards, meld_kind
from .scoring import settle_hand
from .state import SpotState
from .game import Spot

__all__ = [
    "DRAW_DISCARD", "DRAW_STOCK", "Discard", "Draw", "DrawSource", "EndPot", "HAND_SIZE", "HandEnd",
    "LayOff", "MAX_DROP_PER_TURN", "MAX_GROUP", "MAX_PLAYERS", "MIN_MELD", "MIN_PLAYERS", "Meld",
    "MeldKind", "Phase", "SIXTIETHS", "Spot", "SpotHandSummary", "SpotLayoff", "SpotOptions", "SpotPickup",
    "SpotRevealedHand", "SpotState", "SpotTableMeld", "SpotView", "TieRule", "candidate_melds",
    "card_value", "fits", "fitting_cards", "meld_kind", "settle_hand", "spots",
]
