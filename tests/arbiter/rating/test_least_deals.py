"""The least deals any sequential test valid on every distribution within its bounds needs
(``BettingTest.least_deals``), checked by hand and by the distribution its proof builds.

The proof mixes the deals at M1 with a rare deal at the low bound, so that the mean is M0
while the deals look like those at M1 until the rare one comes. A test quicker than the
bound must then err on that mixture: the seeded check runs the normal SPRT (quick, about 20
deals on Spades-like margins at 0,50) on it and sees it accept H1 far more often than α,
while the betting test, which respects the bound, holds α there. Small and seeded (a second
or two); the large runs are docs/strength.md's.
"""

from __future__ import annotations

import json
import math
import random
from importlib import resources

import pytest

from arbiter.rating.betting import BettingTest
from arbiter.rating.sprt import Sprt, shifted, simulate
from arbiter.tournament.evaluate import EvalResult

DATA = resources.files("arbiter.tools") / "data"


def test_least_deals_by_hand() -> None:
    t = BettingTest(0, 20, -900, 900)
    at_m0, at_m1 = t.least_deals()
    assert at_m1 == pytest.approx(math.log(0.95 / 0.05) / -math.log(1 - 20 / 920))
    assert at_m0 == pytest.approx(math.log(0.95 / 0.05) / -math.log(1 - 20 / 900))
    assert 130 < at_m0 < at_m1 < 135  # the Spades pair at 0,20: a fixed test needs 39
    # narrower bounds, a wider gap, looser error rates: fewer deals
    assert BettingTest(0, 20, -150, 150).least_deals()[1] < 25
    assert BettingTest(0, 50, -900, 900).least_deals()[1] < at_m1
    assert BettingTest(0, 20, -900, 900, alpha=0.2, beta=0.2).least_deals()[1] < at_m1


def _mixture(pool: list[float], m0: float, m1: float, lo: float):
    """The proof's distribution: the pool moved to mean m1, a deal at ``lo`` with chance ε."""
    eps = (m1 - m0) / (m1 - lo)
    at_m1 = shifted(pool, m1)
    return lambda rng: lo if rng.random() < eps else at_m1(rng)


def test_a_test_quicker_than_the_bound_errs_on_the_proofs_mixture() -> None:
    pool = EvalResult.from_json(json.loads((DATA / "spades_heuristic_greedy.json").read_text())).deal_margins()
    lo, hi, m0, m1 = -900.0, 900.0, 0.0, 50.0
    bound = BettingTest(m0, m1, lo, hi).least_deals()[1]
    draw = _mixture(pool, m0, m1, lo)
    quick = Sprt(m0, m1)  # the normal SPRT: about 20 deals here, well under the bound of 55
    at_m1 = simulate(quick, shifted(pool, m1), m1, 200, 2000, random.Random(1))
    assert at_m1.mean_deals < bound and at_m1.p_h1 > 0.9
    wrong = simulate(quick, draw, m0, 200, 2000, random.Random(2))
    # the mixture's mean is M0, yet it is taken for M1 about (1 - ε)^20 = 0.34 of the time
    assert wrong.p_h1 > 0.25, wrong
    betting = BettingTest(m0, m1, lo, hi)
    held = simulate(betting, draw, m0, 200, 2000, random.Random(3))
    assert held.p_h1 <= 0.05 + 0.04, held  # within Monte Carlo error of α (0.015 s.e. at 200 runs)
    right = simulate(betting, shifted(pool, m1), m1, 200, 2000, random.Random(4))
    assert right.mean_deals >= bound  # and it pays the bound, as every valid test must


def test_the_evaluate_line_names_the_bounds_price() -> None:
    from arbiter.tournament.evaluate import evaluate

    r = evaluate("spades", "heuristic", "random", deals=30, seed=0, options={"deals": 1},
                 sprt=BettingTest(0, 50, -900, 900))
    line = r.sprt_summary()
    assert "needs at least about 52 deals at M0 and 55 at M1" in line and "narrower --bounds" in line
    s = evaluate("spades", "heuristic", "random", deals=3, seed=0, options={"deals": 1},
                 sprt=BettingTest.pair_score(0.5, 0.6)).sprt_summary()
    assert "needs at least" not in s  # the pair score is bounded by what it is, no price to name


def test_the_evaluate_line_blames_the_bounds_only_where_they_set_the_length() -> None:
    """Spite and Malice's bounds -1..1 are close to its deals: the floor any valid test pays there
    (14 deals at M0, 17 at M1 at 0,0.2) is below the fixed test's at the deals' s.d. (32 here). The
    line said "those bounds, not the deals, set the length" all the same, and offered --sd-bound
    as the way to a shorter run, which the betting test had already beaten (19 deals)."""
    from arbiter.tournament.evaluate import evaluate

    r = evaluate("spite-and-malice", "heuristic", "random", deals=40, seed=0, sprt=BettingTest(0, 0.2, -1, 1))
    line = r.sprt_summary()
    assert r.sprt_state.decision == "H1" and r.fixed_deals() > max(r.sprt.least_deals()), line
    assert "set the length" not in line and "--sd-bound S" not in line, line
