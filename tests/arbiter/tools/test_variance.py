"""Variance reduction: the cross-fitted control-variate estimate is unbiased and helps when a
feature explains the margin; what duplicate deals and card features buy on recorded deals
(arbiter/tools/data, recorded as tests/arbiter/rating/test_sprt.py says); the in-process replay of an
evaluation's deals, where their variance comes from, and the control variates on the bids.
Numbers: docs/strength.md."""

from __future__ import annotations

import asyncio

import dataclasses
import json
import random
from importlib import resources

import pytest

from arbiter.batch.plan import deal_seed
from arbiter.tournament.evaluate import EvalResult, evaluate
from arbiter.rating.stats import mean_se
from arbiter.tools.variance import (
    _least_squares, bid_control, bid_features, bid_probes, deal_features, duplicate_gain,
    feature_means, one_seating, probe_seeds, regression_adjusted, replay, replay_deals,
    replay_evaluation, side_features, variance_sources,
)

DATA = resources.files("arbiter.tools") / "data"


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


@pytest.mark.slow
def test_adjustment_is_unbiased_even_on_few_deals() -> None:
    """Margins that depend on the feature non-linearly, with noise growing with it, 24 deals a
    sample: the cross-fitted estimate averages to the truth; the textbook one (slope fitted on
    the same deals) does not. 1,000 samples: the textbook estimate is 10.9 s.e. below the
    truth (17.1 at 3,000, a third of the CPU more), so a cross-fit that leaked the sample's
    own deals into its slope would fail the first check by as much."""
    rng = random.Random(2)
    crossfit, in_sample = [], []
    for _ in range(1000):
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


@pytest.mark.slow
def test_duplicate_deals_pay_off_at_spot_and_card_features_help_one_seating_spades() -> None:
    spot = recorded("spot_search_heuristic")
    assert duplicate_gain(spot).ratio > 1.5  # fewer than half the matches for the same s.e.
    spades = recorded("spades_heuristic_greedy")
    # the features are computed from the deals' seeds: the engine must still deal those cards
    # (the recordings carry their seeds, drawn before an evaluation's deals became a tournament's)
    again = replay_recorded(spades, 3)
    assert again == spades.matches[:6], "the engine or the bots changed: re-record (command in the file)"
    one = one_seating(spades)
    assert one.duplicate.n == spades.deals and one.plain.n == spades.deals
    assert one.adjusted_over_plain < 0.95  # the cards explain some of one seating's margin
    assert one.adjusted_over_duplicate > 1.0  # but duplicate deals do better still


# --------------------------------------------------------------------------------------
# Replaying an evaluation's deals in process, and what they show.

REPLAYED_DEALS = 60  # of the recorded Spades heuristic vs greedy deals: 120 matches, a fraction of a second


@pytest.fixture(scope="module")
def spades() -> EvalResult:
    return recorded("spades_heuristic_greedy")


def recorded_seeds(result: EvalResult, deals: int | None = None) -> list[int]:
    """The deal seeds of a recorded evaluation, in deal order (from the file, not derived)."""
    seeds = [s for _, s in sorted({(m.deal, m.seed) for m in result.matches})]
    return seeds[:deals]


def replay_recorded(result: EvalResult, deals: int) -> list:
    """The first ``deals`` recorded deals played again by the batch engine, as ``evaluate``
    plays (the real match runner, bots in process): their margins."""
    from arbiter.batch.engine import InProcess, play_batch
    from arbiter.batch.plan import PlannedMatch, pair_seatings
    from arbiter.tournament.evaluate import _config, _margin, who_of
    from arbiter.tournament.spec import bot_names
    from cardarena.games import get_game

    from arbiter.rating.ratings import forfeit_stake

    names = bot_names((result.bot_a, result.bot_b))
    game = get_game(result.game, result.options, result.preset)
    seatings, stake = pair_seatings(game, *names), forfeit_stake(game)
    plan = [PlannedMatch(2 * d + r, _config(result.game, s, result.options, result.preset, (0, 0)), seats, (d, r))
            for d, s in enumerate(recorded_seeds(result, deals)) for r, seats in enumerate(seatings)]

    async def play():
        venue = InProcess(dict(zip(names, (result.bot_a, result.bot_b))))
        return [_margin(*p.match.item, p.match.config.seed, who_of(p.match.seats, names[0]), p.record, stake)
                async for p in play_batch(plan, venue, ordered=True)]

    return asyncio.run(play())


@pytest.fixture(scope="module")
def replayed(spades: EvalResult):
    return replay_deals("spades", spades.bot_a, spades.bot_b, recorded_seeds(spades, REPLAYED_DEALS), spades.options)


def test_the_replay_plays_the_evaluations_matches(spades: EvalResult, replayed) -> None:
    """Deterministic bots: the recorded margins, deal by deal; a randomised bot and another game:
    what ``evaluate`` (the real match runner) gives now, so bot seeds and lifecycle agree too."""
    assert [r.margin for d in replayed for r in d] == [m.margin for m in spades.matches[: 2 * REPLAYED_DEALS]]
    assert all(r.seed == s for s, d in zip(recorded_seeds(spades), replayed) for r in d)
    for game, a, b, options in (("spades", "random", "greedy", {"deals": 1}), ("spot", "heuristic", "random", {"hands": 1})):
        played = evaluate(game, a, b, deals=2, seed=5, options=options)
        again = replay_evaluation(game, a, b, 2, 5, options)
        assert [r.margin for d in again for r in d] == [m.margin for m in played.matches], (game, a, b)


def test_variance_sources_partition_the_deals(spades: EvalResult, replayed) -> None:
    v = variance_sources(replayed)
    margins = spades.deal_margins()[:REPLAYED_DEALS]
    assert v.deals == REPLAYED_DEALS and v.margin.mean == pytest.approx(sum(margins) / len(margins))
    assert sum(r.deals for r in v.rows) == v.deals
    assert sum(r.deal_share for r in v.rows) == pytest.approx(1.0)
    assert sum(r.variance_share for r in v.rows) == pytest.approx(1.0)
    assert v.zero_share == sum(1 for m in margins if m == 0) / len(margins)
    first = dataclasses.replace(spades, deals=REPLAYED_DEALS, matches=spades.matches[: 2 * REPLAYED_DEALS])
    assert v.duplicate_ratio == pytest.approx(1 / duplicate_gain(first).ratio)
    by_label = {r.label: r for r in v.overlapping}
    nils = sum(1 for d in replayed if any(b == 0 for r in d for b in r.bids))
    assert by_label["a nil bid in either seating"].deals == nils
    one, both = by_label["a side set in one seating only"], by_label["a side set in both seatings"]
    assert one.deals + both.deals == by_label["a side set in either seating"].deals > 0
    assert -1 <= v.seating_correlation <= 1


def test_bidding_only_probes_bid_as_the_matches_do(replayed) -> None:
    probes = replay_deals("spades", "heuristic", "greedy", [d[0].seed for d in replayed], {"deals": 1}, bidding_only=True)
    for d, p in zip(replayed, probes):
        assert [r.bids for r in p] == [r.bids for r in d]
        assert all(r.margin is None and r.decisions < r2.decisions for r, r2 in zip(p, d))
        assert bid_features(p, cards=True) == bid_features(d, cards=True)
    # the probes' own deals never are an evaluation's
    assert not set(probe_seeds("bid-probes", 200)) & {deal_seed(s, d) for s in range(20) for d in range(200)}


@pytest.mark.slow
def test_the_bid_control_variate_is_unbiased_and_a_wrong_mean_shows(spades: EvalResult) -> None:
    """The recorded deals as a population whose feature means are known exactly (bidding-only
    probes of its 400 deals): samples of 40 deals drawn from it, the cross-fitted estimate
    averages to the population's mean margin; centred on the means of probes that played the
    bots the wrong way round, it is many standard errors off, so the test can see a bias (500
    samples: 0.6 s.e. from the truth and 6.1 off; 1,000 gave 1.0 and 9.1 for twice the CPU)."""
    seeds = recorded_seeds(spades)
    margins = spades.deal_margins()
    feats = [bid_features(p) for p in replay_deals("spades", "heuristic", "greedy", seeds, spades.options, bidding_only=True)]
    # the wrong way round on the first 100 deals: means off by as much (6.6 s.e. where all 400 gave 6.1)
    swapped = [bid_features(p) for p in replay_deals("spades", "greedy", "heuristic", seeds[:100], spades.options,
                                                     bidding_only=True)]
    names = ("a_bids", "b_bids", "a_nils", "table_bids_over_13")
    means = {k: sum(f[k] for f in feats) / len(feats) for k in names}
    wrong = {k: sum(f[k] for f in swapped) / len(swapped) for k in names}
    truth = sum(margins) / len(margins)
    rng = random.Random(1)
    right, off = [], []
    for _ in range(500):
        idx = [rng.randrange(len(margins)) for _ in range(40)]
        a = regression_adjusted([margins[i] for i in idx], [feats[i] for i in idx], means, names, folds=4)
        right.append(a.adjusted.mean)
        # the adjusted mean is linear in the means it is centred on, with these slopes
        off.append(a.adjusted.mean + sum(b * (wrong[k] - means[k]) for b, k in zip(a.slope, names)))
    good, bad = mean_se(right), mean_se(off)
    assert abs(good.mean - truth) < 4 * good.se, (good, truth)
    assert abs(bad.mean - truth) > 4 * bad.se, (bad, truth)


def test_bid_control_accounts_for_the_probes(replayed) -> None:
    probes = bid_probes("spades", "heuristic", "greedy", {"deals": 1}, deals=150)
    c = bid_control(replayed, probes, folds=5)
    assert c.deals == REPLAYED_DEALS and c.probes == 150 and c.probe_se > 0
    assert c.se > (c.adjusted.adjusted.se or 0.0)
    assert c.shift == pytest.approx(c.adjusted.adjusted.mean - c.adjusted.plain.mean)
    assert c.shift_se > c.probe_se
    assert c.adjusted_per_match_with_probes > c.adjusted_per_match  # the probes cost decisions
    assert c.probe_decisions == 8  # look and bid at each seat (blind nil is allowed: everyone looks first)
    assert c.plain_per_match == pytest.approx(variance_sources(replayed).duplicate_ratio)


def test_one_seating_replayed_and_bidding_only_for_spades_alone(replayed) -> None:
    seed = replayed[0][0].seed
    one = replay("spades", "heuristic", "greedy", seed, 1, {"deals": 1})
    assert one.margin == replayed[0][1].margin and one.rotation == 1 and one.hands == replayed[0][1].hands
    with pytest.raises(ValueError, match="spades"):
        replay("spot", "heuristic", "random", seed, 0, {"hands": 1}, bidding_only=True)
