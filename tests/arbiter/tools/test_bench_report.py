"""The bench's reporting rules (no timing here: only how measured values are reported)."""

from __future__ import annotations

import asyncio
import os
import re
import json
import signal
import time
import subprocess
import sys

import pytest

from arbiter.tools import bench
from arbiter.hosting import sandbox as sb


def _speeds(values: dict[int, list[float]]) -> tuple[bench.BenchResult, dict[int, bench.Figure]]:
    result = bench.BenchResult()
    speed = {}
    for m, vals in values.items():
        speed[m] = result.add(f"ratio.scale.{m}", f"concurrency speed-up, {m} at once / 1", "x")
        speed[m].values = list(vals)
    return result, speed


def test_the_target_is_checked_at_the_best_m_named_in_the_row_not_at_m_equal_cores():
    result, speed = _speeds({2: [1.5, 1.6, 1.55], 4: [1.7, 1.9, 1.85], 8: [2.1, 1.7, 2.0]})
    result.add("scale.inproc.1", "inproc matches/s", "matches/s")  # a row measured after the speed-ups
    best = bench.best_speedup(result, speed, cores=2)
    assert best is result.get("ratio.scale.best")
    assert "M = 8" in best.label and best.values == [2.1, 1.7, 2.0]
    assert best.passed is True and "best M" in best.target
    # Issue 18 moved the target from M = cores to the default M (its own row, added by the
    # caller): the per-M rows only report.
    assert speed[2].passed is None and speed[4].passed is None and speed[8].passed is None
    # The M = cores row is kept, in its place; the best row follows the speed-up rows.
    keys = [f.key for f in result.figures]
    assert keys == ["ratio.scale.2", "ratio.scale.4", "ratio.scale.8", "ratio.scale.best", "scale.inproc.1"]


def test_when_m_equal_cores_is_the_best_the_best_row_names_it():
    result, speed = _speeds({2: [1.9, 1.8, 1.85], 8: [1.7, 1.6, 1.75]})
    best = bench.best_speedup(result, speed, cores=2)
    assert "M = 2" in best.label and best.passed is True and speed[2].passed is None


def test_nothing_measured_adds_no_best_row():
    result, speed = _speeds({2: [], 8: []})
    assert bench.best_speedup(result, speed, cores=2) is None
    assert result.get("ratio.scale.best") is None


def test_the_floor_uses_the_transport_of_the_hosted_bots(tmp_path):
    """The floor is measured over the transport a sandboxed bot is actually given: the
    address the sandbox hands a bot process (what it dials) against the bench's choice."""
    sock = tmp_path / "arena.sock"
    sock.touch()
    launch = sb.Sandbox().prepare([sys.executable, "-c", "pass"], tcp_address="127.0.0.1:1", unix_socket=str(sock))
    try:
        given = launch.env["ARENA_ADDRESS"]
    finally:
        sb.cleanup(launch.workdir)
    assert given.startswith("unix:") == (bench.hosted_transport() == "unix"), (given, bench.hosted_transport())


@pytest.mark.e2e
def test_an_unknown_floor_transport_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown floor transport 'udp'"):
        asyncio.run(bench._floor_round(600, 60, 10, transport="udp"))


@pytest.mark.e2e
def test_the_memory_section_runs_against_a_secure_arbiter_serve_and_leaves_nothing_behind():
    """`arbiter serve` refuses Matches calls without the admin token and bots without
    theirs; the bench's memory run must bring both (it broke when serve became secure by
    default), and it writes no credentials file into the checkout. (Counts, not timings.)"""
    from arbiter.tools.bench import memory_run
    from tests.conftest import ROOT

    before_files = set(ROOT.iterdir())
    after, before = memory_run(matches=20, timeout=60)
    assert after > 0 and before > 0
    assert set(ROOT.iterdir()) - before_files == set()


@pytest.mark.e2e  # the real `python -m arbiter.tools.bench` in a process
@pytest.mark.parametrize("args, message", [
    (["-s", "nope"], "error: --section: unknown nope (known: engines,"),
    (["--runs", "0"], "error: --runs must be at least 1 and --seconds positive"),
    (["--json", "/nonexistent-folder/b.json"], "error: --json /nonexistent-folder/b.json: no folder /nonexistent-folder"),
])
def test_the_bench_command_turns_bad_input_into_one_error_line_before_measuring(args, message):
    """``python -m arbiter.tools.bench`` (``make bench``) as a real process: a bad option is
    one ``error:`` line and exit 2, before any section runs."""
    done = subprocess.run([sys.executable, "-m", "arbiter.tools.bench", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done
    assert done.stdout == "" and done.stderr.startswith(message) and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and "run 1 of" not in done.stderr


def test_the_bench_is_a_tool_not_an_arbiter_command():
    from arbiter.cli import app
    from typer.main import get_command

    assert "bench" not in get_command(app).commands


def test_the_timing_split_is_by_where_the_hidden_ace_lies_and_the_coin_splits_the_same_decisions():
    """One small seeded run of the timing section's measurement (the bench reports the
    ratios; nothing here is timed): every decision counted once in each split, both groups
    filled, and the split by the ace's place the same for the same seed."""
    from arbiter.tools.bench import hidden_card_timing

    a, b = hidden_card_timing(seed=3, decisions=300), hidden_card_timing(seed=3, decisions=300)
    for kind in ("turn", "act", "turn.coin", "act.coin"):
        assert len(a[kind][True]) + len(a[kind][False]) == 300
        assert a[kind][True] and a[kind][False], kind
        assert all(t > 0 for group in a[kind].values() for t in group)
    assert [len(a["turn"][k]) for k in (True, False)] == [len(b["turn"][k]) for k in (True, False)]
    # left of the actor is one of the three other seats: about a third of the decisions
    assert 0.15 < len(a["turn"][True]) / 300 < 0.55


def _checkpoint(*steps: str, smoke: bool = True) -> bench.BenchResult:
    """A result as a run stopped after ``steps`` wrote it: one figure per step."""
    result = bench.BenchResult(machine={"cores": os.cpu_count(), "runs": 1, "engine_seconds": 0.05, "smoke": smoke},
                               sizes=bench.SMOKE if smoke else bench.FULL, seconds=12.0)
    for step in steps:
        result.step = step
        result.add(f"{step}.row", f"a row of {step}", "x").values.append(1.5)
        result.step = ""
        result.done.append(step)
    return bench.BenchResult.from_json(result.to_json())


def test_a_resumed_run_keeps_the_steps_it_had_measured_in_their_place_and_measures_nothing_twice():
    earlier = _checkpoint("memory", "environments")
    seen: list[str] = []
    saved: list[list[str]] = []
    result = bench.run_bench(sections=("memory", "environments"), smoke=True, resume=earlier, progress=seen.append,
                             checkpoint=lambda r: saved.append(list(r.done)))
    assert [f.key for f in result.figures] == ["memory.row", "environments.row"]
    assert [f.values for f in result.figures] == [[1.5], [1.5]] and result.complete
    assert seen == ["memory: measured before (--resume)", "environments: measured before (--resume)"]
    assert saved == [["memory"], ["memory", "environments"]]  # a checkpoint after each step, as when measured
    assert result.seconds >= 12.0  # the earlier run's time is counted


def test_a_bench_result_reads_back_as_written_and_a_broken_one_is_named():
    earlier = _checkpoint("floor+hosted+scale")
    again = bench.BenchResult.from_json(earlier.to_json())
    assert again.to_json() == earlier.to_json() and again.done == ["floor+hosted+scale"] and not again.complete
    assert again.figures[0].section == "floor+hosted+scale"
    for text, says in [("{", "not JSON"), ("[]", "not a bench result"), ('{"machine": {}, "figures": []}', "not a bench result"),
                       (earlier.to_json().replace('"done": [\n    "floor+hosted+scale"\n  ]', '"done": []'),
                        "figures of steps it does not list as done: floor+hosted+scale")]:
        with pytest.raises(ValueError, match=re.escape(says)):
            bench.BenchResult.from_json(text, "f.json")


def test_a_run_at_other_sizes_cannot_be_resumed():
    earlier = _checkpoint("memory", smoke=False)
    with pytest.raises(ValueError, match="cannot resume: the earlier run had smoke = False, this one True"):
        bench.run_bench(sections=("memory",), smoke=True, resume=earlier)


@pytest.mark.e2e  # the real command, stopped as a user stops it (Ctrl-C), then resumed
def test_a_bench_stopped_after_a_step_keeps_it_and_resume_measures_only_the_rest(tmp_path):
    out = tmp_path / "b.json"
    env = dict(os.environ, ARENA_BENCH_PYTHON="/nonexistent")
    # Ctrl-C as a terminal gives it: a process that inherits SIGINT ignored keeps it so (Python
    # installs its KeyboardInterrupt only over the default), and a test worker's may be
    launch = [sys.executable, "-c", "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                                    "runpy.run_module('arbiter.tools.bench', run_name='__main__', alter_sys=True)"]
    cmd = [*launch, "--smoke", "-s", "memory", "-s", "isolation", "--json", str(out)]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        lines = []
        for line in p.stderr:  # stopped once the second step (three tournaments) has begun
            lines.append(line)
            if line.startswith("isolation: run 1"):
                break
        p.send_signal(signal.SIGINT)  # not stop_processes: the interrupt path is tested, its output read
        stdout, rest = p.communicate(timeout=120)
        stderr = "".join(lines) + rest
    finally:
        p.kill()
    saved = json.loads(out.read_text())
    assert saved["complete"] is False and saved["done"] == ["memory"], saved["done"]
    memory = [f for f in saved["figures"] if f["section"] == "memory"]
    assert memory and all(f["key"].startswith("memory.") for f in memory)
    assert p.returncode == 130 and "the same command with --resume continues the run" in stderr and "Traceback" not in stderr, stderr

    done = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "memory: measured before (--resume)" in done.stderr and "memory: run 1" not in done.stderr
    final = json.loads(out.read_text())
    assert final["complete"] is True and final["done"] == ["memory", "isolation"]
    assert [f for f in final["figures"] if f["section"] == "memory"] == memory  # kept as measured, not again
    assert any(f["key"].startswith("isolation.") and f["values"] for f in final["figures"])
    # A finished run is not resumed: it would measure nothing.
    again = subprocess.run(cmd + ["--resume"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert again.returncode == 2 and "that run is complete" in again.stderr, again.stderr


@pytest.mark.e2e  # the pool's queue starts multiprocessing's resource tracker
def test_a_bench_run_keeps_one_pool_of_processes_for_the_sections_that_spread_their_units():
    """Statistics, arena and analysis spread their units over one pool a ``run_bench`` (each
    section's own pool spawned its workers and imported the project into them again); it ends
    with the run, and outside one there is none (``run_units`` and ``ladder_efficiency`` then
    make their own). Nothing is submitted here: a pool starts no worker before its first unit."""
    shared = bench._UNITS_POOL
    assert shared.get() is None
    with shared.kept():
        pool = shared.get()
        assert pool is not None and shared.get() is pool
    assert shared.get() is None
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(os.getpid)
