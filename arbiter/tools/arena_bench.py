"""Ladder efficiency: how many matches the arena's matchmaking needs to get a known order
right, against a round robin's.

Eight bots of a known strength order (``bots.noisy``: the heuristic bot with 0%, 10% …
70% random moves: the more noise, the weaker) play on a ladder (``arbiter.arena.ladder``,
in process: ``transport = "inproc"``, 1-deal Spades, each encounter one deal in both
seatings). Counted: the matches until the ladder's order is the true one and every
adjacent pair is separated (likelihood of superiority ≥ 95%), checked after every
encounter. The round robin plays the same encounters, every pairing in turn, round after
round, rated by the same model and stopped by the same test. The figure is the ratio
ladder / round robin (target ≤ 0.6), the median over ``runs`` seeds.

The known order is checked by the measurement itself: each schedule stops only once its
ratings list the bots in that order, every adjacent pair at LOS ≥ 95% (a run that reaches
``max_matches`` first is reported as not reached, and the bench row fails).

``python -m arbiter.tools.arena_bench [RUNS]`` prints the figure; ``make bench``
calls ``ladder_efficiency``.
"""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import os
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from arbiter.arena import matchmaking
from arbiter.arena.ladder import Arena, ArenaSpec
from arbiter.batch.engine import worker_pool

LEVELS = (0, 10, 20, 30, 40, 50, 60, 70)  # % random moves, strongest first
LOS_TARGET = 0.95
TARGET_RATIO = 0.6


def noisy_bots(levels: Sequence[int] = LEVELS) -> tuple[str, ...]:
    """House-bot specs, strongest first: ``n00=bots.noisy:Noisy0`` …"""
    return tuple(f"n{p:02d}=bots.noisy:Noisy{p}" for p in levels)


def separated(arena: Arena, order: Sequence[str], los: float = LOS_TARGET) -> bool:
    """The ladder lists ``order`` exactly, each row over the next with LOS ≥ ``los``."""
    rows = [r for r in matchmaking.standings(arena.entrants.values()) if r.status == "active"]
    if [r.player for r in rows] != list(order):
        return False
    return all(r.los_next is not None and r.los_next >= los for r in rows[:-1])


def _round_robin(order: Sequence[str]):
    pairs = itertools.cycle(list(itertools.combinations(sorted(order), 2)))

    def pick(arena: Arena, candidates: list, busy: set[str]) -> tuple[str, ...] | None:
        return next(pairs)

    return pick


@dataclass
class LadderRun:
    schedule: str  # "ladder" or "round-robin"
    matches: int
    encounters: int
    reached: bool  # False: stopped at max_matches first
    seconds: float


def run_once(schedule: str, seed: int, levels: Sequence[int] = LEVELS, game: str = "spades",
             options: dict[str, Any] | None = None, max_matches: int = 20_000, db_dir: str | None = None) -> LadderRun:
    """One ladder (``schedule="ladder"``: the arena's matchmaking; ``"round-robin"``)
    played until the order is right and separated, or ``max_matches``."""
    house = noisy_bots(levels)
    order = [h.partition("=")[0] for h in house]
    spec = ArenaSpec(game=game, name=f"bench-{schedule}", options=options if options is not None else {"deals": 1},
                     house=house, transport="inproc", seed=seed, suspend_after=0)
    tmp = Path(tempfile.mkdtemp(prefix="arena-bench-", dir=db_dir))
    arena = Arena(spec, tmp / "bench.sqlite", matchmaker=_round_robin(order) if schedule == "round-robin" else None, poll=0.0)
    start = time.perf_counter()
    try:
        asyncio.run(arena.run(until=lambda a: separated(a, order) or a.matches_played >= max_matches))
        reached = separated(arena, order)
        return LadderRun(schedule, arena.matches_played, arena.finished, reached, time.perf_counter() - start)
    finally:
        arena.close()
        shutil.rmtree(tmp, ignore_errors=True)


@dataclass
class Efficiency:
    ratio: float  # median of ladder / round robin matches over the runs
    runs: list[tuple[LadderRun, LadderRun]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.ratio <= TARGET_RATIO and all(a.reached and b.reached for a, b in self.runs)

    def as_dict(self) -> dict[str, Any]:
        return {"ratio": self.ratio, "target": TARGET_RATIO, "pass": self.passed,
                "runs": [{"seed": i, "ladder_matches": a.matches, "round_robin_matches": b.matches,
                          "ladder_reached": a.reached, "round_robin_reached": b.reached,
                          "seconds": round(a.seconds + b.seconds, 2)} for i, (a, b) in enumerate(self.runs)]}


def ladder_efficiency(runs: int = 1, levels: Sequence[int] = LEVELS, max_matches: int = 20_000,
                      first_seed: int = 1, jobs: int | None = None, pool: Any = None) -> Efficiency:
    """The bench figure: ladder matches / round-robin matches to the same certainty, the
    median over ``runs`` seeds. The runs are independent: ``jobs`` processes play them
    (default: one per core), each a single-threaded in-process ladder; or the processes of
    ``pool`` (a process pool, e.g. the bench run's, which it leaves running)."""
    tasks = [(schedule, seed) for seed in range(first_seed, first_seed + runs) for schedule in ("ladder", "round-robin")]
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(tasks)))
    if pool is not None:
        futures = [pool.submit(run_once, sch, seed, tuple(levels), max_matches=max_matches) for sch, seed in tasks]
        results = [f.result() for f in futures]
    elif jobs == 1:
        results = [run_once(sch, seed, levels, max_matches=max_matches) for sch, seed in tasks]
    else:
        ctx = multiprocessing.get_context("spawn")  # no inherited event loop or store connection
        with worker_pool(jobs, ctx) as pool:  # its workers end with this process
            futures = [pool.submit(run_once, sch, seed, tuple(levels), max_matches=max_matches) for sch, seed in tasks]
            results = [f.result() for f in futures]
    pairs = [(results[i], results[i + 1]) for i in range(0, len(results), 2)]
    ratio = statistics.median(a.matches / b.matches for a, b in pairs)
    return Efficiency(ratio, pairs)


def main() -> None:  # python -m arbiter.tools.arena_bench [RUNS]
    import json
    import sys

    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__)
        return
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    eff = ladder_efficiency(runs)
    print(json.dumps(eff.as_dict(), indent=2))
    print(f"ladder efficiency: {eff.ratio:.2f}x the round robin's matches (target <= {TARGET_RATIO}: "
          f"{'pass' if eff.passed else 'short'})")


if __name__ == "__main__":
    main()
