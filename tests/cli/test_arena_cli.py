"""The arena's commands as its organiser, its authors and its readers meet them (an audit
of the ladder end to end): what they print when a store holds a ladder."""

from __future__ import annotations

import asyncio
import importlib.util

import pytest
from typer.testing import CliRunner

from arbiter.arena.ladder import Arena, ArenaSpec
from arbiter.cli import app

runner = CliRunner()


@pytest.mark.skipif(importlib.util.find_spec("pyarrow") is None, reason="the data extra (pyarrow) is not installed")
def test_export_of_a_store_that_holds_only_a_ladder_says_its_matches_are_not_exported_not_that_there_are_none(tmp_path):
    """``arbiter export --decisions --db arena.sqlite`` on a ladder's store of 600 matches
    said "no match to export (the store has no stored match)"."""
    db = tmp_path / "arena.sqlite"
    a = Arena(ArenaSpec(game="spades", name="l", options={"deals": 1}, house=("random", "greedy"), transport="inproc",
                        seed=1), db, poll=0)
    asyncio.run(a.run(max_encounters=1))
    a.close()
    r = runner.invoke(app, ["export", "--decisions", "-o", str(tmp_path / "out.parquet"), "--db", str(db)])
    assert r.exit_code == 2, r.output
    said = " ".join(r.output.split())
    assert "no stored match" not in said, said
    assert "no tournament" in said and "2 arena matches" in said and "arbiter replay MATCH_ID --json" in said, said
