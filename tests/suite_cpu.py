"""Where the suite's CPU goes: a pytest plugin and its report (README, "The test budget").

The suite is CPU-bound on 2 cores, and most of its CPU is spent in processes the tests
start (bots, fork servers, arbiters, web servers, browsers, a Dask cluster), many of which
outlive the process that started them: ``/usr/bin/time`` and ``--durations`` see neither.

    .venv/bin/python -m pytest -p tests.suite_cpu -n 4 -q          # as root: cgroups, acct
    .venv/bin/python -m tests.suite_cpu [DIR]                       # the report

Each worker moves itself into a cgroup of its own (cgroup v1 ``cpuacct``, which needs root):
every process it starts stays in it, whoever reaps it, so a test's CPU is the cgroup's
usage over the test (``all``) beside the worker's own (``worker``). The controller also
turns on BSD process accounting (``acct(2)``: one record per process that ends, with its
CPU) and samples /proc for the processes in those cgroups, so the report can say which
kinds of process the CPU went to (a fork server's start, a forked bot, ``arbiter web``...).
Without root it records the worker's own CPU only, and says so. Output: DIR (default
``$SUITE_CPU_DIR`` or /tmp/suite-cpu): ``<worker>.tsv`` (test, all, worker, wall seconds),
``procs.tsv`` (the sampled processes), ``acct`` (the kernel's records).
"""

from __future__ import annotations

import collections
import ctypes
import os
import struct
import sys
import threading
import time
from pathlib import Path

CGROUPS = Path("/sys/fs/cgroup/cpuacct")
_state: dict = {}


def _dir() -> Path:
    return Path(os.environ.get("SUITE_CPU_DIR", "/tmp/suite-cpu"))


def _usage() -> float:
    group = _state.get("group")
    if group is None:
        return time.process_time()
    return int((group / "cpuacct.usage").read_text()) / 1e9


def _acct(path: str | None) -> str:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.acct(path.encode() if path else None) != 0:
        return os.strerror(ctypes.get_errno())
    return ""


def _sample(out: Path, stop: threading.Event) -> None:
    """Every 0.25 s, each new process in a worker's cgroup: pid, start time, name, command."""
    seen: set[tuple[str, str]] = set()
    with out.open("w", buffering=1) as f:
        while not stop.wait(0.25):
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    stat = Path(f"/proc/{pid}/stat").read_text()
                    start = stat.rsplit(")", 1)[1].split()[19]
                    if (pid, start) in seen:
                        continue
                    group = [x for x in Path(f"/proc/{pid}/cgroup").read_text().splitlines() if ":cpuacct:" in x]
                    if not group or "/suite-cpu-" not in group[0]:
                        continue
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                except (OSError, IndexError):
                    continue
                seen.add((pid, start))
                name = stat[stat.index("(") + 1:stat.rindex(")")]
                f.write("\t".join((pid, start, name, " ".join(cmd.split())[:200])) + "\n")


def pytest_configure(config) -> None:
    out = _dir()
    out.mkdir(parents=True, exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    group = CGROUPS / f"suite-cpu-{worker}-{os.getpid()}"
    try:
        group.mkdir(exist_ok=True)
        (group / "cgroup.procs").write_text(str(os.getpid()))
        _state["group"] = group
    except OSError as exc:
        sys.stderr.write(f"suite_cpu: no cgroup ({exc}): the worker's own CPU only\n")
    if worker == "main" and "group" in _state:
        (out / "acct").write_bytes(b"")
        why = _acct(str(out / "acct"))
        if why:
            sys.stderr.write(f"suite_cpu: no process accounting ({why})\n")
        stop = threading.Event()
        thread = threading.Thread(target=_sample, args=(out / "procs.tsv", stop), daemon=True)
        thread.start()
        _state["sampler"] = (stop, thread)
    _state["file"] = (out / f"{worker}.tsv").open("w", buffering=1)


def pytest_runtest_protocol(item, nextitem):
    _state["t0"] = (_usage(), time.process_time(), time.time())


def pytest_runtest_logfinish(nodeid, location):
    if "t0" not in _state:
        return
    c0, p0, w0 = _state.pop("t0")
    _state["file"].write(f"{nodeid}\t{_usage() - c0:.3f}\t{time.process_time() - p0:.3f}\t{time.time() - w0:.3f}\n")


def pytest_unconfigure(config) -> None:
    if "sampler" in _state:
        stop, thread = _state.pop("sampler")
        stop.set()
        thread.join()
        _acct(None)
    if "file" in _state:
        _state.pop("file").close()


# ---- the report ----------------------------------------------------------------------

def _comp(c: int) -> float:
    """A comp_t (13-bit mantissa, base-8 exponent) of clock ticks, in seconds (AHZ = 100)."""
    return ((c & 0x1FFF) << (3 * (c >> 13))) / 100.0


def _kind(name: str, cmd: str) -> str:
    words = cmd.split()
    if "exec(eval(sys.stdin" in cmd or "execnet" in cmd:
        return "pytest worker"
    if "zygote.py" in cmd:
        return "fork server or forked bot (zygote.py)"
    if words and "python" in Path(words[0]).name:
        if "-m" in words:
            i = words.index("-m")
            return "python -m " + " ".join(words[i + 1:i + 3])
        return "python " + " ".join(words[1:3])[:40]
    return name


def report(folder: Path) -> str:
    lines = []
    rows = []
    for path in sorted(folder.glob("*.tsv")):
        if path.name == "procs.tsv":
            continue
        for line in path.read_text().splitlines():
            test, all_, worker, wall = line.split("\t")
            rows.append((test, float(all_), float(worker), float(wall)))
    total, own = sum(r[1] for r in rows), sum(r[2] for r in rows)
    lines.append(f"{len(rows)} tests: {total:.0f} CPU-s in all, {own:.0f} in the workers themselves, "
                 f"{total - own:.0f} in the processes they started")
    lines.append("\nlongest tests (CPU-s: all, worker):")
    for test, all_, worker, _ in sorted(rows, key=lambda r: -r[1])[:25]:
        lines.append(f"  {all_:6.1f} {worker:6.1f}  {test}")
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for test, all_, worker, _ in rows:
        f = files[test.split("::")[0]]
        f[0] += all_
        f[1] += worker
        f[2] += 1
    lines.append("\nby file (CPU-s: all, worker, tests):")
    for name, (all_, worker, n) in sorted(files.items(), key=lambda kv: -kv[1][0])[:25]:
        lines.append(f"  {all_:6.1f} {worker:6.1f} {n:4d}  {name}")
    acct, procs = folder / "acct", folder / "procs.tsv"
    if acct.is_file() and procs.is_file():
        boot = int(next(x for x in Path("/proc/stat").read_text().splitlines() if x.startswith("btime")).split()[1])
        sampled: dict[int, list[tuple[float, str, str]]] = collections.defaultdict(list)
        for line in procs.read_text().splitlines():
            parts = line.split("\t", 3)
            if len(parts) == 4 and parts[0].isdigit():
                sampled[int(parts[0])].append((boot + int(parts[1]) / 100.0, parts[2], parts[3]))
        kinds: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
        data = acct.read_bytes()
        for off in range(0, len(data) - 63, 64):  # struct acct_v3
            f = struct.unpack("<ccHIIIIIIf8H16s", data[off:off + 64])
            for started, name, cmd in sampled.get(f[6], ()):
                if abs(started - f[8]) <= 1.5:
                    k = kinds[_kind(name, cmd)]
                    k[0] += 1
                    k[1] += _comp(f[10]) + _comp(f[11])
                    break
        lines.append("\nby kind of process (processes, CPU-s; processes shorter than the 0.25 s sampling may be missed):")
        for name, (n, cpu) in sorted(kinds.items(), key=lambda kv: -kv[1][1])[:30]:
            lines.append(f"  {n:6d} {cpu:7.1f}  {name}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(Path(sys.argv[1]) if len(sys.argv) > 1 else _dir()))
