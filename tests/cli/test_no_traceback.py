"""No traceback, anywhere (issue #15, item 5): every command and subcommand of `arbiter`,
found from the click command tree (a command added later is walked too), with a matrix
of bad inputs: missing and unwritable paths, corrupt, empty and read-only stores, bad
numbers, trailing slashes on bot paths, unknown bot, game, option and preset names, and
interrupts. Each must end in exit 0, 2 (one ``error:`` line, or click's usage error) or 1
where the command documents it, and never print a traceback.

Commands run in this process (typer's CliRunner); those that serve until interrupted
(serve, web, arena) stop where they would start waiting for Ctrl-C (see
``badinput.serving_stops_at_once``), and a real `arbiter serve` and `arbiter web` get a
real Ctrl-C below. `arbiter play` and `arbiter evaluate` have tests of their own
(test_play_bad_inputs, test_evaluate_bad_inputs).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator
from unittest import mock

import pytest

from arbiter.hosting.stop import stop_processes
from tests.campaigns.procs import wait_stopped
from tests.cli.badinput import ROOT, World, command_tree, invoke, problems, read_only_works, run_process, \
    start_process, unprivileged, wait_for_line

#: Commands that serve until interrupted (run with ``serving=True``).
SERVING = {("serve",), ("web",), ("arena",)}
#: Commands walked by a test of their own.
OWN_TEST = {("play",), ("evaluate",), ("analyse",)}


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    w = World()
    yield w
    w.close()


def _annotation(param: Any) -> Any:
    td = getattr(param, "type_descriptor", None)
    return getattr(td, "annotation", None)


def _is_flag(param: Any) -> bool:
    return bool(getattr(param, "is_flag", False)) or _annotation(param) is bool


def _base(w: World, path: tuple[str, ...]) -> dict[str, Any]:
    """A quick, valid invocation of each command (param name -> value); bad inputs replace one value."""
    run_db = str(w.rw / "run.sqlite")
    return {
        ("play",): {"game": "spades", "bots": ["random"] * 4, "transport": "inproc", "option": ["deals=1"], "seed": "1",
                    "db": str(w.rw / "play.sqlite")},
        ("replay",): {"match_id": w.match_id, "db": str(w.store)},
        ("analyse",): {"match_id": w.match_id, "db": str(w.store), "seat": "0", "last": "2", "samples": "1"},
        ("standings",): {"tournament": "t", "db": str(w.store)},
        ("tournament", "list"): {"db": str(w.store)},
        ("tournament", "show"): {"tournament": "t", "db": str(w.store)},
        ("tournament", "run"): {"db": run_db, "transport": "inproc", "bots": "random,greedy", "deals": "1",
                                "option": ["deals=1"], "name": "r", "fresh": True, "quiet": True},
        ("evaluate",): {"game": "spades", "bot_a": "random", "bot_b": "greedy", "deals": "1", "option": ["deals=1"]},
        ("watch",): {"server": "127.0.0.1:1"},
        ("web",): {"db": str(w.store), "port": "0"},
        ("serve",): {"port": "0", "credentials": str(w.rw / "serve-creds.json")},
        ("arena",): {"game": "spades", "db": str(w.rw / "arena.sqlite"), "port": "0", "web_port": "-1",
                     "credentials": str(w.rw / "arena-creds.json")},
        ("rules",): {"game": "spades"},
        ("bots", "new"): {"name": "newbot", "dest": str(w.rw / "new")},
        ("bots", "check"): {"path": str(w.mybot), "smoke": False, "positions": "5"},
        ("bots", "submit"): {"path": str(w.mybot), "name": "mine", "db": str(w.rw / "reg.sqlite")},
        ("bots", "list"): {"db": str(w.store)},
        ("bots", "show"): {"name": "mine", "db": str(w.store)},
        ("bots", "remove"): {"name": "mine", "db": str(w.rw / "reg.sqlite")},
        ("credentials", "add-bot"): {"name": "south", "credentials": str(w.rw / "c.json")},
        ("credentials", "add-author"): {"name": "alice", "credentials": str(w.rw / "c.json")},
        ("credentials", "token"): {"who": "north", "credentials": str(w.creds)},
        ("credentials", "show"): {"credentials": str(w.creds)},
    }.get(path, {})


def _filler(w: World, param: Any) -> Any:
    """A plausible value for a required parameter of a command without a base invocation."""
    return {"game": "spades", "bots": ["random"] * 4, "bot_a": "random", "bot_b": "random", "match_id": w.match_id,
            "path": str(w.mybot), "who": "admin", "tournament": "t", "db": str(w.store)}.get(param.name, "x")


def _argv(cmd: Any, values: dict[str, Any]) -> list[str]:
    args: list[str] = []
    for p in cmd.params:
        if p.name not in values:
            continue
        v = values[p.name]
        if p.param_type_name == "argument":
            args.extend(v if isinstance(v, list) else [v])
        elif _is_flag(p):
            if v is True:
                args.append(p.opts[0])
            elif v is False and getattr(p, "secondary_opts", None):
                args.append(p.secondary_opts[0])
        else:
            for item in v if isinstance(v, list) else [v]:
                args.extend([p.opts[0], item])
    return args


def _bad_values(w: World, path: tuple[str, ...], param: Any) -> list[Any]:
    """The bad inputs to try for one parameter, by what it is."""
    name, ann = param.name, _annotation(param)
    if _is_flag(param):
        return []
    stores = [str(w.corrupt), str(w.empty), str(w.damaged), str(w.rofile), str(w.rodir_store), str(w.missing / "x.sqlite"),
              str(w.mybot), str(w.root / "nope.sqlite")]
    if name in ("db", "bots_db"):
        return stores
    if name == "credentials":
        return [str(w.corrupt_json), str(w.mybot), str(w.missing / "c.json"), str(w.rodir / "new.json"),
                str(w.root / "nope.json")]
    if name in ("output", "json_path", "dest"):
        return [str(w.missing / "out.md"), str(w.rodir / "out.md"), str(w.mybot)]
    if name in ("tls_cert", "tls_key"):
        return [str(w.root / "nope.pem"), str(w.corrupt_json), str(w.mybot)]
    if name == "path":
        return [str(w.root / "nope"), str(w.empty_dir), str(w.corrupt_json), str(w.mybot) + "/",
                str(w.mybot / "bot.py") + "/"]
    if name in ("spec_file", "config"):
        return [str(w.root / "nope.toml"), str(w.corrupt_json), str(w.mybot), str(w.mybot / "bot.py")]
    if ann in (int, float):  # numbers out of range, on every number option (Optional ones too):
        return ["-1", "0", "abc"]  # test_every_number_option_refuses_numbers_out_of_its_range
    if name == "game":
        return ["nope", "spite", "[/x]", ""]
    if name == "bots" and isinstance(_base(w, path).get("bots"), list):
        return [["heuristc"] * 4, [str(w.mybot) + "/", "random"] * 2, [str(w.root / "missing") + "/"] * 4]
    if name in ("bots", "house"):
        return ["heuristc,random", f"{w.mybot}/,random", "random", "random,[/x]", ","]
    if name in ("bot_a", "bot_b", "challenger"):
        return ["heuristc", f"{w.mybot}/", str(w.root / "missing.py"), "[/x]"]
    if name == "option":
        return [["nope=1"], ["deals"], ["deals=-1"], ["deals=abc"], ["=1"]]
    if name == "server":
        return ["nope", "127.0.0.1:1"]
    if name == "host":
        return ["nope.invalid"]
    if name in ("match_id", "match", "tournament"):
        return ["nope", "999", "[/x]"]
    if name in ("name", "version", "who", "bot", "author", "teams"):
        return ["heuristc", "bad name!", "[/x]"]
    if name == "section":
        return [["nope"]]
    return ["nope", "[/x]"]


def _cases(w: World, path: tuple[str, ...], cmd: Any, param: str) -> Iterator[list[str]]:
    """The bad inputs for parameter ``param`` of the command, each in an otherwise good invocation."""
    base = dict(_base(w, path))
    for p in cmd.params:
        if getattr(p, "required", False) and p.name not in base:
            base[p.name] = _filler(w, p)
    for p in cmd.params:
        if p.name == param:
            for bad in _bad_values(w, path, p):
                yield _argv(cmd, {**base, p.name: bad})


def _walk(w: World, path: tuple[str, ...], param: str) -> list[str]:
    failures = []
    for args in _cases(w, path, command_tree()[path], param):
        w.reset()
        o = invoke([*path, *args], timeout=60, serving=path in SERVING)
        why = problems(o, path)
        if why:
            failures.append(f"{why}:\n{o.describe()}")
        if o.hung:
            break  # a hung in-process command holds the runner: report it, stop here
    return failures


#: Commands whose walk starts processes or servers (the serving ones, the self-test's
#: sandboxed bot processes, `arbiter play`'s seats over gRPC).
RUNS_PROCESSES = SERVING | {("bots", "check"), ("bots", "submit"), ("play",)}


#: Parameters whose cases include a bot folder (``mybot/``), which plays hosted (bot
#: processes, a private arbiter) unless in process is asked for.
HOSTS_A_FILE = {(("evaluate",), "bot_a"), (("evaluate",), "bot_b")}


def _walked(paths: list[tuple[str, ...]]) -> list[Any]:
    """One case per command and parameter (those that take a value), so that xdist spreads them."""
    tree = command_tree()
    return [pytest.param(path, p.name, id=f"{' '.join(path)} {p.name}",
                         marks=[pytest.mark.e2e] if path in RUNS_PROCESSES or (path, p.name) in HOSTS_A_FILE else [])
            for path in paths for p in tree[path].params if not _is_flag(p)]


def test_the_walk_finds_every_command():
    tree = command_tree()
    for path in [("play",), ("standings",), ("replay",), ("analyse",), ("serve",), ("web",), ("watch",), ("rules",),
                 ("tournament", "run"), ("tournament", "show"), ("tournament", "list"), ("bots", "new"),
                 ("bots", "check"), ("bots", "submit"), ("bots", "list"), ("bots", "show"), ("bots", "remove"),
                 ("bots", "sandbox"), ("credentials", "add-bot"), ("credentials", "token"), ("credentials", "show")]:
        assert path in tree, path
    walked = {path for path, _ in (case.values for case in _walked(list(tree)))}
    assert walked >= {p for p in tree if p != ("bots", "sandbox")}, "a command with options the walk does not try"


@pytest.mark.parametrize("path,param", _walked([p for p in command_tree() if p not in OWN_TEST]))
def test_every_command_turns_bad_inputs_into_one_error_line(world, path, param):
    """The whole matrix over every command but `arbiter play` and `arbiter evaluate` (their own tests below)."""
    failures = _walk(world, path, param)
    assert not failures, f"{len(failures)} bad inputs were not answered cleanly:\n\n" + "\n\n".join(failures)


@pytest.mark.parametrize("path,param", _walked([("analyse",)]))
def test_analyse_bad_inputs(world, path, param):
    """`arbiter analyse` walked on its own (it runs an analysis for every accepted input)."""
    failures = _walk(world, path, param)
    assert not failures, f"{len(failures)} bad inputs to analyse were not answered cleanly:\n\n" + "\n\n".join(failures)


@pytest.mark.parametrize("path,param", _walked([("play",)]))
def test_play_bad_inputs(world, path, param):
    """`arbiter play` with the same matrix."""
    failures = _walk(world, path, param)
    assert not failures, f"{len(failures)} bad inputs to play were not answered cleanly:\n\n" + "\n\n".join(failures)


@pytest.mark.e2e
def test_play_named_bad_inputs(world):
    """The cases of issue #15 (the trailing slash the template tells authors to type; a
    negative clock), as one process per seat."""
    slash = f"{world.mybot}/"
    named = [
        (["play", "spades", slash, "random", slash, "random", "--seed", "1", "-o", "deals=1",
          "--db", str(world.rw / "play.sqlite")], False),
        (["play", "spades", "random", "random", "random", "random", "--decision-ms", "-1", "--transport", "inproc",
          "--db", str(world.rw / "play.sqlite")], True),
        (["play", "spades", "random", "random", "random", "random", "--bank-ms", "-1", "--transport", "inproc",
          "--db", str(world.rw / "play.sqlite")], True),
    ]
    failures = []
    for args, must_fail in named:
        o = invoke(args, timeout=120)
        why = problems(o, ("play",), expect_error=must_fail)
        if why:
            failures.append(f"{why}:\n{o.describe()}")
    assert not failures, f"{len(failures)} bad inputs to play were not answered cleanly:\n\n" + "\n\n".join(failures)


@pytest.mark.parametrize("path,param", _walked([("evaluate",)]))
def test_evaluate_bad_inputs(world, path, param):
    """`arbiter evaluate` with the same matrix."""
    failures = _walk(world, path, param)
    assert not failures, f"{len(failures)} bad inputs to evaluate were not answered cleanly:\n\n" + "\n\n".join(failures)


# --------------------------------------------------------------------------------------
# The cases issue #15 names, each with the message it must give.


def _one_error(args: list[str], *words: str, path: tuple[str, ...] = ()) -> str:
    o = invoke(args)
    why = problems(o, path or tuple(args[:1]), expect_error=True)
    assert not why, f"{why}:\n{o.describe()}"
    line = next(line for line in o.output.splitlines() if line.startswith("error:"))
    for w in words:
        assert w in line, f"{w!r} not in {line!r}"
    return line


def test_named_bad_inputs_give_the_message_that_says_what_is_wrong(world):
    w = world
    _one_error(["standings", "t", "--db", str(w.store), "-f", "md", "-o", str(w.missing / "out.md")],
               "--output", "no folder", str(w.missing))
    _one_error(["standings", "t", "--db", str(w.store), "-f", "md", "-o", str(w.mybot)], "--output", "folder")
    _one_error(["tournament", "run", "--db", str(w.rw / "n.sqlite"), "--transport", "inproc", "--bots", "random,greedy",
                "--decision-ms", "-1", "-q"], "decision_ms", "from 0", path=("tournament", "run"))
    _one_error(["tournament", "run", "--db", str(w.missing / "x.sqlite"), "--transport", "inproc",
                "--bots", "random,greedy", "-q"], "no folder", path=("tournament", "run"))
    _one_error(["tournament", "run", "--db", str(w.rw / "n.sqlite"), "--transport", "inproc",
                "--bots", "heuristc,random", "-q"], "did you mean 'heuristic'?", path=("tournament", "run"))
    _one_error(["standings", "--db", str(w.corrupt)], "not a readable store")
    _one_error(["standings", "--db", str(w.empty)], "empty")
    _one_error(["standings", "--db", str(w.damaged)], "damaged.sqlite is not a usable store", "malformed")
    # a seed past what the store keeps was played, then lost with an OverflowError traceback
    _one_error(["play", "spades", "random", "random", "random", "random", "--transport", "inproc", "-o", "deals=1",
                "--seed", "99999999999999999999999", "--db", str(w.rw / "seed.sqlite")], "--seed", path=("play",))
    _one_error(["standings", "nope", "--db", str(w.store)], "no tournament 'nope'")
    # digits past a store id (OverflowError) and a digit int() refuses (ValueError) were tracebacks
    _one_error(["standings", "9" * 22, "--db", str(w.store)], f"no tournament '{'9' * 22}'")
    _one_error(["standings", "\u00b2", "--db", str(w.store)], "no tournament '\u00b2'")
    _one_error(["rules", "[/x]"], "unknown game '[/x]'")  # user text is never read as markup
    _one_error(["watch", "--server", "nope"], "--server", "HOST:PORT")
    _one_error(["bots", "show", "nope", "--db", str(w.store)], "no bot 'nope'", path=("bots", "show"))
    # (a path of its own: the walk's nope.sqlite is a good --db to commands that write, such as play)
    _one_error(["bots", "list", "--db", str(w.root / "never-made.sqlite")], "no store", path=("bots", "list"))
    _one_error(["bots", "new", "x", "--dir", str(w.mybot / "bot.py")], "not a folder", path=("bots", "new"))
    _one_error(["bots", "submit", str(w.mybot), "--name", "x", "--db", str(w.corrupt)], "not a usable store",
               path=("bots", "submit"))
    assert not (w.root / "never-made.sqlite").exists()  # reading never creates a store
    # a --token is a server's: without --server it is refused, before any self-test or store
    for cmd in (["submit", str(w.mybot), "--name", "x"], ["list"], ["show", "x"], ["remove", "x"]):
        _one_error(["bots", *cmd, "--token", "t0k", "--db", str(w.rw / "tok.sqlite")], "--token", "--server",
                   path=("bots", cmd[0]))
    assert not (w.rw / "tok.sqlite").exists()


def test_a_tournament_on_a_folder_bot_with_a_trailing_slash_names_it_by_the_folder(world):
    o = invoke(["tournament", "run", "--db", str(world.rw / "slash.sqlite"), "--transport", "inproc",
                "--bots", f"{world.mybot}/,random", "--deals", "1", "-o", "deals=1", "--name", "slash", "-q"])
    assert o.exit_code == 0, o.describe()
    assert "mybot" in o.output and "mybot/" not in o.output.replace(str(world.mybot) + "/", "")


@pytest.mark.e2e
def test_bots_submit_to_a_read_only_store_is_one_line(world):
    """As an ordinary user (root ignores chmod): a store in a read-only folder, a 0444 store."""
    if not read_only_works(world.rodir):
        pytest.skip("this user writes through chmod")
    # once as root on a writable store: every module the command needs is imported
    ok = invoke(["bots", "submit", str(world.mybot), "--name", "mine", "--db", str(world.rw / "sub.sqlite")], timeout=120)
    assert ok.exit_code == 0, ok.describe()
    for db in (world.rodir_store, world.rofile):
        before = db.read_bytes()
        with unprivileged():
            o = invoke(["bots", "submit", str(world.mybot), "--name", "mine", "--db", str(db)], timeout=120)
        why = problems(o, ("bots", "submit"), expect_error=True)
        assert not why, f"{why}:\n{o.describe()}"
        assert "read-only" in o.output
        assert db.read_bytes() == before


def test_write_commands_in_read_only_places_are_one_line(world):
    """Outputs, stores and credentials in a read-only folder, as an ordinary user."""
    if not read_only_works(world.rodir):
        pytest.skip("this user writes through chmod")
    w = world
    cases = [
        (["standings", "t", "--db", str(w.store), "-f", "md", "-o", str(w.rodir / "out.md")], "--output"),
        (["tournament", "run", "--db", str(w.rodir / "new.sqlite"), "--transport", "inproc", "--bots", "random,greedy",
          "--deals", "1", "-o", "deals=1", "-q"], "read-only"),
        (["tournament", "run", "--db", str(w.rofile), "--transport", "inproc", "--bots", "random,greedy",
          "--deals", "1", "-o", "deals=1", "-q", "--name", "ro"], "read-only"),
        (["credentials", "add-bot", "x", "--credentials", str(w.rodir / "c.json")], "c.json"),
        (["bots", "new", "x", "--dir", str(w.rodir)], "Permission denied"),
        (["bots", "remove", "mine", "--db", str(w.rofile)], ""),
    ]
    # What the ordinary user reads of the checkout, from a world-readable copy: the
    # checkout itself may be where that user cannot read (a clone in root's home, mode 700).
    import arbiter.cli.bots as bots_cli

    template = w.rw / "template-bot.py"
    shutil.copy(bots_cli.TEMPLATE, template)
    template.chmod(0o644)
    for args, word in cases:
        path = tuple(args[:2]) if args[0] in ("tournament", "bots", "credentials") else (args[0],)
        invoke(args)  # as root first: the modules it imports are loaded
        w.reset()
        with unprivileged(), mock.patch.object(bots_cli, "TEMPLATE", template):
            o = invoke(args, timeout=60)
        why = problems(o, path, expect_error=True)
        assert not why, f"{why}:\n{o.describe()}"
        assert word in o.output, o.describe()


def test_bots_new_with_a_template_it_cannot_read_is_one_line(world):
    """Issue #30 item 20: a checkout the user cannot read (a clone in root's home, mode
    700, run as another user) gave a PermissionError traceback."""
    if not read_only_works(world.rodir):
        pytest.skip("this user reads through chmod")
    import arbiter.cli.bots as bots_cli

    hidden = world.rw / "hidden-template.py"
    shutil.copy(bots_cli.TEMPLATE, hidden)
    hidden.chmod(0o600)  # root's, unreadable to the ordinary user
    invoke(["bots", "new", "x", "--dir", str(world.rw / "new")])  # as root first: the modules it imports are loaded
    world.reset()
    with unprivileged(), mock.patch.object(bots_cli, "TEMPLATE", hidden):
        o = invoke(["bots", "new", "y", "--dir", str(world.rw)], timeout=60)
    why = problems(o, ("bots", "new"), expect_error=True)
    assert not why, f"{why}:\n{o.describe()}"
    assert f"{hidden}: Permission denied" in o.output, o.describe()
    assert not (world.rw / "y").exists()


# --------------------------------------------------------------------------------------
# Interrupts, and the SDK's own command line: real processes.


def _wait_for(proc: subprocess.Popen, word: str, timeout: float = 30) -> None:
    """Until ``proc`` prints a line with ``word`` (failing if it exits first or ``timeout`` passes)."""
    assert wait_for_line(proc, word, timeout), f"no {word!r} in:\n{''.join(proc.lines)}"  # type: ignore[attr-defined]


def _start(argv: list[str], cwd: Path) -> tuple[subprocess.Popen, list[str]]:
    proc = start_process(argv, cwd)
    return proc, proc.lines  # type: ignore[attr-defined]


def _interrupt(proc: subprocess.Popen, timeout: float = 15) -> int:
    if stop_processes(proc, timeout, first=signal.SIGINT):
        pytest.fail(f"did not stop within {timeout:g} s of Ctrl-C")
    return proc.returncode


@pytest.mark.e2e
def test_ctrl_c_stops_serve_and_a_connected_sdk_bot_cleanly(tmp_path):
    creds = tmp_path / "creds.json"
    serve, serve_out = _start([sys.executable, "-m", "arbiter", "serve", "--port", "0", "--credentials", str(creds),
                               "--bot", "north"], ROOT)
    try:
        _wait_for(serve, "listening on")
        address = next(line for line in serve_out if "listening on" in line).split("listening on ")[1].split()[0]
        from arbiter.server import auth

        token = auth.read(creds).bots["north"]
        bot, bot_out = _start([sys.executable, "-m", "sdk", "--bot", "random", "--name", "north", "--address", address,
                               "--token", token], ROOT)
        try:
            _wait_for(bot, "connected")
        finally:
            code = _interrupt(bot)
        text = "".join(bot_out)
        assert "Traceback" not in text and code in (0, 130), text
        assert "stopped" in text
    finally:
        code = _interrupt(serve)
    text = "".join(serve_out)
    assert "Traceback" not in text and code == 0, text
    assert "arbiter stopped" in text


@pytest.mark.e2e
def test_ctrl_c_stops_web_cleanly(world):
    o = run_process(["web", "--db", str(world.store), "--port", "0"], cwd=world.root, ready="serving", timeout=30)
    assert not o.hung and "Traceback" not in o.output and o.exit_code == 0, o.describe()


@pytest.mark.e2e
def test_ctrl_c_stops_python_m_sdk_while_it_connects():
    """Ctrl-C while the connection is still being made (the peer takes the TCP connection
    and never answers: a wrong port, a stuck arbiter) stops the bot at once, without a traceback."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(30)
    try:
        bot, out = _start([sys.executable, "-m", "sdk", "--bot", "random", "--address",
                           f"127.0.0.1:{listener.getsockname()[1]}"], ROOT)
        conn, _ = listener.accept()  # the bot is up (imports done) and connecting
        conn.settimeout(30)
        assert conn.recv(1)  # its gRPC channel is talking (the HTTP/2 preface): it waits for an answer
        code = _interrupt(bot)
        conn.close()
    finally:
        listener.close()
    text = "".join(out)
    assert "Traceback" not in text and code in (0, 1, 130), text


@pytest.mark.e2e
def test_python_m_sdk_that_cannot_connect_says_so_in_one_line():
    for args in (["--bot", "random", "--address", "127.0.0.1:1"], ["--bot", "heuristc", "--address", "127.0.0.1:1"]):
        o = run_process(args, cwd=ROOT, module="sdk", timeout=30)
        assert not o.hung and "Traceback" not in o.output, o.describe()
        assert o.exit_code in (1, 2), o.describe()
        errors = [line for line in o.output.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, o.describe()
    assert "did you mean 'heuristic'?" in o.output


@pytest.mark.e2e
def test_ctrl_c_stops_a_tournament_run_with_one_line(tmp_path):
    # the command with a stop point (tests/campaigns/failpoints.py): it stops itself once its
    # first match is stored, then runs on (199 deals to go) and gets its Ctrl-C
    proc = start_process([sys.executable, "-m", "tests.campaigns.failpoints", "tournament", "run",
                          "--db", str(tmp_path / "t.sqlite"), "--transport", "inproc", "--bots", "random,heuristic",
                          "--deals", "200", "-o", "deals=1", "--name", "long"], tmp_path,
                         env={"CHAOS_FAILPOINT": "committed:1", "PYTHONPATH": str(ROOT)})
    out = proc.lines  # type: ignore[attr-defined]
    try:
        assert wait_stopped(proc, 60), "".join(out)
    finally:
        if proc.returncode is None:  # (not reaped by wait_stopped: it did not exit first)
            os.kill(proc.pid, signal.SIGCONT)
    code = _interrupt(proc)
    text = "".join(out)
    assert "Traceback" not in text, text
    assert code == 130 and "interrupted" in text, text


@pytest.mark.e2e
def test_ctrl_c_stops_an_evaluation_saying_where_its_matches_are_and_how_to_go_on(tmp_path):
    """`arbiter evaluate --db` stopped by Ctrl-C said only "interrupted", where the tournament
    says where the finished matches are and that the same command resumes (terminate_as_interrupt)."""
    db = tmp_path / "e.sqlite"
    proc = start_process([sys.executable, "-m", "tests.campaigns.failpoints", "evaluate", "spades", "heuristic", "random",
                          "--db", str(db), "--transport", "inproc", "--deals", "200", "-o", "deals=1"], tmp_path,
                         env={"CHAOS_FAILPOINT": "committed:1", "PYTHONPATH": str(ROOT)})
    out = proc.lines  # type: ignore[attr-defined]
    try:
        assert wait_stopped(proc, 60), "".join(out)
    finally:
        if proc.returncode is None:
            os.kill(proc.pid, signal.SIGCONT)
    code = _interrupt(proc)
    text = " ".join("".join(out).split())
    assert "Traceback" not in text, text
    assert code == 130 and f"interrupted: the finished matches are stored in {db}; the same command resumes" in text, text


@pytest.mark.e2e
def test_ctrl_c_while_the_commands_load_is_one_line():
    """A Ctrl-C in the first second or so, while `arbiter` still imports its commands (more
    on a busy machine), printed the traceback of whichever import it landed in. The
    interrupt is raised here at a fixed import (the command's own module, which the command
    loads after the shared ones), as the signal's KeyboardInterrupt would be."""
    code = (
        "import sys\n"
        "class Stop:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'arbiter.cli.tournament':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Stop())\n"
        "sys.argv = ['arbiter', 'tournament', 'run', '--help']\n"
        "from arbiter.__main__ import main\n"
        "main()\n"
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 130 and p.stderr.strip() == "interrupted" and not p.stdout, (p.returncode, p.stdout, p.stderr)


# --------------------------------------------------------------------------------------
# Numbers out of range: every number option of every command, with numbers.

#: A number far past any count, port or clock (a typo of a few zeros, or worse): past a C
#: long, where a library call that takes it fails with OverflowError.
HUGE = "99999999999999999999999"

#: Values that are valid, so not tried (a valid value runs the command: a match played, a
#: server up), each with why. Every other out-of-range value must be refused at once.
VALID = {
    (("replay",), "seat"): {"0": "the first seat"},
    (("analyse",), "seat"): {"0": "the first seat"},
    (("analyse",), "seed"): {"0": "any seed", HUGE: "any seed (it only seeds the sampling)"},
    (("analyse",), "max_actions"): {HUGE: "'at most': a decision has few legal actions"},
    (("analyse",), "last"): {HUGE: "'up to': the seat's last decision"},
    (("analyse",), "top"): {"0": "documented: none", HUGE: "'this many': all of them"},
    (("arena",), "suspend_after"): {"0": "documented: never suspend"},
    (("arena",), "decision_ms"): {"0": "documented: without limit"},
    (("arena",), "bank_ms"): {"0": "no bank"},
    (("arena",), "max_strikes"): {"0": "the first fault forfeits"},
    (("arena",), "seed"): {"0": "any seed"},
    (("arena",), "port"): {"0": "any free port"},
    (("arena",), "web_port"): {"-1": "documented: no web page", "0": "any free port"},
    (("arena",), "max_encounters"): {HUGE: "'stop after this many': runs until stopped"},
    (("play",), "seed"): {"0": "any seed"},
    (("play",), "decision_ms"): {"0": "documented: without limit"},
    (("play",), "bank_ms"): {"0": "no bank"},
    (("play",), "max_strikes"): {"0": "the first fault forfeits"},
    (("tournament", "run"), "seed"): {"0": "any seed"},
    (("tournament", "run"), "decision_ms"): {"0": "documented: without limit"},
    (("tournament", "run"), "bank_ms"): {"0": "no bank"},
    (("tournament", "run"), "max_strikes"): {"0": "the first fault forfeits"},
    (("evaluate",), "seed"): {"0": "any seed"},
    (("evaluate",), "decision_ms"): {"0": "documented: without limit"},
    (("evaluate",), "min_deals"): {"0": "no minimum: the test may decide from the first deal"},
    (("replay",), "decision_ms"): {"0": "documented: without limit"},
    (("replay",), "bank_ms"): {"0": "no bank"},
    (("serve",), "port"): {"0": "any free port"},
    (("serve",), "spectator_delay"): {"0": "no delay"},
    (("web",), "port"): {"0": "any free port"},
    (("web",), "play_limit"): {"0": "documented: no /play"},
    (("web",), "analysis_samples"): {"0": "documented: no analysis"},
}

#: What an option needs beside it to be read at all (without it the command refuses the
#: option for that, which is no test of its range).
NEEDS = {
    (("replay",), "at"): {"seat": "0"},
    (("replay",), "decision_ms"): {"seat": "0", "at": "1", "bot": "random"},
    (("replay",), "bank_ms"): {"seat": "0", "at": "1", "bot": "random"},
    (("standings",), "probes"): {"luck_adjusted": True},
    (("evaluate",), "probes"): {"luck_adjusted": True},
    (("evaluate",), "alpha"): {"sprt": "0,50"},
    (("evaluate",), "beta"): {"sprt": "0,50"},
    (("evaluate",), "min_deals"): {"sprt": "0,50"},
}


def _is_number(param: Any) -> bool:
    return any(k.__name__ == "_NumberParamTypeBase" for k in type(param.type).__mro__)


def _out_of_range() -> list[Any]:
    tree = command_tree()
    cases = []
    for path, cmd in tree.items():
        for p in cmd.params:
            if not _is_number(p):
                continue
            values = ["-1", "0", HUGE] + (["nan", "inf", "-inf"] if "Float" in type(p.type).__name__ else [])
            for v in values:
                if v not in VALID.get((path, p.name), {}):
                    cases.append(pytest.param(path, p.name, v, id=f"{' '.join(path)} {p.opts[0]} {v}"))
    return cases


@pytest.mark.parametrize("path,param,value", _out_of_range())
def test_every_number_option_refuses_numbers_out_of_its_range(world, path, param, value):
    """-1, 0, a number past a C long (and NaN, infinities) on each number option: one error
    line (exit 2) at once, never a traceback, a run away (memory, time) or silence. A typo
    of a few zeros once filled the memory (tournament run --deals 1000000000000), played a
    match then lost it (play --seed 99999999999999999999999), or gave an OverflowError
    (evaluate --jobs)."""
    cmd = command_tree()[path]
    base = dict(_base(world, path))
    for p in cmd.params:
        if getattr(p, "required", False) and p.name not in base:
            base[p.name] = _filler(world, p)
    base.update(NEEDS.get((path, param), {}))
    world.reset()
    for f in world.rw.iterdir():  # a store or credentials a case before made: each case starts afresh
        if f.suffix in (".sqlite", ".json") and f != world.rofile:
            f.unlink()
    o = invoke([*path, *_argv(cmd, {**base, param: value})], timeout=20, serving=path in SERVING)
    why = problems(o, path, expect_error=True)
    assert not why, f"{why}:\n{o.describe()}"


def test_the_web_page_bounds_its_analyses_as_the_analysis_does():
    from arbiter.analysis.values import MAX_SAMPLES
    from arbiter.cli import web

    assert web.MAX_SAMPLES == MAX_SAMPLES


#: Every whole-number game option that sets how long a match runs or how many cards it holds.
GAME_COUNTS = [("spades", 4, "deals"), ("spades", 4, "max_deals"), ("spot", 2, "hands"), ("spot", 2, "max_turns_per_hand"),
               ("spot", 2, "max_extra_hands"), ("spite-and-malice", 2, "decks"), ("spite-and-malice", 2, "jokers"),
               ("spite-and-malice", 2, "payoff_size"), ("spite-and-malice", 2, "max_turns"),
               ("spite-and-malice", 2, "max_deadlock_reshuffles")]


@pytest.mark.parametrize("game,seats,key", GAME_COUNTS, ids=[f"{g} {k}" for g, _, k in GAME_COUNTS])
def test_a_game_option_past_any_match_is_refused(world, game, seats, key):
    """-o deals=99999999999999999999999 played a match without end (no word, no record)."""
    o = invoke(["play", game, *["random"] * seats, "--transport", "inproc", "-o", f"{key}={HUGE}",
                "--db", str(world.rw / "game-option.sqlite")], timeout=20)
    why = problems(o, ("play",), expect_error=True)
    assert not why, f"{why}:\n{o.describe()}"
    assert key in o.output


@pytest.mark.e2e
def test_an_interrupt_inside_an_event_loops_making_ends_with_one_line() -> None:
    """A Ctrl-C that lands while ``asyncio.run`` makes its loop (before the loop has its
    self-pipe) left a half-made loop whose ``__del__`` failed as the process ended: a traceback
    ("no attribute '_ssock'") and "coroutine ... was never awaited" under "interrupted" (seen in
    the bench's stop test, whose SIGINT came just after a step's progress line). Now one line."""
    import subprocess
    import sys

    code = (
        "import asyncio, asyncio.selector_events as se, typer\n"
        "from arbiter.cli._common import _run\n"
        "def make(self): raise KeyboardInterrupt  # the signal, inside the loop's making\n"
        "se.BaseSelectorEventLoop._make_self_pipe = make\n"
        "async def work(): pass\n"
        "try:\n"
        "    _run(lambda: asyncio.run(work()))\n"
        "except typer.Exit as e:\n"
        "    raise SystemExit(e.exit_code)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 130 and p.stderr.strip() == "interrupted", p.stderr
