"""Kill and resume, for real: `arbiter tournament run` as a subprocess with its bots as
processes over gRPC, SIGKILLed half way, run again, compared with an uninterrupted run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from arbiter import scratch
from tests.campaigns import procs
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e  # `arbiter tournament run` as a process, SIGKILLed

#: Two deals of each pairing, both seatings: 12 matches, the kill after the sixth is stored
#: (half way; four deals, 24 matches, were twice the CPU for the same story: 10.5 CPU-s in
#: the suite's profile, README "The test budget").
ARGS = ["--game", "spades", "--bots", "random,greedy,heuristic", "-o", "deals=1", "--deals", "2", "--seed", "5",
        "--concurrency", "2", "--name", "kr", "--quiet"]
TOTAL = 3 * 2 * 2


def arbiter(*args: str, module: str = "arbiter", **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", module, *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def run_to_end(*args: str, **kw) -> str:
    p = arbiter(*args, **kw)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    return out


def stored(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as c:
        return c.execute(
            "SELECT idx, match_id, seats, scores, ranks, reason, json_extract(record, '$.actions'), finished "
            "FROM matches ORDER BY idx"
        ).fetchall()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat").read_text() if Path(f"/proc/{pid}/stat").exists() else ""
    return " Z " not in stat  # a zombie has exited


def played(r: tuple) -> tuple:
    """A stored match without its wall-clock timings."""
    actions = [(a["seat"], a["action"], a["forced"]) for a in json.loads(r[6])]
    return (*r[:6], actions)


def standings_json(db: Path) -> dict:
    """``arbiter standings kr --format json`` of ``db``, run in this process (typer's runner:
    the same command; a process of its own was 0.5 CPU-s of imports for a page of JSON)."""
    from typer.testing import CliRunner

    from arbiter.cli import app

    result = CliRunner().invoke(app, ["standings", "kr", "--db", str(db), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def scratch_of(folder: Path, pid: int | None = None) -> list[Path]:
    """The arbiter's scratch folders in ``folder`` (of process ``pid``, or of anyone)."""
    return sorted(d for d in folder.iterdir() if (o := scratch.owner(d)) is not None and pid in (None, o[1]))


@pytest.fixture
def tmp() -> Iterator[Path]:
    """The runs' temporary folder, to see what they leave there (short: the server's Unix
    socket goes in it, and a long one would move it to /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="resume-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path, tmp):
    ref_db, db = tmp_path / "ref.sqlite", tmp_path / "run.sqlite"
    env = {**os.environ, "TMPDIR": str(tmp)}
    # the uninterrupted run, beside the one to be killed (they share nothing: each its own
    # store, bots and temporary folder), so the test waits for one run's matches, not two
    ref_tmp = tmp / "ref"
    ref_tmp.mkdir()
    ref = arbiter("tournament", "run", *ARGS, "--db", str(ref_db), env={**env, "TMPDIR": str(ref_tmp)})

    # start, let six matches be stored, then SIGKILL the runner (not its bots: they must
    # notice) there: it stops itself just after the sixth commit (tests/campaigns/failpoints.py)
    p = arbiter("tournament", "run", *ARGS, "--db", str(db), module="tests.campaigns.failpoints",
                env={**env, "CHAOS_FAILPOINT": "committed:6"})
    try:
        assert procs.wait_stopped(p, 120), f"the run did not reach its sixth commit: {p.returncode}"
    except BaseException:
        p.kill()
        ref.kill()
        raise
    # every descendant: its bot sandboxes and the processes in them (the fork servers' are
    # started by a thread of the arbiter's, so they are not all the main thread's children)
    bots = sorted(procs.descendants(p.pid))
    started = {b: procs.start_time(b) for b in bots}
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    left = scratch_of(tmp, p.pid)  # its bots' log folder, its socket's, its sandboxes' working folders
    assert any(d.name.startswith("arena-bots-") for d in left) and any(d.name.startswith("arena-sock-") for d in left), left
    before = stored(db)
    assert 6 <= len(before) < TOTAL, f"the kill must land mid-run (stored {len(before)} of {TOTAL})"
    try:
        # the orphaned bot processes lose their arbiter and exit by themselves
        # each bot holds two seats (partners), each seat of each match a fresh process
        # (duplicate deals: isolation "match"), some of them started ahead for the next match
        assert len(bots) >= 3 * 2
        procs.wait_gone(started, 20)
        assert not any(alive(b) for b in bots), "bot processes outlived their arbiter"
    finally:
        for b in bots:
            if alive(b):
                os.kill(b, signal.SIGKILL)

    _, err = ref.communicate(timeout=120)
    assert ref.returncode == 0, err
    reference = stored(ref_db)
    assert len(reference) == TOTAL
    assert scratch_of(ref_tmp) == [], "a run that ended left scratch folders behind"

    out = run_to_end("tournament", "run", *ARGS, "--db", str(db), env=env)
    # the run after the crash swept what the killed one left, and left nothing itself
    assert not any(d.exists() for d in left)
    assert scratch_of(tmp) == []
    after = stored(db)
    # no finished match lost, none played twice: the rows stored before the kill are untouched
    assert [r[0] for r in after] == list(range(TOTAL))
    assert {r[0]: r for r in before}.items() <= {r[0]: r for r in after}.items()
    # the same match set (seats, results, every action) as the uninterrupted run
    assert [played(r) for r in after] == [played(r) for r in reference]
    assert standings_json(db) == standings_json(ref_db)
    assert "kr" in out


def test_an_in_process_run_stores_each_match_as_it_ends_and_stops_at_ctrl_c(tmp_path):
    """Trusted bots in process (``--transport inproc``): the matches never wait, and the
    run held its event loop from the first match to the last. Nothing was stored until
    the end, so a SIGKILL lost every match played; Ctrl-C was seen only once all were
    played, then said "the finished matches are stored" with none stored. Now the store
    fills as matches end, Ctrl-C stops at once, SIGKILL keeps what was stored, and the
    same command resumes from there."""
    import time

    from tests.cli.badinput import start_process

    db = tmp_path / "inproc.sqlite"
    args = [sys.executable, "-m", "arbiter", "tournament", "run", "--db", str(db), "--transport", "inproc",
            "--bots", "random,greedy", "--deals", "100", "-o", "deals=1", "--seed", "5", "--name", "ip", "-q"]
    # the run is about a second long on a quiet machine (1.1 CPU-s of matches: 400 were twice
    # that for the same story): a poll every 0.1 s sees it part stored
    total = 2 * 100

    def count() -> int:
        try:
            with sqlite3.connect(db) as c:
                return c.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        except sqlite3.Error:  # not created yet
            return 0

    def run_until_some_are_stored() -> subprocess.Popen:
        before = count()
        p = start_process(args, ROOT)
        deadline = time.monotonic() + 60
        while count() <= before and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        n = count()
        assert before < n < total, f"nothing stored while it ran ({n} of {total}):\n{''.join(p.lines)}"
        return p

    p = run_until_some_are_stored()
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=10) == 130, "".join(p.lines)
    p.reader.join(5)
    interrupted = count()
    assert 0 < interrupted < total and "interrupted: the finished matches are stored" in "".join(p.lines)

    p = run_until_some_are_stored()
    p.kill()
    p.wait()
    killed = count()
    assert interrupted < killed < total
    out = run_to_end(*args[3:])
    assert "ip" in out
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*), COUNT(DISTINCT idx) FROM matches").fetchone() == (total, total)
