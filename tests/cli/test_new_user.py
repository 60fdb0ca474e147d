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
from tests.arbiter.arena.test_arena import CRASHER  # a bot whose choose raises, in every game
from tests.cli.badinput import problems
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e  # real processes: every test here starts one

runner = CliRunner()


def _bot(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    return path


# -- 1. user text through rich: no emoji codes, no markup ------------------------------


def test_1_play_and_bots_check_print_colons_as_colons(tmp_path):
    """`play:spades: arbiter replay` and `legal:spades:` are not the emoji code `:spades:`."""
    # a Spades game with no options (a name without them: `play:spades:`) between greedy bots
    # ends at its target in a few deals; four random bots never reach it and play to the
    # deal limit (1.8 CPU-s, not 0.15)
    r = runner.invoke(app, ["play", "spades", "greedy", "greedy", "greedy", "greedy", "--seed", "1",
                            "--transport", "inproc", "--db", str(tmp_path / "a.sqlite")])
    assert r.exit_code == 0, r.output
    assert "as play:spades: arbiter replay" in r.output and "♠" not in r.output, r.output
    bot = _bot(tmp_path, "crasher", CRASHER.replace('games = ("*",)', 'games = ("spades",)'))  # legal:spades: then
    r = runner.invoke(app, ["bots", "check", str(bot), "--no-smoke", "--positions", "5"], env={"COLUMNS": "80"})
    assert r.exit_code == 1 and "legal:spades" in r.output and "♠" not in r.output, r.output
    r = runner.invoke(app, ["bots", "submit", str(bot), "--name", "crasher", "--db", str(tmp_path / "r.sqlite")])
    assert r.exit_code == 2 and "failed legal:spades: crashed" in r.output and "♠" not in r.output, r.output


# -- 2. a bot that does not import: FILE:LINE: message, the line, the author's path ----

SYNTAX_ERROR = """
    from sdk import Bot
    class Broken(Bot)
        name = "broken"
"""


def test_2_a_syntax_error_reads_as_file_line_message_and_the_line(tmp_path):
    import json

    bot = _bot(tmp_path, "broken", SYNTAX_ERROR)
    r = runner.invoke(app, ["bots", "check", str(bot), "--no-smoke", "--json"])
    assert r.exit_code == 1, r.output
    detail = next(c["detail"] for c in json.loads(r.output)["checks"] if c["name"] == "import")
    assert detail == f"{bot}:3: SyntaxError: expected ':'\n    class Broken(Bot)", detail
    # as a bot process of `arbiter play` (its own sandbox): the same words, the same path
    proc = runner.invoke(app, ["play", "spite-and-malice", str(bot), "random", "-o", "payoff_size=5",
                               "--db", str(tmp_path / "a.sqlite")])
    text = proc.output  # stdout and stderr
    assert proc.exit_code == 2 and "Traceback" not in text and not _outcome(proc).crash, text
    assert len([line for line in text.splitlines() if line.startswith("error:")]) == 1, text  # the bot's is indented
    assert f"{bot}:3: SyntaxError: expected ':'" in text and "    class Broken(Bot)" in text, text
    assert "BotLoadError(" not in text and "/bot/code" not in text, text


def test_2_an_exception_at_import_names_the_bots_own_line(tmp_path):
    from sdk.loading import BotLoadError, load_bot

    bot = _bot(tmp_path, "raises", """
        import json
        from sdk import Bot
        SETTINGS = json.loads("{")
    """)
    with pytest.raises(BotLoadError) as info:
        load_bot(str(bot))
    assert str(info.value).startswith(f"{bot}:4: JSONDecodeError: Expecting property name"), info.value
    assert str(info.value).endswith('\n    SETTINGS = json.loads("{")'), info.value


def test_2_sandbox_paths_read_back_as_the_authors_paths(tmp_path):
    """Under bubblewrap a bot sees its code at /bot/code/NAME: what it prints (a traceback,
    the self-test's report) names the author's path instead."""
    from arbiter.hosting.sandbox import CODE_DIR, host_paths

    folder = tmp_path / "mybot"
    folder.mkdir()
    single = tmp_path / "one.py"
    text = (f'File "{CODE_DIR}/mybot/bot.py", line 3\n{CODE_DIR}/one.py:2: SyntaxError\n'
            f'{CODE_DIR}/mybotx/bot.py')
    assert host_paths(text, [folder, single]) == (f'File "{folder}/bot.py", line 3\n{single}:2: SyntaxError\n'
                                                  f'{CODE_DIR}/mybotx/bot.py')


# -- 10. a store on a read-only mount says read-only ------------------------------------


def _read_only_mount_works() -> bool:
    import os
    import shutil

    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs none $d && "
                            "mount -o remount,ro $d && ! touch $d/x 2>/dev/null"], capture_output=True)
    return probe.returncode == 0


def _on_a_read_only_mount(store: Path, args: list[str]) -> subprocess.CompletedProcess:
    """``python -m arbiter ARGS`` with ``{db}`` a copy of ``store`` on a read-only tmpfs
    mounted in a mount namespace of its own (gone with the process)."""
    import shlex

    mnt = store.parent / "mnt"
    mnt.mkdir()
    cmd = " ".join(shlex.quote(a.replace("{db}", str(mnt / "store.sqlite"))) for a in args)
    script = (f"mount -t tmpfs none {mnt} && cp {store} {mnt}/store.sqlite && mount -o remount,ro {mnt} && "
              f"exec {shlex.quote(sys.executable)} -m arbiter {cmd}")
    return subprocess.run(["unshare", "-m", "sh", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(not _read_only_mount_works(), reason="needs root and a mount namespace for a read-only mount")
def test_10_a_store_on_a_read_only_mount_says_read_only(tmp_path):
    store = tmp_path / "store.sqlite"
    r = runner.invoke(app, ["tournament", "run", "--db", str(store), "--transport", "inproc", "--bots", "random,greedy",
                            "--deals", "1", "-o", "deals=1", "--name", "t", "-q"])
    assert r.exit_code == 0, r.output
    for args in (["tournament", "run", "--db", "{db}", "--transport", "inproc", "--bots", "random,greedy",
                  "--deals", "1", "-o", "deals=1", "--name", "u", "-q"],
                 ["play", "spades", "random", "random", "random", "random", "-o", "deals=1", "--transport", "inproc",
                  "--db", "{db}"]):
        proc = _on_a_read_only_mount(store, args)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        lines = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
        assert len(lines) == 1 and "store.sqlite is read-only" in lines[0], proc.stderr
        assert "unable to open database file" not in proc.stderr
        (tmp_path / "mnt").rmdir()


# -- 12. `arbiter play` checks its store before it plays ---------------------------------


def test_12_play_refuses_a_corrupt_store_before_playing(tmp_path):
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"\x00garbage, not an sqlite file\n" * 40)
    r = runner.invoke(app, ["play", "spades", "random", "random", "random", "random", "--seed", "1",
                            "--transport", "inproc", "--db", str(corrupt)])
    assert not problems(_outcome(r), ("play",), expect_error=True), r.output
    assert "not a usable store" in r.output
    assert "decisions in" not in r.output and "seat" not in r.output, r.output  # nothing was played


def _outcome(r):
    from tests.cli.badinput import Outcome

    return Outcome([], r.exit_code, r.output, "" if r.exception is None or isinstance(r.exception, SystemExit)
                   else repr(r.exception))


# -- 13. `arbiter play` refuses a bot that does not play the game ------------------------

SPADES_ONLY = """
    from sdk import Bot
    class SpadesOnly(Bot):
        name = "spadesonly"
        games = ("spades",)
        def choose(self, view, legal_actions):
            return legal_actions[0]
"""


@pytest.mark.parametrize("transport", ["grpc", "inproc"])
def test_13_play_refuses_a_bot_that_does_not_play_the_game(tmp_path, transport):
    bot = _bot(tmp_path, "spadesonly", SPADES_ONLY)
    r = runner.invoke(app, ["play", "spot", str(bot), "random", "random", "random", "-o", "hands=1",
                            "--transport", transport, "--db", str(tmp_path / "a.sqlite")])
    assert not problems(_outcome(r), ("play",), expect_error=True), r.output
    assert f"bot '{bot}' does not play spot (it plays spades)" in " ".join(r.output.split()), r.output
    assert "decisions in" not in r.output


# -- 5. `arbiter play --server` keeps its match; `arbiter watch` says what it withholds --
# -- 6. a missing admin token says where to get one ---------------------------------------


def test_5_6_play_on_a_server_keeps_the_match_and_a_wrong_admin_token_says_how_to_get_one(tmp_path):
    from tests.conftest import start_serve, stop_serve

    s = start_serve()
    try:
        for name in ("p0", "p1"):
            s.start_bot("random", name)
        s.wait_sessions(["p0", "p1"])
        db = str(tmp_path / "a.sqlite")
        base = ["play", "spite-and-malice", "p0", "p1", "--server", s.address, "-o", "payoff_size=5", "--db", db]
        r = runner.invoke(app, [*base, "--admin-token", "wrong"])
        assert not problems(_outcome(r), ("play",), expect_error=True), r.output
        assert "admin token required" in r.output and "arbiter credentials token admin" in r.output, r.output
        r = runner.invoke(app, [*base, "--admin-token", s.admin_token, "--seed", "9"])
        assert r.exit_code == 0, r.output
        text = " ".join(r.output.split())
        match_id = text.split("; match ")[1].split()[0]
        assert f"(kept in {db} as play:spite-and-malice(payoff_size=5): arbiter replay {match_id} --db {db})" in text, text
        r = runner.invoke(app, ["replay", match_id, "--db", db])
        assert r.exit_code == 0 and "verified" in r.output.lower(), r.output
    finally:
        stop_serve(s)


def test_5_watch_of_a_withheld_match_says_so_instead_of_seed_0(tmp_path):
    """A running duplicate tournament's spectators get the outcome, not the seed and the
    actions: `arbiter watch` says that, with the steps it saw, not "seed 0, 0 actions"."""
    import asyncio

    from arbiter.hosting.loading import load_bot
    from arbiter.hosting.inprocess import InProcessSeat
    from arbiter.match import run_match
    from arbiter.server.app import start_private_server
    from arbiter.spectating.hub import SpectatorHub
    from cardarena.records import Clock, FailurePolicy, MatchConfig

    async def main():
        hub = SpectatorHub(token="organiser-only-token")  # the config says nothing: closed (cardarena.disclosure.UNSAID)
        server = await start_private_server(hub)
        try:
            config = MatchConfig(game="spite-and-malice", seed=3, options={"payoff_size": 5}, clock=Clock(0, 0),
                                 policy=FailurePolicy.uniform("forfeit", 3))
            record = await run_match(config, [InProcessSeat(load_bot("random"), f"r{i}") for i in range(2)],
                                     observers=hub.observers(config))
            r = await asyncio.to_thread(runner.invoke, app, ["watch", record.match_id, "--server", server.address,
                                                             "--token", hub.token])
            return record, r
        finally:
            await server.stop(0.5)

    record, r = asyncio.run(main())
    assert r.exit_code == 0, r.output
    assert "seed 0" not in r.output and "0 actions" not in r.output, r.output
    assert f"{len(record.actions)} steps watched; the seed and the actions are withheld" in " ".join(r.output.split())


# -- 4. a malformed card is named as typed; a game without jokers offers none ------------


def test_4_a_malformed_card_is_named_as_typed_and_only_games_with_jokers_offer_one():
    from cardarena.games import InvalidActionError, get_game

    cases = [("spades", "play 2X", False), ("spades", "give 2X QS", False), ("spot", "discard 2X", False),
             ("spot", "layoff 2X -> m1", False), ("spite-and-malice", "play hand:2X -> center:0", True)]
    for game, text, jokers in cases:
        with pytest.raises(InvalidActionError) as info:
            get_game(game).parse_action(text)
        message = str(info.value)
        assert "unknown card '2X'" in message and "'2x'" not in message, message
        assert ("or JK" in message) == jokers, message
    # any case still reads
    assert str(get_game("spades").parse_action("PLAY qs")) == str(get_game("spades").parse_action("play QS"))
    assert get_game("spot").parse_action("DRAW Stock") == get_game("spot").parse_action("draw stock")
    assert (get_game("spite-and-malice").parse_action("Play Hand:5c -> Center:New")
            == get_game("spite-and-malice").parse_action("play hand:5C -> center:new"))


# -- 7. `bots submit` titles its report by what is registered; `python -m sdk --help` -----


def test_7_submit_titles_the_report_with_the_authors_path_and_the_registered_version(tmp_path):
    bot = _bot(tmp_path, "spadesonly", SPADES_ONLY)  # says version "0.1" of itself (sdk.Bot's default)
    r = runner.invoke(app, ["bots", "submit", str(bot), "--name", "sonly", "--version", "2.5",
                            "--db", str(tmp_path / "r.sqlite")])
    assert r.exit_code == 0, r.output
    title = "".join(r.output.split("┏")[0].split())  # the title, however rich wrapped it (a path too)
    assert title == "".join(f"{bot}: sonly 2.5, games spades".split()), title


def test_7_python_m_sdk_help_lists_every_bundled_bot():
    from sdk.loading import BUNDLED

    proc = subprocess.run([sys.executable, "-m", "sdk", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    text = " ".join(proc.stdout.split())
    assert proc.returncode == 0 and "search" in BUNDLED
    assert f"bundled name ({', '.join(sorted(BUNDLED))})" in text, text


# -- 8. `tournament run`: a bot found not to play the game ends the run with that error ---
# (issue 44 moved the watch line to the moment the run's arbiter is up, before the bots
# start: a run that then fails ends on its error, and leaves nothing saying where to watch)


def test_8_a_run_with_a_bot_of_another_game_ends_on_its_error(tmp_path):
    bot = _bot(tmp_path, "spadesonly", SPADES_ONLY)
    r = runner.invoke(app, ["tournament", "run", "--db", str(tmp_path / "t.sqlite"), "--game", "spot",
                            "--bots", f"{bot},random", "--deals", "1", "-o", "hands=1", "--name", "s"])
    assert not problems(_outcome(r), ("tournament", "run"), expect_error=True), r.output
    assert "does not play spot (it plays spades)" in r.output.strip().splitlines()[-1], r.output
    assert not (tmp_path / "t.sqlite.watch").exists()


# -- 9. at 80 columns: the match id stays, failures say why, bot names stay whole --------


def _arbiter(args: list[str], columns: int = 80) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "arbiter", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": str(columns)})


def test_9_tournament_show_failures_at_80_columns_has_the_match_id_and_the_reason(tmp_path):
    bot = _bot(tmp_path, "crasher", CRASHER)
    db = str(tmp_path / "t.sqlite")
    r = runner.invoke(app, ["tournament", "run", "--db", db, "--bots", f"{bot},random", "--deals", "1", "-o", "deals=1",
                            "--transport", "inproc", "--name", "nine", "-q"])
    assert r.exit_code == 0, r.output
    from arbiter.store.db import Store

    with Store(db, read_only=True) as s:
        ids = [m.match_id for m in s.matches(s.tournament("nine").id)]
    proc = _arbiter(["tournament", "show", "nine", "--db", db, "--failures"])
    assert proc.returncode == 0, proc.stderr
    import re

    table = proc.stdout.split("Matches (")[1]
    for match_id in ids:
        assert re.search(rf" {re.escape(match_id)} *\n", table), proc.stdout  # the last column, whole
    text = " ".join(proc.stdout.split())
    assert "crash: the bot failed: choose raised RuntimeError: out of ideas" in text, proc.stdout


def test_9_bots_show_and_list_at_80_columns_keep_names_whole(tmp_path):
    from arbiter.store.registry import Registry, Submission

    class Report:
        bot = {"games": ["spades", "spite-and-malice", "spot"], "deterministic": False}

        def to_dict(self) -> dict:
            return {"ok": True, "checks": [{"name": "import", "ok": True, "detail": "bot:Timebomb"}]}

    db = tmp_path / "b.sqlite"
    with Registry(db) as reg:
        reg.add("timebomb-deluxe", "1.0.0-beta.2", Submission({"bot.py": b"x = 1\n"}, "bot.py"), Report(),
                author="somebody-long")
    for args in (["bots", "show", "timebomb-deluxe", "--db", str(db)], ["bots", "list", "--db", str(db)]):
        proc = _arbiter(args)
        assert proc.returncode == 0, proc.stderr
        assert "│ timebomb-deluxe │ 1.0.0-beta.2 │" in proc.stdout, proc.stdout


# -- 11. the arena says each encounter's forfeits before it suspends a bot ----------------


def test_11_the_arena_prints_the_forfeit_count_of_an_encounter_before_a_suspension(tmp_path):
    bot = _bot(tmp_path, "crasher", CRASHER)
    proc = _arbiter(["arena", "--game", "spite-and-malice", "--house", f"{bot},random", "--max-encounters", "1",
                     "--suspend-after", "2", "--port", "0", "--web-port", "-1", "--db", str(tmp_path / "a.sqlite"),
                     "--credentials", str(tmp_path / "creds.json"), "-o", "payoff_size=5", "--deals", "1"], columns=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = next(line for line in proc.stdout.splitlines() if line.startswith("encounter 0 "))
    assert ("crasher forfeited 2 matches (1 encounter in a row of 2 before a suspension: crash: the bot failed: "
            "choose raised RuntimeError: out of ideas") in line, line
    assert "suspended" not in line, line


# -- 17. one match record as JSON: `arbiter replay MATCH --json` -------------------------


def test_17_replay_json_exports_the_record_that_replay_reads_back(tmp_path):
    import json

    from arbiter.store.db import Store
    from cardarena.records import MatchRecord

    db = str(tmp_path / "a.sqlite")
    r = runner.invoke(app, ["play", "spite-and-malice", "heuristic", "random", "--seed", "5", "-o", "payoff_size=5",
                            "--transport", "inproc", "--db", db])
    assert r.exit_code == 0, r.output
    match_id = " ".join(r.output.split()).split("; match ")[1].split()[0]
    with Store(db, read_only=True) as s:
        stored = s.match(match_id).record()
    r = runner.invoke(app, ["replay", match_id, "--db", db, "--json"])
    assert r.exit_code == 0, r.output
    assert MatchRecord.from_json(r.output) == stored and json.loads(r.output)["match_id"] == match_id
    out = tmp_path / "match.json"
    r = runner.invoke(app, ["replay", match_id, "--db", db, "--json", "-o", str(out)])
    assert r.exit_code == 0 and MatchRecord.from_json(out.read_text()) == stored, r.output
    r = runner.invoke(app, ["replay", str(out)])  # read back: it verifies
    assert r.exit_code == 0 and "replay verified" in r.output, r.output
    r = runner.invoke(app, ["replay", match_id, "--db", db, "-o", str(out)])
    assert not problems(_outcome(r), ("replay",), expect_error=True) and "--output goes with --json" in r.output


# -- 3 (second half). a hung bot in `arbiter play`: whose turn is waited on, and the clock --

HANG = """
    import time
    from sdk import Bot
    class Hang(Bot):
        name = "hang"
        def choose(self, view, legal_actions):
            time.sleep(3600)
"""


def test_3_play_says_whose_turn_it_waits_on_and_the_clock(tmp_path):
    """A bot that never answers: `arbiter play` says, once its decision limit is past,
    that it waits on that seat and on its bank (a log sees that line too; a terminal
    also sees the wait count up on the progress line)."""
    bot = _bot(tmp_path, "hang", HANG)
    proc = runner.invoke(app, ["play", "spite-and-malice", str(bot), "random", "--seed", "2", "-o", "payoff_size=5",
                               "--decision-ms", "1000", "--bank-ms", "1500", "--db", str(tmp_path / "a.sqlite")])
    assert proc.exit_code == 0, proc.output
    waits = [line for line in proc.stderr.splitlines() if line.startswith("waiting for seat 0")]
    assert waits == [f"waiting for seat 0 ({bot}): past its decision limit (1 s), now on its bank (about 1.5 s of "
                     f"1.5 s left); when that is used up, its side forfeits the match"], proc.stderr
    assert "forfeit_timeout" in proc.stdout, proc.stdout


def test_1_a_bots_own_words_print_as_written_not_as_markup(tmp_path):
    bot = _bot(tmp_path, "marked", """
        from sdk import Bot
        class Marked(Bot):
            name = "marked"
            def choose(self, view, legal_actions):
                raise ValueError("[red]boom[/red] :smile:")
    """)
    r = runner.invoke(app, ["play", "spite-and-malice", str(bot), "random", "--seed", "1", "-o", "payoff_size=5",
                            "--transport", "inproc", "--db", str(tmp_path / "a.sqlite")])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    incident = [line for line in lines if line.startswith("incident: seat 0: crash:")]
    detail = [line for line in lines if line.startswith("seat 0 (marked): the bot failed")]
    assert incident and detail, r.output
    for line in incident + detail:  # the outcome's detail, and the incident: each as the bot wrote it
        assert "ValueError: [red]boom[/red] :smile:" in line, r.output
