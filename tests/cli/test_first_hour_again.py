"""A newcomer's first hour, round two (issue 44): what a new user ran into at the command
line, each as the user typed it."""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from tests.cli.badinput import _AS_FROM_A_TERMINAL, run_in_process
from tests.conftest import ROOT

runner = CliRunner()


def test_replay_of_a_store_or_a_file_that_is_no_record_says_what_it_is(tmp_path):
    """Item 1: a store given as the match was a UTF-8 decode error."""
    store = tmp_path / "arena.sqlite"
    sqlite3.connect(store).execute("create table t(a)").connection.close()
    junk = tmp_path / "corrupt.sqlite"
    junk.write_bytes(bytes(range(128, 256)) * 8)
    r = runner.invoke(app, ["replay", str(store)])
    assert r.exit_code == 2 and "is a store (SQLite), not a match record: give it with --db" in r.output, r.output
    r = runner.invoke(app, ["replay", str(junk)])
    assert r.exit_code == 2 and "is not a match record" in r.output and "a store goes with --db" in r.output, r.output
    assert "codec" not in r.output and "Traceback" not in r.output


def test_replay_of_a_record_file_that_is_not_there_says_no_such_file(tmp_path):
    """`arbiter replay /tmp/nonexist.json` said "no match '/tmp/nonexist.json' in arena.sqlite",
    as if a path were a match id of the store. An argument that names a file (a folder in it, or
    a .json name) and names none says so; a match id still gets the store's answer."""
    from arbiter.tournament.play import play_local, store_play

    db = tmp_path / "arena.sqlite"
    store_play(db, play_local("spot", ["random", "random"], seed=1, options={"hands": 1}, transport="inproc"))
    for args in (["replay", str(tmp_path / "nonexist.json"), "--db", str(db)], ["replay", "nonexist.json", "--db", str(db)],
                 ["replay", str(tmp_path / "nonexist.json")], ["analyse", str(tmp_path / "gone" / "m.json"), "--db", str(db)]):
        r = runner.invoke(app, args)
        said = " ".join(r.output.split())
        assert r.exit_code == 2 and f"error: {args[1]}: no such file (a match record file" in said, (args, said)
        assert "no match" not in said and "Traceback" not in said, said
    r = runner.invoke(app, ["replay", "nonexist", "--db", str(db)])
    assert r.exit_code == 2 and f"no match 'nonexist' in {db}" in " ".join(r.output.split()), r.output


def test_replay_of_a_record_of_the_wrong_shape_says_so_in_one_line(tmp_path):
    """A JSON file that is not an object, a record whose options are not a table, or an
    action that is not text, read from a file or from the store, was a traceback
    (AttributeError, TypeError) from deep in the record's parser or the engine."""
    from tests.cli.badinput import Outcome, problems

    r = runner.invoke(app, ["play", "spades", "random", "random", "random", "random", "--transport", "inproc",
                            "-o", "deals=1", "--seed", "1", "--db", str(tmp_path / "a.sqlite")])
    assert r.exit_code == 0, r.output
    match_id = sqlite3.connect(tmp_path / "a.sqlite").execute("select match_id from matches").fetchone()[0]
    good = tmp_path / "good.json"
    assert runner.invoke(app, ["replay", match_id, "--db", str(tmp_path / "a.sqlite"), "--json", "-o", str(good)]).exit_code == 0
    rec = json.loads(good.read_text())
    bad = {"list": [1, 2], "text": "a record", "options": {**rec, "options": [1]},
           "action": {**rec, "actions": [{**rec["actions"][0], "action": 7}, *rec["actions"][1:]]}}
    for name, value in bad.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(value))
        r = runner.invoke(app, ["replay", str(path)])
        o = Outcome(["replay", str(path)], r.exit_code, r.output,
                    "" if r.exception is None or isinstance(r.exception, SystemExit) else repr(r.exception))
        assert not problems(o, ("replay",), expect_error=True), f"{name}: {o.describe()}"
        assert "is not a match record" in r.output, f"{name}: {r.output}"
    # the same record text in the store: the store's reader says which match
    with sqlite3.connect(tmp_path / "a.sqlite") as con:
        con.execute("update matches set record = ?", (json.dumps([1, 2]),))
    con.close()
    r = runner.invoke(app, ["replay", match_id, "--db", str(tmp_path / "a.sqlite")])
    assert r.exit_code == 2 and f"match {match_id!r}" in r.output and "corrupt match record" in r.output, r.output


@pytest.fixture
def taken_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


@pytest.mark.e2e
def test_serve_on_a_taken_port_is_one_clean_line(taken_port, tmp_path):
    """Item 2: gRPC's own ``add_port.cc`` log line came before the error."""
    p = subprocess.run([sys.executable, "-m", "arbiter", "serve", "--port", str(taken_port), "--credentials",
                        str(tmp_path / "c.json")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == "", p
    assert p.stderr.strip() == f"error: cannot listen on 127.0.0.1:{taken_port}: the port is taken (another process listens on it)"


@pytest.mark.e2e
def test_web_with_its_metrics_port_taken_never_says_serving(taken_port, tmp_path):
    """Item 3: "serving ..." came out, then the metrics error and the exit."""
    from arbiter.store.db import Store

    Store(tmp_path / "a.sqlite").close()
    # in this process (stdout and stderr apart; were it to serve, it stops once up and says 0)
    p = run_in_process("web", "--db", str(tmp_path / "a.sqlite"), "--port", "0", "--metrics", str(taken_port),
                       serving=True)
    assert p.returncode == 2 and "serving" not in p.stdout, p
    assert f"--metrics: cannot listen on 127.0.0.1:{taken_port}" in p.stderr


@pytest.mark.e2e  # the self-test imports the bot in a process of its own
def test_bots_check_of_a_file_that_does_not_load_has_a_plain_title(tmp_path):
    """Item 4: the table's title read "...: ? , games ?"."""
    bad = tmp_path / "syntax.py"
    bad.write_text("def f(:\n")
    r = runner.invoke(app, ["bots", "check", str(bad)], terminal_width=200)
    assert r.exit_code == 1, r.output
    flat = "".join(r.output.split())  # the title wraps where the path is long (an xdist worker's tmp folder)
    title = flat.split("┏")[0].split("┌")[0]
    assert f"{bad}:didnotload" in flat and "?" not in title, r.output
    assert "SyntaxError" in r.output


@pytest.mark.e2e
def test_a_tournament_whose_bot_cannot_start_leaves_no_progress_bar(tmp_path):
    """Item 5: a bot that fails at import left the progress bar drawn after the error."""
    (tmp_path / "badimp.py").write_text("import no_such_module_anywhere_zz\n")
    r = runner.invoke(app, ["tournament", "run", "--db", str(tmp_path / "t.sqlite"), "--bots",
                            f"random,{tmp_path / 'badimp.py'}", "--deals", "1", "-o", "deals=1"], terminal_width=200)
    assert r.exit_code == 2, r.output
    assert "No module named 'no_such_module_anywhere_zz'" in r.output
    assert "0/2" not in r.output and "leader:" not in r.output, r.output


@pytest.mark.parametrize("game,bots,said", [
    ("spot", ["random"], "spot is played by 2 to 6 bots, one per seat: 1 bot given (e.g. arbiter play spot random random)"),
    ("spite-and-malice", ["random"] * 7, "spite-and-malice is played by 2 to 6 bots, one per seat: 7 bots given"),
    # partnerships are of 4 or 6: "4 to 6" offered a 5 that is refused again
    ("spite-and-malice", ["random"] * 5 + ["-o", "partnerships=true"],
     "spite-and-malice is played by 4 or 6 bots with -o partnerships=true, one per seat: 5 bots given"),
])
def test_play_with_the_wrong_number_of_bots_counts_bots(tmp_path, game, bots, said):
    """Item 8: `arbiter play spot random` said "option 'players': must be 2-6, got 1"."""
    r = runner.invoke(app, ["play", game, *bots, "--db", str(tmp_path / "a.sqlite")], terminal_width=200)
    assert r.exit_code == 2 and said in r.output and "option 'players'" not in r.output, r.output


def test_play_with_a_seat_option_past_the_bots_names_the_option(tmp_path):
    """`arbiter play spot random random random -o first_dealer=3` said "spot is played by 4 to
    6 bots", though `arbiter rules spot` says 2-6 and three bots are fine: it is the dealer's
    seat 3 that three seats do not have. The count is still said in bots, and the option that
    refuses this count is named, with the game's reason."""
    r = runner.invoke(app, ["play", "spot", "random", "random", "random", "-o", "first_dealer=3",
                            "--db", str(tmp_path / "a.sqlite")], terminal_width=200)
    flat = " ".join(r.output.split())
    assert r.exit_code == 2 and "spot is played by 4 to 6 bots with -o first_dealer=3" in flat, r.output
    assert "; with 3 bots, option 'first_dealer': seat 3 not in 0..2" in flat, r.output


def test_play_takes_the_players_of_a_partnership_from_the_bots(tmp_path):
    """`arbiter play spite-and-malice` with 4 bots and `-o partnerships=true`, the count the
    error above asks for, said "option 'partnerships' needs 4 or 6 'players', got 2": the
    players were read from the bots only where the options without them made a game."""
    r = runner.invoke(app, ["play", "spite-and-malice", *["random"] * 4, "-o", "partnerships=true", "-o", "payoff_size=2",
                            "--transport", "inproc", "--seed", "1", "--db", str(tmp_path / "a.sqlite")], terminal_width=200)
    assert r.exit_code == 0 and "partnerships=true" in r.output and "players=4" in r.output, r.output


def test_watch_of_a_stored_match_says_how_to_step_through_it(tmp_path):
    """`arbiter watch 1-2 --db arena.sqlite` of a match its finished tournament played said only
    that no tournament is running from the store; the one way to see that match step by step
    (`arbiter replay ID --all`) went unsaid. A match still withheld (its tournament not over)
    is not offered."""
    db = tmp_path / "arena.sqlite"
    r = runner.invoke(app, ["tournament", "run", "--bots", "random,greedy", "-o", "deals=1", "--deals", "1", "--seed", "1",
                            "--transport", "inproc", "--name", "n", "--quiet", "--db", str(db)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["watch", "1-0", "--db", str(db)])
    assert r.exit_code == 2 and " ".join(r.stderr.split()).endswith(
        f"; match 1-0 is stored there, played: arbiter replay 1-0 --db {db} --all shows it step by step (or --step, "
        "one step per Enter)"), r.output
    r = runner.invoke(app, ["watch", "1-99", "--db", str(db)])
    assert r.exit_code == 2 and "replay" not in r.stderr, r.output


@pytest.mark.e2e
def test_watch_follows_the_tournament_running_from_a_store(tmp_path):
    """Issue 44: there was no way to watch a tournament of a store live; `arbiter watch --db`
    finds the run's arbiter beside the store, as soon as that arbiter is up."""
    import time

    db = tmp_path / "arena.sqlite"
    r = runner.invoke(app, ["watch", "--db", str(db)])
    assert r.exit_code == 2 and f"no tournament is running from {db}" in r.output, r.output
    # the web page is up before the run starts (a store for it to open first): the run plays
    # on every core it gets for as long as it runs, and the web's start is a second or more
    import urllib.request

    from arbiter.store.db import Store
    from tests.e2e.browser import serve_web

    Store(db).close()
    with serve_web(db) as url:
        # started as from a terminal, where Ctrl-C works: a process started from one that ignores
        # SIGINT (a shell's background job, an xdist worker under one) inherits the ignoring, and
        # this run then played on past its Ctrl-C (all 200 deals, or to the test's timeout). One
        # match at a time (the default is 3 a core): it plays for as long as the test looks, on
        # every core it is given, and a live match is all that the test needs of it
        run = subprocess.Popen([sys.executable, "-c", _AS_FROM_A_TERMINAL, "arbiter", "tournament", "run", "--db", str(db),
                                "--bots", "heuristic,greedy", "--deals", "5000", "-o", "deals=2", "--concurrency", "1",
                                "--name", "watched", "-q"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        try:
            watch_file = tmp_path / "arena.sqlite.watch"
            for _ in range(600):  # a bounded wait for the run's arbiter (no time is measured)
                if watch_file.exists() or run.poll() is not None:
                    break
                time.sleep(0.05)
            assert watch_file.exists(), run.communicate(timeout=60)
            assert oct(watch_file.stat().st_mode & 0o777) == "0o600"  # its spectator token: the organiser's eyes only
            # the running tournament's web page lists what is being played now
            page = ""
            for _ in range(100):  # bounded: until a match is on the table (no time is measured)
                page = urllib.request.urlopen(url + "t/watched", timeout=60).read().decode()
                if 'class="pill live-match"' in page or run.poll() is not None:
                    break
                time.sleep(0.05)
            assert 'id="now-playing"' in page and "arbiter watch --db" in page, page[-2000:]
            assert 'class="pill live-match"' in page and "heuristic" in page.split('id="now-playing"')[1][:400]
            # its deals come back in other seatings (duplicate, the default): the disclosure
            # rule lets the page say who plays, never how far (a count of decisions read live
            # tells each seat's think times and a match cut short) nor show a table of the play
            assert 'id="tables-withheld"' in page and 'class="live-table"' not in page, page[-3000:]
            assert " decisions</span>" not in page.split('id="now-playing"')[1][:2000], page[-3000:]
            # where the rule lets tables be shown, each is the public one as it stood the delay ago
            from arbiter.present.watching import now_playing
            from cardarena.disclosure import of_tournament

            def playing(rule, delay, **kw):  # bounded: a moment between two matches lists none (no time is measured)
                for _ in range(200):
                    got = now_playing(db, "watched", rule, delay=delay, **kw)
                    if got or run.poll() is not None:
                        return got
                    time.sleep(0.05)
                return got

            open_rule = of_tournament("watched", finished=False, duplicate=False)
            closed = playing(of_tournament("watched", False, True), 0)[0]
            assert closed.table == "" and closed.steps is None
            late = playing(open_rule, 3600)  # younger than the delay: nothing yet
            assert late and all(m.table == "" and m.shown == 0 for m in late), late
            now = playing(open_rule, 0, versions={"heuristic": "1.0"})
            assert now[0].steps is not None
            live = str(now[0].table)  # the match's public table as it stands, its seats named bot@version
            assert 'id="board" class="table-spades' in live and 'class="card back' in live and now[0].shown <= now[0].steps
            assert 'heuristic@1.0 <span class="where">' in live and 'greedy <span class="where">' in live, live[:3000]
            w = run_in_process("watch", "--db", str(db))  # stdout and stderr apart, as a process's
            assert w.returncode == 0, w.stderr
            assert "tournament watched, running from" in w.stdout and "spades match " in w.stdout and "result (" in w.stdout, w.stdout
        finally:
            # a long run, stopped as a person stops it; not stop_processes: what it said is read and checked
            run.send_signal(signal.SIGINT)
            try:
                out, err = run.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                run.kill()
                out, err = run.communicate()
                raise AssertionError(f"the run did not stop on Ctrl-C: {err[-2000:]}") from None
    assert run.returncode == 130 and "interrupted" in err, err
    assert not watch_file.exists()  # the run is over
    r = runner.invoke(app, ["watch", "--db", str(db)])
    assert r.exit_code == 2 and "no tournament is running from" in r.output


@pytest.mark.e2e
def test_play_says_who_won_by_how_much_and_why_in_english(tmp_path):
    """Items 9 and 10: the result line read "side A wins 120 to 50 after 1 deals"."""
    r = runner.invoke(app, ["play", "spades", "random", "random", "random", "random", "--seed", "3", "-o", "deals=1",
                            "--db", str(tmp_path / "a.sqlite")], terminal_width=200)
    assert r.exit_code == 0, r.output
    assert "the match was 1 deal long" in r.output and "1 deals" not in r.output, r.output
    import re

    assert re.search(r"random \((North|East)\) and random \((South|West)\) won -?\d+ to -?\d+, by \d+ points?: ", r.output) \
        or "A draw" in r.output, r.output
