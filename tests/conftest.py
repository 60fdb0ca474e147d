"""Shared fixtures: a real `arbiter serve` subprocess and real bot processes; the markers.

Markers (pyproject.toml): every test under tests/e2e/ is ``e2e`` (by its path, below);
a test elsewhere that starts a process or a server marks itself ``e2e``, and one that
does not is told so (``_Spawns``). ``make test`` runs everything; ``pytest -m "not e2e"``
is the quick loop.
"""

from __future__ import annotations

import gc
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
import pytest

# An xdist worker starts with COLUMNS=80 in its environment (set before any conftest is read;
# a plain `pytest -n 0` has none): the CLI's consoles, made when arbiter.cli is first imported,
# then laid every table out 80 wide in the workers and 120 wide (`_common._WIDE`) in one process,
# and a test that read a whole cell passed alone and failed in the suite, by which worker ran
# it. Dropped here, before any arbiter module is imported, so every worker is as one process.
if "PYTEST_XDIST_WORKER" in os.environ:
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)

from arbiter.hosting.stop import stop_processes  # noqa: E402
from arbiter.server import auth  # noqa: E402 - after COLUMNS is dropped

ROOT = Path(__file__).resolve().parent.parent
E2E = ROOT / "tests" / "e2e"

# Hypothesis runs its "hypothesis" entry points when it is imported: the only one installed
# is trio's (trio comes with selenium), which imports trio to register trio's own random
# generator, 0.2 CPU-s. Hypothesis's pytest plugin imports hypothesis in the process that
# writes the terminal summary (the xdist controller, at the very end of every run), and the
# fuzz tests in their worker; no test runs trio. Set here, before either import, and
# inherited by the workers.
os.environ.setdefault("HYPOTHESIS_NO_PLUGINS", "1")



@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """The suite's xdist defaults, set here rather than in pyproject's addopts, where
    ``pytest -p no:xdist`` would refuse them: one worker per core (``-n auto``) unless ``-n``
    is given (``-n 0``: in this process), and ``--dist loadgroup`` unless another ``--dist``
    is (the tests of one ``xdist_group`` run on one worker, so a module's shared server or
    batch is made once, not once on every worker)."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    if "PYTEST_XDIST_WORKER" in os.environ:  # a worker (xdist runs this hook there too)
        # starts no workers of its own; it reads its own command line, where the controller's
        # --dist set here is missing, so the controller says it (pytest_configure_node)
        if getattr(config, "workerinput", {}).get("loadgroup"):
            config.option.loadgroup = True
        return
    if config.option.numprocesses is None:
        config.option.numprocesses = "auto"
    if config.option.dist == "no":
        config.option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True)  # an xdist hook, as below
def pytest_configure_node(node) -> None:
    """Tell each worker whether the run groups (``--dist loadgroup``): ``_group_ids`` renames
    the grouped tests there, and a worker's own command line may not say it."""
    node.workerinput["loadgroup"] = node.config.getvalue("dist") == "loadgroup"


def _selects_no_e2e(markexpr: str) -> bool:
    """Whether the ``-m`` expression is false for every test marked ``e2e``, whatever its other
    markers (every combination of the names the expression uses is tried)."""
    import itertools

    from _pytest.mark.expression import Expression

    try:
        expr = Expression.compile(markexpr)
    except SyntaxError:
        return False  # pytest says what is wrong with it
    names = sorted(set(re.findall(r"[A-Za-z_][\w.]*", markexpr)) - {"and", "or", "not", "True", "False", "e2e"})
    if len(names) > 10:
        return False
    for values in itertools.product((False, True), repeat=len(names)):
        marks = {"e2e": True, **dict(zip(names, values))}
        if expr.evaluate(lambda name, **kwargs: marks.get(name, False)):
            return False
    return True


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """``-m "not e2e"`` (the quick loop) does not import tests/e2e/: every test there is
    ``e2e`` (by its path, below), so none could be selected, and importing its modules (the
    browser's and the fuzzers' libraries among them) was 0.37 CPU-s of every worker's collection."""
    markexpr = config.getoption("markexpr", "")
    if markexpr and collection_path.is_relative_to(E2E) and _selects_no_e2e(markexpr):
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).resolve().is_relative_to(E2E):
            item.add_marker(pytest.mark.e2e)
    # The longest first (tests/slow_files.txt): xdist hands tests out in this order, so a
    # long file started last cannot keep one worker busy after the other has finished.
    # Whole files move, each in its own order, so module fixtures are still made once.
    slow = [line.strip() for line in (ROOT / "tests" / "slow_files.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    rank = {path: i for i, path in enumerate(slow)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))  # stable: the rest keep their order
    _group_ids(config, items)


def _group_ids(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--dist loadgroup`` (``pytest_cmdline_main``) sends the tests of one ``xdist_group`` to one
    worker, so a module's shared server or batch is made once. xdist finds the group in the
    test's id (``...::test@group``), which its worker sets through ``item._nodeid``; from
    pytest 9.2 an item's id is ``item._id`` (a ``NodeId``) and that assignment changes
    nothing, so every test would be scheduled alone. The id is set here the way xdist
    means it, where xdist's own did not take."""
    if not getattr(config.option, "loadgroup", False):  # set on xdist's workers with --dist loadgroup
        return
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pytest before 9.2: xdist's own renaming works
        return
    for item in items:
        groups = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                         for m in item.iter_markers("xdist_group")})
        if groups and not item.nodeid.endswith("@" + "_".join(groups)) and isinstance(getattr(item, "_id", None), NodeId):
            item._id = NodeId.parse(f"{item.nodeid}@{'_'.join(groups)}")


#: With ``--dist loadgroup``, the tests in no ``xdist_group`` go to the workers in runs of this
#: many consecutive tests of one module (``pytest_xdist_make_scheduler``).
MODULE_RUN = 8


@pytest.hookimpl(optionalhook=True)  # an xdist hook: `pytest -p no:xdist` has no such hook
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadgroup`` keeps each group whole on one worker, but hands out every other test
    as a unit of its own, one at a time: consecutive tests of a module then land on different
    workers, and each worker makes the module's fixtures again (``--dist load`` sends runs of
    consecutive tests). Here those tests go out in runs of ``MODULE_RUN`` of one module, in
    their order, and the units keep the collection's order (tests/slow_files.txt first)
    instead of xdist's largest-first, so a long group of few tests is not started last."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    if hasattr(config.option, "loadscopereorder"):  # xdist 3.8: --no-loadscope-reorder
        config.option.loadscopereorder = False

    class ModuleRuns(LoadGroupScheduling):
        def __init__(self, config: pytest.Config, log=None) -> None:
            super().__init__(config, log)
            self.runs: dict[str, str] = {}

        def schedule(self) -> None:
            if self.collection is None and self.registered_collections:
                seen: dict[str, int] = {}
                for nodeid in next(iter(self.registered_collections.values())):
                    if nodeid.rfind("@") > nodeid.rfind("]"):  # in a group (xdist's own rule)
                        continue
                    module = nodeid.split("::")[0]
                    k = seen[module] = seen.get(module, -1) + 1
                    self.runs[nodeid] = f"{module}#{k // MODULE_RUN}"
            super().schedule()

        def _split_scope(self, nodeid: str) -> str:
            return self.runs.get(nodeid) or super()._split_scope(nodeid)

    return ModuleRuns(config, log)


class _Spawns:
    """What the running test started: processes (``fork_exec`` is what subprocess,
    asyncio's subprocesses and multiprocessing's spawn and forkserver all call; ``os.fork``
    the rest) and servers (gRPC, sync or asyncio; socketserver's, which http.server's are).
    A test not marked ``e2e`` that starts one fails, naming it: the marker is what
    ``-m "not e2e"`` leaves out, so it must be true."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.counting = False

    def install(self) -> None:
        import _posixsubprocess
        import socketserver

        def wrap(owner: object, attr: str, what: str) -> None:
            real = getattr(owner, attr)

            def counted(*args: object, **kwargs: object) -> object:
                if self.counting:  # the thread says who: a test's own, or one left by another
                    self.started.append(f"{what} from thread {threading.current_thread().name!r}")
                return real(*args, **kwargs)

            setattr(owner, attr, counted)

        wrap(_posixsubprocess, "fork_exec", "a process")
        wrap(subprocess, "_fork_exec", "a process")  # subprocess's own name for it
        wrap(os, "posix_spawn", "a process (posix_spawn)")
        wrap(os, "fork", "a process (os.fork)")
        wrap(grpc, "server", "a gRPC server")
        wrap(grpc.aio, "server", "a gRPC server")
        wrap(socketserver.BaseServer, "__init__", "a socket server")


_SPAWNS = _Spawns()


def pytest_configure(config: pytest.Config) -> None:
    # What this machine's sandbox can do is probed once (it runs bwrap and unshare) and
    # cached: probed here, before counting, so that which test happens to ask first in a
    # worker does not decide which one "starts a process".
    from arbiter.hosting import sandbox

    sandbox.available_modes()
    # endplay (the hindsight's solver) runs ldconfig when it is first imported (ctypes'
    # find_library("c")): that lookup is made here, once, and remembered, for the same
    # reason. Importing endplay itself here would cost every worker a second (its package
    # pulls in matplotlib) for the few tests that use it.
    import ctypes.util
    import functools

    ctypes.util.find_library = functools.cache(ctypes.util.find_library)
    ctypes.util.find_library("c")
    # matplotlib (which endplay's package pulls in) builds its font cache on its first import
    # on a machine, running fontconfig's `fc-list` (installed with chromium by `make browser`):
    # on a fresh machine the first test to import endplay "started a process". The cache is
    # built here, by the xdist controller (or the only process) before its workers start, and
    # they read it. Where it exists already nothing is imported: the import (numpy with
    # it) was ~0.25 CPU-s of every pytest controller, the suite's and each of the runs
    # tests/test_pytest_defaults.py starts.
    if not os.environ.get("PYTEST_XDIST_WORKER") and not _font_cache_made():
        import matplotlib.font_manager  # noqa: F401 - builds (or reads) the font cache
    # Passing check reports are reused within this run (arbiter.batch.vetcache: the same bot
    # content, settings and code), never from a developer's own cache or an earlier run:
    # one folder for the run, made by the xdist controller (or the only process) before
    # its workers start, which inherit it.
    if not (os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("ARENA_VETTING_CACHE")):
        os.environ["ARENA_VETTING_CACHE"] = config._arena_vetting = tempfile.mkdtemp(prefix="arena-vetting-")
    _SPAWNS.install()
    _cache_bytecode()
    _temp_root_in_memory(config)
    # In-process CLI runs (typer's CliRunner) build the click tree once, not per run.
    from tests import clicache

    clicache.install()


def _font_cache_made() -> bool:
    """Whether matplotlib is missing (nothing to build), or its font cache for the installed
    version is where matplotlib looks first (``MPLCONFIGDIR``, else ``XDG_CACHE_HOME`` or
    ~/.cache, then ``matplotlib``); found without importing it. False when unsure: then the
    import builds or reads it, as before."""
    import re

    spec = importlib.util.find_spec("matplotlib")
    if spec is None:
        return True
    try:
        source = (Path(next(iter(spec.submodule_search_locations))) / "font_manager.py").read_text()
        version = re.search(r"^    __version__ = ['\"]([^'\"]+)['\"]", source, re.M).group(1)
        folder = (Path(os.environ["MPLCONFIGDIR"]) if os.environ.get("MPLCONFIGDIR")
                  else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "matplotlib")
    except (OSError, StopIteration, TypeError, AttributeError, RuntimeError):
        return False
    return (folder / f"fontlist-v{version}.json").is_file()


def _cache_bytecode() -> None:
    """Compiled modules are cached for this run and the next, beside their sources
    (``__pycache__``, ignored by git), even where the environment asks Python to write no
    bytecode (PYTHONDONTWRITEBYTECODE: container images set it). Without it every ``python -m
    arbiter`` a test starts compiled the project again (a third of its start-up CPU) and every
    worker re-rewrote every test module's asserts (7 of its 11 CPU-seconds of collection).
    Beside the sources rather than in a folder of the venv (``PYTHONPYCACHEPREFIX``, until 8
    December 2026): the hosted bots run as another user in a sandbox that sets its own
    environment, and read ``__pycache__`` beside the SDK's and the games' sources, where the
    venv's private cache folder was neither theirs to read nor named in their environment
    (`pytest -m "not e2e"` alternated with the venv's folder, twice each on an idle machine:
    66.0 and 63.8 s of wall, 125 and 120 CPU-s, against 64.5 and 62.0 s, 122 and 118). A bot file loaded in the arbiter's process still writes none beside itself
    (``arbiter.hosting.loading.load_bot``). Set by the xdist controller before its workers
    start: they and every process they start inherit it."""
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


#: Where the tests' temporary folders (``tmp_path``) go when the machine has it: a tmpfs.
MEMORY_TEMP = Path("/dev/shm")


def _temp_root_in_memory(config: pytest.Config) -> None:
    """``tmp_path`` on a tmpfs (``MEMORY_TEMP``) where the machine has one and nobody chose
    another place (``--basetemp``, ``PYTEST_DEBUG_TEMPROOT``, ``TMPDIR``): the tests make
    ~600 SQLite stores there, and on a disk each new store's switch to WAL and each close's
    checkpoint waited for an fsync (3 ms of CPU and 5 ms of wall a store, measured; 1-2
    CPU-s of the quick loop's sys time), for a durability no test asks of them. Set by the
    xdist controller (or the only process) before any folder is made; the workers are given
    theirs under it. pytest numbers and prunes the runs' folders there as it does in /tmp."""
    if os.environ.get("PYTEST_XDIST_WORKER") or config.option.basetemp:
        return
    if os.environ.get("PYTEST_DEBUG_TEMPROOT") or os.environ.get("TMPDIR"):
        return
    if MEMORY_TEMP.is_dir() and os.access(MEMORY_TEMP, os.W_OK | os.X_OK) and _is_tmpfs(MEMORY_TEMP) \
            and _free_bytes(MEMORY_TEMP) >= MEMORY_TEMP_FREE:
        os.environ["PYTEST_DEBUG_TEMPROOT"] = str(MEMORY_TEMP)


#: The least room on ``MEMORY_TEMP`` for the tests' folders to go there: a container's /dev/shm is
#: often 64 MB, which the bot environments, wheels and stores of a whole run would fill.
MEMORY_TEMP_FREE = 2 << 30


def _free_bytes(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def _is_tmpfs(path: Path) -> bool:
    """Whether ``path`` is the mount point of a tmpfs (/proc/mounts says; False if unreadable)."""
    try:
        mounts = Path("/proc/mounts").read_text().splitlines()
    except OSError:
        return False
    return any(len(f) > 2 and f[1] == str(path) and f[2] == "tmpfs" for f in (line.split() for line in mounts))


#: Stores a command writes by default (``arena.sqlite`` and its companions) where the
#: checkout is: a test must give its command a store of its own (one did: a run left an
#: arena.sqlite in the checkout, shared by every worker).
_CHECKOUT_STORES = ("*.sqlite", "*.sqlite-*", "*.sqlite.watch", "*.sqlite.lock")


def _checkout_stores() -> set[Path]:
    return {p for pattern in _CHECKOUT_STORES for p in ROOT.glob(pattern)}


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config._arena_stores_before = _checkout_stores()
    # The cyclic garbage collector's youngest generation is collected every GC_YOUNG
    # allocations, not Python's 700: the tests allocate fast (matches, views, records),
    # and the collections scanned the imported modules again and again.
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])


#: Net allocations between two collections of the youngest generation (``gc.set_threshold``).
GC_YOUNG = 7000


def pytest_collection_finish(session: pytest.Session) -> None:
    """What the collection made (every test module, the packages they import) lives until
    the run ends: frozen (``gc.freeze``), the collector no longer scans it at every full
    collection; garbage the tests make is collected as before."""
    gc.freeze()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    new = sorted(_checkout_stores() - getattr(session.config, "_arena_stores_before", set()))
    if new:
        sys.stderr.write(f"\nerror: the tests left stores in the checkout: {', '.join(p.name for p in new)} "
                         "(give each command a --db under tmp_path)\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config: pytest.Config) -> None:
    import shutil

    if getattr(config, "_arena_vetting", None):  # the process that made it
        shutil.rmtree(config._arena_vetting, ignore_errors=True)


#: The worker's recursion limit, put back after every test: the zoo's deep-recursion bot,
#: played in process, raises it to 1,000,000 (tests/e2e/zoo.py), and a later test of the same
#: worker that parses JSON nested 100,000 deep then overflowed the C stack (a segfault, the
#: worker down, the run hung on it) where the default limit raises RecursionError.
_RECURSION_LIMIT = sys.getrecursionlimit()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item):
    try:
        return (yield)
    finally:
        sys.setrecursionlimit(_RECURSION_LIMIT)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    _SPAWNS.started.clear()
    _SPAWNS.counting = True  # fixtures too: a module's fixture counts for its first test
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    try:
        result = yield
    finally:
        _SPAWNS.counting = False
    if _SPAWNS.started and item.get_closest_marker("e2e") is None:
        pytest.fail(f"this test starts {_SPAWNS.started[0]} ({len(_SPAWNS.started)} in all) but is not marked e2e: "
                    "add @pytest.mark.e2e (or pytestmark for the module)", pytrace=False)
    return result


class ServeProcess:
    """A running `arbiter serve` with its own credentials file: tests read the admin and
    spectator tokens from it, and every bot started here gets a token of its own name."""

    def __init__(self, proc: subprocess.Popen, address: str, credentials: Path, log: Path | None = None):
        self.proc = proc
        self.address = address
        self.credentials = credentials
        self.log = log  #: the server's stderr (removed with its credentials folder when it stops)
        self.bots: list[subprocess.Popen] = []

    @property
    def admin_token(self) -> str:
        return auth.read(self.credentials).admin

    @property
    def spectator_token(self) -> str:
        return auth.read(self.credentials).spectator

    def bot_token(self, name: str) -> str:
        """The token of bot ``name``, issued now if it has none (the server reads it at once)."""
        return auth.ensure(self.credentials, (name,)).bots[name]

    def start_bot(self, spec: str, name: str, token: str | None = None, extra_env: dict | None = None) -> subprocess.Popen:
        """``token``: the bot's own (default), or another one to present."""
        env = dict(os.environ, ARENA_TOKEN=self.bot_token(name) if token is None else token, **(extra_env or {}))
        p = subprocess.Popen(
            [sys.executable, "-m", "sdk", "--bot", spec, "--address", self.address, "--name", name],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
        )
        self.bots.append(p)
        return p

    def wait_sessions(self, names: list[str], timeout: float = 30) -> None:
        """Until bots ``names`` (a name twice: two sessions) are connected. The server
        announces no session (no RPC streams them), and a bot may be a process or a thread
        of this test: ListSessions, the server's own state, is asked a short while apart."""
        from cardarena.v1 import arena_pb2 as pb, arena_pb2_grpc as pb_grpc

        deadline = time.monotonic() + timeout
        with grpc.insecure_channel(self.address) as ch:
            stub = pb_grpc.MatchesStub(ch)
            while time.monotonic() < deadline:
                live = [s.bot_name for s in stub.ListSessions(pb.ListSessionsRequest(admin_token=self.admin_token)).sessions]
                if all(live.count(n) >= names.count(n) for n in set(names)):
                    return
                time.sleep(0.05)
        raise TimeoutError(f"bots {names} did not all connect; connected: {live}")

    def alive(self) -> bool:
        return self.proc.poll() is None


def tls_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1 and its key, in ``folder``
    (cert.pem, key.pem): for `arbiter serve --tls-cert --tls-key`, and as the CA its clients
    trust. An ECDSA P-256 key: an RSA-2048 one took 0.1-0.3 CPU-s to make (openssl req)."""
    assert shutil.which("openssl"), "the openssl command makes the test certificate (Debian: apt-get install openssl)"
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True, timeout=60)
    return cert, key


def start_serve(*args: str) -> ServeProcess:
    """`arbiter serve` on a free loopback port, as a user starts it (plus ``args``), with a
    credentials file of its own."""
    # stderr goes to a file: a pipe nobody reads would block the server once it filled
    log = tempfile.NamedTemporaryFile(prefix="arbiter-serve-", suffix=".log", delete=False)
    credentials = Path(tempfile.mkdtemp(prefix="arbiter-creds-")) / "credentials.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "arbiter", "serve", "--port", "0", "--credentials", str(credentials), *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True, stdin=subprocess.DEVNULL,
    )
    line = proc.stdout.readline()
    m = re.search(r"listening on ([\d.]+:\d+)", line)
    if not m:
        proc.kill()
        proc.wait()
        said = Path(log.name).read_text()
        _remove_serve_files(Path(log.name), credentials)
        raise RuntimeError(f"arbiter serve did not start: {line!r} {said}")
    return ServeProcess(proc, m.group(1), credentials, Path(log.name))


def _remove_serve_files(log: Path | None, credentials: Path) -> None:
    """A stopped server's log and credentials folder (a run left ~800 of each in /tmp)."""
    if log is not None:
        log.unlink(missing_ok=True)
    shutil.rmtree(credentials.parent, ignore_errors=True)


def stop_bots(bots: list[subprocess.Popen]) -> None:
    """Bot processes stopped (asked, then killed 5 s later: 5 s for them all, not each)."""
    stop_processes(bots, 5)


def stop_serve(serve: ServeProcess) -> None:
    stop_bots(serve.bots)
    stop_processes(serve.proc, 10)
    _remove_serve_files(serve.log, serve.credentials)


@pytest.fixture
def serve():
    """`arbiter serve` on a free loopback port with its defaults; stopped after the test."""
    s = start_serve()
    yield s
    stop_serve(s)


@pytest.fixture(scope="module")
def module_serve():
    """`arbiter serve` with its defaults for a module's tests, stopped after the last (put
    them in one ``xdist_group`` so that it starts once a run; each test's bots then need
    names of their own)."""
    s = start_serve()
    yield s
    stop_serve(s)
