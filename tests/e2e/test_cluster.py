"""Tournaments on a real Dask cluster: a `dask scheduler` and `dask worker` processes on
loopback, each worker running its matches with its own arbiter and sandboxed bot processes.

The cluster must give the same records and standings as the local multi-process run of
the same spec, keep going when a worker is killed mid-run (every match stored once), and
refuse bot code whose content does not match its hash.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arbiter.store import registry as reg
from arbiter.batch.submissions import check_bot, submit
from arbiter.batch import cluster as cluster_module
from arbiter.batch.cluster import BotRef, ClusterError, LoopbackCluster, bot_refs, local_spec
from cardarena.replay import verify_record
from arbiter.store.db import Store
from arbiter.tournament.run import TournamentSpec, load_standings, run_tournament
from tests.arbiter.store.test_registry import GOOD, HELPER, write_bot
from tests.cli.badinput import run_in_process

ROOT = Path(__file__).resolve().parents[2]


def register_good(tmp_path: Path, db: Path) -> str:
    """Register a folder bot (two modules) in the store's registry; its name@version."""
    folder = write_bot(tmp_path / "good", GOOD, HELPER)  # the registry tests' two-module bot
    report = check_bot(folder, positions=5, smoke=False)
    with reg.Registry(db) as r:
        v, _ = submit(r, folder, "good", check=lambda p, abandoned: report)
    return f"good@{v.version}"


def _copy_store(db: Path, copy: Path) -> None:
    """A copy of the store ``db`` and of its registry's stored bots at ``copy``: runs that
    would take turns on one file play at once on two."""
    with sqlite3.connect(db) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    shutil.copytree(reg.registry_dir(db), reg.registry_dir(copy))


def run(db: Path, spec: TournamentSpec, **kw):
    with Store(db) as store:
        rows = asyncio.run(run_tournament(spec, store, **kw))
        st, info = load_standings(store, spec.display_name)
        entrants = store.entrants(store.tournament(spec.display_name).id)
    return rows, st, entrants


def results(rows):
    return [(r.idx, r.seats, r.outcome, r.incidents) for r in rows]


def table(st):
    return [(r.name, r.matches, r.wins, r.draws, r.losses, r.score_rate, r.mean_margin, r.rating) for r in st.rows]


#: The tests that play on the shared cluster: one xdist group (--dist loadgroup, tests/conftest.py),
#: so the cluster starts once in a run, on one worker, not once on every worker.
ON_THE_CLUSTER = pytest.mark.xdist_group("cluster")


#: The shared cluster's one worker: two threads (two matches at once in its one arbiter, as
#: docs/cluster.md runs a machine).
SHARED_THREADS = 2


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """One loopback cluster for the tests of the group (starting a scheduler and its
    workers, each importing the project and starting its bots, is most of a test's time).
    Here one worker of ``SHARED_THREADS`` threads: each bot's fork server starts once on the
    cluster's side, not once a worker. The tests that kill workers add theirs to it
    (``_as_it_was`` gives it back as it was); the one that stops the scheduler makes its own.
    It caches shipped bot files in ``cluster.cache``."""
    cache = tmp_path_factory.mktemp("worker-cache")
    with LoopbackCluster(workers=1, nthreads=SHARED_THREADS, env={"ARENA_CLUSTER_CACHE": str(cache)}) as c:
        c.cache = cache
        yield c


def _as_it_was(cluster: LoopbackCluster) -> None:
    """The shared cluster back to one live worker of ``SHARED_THREADS`` threads, after a test
    that added workers and killed some (its own, or the shared one): the killed ones reaped
    and dropped, any extra one stopped, a new one started if none is left, and the
    scheduler's list of workers down to that one, so the group's other tests find the
    cluster they expect (one named worker, every listed one alive)."""
    from distributed import Client

    live = [w for w in cluster.workers if w.poll() is None]
    for extra in live[1:]:
        extra.kill()
    for w in cluster.workers:
        if w not in live[:1]:
            w.wait()
    cluster.workers[:] = live[:1]
    if not cluster.workers:
        cluster.add_worker(SHARED_THREADS)
    with Client(cluster.address) as client:
        deadline = time.monotonic() + 30  # a worker killed leaves when its connection drops: at once, as a rule
        while len(client.scheduler_info()["workers"]) != 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        client.wait_for_workers(1, timeout=30)
        assert len(client.scheduler_info()["workers"]) == 1, client.scheduler_info()["workers"]


@ON_THE_CLUSTER
def test_a_cluster_tournament_equals_the_local_run_with_the_same_seed(tmp_path, cluster):
    db = tmp_path / "arena.sqlite"
    Store(db).close()
    good = register_good(tmp_path, db)
    base = dict(game="spades", bots=("random", "heuristic", good), options={"deals": 1}, deals=1, seed=11)
    # the three runs at once, each on its own copy of the store and its registry (they share
    # nothing then; their bots start and wait together, not in turn)
    copies = {name: tmp_path / f"{name}.sqlite" for name in ("local", "shared")}
    for copy in copies.values():
        _copy_store(db, copy)

    def cli() -> subprocess.CompletedProcess:
        # through the command line, the registered bot read from its registry folder (a path
        # every worker sees) instead of shipped
        return subprocess.run(
            [sys.executable, "-m", "arbiter", "tournament", "run", "--game", "spades", "--bots", f"random,heuristic,{good}",
             "-o", "deals=1", "--deals", "1", "--seed", "11", "--name", "shared", "--db", str(copies["shared"]),
             "--cluster", cluster.address, "--shared-bots", "--quiet"],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )

    cache = cluster.cache
    with ThreadPoolExecutor(3) as pool:
        local = pool.submit(run, copies["local"], TournamentSpec(name="local", **base))
        on_cluster = pool.submit(run, db, TournamentSpec(name="cluster", cluster=cluster.address, **base))
        shared = pool.submit(cli)
        (local_rows, local_st, _), (rows, st, entrants), cli_run = local.result(), on_cluster.result(), shared.result()
    assert cli_run.returncode == 0, cli_run.stderr
    assert all(w.poll() is None for w in cluster.workers)
    with Store(copies["shared"]) as store:
        shared_rows = store.matches(store.tournament("shared").id)
        shared_st, _ = load_standings(store, "shared")
    assert len(rows) == len(local_rows) == 6
    assert results(rows) == results(local_rows) == results(shared_rows)
    assert table(st) == table(local_st) == table(shared_st)
    assert {e.name: e.version for e in entrants} == {"random": "1.0", "heuristic": "1.0", good: "2.1"}
    for row in rows:
        assert verify_record(row.record()) == row.outcome
    # the driver hands a match out only while its bots play no other match of its deal, on
    # the cluster too (two seatings at once on the worker's two threads, else)
    spans = [(r.record().seed, set(r.seats), r.record().started, r.record().started + r.record().seconds) for r in rows]
    assert [(a, b) for i, a in enumerate(spans) for b in spans[i + 1:]
            if a[0] == b[0] and a[1] & b[1] and a[2] < b[3] - 1e-3 and b[2] < a[3] - 1e-3] == []
    # the registered bot was shipped and ran from a copy the workers checked against its hash
    ref = bot_refs((good,), (good,), db)[good]
    assert ref.kind == "files" and sorted(p.name for p in (cache / ref.content_hash).iterdir()) == ["bot.py", "helper.py"]


@ON_THE_CLUSTER
def test_a_worker_killed_mid_run_loses_only_its_unfinished_matches(tmp_path, cluster):
    from distributed import Client

    db = tmp_path / "arena.sqlite"
    # 12 matches (two deals of each pairing, both seatings): killed after two are stored, ten
    # are left to lose and run again (three deals, 18, were a third more CPU for the same story)
    base = dict(game="spades", bots=("random", "greedy", "heuristic"), options={"deals": 1}, deals=2, seed=5)
    # the expected results, from this process (bundled bots: the same records as hosted; the
    # tournament test above compares the cluster with the hosted run)
    local_rows, local_st, _ = run(db, TournamentSpec(name="local", **base), transport="inproc")
    # the victim: a worker added to the shared cluster, whose own worker plays on (a cluster
    # of its own, a scheduler and two workers, was about 1.8 CPU-s more)
    victim = cluster.add_worker()
    try:
        cluster.wait_for_workers(2)
        spec = TournamentSpec(name="cluster", cluster=cluster.address, **base)
        outcome: dict[str, object] = {}

        def drive() -> None:
            try:
                outcome["rows"] = run(db, spec)
            except BaseException as exc:  # noqa: BLE001 - reported by the test below
                outcome["error"] = exc

        driver = threading.Thread(target=drive)
        driver.start()
        playing = []
        with Client(cluster.address) as client:
            # the moment: two matches stored and the victim holding one. Nothing announces
            # it (the store is a file, the scheduler's view a query): both are looked at, a
            # short while apart, for 60 s at most
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and driver.is_alive():
                stored = _stored(db, "cluster")
                busy = {w: keys for w, keys in client.processing().items() if keys}
                addr = next((w for w in busy if _pid_of(client, w) == victim.pid), None)
                if len(stored) >= 2 and addr is not None:
                    playing = list(busy[addr])
                    os.kill(victim.pid, signal.SIGKILL)  # mid-match: it holds a match it has not returned
                    break
                time.sleep(0.02)
            driver.join(120)
            assert not driver.is_alive()
            assert victim.poll() == -signal.SIGKILL, "the worker was killed during the run"
            assert playing, "the killed worker was playing a match"
            # the scheduler's own story: what the dead worker held was handed out again
            stories = client.run_on_scheduler(lambda dask_scheduler: [list(dask_scheduler.story(k)) for k in playing])
            assert any(sum(1 for t in story if t[2] == "processing") >= 2 for story in stories), stories
    finally:
        _as_it_was(cluster)
    assert "error" not in outcome, outcome.get("error")
    rows, st, _ = outcome["rows"]
    stored = _stored(db, "cluster")
    assert sorted(stored) == list(range(len(local_rows))) == [r.idx for r in rows]  # every match, once
    lost = {int(k.rsplit("-", 2)[1]) for k in playing}
    assert lost <= set(stored)  # what the dead worker held was run again elsewhere
    assert results(rows) == results(local_rows)
    assert table(st) == table(local_st)


def _stored(db: Path, name: str) -> list[int]:
    con = sqlite3.connect(db)
    try:
        return [r[0] for r in con.execute(
            "SELECT idx FROM matches WHERE tournament_id = (SELECT id FROM tournaments WHERE name = ?)", (name,))]
    except sqlite3.OperationalError:  # the driver has not created the tables yet
        return []
    finally:
        con.close()


_PIDS: dict[str, int] = {}


def _pid_of(client, worker: str) -> int:
    if worker not in _PIDS:
        _PIDS.update(client.run(os.getpid))
    return _PIDS.get(worker, -1)


def test_a_worker_refuses_bot_files_that_do_not_match_their_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_CLUSTER_CACHE", str(tmp_path / "cache"))
    good = tmp_path / "b.py"
    good.write_text("from bots.random_bot import RandomBot as B\n")
    ref = bot_refs((str(good),), ("b",), None)["b"]
    assert ref.kind == "files" and local_spec(ref) == str(tmp_path / "cache" / ref.content_hash / "b.py")
    forged = BotRef("b", str(good), "files", ref.content_hash, "b.py", (("b.py", b"import os; os.system('evil')\n"),))
    with pytest.raises(ClusterError, match="hash to .*refusing to run them"):
        local_spec(forged)
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "b.py").write_bytes(good.read_bytes())
    shared = BotRef("b", str(good), "shared", ref.content_hash, "b.py", path=str(folder))
    assert local_spec(shared) == str(folder / "b.py")
    (folder / "b.py").write_text("import os\n")  # changed on the shared disk after it was registered
    with pytest.raises(ClusterError, match="refusing to run it"):
        local_spec(shared)


@ON_THE_CLUSTER
def test_an_arena_on_the_cluster_plays_the_same_encounters_as_locally(tmp_path, cluster):
    """`arbiter arena --cluster`: the encounters' matches run as Dask tasks (a registered bot
    shipped as its stored files, house bots by name) and come out as the local arena's with
    the same seed, match for match; the stored ratings recompute from the stored results."""
    from arbiter.store.arenas import Arenas
    from arbiter.arena.ladder import Arena, ArenaSpec, recompute, verify

    db = tmp_path / "arena.sqlite"
    Store(db).close()
    good = register_good(tmp_path, db)
    base = dict(game="spades", options={"deals": 1}, house=("random", "heuristic"), seed=21)

    local_db = tmp_path / "local.sqlite"  # a copy of the store and its registry: the two arenas play at once
    _copy_store(db, local_db)

    def play(name: str, db: Path, **kw) -> list:
        arena = Arena(ArenaSpec(name=name, **base, **kw), db, poll=0)
        try:
            asyncio.run(arena.run(max_encounters=3))
            assert verify(arena.tables, arena.row) == []
            assert recompute(arena.tables, arena.row) == {p: (e.mu, e.sigma) for p, e in arena.entrants.items()}
            ms = arena.tables.matches(arena.row.id)
            for m in ms:
                verify_record(m.record())
            return [(e.players, e.ratings) for e in arena.tables.encounters(arena.row.id)], \
                   [(m.encounter, m.k, m.seats, m.outcome, [a.action for a in m.record().actions]) for m in ms]
        finally:
            arena.close()

    with ThreadPoolExecutor(2) as pool:
        local, remote = pool.submit(play, "local", local_db), pool.submit(play, "on-cluster", db, cluster=cluster.address)
        local, remote = local.result(), remote.result()
    assert remote == local
    assert any(good in players for players, _ in local[0])  # the registered bot played, from its shipped files


@ON_THE_CLUSTER
def test_an_evaluation_on_the_cluster_equals_the_local_one_and_stops_at_the_same_deal(tmp_path, cluster):
    """`arbiter evaluate --cluster`: the same margins match for match as in process, and a
    sequential test stops at the same deal with the same verdict; the matches a batch played
    past the decision are neither counted nor stored."""
    from arbiter.tournament.evaluate import evaluate
    from arbiter.rating.sprt import Sprt

    bot = tmp_path / "mine.py"  # a bot file: shipped to the workers and checked by hash there
    bot.write_text((ROOT / "bots" / "greedy.py").read_text())
    base = dict(game="spades", bot_a="heuristic", bot_b=str(bot), seed=3, options={"deals": 1})
    # decides at deal 7 (14 matches): the sequential test on the cluster plays 3 matches at
    # once (a deal split across two), so matches past the decision are always under way there
    # when it comes; at the default 16 at once (the fixed run: its 8 matches all at once) the
    # cluster played 38 matches (a batch runs up to twice its concurrency past the last match
    # counted), 24 of them for nothing
    test = Sprt(0, 80, min_deals=5)
    local = evaluate(deals=4, transport="inproc", **base)  # the reference, in this process
    local_sprt = evaluate(deals=40, sprt=test, transport="inproc", **base)
    assert local_sprt.sprt_state.decision and 2 * local_sprt.deals < 16
    db = tmp_path / "eval.sqlite"
    remote = evaluate(deals=4, cluster=cluster.address, **base)
    with Store(db) as store:
        remote_sprt = evaluate(deals=40, sprt=test, cluster=cluster.address, store=store, name="e", jobs=3, **base)
    assert [m.to_json() for m in remote.matches] == [m.to_json() for m in local.matches]
    assert remote_sprt.deals == local_sprt.deals and remote_sprt.sprt_state == local_sprt.sprt_state
    assert [m.to_json() for m in remote_sprt.matches] == [m.to_json() for m in local_sprt.matches]
    with Store(db) as store:
        stored = store.matches(store.tournament("e").id)
    assert len(stored) == 2 * local_sprt.deals  # the batch's extra matches were not stored


@pytest.mark.parametrize("address", ["nope", "", "tcp://", "tcp://host", "host:port", "tcp://a b:1"])
def test_a_bad_scheduler_address_is_refused_before_anything_is_played(tmp_path, address):
    """One rule (spec.bad_scheduler_address) for tournaments, arenas and evaluations; the
    message names what was given, nothing is played or stored, and no coroutine of a
    half-made Dask client is left behind to be warned about."""
    from arbiter.arena.ladder import ArenaSpec
    from arbiter.batch.cluster import check_address
    from arbiter.tournament.evaluate import evaluate
    from arbiter.tournament.spec import SpecError

    for spec in (TournamentSpec(game="spades", bots=("random", "greedy"), cluster=address),
                 ArenaSpec(name="a", game="spades", house=("random", "greedy"), cluster=address)):
        with pytest.raises(SpecError, match="expected a Dask scheduler address") as exc:
            spec.validate()
        assert repr(address) in str(exc.value)
    with pytest.raises(ClusterError, match="expected a Dask scheduler address"):
        check_address(address)
    db = tmp_path / "e.sqlite"
    with Store(db) as store, pytest.raises(ClusterError):
        evaluate("spades", "random", "greedy", deals=1, cluster=address, store=store)
    with Store(db) as store:
        assert store.tournaments() == []  # refused before the evaluation was opened


def test_an_unreachable_scheduler_is_one_clear_error_and_no_warning():
    script = ("import asyncio, warnings; warnings.simplefilter('error')\n"
              "from arbiter.batch.cluster import OnCluster, ClusterError\n"
              "from arbiter.batch.engine import play_batch\n"
              "async def main():\n"
              "    async for _ in play_batch([], OnCluster('tcp://127.0.0.1:1', {}, 'k', connect_timeout=1)):\n"
              "        pass\n"
              "try:\n    asyncio.run(main())\n"
              "except ClusterError as e:\n    print(e)\n")
    run = subprocess.run([sys.executable, "-W", "error", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in run.stdout
    assert "Warning" not in run.stderr and "never awaited" not in run.stderr, run.stderr


def test_a_run_whose_scheduler_cannot_be_reached_leaves_the_store_as_it_was(tmp_path, monkeypatch):
    """It was stored as "0/N interrupted" (a resume failing alike), and with fresh the finished
    tournament of its name was deleted first: now nothing is written until the cluster answers.
    (The wait for the scheduler 2 s, not 15: nothing answers at port 1.)"""
    monkeypatch.setattr(cluster_module, "SCHEDULER_TIMEOUT", 2.0)
    db = tmp_path / "u.sqlite"
    done = TournamentSpec(game="spades", bots=("random", "greedy"), deals=1, seed=3, options={"deals": 1}, name="u")
    with Store(db) as store:
        asyncio.run(run_tournament(done, store, transport="inproc"))
        before = store.tournament("u")
    away = TournamentSpec(game="spades", bots=("random", "heuristic"), deals=1, seed=3, options={"deals": 1}, name="u",
                          cluster="tcp://127.0.0.1:1")
    with Store(db) as store, pytest.raises(ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:1"):
        asyncio.run(run_tournament(away, store, fresh=True))
    with Store(db) as store:
        assert [t.name for t in store.tournaments()] == ["u"]
        after = store.tournament("u")
        assert (after.id, after.spec, after.created, after.finished, after.done) == (
            before.id, before.spec, before.created, before.finished, 2)


def test_an_evaluation_whose_scheduler_cannot_be_reached_leaves_the_store_as_it_was(tmp_path, monkeypatch):
    """evaluate --db --cluster wrote its evaluation before the scheduler answered: an extension to
    more deals was reopened as "interrupted", and with fresh the finished one of its name was
    deleted first. Now nothing is written until the cluster answers, as a tournament's run.
    (The wait for the scheduler 2 s, not 15.)"""
    monkeypatch.setattr(cluster_module, "SCHEDULER_TIMEOUT", 2.0)
    from arbiter.tournament.evaluate import evaluate

    db = tmp_path / "u.sqlite"
    kw = dict(seed=3, options={"deals": 1})
    with Store(db) as store:
        evaluate("spades", "random", "greedy", deals=1, store=store, name="u", transport="inproc", **kw)
        before = _dump(db)
        for more in (dict(deals=2), dict(deals=1, fresh=True)):
            with pytest.raises(ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:1"):
                evaluate("spades", "random", "greedy", store=store, name="u", cluster="tcp://127.0.0.1:1", **kw, **more)
    assert _dump(db) == before


def _dump(db: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(db)) as con:
        return list(con.iterdump())


#: The zoo's bots of issue 40's held-out kinds: a rewritten result, os._exit, a
#: BaseException of its own, a CancelledError, a slow start, a deep recursion.
HELD_OUT = {"rewrite": "RewriteOutcome", "hard-exit": "HardExit", "base-exc": "RaiseBaseException",
            "cancelled": "RaiseCancelled", "slow-start": "SlowStart", "recursion": "DeepRecursion"}


@ON_THE_CLUSTER
def test_misbehaving_bots_get_one_record_hash_at_every_venue(cluster):
    """Each held-out misbehaving bot (tests/e2e/zoo.py) plays the same seeded Spot match (a seed per bot),
    one batch per venue through the one factory: in process, hosted over gRPC, hosted on
    the local channel, on the cluster, and remote (bots connected on their own). Every record has the same content hash (game,
    options, seeds, seats, actions, incidents, result) at every venue."""
    from arbiter.batch.engine import play_batch
    from arbiter.batch.plan import PlannedMatch
    from arbiter.batch.venue import GRPC, INPROC, LOCAL, open_venue, parse_where
    from arbiter.hosting.botproc import BotPool
    from arbiter.server.app import start_private_server
    from cardarena.records import Clock, FailurePolicy, MatchConfig

    zoo = Path(__file__).with_name("zoo.py")
    bots = {name: f"{zoo}:{cls}" for name, cls in HELD_OUT.items()} | {"random": "random"}
    # each bot's match on a seed of its own (the same at every venue): a batch plays no two
    # matches of one deal with one bot (random, at every table) at once, so on one seed a
    # venue played them one after another, each waiting out its own misbehaviour
    # one hand for two, not the default twelve for four: the rewrite and the recursion play
    # to the end (each reaching its bad decisions), and a match's length and its seats'
    # processes are all the rest of their cost
    plan = [PlannedMatch(k, MatchConfig(game="spot", seed=5 + k, options={"players": 2, "hands": 1}, clock=Clock(2000, 500),
                                        policy=FailurePolicy.uniform("forfeit", 3)),
                         (name, "random")) for k, name in enumerate(HELD_OUT)]

    async def play(where) -> dict:
        # hosted, the matches at once too (the cluster's venue and the remote one play many)
        extra = dict(concurrency=len(plan)) if where in (GRPC, LOCAL) else {}
        async with open_venue(where, bots, "spot", batch="held-out", **extra) as venue:
            return {p.match.seats[0]: p.record async for p in play_batch(plan, venue)}

    async def remote() -> dict:
        """Remote: bot processes that connected to a running arbiter on their own (one
        each), the venue finding each seat's among them. Forked from the bots' fork servers
        (this process's, which the hosted venues fork from too): how a process started is
        not what the venue is about, and seven fresh Pythons were about 3 CPU-s."""
        server = await start_private_server()
        pool = BotPool(server.hub, server.address, transport="grpc")  # as bots connecting on their own do
        try:
            for name, spec in bots.items():
                pool.launch(name, spec, key=f"{name}.0", fork=True)
            await pool.wait_connected(60)
            async with open_venue(parse_where("remote"), bots, "spot", hub=server.hub) as venue:
                return {p.match.seats[0]: p.record async for p in play_batch(plan, venue)}
        finally:
            await server.stop(0.2)
            await asyncio.to_thread(pool.stop)

    async def every_venue() -> dict:
        # the five venues at once: they share nothing (each its own processes or server),
        # and most of a batch is its bots' waits (a slow start, a hard exit's disconnect).
        # In process on a loop of its own, in a thread: a bot in process runs on its
        # referee's loop, and the slow start's sleep there would hold the hosted venues'
        # referees past their honest seats' clocks.
        venues = (GRPC, LOCAL, parse_where(cluster=cluster.address))
        played = await asyncio.gather(asyncio.to_thread(asyncio.run, play(INPROC)), *(play(w) for w in venues), remote())
        return dict(zip([str(INPROC), *map(str, venues), "remote"], played))

    records = asyncio.run(every_venue())
    assert all(len(r) == len(HELD_OUT) for r in records.values())
    for name in HELD_OUT:
        hashes = {w: r[name].content_hash() for w, r in records.items()}
        assert len(set(hashes.values())) == 1, (name, {w: h[:12] for w, h in hashes.items()})
    # and the misbehaviours happened, each seen for what it is (the same at every venue)
    played = records["inproc"]
    kinds = {name: [i.kind for i in played[name].incidents] for name in HELD_OUT}
    assert kinds == {"rewrite": [], "hard-exit": ["disconnect"], "base-exc": ["crash"], "cancelled": ["crash"],
                     "slow-start": ["timeout"], "recursion": []}, kinds
    assert 999.0 not in played["rewrite"].outcome.scores  # the stored result is the referee's, not the bot's


@ON_THE_CLUSTER
def test_a_worker_that_cannot_play_a_match_is_named_in_the_error(cluster, monkeypatch):
    """What a worker refuses is fixed on that machine (a bot's package it lacks, other Card
    Arena code): the driver's error names the worker, not "this worker", which on the
    driver's screen meant no machine in particular."""
    import arbiter.batch.cluster as cl
    from distributed import Client

    from arbiter.batch.engine import play_batch
    from arbiter.batch.plan import PlannedMatch
    from cardarena.records import MatchConfig

    with Client(cluster.address) as client:
        (worker,) = client.scheduler_info()["workers"]
    plan = [PlannedMatch(0, MatchConfig(game="spades", seed=1, options={"deals": 1}), ("random", "absent") * 2)]

    def play(refs) -> str:
        async def go() -> None:
            async for _ in play_batch(plan, cl.OnCluster(cluster.address, refs, "named")):
                pass

        with pytest.raises(ClusterError) as exc:
            asyncio.run(go())
        return str(exc.value)

    refs = bot_refs(("random", "no_such_module_anywhere:Bot"), ("random", "absent"), None)
    error = play(refs)
    assert "cannot import module 'no_such_module_anywhere'" in error and f"(on worker {worker})" in error, error
    monkeypatch.setattr(cl, "code_fingerprint", lambda: "0" * 64)  # the driver's code, as another version's
    error = play(refs)
    assert f"worker {worker} runs other Card Arena code than the driver" in error, error


def test_a_scheduler_stopped_mid_run_is_one_clear_error_and_the_stored_matches_resume(tmp_path):
    """The scheduler gone mid-tournament (stopped, its machine down): one error saying so and
    how to go on, not Dask's "re-run your work" under a traceback of its client's reconnection;
    the matches stored before are kept, and the run resumes from them (here in process: where it runs may change)."""
    db = tmp_path / "arena.sqlite"
    slow = Path(__file__).with_name("slowbot.py")  # a few ms a decision: the run lasts past the kill
    # 6 matches on the worker's one thread, one at a time: the kill comes with the first stored,
    # so 5 are left for the resume (12 were 11 more slowed matches for the same story)
    command = [sys.executable, "-m", "arbiter", "tournament", "run", "--game", "spades", "--bots", f"random,{slow}",
               "-o", "deals=1", "--deals", "3", "--seed", "4", "--name", "gone", "--db", str(db), "--quiet"]
    with LoopbackCluster(workers=1) as cluster:
        run = subprocess.Popen([*command, "--cluster", cluster.address], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 90
        while not _stored(db, "gone") and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        cluster.scheduler.kill()
        _, stderr = run.communicate(timeout=60)
    assert run.returncode == 2, stderr
    assert f"lost the connection to the Dask scheduler at {cluster.address}" in stderr, stderr
    assert "resumes with the same command once the scheduler is back" in stderr and "Traceback" not in stderr, stderr
    kept = _stored(db, "gone")
    assert 1 <= len(kept) < 6 and len(set(kept)) == len(kept)
    # the same command again, in this process (run_in_process: a process of its own was an
    # interpreter's start and the CLI's imports more, about 0.5 CPU-s; what the stopped run
    # printed is what the test reads from a process)
    again = run_in_process(*command[3:], "--transport", "inproc", timeout=120)
    assert again.returncode == 0, again.stderr
    assert sorted(_stored(db, "gone")) == list(range(6))


@ON_THE_CLUSTER
def test_a_worker_hosts_a_runs_bots_once_and_stops_them_when_the_run_ends(tmp_path, cluster):
    """A worker meets a round-robin's bots match by match; they join one host of the run
    (``BotHost.add``), with one set of spares per bot. A host per pairing kept a set per
    pairing, idle after it: for 4 bots 24 processes where 8 do, for 20 bots 760 on every
    worker. And the run's end stops them (``end_run``), where they idled 5 minutes: an
    arena, a run per encounter, piled them up."""
    from distributed import Client

    names = ("ra", "gr", "rb", "gb")
    spec = TournamentSpec(name="pairs", game="spades", bots=("ra=random", "gr=greedy", "rb=random", "gb=greedy"),
                          options={"deals": 1}, deals=1, seed=8, cluster=cluster.address)

    def hosts() -> list:
        from arbiter.batch import cluster as on_worker

        arena = on_worker._ARENA
        return [(sorted(h.host.sources), len(h.host.pool.procs)) for h in (arena.hosts.values() if arena else ())]

    seen: list = []
    with Client(cluster.address) as client, ThreadPoolExecutor(1) as pool:
        played = pool.submit(run, tmp_path / "arena.sqlite", spec)
        while not played.done():  # the worker's hosts of this run, looked at while it plays
            seen.append([h for hs in client.run(hosts).values() for h in hs if set(h[0]) & set(names)])
            time.sleep(0.1)
        rows, _, _ = played.result()
        deadline = time.monotonic() + 10  # the run's end, told to the worker, stops its processes
        while (left := [h for hs in client.run(hosts).values() for h in hs if set(h[0]) & set(names)]) and \
                time.monotonic() < deadline:
            time.sleep(0.1)
    assert len(rows) == 12
    assert max(map(len, seen)) == 1, [s for s in seen if len(s) > 1][:1]  # one host at any time...
    assert [h[0] for s in seen for h in s][-1] == sorted(names)  # ...which every bot joined
    assert left == []



@ON_THE_CLUSTER
def test_workers_leaving_are_said_and_a_run_left_without_any_waits_for_one_to_join(tmp_path, cluster):
    """A worker gone mid-run is said (its matches run again on the others); with none left
    the run says it waits for one, where it used to wait without a word, a hang to its
    organiser; a worker that joins then plays the rest, every match stored once. On the
    shared cluster: one worker added to its own, both killed, and the one that joins is the
    shared cluster's worker from then on (a cluster of its own was a scheduler and a worker
    more, about 1.8 CPU-s)."""
    db = tmp_path / "arena.sqlite"
    slow = Path(__file__).with_name("slowbot.py")
    # 4 matches: each worker holds one when the first is stored and both are killed, so at
    # least 3 are left for the worker that joins (8 were 4 more slowed matches for it to play)
    run = None
    cluster.add_worker()
    try:
        cluster.wait_for_workers(2)
        run = subprocess.Popen(
            [sys.executable, "-m", "arbiter", "tournament", "run", "--game", "spades", "--bots", f"random,{slow}",
             "-o", "deals=1", "--deals", "2", "--seed", "6", "--name", "left", "--db", str(db), "--quiet",
             "--cluster", cluster.address], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        said: list[str] = []
        none_left = threading.Event()

        def read() -> None:  # the driver's words as it says them
            for line in run.stderr:
                said.append(line)
                if "no workers left on the cluster" in line:
                    none_left.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        deadline = time.monotonic() + 90
        while not _stored(db, "left") and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        killed = list(cluster.workers)
        for worker in killed:
            worker.kill()
        # the driver's look at the workers (every second) finds none: then one joins (a
        # sleep of 3 s stood for that look)
        assert none_left.wait(60), "".join(said)
        cluster.add_worker(SHARED_THREADS)
        run.wait(120)
        reader.join(10)
        stderr = "".join(said)
    finally:
        if run is not None and run.poll() is None:
            run.kill()
            run.wait()
        _as_it_was(cluster)
    assert run.returncode == 0, stderr
    assert len(killed) == 2 and all(w.returncode == -signal.SIGKILL for w in killed)
    assert stderr.count("left the cluster; the matches it had not returned run again on the others") == 2, stderr
    assert f"no workers left on the cluster at {cluster.address}: the matches wait until one joins" in stderr, stderr
    assert sorted(_stored(db, "left")) == list(range(4))


def test_a_worker_without_card_arena_is_named_before_anything_is_played(tmp_path):
    """A worker whose Python lacks Card Arena died unpickling its first match, and the
    driver, knowing nothing of why, waited for another: the run now asks every worker for
    its code first and refuses, naming the worker and what to install."""
    from arbiter.batch.engine import play_batch
    from arbiter.batch.plan import PlannedMatch
    from cardarena.records import MatchConfig
    from arbiter.batch.cluster import OnCluster

    with LoopbackCluster(workers=0) as cluster:
        bare = subprocess.Popen([sys.executable, str(Path(__file__).with_name("bare_worker.py")), str(cluster.scheduler_file)],
                                cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cluster.workers.append(bare)  # stopped with the cluster
        cluster.wait_for_workers(1)
        plan = [PlannedMatch(0, MatchConfig(game="spades", seed=1, options={"deals": 1}), ("random",) * 4)]

        async def go() -> None:
            async def play() -> None:
                async for _ in play_batch(plan, OnCluster(cluster.address, bot_refs(("random",), ("random",), None), "bare")):
                    pass

            await asyncio.wait_for(play(), 30)  # (it waited for ever, its worker dead)

        with pytest.raises(ClusterError) as exc:
            asyncio.run(go())
        assert bare.poll() is None  # asked, not killed
    # the cluster's close ended its worker and scheduler: neither waited out its 10 s and was killed
    assert [p.returncode for p in (bare, cluster.scheduler)] == [0, 0]
    error = str(exc.value)
    assert "worker bare (tcp://127.0.0.1:" in error and "cannot run Card Arena's tasks" in error, error
    assert "No module named 'arbiter'" in error and "install the same Card Arena version" in error, error


@ON_THE_CLUSTER
def test_shared_processes_on_a_worker_are_a_seat_slot_per_match_it_plays_at_once(tmp_path, cluster):
    """``shared`` isolation (no duplicate deals): a bot's long-lived processes on a worker
    are its seat slots (two for Spades partners) for each match the worker plays at once
    (``--nthreads``, here 2), so its matches at once do not queue their turns in one process."""
    from distributed import Client

    names = ("sa", "sb")
    spec = TournamentSpec(name="slots", game="spades", bots=("sa=random", "sb=greedy"), options={"deals": 1}, deals=4,
                          seed=2, duplicate=False, cluster=cluster.address)

    def slots() -> list:
        from arbiter.batch import cluster as on_worker

        arena = on_worker._ARENA
        return [sorted(h.host.pool.procs) for h in (arena.hosts.values() if arena else ()) if "sa" in h.host.sources]

    seen: list = []
    with Client(cluster.address) as client, ThreadPoolExecutor(1) as pool:
        played = pool.submit(run, tmp_path / "arena.sqlite", spec)
        while not played.done():
            seen += [s for ss in client.run(slots).values() for s in ss]
            time.sleep(0.1)
        rows, _, _ = played.result()
    assert rows and seen
    assert max(seen, key=len) == ["sa#0", "sa#1", "sa#2", "sa#3", "sb#0", "sb#1", "sb#2", "sb#3"]
