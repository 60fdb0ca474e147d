"""The statistics section of the bench spreads its units (each part of each round,
``statreport.BENCH_PARTS``) over a pool of processes (``bench.statistics_units``): a unit's rows
depend on its round and the sizes alone, never on the worker that computes it, how many there are,
or the order they finish in (docs/strength.md, "The statistics bench's cost, and a full-size run")."""

from __future__ import annotations

import pytest

from arbiter.tools import bench
from arbiter.tools.statreport import bench_part

pytestmark = pytest.mark.e2e  # the pool's worker processes

#: Cheap parts, two of them played in the worker (the draws' first pair, the mean-zero check's Spot case).
PARTS = ("sprt", "coverage", "luck.simulated", "draws.0", "draws.zero.2")


def test_the_statistics_units_are_the_same_for_any_number_of_workers() -> None:
    sizes = bench.SMOKE
    cpu: dict[tuple[int, str], float] = {}
    two = bench.statistics_units(range(2), sizes, PARTS, workers=2, cpu=cpu)
    # in this process, one part after the other, the played one in 2 processes of its own
    here = {(r, p): bench_part(p, r, sizes.statistics_runs, sizes.statistics_options, sizes.statistics_draws_close_only, 2)
            for r in range(2) for p in PARTS}
    assert two == here
    assert set(cpu) == set(here) and all(v >= 0 for v in cpu.values())
    # each round on seeds of its own: two rounds of a part differ
    assert all(two[(0, p)] != two[(1, p)] for p in ("sprt", "luck.simulated", "draws.0"))
