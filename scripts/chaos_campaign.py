#!/usr/bin/env python3
"""The chaos campaign (`make chaos`, issue #20): `arbiter tournament run` SIGKILLed at many
seeded moments, its bot processes and Dask workers killed too, resumed each time.

Kills of the runner (each one followed by a restart of the same command):
  timer      at a random moment after start (store opening, schedule, bot start-up, play)
  matches    once a random number of further matches are stored
  commit     inside the transaction storing a finished match: the row inserted, not committed
  committed  just after that commit, before the run has counted the match
  bot-start  just after a bot process was started, before it connected: by the bot's fork
             server where this machine has them (bwrap as root), else a fresh process
  bot-start-fresh  the same with fork servers off (ARENA_FORKSERVER=0): a fresh sandboxed process
  tree       the runner and every one of its bot processes at once (a machine going down)
  driver     (--cluster) the runner, while a Dask worker holds one of its matches
and, without killing the runner:
  worker     (--cluster) a Dask worker while it holds a match (the scheduler runs it again
             elsewhere; a new worker joins)
  bot        one bot process while it plays (using CPU; a local run goes on)

The stop points (commit, committed, bot-start) are reached exactly: the runner is
started through tests/campaigns/failpoints.py, which is the `arbiter` command with a SIGSTOP
at the N-th time it gets there, so that the SIGKILL lands at that very moment; every other
kill is of the plain `python -m arbiter tournament run`.

After every kill: the store passes `PRAGMA integrity_check`; every match stored before is
still stored, unchanged; no match is stored twice; a commit killed before COMMIT left no row
and one killed after it kept its row; every stored match equals the uninterrupted run's
match of the same index (seats, scores, ranks, reason, every action); no process is left
over (this campaign is the child subreaper of everything it starts, so an orphan becomes
its child and is seen). At the end: every tournament complete, standings (`arbiter
standings --format json`) identical to the uninterrupted run with the same seed. Bot kills
are checked apart: the match a killed bot was playing is a forfeit of its side that names
the signal, every other match equals the uninterrupted run's.

    .venv/bin/python scripts/chaos_campaign.py             # default: 24+ kills, a few minutes on 2 cores
    .venv/bin/python scripts/chaos_campaign.py --big       # 4x the kills
    .venv/bin/python scripts/chaos_campaign.py --kills 40 --seed 7 --no-cluster
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.campaigns.procs import alive, bot_name, children, cmdline, descendants, is_bot, kill, start_time  # noqa: E402

LOCAL_KINDS = ("timer", "matches", "commit", "committed", "bot-start", "bot-start-fresh", "tree")
FAILPOINTS = ("commit", "committed", "bot-start", "bot-start-fresh")
PR_SET_CHILD_SUBREAPER = 36
#: A bot process this old (seconds) is past its start-up and may be one playing. It was 2 s,
#: from when a tournament's bots took that long to start; a bots leg's bots are now its fork
#: servers' children, one a seat a match, gone within about 0.2 s of a one-hand match, and three
#: legs in a row found none that old. A younger one may still be starting: killed then, it is
#: replaced and nothing is forfeited (at 0.05 s, 4 kills in a row forfeited nothing; at 0.3 s,
#: with 8 hands a match, 3 of 4 kills forfeited the match they hit: a fourth came at its end).
BOT_STARTUP_S = 0.3


def become_subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


@dataclass
class Leg:
    """One tournament of the campaign, with its uninterrupted reference run."""

    name: str
    seed: int
    deals: int
    cluster: bool = False
    #: Spades hands a match: the bots legs play 8, so that a bot process (one a seat a match)
    #: lives long enough to be killed mid-match; with 1, none lived past its start-up's 0.3 s
    hands: int = 1
    db: Path = Path()
    ref_db: Path = Path()
    reference: list[tuple] = field(default_factory=list)
    ref_standings: dict = field(default_factory=dict)

    def args(self, db: Path) -> list[str]:
        return ["tournament", "run", "--game", "spades", "--bots", "random,greedy,heuristic", "-o", f"deals={self.hands}",
                "--deals", str(self.deals), "--seed", str(self.seed), "--concurrency", "2", "--name", self.name,
                "--quiet", "--db", str(db)]

    @property
    def total(self) -> int:
        return 3 * self.deals * 2


@dataclass
class Stats:
    kills: Counter = field(default_factory=Counter)
    runs: int = 0
    finished_before_kill: int = 0
    checks: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    processes_seen: int = 0
    orphans: int = 0

    def fail(self, what: str) -> None:
        self.failures.append(what)
        print(f"  FAILURE: {what}", flush=True)


# --------------------------------------------------------------------------------------
# The store, read as the tests read it.


def stored(db: Path) -> list[tuple]:
    """(idx, match_id, seats, scores, ranks, reason, actions without timings) per stored match."""
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db, timeout=10) as c:
            rows = c.execute("SELECT idx, match_id, seats, scores, ranks, reason, json_extract(record, '$.actions') "
                             "FROM matches ORDER BY idx").fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return []
        raise
    return [(*r[:6], tuple((a["seat"], a["action"], a["forced"]) for a in json.loads(r[6]))) for r in rows]


def count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=1) as c:
            return c.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def integrity(db: Path) -> str:
    if not db.exists():
        return "ok"
    with sqlite3.connect(db, timeout=10) as c:
        result = "; ".join(r[0] for r in c.execute("PRAGMA integrity_check"))
        fk = c.execute("PRAGMA foreign_key_check").fetchall()
    return result if not fk else f"{result}; foreign keys: {fk[:3]}"


def played(row: tuple) -> tuple:
    """A stored match without its id (the ids carry the tournament's id in its store)."""
    return (row[0], *row[2:])


def standings(db: Path, name: str) -> dict:
    p = subprocess.run([sys.executable, "-m", "arbiter", "standings", name, "--db", str(db), "--format", "json"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"arbiter standings failed: {p.stderr[-1000:]}")
    return json.loads(p.stdout)


# --------------------------------------------------------------------------------------
# Processes.


class Reaper:
    """Everything this campaign starts, and what is left of it: as the child subreaper, an
    orphaned bot process is re-parented to us and shows up among our children."""

    def __init__(self) -> None:
        self.mine: set[int] = set()  # Popen children we wait for ourselves

    def strays(self) -> dict[int, str]:
        """Children of ours we did not start ourselves (re-parented orphans), reaping the dead."""
        out = {}
        for pid in children(os.getpid()):
            if pid in self.mine:
                continue
            if not alive(pid):
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
                continue
            out[pid] = cmdline(pid)
        return out

    def wait_clean(self, tracked: dict[int, int], timeout: float) -> dict[int, str]:
        """Wait until no tracked process (pid -> start time) runs and no stray is left; the rest."""
        deadline = time.monotonic() + timeout
        while True:
            left = {p: cmdline(p) for p, t in tracked.items() if alive(p) and start_time(p) == t}
            left.update(self.strays())
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.05)


class Run:
    """One `arbiter tournament run` (maybe through the failpoints shim), its process tree
    tracked as it grows."""

    def __init__(self, leg: Leg, reaper: Reaper, failpoint: str | None, tmp: Path, extra: list[str],
                 env_extra: dict[str, str] | None = None):
        self.marker = tmp / f"marker-{time.monotonic_ns()}"
        env = {**os.environ, **(env_extra or {})}
        if failpoint:
            env.update(CHAOS_FAILPOINT=failpoint, CHAOS_MARKER=str(self.marker))
            argv = [sys.executable, "-m", "tests.campaigns.failpoints", *leg.args(leg.db), *extra]
        else:
            argv = [sys.executable, "-m", "arbiter", *leg.args(leg.db), *extra]
        self.err = open(tmp / "runner.stderr", "ab")
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.err)
        reaper.mine.add(self.proc.pid)
        self.reaper = reaper
        self.t0 = time.monotonic()
        self.tracked: dict[int, int] = {}

    def track(self) -> None:
        for p in descendants(self.proc.pid):
            if p not in self.tracked:
                self.tracked[p] = start_time(p)

    def bots(self) -> list[int]:
        """The bot processes now running inside their sandboxes, fresh or forked (``is_bot``)."""
        return [p for p in descendants(self.proc.pid) if is_bot(p)]

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def kill(self, tree: bool = False) -> None:
        self.track()
        kill(self.proc.pid)
        if tree:
            for p in self.tracked:
                kill(p)
        self.proc.wait()

    def close(self) -> None:
        self.reaper.mine.discard(self.proc.pid)
        self.err.close()


# --------------------------------------------------------------------------------------


class Campaign:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.stats = Stats()
        self.reaper = Reaper()
        self.tmp = Path(tempfile.mkdtemp(prefix="arena-chaos-"))
        self.cluster = None
        self.client = None

    # -- legs --------------------------------------------------------------------------

    def prepare(self, leg: Leg) -> None:
        leg.db = self.tmp / f"{leg.name}.sqlite"
        leg.ref_db = self.tmp / f"{leg.name}-reference.sqlite"
        t = time.monotonic()
        p = subprocess.run([sys.executable, "-m", "arbiter", *leg.args(leg.ref_db)], cwd=ROOT, capture_output=True,
                           text=True, timeout=900)
        if p.returncode != 0:
            raise RuntimeError(f"the reference run of {leg.name} failed: {p.stderr[-2000:]}")
        leg.reference = stored(leg.ref_db)
        leg.ref_standings = standings(leg.ref_db, leg.name)
        if len(leg.reference) != leg.total:
            raise RuntimeError(f"the reference run stored {len(leg.reference)} of {leg.total} matches")
        print(f"leg {leg.name}: {leg.total} matches, seed {leg.seed}{' on a Dask cluster' if leg.cluster else ''}; "
              f"uninterrupted reference run in {time.monotonic() - t:.1f} s", flush=True)

    def check_store(self, leg: Leg, before: list[tuple], what: str, expect: tuple[str, int] | None = None) -> list[tuple]:
        """The invariants after a kill (or at the end); the rows now."""
        st = self.stats
        verdict = integrity(leg.db)
        st.checks["integrity_check"] += 1
        if verdict != "ok":
            st.fail(f"{what}: PRAGMA integrity_check says {verdict}")
        now = stored(leg.db)
        idx = [r[0] for r in now]
        st.checks["stores_checked"] += 1
        if len(set(idx)) != len(idx) or len({r[1] for r in now}) != len(now):
            st.fail(f"{what}: a match is stored twice: {idx}")
        lost = {r[0] for r in before} - set(idx)
        if lost:
            st.fail(f"{what}: finished matches lost: {sorted(lost)}")
        changed = [r[0] for r in before if r[0] in set(idx) and r not in now]
        if changed:
            st.fail(f"{what}: stored matches changed: {changed}")
        ref = {r[0]: played(r) for r in leg.reference}
        wrong = [r[0] for r in now if ref.get(r[0]) != played(r)]
        if wrong and not leg.name.startswith("bots-"):
            st.fail(f"{what}: stored matches differ from the uninterrupted run: {wrong}")
        st.checks["matches_compared"] += len(now)
        if expect is not None:
            kind, at = expect
            if kind == "commit" and at in idx and at not in {r[0] for r in before}:
                st.fail(f"{what}: the match {at} whose commit was killed is stored")
            if kind == "committed" and at not in idx:
                st.fail(f"{what}: the match {at} committed just before the kill is not stored")
        return now

    def check_processes(self, run: Run, what: str) -> None:
        st = self.stats
        left = self.reaper.wait_clean(run.tracked, self.args.orphan_timeout)
        st.processes_seen += len(run.tracked)
        st.checks["process_trees_checked"] += 1
        if left:
            st.orphans += len(left)
            st.fail(f"{what}: {len(left)} processes left over: " +
                    "; ".join(f"{p} {c[:120]}" for p, c in list(left.items())[:4]))
            for p in left:
                kill(p)
            self.reaper.wait_clean({}, 5)

    def one_run(self, leg: Leg, kind: str | None) -> tuple[bool, bool]:
        """Start the runner and kill as ``kind`` says (None: let it finish). (Whether the
        tournament is complete, whether the kill happened.)"""
        rng, st = self.rng, self.stats
        before = stored(leg.db)
        done_before = len(before)
        failpoint = None
        expect_idx = None
        if kind in FAILPOINTS:
            remaining = leg.total - done_before
            if kind.startswith("bot-start"):
                failpoint = f"bot-start:{rng.randint(1, 8)}"
            else:
                failpoint = f"{kind}:{rng.randint(1, max(1, min(3, remaining)))}"
        extra = ["--cluster", self.cluster.address] if leg.cluster else []
        env_extra = {"ARENA_FORKSERVER": "0"} if kind == "bot-start-fresh" else {}
        run = Run(leg, self.reaper, failpoint, self.tmp, extra, env_extra)
        st.runs += 1
        delay = rng.uniform(0.05, self.args.max_delay)
        want = rng.randint(1, 3)
        bot_victim_kills = 0
        label = kind or "to the end"
        killed = False
        detail = ""
        try:
            deadline = time.monotonic() + self.args.run_timeout
            while run.proc.poll() is None:
                run.track()
                if time.monotonic() > deadline:
                    st.fail(f"{leg.name}: a run did not finish within {self.args.run_timeout:.0f} s (a hang)")
                    run.kill(tree=True)
                    killed = True
                    break
                if kind in FAILPOINTS and run.marker.exists():
                    text = run.marker.read_text().split()
                    detail = f"{text[0]} #{text[1]}" + (f" ({text[4]})" if text[4:] and text[4] != "-" else "")
                    if kind in ("commit", "committed"):
                        expect_idx = int(text[3])
                    if kind.startswith("bot-start"):  # which path started the bot
                        self.bot_start_paths[text[4] if text[4:] else "?"] += 1
                        if kind == "bot-start-fresh" and text[4:] and text[4] != "fresh":
                            st.fail(f"{leg.name}: a bot-start-fresh kill found a bot from its {text[4]} path")
                    run.kill()
                    killed = True
                elif kind == "timer" and run.elapsed() >= delay:
                    detail = f"after {delay:.2f} s"
                    run.kill()
                    killed = True
                elif kind == "tree" and run.elapsed() >= delay:
                    detail = f"after {delay:.2f} s, with {len(run.bots())} bot processes"
                    run.kill(tree=True)
                    killed = True
                elif kind == "matches" and count(leg.db) >= done_before + want:
                    detail = f"after {want} more stored"
                    run.kill()
                    killed = True
                elif kind == "driver" and self._worker_busy() is not None:
                    detail = "while a worker holds a match"
                    run.kill()
                    killed = True
                elif kind == "worker" and bot_victim_kills < 1:
                    busy = self._worker_busy()
                    if busy is not None:
                        addr, proc = busy
                        tree = {p: start_time(p) for p in descendants(proc.pid)}
                        kill(proc.pid)
                        proc.wait()
                        run.tracked.update(tree)
                        self.cluster.workers.remove(proc)
                        self.cluster.add_worker()
                        bot_victim_kills += 1
                        st.kills["worker"] += 1
                        print(f"  kill {sum(st.kills.values()):>2}: worker {proc.pid} ({len(tree)} bot processes) "
                              f"while it held a match; the run goes on", flush=True)
                        self._check_worker_tree(tree)
                elif kind == "bot" and bot_victim_kills < self.args.bot_kills_per_run and run.elapsed() >= delay:
                    busy = self._playing(run.bots())
                    if busy:
                        v = rng.choice(busy)
                        name = bot_name(v)
                        kill(v)
                        bot_victim_kills += 1
                        st.kills["bot"] += 1
                        self.bot_victims.append(name)
                        delay = run.elapsed() + rng.uniform(0.5, 2.0)
                        print(f"  kill {sum(st.kills.values()):>2}: bot process {v} ({self.bot_victims[-1]}) while it "
                              f"played; the run goes on", flush=True)
                if killed:
                    break
                time.sleep(0.005)
            if not killed:
                rc = run.proc.wait()
                if kind not in (None, "worker", "bot"):
                    st.finished_before_kill += 1
                    label = f"{kind}: finished before the kill"
                    print(f"           {kind:9} the run finished before the kill: the kill goes to the next run", flush=True)
                if rc != 0:
                    st.fail(f"{leg.name}: the run exited with {rc}: {self._stderr_tail()}")
            else:
                st.kills[kind] += 1
                print(f"  kill {sum(st.kills.values()):>2}: {kind:9} {detail:46} stored {count(leg.db):>2}/{leg.total}",
                      flush=True)
        finally:
            run.close()
        what = f"{leg.name}, after {label}"
        self.check_processes(run, what)
        now = self.check_store(leg, before, what, (kind, expect_idx) if expect_idx is not None else None)
        return not killed and len(now) == leg.total, killed or bot_victim_kills > 0

    def _worker_busy(self):
        """(worker address, its Popen) of a worker that holds a match now, or None."""
        if self.client is None:
            return None
        try:
            processing = self.client.processing()
        except Exception:  # noqa: BLE001 - the scheduler is busy: try again
            return None
        pids = self._worker_pids()
        for addr, keys in processing.items():
            if keys and any(str(k).startswith("arena-match-") for k in keys):
                proc = next((w for w in self.cluster.workers if pids.get(addr) == w.pid and w.poll() is None), None)
                # playing: its arbiter has bot processes up (not just the task queued)
                if proc is not None and any(is_bot(p) for p in descendants(proc.pid)):
                    return addr, proc
        return None

    def _worker_pids(self) -> dict[str, int]:
        live = {w.pid for w in self.cluster.workers if w.poll() is None}
        if not live <= set(getattr(self, "_pids", {}).values()):  # a worker joined since
            try:
                self._pids = self.client.run(os.getpid)
            except Exception:  # noqa: BLE001
                self._pids = getattr(self, "_pids", {})
        return self._pids

    def _check_worker_tree(self, tree: dict[int, int]) -> None:
        left = self.reaper.wait_clean(tree, self.args.orphan_timeout)
        self.stats.checks["process_trees_checked"] += 1
        if left:
            self.stats.orphans += len(left)
            self.stats.fail(f"a killed worker's processes were left over: {sorted(left)}")
            for p in left:
                kill(p)

    @staticmethod
    def _playing(pids: list[int], window: float = 0.15) -> list[int]:
        """The bot processes past their start-up that woke in the last ``window`` seconds:
        the ones playing (a spare or an idle process between matches sleeps on its stream).
        Woke: a context switch of any of its threads, or a clock tick of CPU. A random bot's
        decision takes microseconds, so the CPU ticks alone (10 ms each) missed the bots that
        were playing, and at a loaded machine three bot-kill legs in a row found none."""
        def activity(p: int) -> int:
            try:
                stat = Path(f"/proc/{p}/stat").read_text()
                fields = stat[stat.rindex(")") + 2:].split()
                total = int(fields[11]) + int(fields[12])
                for task in Path(f"/proc/{p}/task").iterdir():
                    for line in (task / "status").read_text().splitlines():
                        if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                            total += int(line.split()[1])
                return total
            except (OSError, ValueError, IndexError):
                return -1
        # past its start-up (importing, connecting: CPU too, but no match yet)
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        ticks = os.sysconf("SC_CLK_TCK")
        pids = [p for p in pids if uptime - start_time(p) / ticks > BOT_STARTUP_S]
        first = {p: activity(p) for p in pids}
        time.sleep(window)
        return [p for p, t in first.items() if t >= 0 and activity(p) > t and alive(p)]

    def _stderr_tail(self) -> str:
        try:
            return (self.tmp / "runner.stderr").read_text(errors="replace")[-1500:]
        except OSError:
            return ""

    def finish_leg(self, leg: Leg) -> None:
        st = self.stats
        rows = stored(leg.db)
        if len(rows) != leg.total:
            st.fail(f"{leg.name}: {len(rows)} of {leg.total} matches stored at the end")
        if leg.name.startswith("bots-"):
            self.check_bot_leg(leg, rows)
            return
        got = standings(leg.db, leg.name)
        st.checks["standings_compared"] += 1
        if got != leg.ref_standings:
            st.fail(f"{leg.name}: the final standings differ from the uninterrupted run's")
        else:
            print(f"leg {leg.name}: complete; standings identical to the uninterrupted run", flush=True)

    def check_bot_leg(self, leg: Leg, rows: list[tuple]) -> None:
        """Every match equals the uninterrupted run's, except those a killed bot was playing:
        a forfeit of its side that says how its process ended."""
        st = self.stats
        ref = {r[0]: played(r) for r in leg.reference}
        with sqlite3.connect(leg.db) as c:
            detail = dict(c.execute("SELECT idx, detail || ' ' || json_extract(record, '$.incidents') FROM matches"))
        differ = [r for r in rows if ref.get(r[0]) != played(r)]
        for r in differ:
            names = json.loads(r[2])
            # the record says how: killed by signal 9 (no sandbox), exit 137 (bwrap's report of
            # it), or a connection closed / not connected (the stream ended before the tail)
            ok = r[5].startswith("forfeit_") and any(v in detail[r[0]] for v in self.bot_victims) and \
                re.search(r"signal 9|code (137|-9)|connection closed|not connected", detail[r[0]]) is not None
            if not ok:
                st.fail(f"{leg.name}: match {r[0]} differs from the uninterrupted run and is no forfeit of a killed bot: "
                        f"{r[5]} {detail[r[0]][:300]} seats {names}")
        if len(differ) > len(self.bot_victims):
            st.fail(f"{leg.name}: {len(differ)} matches differ for {len(self.bot_victims)} bot processes killed")
        st.checks["bot_forfeits_checked"] += len(differ)
        st.checks["matches_compared"] += len(rows)
        print(f"leg {leg.name}: complete; {len(self.bot_victims)} bot processes killed, {len(differ)} matches forfeited "
              f"by them (each naming the kill), the other {len(rows) - len(differ)} identical to the uninterrupted run",
              flush=True)

    def play_leg(self, leg: Leg, plan: list[str]) -> None:
        """Run ``leg`` under the kills at the head of ``plan`` (consumed as they happen) until
        it is complete; then finish it without kills and check it."""
        self.prepare(leg)
        complete = False
        planned = len(plan)
        while plan and self.time_left() > 0 and not complete:
            complete, killed = self.one_run(leg, plan[0])
            if killed:
                plan.pop(0)
        if len(plan) == planned and plan:
            self.missed += 1
            if self.missed >= 3:  # three legs in a row without the planned kill: give up on it
                self.stats.fail(f"{plan[0]} kills: the moment never came in three tournaments ({len(plan)} not done)")
                plan.clear()
        else:
            self.missed = 0
        runs = 0
        while not complete and runs < 5:
            runs += 1
            complete, _ = self.one_run(leg, None)
        self.finish_leg(leg)

    def time_left(self) -> float:
        return self.args.seconds - (time.monotonic() - self.t0)

    # -- the campaign ------------------------------------------------------------------------

    def run(self) -> int:
        args, rng, st = self.args, self.rng, self.stats
        become_subreaper()
        self.t0 = time.monotonic()
        self.bot_victims: list[str] = []
        self.bot_start_paths: Counter = Counter()
        self.missed = 0
        plan = [LOCAL_KINDS[i % len(LOCAL_KINDS)] for i in range(args.kills)]
        rng.shuffle(plan)
        leg_no = 0
        while plan and self.time_left() > 0:
            leg_no += 1
            self.play_leg(Leg(f"chaos-{leg_no}", seed=rng.randrange(1, 10**6), deals=args.deals), plan)
        if args.cluster_kills and self.time_left() > 0:
            self.cluster_leg(rng)
        if args.bot_kills and self.time_left() > 0:
            kinds = ["bot"] * max(1, -(-args.bot_kills // args.bot_kills_per_run))
            leg_no = 0
            while kinds and self.time_left() > 0:
                leg_no += 1
                self.bot_victims = []
                self.play_leg(Leg(f"bots-{leg_no}", seed=rng.randrange(1, 10**6), deals=max(2, args.deals // 2), hands=8),
                              kinds)
        left = self.reaper.wait_clean({}, 10)
        if left:
            st.fail(f"processes left over at the end: {sorted(left.items())[:5]}")
        return self.summary()

    def cluster_leg(self, rng: random.Random) -> None:
        from distributed import Client

        from arbiter.batch.cluster import LoopbackCluster

        env = {"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "20", "ARENA_CLUSTER_CACHE": str(self.tmp / "cache")}
        with LoopbackCluster(workers=2, env=env) as cluster:
            self.cluster = cluster
            for w in [cluster.scheduler, *cluster.workers]:
                self.reaper.mine.add(w.pid)
            add = cluster.add_worker

            def add_worker(nthreads: int = 1):
                proc = add(nthreads)
                self.reaper.mine.add(proc.pid)
                return proc

            cluster.add_worker = add_worker
            with Client(cluster.address, timeout=30) as client:
                self.client = client
                kinds = [("worker", "driver")[i % 2] for i in range(self.args.cluster_kills)]
                rng.shuffle(kinds)
                leg_no = 0
                while kinds and self.time_left() > 0:
                    leg_no += 1
                    leg = Leg(f"cluster-{leg_no}", seed=rng.randrange(1, 10**6), deals=self.args.cluster_deals, cluster=True)
                    self.play_leg(leg, kinds)
                self.client = None
            workers = list(cluster.workers)
        self.cluster = None
        for w in workers:
            self.reaper.mine.discard(w.pid)

    def summary(self) -> int:
        st = self.stats
        runner_kills = sum(v for k, v in st.kills.items() if k not in ("worker", "bot"))
        print("\n== chaos campaign ==")
        print(f"kills survived: {sum(st.kills.values())} ({runner_kills} of the runner; by kind: "
              + ", ".join(f"{k} {v}" for k, v in sorted(st.kills.items())) + f") over {st.runs} runs "
              f"in {time.monotonic() - self.t0:.0f} s")
        print("checks: " + ", ".join(f"{k} {v}" for k, v in sorted(st.checks.items())) +
              f"; {st.processes_seen} processes tracked, {st.orphans} left over")
        report = {"seed": self.args.seed, "kills": dict(st.kills), "runner_kills": runner_kills, "runs": st.runs,
                  "checks": dict(st.checks), "processes_tracked": st.processes_seen, "orphans": st.orphans,
                  "failures": st.failures, "seconds": round(time.monotonic() - self.t0, 1)}
        if runner_kills < self.args.kills:
            st.failures.append(f"only {runner_kills} runner kills of the {self.args.kills} planned (time limit?)")
        if st.kills["bot"] < self.args.bot_kills:
            st.failures.append(f"only {st.kills['bot']} bot kills of the {self.args.bot_kills} planned")
        if st.kills["worker"] + st.kills["driver"] < self.args.cluster_kills:
            st.failures.append(f"only {st.kills['worker'] + st.kills['driver']} cluster kills of the "
                               f"{self.args.cluster_kills} planned (no cluster here? --no-cluster)")
        from arbiter.hosting import sandbox

        forks, why_not = sandbox.fork_support(sandbox.Sandbox())
        print("bot-start kills by path: " + (", ".join(f"{k} {v}" for k, v in sorted(self.bot_start_paths.items()))
                                             or "none") + ("" if forks else f" (no fork server here: {why_not})"))
        if forks and not self.bot_start_paths["fork"] and st.kills["bot-start"]:
            st.failures.append("no bot-start kill came from the fork server, though this machine has them")
        report["bot_start_paths"] = dict(self.bot_start_paths)
        if self.args.json:
            self.args.json.write_text(json.dumps(report, indent=2) + "\n")
        if st.failures:
            print(f"FAIL: {len(st.failures)} failures (stores and logs kept in {self.tmp}):")
            for f in st.failures[:30]:
                print(f"  - {f}")
            return 1
        import shutil

        shutil.rmtree(self.tmp, ignore_errors=True)  # kept on a failure, for a look
        print(f"PASS: {sum(st.kills.values())} SIGKILLs survived; no finished match lost, none stored twice, no "
              f"process left over, every store intact, final standings identical to the uninterrupted runs (bot-kill "
              f"legs: every match identical but the killed bots' forfeits)")
        return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kills", type=int, default=28, help="local runner kills (default 28, each kind 4 times)")
    p.add_argument("--cluster-kills", type=int, default=6, help="worker and driver kills on a loopback Dask cluster (default 6)")
    p.add_argument("--bot-kills", type=int, default=4, help="bot processes killed mid-match (default 4)")
    p.add_argument("--bot-kills-per-run", type=int, default=1)
    p.add_argument("--deals", type=int, default=6, help="deals of each local tournament (3 x deals x 2 matches; default 6)")
    p.add_argument("--cluster-deals", type=int, default=3, help="deals of the cluster tournament (default 3)")
    p.add_argument("--max-delay", type=float, default=4.0, help="latest timer kill, seconds after start (default 4)")
    p.add_argument("--seed", type=int, default=20, help="the campaign's seed (default 20)")
    p.add_argument("--seconds", type=float, default=2400.0,
                   help="wall-time limit (default 2400: a ceiling, not a length; about 500 s on 2 idle cores; at load 15-20 a run needed more than the old 900)")
    p.add_argument("--run-timeout", type=float, default=240.0, help="a run taking longer is a hang (default 240 s)")
    p.add_argument("--orphan-timeout", type=float, default=20.0,
                   help="seconds a killed run's processes have to be gone (default 20)")
    p.add_argument("--no-cluster", action="store_true", help="skip the Dask part")
    p.add_argument("--big", action="store_true", help="4x the kills")
    p.add_argument("--json", type=Path, help="also write the report here")
    args = p.parse_args(argv)
    if args.no_cluster:
        args.cluster_kills = 0
    if args.big:
        args.kills *= 4
        args.cluster_kills *= 4
        args.bot_kills *= 4
        args.seconds *= 4
    return Campaign(args).run()


if __name__ == "__main__":
    sys.exit(main())
