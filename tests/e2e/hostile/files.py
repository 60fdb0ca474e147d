"""Tries to read files outside its directory (a secret of the test, the store, the
arbiter's source tree, /etc/passwd) and to write outside its working directory. Reads its
targets from params.json beside it (run as a folder bot). Then plays on."""

import json
import os
import sys
from pathlib import Path

from sdk import Bot

PARAMS = json.loads((Path(__file__).parent / "params.json").read_text())
_done = []


def read(path):
    try:
        with open(path, "rb") as f:
            return f"READ {len(f.read(4096))} bytes"
    except OSError as exc:
        return f"blocked: {type(exc).__name__}"


def write(path):
    try:
        with open(path, "ab") as f:
            f.write(b"hostile")
        return "WROTE"
    except OSError as exc:
        return f"blocked: {type(exc).__name__}"


class FilesBot(Bot):
    name = "files"
    games = ("spades",)

    def choose(self, view, legal_actions):
        if not _done:
            _done.append(1)
            results = {
                "secret": read(PARAMS["secret"]),
                "store": read(PARAMS["store"]),
                "source": read(PARAMS["source"]),
                "passwd": read("/etc/passwd"),
                "write_store": write(PARAMS["store"]),
                "write_own_code": write(__file__),
                "write_workdir": write(os.path.join(os.getcwd(), "scratch.txt")),
                "listdir_root": sorted(os.listdir("/")),
            }
            print("HOSTILE " + json.dumps({"kind": "files", **results}), file=sys.stderr, flush=True)
        return legal_actions[0]
