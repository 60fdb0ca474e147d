"""Partnerships of distinct bots are clustered by deal as soon as the deals outnumber the
strength differences the results determine (issue 39): four partnerships of eight bots on
eight deals have three, not eight, so their variance is the deal-clustered sandwich. Counting
bots (8 + 2 deals needed) left it the model's own, which knows nothing of duplicate deals:
the strongest and weakest teams were covered 0.92 and 0.94, the middle ones 0.99 and 0.97
(docs/strength.md, ``python -m arbiter.tools.statreport perbot``)."""

from __future__ import annotations

import random

from arbiter.rating import ratings
from arbiter.rating.ratings import side_results, sides_of
from arbiter.tools.calibration import simulated_rows
from arbiter.tournament.run import schedule
from arbiter.tournament.spec import TournamentSpec

TEAMS = (("a", "b"), ("c", "d"), ("e", "f"), ("g", "h"))
STRENGTH = {"a": 0.4, "b": 0.4, "c": 0.1, "d": 0.1, "e": -0.1, "f": -0.1, "g": -0.4, "h": -0.4}


def _parsed(deals: int):
    spec = TournamentSpec(game="spades", bots=tuple(STRENGTH), options={"deals": 1}, teams=TEAMS, deals=deals, seed=0)
    game = spec.validate_game()
    rows = simulated_rows(schedule(game, spec), game.teams, STRENGTH, random.Random(1), 0.7)
    return [(row, side_results(game.teams, row.outcome.scores, row.outcome.ranks), sides_of(game.teams, row.seats))
            for row in rows]


def test_four_partnerships_on_eight_deals_are_clustered_by_deal() -> None:
    parsed = _parsed(8)
    data, rank, by_deal = ratings._comparisons(list(STRENGTH), parsed, clustered=True)
    clusters = {c for per in data.values() for c in per}
    assert clusters == {row.seed for row, _, _ in parsed} and len(clusters) == 8 and by_deal
    assert rank == ratings._rank(list(data)) == 3  # the partners share a strength: three differences, not seven
    # fewer deals than MIN_CLUSTERS: by match, as before
    few = _parsed(4)
    data, _, by_deal = ratings._comparisons(list(STRENGTH), few, clustered=True)
    assert {c for per in data.values() for c in per} == {row.idx for row, _, _ in few} and not by_deal
