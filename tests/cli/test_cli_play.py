"""`arbiter play`, `arbiter replay` and the error paths of the command line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.tournament.play import play_local

runner = CliRunner()


@pytest.fixture(autouse=True)
def _in_a_scratch_folder(tmp_path, monkeypatch):
    """`arbiter play` keeps its matches in ./arena.sqlite: here, not in the checkout."""
    monkeypatch.chdir(tmp_path)


def test_play_in_process_prints_the_result():
    result = runner.invoke(app, ["play", "spades", "heuristic", "random", "heuristic", "random", "--seed", "3",
                                 "-o", "deals=2", "--transport", "inproc"])
    assert result.exit_code == 0, result.output
    assert "spades (seed 3)" in result.output and "heuristic" in result.output
    assert "decisions in" in result.output


@pytest.mark.e2e
def test_play_over_grpc_matches_in_process_for_the_same_seed():
    grpc_rec = play_local("spades", ["greedy", "random", "greedy", "random"], seed=4, options={"deals": 1})
    inproc_rec = play_local("spades", ["greedy", "random", "greedy", "random"], seed=4, options={"deals": 1}, transport="inproc")
    assert [a.action for a in grpc_rec.actions] == [a.action for a in inproc_rec.actions]
    assert grpc_rec.outcome == inproc_rec.outcome


def test_play_errors_are_clear_and_exit_2():
    cases = [
        (["play", "poker", "random"], "unknown game 'poker'"),
        (["play", "spades", "random", "random"], "needs 4 bots"),
        (["play", "spades", *["random"] * 4, "-o", "target"], "expected KEY=VALUE"),
        (["play", "spades", *["random"] * 4, "-o", "trget=3"], "unknown option 'trget'"),
        (["play", "spades", *["random"] * 4, "-o", "target=abc"], "option 'target': expected an integer"),
        (["play", "spades", "nosuchbot", *["random"] * 3, "--transport", "inproc"], "unknown bot 'nosuchbot'"),
        (["play", "spades", *["random"] * 4, "--policy", "lenient"], "policy"),
        (["play", "spades", *["random"] * 4, "--transport", "pigeon"], "transport"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in " ".join(result.output.split()), (args, result.output)


@pytest.mark.e2e
def test_a_bot_that_cannot_start_is_reported_with_its_error(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import does_not_exist\n")
    result = runner.invoke(app, ["play", "spades", str(broken), "random", "random", "random", "-o", "deals=1"])
    assert result.exit_code == 2
    said = " ".join(result.output.split())
    assert "exited with code" in said and "does_not_exist" in said


def test_replay_verifies_a_record_file_and_detects_tampering(tmp_path):
    record = play_local("spades", ["random"] * 4, seed=8, options={"deals": 1}, transport="inproc")
    good = tmp_path / "match.json"
    good.write_text(record.to_json())
    result = runner.invoke(app, ["replay", str(good)])
    assert result.exit_code == 0, result.output
    assert "replay verified" in result.output

    data = json.loads(record.to_json())
    data["seed"] += 1
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(data))
    result = runner.invoke(app, ["replay", str(bad)])
    assert result.exit_code == 1 and "replay failed" in result.output

    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text("{not json")
    result = runner.invoke(app, ["replay", str(corrupt)])
    assert result.exit_code == 2 and "corrupt match record" in result.output


def test_standings_without_a_store_says_so(tmp_path):
    result = runner.invoke(app, ["standings", "--db", str(tmp_path / "none.sqlite")])
    assert result.exit_code == 2 and "no store" in result.output


def test_a_refused_play_leaves_no_empty_store(tmp_path):
    """`arbiter play spades random` (too few bots) or a bot file that is not there: the
    error, and no empty arena.sqlite that `arbiter standings` would then call a store."""
    db = tmp_path / "arena.sqlite"
    for bots in (["random"], ["nope.py", "random", "random", "random"]):
        result = runner.invoke(app, ["play", "spades", *bots, "--transport", "inproc", "--db", str(db)])
        assert result.exit_code == 2 and not db.exists(), result.output
    result = runner.invoke(app, ["play", "spades", "greedy", "greedy", "greedy", "greedy", "-o", "deals=1",
                                 "--transport", "inproc", "--db", str(db)])
    assert result.exit_code == 0 and db.exists(), result.output  # made when a match is kept
