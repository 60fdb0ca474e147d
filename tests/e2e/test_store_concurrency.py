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


def _together(commands: list[list[str]], rounds: int = 1) -> list[subprocess.CompletedProcess]:
    """Run the children, each released once every one of them said it is ready; ``rounds``
    times, for children that say "ready" once a round (their other lines are their stdout)."""
    procs = [subprocess.Popen(c, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for c in commands]
    said: dict[subprocess.Popen, str] = {p: "" for p in procs}
    try:
        for _ in range(rounds):
            for p in procs:
                assert p.stdout is not None
                while (line := p.stdout.readline()) and line.strip() != "ready":
                    said[p] += line
                assert line, (said[p], p.communicate(timeout=60))
            for p in procs:
                assert p.stdin is not None
                p.stdin.write("go\n")
                p.stdin.flush()
        done = [(p, p.wait(timeout=120), *p.communicate(timeout=60)) for p in procs]
        return [subprocess.CompletedProcess(p.args, code, said[p] + out, err) for p, code, out, err in done]
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


#: A child that removes ``mine 1`` from the registry and stops itself (SIGSTOP) once the
#: first file of its stored copy has been deleted: the test SIGKILLs it there.
_REMOVER = """
import os, signal, sys
from arbiter.store.registry import Registry
unlink = os.unlink
def stopping_unlink(*args, **kwargs):
    unlink(*args, **kwargs)
    print("deleting", flush=True)
    os.kill(os.getpid(), signal.SIGSTOP)
os.unlink = stopping_unlink
with Registry(sys.argv[1]) as registry:
    registry.remove("mine", "1", "alice")
print("removed", flush=True)
"""


def _folder_bot() -> "Submission":
    from arbiter.store.registry import Submission

    files = {"bot.py": b"from sdk import Bot\nfrom helper import first\n\nclass M(Bot):\n    name = 'mine'\n"
                       b"    games = ('spades',)\n\n    def choose(self, view, legal_actions):\n"
                       b"        return first(legal_actions)\n"}
    files.update({f"helper{k or ''}.py": b"def first(actions):\n    return actions[0]\n" for k in range(6)})
    return Submission(files, "bot.py")


def _report(name: str, version: str):
    from arbiter.hosting.botcheck import Check, Report

    return Report(name, {"name": name, "version": version, "games": ["spades"]}, [Check("verify:spades", True)])


def test_a_removal_killed_half_way_through_deleting_the_copy_leaves_the_same_content_registrable(tmp_path):
    """``arbiter bots remove`` SIGKILLed while it deleted a stored copy no version used any
    more: registering the same files again (the author's next try) works, its copy whole.
    Before, the half-deleted folder stayed under the content's hash, and every later
    submission of those files was refused: "stored copy ... does not match its hash
    (tampered?); remove it by hand"."""
    import os
    import signal

    from arbiter.store.registry import Registry, lookup

    db = tmp_path / "a.sqlite"
    Store(db).close()
    with Registry(db) as registry:
        registry.add("mine", "1", _folder_bot(), _report("mine", "1"), "alice")
    child = subprocess.Popen([sys.executable, "-c", _REMOVER, str(db)], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "deleting", child.communicate(timeout=60)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=60)
    with Registry(db) as registry:
        v = registry.add("mine", "2", _folder_bot(), _report("mine", "2"), "alice")
        assert registry.verify(v)
    found, files = lookup(db, "mine@2")
    assert files == _folder_bot().files


#: A child that adds ``other 1`` (the same files as ``mine 1``) to each store once told to go.
_ADDER = """
import sys
from tests.e2e.test_store_concurrency import _folder_bot, _report
from arbiter.store.registry import Registry
for db in sys.argv[1:]:
    with Registry(db) as registry:
        print("ready", flush=True)
        sys.stdin.readline()
        registry.add("other", "1", _folder_bot(), _report("other", "1"), "bob")
    print("kept", flush=True)
"""

#: A child that removes ``mine 1`` from each store once told to go.
_REMOVE = """
import sys
from arbiter.store.registry import Registry
for db in sys.argv[1:]:
    with Registry(db) as registry:
        print("ready", flush=True)
        sys.stdin.readline()
        registry.remove("mine", "1", "alice")
    print("kept", flush=True)
"""


def test_a_copy_added_while_another_version_of_its_content_is_removed_is_kept(tmp_path):
    """Two authors' bots with the same files: one removed (``arbiter bots remove``) while the
    other is registered, in two processes at once. The registered one keeps a whole copy,
    whichever went first. Before, the remover's "no version uses it" was read after its
    transaction, so it could delete the copy the other had just registered."""
    from arbiter.store.registry import Registry, lookup

    # eight tries of the race, each on a store of its own, by the same two processes (their
    # sixteen starts were most of the test's time)
    dbs = [str(tmp_path / f"a{attempt}.sqlite") for attempt in range(8)]
    for db in dbs:
        Store(db).close()
        with Registry(db) as registry:
            registry.add("mine", "1", _folder_bot(), _report("mine", "1"), "alice")
    done = _together([[sys.executable, "-c", _ADDER, *dbs], [sys.executable, "-c", _REMOVE, *dbs]], rounds=len(dbs))
    for d in done:
        assert d.returncode == 0 and d.stdout.split() == ["kept"] * len(dbs), d.stderr[-2000:]
    for db in dbs:
        found, files = lookup(db, "other@1")  # RegistryError if its copy is gone
        assert files == _folder_bot().files


#: A child that registers N versions of one bot in a store it creates (as ``arbiter bots
#: submit --db NEW`` does), once told to go.
_SUBMITTER = """
import sys
from arbiter.hosting.botcheck import Check, Report
from arbiter.store.registry import Registry, Submission
with Registry(sys.argv[1]) as registry:
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(int(sys.argv[2])):
        name, code = f"bot{i % 20}", (f"# version {i}\\n" + "#" * 2000).encode()
        report = Report(name, {"name": name, "version": str(i), "games": ["spades"]},
                        [Check("verify:spades", True, "its moves checked: " + "ok " * 1000)])  # a report's length
        registry.add(name, str(i), Submission({"bot.py": code}, "bot.py"), report, "alice")
print("kept", flush=True)
"""


def test_bots_list_while_bots_are_submitted_to_a_store_the_registry_made(tmp_path):
    """``arbiter bots list`` (read-only) while ``arbiter bots submit`` registers versions in a
    store that the registry created: every read is whole. Before, the registry made the
    file in SQLite's rollback-journal mode, which writes the file in place; the reader,
    seeing no -wal, read it as a file nobody writes, and failed: "database
    disk image is malformed" (the CLI said the store "cannot be used"): 261 of 597 reads
    in 15 s of submissions, and a few in every run of this test."""
    from arbiter.store.registry import Registry

    db = tmp_path / "a.sqlite"
    writer = subprocess.Popen([sys.executable, "-c", _SUBMITTER, str(db), "150"], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errors: list[str] = []
    seen = []
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "ready", writer.communicate(timeout=60)
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
        while writer.poll() is None:
            try:
                with Registry(db, read_only=True) as registry:
                    seen.append(len(registry.versions()))
            except Exception as exc:  # noqa: BLE001 - counted: none is expected
                errors.append(f"{type(exc).__name__}: {exc}")
        out, err = writer.communicate(timeout=60)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert writer.returncode == 0 and out.strip() == "kept", err[-2000:]
    assert errors == [], f"{len(errors)} of {len(errors) + len(seen)} reads failed: {errors[:3]}"
    assert seen == sorted(seen)  # never a version seen, then gone
