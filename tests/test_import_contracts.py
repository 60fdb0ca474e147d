"""The import contracts hold the design: each import the design rules out, added to the
tree, makes import-linter fail and name the contract it breaks.

A contract that no forbidden import can break protects nothing, and the contracts of
pyproject.toml once looked complete while every import below passed them (issue 25).

The import graph of the real tree is built once (grimp, as ``lint-imports`` builds it);
each case adds its one import to a copy of that graph and checks every contract of
pyproject.toml on it with import-linter's own contract classes, in this process: 26 cases
in about a second, where a copied tree and a ``lint-imports`` process per case took
minutes of the suite. Two cases keep the real command honest: the unchanged tree through
``lint-imports`` itself, and one mutation written into a copied tree and linted there,
which must break exactly what the in-process case says it breaks.
"""

from __future__ import annotations

import ast
import copy
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT


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
    "sqlite3 in an engine": ("cardarena/games/spades/game.py", "import sqlite3  # noqa: F401\n", ["pure-core", "sqlite-in-store"]),
    "a clock in an engine": ("cardarena/games/spot/state.py", "import time  # noqa: F401\n", ["pure-core"]),
    "sqlite3 in the web page": ("arbiter/present/web.py", "import sqlite3  # noqa: F401\n", ["sqlite-in-store"]),
    "prometheus in the store": ("arbiter/store/db.py", "import prometheus_client  # noqa: F401\n", ["prometheus-in-metrics"]),
    "the metrics leaning on the runner": ("arbiter/metrics.py", "from arbiter import match  # noqa: F401\n",
                                          ["arbiter-layers"]),
    "the server leaning on bot hosting": ("arbiter/server/app.py", "from arbiter.hosting import sandbox  # noqa: F401\n",
                                          ["arbiter-layers"]),
    "a bot in the SDK's harness": ("sdk/harness.py", "import bots.search  # noqa: F401\n", ["sdk-alone"]),
    "a bot in the bench": ("arbiter/tools/bench.py", "import bots.search  # noqa: F401\n", ["sdk-code-in-hosting"]),
    "a module outside every layer": ("arbiter/stray.py", '"""A stray module."""\nfrom arbiter.match import run_match  # noqa: F401\n',
                                     ["arbiter-layers"]),
    "the product importing a tool": ("arbiter/tournament/evaluate.py", "from arbiter.tools import variance  # noqa: F401\n",
                                     ["arbiter-layers"]),
    "two plans meeting": ("arbiter/tournament/run.py", "from arbiter.arena import matchmaking  # noqa: F401\n",
                          ["arbiter-layers"]),
    "the arena borrowing from the tournaments": ("arbiter/arena/ladder.py",
                                                 "from arbiter.tournament import spec  # noqa: F401\n", ["arbiter-layers"]),
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
    # Issue 45's probes: imports no deny-list had named, and a case for every contract.
    "jinja2 in an engine": ("cardarena/games/spades/game.py", "import jinja2  # noqa: F401\n", ["engines-allow-list"]),
    "the disclosure module in an engine": ("cardarena/games/spot/state.py", "from cardarena import disclosure  # noqa: F401\n",
                                           ["engines-allow-list"]),
    "a file read in a record": ("cardarena/records.py", "import pathlib  # noqa: F401\n",
                                ["core-values-allow-list", "pure-core"]),
    "the wire codec in the match runner": ("arbiter/match/runner.py", "from cardarena.wire import codec  # noqa: F401\n",
                                           ["no-protobuf-below-the-server"]),
    "the wire codec in the store, by way of a helper": (
        "arbiter/store/db.py", "from arbiter.spectating import hub  # noqa: F401\n", ["no-protobuf-below-the-server"]),
    "subprocess in the match runner": ("arbiter/match/runner.py", "import subprocess  # noqa: F401\n", ["subprocess-owners"]),
    "bot hosting in the ratings": ("arbiter/rating/ratings.py", "from arbiter.hosting import botproc  # noqa: F401\n",
                                   ["hosting-owners"]),
    "bot hosting in the web page": ("arbiter/present/web.py", "from arbiter.hosting import botproc  # noqa: F401\n",
                                    ["hosting-owners"]),
    "Dask in the store": ("arbiter/store/db.py", "import distributed  # noqa: F401\n", ["dask-owner"]),
    "the core importing the arbiter": ("cardarena/replay.py", "from arbiter import match  # noqa: F401\n",
                                       ["core-below", "core-values-allow-list"]),
    "the core in a bot": ("bots/heuristic.py", "from cardarena import records  # noqa: F401\n", ["bots-sdk-only"]),
    "the arbiter in the SDK": ("sdk/harness.py", "from arbiter import match  # noqa: F401\n", ["sdk-alone", "core-below"]),
    "prometheus in the ratings": ("arbiter/rating/stats.py", "import prometheus_client  # noqa: F401\n",
                                  ["prometheus-in-metrics"]),
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


# --------------------------------------------------------------------------------------
# In process: one graph, every contract checked by import-linter's own classes.


class Linter:
    """The real tree's import graph and pyproject's contracts, as lint-imports reads them."""

    def __init__(self) -> None:
        from importlinter.application import use_cases
        from importlinter.application.app_config import settings
        from importlinter.configuration import configure

        configure()
        use_cases._register_built_in_contract_types()
        options = use_cases.read_user_options(str(ROOT / "pyproject.toml"))
        self.session = options.session_options
        source = use_cases.ConfigSource(filename=None, user_options=options)
        self.contracts = [(c, use_cases._get_contract_class(source, c["type"])) for c in options.contracts_options]
        self.graph = settings.GRAPH_BUILDER.build(
            root_package_names=self.session["root_packages"], cache_dir=None,
            include_external_packages=use_cases._get_include_external_packages(options),
            exclude_type_checking_imports=use_cases._get_exclude_type_checking_imports(options),
        )

    def broken(self, graph) -> set[str]:
        out = set()
        for options, cls in self.contracts:
            contract = cls(name=options["name"], session_options=self.session, contract_options=options)
            if not contract.check(copy.deepcopy(graph), verbose=False).kept:
                out.add(options["id"])
        return out

    def mutated(self, path: str, text: str):
        """A copy of the graph with the imports of ``text`` added to the module at ``path``
        (created if new), resolved as grimp resolves them: ``from a import b`` is ``a.b``
        where that is a module, else ``a``; an outside package is its top-level name."""
        graph = copy.deepcopy(self.graph)
        module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        if module not in graph.modules:
            graph.add_module(module)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom):
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in graph.modules else node.module
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                if target not in graph.modules:
                    top = target.split(".")[0]
                    assert top not in PACKAGES, f"{target}: no such module in the tree"
                    target = top
                    if top not in graph.modules:
                        graph.add_module(top, is_squashed=True)
                line = ast.get_source_segment(text, node) or ""
                graph.add_import(importer=module, imported=target, line_number=node.lineno, line_contents=line)
        return graph


@pytest.fixture(scope="module")
def linter() -> Linter:
    return Linter()


def test_every_mutation_names_a_contract_of_pyproject_and_every_contract_has_one():
    named = {cid for _, _, ids in MUTATIONS.values() for cid in ids}
    assert named <= set(CONTRACTS)
    assert set(CONTRACTS) - named == set(), "a contract no mutation breaks protects nothing"


@pytest.mark.e2e
def test_the_unchanged_tree_keeps_every_contract(linter):
    done = _lint(ROOT)
    flat = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in flat, done.stdout
    assert all(f"{name} KEPT" in flat for name in CONTRACTS.values()), done.stdout
    assert linter.broken(linter.graph) == set()  # the in-process check agrees


@pytest.mark.e2e
@pytest.mark.parametrize("case", ["a cycle through a function's import", "jinja2 in an engine"])
def test_the_in_process_check_breaks_what_lint_imports_breaks(tmp_path, linter, case):
    """A mutation written into a copied tree and linted by the real command (an import
    inside a function, which grimp counts; an import only an allow-list refuses, rendered
    by our own contract class): the same contracts break as in process."""
    path, text, expected = MUTATIONS[case]
    tree = _copy(tmp_path)
    (tree / path).write_text((tree / path).read_text() + text)
    done = _lint(tree)
    assert done.returncode != 0, done.stdout + done.stderr
    assert _broken(done.stdout) == linter.broken(linter.mutated(path, text)) >= set(expected)
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("case", list(MUTATIONS))
def test_a_forbidden_import_breaks_its_contract(linter, case):
    path, text, expected = MUTATIONS[case]
    if not path.endswith("stray.py"):
        assert (ROOT / path).exists(), f"{case}: {path} is gone from the tree"
    broken = linter.broken(linter.mutated(path, text))
    assert set(expected) <= broken, f"{case}: broke {sorted(broken)}, expected {expected}"
