"""`arbiter serve` stopped while a submission is being checked (--bots-db), and a submission
whose caller hung up during its check. The check runs in a thread of its own, which a call's
end does not stop: the process waited for it after saying "arbiter stopped" (said now once
it has; "arbiter stopping" as it begins), deaf to a
second Ctrl-C or SIGTERM, for as long as the check took (a minute and a half here), and a
check whose caller had gone ran on to its end. The Bots service now stops the check when its
call ends (the check cancelled as any run is: its processes killed, nothing registered), and
the stop stays bounded as `arbiter arena`'s is (``BoundedStop``: a second signal, or the
grace, ends it) for whatever else could hold it: a check installing a bot's packages, whose
pip ran on, orphaned, after a second Ctrl-C had ended the server."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from arbiter import scratch
from arbiter.server import auth
from tests.cli.badinput import run_in_process
from tests.conftest import start_serve, stop_serve

pytestmark = pytest.mark.e2e

#: A bot whose self-test takes 200 decisions of half a second each: its check outlasts the test.
SLOW = '''
import time
from sdk import Bot

class SlowBot(Bot):
    name = "slow"
    version = "1"
    games = ("spades",)

    def choose(self, view, legal_actions):
        time.sleep(0.5)
        return legal_actions[0]
'''


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid``: a sandboxed check's bot runs under its sandbox's process."""
    found, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        found += kids
        todo += kids
    return found


def _check_started(pid: int) -> list[int]:
    """The processes of the check the server ``pid`` has begun (waited for: its first process)."""
    deadline = time.monotonic() + 60
    while not _children(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    found = _descendants(pid)
    assert found, "the submission's check did not start"
    return found


def _ended(pids: list[int], within: float) -> list[int]:
    """Those of ``pids`` still running after ``within`` seconds (each awaited through a pidfd,
    which is readable once its process has ended)."""
    deadline = time.monotonic() + within
    left = []
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
                left.append(pid)
        finally:
            os.close(fd)
    return left


def _kill(server: int, pids: list[int]) -> None:
    """Those of ``pids`` still under ``server`` (a check outside bwrap does not die with the
    server), before it stops: a pid no longer ours may be another's process by now."""
    for pid in set(pids) & set(_descendants(server)):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _ended_with_its_server(submit: threading.Thread) -> None:
    """The submitting command (in this process, ``run_in_process``) ends with its server: it ran
    on, unjoined, into later tests, whose in-process commands swap the same standard streams
    (an "I/O operation on closed file" in its thread, blamed on another test)."""
    submit.join(60)
    assert not submit.is_alive(), "arbiter bots submit ran on after its server had ended"


def test_a_stop_ends_a_server_that_checks_a_submission_and_its_check(tmp_path, monkeypatch):
    """The first stop waited for the whole check (the self-test's 200 decisions of half a
    second here), and a second stop was then the only way out. Now the stop ends the
    submission's call, which stops its check: the server ends by itself, its check's
    processes with it, and nothing is registered."""
    from arbiter.store.registry import Registry

    monkeypatch.setenv("ARENA_STOP_GRACE_S", "600")  # never the grace: the stop itself ends it
    (tmp_path / "slow").mkdir()
    (tmp_path / "slow" / "bot.py").write_text(SLOW)
    s = start_serve("--bots-db", str(tmp_path / "arena.sqlite"), "--author", "alice")
    checks: list[int] = []
    try:
        token = auth.read(s.credentials).authors["alice"]
        submit = threading.Thread(target=run_in_process, args=("bots", "submit", str(tmp_path / "slow"), "--name",
                                                               "slow", "--server", s.address, "--token", token), daemon=True)
        submit.start()
        checks += _check_started(s.proc.pid)
        s.proc.send_signal(signal.SIGINT)
        s.proc.wait(timeout=60)  # the check's 100 s of decisions no longer hold it
        assert s.proc.returncode == 0, s.proc.returncode
        _ended_with_its_server(submit)
        said = s.proc.stdout.read()  # the stop said as it begins, and once it is over
        assert "arbiter stopping (a second Ctrl-C" in said and said.rstrip().endswith("arbiter stopped"), said
        assert not _ended(checks, 15), "the check's processes outlived the server"
        with Registry(tmp_path / "arena.sqlite", read_only=True) as registry:
            assert registry.versions() == []
    finally:
        _kill(s.proc.pid, checks)
        stop_serve(s)


def test_a_submission_whose_caller_hung_up_during_its_check_is_not_registered(tmp_path):
    """The author's `arbiter bots submit` ended (Ctrl-C, a deadline: its call cancelled) while
    the server checked the bot: the check ran on in its thread and registered the bot, though
    the call that asked for it had ended without an answer (and, the arbiter stopping, its
    author was told the call was cancelled). Then it registered nothing, but still ran to its
    end (the self-test, then matches). Now the check stops with its call: its processes end at
    once, not after the self-test's 200 decisions of half a second, and nothing is registered."""
    import grpc

    from arbiter.server import client
    from arbiter.store.registry import Submission
    from cardarena.v1 import bots_pb2_grpc as bpb_grpc

    s = start_serve("--bots-db", str(tmp_path / "arena.sqlite"), "--author", "alice", "--verbose")
    checks: list[int] = []
    try:
        token = auth.read(s.credentials).authors["alice"]
        sub = Submission({"bot.py": SLOW.encode()}, "bot.py")
        with grpc.insecure_channel(s.address) as channel:
            call = bpb_grpc.BotsStub(channel).Submit.future(client.submission_chunks(sub, token, "slow"))
            checks += _check_started(s.proc.pid)
            call.cancel()  # the author hangs up
        assert not _ended(checks, 30), "the check ran on after its caller had gone"
        said = "ended during its check: the check stopped, nothing was registered"
        deadline = time.monotonic() + 30
        while said not in s.log.read_text() and time.monotonic() < deadline:  # the service saw the check end
            time.sleep(0.05)
        assert said in s.log.read_text(), s.log.read_text()
        assert not _descendants(s.proc.pid), "a process of the stopped check is left, or another began"
        listed = run_in_process("bots", "list", "--server", s.address, "--token", token)
        assert listed.returncode == 0 and "slow" not in listed.stdout, listed
    finally:
        _kill(s.proc.pid, checks)
        stop_serve(s)


def test_a_second_stop_ends_a_server_whose_graceful_stop_is_held(tmp_path, monkeypatch):
    """The first stop cannot end a check blocked installing the bot's packages (pip waits
    on a package index that never answers: the test's socket), which holds the process after
    it said "arbiter stopping" (it said "arbiter stopped" then, before it had). A second stop
    ends it at once, as SIGINT does by default (README, `arbiter serve`), never saying it
    stopped, and leaves the store readable with nothing registered."""
    import sqlite3

    from arbiter.store.registry import Registry

    with socket.create_server(("127.0.0.1", 0)) as index:
        index.settimeout(60)  # a failure's bound, never reached by a passing run
        monkeypatch.setenv("ARENA_INSTALL_BOT_ENVS", "all")
        monkeypatch.setenv("ARENA_BOTENV_CACHE", str(tmp_path / "envs"))
        monkeypatch.setenv("PIP_INDEX_URL", f"http://127.0.0.1:{index.getsockname()[1]}/simple")
        monkeypatch.setenv("PIP_DEFAULT_TIMEOUT", "600")  # pip waits on the index all that while
        monkeypatch.setenv("ARENA_STOP_GRACE_S", "600")  # never the grace: the second stop ends it
        bot = tmp_path / "packaged"
        bot.mkdir()
        (bot / "bot.py").write_text(SLOW)
        (bot / "bot.toml").write_text('requirements = "requirements.txt"\n')
        (bot / "requirements.txt").write_text("tinypkg==1.0\n")
        db = tmp_path / "arena.sqlite"
        s = start_serve("--bots-db", str(db), "--author", "alice")
        try:
            token = auth.read(s.credentials).authors["alice"]
            submit = threading.Thread(target=run_in_process, args=("bots", "submit", str(bot), "--name", "packaged",
                                                                   "--server", s.address, "--token", token), daemon=True)
            submit.start()
            pip, _ = index.accept()  # the check is installing the bot's packages
            s.proc.send_signal(signal.SIGINT)
            assert s.proc.stdout.readline().strip() == "arbiter stopping (a second Ctrl-C or SIGTERM ends it at once)"
            assert s.proc.poll() is None, "nothing held the graceful stop"
            s.proc.send_signal(signal.SIGINT)
            s.proc.wait(timeout=30)
            assert s.proc.returncode == -signal.SIGINT, s.proc.returncode
            assert "arbiter stopped" not in s.proc.stdout.read()  # it did not: the signal ended it
            _ended_with_its_server(submit)
            with pip:  # the install ended with the server: its connection closed
                pip.settimeout(60)
                while pip.recv(65536):
                    pass
        finally:
            stop_serve(s)
    # what the install had begun (the environment, its home) is named for the server, now
    # gone: the next install there sweeps it (arbiter.scratch), where it stayed for good
    left = [p.name for p in (tmp_path / "envs").iterdir()]
    assert sorted(p.name for p in scratch.stale(tmp_path / "envs")) == sorted(left) and len(left) == 2, left
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with Registry(db, read_only=True) as registry:
        assert registry.versions() == []
