"""Luck-adjusted margins (arbiter/rating/luck.py, `arbiter evaluate --luck-adjusted`, issue 39):
unbiased by construction on a seeded simulation, biased when centred on a wrong expectation, a
sequential correction that reads only the deals before, and the real thing end to end on Spades
(probes bid as the matches do; the flag on a small run; bad input named). The full simulation and
the variance it cuts on real deals are bench rows (`python -m arbiter.tools.bench -s statistics`,
`luck.*`); numbers in docs/strength.md ("Luck-adjusted margins")."""

from __future__ import annotations

import hashlib
import json
import math
import random

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.batch.plan import deal_seed
from arbiter.rating.luck import (
    LUCK_FEATURES, MANY_DEALS, MIN_DEALS, ExpectedFeatures, OnlineCorrection, luck_adjusted, luck_names,
    recorded_features, simulated_deals,
)
from arbiter.rating.stats import mean_se
from arbiter.tournament.evaluate import evaluate
from arbiter.tournament.probes import luck_probes, probe_seeds, replay_seatings
from cardarena.games import ConfigError

# --------------------------------------------------------------------------------------
# On simulated deals (``simulated_deals``: margins a skewed function of features plus noise,
# the features' expectation known exactly).


def test_the_adjusted_mean_is_unbiased_and_a_wrong_expectation_shows() -> None:
    """Over 80 seeded evaluations of 60 deals, each with probes of its own, the adjusted means'
    error averages to 0 (within 4 of its standard errors) and spreads as their s.e. says, less than
    the raw means'; centred on an expectation off by one unit of a feature they are many standard
    errors away (so the check can fail)."""
    rng = random.Random(0)
    errors, ses, raw_var, wrong = [], [], [], []
    for _ in range(80):
        expected = ExpectedFeatures.of(simulated_deals(rng, 500)[1])
        margins, feats, truth = simulated_deals(rng, 60)
        a = luck_adjusted(margins, feats, expected)
        assert a is not None and a.probes == 500 and a.features == len(expected.names) == 3
        errors.append(a.mean - truth)
        ses.append(a.se)
        raw_var.append(a.raw.se ** 2)
        off = ExpectedFeatures(expected.names, tuple((r[0] + 1.0, *r[1:]) for r in expected.rows))
        wrong.append(luck_adjusted(margins, feats, off).mean - truth)
    e, rms = mean_se(errors), math.sqrt(sum(s * s for s in ses) / len(ses))
    assert abs(e.mean) < 4 * (e.se or 0), e
    assert 0.75 < (e.sd or 0) / rms < 1.25  # the s.e. says how far the adjusted mean strays
    assert rms ** 2 < 0.8 * sum(raw_var) / len(raw_var)
    w = mean_se(wrong)
    assert abs(w.mean) > 4 * (w.se or 0), w


def test_too_few_deals_give_no_adjusted_mean() -> None:
    rng = random.Random(1)
    expected = ExpectedFeatures.of(simulated_deals(rng, 200)[1])
    margins, feats, _ = simulated_deals(rng, MIN_DEALS - 1)
    assert luck_adjusted(margins, feats, expected) is None
    margins, feats, _ = simulated_deals(rng, MIN_DEALS)
    assert luck_adjusted(margins, feats, expected) is not None


def test_the_sequential_correction_reads_only_the_deals_before() -> None:
    """A deal's corrected value does not change when a later deal does; the first MIN_DEALS are
    the raw margins; after them the values spread less than the raw ones and average the same."""
    rng = random.Random(2)
    expected = ExpectedFeatures.of(simulated_deals(rng, 4000)[1])
    margins, feats, truth = simulated_deals(rng, 600)

    def values(ms):
        c = OnlineCorrection(expected)
        return [c.add(m, f) for m, f in zip(ms, feats)]

    first = values(margins)
    changed = values(margins[:300] + [margins[300] + 1000.0] + margins[301:])
    assert first[:300] == changed[:300] and changed[300] == pytest.approx(first[300] + 1000.0)  # its own slope: the same
    assert first[301:] != changed[301:]
    assert first[:MIN_DEALS] == margins[:MIN_DEALS]
    late, raw = mean_se(first[100:]), mean_se(margins[100:])
    assert (late.sd or 0) < 0.85 * (raw.sd or 0)
    assert abs(late.mean - truth) < 4 * (late.se or 0)


def test_a_prior_fit_corrects_from_the_first_deal_and_stays_unbiased() -> None:
    """Learnt first from deals of an earlier evaluation, the correction works from the first
    deal: over 200 seeded runs of 10 deals each, its values spread less than the raw margins and
    average the truth."""
    rng = random.Random(3)
    expected = ExpectedFeatures.of(simulated_deals(rng, 4000)[1])
    earlier, feats, truth = simulated_deals(rng, 300)
    prior = list(zip(earlier, feats))
    assert OnlineCorrection(expected, prior=prior).prior == 300
    values, raw = [], []
    for _ in range(200):
        c = OnlineCorrection(expected, prior=prior)
        margins, fs, _ = simulated_deals(rng, 10)
        values += [c.add(m, f) for m, f in zip(margins, fs)]
        raw += margins
    v, r = mean_se(values), mean_se(raw)
    assert (v.sd or 0) < 0.8 * (r.sd or 0)
    assert abs(v.mean - truth) < 4 * (v.se or 0), v


# --------------------------------------------------------------------------------------
# Real Spades deals.

GAME, A, B, OPTIONS = "spades", "heuristic", "greedy", {"deals": 1}


#: ``sha256`` of the features of the first 40 probe deals (``probe_seeds("bid-probes", 40)``, both
#: seatings) and the first deal's bids, per pair: what the probes gave when they were played by a
#: loop of their own (``SeatingPlayer``, before the runner could stop a match after the bidding;
#: commit 494a44e). "random" holds the bot seeds and the match's shape to it too.
PROBES_BEFORE = {
    ("heuristic", "greedy"): ("0e7f360d02e7c817", [[4, 2, 3, 3], [2, 2, 3, 2]]),
    ("random", "heuristic"): ("ff0da521b6028499", [[0, 2, 6, 2], [4, 12, 3, 0]]),
    ("greedy", "random"): ("c49a6f4661ee4fe1", [[2, 12, 3, 0], [0, 2, 6, 3]]),
}


@pytest.mark.parametrize("pair", list(PROBES_BEFORE))
def test_the_runners_probes_bid_as_the_separate_player_did(pair) -> None:
    """The probes are runner matches stopped after the bidding (``MatchConfig.stop_after``),
    played by the batch engine: on seeded deals, the same bids and features as before."""
    digest, first = PROBES_BEFORE[pair]
    played = replay_seatings(GAME, *pair, probe_seeds("bid-probes", 40), (0, 1), OPTIONS, bidding_only=True)
    rows = [recorded_features(p) for p in played]
    assert [list(r.bids) for r in played[0]] == first
    assert all(4 <= r.decisions <= 8 and r.margin is None for p in played for r in p)  # a bid a seat, most look first
    assert hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:16] == digest


def test_probes_bid_as_the_evaluations_matches_and_the_flag_end_to_end() -> None:
    """The features read from an evaluation's match records are a bidding-only probe's of the
    same deal; the adjusted margin stays within 3 standard errors of the raw one; the CLI prints
    both and says which is which (20 probe deals: the CLI's must give evaluate's margin, not a precise one)."""
    probes = luck_probes(GAME, A, B, OPTIONS, deals=20)
    assert probes.expected.probes == 20 and set(LUCK_FEATURES) < set(probes.expected.names)
    r = evaluate(GAME, A, B, deals=MIN_DEALS, seed=5, options=OPTIONS, luck=probes)
    seeds = [deal_seed(5, d) for d in (0, 1, 2, MIN_DEALS - 1)]
    pairs = replay_seatings(GAME, A, B, seeds, (0, 1), OPTIONS, bidding_only=True)
    assert [recorded_features(p) for p in pairs] == [r.luck_features[d] for d in (0, 1, 2, MIN_DEALS - 1)]
    adj = r.luck
    assert adj is not None and adj.raw.mean == pytest.approx(r.mean_margin) and adj.features == len(LUCK_FEATURES)
    assert abs(adj.mean - adj.raw.mean) < 3 * math.hypot(adj.se, adj.raw.se or 0)
    assert r.to_json()["luck"]["mean"] == pytest.approx(adj.mean)

    out = CliRunner().invoke(app, ["evaluate", GAME, A, B, "--deals", str(MIN_DEALS), "--seed", "5", "-o", "deals=1",
                                   "--luck-adjusted", "--probes", "20"])
    assert out.exit_code == 0, out.output
    assert f"luck-adjusted margin {adj.mean:+.2f} ± {adj.se:.2f}" in out.output
    assert f"raw {adj.raw}" in out.output and "20 probe deals" in out.output
    # too few deals for a margin: refused before the probes (tests/arbiter/tournament/test_evaluate.py); the
    # library still says why there is none
    few = evaluate(GAME, A, B, deals=3, options=OPTIONS, luck=luck_probes(GAME, A, B, OPTIONS, deals=20))
    assert "luck-adjusted margin: none, 3 deals are fewer than" in (few.luck_summary() or "")


def test_a_sequential_test_reads_the_adjusted_margins_and_says_so() -> None:
    probes = luck_probes(GAME, A, B, OPTIONS, deals=30)
    out = CliRunner().invoke(app, ["evaluate", GAME, A, B, "--sprt", "0,200", "--sd-bound", "60", "-o", "deals=1",
                                   "--luck-adjusted", "--probes", "30", "--deals", "8"])
    assert out.exit_code == 0, out.output
    assert "on the luck-adjusted margin (each deal corrected with slopes fitted on the deals before it" in out.output
    from arbiter.rating.catoni import VarianceTest

    r = evaluate(GAME, A, B, deals=8, options=OPTIONS, luck=probes, sprt=VarianceTest(0, 200, 60))
    assert r.luck_test and r.sprt_state is not None and r.sprt_state.deals == r.deals


@pytest.mark.parametrize("args,words", [
    ([GAME, A, B, "--luck-adjusted"], "-o deals=1"),
    ([GAME, A, B, "--luck-adjusted", "-o", "deals=1", "--sprt", "0,20"], "--sd-bound"),
    ([GAME, A, B, "--luck-adjusted", "-o", "deals=1", "--sprt", "0.5,0.6", "--sequential", "score"], "--sd-bound"),
    ([GAME, A, B, "--luck-adjusted", "-o", "deals=1", "--transport", "grpc"], "in this process"),
    ([GAME, A, B, "--probes", "100", "-o", "deals=1"], "error: --probes: needs --luck-adjusted"),
    ([GAME, A, B, "--probes-file", "p.json", "-o", "deals=1"], "error: --probes-file: needs --luck-adjusted"),
    ([GAME, A, B, "--probes", "9", "--probes-file", "p.json"], "error: --probes and --probes-file: need --luck-adjusted"),
    ([GAME, A, B, "--luck-adjusted", "--probes", "1", "-o", "deals=1"], "from 2 to 100000 probe deals"),
])
def test_bad_input_gives_one_clear_error(args, words) -> None:
    line = evaluate_error(args)
    assert words in line, line


def evaluate_error(args: list[str]) -> str:
    """The one ``error:`` line of ``arbiter evaluate ARGS``, which must exit 2 with no traceback."""
    out = CliRunner().invoke(app, ["evaluate", *args])
    assert out.exit_code == 2, out.output
    assert "Traceback" not in out.output
    return next(x for x in out.output.splitlines() if x.startswith("error:"))


def test_the_library_refuses_what_it_cannot_correct(tmp_path) -> None:
    with pytest.raises(ConfigError, match="-o deals=1"):
        luck_probes(GAME, A, B, {}, deals=5)
    probes = luck_probes(GAME, A, B, OPTIONS, deals=3)
    with pytest.raises(ConfigError, match="another game or options"):
        evaluate(GAME, A, B, deals=1, options={"deals": 1, "target": 300}, luck=probes)
    from arbiter.rating.betting import BettingTest

    with pytest.raises(ConfigError, match="bounds"):
        evaluate(GAME, A, B, deals=1, options=OPTIONS, luck=probes, sprt=BettingTest(0, 20, -900, 900))
    # the tests made of the betting test bet within the raw margin's bounds too (the store's default, its switch)
    from arbiter.rating.catoni import BettingThenVariance, OwnDealsOrBetting

    from arbiter.store.db import Store

    with Store(tmp_path / "e.sqlite") as store:
        for made in (BettingThenVariance(BettingTest(0, 20, -900, 900)), OwnDealsOrBetting(BettingTest(0, 20, -900, 900))):
            with pytest.raises(ConfigError, match="bounds"):
                evaluate(GAME, A, B, deals=1, options=OPTIONS, luck=probes, sprt=made, store=store)


def test_every_luck_bench_figure_has_a_label_and_a_target() -> None:
    from arbiter.tools.statreport import BENCH_LABELS, luck_simulation

    sim = luck_simulation(0, 3, deals=MIN_DEALS, probes=50)
    assert {f"luck.simulated.{k}" for k in sim} <= set(BENCH_LABELS)
    real = {f"luck.spades_heuristic_greedy.{k}" for k in ("per_match", "plain_per_match", "ratio", "shift_z")}
    real |= {f"luck.sequential.spades_heuristic_greedy.{m}.{e}" for m in (20, 50) for e in ("alpha", "beta", "length")}
    assert real <= set(BENCH_LABELS)
    assert BENCH_LABELS["luck.spades_heuristic_greedy.per_match"][3] == "<= 0.5 (issue 39)"


def test_a_probes_file_is_reused_checked_and_refused_when_it_does_not_fit(tmp_path) -> None:
    """Written by one evaluation, read by the next (no probe played but the rechecked ones); a
    file whose probes no longer bid as the bots do, or of another pair, is an error, not used."""
    import json

    from arbiter.tournament.probes import PROBES_RECHECKED

    f = tmp_path / "probes.json"
    first = luck_probes(GAME, A, B, OPTIONS, deals=24, file=f)
    assert first.reused == 0 and len(json.loads(f.read_text())["rows"]) == 24
    again = luck_probes(GAME, A, B, OPTIONS, deals=24, file=f)
    assert again.reused == 24 and again.expected == first.expected
    assert again.decisions < first.decisions * (PROBES_RECHECKED + 1) / 24  # only the rechecked deals were played
    more = luck_probes(GAME, A, B, OPTIONS, deals=30, file=f)
    assert more.reused == 24 and more.expected.probes == 30 and len(json.loads(f.read_text())["rows"]) == 30

    out = CliRunner().invoke(app, ["evaluate", GAME, A, B, "--deals", "2", "-o", "deals=1", "--luck-adjusted",
                                   "--probes", "30", "--probes-file", str(f)])
    assert out.exit_code == 0, out.output
    # the evaluation's deals are kept for the next one's sequential test, which starts from them
    # unless they are its own deals (the same seed: they would not be independent of them)
    assert [d[0] for d in json.loads(f.read_text())["fit"]] == [deal_seed(0, 0), deal_seed(0, 1)]
    kept = luck_probes(GAME, A, B, OPTIONS, deals=30, file=f)
    assert len(kept.fit) == 2
    from arbiter.rating.sprt import Sprt

    assert evaluate(GAME, A, B, deals=2, seed=0, options=OPTIONS, luck=kept, sprt=Sprt(0, 500)).luck_prior == 0
    other = evaluate(GAME, A, B, deals=2, seed=1, options=OPTIONS, luck=kept, sprt=Sprt(0, 500))
    assert other.luck_prior == 2 and "slopes fitted on 2 deals of earlier evaluations" in (other.sprt_summary() or "")

    data = json.loads(f.read_text())
    for row in data["rows"]:
        row["a_nils"] += 1  # as if the bots had bid otherwise when it was written
    f.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="bids differently now"):
        luck_probes(GAME, A, B, OPTIONS, deals=30, file=f)
    with pytest.raises(ConfigError, match="another evaluation .its bots differ"):
        luck_probes(GAME, A, "random", OPTIONS, deals=30, file=f)
    f.write_text("{not json")
    bad = CliRunner().invoke(app, ["evaluate", GAME, A, B, "--deals", "2", "-o", "deals=1", "--luck-adjusted",
                                   "--probes-file", str(f)])
    assert bad.exit_code == 2 and "not a probes file" in bad.output and "Traceback" not in bad.output


MATCH_ID_BOT = '''
import hashlib

from sdk import Bot


class MatchIdBot(Bot):
    """Bids by its match id: a probe (another id) sees the same cards and bids otherwise."""

    name = "match-id"
    games = ("*",)
    deterministic = False

    def choose(self, view, legal_actions):
        return legal_actions[int(hashlib.sha256(self.info.match_id.encode()).hexdigest(), 16) % len(legal_actions)]
'''


def test_a_bot_that_bids_otherwise_in_a_probe_is_caught_on_the_first_deals(tmp_path) -> None:
    """The probes are valid only for bots that bid in a probe as in the match; evaluate checks
    the first deals' matches against probes of the same deals and refuses to go on if they differ."""
    bot = tmp_path / "match_id_bot.py"
    bot.write_text(MATCH_ID_BOT)
    probes = luck_probes(GAME, str(bot), B, OPTIONS, deals=5)
    with pytest.raises(ConfigError, match="bid otherwise in its matches than in a probe"):
        evaluate(GAME, str(bot), B, deals=5, options=OPTIONS, luck=probes, transport="inproc")


def test_the_features_follow_the_deal_count_alone() -> None:
    """Few deals: the five; from MANY_DEALS on, every recorded feature (fitted on that many deals
    they cut more); the choice never looks at the margins."""
    assert luck_names(MANY_DEALS - 1) == tuple(sorted(LUCK_FEATURES))
    assert luck_names(MANY_DEALS) is None
    rng = random.Random(4)
    expected = ExpectedFeatures.of(simulated_deals(rng, 300)[1])
    margins, feats, _ = simulated_deals(rng, 60)
    one = luck_adjusted(margins, feats, expected, names=("f0",))
    assert one is not None and one.features == 1
    assert luck_adjusted(margins, feats, expected).features == 3


def test_a_bot_that_fails_in_a_probe_is_one_clear_error() -> None:
    """A probe whose bot fails before its bidding ends (its side forfeits the match the runner
    stopped nothing of): no expectation can be had from it, and the error says so."""
    from pathlib import Path

    crasher = f"{Path(__file__).parents[2] / 'e2e' / 'zoo.py'}:RaiseInStart"
    with pytest.raises(ConfigError, match="a probe's bidding did not finish"):
        luck_probes(GAME, crasher, B, OPTIONS, deals=2)


def test_deals_all_alike_have_no_luck_to_take_out_and_say_so() -> None:
    # a bot that forfeits every match: every deal -1. The adjusted margin read "-1.00 ± 0.00
    # (s.e.)" and its variance "1.00x the raw margin's" (0 over 0)
    rng = random.Random(3)
    feats = [{"f0": rng.gauss(0, 1), "f1": rng.gauss(0, 1)} for _ in range(41)]
    adj = luck_adjusted([-1.0] * 41, feats, ExpectedFeatures.zero(["f0", "f1"]))
    text = adj.describe()
    assert adj.mean == -1.0 and "± 0.00" not in text and "1.00x" not in text, text
    assert "all 41 deals alike" in text
