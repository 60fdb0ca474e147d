"""One store, several processes at once: what each of them keeps is kept, once, and what
one of them cannot do is said in a line, not a traceback. Real processes on a real SQLite
file; they are started together (each waits on its stdin after its setup) and never timed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.store.db import Store

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]

#: A child that plays N single matches in process, then (told to go) keeps each as
#: ``arbiter play`` does (``store_play``), one after the other.
_PLAYER = """
import asyncio, sys
from arbiter.batch.single import store_play
from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import run_match
from bots.random_bot import RandomBot
from cardarena.records import MatchConfig
db, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
records = [asyncio.run(run_match(MatchConfig("spades", seed + i, {"deals": 1}), [InProcessSeat(RandomBot())] * 4))
           for i in range(n)]
print("ready", flush=True)
sys.stdin.readline()
for record in records:
    store_play(db, record)
print("kept", flush=True)
"""


def _together(commands: list[list[str]]) -> list[subprocess.CompletedProcess]:
    """Run the children, each released once every one of them said it is ready."""
    procs = [subprocess.Popen(c, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for c in commands]
    try:
        for p in procs:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready", p.communicate(timeout=60)
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        return [subprocess.CompletedProcess(p.args, p.wait(timeout=120), *p.communicate(timeout=60)) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def test_single_matches_kept_by_two_processes_at_once_are_all_kept(tmp_path):
    """Two ``arbiter play`` (or /play's tables) keeping matches in one ``play:GAME`` batch at
    once: each match gets its own index. Before, the index was read before the write's
    transaction, both took the same one, and the second's match was refused ("match 4 of
    tournament 1 is already stored"): played, then lost with a traceback."""
    db = tmp_path / "a.sqlite"
    done = _together([[sys.executable, "-c", _PLAYER, str(db), "10", str(1000 * k)] for k in range(2)])
    for d in done:
        assert d.returncode == 0 and d.stdout.strip() == "kept", d.stderr[-2000:]
    with Store(db, read_only=True) as store:
        [batch] = store.tournaments()
        rows = store.matches(batch.id, records=False)
    assert sorted(r.idx for r in rows) == list(range(20))
    assert len({r.match_id for r in rows}) == 20
