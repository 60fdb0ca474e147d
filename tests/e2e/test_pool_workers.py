"""A killed command's worker processes end with it (``arbiter.batch.engine.worker_pool``).

``arbiter evaluate -j 2`` plays its matches in a pool of worker processes forked by a fork
server. Killed (SIGKILL here: nothing of it runs afterwards), it used to leave the workers,
the fork server and the resource tracker asleep for ever: each worker holds both ends of its
work queue's pipe, so none of them ever sees the end of its maker."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def _below(pid: int) -> dict[int, int]:
    """Every process below ``pid`` now, with its parent (from /proc's parent links)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    out: dict[int, int] = {}
    todo = [pid]
    while todo:
        p = todo.pop()
        for child, pp in parent.items():
            if pp == p:
                out[child] = p
                todo.append(child)
    return out


def test_an_evaluations_pool_workers_end_when_it_is_killed(tmp_path):
    cmd = [sys.executable, "-m", "arbiter", "evaluate", "spades", "heuristic", "greedy", "--deals", "5000", "-j", "2",
           "--db", str(tmp_path / "eval.sqlite")]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    pidfds: dict[int, int] = {}
    try:
        # the pool is up once its two workers (the fork server's children) are
        below: dict[int, int] = {}
        for _ in range(1200):  # bounded: until they are there (no time is measured)
            below = _below(proc.pid)
            if sum(1 for parent in below.values() if parent in below) >= 2 or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
        assert sum(1 for parent in below.values() if parent in below) >= 2, f"no pool workers below {proc.pid}: {below}"
        # each held by a pidfd before the kill (a pid cannot be taken by another process
        # while it is held), readable once its process has ended: the exits are waited for
        for pid in below:
            try:
                pidfds[pid] = os.pidfd_open(pid)
            except ProcessLookupError:  # ended already (a helper of the start)
                pass
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        waiting = set(pidfds.values())
        deadline = time.monotonic() + 15  # the workers look every PARENT_WATCH_S (1 s)
        while waiting and (left := deadline - time.monotonic()) > 0:
            ended, _, _ = select.select(list(waiting), [], [], left)
            waiting -= set(ended)
        running = sorted(pid for pid, fd in pidfds.items() if fd in waiting)
        assert not running, f"left running after their maker was killed: {running}"
    finally:
        for fd in pidfds.values():
            os.close(fd)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
