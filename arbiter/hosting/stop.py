"""Stopping child processes, the one way: ask every one, wait for all against one deadline,
kill what is left, reap them all (``stop_processes``).

Product code (bot hosting's sandbox, the loopback cluster, the bench) and the tests, the
campaigns and the scripts all stop their processes here. It imports only the standard
library, so anything may import it cheaply."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterable


def stop_processes(procs: subprocess.Popen | Iterable[subprocess.Popen], grace: float, *,
                   first: int | None = signal.SIGTERM, group: bool = False) -> list[subprocess.Popen]:
    """Stop ``procs`` (one process or several) and reap every one of them.

    1. Every process still running gets ``first`` (SIGTERM; SIGINT where a process's Ctrl-C
       path is the stop: py-spy writes its profile then). With ``group`` it goes to the
       process's group (a process started with ``start_new_session=True`` leads its own, so
       its children hear it too); to the process alone if it leads no group. ``first=None``:
       none, the caller has asked otherwise (closed the process's stdin, stopped the server
       it talks to), and the process is only given its grace.
    2. All are waited for against ONE deadline, ``grace`` seconds from now: several processes
       take ``grace`` in all, never ``grace`` each.
    3. Each still running then gets SIGKILL and is waited for. With ``group``, every group
       gets SIGKILL whatever its leader did, so a child that outlived it (or ignored
       ``first``) is not left running.

    On return every process of ``procs`` has exited and been waited for: its ``returncode``
    is set (``-signal`` if a signal ended it) and no zombie of it is left. A process that
    ended before (or was reaped by a caller) is only waited for. With ``group`` the rest of
    each group has been sent SIGKILL; those processes are not this one's children, so
    their reaper (init, or a sub-reaper) waits for them, not this. Returns the processes
    that had to be killed (empty: each ended within the grace)."""
    procs = [procs] if isinstance(procs, subprocess.Popen) else list(procs)
    for proc in procs:
        if first is not None and proc.poll() is None:
            _signal(proc, first, group)
    deadline = time.monotonic() + grace
    for proc in procs:
        try:
            proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    killed = []
    for proc in procs:
        if group:  # the group's stragglers, even if the leader is gone
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if proc.poll() is None:
            proc.kill()
            killed.append(proc)
    for proc in killed:
        proc.wait()  # SIGKILL cannot be caught or ignored: this returns
    return killed


def _signal(proc: subprocess.Popen, sig: int, group: bool) -> None:
    if group:
        try:
            os.killpg(proc.pid, sig)
            return
        except (ProcessLookupError, PermissionError):  # it leads no group (or not one of ours)
            pass
    proc.send_signal(sig)
