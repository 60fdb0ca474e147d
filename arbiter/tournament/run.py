"""Tournaments: the schedule for every game shape, running it concurrently, resuming it.

Shapes (from ``Game.teams``): head to head (two sides of one seat), partnerships (sides
of several seats: a bot and its copies, or named teams) and free for all (k sides of one
seat). What occupies a side is an *entry*: a bot, or a team.

* Tables: round robin plays every combination of k entries (k = number of sides); with
  fewer entries than sides, every multiset of k entries that contains each entry at least
  once (so copies fill the table evenly). A gauntlet plays only the tables holding the
  challenger; a double round robin plays every table in two rounds of fresh deals.
* Seatings: the rotations of a table's entries over the sides (or all permutations, spec
  ``seatings``), times the rotations of team members over their side's seats when a team
  has distinct members. Every entry (and bot) sits at every side (seat) equally often.
* Duplicate deals (default): each deal seed depends only on the tournament seed, the round
  and the deal number, so every table plays the same deals, and each deal is played once in
  every seating: the luck of the cards cancels out. Without duplicate, each (table, deal)
  gets its own seed and one seating, the seatings rotating over the deals.

Results go to the store as each match ends. Running the same spec again resumes: matches
already stored are kept, the others are played from scratch (same seeds, same results).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import hashlib
import itertools
import logging
import os
import secrets
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from cardarena.games import ConfigError, Game
from arbiter.hosting.local import LocalSeat
from cardarena.records import MatchRecord
from arbiter.match import SeatClient, run_match
from arbiter.tournament.spec import Format, Seatings, SpecError, TournamentSpec, bot_names, is_registered_ref
from arbiter.store.db import MatchRow, Store, StoreError
from arbiter.store.registry import RegistryError, lookup
from arbiter.tournament import cluster as dask_cluster
from arbiter.hosting.loading import load_bot
from arbiter.hosting.botproc import BotHost
from arbiter.server.arena import RemoteSeat
from arbiter.server.app import start_private_server
from arbiter.spectating.hub import SpectatorHub
from arbiter.tournament.disclosure import Disclosure, of_tournament, shown_seed
from arbiter.tournament.ratings import compute_standings, side_points

log = logging.getLogger(__name__)

__all__ = [
    "ScheduledMatch", "TournamentSpec", "Progress", "bot_names", "derive_seed", "schedule", "run_tournament", "Entry",
]


def derive_seed(seed: int, *parts: Any) -> int:
    """A 48-bit seed from the tournament seed and a path; stable across Python versions."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


@dataclass(frozen=True)
class Entry:
    """What occupies one side: ``members[i]`` is the bot at the side's i-th seat."""

    label: str
    members: tuple[str, ...]


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of the schedule. ``idx`` is its stable position (the resume key)."""

    idx: int
    round: int
    deal: int  # deal number within the round
    table: int  # which combination of entries
    seating: int  # which seating of that table (for that deal)
    seed: int  # the deal seed
    seats: tuple[str, ...]  # bot name per seat
    sides: tuple[str, ...]  # entry label per side (in Game.teams order)

    @property
    def rotation(self) -> int:  # the first cut's name for ``seating``
        return self.seating


def entries_of(spec: TournamentSpec, game: Game) -> list[Entry]:
    """The spec's entries for this game's side size."""
    per_side = len(game.teams[0])
    if spec.teams:
        return [Entry("+".join(t), tuple(t)) for t in spec.teams]
    return [Entry(n, (n,) * per_side) for n in spec.bot_names]


def _covering(entries: Sequence[Entry], k: int) -> list[tuple[Entry, ...]]:
    """Every combination of k entries; with fewer than k, every multiset holding each one."""
    if k <= 0:
        return [()]
    if len(entries) >= k:
        return list(itertools.combinations(entries, k))
    return [c for c in itertools.combinations_with_replacement(entries, k) if set(c) == set(entries)]


def tables_of(entries: Sequence[Entry], k: int, fmt: Format, challenger: str | None = None) -> list[tuple[Entry, ...]]:
    """The combinations of entries that meet, in a fixed order."""
    if fmt is Format.GAUNTLET:
        champ = next(e for e in entries if e.label == (challenger or entries[0].label))
        field = [e for e in entries if e is not champ]
        return [(champ, *rest) for rest in _covering(field, k - 1)]
    return _covering(entries, k)


def _dedupe(seq: Iterator[tuple]) -> list[tuple]:
    return list(dict.fromkeys(seq))


def seatings_of(table: Sequence[Entry], game: Game, mode: Seatings = Seatings.ROTATIONS) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every seating of a table: (bot per seat, entry label per side), each distinct once.

    Side orders are the rotations (or permutations) of the table; when a team has distinct
    members, their order over the side's seats rotates too (all teams at once), so each
    bot holds each seat's cards equally often.
    """
    teams = game.teams
    k, m = len(teams), len(teams[0])
    if mode is Seatings.PERMUTATIONS:
        orders = _dedupe(itertools.permutations(table))
    else:
        orders = _dedupe(tuple(table[(j - r) % k] for j in range(k)) for r in range(k))
    shifts = range(m) if any(len(set(e.members)) > 1 for e in table) else range(1)
    out = []
    for q in shifts:
        for order in orders:
            seats = [""] * game.num_seats
            for side, entry in zip(teams, order):
                for i, s in enumerate(side):
                    seats[s] = entry.members[(i + q) % m]
            out.append((tuple(seats), tuple(e.label for e in order)))
    return _dedupe(iter(out))


def schedule(
    game: Game,
    names: Sequence[str] | TournamentSpec,
    deals: int = 2,
    seed: int = 0,
    duplicate: bool = True,
) -> list[ScheduledMatch]:
    """The whole schedule; the same spec (or arguments) always gives the same list.

    ``names`` is a TournamentSpec (format, teams, seatings and rounds from it) or, for a
    plain round robin of bots and their copies, a list of bot names.
    """
    if isinstance(names, TournamentSpec):
        spec = names
        entries = entries_of(spec, game)
        fmt, challenger = Format(spec.format), spec.challenger
        deals, seed, duplicate = spec.deals, spec.seed, spec.duplicate
        if seed is None:
            raise SpecError("seed: none given; run_tournament draws a secret one (or pass seed=)")
        mode, rounds = Seatings(spec.seatings), spec.rounds
    else:
        per_side = len(game.teams[0])
        entries = [Entry(n, (n,) * per_side) for n in names]
        fmt, challenger, mode, rounds = Format.ROUND_ROBIN, None, Seatings.ROTATIONS, 1
    k = len(game.teams)
    tables = tables_of(entries, k, fmt, challenger)
    seatings = [seatings_of(t, game, mode) for t in tables]
    out: list[ScheduledMatch] = []
    # Deals outermost: a run stopped half way has played every table about equally.
    for rnd in range(rounds):
        for d in range(deals):
            for t, table_seatings in enumerate(seatings):
                if duplicate:
                    deal_seed = derive_seed(seed, "deal", rnd, d)
                    chosen = list(enumerate(table_seatings))
                else:
                    deal_seed = derive_seed(seed, "deal", rnd, d, "table", t)
                    r = (d + rnd) % len(table_seatings)
                    chosen = [(r, table_seatings[r])]
                for r, (seats, sides) in chosen:
                    out.append(ScheduledMatch(len(out), rnd, d, t, r, deal_seed, seats, sides))
    return out


# --------------------------------------------------------------------------------------
# Running.


@dataclass(frozen=True)
class Progress:
    """Reported at the start (``record`` None) and after every stored match."""

    done: int
    total: int
    record: MatchRecord | None  # the match that just finished (None at start)
    resumed: int  # matches already in the store when the run started
    leader: str = ""  # best points rate so far, e.g. "heuristic 81%"
    tournament: str = ""
    watch_address: str = ""  # set once, when the run's arbiter is up: spectators connect here
    watch_token: str = ""  # ... with this spectator token (for the organiser's eyes only)


class _Leader:
    """Points per bot so far, for the progress line (the real table is ratings.py's)."""

    def __init__(self, game: Game):
        self.game = game
        self.points: dict[str, float] = {}
        self.count: dict[str, int] = {}

    def add(self, seats: Sequence[str], ranks: Sequence[int]) -> None:
        for bot, pts in side_points(self.game.teams, seats, ranks).items():
            self.points[bot] = self.points.get(bot, 0.0) + pts
            self.count[bot] = self.count.get(bot, 0) + 1

    def text(self) -> str:
        if not self.count:
            return ""
        best = max(self.count, key=lambda b: (self.points[b] / self.count[b], b))
        return f"{best} {100 * self.points[best] / self.count[best]:.0f}%"


def resolve_bot(source: str, db_path: str | os.PathLike | None) -> str:
    """A launchable bot spec for ``source``: ``name@version`` is looked up in the registry."""
    if not is_registered_ref(source):
        return source

    if db_path is None:
        raise SpecError(f"bots: {source!r} names a registered bot, but there is no store to look it up in")
    try:
        return lookup(db_path, source)[0].spec
    except RegistryError as exc:
        raise SpecError(f"bots: {source!r}: {exc}") from None


#: Matches at once per core by default. A hosted match spends most of its wall time with
#: every seat waiting on one bot process (three of four seats idle in Spades), so more
#: matches than cores keep the cores busy: `make bench` (scale, 2 cores, 2026-11/12)
#: measured 1.38-1.47x one match at a time at M = cores, 1.81x at 2 x cores, 1.65-1.94x at
#: 4 x cores. 3 x cores sits between the two best.
MATCHES_PER_CORE = 3
#: What one bot process costs in memory (a Python with grpc and the SDK is 40-50 MB RSS),
#: to bound the default where every match in flight has fresh processes.
BOT_PROCESS_BYTES = 64 * 2**20


def _available_memory() -> int | None:
    """MemAvailable (bytes) from /proc/meminfo; None where there is none."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def default_concurrency(isolation: str, seats: int, cores: int | None = None, memory: int | None = None) -> int:
    """The matches at once a tournament runs when none is given: ``MATCHES_PER_CORE`` x
    cores, and with fresh processes per match (``deal``, ``match`` isolation: a match in
    flight holds its seats' processes and as many warm spares) no more than half the
    available memory holds. At least 1."""
    cores = cores or os.cpu_count() or 2
    n = MATCHES_PER_CORE * cores
    if isolation in ("deal", "match"):
        memory = memory if memory is not None else _available_memory()
        if memory is not None:
            n = min(n, memory // 2 // (2 * seats * BOT_PROCESS_BYTES))
    return max(1, n)


async def run_tournament(
    spec: TournamentSpec,
    store: Store,
    concurrency: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    fresh: bool = False,
    transport: str = "grpc",
    max_restarts: int = 3,
    cluster: str | None = None,
    ship_bots: bool = True,
) -> list[MatchRow]:
    """Run (or resume) the tournament; returns every match row once all are stored.

    ``transport="grpc"`` starts an arbiter on a free loopback port and ``bot_processes``
    processes per bot, each serving any number of matches at once over its stream;
    ``"inproc"`` plays trusted bots in this process (same results for the same seeds). A
    bot process that dies is restarted (up to ``max_restarts`` times per bot) so one crash
    costs the matches in flight, not the rest of the tournament. SpecError/StoreError
    before anything runs for a bad spec or a busy store.

    ``cluster`` (or ``spec.cluster``), a Dask scheduler address such as
    ``tcp://host:8786``, runs the matches on that cluster instead (``arbiter.tournament.cluster``):
    same seeds, same records, written here as they arrive. ``ship_bots=False`` sends
    registered bots by the path of their stored copy (a file system every worker mounts)
    instead of their files.
    """
    if transport not in ("grpc", "inproc"):
        raise SpecError(f"transport: expected grpc or inproc, got {transport!r}")
    cluster = cluster or spec.cluster
    if cluster and transport == "inproc":
        raise SpecError("transport: a cluster runs every bot as a sandboxed process; inproc does not apply to --cluster")
    game = spec.validate()
    names = spec.bot_names
    sources = tuple(resolve_bot(s, store.path) for s in spec.bot_sources)
    store.lock()
    tour = store.open_tournament(spec.display_name, spec.game, spec.identity(), fresh=fresh)
    if spec.seed is None:  # the deals come from a secret seed, drawn once, kept in the store
        spec = dataclasses.replace(spec, seed=store.secret_seed(tour.id))
    plan = schedule(game, spec)
    store.set_planned(tour.id, len(plan))
    store.set_entrants(tour.id, [(n, s, r) for n, s, r in zip(names, spec.bot_sources, sources)])
    done = store.done_indices(tour.id)
    todo = [m for m in plan if m.idx not in done]
    leader = _Leader(game)
    for row in store.matches(tour.id):
        leader.add(row.seats, row.outcome.ranks)
    if on_progress:
        on_progress(Progress(len(done), len(plan), None, len(done), leader.text(), tour.name))
    concurrency = concurrency or spec.concurrency or default_concurrency(
        spec.effective_isolation if transport == "grpc" else "shared", game.num_seats)
    finished = len(done)
    log.info("tournament %s: %d matches, %d stored, %d to play, %d at once", tour.name, len(plan), len(done), len(todo), concurrency)

    async def play_all(seats_for: Callable[[Sequence[str], int], Any], observers_for: Callable[[Any], Any] = lambda config: ()) -> None:
        """Play every match still to do; ``await seats_for(bot names in seat order, deal
        seed)`` gives the match's seat clients and a callable to run once it has ended.

        No bot plays two matches of one deal at the same time (``_DealTurns``): two of its
        processes playing different seatings of a duplicate deal at once could signal each
        other through the CPU they share and so hold all four hands between them."""
        turns = _DealTurns(todo)

        async def worker() -> None:
            while (m := await turns.take()) is not None:
                try:
                    seats, release = await seats_for(m.seats, m.seed)
                    config = match_config(m)
                    try:
                        record = await run_match(config, seats, observers=observers_for(config))
                    finally:
                        release()
                    save(m, record)
                finally:
                    await turns.done(m)

        await asyncio.gather(*(worker() for _ in range(min(concurrency, len(todo)))))

    def match_config(m: ScheduledMatch):
        # The id goes to every bot: it must not carry the deal seed (nor the tournament's).
        return spec.match_config(m.seed, f"{tour.id}-{m.idx}")

    stored = set(done)

    def save(m: ScheduledMatch, record: MatchRecord) -> None:
        """Store one finished match, once per index (a re-run's second record is dropped)."""
        nonlocal finished
        if m.idx in stored:
            log.warning("match %d of %s is already stored; the second record is ignored", m.idx, tour.name)
            return
        store.save_match(tour.id, m.idx, m.deal, m.seating, record, round=m.round, table=m.table, sides=m.sides)
        stored.add(m.idx)
        finished += 1
        leader.add(record.seat_names, record.outcome.ranks)
        if on_progress:
            on_progress(Progress(finished, len(plan), record, len(done), leader.text(), tour.name))

    if todo and cluster:
        refs = dask_cluster.bot_refs(spec.bot_sources, names, store.path, ship=ship_bots)
        fingerprint = dask_cluster.code_fingerprint()
        by_idx = {m.idx: m for m in todo}
        jobs = [
            dask_cluster.MatchJob(f"{tour.id}", m.idx, match_config(m), m.seats,
                                  tuple(refs[n] for n in dict.fromkeys(m.seats)), fingerprint, max_restarts,
                                  spec.effective_isolation)
            for m in todo
        ]
        await dask_cluster.play_on_cluster(
            cluster, jobs, lambda idx, record: save(by_idx[idx], record),
            lambda versions: store.set_entrant_versions(tour.id, sorted(versions.items())),
        )
    elif todo:
        if transport == "inproc":
            bots = {n: load_bot(s) for n, s in zip(names, sources)}
            seats_cache = {n: LocalSeat(bots[n], n) for n in names}

            async def local(seat_names: Sequence[str], deal: int) -> tuple[list[SeatClient], Callable[[], None]]:
                # trusted bots: a fresh copy of the Bot per (match, seat) is enough
                return [seats_cache[n] for n in seat_names], lambda: None

            await play_all(local)
        else:
            def announce(address: str, token: str) -> None:
                if on_progress:
                    on_progress(Progress(finished, len(plan), None, len(done), leader.text(), tour.name, address, token))

            copies = max((m.seats.count(n) for m in todo for n in set(m.seats)), default=1)
            await _play_grpc(spec, names, sources, store, tour.id, play_all, max_restarts, announce, copies,
                             warm=min(concurrency, len(todo)))
    store.mark_finished(tour.id)
    return store.matches(tour.id)


class _DealTurns:
    """The matches still to play, handed out in schedule order, except that a match waits
    while any of its bots is playing another match of the same deal (seed).

    Why: with duplicate deals one deal is played in several seatings, each by other
    processes of the same bots (``deal`` isolation). Processes running at the same time
    share the machine's CPUs, and a bot could use that as a channel (one process busy or
    idle, the other timing its own work) between its copy that holds one side's hands and
    its copy that holds the other's. Run one after the other, no copy of a bot is alive
    while another plays the same cards. The matches of other deals fill the concurrency;
    without duplicate deals every match has a seed of its own and nothing waits."""

    def __init__(self, matches: Sequence[ScheduledMatch]):
        self._pending = list(matches)
        self._busy: collections.Counter[tuple[int, str]] = collections.Counter()
        self._changed = asyncio.Condition()

    def _free(self, m: ScheduledMatch) -> bool:
        return not any(self._busy[(m.seed, n)] for n in set(m.seats))

    async def take(self) -> ScheduledMatch | None:
        """The first pending match none of whose bots is on its deal now; None when none is left."""
        async with self._changed:
            while self._pending:
                i = next((i for i, m in enumerate(self._pending) if self._free(m)), None)
                if i is not None:
                    m = self._pending.pop(i)
                    for n in set(m.seats):
                        self._busy[(m.seed, n)] += 1
                    return m
                await self._changed.wait()
            return None

    async def done(self, m: ScheduledMatch) -> None:
        """``m`` has ended (stored or not): the matches waiting for its deal may start."""
        async with self._changed:
            for n in set(m.seats):
                self._busy[(m.seed, n)] -= 1
            self._changed.notify_all()


async def _play_grpc(spec, names, sources, store, tournament_id, play_all, max_restarts, announce, copies=1,
                     warm=1) -> None:
    """Start the arbiter and the bot processes, play, and stop them whatever happens.

    Bot processes come from a ``BotHost`` with the spec's isolation (by default with
    duplicate deals ``deal``: no process plays two matches of one deal). The run's arbiter
    also serves the Spectate service to whoever holds its token (public frames only: no
    delay is configured, so no hidden card; with duplicate deals not even the full deal at
    the end), announced through ``announce(address, token)``."""

    # With duplicate deals a finished match's cards come back in the next seating. The bots
    # reach this server too: spectating needs a token they never see (only the organiser).
    # While the run lasts, a finished match's deal may be shown only if the policy says so.
    running = Disclosure(spec.display_name, running=True, duplicate=spec.duplicate)
    spectators = SpectatorHub(reveal_at_end=running.matches, token=secrets.token_urlsafe(18))
    server = await start_private_server(spectators)
    host = BotHost(
        server.hub, server.address, dict(zip(names, sources)), isolation=spec.effective_isolation, copies=copies,
        processes=spec.bot_processes, max_restarts=max_restarts, warm=warm,
    )
    try:
        sessions = await host.start()
        for n, session in sessions.items():
            if not session.plays(spec.game):
                raise SpecError(f"bots: {n!r} does not play {spec.game} (it plays {', '.join(session.games)})")
        announce(server.address, spectators.token)  # once the bots are up and play the game: then there is a run to watch
        store.set_entrant_versions(tournament_id, [(n, s.bot_version) for n, s in sessions.items()])

        async def remote(seat_names: Sequence[str], deal: int) -> tuple[list[SeatClient], Callable[[], None]]:
            # (a process that died before its match began is replaced by the host itself)
            lease, seat_sessions = await host.lease(seat_names, deal)
            # each session is named after its bot (a process's launch token carries the name)
            return [RemoteSeat(session, spec.game) for session in seat_sessions], lambda: host.release(lease)

        await play_all(remote, spectators.observers)
    finally:
        await server.stop(0.5)
        await host.stop()


# --------------------------------------------------------------------------------------
# Standings.


def standings(rows: Sequence[MatchRow], game: Game, duplicate: bool = True, bots: Sequence[str] = ()):
    """The table (arbiter.tournament.ratings.Standings) for these stored matches of ``game``."""

    return compute_standings(rows, game.teams, duplicate, bots)


def tournament_info(tour, spec: TournamentSpec) -> dict[str, Any]:
    """What the exports say about a stored tournament."""
    shown = of_tournament(tour).seed
    return {
        "name": tour.name, "id": tour.id, "game": spec.game, "options": dict(spec.options), "preset": spec.preset,
        "format": spec.format, "deals": spec.deals, "duplicate": spec.duplicate, "seatings": spec.seatings,
        "seed": spec.seed if shown else None, "seed_withheld": not shown,
        "bots": list(spec.bots), "teams": [list(t) for t in spec.teams],
        "planned": tour.planned, "played": tour.done, "finished": tour.finished is not None,
    }


def load_standings(store: Store, name_or_id: str | int | None = None):
    """(Standings, info) of a stored tournament; StoreError/SpecError if it is unusable."""
    tour = store.tournament(name_or_id)
    try:
        spec = TournamentSpec.from_json(tour.spec)
        game = spec.validate_game()
    except (TypeError, ConfigError) as exc:
        raise StoreError(f"tournament {tour.name!r}: stored spec is unusable: {exc}") from None
    rows = store.matches(tour.id)
    info = tournament_info(tour, spec)
    if spec.seed is None and of_tournament(tour).seed:  # over: the drawn seed reproduces it
        info["seed"], info["seed_drawn"] = shown_seed(store, tour), True
    return standings(rows, game, spec.duplicate, spec.bot_names), info
