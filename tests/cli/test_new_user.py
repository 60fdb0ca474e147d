"""What a new user tripped on (issue #30): each numbered item of the issue, run as the
user ran it (the real `arbiter` command, in this process through typer's runner or as a
process), with the words it must and must not print."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from tests.cli.badinput import problems
from tests.conftest import ROOT

runner = CliRunner()


def _bot(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return path


CRASHER = """
    from sdk import Bot
    class Crasher(Bot):
        name = "crasher"
        games = ("spades",)
        def choose(self, view, legal_actions):
            raise ValueError("boom")
"""


# -- 1. user text through rich: no emoji codes, no markup ------------------------------


def test_1_play_and_bots_check_print_colons_as_colons(tmp_path):
    """`play:spades: arbiter replay` and `legal:spades:` are not the emoji code `:spades:`."""
    r = runner.invoke(app, ["play", "spades", "random", "random", "random", "random", "--seed", "1",
                            "--transport", "inproc", "--db", str(tmp_path / "a.sqlite")])
    assert r.exit_code == 0, r.output
    assert "as play:spades: arbiter replay" in r.output and "♠" not in r.output, r.output
    bot = _bot(tmp_path, "crasher", CRASHER)
    r = runner.invoke(app, ["bots", "check", str(bot), "--no-smoke", "--positions", "5"], env={"COLUMNS": "80"})
    assert r.exit_code == 1 and "legal:spades" in r.output and "♠" not in r.output, r.output
    r = runner.invoke(app, ["bots", "submit", str(bot), "--name", "crasher", "--db", str(tmp_path / "r.sqlite")])
    assert r.exit_code == 2 and "failed legal:spades: crashed" in r.output and "♠" not in r.output, r.output
