"""Forks: on its first decision, up to 500 child processes that each sleep for a minute
(spawned with subprocess, which forks without gRPC's fork handlers), then plays on. A
child is the system's ``sleep`` where the sandbox shows one (it does in every mode: /usr
and /bin), else a Python that imports nothing: a process counts against the limit however
little it does, and a Python child with its site imports was most of the test's CPU.
Reports its uid first (so the test can look for leftovers), then each child it got.
(Near its process limit gRPC's own fork handlers may hang it: its problem, not the
arbiter's.)"""

import json
import os
import shutil
import subprocess
import sys

from sdk import Bot

_done = []
CHILDREN = []
SLEEP = shutil.which("sleep")
CHILD = [SLEEP, "60"] if SLEEP else [sys.executable, "-I", "-S", "-c", "import time; time.sleep(60)"]


def report(**kw):
    print("HOSTILE " + json.dumps(kw), file=sys.stderr, flush=True)


class ForkBot(Bot):
    name = "fork"
    games = ("spades",)

    def choose(self, view, legal_actions):
        if not _done:
            _done.append(1)
            report(kind="fork-start", uid=os.getuid())
            n, error = 0, ""
            for _ in range(500):
                try:
                    CHILDREN.append(subprocess.Popen(CHILD))
                except OSError as exc:
                    error = f"{type(exc).__name__}: {exc}"
                    break
                n += 1
                report(kind="fork-progress", children=n)
            report(kind="fork", children=n, error=error)
        return legal_actions[0]
