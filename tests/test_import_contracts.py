"""The import contracts hold the design: each import the design rules out, added to a copy
of the tree, makes the real ``lint-imports`` fail and name the contract it breaks.

A contract that no forbidden import can break protects nothing, and the contracts of
pyproject.toml once looked complete while every import below passed them (issue 25). Each case copies arbiter/, sdk/, bots/, cardarena/, cardarena_envs/ and pyproject.toml to a
scratch folder, makes one change there, and runs lint-imports on the copy (PYTHONPATH and
the working folder point at it, no cache), so the case sees exactly the tree it changed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e  # real processes: every test here starts one

LINT = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("arbiter", "sdk", "bots", "cardarena", "cardarena_envs")
CONTRACTS = {c["id"]: c["name"] for c in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]}

PB = "from cardarena.v1 import arena_pb2  # noqa: F401\n"

#: id -> (file, the line added to it (or the whole new file), the contracts that must break).
MUTATIONS = {
    "protobuf in the replay verifier": ("cardarena/replay.py", PB, ["protobuf-at-the-edge", "pure-core"]),
    "protobuf in the match runner": ("arbiter/match/runner.py", PB, ["protobuf-at-the-edge"]),
    "protobuf in the ratings": ("arbiter/rating/ratings.py", PB, ["protobuf-at-the-edge"]),
    "grpc in the store": ("arbiter/store/db.py", "import grpc  # noqa: F401\n", ["protobuf-at-the-edge"]),
    "rich in the match runner": ("arbiter/match/runner.py", "import rich  # noqa: F401\n", ["rich-typer-in-cli"]),
    "rich in the store": ("arbiter/store/db.py", "import rich  # noqa: F401\n", ["rich-typer-in-cli"]),
    "typer in the web page": ("arbiter/present/web.py", "import typer  # noqa: F401\n", ["rich-typer-in-cli"]),
    "sqlite3 in an engine": ("cardarena/games/spades.py", "import sqlite3  # noqa: F401\n", ["pure-core", "sqlite-in-store"]),
    "a clock in an engine": ("cardarena/games/spot.py", "import time  # noqa: F401\n", ["pure-core"]),
    "sqlite3 in the web page": ("arbiter/present/web.py", "import sqlite3  # noqa: F401\n", ["sqlite-in-store"]),
    "prometheus in the store": ("arbiter/store/db.py", "import prometheus_client  # noqa: F401\n", ["prometheus-in-metrics"]),
    "the metrics leaning on the runner": ("arbiter/metrics.py", "from arbiter import match  # noqa: F401\n",
                                          ["arbiter-layers"]),
    "a bot in the SDK's harness": ("sdk/harness.py", "import bots.search  # noqa: F401\n", ["sdk-alone"]),
    "a bot in the bench": ("arbiter/tools/bench.py", "import bots.search  # noqa: F401\n", ["sdk-code-in-hosting"]),
    "a module outside every layer": ("arbiter/stray.py", '"""A stray module."""\nfrom arbiter.match import run_match  # noqa: F401\n',
                                     ["arbiter-layers"]),
    "the product importing a tool": ("arbiter/tournament/evaluate.py", "from arbiter.tools import variance  # noqa: F401\n",
                                     ["arbiter-layers"]),
    "two plans meeting": ("arbiter/tournament/run.py", "from arbiter.arena import matchmaking  # noqa: F401\n",
                          ["arbiter-layers"]),
    "the SDK in the analysis, not through hosting": ("arbiter/analysis/values.py",
                                                     "import sdk.forward  # noqa: F401\n", ["sdk-code-in-hosting"]),
    "the ratings leaning on the analysis": ("arbiter/rating/stats.py", "from arbiter import analysis  # noqa: F401\n",
                                            ["arbiter-layers"]),
    "a cycle through a function's import": ("arbiter/tournament/spec.py",
                                            "def _run():\n    from arbiter.tournament import run  # noqa: F401\n",
                                            ["no-cycles"]),
    "the arbiter in a training environment": ("cardarena_envs/aec.py", "import arbiter.match  # noqa: F401\n",
                                              ["envs-on-core-and-sdk"]),
    "a bot in a training environment": ("cardarena_envs/aec.py", "import bots.heuristic  # noqa: F401\n",
                                        ["envs-on-core-and-sdk"]),
    "the SDK importing the environments": ("sdk/encoding/spades.py", "import cardarena_envs  # noqa: F401\n",
                                           ["envs-beside-the-product"]),
    "the arbiter importing the environments": ("arbiter/match/runner.py", "import cardarena_envs.aec  # noqa: F401\n",
                                               ["envs-beside-the-product"]),
    "numpy in the SDK": ("sdk/encoding/_base.py", "import numpy  # noqa: F401\n", ["training-deps-in-envs"]),
    "pettingzoo in a bot": ("bots/heuristic.py", "import pettingzoo  # noqa: F401\n", ["training-deps-in-envs"]),
    "pyarrow in the standings export": ("arbiter/present/export.py", "import pyarrow  # noqa: F401\n",
                                        ["pyarrow-in-decisions"]),
    "the encoding in the dataset export, not through hosting": ("arbiter/present/decisions.py",
                                                                "import sdk.encoding  # noqa: F401\n",
                                                                ["sdk-code-in-hosting"]),
}


def _copy(tmp: Path) -> Path:
    tree = tmp / "tree"
    for name in PACKAGES:
        shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy2(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def _lint(tree: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run([str(LINT), "--no-cache"], cwd=tree, env=env, capture_output=True, text=True, timeout=120)


def _broken(out: str) -> set[str]:
    """The ids of the contracts the output says are broken (names may wrap across lines)."""
    flat = " ".join(out.split())
    return {cid for cid, name in CONTRACTS.items() if f"{name} BROKEN" in flat}


def test_every_mutation_names_a_contract_of_pyproject():
    assert {cid for _, _, ids in MUTATIONS.values() for cid in ids} <= set(CONTRACTS)


def test_the_unchanged_tree_keeps_every_contract(tmp_path):
    done = _lint(_copy(tmp_path))
    flat = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in flat, done.stdout
    assert all(f"{name} KEPT" in flat for name in CONTRACTS.values()), done.stdout


@pytest.mark.parametrize("case", list(MUTATIONS))
def test_a_forbidden_import_breaks_its_contract(tmp_path, case):
    path, text, expected = MUTATIONS[case]
    tree = _copy(tmp_path)
    target = tree / path
    target.write_text((target.read_text() if target.exists() else "") + text)
    done = _lint(tree)
    assert done.returncode != 0, f"{case}: lint-imports passed\n{done.stdout}{done.stderr}"
    broken = _broken(done.stdout)
    assert set(expected) <= broken, f"{case}: broke {sorted(broken)}, expected {expected}\n{done.stdout}{done.stderr}"
