"""Reusing a passing check report (arbiter.batch.vetcache): the same content under the same
settings and code is not self-tested again; anything else is; a reused report says so and
names the path checked this time; a failure is never kept; a cache folder that cannot be
written changes nothing but the reuse."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from arbiter.batch.submissions import check_bot
from arbiter.cli import app
from tests.arbiter.store.test_registry import GOOD, HELPER, write_bot

pytestmark = pytest.mark.e2e  # the self-test's sandboxed bot processes


def test_a_passing_report_is_reused_for_the_same_content_and_settings_only(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_VETTING_CACHE", str(tmp_path / "cache"))
    first = check_bot(write_bot(tmp_path / "a", GOOD, HELPER), positions=5, smoke=False)
    assert first.ok and first.reused_from == ""
    copy = tmp_path / "elsewhere" / "b"
    shutil.copytree(tmp_path / "a", copy)
    again = check_bot(copy, positions=5, smoke=False)
    assert again.reused_from and again.to_dict()["reused_from"] == again.reused_from
    assert [(c.name, c.ok) for c in again.checks] == [(c.name, c.ok) for c in first.checks]
    assert again.spec == str(copy.resolve()) and str(tmp_path / "a") not in str(again.to_dict())

    assert check_bot(copy, positions=6, smoke=False).reused_from == ""  # other settings
    (copy / "helper.py").write_text(HELPER["helper.py"] + "# changed\n")
    assert check_bot(copy, positions=5, smoke=False).reused_from == ""  # other content
    assert check_bot(copy, positions=5, smoke=False).reused_from  # ... now kept in its turn
    assert check_bot(copy, positions=5, smoke=False, fresh=True).reused_from == ""

    broken = write_bot(tmp_path / "broken", "import no_such_module\n")
    for _ in range(2):  # a failure is checked again each time
        r = check_bot(broken, positions=5, smoke=False)
        assert not r.ok and r.reused_from == ""

    # a cache "folder" that is a file: nothing is reused, nothing fails
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv("ARENA_VETTING_CACHE", str(tmp_path / "not-a-folder"))
    assert [check_bot(copy, positions=5, smoke=False).reused_from for _ in range(2)] == ["", ""]
    monkeypatch.setenv("ARENA_VETTING_CACHE", "off")
    assert [check_bot(copy, positions=5, smoke=False).reused_from for _ in range(2)] == ["", ""]


def test_submitting_the_same_bot_again_says_its_report_was_reused_and_fresh_runs_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_VETTING_CACHE", str(tmp_path / "cache"))
    bot, db = write_bot(tmp_path / "mine", GOOD, HELPER), str(tmp_path / "arena.sqlite")
    runner = CliRunner()
    outputs = [runner.invoke(app, ["bots", "submit", str(bot), "--name", name, "--db", db, *extra])
               for name, extra in (("one", []), ("two", []), ("three", ["--fresh"]))]
    assert [o.exit_code for o in outputs] == [0, 0, 0], [o.output for o in outputs]
    said = ["earlier check of the same content" in " ".join(o.output.split()) for o in outputs]
    assert said == [False, True, False]
    assert all(f"registered {name}" in o.output for name, o in zip(("one", "two", "three"), outputs))
