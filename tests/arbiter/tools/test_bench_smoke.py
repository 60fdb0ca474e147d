"""`make bench-smoke` inside `make test`: every section of the bench runs end to end at its
smallest size (``bench.SMOKE``), as a user runs it, so that a section that can no longer
run fails the suite the day it breaks (the cluster section once asked for shared bot
processes with duplicate deals, which the runner had come to refuse, and nothing noticed).
Nothing is timed and no target is judged here: the real sizes are ``make bench``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.tools import bench

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[3]


#: Each section's row prefix: a section that adds no row with it fails.
PREFIXES = {"engines": "engine.", "openspiel": "openspiel.", "floor": "floor.", "hosted": "hosted.", "scale": "scale.",
            "memory": "memory.", "isolation": "isolation.", "cluster": "cluster.", "statistics": "statistics.",
            "arena": "ratio.arena", "timing": "timing.", "analysis": "analysis.", "environments": "environments.",
            "store": "store."}


#: The bench's steps (sections run together where their rows compare figures of each other:
#: the Spades engine over OpenSpiel's; a hosted decision over the bare round trip, matches/s
#: at concurrency M over 1).
GROUPS = list(bench.STEPS)
#: The sections that run alone, each in a process of its own (statistics: about as long as all
#: the others together). The others are one ``bench --smoke`` process, as ``make bench`` runs
#: them: a process start and each bot's fork server once, not once a section (every section
#: apart: 16.8 CPU-s, every process they start counted; in one process 11.0: README, "The
#: test budget"); its tests are one xdist group, so the run is made once, on one worker.
ALONE = ("statistics",)
SHARED = tuple(s for g in GROUPS for s in g if s not in ALONE)
SHARED_RUN = pytest.mark.xdist_group("bench-smoke")


def _param(sections: tuple[str, ...]):
    marks = () if any(s in ALONE for s in sections) else (SHARED_RUN,)
    return pytest.param(sections, id="+".join(sections), marks=marks)


_runs: dict[tuple[str, ...], tuple[subprocess.CompletedProcess, dict]] = {}


def smoke_run(sections: tuple[str, ...], tmp_path_factory) -> tuple[subprocess.CompletedProcess, dict]:
    """``python -m arbiter.tools.bench --smoke -s S ...`` of ``sections``, as a user runs it: the
    process and its JSON result, once per process of the suite."""
    if sections not in _runs:
        folder = tmp_path_factory.mktemp("bench-smoke")
        out = folder / "smoke.json"
        env = dict(os.environ)
        bench_python = ROOT / ".venv-bench" / "bin" / "python"  # make bench-env; without it the row says unavailable
        env.setdefault("ARENA_BENCH_PYTHON", str(bench_python) if bench_python.exists() else "/nonexistent")
        p = subprocess.run([sys.executable, "-m", "arbiter.tools.bench", "--smoke", *(a for s in sections for a in ("-s", s)),
                            "--json", str(out)], cwd=folder, env=env, capture_output=True, text=True, timeout=600)
        _runs[sections] = (p, json.loads(out.read_text()) if p.returncode == 0 else {})
    return _runs[sections]


def test_every_section_has_its_row_prefix_and_is_run():
    assert set(PREFIXES) == set(bench.SECTIONS), "a new section needs its row prefix here"
    assert sorted(s for g in GROUPS for s in g) == sorted(bench.SECTIONS)


@pytest.mark.parametrize("sections", [_param(g) for g in GROUPS])
def test_every_section_of_the_bench_runs_at_its_smallest_size(tmp_path_factory, sections):
    """A section (or the sections whose rows compare each other's figures) runs end to end
    (`python -m arbiter.tools.bench --smoke -s SECTION ...`, as a user runs it): statistics in
    a process of its own, every other section in one process shared by their tests (``SHARED``),
    so that the two long runs spread over the suite's workers instead of one holding the
    run's end."""
    p, result = smoke_run(sections if any(s in ALONE for s in sections) else SHARED, tmp_path_factory)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "SMOKE RUN" in p.stdout and "Traceback" not in p.stderr
    assert result["machine"]["smoke"] is True and result["machine"]["runs"] == 1
    figures = result["figures"]
    # The section added its rows, and every row has a value or says why it has none.
    for section in sections:
        assert any(f["key"].startswith(PREFIXES[section]) for f in figures), f"section {section} added no row"
    empty = [f["key"] for f in figures if not f["values"] and not f["note"].startswith("unavailable")]
    assert not empty, f"rows measured nothing: {empty}"
    # The bots' CPU is counted: forked bots report their sandbox's pid, and a bench that
    # looked for that pid here counted 0 for them (the CPU target then read the arbiter's alone).
    bots_cpu = {f["key"]: f["values"] for f in figures if f["key"].startswith("cpu.decision.") and f["key"].endswith(".bots")}
    if "hosted" in sections:
        assert bots_cpu and all(v and min(v) > 0 for v in bots_cpu.values()), bots_cpu
    # A smoke run judges nothing: its sizes are too small to say pass or short.
    assert all(f["passed"] is None for f in figures)
    if "engines" in sections:
        assert any(f["target"] for f in figures)  # the targets are still shown
