"""Bot processes the arbiter starts itself: one sandboxed subprocess per bot, on the
arbiter's local channel (``DEFAULT_TRANSPORT``) or over gRPC.

Each process runs ``python -m sdk --bot SPEC`` (or, for a folder whose ``bot.toml`` names
another runtime, that runtime's program on its entry file: ``node bot.js``;
``cardarena.runtimes``) inside a ``sandbox.Sandbox`` (resource
limits everywhere; network and file system cut off where bubblewrap or unshare exist),
with a fresh launch token that only it may use. A Python bot dials the arbiter's local
channel (``Hub.local_path``: the bot stream's messages in plain frames on a Unix socket,
the same servicer, tokens and limits as gRPC, and less CPU a decision), unless the host
was asked for ``grpc``; a bot of another runtime speaks gRPC only. Over gRPC, where the
sandbox cuts the network the bot dials the arbiter's Unix socket (``Hub.unix_path``), else
its TCP address. Its stderr
goes to a file; the tail of it is attached to the session so that a crash, timeout or
disconnect is recorded in the match record with the bot's own last words.

``BotHost`` hands out the processes of a run of matches, one per (match, seat), under an
isolation policy: ``deal`` (a process plays one match at a time, never two of one deal),
``match`` (a fresh process for every seat of every match) or ``shared`` (long-lived
processes, each serving many matches at once). With duplicate deals the same cards come
back in later matches; ``deal`` and ``match`` guarantee that a bot which remembers what it
saw never meets a deal it has already played.

Those processes (under every isolation: a long-lived ``shared`` one is confined as a
fresh one) come from a fork server per bot where the sandbox allows it (``forkserver``:
bwrap as root): a pre-started parent in the bot's sandbox, one for the whole process
(every arbiter and pool of it), forks each one, confined before any bot code runs, in
milliseconds instead of a new interpreter's ~0.3 s of CPU. Elsewhere, or when a bot's
parent fails, each is a fresh sandboxed process. ``BotHost.process_start`` says which,
and the host logs it.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import logging
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Collection, Mapping, Sequence

from arbiter import metrics
from arbiter import scratch
from arbiter.hosting import botenv
from arbiter.hosting.botenv import BotEnvError
from arbiter.hosting import sandbox as sb
from arbiter.hosting import forkserver
from arbiter.hosting.forkserver import ForkedProcess, ForkServer, ForkServerError
from arbiter.hosting.loading import BUNDLED
from cardarena.runtimes import PYTHON, ManifestError, Runtime, manifest_of
from cardarena.wire import framing

if TYPE_CHECKING:  # the server's types, for hints only: hosting and server are siblings
    from arbiter.server.botstream import Hub, Session

log = logging.getLogger(__name__)

#: How bot processes may be shared between matches (``BotHost``; a tournament's ``isolation``).
ISOLATIONS = ("match", "deal", "shared")

#: How hosted bot processes reach the arbiter (``BotPool.transport``): the bot stream over
#: gRPC, or the same messages in plain frames over the local channel (``cardarena.wire.framing``).
TRANSPORTS = ("grpc", "local")
#: The one default for the Python bots the arbiter hosts itself (tournaments, ``arbiter
#: play``, the arena's house bots, vetting, a cluster worker's bots): the local channel.
#: ``grpc`` stays selectable (``--transport grpc``); remote bots and other runtimes speak
#: gRPC. Every default of a hosted venue is this one (``arbiter.batch.venue.HOSTED``).
DEFAULT_TRANSPORT = "local"

#: How much of a bot's stderr goes into a match record.
STDERR_TAIL_BYTES = 4096


class BotStartError(Exception):
    """A bot process did not connect; the message has the tail of its stderr, ``stderr``
    (when a process ended or was late) all of what it kept of it (``record_tail``)."""

    def __init__(self, message: str = "", stderr: str = ""):
        super().__init__(message)
        self.stderr = stderr


def read_tail(path: Path, max_bytes: int = STDERR_TAIL_BYTES) -> str:
    """The last ``max_bytes`` of a file, decoded leniently ('' if unreadable)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            data = f.read(max_bytes)
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    if size > max_bytes:
        text = "[...]" + text[text.find("\n") + 1:] if "\n" in text else "[...]" + text
    return text.strip()


def _indented(stderr: str) -> str:
    """A bot's stderr under the arbiter's own message, indented: its ``error: ...`` line is
    the bot's, not a second error of the command."""
    return "\n".join("  " + line for line in stderr.splitlines())


def runtime_program(runtime: Runtime) -> str:
    """The host's program of ``runtime`` (``node``), resolved; BotStartError if it has none."""
    found = shutil.which(runtime.executable)
    if found is None:
        raise BotStartError(f"this arbiter cannot host {runtime.name} bots: no `{runtime.executable}` on its PATH")
    return str(Path(found).resolve())


def runtime_of(spec: str) -> Runtime:
    """The runtime of a bot spec: a folder's bot.toml says it, anything else is Python (a
    bad manifest too, here: launching it says what is wrong)."""
    try:
        manifest = manifest_of(spec) if Path(spec).is_dir() else None
    except (ManifestError, OSError):
        return PYTHON
    return manifest.runtime if manifest is not None else PYTHON


def runtime_dirs(program: str) -> tuple[Path, ...]:
    """What a sandbox must show of a runtime's installation: the prefix of its program
    (``/usr`` for ``/usr/bin/node``, ``/opt/node`` for ``/opt/node/bin/node``)."""
    return (Path(program).parent.parent,)


@dataclass
class BotProcess:
    name: str
    spec: str
    proc: subprocess.Popen | ForkedProcess
    log_path: Path
    workdir: Path
    session: Session | None = None
    token: str = ""  # its launch token: identifies its session among processes of the same bot
    key: str = ""  # its name in its pool's ``procs``
    deals: set[int] = field(default_factory=set)  # deal seeds of the matches it has played (BotHost)
    forked: bool = False  # started by its bot's fork server (else a fresh sandboxed process)
    code: tuple[Path, ...] = ()  # the host paths of its code, named as the author knows them in its stderr

    def _read_tail(self) -> str:
        return sb.host_paths(read_tail(self.log_path), self.code) if self.code else read_tail(self.log_path)

    def stderr_tail(self, lines: int = 15) -> str:
        text = self._read_tail().splitlines()
        return "\n".join(text[-lines:])

    def record_tail(self) -> str:
        """What goes into a match record: the tail of stderr and, if it died, how."""
        # A bot that just closed its stream is usually still writing its traceback, and
        # then exiting. It runs niced (sandbox), so on a busy machine that can take seconds;
        # this waits in a worker thread, and only after a seat failed.
        deadline = time.monotonic() + 5.0
        while self.proc.poll() is None and self.session is not None and self.session.closed and time.monotonic() < deadline:
            time.sleep(0.02)
        tail = self._read_tail()
        rc = self.proc.poll()
        if rc is not None:
            how = f"killed by signal {-rc}" if rc < 0 else f"exit code {rc}"
            tail = f"{tail}\n[bot process ended: {how}]".strip()
        return tail

    def stop(self, timeout: float = 3.0) -> None:
        sb.kill_tree(self.proc, timeout)
        sb.cleanup(self.workdir)

    async def connect(self, hub: Hub, timeout: float = 60.0) -> Session:
        """Wait for this process's session; BotStartError if it exits or is late."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            session = hub.session_for(self.token)
            if session is not None:
                self.session = session
                session.stderr_source = self.record_tail
                return session
            if self.proc.poll() is not None:
                _start_failed(self.name, "exited")
                raise BotStartError(f"bot {self.name!r} ({self.spec}) exited with code {self.proc.returncode}:\n"
                                    + _indented(self.stderr_tail()), self.record_tail())
            if loop.time() > deadline:
                _start_failed(self.name, "timeout")
                raise BotStartError(f"bot {self.name!r} ({self.spec}) did not connect within {timeout:.0f} s:\n"
                                    + _indented(self.stderr_tail()), self.record_tail())
            await hub.changed(0.02)  # a session added (this one?), or 20 ms to look at the process again


def _start_failed(name: str, reason: str) -> None:
    """Count a bot process that never connected (``arbiter.metrics``): it exited, or was late."""
    if (m := metrics.active()) is not None:
        m.bot_start_failures.labels(m.bot(name), reason).inc()


@dataclass
class BotPool:
    """The bot processes of one run, by bot name, each in its own sandbox."""

    hub: Hub
    address: str
    #: the processes' stderr logs; None: a scratch folder of the pool's own, removed by ``stop``
    log_dir: Path | None = None
    procs: dict[str, BotProcess] = field(default_factory=dict)
    sandbox: sb.Sandbox | None = None  # None: sandbox.Sandbox() (the strongest available)
    #: per bot spec, the fork server its ``launch(fork=True)`` processes come from (the
    #: process's, shared with its other pools: ``forkserver.acquire``)
    forkservers: dict[str, ForkServer] = field(default_factory=dict)
    #: per bot spec, this pool's arbiter as its fork server knows it (``ForkServer.attach``)
    _attached: dict[str, str] = field(default_factory=dict, init=False, repr=False)
    _released: bool = field(default=False, init=False, repr=False)
    #: how the processes reach the arbiter: ``grpc`` (the bot stream over gRPC) or
    #: ``local`` (the same stream in plain frames on the local channel: ``TRANSPORTS``)
    transport: str = DEFAULT_TRANSPORT
    #: per bot spec, the environment of the packages its bot.toml declares (``botenv``)
    bot_envs: dict[str, Path] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.transport not in TRANSPORTS:
            raise ValueError(f"transport: expected one of {', '.join(TRANSPORTS)}, got {self.transport!r}")
        self._own_log_dir = self.log_dir is None
        if self.log_dir is None:
            self.log_dir = scratch.make("arena-bots-")
        if self.sandbox is None:
            self.sandbox = sb.Sandbox()
        if self.sandbox.blocks_network and not getattr(self.hub, "unix_path", None):
            log.warning("the arbiter has no Unix socket: bots run without a network namespace")
            self.sandbox = sb.Sandbox(self.sandbox.limits, "rlimit")
        self.forks, self.why_no_forks = sb.fork_support(self.sandbox)

    def _dial(self, address: str, runtime: Runtime = PYTHON) -> str:
        """What a process dials: the address its sandbox gives it (``unix:PATH`` or TCP), or
        with the local transport the local channel beside that Unix socket (bound in beside
        it by the sandbox), or on the host's own path where the bot is not confined. A bot
        of another runtime speaks gRPC only (the local channel's frames are the SDK's)."""
        if self.transport != "local" or runtime is not PYTHON:
            return address
        if address.startswith("unix:"):
            return framing.SCHEME + str(Path(address.removeprefix("unix:")).with_name(framing.SOCKET_NAME))
        local = getattr(self.hub, "local_path", None)
        if not local:
            raise BotStartError("the arbiter has no local channel: use the grpc transport")
        return framing.SCHEME + local

    def _command(self, name: str, spec: str, own_name: bool) -> tuple[list[str], list[Path], dict[str, str], Runtime]:
        """(arguments, code to bind, environment, runtime) of a process of ``spec``: for a
        Python bot the arguments of ``python -m sdk``; for a folder whose bot.toml names
        another runtime, its whole command (that runtime's program on the entry file)."""
        box = self.sandbox
        assert box is not None
        path_part, sep, cls = spec.partition(":")
        code: list[Path] = []
        env: dict[str, str] = {}
        bot_arg = spec
        name_args = [] if own_name else ["--name", name]
        if Path(spec).exists() or (sep and Path(path_part).exists()):
            host = Path(spec if Path(spec).exists() else path_part).resolve()
            code.append(host)
            try:
                manifest = manifest_of(host)
            except ManifestError as exc:
                raise BotStartError(f"bot {name!r} ({spec}): {exc}") from None
            if manifest is not None and manifest.runtime is not PYTHON:
                program = runtime_program(manifest.runtime)
                return [program, f"{box.code_path(host)}/{manifest.entry}", *name_args], code, env, manifest.runtime
            if manifest is not None and manifest.requirements:  # its own packages: botenv
                try:
                    self.bot_envs[spec] = botenv.ensure(host, manifest.requirements)
                except BotEnvError as exc:
                    raise BotStartError(str(exc)) from None
            bot_arg = box.code_path(host) + (f":{cls}" if sep and not Path(spec).exists() else "")
            if host.is_dir():
                env["PYTHONPATH"] = box.code_path(host)  # a folder bot imports its own modules
        return ["--bot", bot_arg, *name_args], code, env, PYTHON

    def launch(self, name: str, spec: str, key: str | None = None, own_name: bool = False,
               fork: bool = False) -> BotProcess:
        """Start bot ``spec`` (bundled name, FILE.py[:Class], folder, module:Class) as ``name``.

        ``key`` (default ``name``) names the process in ``procs`` and its stderr log, for a
        pool holding several processes of one bot. Its session is ``name`` in any case (the
        launch token says so); ``own_name``: its Hello gives the bot's own name, not
        ``name`` (Session.claimed_name: what a check reports). ``fork``: from the bot's
        fork server where this sandbox has them (``self.forks``), started on first use; a
        fresh sandboxed process otherwise, or once that server has failed."""
        box = self.sandbox
        assert box is not None
        key = key or name
        if (old := self.procs.get(key)) is not None:  # a process restarted under its key: its token goes
            self.hub.unexpect(old.token)
        token = self.hub.expect(name)
        log_path = self.log_dir / f"{key}.stderr.log"
        args, code, env, runtime = self._command(name, spec, own_name)
        env["ARENA_TOKEN"] = token
        bot_env = self.bot_envs.get(spec)
        if fork and self.forks and runtime is PYTHON and bot_env is None:  # a fork server's parent is the arbiter's Python
            try:
                server = self.forkservers.get(spec)
                if server is None:
                    server = self.forkservers[spec] = forkserver.acquire(
                        box, code=code, env={k: v for k, v in env.items() if k != "ARENA_TOKEN"}, name=name,
                        bundled_module=BUNDLED[spec].module if spec in BUNDLED else None)
                    self._attached[spec] = server.attach(self.hub.unix_path)
                if spec not in self._attached:
                    raise ForkServerError("this arbiter could not be attached to the fork server")
                child = server.spawn([*args, "--address", self._dial(server.address)], env, log_path,
                                     arbiter=self._attached[spec], box=box)
            except ForkServerError as exc:
                log.debug("bot %s: no fork server (%s): a fresh process", key, exc)
            else:
                bp = BotProcess(name, spec, child, log_path, child.workdir, token=token, key=key, forked=True,
                                code=tuple(code) if box.mode == "bwrap" else ())
                self.procs[key] = bp
                log.info("forked bot %s (%s) in sandbox %s", key, spec, box.mode)
                return bp
        python = str(botenv.python_of(bot_env)) if bot_env is not None else sys.executable
        argv = [python, "-m", "sdk", *args] if runtime is PYTHON else args
        system = runtime_dirs(args[0]) if runtime is not PYTHON else (botenv.visible_dirs(bot_env) if bot_env is not None else ())
        launch = box.prepare(argv, code=code, env=env, tcp_address=self.address, unix_socket=getattr(self.hub, "unix_path", None),
                             system=system)
        argv_with_address = launch.argv + ["--address", self._dial(launch.address, runtime)]
        launch.argv = argv_with_address
        try:
            proc = sb.start(launch, log_path)
        except BaseException:
            self.hub.unexpect(token)
            raise
        bp = BotProcess(name, spec, proc, log_path, launch.workdir, token=token, key=key,
                        code=tuple(code) if box.mode == "bwrap" else ())
        self.procs[key] = bp
        log.info("started bot %s (%s) in sandbox %s, pid %d", key, spec, box.mode, proc.pid)
        return bp

    def forking(self, spec: str) -> bool:
        """Whether a ``launch(fork=True)`` of ``spec`` would be forked now."""
        server = self.forkservers.get(spec)
        return self.forks and (server is None or (server.alive and spec in self._attached))

    async def wait_connected(self, timeout: float = 60.0) -> None:
        """Wait until every launched bot has a session; BotStartError if one dies or is late."""
        for bp in self.procs.values():
            if bp.session is None:
                await bp.connect(self.hub, timeout)

    def session(self, name: str) -> Session | None:
        """The live session of this pool's process of ``name`` (None if it died)."""
        bp = self.procs.get(name)
        return self.hub.session_for(bp.token) if bp is not None else None

    def forget(self, bp: BotProcess) -> None:
        """Drop a stopped process from ``procs`` (unless another has taken its key since);
        its launch token is no longer accepted."""
        self.hub.unexpect(bp.token)
        if self.procs.get(bp.key) is bp:
            del self.procs[bp.key]

    def stop(self) -> None:
        for bp in list(self.procs.values()):
            bp.stop()
            self.hub.unexpect(bp.token)
        if not self._released:  # the process's fork servers: kept a while for its next pool
            self._released = True
            for spec, server in self.forkservers.items():
                if spec in self._attached:
                    server.detach(self._attached.pop(spec))
                forkserver.release(server)
        if self._own_log_dir:  # what a failing bot said is in the records already (incidents)
            shutil.rmtree(self.log_dir, ignore_errors=True)


class BotHost:
    """The bot processes of a run of matches: one session per (match, seat).

    No process ever plays two seats of one match (a bot at two seats, such as Spades
    partners, would otherwise receive both hands).

    * ``isolation="match"``: each seat of each match gets a fresh process, stopped when the
      match ends, so nothing a bot saw in one match (a duplicate deal's cards, above all)
      survives into the next. ``copies * warm`` processes per bot (``warm``: matches at
      once) are kept started and connected ahead of need, so start-up overlaps play.
    * ``isolation="deal"``: as ``match``, except that a process whose match has ended may
      play again, one match at a time, but never a match of a deal (seed) it has seen. So
      it can learn how its opponents play, as a player would, but never recognise a deal.
      Up to ``2 * copies * warm`` idle processes per bot are kept (least recently used
      beyond that stop), new ones start on demand; duplicate deals played deal by deal
      then need a process per seating and pairing, not per match.
    * ``isolation="shared"``: ``processes`` long-lived processes per seat slot of each bot,
      each serving any number of matches at once (faster; for trusted bots, or when no
      deal is played twice). A process that dies is restarted, ``max_restarts`` times
      per bot; past that its seats record a disconnect.

    ``start()`` launches the first process of every bot and returns their sessions (for
    the caller's checks: games, versions); BotStartError if one does not connect.
    ``planned`` (bot name -> seats it will lease in all, when the caller knows: a
    tournament's plan) keeps ``match`` isolation from starting spares no seat will use.
    """

    def __init__(
        self,
        hub: Hub,
        address: str,
        sources: Mapping[str, str],
        *,
        isolation: str = "match",
        copies: int = 1,
        processes: int = 1,
        warm: int = 1,
        max_restarts: int = 3,
        connect_timeout: float = 60.0,
        sandbox: sb.Sandbox | None = None,
        log_dir: Path | None = None,
        transport: str = DEFAULT_TRANSPORT,
        own_names: Collection[str] = (),
        planned: Mapping[str, int] | None = None,
    ) -> None:
        if isolation not in ISOLATIONS:
            raise ValueError(f"isolation: expected one of {', '.join(ISOLATIONS)}, got {isolation!r}")
        self.hub = hub
        self.sources = dict(sources)
        #: the bots whose Hello gives their own name, not the seat name (a check reports it)
        self.own_names = frozenset(own_names)
        self.isolation = isolation
        self.copies = max(1, copies)
        self.warm = max(1, warm)
        self.max_restarts = max_restarts
        self.connect_timeout = connect_timeout
        kwargs = {"log_dir": log_dir} if log_dir is not None else {}
        self.pool = BotPool(hub, address, sandbox=sandbox, transport=transport, **kwargs)
        # shared: processes per bot, keyed "NAME#SLOT" in the pool; match: per bot, the
        # started processes not yet leased
        self._slots = max(processes, self.copies) if isolation == "shared" else 0
        self._ready: dict[str, collections.deque[asyncio.Task[BotProcess]]] = {n: collections.deque() for n in self.sources}
        self._leased: dict[int, list[BotProcess]] = {}
        self._ids = itertools.count()
        self._replaced: collections.Counter[str] = collections.Counter()  # processes replaced before their match
        self._spread = itertools.count()
        self._restarts = {n: 0 for n in self.sources}
        self._lock = asyncio.Lock()
        self._stopping: set[asyncio.Task[None]] = set()
        # deal isolation: per bot, idle processes (least recently used first); at most
        # ``keep`` idle ones per bot are kept
        self._idle: dict[str, list[BotProcess]] = {n: [] for n in self.sources}
        self.keep = 2 * self.copies * self.warm
        # match isolation: per bot, the seats still to be leased, when the caller knows them
        # (``planned``: a tournament's plan); no spare is started beyond them
        self._left = {n: planned.get(n, 0) for n in self.sources} if planned is not None else None

    # -- starting ----------------------------------------------------------------------

    def _launch(self, name: str, key: str | None = None) -> BotProcess:
        return self.pool.launch(name, self.sources[name], key=key or f"{name}.{next(self._ids)}",
                                own_name=name in self.own_names, fork=True)

    @property
    def process_start(self) -> str:
        """How this host starts a bot process, in words (logged by ``start``)."""
        shared = "long-lived processes (shared isolation), " if self.isolation == "shared" else ""
        if not self.pool.forks:
            return f"{shared}a fresh sandboxed process each (no fork server: {self.pool.why_no_forks})"
        broken = {s.why_not for s in self.pool.forkservers.values() if not s.alive}
        text = ("forked by a fork server per bot (own uid, network, PID, IPC and mount namespaces, fresh /tmp and "
                "working directory per process)")
        others = sorted(n for n, spec in self.sources.items() if runtime_of(spec) is not PYTHON)
        if others:  # a fork server's parent is a Python interpreter
            text += f"; a fresh sandboxed process each for {', '.join(others)} (another runtime: no fork server)"
        return shared + text + (f"; fresh processes for bots whose fork server failed: {'; '.join(sorted(broken))}"
                                if broken else "")

    async def _fresh(self, name: str) -> BotProcess:
        bp = self._launch(name)
        try:
            await bp.connect(self.hub, self.connect_timeout)
        except BotStartError:
            await asyncio.to_thread(self._retire, bp)
            if not (bp.forked and not self.pool.forking(self.sources[name])):
                raise
            # its fork server failed under it: the bot's processes start afresh from now on
            bp = self._launch(name)
            try:
                await bp.connect(self.hub, self.connect_timeout)
            except BotStartError:
                await asyncio.to_thread(self._retire, bp)
                raise
        return bp

    async def start(self) -> dict[str, Session]:
        """Launch every bot's first process(es); their sessions by bot name."""
        return await self._start(list(self.sources))

    async def add(self, sources: Mapping[str, str]) -> dict[str, Session]:
        """Bots joining a started host, started as ``start`` starts the first ones; their
        sessions by name (a bot already here is left as it is).

        Why: a cluster worker meets a tournament's bots match by match. One host for all of
        them keeps one set of spares (or of shared processes) per bot, where a host per
        pairing kept one per pairing: hundreds of idle processes on each worker of a large
        round-robin. BotStartError if one does not connect: the bots of this call are then
        stopped and forgotten, the others play on."""
        new = {n: spec for n, spec in sources.items() if n not in self.sources}
        for n, spec in new.items():
            self.sources[n] = spec
            self._ready[n] = collections.deque()
            self._restarts[n] = 0
            self._idle[n] = []
            if self._left is not None:
                self._left[n] = 0
        try:
            return await self._start(list(new))
        except BaseException:
            await self._drop(list(new))
            raise

    async def _drop(self, names: Sequence[str]) -> None:
        """Stop and forget the bots ``names`` (their start failed in ``add``)."""
        tasks = [t for n in names for t in self._ready.pop(n, ())]
        for t in tasks:
            t.cancel()
        started = [bp for bp in await asyncio.gather(*tasks, return_exceptions=True) if isinstance(bp, BotProcess)]
        procs = started + [bp for bp in self.pool.procs.values() if bp.name in names and bp not in started]
        await asyncio.to_thread(self._retire_all, procs)
        for n in names:
            for table in (self.sources, self._restarts, self._idle, self._replaced, self._left or {}):
                table.pop(n, None)

    async def _start(self, names: Sequence[str]) -> dict[str, Session]:
        first: dict[str, BotProcess] = {}
        if self.isolation == "shared":
            for slot in range(self._slots):
                for n in names:
                    bp = self._launch(n, f"{n}#{slot}")
                    first.setdefault(n, bp)
            await self.pool.wait_connected(self.connect_timeout)
        else:
            # match isolation keeps a spare for every seat in flight; deal isolation reuses
            # processes, so one match's worth is started ahead and the rest on demand
            ahead = self.copies * (self.warm if self.isolation == "match" else 1)
            for n in names:
                spares = ahead if self._left is None or self.isolation != "match" else max(1, min(ahead, self._left[n]))
                for _ in range(spares):
                    self._ready[n].append(asyncio.ensure_future(self._fresh(n)))
            for n in names:
                first[n] = await self._ready[n][0]
            log.info("bot processes (%s isolation): %s", self.isolation, self.process_start)
        sessions = {}
        for n, bp in first.items():
            session = self.hub.session_for(bp.token)
            if session is None:  # connected, then died at once
                raise BotStartError(f"bot {n!r} disconnected right after connecting:\n{bp.stderr_tail()}")
            sessions[n] = session
        return sessions

    # -- leasing -----------------------------------------------------------------------

    async def lease(self, seats: Sequence[str], deal: int | None = None) -> tuple[int, list[Session]]:
        """Sessions for the seats of one match (bot names, in seat order), and a lease id
        for ``release``. ``deal`` (the match's deal seed) is required with ``deal``
        isolation. A seat whose process could not be had gets a closed session: the match
        records a disconnect for it, with the process's stderr where there is one.

        A process that died before its match began (a spare killed while it waited) is
        replaced, up to ``max_restarts`` times per bot over the host's life, rather than
        costing its bot a forfeit of a match it never started; every caller (tournaments,
        cluster workers, arenas, a person's table) gets this. Shared processes are
        restarted by ``_shared``."""
        lease_id, sessions = await self._lease_once(seats, deal)
        while self.isolation != "shared":
            dead = {n for n, s in zip(seats, sessions) if s.closed}
            if not dead or any(self._replaced[n] >= self.max_restarts for n in dead):
                break
            for n in dead:
                self._replaced[n] += 1
            log.warning("bot process of %s gone before its match began; starting another", ", ".join(sorted(dead)))
            self.release(lease_id)
            lease_id, sessions = await self._lease_once(seats, deal)
        return lease_id, sessions

    async def _lease_once(self, seats: Sequence[str], deal: int | None) -> tuple[int, list[Session]]:
        lease_id = next(self._ids)
        if self.isolation == "shared":
            turn = next(self._spread)  # one per match, so its seats' slots stay distinct
            sessions = [await self._shared(n, seats[:i].count(n), turn) for i, n in enumerate(seats)]
            return lease_id, sessions
        if self.isolation == "deal" and deal is None:
            raise ValueError("deal isolation: lease() needs the match's deal seed")
        # every seat's process first (an idle one, a spare, or one starting now), then wait
        # for those still starting: a match's new processes start at the same time, not one
        # after another's connection (docs/performance.md, "Isolation")
        picks: list[BotProcess | asyncio.Future[BotProcess]] = []
        for n in seats:
            bp = self._idle_for(n, deal) if self.isolation == "deal" else None
            if bp is None:
                ready = self._ready[n]
                picks.append(ready.popleft() if ready else asyncio.ensure_future(self._fresh(n)))
                if self.isolation == "match":
                    left = self._left
                    if left is not None:
                        left[n] = max(0, left[n] - 1)
                    if left is None or left[n] > len(ready):  # a later seat's, starting now
                        ready.append(asyncio.ensure_future(self._fresh(n)))
            else:
                picks.append(bp)
        procs: list[BotProcess] = []
        sessions = []
        for i, (n, pick) in enumerate(zip(seats, picks)):
            if isinstance(pick, BotProcess):
                bp = pick
            else:
                try:
                    bp = await pick
                except BotStartError as exc:
                    log.warning("%s", exc)
                    sessions.append(self.hub.gone(n, str(exc)))
                    continue
                except BaseException:  # cancelled: so are the starts not yet waited for
                    for later in picks[i + 1:]:
                        if not isinstance(later, BotProcess):
                            later.cancel()
                    raise
            procs.append(bp)
            if deal is not None:
                bp.deals.add(deal)
            session = self.hub.session_for(bp.token)
            sessions.append(session if session is not None else self.hub.gone(n, bp.record_tail()))
        self._leased[lease_id] = procs
        return lease_id, sessions

    def _idle_for(self, name: str, deal: int | None) -> BotProcess | None:
        """An idle live process of ``name`` that has never seen ``deal`` (deal isolation)."""
        idle = self._idle[name]
        for i, bp in enumerate(idle):
            if deal not in bp.deals and self.hub.session_for(bp.token) is not None:
                return idle.pop(i)
        return None

    async def _shared(self, name: str, k: int, turn: int) -> Session:
        # seat k of its bot in the turn-th match goes to slot k + copies * turn (mod the
        # slots): consecutive slots for one match's seats (never one process for two, as
        # copies <= slots), the matches rotating over all the slots
        slot = (k + self.copies * turn) % self._slots
        key = f"{name}#{slot}"
        bp = self.pool.procs[key]
        session = self.hub.session_for(bp.token)
        if session is not None:
            return session
        async with self._lock:
            bp = self.pool.procs[key]
            session = self.hub.session_for(bp.token)
            if session is None and self._restarts[name] < self.max_restarts:
                self._restarts[name] += 1
                log.warning("bot %s died; restarting it (%d of %d)", name, self._restarts[name], self.max_restarts)
                await asyncio.to_thread(bp.stop)
                bp = self._launch(name, key)
                try:
                    session = await bp.connect(self.hub, self.connect_timeout)
                except BotStartError as exc:
                    log.warning("%s", exc)
        return session if session is not None else self.hub.gone(name, bp.record_tail())

    def release(self, lease_id: int) -> None:
        """The match of this lease has ended: with ``match`` isolation its processes stop
        (in the background; ``stop`` waits for them); with ``deal`` isolation the live ones
        wait for a match of another deal, the least recently used beyond ``keep`` per bot
        stopping."""
        procs = self._leased.pop(lease_id, [])
        if self.isolation == "deal":
            retire = []
            for bp in procs:
                if self.hub.session_for(bp.token) is None:
                    retire.append(bp)
                    continue
                idle = self._idle[bp.name]
                idle.append(bp)
                while len(idle) > self.keep:
                    retire.append(idle.pop(0))
            procs = retire
        if procs:
            task = asyncio.ensure_future(asyncio.to_thread(self._retire_all, procs))
            self._stopping.add(task)
            task.add_done_callback(self._stopping.discard)

    def _retire(self, bp: BotProcess) -> None:
        bp.stop()
        self.pool.forget(bp)

    def _retire_all(self, procs: Sequence[BotProcess]) -> None:
        for bp in procs:
            self._retire(bp)

    async def stop(self) -> None:
        """Stop every process, started, leased or warm."""
        for ready in self._ready.values():
            for task in ready:
                task.cancel()
        await asyncio.gather(*[t for r in self._ready.values() for t in r], *self._stopping, return_exceptions=True)
        await asyncio.to_thread(self.pool.stop)
