"""arbiter.hosting.stop.stop_processes, on real processes: which signal ended each one (its
returncode) and that every one is reaped; nothing here is timed."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys

import pytest

from arbiter.hosting.stop import stop_processes

pytestmark = pytest.mark.e2e  # real processes: every test here starts some

#: ends at SIGTERM (sleep's default action)
ENDS = ["sleep", "60"]
#: ignores SIGTERM (set before it says "ready"; kept across the exec), so only SIGKILL ends it
IGNORES = ["sh", "-c", 'trap "" TERM; echo ready; exec sleep 60']


def _start(argv: list[str], **popen) -> subprocess.Popen:
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, **popen)
    if argv is IGNORES:
        assert proc.stdout.readline() == "ready\n"  # SIGTERM is ignored from here on
    return proc


def _reaped(proc: subprocess.Popen) -> bool:
    """Its exit taken (by Popen): no zombie of it is left to wait for."""
    try:
        os.waitpid(proc.pid, os.WNOHANG)
    except ChildProcessError:
        return proc.returncode is not None
    return False


def _close(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.stdout:
            p.stdout.close()


def test_one_that_ends_at_sigterm_is_not_killed():
    proc = _start(ENDS)
    try:
        assert stop_processes(proc, 60) == []  # the wait ends with the process, long before 60 s
        assert proc.returncode == -signal.SIGTERM and _reaped(proc)
    finally:
        _close([proc])


def test_several_share_one_grace_and_those_that_ignore_sigterm_are_killed():
    ends, ignores, ends2, ignores2 = (_start(a) for a in (ENDS, IGNORES, ENDS, IGNORES))
    gone = _start(["true"])
    gone.wait()  # ended and reaped before: only its code is read
    procs = [ends, ignores, ends2, ignores2, gone]
    try:
        killed = stop_processes(procs, 1.0)
        assert killed == [ignores, ignores2]
        assert [p.returncode for p in procs] == [-signal.SIGTERM, -signal.SIGKILL, -signal.SIGTERM, -signal.SIGKILL, 0]
        assert all(_reaped(p) for p in procs)
    finally:
        _close(procs)


def test_first_sigint_is_the_signal_sent():
    # SIGINT's default action restored: a test worker may run with it ignored, which a child inherits
    proc = _start([sys.executable, "-S", "-c", "import signal, time; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                   "print('ready', flush=True); time.sleep(60)"])
    try:
        assert proc.stdout.readline() == "ready\n"
        assert stop_processes(proc, 60, first=signal.SIGINT) == []
        assert proc.returncode == -signal.SIGINT and _reaped(proc)
    finally:
        _close([proc])


def test_first_none_sends_nothing_to_one_asked_otherwise():
    asked = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    asked.stdin.close()  # the ask: cat ends at the end of its input (0; -SIGTERM had it been sent that)
    assert stop_processes(asked, 60, first=None) == []
    assert asked.returncode == 0 and _reaped(asked)


def test_a_group_goes_with_its_leader_even_a_grandchild_that_ignores_sigterm():
    """The leader (a shell) ends at SIGTERM within the grace; its child, which ignores SIGTERM,
    is left running by that, and the group's SIGKILL ends it."""
    leader = _start(["sh", "-c", "sh -c 'trap \"\" TERM; echo ready; exec sleep 600' & echo $!; wait"],
                    start_new_session=True)
    try:
        said = {leader.stdout.readline().strip() for _ in range(2)}  # its child's pid, and "ready" (either first)
        assert "ready" in said, said
        grandchild = int(next(s for s in said if s != "ready"))
        fd = os.pidfd_open(grandchild)  # holds the pid: readable once that process has exited
        try:
            assert os.getpgid(grandchild) == leader.pid
            assert stop_processes(leader, 60, group=True) == []
            assert leader.returncode == -signal.SIGTERM and _reaped(leader)
            assert select.select([fd], [], [], 60)[0] == [fd], "the grandchild outlived the stop"
        finally:
            os.close(fd)
    finally:
        with contextlib.suppress(ProcessLookupError):  # (a failed test's grandchild: not left for 600 s)
            os.killpg(leader.pid, signal.SIGKILL)
        _close([leader])


def test_group_on_a_process_that_leads_none_signals_the_process_alone():
    proc = _start(ENDS)  # in this test's group: no group bears its pid, so SIGTERM goes to it alone
    try:
        assert stop_processes([proc], 60, group=True) == []
        assert proc.returncode == -signal.SIGTERM and _reaped(proc)
    finally:
        _close([proc])
