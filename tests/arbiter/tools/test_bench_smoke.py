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


def test_every_section_of_the_bench_runs_at_its_smallest_size(tmp_path):
    out = tmp_path / "smoke.json"
    env = dict(os.environ)
    bench_python = ROOT / ".venv-bench" / "bin" / "python"  # make bench-env; without it the row says unavailable
    env.setdefault("ARENA_BENCH_PYTHON", str(bench_python) if bench_python.exists() else "/nonexistent")
    p = subprocess.run([sys.executable, "-m", "arbiter.tools.bench", "--smoke", "--json", str(out)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "SMOKE RUN" in p.stdout and "Traceback" not in p.stderr
    result = json.loads(out.read_text())
    assert result["machine"]["smoke"] is True and result["machine"]["runs"] == 1
    figures = result["figures"]
    # Every section added its rows, and every row has a value or says why it has none.
    prefixes = {"engines": "engine.", "openspiel": "openspiel.", "floor": "floor.", "hosted": "hosted.", "scale": "scale.",
                "memory": "memory.", "isolation": "isolation.", "cluster": "cluster.", "statistics": "statistics.",
                "arena": "ratio.arena", "timing": "timing.", "analysis": "analysis.", "environments": "environments.",
                "store": "store."}
    assert set(prefixes) == set(bench.SECTIONS), "a new section needs its row prefix here"
    for section, prefix in prefixes.items():
        assert any(f["key"].startswith(prefix) for f in figures), f"section {section} added no row"
    empty = [f["key"] for f in figures if not f["values"] and not f["note"].startswith("unavailable")]
    assert not empty, f"rows measured nothing: {empty}"
    # A smoke run judges nothing: its sizes are too small to say pass or short.
    assert all(f["passed"] is None for f in figures)
    assert any(f["target"] for f in figures)  # the targets are still shown
