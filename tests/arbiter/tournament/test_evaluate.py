"""Duplicate evaluation: seating, margins, standard error, the CLI command."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from cardarena.games import ConfigError
from arbiter.batch.plan import pair_seatings
from arbiter.tournament.evaluate import EvalResult, MatchMargin, evaluate
from cardarena.games import get_game


def test_seatings_swap_sides() -> None:
    assert pair_seatings(get_game("spades", {}), "a", "b") == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    assert pair_seatings(get_game("spite-and-malice", {}), "a", "b") == [("a", "b"), ("b", "a")]
    assert pair_seatings(get_game("spot", {"players": 4}), "a", "b") == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    # an odd number of sides: the bots exchanged, not a rotation that keeps one a side ahead
    assert pair_seatings(get_game("spot", {"players": 3}), "a", "b") == [("a", "b", "a"), ("b", "a", "b")]


def test_margin_and_standard_error_over_deals() -> None:
    r = EvalResult("spades", "a", "b", 3, 0, {})
    for d, (x, y) in enumerate([(10, 30), (-20, 0), (40, 20)]):
        r.matches += [MatchMargin(d, 0, 0, x, "completed"), MatchMargin(d, 1, 0, y, "completed")]
    assert r.deal_margins() == [20, -10, 30]
    assert r.mean_margin == pytest.approx(40 / 3)
    # sample s.d. of (20, -10, 30) is 20.8167; / sqrt(3)
    assert r.stderr == pytest.approx(12.0185, rel=1e-4)
    assert (r.wins, r.draws, r.losses) == (4, 1, 1)
    assert r.win_rate == pytest.approx(4.5 / 6)
    assert r.summary().endswith("win rate 75.0% (4-1-1, a draw counting half)")  # 4 of 6 won: the draw's half said


def test_same_seed_same_result_and_a_bot_against_itself_is_even() -> None:
    a = evaluate("spades", "heuristic", "random", deals=1, seed=4, options={"deals": 1})
    b = evaluate("spades", "heuristic", "random", deals=1, seed=4, options={"deals": 1})
    assert a.matches == b.matches and len(a.matches) == 2
    same = evaluate("spades", "heuristic", "heuristic", deals=2, seed=4, options={"deals": 1})
    assert same.mean_margin == 0  # duplicate deals: identical bots cancel exactly


def test_bad_input_is_named() -> None:
    with pytest.raises(ConfigError, match="deals"):
        evaluate("spades", "heuristic", "random", deals=0)
    with pytest.raises(ConfigError, match="greedy.*spot"):
        evaluate("spot", "greedy", "random", deals=1)


def test_cli_prints_margin_and_standard_error() -> None:
    result = CliRunner().invoke(app, ["evaluate", "spot", "heuristic", "random", "--deals", "2", "--seed", "1", "-o", "hands=1"])
    assert result.exit_code == 0, result.output
    assert "heuristic vs random" in result.output and "s.e." in result.output and "win rate" in result.output
    assert "too few deals for an interval" in result.output  # 2 deals (ratings.MIN_INTERVAL_DEALS)
    assert "played: in process (the default for these bots" in result.output  # bundled bots: no process started
    bad = CliRunner().invoke(app, ["evaluate", "spades", "heuristic", "nobot"])
    assert bad.exit_code == 2 and "nobot" in bad.output


def test_a_run_that_plays_nothing_says_so_not_where_it_would_have_played(tmp_path) -> None:
    """A run whose every match is read from --db (the same command again, or fewer --deals read
    from a longer stored run) said "played: in process as asked: BOT ran in the arbiter's process"
    (its --transport), though it opened no venue and the matches were played as the stored run
    played them (hosted, say)."""
    db = tmp_path / "e.sqlite"
    args = ["evaluate", "spot", "heuristic", "random", "-o", "hands=1", "--seed", "1", "--db", str(db)]
    first = CliRunner().invoke(app, [*args, "--deals", "2"])
    assert first.exit_code == 0 and "played: in process (the default" in first.output, first.output
    for deals, n in (("2", 4), ("1", 2)):  # resumed whole, then read from the longer one
        again = CliRunner().invoke(app, [*args, "--deals", deals, "--transport", "grpc"])
        assert again.exit_code == 0, again.output
        lines = [x for x in again.output.splitlines() if x.startswith("played: ")]
        assert lines == [f"played: none by this run, its {n} matches read from {db} as they were played there"], \
            again.output
    more = CliRunner().invoke(app, [*args, "--deals", "3"])  # an extension plays its new deal: said as before
    assert more.exit_code == 0 and "played: in process (the default" in more.output, more.output


# --------------------------------------------------------------------------------------
# The sequential test, the store (resume) and the JSON export.

import json  # noqa: E402

from arbiter.store.db import Store, StoreError  # noqa: E402
from arbiter.rating.sprt import Sprt  # noqa: E402


@pytest.mark.e2e
def test_sprt_stops_at_a_decision_and_jobs_change_nothing() -> None:
    test = Sprt(0, 50)
    one = evaluate("spades", "heuristic", "random", deals=200, seed=1, options={"deals": 1}, sprt=test)
    assert one.sprt_state is not None and one.sprt_state.verdict == "H1 accepted"
    assert test.min_deals <= one.deals < one.fixed_deals() and len(one.matches) == 2 * one.deals
    assert one.sprt_state == test.run(one.deal_margins())  # the same test as on the finished list
    two = evaluate("spades", "heuristic", "random", deals=200, seed=1, options={"deals": 1}, sprt=test, jobs=2)
    assert two.matches == one.matches and two.sprt_state == one.sprt_state
    assert "H1 accepted after" in one.sprt_summary()


def test_betting_tests_stop_at_their_decision_as_on_the_finished_list() -> None:
    from arbiter.rating.betting import BettingTest, known_bounds

    margin = BettingTest(0, 50, *known_bounds("spades", {"deals": 1}))
    # Deal seed 2: on seed 1, since the heuristic defends against a nil (session 11), its 15
    # deals against random vary so little (s.d. 51, was 98: 16 deals of 42) that a fixed-length
    # test would need 12 where the betting test (within -900..900) stopped at 15; seed 2: 18 of 52.
    r = evaluate("spades", "heuristic", "random", deals=200, seed=2, options={"deals": 1}, sprt=margin)
    assert r.sprt_state.verdict == "H1 accepted" and r.deals < r.fixed_deals()
    assert r.sprt_state == margin.run(r.deal_margins())
    assert "betting test" in r.sprt_summary() and "margin, bounds -900..900" in r.sprt_summary()
    score = BettingTest.pair_score(0.5, 0.6)
    s = evaluate("spades", "heuristic", "random", deals=200, seed=1, options={"deals": 1}, sprt=score)
    pairs = [score.deal_value([a.margin, b.margin]) for a, b in zip(s.matches[::2], s.matches[1::2])]
    assert s.sprt_state.verdict == "H1 accepted" and s.sprt_state == score.run(pairs)
    assert "expected pair score" in s.sprt_summary()


def test_a_test_stopped_after_one_deal_says_why_there_is_no_fixed_length() -> None:
    r = evaluate("spades", "heuristic", "random", deals=1, seed=1, options={"deals": 1}, sprt=Sprt(0, 50))
    line = r.sprt_summary()
    assert r.fixed_deals() is None and "None" not in line and "too few deals to size a fixed-length test" in line
    assert "one deal: too few for a standard error" in r.summary() and "± 0.00" not in r.summary()


def test_deals_all_alike_give_no_plus_minus_zero_and_a_tiny_s_e_is_not_rounded_to_zero() -> None:
    # a bot that forfeits every match, or two bots that play alike: the deals' s.e. is 0, which
    # is no certainty ("margin -1.00 ± 0.00" was printed); a positive s.e. below the last place
    # shown kept its first digit instead of "± 0.00"
    def result(margins):
        ms = [MatchMargin(d, rot, d, m, "completed") for d, m in enumerate(margins) for rot in (0, 1)]
        return EvalResult("spite-and-malice", "a", "b", len(margins), 0, {}, ms)

    text = result([-1.0] * 5).summary()
    assert "± 0.00" not in text and "margin -1.00 (all 5 deals alike: no spread" in text
    tiny = result([0.5 + 0.03 * (i % 2) for i in range(400)]).summary()
    assert "margin +0.5150 ± 0.0008 (s.e.)" in tiny, tiny


def test_the_cli_line_for_scripts_gives_no_s_e_when_the_deals_are_all_alike() -> None:
    """Two copies of one deterministic bot: every deal level, so its last line's s.e. is "-", as
    with one deal (it printed "s.e. 0.000" under the summary that says there is none)."""
    out = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "greedy", "-o", "deals=1", "--deals", "2"])
    assert out.exit_code == 0, out.output
    assert "all 2 deals alike" in " ".join(out.output.split()), out.output  # the summary wraps with the width
    assert "margin +0.000  s.e. -  win rate" in out.output, out.output


def test_sprt_that_cannot_decide_stops_at_the_cap() -> None:
    r = evaluate("spades", "heuristic", "heuristic", deals=4, seed=2, options={"deals": 1}, sprt=Sprt(-5, 5))
    assert r.deals == 4 and r.sprt_state.decision is None and "no decision" in r.sprt_summary()


class Interrupted(Exception):
    pass


def test_an_interrupted_evaluation_resumes_from_the_store_to_the_same_result(tmp_path) -> None:
    kw = dict(deals=60, seed=5, options={"deals": 1}, sprt=Sprt(0, 20))
    straight = evaluate("spades", "heuristic", "greedy", **kw)
    assert straight.sprt_state.decision is not None and straight.deals > 6

    def stop_after_six(r) -> None:
        if r.deals == 6:
            raise Interrupted

    db = tmp_path / "eval.sqlite"
    with Store(db) as store, pytest.raises(Interrupted):
        evaluate("spades", "heuristic", "greedy", store=store, on_deal=stop_after_six, **kw)
    played = []
    with Store(db) as store:
        resumed = evaluate("spades", "heuristic", "greedy", store=store, progress=played.append, **kw)
        assert resumed.resumed == 12 and len(played) == 2 * straight.deals - 12
        assert resumed.matches == straight.matches and resumed.sprt_state == straight.sprt_state
        tour = store.tournament(resumed.stored_as)
        # decided early: its plan kept (60 deals), the matches played beside it, and that it stopped early
        assert tour.finished is not None and (tour.done, tour.planned) == (2 * straight.deals, 120) and tour.stopped_early
        # a finished evaluation run again plays nothing
        again = evaluate("spades", "heuristic", "greedy", store=store, progress=played.append, **kw)
        assert again.resumed == 2 * straight.deals and len(played) == 2 * straight.deals - 12
        assert again.sprt_state == straight.sprt_state
        # the same name with another test is refused, not mixed
        with pytest.raises(StoreError, match="different spec"):
            evaluate("spades", "heuristic", "greedy", store=store, name=resumed.stored_as,
                     **{**kw, "sprt": Sprt(0, 30)})


def test_stored_evaluation_reads_as_standings(tmp_path) -> None:
    from arbiter.tournament.run import load_standings

    with Store(tmp_path / "e.sqlite") as store:
        r = evaluate("spot", "heuristic", "random", deals=3, seed=1, options={"hands": 1}, store=store, name="ev")
        standings, info = load_standings(store, "ev")
    assert info["played"] == 6 and info["bots"] == ["heuristic", "random"]
    top = standings.rows[0]
    assert top.name == "heuristic" and top.dup_advantage is not None and len(top.dup_values) == r.deals


def test_json_round_trip() -> None:
    r = evaluate("spot", "heuristic", "random", deals=2, seed=3, options={"hands": 1})
    back = EvalResult.from_json(json.loads(json.dumps(r.to_json("arbiter evaluate ..."))))
    assert back.matches == r.matches and back.deal_margins() == r.deal_margins()
    assert all(len(m.scores) == len(m.ranks) == 4 for m in back.matches)


def test_the_json_of_a_run_stopped_early_keeps_its_cap_beside_the_deals_played() -> None:
    """The JSON gave "deals": the deals played, and nothing of the --deals asked for: a run its test
    stopped early read as one that played all it meant to (and ``from_json`` took the played count
    for the cap). "max_deals" keeps the plan, as the store now does."""
    from arbiter.rating.sprt import Sprt

    r = evaluate("spades", "heuristic", "random", deals=40, seed=0, options={"deals": 1}, sprt=Sprt(0, 50))
    assert r.sprt_state.stopped and r.deals < 40
    data = json.loads(json.dumps(r.to_json()))
    assert (data["deals"], data["max_deals"]) == (r.deals, 40)
    assert EvalResult.from_json(data).max_deals == 40


def test_the_json_of_one_deal_gives_no_standard_error_not_zero() -> None:
    """With one deal there is no standard error: the terminal says "s.e. -" and the test's own
    state null, but the JSON's "se" said 0.0, a margin known exactly to whoever reads the file."""
    r = EvalResult("spades", "a", "b", 1, 0, {})
    r.matches += [MatchMargin(0, 0, 0, 30, "completed"), MatchMargin(0, 1, 0, 10, "completed")]
    data = json.loads(json.dumps(r.to_json()))
    assert data["mean"] == 20 and data["se"] is None
    r.matches += [MatchMargin(1, 0, 0, 10, "completed"), MatchMargin(1, 1, 0, 50, "completed")]
    r.deals = 2
    assert json.loads(json.dumps(r.to_json()))["se"] == pytest.approx(5.0)  # (20, 30): s.d. 7.07 / sqrt 2


def test_cli_sprt_accepts_h1_in_far_fewer_deals_than_a_fixed_test() -> None:
    result = CliRunner().invoke(app, ["evaluate", "spades", "heuristic", "random", "--sprt", "0,50", "-o", "deals=1"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    import re

    used = int(re.search(r"H1 accepted after (\d+) deals", text).group(1))
    fixed = int(re.search(r"would need about (\d+) deals", text).group(1))
    assert used <= fixed / 2, result.output
    assert "too few deals" not in text  # enough deals for an interval


def test_cli_sprt_resume_json_and_bad_flags(tmp_path) -> None:
    db, out = tmp_path / "e.sqlite", tmp_path / "e.json"
    args = ["evaluate", "spot", "heuristic", "random", "--sprt", "0,20", "--sequential", "normal", "-o", "hands=1",
            "--db", str(db), "--json", str(out)]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "H1 accepted" in first.output and "stored in" in " ".join(first.output.split())
    data = json.loads(out.read_text())
    assert data["sprt_state"]["verdict"] == "H1 accepted" and len(data["matches"]) == 2 * data["deals"]
    assert (data["played"], data["read"], data["read_of"]) == (2 * data["deals"], 0, None) and data["stored_as"]
    assert data["seed_source"] == "fixed" and data["seed"] == 0  # the default seed of bots installed here
    second = CliRunner().invoke(app, args)
    assert second.exit_code == 0 and f"{2 * data['deals']} matches were already in" in " ".join(second.output.split())
    again = json.loads(out.read_text())  # a script tells a run that played nothing from one that played
    assert (again["played"], again["read"], again["stored_as"]) == (0, 2 * data["deals"], data["stored_as"])
    for bad, message in ((["--sprt", "50"], "M0,M1"), (["--sprt", "5,1"], "less than"), (["--sprt", "0,5", "--alpha", "2"], "alpha"),
                         (["--fresh"], "error: --fresh: needs --db"),
                         (["--sprt", "0,5", "--bounds", "9,1"], "LO must be less than HI"),
                         (["--sprt", "0,5", "--bounds", "-1,1"], "strictly inside"),
                         (["--sprt", "0,5", "--sequential", "score", "--bounds", "-9,9"], "only the betting test"),
                         (["--sprt", "0,5", "--sequential", "exact"], "betting, variance, score, normal"),
                         (["--bounds", "-9,9"], "need --sprt"),
                         # a pool that large was an OverflowError traceback from multiprocessing
                         (["--jobs", "99999999999999999999999"], "--jobs must be")):
        r = CliRunner().invoke(app, ["evaluate", "spot", "heuristic", "random", *bad])
        assert r.exit_code == 2 and message in r.output, r.output


def test_cli_one_deal_says_there_is_no_standard_error_and_the_test_says_why_no_fixed_length() -> None:
    r = CliRunner().invoke(app, ["evaluate", "spades", "heuristic", "random", "--deals", "1", "--sprt", "0,50",
                                 "-o", "deals=1"])
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "too few for a standard error" in text and "s.e. -" in text and "None" not in text
    assert "betting test" in text and "too few deals to size a fixed-length test" in text
    assert "no decision after 1 deal (the cap, --deals 1)" in text and "1 deals" not in text, text


def test_a_stored_evaluation_names_the_match_a_lost_most_and_the_analysis_that_says_why(tmp_path) -> None:
    """`is it better?` leads to `why did it lose?`: the line after a stored evaluation names bot A's
    worst match and an `arbiter analyse` command, which runs on it as given."""
    import shlex

    from arbiter.tournament.evaluate import evaluate as run, worst_match

    db = tmp_path / "e.sqlite"
    args = ["evaluate", "spades", "heuristic", "greedy", "--deals", "6", "-o", "deals=1", "--db", str(db)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    with Store(db) as store:  # the same evaluation, resumed: every match already stored
        result = run("spades", "heuristic", "greedy", deals=6, options={"deals": "1"}, store=store)
        assert result.resumed == 12
        w = worst_match(store, result)
        row = next(m for m in store.matches(store.tournament(result.stored_as).id, records=False) if m.match_id == w.match_id)
    assert w.margin == min(m.margin for m in result.matches) < 0
    assert row.seats[w.seat] == "heuristic" and (row.deal, row.rotation) == (w.deal, w.rotation)
    line = " ".join(r.output.split())
    # numbered as `tournament show` and --json number the match (deal and seating from 0): it said
    # "seating 1" for the row `tournament show` lists as seating 0, the other seating's match
    assert f"heuristic lost most in deal {row.deal}, seating {row.seating} (margin {w.margin:+g})" in line
    command = line.split("lost most in deal", 1)[1].split("): ", 1)[1].split(" says which")[0]
    assert command == f"arbiter analyse {w.match_id} --seat {w.seat} --db {db}"
    analysed = CliRunner().invoke(app, [*shlex.split(command)[1:], "--samples", "2", "--to", "3"])
    assert analysed.exit_code == 0 and f"seat {w.seat} (heuristic)" in analysed.output, analysed.output
    # a bot that lost nothing: no such line
    clean = CliRunner().invoke(app, ["evaluate", "spades", "heuristic", "random", "--deals", "1", "--seed", "3",
                                     "-o", "deals=1", "--db", str(tmp_path / "r.sqlite")])
    assert clean.exit_code == 0 and "lost most" not in clean.output, clean.output
    # a bot against itself: the line says which copy (the seat it names is bot A's)
    mirror = CliRunner().invoke(app, ["evaluate", "spades", "random", "random", "--deals", "2", "-o", "deals=1",
                                      "--db", str(tmp_path / "m.sqlite")])
    assert mirror.exit_code == 0 and "random (bot A) lost most in deal" in " ".join(mirror.output.split()), mirror.output


#: A bot that uses only what a sandboxed bot sees (the SDK, the engines, the public seed
#: scheme) to recognise its deal among an evaluation's deals of seed 0 (the old default of
#: ``--seed``), and writes down whether it could (and so knew every other seat's hand).
RECOGNISER = '''
import hashlib, os
from sdk import Bot
from cardarena.games import get_game

def deal_seed(seed, deal):
    return int.from_bytes(hashlib.sha256(":".join(map(str, (seed, "deal", 0, deal))).encode()).digest()[:6], "big")

class Recogniser(Bot):
    games = ("spades",)
    def choose(self, view, legal_actions):
        if not getattr(self, "_looked", False) and view.hand:
            self._looked = True
            game = get_game("spades", dict(self.info.options))
            found = [d for d in range(20)
                     if set(view.hand) <= set(game.new_initial_state(deal_seed(0, d)).revealed_view(view.seat).hand)]
            with open(os.environ["RECOGNISED"], "a") as f:
                f.write(f"{found}\\n")
        return legal_actions[0]
'''


def test_without_a_seed_a_bot_not_installed_here_cannot_recognise_its_deal(tmp_path, monkeypatch) -> None:
    """Seeds are secrets: deals follow from the seed by a public scheme, so a bot that knew
    the seed could compute every hand. ``--seed`` defaulted to 0, so a bot given by file to
    ``arbiter evaluate`` without ``--seed`` found its deal among ``deal_seed(0, d)`` and knew
    the other seats' cards. Without ``--seed``, a bot that is not installed with the
    arbiter now plays deals of a seed drawn at random (printed at the end, to replay);
    evaluations of installed bots keep seed 0 (their deals are reproducible as they were)."""
    bot = tmp_path / "recogniser.py"
    bot.write_text(RECOGNISER)
    seen = tmp_path / "recognised.txt"
    monkeypatch.setenv("RECOGNISED", str(seen))
    got = CliRunner().invoke(app, ["evaluate", "spades", str(bot), "random", "--deals", "2", "-o", "deals=1",
                                   "--transport", "inproc"])
    assert got.exit_code == 0, got.output
    lines = seen.read_text().split()
    assert len(lines) == 8 and set(lines) == {"[]"}, lines  # every seat of every match: no deal recognised
    assert "(seed 0)" not in got.output and "--seed" in got.output  # the seed drawn, and how to replay it
    installed = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "--deals", "1", "-o", "deals=1"])
    assert installed.exit_code == 0 and "(seed 0)" in installed.output, installed.output


def test_a_secret_seed_is_kept_by_the_store_so_the_same_command_resumes(tmp_path) -> None:
    """``seed`` None (the CLI's default for a bot not installed here): an evaluation cut off
    is resumed by the same call (or one to more deals, which extends it), on its own secret seed;
    once it is finished, or with ``fresh``, the next call draws a new one."""
    from arbiter.store.db import Store

    class Cut(Exception):
        pass

    def cut_after_two(r: EvalResult) -> None:
        if r.deals == 2:
            raise Cut

    kw = dict(deals=4, options={"deals": 1})
    with Store(tmp_path / "e.sqlite") as store:
        with pytest.raises(Cut):
            evaluate("spades", "greedy", "random", seed=None, store=store, on_deal=cut_after_two, **kw)
        (cut,) = store.tournaments()
        assert cut.finished is None and cut.done == 4 and cut.spec["seed"] > 2 ** 32  # 62 random bits, kept
        again = evaluate("spades", "greedy", "random", seed=None, store=store, **kw)
        assert (again.seed, again.seed_source, again.resumed, again.deals) == (cut.spec["seed"], "resumed", 4, 4)
        assert again.to_json()["seed_source"] == "resumed"  # a script tells a secret seed from one it gave
        other = evaluate("spades", "greedy", "random", seed=None, store=store, **kw)  # that one is finished
        assert other.seed_source == "drawn" and other.seed != again.seed and other.resumed == 0
        named = evaluate("spades", "greedy", "random", seed=None, store=store, name="mine", **kw)
        assert evaluate("spades", "greedy", "random", seed=None, store=store, name="mine", **kw).seed == named.seed
        fresh = evaluate("spades", "greedy", "random", seed=None, store=store, name="mine", fresh=True, **kw)
        assert fresh.seed_source == "drawn" and fresh.seed != named.seed
        with pytest.raises(Cut):
            evaluate("spades", "greedy", "random", seed=None, store=store, on_deal=cut_after_two, **kw)
        cut2 = store.tournaments()[-1]
        longer = evaluate("spades", "greedy", "random", seed=None, store=store, deals=5, options={"deals": 1})
        # the cut one extended to more deals: its seed and its stored deals (it was another evaluation, which
        # played the same deals again on a seed of its own)
        assert (longer.seed, longer.seed_source, longer.resumed, longer.stored_as) == (
            cut2.spec["seed"], "resumed", 4, cut2.name)
        alone = evaluate("spades", "greedy", "random", seed=None, **kw)  # no store: drawn
        assert alone.seed_source == "drawn" and alone.seed not in (cut2.spec["seed"], longer.seed)
        assert alone.to_json()["seed_source"] == "drawn"


def test_a_named_evaluation_refused_on_a_secret_seed_names_what_the_command_changed(tmp_path) -> None:
    """``--name`` with a secret seed, run again with settings that are not a resume or an extension
    (fewer deals, another test, an edited bot file): the refusal named "seed" among the differences,
    a seed the command never gave (a new one was drawn for it), beside the setting that changed."""
    from arbiter.batch.settings import SpecError
    from arbiter.rating.betting import BettingTest
    from arbiter.store.db import Store, StoreError

    kw = dict(options={"deals": 1}, transport="inproc")
    with Store(tmp_path / "e.sqlite") as store:
        evaluate("spades", "greedy", "random", deals=2, seed=None, store=store, name="mine", **kw)
        with pytest.raises(StoreError, match=r"\(it differs in deals\);"):
            evaluate("spades", "greedy", "random", deals=1, seed=None, store=store, name="mine", **kw)
        with pytest.raises(StoreError, match=r"\(it differs in sprt\);"):
            evaluate("spades", "greedy", "random", deals=2, seed=None, store=store, name="mine",
                     sprt=BettingTest(0, 20, -900, 900), **kw)
        bot = tmp_path / "mybot.py"
        code = "from bots.greedy import GreedyBot\n\nclass Mine(GreedyBot):\n    name = 'mine'\n"
        bot.write_text(code)
        evaluate("spades", str(bot), "random", deals=1, seed=None, store=store, name="file", **kw)
        bot.write_text(code + "# edited\n")
        # the refusal for an edited bot, which a new seed hid behind "differs in bot_content..., seed"
        with pytest.raises(SpecError, match=r"'file' in .* was played with other contents of .*mybot\.py \(edited since\)"):
            evaluate("spades", str(bot), "random", deals=1, seed=None, store=store, name="file", **kw)


def test_a_luck_summary_of_deals_all_alike_prices_no_probes() -> None:
    # Spades with probes, a bot that forfeits every match: after "no luck to take out" the line
    # went on to price the probes' decisions at "1.00x the raw margin's (it does not pay)", 0 over 0
    import random

    from arbiter.rating.luck import LUCK_FEATURES, ExpectedFeatures

    rng = random.Random(5)
    names = tuple(sorted(LUCK_FEATURES))
    ms = [MatchMargin(d, rot, d, -1.0, "forfeit_crash") for d in range(41) for rot in (0, 1)]
    r = EvalResult("spades", "a", "b", 41, 0, {"deals": 1}, ms)
    r.luck_expected = ExpectedFeatures(names, tuple(tuple(rng.gauss(0, 1) for _ in names) for _ in range(50)))
    r.luck_features = [{k: rng.gauss(0, 1) for k in names} for _ in range(41)]
    r.luck_decisions = (400, 1000)
    text = r.luck_summary()
    assert "no luck to take out" in text and "pay" not in text and "1.00x" not in text, text


@pytest.mark.parametrize("bad,message", [
    # the error named --sprt for a mistake in another flag, or said what the value is not
    (["--sprt", "0,50", "--alpha", "0"], "error: --alpha: must be between 0 and 1, got 0"),
    (["--sprt", "0,50", "--beta", "1.5"], "error: --beta: must be between 0 and 1, got 1.5"),
    # the library's names (seed, jobs, decision_ms) for the flags, where `arbiter play` names the flag
    (["--seed", "-1"], "error: --seed must be a whole number from 0 to 9223372036854775807, got -1"),
    (["--jobs", "0"], "error: --jobs must be a whole number from 1 to 1024, got 0"),
    (["--decision-ms", "-1"], "error: --decision-ms must be a whole number from 0 to 86400000, got -1"),
    # 1 - 1e-300 is 1.0: the fixed test's z was a StatisticsError traceback after every deal was played
    (["--sprt", "0,50", "--alpha", "1e-300"], "error: --alpha: must be at least 1e-12"),
    (["--sprt", "0,50", "--beta", "1e-300", "--sd-bound", "30"], "error: --beta: must be at least 1e-12"),
    (["--sprt", "0,50", "--alpha", "1e-300", "--sequential", "normal"], "error: --alpha: must be at least 1e-12"),
    (["--sprt", "0.5,0.6", "--alpha", "1e-300", "--sequential", "score"], "error: --alpha: must be at least 1e-12"),
    (["--sprt", "0,50", "--alpha", "0.6", "--beta", "0.6"], "error: --alpha: alpha + beta must be less than 1"),
    (["--sprt", "0,50", "--sequential", "normal", "--min-deals", "1"], "error: --min-deals: must be at least 2"),
    (["--sprt", "0,50", "--sequential", "normal", "--sprt-model", "exact"],
     "error: --sprt-model: must be one of glr, normal, got 'exact'"),
    (["--sprt", "0,inf"], "error: --sprt: M0 and M1 must be finite numbers, got 0, inf"),
    (["--sprt", "nan,5"], "error: --sprt: M0 and M1 must be finite numbers, got nan, 5"),
    (["--sprt", "0,50", "--sd-bound", "inf"], "error: --sd-bound: the s.d. bound must be a finite number above 0, got 'inf'"),
    (["--sprt", "0,50", "--bounds", "nan,900"], "error: --bounds: LO and HI must be finite numbers, got 'nan,900'"),
    (["--sprt", "0,50", "--bounds", "-1e13,900"], "error: --bounds: LO must be at most 1e+12 in size"),
    (["--sprt", "0,50", "--sd-bound", "1e300"], "error: --sd-bound: S must be at most 1e+12 in size"),
    # flags of a test that does not read them were dropped without a word
    (["--sprt", "0,50", "--sprt-model", "normal"], "error: --sprt-model: only the normal SPRT has a model"),
    (["--sprt-model", "normal"], "need --sprt"),
    (["--min-deals", "5"], "need --sprt"),
    (["--alpha", "0.1"], "need --sprt"),
    # the flag given, alone: --sd-bound's default --sequential (variance) was named as given too
    (["--sd-bound", "10"], "error: --sd-bound: the sequential test's settings need --sprt"),
    (["--sequential", "normal"], "error: --sequential: the sequential test's settings need --sprt"),
    # by its flag, as --seed and --jobs are ("transport: remote ... (expected inproc or grpc or local or cluster)")
    (["--transport", "remote"], "error: --transport: remote cannot be used here (expected inproc or grpc or local)"),
    (["--transport", "pigeon"], "error: --transport: expected inproc, grpc, local, auto, got 'pigeon'"),
    (["--transport", "remote", "--luck-adjusted"], "error: --transport: remote cannot be used here"),
])
def test_cli_names_the_flag_that_is_wrong(bad, message) -> None:
    r = CliRunner().invoke(app, ["evaluate", "spades", "heuristic", "random", "-o", "deals=1", "--deals", "3", *bad])
    assert r.exit_code == 2 and message in " ".join(r.output.split()), r.output


def test_cli_refuses_a_cap_below_the_normal_sprts_own_minimum() -> None:
    """--sequential normal decides nothing before 20 deals (its default --min-deals): with --deals 10
    it played its 10 deals and said "no decision" every time, where --min-deals 30 given was refused."""
    r = CliRunner().invoke(app, ["evaluate", "spades", "heuristic", "random", "-o", "deals=1", "--sprt", "0,50",
                                 "--sequential", "normal", "--deals", "10"])
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and "error: --deals 10: fewer than the 20 deals the normal SPRT plays before it may " \
                                "decide (--min-deals" in text, r.output


def test_resuming_a_named_evaluation_with_other_settings_says_which(tmp_path) -> None:
    """`--name ev1` run again with another --deals or --sprt was refused with "a different spec" and
    no word of what differed: the author had to guess which of a dozen flags it was."""
    from arbiter.rating.sprt import Sprt
    from arbiter.store.db import Store, StoreError

    with Store(tmp_path / "e.sqlite") as store:
        evaluate("spades", "heuristic", "random", deals=2, seed=0, options={"deals": 1}, store=store, name="ev1")
        # an evaluation, called one (it said "tournament 'ev1' already exists")
        with pytest.raises(StoreError, match=r"^evaluation 'ev1' already exists .*differs in deals, sprt\b.*--fresh"):
            evaluate("spades", "heuristic", "random", deals=3, seed=0, options={"deals": 1}, store=store, name="ev1",
                     sprt=Sprt(0, 50))


def test_min_deals_help_names_every_test_with_no_minimum() -> None:
    """--min-deals' help said "none for betting and score", leaving out the variance-bounded test,
    which needs none either (catoni.VarianceTest.min_deals 0)."""
    from arbiter.rating.catoni import VarianceTest

    r = CliRunner().invoke(app, ["evaluate", "--help"], env={"COLUMNS": "400"})
    text = " ".join(r.output.split())
    assert VarianceTest(0, 1, 1).min_deals == 0
    assert "none for betting, variance and score" in text, text


def test_an_evaluation_stored_under_the_module_names_resumes_under_them(tmp_path, monkeypatch):
    """A stored evaluation whose module:Class bot was named by its module ("bots", by an older
    arbiter) resumed under the class's name: its stored matches' margins were read for a bot
    A of that name, which sat at no seat (every seat counted as bot B's)."""
    import arbiter.batch.settings as settings
    import arbiter.tournament.evaluate as evaluate_module

    from arbiter.store.db import Store
    from arbiter.tournament.evaluate import worst_match

    args = dict(deals=3, seed=4, options={"deals": 1}, name="old", transport="inproc")
    whole = evaluate("spades", "bots.noisy:Noisy90", "heuristic", **args)
    with monkeypatch.context() as m:  # the older rule
        for module in (evaluate_module, settings):
            m.setattr(module, "bot_names", lambda specs: ("bots", "heuristic"))
        with Store(tmp_path / "a.sqlite") as store:
            evaluate("spades", "bots.noisy:Noisy90", "heuristic", store=store, **args)
    with Store(tmp_path / "a.sqlite") as store:  # interrupted before its last deal
        store.db.execute("UPDATE tournaments SET finished = NULL")
        store.db.execute("DELETE FROM matches WHERE deal = 2")
        resumed = evaluate("spades", "bots.noisy:Noisy90", "heuristic", store=store, **args)
        assert {n for row in store.matches(store.tournament("old").id) for n in row.seats} == {"bots", "heuristic"}
        assert [m.margin for m in resumed.matches] == [m.margin for m in whole.matches]
        lost = worst_match(store, resumed)  # A's seat in the match it lost by most, found by its stored name
        assert lost is not None and store.match(lost.match_id).seats[lost.seat] == "bots"


def test_a_luck_adjusted_run_stopped_early_keeps_its_plan_and_says_it_stopped_early(tmp_path) -> None:
    """A sequential test that decided rewrote the stored plan to the deals played (80 matches
    planned became 38 of 38): ``tournament list`` showed a run that played all it meant to, its
    ``show`` "38/38 matches" under "40 deals a table", the standings "38 of 38 matches played".
    The plan stays; what was played, and that the test stopped it, are said beside it."""
    from arbiter.store.db import Store

    db = tmp_path / "e.sqlite"
    args = ["evaluate", "spades", "heuristic", "random", "--sprt", "0,50", "--sd-bound", "300", "--luck-adjusted",
            "--probes", "20", "-o", "deals=1", "--transport", "inproc", "--db", str(db), "--deals", "40"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "H1 accepted after 19 deals" in " ".join(first.output.split()), first.output

    def stored():
        with Store(db, read_only=True) as store:
            (t,) = store.tournaments()
            return t

    t = stored()
    assert (t.done, t.planned) == (38, 80) and t.finished is not None and t.stopped_early
    again = CliRunner().invoke(app, args)  # resumed: nothing played, the same verdict, the plan as it was
    assert again.exit_code == 0 and "38 matches were already in" in again.output, again.output
    assert "H1 accepted after 19 deals" in " ".join(again.output.split())
    assert (stored().done, stored().planned) == (38, 80)
    listed = CliRunner().invoke(app, ["tournament", "list", "--db", str(db)], env={"COLUMNS": "200"})
    row = next(line for line in listed.output.splitlines() if t.name[:20] in line)
    assert "38/80" in row and "stopped early" in row, listed.output
    shown = " ".join(CliRunner().invoke(app, ["tournament", "show", t.name, "--db", str(db)]).output.split())
    assert "38/80 matches" in shown and "state: stopped early by its sequential test after 19 of its 40 deals" in shown, \
        shown
    standings = " ".join(CliRunner().invoke(app, ["standings", t.name, "--db", str(db), "-f", "md"]).output.split())
    assert "38 of 80 matches played, stopped early by its sequential test after 19 of its 40 deals" in standings, \
        standings
    from arbiter.present.web import index_page, tournament_page

    with Store(db, read_only=True) as store:  # the pages: 38 / 80 beside the same words, not "finished"
        for page in (index_page(store), tournament_page(store, str(t.id))):
            assert "38 / 80" in page or "38 matches of 80" in page, page
            assert ">stopped early</span>" in page and ">finished<" not in page, page
        # after how many of its deals, as tournament show and the standings say (the page said "stopped early" alone)
        page = tournament_page(store, str(t.id))
        assert 'id="stopped-early">stopped early by its sequential test after 19 of its 40 deals<' in page, page


def test_a_bots_path_and_the_json_path_are_printed_as_given_each_fact_on_one_line(tmp_path) -> None:
    """The summary, the "played:" line and "matches written to" were printed as markup: a bot in a
    folder ``b[v2]`` was shown as ``b/mybot.py`` (rich took ``[v2]`` for a style), a ``--json`` of
    ``out[1].json`` as ``out.json``; and the summary, unlike the lines beside it, was wrapped at 120
    columns where the output is not a terminal (a script reading it met half a line)."""
    folder = tmp_path / "b[v2]"
    folder.mkdir()
    bot = folder / "mybot.py"
    bot.write_text("from sdk import Bot\n\nclass B(Bot):\n    name = 'mine'\n    games = ('spades',)\n\n"
                   "    def choose(self, view, legal_actions):\n        return legal_actions[0]\n")
    js = tmp_path / "out[1].json"
    r = CliRunner().invoke(app, ["evaluate", "spades", str(bot), "random", "--deals", "2", "-o", "deals=1",
                                 "--transport", "inproc", "--seed", "1", "--json", str(js)])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    summary = next(line for line in lines if line.startswith("spades: "))
    assert summary.startswith(f"spades: {bot} vs random, 2 deals") and summary.endswith("(2-0-2)"), r.stdout
    assert f"played: in process as asked: {bot} ran" in r.stdout, r.stdout
    assert f"matches written to {js}" in r.stdout and js.exists(), r.stdout


def test_a_store_that_cannot_keep_the_matches_is_refused_before_the_probes_are_played(tmp_path) -> None:
    """--luck-adjusted plays its probes (2000 bidding-only deals by default: minutes for a searching
    bot) before the deals; a --db that could not be opened (no folder, not a store, read-only) was
    found only after them. Checked first now, as `arbiter play` checks it (check_store)."""
    probes = tmp_path / "pf.json"
    not_a_store = tmp_path / "notes.txt"
    not_a_store.write_text("my notes\n")
    for db, said in ((tmp_path / "nofolder" / "e.sqlite", "no folder"), (not_a_store, "not")):
        r = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "-o", "deals=1", "--deals", "40",
                                     "--luck-adjusted", "--probes", "20", "--probes-file", str(probes),
                                     "--db", str(db)])
        assert r.exit_code == 2 and "error:" in r.output and said in r.output, r.output
        assert not probes.exists(), "the probes were played before the store was refused"
    from arbiter.store.db import Store

    db = tmp_path / "e.sqlite"
    with Store(db) as other:  # another run writing the store: said before the probes too
        other.lock()
        r = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "-o", "deals=1", "--deals", "40",
                                     "--luck-adjusted", "--probes", "20", "--probes-file", str(probes),
                                     "--db", str(db)])
    assert r.exit_code == 2 and "another run is writing" in r.output, r.output
    assert not probes.exists(), "the probes were played before the store's lock was found taken"


@pytest.mark.parametrize("name", ["", "   "])
def test_a_blank_name_is_refused_by_its_flag_not_taken_or_dropped(tmp_path, name) -> None:
    """``--name ""`` (a script's empty variable) was dropped without a word, the run stored under
    the default name; ``--name "   "`` was stored as three blanks, which every listing shows as
    nothing. Both are refused, and the error names the flag (it said "name: ...")."""
    from arbiter.tournament.spec import SpecError, TournamentSpec

    db = tmp_path / "e.sqlite"
    r = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "-o", "deals=1", "--deals", "1",
                                 "--db", str(db), "--name", name])
    assert r.exit_code == 2 and "error: --name " in r.output and "blank" in r.output, r.output
    taken = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "-o", "deals=1", "--deals", "1",
                                     "--db", str(db), "--name", "play:x"])
    assert taken.exit_code == 2 and "error: --name 'play:x': names starting with 'play:'" in taken.output, taken.output
    if name:  # a tournament's spec takes the same rule (an empty name there is no name: the default)
        with pytest.raises(SpecError, match="blank"):
            TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, name=name).validate()


def test_forfeits_are_said_beside_the_margin_they_are_counted_in(tmp_path) -> None:
    """A bot that crashed (or ran out of time) in every match was reported as "margin -1.00, win rate
    0.0%" and nothing else: a Spades margin of -1 point, read as a close loss, where every match was
    forfeited (counted -1 by rank, not by points). The forfeits are now counted, by bot and reason."""
    bot = tmp_path / "crash.py"
    bot.write_text("from sdk import Bot\n\nclass B(Bot):\n    name = 'crash'\n    games = ('spades',)\n\n"
                   "    def choose(self, view, legal_actions):\n        raise RuntimeError('boom')\n")
    r = CliRunner().invoke(app, ["evaluate", "spades", str(bot), "random", "--deals", "1", "-o", "deals=1",
                                 "--transport", "inproc", "--seed", "1"])
    assert r.exit_code == 0, r.output
    line = next((x for x in r.stdout.splitlines() if x.startswith("forfeits:")), None)
    # deal and seating numbered from 0, as `tournament show` and --json number them (it said "seating 1")
    assert line.startswith(f"forfeits: 2 of 2 matches, all by {bot} (crash 2); the first in deal 0, seating 0: seat "), \
        r.stdout  # and why: without --db the bot's own words were nowhere but in a hosted bot's lost stderr
    assert "choose raised RuntimeError: boom" in line, line
    assert line.endswith("; a forfeit counts -900 for the side that failed and +900 for the other in the margin above "
                         "(the widest margin the rules allow: no bot gains by forfeiting)"), line
    assert "margin -900.00" in r.stdout, r.stdout
    db = tmp_path / "e.sqlite"
    stored = CliRunner().invoke(app, ["evaluate", "spades", str(bot), "random", "--deals", "1", "-o", "deals=1",
                                      "--transport", "inproc", "--seed", "1", "--db", str(db), "--name", "c"])
    line = next(x for x in stored.stdout.splitlines() if x.startswith("forfeits:"))
    assert line.endswith(f"; arbiter tournament show c --failures --db {db} lists each"), line
    shown = CliRunner().invoke(app, ["tournament", "show", "c", "--failures", "--db", str(db)])
    assert shown.exit_code == 0 and "RuntimeError: boom" in shown.output, shown.output
    # the match it lost most was forfeited: the line names the seat that failed and the command that
    # says why (it sent `arbiter analyse --seat` to A's first seat, whose decisions cost nothing)
    worst = next(x for x in stored.stdout.splitlines() if " lost most in deal " in x)
    match_id = worst.split(" --match ", 1)[1].split()[0]
    with Store(db) as store:
        row = next(r for r in store.matches(store.tournament("c").id, records=False) if r.match_id == match_id)
    (failed,) = [i.seat for i in row.incidents]
    assert f"(margin -900, forfeited: seat {failed} crash): arbiter tournament show c --match {match_id} --db {db} " \
           "says why, with the bot's stderr" in worst, worst
    why = CliRunner().invoke(app, ["tournament", "show", "c", "--match", match_id, "--db", str(db)])
    assert why.exit_code == 0 and "RuntimeError: boom" in why.output, why.output
    clean = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "--deals", "1", "-o", "deals=1"])
    assert clean.exit_code == 0 and "forfeit" not in clean.stdout, clean.stdout


def test_luck_adjusted_without_a_test_refuses_fewer_deals_than_it_needs_before_its_probes(tmp_path) -> None:
    """``--luck-adjusted --deals 10`` played its 2000 probes (minutes for a searching bot), then the
    deals, and said "luck-adjusted margin: none, 10 deals are fewer than the 40 its slopes are fitted
    on": the cap was known before anything was played. Refused up front, as --sequential normal
    --deals 10 is; not with --sprt (the test may read corrected margins sooner, slopes from a probes
    file), nor with --probes-file (the deals are kept there for a later test's correction)."""
    from arbiter.rating.luck import MIN_DEALS

    r = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "-o", "deals=1", "--deals", "10",
                                 "--luck-adjusted", "--probes", "20"])
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and f"error: --deals 10: fewer than the {MIN_DEALS} deals --luck-adjusted" in text, text
    assert "--probes-file FILE" in text
    probes = tmp_path / "pf.json"
    kept = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "-o", "deals=1", "--deals", "2",
                                    "--luck-adjusted", "--probes", "20", "--probes-file", str(probes)])
    assert kept.exit_code == 0 and "luck-adjusted margin: none" in kept.output and probes.exists(), kept.output


@pytest.mark.parametrize("flags", [("--json", "--db"), ("--json", "--probes-file"), ("--probes-file", "--db")])
def test_two_outputs_given_one_file_are_refused_before_anything_is_played(tmp_path, flags) -> None:
    """--json and --probes-file on one file: the probes file was overwritten by the JSON after the run
    (the next run: "not a probes file"); --json on the --db of a store not made yet: refused only
    after the whole run ("is a store"), its result lost. Refused first, naming both flags."""
    same = tmp_path / "out.file"
    args = {"--json": [], "--db": [], "--probes-file": ["--luck-adjusted", "--probes", "20"]}
    extra = [a for f in flags for a in (*args[f], f, str(same))]
    r = CliRunner().invoke(app, ["evaluate", "spades", "greedy", "random", "-o", "deals=1", "--deals", "2", *extra])
    assert r.exit_code == 2, r.output
    assert f"error: {flags[0]} {same}: the same file as {flags[1]}" in " ".join(r.output.split()), r.output
    assert not same.exists()


def test_a_store_locked_before_the_probes_names_the_evaluation_once_it_runs(tmp_path) -> None:
    """evaluate --db takes the store's run lock before its probes (no name yet), and the library's
    lock for the evaluation was then a no-op: the lock file named no tournament, so while the
    evaluation ran, tournament list and the web page called it "interrupted". The held lock now
    takes the name of the run it is for."""
    from arbiter.store.db import Store, run_holder

    db = tmp_path / "e.sqlite"
    seen = []
    with Store(db) as store:
        store.lock()  # as the command does, before the probes
        result = evaluate("spades", "greedy", "random", deals=2, seed=0, options={"deals": 1}, store=store,
                          on_deal=lambda r: seen.append(run_holder(db)))
    assert seen and all(h is not None and h.tournament == result.stored_as for h in seen), seen


def test_a_registered_bot_is_evaluated_from_the_store_it_was_submitted_to(tmp_path) -> None:
    """``arbiter evaluate spades mybot@1.0 random --db S`` (S holding the registry it was
    submitted to) failed with "names a registered bot, but there is no store to look it up
    in": the run's store was not handed to the venue that loads the bots, though its
    docstring counts registered bots among those it plays."""
    from arbiter.batch.submissions import submit
    from arbiter.hosting.botcheck import Report
    from arbiter.store import registry as reg
    from arbiter.store.db import Store

    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "bot.py").write_text("from sdk import Bot\n\n\nclass MyBot(Bot):\n    name = 'mybot'\n\n"
                                   "    def choose(self, view, legal_actions):\n        return legal_actions[0]\n")

    def passing(path, abandoned):
        report = Report(str(path))
        report.add("import", True, "")
        report.bot = {"name": "mybot", "version": "1.0", "games": ["*"], "deterministic": True}
        return report

    db = tmp_path / "arena.sqlite"
    with reg.Registry(db) as r:
        submit(r, folder, "mybot", "1.0", check=passing)
    with Store(db) as store:
        result = evaluate("spot", "mybot@1.0", "random", deals=1, seed=1, options={"hands": 1}, store=store,
                          transport="inproc")
    assert len(result.matches) == 2 and result.bot_a == "mybot@1.0"


def test_a_luck_adjusted_test_is_another_stored_evaluation_than_the_raw_one(tmp_path) -> None:
    """The resume key left out --luck-adjusted: the same command less the flag resumed the stored
    evaluation, its test rescanning the raw margins (Spot, 60 deals at 1200,1260: evidence 0.849
    for H1 where the stored run said 0.867), and would go on playing one its first test had stopped.
    Now the test on the adjusted margins is in the key: the raw command starts its own evaluation,
    and a --name that holds the other is refused, naming what differs."""
    from arbiter.rating.catoni import VarianceTest
    from arbiter.store.db import Store, StoreError
    from arbiter.tournament.probes import luck_probes

    opts = {"hands": 1}
    test = VarianceTest(0, 5000, 2000.0)
    with Store(tmp_path / "e.sqlite") as store:
        adjusted = evaluate("spot", "heuristic", "random", deals=2, seed=1, options=opts, sprt=test, store=store,
                            luck=luck_probes("spot", "heuristic", "random", opts))
        assert adjusted.luck_test and store.stored_spec(adjusted.stored_as)["luck_test"] is True
        raw = evaluate("spot", "heuristic", "random", deals=2, seed=1, options=opts, sprt=test, store=store)
        assert raw.stored_as != adjusted.stored_as and raw.resumed == 0
        assert "luck_test" not in store.stored_spec(raw.stored_as)  # as evaluations stored before the key
        with pytest.raises(StoreError, match="luck_test"):
            evaluate("spot", "heuristic", "random", deals=2, seed=1, options=opts, sprt=test, store=store,
                     name=adjusted.stored_as)
        # without a test the luck changes no verdict: the same evaluation, resumed
        plain = evaluate("spot", "heuristic", "random", deals=2, seed=1, options=opts, store=store,
                         luck=luck_probes("spot", "heuristic", "random", opts))
        again = evaluate("spot", "heuristic", "random", deals=2, seed=1, options=opts, store=store)
        assert again.stored_as == plain.stored_as and again.resumed == 4


def test_an_evaluation_stored_in_the_catoni_form_resumes_in_it(tmp_path) -> None:
    """The variance-bounded test's wealth changed form in December 2026 (``catoni.FORMS``); an
    evaluation stored before (its spec's test names no form) resumes, by its default name and by
    --name, in the form it began with, reading the same evidence from its stored deals, where a
    new one runs today's form."""
    from arbiter.rating.catoni import VarianceTest
    from arbiter.store.db import Store

    args = dict(deals=6, seed=3, options={"deals": 1}, transport="inproc")
    with Store(tmp_path / "a.sqlite") as store:
        for name in (None, "named"):
            old = evaluate("spades", "heuristic", "random", store=store, name=name, sprt=VarianceTest(0, 50, 300, form="catoni"),
                           **args)
            assert "form" not in store.stored_spec(old.stored_as)["sprt"]  # as an arbiter before the forms wrote it
            store.db.execute("UPDATE tournaments SET finished = NULL WHERE name = ?", (old.stored_as,))
            store.db.execute("DELETE FROM matches WHERE deal = ? AND tournament_id = ?",
                             (old.deals - 1, store.tournament(old.stored_as).id))  # cut off before its last deal
            resumed = evaluate("spades", "heuristic", "random", store=store, name=name, sprt=VarianceTest(0, 50, 300),
                               **args)
            assert resumed.stored_as == old.stored_as and resumed.sprt.form == "catoni"
            assert resumed.sprt_state == old.sprt_state and resumed.resumed == 2 * (old.deals - 1)
            assert "form" not in store.stored_spec(old.stored_as)["sprt"]
        new = evaluate("spades", "heuristic", "random", store=store, name="new", sprt=VarianceTest(0, 50, 300), **args)
        assert new.sprt.form == "catoni-log" and store.stored_spec("new")["sprt"]["form"] == "catoni-log"
        assert new.sprt_state.log_h1 != old.sprt_state.log_h1


_BROKEN = "from sdk import Bot\n\n\nclass S(Bot)\n    name = 's'\n"  # no colon: a SyntaxError when loaded
#: loads only where FLAKY_OK is set: the same file (the same evaluation, resumed or extended) that cannot start
_FLAKY = ("import os\n\nfrom bots.greedy import GreedyBot\n\nif not os.environ.get('FLAKY_OK'):\n"
          "    raise RuntimeError('FLAKY_OK is not set')\n\n\nclass Flaky(GreedyBot):\n    name = 'flaky'\n")


def _dump(db) -> list[str]:
    import sqlite3

    con = sqlite3.connect(db)
    try:
        return list(con.iterdump())
    finally:
        con.close()


@pytest.mark.parametrize("transport", ["inproc", pytest.param("local", marks=pytest.mark.e2e)])
def test_an_evaluation_that_cannot_start_leaves_the_store_as_it_was(tmp_path, monkeypatch, transport) -> None:
    """arbiter evaluate --db wrote its evaluation before its bots were up: one that never started
    (a bot file that does not load) was listed as "0/4 interrupted", its resume failing alike;
    with --fresh the finished evaluation of its name was deleted first, and an extension to more
    deals of a stored one was reopened as "interrupted". Now nothing is written until the run has
    started, as a tournament's run (the store, dumped, is the same)."""
    db, broken, flaky = tmp_path / "e.sqlite", tmp_path / "syntax.py", tmp_path / "flaky.py"
    broken.write_text(_BROKEN)
    flaky.write_text(_FLAKY)
    base = ["evaluate", "spades", "-o", "deals=1", "--deals", "1", "--db", str(db)]
    assert CliRunner().invoke(app, [*base, "greedy", "random", "--name", "kept"]).exit_code == 0
    monkeypatch.setenv("FLAKY_OK", "1")
    first = CliRunner().invoke(app, [*base, str(flaky), "random", "--seed", "4", "--transport", "inproc"])
    assert first.exit_code == 0, first.output
    monkeypatch.delenv("FLAKY_OK")
    before = _dump(db)
    for args, why in (([str(broken), "random", "--name", "kept", "--fresh"], "SyntaxError"),
                      ([str(broken), "random"], "SyntaxError"),
                      ([str(flaky), "random", "--seed", "4", "--deals", "2"], "FLAKY_OK is not set")):  # extended
        r = CliRunner().invoke(app, [*base, *args, "--transport", transport])
        assert r.exit_code == 2 and why in r.output and "Traceback" not in r.output, r.output
        assert _dump(db) == before, args
    listed = CliRunner().invoke(app, ["tournament", "list", "--db", str(db)], env={"COLUMNS": "200"})
    assert "interrupted" not in listed.output and listed.output.count("finished") == 2, listed.output


def test_an_evaluation_stopped_before_it_started_says_what_the_store_holds(tmp_path, monkeypatch) -> None:
    """Ctrl-C while the evaluation's bots were starting said "the finished matches are stored in
    DB; the same command resumes the evaluation", when the run had written nothing (it writes once
    it is known to start): a new one left nothing to resume; one it was to extend is as it was.
    What it says now is what is true of the store; stopped once begun, it says as before."""
    import contextlib

    from arbiter.tournament import evaluate as module

    @contextlib.asynccontextmanager
    async def stopped(*args, **kwargs):
        raise KeyboardInterrupt
        yield  # noqa: unreachable (an async generator)

    db = tmp_path / "e.sqlite"
    args = ["evaluate", "spades", "heuristic", "greedy", "-o", "deals=1", "--db", str(db), "--deals"]
    with monkeypatch.context() as m:
        m.setattr(module, "open_venue", stopped)
        r = CliRunner().invoke(app, [*args, "2"])
    said = " ".join(r.stderr.split())
    assert r.exit_code == 130 and f"interrupted before the evaluation started: nothing was stored in {db}" in said, said
    assert "finished matches" not in said and "resumes" not in said and "Traceback" not in r.output, said
    assert said.startswith(f"creating a new store at {db} "), said  # (--db not there: a first run, or a typo)
    with Store(db, read_only=True) as store:
        assert store.tournaments() == []
    r = CliRunner().invoke(app, [*args, "2"])
    assert r.exit_code == 0 and "creating" not in r.stderr, r.output
    with Store(db, read_only=True) as store:
        (before,) = store.tournaments()
    with monkeypatch.context() as m:  # the same command to 4 deals extends it: stopped before, it is as it was
        m.setattr(module, "open_venue", stopped)
        r = CliRunner().invoke(app, [*args, "4"])
    said = " ".join(r.stderr.split())
    assert r.exit_code == 130 and (f"nothing was stored in {db}; {before.name} there is as it was, and the same command "
                                   "resumes it") in said, said
    with Store(db, read_only=True) as store:
        assert store.tournaments() == [before]

    def stop_at_the_first_match(*args, **kwargs):  # once begun (its evaluation written)
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(module, "_margin", stop_at_the_first_match)
        r = CliRunner().invoke(app, [*args, "4", "--fresh"])
    said = " ".join(r.stderr.split())
    assert r.exit_code == 130 and (f"interrupted: the finished matches are stored in {db}; the same command without "
                                   "--fresh resumes the evaluation") in said, said


@pytest.mark.parametrize("mistake", [["nobot.py", "heuristic"], ["heuristic", "heuristc"], ["greedy", "random"],
                                     ["heuristic", "greedy", "-o", "deal=1"]])
def test_a_typo_is_refused_before_the_store_is_made(tmp_path, mistake):
    """A typo in a bot's path or name, a bundled bot of another game or an unknown option: the
    run refuses it, and ``--db NEW`` said "creating a new store at NEW" first and left an empty
    store behind (``arbiter play`` and ``tournament run`` check before, and make none)."""
    db = tmp_path / "e.sqlite"
    game = "spot" if mistake[0] == "greedy" else "spades"
    r = CliRunner().invoke(app, ["evaluate", game, *mistake, "--deals", "1", "--db", str(db)])
    said = " ".join(r.stderr.split())
    assert r.exit_code == 2 and said.startswith("error: ") and "Traceback" not in r.output, r.output
    assert "creating" not in said and not db.exists(), said


def test_a_new_evaluation_beside_a_finished_one_of_the_same_command_says_so(tmp_path, monkeypatch):
    """A file bot's evaluation is on a secret seed, and the same command continues only an
    unfinished one: `--deals 4` after a run of 2 that reached its cap played 4 new deals and
    said nothing of the 2 stored. It says so, and how to play more of that one's deals."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text("from sdk.random_bot import RandomBot\n\nclass Mine(RandomBot):\n    name = 'mine'\n")
    db = tmp_path / "e.sqlite"
    args = ["evaluate", "spot", "mine.py", "random", "-o", "hands=1", "-o", "players=2", "--db", str(db),
            "--transport", "inproc", "--deals"]
    first = CliRunner().invoke(app, [*args, "2"])
    assert first.exit_code == 0 and "new evaluation" not in first.output, first.output
    with Store(db, read_only=True) as store:
        (old,) = [t.name for t in store.tournaments([])]
    r = CliRunner().invoke(app, [*args, "4"])
    said = " ".join(r.stdout.split())
    assert r.exit_code == 0 and f"on a new seed: {old} in {db}, of the same bots and settings, is finished" in said, said
    assert f"--name {old} with a larger --deals plays more of its deals instead" in said, said
    again = CliRunner().invoke(app, [*args, "6", "--name", old])  # as it says
    assert again.exit_code == 0 and f"resumed {old}: 4 matches were already in" in again.stdout, again.output
    decided = [*args, "40", "--sprt", "-150,-100"]  # random against random: H1 accepted after a few deals
    first = CliRunner().invoke(app, decided)
    assert first.exit_code == 0 and "H1 accepted" in first.stdout, first.output
    with Store(db, read_only=True) as store:
        old = store.tournaments([])[-1].name
    said = " ".join(CliRunner().invoke(app, decided).stdout.split())
    assert f"{old} in {db}, of the same bots and settings, is finished" in said, said
    assert f"(its sequential test decided: arbiter tournament show {old} --db {db} says what)" in said, said
