"""The Python ``make venv`` builds the environments from (``PY=...`` chooses another).

Prints the first candidate that is CPython 3.11 or newer, makes a venv with pip, and has its
C headers (the wire encoder, cardarena/wire/_wirec.c, compiles against them), preferring one
whose executable holds the interpreter itself over one that loads it from a shared
libpython: a shared libpython is compiled position-independent and calls itself through the
PLT. pyenv builds so by default (``--enable-shared``, and no ``--enable-optimizations``);
Debian's python3 is linked static and profile-guided. On this project's machines (2 cores,
pyenv's 3.11.7 first on PATH, Debian's 3.11.2 in /usr/bin) the same commit's
``pytest -m "not e2e"`` took 56-58 s under Debian's against 61-66 s under pyenv's, run back
to back (README, "The test budget"), and every match, bot and check runs as much faster.

Candidates, in order: ``python3`` on PATH (the user's choice, where it qualifies), then
``/usr/bin/python3`` and ``/usr/local/bin/python3``. None qualifies: ``python3``, and
``make venv`` says what is missing. Runs under any Python 3; the candidates are asked in
processes of their own.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

CANDIDATES = ("python3", "/usr/bin/python3", "/usr/local/bin/python3")

#: Run by each candidate: whether it qualifies, and whether its executable maps a shared libpython.
PROBE = r"""
import json, os, platform, sys, sysconfig
ok = platform.python_implementation() == "CPython" and sys.version_info >= (3, 11)
try:
    import ensurepip, venv  # noqa: F401 - a venv with pip
except ImportError:
    ok = False
ok = ok and os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))
try:
    with open("/proc/self/maps") as f:
        shared = any("libpython" in line for line in f)
except OSError:
    shared = None  # not Linux: not known, not held against it
print(json.dumps({"ok": ok, "shared": shared, "executable": os.path.realpath(sys.executable)}))
"""


def probe(candidate: str) -> dict | None:
    path = shutil.which(candidate)
    if path is None:
        return None
    try:
        done = subprocess.run([path, "-c", PROBE], capture_output=True, text=True, timeout=30)
        return json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def pick(candidates=CANDIDATES) -> str:
    found = []
    for c in candidates:
        got = probe(c)
        if got and got["ok"] and got["executable"] not in {f[1]["executable"] for f in found}:
            found.append((c, got))
    if not found:
        return "python3"
    static = [c for c, got in found if got["shared"] is False]
    first = static[0] if static else found[0][0]
    return shutil.which(first) or first


if __name__ == "__main__":
    print(pick())
