"""Variance reduction: the cross-fitted control-variate estimate is unbiased and helps when a
feature explains the margin; what duplicate deals and card features buy on recorded deals
(tests/arbiter/data, recorded as tests/arbiter/test_sprt.py says). Numbers: docs/strength.md."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arbiter.tournament.evaluate import EvalResult, evaluate
from arbiter.tournament.stats import mean_se
from arbiter.tournament.variance import (
    _least_squares, deal_features, duplicate_gain, feature_means, one_seating, regression_adjusted, side_features,
)

DATA = Path(__file__).parent / "data"


def recorded(name: str) -> EvalResult:
    return EvalResult.from_json(json.loads((DATA / f"{name}.json").read_text()))


def synthetic(rng: random.Random, n: int, slope: float) -> tuple[list[float], list[dict[str, float]]]:
    """Margins 3 + slope * (f - 2) + noise, f exponential with mean 2 (skewed on purpose)."""
    fs = [rng.expovariate(0.5) for _ in range(n)]
    ys = [3.0 + slope * (f - 2.0) + rng.gauss(0, 1) for f in fs]
    return ys, [{"f": f, "noise": rng.gauss(0, 1)} for f in fs]


def test_adjustment_removes_what_a_feature_explains() -> None:
    ys, fs = synthetic(random.Random(1), 400, slope=2.0)
    a = regression_adjusted(ys, fs, {"f": 2.0, "noise": 0.0})
    assert a.variance_ratio < 0.25 and a.r2_in_sample > 0.8
    assert abs(a.adjusted.mean - 3.0) < 4 * a.adjusted.se


def test_adjustment_is_unbiased_even_on_few_deals() -> None:
    """Margins that depend on the feature non-linearly, with noise growing with it, 24 deals a
    sample: the cross-fitted estimate averages to the truth; the textbook one (slope fitted on
    the same deals) does not."""
    rng = random.Random(2)
    crossfit, in_sample = [], []
    for _ in range(3000):
        fs = [rng.expovariate(0.5) for _ in range(24)]  # mean 2, E f^2 = 8
        ys = [3.0 + 0.5 * (f * f - 8.0) + f * rng.gauss(0, 1) for f in fs]  # mean 3
        crossfit.append(regression_adjusted(ys, [{"f": f} for f in fs], {"f": 2.0}, folds=4).adjusted.mean)
        b = _least_squares([[f - 2.0] for f in fs], ys)[1]
        in_sample.append(sum(ys) / 24 - b * (sum(fs) / 24 - 2.0))
    good, biased = mean_se(crossfit), mean_se(in_sample)
    assert abs(good.mean - 3.0) < 4 * good.se, good
    assert biased.mean < 3.0 - 5 * biased.se, biased


def test_a_useless_feature_costs_little() -> None:
    ys, fs = synthetic(random.Random(3), 400, slope=0.0)
    a = regression_adjusted(ys, fs, {"f": 2.0, "noise": 0.0})
    assert 0.95 < a.variance_ratio < 1.1


def test_too_few_deals_for_the_folds_is_refused() -> None:
    with pytest.raises(ValueError, match="folds"):
        regression_adjusted([1.0] * 5, [{"f": 0.0}] * 5, {"f": 0.0})


@pytest.mark.parametrize("game,options", [("spades", {"deals": 1}), ("spot", {"hands": 1})])
def test_side_features_flip_with_the_seating_and_average_zero(game: str, options: dict) -> None:
    first = side_features(game, options, None, 11, 0)
    assert side_features(game, options, None, 11, 1) == {k: -v for k, v in first.items()}
    sym = deal_features(game, options, None, 11)
    assert all(v >= 0 for k, v in sym.items() if k.startswith("abs_"))
    rows = [side_features(game, options, None, s, s % 2) for s in range(600)]
    for k in first:
        m = mean_se([r[k] for r in rows])
        assert abs(m.mean) < 4 * m.se, (k, m)
    means = feature_means(game, options, None, deals=300)
    assert set(means) == set(sym)


def test_duplicate_deals_pay_off_at_spot_and_card_features_help_one_seating_spades() -> None:
    spot = recorded("spot_search_heuristic")
    assert duplicate_gain(spot).ratio > 1.5  # fewer than half the matches for the same s.e.
    spades = recorded("spades_heuristic_greedy")
    # the features are computed from the deals' seeds: the engine must still deal those cards
    again = evaluate("spades", spades.bot_a, spades.bot_b, deals=3, seed=spades.seed, options=spades.options)
    assert again.matches == spades.matches[:6], "the engine or the bots changed: re-record (command in the file)"
    one = one_seating(spades)
    assert one.duplicate.n == spades.deals and one.plain.n == spades.deals
    assert one.adjusted_over_plain < 0.95  # the cards explain some of one seating's margin
    assert one.adjusted_over_duplicate > 1.0  # but duplicate deals do better still
