"""The one batch engine: ``play_batch`` turns a plan of matches into played, saved matches.

    async with contextlib.aclosing(play_batch(plan, InProcess(bots), save=save)) as played:
        async for p in played:
            ...  # p.match (the PlannedMatch), p.record (its MatchRecord)

What it does for every caller (tournaments, ``evaluate``, the arena, the tools):

* Concurrency: ``concurrency`` matches at once (the venue's default when None).
* No bot plays two matches of one deal (seed) at once (``_DealTurns``): with duplicate
  deals one deal is played in several seatings, each by other processes of the same bots;
  run together, two copies of a bot could signal each other through the CPU they share and
  so hold more hands between them than the rules give one seat. Matches of other deals fill
  the concurrency.
* Resume: matches whose key is in ``skip`` (already stored) are not played.
* Saving: ``save(match, record)`` is called for each match as it is handed over, before
  it is yielded; ``save`` is where a caller stores it and reports progress.
* A plan consumed incrementally and stopped early: the plan is read lazily (an iterator
  may decide what comes next), and with ``ordered=True`` the matches are handed over in
  plan order, at most ``2 x concurrency`` ahead of the last one taken (none ahead with a
  concurrency of 1). A caller that stops (closes the generator, e.g. the sequential test
  having decided) starts nothing more; the matches under way end, and are neither saved
  nor yielded. A caller cancelled (an arena stopping) cancels them.
* Where matches are played, the *venue*: ``InProcess`` (trusted bots as ``InProcessSeat``, in
  this event loop or in worker processes), ``Hosted`` (bot processes of a
  ``hosting.botproc.BotHost`` over gRPC: a lease per match, released when it ends),
  ``Connected`` (bots that connected to an arbiter on their own: remote bots) or
  ``arbiter.batch.cluster.OnCluster`` (a Dask cluster). A caller never builds one: it
  says where (``arbiter.batch.venue.parse_where``) and ``arbiter.batch.venue.open_venue``
  opens it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import functools
import multiprocessing
import os
import secrets
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Container, Iterable, Iterator, Mapping, Protocol, Sequence

from arbiter.batch.plan import PlannedMatch
from arbiter.hosting.botproc import BotHost, BotStartError
from arbiter.hosting.loading import load_bot
from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import run_match
from arbiter.server.app import start_private_server
from arbiter.server.botstream import Hub, RemoteSeat
from cardarena.games import ConfigError
from cardarena.records import MatchConfig, MatchRecord
from cardarena.names import does_not_play


@dataclass(frozen=True)
class Finished:
    """A match of the plan and its record, once played (``present.played.Played`` is what
    a stored tournament played: its settings)."""

    match: PlannedMatch
    record: MatchRecord


class Venue(Protocol):
    """Where the matches are played."""

    #: matches at once when the caller does not say (read after ``open``)
    concurrency: int

    async def open(self) -> None: ...

    async def play(self, match: PlannedMatch) -> MatchRecord: ...

    async def close(self) -> None: ...


class BatchError(Exception):
    """A plan the engine cannot play (two matches with one key)."""


async def play_batch(
    plan: Iterable[PlannedMatch],
    venue: Venue,
    *,
    concurrency: int | None = None,
    skip: Container[int] = (),
    save: Callable[[PlannedMatch, MatchRecord], None] | None = None,
    ordered: bool = False,
    on_open: Callable[[], None] | None = None,
) -> AsyncIterator[Finished]:
    """Play ``plan`` at ``venue`` (see the module docstring); yields each match played,
    in the order they end (``ordered``: in plan order). The venue is opened first and
    closed at the end, whatever happens; an error playing a match (a venue's, never a
    bot's: a bot's failure is in its record) stops the batch and is raised here.
    ``on_open()`` is called once the venue is open (a cluster reached; hosted bots are up
    when their venue is made), before the plan is read: a caller that writes nothing until
    its run is known to start writes there, and may make the plan's matches there (``plan``
    a generator); an error it raises stops the batch, nothing played."""
    await venue.open()
    workers: list[asyncio.Task] = []
    try:
        if on_open is not None:
            on_open()
        n = max(1, concurrency or venue.concurrency)
        # ordered: one at a time plays nothing past the match the caller is looking at
        turns = _DealTurns((m for m in plan if m.key not in skip), (1 if n == 1 else 2 * n) if ordered else None)
        finished: asyncio.Queue = asyncio.Queue()

        async def worker() -> None:
            try:
                while (taken := await turns.take()) is not None:
                    pos, m = taken
                    try:
                        record = await venue.play(m)
                    finally:
                        await turns.done(m)
                    finished.put_nowait((pos, m, record))
                    # A venue whose matches never wait (bots in this event loop) would hold
                    # the loop to the end of the plan: the caller saves each match as it
                    # ends, and a Ctrl-C is seen, only when the loop runs between matches.
                    await asyncio.sleep(0)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                finished.put_nowait(exc)
            finally:
                finished.put_nowait(None)

        workers = [asyncio.create_task(worker()) for _ in range(n)]
        running, buffer, handed = n, {}, 0
        while running or buffer:
            if handed not in buffer:
                if not running:
                    break
                got = await finished.get()
                if got is None:
                    running -= 1
                    continue
                if isinstance(got, BaseException):
                    raise got
                pos, m, record = got
                buffer[pos if ordered else handed + len(buffer)] = (m, record)
                continue
            m, record = buffer.pop(handed)
            if save is not None:
                save(m, record)
            try:
                yield Finished(m, record)
            except GeneratorExit:  # the caller stops: the matches under way end, unsaved
                await turns.close()
                await asyncio.gather(*workers, return_exceptions=True)
                raise
            handed += 1
            await turns.advance(handed)
    finally:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        await venue.close()


class _DealTurns:
    """The matches still to play, handed out in plan order, except that a match waits
    while any of its bots is playing another match of the same deal (seed).

    Why: with duplicate deals one deal is played in several seatings, each by other
    processes of the same bots (``deal`` isolation). Processes running at the same time
    share the machine's CPUs, and a bot could use that as a channel (one process busy or
    idle, the other timing its own work) between its copy that holds one side's hands and
    its copy that holds the other's. Run one after the other, no two copies of a bot play
    the same cards at once. (A copy that has played them may still be alive, idle or on
    another deal with ``deal`` isolation, stopping with ``match``: the channel is narrowed,
    not closed; README, "isolation".) The matches of other deals fill the concurrency;
    without duplicate deals every match has a seed of its own and nothing waits.

    The plan is read as far as needed only. With a ``window``, no match more than
    ``window`` places past the last one handed to the caller (``advance``) starts."""

    def __init__(self, matches: Iterator[PlannedMatch], window: int | None = None):
        self._source = matches
        self._exhausted = False
        self._read = 0
        self._keys: set[int] = set()
        self._pending: list[tuple[int, PlannedMatch]] = []
        self._busy: collections.Counter[tuple[int, str]] = collections.Counter()
        self._window = window
        self._handed = 0
        self._changed = asyncio.Condition()

    def _free(self, m: PlannedMatch) -> bool:
        return not any(self._busy[(m.deal, n)] for n in set(m.seats))

    def _allowed(self, pos: int) -> bool:
        return self._window is None or pos < self._handed + self._window

    def _read_one(self) -> bool:
        try:
            m = next(self._source)
        except StopIteration:
            self._exhausted = True
            return False
        if m.key in self._keys:
            raise BatchError(f"the plan holds two matches with key {m.key}")
        self._keys.add(m.key)
        self._pending.append((self._read, m))
        self._read += 1
        return True

    async def take(self) -> tuple[int, PlannedMatch] | None:
        """The first pending match none of whose bots is on its deal now, with its place in
        the plan; None when none is left."""
        async with self._changed:
            while True:
                for i, (pos, m) in enumerate(self._pending):
                    if not self._allowed(pos):
                        break
                    if self._free(m):
                        del self._pending[i]
                        for n in set(m.seats):
                            self._busy[(m.deal, n)] += 1
                        return pos, m
                if not self._exhausted and self._allowed(self._read) and self._read_one():
                    continue
                if self._exhausted and not self._pending:
                    return None
                await self._changed.wait()

    async def done(self, m: PlannedMatch) -> None:
        """``m`` has ended (saved or not): the matches waiting for its deal may start."""
        async with self._changed:
            for n in set(m.seats):
                self._busy[(m.deal, n)] -= 1
            self._changed.notify_all()

    async def close(self) -> None:
        """Nothing more starts."""
        async with self._changed:
            self._exhausted = True
            self._pending.clear()
            self._changed.notify_all()

    async def advance(self, handed: int) -> None:
        """The caller has taken ``handed`` matches: the window moves on."""
        async with self._changed:
            self._handed = handed
            self._changed.notify_all()


# --------------------------------------------------------------------------------------
# Venues.


class InProcess:
    """Trusted bots played in this process as ``InProcessSeat``s (``bots``: by seat name, a bot
    spec or a loaded Bot). ``processes`` > 1 plays each match in one of that many worker
    processes instead (bots given as specs), for the cores: the same records either way."""

    def __init__(self, bots: Mapping[str, Any], processes: int = 1, concurrency: int | None = None, label: str = ""):
        if processes > 1 and not all(isinstance(b, str) for b in bots.values()):
            raise TypeError("InProcess: worker processes load their bots by spec")
        self.bots = dict(bots)
        #: what every record played here says of its venue (``MatchRecord.venue``): set
        #: when code that is not installed with the arbiter was asked to play in process
        self.label = label
        self.processes = processes
        self.concurrency = concurrency or processes
        self._loaded: dict[str, Any] = {}
        self._pool: ProcessPoolExecutor | None = None

    async def open(self) -> None:
        if self.processes > 1:
            self._pool = worker_pool(self.processes)

    def _bot(self, name: str) -> Any:
        if name not in self._loaded:
            b = self.bots[name]
            self._loaded[name] = load_bot(b) if isinstance(b, str) else b
        return self._loaded[name]

    async def play(self, match: PlannedMatch) -> MatchRecord:
        if self._pool is None or match.guests or match.observers:
            # a fresh InProcessSeat per match: each plays a fresh copy of its bot
            seats = [match.guests.get(i) or InProcessSeat(self._bot(n), n) for i, n in enumerate(match.seats)]
            record = await run_match(match.config, seats, observers=match.observers)
        else:
            specs = tuple(self.bots[n] for n in match.seats)
            future = self._pool.submit(_play_in_worker, match.config, specs, match.seats)
            record = await asyncio.wrap_future(future)
        return dataclasses.replace(record, venue=self.label) if self.label else record

    async def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


@functools.cache
def worker_context() -> Any:
    """How worker processes start (``InProcess``'s, and the tools' pools): forked by a fork
    server, never from this process. A process that serves or calls gRPC (``arbiter serve``,
    a test session's shared servers) runs gRPC's threads, and a child forked from it while one
    of them holds a lock may spin on it for ever (seen once: a pool worker of a pytest-xdist
    worker spun 11 minutes of CPU after gRPC logged that it skipped its fork handlers). The
    fork server is a fresh interpreter that imports this engine once and forks each worker
    from itself: a worker costs about what a fork of this process did, and holds none of its
    threads. Work goes to the workers as text and plain values (bots by spec), as it always
    did: every work item of a pool is pickled whatever the start method."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["arbiter.batch.engine"])
    return ctx


def worker_pool(workers: int, context: Any = None) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes (started by ``worker_context()``, or ``context``) that
    end when this process ends, however it ends.

    A pool's workers do not notice on their own: each holds both ends of its work queue's
    pipe and the fork server's, so when this process was killed (SIGTERM from a scheduler,
    SIGKILL, the OOM killer) they, the fork server and the resource tracker slept on for
    ever (seen: ``arbiter evaluate -j 2`` killed, four processes left). Each worker now looks
    every ``PARENT_WATCH_S`` whether this process (its pid with the start time it had) is
    still there, and exits if not."""
    me = os.getpid()
    return ProcessPoolExecutor(max_workers=workers, mp_context=context or worker_context(),
                               initializer=_end_with, initargs=(me, _started(me)))


#: How often a pool worker looks whether the process that made its pool is still there.
PARENT_WATCH_S = 1.0


def _started(pid: int) -> str | None:
    """Process ``pid``'s start time (clock ticks since boot, /proc), None if it is gone; a
    pid reused by a later process has another."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _end_with(pid: int, started: str | None) -> None:
    """A pool worker's initializer: exit when process ``pid`` (the pool's maker) is gone."""
    def gone() -> bool:
        if started is not None:
            return _started(pid) != started
        try:  # no /proc: the pid alone
            os.kill(pid, 0)
        except OSError:  # no such process, or another user's by now
            return True
        return False

    def watch() -> None:
        while not gone():
            time.sleep(PARENT_WATCH_S)
        os._exit(1)

    threading.Thread(target=watch, name="end-with-the-pool's-maker", daemon=True).start()


def _worker_bot(spec: str) -> Any:
    return load_bot(spec)


def _play_in_worker(config: MatchConfig, specs: Sequence[str], names: Sequence[str]) -> MatchRecord:
    """One match in a worker process of ``InProcess``."""
    return asyncio.run(run_match(config, [InProcessSeat(_worker_bot(s), n) for s, n in zip(specs, names)]))


class _Streams:
    """A venue whose seats are bot streams (``RemoteSeat``s of sessions of a hub), each
    match with its observers (``observers(config)``: a spectating hub's)."""

    def __init__(self, game: str | None, observers: Callable[[MatchConfig], Sequence[Any]] = lambda c: (),
                 concurrency: int = 1):
        self.game = game  # None: each match's own (a bot's vetting plays every game it claims)
        #: the first session of each bot (what its Hello said: name, version, games), by name
        self.hello: dict[str, Any] = {}
        self.observers = observers
        self.concurrency = concurrency

    async def open(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def _run(self, match: PlannedMatch, sessions: Sequence[Any]) -> MatchRecord:
        # each session is named after its bot: a process's launch token, a bot token, carries the name
        bots = iter(RemoteSeat(s, match.config.game) for s in sessions)
        seats = [match.guests.get(i) or next(bots) for i in range(len(match.seats))]
        return await run_match(match.config, seats, observers=[*self.observers(match.config), *match.observers])

    @staticmethod
    def _filled(match: PlannedMatch) -> list[str]:
        """The names of the seats this venue fills (not the caller's guests)."""
        return [n for i, n in enumerate(match.seats) if i not in match.guests]


class Hosted(_Streams):
    """Bot processes of a started ``BotHost`` over gRPC: per match a lease of one session
    per seat (for the match's deal), released when the match ends. ``observers(config)``
    gives a match's observers (a spectating hub's)."""

    def __init__(self, host: BotHost, game: str | None, observers: Callable[[MatchConfig], Sequence[Any]] = lambda c: (),
                 concurrency: int = 1):
        super().__init__(game, observers, concurrency)
        self.host = host

    async def play(self, match: PlannedMatch) -> MatchRecord:
        # (a process that died before its match began is replaced by the host itself)
        lease, sessions = await self.host.lease(self._filled(match), match.deal)
        try:
            return await self._run(match, sessions)
        finally:
            self.host.release(lease)


class Connected(_Streams):
    """Bots that connected to ``hub`` on their own (remote bots: their authors' machines,
    processes and memory; ``arbiter arena`` with ``division = "remote"``): per match the
    least busy live session of each seat's bot, another one for each further seat of the
    same bot (one stream never holds two seats of a match). A bot not connected (often
    enough) when its match begins has its seats disconnect: a forfeit, in the record."""

    def __init__(self, hub: Hub, game: str, observers: Callable[[MatchConfig], Sequence[Any]] = lambda c: (),
                 concurrency: int = 1):
        super().__init__(game, observers, concurrency)
        self.hub = hub

    async def play(self, match: PlannedMatch) -> MatchRecord:
        taken: list[Any] = []
        for name in self._filled(match):
            session = self.hub.find(name, besides=taken)
            taken.append(session if session is not None else
                         Hub.gone(name, f"{name} was not connected (once per seat) when the match began"))
        return await self._run(match, taken)


class BotsDoNotPlay(ConfigError):
    """A bot that does not play the batch's game: ``spec``, as it was given, does not play
    ``game`` but ``plays`` (``cardarena.names.does_not_play``'s words); ``bot``: its seat name."""

    def __init__(self, spec: str, game: str, plays: Sequence[str], bot: str = "") -> None:
        super().__init__(does_not_play(spec, game, plays))
        self.game, self.plays, self.bot = game, tuple(plays), bot


@contextlib.asynccontextmanager
async def hosted(sources: Mapping[str, str], game: str | None, *, isolation: str = "deal", copies: int = 1,
                 processes: int = 1, max_restarts: int = 3, warm: int = 1, spectators: Any = None,
                 concurrency: int = 1, on_start: Callable[[str], None] | None = None,
                 on_start_error: Callable[[BotStartError], None] | None = None,
                 **host_options: Any) -> AsyncIterator[tuple[Hosted, dict[str, Any]]]:
    """A private arbiter on a free loopback port and a ``BotHost`` for ``sources`` (bot spec
    by seat name): yields the ``Hosted`` venue and the bots' first sessions by name, and
    stops both whatever happens. ``spectators`` (a ``SpectatorHub``) is served by the
    arbiter and observes every match; ``on_start(address)`` is called as soon as the arbiter
    is up (a watcher may connect and wait while the bots start).
    BotsDoNotPlay if a bot does not play ``game`` (None: the matches' own games, not
    checked: the caller reads ``Hosted.hello``); BotStartError if one does not connect,
    unless ``on_start_error`` takes it (its seats then disconnect in their matches).
    Callers open it through ``arbiter.batch.venue.open_venue``."""
    server = await start_private_server(spectators) if spectators is not None else await start_private_server()
    host = None
    if on_start is not None:
        on_start(server.address)
    try:
        host = BotHost(server.hub, server.address, dict(sources), isolation=isolation, copies=copies,
                       processes=processes, max_restarts=max_restarts, warm=warm, **host_options)
        try:
            sessions = await host.start()
        except BotStartError as exc:
            if on_start_error is None:
                raise
            on_start_error(exc)
            sessions = {}
        for n, session in sessions.items():
            if game is not None and not session.plays(game):
                raise BotsDoNotPlay(sources[n], game, session.games, n)
        observers = spectators.observers if spectators is not None else (lambda config: ())
        venue = Hosted(host, game, observers, concurrency)
        venue.hello = dict(sessions)
        yield venue, sessions
    finally:
        await server.stop(0.5)
        if host is not None:
            await host.stop()


def batch_key() -> str:
    """A fresh key for a batch that has no stored id (a venue's task names)."""
    return secrets.token_hex(4)
