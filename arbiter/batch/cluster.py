"""The batch engine's Dask venue: each match is one task of a Dask distributed cluster.

``arbiter tournament run SPEC --cluster tcp://HOST:8786`` (and ``arbiter evaluate
--cluster``, an arena with ``cluster``) hands the matches still to play to a Dask
scheduler instead of the local arbiter: ``play_batch(plan, OnCluster(...))``. Dask (``distributed``) is a maintained
engine that already does what a home-made one would have to: queue tasks, balance them
over workers, notice a worker that dies and run its unfinished tasks again elsewhere.

The worker side (``run_match_task``, run by a Dask worker):
* A ``MatchJob`` is picklable and self-contained: the match config (game, options, seed,
  clocks, failure policy), the bot name per seat, and a ``BotRef`` per distinct bot: a
  bundled name or ``module:Class`` (importable on the worker), or the bot's files with
  their sha256 content hash (the registry's hash for ``name@version``; shipped in the
  task, or read from a path every worker mounts, ``ship=False``).
* Every worker process keeps one private arbiter (a gRPC server on a free loopback port
  and a Unix socket, in a background event loop) and starts each bot it is asked for as
  a sandboxed subprocess (``arbiter.hosting.botproc``), from a copy it has verified by hash. The
  processes serve many matches, as in a local run, and are stopped when idle.
* The task returns the match record as JSON (and the versions the bots reported).

The driver side (``OnCluster``, a venue of ``arbiter.batch.engine.play_batch``): a task per
match, as many in flight as the engine's concurrency (by default 4 per worker thread, at
least 64); the engine saves each record as it arrives, exactly once per key (a task that
ran twice because its worker died after finishing has one future, so one record).

Workers and driver must run the same Card Arena code: each job carries a fingerprint of
the platform's source (``code_fingerprint``) and a worker with other code refuses it,
so the same schedule and seeds give the same results on the cluster as locally.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import hashlib
import logging
import os
import secrets
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from cardarena.games import ConfigError
from cardarena.records import MatchConfig, MatchRecord
from arbiter.batch.plan import PlannedMatch
from arbiter.batch.settings import bad_scheduler_address
from arbiter.store.registry import (ENTRY, RegistryError, Submission, collect, is_registered_ref, lookup, materialize,
                                    read_stored, validate)
from arbiter.hosting import sandbox as sb
from arbiter.hosting.botproc import DEFAULT_TRANSPORT, BotHost, BotStartError
from arbiter.hosting.stop import stop_processes
from arbiter.server.app import start_private_server
from arbiter.match import run_match
from arbiter.server.botstream import RemoteSeat

log = logging.getLogger(__name__)

#: Seconds a worker waits for a bot process to connect to its arbiter.
CONNECT_TIMEOUT = 60.0
#: Seconds a run waits for its Dask scheduler to answer before it gives up (``ClusterError``:
#: "cannot reach the Dask scheduler"), unless the venue is given another.
SCHEDULER_TIMEOUT = 15.0
#: Seconds between the driver's looks at the scheduler's workers (``OnCluster._watch_workers``).
WATCH_SECONDS = 1.0
#: A bot process unused this long on a worker is stopped (``ARENA_CLUSTER_BOT_IDLE``).
BOT_IDLE_SECONDS = float(os.environ.get("ARENA_CLUSTER_BOT_IDLE", "300"))


class ClusterError(ConfigError):
    """The cluster cannot run the batch (unreachable scheduler, a bot whose files do
    not match their hash, a worker with other code, a match that kept killing workers)."""


# --------------------------------------------------------------------------------------
# What a task carries.


@dataclass(frozen=True)
class BotRef:
    """How a worker finds one bot.

    ``kind`` is ``"named"`` (``source`` is a bundled name or ``module:Class``, run as is),
    ``"files"`` (``files`` hold the code, shipped in the task) or ``"shared"`` (the code is
    the folder ``path`` on a file system every worker mounts at the same place). For the
    last two ``content_hash`` is the sha256 the files must hash to (``registry.Submission``)
    and ``entry`` the entry file; ``cls`` is an optional ``Class`` for ``FILE.py:Class``.
    """

    name: str
    source: str
    kind: str = "named"
    content_hash: str = ""
    entry: str = ""
    files: tuple[tuple[str, bytes], ...] = field(default=(), repr=False)
    path: str = ""
    cls: str = ""

    @property
    def key(self) -> str:
        """The arbiter's name for this bot's process on a worker (unique per content)."""
        text = "\0".join((self.name, self.kind, self.source, self.content_hash, self.entry, self.cls))
        return "c-" + hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class MatchJob:
    """One match of a tournament, as a task for a worker (picklable, self-contained)."""

    tournament: str  # a key for restart counting: tournament id + run token
    idx: int  # schedule index
    config: MatchConfig
    seats: tuple[str, ...]  # bot name per seat
    bots: tuple[BotRef, ...]  # the distinct bots seated
    fingerprint: str  # code_fingerprint() of the driver
    max_restarts: int = 3
    isolation: str = "match"  # botproc.BotHost's policies; "deal" is played as "match" here
    transport: str = DEFAULT_TRANSPORT  # how the worker's bot processes reach its arbiter (BotHost's)


#: The code that decides what happens in a match: the engines, the match runner, the
#: wire between arbiter and bots, the SDK, the bundled bots, this task protocol.
FINGERPRINTED = ("cardarena", "arbiter/match", "arbiter/server", "arbiter/hosting", "arbiter/batch/cluster.py",
                 "sdk", "bots")


def code_fingerprint(root: Path | None = None) -> str:
    """sha256 over the Python source that decides a match (``FINGERPRINTED``), by relative
    path: equal on two machines when that code is equal."""
    root = root or Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for part in FINGERPRINTED:
        base = root / part
        for p in sorted(base.rglob("*.py")) if base.is_dir() else [base]:
            if "__pycache__" in p.parts or not p.is_file():
                continue
            rel = p.relative_to(root).as_posix()
            data = p.read_bytes()
            h.update(rel.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


@functools.cache
def _own_fingerprint() -> str:
    """This process's code fingerprint (its files do not change while it runs)."""
    return code_fingerprint()


def bot_refs(sources: Sequence[str], names: Sequence[str], db_path: str | os.PathLike | None, ship: bool = True) -> dict[str, BotRef]:
    """A BotRef per bot name, read on the driver.

    ``name@version`` is read from the registry of the store at ``db_path`` and checked
    against its recorded hash; a ``.py`` file or a folder is read and hashed; a bundled
    name or ``module:Class`` is passed by name. ``ship=False`` sends registered bots by
    the path of their stored copy (a shared file system) instead of their files.
    """

    refs: dict[str, BotRef] = {}
    for name, source in zip(names, sources):
        if is_registered_ref(source):
            if db_path is None:
                raise ClusterError(f"bots: {source!r} names a registered bot, but there is no store to look it up in")
            try:
                v, files = lookup(db_path, source)
            except RegistryError as exc:
                raise ClusterError(f"bots: {source!r}: {exc}") from None
            if ship:
                refs[name] = BotRef(name, source, "files", v.content_hash, v.entry, tuple(sorted(files.items())))
            else:
                refs[name] = BotRef(name, source, "shared", v.content_hash, v.entry, path=str(v.path))
            continue
        path_part, sep, cls = source.partition(":")
        target = Path(source) if Path(source).exists() else Path(path_part)
        if target.exists() and (target.suffix == ".py" or target.is_dir()):
            try:
                sub = collect(target)
            except RegistryError as exc:
                raise ClusterError(f"bots: {source!r}: {exc}") from None
            cls = cls if sep and not Path(source).exists() else ""
            refs[name] = BotRef(name, source, "files", sub.content_hash, sub.entry, tuple(sorted(sub.files.items())), cls=cls)
            continue
        refs[name] = BotRef(name, source)  # bundled, or module:Class importable on the worker
    return refs


def _read_dir(path: Path) -> dict[str, bytes]:
    if not path.is_dir():
        raise OSError(f"{path}: no stored copy (removed?)")
    return read_stored(path)


# --------------------------------------------------------------------------------------
# The worker side.


def cache_dir() -> Path:
    """Where a worker keeps verified copies of shipped bots (``ARENA_CLUSTER_CACHE``)."""
    return Path(os.environ.get("ARENA_CLUSTER_CACHE") or Path(tempfile.gettempdir()) / "arena-cluster-bots")


def local_spec(ref: BotRef) -> str:
    """What ``BotPool.launch`` takes to run ``ref`` on this machine, after checking that its
    code hashes to ``ref.content_hash``; ClusterError naming the bot otherwise."""

    if ref.kind == "named":
        return ref.source
    suffix = f":{ref.cls}" if ref.cls else ""
    if ref.kind == "shared":
        folder = Path(ref.path)
        try:
            files = _read_dir(folder)
        except OSError as exc:
            raise ClusterError(f"bot {ref.name} ({ref.source}): {exc} (is the registry on a shared path?)") from None
        got = Submission(files, ref.entry).content_hash
        if got != ref.content_hash:
            raise ClusterError(f"bot {ref.name} ({ref.source}): the copy at {folder} hashes to {got[:12]}, "
                               f"not {ref.content_hash[:12]}; refusing to run it")
        return str(folder if ref.entry == ENTRY else folder / ref.entry) + suffix
    if ref.kind != "files":
        raise ClusterError(f"bot {ref.name}: unknown kind {ref.kind!r}")
    try:
        sub = validate(Submission(dict(ref.files), ref.entry))
    except RegistryError as exc:
        raise ClusterError(f"bot {ref.name} ({ref.source}): {exc}") from None
    got = sub.content_hash
    if got != ref.content_hash:
        raise ClusterError(f"bot {ref.name} ({ref.source}): the shipped files hash to {got[:12]}, "
                           f"not {ref.content_hash[:12]}; refusing to run them")
    root = cache_dir()
    dest = root / got
    if dest.exists() and Submission(_read_dir(dest), ref.entry).content_hash != got:
        raise ClusterError(f"bot {ref.name} ({ref.source}): the cached copy {dest} does not match its hash "
                           "(changed on disk?); remove it by hand")
    if not dest.exists():
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".incoming-", dir=root))
        materialize(sub, tmp)
        for p in sorted(tmp.rglob("*"), reverse=True):
            p.chmod(0o555 if p.is_dir() else 0o444)  # read-only; readable by a sandbox uid
        tmp.chmod(0o555)
        try:
            tmp.rename(dest)  # atomic: another worker of this machine may have won the race
        except OSError:
            _remove(tmp)
    return str(dest if ref.entry == ENTRY else dest / ref.entry) + suffix


def _remove(path: Path) -> None:
    import shutil

    for p in [path, *(q for q in path.rglob("*") if q.is_dir())]:
        p.chmod(0o755)
    shutil.rmtree(path, ignore_errors=True)


@dataclass(eq=False)
class _Hosted:
    """The bot processes of one tournament's bots on this worker, and when they were last used;
    ``refs``: the ``BotRef.key`` of each bot it hosts, by name."""

    host: BotHost
    refs: dict[str, str] = field(default_factory=dict)
    in_use: int = 0
    last_used: float = field(default_factory=time.monotonic)


class _WorkerArbiter:
    """This worker process's private arbiter, and a ``hosting.botproc.BotHost`` for the
    bots of each tournament it plays matches of (the same host the local runs use), on a
    background loop. A host nobody has used for BOT_IDLE_SECONDS is stopped."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="arena-cluster-loop", daemon=True)
        self.thread.start()
        self.server: Any = None
        self.hosts: dict[tuple, _Hosted] = {}
        self._creating = asyncio.Lock()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(60)

    async def _start(self) -> None:
        # The bots reach this arbiter and nobody else needs it: Spectate and Matches locked.
        self.server = await start_private_server()
        self.loop.create_task(self._reap())
        box = sb.Sandbox()
        if not box.blocks_network:
            log.warning("this worker's sandbox (%s) does not cut the network: bots could reach the Dask scheduler "
                        "and workers; install bubblewrap (docs/cluster.md)", box.mode)
        log.info("cluster worker arena: arbiter on %s, sandbox %s", self.server.address, box.mode)

    def play(self, job: MatchJob, threads: int = 1) -> tuple[str, dict[str, str]]:
        """``job`` played here; ``threads``: the matches this worker plays at once (its ``--nthreads``)."""
        return asyncio.run_coroutine_threadsafe(self._play(job, threads), self.loop).result()

    async def _host(self, job: MatchJob, threads: int = 1) -> _Hosted:
        """The host of ``job``'s bots: one per run of a batch, seat shape, isolation and
        transport (the batch's: ``--transport grpc`` or the local channel, the default),
        which the bots of each match join as they first come to this worker
        (``BotHost.add``): one set of spares per bot, not one per pairing. A worker plays
        "deal" as "match" (the safe side): its processes may serve several tournaments'
        deals, which it cannot tell apart. With ``shared`` each bot has a seat slot's
        processes per match the worker plays at once (``threads``): its matches at once do
        not queue their turns behind one another in one process."""
        isolation = "shared" if job.isolation == "shared" else "match"
        copies = max(job.seats.count(n) for n in set(job.seats))
        key = (job.tournament, isolation, copies, job.transport)
        async with self._creating:
            hosted = self.hosts.get(key)
            known = hosted.refs if hosted is not None else {}
            clash = [r.name for r in job.bots if known.get(r.name, r.key) != r.key]
            if clash:  # one run names each bot once; another run has a token of its own
                raise ClusterError(f"match {job.idx}: bots {clash} differ from those of the same name in this batch's "
                                   "earlier matches")
            joining = [r for r in job.bots if r.name not in known]
            sources = {r.name: await asyncio.to_thread(local_spec, r) for r in joining}
            if hosted is None:
                host = BotHost(self.server.hub, self.server.address, sources, isolation=isolation, copies=copies,
                               processes=copies * max(1, threads), warm=1, max_restarts=job.max_restarts,
                               connect_timeout=CONNECT_TIMEOUT,
                               transport=job.transport)
                try:
                    await host.start()
                except BotStartError:
                    await host.stop()
                    raise
                hosted = self.hosts[key] = _Hosted(host)
            elif sources:
                await hosted.host.add(sources)
            hosted.refs.update((r.name, r.key) for r in joining)
        return hosted

    async def _play(self, job: MatchJob, threads: int = 1) -> tuple[str, dict[str, str]]:
        refs = {r.name: r for r in job.bots}
        missing = [n for n in job.seats if n not in refs]
        if missing:
            raise ClusterError(f"match {job.idx}: no bot reference for seats {missing}")
        hosted = await self._host(job, threads)
        hosted.in_use += 1
        lease_id, sessions = await hosted.host.lease(job.seats)
        try:
            seats = [RemoteSeat(session, job.config.game) for session in sessions]
            for seat, n in zip(seats, job.seats):
                seat.name = n  # records name the tournament's bot, not the worker's process
            record = await run_match(job.config, seats)
            versions = {n: s.bot_version for n, s in zip(job.seats, sessions) if s.bot_version}
            return record.to_json(), versions
        finally:
            hosted.host.release(lease_id)
            hosted.in_use -= 1
            hosted.last_used = time.monotonic()

    async def end(self, run: str) -> None:
        """Stop the hosts of the run ``run`` that no match uses (``end_run``)."""
        async with self._creating:
            for key in [k for k, h in self.hosts.items() if k[0] == run and not h.in_use]:
                await self.hosts.pop(key).host.stop()
                log.info("stopped the bot processes of the finished run %s", run)

    async def _reap(self) -> None:
        """Stop the hosts no match has used for BOT_IDLE_SECONDS."""
        while True:
            await asyncio.sleep(min(30.0, max(1.0, BOT_IDLE_SECONDS / 4)))
            now = time.monotonic()
            async with self._creating:
                idle = [k for k, h in self.hosts.items() if not h.in_use and now - h.last_used > BOT_IDLE_SECONDS]
                for key in idle:
                    await self.hosts.pop(key).host.stop()
                    log.info("stopped the idle bot processes of %s", key[0])

    def close(self) -> None:
        async def stop() -> None:
            for hosted in list(self.hosts.values()):
                await hosted.host.stop()
            self.hosts.clear()
            if self.server is not None:
                await self.server.stop(0.2)

        try:
            asyncio.run_coroutine_threadsafe(stop(), self.loop).result(15)
        except Exception:  # noqa: BLE001 - closing at exit: best effort
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)


_ARENA: _WorkerArbiter | None = None
_ARENA_LOCK = threading.Lock()


def _arena() -> _WorkerArbiter:
    global _ARENA
    with _ARENA_LOCK:
        if _ARENA is None:
            _ARENA = _WorkerArbiter()
            atexit.register(_ARENA.close)
        return _ARENA


def run_match_task(job: MatchJob) -> tuple[str, dict[str, str]]:
    """Run one match on this (worker) machine; (MatchRecord JSON, {bot name: version}).

    ClusterError if this worker runs other code than the driver or a bot's code does not
    match its hash; BotStartError if a bot cannot start here.
    """
    mine = _own_fingerprint()
    if job.fingerprint != mine:
        raise ClusterError(f"{_this_worker()} runs other Card Arena code than the driver (code fingerprint {mine[:12]}, "
                           f"driver {job.fingerprint[:12]}); install the same version on every worker and restart it")
    try:
        return _arena().play(job, _worker_threads())
    except BotStartError as exc:
        # The driver sees the error, not where it happened: a bot whose package one machine
        # lacks, or a registry not mounted there, is fixed on that machine, so name it.
        raise BotStartError(f"{exc} (on {_this_worker()})", exc.stderr) from None
    except ClusterError as exc:
        raise ClusterError(f"{exc} (on {_this_worker()})") from None


def end_run(run: str) -> None:
    """The driver's run ``run`` (``MatchJob.tournament``) is over: stop its bot processes on
    this worker now, not ``BOT_IDLE_SECONDS`` later. Why: an arena plays a run per
    encounter, and each run's spares idle for minutes piled up on every worker. Run by
    ``OnCluster.close`` on every worker (``Client.run``); returns at once."""
    if _ARENA is not None:
        asyncio.run_coroutine_threadsafe(_ARENA.end(run), _ARENA.loop)


def _worker_threads() -> int:
    """How many matches this Dask worker plays at once (its ``--nthreads``; 1 outside one)."""
    try:
        from distributed import get_worker

        return max(1, int(get_worker().state.nthreads))
    except (ImportError, ValueError, AttributeError):
        return 1


def _this_worker() -> str:
    """This Dask worker as its organiser knows it: its ``--name`` and address ("this worker"
    when not run by one: a test calling the task directly)."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return "this worker"
    name, address = str(worker.name), str(worker.address)
    return f"worker {address}" if name in ("", "None", address) else f"worker {name} ({address})"


# --------------------------------------------------------------------------------------
# The driver side.


def check_address(address: str) -> None:
    """ClusterError unless ``address`` reads as a Dask scheduler's (``settings.bad_scheduler_address``)."""
    why = bad_scheduler_address(address)
    if why:
        raise ClusterError(f"cluster: {why}")


class OnCluster:
    """The Dask scheduler at ``address`` as a venue of ``arbiter.batch.engine.play_batch``:
    each match a task (``MatchJob``) carrying ``refs[name]`` for each distinct bot seated.

    ``key`` names the batch on the workers (restart counting, one host per batch), with a
    fresh token per run: a scheduler that still remembers an earlier run's task must not
    hand back its result for this one. ``on_versions(versions)`` is called when the bots
    report versions not seen before. A worker lost mid-match costs only its unfinished
    tasks: the scheduler runs them again on another worker. A task that fails (a bot that
    cannot start, code that does not match) stops the batch with ClusterError; records
    already saved stay.
    """

    def __init__(self, address: str, refs: Mapping[str, BotRef], key: str, *, max_restarts: int = 3,
                 isolation: str = "match", on_versions: Callable[[dict[str, str]], None] | None = None,
                 connect_timeout: float | None = None, transport: str = DEFAULT_TRANSPORT):
        check_address(address)
        self.transport = transport
        self.address = address
        self.refs = dict(refs)
        self.key = key
        self.max_restarts = max_restarts
        self.isolation = isolation
        self.on_versions = on_versions
        self.connect_timeout = SCHEDULER_TIMEOUT if connect_timeout is None else connect_timeout
        self.concurrency = 64
        self.versions: dict[str, str] = {}
        self._client: Any = None
        self._watch: asyncio.Task | None = None
        self._run = secrets.token_hex(4)
        #: this run of the batch on the workers (``MatchJob.tournament``: its bot processes)
        self.run_key = f"{key}-{self._run}"
        self._fingerprint = ""

    async def open(self) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ClusterError("--cluster needs Dask distributed: pip install 'card-arena[cluster]'") from None
        client = Client(self.address, asynchronous=True, timeout=self.connect_timeout, set_as_default=False)
        try:
            await client
        except (OSError, TimeoutError, ValueError) as exc:
            await client.close()  # else its coroutines are left unawaited, and Python says so at exit
            raise ClusterError(f"cluster: cannot reach the Dask scheduler at {self.address}: {exc}") from None
        self._client = client
        self._fingerprint = await asyncio.to_thread(code_fingerprint)
        workers = await client.nthreads()
        problems = await self._check_workers(set(workers))
        if problems:  # refused before anything is played: a match on one of them would fail, or kill it
            self._client = None
            await client.close()
            raise ClusterError("cluster: " + "; ".join(problems))
        threads = sum(workers.values())
        if threads == 0:
            log.warning("the scheduler at %s has no workers yet; matches wait until one joins", self.address)
        log.info("cluster %s: %d worker threads", self.address, threads)
        # Tasks in flight: each carries its bots' files, so a long batch is not all held
        # by the scheduler at once.
        self.concurrency = max(64, 4 * threads)
        self._watch = asyncio.create_task(self._watch_workers(set(workers)))

    async def _check_workers(self, addresses: set[str]) -> list[str]:
        """Why each of these workers cannot play this batch's matches, a sentence each (none
        if all can): other Card Arena code than the driver's, or none at all. A worker
        without it died on its first task, unpickling it, with nothing said on the driver
        but its leaving. Asked of the workers themselves (``Client.run``), which answer at
        once; a check that does not answer in time is skipped (the tasks check again)."""
        if not addresses:
            return []
        try:
            async with asyncio.timeout(2 * self.connect_timeout):  # (not wait_for: tests/test_no_wait_for.py)
                got = await self._client.run(_own_fingerprint, workers=sorted(addresses), on_error="return")
        except Exception:  # noqa: BLE001 - a check only: each task still checks its worker
            log.info("could not ask the workers at %s for their code", self.address, exc_info=True)
            return []
        names = await self._worker_names()
        problems = []
        for address, value in sorted(got.items()):
            who = f"worker {names.get(address, address)}"
            if isinstance(value, BaseException):
                problems.append(f"{who} cannot run Card Arena's tasks ({value}): install the same Card Arena version, "
                                "with its cluster extra, in the Python its dask worker runs in (docs/cluster.md)")
            elif value != self._fingerprint:
                problems.append(f"{who} runs other Card Arena code than the driver (code fingerprint {str(value)[:12]}, "
                                f"driver {self._fingerprint[:12]}); install the same version on every worker and restart it")
        return problems

    async def _watch_workers(self, known: set[str]) -> None:
        """Say when workers leave (``WATCH_SECONDS`` apart): their unreturned matches run
        again on the others, and with none left the run waits for one to join, which
        without a word looked like a hang."""
        names = await self._worker_names()
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            try:
                now = set(await self._client.nthreads())
            except Exception:  # noqa: BLE001 - the scheduler lost: the matches under way say so
                return
            for address in sorted(known - now):
                log.warning("worker %s left the cluster; the matches it had not returned run again on the others",
                            names.get(address, address))
            if known and not now:
                log.warning("no workers left on the cluster at %s: the matches wait until one joins "
                            "(dask worker %s)", self.address, self.address)
            names.update(await self._worker_names())
            for address in sorted(now - known):
                log.info("worker %s joined the cluster", address)
            for problem in await self._check_workers(now - known):
                log.warning("%s", problem)
            known = now

    async def _worker_names(self) -> dict[str, str]:
        """Each worker's address -> how to name it (``--name`` and address), asked of the
        scheduler (an asynchronous client's cached view holds no workers)."""
        try:
            workers = (await self._client.scheduler.identity(n_workers=-1)).get("workers", {})
        except Exception:  # noqa: BLE001 - a name is a nicety
            return {}
        return {a: (f"{w['name']} ({a})" if str(w.get("name", a)) not in ("", a) else a) for a, w in workers.items()}

    def job(self, match: PlannedMatch) -> MatchJob:
        """The task of one match."""
        missing = [n for n in dict.fromkeys(match.seats) if n not in self.refs]
        if missing:
            raise ClusterError(f"match {match.key}: no bot reference for seats {missing}")
        return MatchJob(self.run_key, match.key, match.config, match.seats, tuple(self.refs[n] for n in dict.fromkeys(match.seats)),
                        self._fingerprint, self.max_restarts, self.isolation, self.transport)

    async def play(self, match: PlannedMatch) -> MatchRecord:
        job = self.job(match)
        future = self._client.submit(run_match_task, job, key=f"arena-match-{self.key}-{job.idx}-{self._run}",
                                     pure=False)
        try:
            record_json, reported = await future
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - name the match and the cause
            if getattr(exc, "reason", "") == "scheduler-connection-lost" or self._client.status not in ("running", "newly-created"):
                # Dask's own words ("re-run your work") say neither what was lost nor that
                # nothing finished is: every record that arrived is already saved
                raise ClusterError(f"cluster: lost the connection to the Dask scheduler at {self.address} (stopped, or "
                                   f"unreachable) while match {match.key} was playing; a run that stores its matches (a "
                                   "tournament, evaluate --db) keeps those finished and resumes with the same command "
                                   "once the scheduler is back") from None
            hint = ""
            if type(exc).__name__ == "KilledWorker":
                hint = " (every worker that ran it died: a bot exhausting the machine's memory?)"
            raise ClusterError(f"cluster: match {match.key} failed{hint}: {type(exc).__name__}: {exc}") from None
        finally:
            future.release()
        if self.on_versions is not None and not reported.items() <= self.versions.items():
            self.versions.update(reported)
            self.on_versions(dict(self.versions))
        return MatchRecord.from_json(record_json)

    async def close(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            await asyncio.gather(self._watch, return_exceptions=True)
            self._watch = None
        if self._client is not None:
            client, self._client = self._client, None
            if client.status == "running":
                try:  # the workers stop this run's bot processes (a worker gone, or slow: its idle reaper does)
                    async with asyncio.timeout(10):
                        await client.run(end_run, self.run_key, on_error="ignore")
                except Exception:  # noqa: BLE001 - a courtesy to the workers, never the batch's error
                    log.info("could not ask the workers to stop the bot processes of %s", self.run_key, exc_info=True)
                await client.close()
                return
            # A client that lost its scheduler is still trying to reconnect; closing it
            # cancels that, which Dask logs as an ERROR with a traceback of its own, after
            # the one clear error this batch already raises
            quiet = _Silence()
            logging.getLogger("distributed.client").addFilter(quiet)
            try:
                await client.close()
            finally:
                logging.getLogger("distributed.client").removeFilter(quiet)


class _Silence(logging.Filter):
    """Drops every record: Dask's client logging its own closing (``OnCluster.close``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return False


# --------------------------------------------------------------------------------------
# A loopback cluster of real processes (tests, the benchmark, trying it out).


class LoopbackCluster:
    """A ``dask scheduler`` and ``workers`` ``dask worker`` processes on 127.0.0.1.

    The same commands docs/cluster.md gives for several machines, here on one, each a
    separate process (no nanny: a worker killed is gone, as a machine that dies would be).
    Use as a context manager; ``address`` is the scheduler's, ``workers`` the Popen of
    each worker. Workers run this Python, so they import this very project.
    """

    def __init__(self, workers: int = 2, nthreads: int = 1, timeout: float = 60.0, env: dict[str, str] | None = None):
        import subprocess
        import sys

        self.dir = Path(tempfile.mkdtemp(prefix="arena-dask-"))
        self.scheduler_file = self.dir / "scheduler.json"
        self.env = {**os.environ, **(env or {})}
        self.root = Path(__file__).resolve().parent.parent
        self._logs: list[Any] = []
        self.workers: list[subprocess.Popen] = []
        self.scheduler = self._start([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", "0",
                                      "--no-dashboard", "--scheduler-file", str(self.scheduler_file)], "scheduler")
        try:
            deadline = time.monotonic() + timeout
            while not self.scheduler_file.exists() or not self.scheduler_file.read_text().strip():
                if self.scheduler.poll() is not None or time.monotonic() > deadline:
                    raise ClusterError(f"the dask scheduler did not start:\n{self.log('scheduler')}")
                time.sleep(0.05)
            import json

            self.address = json.loads(self.scheduler_file.read_text())["address"]
            for _ in range(workers):
                self.add_worker(nthreads)
            if workers:  # none: the caller starts its own (Dask takes no wait for 0)
                self.wait_for_workers(workers, deadline - time.monotonic())
        except BaseException:
            self.close()
            raise

    def _start(self, argv: list[str], name: str) -> Any:
        import subprocess

        log_file = open(self.dir / f"{name}.log", "wb")
        self._logs.append(log_file)
        return subprocess.Popen(argv, cwd=self.root, env=self.env, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file)

    def add_worker(self, nthreads: int = 1) -> Any:
        """Start one more worker process; its Popen."""
        import sys

        proc = self._start([sys.executable, "-m", "dask", "worker", "--scheduler-file", str(self.scheduler_file),
                            "--nthreads", str(nthreads), "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"],
                           f"worker{len(self.workers)}")
        self.workers.append(proc)
        return proc

    def wait_for_workers(self, n: int, timeout: float = 60.0) -> None:
        from distributed import Client

        with Client(self.address, timeout=max(timeout, 1)) as client:
            try:
                client.wait_for_workers(n, timeout=max(timeout, 1))
            except TimeoutError:
                raise ClusterError(f"{n} dask workers did not join in time:\n{self.log('worker0')}") from None

    def log(self, name: str) -> str:
        try:
            return (self.dir / f"{name}.log").read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def close(self) -> None:
        import shutil

        # The workers first, then the scheduler: a worker told to stop while its scheduler
        # closes too often lost the race in Dask's own close (its connection broken, its
        # executor's shutdown cancelled) and held on until this wait's 10 s ran out and it
        # was killed, 10 s of every loopback cluster's end about half the time
        stop_processes(self.workers, 10)  # 10 s for them all, as they stop together (not 10 s each)
        stop_processes(self.scheduler, 10)
        for f in self._logs:
            f.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> "LoopbackCluster":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
