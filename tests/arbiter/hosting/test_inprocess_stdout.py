"""A bot's stdout in the arbiter's process (``--transport inproc``) goes where a bot
process's goes: nowhere (its process is started with stdout on /dev/null, ``pydoc sdk.Bot``
says so). Before, a bot's ``print`` landed among the command's own tables and standings. The
command's own printing, meanwhile, from another thread too, is all kept."""

from __future__ import annotations

import asyncio
import sys
import threading

from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import run_match
from bots.random_bot import RandomBot
from cardarena.records import MatchConfig

#: Shared by every copy of the bot (a bot is deep-copied per match: no Event on it).
ASKED, PRINTED = threading.Event(), threading.Event()


class Chatty(RandomBot):
    """The random bot, printing in every hook; at its first decision it waits while the
    test's main thread prints, so the two print at the same time."""

    name = "chatty"

    def on_match_start(self, info):
        print("BOT-START")

    def choose(self, view, legal_actions):
        print("BOT-CHOOSE")
        if not ASKED.is_set():
            ASKED.set()
            PRINTED.wait(10)
        return super().choose(view, legal_actions)

    def on_match_end(self, result):
        print("BOT-END", file=sys.stdout)
        print("BOT-STDERR", file=sys.stderr)  # diagnostics stay on stderr


def test_an_in_process_bots_stdout_is_thrown_away_and_the_commands_own_is_kept(capsys):
    ASKED.clear(), PRINTED.clear()
    done: list = []

    def play() -> None:
        seats = [InProcessSeat(Chatty(), "chatty"), InProcessSeat(RandomBot(), "random")]
        done.append(asyncio.run(run_match(MatchConfig(game="spot", seed=3, options={"players": 2}), seats)))

    match = threading.Thread(target=play)
    match.start()
    assert ASKED.wait(10)
    print("COMMAND-DURING")  # while the bot's call is running on the other thread
    PRINTED.set()
    match.join(30)
    print("COMMAND-AFTER")
    assert done and done[0].outcome is not None
    captured = capsys.readouterr()
    assert "BOT-" not in captured.out, captured.out
    assert captured.out.splitlines() == ["COMMAND-DURING", "COMMAND-AFTER"]
    assert "BOT-STDERR" in captured.err
    assert done[0].incidents == []  # nothing of it in the record, which pydoc sdk.Bot says
    import sdk.bot

    assert "writes it on the command's stderr instead" in " ".join(sdk.bot.Bot.__doc__.split())


PRINTER = """\
from sdk import Bot

class Printer(Bot):
    name = "printer"
    games = ("spot",)

    def choose(self, view, legal_actions):
        print("turn", view.turn_number, "hand", view.hand)
        return legal_actions[0]
"""


def test_play_inproc_prints_its_table_without_the_bots_prints(tmp_path):
    bot = tmp_path / "printer.py"
    bot.write_text(PRINTER)
    r = CliRunner().invoke(app, ["play", "spot", str(bot), "random", "--seed", "3", "--transport", "inproc",
                                 "--db", str(tmp_path / "a.sqlite")])
    assert r.exit_code == 0, r.output
    assert "turn " not in r.stdout, r.stdout
    assert "printer (seat 0)" in r.stdout or "random (seat 1)" in r.stdout, r.stdout
