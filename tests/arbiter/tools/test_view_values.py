"""The bids' values from the bidder's view as features of a deal (arbiter/tools/statreport.py,
``_bid_values``; issue 39, fifth session, docs/strength.md): a seeded function of the deal and its
bidding alone, the same twice, and each bot's when the bots change places. The variance they cut
is a measurement (``python -m arbiter.tools.statreport viewvalues``), not a test."""

from __future__ import annotations

from arbiter.tools.statreport import _bid_values
from arbiter.tools.variance import replay_evaluation


def test_bid_values_are_the_deals_and_follow_the_bots() -> None:
    (deal,) = replay_evaluation("spades", "heuristic", "greedy", 1, 17, {"deals": 1})
    task = ([deal[0].seed], [[(r.actions, r.who) for r in deal]], 1)
    (once,) = _bid_values(task)
    assert _bid_values(task) == [once]
    assert set(once) == {"view_a", "view_b", "view_a_neg", "view_b_neg"} and once["view_a"] != once["view_b"]
    swapped = ([deal[0].seed], [[(r.actions, tuple(1 - w for w in r.who)) for r in deal]], 1)
    (other,) = _bid_values(swapped)
    assert (other["view_a"], other["view_b"]) == (once["view_b"], once["view_a"])
    assert all(v <= 0 for k, v in once.items() if k.endswith("_neg"))
