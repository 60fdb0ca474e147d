"""Round-robin tournaments: schedule, run over gRPC with bot processes, standings.

Every pair of bots meets on the same deals. With duplicate deals (the default) each deal
is played once per seating, the sides swapped, so both bots hold the same cards in turn
and the luck of the deal cancels out. Results are committed to the store as each match
ends; running the same tournament again resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import itertools
import logging
import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from arbiter.botproc import BotPool
from arbiter.games import ConfigError, Game, get_game
from arbiter.match import Clock, FailurePolicy, LocalSeat, MatchConfig, MatchRecord, Policy, SeatClient, run_match
from arbiter.server import RemoteSeat, start_server
from arbiter.store import MatchRow, Store

log = logging.getLogger(__name__)


def derive_seed(seed: int, *parts: Any) -> int:
    """A 48-bit seed from the tournament seed and a path; stable across Python versions."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that defines a tournament. The same spec gives the same schedule and seeds."""

    game: str
    bots: tuple[str, ...]  # bot specs (bundled names or paths); display names derived
    deals: int = 2  # deal seeds per pairing
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    preset: str | None = None
    duplicate: bool = True
    decision_ms: int = 10_000
    bank_ms: int = 60_000
    policy: str = "forfeit"
    max_strikes: int = 3
    name: str = ""

    def validate(self) -> Game:
        """The configured game; ConfigError naming the field and the reason."""
        if len(self.bots) < 2:
            raise ConfigError(f"bots: a tournament needs at least 2 bots, got {len(self.bots)}")
        if self.deals < 1:
            raise ConfigError(f"deals: must be at least 1, got {self.deals}")
        if self.policy not in {p.value for p in Policy}:
            raise ConfigError(f"policy: expected forfeit or default, got {self.policy!r}")
        if self.decision_ms < 0 or self.bank_ms < 0:
            raise ConfigError("decision_ms and bank_ms must not be negative")
        return get_game(self.game, self.options, self.preset)

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["bots"] = list(self.bots)
        return d

    @property
    def bot_names(self) -> tuple[str, ...]:
        return bot_names(self.bots)

    def match_config(self, seed: int, match_id: str = "") -> MatchConfig:
        return MatchConfig(
            game=self.game, seed=seed, options=dict(self.options), preset=self.preset,
            clock=Clock(self.decision_ms, self.bank_ms),
            policy=FailurePolicy.uniform(self.policy, self.max_strikes), match_id=match_id,
        )


def bot_names(specs: Sequence[str]) -> tuple[str, ...]:
    """Display names: the spec's stem, made unique with -2, -3... in order."""
    names, seen = [], {}
    for spec in specs:
        base = os.path.splitext(os.path.basename(spec.split(":")[0]))[0] or spec
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return tuple(names)


@dataclass(frozen=True)
class ScheduledMatch:
    idx: int
    deal: int  # index of the deal seed
    rotation: int  # which seating of the deal
    seed: int
    seats: tuple[str, ...]  # bot name per seat
    pairing: tuple[str, str]


def schedule(game: Game, names: Sequence[str], deals: int, seed: int, duplicate: bool = True) -> list[ScheduledMatch]:
    """Round robin of pairs: for every pair, every deal, every seating (two sides swapped).

    The two bots alternate over the game's sides (teams): bot A takes the even-numbered
    sides, bot B the odd ones, then the reverse, so each holds every seat's cards once per
    deal. Deal seeds depend only on the tournament seed and the deal number, so every
    pairing plays the same deals.
    """
    teams = game.teams
    out: list[ScheduledMatch] = []
    rotations = 2 if duplicate else 1
    for a, b in itertools.combinations(names, 2):
        for d in range(deals):
            deal_seed = derive_seed(seed, "deal", d)
            for r in range(rotations):
                first, second = (a, b) if r == 0 else (b, a)
                seats = [""] * game.num_seats
                for t, team in enumerate(teams):
                    for s in team:
                        seats[s] = first if t % 2 == 0 else second
                out.append(ScheduledMatch(len(out), d, r, deal_seed, tuple(seats), (a, b)))
    return out


# --------------------------------------------------------------------------------------
# Standings.


@dataclass
class BotStanding:
    name: str
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    margin_sum: float = 0.0
    forfeits: int = 0
    opponents: dict[str, list[float]] = field(default_factory=dict)  # per opponent: points per match

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def score_rate(self) -> float:
        return self.points / self.matches if self.matches else 0.0

    @property
    def mean_margin(self) -> float:
        return self.margin_sum / self.matches if self.matches else 0.0

    def interval(self) -> tuple[float, float]:
        """95% Wilson interval of the score rate (draws count half)."""
        n = self.matches
        if n == 0:
            return (0.0, 1.0)
        p, z = self.score_rate, 1.96
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))


def standings(rows: Sequence[MatchRow], game: Game) -> list[BotStanding]:
    """Per bot W/D/L, points, mean score margin, sorted best first."""
    table: dict[str, BotStanding] = {}
    for row in rows:
        names = []
        for team in game.teams:
            n = row.seats[team[0]]
            if n not in names:
                names.append(n)
        if len(names) != 2:
            continue  # first cut: head-to-head pairings only
        a, b = names
        a_seats = [s for s in range(len(row.seats)) if row.seats[s] == a]
        b_seats = [s for s in range(len(row.seats)) if row.seats[s] == b]
        ra, rb = min(row.outcome.ranks[s] for s in a_seats), min(row.outcome.ranks[s] for s in b_seats)
        sa = sum(row.outcome.scores[s] for s in a_seats) / len(a_seats)
        sb = sum(row.outcome.scores[s] for s in b_seats) / len(b_seats)
        forfeit = row.outcome.reason.name.startswith("FORFEIT")
        for me, other, mine, theirs, my_score, their_score in ((a, b, ra, rb, sa, sb), (b, a, rb, ra, sb, sa)):
            st = table.setdefault(me, BotStanding(me))
            st.matches += 1
            if mine < theirs:
                st.wins += 1
                pts = 1.0
            elif mine == theirs:
                st.draws += 1
                pts = 0.5
            else:
                st.losses += 1
                pts = 0.0
                if forfeit:
                    st.forfeits += 1
            st.margin_sum += my_score - their_score
            st.opponents.setdefault(other, []).append(pts)
    return sorted(table.values(), key=lambda s: (-s.score_rate, -s.mean_margin, s.name))


# --------------------------------------------------------------------------------------
# Running.


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    record: MatchRecord | None  # the match that just finished (None at start)
    resumed: int  # matches already in the store when the run started


async def run_tournament(
    spec: TournamentSpec,
    store: Store,
    concurrency: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    fresh: bool = False,
    transport: str = "grpc",
) -> list[MatchRow]:
    """Run (or resume) the tournament; returns every match row when all are stored.

    ``transport="grpc"`` starts an arbiter on a free loopback port and one process per bot;
    ``"inproc"`` plays trusted bots in this process (same results for the same seeds).
    """
    game = spec.validate()
    names = spec.bot_names
    name = spec.name or f"{spec.game}-{spec.seed}"
    store.lock()
    tour = store.open_tournament(name, spec.game, spec.to_json(), fresh=fresh)
    plan = schedule(game, names, spec.deals, spec.seed, spec.duplicate)
    done = store.done_indices(tour.id)
    todo = [m for m in plan if m.idx not in done]
    if on_progress:
        on_progress(Progress(len(done), len(plan), None, len(done)))
    concurrency = concurrency or os.cpu_count() or 2
    finished = len(done)

    async def play_all(seat_factory: Callable[[str], SeatClient]) -> None:
        sem = asyncio.Semaphore(concurrency)

        async def one(m: ScheduledMatch) -> None:
            nonlocal finished
            async with sem:
                seats = [seat_factory(n) for n in m.seats]
                record = await run_match(spec.match_config(m.seed, f"{tour.id}-{m.idx}-{m.seed:x}"), seats)
                store.save_match(tour.id, m.idx, m.deal, m.rotation, record)
                finished += 1
                if on_progress:
                    on_progress(Progress(finished, len(plan), record, len(done)))

        await asyncio.gather(*(one(m) for m in todo))

    if todo:
        if transport == "inproc":
            from bots import load_bot

            bots = {n: load_bot(s) for n, s in zip(names, spec.bots)}
            await play_all(lambda n: LocalSeat(bots[n], n))
        elif transport == "grpc":
            server = await start_server(0)
            pool = BotPool(server.hub, server.address)
            try:
                for n, s in zip(names, spec.bots):
                    pool.launch(n, s)
                await pool.wait_connected()

                def remote(n: str) -> SeatClient:
                    session = pool.session(n)
                    if session is None:
                        session = pool.procs[n].session  # closed: the match records a disconnect
                    return RemoteSeat(session, spec.game)

                await play_all(remote)
            finally:
                await server.stop(0.5)
                pool.stop()
        else:
            raise ConfigError(f"transport: expected grpc or inproc, got {transport!r}")
    store.mark_finished(tour.id)
    return store.matches(tour.id)
