"""``arbiter standings NAME --luck-adjusted`` (issue 39): a stored evaluation (or a two-bot round
robin with duplicate deals) read back with its luck-adjusted margin beside the raw one, the same as ``arbiter evaluate --luck-adjusted`` gave
when it played them (the same probes, the same deals), said to be so; and a clear error where it
cannot apply. Real store, real matches (in process), real probes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.rating.luck import MIN_DEALS
from arbiter.store.db import Store
from arbiter.tournament.evaluate import evaluate
from arbiter.tournament.probes import luck_probes, stored_luck, stored_luck_pairs
from arbiter.tournament.run import TournamentSpec, run_tournament
from cardarena.games import ConfigError

GAME, A, B, OPTIONS = "spades", "heuristic", "greedy", {"deals": 1}
PROBES = 20  # probe deals: the checks compare two readings of the same probes, not their precision


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[Path, object]:
    """An evaluation of MIN_DEALS deals stored in a fresh store, and what evaluate --luck-adjusted said of it."""
    db = tmp_path_factory.mktemp("luck") / "arena.db"
    probes = luck_probes(GAME, A, B, OPTIONS, deals=PROBES)
    with Store(db) as store:
        played = evaluate(GAME, A, B, deals=MIN_DEALS, seed=5, options=OPTIONS, store=store, name="close", luck=probes)
        evaluate("spot", "heuristic", "random", deals=1, seed=5, options={"hands": 1}, store=store, name="spot")
        rr = TournamentSpec(game=GAME, bots=("random", "greedy", "heuristic"), options=OPTIONS, deals=1, seed=9, name="rr")
        asyncio.run(run_tournament(rr, store, transport="inproc"))
        # the evaluation's matches again, as a two-bot round robin (the same seed: the same deals and seatings)
        two = TournamentSpec(game=GAME, bots=(A, B), options=OPTIONS, deals=MIN_DEALS, seed=5, name="two")
        asyncio.run(run_tournament(two, store, transport="inproc"))
    return db, played


def test_standings_give_the_evaluations_luck_adjusted_margin(stored) -> None:
    db, played = stored
    with Store(db, read_only=True) as store:
        again = stored_luck(store, "close", lambda *a: luck_probes(*a, deals=PROBES))
    assert again.deals == MIN_DEALS and again.luck_features == played.luck_features
    assert again.luck.mean == pytest.approx(played.luck.mean) and again.luck.se == pytest.approx(played.luck.se)

    out = CliRunner().invoke(app, ["standings", "close", "--db", str(db), "--luck-adjusted", "--probes", str(PROBES)])
    assert out.exit_code == 0, out.output
    assert "the margin above is raw; with the luck of the deal taken out" in out.output
    assert f"luck-adjusted margin {played.luck.mean:+.2f} ± {played.luck.se:.2f}" in out.output
    assert f"raw {played.luck.raw}" in out.output and f"{PROBES} probe deals" in out.output
    plain = CliRunner().invoke(app, ["standings", "close", "--db", str(db)])
    assert plain.exit_code == 0 and "luck-adjusted" not in plain.output
    # a round robin of the same two bots on the same seed played the same matches: the same line
    pair = CliRunner().invoke(app, ["standings", "two", "--db", str(db), "--luck-adjusted", "--probes", str(PROBES)])
    assert pair.exit_code == 0, pair.output
    assert f"luck-adjusted margin {played.luck.mean:+.2f} ± {played.luck.se:.2f}" in pair.output


def test_where_it_cannot_apply_it_says_why(stored) -> None:
    db, _ = stored
    cases = [
        (["standings", "spot", "--db", str(db), "--luck-adjusted", "--probes", "20"], "no probes"),
        (["standings", "close", "--db", str(db), "--luck-adjusted", "--format", "json"], "not in an export"),
        (["standings", "close", "--db", str(db), "--probes", "20"], "--probes: needs --luck-adjusted"),
        (["standings", "rr", "--db", str(db), "--luck-adjusted", "--probes", "20", "--probes-file", str(db.parent / "p.json")],
         "more than one pair"),
        (["standings", "nothere", "--db", str(db), "--luck-adjusted", "--probes", "20"], "nothere"),
    ]
    for args, said in cases:
        out = CliRunner().invoke(app, args)
        assert out.exit_code == 2 and said in out.output, (args, out.output)
        assert "Traceback" not in out.output
    with Store(db, read_only=True) as store, pytest.raises(ConfigError, match="3 pairs of bots met"):
        stored_luck(store, "rr", lambda *a: luck_probes(*a, deals=3))


def test_a_round_robin_of_three_bots_is_corrected_pair_by_pair(stored) -> None:
    """Each pair of a three-bot round robin (Spades, duplicate deals) is read as an evaluation of the
    two: its deals, its own probes, its line; the output says what is corrected. Here 1 deal a
    pair, fewer than the slopes need: the line says so, and the raw margin is each pair's."""
    db, _ = stored
    with Store(db, read_only=True) as store:
        pairs = stored_luck_pairs(store, "rr", lambda *a: luck_probes(*a, deals=3))
        rows = store.matches(store.tournament("rr").id)
    assert [(r.bot_a, r.bot_b) for r in pairs] == [("random", "greedy"), ("random", "heuristic"), ("greedy", "heuristic")]
    for r in pairs:
        table = [m for m in rows if set(m.seats) == {r.bot_a, r.bot_b}]
        assert r.deals == 1 and len(r.matches) == len(table) == 2 and len(r.luck_features) == 1
        assert r.luck_expected is not None and r.luck_expected.probes == 3 and r.luck is None
    out = CliRunner().invoke(app, ["standings", "rr", "--db", str(db), "--luck-adjusted", "--probes", "3"])
    assert out.exit_code == 0, out.output
    assert "each pair's margin where the two met head to head" in out.output and "3 pairs" in out.output
    for r in pairs:
        assert f"{r.bot_a} vs {r.bot_b}, 1 deal: luck-adjusted margin: none, 1 deal is fewer than" in out.output


def test_a_spot_round_robin_of_three_bots_gives_each_pair_its_evaluations_line(tmp_path) -> None:
    """Spot head to head (players=2): a round robin of three bots plays each pair's deals as
    ``arbiter evaluate`` of the two on the same seed does, so each pair's luck-adjusted margin (the
    draws') is the evaluation's; a free for all (four players, three bots at every table) has no
    two-bot table and says so."""
    db = tmp_path / "arena.db"
    opts = {"players": 2, "hands": 1}
    bots = ("heuristic", "random", "bots.noisy:Noisy30")
    with Store(db) as store:
        spec = TournamentSpec(game="spot", bots=bots, options=opts, deals=MIN_DEALS, seed=3, name="spot3")
        asyncio.run(run_tournament(spec, store, transport="inproc"))
        ffa = TournamentSpec(game="spot", bots=bots, options={"hands": 1}, deals=1, seed=3, name="ffa")
        asyncio.run(run_tournament(ffa, store, transport="inproc"))
        with pytest.raises(ConfigError, match="no table where two bots met"):
            stored_luck_pairs(store, "ffa", luck_probes)
        # one not finished with duplicate deals (nothing runs it: interrupted): its records are withheld
        # (cardarena.disclosure), and the refusal says how to resume it
        store.open_tournament("running", "spot", {**spec.to_json(), "name": "running"}, planned=2)
        with pytest.raises(ConfigError, match="'running' was interrupted .* resume it: arbiter tournament run --resume running"):
            stored_luck_pairs(store, "running", lambda *a: pytest.fail("no probes for what is withheld"))
    alone = evaluate("spot", "heuristic", "bots.noisy:Noisy30", deals=MIN_DEALS, seed=3, options=opts,
                     luck=luck_probes("spot", "heuristic", "bots.noisy:Noisy30", opts))
    adj = alone.luck
    assert adj is not None and adj.exact
    out = CliRunner().invoke(app, ["standings", "spot3", "--db", str(db), "--luck-adjusted"])
    assert out.exit_code == 0, out.output
    assert "with the luck of the draws taken out, pair by pair (3 pairs" in out.output
    lines = [x for x in out.output.splitlines() if f", {MIN_DEALS} deals: luck-adjusted margin" in x]
    assert [x.split(",")[0] for x in lines] == ["heuristic vs random", "heuristic vs bots.noisy:Noisy30",
                                                "random vs bots.noisy:Noisy30"]
    assert f"luck-adjusted margin {adj.mean:+.2f} ± {adj.se:.2f} (s.e.), raw {adj.raw}" in lines[1]


def test_a_round_robin_it_cannot_correct_is_refused_before_its_table(tmp_path) -> None:
    """A Spades round robin of four bots, one of them a file: `standings --luck-adjusted` printed
    the whole table, then failed under it with "./mybot.py is not installed with the arbiter: run
    arbiter evaluate --luck-adjusted --transport inproc instead" (an evaluation's advice, and --help
    spoke of two-bot round robins only). It is refused before anything is printed, saying why:
    the probes of the pairs that bot met in would play it in this process."""
    mybot = tmp_path / "mybot.py"
    mybot.write_text("from bots.random_bot import RandomBot\n\n\nclass MyBot(RandomBot):\n    name = 'mybot'\n")
    db = tmp_path / "arena.db"
    with Store(db) as store:
        spec = TournamentSpec(game=GAME, bots=("random", "greedy", "heuristic", str(mybot)), options=OPTIONS, deals=1,
                              seed=4, name="four")
        asyncio.run(run_tournament(spec, store, transport="inproc"))
    out = CliRunner().invoke(app, ["standings", "four", "--db", str(db), "--luck-adjusted", "--probes", "3"])
    said = " ".join(out.output.split())
    assert out.exit_code == 2, out.output
    assert said.startswith("error: --luck-adjusted:"), said  # nothing before it: no table
    assert f"{mybot} is not installed with the arbiter" in said and "the pairs it met in cannot be corrected" in said
    assert "--transport inproc instead" not in said and "Traceback" not in said
    plain = CliRunner().invoke(app, ["standings", "four", "--db", str(db)])
    assert plain.exit_code == 0 and "mybot" in plain.output  # the table itself is there to print
