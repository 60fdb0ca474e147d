"""Allocates memory without bound on its first decision, 16 MiB at a time, touching
every page; reports how far it got, then dies of it."""

import json
import sys

from sdk import Bot

HOARD = []


class MemoryBot(Bot):
    name = "memory"
    games = ("spades",)

    def choose(self, view, legal_actions):
        try:
            while True:
                HOARD.append(bytearray(16 << 20))  # zero-filled: every page is touched
        except MemoryError:
            got = 16 * len(HOARD)
            HOARD.clear()
            print("HOSTILE " + json.dumps({"kind": "memory", "mb": got}), file=sys.stderr, flush=True)
            raise
