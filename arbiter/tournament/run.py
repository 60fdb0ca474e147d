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

The schedule is a plan for the one batch engine (``arbiter.batch.engine.play_batch``), which
plays it in process, over gRPC or on a Dask cluster, with the seeds and seatings of
``arbiter.batch.plan``. Results go to the store as each match ends. Running the same spec
again resumes: matches already stored are kept, the others are played from scratch (same
seeds, same results).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import itertools
import json
import logging
import os
import secrets
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from cardarena.games import ConfigError, Game, Outcome
from cardarena.disclosure import OPEN, Counted, Disclosure
from cardarena.records import MatchRecord
from arbiter.batch.plan import Entry, PlannedMatch, Seatings, deal_seed, derive_seed, seatings_of
from arbiter.batch.settings import as_stored_paths, bot_contents, keyed_spec, resolve_bot
# The batch engine, the venue and the spectator hub (with them the gRPC server, the bot hosting, the cluster
# driver: ~0.1 s of CPU) are imported by the functions that run a tournament: `arbiter web`
# and `arbiter standings` import this module for its standings only.
if TYPE_CHECKING:
    from arbiter.batch.venue import Where
from arbiter.hosting.botproc import DEFAULT_TRANSPORT
from arbiter.tournament.spec import Format, SpecError, TournamentSpec, bot_names, entrant_names, in_stored_form
from arbiter.store.db import MatchRow, Store, StoreError, run_holder
from arbiter.server import auth
from arbiter.rating.ratings import compute_standings, counted_result, forfeit_stake, side_points

log = logging.getLogger(__name__)

__all__ = [
    "ScheduledMatch", "TournamentSpec", "Progress", "bot_names", "derive_seed", "schedule", "run_tournament", "Entry",
]


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
                    seed_of_deal = deal_seed(seed, d, rnd)
                    chosen = list(enumerate(table_seatings))
                else:
                    seed_of_deal = deal_seed(seed, d, rnd, table=t)
                    r = (d + rnd) % len(table_seatings)
                    chosen = [(r, table_seatings[r])]
                for r, (seats, sides) in chosen:
                    out.append(ScheduledMatch(len(out), rnd, d, t, r, seed_of_deal, seats, sides))
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
    venue: str = ""  # where the bots play, in words (``arbiter.batch.venue.describe``), at the start
    over: bool = False  # at the start: the tournament was finished already, nothing is played nor written


class _Leader:
    """Points per bot so far, for the progress line (the real table is ratings.py's); a
    named partnership counts once, as "a + b", the row the standings show for it. While the
    run is closed (``rule``: with duplicate deals) a deal's matches count once all of them are
    in (``Disclosure.counted``, as every table of a running tournament counts them): the line
    moved with each match, telling its result while its twin was still to be played."""

    def __init__(self, game: Game, teams: Sequence[Sequence[str]] = (), rule: Disclosure = OPEN,
                 planned: Mapping[Any, int] | None = None):
        self.game = game
        self.label = {m: " + ".join(t) for t in teams for m in t}
        self.points: dict[str, float] = {}
        self.count: dict[str, int] = {}
        self.rule, self.planned = rule, planned or {}
        self.held: dict[Any, list[tuple[Sequence[str], Outcome]]] = {}  # a deal's matches not counted yet

    def add(self, seats: Sequence[str], outcome: Outcome, deal: Any = None) -> None:
        held = self.held.setdefault(deal, [])
        held.append((seats, outcome))
        counted = self.rule.counted(held, lambda _: deal, {deal: self.planned.get(deal, 0)}).rows
        if counted:
            del self.held[deal]
        for seats, outcome in counted:
            self._count(seats, outcome)

    def _count(self, seats: Sequence[str], outcome: Outcome) -> None:
        # partners score the same points in a match: one entry per side; a forfeit as the table reads it
        ranks = counted_result(outcome, seats, self.game.teams)[1]
        by_entry = {self.label.get(bot, bot): pts for bot, pts in side_points(self.game.teams, seats, ranks).items()}
        for entry, pts in by_entry.items():
            self.points[entry] = self.points.get(entry, 0.0) + pts
            self.count[entry] = self.count.get(entry, 0) + 1

    def text(self) -> str:
        """The best points rate and who has it: all of them when level (it named the last of
        them by name, "random 50%" for a field of equals), two by name and the count of the rest."""
        if not self.count:
            return ""
        rate = {b: self.points[b] / self.count[b] for b in self.count}
        top = max(rate.values())
        level = sorted(b for b in rate if abs(rate[b] - top) < 1e-9)
        who = level[0] if len(level) == 1 else ", ".join(level[:2]) + (f" and {len(level) - 2} more" if len(level) > 2 else "") + " (level)"
        return f"{who} {100 * top:.0f}%"


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
    transport: str | Where = DEFAULT_TRANSPORT,
    max_restarts: int = 3,
    cluster: str | None = None,
    ship_bots: bool = True,
    on_begin: Callable[[], None] | None = None,
) -> list[MatchRow]:
    """Run (or resume) the tournament; returns every match row once all are stored.

    ``transport`` ``"local"`` (the default, ``DEFAULT_TRANSPORT``) starts an arbiter on a free loopback
    port and ``bot_processes`` processes per bot on its local channel, each serving any
    number of matches at once over its stream (``"grpc"``: the same over gRPC);
    ``"inproc"`` plays trusted bots in this process (same results for the same seeds). A
    bot process that dies is restarted (up to ``max_restarts`` times per bot) so one crash
    costs the matches in flight, not the rest of the tournament. SpecError/StoreError
    before anything runs for a bad spec or a busy store.

    ``cluster`` (or ``spec.cluster``), a Dask scheduler address such as
    ``tcp://host:8786``, runs the matches on that cluster instead (``arbiter.batch.cluster``):
    same seeds, same records, written here as they arrive. ``ship_bots=False`` sends
    registered bots by the path of their stored copy (a file system every worker mounts)
    instead of their files.

    A tournament finished already (every match stored) is left as it is: no bot started,
    nothing written, its rows returned, and ``on_progress`` told so (``Progress.over``).

    ``on_begin`` is called once the run is known to start (its bots up, its cluster reached),
    before it writes its tournament: a run stopped before then (a Ctrl-C while its bots start)
    wrote nothing, and its caller can say so rather than "the finished matches are stored".
    """
    from arbiter.batch.engine import BotsDoNotPlay, batch_key, play_batch
    from arbiter.batch.venue import Kind, describe, open_venue
    from arbiter.spectating.hub import SpectatorHub

    where = tournament_where(spec, transport, cluster)
    game = spec.validate()
    names, name = spec.bot_names, spec.display_name
    sources = tuple(resolve_bot(s, store.path) for s in spec.bot_sources)
    store.lock(name)
    stored = None if fresh else store.stored_spec(name)
    if stored is not None and (bots := as_stored_paths(spec.bots, stored.get("bots"))) != spec.bots:
        spec = dataclasses.replace(spec, name=name, bots=bots)  # a spec file's paths as an older run stored them
        sources = tuple(resolve_bot(s, store.path) for s in spec.bot_sources)
    key = keyed_spec(in_stored_form(spec.identity(), stored), bot_contents(spec.bot_sources), stored, name,
                     str(store.path))  # bots edited since: not resumed
    # Nothing is written until the run is known to start (its bots up, its cluster reached: ``begin``): one that
    # never starts (a bot that does not load, a cluster out of reach) left a "0/N interrupted" tournament whose
    # resume failed alike, and with --fresh, the finished one it was to replace deleted.
    resumed = store.open_tournament(name, spec.game, key, fresh=fresh, check=True)
    if resumed is not None and (kept := entrant_names(store, resumed.id, spec.bots)) != names:
        # its records' names, not another set beside them
        spec = dataclasses.replace(spec, name=name, bots=tuple(f"{n}={s}" for n, s in zip(kept, spec.bot_sources)))
        names = kept
    drawn = None
    if spec.seed is None:  # the deals come from a secret seed, drawn once, kept in the store
        drawn = store.drawn_seed(resumed.id) if resumed is not None else None
        drawn = secrets.randbits(62) if drawn is None else drawn
        spec = dataclasses.replace(spec, name=name, seed=drawn)
    plan = schedule(game, spec)
    done = store.done_indices(resumed.id) if resumed is not None else set()
    todo = [m for m in plan if m.idx not in done]
    leader = _Leader(game, spec.teams, spec.disclosure, collections.Counter((m.round, m.deal) for m in plan))
    for row in store.matches(resumed.id, records=False) if resumed is not None else ():
        leader.add(row.seats, row.outcome, _deal_of(row))
    if resumed is not None and resumed.finished is not None and not todo:
        # finished already: its standings are the caller's to print, as they are; no bot started, and nothing
        # written (its tournament begun again would take a new finishing time, as if played now)
        log.info("tournament %s: finished already, its %d matches stored", name, len(plan))
        if on_progress:
            on_progress(Progress(len(done), len(plan), None, len(done), leader.text(), name, over=True))
        return store.matches(resumed.id)
    if on_progress:
        on_progress(Progress(len(done), len(plan), None, len(done), leader.text(), name,
                             venue=describe(where, spec.bot_sources, sources)))
    concurrency = concurrency or spec.concurrency or default_concurrency(
        spec.effective_isolation if where.kind is not Kind.INPROC else "shared", game.num_seats)
    finished = len(done)
    log.info("tournament %s: %d matches, %d stored, %d to play, %d at once", name, len(plan), len(done), len(todo), concurrency)

    tour: Any = None  # the tournament written, once the run has begun
    watched: list[str] = []  # the spectators' address, heard before the run began (``announce``)
    versions: dict[str, str] = {}  # what the bots said they are, before the tournament is written

    def begin() -> None:
        """The run starts: its tournament written (created; with ``fresh`` the old one replaced
        in the same transaction; resumed: as it was), with its plan, seed and entrants."""
        nonlocal tour
        if on_begin is not None:
            on_begin()
        tour = store.open_tournament(name, spec.game, key, fresh=fresh)
        if drawn is not None and store.secret_seed(tour.id, drawn) != drawn:  # (one run at a time: the lock)
            raise StoreError(f"tournament {name!r} in {store.path}: its secret seed changed under this run")
        store.set_planned(tour.id, len(plan))
        store.set_entrants(tour.id, [(n, s, r) for n, s, r in zip(names, spec.bot_sources, sources)])
        if versions:
            store.set_entrant_versions(tour.id, sorted(versions.items()))
        if watched:  # the spectators' server came up first: said now, when the tournament is there to watch
            announce(watched.pop())

    def heard(said: dict[str, str]) -> None:
        versions.update(said)
        if tour is not None:
            store.set_entrant_versions(tour.id, sorted(said.items()))

    def match_config(m: ScheduledMatch):
        # The id goes to every bot: it must not carry the deal seed (nor the tournament's).
        assert tour is not None  # (the matches are made once the run has begun)
        return spec.match_config(m.seed, f"{tour.id}-{m.idx}")

    stored = set(done)

    def save(pm: PlannedMatch, record: MatchRecord) -> None:
        """Store one finished match, once per index (a re-run's second record is dropped)."""
        nonlocal finished
        m = pm.item
        if m.idx in stored:
            log.warning("match %d of %s is already stored; the second record is ignored", m.idx, name)
            return
        store.save_match(tour.id, m.idx, m.deal, m.seating, record, round=m.round, table=m.table, sides=m.sides)
        stored.add(m.idx)
        finished += 1
        leader.add(record.seat_names, record.outcome, (m.round, m.deal))
        if on_progress:
            on_progress(Progress(finished, len(plan), record, len(done), leader.text(), name))

    # made once the run has begun (``play_batch`` reads its plan after ``on_open``): each match's id is its tournament's
    batch = (PlannedMatch(m.idx, match_config(m), m.seats, m) for m in plan)

    def announce(address: str) -> None:
        """Where to watch the run (the CLI writes the watch file beside the store and prints the
        line): only once the tournament is written (``begin``), or a page or ``watch --db``
        following the line at once found no tournament of that name."""
        if tour is None:
            watched.append(address)
        elif on_progress:
            on_progress(Progress(finished, len(plan), None, len(done), leader.text(), name, address,
                                 spectators.token))

    copies = max((m.seats.count(n) for m in todo for n in set(m.seats)), default=1)
    # With duplicate deals a finished match's cards come back in the next seating. The
    # bots reach this server too: spectating needs a token they never see (only the
    # organiser). What a finished match shows is its disclosure's (spec.match_config sets it).
    spectators = SpectatorHub(token=auth.new_token(18))
    if todo:
        # Bot processes with the spec's isolation (by default with duplicate deals
        # ``deal``: no process plays two matches of one deal); in process, a fresh copy of
        # each bot per (match, seat); on a cluster, the workers host them.
        try:
            async with open_venue(
                    where, dict(zip(names, spec.bot_sources)), spec.game, db_path=store.path,
                    isolation=spec.effective_isolation, copies=copies, processes=spec.bot_processes,
                    max_restarts=max_restarts, warm=min(concurrency, len(todo)), spectators=spectators,
                    on_start=announce, batch=str(resumed.id) if resumed is not None else batch_key(),
                    ship_bots=ship_bots, planned=collections.Counter(n for m in todo for n in m.seats),
                    on_versions=heard) as venue:
                at_once = None if where.kind is Kind.CLUSTER else concurrency
                async with contextlib.aclosing(play_batch(batch, venue, concurrency=at_once, skip=done, save=save,
                                                          on_open=begin)) as played:
                    async for _ in played:
                        pass
        except BotsDoNotPlay as exc:
            raise SpecError(str(exc)) from None
    else:
        begin()
    store.mark_finished(tour.id)
    return store.matches(tour.id)


# --------------------------------------------------------------------------------------
# Standings.


def standings(rows: Sequence[MatchRow], game: Game, duplicate: bool = True, bots: Sequence[str] = ()):
    """The table (arbiter.rating.ratings.Standings) for these stored matches of ``game`` (a
    forfeit in its margins at the game's widest: ``ratings.forfeit_stake``).

    The last ``STANDINGS_KEPT`` tables are kept for the next reader, keyed on everything the
    table is made of (each match's place, seats, outcome and incidents, the teams, the stake):
    a tournament's page, each of its bots' pages and every update a running one pushes ask for
    the same table, whose profile intervals take seconds for a field of 50 (docs/strength.md,
    "Lopsided pairs"). The table is read, never changed, by its readers."""
    teams = tuple(tuple(t) for t in game.teams)
    stake = forfeit_stake(game)
    key = (teams, bool(duplicate), tuple(bots), stake,
           tuple((r.idx, r.round, r.deal, r.table, r.seed, tuple(r.seats), r.outcome, tuple(r.incidents)) for r in rows))
    with _STANDINGS_LOCK:
        kept = _STANDINGS.get(key)
        if kept is not None:
            _STANDINGS.move_to_end(key)
            return kept
    table = compute_standings(rows, teams, duplicate, bots, stake)
    with _STANDINGS_LOCK:
        _STANDINGS[key] = table
        while len(_STANDINGS) > STANDINGS_KEPT:
            _STANDINGS.popitem(last=False)
    return table


#: How many tables ``standings`` keeps (least recently read dropped first).
STANDINGS_KEPT = 16
_STANDINGS: collections.OrderedDict[tuple, Any] = collections.OrderedDict()
_STANDINGS_LOCK = threading.Lock()


def forget_standings() -> None:
    """Drop the tables ``standings`` keeps (a measurement of a cold read)."""
    with _STANDINGS_LOCK:
        _STANDINGS.clear()


def planned_deals(spec: TournamentSpec, game: Game, evaluation: bool = False) -> collections.Counter:
    """How many matches the plan plays each deal in, by (round, deal): every seating at every
    table (with duplicate deals every table of a round plays its deals; ``schedule``), or an
    evaluation's two seatings (``arbiter.tournament.evaluate.evaluation_plan``). The plan's
    shape only: no seed is needed, none is used."""
    if evaluation:  # (a stored evaluation's spec: its "evaluate" key)
        return collections.Counter({(0, d): 2 for d in range(spec.deals)})
    return collections.Counter((m.round, m.deal) for m in schedule(game, dataclasses.replace(spec, seed=0)))


def counted_matches(store: Store, tour, rows: Sequence[MatchRow] | None = None) -> Counted:
    """The stored matches of ``tour`` whose numbers may be added up now (``rows``: those read
    already, else read here without their records): the one function every reader of a
    tournament's numbers asks (the standings, their exports, the web pages, ``tournament show``'s
    and the standings' think times, the s.d. ``--sd-bound auto`` reads). While the tournament is
    closed (``cardarena.disclosure``: running with duplicate deals) only the deals all of whose
    planned matches are stored count (``Disclosure.counted``: the plan from the spec, never from
    the rows stored so far); else every stored match. StoreError if a closed one's stored spec
    cannot give its plan (then nothing of it could be counted safely)."""
    rows = store.matches(tour.id, records=False) if rows is None else rows
    rule = tour.disclosure
    if not rule.closed:
        return rule.counted(rows, _deal_of, {})
    try:
        planned = _planned_of(json.dumps(tour.spec, sort_keys=True))
    except (TypeError, ValueError, ConfigError) as exc:
        raise StoreError(f"tournament {tour.name!r}: stored spec is unusable: {exc}") from None
    return rule.counted(rows, _deal_of, planned)


@functools.lru_cache(maxsize=16)
def _planned_of(spec_json: str) -> Mapping[tuple[int, int], int]:
    """``planned_deals`` of a stored spec (its JSON text), kept for the next reader: a running
    tournament's page asks at every load and every update it pushes, and the plan of 90,000
    matches took 0.2 s to make again each time (read-only: ``Disclosure.counted`` only reads it)."""
    stored = json.loads(spec_json)
    spec = TournamentSpec.from_json(stored)
    return planned_deals(spec, spec.validate_game(), evaluation="evaluate" in stored)


def counted_think_times(store: Store, tour, counted: Counted | None = None) -> dict[str, Any]:
    """Each bot's think times (``Store.think_times``) over the matches ``counted_matches``
    counts (``counted``: its answer, if asked already): a running duplicate tournament's times
    moved with each match stored, as its table did."""
    if not tour.disclosure.closed:  # every stored match counts (and its rows need not be read)
        return store.think_times(tour.id)
    counted = counted_matches(store, tour) if counted is None else counted
    return store.think_times(tour.id, {r.idx for r in counted.rows})


def _deal_of(row: MatchRow) -> tuple[int, int]:
    """A stored match's deal: its round's deal number (every table of a round plays it)."""
    return (row.round, row.deal)


def tournament_info(tour, spec: TournamentSpec) -> dict[str, Any]:
    """What the exports say about a stored tournament."""
    shown = tour.disclosure.seed
    return {
        "name": tour.name, "id": tour.id, "game": spec.game, "options": dict(spec.options), "preset": spec.preset,
        "format": spec.format, "deals": spec.deals, "duplicate": spec.duplicate, "seatings": spec.seatings,
        "seed": spec.seed if shown else None, "seed_withheld": not shown,
        "bots": list(spec.bots), "teams": [list(t) for t in spec.teams],
        "planned": tour.planned, "played": tour.done, "finished": tour.finished is not None,
        "stopped_early": tour.stopped_early,
    }


def tournament_where(spec: TournamentSpec, transport: str | Where | None, cluster: str | None = None) -> Where:
    """Where a tournament's matches are played (``venue.parse_where``; ``cluster`` or the
    spec's): VenueError for a transport it cannot be played on, such as inproc with a cluster.
    Also what ``tournament run`` asks before it opens the store, so that a refused command
    line writes nothing."""
    from arbiter.batch.venue import Kind, parse_where

    return parse_where(transport, cluster=cluster or spec.cluster, bots=spec.bot_sources,
                       allowed=(Kind.INPROC, Kind.GRPC, Kind.LOCAL, Kind.CLUSTER))


def stored_tournament_spec(store: Store, name_or_id: str, **run: Any) -> TournamentSpec:
    """The spec to resume the stored tournament ``name_or_id`` with (``tournament run
    --resume``): its stored settings, and ``run``'s (concurrency, isolation, cluster: how fast
    and where it runs, none of what it plays). StoreError if there is none, if it is an
    evaluation (``arbiter evaluate`` resumes it), or if its stored spec is unusable."""
    tour = store.tournament(name_or_id)
    if "evaluate" in tour.spec:
        raise StoreError(f"{tour.name!r} in {store.path} is an evaluation: the arbiter evaluate command that started "
                         "it, run again with its --db, resumes it")
    try:
        spec = dataclasses.replace(TournamentSpec.from_json(tour.spec), **{k: v for k, v in run.items() if v is not None})
    except (TypeError, ValueError) as exc:
        raise StoreError(f"tournament {tour.name!r}: stored spec is unusable: {exc}") from None
    if spec.display_name != tour.name:  # (an older arbiter's rule for a name it made up)
        raise StoreError(f"tournament {tour.name!r}: its stored settings name it {spec.display_name!r} now; run the "
                         "command that started it again, adding --name with its name")
    return spec


def load_standings(store: Store, name_or_id: str | int | None = None):
    """(Standings, info) of a stored tournament; StoreError/SpecError if it is unusable. ``info``
    carries its ``state`` (``TournamentRow.state``: finished, in progress, interrupted), so that a
    table of a run cut off says so, as ``tournament list``, ``show`` and the web page do, and an
    evaluation's ``verdict`` (``Store.verdict``'s text; None without one)."""
    tour = store.tournament(name_or_id)
    try:
        spec = TournamentSpec.from_json(tour.spec)
        game = spec.validate_game()
    except (TypeError, ConfigError) as exc:
        raise StoreError(f"tournament {tour.name!r}: stored spec is unusable: {exc}") from None
    counted = counted_matches(store, tour)  # the results alone (a table needs no record), of whole deals while closed
    info = tournament_info(tour, spec) | shown_seed(store, tour, spec) | {"state": tour.state(run_holder(store.path))}
    info["counted"] = counted.to_json()
    verdict = store.verdict(tour.id)  # a stored evaluation's sequential test: what it decided (or "undecided so far")
    info["verdict"] = None if verdict is None else verdict.text
    return standings(counted.rows, game, spec.duplicate, entrant_names(store, tour.id, spec.bots)), info


def shown_seed(store: Store, tour, spec: TournamentSpec) -> dict[str, Any]:
    """The seed a display may show of a stored tournament (``export.seed_text`` words it):
    none while it runs (``seed_withheld``), its drawn one once it is over (``seed_drawn``)."""
    info: dict[str, Any] = {"seed": spec.seed if tour.disclosure.seed else None, "seed_withheld": not tour.disclosure.seed}
    if spec.seed is None and tour.disclosure.seed:  # over: the drawn seed reproduces it
        info["seed"], info["seed_drawn"] = store.shown_seed(tour), True
    return info
