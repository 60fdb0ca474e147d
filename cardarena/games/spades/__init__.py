"""Spades: four players in two fixed partnerships, spades always trump.

Rules: docs/rules/spades.md (sections cited as §n; ``arbiter rules spades`` prints a
summary and every option). Scoring lives in the pure module ``spades_scoring``.

Design choices:

* Seats 0 and 2 are side 0 ("A"), seats 1 and 3 side 1 ("B"); ``side(s) = s % 2``.
* Deal ``k`` (1-based) is shuffled by ``random.Random(f"{seed}:deal:{k}")`` and the first
  dealer drawn from ``random.Random(f"{seed}:first_dealer")``; nothing else is random, so
  a seed gives the same hands deal by deal whatever is played (duplicate deals).
* Blind nil is "possible" for a seat in a deal when option ``blind_nil`` is on and its
  side trails by at least ``blind_nil_min_deficit`` at the start of the deal (always,
  with the default 0). Only such a seat starts the deal without seeing its hand; every
  other seat is treated as having looked from the deal on (§3.2: it is offered no
  ``look``). A seat that has not looked sees none of its cards until ``look``, its own
  exchange turn, or the start of play (§6), in its view and in its events alike.
* The exchange (§3.3) is a list of ``give`` steps decided when bidding ends; each giver
  sees its hand when its step comes. Sides exchange in the order their blind-nil bidders
  bid; partners who both bid blind nil do not exchange.
* Option ``deals`` (engine extension for duplicate play): the game ends after exactly
  that many deals, ranked by total (equal totals: a draw), ignoring ``target``,
  ``lose_at`` and ``max_deals``. Otherwise ``max_deals`` is the guard of §4.2.
* Hands in views are sorted by suit (S, H, D, C) then rank high to low; ``Give`` stores
  its two cards in that order, so equal gives compare equal.
* Completed tricks of the current deal are in every view (public history, §6), and one
  result line per finished deal. Once the game is over every view also carries the full
  record of each deal (hands as dealt, exchanged cards).
"""

from __future__ import annotations

from .scoring import (
    FailedNilTricks, game_result, score_side, ScoringRules, SideDealScore, SimultaneousTargetRule,
)
from .actions import (
    Bid, EXCHANGE_SIZE, Give, HAND_SIZE, Look, MAX_BID, NUM_SEATS, NUM_TRICKS, partner, Phase, Play,
    power, PUBLIC_GIVE_TEXT, SIDE_NAMES, side_of, SIDES, sort_cards, SORT_KEY, SPADE, trick_winner,
)
from .options import ExchangeOrder, SpadesOptions
from .views import (
    SpadesDealRecord, SpadesDealResult, SpadesExchange, SpadesHand, SpadesPlayedCard, SpadesSeat,
    SpadesSide, SpadesSideResult, SpadesTrick, SpadesView,
)
from .state import SpadesState
from .game import Spades

__all__ = [
    "Bid", "EXCHANGE_SIZE", "ExchangeOrder", "FailedNilTricks", "Give", "HAND_SIZE", "Look",
    "MAX_BID", "NUM_SEATS", "NUM_TRICKS", "PUBLIC_GIVE_TEXT", "Phase", "Play", "SIDES",
    "SIDE_NAMES", "SORT_KEY", "SPADE", "ScoringRules", "SideDealScore", "SimultaneousTargetRule",
    "Spades", "SpadesDealRecord", "SpadesDealResult", "SpadesExchange", "SpadesHand",
    "SpadesOptions", "SpadesPlayedCard", "SpadesSeat", "SpadesSide", "SpadesSideResult",
    "SpadesState", "SpadesTrick", "SpadesView", "game_result", "partner", "power", "score_side",
    "side_of", "sort_cards", "trick_winner",
]
