"""Spades scoring as pure functions (rules: docs/rules/spades.md §4-5).

Modelled on OpenSpiel's ``spades_scoring.h``: one function computes a side's deal
points, bags and new totals from the bids, the tricks taken and the previous totals,
with no state machine around it, so every worked example of the rules is a one-line
unit test. ``game_result`` applies the end-of-game rules of §4.2 to the totals.

Design choices (the rules leave them open):

* With ``failed_nil_tricks = count_for_partner`` and no contract on the side (both
  partners bid nil), there is no contract to count the tricks towards; they are scored
  as overtricks (bags), i.e. like the default.
* The "deal score" compared by ``simultaneous_target_rule = higher_deal_score`` is the
  side's net change of total in that deal (bag penalties included); equal deal scores
  fall back to the higher total, and equal totals play on.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Sequence


class FailedNilTricks(enum.Enum):
    """What tricks taken by a nil / blind-nil bidder count for (option ``failed_nil_tricks``)."""

    BAGS = "bags"  # +1 point and +1 bag each
    IGNORED = "ignored"  # nothing
    COUNT_FOR_PARTNER = "count_for_partner"  # added to the partner's contract tricks


class SimultaneousTargetRule(enum.Enum):
    """Who wins when both sides reach the target in the same deal."""

    HIGHER_TOTAL = "higher_total"
    HIGHER_DEAL_SCORE = "higher_deal_score"


@dataclass(frozen=True)
class ScoringRules:
    """The scoring options of §7 (defaults = the standard rules)."""

    nil_value: int = 100
    blind_nil_value: int = 200
    failed_nil_tricks: FailedNilTricks = FailedNilTricks.BAGS
    bag_penalty: bool = True
    bag_limit: int = 10
    bag_penalty_points: int = 100


@dataclass(frozen=True)
class SideDealScore:
    """One side's result for one deal."""

    contract: int  # C: sum of the number bids (0 if both partners bid nil)
    contract_tricks: int  # T: tricks counted towards the contract
    nil_tricks: int  # N: tricks taken by the side's nil / blind-nil bidders
    points: int  # P: deal points before bag penalties
    bags_added: int  # B: new bags this deal
    penalties: int  # how many bag penalties were applied
    score: int  # the side's total after this deal
    bags: int  # the side's bag counter after this deal

    @property
    def made(self) -> bool | None:
        """True if the contract was made, False if set, None without a contract."""
        return None if self.contract == 0 else self.contract_tricks >= self.contract


def score_side(
    bids: Sequence[int],
    blind: Sequence[bool],
    tricks: Sequence[int],
    score: int,
    bags: int,
    rules: ScoringRules = ScoringRules(),
) -> SideDealScore:
    """Score one side's deal (§4.1).

    ``bids[i]`` is partner i's bid (0 = nil), ``blind[i]`` whether that nil was blind,
    ``tricks[i]`` the tricks partner i took; ``score``/``bags`` are the totals before.

    >>> score_side([3, 4], [False, False], [5, 3], 0, 0).points  # rules §4.3 example 1
    71
    """
    contract = sum(b for b in bids if b >= 1)
    contract_tricks = sum(t for b, t in zip(bids, tricks) if b >= 1)
    nil_tricks = sum(t for b, t in zip(bids, tricks) if b == 0)
    points = 0
    new_bags = 0

    # Tricks of nil bidders may count towards the partner's contract (option).
    counted_for_partner = rules.failed_nil_tricks is FailedNilTricks.COUNT_FOR_PARTNER and contract >= 1
    if counted_for_partner:
        contract_tricks += nil_tricks

    # 1. The contract.
    if contract >= 1:
        if contract_tricks >= contract:
            over = contract_tricks - contract
            points += 10 * contract + over
            new_bags += over
        else:
            points -= 10 * contract

    # 2-3. Each nil and blind nil separately.
    for b, bl, t in zip(bids, blind, tricks):
        if b == 0:
            value = rules.blind_nil_value if bl else rules.nil_value
            points += value if t == 0 else -value

    # 4. The nil bidders' tricks.
    if not counted_for_partner and rules.failed_nil_tricks is not FailedNilTricks.IGNORED:
        points += nil_tricks
        new_bags += nil_tricks

    # 5-6. Totals and the bag penalty.
    score += points
    bags += new_bags
    penalties = 0
    if rules.bag_penalty:
        while bags >= rules.bag_limit:
            score -= rules.bag_penalty_points
            bags -= rules.bag_limit
            penalties += 1
    return SideDealScore(contract, contract_tricks, nil_tricks, points, new_bags, penalties, score, bags)


def game_result(
    before: Sequence[int],
    after: Sequence[int],
    target: int,
    rule: SimultaneousTargetRule = SimultaneousTargetRule.HIGHER_TOTAL,
    lose_at: int | None = None,
) -> int | None:
    """The winning side (0 = seats {0,2}, 1 = seats {1,3}) after a deal, or None to play on.

    ``before``/``after`` are the two sides' totals before and after the deal (§4.2).
    The ``max_deals`` guard and the fixed ``deals`` count are applied by the engine.
    """
    reached = [s >= target for s in after]
    if reached[0] != reached[1]:
        return 0 if reached[0] else 1
    if reached[0]:
        if rule is SimultaneousTargetRule.HIGHER_DEAL_SCORE:
            gains = [a - b for a, b in zip(after, before)]
            if gains[0] != gains[1]:
                return 0 if gains[0] > gains[1] else 1
        return _higher(after)
    if lose_at is not None:
        lost = [s <= lose_at for s in after]
        if lost[0] != lost[1]:
            return 1 if lost[0] else 0
        if lost[0]:
            return _higher(after)
    return None


def _higher(scores: Sequence[int]) -> int | None:
    if scores[0] == scores[1]:
        return None
    return 0 if scores[0] > scores[1] else 1
