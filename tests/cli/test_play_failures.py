"""A bot author's failures, in words, where the author looks: `arbiter play` with bots
whose choose raises, returns None, or returns notation that does not parse. The bot
process does not die; the SDK reports what happened, the arbiter applies the policy and
records it, and the output names it. The commands run in this process (``run_in_process``:
stdout and stderr apart, as a process's); the bots they play are processes."""

from __future__ import annotations

import textwrap

import pytest

from tests.cli.badinput import invoke, run_in_process

pytestmark = pytest.mark.e2e  # `arbiter play` with bot processes

BOTS = {
    "raiser": """
        from sdk import Bot
        class Raiser(Bot):
            name = "raiser"
            def choose(self, view, legal_actions):
                raise ValueError("my heuristic broke")
    """,
    "nothing": """
        from sdk import Bot
        class Nothing(Bot):
            name = "nothing"
            def choose(self, view, legal_actions):
                return None
    """,
    "garbled": """
        from sdk import Bot
        class Garbled(Bot):
            name = "garbled"
            def choose(self, view, legal_actions):
                return "play ZZ"
    """,
}
EXPECT = {
    "raiser": ["crash", "choose raised ValueError: my heuristic broke (raiser.py:6 in choose)"],
    "nothing": ["crash", "choose returned None"],
    "garbled": ["malformed", "'play ZZ'"],
}


def _play(tmp_path, bot: str, *extra: str):
    path = tmp_path / f"{bot}.py"
    path.write_text(textwrap.dedent(BOTS[bot]))
    return run_in_process("play", "spite-and-malice", str(path), "random", "--seed", "3", "-o", "payoff_size=5",
                          "--db", str(tmp_path / "arena.sqlite"), *extra)


@pytest.mark.parametrize("bot", list(BOTS))
def test_the_failure_is_named_in_play_output(tmp_path, bot):
    proc = _play(tmp_path, bot)
    text = " ".join(proc.stdout.split())
    assert proc.returncode == 0, proc.stderr
    kind, words = EXPECT[bot]
    assert f"seat 0: {kind}:" in text and words in text, text
    assert "forfeit" in text and "Traceback" not in proc.stderr  # the arbiter's own output: no traceback
    if bot == "raiser":  # the bot's traceback, from its stderr, shown as such
        assert "the bot's stderr ends:" in text and "ValueError: my heuristic broke" in text


def test_under_the_default_policy_a_failing_bot_plays_on_with_strikes(tmp_path):
    proc = _play(tmp_path, "raiser", "--policy", "default", "--max-strikes", "2")
    text = " ".join(proc.stdout.split())
    assert proc.returncode == 0, proc.stderr
    # two failures played on (the first legal action for it), the third forfeits
    assert text.count("seat 0: crash:") == 3 and "strike 3 of 2 allowed" in text


def test_play_infers_the_players_keeps_the_match_and_takes_registered_bots(tmp_path):
    db = tmp_path / "arena.sqlite"
    proc = run_in_process("play", "spot", "random", "random", "--seed", "2", "-o", "hands=1", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    match_id = text.split("arbiter replay ")[-1].split()[0]
    assert "play:spot(hands=1,players=2)" in text and "1 hand" in text and "1 hands" not in text
    replay = invoke(["replay", match_id, "--db", str(db)])  # reading the store back: no process needed
    assert replay.exit_code == 0 and not replay.crash and "reproduce the recorded result" in replay.output, replay.describe()
    # a registered bot by name@version, and a folder bot typed with its trailing slash
    folder = tmp_path / "mybot"
    new = invoke(["bots", "new", "mybot", "--dir", str(tmp_path)])
    assert new.exit_code == 0 and not new.crash, new.describe()
    from arbiter.store import registry as reg
    from arbiter.batch.submissions import submit

    with reg.Registry(db) as r:
        submit(r, folder, "mybot", "1.0", check=lambda p, abandoned: _passing(p))
    proc = run_in_process("play", "spite-and-malice", "mybot@1.0", f"{folder}/", "--seed", "4", "-o", "payoff_size=5",
                          "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    assert "mybot@1.0" in proc.stdout and "Traceback" not in proc.stderr


def _passing(path):
    from arbiter.hosting.botcheck import Report

    report = Report(str(path))
    report.add("import", True, "")
    report.bot = {"name": "mybot", "version": "1.0", "games": ["*"], "deterministic": False}
    return report


def test_tournament_show_names_a_failing_bot_and_its_stderr(tmp_path):
    path = tmp_path / "raiser.py"
    path.write_text(textwrap.dedent(BOTS["raiser"]))
    db = tmp_path / "t.sqlite"
    run = run_in_process("tournament", "run", "--game", "spite-and-malice", "--bots", f"{path},random", "--deals", "1",
                         "-o", "payoff_size=5", "--db", str(db), "-q", "--name", "fails")
    assert run.returncode == 0, run.stderr
    shown = invoke(["tournament", "show", "fails", "--db", str(db), "--failures"])  # reading the store: in process
    assert shown.exit_code == 0 and not shown.crash and "crash" in shown.output, shown.describe()
    import sqlite3

    with sqlite3.connect(db) as con:
        match_id = con.execute("SELECT match_id FROM matches WHERE incidents LIKE '%crash%' LIMIT 1").fetchone()[0]
    detail = invoke(["tournament", "show", "fails", "--db", str(db), "-m", match_id])
    text = " ".join(detail.output.split())
    assert detail.exit_code == 0 and not detail.crash and "choose raised ValueError: my heuristic broke (raiser.py:" in text, text
