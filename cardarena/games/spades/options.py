"""Spades' options: the variant table of §7 (``arbiter rules spades`` prints it)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

from ..base import option
from .scoring import FailedNilTricks, SimultaneousTargetRule


# --------------------------------------------------------------------------------------
# Options (§7)


class ExchangeOrder(enum.Enum):
    """Who gives first in a blind-nil exchange."""

    PARTNER_FIRST = "partner_first"
    BIDDER_FIRST = "bidder_first"


#: Deals of a match at most (deals, max_deals): past any match played; a typo of a few
#: zeros played on without end. (Each game's counts are bounded alike: spot's hands, spite
#: and malice's turns and decks.)
MAX_DEALS = 10_000
#: The most a target, a deficit or a losing score may be, and a bonus, penalty or bag limit:
#: every score a view carries is a 32-bit integer on the wire, and a value past these (a typo,
#: ``target=99999999999999999999999``) broke the message to the bots mid-match (a seat
#: forfeited as disconnected) where it is now refused by name. At these maxima no score
#: of MAX_DEALS deals leaves the 32-bit range: a side's deal moves it by at most 26 x 10 for
#: its contract (two bids of 13, set), 2 x MAX_BONUS for its nils and 13 x MAX_BONUS in bag
#: penalties (about 150,000: 1.5e9 over MAX_DEALS deals, inside 2**31).
MAX_POINTS = 1_000_000
MAX_BONUS = 10_000


@dataclass(frozen=True)
class SpadesOptions:
    """The variant table of §7 plus the engine option ``deals``.

    Attributes:
        target: the score a side must reach to win (§4.2).
        nil: whether ``bid nil`` (zero tricks, for +/- ``nil_value``) is allowed.
        nil_value: the bonus for a made nil and the penalty for a failed one.
        blind_nil: whether ``bid blind_nil`` (before looking at the hand) is allowed,
            with its two-card exchange between partners.
        blind_nil_value: the bonus for a made blind nil and the penalty for a failed one.
        blind_nil_min_deficit: blind nil only for a side trailing by at least this many
            points at the start of the deal (0: always).
        blind_nil_exchange: whether a blind-nil bidder and its partner exchange two cards.
        blind_nil_exchange_order: who gives first in the exchange: ``partner_first`` or
            ``bidder_first``.
        failed_nil_tricks: what tricks taken by a nil bidder count for: ``bags`` (+1 point
            and +1 bag each), ``ignored``, or ``count_for_partner`` (towards the contract).
        bag_penalty: whether accumulated overtricks (bags) cost points.
        bag_limit: bags per penalty.
        bag_penalty_points: points deducted per ``bag_limit`` bags.
        simultaneous_target_rule: who wins when both sides reach the target in one deal:
            ``higher_total`` or ``higher_deal_score``.
        lose_at: a side at or below this score after a deal loses (off: no such rule).
        first_dealer: the first dealer: ``random`` (drawn from the seed) or a seat 0-3.
        max_deals: termination guard: after this many deals the higher total wins
            (equal totals: a draw).
        deals: play exactly this many deals, then rank by total, ignoring ``target``,
            ``lose_at`` and ``max_deals`` (off: play to the target; for short duplicate
            matches).
    """

    target: int = option(500, min=1, max=MAX_POINTS)
    nil: bool = True
    nil_value: int = option(100, min=0, max=MAX_BONUS)
    blind_nil: bool = True
    blind_nil_value: int = option(200, min=0, max=MAX_BONUS)
    blind_nil_min_deficit: int = option(0, min=0, max=MAX_POINTS)
    blind_nil_exchange: bool = True
    blind_nil_exchange_order: ExchangeOrder = ExchangeOrder.PARTNER_FIRST
    failed_nil_tricks: FailedNilTricks = FailedNilTricks.BAGS
    bag_penalty: bool = True
    bag_limit: int = option(10, min=1, max=MAX_BONUS)
    bag_penalty_points: int = option(100, min=0, max=MAX_BONUS)
    simultaneous_target_rule: SimultaneousTargetRule = SimultaneousTargetRule.HIGHER_TOTAL
    lose_at: int | None = option(None, min=-MAX_POINTS, max=MAX_POINTS)
    first_dealer: Literal["random"] | int = "random"
    max_deals: int = option(200, min=1, max=MAX_DEALS)
    deals: int | None = option(None, min=1, max=MAX_DEALS)
