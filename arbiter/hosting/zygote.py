"""The parent of a fork server, run inside one bot's sandbox: ``python zygote.py CTL_FD [CONFIG]``.

``arbiter.hosting.forkserver`` starts this program under bubblewrap, with the bot's code
bound in as for any bot process (no arbiter's socket: one parent serves every arbiter of
its process, each child binds its own's), and asks it over the
control socket ``CTL_FD`` for bot processes. It never runs a line of the bot's code: it
imports the SDK and what the SDK stands on (grpc, protobuf, the core), compiles the SDK's
codecs of every game (``sdk.convert.warm``: one Turn of a seed-0 deal, no bot asked) and
builds the command line's parser (and parses one child-shaped line with it), holds its
import path cache's entries (a child empties the cache; freeing them would copy pages),
checks that it is still one thread with no gRPC channel, and then only forks (CONFIG,
JSON: ``{"bundled": [module]}``, the module of a bundled bot to import too). The bot
module is imported by each child, after the child has been confined, so whatever the bot does at import time
(module state, files, processes) happens in that child and dies with it; every child
starts from the same pristine copy of this parent.

Each request makes one process, the *bot*: the parent makes a new PID namespace for its
children (``unshare(CLONE_NEWPID)``), forks, and goes back to its own (``setns``), so the
bot is PID 1 of its own PID namespace (every process it makes dies with it). The parent
sends it the arbiter's TERM (SIGTERM) and KILL (SIGKILL), waits for it and reports its
status (128 + N for a signal, as bwrap reports it). The bot, still as root and before any bot code:
makes new mount, network, IPC and UTS namespaces, mounts a fresh ``/tmp`` and ``/proc``,
  binds its own fresh working directory at ``/bot/work`` and its own arbiter's sockets at
  ``/run/arena`` (read-only tmpfs) and hides the others (every child's directory, every
  arbiter's sockets), brings its
  loopback up, takes the stderr file the arbiter passed, closes every other descriptor,
  starts a session, drops to its own uid (every capability goes with it), joins a new
  session keyring, sets its rlimits and priority, replaces its environment and runs
  ``python -m sdk`` in-process.

Protocol (JSON datagrams on a SOCK_SEQPACKET socket): the arbiter sends ``{"op": "spawn",
"id", "uid", "work", "arbiter", "sockets", "env", "argv", "limits", "nice"}`` with the stderr descriptor
attached, and ``{"op": "signal", "id", "kill": bool}``; this program answers ``{"op":
"ready", ...}`` once, then ``{"op": "started", "id", "pid"}`` (the bot's pid in the
sandbox's namespace), ``{"op": "exit", "id",
"code"}`` or ``{"op": "failed", "id", "error"}``.

Only the standard library is imported at module level: the SDK is imported by ``main``.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import json
import os
import re
import resource
import select
import signal
import socket
import struct
import sys
import tempfile
import time
import traceback

WORK_DIR = "/bot/work"  # sandbox.WORK_DIR: where every bot process has its working directory
SPAWN_DIR = "/bot/spawn"  # sandbox.SPAWN_DIR: the fresh working directories, one per child
SOCKET_DIR = "/run/arena"  # sandbox.SOCKET_DIR: where a bot finds its arbiter's sockets

#: What the parent imports before it forks: the SDK and everything it stands on, the games'
#: engines and the SDK's typed views (a fresh process imports its game's on the first
#: MatchStart), never a submitted bot. A bundled bot's module (the platform's own code,
#: trusted as the SDK is) is imported too when the parent is a bundled bot's (CONFIG).
PRELOAD = ("asyncio", "grpc", "grpc.aio", "google.protobuf", "cardarena.games", "cardarena.v1.arena_pb2",
           "cardarena.v1.arena_pb2_grpc", "sdk", "sdk.bot", "sdk.convert", "sdk.runner", "sdk.loading", "sdk.__main__",
           "sdk.spades", "sdk.spite_and_malice", "sdk.spot")

_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC = 0x20000, 0x4000000, 0x8000000
_CLONE_NEWPID, _CLONE_NEWNET = 0x20000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REMOUNT = 1, 2, 4, 8, 32
_MS_BIND, _MS_MOVE, _MS_REC, _MS_PRIVATE = 4096, 8192, 16384, 1 << 18
_PR_SET_PDEATHSIG = 1
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 1
_SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}
_KEYCTL_JOIN_SESSION_KEYRING = 1
_EXIT_SETUP = 70  # the child could not be confined: it ran no bot code

_libc = ctypes.CDLL(None, use_errno=True)

#: What the parent holds so that a child dropping it frees nothing (``main``): a child's
#: frees write to the parent's pages, each write a page copied.
_HELD: list = []

#: The parent's mount table as it read it before serving, and its mounts below /tmp.
_PARENT_MOUNTS: tuple[str, list[str]] | None = None


def _tmp_mounts(info: str) -> list[str]:
    """The mounts below /tmp of a mount table ``info``: the parent's reading of them when
    the table is the parent's, byte for byte (a child reads its table before it makes its
    own namespace; parsing it cost each child ~0.2 ms of CPU), else read from ``info``."""
    if _PARENT_MOUNTS is not None and info == _PARENT_MOUNTS[0]:
        return _PARENT_MOUNTS[1]
    return _mounts_under("/tmp", info)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    _check(_libc.mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")


def _loopback_up() -> None:
    # as bwrap does for a fresh sandbox: a bot may use its own loopback (nothing else is there)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        import fcntl

        ifr = fcntl.ioctl(s, _SIOCGIFFLAGS, struct.pack("16sH22x", b"lo", 0))
        flags = struct.unpack("16sH22x", ifr)[1]
        fcntl.ioctl(s, _SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | _IFF_UP))


def _new_session_keyring() -> None:
    """Join a new, empty session keyring: one inherited from the parent would be shared by
    every child (a key added by one would be there for the next)."""
    number = _SYS_KEYCTL.get(os.uname().machine)
    if number is not None:
        _libc.syscall(number, _KEYCTL_JOIN_SESSION_KEYRING, None)  # fails only where keyctl is filtered: no keyrings


def _capabilities() -> tuple[int, int]:
    """(permitted, effective) capability sets of this process."""
    got = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("CapPrm", "CapEff"):
                got[key] = int(value.strip(), 16)
    return got["CapPrm"], got["CapEff"]


def _mountinfo() -> str:
    with open("/proc/self/mountinfo") as f:
        return f.read()


def _mounts_under(top: str, info: str | None = None) -> list[str]:
    """The outermost mount points strictly below ``top`` in this mount namespace (or in
    ``info``, a ``/proc/self/mountinfo`` read before)."""
    points = []
    for line in (_mountinfo() if info is None else info).splitlines():
        if line:
            point = line.split()[4]
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), point)  # \040 is a space
            if point.startswith(top.rstrip("/") + "/"):
                points.append(point)
    points.sort(key=len)
    outer: list[str] = []
    for p in points:
        if not any(p == o or p.startswith(o + "/") for o in outer):
            outer.append(p)
    return outer


def _fresh_tmp(stage: str, kept: list[str] | None = None) -> None:
    """A fresh, empty tmpfs at /tmp with the mounts that were below /tmp (``kept``, else
    read now) moved across unchanged (their flags, read-only above all, go with them):
    moved out to ``stage`` (an empty tmpfs of this process's), the tmpfs mounted, moved back."""
    kept = _mounts_under("/tmp") if kept is None else kept
    parked = []
    for i, point in enumerate(kept):
        place = f"{stage}/m{i}"
        if os.path.isdir(point):
            os.mkdir(place, 0o755)
        else:
            os.close(os.open(place, os.O_CREAT | os.O_WRONLY, 0o644))
        _mount(point, place, None, _MS_MOVE)
        parked.append((place, point))
    _mount("tmpfs", "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=64m")
    for place, point in parked:
        parent = os.path.dirname(point)
        os.makedirs(parent, 0o755, exist_ok=True)
        if os.path.isdir(place):
            os.mkdir(point, 0o755)
        else:
            os.close(os.open(point, os.O_CREAT | os.O_WRONLY, 0o644))
        _mount(place, point, None, _MS_MOVE)


def _arbiter_sockets(arbiter: str, names: list[str]) -> None:
    """Its own arbiter's sockets (hard-linked by ``ForkServer.attach`` into the folder
    ``arbiter`` of the spawn root) at ``/run/arena``, as a fresh sandbox binds them, on a
    tmpfs of this process's, read-only (root's, 0755, as bwrap makes the folder)."""
    if not re.fullmatch(r"a[0-9a-f]{16}", arbiter):
        raise OSError(f"not an arbiter's folder: {arbiter!r}")
    _mount("tmpfs", SOCKET_DIR, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "mode=0755,size=4k")
    for name in names:
        source = f"{SPAWN_DIR}/{arbiter}/{os.path.basename(name)}"
        if os.path.exists(source):
            target = f"{SOCKET_DIR}/{os.path.basename(name)}"
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
            _mount(source, target, None, _MS_BIND)
    _mount(None, SOCKET_DIR, None, _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)


def _confine_and_run(req: dict, err_fd: int) -> None:
    """The bot process: confine this (root) process, drop to the bot's uid, run the SDK. Never returns."""
    code = _EXIT_SETUP
    try:
        os.dup2(err_fd, 2)
        below_tmp = _tmp_mounts(_mountinfo())  # still the parent's mount namespace (a copy follows)
        _new_namespaces()
        null = os.open("/dev/null", os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[0])  # the control socket above all
        # Its own file system view: its own working directory at the usual place, the
        # others' hidden, a fresh /tmp (as bwrap makes one: root's, 0755) that keeps the
        # sandbox's binds under /tmp (the project and its venv, when they live there, as a
        # CI clone may), /proc of its PID namespace.
        _mount(f"{SPAWN_DIR}/{req['work']}", WORK_DIR, None, _MS_BIND)
        _mount(None, WORK_DIR, None, _MS_BIND | _MS_REMOUNT | _MS_NOSUID | _MS_NODEV)
        _arbiter_sockets(req["arbiter"], req["sockets"])
        # the other children's working directories and the other arbiters' sockets: hidden
        _mount("tmpfs", SPAWN_DIR, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "mode=0755,size=4k")
        _fresh_tmp(SPAWN_DIR, below_tmp)
        _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
        _loopback_up()
        os.setsid()
        uid = req["uid"]
        os.setgroups(req.get("groups", []))  # only the group of the arbiter's sockets (sandbox.BOT_GROUP)
        os.setgid(uid)
        os.setuid(uid)  # from root to a uid of its own: every capability is dropped here
        if _capabilities() != (0, 0):
            raise OSError("capabilities survived the uid drop")
        _check(_libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl")
        _new_session_keyring()
        for which, value in req["limits"]:
            soft, hard = resource.getrlimit(which)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (value, value))
        if req["nice"] > os.nice(0):
            os.nice(req["nice"] - os.nice(0))
        os.chdir(WORK_DIR)
        os.environ.clear()
        os.environ.update(req["env"])
        # sys.path as ``python -m sdk`` in this directory has it: the directory first, then
        # PYTHONPATH (a folder bot's own modules), then the installation
        extra = [p for p in req["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = [WORK_DIR, *extra, *[p for p in sys.path[1:] if p not in extra]]
        sys.path_importer_cache.clear()
        importlib.invalidate_caches()
        tempfile.tempdir = None
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        main = sys.modules["sdk.__main__"].main
        sys.argv = [main.__code__.co_filename, *req["argv"]]
        code = 1
        code = main(req["argv"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - its stderr is the arbiter's record of why
        traceback.print_exc()
        if code == _EXIT_SETUP:
            print("fork server: this bot process could not be confined; it ran no bot code", file=sys.stderr)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code if isinstance(code, int) else 1)


def _new_namespaces() -> None:
    """In the bot (PID 1 of the PID namespace its parent made for it): its own mount,
    network, IPC and UTS namespaces, its mounts its own."""
    _check(_libc.unshare(_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWUTS), "unshare")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)


def _fork_in_new_pid_namespace(own_pid_ns: int) -> int:
    """``os.fork`` with the child PID 1 of a new PID namespace; the caller's later children
    are in its own again (``own_pid_ns``: a descriptor of its ``/proc/self/ns/pid``)."""
    _check(_libc.unshare(_CLONE_NEWPID), "unshare(CLONE_NEWPID)")
    pid = -1
    try:
        pid = os.fork()
    finally:
        if pid != 0:  # the caller (the fork done or failed): back to its own
            _check(_libc.setns(own_pid_ns, _CLONE_NEWPID), "setns back to its own PID namespace")
    return pid


class _Parent:
    def __init__(self, ctl: socket.socket) -> None:
        self.ctl = ctl
        self.bots: dict[int, int] = {}  # bot pid -> request id
        self.by_id: dict[int, int] = {}  # request id -> bot pid
        self.pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)

    def send(self, **msg) -> None:
        self.ctl.send(json.dumps(msg).encode())

    def spawn(self, req: dict, err_fd: int) -> None:
        sys.stderr.flush()
        pid = _fork_in_new_pid_namespace(self.pid_ns)
        if pid == 0:  # the bot: whatever happens, it never returns into this loop
            try:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                _confine_and_run(req, err_fd)  # closes the control socket and the rest
            finally:
                os._exit(_EXIT_SETUP)
        self.bots[pid] = req["id"]
        self.by_id[req["id"]] = pid
        self.send(op="started", id=req["id"], pid=pid)

    def reap(self) -> None:
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            rid = self.bots.pop(pid, None)
            if rid is not None:
                self.by_id.pop(rid, None)
                # the CPU time of the bot (and of its own children it waited for)
                me = resource.getrusage(resource.RUSAGE_SELF)
                code = os.waitstatus_to_exitcode(status)
                self.send(op="exit", id=rid, code=128 - code if code < 0 else code,
                          cpu=round(usage.ru_utime + usage.ru_stime, 4), user=round(usage.ru_utime, 4),
                          sys=round(usage.ru_stime, 4), faults=usage.ru_minflt,
                          parent_cpu=round(me.ru_utime + me.ru_stime, 4))

    def serve(self) -> None:
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_w)
        while True:
            ready, _, _ = select.select([self.ctl, self.wake_r], [], [])
            if self.wake_r in ready:
                try:
                    while os.read(self.wake_r, 512):
                        pass
                except BlockingIOError:
                    pass
                self.reap()
            if self.ctl in ready:
                data, fds, _, _ = socket.recv_fds(self.ctl, 1 << 20, 4)
                if not data:
                    return  # the arbiter is gone: returning ends the sandbox and every child in it
                req = json.loads(data)
                try:
                    if req["op"] == "spawn" and not fds:
                        self.send(op="failed", id=req["id"], error="no stderr descriptor came with the request")
                    elif req["op"] == "spawn":
                        try:
                            self.spawn(req, fds[0])
                        except OSError as exc:
                            self.send(op="failed", id=req["id"], error=f"{type(exc).__name__}: {exc}")
                    elif req["op"] == "signal" and req["id"] in self.by_id:
                        # PID 1 of its namespace: a TERM reaches it once it handles TERM (the
                        # SDK does), a KILL always
                        os.kill(self.by_id[req["id"]], signal.SIGKILL if req.get("kill") else signal.SIGTERM)
                finally:
                    for fd in fds:
                        os.close(fd)


def _self_test() -> str:
    """'' if a child can be confined here (namespaces, mounts, uid drop), else why not."""
    r, w = os.pipe()
    own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    try:
        pid = _fork_in_new_pid_namespace(own)
    except OSError as exc:
        os.close(own)
        os.close(r)
        os.close(w)
        return str(exc)
    if pid == 0:  # (every path ends in os._exit)
        os.close(r)
        try:
            if os.getpid() != 1:
                raise OSError("not PID 1 of a PID namespace of its own")
            _new_namespaces()
            _mount("tmpfs", "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=4k")
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            os._exit(0 if _capabilities() == (0, 0) else 3)
        except BaseException as exc:  # noqa: BLE001
            os.write(w, str(exc).encode())
            os._exit(2)
    os.close(own)
    os.close(w)
    why = os.read(r, 4096).decode(errors="replace")
    os.close(r)
    _, status = os.waitpid(pid, 0)
    return "" if os.waitstatus_to_exitcode(status) == 0 else (why or f"self-test exited with {status}")


def main() -> None:
    ctl = socket.socket(fileno=int(sys.argv[1]))
    sys.path[0] = WORK_DIR  # as ``python -m sdk`` run there has it, not this file's directory
    config = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    t0 = time.perf_counter()
    preload = [*PRELOAD, *config.get("bundled", ())]
    for name in preload:
        importlib.import_module(name)
    games = sys.modules["cardarena.games"]
    for game in games.GAMES:
        games.game_class(game)  # the engine's module: imported on first use
    # What every child would otherwise do first, each for itself (docs/performance.md,
    # "Isolation"): a bundled bot's per-game parts imported (platform code, as the bot's
    # module), the SDK's codecs of every game compiled, the command line's parser built.
    warmed = False
    try:
        parts = sys.modules.get("bots.games")
        if config.get("bundled") and parts is not None:
            preload += parts.preload()
        for game in games.GAMES:
            sys.modules["sdk.convert"].warm(game)
        # the parser built, and one command line of a child's shape parsed: argparse's
        # first parse fills caches (its patterns) that each child filled for itself
        sys.modules["sdk.__main__"].parser().parse_args(["--bot", "random", "--name", "bot", "--address",
                                                         f"local:{SOCKET_DIR}/local.sock"])
        warmed = True
    except Exception:  # noqa: BLE001 - only a saving lost: each child does it again
        traceback.print_exc()
    threads = len(os.listdir("/proc/self/task"))
    problem = _self_test()
    if threads != 1:
        # gRPC (or anything) started a thread: a fork would copy a process whose other
        # threads are gone, mid-way through whatever they held. Refuse to fork at all.
        problem = f"{threads} threads after the imports: cannot fork safely"
    gc.collect()
    gc.freeze()  # the imported modules' objects stay shared, untouched by the children's collections
    # A child empties the import system's path cache (its file system is not the parent's);
    # holding the parent's entries here, that frees nothing in the child: freeing the
    # finders' directory listings (~1,000 names) cost each child ~0.7 ms of CPU and ~300
    # copy-on-write page faults (docs/performance.md, "Eleventh session")
    _HELD.extend(sys.path_importer_cache.values())
    global _PARENT_MOUNTS
    info = _mountinfo()
    _PARENT_MOUNTS = (info, _mounts_under("/tmp", info))
    parent = _Parent(ctl)
    parent.send(op="ready", ok=not problem, error=problem, threads=threads, preload=preload, warmed=warmed,
                seconds=round(time.perf_counter() - t0, 3))
    if problem:
        return
    parent.serve()


if __name__ == "__main__":
    main()
