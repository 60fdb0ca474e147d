"""What the bad-input walk (test_no_traceback.py) and the read-only tests
(test_read_only_store.py) share: a world of good and bad files, running a command in
process (with a time limit) or as a process, and the one verdict on what it printed.

The verdict on a command's output: no traceback, an exit code of 0, 1 (only for the
commands that document it: a failed check, a replay that does not verify, a rejected
submission) or 2, and on 2 either exactly one ``error:`` line or click's own usage error
(``Usage: ...`` and the bad option named in its box).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from dataclasses import dataclass
from unittest import mock
from pathlib import Path
from types import SimpleNamespace
from typing import Iterator, Sequence

from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.hosting.stop import stop_processes
from tests import clicache

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

#: Commands that document exit code 1 (anything else exits 0 or 2).
EXIT_1 = {("bots", "check"): "a failed check", ("bots", "submit"): "a rejected submission",
          ("replay",): "a record that does not replay"}

NOBODY = 65534


def command_tree() -> dict[tuple[str, ...], object]:
    """Every command of the ``arbiter`` app by its path (``("tournament", "run")``), found
    from the click command tree, so a command added later is walked too."""
    found: dict[tuple[str, ...], object] = {}

    def walk(cmd: object, path: tuple[str, ...]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, path + (name,))
        else:
            found[path] = cmd

    walk(clicache.get_command(app), ())
    return found


@dataclass
class Outcome:
    args: list[str]
    exit_code: int | None
    output: str
    crash: str = ""  # a traceback (in process: an exception that escaped the command)
    hung: bool = False
    stdout: str = ""  # ``output`` apart: what the command wrote to each stream
    stderr: str = ""

    def describe(self) -> str:
        tail = "\n".join(self.output.strip().splitlines()[-8:])
        return f"arbiter {' '.join(self.args)}\n  exit {self.exit_code}{' (HUNG)' if self.hung else ''}\n{self.crash}{tail}"


class Served(Exception):
    """Raised (by ``serving_stops_at_once``) where a serving command would start to wait
    for Ctrl-C: it has accepted its arguments and is up."""


@contextlib.contextmanager
def serving_stops_at_once() -> Iterator[None]:
    """For commands that serve until interrupted (serve, web, arena), run in this process:
    the point where they would wait (an asyncio signal handler for Ctrl-C; the web page's
    ``WebServer.serve_forever``) raises ``Served`` instead, so each returns once it is up."""
    import asyncio.unix_events

    from arbiter.present.web import WebServer

    me = threading.current_thread()
    serve_forever = WebServer.serve_forever

    def served(*_: object, **__: object) -> None:
        raise Served()

    def served_here(self: WebServer) -> None:
        if threading.current_thread() is not me:  # a page served beside (arena's): as it is
            return serve_forever(self)
        raise Served()

    with mock.patch.object(asyncio.unix_events._UnixSelectorEventLoop, "add_signal_handler", served), \
            mock.patch.object(WebServer, "serve_forever", served_here):
        yield


def invoke(args: Sequence[str], timeout: float = 60.0, env: dict[str, str] | None = None,
           serving: bool = False) -> Outcome:
    """Run ``arbiter ARGS`` in this process (typer's CliRunner), within ``timeout`` seconds.
    ``serving``: the command serves until interrupted; it stops once it is up (exit 0)."""
    box: list = []

    def target() -> None:
        with serving_stops_at_once() if serving else contextlib.nullcontext():
            box.append(runner.invoke(app, list(args), env=env))

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout)
    if not box:
        return Outcome(list(args), None, "", hung=True)
    r = box[0]
    crash = ""
    if isinstance(r.exception, Served):
        return Outcome(list(args), 0, r.output, stdout=r.stdout, stderr=r.stderr)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        crash = "Traceback (most recent call last):\n" + "".join(traceback.format_exception(r.exception)[-6:])
    return Outcome(list(args), r.exit_code, r.output, crash, stdout=r.stdout, stderr=r.stderr)


def run_in_process(*args: str, serving: bool = False, timeout: float = 600.0,
                   env: dict[str, str] | None = None) -> SimpleNamespace:
    """``arbiter ARGS`` run in this process (``invoke``) as ``subprocess.run`` would report it:
    its ``returncode``, ``stdout`` and ``stderr`` apart. For a test of what a command prints
    that does not test its process: a process of its own was most of such a test's CPU
    (the bots, servers and fork servers it starts are processes still). An exception that
    escapes the command (a traceback, in a process) or a hang fails the test. ``serving``: a
    command that serves until interrupted, expected to refuse its arguments: should it serve
    instead, it stops once it is up and returns 0. ``env``: variables set while it runs."""
    o = invoke(args, timeout, env, serving=serving)
    assert not o.hung and not o.crash, o.describe()
    return SimpleNamespace(returncode=o.exit_code, stdout=o.stdout, stderr=o.stderr)


def problems(o: Outcome, path: tuple[str, ...], expect_error: bool = False) -> str:
    """Why ``o`` is not a clean answer to a bad input ("" if it is)."""
    if o.hung:
        return "did not finish (if the command serves until interrupted, list it in SERVING)"
    if o.crash or "Traceback" in o.output:
        return "traceback"
    allowed = {0, 1, 2} if path in EXIT_1 else {0, 2}
    if expect_error:
        allowed = {2}
    if o.exit_code not in allowed:
        return f"exit code {o.exit_code} (expected one of {sorted(allowed)})"
    if o.exit_code == 2 and "Usage:" not in o.output:
        lines = [line for line in o.output.splitlines() if line.startswith("error:")]
        if len(lines) != 1:
            return f"{len(lines)} 'error:' lines (expected exactly one)"
    return ""


def run_process(args: Sequence[str], cwd: Path, ready: str = "", timeout: float = 20.0,
                env: dict[str, str] | None = None, module: str = "arbiter") -> Outcome:
    """``python -m MODULE ARGS`` as a process. If it prints a line containing ``ready``
    (it is serving), it gets SIGINT and must stop cleanly; a process still running after
    ``timeout`` seconds gets SIGINT too and counts as hung."""
    proc = start_process([sys.executable, "-m", module, *args], cwd, env)
    lines = proc.lines  # type: ignore[attr-defined]
    t = proc.reader  # type: ignore[attr-defined]
    seen = hung = False
    if ready:
        seen = wait_for_line(proc, ready, timeout)
    else:
        t.join(timeout)  # its output ends when it exits
    ask = seen or t.is_alive()  # serving, or still going after ``timeout``: hung
    hung = ask and not seen
    if stop_processes(proc, 15, first=signal.SIGINT if ask else None):  # killed: it did not stop
        hung = True
    t.join(5)
    code = proc.returncode
    if seen and code == 130:
        code = 0  # stopped by our Ctrl-C: as clean as a stop gets
    return Outcome(list(args), code, "".join(lines), hung=hung)


def wait_for_line(proc: subprocess.Popen, word: str, timeout: float) -> bool:
    """Wait until ``proc`` (from ``start_process``) prints a line containing ``word``: True;
    False if its output ends first (it exited) or ``timeout`` passes."""
    lines, changed, reader = proc.lines, proc.changed, proc.reader  # type: ignore[attr-defined]
    with changed:
        return changed.wait_for(lambda: any(word in line for line in lines) or not reader.is_alive(), timeout) \
            and any(word in line for line in lines)


#: ``python -m MODULE ARGS`` with SIGINT as a terminal gives it. A shell starts background
#: jobs with SIGINT ignored, and Python keeps it so (no KeyboardInterrupt ever), so the
#: process under test restores Python's own handler itself, first thing. Not with a
#: ``preexec_fn``: that makes subprocess fork (not vfork) and run Python in the child of
#: this test process, where gRPC is often in use (in-process servers of other tests): its
#: fork handlers restart a poller thread in the child, whose fds are then closed before
#: the exec, and the child aborts ("Epoll1Poller ... epoll_wait error: Bad file
#: descriptor"), 7 children in 60 in a measurement; CI saw it twice.
_AS_FROM_A_TERMINAL = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                       "runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)")
#: The same as a shell's background job gets it: SIGINT ignored.
_AS_A_BACKGROUND_JOB = _AS_FROM_A_TERMINAL.replace("signal.default_int_handler", "signal.SIG_IGN")


def python_m(argv: Sequence[str], sigint_ignored: bool = False) -> list[str]:
    """``argv`` (``python -m MODULE ...``) rewritten so that the process sets its own SIGINT first
    thing, as from a terminal or (``sigint_ignored``) as a background job (above: never through a
    ``preexec_fn``)."""
    argv = list(argv)
    if argv[1:2] != ["-m"]:
        raise ValueError(f"python_m runs python -m MODULE ..., not {argv[:3]}")
    return [argv[0], "-c", _AS_A_BACKGROUND_JOB if sigint_ignored else _AS_FROM_A_TERMINAL, *argv[2:]]


def start_process(argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
    """``argv`` (``python -m MODULE ...``) as a process whose SIGINT works as from a terminal,
    with stdout and stderr read into ``proc.lines`` as they come (``proc.changed``, a
    Condition, is notified on each line and when the output ends: ``wait_for_line``)."""
    proc = subprocess.Popen(python_m(argv), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, text=True, env={**os.environ, **(env or {})})
    lines: list[str] = []
    changed = threading.Condition()  # notified on each line, and when the output ends

    def reader() -> None:
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                with changed:
                    lines.append(line)
                    changed.notify_all()
        finally:
            with changed:
                changed.notify_all()

    t = threading.Thread(target=reader, daemon=True)
    proc.lines = lines  # type: ignore[attr-defined]
    proc.changed = changed  # type: ignore[attr-defined]
    proc.reader = t  # type: ignore[attr-defined]
    t.start()
    return proc


# --------------------------------------------------------------------------------------
# Permissions as an ordinary user.


def _can_drop() -> bool:
    return os.geteuid() == 0


@contextlib.contextmanager
def unprivileged() -> Iterator[None]:
    """Run the block with an ordinary user's permissions: root reads and writes through
    any chmod, so as root the effective uid (of the whole process) is nobody's for the
    block. Modules a command imports lazily must be imported before (run the command once
    as root first)."""
    if not _can_drop():
        yield
        return
    os.setegid(NOBODY)
    os.seteuid(NOBODY)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


def unprivileged_root(request, prefix: str) -> Path:
    """A fresh folder an ordinary user can reach (not under ``tmp_path``), removed after the test;
    the test is skipped where a read-only folder does not refuse that user (``read_only_works``)."""
    import shutil
    import tempfile

    import pytest

    root = Path(tempfile.mkdtemp(prefix=prefix))
    root.chmod(0o755)
    request.addfinalizer(lambda: shutil.rmtree(root, ignore_errors=True))
    if not read_only_works(root):
        pytest.skip("cannot run as an ordinary user here: root writes through any chmod")
    return root


def read_only_works(folder: Path) -> bool:
    """True if, inside ``unprivileged()``, a 0555 folder really refuses a new file."""
    probe = folder / ".probe"
    with unprivileged():
        try:
            probe.write_text("x")
        except OSError:
            return True
    probe.unlink()
    return False


# --------------------------------------------------------------------------------------
# The world: good and bad files, in a folder an ordinary user can reach.


def _damaged(store: Path) -> bytes:
    """``store``'s bytes with the first page of each table but ``meta`` overwritten."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(store)) as c:
        size = c.execute("PRAGMA page_size").fetchone()[0]
        roots = [r for (r,) in c.execute("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name != 'meta'")]
    data = bytearray(store.read_bytes())
    for page in roots:
        data[(page - 1) * size:page * size] = b"\xff" * size
    return bytes(data)


class World:
    """A folder (under the system temp dir, so that nobody can reach it) holding:

    - ``store.sqlite``: a finished 2-bot Spades round robin ``t`` (``match_id`` one of its matches)
    - ``mybot/``: a folder bot from ``arbiter bots new``; ``empty-dir/``: a folder without bot.py
    - ``record.json``: a match record file; ``creds.json``: credentials with a bot ``north``
    - ``corrupt.sqlite`` (garbage bytes), ``empty.sqlite`` (0 bytes), ``corrupt.json``
    - ``damaged.sqlite``: the store with every table's first page but its schema's
      overwritten (a disk's damage: it opens, then a read fails "malformed")
    - ``rw/`` (writable by anyone): ``rofile.sqlite``, a copy of the store, mode 0444
    - ``rodir/`` (mode 0555): ``store.sqlite``, a copy of the store, and ``creds.json``
    """

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="arena-badinput-"))
        self.root.chmod(0o755)
        r = self.root
        self.store = r / "store.sqlite"
        out = invoke(["tournament", "run", "--db", str(self.store), "--transport", "inproc", "--game", "spades",
                      "--bots", "random,greedy", "--deals", "1", "-o", "deals=1", "--name", "t", "--seed", "5", "-q"])
        assert out.exit_code == 0, out.describe()
        # shared on purpose: the arbiter makes a store for its user and group only (Store),
        # and the read-only cases are run as nobody
        self.store.chmod(0o644)
        from arbiter.store.db import Store

        with Store(self.store, read_only=True) as s:
            row = s.matches(s.tournament("t").id)[0]
            self.match_id = row.match_id
            (r / "record.json").write_text(row.record_json)
        self.record = r / "record.json"
        out = invoke(["bots", "new", "mybot", "--dir", str(r)])
        assert out.exit_code == 0, out.describe()
        self.mybot = r / "mybot"
        (r / "empty-dir").mkdir()
        self.empty_dir = r / "empty-dir"
        self.creds = r / "creds.json"
        assert invoke(["credentials", "add-bot", "north", "--credentials", str(self.creds)]).exit_code == 0
        self.corrupt = r / "corrupt.sqlite"
        self.corrupt.write_bytes(b"\x00garbage\xff not an sqlite file\n" * 40)
        self.empty = r / "empty.sqlite"
        self.empty.write_bytes(b"")
        self.corrupt_json = r / "corrupt.json"
        self.corrupt_json.write_bytes(b"{not json\xff")
        self.damaged = r / "damaged.sqlite"
        self.damaged.write_bytes(_damaged(self.store))
        self.rw = r / "rw"
        self.rw.mkdir()
        self.rw.chmod(0o777)
        self.rofile = self.rw / "rofile.sqlite"
        shutil.copy(self.store, self.rofile)
        self.rofile.chmod(0o444)
        self.rodir = r / "rodir"
        self.rodir.mkdir()
        shutil.copy(self.store, self.rodir / "store.sqlite")
        shutil.copy(self.creds, self.rodir / "creds.json")
        (self.rodir / "creds.json").chmod(0o644)
        self.rodir_store = self.rodir / "store.sqlite"
        self.rodir.chmod(0o555)
        self.missing = r / "missing" / "dir"  # a folder that does not exist
        self._pristine = {p: p.read_bytes() for p in (self.store, self.record, self.mybot / "bot.py", self.creds,
                                                      self.corrupt, self.empty, self.corrupt_json, self.damaged)}
        self._kept = {self.root / n for n in ("store.sqlite", "record.json", "mybot", "empty-dir", "creds.json",
                                              "corrupt.sqlite", "empty.sqlite", "corrupt.json", "damaged.sqlite", "rw",
                                              "rodir")}

    def reset(self) -> None:
        """Undo what a command wrote (root writes through chmod): every bad file as it was,
        nothing new beside them; ``rw/`` keeps what commands made there."""
        for p, data in self._pristine.items():
            if not p.exists() or p.read_bytes() != data:
                p.write_bytes(data)
        for p in self.root.iterdir():
            if p not in self._kept:
                shutil.rmtree(p) if p.is_dir() else p.unlink()
        for folder, keep in ((self.mybot, {"bot.py"}), (self.empty_dir, set()),
                             (self.rodir, {"store.sqlite", "creds.json"})):
            for p in folder.iterdir():
                if p.name not in keep:
                    shutil.rmtree(p) if p.is_dir() else p.unlink()
        for copy in (self.rofile, self.rodir_store):
            if copy.read_bytes() != self._pristine[self.store]:
                copy.chmod(0o644)
                shutil.copy(self.store, copy)
        # the modes too: a command that opened one to write (as root) closed it to others
        # (and SQLite's -wal and -shm beside them, which a connection not yet collected may
        # have left with the closed mode: a reader as nobody then met "unable to open")
        for p, mode in ((self.store, 0o644), (self.rofile, 0o444), (self.rodir_store, 0o644)):
            p.chmod(mode)
            for side in (Path(f"{p}-wal"), Path(f"{p}-shm")):
                if side.exists():
                    side.chmod(0o644)

    def close(self) -> None:
        for p in [self.root, *self.root.rglob("*")]:
            with contextlib.suppress(OSError):
                if p.is_dir() and not p.is_symlink():
                    p.chmod(0o755)
        shutil.rmtree(self.root, ignore_errors=True)
