"""The CPU an ``arbiter`` command spends starting: ``python -m arbiter ARGS`` run N times, each
read from /proc/PID/stat when it prints its first line (a server's "listening on", a help
text's first line), then killed; the median and every run. ``TMP`` in ARGS is a fresh folder
per run (run there too). Run it with the environment the tests give their commands (the
bytecode cache of tests/conftest.py's ``_cache_bytecode``), or every start compiles again:

    PYTHONPYCACHEPREFIX=$PWD/.venv/pycache PYTHONDONTWRITEBYTECODE= \\
        .venv/bin/python -m tests.startcpu 9 serve --port 0 --credentials TMP/c.json
    ... -m tests.startcpu 9 web --port 0 --db TMP/a.sqlite
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile


def start_cpu(args: list[str]) -> float:
    """CPU-s (user + system) of one ``python -m arbiter ARGS`` up to its first line of output."""
    folder = tempfile.mkdtemp(prefix="arena-startcpu-")
    argv = [a.replace("TMP", folder) for a in args]
    p = subprocess.Popen([sys.executable, "-m", "arbiter", *argv], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL, text=True, cwd=folder)
    try:
        p.stdout.readline()
        fields = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    finally:
        p.kill()
        p.wait()
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> None:
    if len(argv) < 2 or not argv[0].isdigit():
        sys.exit("usage: python -m tests.startcpu N ARBITER-ARGS... (TMP: a fresh folder per run)")
    runs = sorted(start_cpu(argv[1:]) for _ in range(int(argv[0])))
    print(f"median {statistics.median(runs):.3f} CPU-s over {len(runs)} starts: {' '.join(f'{r:.2f}' for r in runs)}")


if __name__ == "__main__":
    main(sys.argv[1:])
