"""Tries to reach the network outside its sandbox: a TCP listener of the test on the
host's loopback, the arbiter's own TCP port, and the host's loopback over IPv6. Reads its
targets from params.json beside it (run as a folder bot). Then plays on."""

import json
import socket
import sys
from pathlib import Path

from sdk import Bot

PARAMS = json.loads((Path(__file__).parent / "params.json").read_text())
_done = []


def attempt(family, addr):
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(3)
            s.connect(addr)
            s.sendall(b"hostile bot was here\n")
            return "CONNECTED"
    except OSError as exc:
        return f"blocked: {type(exc).__name__}: {exc}"


class NetworkBot(Bot):
    name = "network"
    games = ("spades",)

    def choose(self, view, legal_actions):
        if not _done:
            _done.append(1)
            results = {
                "canary": attempt(socket.AF_INET, ("127.0.0.1", PARAMS["canary_port"])),
                "arbiter_tcp": attempt(socket.AF_INET, ("127.0.0.1", PARAMS["arbiter_port"])) if PARAMS.get("arbiter_port") else "n/a",
                "canary_v6": attempt(socket.AF_INET6, ("::1", PARAMS["canary_port"])),
            }
            print("HOSTILE " + json.dumps({"kind": "network", **results}), file=sys.stderr, flush=True)
        return legal_actions[0]
