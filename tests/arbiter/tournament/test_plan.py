"""``arbiter evaluate --sprt M0,M1 --db FILE --plan``: how many deals each test would need, from
the deals stored before, with nothing played (``arbiter.tournament.plan``)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.cli._common import out
from arbiter.rating.catoni import round_up
from arbiter.rating.sprt import Sprt
from arbiter.rating.stats import mean_se
from arbiter.store.db import Store
from arbiter.tournament.evaluate import SdSource, evaluate, sd_from_store
from arbiter.tournament.plan import deals_plan
from cardarena.games import ConfigError

#: One worker runs the module: its module fixture, the store of 100 deals (``stored``,
#: ~1.3 CPU-s), was made again on every worker that
#: ran a run of its tests (xdist hands a module out in runs of eight).
pytestmark = pytest.mark.xdist_group("plan")

ONE = {"deals": 1}
BOUNDS = (-900.0, 900.0)


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A store holding 100 deals of greedy against random (the least ``--sd-bound auto`` reads)."""
    db = tmp_path_factory.mktemp("plan") / "eval.sqlite"
    with Store(db) as store:
        result = evaluate("spades", "greedy", "random", deals=100, seed=1, options=ONE, store=store)
    return db, result


def test_each_test_runs_on_the_pairs_own_deals_and_says_how_long_and_how_often_wrong(stored) -> None:
    db, result = stored
    margins = result.deal_margins()
    sd = mean_se(margins).sd
    with Store(db, read_only=True) as store:
        p = deals_plan(store, "spades", ("greedy", "random"), ONE, None, 0, 50, bounds=BOUNDS, runs=200)
        # seeded: the same plan every time (checked on 20 runs a side, a tenth of the play)
        small = [deals_plan(store, "spades", ("greedy", "random"), ONE, None, 0, 50, bounds=BOUNDS, runs=20) for _ in "ab"]
        # the pair turned round: only its stored margin is read, which the simulated runs never touch (1 run)
        turned = deals_plan(store, "spades", ("random", "greedy"), ONE, None, -50, 0, bounds=BOUNDS, runs=1)
        with pytest.raises(ConfigError, match="plan: .* holds no 100 deals of one pair of bots at spades with these options"):
            deals_plan(store, "spades", ("greedy", "random"), {"deals": 2}, None, 0, 50, bounds=BOUNDS)
        with pytest.raises(ValueError, match="less than"):
            deals_plan(store, "spades", ("greedy", "random"), ONE, None, 50, 0, bounds=BOUNDS)
    assert small[0] == small[1] and small[0].rows[0].at_m1.runs == 20
    assert p.among == "" and p.source.deals == 100 and p.sd == pytest.approx(sd)
    assert p.stored_margin == pytest.approx(result.mean_margin) and turned.stored_margin == pytest.approx(-result.mean_margin)
    assert p.fixed == Sprt(0, 50).fixed_deals(sd)
    betting, auto, normal = p.rows
    assert [r.name for r in p.rows] == ["betting", "auto", "normal"]
    assert betting.flags == "bounds -900..900" and normal.flags == "--sequential normal"
    assert auto.flags == f"--sd-bound auto, S = {round_up(1.2 * sd):g}" and auto.test.sd_bound == round_up(1.2 * sd)  # 100 deals
    for row in p.rows:
        assert row.at_m0.runs == row.at_m1.runs == 200 and row.at_m0.true_margin == 0 and row.at_m1.true_margin == 50
        assert row.at_stored.true_margin == pytest.approx(result.mean_margin)
    # the two valid tests keep their error rates on these deals (alpha = beta = 0.05, 200 runs)
    for row in (betting, auto):
        assert row.at_m0.p_h1 <= 0.09 and row.at_m1.p_h0 <= 0.09
    # within Spades' wide bounds the betting test is the long one; both see the stored margin (~+280) at once
    assert betting.at_m1.mean_deals > 2 * auto.at_m1.mean_deals and betting.at_m0.mean_deals > 2 * auto.at_m0.mean_deals
    assert betting.at_stored.p_h1 == auto.at_stored.p_h1 == 1.0 and auto.at_stored.mean_deals < auto.at_m1.mean_deals


def test_a_pair_with_no_deals_of_its_own_plans_on_its_kins_and_a_given_bound_is_used(stored) -> None:
    db, result = stored
    with Store(db, read_only=True) as store:
        p = deals_plan(store, "spades", ("heuristic", "random"), ONE, None, 0, 50, bounds=None, sd_bound="75", runs=50)
    assert p.among == "with heuristic or random at spades with these options" and p.stored_margin is None
    assert p.source.pair == ("greedy", "random") and result.stored_as in p.describe_source()
    assert "none of this pair" in p.describe_source()
    betting, given, _ = p.rows
    assert betting.at_m0 is None and "--bounds LO,HI" in betting.why
    assert given.name == "variance" and given.flags == "--sd-bound 75" and given.test.sd_bound == 75
    assert given.at_stored is None
    assert given.why.startswith(f"below the s.d. of the deals drawn from, {p.sd:.4g}") and p.sd > 75, given.why


def test_a_given_bound_below_the_deals_s_d_is_said_to_be(stored) -> None:
    """--sd-bound below the stored deals' s.d.: the plan's error rates for it exceed alpha, and
    the plan said nothing of why (a QA pass: 10.4% wrong at M0 with alpha 0.05, unexplained)."""
    db, _ = stored
    with Store(db, read_only=True) as store:
        sd = deals_plan(store, "spades", ("greedy", "random"), ONE, None, 0, 50, bounds=None, runs=10).sd
        low = max(1, int(sd / 2))
        p = deals_plan(store, "spades", ("greedy", "random"), ONE, None, 0, 50, bounds=None, sd_bound=str(low), runs=50)
        above = deals_plan(store, "spades", ("greedy", "random"), ONE, None, 0, 50, bounds=None, sd_bound=str(int(2 * sd)),
                           runs=10)
    assert next(r for r in above.rows if r.name == "variance").why == ""  # a bound above them: nothing more to say
    given = next(r for r in p.rows if r.name == "variance")
    assert given.why.startswith(f"below the s.d. of the deals drawn from, {sd:.4g}"), given.why
    args = ["evaluate", "spades", "greedy", "random", "-o", "deals=1", "--sprt", "0,50", "--db", str(db), "--plan",
            "--sd-bound", str(low)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0 and f"variance: --sd-bound {low} (below the s.d. of the deals drawn from" in " ".join(
        r.output.split()), r.output


def test_the_cli_prints_the_plan_and_plays_nothing(stored, monkeypatch) -> None:
    db, result = stored
    monkeypatch.setattr(out, "width", 160)  # a row a line
    monkeypatch.delenv("COLUMNS", raising=False)  # (console_width takes the narrower of the two)
    with Store(db, read_only=True) as store:
        before = [(t.name, len(store.matches(t.id, records=False))) for t in store.tournaments()]
    args = ["evaluate", "spades", "greedy", "random", "--sprt", "0,50", "-o", "deals=1", "--db", str(db)]
    r = CliRunner().invoke(app, [*args, "--plan"])
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "each test run 500 times on deals drawn from the 100 stored deals of this pair" in text
    header = next(line for line in r.output.splitlines() if line.startswith("mean deals"))
    # no test named, and the deals are this pair's own: the store's choice, the variance-bounded test at auto's bound
    assert header.split() == ["mean", "deals", "betting", "*", "auto", "normal", "fixed"]
    rows = {line.split(")")[0] + ")": line for line in r.output.splitlines() if line.startswith("at ")}
    assert list(rows) == ["at 0 (H0)", "at 50 (H1)", f"at {result.mean_margin:+.4g} (stored)"]
    assert "(H1 " in rows["at 0 (H0)"] and "(H0 " in rows["at 50 (H1)"]
    assert "betting: bounds -900..900; * auto: --sd-bound auto, S =" in text
    assert "*: the test this command runs" in text and "nothing was played" in text
    with Store(db, read_only=True) as store:
        assert [(t.name, len(store.matches(t.id, records=False))) for t in store.tournaments()] == before
    for extra, message in ((["--sequential", "score", "--sprt", "0.5,0.6"], "asks another question"),
                           (["--luck-adjusted"], "not with --luck-adjusted"),
                           (["--json", "out.json"], "error: --json: a setting of a run"),
                           (["--transport", "bogus"], "error: --transport: a setting of a run")):
        r = CliRunner().invoke(app, [*args, *extra, "--plan"])
        assert r.exit_code == 2 and message in " ".join(r.output.split()), r.output
    r = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "--sprt", "0,50", "-o", "deals=1", "--plan"])
    assert r.exit_code == 2 and "--plan needs --sprt M0,M1 (the question) and --db FILE" in " ".join(r.output.split())


def test_a_plan_from_100_stored_deals_comes_near_the_truth() -> None:
    """The bench's ``plan`` rows, small and seeded: the plan read from 100 deals of the recorded
    close Spades pair against the same test on all 400 (python -m arbiter.tools.sequential --plan)."""
    from arbiter.tools.sequential import plan_accuracy_rows

    rows = {r["test"]: r for r in plan_accuracy_rows(reps=4, runs=60, seed=1, cases=(("spades_heuristic_greedy", (0.0, 50.0)),))}
    assert set(rows) == {"betting", "auto", "normal"}
    for test in ("betting", "auto"):
        assert 0.8 <= rows[test]["p10"] <= rows[test]["median"] <= rows[test]["p90"] <= 1.25, rows[test]


_BOT = "from sdk import Bot\n\nclass B(Bot):\n    name = 'mine'\n    games = ('spades',)\n\n" \
       "    def choose(self, view, legal_actions):\n        return legal_actions[{i}]\n"


def test_a_plan_says_which_stored_deals_an_earlier_version_of_a_bot_file_played(tmp_path) -> None:
    bot = tmp_path / "mine.py"
    bot.write_text(_BOT.format(i=0))
    with Store(tmp_path / "e.sqlite") as store:
        kw = dict(options=ONE, store=store, transport="inproc")
        evaluate("spades", str(bot), "random", deals=6, seed=1, **kw)
        bot.write_text(_BOT.format(i=-1))  # the author's next version
        evaluate("spades", str(bot), "random", deals=4, seed=2, **kw)

        def plan():
            return deals_plan(store, "spades", (str(bot), "random"), ONE, None, 0, 50, bounds=BOUNDS, runs=5, history=8)

        p = plan()
        assert p.source.deals == 10 and p.edited == {str(bot): 6}
        assert f"6 of them by another version of {bot} than today's" in p.describe_source()
        bot.write_text(_BOT.format(i=0))  # the first version back: the other four are another's now
        assert plan().edited == {str(bot): 4}
        # --sd-bound auto says the same of the deals it read its bound from, and keeps it
        src = sd_from_store(store, "spades", (str(bot), "random"), ONE, None, min_deals=8)
        assert src.edited == ((str(bot), 4),) and f"4 of them by another version of {bot} than today's" in src.describe()
        assert SdSource.from_json(src.to_json()) == src
        kept = {k: v for k, v in src.to_json().items() if k != "edited"}  # as a run before this kept it
        assert SdSource.from_json(kept).edited == ()


def test_the_tables_of_two_in_a_duplicate_round_robin_are_read_as_the_evaluations_they_play(tmp_path) -> None:
    """``arbiter tournament run --bots A,B`` plays ``arbiter evaluate A B``'s matches, and a round
    robin of more bots plays them at each table of two: their deals count, once per seed."""
    import asyncio

    from arbiter.tournament.evaluate import stored_pairs
    from arbiter.tournament.run import TournamentSpec, run_tournament

    db = tmp_path / "t.sqlite"
    with Store(db) as store:
        for bots, name, seed in ((("greedy", "random"), "pair", 4), (("random", "greedy", "heuristic"), "three", 5)):
            spec = TournamentSpec(game="spades", bots=bots, options={"deals": "1"}, deals=3, seed=seed, name=name)
            asyncio.run(run_tournament(spec, store, transport="inproc"))
        on4 = evaluate("spades", "greedy", "random", deals=3, seed=4, options=ONE, store=store)
        on5 = evaluate("spades", "greedy", "random", deals=3, seed=5, options=ONE)
        pairs = {p.pair: p for p in stored_pairs(store, "spades", ONE, None)}
    assert set(pairs) == {("greedy", "random"), ("random", "heuristic"), ("greedy", "heuristic")}
    gr = pairs[("greedy", "random")]
    # the evaluation on seed 4 played the two-bot tournament's deals: counted once; the round
    # robin's table on seed 5 played seed 5's evaluation, margin for margin (its own order: random first)
    assert [n for n, _ in gr.evaluations] == ["pair", "three"] and gr.deals == 6
    assert list(gr.evaluations[0][1]) == pytest.approx(on4.deal_margins())
    assert list(gr.evaluations[1][1]) == pytest.approx(on5.deal_margins())
    assert gr.margins(("random", "greedy"))[3:] == pytest.approx([-m for m in on5.deal_margins()])
    assert pairs[("random", "heuristic")].deals == pairs[("greedy", "heuristic")].deals == 3


def test_the_plans_normal_column_takes_sprt_model_whichever_test_the_command_runs(stored) -> None:
    """--plan runs every test, the normal SPRT among them with --sprt-model: the model is not
    refused for belonging to another test than the one chosen (as it is for a run)."""
    db, _ = stored
    args = ["evaluate", "spades", "greedy", "random", "--sprt", "0,50", "-o", "deals=1", "--db", str(db),
            "--sprt-model", "normal"]
    r = CliRunner().invoke(app, [*args, "--plan"])
    assert r.exit_code == 0 and "normal: --sequential normal" in " ".join(r.output.split()), r.output
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 2 and "--sprt-model: only the normal SPRT has a model" in " ".join(r.output.split()), r.output


@pytest.mark.parametrize("bad,message", [(["--min-deals", "1"], "error: --min-deals: must be at least 2"),
                                         (["--sprt-model", "exact"], "error: --sprt-model: must be one of glr, normal")])
def test_a_setting_only_the_plans_other_tests_refuse_is_one_line(stored, bad, message) -> None:
    """--plan runs the normal SPRT beside the chosen test: a setting it refuses (--min-deals 1, valid
    for the betting test) ended in a ValueError traceback from the plan."""
    db, _ = stored
    r = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "--sprt", "0,50", "-o", "deals=1",
                                 "--db", str(db), "--plan", *bad])
    assert r.exit_code == 2 and message in " ".join(r.output.split()), (r.output, r.exception)


@pytest.mark.parametrize("extra,named", [(["--name", "mine"], "--name"), (["--fresh"], "--fresh"),
                                         (["--name", "mine", "--fresh"], "--name, --fresh"),
                                         (["-j", "2"], "--jobs"), (["--decision-ms", "100"], "--decision-ms"),
                                         (["--json", "out.json"], "--json"),
                                         (["--transport", "inproc"], "--transport"),
                                         (["--cluster", "tcp://127.0.0.1:8786"], "--cluster")])
def test_a_plan_refuses_the_settings_of_a_run_it_does_not_play(stored, extra, named) -> None:
    """--plan plays nothing, and said nothing of --name or --fresh given with it: an author who
    added --plan to a run's command (or --name to pick the stored evaluation to plan from) read a
    plan that had ignored them. Refused as a test's settings are without --sprt: each flag named."""
    db, _ = stored
    r = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "--sprt", "0,50", "-o", "deals=1",
                                 "--db", str(db), "--plan", *extra])
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and f"error: {named}: " in text and "of a run" in text and "--plan plays nothing" in text, text


def test_the_plan_takes_each_of_its_tests_settings_whichever_test_the_command_runs(stored) -> None:
    """--plan runs every test: --sd-bound S sets its variance column and --bounds its betting column,
    as --sprt-model sets its normal one, whichever --sequential the command names. They were refused
    for not belonging to the chosen test (a run's rule): --sprt-model alone was taken."""
    db, _ = stored
    args = ["evaluate", "spades", "greedy", "random", "--sprt", "0,50", "-o", "deals=1", "--db", str(db)]
    r = CliRunner().invoke(app, [*args, "--plan", "--sequential", "normal", "--sd-bound", "80"])
    assert r.exit_code == 0 and "variance: --sd-bound 80" in " ".join(r.output.split()), r.output
    r = CliRunner().invoke(app, [*args, "--plan", "--sd-bound", "80", "--bounds", "-500,500"])
    text = " ".join(r.output.split())
    assert r.exit_code == 0 and "betting: bounds -500..500" in text and "--sd-bound 80" in text, r.output
    for run in (["--sequential", "normal", "--sd-bound", "80"], ["--sd-bound", "80", "--bounds", "-500,500"]):
        r = CliRunner().invoke(app, [*args, *run])  # a run still refuses what its test does not read
        assert r.exit_code == 2 and "only the" in r.output, r.output
