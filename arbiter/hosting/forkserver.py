"""Fresh bot processes in milliseconds: one pre-started, pre-imported parent per bot.

``deal`` and ``match`` isolation start a bot process for every match or deal, and a fresh
sandboxed Python costs about 0.1 s of CPU to start and import the SDK, grpc and protobuf.
A ``ForkServer`` starts that Python once per bot, in the sandbox the bot's processes get
(``Sandbox.prepare_forkserver``: bwrap, the same binds), and forks every further process
from it (``zygote.py`` is the program inside; its docstring has the protocol).

What a forked child holds, against a fresh process (``Sandbox.describe`` says it in short):

* the same: its own network, PID, IPC, UTS and mount namespaces; a fresh, private working
  directory at ``/bot/work`` (created by the arbiter for it, owned by its uid, deleted
  afterwards) with ``HOME`` and ``TMPDIR`` there; an empty ``/tmp`` and ``/proc`` of its
  own; a uid of its own (so RLIMIT_NPROC counts only its processes and no other bot
  process can signal or trace it); the rlimits and priority; an environment of its own;
  its stderr to its own file; its own connection to the arbiter, made after the fork;
  every process it starts dies with it (PID 1 of its namespace).
* from the parent: the interpreter's memory as it was after the imports (copy on write,
  the same pristine copy for every child, never written by any bot: the parent runs no
  bot code), so also its hash seed (``PYTHONHASHSEED``: string hashes are the same in all
  the children of one parent, as they would differ between fresh processes) and the
  random module's state, which Python reseeds in every child (``os.register_at_fork``).
* not: a submitted bot's module. The parent imports the SDK and what it stands on (grpc,
  protobuf, the core, every game's engine and typed views), never a submitted bot: its
  import-time code would otherwise run in the parent, with the parent's capabilities, and
  could leave state or files behind for its later processes. Each child imports it, once
  confined (a few milliseconds). A bundled bot (``random``, ``heuristic``...: the
  platform's own code, trusted as the SDK is) is imported by the parent too; importing it
  runs no game and keeps no state.

gRPC and fork: the parent never creates a channel, server or thread (``zygote.py`` checks
it is one thread before it forks); each child makes its own channel after the fork, as a
fresh process does. ``GRPC_ENABLE_FORK_SUPPORT`` is not needed and not set.

Only with bwrap as root (``sandbox.fork_support``): elsewhere the children would share a
uid and a network namespace, and the old path (a fresh process each) is kept. A parent
that cannot start or dies makes its bot fall back to fresh processes too
(``BotPool.launch``).

One parent serves every arbiter of a process (``acquire``, ``release``): a tournament's,
an arena's, each test's private arbiter, ``arbiter serve``'s runs. The parents are kept in
a process-wide registry keyed by what makes one differ (the bot's code, by path and
inode, so a file or folder replaced since gets a new parent; its environment; a bundled
bot's module), counted by the pools using them, stopped ``IDLE_SECONDS`` after the last
one let go and at exit. So the parent binds no arbiter's socket: each arbiter that uses
it is ``attach``ed, its sockets hard-linked into a folder of its own, named at random,
in the parent's folder of fresh working directories; a child is given its arbiter's
folder with the fork request and, still root and before any bot code, binds those
sockets at the usual ``/run/arena`` and then hides the whole folder (every other
arbiter's, every other child's working directory) under an empty tmpfs, as it did the
working directories alone. A bot sees exactly what it saw with a parent of its own: its
arbiter's sockets at the same paths, nothing of another arbiter's or its matches. The
parents are started from one long-lived thread of the registry's, as bubblewrap's
``--die-with-parent`` watches the thread that started it, not the process.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import json
import logging
import os
import queue
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Sequence

from arbiter import scratch
from arbiter.hosting import sandbox as sb
from cardarena.wire import framing

log = logging.getLogger(__name__)

ZYGOTE = Path(__file__).with_name("zygote.py")

#: The exit code of a child that could not be confined (zygote._EXIT_SETUP): it ran no bot code.
EXIT_SETUP = 70

#: How long a parent may take to start and import everything before its bot falls back.
READY_TIMEOUT = 30.0

#: How long a parent no pool uses is kept for the next one (``release``).
IDLE_SECONDS = 60.0


class ForkServerError(Exception):
    """The fork server cannot start a bot process (it failed to start, or has died)."""


class ForkedProcess:
    """A bot process started by a ``ForkServer``: what ``BotProcess`` needs of a Popen."""

    def __init__(self, server: ForkServer, rid: int, workdir: Path, log_path: Path) -> None:
        self.server = server
        self.rid = rid
        self.workdir = workdir  # host path of its private working directory
        self.log_path = log_path
        self.pid: int | None = None  # its pid in the sandbox (not a host pid)
        self.returncode: int | None = None
        self.cpu_seconds: float | None = None  # its CPU time (and its children's), once it has exited
        self._done = threading.Event()
        self._known = threading.Event()  # its pid has come (or it has exited)

    def poll(self) -> int | None:
        return self.returncode

    def wait_pid(self, timeout: float) -> int | None:
        """Its pid once its fork server has said it (read by the server's reader thread, which
        may come after the bot has already reached the arbiter): None if it exited first or
        ``timeout`` passed."""
        self._known.wait(timeout)
        return self.pid

    def wait(self, timeout: float | None = None) -> int:
        if not self._done.wait(timeout):
            raise subprocess.TimeoutExpired(f"forked bot process {self.rid}", timeout or 0)
        assert self.returncode is not None
        return self.returncode

    def terminate(self) -> None:
        self.server._signal(self.rid, kill=False)

    def kill(self) -> None:
        self.server._signal(self.rid, kill=True)

    def kill_tree(self, timeout: float = 3.0) -> None:
        """TERM, then KILL after ``timeout``: the process is PID 1 of its namespace, so every
        process it started dies with it. Not ``stop.stop_processes``: the process is the fork
        server's child, which reaps it and says so in a message; the wait after the KILL is
        for that message, bounded so that a lost one cannot hang the arbiter."""
        if self.returncode is None:
            self.terminate()
            try:
                self.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                try:
                    self.wait(5.0)
                except subprocess.TimeoutExpired:
                    log.warning("forked bot process %d did not die", self.rid)

    def _exited(self, code: int) -> None:
        self.returncode = code
        self._done.set()
        self._known.set()


class ForkServer:
    """The pre-started parent of one bot's processes, in its sandbox.

    ``code`` and ``env`` are what every process of the bot is given (its code, PYTHONPATH
    for a folder bot); ``spawn`` starts one process with its own arguments and token.
    ``alive`` is False once it failed or died: its processes then come from elsewhere."""

    def __init__(self, box: sb.Sandbox, *, code: Sequence[str | os.PathLike], env: dict[str, str],
                 log_path: Path, name: str = "bot", bundled_module: str | None = None) -> None:
        self.box = box
        self.name = name
        self.spawn_root = scratch.make("arena-spawn-")
        os.chmod(self.spawn_root, 0o711)  # children reach their own directory; none lists the others
        self._sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        config = json.dumps({"bundled": [bundled_module] if bundled_module else []})
        launch = box.prepare_forkserver([sys.executable, str(ZYGOTE), str(theirs.fileno()), config], code=code, env=env,
                                        spawn_root=self.spawn_root)
        self.address = launch.address
        self._workdir = launch.workdir
        self.log_path = log_path
        with open(log_path, "wb") as err:
            self.proc = _popen(launch.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                               env=launch.env, cwd=launch.cwd, start_new_session=True, pass_fds=[theirs.fileno()])
        theirs.close()
        self.alive = True
        self.ready: dict | None = None  # the parent's "ready" message
        self.why_not = ""  # why it is not alive
        self._ready = threading.Event()
        self._children: dict[int, ForkedProcess] = {}
        self._ids = 0
        self.forked = 0  # bot processes it started that have exited
        self.children_cpu = 0.0  # their CPU seconds, in all
        self.children_sys = 0.0  # of which in the kernel (namespaces, mounts, page faults, exit)
        self.children_faults = 0  # their minor page faults, in all (copy-on-write of the parent's pages)
        self.parent_cpu = 0.0  # its own CPU seconds so far (the imports, then the forks)
        self._lock = threading.RLock()  # (spawn may mark the server broken while holding it)
        self._started = time.monotonic()
        self._reader = threading.Thread(target=self._read, name="forkserver", daemon=True)
        self._reader.start()

    # -- the arbiters it serves -----------------------------------------------------------

    def attach(self, unix_socket: str) -> str:
        """Let this parent's children reach the arbiter listening on ``unix_socket`` (and
        on its local channel beside it): its sockets hard-linked into a folder of its own
        under the spawn root, named at random. The name goes with each ``spawn`` for that
        arbiter; ``detach`` removes the folder. ForkServerError if the links cannot be
        made (another file system: the caller starts fresh processes)."""
        arbiter = "a" + secrets.token_hex(8)
        folder = self.spawn_root / arbiter
        folder.mkdir(mode=0o700)
        sb.grant_sockets(unix_socket)  # the children's uids may connect (group and mode, on the inode)
        try:
            for path in (Path(unix_socket), Path(unix_socket).with_name(framing.SOCKET_NAME)):
                if path.exists():
                    os.link(path, folder / (sb.SOCKET_NAME if path == Path(unix_socket) else framing.SOCKET_NAME))
        except OSError as exc:
            shutil.rmtree(folder, ignore_errors=True)
            raise ForkServerError(f"cannot link the arbiter's socket for the fork server: {exc}") from None
        return arbiter

    def detach(self, arbiter: str) -> None:
        """The arbiter ``attach`` named ``arbiter`` is done with this parent."""
        shutil.rmtree(self.spawn_root / arbiter, ignore_errors=True)

    # -- starting bot processes ----------------------------------------------------------

    def spawn(self, argv: Sequence[str], env: dict[str, str], log_path: Path, *, arbiter: str,
              box: sb.Sandbox | None = None) -> ForkedProcess:
        """A new bot process: ``python -m sdk ARGV`` with environment ``env`` (on top of
        the sandbox's clean one), its stderr to ``log_path``, reaching the arbiter
        ``arbiter`` (``attach``), with the limits and priority of ``box`` (default: the
        sandbox it was started with). ForkServerError if this server is not alive (the
        caller starts a fresh process instead)."""
        if not self.alive:
            raise ForkServerError(self.why_not or "the fork server has stopped")
        box = box or self.box
        uid = box.new_uid()
        if uid is None:
            raise ForkServerError("no uid of its own for a child")
        work = secrets.token_hex(8)  # a name that says nothing of how many came before
        (self.spawn_root / work).mkdir()
        workdir = sb.private_dir(self.spawn_root / work, uid)
        err = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with self._lock:
            self._ids += 1
            child = ForkedProcess(self, self._ids, workdir, log_path)
            self._children[child.rid] = child
            try:
                req = {"op": "spawn", "id": child.rid, "uid": uid, "groups": [sb.BOT_GROUP], "work": work, "argv": list(argv),
                       "env": sb.clean_env(sb.WORK_DIR, self.address, env), "arbiter": arbiter,
                       "sockets": [sb.SOCKET_NAME, framing.SOCKET_NAME],
                       "limits": box.limits.rlimits(), "nice": os.nice(0) + box.limits.nice}
                socket.send_fds(self._sock, [json.dumps(req).encode()], [err])
            except OSError as exc:
                del self._children[child.rid]
                sb.cleanup(workdir)
                self._broken(f"control socket: {exc}")
                raise ForkServerError(self.why_not) from None
            finally:
                os.close(err)
        return child

    def wait_ready(self, timeout: float = READY_TIMEOUT) -> bool:
        """Wait for the parent's imports and self-test; True if it serves."""
        self._ready.wait(timeout)
        return self.alive and self.ready is not None

    def _signal(self, rid: int, kill: bool) -> None:
        with self._lock:
            if not self.alive:
                return
            try:
                self._sock.send(json.dumps({"op": "signal", "id": rid, "kill": kill}).encode())
            except OSError:
                pass

    # -- what the parent says ------------------------------------------------------------

    def _read(self) -> None:
        while True:
            try:
                data = self._sock.recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                rc = self.proc.poll()
                self._broken("the fork server exited" + (f" with code {rc}" if rc is not None else "")
                             + (f": {_tail(self.log_path)}" if _tail(self.log_path) else ""))
                return
            msg = json.loads(data)
            op = msg.get("op")
            if op == "ready":
                self.ready = msg
                if not msg.get("ok"):
                    self._broken(f"the fork server cannot confine a child here: {msg.get('error')}")
                else:
                    log.info("fork server for %s ready in %.2f s (%s preloaded)", self.name,
                             time.monotonic() - self._started, ", ".join(msg.get("preload", ())))
                self._ready.set()
                continue
            child = self._children.get(msg.get("id", -1))
            if child is None:
                continue
            if op == "started":
                child.pid = msg["pid"]
                child._known.set()
            elif op == "exit":
                self._children.pop(child.rid, None)
                child.cpu_seconds = msg.get("cpu")
                self.forked += 1
                self.children_cpu += child.cpu_seconds or 0.0
                self.children_sys += msg.get("sys", 0.0)
                self.children_faults += msg.get("faults", 0)
                self.parent_cpu = msg.get("parent_cpu", self.parent_cpu)
                child._exited(int(msg["code"]))
            elif op == "failed":
                self._children.pop(child.rid, None)
                with open(child.log_path, "a") as f:
                    f.write(f"fork server: cannot start this bot process: {msg.get('error')}\n")
                child._exited(EXIT_SETUP)

    def _broken(self, why: str, quiet: bool = False) -> None:
        with self._lock:
            was = self.alive
            self.alive = False
            self.why_not = self.why_not or why
            children = list(self._children.values())
            self._children.clear()
        if was and not quiet:
            log.warning("%s (%s); its bot's processes start afresh from now on", why, self.name)
        self._ready.set()
        for child in children:  # the sandbox died, and every process in it
            child._exited(137)

    # -- stopping ------------------------------------------------------------------------

    def stop(self, timeout: float = 3.0) -> None:
        """Stop the parent and, with its sandbox, every child still running."""
        self._broken("stopped", quiet=True)
        if self.forked:
            log.info("fork server for %s: %d processes, %.1f ms of CPU each (%.1f in the kernel, %d page faults;"
                     " the parent: %.2f s in all)", self.name, self.forked, 1000 * self.children_cpu / self.forked,
                     1000 * self.children_sys / self.forked, self.children_faults // self.forked, self.parent_cpu)
        try:
            self._sock.close()  # the parent returns on EOF: its sandbox ends, and every child in it
        except OSError:
            pass
        sb.kill_tree(self.proc, timeout)
        self._reader.join(timeout)
        sb.cleanup(self._workdir)
        shutil.rmtree(self.spawn_root, ignore_errors=True)


def _tail(path: Path, max_bytes: int = 2000) -> str:
    try:
        return path.read_bytes()[-max_bytes:].decode(errors="replace").strip()
    except OSError:
        return ""


# -- one parent per bot for the whole process ----------------------------------------------

def _identity(path: str | os.PathLike) -> tuple[str, int, int]:
    """A bot's code as a parent binds it: its path and the inode there now (a bind follows
    the inode: a file or folder replaced since needs a parent of its own)."""
    resolved = Path(path).resolve()
    st = resolved.stat()
    return str(resolved), st.st_dev, st.st_ino


class _Registry:
    """The process's fork servers, by what makes a parent differ, counted by their users."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._starting = threading.Lock()
        self._servers: dict[tuple, ForkServer] = {}
        self._users: dict[ForkServer, int] = {}
        self._timers: dict[ForkServer, threading.Timer] = {}
        self._jobs: queue.SimpleQueue | None = None  # for the thread that starts the parents
        self._log_dir: Path | None = None
        self._count = 0

    def popen(self, *args, **kwargs) -> subprocess.Popen:
        """Popen from the registry's own thread: bwrap's --die-with-parent is the death of
        the thread that started it, and a parent outlives the pool (and thread) that asked.
        A daemon thread, alive until the process ends (after ``stop_all``, at exit)."""
        with self._starting:  # (called with ``_lock`` held, by ``acquire``)
            if self._jobs is None:
                self._jobs = queue.SimpleQueue()
                threading.Thread(target=_start_loop, args=(self._jobs,), name="forkserver-start", daemon=True).start()
            jobs = self._jobs
        started: concurrent.futures.Future[subprocess.Popen] = concurrent.futures.Future()
        jobs.put((started, args, kwargs))
        return started.result()

    def acquire(self, box: sb.Sandbox, *, code: Sequence[str | os.PathLike], env: dict[str, str], name: str,
                bundled_module: str | None) -> ForkServer:
        key = (box.mode, tuple(_identity(c) for c in code), tuple(sorted(env.items())), bundled_module)
        stale = None
        with self._lock:
            server = self._servers.get(key)
            if server is not None and not server.alive:  # it died: the next pool gets a new one
                del self._servers[key]
                stale, server = server, None
            if server is None:
                if self._log_dir is None:
                    self._log_dir = scratch.make("arena-bots-")
                self._count += 1
                server = ForkServer(box, code=code, env=env, name=name, bundled_module=bundled_module,
                                    log_path=self._log_dir / f"{name}.{self._count}.forkserver.stderr.log")
                self._servers[key] = server
            self._users[server] = self._users.get(server, 0) + 1
            timer = self._timers.pop(server, None)
        if timer is not None:
            timer.cancel()
        if stale is not None and not self._users.get(stale):
            self._drop(stale)
        return server

    def release(self, server: ForkServer) -> None:
        with self._lock:
            left = self._users.get(server, 1) - 1
            if left > 0:
                self._users[server] = left
                return
            self._users.pop(server, None)
            if server.alive and any(s is server for s in self._servers.values()):
                timer = self._timers[server] = threading.Timer(IDLE_SECONDS, self._idle, (server,))
                timer.daemon = True
                timer.start()
                return
        self._drop(server)

    def _idle(self, server: ForkServer) -> None:
        with self._lock:
            if self._users.get(server) or self._timers.get(server) is not threading.current_thread():
                return
            self._timers.pop(server, None)
        self._drop(server)

    def _drop(self, server: ForkServer) -> None:
        with self._lock:
            for key, s in list(self._servers.items()):
                if s is server:
                    del self._servers[key]
            self._users.pop(server, None)
            timer = self._timers.pop(server, None)
        if timer is not None:
            timer.cancel()
        server.stop()

    def stop_all(self) -> None:
        """Stop every parent (at exit: their sandboxes and children go with them)."""
        with self._lock:
            servers = set(self._servers.values()) | set(self._users) | set(self._timers)
            timers = list(self._timers.values())
            self._servers.clear()
            self._users.clear()
            self._timers.clear()
            log_dir, self._log_dir = self._log_dir, None
        for timer in timers:
            timer.cancel()
        for server in servers:
            server.stop()
        if log_dir is not None:
            shutil.rmtree(log_dir, ignore_errors=True)


def _start_loop(jobs: queue.SimpleQueue) -> None:
    while True:
        started, args, kwargs = jobs.get()
        try:
            started.set_result(subprocess.Popen(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - the caller's to raise
            started.set_exception(exc)


_registry = _Registry()
_owner = os.getpid()


def _popen(*args, **kwargs) -> subprocess.Popen:
    return _registry.popen(*args, **kwargs)


def acquire(box: sb.Sandbox, *, code: Sequence[str | os.PathLike], env: dict[str, str], name: str = "bot",
            bundled_module: str | None = None) -> ForkServer:
    """The process's fork server for a bot (``code``, ``env``, ``bundled_module``: as for
    ``ForkServer``), started now if there is none alive; ``release`` it when done. Its
    children reach an arbiter once the caller has ``attach``ed it."""
    return _registry.acquire(box, code=code, env=env, name=name, bundled_module=bundled_module)


def release(server: ForkServer) -> None:
    """A user of ``server`` is done: once it has none, it stops after ``IDLE_SECONDS``
    (at once if it has died)."""
    _registry.release(server)


def stop_all() -> None:
    """Stop every fork server of this process (at exit)."""
    if os.getpid() == _owner:
        _registry.stop_all()


def _forked() -> None:
    """In a child of a fork: its parent's fork servers are not its own (nor the threads
    that serve them): it starts with none."""
    global _registry, _owner
    _registry, _owner = _Registry(), os.getpid()


os.register_at_fork(after_in_child=_forked)
atexit.register(stop_all)
