"""`arbiter replay MATCH --seat N --at K [--bot B]` on a stored match: the decision as the
seat had it, the bot's answer beside what was played, the traceback of a bot that crashed
there, and a clear error for a decision or a flag that does not fit."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.tournament.play import play_local, store_play

runner = CliRunner()
ZOO = Path(__file__).resolve().parents[1] / "e2e" / "zoo.py"


class _Out:
    """A run's exit code and its output with line breaks folded to spaces (the console may
    wrap at its own width, whatever COLUMNS says, when other tests created it first)."""

    def __init__(self, result):
        self.exit_code = result.exit_code
        self.output = " ".join(result.output.split())


def invoke(*args: str):
    return _Out(runner.invoke(app, list(args), catch_exceptions=False, env={"COLUMNS": "120"}))


def test_reask_on_the_command_line(tmp_path):
    bot = f"{ZOO}:RaiseInChoose"
    record = play_local("spite-and-malice", [bot, "random"], seed=3, options={"max_turns": 30}, transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    mid = record.match_id

    r = invoke("replay", mid, "--db", str(db), "--seat", "0", "--at", "3", "--bot", bot)
    assert r.exit_code == 0, r.output
    assert "seat 0 (RaiseInChoose), decision 3" in r.output
    assert "played: nothing: the match ended here" in r.output
    assert "chooses: nothing: choose raised RuntimeError: boom in choose" in r.output
    assert "Traceback (most recent call last):" in r.output and 'raise RuntimeError("boom in choose")' in r.output

    r = invoke("replay", mid, "--db", str(db), "--seat", "1", "--at", "1", "--bot", "random")
    assert r.exit_code == 0, r.output
    assert "random chooses:" in r.output and "(the same as played" in r.output

    r = invoke("replay", mid, "--db", str(db), "--seat", "1", "--at", "1")  # the inputs only
    assert r.exit_code == 0 and "legal actions (" in r.output and "chooses" not in r.output

    for args, message in [
        (("--seat", "0", "--at", "99"), "seat 0 had 3 decisions"),
        (("--at", "1"), "give --seat N too"),
        (("--seat", "0", "--bot", "random"), "--bot re-asks one decision"),
        (("--seat", "0", "--at", "1", "--bot", "nosuch"), "unknown bot 'nosuch'"),
        (("--seat", "5", "--at", "1"), "has seats 0 to 1"),
        # a Spades bot is refused a Spite and Malice decision, as `arbiter play` refuses it the match
        (("--seat", "1", "--at", "1", "--bot", "greedy"), "bot 'greedy' does not play spite-and-malice (it plays spades)"),
    ]:
        r = invoke("replay", mid, "--db", str(db), *args)
        assert r.exit_code == 2, (args, r.output)
        assert message in r.output, (args, r.output)
        assert "Traceback" not in r.output


def test_a_withheld_match_is_neither_reasked_nor_analysed(tmp_path):
    """A match of a duplicate tournament still being played: its deal comes back, so the
    disclosure rule withholds it from re-asking and analysis as from `replay`."""
    from arbiter.store.db import Store
    from arbiter.tournament.spec import TournamentSpec

    record = play_local("spot", ["random"] * 3, seed=5, options={"players": 3, "hands": 1}, transport="inproc")
    db = tmp_path / "arena.sqlite"
    spec = TournamentSpec(game="spot", bots=(), options={"players": 3, "hands": 1}, duplicate=True, name="dup", deals=2)
    with Store(db) as store:
        tour = store.open_tournament("dup", "spot", spec.to_json())
        store.save_match(tour.id, 0, 0, 0, record)  # not finished: its twin seatings are still to come
    for args in (("replay", record.match_id, "--seat", "0", "--at", "1", "--bot", "random"),
                 ("replay", record.match_id, "--seat", "0", "--at", "1"),
                 ("analyse", record.match_id, "--seat", "0")):
        r = invoke(*args, "--db", str(db))
        assert r.exit_code == 2, (args, r.output)
        assert "was interrupted with duplicate deals" in r.output, r.output  # (nothing runs it)
        assert "legal actions" not in r.output and "Traceback" not in r.output


CHATTY = """\
from sdk import Bot

class Chatty(Bot):
    name = "chatty"

    def choose(self, view, legal_actions):
        print("CHATTY-STDOUT")
        return legal_actions[0]
"""


def test_a_reasked_bots_stdout_is_thrown_away_as_in_a_match(tmp_path):
    """Re-asked in this process, a bot's ``print`` came out above the decision (three times:
    once for every earlier decision replayed to it); in a match its stdout goes nowhere,
    in process (``--transport inproc``) or not."""
    bot = tmp_path / "chatty.py"
    bot.write_text(CHATTY)
    record = play_local("spot", ["random", "random"], seed=3, options={"players": 2}, transport="inproc")
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    r = runner.invoke(app, ["replay", record.match_id, "--db", str(db), "--seat", "0", "--at", "3", "--bot", str(bot)],
                      catch_exceptions=False)
    assert r.exit_code == 0, r.output
    # (all white space out: a console an earlier test made narrow wraps the bot's long path)
    assert "chatty.pychooses:" in "".join(r.stdout.split()) and "CHATTY-STDOUT" not in r.stdout, r.stdout


ILLEGAL = """\
from sdk import Bot
from sdk.spades import Play


class Revoker(Bot):
    name = "revoker"

    def choose(self, view, legal_actions):
        other = [c for c in view.hand if Play(c) not in legal_actions and any(isinstance(a, Play) for a in legal_actions)]
        return Play(other[0]) if other else legal_actions[0]
"""


def test_play_says_how_to_learn_why_a_bot_of_the_authors_forfeited(tmp_path):
    """``arbiter play`` said "play 9S is not a legal action now" and no more: the record
    keeps the engine's reason to itself (it may tell of the hand). The output now gives the
    command that re-asks the bot that decision, and it says why ("must follow suit")."""
    import shlex

    from tests.cli.badinput import run_in_process

    bot = tmp_path / "revoker.py"
    bot.write_text(ILLEGAL)
    db = tmp_path / "arena.sqlite"
    proc = run_in_process("play", "spades", str(bot), "random", "random", "random", "--seed", "3", "-o", "deals=1",
                          "-o", "blind_nil=false", "--transport", "inproc", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("why, and what it answers there now: "))
    command = shlex.split(line.split("now: ", 1)[1])
    assert command[:2] == ["arbiter", "replay"] and command[-2:] == ["--bot", str(bot)], command
    r = invoke(*command[1:])
    assert r.exit_code == 0, r.output
    assert "NOT a legal action here (must follow suit" in r.output, r.output
    proc = run_in_process("play", "spades", "random", "random", "random", "random", "--seed", "3", "-o", "deals=1",
                          "--transport", "inproc", "--db", str(db))
    assert "why, and what it answers" not in proc.stdout  # a match that ended well: no such line
