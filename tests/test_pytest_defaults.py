"""The suite's own pytest defaults (tests/conftest.py's ``pytest_cmdline_main``): a plain
``pytest`` runs on one xdist worker per core with ``--dist loadgroup``, and the tests of one
``xdist_group`` run together on one worker, with ``make test``'s ``-n 4`` as without it (a
worker reads its own command line, where the default ``--dist`` is not: once the groups
were silently split so, and every worker made the driver-parity batch again); a worker
starts no workers of its own (it runs the same hook: without the guard each worker started
two more, hundreds of processes in seconds); and ``pytest -p no:xdist`` still runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBES = ["tests/test_pytest_defaults.py::test_grouped_probe"]


#: Plugins the probes do without. Hypothesis's imports all of hypothesis in every process of
#: the run (the controller at its summary, each worker at its first test): 0.3 CPU-s a
#: process, over half of what each probe process costs; no probe is a hypothesis test.
UNUSED = ["-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"]


def _pytest(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}  # as from a terminal
    return subprocess.run([sys.executable, "-m", "pytest", *PROBES, *UNUSED, *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


# Six tests of one group: run by the tests below in a pytest of their own; here, they pass.
@pytest.mark.xdist_group("defaults-probe")
@pytest.mark.parametrize("k", "abcdef")
def test_grouped_probe(k):
    assert k in "abcdef"


@pytest.mark.e2e
@pytest.mark.parametrize("workers", [[], ["-n", "4"]], ids=["default", "make-test"])
def test_a_group_runs_on_one_worker(workers):
    run = _pytest("-v", *workers)
    assert run.returncode == 0 and "6 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-2000:]
    ran_on = {line.split()[0] for line in run.stdout.splitlines() if "PASSED" in line and "test_grouped_probe" in line}
    assert len(ran_on) == 1 and next(iter(ran_on)).startswith("[gw"), run.stdout[-3000:]  # on xdist's workers
    assert "@defaults-probe" in run.stdout, run.stdout[-3000:]


@pytest.mark.e2e
def test_pytest_without_xdist_still_runs():
    bare = _pytest("-p", "no:xdist")
    assert bare.returncode == 0 and "6 passed" in bare.stdout, bare.stdout[-2000:] + bare.stderr[-2000:]


def test_tests_e2e_is_not_imported_by_an_expression_that_selects_no_e2e_test():
    """``-m "not e2e"`` skips importing tests/e2e/ (conftest's ``pytest_ignore_collect``), and
    only an expression false for every ``e2e`` test, whatever its other markers, does."""
    from tests.conftest import _selects_no_e2e

    for expr in ("not e2e", "not e2e and not slow", "not (e2e or slow)", "slow and not e2e"):
        assert _selects_no_e2e(expr), expr
    for expr in ("e2e", "not slow", "e2e or slow", "not e2e or slow", "e2e and slow and not fast", "e2e and"):
        assert not _selects_no_e2e(expr), expr


def test_tmp_path_is_on_a_tmpfs_unless_another_place_is_chosen(tmp_path, monkeypatch):
    """The tests' folders go to a tmpfs where the machine has one (conftest's
    ``_temp_root_in_memory``: its stores' fsyncs cost nothing there), unless ``--basetemp``,
    ``PYTEST_DEBUG_TEMPROOT`` or ``TMPDIR`` names another place."""
    from types import SimpleNamespace

    from tests import conftest

    chosen = os.environ.get("PYTEST_DEBUG_TEMPROOT")
    if chosen:
        assert tmp_path.resolve().is_relative_to(Path(chosen).resolve()), (tmp_path, chosen)
    plain = SimpleNamespace(option=SimpleNamespace(basetemp=None))
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_DEBUG_TEMPROOT", "TMPDIR"):
        monkeypatch.delenv(name, raising=False)
    conftest._temp_root_in_memory(plain)
    memory = conftest._is_tmpfs(conftest.MEMORY_TEMP) and os.access(conftest.MEMORY_TEMP, os.W_OK | os.X_OK) \
        and conftest._free_bytes(conftest.MEMORY_TEMP) >= conftest.MEMORY_TEMP_FREE
    assert os.environ.get("PYTEST_DEBUG_TEMPROOT") == (str(conftest.MEMORY_TEMP) if memory else None)
    if memory:  # a tmpfs too small for a run's folders (a container's 64 MB /dev/shm) is not taken
        monkeypatch.delenv("PYTEST_DEBUG_TEMPROOT", raising=False)
        monkeypatch.setattr(conftest, "MEMORY_TEMP_FREE", conftest._free_bytes(conftest.MEMORY_TEMP) + (1 << 30))
        conftest._temp_root_in_memory(plain)
        assert os.environ.get("PYTEST_DEBUG_TEMPROOT") is None
    for name, value, config in (("TMPDIR", "/var/tmp", plain), ("PYTEST_DEBUG_TEMPROOT", "/var/tmp", plain),
                                (None, None, SimpleNamespace(option=SimpleNamespace(basetemp="/var/tmp/b")))):
        monkeypatch.delenv("PYTEST_DEBUG_TEMPROOT", raising=False)
        monkeypatch.delenv("TMPDIR", raising=False)
        if name:
            monkeypatch.setenv(name, value)
        conftest._temp_root_in_memory(config)
        assert os.environ.get("PYTEST_DEBUG_TEMPROOT") == (value if name == "PYTEST_DEBUG_TEMPROOT" else None), name
    assert not conftest._is_tmpfs(Path("/nowhere"))
