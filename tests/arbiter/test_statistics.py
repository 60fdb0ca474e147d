"""Calibration of the tables' statistics, by simulated evaluations and tournaments drawn from
recorded deals (tests/arbiter/data; see tests/arbiter/test_sprt.py for the commands that
recorded them): the ± of the margins, and the ratings' intervals and LOS.

What these pin down (numbers and the larger runs: docs/strength.md, "Calibration"):

* mean ± 1.96 s.e. of the deal margins covers the true margin about 95% of the time from
  30 deals on (a little less on 10: the normal quantile, not Student's);
* the Bradley-Terry intervals and LOS of a duplicate head-to-head table are *conservative*:
  the two seatings of a deal are negatively correlated (what one seating's cards give, the
  other's take back) and the model counts them as independent matches; the spread of the
  LOS of equal bots (on the probit scale) is sqrt(1 + ρ), ρ the correlation of the
  seatings' scores, instead of 1. A deal-clustered variance puts it right.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from statistics import NormalDist, pstdev

import pytest

from arbiter.tournament.calibration import _pairs, margin_coverage, match_score, rating_calibration, true_rating
from arbiter.tournament.evaluate import EvalResult, _seating
from arbiter.tournament.ratings import side_results
from arbiter.tournament.stats import Moments, mean_se
from cardarena.games import get_game

DATA = Path(__file__).parent / "data"


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
        who = _seating(game.num_seats, game.teams, m.rotation)
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
    deal-clustered variance (ratings._bradley_terry): LOS and intervals are on target."""
    r = recorded("spades_heuristic_greedy")
    rho = seating_correlation(r)
    assert rho < -0.2  # duplicate: the seatings pull opposite ways
    runs = 600
    null = rating_calibration(r, 40, runs, random.Random("bt-null"), relabel=0.5)
    assert null.model == "bradley-terry" and null.truth == 1500
    assert abs(sum(null.los) / runs - 0.5) < 0.03  # equal bots: no side favoured
    spread = pstdev(NormalDist().inv_cdf(min(max(v, 1e-12), 1 - 1e-12)) for v in null.los)
    assert spread == pytest.approx(1.0, abs=0.1), (spread, rho)  # a calibrated LOS: probits spread as N(0, 1)
    assert abs(spread - math.sqrt(1 + rho)) > 0.15  # and not as the model's variance would
    slack = 3.5 * math.sqrt(0.05 * 0.95 / runs)
    assert abs(null.los_above(0.95) - 0.05) <= slack and abs(null.coverage - 0.95) <= slack
    # with the recorded (unequal) bots the interval holds the true rating 93-97% of the time
    real = rating_calibration(r, 40, 300, random.Random("bt-real"))
    assert real.truth == pytest.approx(true_rating(match_score(r)))
    assert abs(real.coverage - 0.95) <= 3.5 * math.sqrt(0.05 * 0.95 / 300), real.coverage


def test_plackett_luce_los_of_equal_bots_is_even() -> None:
    """Spot (four seats, each its own side) is rated by Plackett-Luce; its LOS is symmetric for
    equal bots but its spread is not that of a probability (docs/strength.md): only the
    symmetry is asserted here, the spread is reported."""
    r = recorded("spot_search_heuristic")
    null = rating_calibration(r, 20, 150, random.Random("pl-null"), relabel=0.5)
    assert null.model == "plackett-luce" and null.truth is None and null.coverage is None
    assert abs(sum(null.los) / null.runs - 0.5) < 0.05
