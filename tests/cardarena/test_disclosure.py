"""One disclosure policy (cardarena.disclosure), asked by every reader: while a
duplicate tournament runs, no reader shows its seed, a match's deal seed, its replay or a
seating's result; once it is over, all of them do."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.present import web
from arbiter.store.db import Store
from cardarena import disclosure
from arbiter.tournament.run import TournamentSpec, run_tournament

SEED = 424242


def _text(result) -> str:
    """The command's output with rich's line wrapping undone."""
    return " ".join(result.output.split())


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """Two copies of one finished duplicate tournament; in the first it is made to run again."""
    tmp = tmp_path_factory.mktemp("disclosure")
    spec = TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, deals=2, seed=SEED, name="dup")
    finished = tmp / "finished.sqlite"
    with Store(finished) as store:
        asyncio.run(run_tournament(spec, store, transport="inproc"))
    running = tmp / "running.sqlite"
    running.write_bytes(finished.read_bytes())
    with sqlite3.connect(running) as db:  # stopped part-way: resumable, so still running
        db.execute("UPDATE tournaments SET finished = NULL")
    with Store(finished, read_only=True) as store:
        rows = store.matches(store.tournament("dup").id)
    return running, finished, rows


def test_the_policy(stores):
    running, finished, _ = stores
    with Store(running, read_only=True) as store:
        p = store.tournament("dup").disclosure
        assert p.closed and not p.seed and not p.matches
        assert store.shown_seed(store.tournament("dup")) is None
        with pytest.raises(disclosure.Withheld, match="still running with duplicate deals"):
            p.require_match("m1")
    with Store(finished, read_only=True) as store:
        p = store.tournament("dup").disclosure
        assert not p.closed and p.seed and p.matches
        assert store.shown_seed(store.tournament("dup")) == SEED
    # without duplicate deals a running tournament's matches are open, its seed is not
    p = disclosure.Disclosure("x", running=True, duplicate=False)
    assert p.matches and not p.seed


@pytest.mark.parametrize("fmt", ["json", "md", "csv", "html"])
def test_exports_withhold_the_seed_while_running(stores, fmt):
    running, finished, _ = stores
    out = CliRunner().invoke(app, ["standings", "dup", "--db", str(running), "--format", fmt])
    assert out.exit_code == 0, out.output
    assert str(SEED) not in out.output
    if fmt == "json":
        info = json.loads(out.output)["tournament"]
        assert info["seed"] is None and info["seed_withheld"] is True
    done = CliRunner().invoke(app, ["standings", "dup", "--db", str(finished), "--format", fmt])
    assert done.exit_code == 0, done.output
    if fmt != "csv":  # the CSV export is the table only
        assert str(SEED) in done.output


def test_tournament_show_withholds_the_seed_results_and_matches_while_running(stores):
    running, finished, rows = stores
    row = rows[0]
    out = CliRunner().invoke(app, ["tournament", "show", "dup", "--db", str(running)])
    assert out.exit_code == 0, out.output
    assert str(SEED) not in out.output and "withheld" in out.output
    scores = " ".join(f"{s:g}" for s in row.outcome.scores)
    assert scores not in out.output
    out = CliRunner().invoke(app, ["tournament", "show", "dup", "--db", str(running), "--match", row.match_id])
    assert out.exit_code == 2 and "was interrupted with duplicate deals" in _text(out) and str(row.seed) not in out.output
    out = CliRunner().invoke(app, ["tournament", "show", "dup", "--db", str(finished), "--match", row.match_id])
    assert out.exit_code == 0 and f"deal seed {row.seed}" in _text(out)
    out = CliRunner().invoke(app, ["tournament", "show", "dup", "--db", str(finished)])
    assert str(SEED) in out.output and "withheld" not in out.output


def test_replay_refuses_a_running_duplicate_tournaments_match(stores):
    running, finished, rows = stores
    out = CliRunner().invoke(app, ["replay", rows[0].match_id, "--db", str(running)])
    assert out.exit_code == 2 and "was interrupted with duplicate deals" in _text(out)
    out = CliRunner().invoke(app, ["replay", rows[0].match_id, "--db", str(running), "--all", "--full"])
    assert out.exit_code == 2 and "was interrupted" in _text(out) and "step" not in out.output
    out = CliRunner().invoke(app, ["replay", rows[0].match_id, "--db", str(finished)])
    assert out.exit_code == 0 and "replay verified" in _text(out)


def test_an_interrupted_tournaments_match_is_said_to_be_interrupted_not_running(stores, tmp_path):
    """A match of a duplicate tournament that nothing runs (interrupted: a Ctrl-C, a crash) made
    `replay`, `analyse`, `export` and `tournament show --match` say the tournament "is still
    running" while `tournament list` said "interrupted, nothing runs it". They say the truth:
    interrupted, its matches withheld until it finishes, and the command that resumes it; while a
    run holds the store, "still running"."""
    running, _, rows = stores
    mid = rows[0].match_id
    resume = f"resume it: arbiter tournament run --resume dup --db {running}"
    commands = [["replay", mid], ["analyse", mid, "--seat", "0"], ["tournament", "show", "dup", "--match", mid],
                ["export", "--decisions", "-t", "dup", "-o", str(tmp_path / "d.parquet")]]
    for args in commands:
        out = CliRunner().invoke(app, [*args, "--db", str(running)])
        said = _text(out)
        assert out.exit_code == 2 and "was interrupted with duplicate deals, and nothing runs it" in said, (args, said)
        assert "withheld until it finishes" in said and resume in said and "still running" not in said, (args, said)
    with Store(running, read_only=True) as store:
        listed = " ".join(store.tournaments()[0].state(None).split())
    assert listed == "interrupted"
    with Store(running) as holder:  # a run of it holds the store: it is running, and said so
        holder.lock("dup")
        for args in commands:
            out = CliRunner().invoke(app, [*args, "--db", str(running)])
            said = _text(out)
            assert out.exit_code == 2 and "still running with duplicate deals" in said, (args, said)
            assert "interrupted" not in said and "resume" not in said, (args, said)


def test_the_web_page_withholds_the_same(stores):
    running, finished, rows = stores
    with Store(running, read_only=True) as store:
        page = web.tournament_page(store, "dup")
        assert str(SEED) not in page and "withheld" in page
        assert f'href="/m/{rows[0].match_id}"' not in page
        with pytest.raises(web.PageError) as e:
            web.replay_page(store, rows[0].match_id, {})
        assert e.value.status == 403
    with Store(finished, read_only=True) as store:
        page = web.tournament_page(store, "dup")
        assert f'href="/m/{rows[0].match_id}"' in page
        assert "Step 1:" in web.replay_page(store, rows[0].match_id, {"step": ["1"]})


def test_an_arena_encounter_is_closed_until_stored_whole():
    """The same rule as a tournament's: an encounter plays each deal in every seating."""
    for status in ("playing", "abandoned"):
        p = disclosure.of_encounter("ladder", 3, status)
        assert p.closed and not p.matches
    with pytest.raises(disclosure.Withheld, match="encounter 3 of arena 'ladder', which is still running.*stored whole"):
        disclosure.of_encounter("ladder", 3, "playing").require_match("a1-e3-0")
    # an abandoned one is never shown, and is said so: it was called "still running"
    with pytest.raises(disclosure.Withheld) as e:
        disclosure.of_encounter("ladder", 3, "abandoned").require_match("a1-e3-0")
    assert "encounter 3 of arena 'ladder', which was abandoned (cut off by a stop or a crash" in str(e.value)
    assert "still running" not in str(e.value) and "its replay, seed and result are never shown" in str(e.value)
    with pytest.raises(disclosure.Withheld, match="encounter 3 of arena 'ladder' was abandoned .*: its matches' replays, seeds and results are never"):
        disclosure.of_encounter("ladder", 3, "abandoned").require_matches()
    assert disclosure.of_encounter("ladder", 3, "done").matches
    # a match config that says nothing is closed: nothing beyond each seat's own view
    assert disclosure.UNSAID.closed and disclosure.OPEN.matches
