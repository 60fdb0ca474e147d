"""Processes as /proc shows them: resident memory, descendants, liveness; and starting a
real `arbiter serve` on loopback as tests/conftest.py's start_serve does."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from arbiter.hosting.stop import stop_processes

ROOT = Path(__file__).resolve().parents[2]


def rss_bytes(pid: int) -> int:
    """Resident set size of ``pid`` (VmRSS), 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for t in tasks:
        try:
            out += [int(x) for x in Path(f"/proc/{pid}/task/{t}/children").read_text().split()]
        except OSError:
            pass
    return out


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` now (children, their children...)."""
    seen: set[int] = set()
    todo = [pid]
    while todo:
        for c in children(todo.pop()):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie has exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] not in "ZX"


def start_time(pid: int) -> int:
    """The kernel's start time of ``pid`` (clock ticks since boot), to tell a reused pid apart."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat[stat.rindex(")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return -1


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def uid(pid: int) -> int | None:
    """The real uid of ``pid`` (None: gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def is_bot(pid: int) -> bool:
    """Whether ``pid`` is a bot process, on every path a bot starts: a fresh one runs
    ``python -m sdk``; a fork server's child keeps its parent's command line (zygote.py)
    and is told from that parent by its uid, the bot's own (the parent runs as root)."""
    line = cmdline(pid) + " "
    if " -m sdk " in line:
        return True
    return "zygote.py" in line and uid(pid) not in (None, 0, os.getuid())


def bot_name(pid: int) -> str:
    """The name a bot process plays under: its ``--name`` (a fresh one), else what its
    stderr log is named after (``NAME.N.stderr.log`` or ``NAME#SLOT...``: a forked one,
    whose command line is its fork server's); "?" if neither says."""
    m = re.search(r"--name (\S+)", cmdline(pid))
    if m:
        return m.group(1)
    try:
        log = Path(os.readlink(f"/proc/{pid}/fd/2")).name
    except OSError:
        return "?"
    return re.split(r"[.#]", log)[0] if log.endswith(".stderr.log") else "?"


def wait_gone(pids, timeout: float) -> set[int]:
    """Wait until none of ``pids`` (pid -> start time) runs; the ones still running.

    The wait is the kernel's event, not a poll: a pidfd becomes readable when its process
    exits (as a zombie too: it has exited, as ``alive`` says), whoever its parent is."""
    deadline = time.monotonic() + timeout
    fds: dict[int, int] = {}
    try:
        for p, t in dict(pids).items():
            try:
                fd = os.pidfd_open(p)
            except ProcessLookupError:
                continue  # gone (and reaped) already
            if start_time(p) != t:  # the pid now names another process: ours is gone
                os.close(fd)
                continue
            fds[fd] = p
        while fds and (left := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select(list(fds), [], [], left)
            for fd in ready:
                del fds[fd]
                os.close(fd)
        return set(fds.values())
    finally:
        for fd in fds:
            os.close(fd)


def wait_stopped(proc: subprocess.Popen, timeout: float) -> bool:
    """Wait for ``proc`` (started with ``CHAOS_FAILPOINT``, tests/campaigns/failpoints.py) to
    stop itself at its failpoint: True once it has (the kernel tells its parent: waitpid
    with WUNTRACED); False if it exited first or ``timeout`` passed."""
    box: list[int] = []
    t = threading.Thread(target=lambda: box.append(os.waitpid(proc.pid, os.WUNTRACED)[1]), daemon=True)
    t.start()
    t.join(timeout)
    if not box:
        return False
    if os.WIFSTOPPED(box[0]):
        return True
    proc.returncode = os.waitstatus_to_exitcode(box[0])  # reaped here: Popen must not wait again
    return False


def kill(pid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


class Serve:
    """A real `arbiter serve` on a free 127.0.0.1 port with a credentials file of its own."""

    def __init__(self, *args: str, bots: tuple[str, ...] = ()):
        from arbiter.server import auth

        self._auth = auth
        self.dir = Path(tempfile.mkdtemp(prefix="arena-fuzz-serve-"))
        self.credentials = self.dir / "credentials.json"
        auth.ensure(self.credentials, bots)
        self.log_path = self.dir / "serve.log"
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arbiter", "serve", "--host", "127.0.0.1", "--port", "0",
             "--credentials", str(self.credentials), *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=self._log, text=True, stdin=subprocess.DEVNULL,
        )
        line = self.proc.stdout.readline()
        m = re.search(r"listening on (127\.0\.0\.1:\d+)", line)
        if not m:
            self.proc.kill()
            raise RuntimeError(f"arbiter serve did not start: {line!r} {self.log_path.read_text()[-2000:]}")
        self.address = m.group(1)
        self.creds = auth.read(self.credentials)

    def token(self, name: str) -> str:
        return self.creds.bots[name]

    @property
    def admin_token(self) -> str:
        return self.creds.admin

    def log_text(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> int | None:
        stop_processes(self.proc, 15)
        self._log.close()
        return self.proc.returncode
