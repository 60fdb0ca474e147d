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
from arbiter.tournament.probes import luck_probes, stored_luck
from arbiter.tournament.run import TournamentSpec, run_tournament
from cardarena.games import ConfigError

GAME, A, B, OPTIONS = "spades", "heuristic", "greedy", {"deals": 1}


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[Path, object]:
    """An evaluation of MIN_DEALS deals stored in a fresh store, and what evaluate --luck-adjusted said of it."""
    db = tmp_path_factory.mktemp("luck") / "arena.db"
    probes = luck_probes(GAME, A, B, OPTIONS, deals=60)
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
        again = stored_luck(store, "close", lambda *a: luck_probes(*a, deals=60))
    assert again.deals == MIN_DEALS and again.luck_features == played.luck_features
    assert again.luck.mean == pytest.approx(played.luck.mean) and again.luck.se == pytest.approx(played.luck.se)

    out = CliRunner().invoke(app, ["standings", "close", "--db", str(db), "--luck-adjusted", "--probes", "60"])
    assert out.exit_code == 0, out.output
    assert "the margin above is raw; with the luck of the deal taken out" in out.output
    assert f"luck-adjusted margin {played.luck.mean:+.2f} ± {played.luck.se:.2f}" in out.output
    assert f"raw {played.luck.raw}" in out.output and "60 probe deals" in out.output
    plain = CliRunner().invoke(app, ["standings", "close", "--db", str(db)])
    assert plain.exit_code == 0 and "luck-adjusted" not in plain.output
    # a round robin of the same two bots on the same seed played the same matches: the same line
    pair = CliRunner().invoke(app, ["standings", "two", "--db", str(db), "--luck-adjusted", "--probes", "60"])
    assert pair.exit_code == 0, pair.output
    assert f"luck-adjusted margin {played.luck.mean:+.2f} ± {played.luck.se:.2f}" in pair.output


def test_where_it_cannot_apply_it_says_why(stored) -> None:
    db, _ = stored
    cases = [
        (["standings", "spot", "--db", str(db), "--luck-adjusted", "--probes", "20"], "no probes"),
        (["standings", "close", "--db", str(db), "--luck-adjusted", "--format", "json"], "not in an export"),
        (["standings", "close", "--db", str(db), "--probes", "20"], "--probes and --probes-file need --luck-adjusted"),
        (["standings", "rr", "--db", str(db), "--luck-adjusted", "--probes", "20"], "tournament of 3 bots"),
        (["standings", "nothere", "--db", str(db), "--luck-adjusted", "--probes", "20"], "nothere"),
    ]
    for args, said in cases:
        out = CliRunner().invoke(app, args)
        assert out.exit_code == 2 and said in out.output, (args, out.output)
        assert "Traceback" not in out.output
    with Store(db, read_only=True) as store, pytest.raises(ConfigError, match="a stored evaluation .* of 3 bots"):
        stored_luck(store, "rr", lambda *a: pytest.fail("no probes for what cannot be corrected"))
