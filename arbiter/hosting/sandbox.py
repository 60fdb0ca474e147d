"""How the arbiter confines a bot process it starts: an untrusted program in a box.

Three levels, the strongest this machine supports chosen at run time (``ARENA_SANDBOX``
= ``bwrap`` | ``unshare`` | ``rlimit`` | ``auto`` forces one; ``auto`` is the default):

``bwrap`` (bubblewrap, ``apt-get install bubblewrap``)
    a new mount, network, PID, IPC and UTS namespace. The bot sees a read-only ``/usr``,
    the Python installation and the four packages it needs (``sdk``, ``arbiter``,
    ``cardarena``, ``bots``), its own code read-only at ``/bot/code``, a private writable
    working directory at ``/bot/work`` and an empty ``/tmp``; nothing else of the host
    file system (not the store, not other bots, not ``/etc``, not ``/home``). The network
    namespace has only its own loopback: the one way out is the arbiter's Unix socket,
    bound in at ``/run/arena/arena.sock``. When the arbiter runs as root the bot runs
    under a uid of its own (so process limits count and bots cannot signal each other);
    all its processes die with the sandbox (PID namespace, ``--die-with-parent``).
``unshare``
    ``unshare -n``: a network namespace with no way out but the Unix socket; the file
    system is the host's (readable as the arbiter's user), so only the rlimits and file
    permissions protect files.
``rlimit``
    resource limits only; the bot reaches the arbiter over TCP loopback and could open
    other sockets and read whatever the arbiter's user can read.

Everywhere: rlimits set before exec (``RLIMIT_DATA``/``RLIMIT_AS`` memory, ``RLIMIT_CPU``
CPU seconds, ``RLIMIT_NPROC`` processes and threads, ``RLIMIT_NOFILE`` open files,
``RLIMIT_FSIZE`` file size, no core dumps), a lower scheduling priority, a fresh session
(process group) so the whole group can be killed, a scrubbed environment (only what the
bot needs: ``ARENA_ADDRESS``, ``ARENA_TOKEN``, ``HOME``, ``PATH``...), a private working
directory deleted afterwards, stdin closed and stderr captured to a file.

Bot processes from a fork server (``deal`` and ``match`` isolation start many): with
bwrap and an arbiter running as root, ``forkserver.ForkServer`` keeps one pre-started,
pre-imported parent per bot (for the whole process: ``forkserver.acquire``) inside a
sandbox of this kind and forks each new bot process
from it, the child getting its own namespaces, uid, ``/tmp`` and working directory before
any bot code is imported (``ARENA_FORKSERVER=0`` turns it off; ``fork_support`` says
whether it is used here and why not).

``Sandbox.describe()`` says, in words, what is enforced here and what is not.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import itertools
import json
import logging
import os
import random
import re
import resource
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

from cardarena.runtimes import MANIFEST, PYTHON, RUNTIMES
from cardarena.wire import framing
from arbiter import scratch
from arbiter.hosting.stop import stop_processes

log = logging.getLogger(__name__)

MODES = ("bwrap", "unshare", "rlimit")

#: Where things appear inside a bwrap sandbox.
CODE_DIR = "/bot/code"
WORK_DIR = "/bot/work"
SOCKET_DIR = "/run/arena"
SOCKET_NAME = "arena.sock"
SPAWN_DIR = "/bot/spawn"  # a fork server's fresh working directories (zygote.SPAWN_DIR)

# Each sandboxed process gets its own uid (when the arbiter is root): limits on
# processes are per uid, and processes of different uids cannot signal each other.
# Run by the sandboxed process itself just before the bot: drop to the bot's uid (if
# any), set the limits (never above an inherited hard limit), lower the priority, exec.
_WRAPPER = """
import json, os, resource, sys
cfg = json.loads(sys.argv[1])
if cfg["uid"] is not None:
    os.setgroups(cfg["groups"]); os.setgid(cfg["uid"]); os.setuid(cfg["uid"])
for which, value in cfg["limits"]:
    soft, hard = resource.getrlimit(which)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(which, (value, value))
if cfg["nice"]:
    os.nice(cfg["nice"])
os.execv(sys.argv[2], sys.argv[2:])
"""

_UID_BASE = 200_000 + random.Random(os.getpid()).randrange(0, 40_000) * 16
#: The one group every bot uid of this arbiter has (as its only supplementary group): the
#: group of the arbiter's sockets (``grant_sockets``), so that its bots may connect to them
#: and no other user of the machine may (the sockets are 0660, owner root, this group).
BOT_GROUP = _UID_BASE - 1


def grant_sockets(unix_socket: str) -> None:
    """Let this arbiter's bot uids reach its sockets (the gRPC one and the local channel's
    beside it): group ``BOT_GROUP``, mode 0660. Only when the arbiter runs as root and gives
    its bots uids of their own; otherwise the sockets stay as the server made them (0600:
    the arbiter's user only, which its bots run as)."""
    if os.geteuid() != 0:
        return
    for path in (Path(unix_socket), Path(unix_socket).with_name(framing.SOCKET_NAME)):
        try:
            os.chown(path, -1, BOT_GROUP)
            os.chmod(path, 0o660)
        except FileNotFoundError:
            pass
_uids = itertools.count()


@dataclass(frozen=True)
class Limits:
    """Resource limits of one bot process (0 = leave the inherited limit)."""

    memory_mb: int = 1024  # RLIMIT_DATA: heap and private writable mappings
    address_space_mb: int = 0  # RLIMIT_AS; 0 = 4 x memory_mb + 2048 (gRPC reserves a lot it never touches)
    cpu_seconds: int = 600  # RLIMIT_CPU: total CPU time of the process; SIGXCPU then SIGKILL
    processes: int = 64  # RLIMIT_NPROC: processes AND threads of the bot's uid
    open_files: int = 256  # RLIMIT_NOFILE
    file_size_mb: int = 64  # RLIMIT_FSIZE: largest file it may write
    nice: int = 5  # scheduling priority increment, so the arbiter stays responsive

    def rlimits(self) -> list[tuple[int, int]]:
        mb = 1024 * 1024
        out = [(resource.RLIMIT_CORE, 0)]
        if self.memory_mb:
            out.append((resource.RLIMIT_DATA, self.memory_mb * mb))
            asp = self.address_space_mb or (4 * self.memory_mb + 2048)
            out.append((resource.RLIMIT_AS, asp * mb))
        if self.cpu_seconds:
            out.append((resource.RLIMIT_CPU, self.cpu_seconds))
        if self.processes:
            out.append((resource.RLIMIT_NPROC, self.processes))
        if self.open_files:
            out.append((resource.RLIMIT_NOFILE, self.open_files))
        if self.file_size_mb:
            out.append((resource.RLIMIT_FSIZE, self.file_size_mb * mb))
        return out


class SandboxError(Exception):
    """A sandbox mode was asked for that this machine cannot provide."""


def _probe(cmd: Sequence[str]) -> bool:
    try:
        return subprocess.run(list(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@functools.lru_cache(maxsize=None)
def available_modes() -> tuple[str, ...]:
    """The sandbox modes that work on this machine, strongest first (``rlimit`` always)."""
    modes = []
    bwrap = shutil.which("bwrap")
    if bwrap and _probe([bwrap, "--unshare-net", "--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"]):
        modes.append("bwrap")
    unshare = shutil.which("unshare")
    if unshare and (_probe([unshare, "-n", "true"]) or _probe([unshare, "-rn", "true"])):
        modes.append("unshare")
    modes.append("rlimit")
    return tuple(modes)


def best_mode() -> str:
    """The mode ``auto`` picks: ``ARENA_SANDBOX`` if set (and not auto), else the strongest."""
    wanted = os.environ.get("ARENA_SANDBOX", "auto").strip().lower() or "auto"
    if wanted == "auto":
        return available_modes()[0]
    if wanted not in MODES:
        raise SandboxError(f"ARENA_SANDBOX={wanted!r}: expected auto, {', '.join(MODES)}")
    if wanted not in available_modes():
        raise SandboxError(f"sandbox mode {wanted!r} is not available here (available: {', '.join(available_modes())})")
    return wanted


def fork_support(box: "Sandbox") -> tuple[bool, str]:
    """(True, "") if fresh bot processes of ``box`` may come from a fork server, else (False, why not).

    Only with bwrap as root: each child then gets a uid of its own and its own namespaces
    (the parent keeps the capabilities to make them). Elsewhere children would share one
    uid and one network namespace, which a fresh process does not: they start afresh."""
    wanted = os.environ.get("ARENA_FORKSERVER", "auto").strip().lower()
    if wanted in ("0", "off", "no", "false"):
        return False, "ARENA_FORKSERVER=0"
    if box.mode != "bwrap":
        return False, "needs bubblewrap (sandbox mode bwrap)"
    if os.geteuid() != 0:
        return False, "needs an arbiter running as root (each child needs a uid and namespaces of its own)"
    return True, ""


def _package_dirs() -> list[Path]:
    """The directories of the packages a bot process imports (the SDK and what it uses)."""
    # Found, not imported: the arbiter never runs the bots' code in its own process.
    dirs = []
    for name in ("sdk", "arbiter", "cardarena", "bots"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            dirs.append(Path(next(iter(spec.submodule_search_locations))).resolve())
    return dirs


@dataclass
class Launch:
    """A prepared, not yet started, sandboxed command."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    workdir: Path  # host path of the private working directory
    uid: int | None  # the uid the bot runs as, when the arbiter drops privileges
    address: str  # the address the bot must use to reach the arbiter


@dataclass
class Sandbox:
    """A policy for starting bot processes. ``mode`` ``auto`` picks the strongest available."""

    limits: Limits = dataclasses.field(default_factory=Limits)
    mode: str = "auto"

    def __post_init__(self) -> None:
        if self.mode == "auto":
            self.mode = best_mode()
        elif self.mode not in MODES:
            raise SandboxError(f"sandbox mode {self.mode!r}: expected auto, {', '.join(MODES)}")
        elif self.mode not in available_modes():
            raise SandboxError(f"sandbox mode {self.mode!r} is not available here (available: {', '.join(available_modes())})")

    # -- what it does -------------------------------------------------------------------

    @property
    def drops_privileges(self) -> bool:
        return self.mode == "bwrap" and os.geteuid() == 0

    @property
    def blocks_network(self) -> bool:
        return self.mode in ("bwrap", "unshare")

    @property
    def hides_files(self) -> bool:
        return self.mode == "bwrap"

    @property
    def limits_processes(self) -> bool:
        # The kernel does not apply RLIMIT_NPROC to root.
        return bool(self.limits.processes) and (os.geteuid() != 0 or self.drops_privileges)

    def untrusted_warning(self) -> str:
        """What a server that hosts submitted bots says at its start when this sandbox does
        not isolate them ('' when it does: bwrap): a stranger's bot could then read this
        user's files (stores of running tournaments among them) and reach the network. The
        operator decides; the line says what is missing and how to get it."""
        if self.hides_files and self.blocks_network:
            return ""
        missing = [what for what, held in (("the host's files", self.hides_files), ("the network", self.blocks_network))
                   if not held]
        return (f"submitted bots run in sandbox mode {self.mode}: limits only, {' and '.join(missing)} open to "
                "them; take submissions only from authors you trust, or install bubblewrap (apt-get install "
                "bubblewrap). `arbiter bots sandbox` says what is enforced here")

    def describe(self) -> dict[str, list[str]]:
        """{"enforced": [...], "not enforced": [...]}: what this sandbox does on this machine."""
        lim = self.limits
        on = [
            f"memory: RLIMIT_DATA {lim.memory_mb} MiB (allocation past it fails with MemoryError)",
            f"CPU: RLIMIT_CPU {lim.cpu_seconds} s of CPU time per process (then SIGXCPU/SIGKILL)",
            f"open files: RLIMIT_NOFILE {lim.open_files}",
            f"file size: RLIMIT_FSIZE {lim.file_size_mb} MiB; no core dumps",
            "private working directory, deleted afterwards; environment scrubbed; stdin closed; stderr captured",
            f"lower CPU priority (nice +{lim.nice}); own session, killed as a group",
        ]
        off = []
        if self.limits_processes:
            on.append(f"processes: RLIMIT_NPROC {lim.processes} (processes and threads) under a uid of its own")
        else:
            off.append("processes: RLIMIT_NPROC is not enforced for root (the arbiter runs as root without bwrap)")
        if self.blocks_network:
            on.append(f"network: own network namespace ({self.mode}); the only way out is the arbiter's Unix socket")
        else:
            off.append("network: not blocked (no bwrap or unshare here): the bot reaches the arbiter over TCP loopback and could open other sockets")
        if self.hides_files:
            on.append("files: only /usr, the Python installation, the SDK packages, its own code (read-only) and its working directory are visible")
            on.append("processes: own PID namespace; every process of the bot dies with it")
        else:
            off.append("files: the host file system is visible, limited only by file permissions (no bwrap)")
            if not self.drops_privileges:
                off.append("user: the bot runs as the arbiter's user; where the kernel's ptrace rules allow it "
                           "(kernel.yama.ptrace_scope 0) it could read the arbiter's memory: host untrusted bots with bwrap")
            off.append("processes: no PID namespace; children are killed through the process group only")
        for runtime in RUNTIMES.values():
            if runtime is PYTHON:
                continue
            program = shutil.which(runtime.executable)
            if program:
                on.append(f"runtime {runtime.name}: {Path(program).resolve()} for bots whose {MANIFEST} says runtime = "
                          f"\"{runtime.name}\", in this same sandbox with these limits (its installation read-only)")
            else:
                off.append(f"runtime {runtime.name}: no `{runtime.executable}` on PATH: bots whose {MANIFEST} says "
                           f"runtime = \"{runtime.name}\" cannot be hosted here")
        forks, why = fork_support(self)
        if forks:
            on.append("bot processes (every isolation): forked from a pre-started parent per bot in its "
                      "sandbox (SDK, grpc, protobuf, the games imported; never a submitted bot's code); each child "
                      "gets its own uid, network, PID, IPC and mount namespaces, /tmp and working directory before "
                      "any bot code runs")
        else:
            on.append(f"bot processes (every isolation): a new sandboxed interpreter each (no fork server: {why})")
        return {"enforced": on, "not enforced": off}

    # -- building the command -----------------------------------------------------------

    def prepare(
        self,
        argv: Sequence[str],
        *,
        code: Sequence[str | os.PathLike] = (),
        env: dict[str, str] | None = None,
        tcp_address: str = "",
        unix_socket: str | None = None,
        needs_arbiter: bool = True,
        system: Sequence[str | os.PathLike] = (),
    ) -> Launch:
        """The command that runs ``argv`` confined.

        ``code`` are host paths (files or directories) the bot may read; under bwrap each
        appears at ``/bot/code/<name>``, and ``argv`` must name them by ``code_path()``.
        ``system``: the installation of a runtime other than Python (``node``'s prefix),
        shown read-only at its own path under bwrap, beside ``/usr`` and Python's.
        ``unix_socket`` is the arbiter's socket; without a network namespace the bot gets
        ``tcp_address`` instead. The returned ``address`` is what the bot must dial.
        ``needs_arbiter=False``: a process that talks to no one (the bot's self-test).
        """
        if self.blocks_network and not unix_socket and needs_arbiter:
            raise SandboxError(f"sandbox mode {self.mode} cuts the network: the arbiter must listen on a Unix socket")
        uid = self.new_uid()
        workdir = private_dir(scratch.make("arena-bot-"), uid)
        if self.mode == "bwrap":
            address = f"unix:{SOCKET_DIR}/{SOCKET_NAME}"
            inner_workdir = WORK_DIR
        elif self.mode == "unshare":
            address = f"unix:{unix_socket}"
            inner_workdir = str(workdir)
        else:
            address = tcp_address
            inner_workdir = str(workdir)
        clean = clean_env(inner_workdir, address, env)
        # The last step before the bot: limits (and the uid drop) are set by a tiny wrapper
        # that then execs the bot, not in a preexec_fn (unsafe in the arbiter's threaded
        # process) and after bwrap, so the limits bind the bot and nothing else.
        argv = [sys.executable, "-I", "-S", "-c", _WRAPPER, json.dumps(
            {"limits": self.limits.rlimits(), "nice": self.limits.nice, "uid": uid, "groups": [BOT_GROUP]}), *argv]
        if self.mode == "bwrap":
            cmd = self._bwrap(argv, code, workdir, unix_socket, uid, system=system)
            cwd = "/"
        elif self.mode == "unshare":
            unshare = shutil.which("unshare") or "unshare"
            cmd = [unshare, "-n", *argv] if os.geteuid() == 0 else [unshare, "-rn", *argv]
            cwd = str(workdir)
        else:
            cmd = argv
            cwd = str(workdir)
        return Launch(cmd, clean, cwd, workdir, uid, address)

    def new_uid(self) -> int | None:
        """A uid for one bot process of its own (None: the arbiter does not drop privileges)."""
        return _UID_BASE + next(_uids) % 65536 if self.drops_privileges else None

    def prepare_forkserver(
        self,
        argv: Sequence[str],
        *,
        code: Sequence[str | os.PathLike] = (),
        env: dict[str, str] | None = None,
        spawn_root: Path,
    ) -> Launch:
        """The command that runs a fork server's parent (``argv``) in the sandbox a bot
        process of this policy gets (bwrap, as root only; see ``fork_support``).

        The same namespaces and binds as ``prepare``, plus ``spawn_root`` (the host
        directory of its children's fresh working directories, and of the sockets of the
        arbiters it serves: ``ForkServer.attach``) at ``/bot/spawn``, and no arbiter's
        socket: each child binds its own arbiter's at ``/run/arena`` (``zygote.py``). The
        parent stays root with the capabilities to confine its children (make namespaces,
        mount, change uid, signal); it runs only the zygote, and no rlimits bind it (a
        child sets its own): ``zygote.py`` drops every capability in each child before
        any bot code runs."""
        ok, why = fork_support(self)
        if not ok:
            raise SandboxError(f"no fork server here: {why}")
        workdir = private_dir(scratch.make("arena-fork-"), None)
        address = f"unix:{SOCKET_DIR}/{SOCKET_NAME}"
        clean = clean_env(WORK_DIR, address, env)
        cmd = self._bwrap(list(argv), code, workdir, None, None, spawn_root=spawn_root)
        return Launch(cmd, clean, "/", workdir, None, address)

    def code_path(self, host_path: str | os.PathLike) -> str:
        """How the bot sees ``host_path`` (one of ``code``) inside the sandbox."""
        if self.mode != "bwrap":
            return str(Path(host_path).resolve())
        return f"{CODE_DIR}/{Path(host_path).name}"

    def to_host(self, text: str, code: Sequence[str | os.PathLike]) -> str:
        """``text`` (a bot's stderr, its self-test's report) with the paths the bot saw of
        ``code`` inside the sandbox (``/bot/code/NAME``) as the author knows them: the host
        paths, so a traceback or an error names the author's own file."""
        if self.mode != "bwrap":
            return text
        return host_paths(text, code)

    def _bwrap(self, argv: list[str], code, workdir: Path, unix_socket: str | None, uid: int | None,
               spawn_root: Path | None = None, system: Sequence[str | os.PathLike] = ()) -> list[str]:
        cmd = [shutil.which("bwrap") or "bwrap", "--die-with-parent", "--new-session",
               "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
               "--hostname", "arena-bot"]
        made: set[str] = set()

        def parents(dest: str) -> None:
            # bwrap creates missing parents with mode 0700; the bot's uid must traverse them.
            parts = Path(dest).parent.parts
            for i in range(2, len(parts) + 1):
                d = str(Path(*parts[:i]))
                if d not in made:
                    made.add(d)
                    cmd.extend(["--perms", "0755", "--dir", d])

        def ro(src: str | os.PathLike, dest: str | None = None) -> None:
            src = str(src)
            dest = dest or src
            parents(dest)
            cmd.extend(["--ro-bind", src, dest])

        # The empty /tmp first: binds made after it stay visible even when the project or
        # its venv lives under /tmp (as a CI clone may).
        cmd.extend(["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"])
        made.add("/tmp")
        tops = ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/sbin")
        for top in tops:
            p = Path(top)
            if p.is_symlink():
                cmd.extend(["--symlink", os.readlink(p), top])
            elif p.is_dir():
                ro(top)
        for extra in system:  # another runtime's installation, unless under /usr and the like already
            p = Path(extra).resolve()
            if p.is_dir() and not any(p == Path(t) or Path(t) in p.parents for t in tops):
                ro(p)
        for f in ("/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf"):
            if Path(f).exists():
                ro(f)
        prefixes = {Path(sys.base_prefix).resolve(), Path(sys.prefix)}
        exe = Path(sys.executable)
        prefixes.add(exe.resolve().parent.parent)
        for p in sorted(prefixes):
            if not any(p != q and q in p.parents for q in prefixes):
                ro(p)
        for pkg in _package_dirs():
            ro(pkg)
        for c in code:
            ro(Path(c).resolve(), self.code_path(c))
        parents(WORK_DIR)
        cmd.extend(["--bind", str(workdir), WORK_DIR])
        if unix_socket and Path(unix_socket).exists():
            grant_sockets(unix_socket)  # the bot's uid (or a fork server's children's) may connect
            parents(f"{SOCKET_DIR}/{SOCKET_NAME}")
            cmd.extend(["--bind", unix_socket, f"{SOCKET_DIR}/{SOCKET_NAME}"])
            local = Path(unix_socket).with_name(framing.SOCKET_NAME)  # the same stream in plain frames
            if local.exists():
                cmd.extend(["--bind", str(local), f"{SOCKET_DIR}/{framing.SOCKET_NAME}"])
        if spawn_root is not None:
            parents(SPAWN_DIR)
            cmd.extend(["--bind", str(spawn_root), SPAWN_DIR])
            parents(f"{SOCKET_DIR}/{SOCKET_NAME}")  # where each child binds its arbiter's sockets
            cmd.extend(["--perms", "0755", "--dir", SOCKET_DIR])
        cmd.extend(["--chdir", WORK_DIR])
        if spawn_root is not None:
            # a fork server's parent: what it needs to confine each child (zygote.py), and
            # nothing else; each child loses all of them with its uid, before any bot code
            for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SYS_ADMIN", "CAP_NET_ADMIN", "CAP_KILL"):
                cmd.extend(["--cap-add", cap])
        elif uid is not None:
            # bwrap runs as root here (it must, to see root-only paths it binds); the bot
            # must not. The capabilities to change uid are kept only for the wrapper, which
            # drops every capability by becoming an unprivileged uid before it execs the bot.
            cmd.extend(["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"])
        cmd.append("--")
        cmd.extend(argv)
        return cmd


def host_paths(text: str, code: Sequence[str | os.PathLike]) -> str:
    """``text`` with each ``/bot/code/NAME`` (how bwrap shows ``code`` to the bot) replaced
    by the host path of that ``code`` item (``Sandbox.to_host``)."""
    for host in sorted((Path(c).resolve() for c in code), key=lambda p: -len(p.name)):
        inner = f"{CODE_DIR}/{host.name}"
        text = re.sub(re.escape(inner) + r"(?![\w.-])", lambda _m: str(host), text)
    return text


def clean_env(inner_workdir: str, address: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a bot process: only what it needs, plus ``env``."""
    clean = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": inner_workdir,
        "TMPDIR": inner_workdir,
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "ARENA_ADDRESS": address,
    }
    clean.update(env or {})
    return clean


def private_dir(path: Path, uid: int | None) -> Path:
    """``path`` (an existing directory) made private to ``uid`` (None: to the arbiter's user)."""
    if uid is not None:
        os.chown(path, uid, uid)
    os.chmod(path, 0o700)
    return path


def start(launch: Launch, stderr_path: Path) -> subprocess.Popen:
    """Start a prepared launch, its stderr to ``stderr_path`` (created for the arbiter only)."""
    with open(stderr_path, "wb") as err:
        return subprocess.Popen(
            launch.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=launch.env,
            cwd=launch.cwd, start_new_session=True, close_fds=True,
        )


class Forked(Protocol):
    """A bot process a fork server started (``forkserver.ForkedProcess``): Popen's ``poll``
    and ``returncode``, and a ``kill_tree`` of its own (its parent signals it)."""

    returncode: int | None

    def poll(self) -> int | None: ...

    def kill_tree(self, timeout: float) -> None: ...


def kill_tree(proc: subprocess.Popen | Forked, timeout: float = 3.0) -> None:
    """Terminate a sandboxed process and its whole session (children included): SIGTERM to
    its group, SIGKILL after ``timeout`` (to the group's stragglers even if the leader is
    gone), the process reaped (``stop.stop_processes``)."""
    if not isinstance(proc, subprocess.Popen):  # a fork server's child: its parent signals it
        proc.kill_tree(timeout)
        return
    stop_processes(proc, timeout, group=True)


def cleanup(workdir: Path) -> None:
    """Delete a bot's working directory (whatever the bot left in it)."""
    shutil.rmtree(workdir, ignore_errors=True)
