"""Spins the CPU forever on its first decision."""

import sys

from sdk import Bot


class CpuBot(Bot):
    name = "cpu"
    games = ("spades",)

    def choose(self, view, legal_actions):
        print("cpu: spinning", file=sys.stderr, flush=True)
        n = 0
        while True:
            n += 1
