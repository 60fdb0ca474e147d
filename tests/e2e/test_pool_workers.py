"""A killed command's worker processes end with it (``arbiter.batch.engine.worker_pool``).

``arbiter evaluate -j 2`` plays its matches in a pool of worker processes forked by a fork
server. Killed (SIGKILL here: nothing of it runs afterwards), it used to leave the workers,
the fork server and the resource tracker asleep for ever: each worker holds both ends of its
work queue's pipe, so none of them ever sees the end of its maker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` now (from /proc's parent links)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out.update(kids)
        todo.extend(kids)
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_an_evaluations_pool_workers_end_when_it_is_killed(tmp_path):
    cmd = [sys.executable, "-m", "arbiter", "evaluate", "spades", "heuristic", "greedy", "--deals", "5000", "-j", "2",
           "--db", str(tmp_path / "eval.sqlite")]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        # the pool is up once its two workers (children of the fork server) are
        deadline = time.monotonic() + 60
        below: set[int] = set()
        while time.monotonic() < deadline:
            below = _descendants(proc.pid)
            workers = [p for p in below if _ppid(p) in below]  # below the fork server
            if len(workers) >= 2:
                break
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            time.sleep(0.2)
        else:
            pytest.fail(f"no pool workers came up below {proc.pid}: {sorted(below)}")
        time.sleep(1)  # playing
        below = _descendants(proc.pid)
        assert len(below) >= 3  # the fork server and its two workers at least
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(p) for p in below):
            time.sleep(0.2)
        left = sorted(p for p in below if _alive(p))
        assert not left, f"left running after their maker was killed: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _ppid(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1
