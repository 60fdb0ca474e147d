"""Text that others wrote (a tournament's name, a bot's notes, stderr and errors, a record
file someone gave you) is shown by every command, never acted on: rich markup in it is
text, and control characters (ESC sequences, CR, BEL) are written as their escapes."""

from __future__ import annotations

import dataclasses
import io
import shlex

import pytest

from rich.table import Table
from rich.text import Text
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.cli._common import ShownConsole
from arbiter.tournament.play import play_local
from cardarena.records import visible

runner = CliRunner()

#: Markup: a tag closed that was never opened (rich's MarkupError), a style, a hyperlink.
MARKUP = "[/x][bold]T[link=http://evil]L[/link]"
#: Clears the screen, plants an OSC 8 hyperlink, overwrites the line, and closes a tag never opened.
HOSTILE = "[/x][bold]T\x1b[2J\x1b]8;;http://evil\x07L\x1b]8;;\x07\rZ\u202e"


def test_control_characters_are_made_visible_newlines_and_tabs_kept():
    assert visible("a\x1b[2Jb\rc\x07\x00\x9b\u202ed\ne\tf") == "a\\x1b[2Jb\\rc\\x07\\0\\x9b\\u202ed\ne\tf"


def test_the_console_shows_control_characters_in_strings_tables_and_text():
    console = ShownConsole(file=io.StringIO(), width=100, emoji=False, color_system="truecolor", force_terminal=True)
    table = Table("name", "n")
    table.add_row("a\x1b[2Jb", "1")
    console.print("[bold]mine[/] x\x1b]8;;http://evil\x07y", highlight=False)
    console.print(table)
    console.print(Text("note: pq\x1b[31m"))  # (a Text drops CR, BEL, BS, VT and FF itself)
    shown = console.file.getvalue()
    assert "\x1b[2J" not in shown and "\x1b]8" not in shown and "\r" not in shown and "\x1b[31m" not in shown
    assert "x\\x1b]8;;http://evil\\x07y" in shown and "a\\x1b[2Jb" in shown and "pq\\x1b[31m" in shown
    assert "\x1b[1m" in shown  # the command's own styles still reach the terminal


def test_a_tournament_name_is_shown_not_read_as_markup(tmp_path):
    db = str(tmp_path / "t.sqlite")
    r = runner.invoke(app, ["tournament", "run", "--db", db, "--transport", "inproc", "--game", "spades", "--bots",
                            "random,random", "-o", "deals=1", "--deals", "1", "--seed", "1", "--name", MARKUP])
    assert r.exit_code == 0, r.output
    words = " ".join(r.output.split())  # (the last line wraps where the store's path is long)
    assert f"\n{MARKUP} " in r.output and f"arbiter standings {shlex.quote(MARKUP)} --db" in words  # the progress bar's, the last line's (quoted for the shell)


def test_a_tournament_name_is_one_line_of_text(tmp_path):
    r = runner.invoke(app, ["tournament", "run", "--db", str(tmp_path / "t.sqlite"), "--transport", "inproc", "--game",
                            "spades", "--bots", "random,random", "-o", "deals=1", "--deals", "1", "--name", HOSTILE])
    assert r.exit_code == 2 and "a name is one line of text" in r.output, r.output
    assert "\\x1b[2J" in r.output and "\x1b" not in r.output  # the name, shown


@pytest.fixture(scope="module")
def hostile_record(tmp_path_factory):
    """A played match as a record file someone else gave you: its match id and a seat's name
    rewritten with markup and control characters, and seat 1's notes carrying them too."""
    record = play_local("spades", ["random"] * 4, seed=2, options={"deals": 1}, transport="inproc")
    names = list(record.seat_names)
    names[1] = "[/y]" + HOSTILE
    actions = [dataclasses.replace(a, note="why " + HOSTILE) if a.seat == 1 else a for a in record.actions]
    folder = tmp_path_factory.mktemp("replay")
    given = dataclasses.replace(record, match_id="[/m]" + HOSTILE, seat_names=tuple(names), actions=actions)
    (folder / "given.json").write_text(given.to_json())
    # its first decisions only, for the step by step replay (which stops, saying why, where the record ends)
    (folder / "start.json").write_text(dataclasses.replace(given, actions=given.actions[:8]).to_json())
    return folder


@pytest.mark.parametrize("file, args", [("start.json", ["--all", "--seat", "1"]), ("given.json", ["--seat", "1", "--at", "1"])])
def test_a_record_file_s_names_and_notes_are_shown_not_read_as_markup(hostile_record, file, args, monkeypatch):
    from arbiter.cli._common import out

    monkeypatch.setattr(out, "width", 200)  # lines whole, whatever the terminal
    r = runner.invoke(app, ["replay", str(hostile_record / file), *args])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.output  # no MarkupError
    assert r.exit_code in (0, 1), r.output
    assert "\x1b[2J" not in r.output and "\x1b]8" not in r.output and "\r" not in r.output and "\x07" not in r.output
    assert "[/y][/x][bold]T\\x1b[2J" in r.output  # the seat's name, as written
    assert "[/x][bold]T\\x1b[2J\\x1b]8;;http://evil\\x07L" in r.output.split("\n")[0]  # the match id, whole
    assert "note: why [/x][bold]T\\x1b[2J\\x1b]8;;http://evil\\x07L\\x1b]8;;\\x07\\rZ" in r.output  # nothing dropped
    if "--all" in args:
        assert "[/m][/x][bold]T" in r.output


def test_an_evaluation_s_name_is_shown_not_read_as_markup(tmp_path):
    db = str(tmp_path / "e.sqlite")
    r = runner.invoke(app, ["evaluate", "spades", "greedy", "random", "-o", "deals=1", "--deals", "1", "--db", db,
                            "--name", MARKUP])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.output  # no MarkupError once the deals are played
    assert r.exit_code == 0, r.output
    assert f"arbiter standings {shlex.quote(MARKUP)} --db" in " ".join(r.output.split())  # quoted for the shell


def test_a_log_record_stays_one_line_whatever_its_message_holds():
    import logging

    from arbiter.cli._common import LOG_FORMAT, ShownFormatter

    forged = "x\n2026-01-01 00:00:00,000 CRITICAL arbiter: forged\x1b[2J"
    record = logging.LogRecord("arbiter.server.bots", logging.INFO, __file__, 1, "checking submission %s from %s",
                               (forged, "alice"), None)
    line = ShownFormatter(LOG_FORMAT).format(record)
    assert "\n" not in line and "\x1b" not in line
    assert line.endswith("arbiter.server.bots: checking submission x\\n2026-01-01 00:00:00,000 CRITICAL arbiter: forged"
                         "\\x1b[2J from alice")


def test_a_bot_s_stderr_is_indented_under_the_line_that_says_whose_it_is(hostile_record, capsys):
    from arbiter.cli.play import _print_record
    from cardarena.records import Incident, MatchRecord

    record = MatchRecord.from_json((hostile_record / "given.json").read_text())
    forged = "Traceback (most recent call last):\nerror: the arbiter crashed\r56 decisions in 0.01 s; match x\x1b[2J"
    _print_record(dataclasses.replace(record, incidents=(Incident(1, "crash", "boom", stderr=forged),)), "t")
    shown = capsys.readouterr().out.splitlines()
    at = shown.index("  the bot's stderr ends:")
    assert shown[at + 1:at + 4] == ["    Traceback (most recent call last):", "    error: the arbiter crashed",
                                    "    56 decisions in 0.01 s; match x\\x1b[2J"]


def test_a_bot_s_exception_message_stays_on_its_incident_s_line(tmp_path):
    bot = tmp_path / "liar.py"
    bot.write_text("from sdk import Bot\n\nclass Liar(Bot):\n    name = 'liar'\n\n    def choose(self, view, legal_actions):\n"
                   "        raise RuntimeError('boom\\nerror: the arbiter crashed\\r\\x1b[2J')\n")
    r = runner.invoke(app, ["play", "spades", str(bot), "random", "random", "random", "--transport", "inproc", "--seed", "1",
                            "-o", "deals=1", "--db", str(tmp_path / "p.sqlite")])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()  # (in process, the bot's own traceback goes to the arbiter's stderr, as it wrote it)
    assert not any(line.startswith("error:") for line in lines), r.stdout
    assert any(line.startswith("incident: seat 0: crash:") and "boom\\nerror: the arbiter crashed\\r\\x1b[2J" in line
               for line in lines), r.output


def test_a_given_store_s_bot_names_are_shown_not_read_as_markup(tmp_path):
    import sqlite3

    db = tmp_path / "given.sqlite"
    r = runner.invoke(app, ["tournament", "run", "--db", str(db), "--transport", "inproc", "--game", "spades", "--bots",
                            "random,greedy", "-o", "deals=1", "--deals", "1", "--seed", "1", "--name", "g", "--quiet"])
    assert r.exit_code == 0, r.output
    with sqlite3.connect(db) as con:  # a name past the rule: a store someone else wrote
        for table, cols in (("matches", ("seats", "record", "sides")), ("entrants", ("name",)), ("match_bots", ("bot",)),
                            ("tournaments", ("spec",))):
            for col in cols:
                con.execute(f"UPDATE {table} SET {col} = replace({col}, 'greedy', '[/g]greedy')")
    for args in (["standings", "g", "--crosstable"], ["tournament", "show", "g"], ["tournament", "show", "g", "--match", "0"]):
        r = runner.invoke(app, [*args, "--db", str(db)])
        assert r.exception is None or isinstance(r.exception, SystemExit), (args, r.output)  # no MarkupError
        assert r.exit_code == 0 and "[/g]greedy" in r.output, (args, r.output)
