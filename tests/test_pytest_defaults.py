"""The suite's own pytest defaults (tests/conftest.py's ``pytest_cmdline_main``): a plain
``pytest`` runs on one xdist worker per core with ``--dist loadgroup``, a worker starts no
workers of its own (it runs the same hook: without the guard each worker started two more,
hundreds of processes in seconds), and ``pytest -p no:xdist`` still runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ONE = ["tests/test_protos.py::test_generated_stubs_match_the_protos", "-p", "no:randomly", "-p", "no:cacheprovider"]


def _pytest(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}  # as from a terminal
    return subprocess.run([sys.executable, "-m", "pytest", *ONE, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.e2e
def test_a_plain_run_uses_xdist_workers_and_no_xdist_still_runs():
    default = _pytest("-v")
    assert default.returncode == 0, default.stdout[-2000:] + default.stderr[-2000:]
    assert "1 passed" in default.stdout and "workers" in default.stdout and "[gw0]" in default.stdout, default.stdout[-2000:]
    bare = _pytest("-p", "no:xdist")
    assert bare.returncode == 0 and "1 passed" in bare.stdout, bare.stdout[-2000:] + bare.stderr[-2000:]
