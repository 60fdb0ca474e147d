"""`arbiter serve` stopped while a submission is being checked (--bots-db): the check runs
on in a thread of its own, and the process waited for it after saying "arbiter stopped",
deaf to a second Ctrl-C or SIGTERM, for as long as the check took (a minute and a half
here). Its stop is bounded as `arbiter arena`'s is (``BoundedStop``): a second signal, or
the grace, ends it."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

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


def test_a_second_stop_ends_a_server_that_waits_for_a_submissions_check(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_STOP_GRACE_S", "600")  # never the grace: the second signal ends it
    (tmp_path / "slow").mkdir()
    (tmp_path / "slow" / "bot.py").write_text(SLOW)
    s = start_serve("--bots-db", str(tmp_path / "arena.sqlite"), "--author", "alice")
    checks: list[int] = []
    try:
        token = auth.read(s.credentials).authors["alice"]
        threading.Thread(target=run_in_process, args=("bots", "submit", str(tmp_path / "slow"), "--name", "slow",
                                                     "--server", s.address, "--token", token), daemon=True).start()
        deadline = time.monotonic() + 60
        while not _children(s.proc.pid) and time.monotonic() < deadline:  # the check's process is under way
            time.sleep(0.1)
        checks += _children(s.proc.pid)
        assert checks, "the submission's check did not start"
        s.proc.send_signal(signal.SIGINT)
        with pytest.raises(subprocess.TimeoutExpired):  # the first stop waits for the check
            s.proc.wait(timeout=3)
        s.proc.send_signal(signal.SIGINT)
        s.proc.wait(timeout=15)
        assert s.proc.returncode == -signal.SIGINT, s.proc.returncode
        assert "arbiter stopped" in s.proc.stdout.read()
    finally:
        stop_serve(s)
        for pid in checks:  # a check outside bwrap does not die with the server
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_a_submission_whose_caller_hung_up_during_its_check_is_not_registered(tmp_path):
    """The author's `arbiter bots submit` ended (Ctrl-C, a deadline: its call cancelled) while
    the server checked the bot: the check ran on in its thread and registered the bot, though
    the call that asked for it had ended without an answer (and, the arbiter stopping, its
    author was told the call was cancelled). A check that outlives its call registers nothing."""
    import grpc

    from arbiter.server import client
    from arbiter.store.registry import Submission
    from cardarena.v1 import bots_pb2_grpc as bpb_grpc

    s = start_serve("--bots-db", str(tmp_path / "arena.sqlite"), "--author", "alice")
    checks: list[int] = []
    try:
        token = auth.read(s.credentials).authors["alice"]
        sub = Submission({"bot.py": SLOW.replace("0.5", "0.01").encode()}, "bot.py")
        with grpc.insecure_channel(s.address) as channel:
            call = bpb_grpc.BotsStub(channel).Submit.future(client.submission_chunks(sub, token, "slow"))
            deadline = time.monotonic() + 60
            while not _children(s.proc.pid) and time.monotonic() < deadline:  # the check is under way
                time.sleep(0.05)
            checks += _children(s.proc.pid)
            assert checks, "the submission's check did not start"
            call.cancel()  # the author hangs up
        deadline = time.monotonic() + 120
        quiet = 0
        while quiet < 20 and time.monotonic() < deadline:  # the check (self-test, then matches) is over
            quiet = quiet + 1 if not _children(s.proc.pid) else 0
            time.sleep(0.1)
        assert quiet >= 20, "the check did not end"
        listed = run_in_process("bots", "list", "--server", s.address, "--token", token)
        assert listed.returncode == 0 and "slow" not in listed.stdout, listed
    finally:
        stop_serve(s)
        for pid in checks:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
