"""The sequential test: its formulas, its stop rule, and its error rates on recorded deals.

The recorded deals are arbiter/tools/data/*.json, written once by ``arbiter evaluate``
(each file's "command" field is the command that made it, run from arbiter/tools/data):

    arbiter evaluate spades heuristic greedy --deals 400 --seed 17 -o deals=1 -j 2 --json spades_heuristic_greedy.json
    arbiter evaluate spot search heuristic --deals 120 --seed 17 -o hands=1 -j 2 --json spot_search_heuristic.json
    arbiter evaluate spot heuristic random --deals 400 --seed 17 -o hands=1 -j 2 --json spot_heuristic_random.json

The error-rate simulations draw deal margins from those recordings (``sprt.relabelled``:
the bots' names swapped on a share of the deals, which sets the true margin and keeps the
shape of real deals) and run the test to its end; seeded, a few seconds in all. The
larger runs behind docs/strength.md are ``python -m arbiter.tools.bench -s sprt``.
"""

from __future__ import annotations

import json
import math
import random
from importlib import resources

import pytest

from arbiter.tournament.evaluate import EvalResult
from arbiter.rating.sprt import H0, H1, MIN_DEALS, Sprt, relabelled, shifted, simulate
from arbiter.rating.stats import MeanSE, mean_se

DATA = resources.files("arbiter.tools") / "data"


def recorded(name: str) -> EvalResult:
    return EvalResult.from_json(json.loads((DATA / f"{name}.json").read_text()))


def test_bounds_are_walds() -> None:
    t = Sprt(0, 50, alpha=0.05, beta=0.1)
    assert t.lower == pytest.approx(math.log(0.1 / 0.95))
    assert t.upper == pytest.approx(math.log(0.9 / 0.05))


def test_llr_formulas_by_hand() -> None:
    xs = [10.0, 30.0, -5.0, 45.0, 20.0]
    ms = mean_se(xs)
    n, mean = len(xs), sum(xs) / len(xs)
    v = sum((x - mean) ** 2 for x in xs) / n  # maximum-likelihood variance
    normal = Sprt(0, 20, model="normal").llr(ms)
    assert normal == pytest.approx(n / (2 * v) * ((mean - 0) ** 2 - (mean - 20) ** 2))
    assert normal == pytest.approx(n * (20 - 0) * (2 * mean - 0 - 20) / (2 * v))
    glr = Sprt(0, 20, model="glr").llr(ms)
    # the Gaussian likelihood maximized over the variance under each mean
    assert glr == pytest.approx(n / 2 * math.log(sum((x - 0) ** 2 for x in xs) / sum((x - 20) ** 2 for x in xs)))


def test_the_two_models_agree_near_the_hypotheses_and_vanish_half_way() -> None:
    small = MeanSE(0.08, 1.0 / math.sqrt(100), 100)  # sd 1, hypotheses 0.1 sd apart
    assert Sprt(0, 0.1, model="glr").llr(small) == pytest.approx(Sprt(0, 0.1, model="normal").llr(small), rel=0.02)
    half = MeanSE(25.0, 3.0, 40)
    assert Sprt(0, 50, model="glr").llr(half) == pytest.approx(0.0, abs=1e-12)
    assert Sprt(0, 50, model="normal").llr(half) == pytest.approx(0.0, abs=1e-12)
    # far from both the normal form believes the variance and says more
    far = MeanSE(300.0, 20.0, 10)
    assert Sprt(0, 50, model="normal").llr(far) > Sprt(0, 50, model="glr").llr(far) > 0


def test_run_stops_at_the_first_crossing_never_before_min_deals() -> None:
    t = Sprt(0, 10)
    xs = [20.0, 24.0, 16.0, 22.0, 18.0] * 10  # clearly above 10
    s = t.run(xs)
    assert s.decision == H1 and s.verdict == "H1 accepted" and s.deals == MIN_DEALS
    step = [t.state(mean_se(xs[:k])) for k in range(2, len(xs) + 1)]
    assert all(st.decision is None for st in step if st.deals < MIN_DEALS)
    assert any(st.llr >= t.upper for st in step if st.deals < MIN_DEALS)  # min_deals held the evidence back
    low = t.run([-x for x in xs])
    assert low.decision == H0 and low.deals == MIN_DEALS
    capped = Sprt(0, 10, min_deals=2).run([4.0, 6.0] * 50, max_deals=7)
    assert capped.decision is None and capped.verdict == "no decision" and capped.deals == 7


def test_constant_deals_decide_by_which_side_they_are_on() -> None:
    t = Sprt(0, 10, min_deals=3)
    assert t.run([0.0] * 5).decision == H0  # identical bots: every duplicate deal is 0
    assert t.run([12.0] * 5).decision == H1
    assert t.llr(mean_se([5.0] * 5)) == 0.0


@pytest.mark.parametrize("bad,name", [(dict(m0=5, m1=5), "sprt"), (dict(m0=0, m1=1, alpha=0), "alpha"),
                                      (dict(m0=0, m1=1, beta=1.5), "beta"), (dict(m0=0, m1=1, alpha=0.6, beta=0.5), "alpha"),
                                      (dict(m0=0, m1=1, min_deals=1), "min-deals"), (dict(m0=0, m1=1, model="t"), "sprt-model")])
def test_bad_parameters_are_named(bad, name) -> None:
    """Each error starts with the name of the flag that sets it (``arbiter evaluate --NAME``)."""
    with pytest.raises(ValueError, match=f"^{name}: "):
        Sprt(**bad)


def test_parse() -> None:
    assert Sprt.parse("0,50") == Sprt(0.0, 50.0)
    assert Sprt.parse(" -2.5 , 5 ", 0.1, 0.2) == Sprt(-2.5, 5.0, 0.1, 0.2)
    for text in ("50", "a,b", "1,2,3"):
        with pytest.raises(ValueError, match="M0,M1"):
            Sprt.parse(text)


def test_fixed_length_for_comparison() -> None:
    # ((1.645 + 1.645) * 40 / 10)^2 = 173.2
    assert Sprt(0, 10).fixed_deals(40.0) == 174


def test_samplers_have_the_mean_they_promise() -> None:
    xs = recorded("spot_search_heuristic").deal_margins()
    rng = random.Random(3)
    for make in (relabelled, shifted):
        draw = make(xs, 2.0)
        got = mean_se([draw(rng) for _ in range(20_000)])
        assert abs(got.mean - 2.0) < 4 * got.se
    with pytest.raises(ValueError):
        relabelled(xs, 100.0)  # beyond the recorded mean: no mixture reaches it


@pytest.mark.slow
@pytest.mark.parametrize("name,m0,m1", [("spades_heuristic_greedy", 0.0, 10.0), ("spot_search_heuristic", 0.0, 5.0)])
def test_error_rates_and_length_on_recorded_deals(name: str, m0: float, m1: float) -> None:
    """At M0 the test accepts H1 about α of the time, at M1 H0 about β; on average it needs
    about half the deals of the fixed-length test with the same α and β. The measurement is
    the bench's (``sprt.<name>.alpha`` / ``.beta`` / ``.length``, 1,000 runs a round); here
    400 runs a side, held to the same bound as 1,000 were (α + 0.024: the rates are 0.0525 and
    0.0475 on Spades, 0.0425 and 0.055 on Spot), so a test that errs twice as often fails."""
    xs = recorded(name).deal_margins()
    t = Sprt(m0, m1)
    runs = 400
    at0 = simulate(t, relabelled(xs, m0), m0, runs, 5000, random.Random(f"{name}:0"))
    at1 = simulate(t, relabelled(xs, m1), m1, runs, 5000, random.Random(f"{name}:1"))
    slack = 3.5 * math.sqrt(0.05 * 0.95 / 1000)  # 3.5 standard errors of a rate of 0.05 over 1,000 runs
    assert at0.p_h1 <= t.alpha + slack, at0
    assert at1.p_h0 <= t.beta + slack, at1
    assert at0.undecided == at1.undecided == 0
    draw = relabelled(xs, m0)  # (built once: the same draws as one built for each)
    fixed = t.fixed_deals(mean_se([draw(random.Random(i)) for i in range(4000)]).sd)
    assert at0.mean_deals < 0.75 * fixed and at1.mean_deals < 0.75 * fixed, (at0.mean_deals, at1.mean_deals, fixed)


def test_far_from_both_hypotheses_it_is_quick_and_right() -> None:
    xs = recorded("spot_heuristic_random").deal_margins()  # heuristic wins by about 97 units a deal
    t = Sprt(0, 20)
    r = simulate(t, relabelled(xs, mean_se(xs).mean), mean_se(xs).mean, 300, 5000, random.Random(7))
    assert r.p_h1 == 1.0 and r.mean_deals <= 2 * t.min_deals


@pytest.mark.slow
def test_the_normal_form_errs_more_often_than_the_default_on_few_deals() -> None:
    """Why the default is the glr form: the normal form's error rate at M1 on recorded Spades
    deals is above β (the variance of the first deals, when it happens to be small, is taken
    at its word); the glr's is not. Same draws for both."""
    xs = recorded("spades_heuristic_greedy").deal_margins()
    runs = 1000
    rates = {}
    for model in ("normal", "glr"):
        r = simulate(Sprt(0, 10, model=model), relabelled(xs, 10.0), 10.0, runs, 5000, random.Random("models"))
        rates[model] = r.p_h0
    assert rates["normal"] > rates["glr"]
    assert rates["glr"] <= 0.05 + 3.5 * math.sqrt(0.05 * 0.95 / runs)


def test_deals_all_alike_give_an_infinite_ratio_in_words_not_inf() -> None:
    # two bots that play alike: every deal 0, at M0. The glr's ratio is unbounded (no spread at all),
    # and the evidence read "LLR -inf in [-2.94, 2.94]"
    state = Sprt(0, 10).run([0.0] * 30)
    assert state.verdict == "H0 accepted" and state.deals == 20
    assert "inf" not in state.evidence() and "every deal alike: no spread" in state.evidence(), state.evidence()
    assert Sprt(0, 10).run([3.0] * 30).evidence() == state.evidence()


def test_deals_all_alike_say_the_verdict_rests_on_their_having_no_spread() -> None:
    """The normal SPRT accepts the nearer side of deals all alike (no spread: the model takes their
    margin as certain): the note says the verdict rests on that, worded as the other tests' notes are
    ("every deal alike: no spread ...", "the verdict is on ..."); midway between M0 and M1 no side is
    nearer, and the test can never decide: said too (it printed a bare "LLR +0.00" to the cap)."""
    for model in ("glr", "normal"):
        near = Sprt(0, 10, model=model).run([3.0] * 30)
        assert near.verdict == "H0 accepted", near
        said = near.evidence()
        assert said.startswith("every deal alike: no spread, so the normal model takes their margin as certain: "
                               "the verdict rests on that alone"), said
        assert "towards H0" in said and "[-2.94, 2.94]" in said
        mid = Sprt(0, 10, model=model).run([5.0] * 30)
        assert mid.verdict == "no decision", mid
        said = mid.evidence()
        assert said.startswith("every deal alike: no spread, and their margin is midway between M0 and M1"), said
        assert "no number of such deals decides" in said
    spread = Sprt(0, 10).run([0.0, 10.0] * 15).evidence()
    assert spread.startswith("LLR ") and "alike" not in spread
