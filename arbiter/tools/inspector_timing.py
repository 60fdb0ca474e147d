"""How long the inspector's pages take over HTTP once a match's analysis is stored: the
measurement behind docs/analysis.md's "Speed" (target: no request over 100 ms).

Stores a 1-deal Spades match (random and heuristic seats, seed 6) with seat 0's analysis
(2 states a decision: the figure is the page's, not the analysis's), starts ``arbiter web``
on it as a user would, and as soon as it says where it serves, asks the replay page as
seat 0, then every decision of seat 0 in the inspector, then every step as a spectator;
prints the slowest requests and the median. ``python -m arbiter.tools.inspector_timing``.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from arbiter.analysis.reask import decisions
from arbiter.analysis.stored import stored_analysis
from arbiter.hosting.stop import stop_processes
from arbiter.store.db import Store
from arbiter.tournament.play import play_local, store_play

TARGET_MS = 100


def measure(folder: Path) -> list[tuple[float, str]]:
    """Each request's wall time (ms) and address, in the order asked."""
    record = play_local("spades", ["random", "heuristic", "random", "heuristic"], seed=6, options={"deals": 1},
                        transport="inproc")
    db = folder / "timing.sqlite"
    store_play(db, record)
    with Store(db) as store:
        stored_analysis(store, record.match_id, 0, samples=2, max_actions=3)
    n = len(list(decisions(record, 0)))
    arbiter = Path(sys.executable).with_name("arbiter")
    proc = subprocess.Popen([str(arbiter), "web", "--db", str(db), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        found = re.search(r"(http://\S+/)", line)
        if not found:
            raise SystemExit(f"arbiter web did not say where it serves: {line!r}")
        url = found.group(1)
        paths = [f"m/{record.match_id}?view=seat0"] + [f"m/{record.match_id}/inspect?seat=0&d={d}" for d in range(1, n + 1)]
        paths += [f"m/{record.match_id}/inspect?seat=spectator&d={d}" for d in range(1, len(record.actions) + 1)]
        out = []
        for path in paths:
            t = time.perf_counter()
            with urllib.request.urlopen(url + path, timeout=60) as r:
                r.read()
            out.append(((time.perf_counter() - t) * 1000, path))
        return out
    finally:
        stop_processes(proc, 30)


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="insp") as folder:
        times = measure(Path(folder))
    ms = [t for t, _ in times]
    worst = sorted(times, reverse=True)[:3]
    print(f"{len(times)} requests: first {ms[0]:.0f} ms, median {statistics.median(ms):.1f} ms, slowest "
          + ", ".join(f"{t:.0f} ms ({p})" for t, p in worst))
    return 0 if max(ms) <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
