"""The long commands' progress display (``arbiter.cli._common.show_progress``) on a stderr that is
not a terminal (``2>err.txt``, CI, a pipe): rich's Progress wrote a blank line there when it
stopped, whatever the command; a transient display now writes nothing, a kept one its final line."""

from __future__ import annotations

from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.tournament.play import play_local, store_play


def test_evaluate_writes_nothing_on_a_stderr_that_is_not_a_terminal() -> None:
    r = CliRunner().invoke(app, ["evaluate", "spades", "random", "greedy", "--deals", "1", "-o", "deals=1",
                                 "--transport", "inproc"])
    assert r.exit_code == 0, r.output
    assert r.stderr == "", repr(r.stderr)


def test_analyse_writes_nothing_on_a_stderr_that_is_not_a_terminal(tmp_path) -> None:
    record = play_local("spot", ["random", "random", "random"], seed=2, options={"players": 3, "hands": 1},
                        transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    r = CliRunner().invoke(app, ["analyse", record.match_id, "--db", str(db), "--seat", "0", "--samples", "1",
                                 "--to", "1"])
    assert r.exit_code == 0, r.output
    assert r.stderr == "", repr(r.stderr)


def test_a_tournament_leaves_its_final_progress_line_and_no_blank_line(tmp_path) -> None:
    r = CliRunner().invoke(app, ["tournament", "run", "--db", str(tmp_path / "t.sqlite"), "--transport", "inproc",
                                 "--game", "spades", "--bots", "random,greedy", "--deals", "1", "-o", "deals=1",
                                 "--name", "t", "--seed", "1"])
    assert r.exit_code == 0, r.output
    lines = r.stderr.split("\n")
    assert lines[-1] == "" and "" not in lines[:-1], repr(r.stderr)  # every line ends, none is blank
    assert "2/2" in lines[-2] and "leader: " in lines[-2], repr(r.stderr)


def test_play_writes_nothing_on_a_stderr_that_is_not_a_terminal(tmp_path) -> None:
    r = CliRunner().invoke(app, ["play", "spot", "random", "random", "random", "-o", "players=3", "-o", "hands=1",
                                 "--transport", "inproc", "--db", str(tmp_path / "a.sqlite")])  # not the checkout's
    assert r.exit_code == 0, r.output
    assert r.stderr == "", repr(r.stderr)
