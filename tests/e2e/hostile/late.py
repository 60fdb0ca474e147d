"""Answers every decision, but only after the deadline (1.5 s; the tests give 0.3 s)."""

import time

from sdk import Bot


class LateBot(Bot):
    name = "late"
    games = ("spades",)

    def choose(self, view, legal_actions):
        time.sleep(1.5)
        return legal_actions[0]
