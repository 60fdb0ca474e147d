"""``arbiter evaluate --sd-bound auto``: the variance-bounded test's s.d. bound read from the
evaluations stored before, the closest kin of the pair first, kept for a resumed run."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.rating.betting import BettingTest
from arbiter.rating.catoni import AUTO_HISTORY, AutoVarianceTest, BettingThenVariance, OwnDealsOrBetting, VarianceTest, auto_room, round_up
from arbiter.rating.stats import mean_se
from arbiter.store.db import Store, StoreError
from arbiter.tournament.evaluate import evaluate, sd_from_store
from cardarena.games import ConfigError

ONE = {"deals": 1}


def _sd(result) -> float:
    return mean_se(result.deal_margins()).sd


def test_the_bound_rounds_up_and_bad_parameters_are_named() -> None:
    assert round_up(45.01) == 45.1 and round_up(45.0) == 45.0 and round_up(0.123456) == 0.124 and round_up(1234.5) == 1240
    t = AutoVarianceTest(0, 20).resolve(37.4)  # the room at the least deals read (100): 1.2
    assert isinstance(t, VarianceTest) and t.sd_bound == round_up(1.2 * 37.4) >= 1.2 * 37.4
    # the room is so many of the s.d. estimate's relative standard errors: less as the deals read grow
    assert [auto_room(n) for n in (100, 400, 1600)] == pytest.approx([1.2, 1.1, 1.05])
    assert AutoVarianceTest(0, 20).resolve(37.4, auto_room(400)).sd_bound == round_up(1.1 * 37.4)
    assert AutoVarianceTest(0, 20, room=1.3).room_for(400) == 1.3  # a room given stands whatever the deals
    assert AutoVarianceTest(0, 20).to_json()["sd_bound"] == "auto"
    for make, message in ((lambda: AutoVarianceTest(5, 1), "less than"), (lambda: AutoVarianceTest(0, 5, room=0.9), "at least 1"),
                          (lambda: AutoVarianceTest(0, 5).resolve(0.0), "above 0"),
                          (lambda: AutoVarianceTest(0, 5, history=1), "at least 2 deals")):
        with pytest.raises(ValueError, match=message):
            make()


def _ss(xs: list[float]) -> float:
    m = sum(xs) / len(xs)
    return sum((x - m) ** 2 for x in xs)


def test_the_closest_kin_sets_the_bound_and_a_resumed_run_keeps_its_own(tmp_path) -> None:
    db = tmp_path / "eval.sqlite"
    n = 8  # the least deals of a pair read (AUTO_HISTORY, 100, in the CLI's test below)
    with Store(db) as store:
        with pytest.raises(ConfigError, match=f"holds no {n} deals of one pair of bots at spades with these options"):
            sd_from_store(store, "spades", ("heuristic", "greedy"), ONE, None, min_deals=n)
        far = evaluate("spades", "heuristic", "random", deals=n, seed=1, options=ONE, store=store)
        # the same deals again (one seed): counted once, not as 2n deals
        evaluate("spades", "random", "heuristic", deals=n, seed=1, options=ONE, store=store, name="again")
        evaluate("spades", "greedy", "random", deals=n - 1, seed=2, options=ONE, store=store)  # too few: not read
        evaluate("spades", "greedy", "random", deals=n, seed=3, options={"deals": 2}, store=store)  # other options
        # no evaluation of the pair yet: the pairs with either bot
        src = sd_from_store(store, "spades", ("heuristic", "greedy"), ONE, None, min_deals=n)
        assert src.pairs == (("heuristic and random", n, pytest.approx(_sd(far)), (far.stored_as,)),)
        assert src.largest == pytest.approx(_sd(far)) and src.among == "with heuristic or greedy at spades with these options"
        auto = AutoVarianceTest(0, 50, history=n)
        first = evaluate("spades", "heuristic", "greedy", deals=12, seed=4, options=ONE, sprt=auto, store=store)
        room = auto_room(n)  # the room over n deals read (1.71 at 8; 1.2 at the CLI's 100)
        assert first.sd_source == src and src.room == room and first.sprt.sd_bound == round_up(room * _sd(far))
        line = " ".join(first.sprt_summary().split())
        assert f"s.d. at most {first.sprt.sd_bound:g}" in line and f"--sd-bound auto: {room:.3g}x {_sd(far):.4g}" in line
        assert f"heuristic and random's {n} stored deals ({far.stored_as})" in line
        assert "the largest among the stored evaluations with heuristic or greedy" in line

        close = evaluate("spades", "greedy", "heuristic", deals=n, seed=5, options=ONE, store=store)
        src = sd_from_store(store, "spades", ("heuristic", "greedy"), ONE, None, exclude=first.stored_as, min_deals=n)
        assert src.among == "" and src.pairs[0][3] == (close.stored_as,)
        assert src.largest == pytest.approx(_sd(close)) != pytest.approx(_sd(far))
        # both of the pair's evaluations, on two seeds: pooled about each one's own mean
        both = sd_from_store(store, "spades", ("greedy", "heuristic"), ONE, None, min_deals=n)
        a, b = first.deal_margins(), close.deal_margins()
        assert both.pairs[0][:2] == ("heuristic and greedy", len(a) + len(b))
        assert both.largest == pytest.approx(((_ss(a) + _ss(b)) / (len(a) + len(b) - 2)) ** 0.5)
        # the first run again: resumed at the bound it started with, not the new one
        again = evaluate("spades", "heuristic", "greedy", deals=12, seed=4, options=ONE, sprt=auto, store=store)
        assert again.resumed == len(first.matches) and again.sprt == first.sprt and again.sd_source == first.sd_source
        # --fresh reads the store anew: the pair's own evaluation (itself left out, counted or not)
        fresh = evaluate("spades", "heuristic", "greedy", deals=12, seed=4, options=ONE, sprt=auto, store=store, fresh=True)
        assert fresh.sprt.sd_bound == round_up(room * _sd(close)) and fresh.sd_source.pairs[0][3] == (close.stored_as,)
        assert f"this pair's {n} stored deals" in fresh.sprt_summary()
        # a kept bound that cannot be read is named, not guessed
        with store._tx() as tx:
            tx.execute("UPDATE tournaments SET spec = json_set(spec, '$.sd_auto', json('{\"largest\": 1}')) WHERE name = ?",
                       (first.stored_as,))
        with pytest.raises(StoreError, match="kept s.d. bound cannot be read"):
            evaluate("spades", "heuristic", "greedy", deals=12, seed=4, options=ONE, sprt=auto, store=store)
    with pytest.raises(ConfigError, match="give --db FILE"):
        evaluate("spades", "heuristic", "greedy", deals=5, options=ONE, sprt=AutoVarianceTest(0, 50))


def test_cli_sd_bound_auto_says_where_its_bound_came_from(tmp_path) -> None:
    db = str(tmp_path / "e.sqlite")
    base = ["evaluate", "spades", "heuristic", "greedy", "-o", "deals=1"]
    for args, message in ((["--sprt", "0,50", "--sd-bound", "auto"], "give --db FILE"),
                          (["--sprt", "0,50", "--sd-bound", "wide", "--db", db], "a number above 0"),
                          (["--sprt", "0,50", "--sd-bound", "auto", "--db", db], f"there is no store at {db} yet")):
        bad = CliRunner().invoke(app, [*base, *args])
        assert bad.exit_code == 2 and message in " ".join(bad.output.split()), bad.output
    assert not (tmp_path / "e.sqlite").exists()  # refused before a store was made for nothing
    first = CliRunner().invoke(app, [*base, "--deals", str(AUTO_HISTORY), "--db", db])
    assert first.exit_code == 0, first.output
    assert "--sd-bound auto would" not in first.output  # no test: nothing to say
    # the betting test, slow within ±900, names what auto would read here
    slow = CliRunner().invoke(app, [*base, "--sprt", "0,50", "--sequential", "betting", "--db", db, "--seed", "1",
                                    "--deals", "10"])
    text = " ".join(slow.output.split())
    assert slow.exit_code == 0 and "betting test" in text, slow.output
    assert "--sd-bound auto would test at s.d. at most" in text and "this pair's 100 stored deals (evaluate-spades-" in text
    assert "--plan compares every test on these deals before a run" in text
    r = CliRunner().invoke(app, [*base, "--sprt", "0,50", "--sd-bound", "auto", "--db", db])
    text = " ".join(r.output.split())
    assert r.exit_code == 0, r.output
    assert "variance-bounded test" in text and f"--sd-bound auto: {auto_room(110):.3g}x" in text  # 100 + seed 1's 10
    assert "this pair's" in text and "stored deals (evaluate-spades-heuristic-greedy-0-" in text
    assert ", evaluate-spades-heuristic-greedy-1-" in text  # the betting run's deals too, on another seed
    # no test named: the store holds this pair's own 100 deals, so the variance-bounded test runs, and says why
    r = CliRunner().invoke(app, [*base, "--sprt", "0,50", "--db", db, "--seed", "2"])
    text = " ".join(r.output.split())
    assert r.exit_code == 0 and "variance-bounded test" in text, r.output
    assert re.search(r"\(the default where the store holds this pair's own deals: 1\.1\dx [\d.]+, the s\.d\. of the deal "
                     r"margins of this pair's 1\d\d stored deals", text) and "--sd-bound auto would" not in text
    # --bounds names the betting test: the store does not choose over it (it chose, dropping the flag)
    r = CliRunner().invoke(app, [*base, "--sprt", "0,50", "--bounds", "-300,300", "--db", db, "--seed", "3", "--deals", "3"])
    text = " ".join(r.output.split())
    assert r.exit_code == 0 and "betting test (anytime-valid, any distribution; margin, bounds -300..300)" in text, r.output
    assert "the default until the store holds" not in text


def test_an_edited_bot_on_the_same_seed_adds_its_deals_and_the_same_bot_does_not(tmp_path) -> None:
    """Two evaluations on one seed play the same deals; of the same bot files they play them
    alike (counted once), of a file edited between them they do not (both counted)."""
    bot = tmp_path / "mine.py"
    code = ("from sdk import Bot\n\nclass B(Bot):\n    name = 'mine'\n    games = ('spades',)\n\n"
            "    def choose(self, view, legal_actions):\n        return legal_actions[{i}]\n")
    bot.write_text(code.format(i=0))
    with Store(tmp_path / "e.sqlite") as store:
        kw = dict(deals=4, seed=1, options=ONE, store=store, transport="inproc")
        evaluate("spades", str(bot), "random", **kw)
        evaluate("spades", str(bot), "random", name="same bot again", **kw)
        src = sd_from_store(store, "spades", (str(bot), "random"), ONE, None, min_deals=2)
        assert src.pairs[0][1] == 4
        bot.write_text(code.format(i=-1))
        evaluate("spades", str(bot), "random", **kw)
        src = sd_from_store(store, "spades", (str(bot), "random"), ONE, None, min_deals=2)
        assert src.pairs[0][1] == 8 and len(src.pairs[0][3]) == 2


def test_a_pair_whose_deals_are_all_alike_is_named_not_said_to_be_missing(tmp_path) -> None:
    # greedy against its copy: 8 stored deals, each margin 0. The store "holds no 8 deals of one
    # pair", it said, when it held them, only with no spread to read an s.d. from
    n = 8
    with Store(tmp_path / "eval.sqlite") as store:
        same = evaluate("spades", "greedy", "greedy", deals=n, seed=1, options=ONE, store=store)
        assert same.margin.se == 0
        with pytest.raises(ConfigError) as err:
            sd_from_store(store, "spades", ("heuristic", "greedy"), ONE, None, min_deals=n)
    said = str(err.value)
    assert "holds no 8 deals" not in said and "no spread" in said and "greedy and greedy (8 deals)" in said, said


def test_a_luck_adjusted_run_with_no_bound_to_read_is_refused_before_its_probes(tmp_path, monkeypatch) -> None:
    """``--luck-adjusted --sd-bound auto`` on a store with no evaluation of the pair's kin played
    its probes (2,000 probe deals by default: minutes for a searching bot) and only then said
    there was no bound to read. It says so first."""
    import arbiter.tournament.probes as probes

    db = tmp_path / "e.sqlite"
    Store(db).close()  # a store, with nothing of these bots in it
    monkeypatch.setattr(probes, "luck_probes", lambda *a, **k: pytest.fail("the probes were played for a refusal"))
    r = CliRunner().invoke(app, ["evaluate", "spades", "heuristic", "greedy", "--sprt", "0,20", "--sd-bound", "auto",
                                 "--luck-adjusted", "-o", "deals=1", "--transport", "inproc", "--db", str(db)])
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "sd-bound auto" in said and "give --sd-bound S" in said, said


def test_the_kin_are_read_for_a_reason_the_pairs_own_deals_are_named_not_said_missing() -> None:
    """A pair with 50 deals stored, under the 100 read, had its bound read from its kin "(none of
    this pair)": the user had just played those 50. The note says which: none, too few, no spread;
    a resumed run's kept source says it again."""
    from arbiter.tournament.evaluate import SdSource, StoredPair, own_pair_note

    kin = StoredPair(("greedy", "random"), (("g-r", tuple(float(x) for x in range(120))),))
    few = StoredPair(("greedy", "heuristic"), (("h-g", tuple(float(x % 7) for x in range(50))),))
    flat = StoredPair(("heuristic", "greedy"), (("h-g", (3.0,) * 120),))
    bots = ("heuristic", "greedy")
    assert own_pair_note([kin], bots) == "none of this pair"
    assert own_pair_note([kin, few], bots) == "this pair's 50 stored deals are fewer than the 100 read"
    assert own_pair_note([kin, flat], bots) == "this pair's 120 stored deals have no spread"
    src = SdSource(34.9, 1.2, "with heuristic or greedy at spades with these options",
                   (("greedy and random", 120, 34.9, ("g-r",)),), own=own_pair_note([kin, few], bots))
    assert "(this pair's 50 stored deals are fewer than the 100 read)" in src.describe()
    assert "none of this pair" not in src.describe()
    assert SdSource.from_json(src.to_json()) == src
    old = SdSource(34.9, 1.2, src.among, src.pairs)  # kept by a run before the note: read as it was
    assert SdSource.from_json(old.to_json()).own == "none of this pair"


def test_with_a_store_the_default_test_is_the_variance_bounded_one_once_the_pairs_own_deals_are_there(tmp_path) -> None:
    """``--sprt`` with ``--db`` and no test named (``OwnDealsOrBetting``): until the store holds
    ``history`` deals of this very pair by today's files, the betting test until the run has played
    that many itself, then the variance-bounded test on their s.d. (``BettingThenVariance``); with
    them, the variance-bounded test at ``auto``'s bound from the start; the kin's deals, or the
    pair's by another version of a file, are no such evidence; a resumed run keeps the test it
    began with (one begun on the betting test before the switch, the betting test)."""
    n = 8  # the least deals of the pair read (AUTO_HISTORY, 100, in the CLI's test below)
    test = OwnDealsOrBetting(BettingTest(0, 50, -900, 900), history=n, switch_after=n)
    assert test.auto() == AutoVarianceTest(0, 50, history=n) and test.to_json()["test"] == "default"
    bot = tmp_path / "mine.py"
    code = ("from sdk import Bot\n\nclass B(Bot):\n    name = 'mine'\n    games = ('spades',)\n\n"
            "    def choose(self, view, legal_actions):\n        return legal_actions[{i}]\n")
    bot.write_text(code.format(i=0))
    with Store(tmp_path / "e.sqlite") as store:
        kw = dict(options=ONE, store=store, transport="inproc")
        evaluate("spades", "random", "greedy", deals=n, seed=1, **kw)  # the kin: not the pair
        first = evaluate("spades", str(bot), "random", deals=3, seed=2, sprt=test, **kw)
        assert first.sprt == BettingThenVariance(test.betting, n) and first.sd_source is None
        assert first.default_why == "it holds no deal of this pair"
        assert f"the default until the store holds {AUTO_HISTORY} deals of this pair" in first.sprt_summary()
        assert first.to_json()["default_test"] == {"ran": "switch", "why": "it holds no deal of this pair"}
        assert first.sprt_state.variance is None  # 3 deals: not switched
        played = evaluate("spades", "random", str(bot), deals=n, seed=3, **kw)  # the pair's own, either order
        now = evaluate("spades", str(bot), "random", deals=3, seed=4, sprt=test, **kw)
        assert isinstance(now.sprt, VarianceTest) and now.default_why == "" and now.sd_source.among == ""
        a, b = first.deal_margins(), played.deal_margins()  # both of the pair's, pooled about each one's mean
        pooled = ((_ss(a) + _ss(b)) / (len(a) + len(b) - 2)) ** 0.5
        assert now.sprt.sd_bound == round_up(auto_room(len(a) + len(b)) * pooled) and now.sd_source.room == auto_room(11)
        assert set(now.sd_source.pairs[0][3]) == {first.stored_as, played.stored_as}
        line = " ".join(now.sprt_summary().split())
        assert f"(the default where the store holds this pair's own deals: {auto_room(11):.3g}x" in line
        assert "--sequential betting" in line
        assert now.to_json()["default_test"] == {"ran": "variance", "why": ""}
        # the first run taken further (its cap raised): the test it began with, though the pair now has its deals
        more = evaluate("spades", str(bot), "random", deals=5, seed=2, sprt=test, **kw)
        assert more.stored_as == first.stored_as and isinstance(more.sprt, BettingThenVariance)
        assert more.default_why == first.default_why
        # one begun before the switch was the default kept {"betting": why}: the betting test throughout
        row = store.tournament(first.stored_as)
        spec = {**row.spec, "sd_auto": {"betting": "it holds no deal of this pair"}}
        store.db.execute("UPDATE tournaments SET spec = ? WHERE id = ?", (json.dumps(spec), row.id))
        store.db.execute("UPDATE tournaments SET finished = NULL WHERE id = ?", (row.id,))
        old = evaluate("spades", str(bot), "random", deals=6, seed=2, sprt=test, **kw)
        assert old.stored_as == first.stored_as and isinstance(old.sprt, BettingTest)
        # the bot file edited: the pair's deals were played by another version of it
        bot.write_text(code.format(i=-1))
        edited = evaluate("spades", str(bot), "random", deals=3, seed=5, sprt=test, **kw)
        assert isinstance(edited.sprt, BettingThenVariance) and f"by another version of {bot}" in edited.default_why
        # taken past its switch (two bots whose deals vary far less than the bounds: the variance-bounded
        # test is the quicker), the betting test's wealth, then that test on the run's own first n deals
        close = OwnDealsOrBetting(BettingTest(0, 20, -900, 900), history=n, switch_after=n)
        long = evaluate("spades", "heuristic", "greedy", deals=n + 6, seed=6, sprt=close, **kw)
        st = long.sprt_state
        assert st.variance is not None and st.deals > n, st
        first_n = [m for m in long.deal_margins()[:n]]
        sd = (_ss(first_n) / (n - 1)) ** 0.5
        assert st.variance.sd_bound == round_up(long.sprt.room * sd) and st.read_sd == pytest.approx(sd)
        line = " ".join(long.sprt_summary().split())
        assert f"the betting test for the first {n} deals, then the variance-bounded test at s.d. at most" in line
    with pytest.raises(ConfigError, match="reads them from a store"):
        evaluate("spades", "heuristic", "greedy", deals=5, options=ONE, sprt=test)
