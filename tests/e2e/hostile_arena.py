"""A real arbiter with a real store, hosting a hostile bot next to an honest match.

``run_hostile(spec)`` starts the arbiter's gRPC server (TCP loopback and its Unix socket),
opens a SQLite store, and launches, each as its own sandboxed process through
``BotPool``: the hostile bot, a random bot that shares its table, and two honest bots
that play a separate match at the same time. Both matches run concurrently; their
records go to the store. Then a third match on the same server proves it still serves,
the store is checked (integrity, every record present and replaying), and the honest
match is compared with the same match played in-process: the hostile bot must not have
changed a single action of it.

``HonestTable`` (``run_hostile(..., table=...)``): the server and the two honest bots made
once for a module's tests, not once a test (each test then starts its hostile bot and the
random bot of its table, fresh as before).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arbiter.hosting.botproc import BotPool
from cardarena.games import EndReason
from cardarena.records import Clock, FailurePolicy, MatchConfig, MatchRecord
from arbiter.hosting.inprocess import InProcessSeat
from cardarena.replay import verify_record
from arbiter.match import run_match
from arbiter.hosting.sandbox import Limits, Sandbox, _package_dirs
from arbiter.server.botstream import RemoteSeat
from arbiter.server.app import start_server
from arbiter.spectating.hub import SpectatorHub
from arbiter.store.db import Store
from tests.campaigns import procs

HOSTILE = Path(__file__).resolve().parent / "hostile"
OPTIONS = {"deals": "1"}


@dataclass
class Result:
    hostile: MatchRecord  # the match the hostile bot played (seats 0 and 2)
    honest: MatchRecord  # the concurrent match of honest bots
    after: MatchRecord  # a match on the same server after both
    stderr: str  # everything the hostile bot wrote to stderr
    reports: list[dict[str, Any]]  # the JSON lines "HOSTILE {...}" the bot printed
    proc_returncode: int | None  # the hostile process's exit status when the matches ended
    sandbox: Sandbox
    store_path: Path
    extra: dict[str, Any] = field(default_factory=dict)

    def report(self, kind: str) -> dict[str, Any]:
        found = [r for r in self.reports if r.get("kind") == kind]
        assert found, f"the hostile bot reported no {kind!r}; its stderr:\n{self.stderr[-3000:]}"
        return found[-1]

    def incidents(self, kind: str | None = None) -> list:
        return [i for i in self.hostile.incidents if kind is None or i.kind == kind]


def hostile_folder(tmp: Path, name: str, params: dict[str, Any]) -> Path:
    """A folder bot: the hostile file as bot.py plus params.json (the sandbox shows the bot
    nothing else, so this is how a test tells it where its targets are)."""
    folder = tmp / name.removesuffix(".py")
    folder.mkdir()
    shutil.copy(HOSTILE / name, folder / "bot.py")
    (folder / "params.json").write_text(json.dumps(params))
    for p in (tmp, folder, folder / "bot.py", folder / "params.json"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return folder


def _parse_reports(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.startswith("HOSTILE "):
            try:
                out.append(json.loads(line[len("HOSTILE "):]))
            except ValueError:
                pass
    return out


class HonestTable:
    """A running arbiter (``start_server``, as ``run_hostile`` starts one) and the two honest
    bots of its honest matches, for a module's tests to share: starting the server and two
    fresh sandboxed bot processes was most of a protocol test's CPU, and what each test looks
    at is its own hostile bot, which still starts fresh in its own pool (with the random bot
    of its table). The server then also serves every test after an attack, not just the
    match after it. Its loop runs in a thread of its own; ``close()`` stops it all."""

    def __init__(self, transport: str = "grpc", admin_token: str = "admin-secret") -> None:
        self.transport = transport
        self.admin_token = admin_token
        self.tmp = Path(tempfile.mkdtemp(prefix="hostile-table-"))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="hostile-table", daemon=True)
        self.thread.start()
        self.server: Any = None
        self.pool: BotPool | None = None
        try:
            self.call(self._start(), 90)
        except BaseException:
            self.close()
            raise

    def call(self, coro: Any, timeout: float | None = None) -> Any:
        """Run ``coro`` on the table's loop; its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _start(self) -> None:
        self.server = await start_server(0, admin_token=self.admin_token, spectators=SpectatorHub())
        # the honest bots are not under test: a CPU limit for a module of matches
        self.pool = BotPool(self.server.hub, self.server.address, log_dir=self.tmp,
                            sandbox=Sandbox(Limits(memory_mb=512, cpu_seconds=300)), transport=self.transport)
        self.pool.launch("honest-a", "random", fork=True)
        self.pool.launch("honest-b", "heuristic", fork=True)
        await self.pool.wait_connected(60)

    def close(self) -> None:
        async def stop() -> None:
            if self.server is not None:
                await self.server.stop(0.2)
            if self.pool is not None:
                self.pool.stop()

        try:
            if self.thread.is_alive():
                self.call(stop(), 30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            shutil.rmtree(self.tmp, ignore_errors=True)


@contextlib.contextmanager
def honest_tables() -> Any:
    """For a module's fixture: a function giving the ``HonestTable`` of a transport, made
    when a test first asks for it; every table made is closed at the end."""
    made: dict[str, HonestTable] = {}

    def get(transport: str = "grpc") -> HonestTable:
        if transport not in made:
            made[transport] = HonestTable(transport)
        return made[transport]

    try:
        yield get
    finally:
        for table in made.values():
            table.close()


@pytest.fixture(scope="module")
def table() -> Any:
    """A module's ``HonestTable`` over gRPC, for its tests to share (import it into the test
    module, and put the module's tests in one xdist group so that it is made once a run)."""
    with honest_tables() as get:
        yield get()


@pytest.fixture(scope="module")
def tables() -> Any:
    """A module's ``honest_tables()``: its table of each transport, made when first asked for."""
    with honest_tables() as get:
        yield get


def run_hostile(
    spec: str | Path,
    tmp: Path,
    *,
    policy: str = "forfeit",
    max_strikes: int = 3,
    decision_ms: int = 3000,
    bank_ms: int = 3000,
    limits: Limits | None = None,
    seed: int = 5,
    admin_token: str = "admin-secret",
    settle: float = 0.0,
    wait_stderr: str = "",
    transport: str = "grpc",
    table: HonestTable | None = None,
) -> Result:
    """Play the hostile match and the honest match at once; check server and store after.

    ``wait_stderr``: wait up to 30 s for the hostile bot's stderr to contain this text.

    ``settle``: after the matches, wait up to this long for the hostile process to exit
    by itself (a bot its resource limits are killing) before reading its exit status.

    ``transport``: how the bot processes reach the arbiter (``grpc``, or ``local``: the
    local channel, the same stream in plain frames).

    ``table``: the server and honest bots to play on (``HonestTable``, of the same
    ``transport`` and ``admin_token``), left running; else both are made for this call."""
    if table is not None:
        assert (table.transport, table.admin_token) == (transport, admin_token), "a table of another transport or token"
    store_path = tmp / "arena.sqlite"
    box = Sandbox(limits or Limits(memory_mb=512, cpu_seconds=30))

    async def main() -> Result:
        if table is None:
            server = await start_server(0, admin_token=admin_token, spectators=SpectatorHub())  # as `arbiter serve` with no token
        else:
            server = table.server
        pool = BotPool(server.hub, server.address, log_dir=tmp, sandbox=box, transport=transport)
        honest_pool = pool if table is None else table.pool
        store = Store(store_path)
        try:
            pool.launch("hostile", str(spec))  # a fresh sandboxed process: the sandbox is what is tried
            # the honest bots from the process's fork servers where there are (as a run's are)
            pool.launch("table-random", "random", fork=True)
            if table is None:
                pool.launch("honest-a", "random", fork=True)
                pool.launch("honest-b", "heuristic", fork=True)
            await pool.wait_connected(60)
            clock = Clock(decision_ms, bank_ms)
            hostile_cfg = MatchConfig("spades", seed, OPTIONS, clock=clock,
                                      policy=FailurePolicy.uniform(policy, max_strikes), match_id="hostile-match")
            honest_cfg = MatchConfig("spades", seed + 1, OPTIONS, clock=Clock(10_000, 30_000), match_id="honest-match")
            s = lambda name: RemoteSeat((pool.procs.get(name) or honest_pool.procs[name]).session, "spades")  # noqa: E731
            hostile_seats = [s("hostile"), s("table-random"), s("hostile"), s("table-random")]
            honest_seats = [s("honest-a"), s("honest-b"), s("honest-a"), s("honest-b")]
            hostile, honest = await asyncio.wait_for(
                asyncio.gather(run_match(hostile_cfg, hostile_seats), run_match(honest_cfg, honest_seats)), 120)
            if settle:  # give a doomed hostile process time to die by itself
                with contextlib.suppress(subprocess.TimeoutExpired):
                    await asyncio.to_thread(pool.procs["hostile"].proc.wait, settle)
            # Still serving: a health check over TCP and a new match with the honest bots.
            async with grpc.aio.insecure_channel(server.address) as ch:
                health = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=10)
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            after = await asyncio.wait_for(run_match(MatchConfig("spades", seed + 2, OPTIONS, match_id="after-match"),
                                                     [s("honest-a"), s("honest-b"), s("honest-a"), s("honest-b")]), 60)
            tid = store.open_tournament("hostile", "spades", {"spec": str(spec)}).id
            for idx, rec in enumerate((hostile, honest, after)):
                store.save_match(tid, idx, 0, 0, rec)
            bp = pool.procs["hostile"]
            # a slow bot reads the arbiter's last Error late; what it says goes to a file, which
            # nothing announces: the file is read a short while apart, for 30 s at most
            deadline = time.monotonic() + 30
            while wait_stderr and wait_stderr not in bp.log_path.read_text(errors="replace") and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            rc = bp.proc.poll()
            stderr = bp.log_path.read_text(errors="replace")
            return Result(hostile, honest, after, stderr, _parse_reports(stderr), rc, box, store_path)
        finally:
            store.close()
            if table is None:
                await server.stop(0.2)
            pool.stop()

    result = asyncio.run(main()) if table is None else table.call(main())
    check_store_and_honest(result, seed)
    return result


def check_store_and_honest(result: Result, seed: int) -> None:
    """The store is intact and the honest matches are exactly what they are without a hostile bot."""
    db = sqlite3.connect(result.store_path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = {r[0]: r[1] for r in db.execute("SELECT match_id, record FROM matches")}
    finally:
        db.close()
    assert set(stored) == {"hostile-match", "honest-match", "after-match"}
    for text in stored.values():
        rec = MatchRecord.from_json(text)
        verify_record(rec)  # raises if the stored record does not replay to its result
    from sdk.loading import load_bot

    for rec, s in ((result.honest, seed + 1), (result.after, seed + 2)):
        assert rec.outcome.reason is EndReason.COMPLETED and rec.incidents == [], rec.incidents
        quiet = asyncio.run(run_match(
            MatchConfig("spades", s, OPTIONS, match_id=rec.match_id),
            [InProcessSeat(load_bot(b), n) for b, n in (("random", "honest-a"), ("heuristic", "honest-b")) * 2],
        ))
        assert [a.action for a in rec.actions] == [a.action for a in quiet.actions]
        assert rec.outcome == quiet.outcome


def processes_of_uid(uid: int) -> list[int]:
    """Pids of live processes whose real uid is ``uid``."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as f:
                for line in f:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) == uid:
                            pids.append(int(entry))
                        break
        except OSError:
            continue
    return pids


def no_processes_of_uid(uid: int, timeout: float = 10.0) -> bool:
    """Wait until no process of ``uid`` is left (True), or ``timeout`` passes (False): for
    each one seen, the kernel says when it exits (``procs.wait_gone``); then look again. One
    that has exited and is not reaped yet (a zombie: its PID namespace's children are reaped
    as the namespace goes, a while later on a loaded machine) is looked for again shortly."""
    deadline = time.monotonic() + timeout
    while (pids := processes_of_uid(uid)) and time.monotonic() < deadline:
        if not procs.wait_gone({p: procs.start_time(p) for p in pids}, deadline - time.monotonic()) \
                and set(pids) <= set(processes_of_uid(uid)):
            time.sleep(0.05)  # all exited, not all reaped yet: look again
    return processes_of_uid(uid) == []


@contextlib.contextmanager
def canary_listener():
    """A TCP listener on the host's loopback that a sandboxed bot must not reach: yields
    (its port, what visitors sent it)."""
    canary = socket.create_server(("127.0.0.1", 0))
    canary.settimeout(0.2)
    visitors: list[bytes] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = canary.accept()
                visitors.append(conn.recv(100))
                conn.close()
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        yield canary.getsockname()[1], visitors
    finally:
        stop.set()
        t.join(2)
        canary.close()


def check_network_report(r: Result, visitors: list[bytes]) -> None:
    """What a bot that tried the network (its ``network`` report) must have met."""
    net = r.report("network")
    assert r.hostile.outcome.reason is EndReason.COMPLETED
    if r.sandbox.blocks_network:  # bwrap or unshare: its own network namespace
        assert net["canary"].startswith("blocked") and net["canary_v6"].startswith("blocked"), net
        assert visitors == []
    else:  # rlimit only: nothing stops it, and the test says so
        assert net["canary"] == "CONNECTED" and visitors


def file_targets(tmp: Path, source: Path) -> tuple[Path, dict[str, str]]:
    """A secret readable by anyone (only the sandbox's mount namespace hides it), and the
    targets of a bot that tries files: the secret, the store, the arbiter's ``source``."""
    secret = tmp / "secret.txt"
    secret.write_text("the organisers' secret")
    secret.chmod(0o644)
    return secret, {"secret": str(secret), "store": str(tmp / "arena.sqlite"), "source": str(source)}


def check_files_report(r: Result, secret: Path) -> None:
    """What a bot that tried files (its ``files`` report) must have met."""
    files = r.report("files")
    assert r.hostile.outcome.reason is EndReason.COMPLETED
    assert files["write_workdir"] == "WROTE"  # its private working directory
    if r.sandbox.hides_files:  # bwrap: none of these exist in its world
        for key in ("secret", "store", "source", "passwd", "write_store", "write_own_code"):
            assert files[key].startswith("blocked"), (key, files[key])
        # its whole world: the system's binaries and libraries, a few /etc files, its own dirs,
        # and the top directories of the Python installation and the SDK packages (read-only;
        # where the project lives depends on the machine, e.g. /work or /check)
        installed = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve(), *_package_dirs()]
        tops = {p.resolve().parts[1] for p in installed}
        assert set(files["listdir_root"]) <= {"bin", "bot", "dev", "etc", "lib", "lib32", "lib64", "proc", "run",
                                              "sbin", "tmp", "usr", *tops}, (files["listdir_root"], tops)
    else:  # without bwrap only file permissions protect files, and the test says so
        assert files["secret"].startswith("READ")
    assert secret.read_text() == "the organisers' secret"
