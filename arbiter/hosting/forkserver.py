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
"""

from __future__ import annotations

import json
import logging
import os
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

log = logging.getLogger(__name__)

ZYGOTE = Path(__file__).with_name("zygote.py")

#: The exit code of a child that could not be confined (zygote._EXIT_SETUP): it ran no bot code.
EXIT_SETUP = 70

#: How long a parent may take to start and import everything before its bot falls back.
READY_TIMEOUT = 30.0


class ForkServerError(Exception):
    """The fork server cannot start a bot process (it failed to start, or has died)."""


class ForkedProcess:
    """A bot process started by a ``ForkServer``: what ``BotProcess`` needs of a Popen."""

    def __init__(self, server: ForkServer, rid: int, workdir: Path, log_path: Path) -> None:
        self.server = server
        self.rid = rid
        self.workdir = workdir  # host path of its private working directory
        self.log_path = log_path
        self.pid: int | None = None  # its shim's pid in the sandbox (not a host pid)
        self.returncode: int | None = None
        self.cpu_seconds: float | None = None  # its CPU time (and its children's), once it has exited
        self._done = threading.Event()

    def poll(self) -> int | None:
        return self.returncode

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
        process it started dies with it."""
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


class ForkServer:
    """The pre-started parent of one bot's processes, in its sandbox.

    ``code`` and ``env`` are what every process of the bot is given (its code, PYTHONPATH
    for a folder bot); ``spawn`` starts one process with its own arguments and token.
    ``alive`` is False once it failed or died: its processes then come from elsewhere."""

    def __init__(self, box: sb.Sandbox, *, code: Sequence[str | os.PathLike], env: dict[str, str], unix_socket: str,
                 log_path: Path, name: str = "bot", bundled_module: str | None = None) -> None:
        self.box = box
        self.name = name
        self.spawn_root = scratch.make("arena-spawn-")
        os.chmod(self.spawn_root, 0o711)  # children reach their own directory; none lists the others
        self._sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        config = json.dumps({"bundled": [bundled_module] if bundled_module else []})
        launch = box.prepare_forkserver([sys.executable, str(ZYGOTE), str(theirs.fileno()), config], code=code, env=env,
                                        unix_socket=unix_socket, spawn_root=self.spawn_root)
        self.address = launch.address
        self._workdir = launch.workdir
        self.log_path = log_path
        with open(log_path, "wb") as err:
            self.proc = subprocess.Popen(launch.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                                         env=launch.env, cwd=launch.cwd, start_new_session=True,
                                         pass_fds=[theirs.fileno()])
        theirs.close()
        self.alive = True
        self.ready: dict | None = None  # the parent's "ready" message
        self.why_not = ""  # why it is not alive
        self._ready = threading.Event()
        self._children: dict[int, ForkedProcess] = {}
        self._ids = 0
        self.forked = 0  # bot processes it started that have exited
        self.children_cpu = 0.0  # their CPU seconds, in all
        self.parent_cpu = 0.0  # its own CPU seconds so far (the imports, then the forks)
        self._lock = threading.RLock()  # (spawn may mark the server broken while holding it)
        self._started = time.monotonic()
        self._reader = threading.Thread(target=self._read, name="forkserver", daemon=True)
        self._reader.start()

    # -- starting bot processes ----------------------------------------------------------

    def spawn(self, argv: Sequence[str], env: dict[str, str], log_path: Path) -> ForkedProcess:
        """A new bot process: ``python -m sdk ARGV`` with environment ``env`` (on top of
        the sandbox's clean one), its stderr to ``log_path``. ForkServerError if this
        server is not alive (the caller starts a fresh process instead)."""
        if not self.alive:
            raise ForkServerError(self.why_not or "the fork server has stopped")
        uid = self.box.new_uid()
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
                       "env": sb.clean_env(sb.WORK_DIR, self.address, env),
                       "limits": self.box.limits.rlimits(), "nice": os.nice(0) + self.box.limits.nice}
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
            elif op == "exit":
                self._children.pop(child.rid, None)
                child.cpu_seconds = msg.get("cpu")
                self.forked += 1
                self.children_cpu += child.cpu_seconds or 0.0
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
            log.info("fork server for %s: %d processes, %.1f ms of CPU each (the parent: %.2f s in all)",
                     self.name, self.forked, 1000 * self.children_cpu / self.forked, self.parent_cpu)
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
