"""`arbiter arena` as a user runs it: a real process on a temporary store and credentials
file; three bots submitted over gRPC with an author token are checked, enter the ladder
and are rated; the arena is killed with SIGKILL mid-play and started again with the same
command; every encounter finished before the kill is there exactly once, as it was, and
the ratings recomputed from the stored results are the stored ones."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import urllib.request
from pathlib import Path

from arbiter.server import auth
from arbiter.server.client import submit_bot
from arbiter.spectating import runs
from arbiter.store.arenas import Arenas
from arbiter.store.db import Store
from arbiter.store.registry import Registry, collect
from arbiter.arena.ladder import recompute, verify
from tests.conftest import ROOT

BOT = """
    from sdk import Bot

    class B(Bot):
        name = "{name}"
        version = "1"
        games = ("spite-and-malice",)

        def choose(self, view, legal_actions):
            {body}
"""
BODIES = {
    "rnd": "return self.rng.choice(legal_actions)",
    "first": "return legal_actions[0]",
    "last": "return legal_actions[-1]",
}

CONFIG = """
name = "e2e"
game = "spite-and-malice"
deals = 1
concurrency = 2
[options]
payoff_size = 5
[clock]
decision_ms = 3000
bank_ms = 15000
[server]
port = 0
web_port = 0
credentials = "{creds}"
authors = ["alice"]
db = "{db}"
"""


def _start(config: Path, log: Path) -> tuple[subprocess.Popen, str, str]:
    proc = subprocess.Popen([sys.executable, "-m", "arbiter", "arena", str(config)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=open(log, "a"), text=True, stdin=subprocess.DEVNULL)
    first = proc.stdout.readline()
    m = re.search(r"listening on ([\d.]+:\d+)", first)
    second = proc.stdout.readline()
    w = re.search(r"leaderboard on (http://\S+)", second)
    if not (m and w):
        proc.kill()
        raise RuntimeError(f"arbiter arena did not start: {first!r} {second!r}\n{log.read_text()[-3000:]}")
    # keep reading its stdout (one line per encounter, once it is stored and rated), so that it
    # never blocks on a full pipe and ``_wait`` hears of each encounter
    proc.encounters = 0  # type: ignore[attr-defined]
    proc.reported = threading.Condition()  # type: ignore[attr-defined]

    def read() -> None:
        for _ in proc.stdout:
            with proc.reported:
                proc.encounters += 1
                proc.reported.notify_all()
        with proc.reported:
            proc.encounters = -1  # its output ended: it stopped
            proc.reported.notify_all()

    threading.Thread(target=read, daemon=True).start()
    return proc, m.group(1), w.group(1)


def _state(db: Path) -> tuple[list, dict, list]:
    with Store(db) as store:
        tables = Arenas(store)
        a = tables.arena("e2e")
        done = [(e.idx, e.seq, tuple(e.players)) for e in tables.encounters(a.id)]
        matches: dict[int, list[tuple[str, str]]] = {}
        for m in tables.matches(a.id):
            matches.setdefault(m.encounter, []).append((m.match_id, m.record_json))
        return done, matches, tables.entrants(a.id)


def _wait(db: Path, what, timeout: float, proc: subprocess.Popen, log: Path):
    """The store's state once ``what(*state)`` holds: looked at now, then each time the arena
    reports an encounter (what changes the state)."""
    deadline = time.monotonic() + timeout
    seen = None
    while True:
        with proc.reported:
            seen = proc.encounters
        assert seen != -1, f"the arena died:\n{log.read_text()[-3000:]}"
        if db.exists():
            try:
                state = _state(db)
            except Exception:  # noqa: BLE001 - the arena is creating its tables
                state = None
            if state is not None and what(*state):
                return state
        with proc.reported:
            if not proc.reported.wait_for(lambda: proc.encounters != seen, deadline - time.monotonic()):
                break
    raise AssertionError(f"timed out; store: {_state(db) if db.exists() else None}\n{log.read_text()[-3000:]}")


def test_arena_checks_places_and_rates_submissions_and_survives_sigkill():
    tmp = Path(tempfile.mkdtemp(prefix="arena-e2e-"))
    db, creds, log = tmp / "ladder.sqlite", tmp / "credentials.json", tmp / "arena.log"
    config = tmp / "ladder.toml"
    config.write_text(CONFIG.format(creds=creds, db=db))
    proc, address, _ = _start(config, log)
    try:
        # `arbiter watch --db` finds the ladder beside its store, as it finds a tournament's run
        assert runs.running_from(db)[:2] == (address, auth.read(creds).spectator) and runs.run_kind(db) == "arena"
        token = auth.read(creds).authors["alice"]
        assert oct(creds.stat().st_mode & 0o777) == "0o600"
        registered: dict[str, dict] = {}
        errors: list[BaseException] = []

        def submit(name: str) -> None:
            folder = tmp / name
            folder.mkdir()
            (folder / "bot.py").write_text(textwrap.dedent(BOT.format(name=name, body=BODIES[name])))
            for p in (folder, folder / "bot.py"):
                p.chmod(0o755 if p.is_dir() else 0o644)
            try:
                registered[name] = submit_bot(address, collect(folder), token, name, "1")
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=submit, args=(n,)) for n in BODIES]
        for t in threads:
            t.start()
        for t in threads:
            t.join(240)
        assert not errors, errors
        # checked: each version's report, from the arbiter's own refereed match
        assert sorted(registered) == sorted(BODIES)
        for row in registered.values():
            assert any(c["name"] == "verify:spite-and-malice" and c["ok"] for c in row["report"]["checks"]), row
        with Registry(db) as reg:
            assert sorted(v.name for v in reg.versions()) == sorted(BODIES)

        # placed and rated: every bot has played, and some encounters are in
        players = {f"{n}@1" for n in BODIES}

        def rated(done, matches, entrants):
            played = {p for _, _, ps in done for p in ps}
            return len(done) >= 4 and players <= played and {e.player for e in entrants} == players

        done, matches, entrants = _wait(db, rated, 120, proc, log)
        assert all(e.status == "active" and e.encounters >= 1 for e in entrants)
        assert all(e.sigma < 25 / 3 for e in entrants)  # rated: every uncertainty has shrunk

        # SIGKILL, at whatever moment the arena is in
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        before_done, before_matches, _ = _state(db)
        assert len(before_done) >= 4
        for idx, _, _ in before_done:
            assert len(before_matches[idx]) == 2  # one deal, both seatings: whole or not at all

        # the same command again: it resumes
        proc, address, url = _start(config, log)
        done, matches, entrants = _wait(db, lambda d, m, e: len(d) >= len(before_done) + 2, 90, proc, log)
        with urllib.request.urlopen(url, timeout=10) as page:  # the arena serves its own leaderboard
            text = page.read().decode()
        assert all(f'data-player="{p}"' in text for p in players) and '<div id="live" data-hash=' in text
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0, log.read_text()[-3000:]
        assert not runs.watch_file(db).exists()  # stopped: nothing left saying where to watch it
        done, matches, entrants = _state(db)
        # every encounter finished before the kill, exactly once, unchanged
        for enc in before_done:
            assert done.count(enc) == 1
            assert matches[enc[0]] == before_matches[enc[0]]
        seqs = [s for _, s, _ in done]
        assert seqs == list(range(len(done)))  # no gap, no double
        ids = [mid for ms in matches.values() for mid, _ in ms]
        assert len(ids) == len(set(ids)) == 2 * len(done)
        assert set(matches) == {idx for idx, _, _ in done}  # nothing stored of a cut-off encounter
        with Store(db) as store:
            tables = Arenas(store)
            a = tables.arena("e2e")
            assert verify(tables, a) == []
            assert recompute(tables, a) == {e.player: (e.mu, e.sigma) for e in tables.entrants(a.id)}
            assert all(e.encounters == sum(1 for _, _, ps in done if e.player in ps) for e in tables.entrants(a.id))
            assert not tables.encounters(a.id, "playing")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        for p in tmp.rglob("*"):  # the registry's copies are read-only
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(tmp, ignore_errors=True)
