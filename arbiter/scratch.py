"""The arbiter's scratch directories in the system's temporary folder, and the sweep of those
an arbiter killed without warning left behind.

Every run of bot processes makes directories there: a log folder per pool of bot processes
(``arena-bots-``), a working directory per sandboxed bot process (``arena-bot-``), per fork
server (``arena-fork-``) and for its children (``arena-spawn-``), the folder of the
server's Unix socket (``arena-sock-``) and an arena encounter's logs
(``arena-encounter-``); a bot environment being made (``arena-botenv-``) and its install's
home (``arena-piphome-``) are made the same way in the environments' cache
(``arbiter.hosting.botenv``). Their owners remove them when they stop. An arbiter that is
SIGKILLed (the out-of-memory killer, a Dask worker torn down, ``kill -9``) cannot, and
before this module every such kill left its folders for good.

So each name carries its owner: ``<prefix><pid namespace>.<pid>-<random>`` (the
namespace's inode and the pid in base 36, to keep paths short: a Unix socket's path has
at most 107 bytes). The first directory a process makes in a folder starts a sweep there
of the folders whose owner is gone: same PID
namespace (a pid means nothing across namespaces), and no process with that pid there.
A pid reused since by an unrelated process keeps its folder (a leftover, never a live
folder removed). Folders of other names, those of older versions included, are never
touched.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

#: The scratch folders' prefixes (module doc).
PREFIXES = ("arena-bots-", "arena-bot-", "arena-fork-", "arena-spawn-", "arena-sock-", "arena-encounter-",
            "arena-botenv-", "arena-piphome-")

_NAME = re.compile(r"^(?P<prefix>arena-[a-z]+-)(?P<ns>[0-9a-z]+)\.(?P<pid>[0-9a-z]+)-[A-Za-z0-9_]+$")
_swept: set[str] = set()  # folders this process has swept
_lock = threading.Lock()


def _b36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def _pid_namespace() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def make(prefix: str, folder: Path | None = None) -> Path:
    """A fresh directory (0700) in ``folder`` (default: the temporary folder) named for its
    owner, this process; the first one a process makes in a folder sweeps what dead owners
    left there (``sweep``)."""
    if prefix not in PREFIXES:
        raise ValueError(f"unknown scratch prefix {prefix!r} (one of {', '.join(PREFIXES)})")
    where = str(folder or tempfile.gettempdir())
    with _lock:
        if where not in _swept:
            _swept.add(where)
            sweep(Path(where))
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{_b36(_pid_namespace())}.{_b36(os.getpid())}-", dir=where))


def owner(path: Path) -> tuple[int, int] | None:
    """(pid namespace, pid) that ``path``'s name says made it, or None if it is not a scratch name."""
    m = _NAME.match(path.name)
    if m is None or m["prefix"] not in PREFIXES:
        return None
    return int(m["ns"], 36), int(m["pid"], 36)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def stale(folder: Path | None = None) -> list[Path]:
    """Scratch directories in ``folder`` (the temporary folder) whose owner is not running."""
    folder = Path(folder or tempfile.gettempdir())
    ns = _pid_namespace()
    out = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        if not entry.name.startswith("arena-"):
            continue
        who = owner(Path(entry.name))
        if who is None or who[0] != ns or who[1] == os.getpid() or _running(who[1]):
            continue
        if entry.is_dir(follow_symlinks=False):
            out.append(Path(entry.path))
    return out


def sweep(folder: Path | None = None) -> int:
    """Remove ``stale`` directories (what is inside too); how many went. Never raises: a
    folder that cannot be removed (another user's) stays."""
    gone = 0
    for path in stale(folder):
        shutil.rmtree(path, ignore_errors=True)
        gone += not path.exists()
    return gone
