"""Calibration of the tables' statistics, by simulated evaluations and tournaments drawn from
recorded deals (arbiter/tools/data; see tests/arbiter/rating/test_sprt.py for the commands that
recorded them): the ± of the margins, and the ratings' intervals and LOS.

What these pin down (numbers and the larger runs: docs/strength.md, "Calibration"):

* mean ± 1.96 s.e. of the deal margins covers the true margin about 95% of the time from
  30 deals on (a little less on 10: the normal quantile, not Student's);
* the Bradley-Terry intervals and LOS of a duplicate head-to-head table would be
  *conservative* with the model's own variance: the two seatings of a deal are negatively
  correlated (what one seating's cards give, the other's take back) and the model counts
  them as independent matches; the spread of the LOS of equal bots (on the probit scale)
  would be sqrt(1 + ρ), ρ the correlation of the seatings' scores, instead of 1. The
  deal-clustered variance the standings use puts it right;
* free for all and partnerships (every pair of sides of a match rated, the same
  deal-clustered variance): on recorded Spot deals and in simulated round robins from
  known strengths, the 95% intervals hold the truth 93-97% of the time and the rating
  differences' errors over their standard errors spread as N(0, 1), so the LOS is a
  probability (openskill's σ, used before, gave probit spreads of 0.4 and 1.3).
"""

from __future__ import annotations

import json
import math
import random
from importlib import resources
from statistics import NormalDist, pstdev

import pytest

from arbiter.tools.calibration import (
    _pairs, margin_coverage, match_score, pair_score, rating_calibration, strength_calibration, true_rating,
)
from arbiter.tournament.evaluate import EvalResult, seating_who
from arbiter.rating.ratings import side_results
from arbiter.rating.stats import Moments, mean_se
from cardarena.games import get_game

DATA = resources.files("arbiter.tools") / "data"


def recorded(name: str) -> EvalResult:
    return EvalResult.from_json(json.loads((DATA / f"{name}.json").read_text()))


def test_running_moments_are_the_list_computation() -> None:
    rng = random.Random(1)
    xs = [rng.gauss(1e6, 3.0) for _ in range(2000)]  # a large mean: a naive sum of squares would lose it
    m = sum(xs) / len(xs)
    se = math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs))
    got = mean_se(xs)
    assert got.mean == m and got.se == pytest.approx(se, rel=1e-9) and got.n == 2000
    acc = Moments()
    for i, x in enumerate(xs[:50]):
        acc.add(x)
        assert acc.result() == mean_se(xs[: i + 1])
    assert mean_se([]).se is None and mean_se([4.0]) .se is None and mean_se([4.0]).mean == 4.0
    assert mean_se([1.0, 3.0]).sd == pytest.approx(math.sqrt(2))


@pytest.mark.parametrize("name", ["spades_heuristic_greedy", "spot_search_heuristic"])
def test_margin_interval_coverage(name: str) -> None:
    xs = recorded(name).deal_margins()
    runs = 1500
    slack = 3.5 * math.sqrt(0.95 * 0.05 / runs)
    c30 = margin_coverage(xs, 30, runs, random.Random(f"{name}:30"))
    assert abs(c30.rate - 0.95) <= slack, c30
    c10 = margin_coverage(xs, 10, runs, random.Random(f"{name}:10"))
    assert 0.88 <= c10.rate <= 0.95 + slack, c10  # a normal quantile on 9 degrees of freedom


def test_true_rating_and_match_score() -> None:
    assert true_rating(0.5) == 1500
    assert true_rating(0.75) == pytest.approx(1500 + 400 / math.log(10) * math.log(3) / 2)
    r = recorded("spades_heuristic_greedy")
    assert match_score(r) == pytest.approx(r.win_rate)  # two sides: points are the win rate


def seating_correlation(r: EvalResult) -> float:
    game = get_game(r.game, r.options, r.preset)

    def score(m) -> float:
        who = seating_who(game, m.rotation)
        res = side_results(game.teams, m.scores, m.ranks)
        a = [res[t][0] for t, team in enumerate(game.teams) if who[team[0]] == 0]
        return sum(a) / len(a)

    ps = [(score(a), score(b)) for a, b in _pairs(r)]
    xs, ys = [p[0] for p in ps], [p[1] for p in ps]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in ps) / len(ps) / (pstdev(xs) * pstdev(ys))


def test_bradley_terry_on_duplicate_deals_is_calibrated_by_the_deal_clustered_variance() -> None:
    """The two seatings of a duplicate deal pull opposite ways (their results correlate);
    the model's variance, which counts them as independent, would make the table's LOS
    of equal bots spread as sqrt(1 + rho) and its intervals too wide. The standings use the
    deal-clustered variance (ratings._bradley_terry).

    A small seeded check (100 tables; each tolerance is the full run's, widened by the
    square root of the runs); the measurement itself (300-500 tables a round, targets
    0.9..1.1 and 0.93..0.97) is the bench's: ``python -m arbiter.tools.bench -s statistics``,
    rows ``los.bt.null_spread``, ``coverage.bt.null`` and ``coverage.bt.real``."""
    r = recorded("spades_heuristic_greedy")
    rho = seating_correlation(r)
    assert rho < -0.2  # duplicate: the seatings pull opposite ways
    runs, full = 100, 600
    wide = math.sqrt(full / runs)
    null = rating_calibration(r, 40, runs, random.Random("bt-null"), relabel=0.5)
    assert null.model == "bradley-terry" and null.truth == 1500
    assert abs(sum(null.los) / runs - 0.5) < 0.03 * wide  # equal bots: no side favoured
    spread = pstdev(NormalDist().inv_cdf(min(max(v, 1e-12), 1 - 1e-12)) for v in null.los)
    assert spread == pytest.approx(1.0, abs=0.1 * wide), (spread, rho)  # a calibrated LOS: probits spread as N(0, 1)
    slack = 3.5 * math.sqrt(0.05 * 0.95 / runs)
    assert abs(null.los_above(0.95) - 0.05) <= slack and abs(null.coverage - 0.95) <= slack
    # with the recorded (unequal) bots the interval holds the true rating about 95% of the time
    real = rating_calibration(r, 40, 60, random.Random("bt-real"))
    assert real.truth == pytest.approx(true_rating(match_score(r)))
    assert abs(real.coverage - 0.95) <= 3.5 * math.sqrt(0.05 * 0.95 / 60), real.coverage


def probit_spread(los) -> float:
    return pstdev(NormalDist().inv_cdf(min(max(v, 1e-12), 1 - 1e-12)) for v in los)


def test_free_for_all_on_recorded_spot_deals_is_calibrated() -> None:
    """Spot, four seats each its own side, A on two of them and B on two: every pair of an A
    side and a B side is a comparison, the deal's comparisons one cluster. Openskill's σ
    (used before) gave equal bots a probit spread of 0.37-0.41 on these deals.

    A small seeded check (100 tables, tolerances widened by the square root of the runs);
    the measurement: bench rows ``los.spot.null_spread``, ``coverage.spot.null``,
    ``coverage.spot.real``."""
    r = recorded("spot_search_heuristic")
    runs, full = 100, 600
    wide = math.sqrt(full / runs)
    null = rating_calibration(r, 40, runs, random.Random("ffa-null"), relabel=0.5)
    assert null.model == "bradley-terry" and null.truth == 1500
    assert abs(sum(null.los) / runs - 0.5) < 0.03 * wide
    assert probit_spread(null.los) == pytest.approx(1.0, abs=0.1 * wide)
    slack = 3.5 * math.sqrt(0.05 * 0.95 / runs)
    assert abs(null.los_above(0.95) - 0.05) <= slack and abs(null.coverage - 0.95) <= slack
    real = rating_calibration(r, 40, 60, random.Random("ffa-real"))
    assert real.truth == pytest.approx(true_rating(pair_score(r))) and real.truth > 1500
    assert abs(real.coverage - 0.95) <= 3.5 * math.sqrt(0.05 * 0.95 / 60), real.coverage


def test_pair_score_is_the_match_score_head_to_head() -> None:
    r = recorded("spades_heuristic_greedy")
    assert pair_score(r) == pytest.approx(match_score(r))


#: True strengths (nats; a rating is 1500 + 174 · (θ - mean θ)): two close pairs, one far.
FREE_FOR_ALL = {"a": 0.25, "b": 0.1, "c": 0.0, "d": -0.3}
#: Three partnerships of two (partners equal: only a side's mean is seen).
PARTNERS = {"a": 0.3, "b": 0.3, "c": 0.0, "d": 0.0, "e": -0.2, "f": -0.2}
TEAMS = (("a", "b"), ("c", "d"), ("e", "f"))


def assert_calibrated(c, runs: int, full: int) -> None:
    """The full run's bounds (``full`` tournaments), widened by the square root of the runs."""
    wide = math.sqrt(full / runs)
    assert abs(c.coverage - 0.95) <= 0.02 * wide, c.to_json()  # every bot's 95% interval, over runs
    assert abs(c.z_spread - 1.0) <= 0.1 * wide and abs(c.z_mean) < 0.1 * wide, c.to_json()  # the LOS's probits
    assert abs(c.z_beyond() - 0.05) <= 0.02 * wide, c.to_json()  # the differences' 95% intervals


def test_free_for_all_round_robin_from_known_strengths_is_calibrated() -> None:
    """Four bots, Spot with four seats (one table, four seatings a deal), 20 duplicate deals,
    outcomes Plackett-Luce with the deal's luck shared by its seatings (measured over 1,500:
    coverage 0.948, z spread 1.01). A small seeded check of 60 tournaments; the measurement:
    bench rows ``coverage.ffa``, ``z.ffa``, ``z_beyond.ffa``, ``z_mean.ffa``."""
    c = strength_calibration("spot", {"players": 4, "hands": 1}, FREE_FOR_ALL, 20, 60, random.Random("ffa"))
    assert c.intervals == 4 * 60 and len(c.z) == 6 * 60
    assert_calibrated(c, 60, 400)


def test_partnership_round_robin_from_known_strengths_is_calibrated() -> None:
    """Three named partnerships of Spades (three tables, four seatings a deal with the partners
    rotating over their side's seats), 40 duplicate deals (measured over 1,500: coverage
    0.953, z spread 0.99; on 20 deals 0.938 and 1.04). Partners are never apart: they share
    a rating, and their difference has no variance (not counted). A small seeded check of
    30 tournaments on 20 deals; the measurement: bench rows ``coverage.teams``, ``z.teams``,
    ``z_beyond.teams``, ``z_mean.teams``."""
    c = strength_calibration("spades", {"deals": 1}, PARTNERS, 20, 30, random.Random("teams"), teams=TEAMS)
    assert len(c.z) == 12 * 30  # 15 pairs of bots, less the 3 pairs of partners
    assert_calibrated(c, 30, 300)


def test_los_is_the_share_of_pairs_the_right_way_round() -> None:
    """With the true strengths spread evenly over the runs (each bot moved by up to ±1 nat),
    of the rows with an LOS of about x over the next, a share x is truly the stronger. A
    small seeded check of 120 tournaments (the bins of 50 pairs or more); the measurement:
    bench row ``los.bins.ffa`` (every bin within 3.5 s.e. + 0.01 of its LOS)."""
    from arbiter.tools.statreport import los_bin_error

    c = strength_calibration("spot", {"players": 4, "hands": 1}, FREE_FOR_ALL, 20, 120, random.Random("bins"), jitter=1.0)
    bins = c.los_bins((0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0))
    assert sum(n for *_, n in bins) == len(c.los) > 300
    assert sum(1 for *_, n in bins if n >= 50) >= 2, bins  # enough bins to say something
    assert los_bin_error(bins) <= 1.0, bins
    # the check can fail: an LOS that said the opposite would be far outside
    flipped = [(1 - m, share, n) if m > 0.5 else (m, share, n) for m, share, n in bins]
    assert los_bin_error([(m, share, n) for (m, _, n), (_, share, _) in zip(bins, flipped)]) <= 1.0
    assert los_bin_error([(m, 1 - share, n) for m, share, n in bins]) > 1.0
