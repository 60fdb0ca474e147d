"""The arena's commands as its organiser, its authors and its readers meet them (an audit
of the ladder end to end): what they print when a store holds a ladder."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
from pathlib import Path

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


def test_watch_db_finds_a_ladder_running_from_the_store_and_says_when_it_stopped(tmp_path):
    """``arbiter watch --db arena.sqlite`` beside a running ladder said "no tournament is
    running from arena.sqlite": the arena did not say where it could be watched, as a
    tournament run does. It does now (``runs.announce_run``, kind "arena")."""
    import json
    import os

    from arbiter.spectating import runs

    db = tmp_path / "arena.sqlite"
    path = runs.announce_run(db, "127.0.0.1:1", "tok", "spite-ladder", "arena")
    assert runs.running_from(db) == ("127.0.0.1:1", "tok", "spite-ladder") and runs.run_kind(db) == "arena"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    info = json.loads(path.read_text())
    dead = _a_pid_no_process_has()
    path.write_text(json.dumps({**info, "pid": dead}))
    r = runner.invoke(app, ["watch", "--db", str(db)])
    assert r.exit_code == 2, r.output
    said = " ".join(r.output.split())
    assert "no ladder is running from" in said and "spite-ladder" in said and "arbiter web --db" in said, said
    runs.forget_run(path)
    r = runner.invoke(app, ["watch", "--db", str(db)])
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "no tournament is running from" in said and "arbiter arena" in said, said
    assert os.getpid() != dead


def _a_pid_no_process_has() -> int:
    """A process id no process has now (from the top of the range down: none is started)."""
    import os

    pid = int(open("/proc/sys/kernel/pid_max").read()) - 1
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            pass
        pid -= 1


def test_standings_of_a_ladders_name_point_to_standings_arena(tmp_path):
    """``arbiter standings ladder --db arena.sqlite`` said "no tournament 'ladder'" of the
    ladder whose page ``arbiter web`` shows, and without a name "no tournaments": both say
    the command that shows it, as ``tournament list`` does."""
    from arbiter.arena import matchmaking
    from arbiter.store.arenas import Arenas
    from arbiter.store.db import Store

    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        tables = Arenas(store)
        spec = ArenaSpec(game="spades", name="ladder")
        row = tables.open_arena(spec.display_name, spec.game, spec.identity())
        tables.add_entrant(row.id, "north@1", "north", "1", "alice", "", matchmaking.MU, matchmaking.SIGMA)
    for args in (["ladder"], []):
        r = runner.invoke(app, ["standings", *args, "--db", str(db)], env={"COLUMNS": "300"})
        said = " ".join(r.output.split())
        assert r.exit_code == 2 and f"arbiter standings --arena ladder --db {db}" in said, said
    r = runner.invoke(app, ["standings", "--arena", "ladder", "--db", str(db)], env={"COLUMNS": "200"})
    assert r.exit_code == 0 and "north" in r.output, r.output
    # `tournament list` of it said "no tournaments in arena.sqlite", and nothing of the ladder
    r = runner.invoke(app, ["tournament", "list", "--db", str(db)], env={"COLUMNS": "80"})
    assert r.exit_code == 0 and " ".join(r.output.split()) == (f"no tournaments in {db}, only arenas; their ladders: "
                                                               f"arbiter standings --arena ladder --db {db}"), r.output
    r = runner.invoke(app, ["standings", "nope", "--db", str(db)], env={"COLUMNS": "200"})
    assert r.exit_code != 0 and "--arena" not in r.output, r.output


@pytest.mark.parametrize("bad, said", [
    (["--author", "a b"], "bad author name 'a b'"),
    (["--host", "10.0.0.1"], "reaches other machines"),
    (["--port", "TAKEN"], "(the Bots service's: --port, or port in the file's [server]): the port is taken"),
    (["--web-port", "TAKEN"], "(the leaderboard's: --web-port, or web_port in the file's [server]): the port is taken"),
    (["--credentials", "BROKEN"], "not a credentials file"),
    (["--credentials", "NOFOLDER"], "no folder"),  # its folder was made, wherever a typo put it
])
def test_what_the_arena_cannot_serve_is_refused_before_its_ladder_is_created_in_the_store(tmp_path, bad, said):
    """A bad author name, a public host without TLS, a taken port or a broken credentials file
    was found only once the ladder was created in the store (its rules fixed there) and the Bots
    service started: the error came after "arena stopped" for an arena that never started, and a
    taken port was a gRPC traceback. Each is refused first, naming what is wrong, with the store
    left untouched; a taken port names which of its two it is and where it was set, and a
    credentials file's missing folder is said, not made."""
    import socket

    db = tmp_path / "arena.sqlite"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        args = ["arena", "--game", "spades", "--house", "random,greedy", "--db", str(db), "--port", "0", "--web-port", "-1",
                "--credentials", str(tmp_path / "creds.json"), "--max-encounters", "1"]
        (tmp_path / "broken.json").write_text("{bad")
        given = {"TAKEN": port, "BROKEN": str(tmp_path / "broken.json"), "NOFOLDER": str(tmp_path / "typo" / "c.json")}
        r = runner.invoke(app, args + [given.get(a, a) for a in bad])
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and said in text and "Traceback" not in text, text
    assert "arena stopped" not in text and not db.exists() and not (tmp_path / "typo").exists(), text


def test_bots_show_of_a_house_bot_says_where_it_stands_not_that_there_is_no_such_bot(tmp_path):
    """``arbiter bots show greedy --db arena.sqlite`` of a ladder's house bot said "no bot
    'greedy' in the registry": its operator could not see it there, as a remote division's
    bot is seen (never registered either)."""
    db = tmp_path / "arena.sqlite"
    a = Arena(ArenaSpec(game="spades", name="l", options={"deals": 1}, house=("random", "greedy"), transport="inproc",
                        seed=1), db, poll=0)
    asyncio.run(a.run(max_encounters=1))
    a.close()
    r = runner.invoke(app, ["bots", "show", "greedy", "--db", str(db)], env={"COLUMNS": "160"})
    said = " ".join(r.output.split())
    assert r.exit_code == 0 and "greedy is not registered here: a house bot of 1 arena" in said, said
    assert "│ l " in r.output and "active" in said, r.output
    r = runner.invoke(app, ["bots", "show", "nobody", "--db", str(db)])
    assert r.exit_code == 2 and "no bot 'nobody'" in r.output, r.output


HANG = """
import time
from sdk import Bot

class Hang(Bot):
    name = "hang"
    games = ("*",)

    def choose(self, view, legal_actions):
        time.sleep(1000)
        return legal_actions[0]
"""


def _playing(db) -> bool:
    """Whether the ladder stored in ``db`` has an encounter under way."""
    import sqlite3

    if not db.exists():
        return False
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as c:
            return bool(c.execute("SELECT 1 FROM arena_encounters WHERE status = 'playing'").fetchone())
    except sqlite3.Error:  # not made yet
        return False


def _pending(pid: int, sig: int) -> bool:
    """Whether ``sig`` is still pending for process ``pid`` (not yet taken by a handler)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    masks = [int(line.split()[1], 16) for line in status.splitlines() if line.startswith(("SigPnd:", "ShdPnd:"))]
    return any(m & (1 << (sig - 1)) for m in masks)


@pytest.mark.e2e
def test_a_second_stop_ends_the_arena_at_once(tmp_path):
    """Ctrl-C or SIGTERM stopped the ladder gracefully, and a second one did nothing: a stop
    that hung could be ended only by SIGKILL. A second stop now ends it as the signal does by
    default, as tournaments do (what is stored is stored; the cut-off encounter is abandoned on
    the next start)."""
    import os
    import re
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "hang.py").write_text(HANG)
    env = {**os.environ, "ARENA_SANDBOX": os.environ.get("ARENA_SANDBOX", "rlimit")}
    proc = subprocess.Popen([sys.executable, "-m", "arbiter", "arena", "--game", "spades", "--house",
                             "random,hang=hang.py", "--db", "a.sqlite", "--port", "0", "--web-port", "-1",
                             "--credentials", "c.json"], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=(tmp_path / "err.log").open("w"), stdin=subprocess.DEVNULL, text=True)
    try:
        assert re.search(r"listening on", proc.stdout.readline())
        for _ in range(600):  # bounded: until its first encounter is under way (the hang bot asked next)
            if _playing(tmp_path / "a.sqlite") or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert _playing(tmp_path / "a.sqlite") and proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        for _ in range(600):  # bounded: until the first stop is taken, so that the second is not merged into it
            if not _pending(proc.pid, signal.SIGTERM) or proc.poll() is not None:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == -signal.SIGTERM
        # its hosted bots run in a sandbox that isolates nothing: said at the start (rlimit here, unless the
        # environment chose another mode)
        from arbiter.hosting.sandbox import Sandbox

        said = " ".join((tmp_path / "err.log").read_text().split())
        weak = Sandbox(mode=env["ARENA_SANDBOX"]).untrusted_warning()
        assert (f"warning: {weak}" in said) if weak else "sandbox mode" not in said, said
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_bots_show_says_a_copy_that_is_not_there_is_missing(tmp_path):
    """``arbiter bots show`` on a store copied without its ``.bots`` folder said only "copy
    intact: NO", as of a copy tampered with: it says the copy is missing, and where copies live."""
    import shutil

    from arbiter.hosting.botcheck import Check, Report
    from arbiter.store.registry import Registry, Submission

    db = tmp_path / "a.sqlite"
    code = "from sdk import Bot\n\nclass M(Bot):\n    name = 'mine'\n\n    def choose(self, view, legal):\n        return legal[0]\n"
    with Registry(db) as reg:
        reg.add("mine", "1", Submission({"bot.py": code.encode()}, "bot.py"),
                Report("mine", {"name": "mine", "version": "1"}, [Check("verify:spades", True)]), "alice")
    shutil.copy(db, tmp_path / "moved.sqlite")
    r = runner.invoke(app, ["bots", "show", "mine", "--db", str(tmp_path / "moved.sqlite")], env={"COLUMNS": "200"})
    said = " ".join(r.output.split())
    assert r.exit_code == 0 and "copy intact: NO: the stored copy of 'mine@1' is missing" in said and "moved.bots" in said, said
    r = runner.invoke(app, ["bots", "show", "mine", "--db", str(db)], env={"COLUMNS": "200"})
    assert "copy intact: yes" in " ".join(r.output.split()), r.output


def test_a_ladder_file_run_from_another_folder_does_not_begin_a_new_ladder_unsaid(tmp_path, monkeypatch):
    """``arbiter arena conf/ladder.toml`` from another folder read the file's ``db =
    "arena.sqlite"`` (and its credentials) from the current folder: a new, empty ladder began
    there, with new author tokens, the one beside the file untouched and never mentioned. A
    file's store and credentials are its folder's now, as its house bots are (the arena run so:
    test_a_ladder_beside_its_file_goes_on_from_another_folder). A file that names no store reads
    the default one from the current folder, as every command does; one beside the file instead
    is refused, saying where it is and how to resume it or begin anew on purpose."""
    from arbiter.arena.ladder import arena_from_toml
    from arbiter.store.db import Store

    conf, elsewhere = tmp_path / "conf", tmp_path / "elsewhere"
    conf.mkdir(), elsewhere.mkdir()
    (conf / "ladder.toml").write_text('game = "spades"\nhouse = ["random", "greedy"]\n[server]\nport = 0\nweb_port = -1\n'
                                      'db = "arena.sqlite"\ncredentials = "creds.json"\n')
    (conf / "bare.toml").write_text('game = "spades"\nhouse = ["random", "greedy"]\n[server]\nport = 0\nweb_port = -1\n'
                                    'credentials = "creds.json"\n')
    Store(conf / "arena.sqlite").close()
    monkeypatch.chdir(elsewhere)
    _, service = arena_from_toml(Path("..") / "conf" / "ladder.toml")
    assert (service.db, service.credentials) == (str(conf / "arena.sqlite"), str(conf / "creds.json"))
    _, service = arena_from_toml(Path("..") / "conf" / "bare.toml")  # no db: the default, the current folder's
    assert (service.db, service.credentials) == ("arena.sqlite", str(conf / "creds.json"))
    r = runner.invoke(app, ["arena", str(conf / "bare.toml"), "--max-encounters", "1"])
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "[server] db is not set, so 'arena.sqlite' is read from the current folder" in said, said
    assert f"--db {conf / 'arena.sqlite'}" in said and list(elsewhere.iterdir()) == [], said


@pytest.mark.e2e
def test_a_ladder_beside_its_file_goes_on_from_another_folder(tmp_path, monkeypatch):
    """The ladder a file's ``db`` names, begun from the file's folder, goes on when the arena is
    run from another folder (its store and credentials the file's folder's), and nothing is made
    where it was started."""
    from arbiter.store.arenas import Arenas
    from arbiter.store.db import Store

    conf, elsewhere = tmp_path / "conf", tmp_path / "elsewhere"
    conf.mkdir(), elsewhere.mkdir()
    (conf / "ladder.toml").write_text('name = "l"\ngame = "spades"\nhouse = ["random", "greedy"]\nseed = 1\n'
                                      '[options]\ndeals = 1\n[server]\nport = 0\nweb_port = -1\n'
                                      'db = "arena.sqlite"\ncredentials = "creds.json"\n')
    for folder in (conf, elsewhere):  # begun beside the file, then run on from another folder
        monkeypatch.chdir(folder)
        r = runner.invoke(app, ["arena", str(Path(os.path.relpath(conf, folder)) / "ladder.toml"), "--max-encounters", "1"])
        said = " ".join(r.output.split())
        assert r.exit_code == 0 and "arena stopped: 1 encounter stored by this run" in said, said
        assert f"credentials: {conf / 'creds.json'}" in said and f"--db {conf / 'arena.sqlite'}" in said, said
    assert list(elsewhere.iterdir()) == [], said
    with Store(conf / "arena.sqlite", read_only=True) as store:
        assert len(Arenas(store).encounters(Arenas(store).arena("l").id, "done")) == 2  # the one ladder, on


def test_a_ladder_whose_store_an_older_arbiter_kept_in_the_current_folder_is_named_not_begun_anew(tmp_path, monkeypatch):
    """A ladder file's relative ``db`` and ``credentials`` were the current folder's before they
    were the file's: a ladder started from beside its store, its file elsewhere, kept them there.
    Run again from that folder, the arena would now begin a new, empty ladder beside the file,
    with new tokens. It is refused instead, naming the store (or credentials) it finds where the
    older arbiter kept it and the flag that goes on with it; absolute paths mean what they did."""
    from arbiter.store.db import Store

    conf, run = tmp_path / "conf", tmp_path / "run"
    conf.mkdir(), run.mkdir()
    (conf / "ladder.toml").write_text('game = "spades"\nhouse = ["random", "greedy"]\n[server]\nport = 0\nweb_port = -1\n'
                                      'db = "arena.sqlite"\ncredentials = "creds.json"\n')
    Store(run / "arena.sqlite").close()
    monkeypatch.chdir(run)
    r = runner.invoke(app, ["arena", "../conf/ladder.toml", "--max-encounters", "1"])
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "Traceback" not in said, said
    assert (f"[server] db = 'arena.sqlite' is the ladder file's folder's, {conf / 'arena.sqlite'}, which is not there, "
            f"while the current folder has arena.sqlite") in said, said
    assert f"--db {run / 'arena.sqlite'} to go on with it there, or move it (with its arena.bots folder)" in said, said
    assert sorted(p.name for p in conf.iterdir()) == ["ladder.toml"], said  # nothing begun beside the file
    (run / "creds.json").write_text("{}")
    r = runner.invoke(app, ["arena", "../conf/ladder.toml", "--db", str(tmp_path / "new.sqlite"), "--max-encounters", "1"])
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "[server] credentials = 'creds.json' is the ladder file's folder's" in said, said
    assert f"--credentials {run / 'creds.json'}" in said and not (tmp_path / "new.sqlite").exists(), said
    (conf / "abs.toml").write_text(f'game = "spades"\nhouse = ["random", "greedy"]\n[server]\n'
                                   f'db = "{run / "arena.sqlite"}"\ncredentials = "{run / "c2.json"}"\n')
    from arbiter.arena.ladder import arena_from_toml

    _, service = arena_from_toml(conf / "abs.toml")
    assert (service.db, service.credentials) == (str(run / "arena.sqlite"), str(run / "c2.json"))
    _, service = arena_from_toml(Path("..") / "conf" / "ladder.toml", {"db": "here.sqlite"})  # a flag's: the current folder's
    assert (service.db, service.credentials) == ("here.sqlite", str(conf / "creds.json"))


def test_the_arenas_credentials_line_names_its_authors_and_says_when_nobody_can_submit():
    """``credentials: c.json (1 author tokens: ...)``, and "0 author tokens" for a ladder nobody
    could submit to, said as if all were well; the remote division's, of author tokens it never
    uses. The line names the authors, says when there is none and how one gets a token."""
    from arbiter.cli.arena import credentials_line

    none = credentials_line("c.json", [], False)
    assert "no author token yet: nobody can submit" in none and "arbiter credentials add-author NAME" in none, none
    one = credentials_line("c.json", ["alice"], False)
    assert "author tokens of alice:" in one and "1 author tokens" not in one, one
    many = credentials_line("c.json", [f"a{i}" for i in range(7)], False)
    assert "a0, a1, a2, a3, a4 and 2 more" in many, many
    assert "author" not in credentials_line("c.json", [], True)


def test_house_given_twice_keeps_both_not_the_last_alone(tmp_path):
    """Found running a Spot ladder with ``--house random --house spot_heuristic.py``: the
    first was dropped without a word (the flag took one value, the last), and the ladder
    waited, "1 bot can play". ``--house`` is repeatable, as ``--author`` and ``-o`` are, and
    each may hold several, comma-separated: a house bot given either way is checked."""
    db = tmp_path / "arena.sqlite"
    r = runner.invoke(app, ["arena", "--game", "spite-and-malice", "--house", "greedy", "--house", "random,r2=random",
                            "--db", str(db), "--port", "0", "--web-port", "-1", "--credentials",
                            str(tmp_path / "creds.json"), "--max-encounters", "1"])
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and "house: bot 'greedy' does not play spite-and-malice" in text, text


def test_arena_standings_says_how_a_ladder_is_read_not_only_that_no_file_is_there(tmp_path, monkeypatch):
    """``arbiter arena standings`` (as ``arbiter tournament show`` reads a tournament) said only
    "standings: cannot read: No such file or directory": ``arena`` runs a ladder from its file,
    and a missing file named without .toml says where a ladder is read instead."""
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["arena", "standings"])
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and "standings: no such ladder file" in text and "arbiter standings --arena NAME" in text, text
    r = runner.invoke(app, ["arena", "ladder.toml"])  # a ladder file that is not there: said as before
    assert r.exit_code == 2 and "ladder.toml: cannot read" in " ".join(r.output.split()), r.output


_FIRST_LEGAL = "from sdk import Bot\n\n\nclass Mine(Bot):\n    games = ('*',)\n\n    def choose(self, view, legal):\n        return legal[0]\n"


def test_a_ladder_files_relative_house_bot_paths_are_read_from_its_folder(tmp_path, monkeypatch):
    """ladder.toml's house = ["mine=./mybot.py"] was looked for in the current directory ("file
    not found: mybot.py" when the arena was started from elsewhere, or another file of that name
    played): it is the file beside ladder.toml, as a tournament spec file's bots are; a missing
    one is named by the full path tried. --house on the command line stays the current
    directory's."""
    from arbiter.arena.ladder import arena_from_toml

    conf, elsewhere = tmp_path / "conf", tmp_path / "elsewhere"
    conf.mkdir(), elsewhere.mkdir()
    (conf / "mybot.py").write_text(_FIRST_LEGAL)
    (conf / "ladder.toml").write_text('name = "l"\ngame = "spades"\nhouse = ["mine=./mybot.py", "random"]\nseed = 3\n'
                                      "[options]\ndeals = 1\n")
    (conf / "bad.toml").write_text('game = "spades"\nhouse = ["./nope.py", "random"]\n')
    monkeypatch.chdir(elsewhere)
    spec, _ = arena_from_toml(Path("..") / "conf" / "ladder.toml", {"transport": "inproc"})
    assert spec.house == (f"mine={conf / 'mybot.py'}", "random")
    a = Arena(spec, tmp_path / "a.sqlite", poll=0)
    try:
        asyncio.run(a.run(max_encounters=1))
        assert a.finished == 1 and a.entrants["mine"].encounters == 1 and a.entrants["mine"].failures == 0
    finally:
        a.close()
    r = runner.invoke(app, ["arena", "../conf/bad.toml", "--db", str(tmp_path / "b.sqlite"), "--port", "0",
                            "--web-port", "-1", "--credentials", str(tmp_path / "creds.json"), "--max-encounters", "1"])
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and f"house: '{conf / 'nope.py'}': file not found: {conf / 'nope.py'}" in said, said
    assert "Traceback" not in said and not (tmp_path / "b.sqlite").exists(), said
    flag, _ = arena_from_toml(conf / "bad.toml", {"house": ("./mybot.py",)})  # a flag's: the current directory's
    assert flag.house == ("./mybot.py",)


def test_a_ladder_file_and_a_tournament_spec_given_to_each_other_s_command_say_which_runs_them(tmp_path):
    """`arbiter tournament run ladder.toml` said "unknown field 'house' (known: game, bots, ...)"
    and `arbiter arena club.toml` "unknown field 'format'", the command each file is for
    unsaid. Each says what the file is and the command that runs it, and makes no store."""
    ladder = tmp_path / "ladder.toml"
    ladder.write_text('name = "l"\ngame = "spades"\nhouse = ["random", "greedy"]\n[server]\nport = 0\n')
    club = tmp_path / "club.toml"
    club.write_text('name = "c"\ngame = "spades"\nbots = ["random", "greedy"]\n')
    db = tmp_path / "a.sqlite"
    r = runner.invoke(app, ["tournament", "run", str(ladder), "--db", str(db)])
    assert r.exit_code == 2 and " ".join(r.output.split()) == (
        f"error: {ladder}: a ladder file (its house, server), not a tournament spec: arbiter arena {ladder} runs it"), r.output
    r = runner.invoke(app, ["arena", str(club), "--db", str(db), "--port", "0", "--web-port", "-1"])
    assert r.exit_code == 2 and " ".join(r.output.split()) == (
        f"error: {club}: a tournament spec (its bots), not a ladder file: arbiter tournament run {club} runs it"), r.output
    assert not db.exists()
