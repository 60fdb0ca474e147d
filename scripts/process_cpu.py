"""Where a command's CPU goes, process by process: every process that ends while it runs,
counted by the kernel (BSD process accounting, ``acct(2)``), summed by command name.

    sudo python3 scripts/process_cpu.py -- .venv/bin/python -m pytest -q -n 4

Needs root (``acct`` is the machine's: every process that ends meanwhile is counted, the
command's and any other's, so run it on a quiet machine) and Linux's accounting format 3.
It counts the processes a command's own timing misses: those its children do not wait for
(a browser's, a sandbox's, a daemonised server's), each once, when it ends. Output: the
processes and CPU-s in all, then the commands by CPU-s; Python interpreters by how much
each one cost (a fork-server child takes milliseconds, a fresh interpreter a few tenths).
README ("The test budget", twenty-fifth session) quotes a whole ``make test`` run of it.
"""

from __future__ import annotations

import collections
import ctypes
import os
import struct
import subprocess
import sys
import tempfile

#: ``struct acct_v3`` (linux/acct.h): 64 bytes; the fields read here.
_HEAD = struct.Struct("<BBHIIIIIIf")  # flag, version, tty, exitcode, uid, gid, pid, ppid, btime, etime
_TIMES = struct.Struct("<HH")  # ac_utime, ac_stime (comp_t)
RECORD = 64
AHZ = 100  # comp_t ticks a second


def _comp(value: int) -> float:
    """A ``comp_t`` (13-bit mantissa, 3-bit base-8 exponent) in seconds."""
    return ((value & 0x1FFF) << (3 * (value >> 13))) / AHZ


def read(path: str) -> list[tuple[str, int, int, float]]:
    """Each ended process: (command name, pid, parent pid, CPU-s)."""
    data = open(path, "rb").read()
    out = []
    for i in range(0, len(data) - RECORD + 1, RECORD):
        r = data[i:i + RECORD]
        if r[1] & 0x7F != 3:  # not format 3
            raise SystemExit(f"{path}: accounting record of format {r[1] & 0x7F}, this reads format 3")
        _, _, _, _, _, _, pid, ppid, _, _ = _HEAD.unpack_from(r)
        ut, st = _TIMES.unpack_from(r, _HEAD.size)
        out.append((r[48:64].split(b"\0")[0].decode(errors="replace"), pid, ppid, _comp(ut) + _comp(st)))
    return out


def summary(rows: list[tuple[str, int, int, float]], top: int = 20) -> str:
    by: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
    for name, _, _, cpu in rows:
        by[name][0] += 1
        by[name][1] += cpu
    lines = [f"{len(rows)} processes, {sum(v[1] for v in by.values()):.1f} CPU-s"]
    lines += [f"{cpu:8.1f} CPU-s {n:6d}  {name}" for name, (n, cpu) in sorted(by.items(), key=lambda x: -x[1][1])[:top]]
    py = [cpu for name, _, _, cpu in rows if name.startswith("python")]
    for lo, hi in ((0, 0.05), (0.05, 0.15), (0.15, 0.6), (0.6, 5), (5, float("inf"))):
        part = [c for c in py if lo <= c < hi]
        lines.append(f"python processes of {lo:g}-{hi:g} CPU-s: {len(part)}, {sum(part):.1f} CPU-s")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        print("usage: python3 scripts/process_cpu.py -- COMMAND [ARG ...]  (as root)", file=sys.stderr)
        return 2
    command = argv[argv.index("--") + 1:]
    libc = ctypes.CDLL(None, use_errno=True)
    fd, path = tempfile.mkstemp(prefix="process-cpu-")
    os.close(fd)
    if libc.acct(path.encode()) != 0:
        os.unlink(path)
        print(f"error: acct: {os.strerror(ctypes.get_errno())} (process accounting needs root)", file=sys.stderr)
        return 2
    try:
        rc = subprocess.call(command)
    finally:
        libc.acct(None)
    try:
        print(summary(read(path)))
    finally:
        os.unlink(path)
    return rc


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
