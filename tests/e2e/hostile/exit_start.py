"""Exits as soon as a match starts, before its first decision."""

import os
import sys

from sdk import Bot


class ExitAtStartBot(Bot):
    name = "exit-start"
    games = ("spades",)

    def on_match_start(self, info):
        print("exit-start: leaving now", file=sys.stderr, flush=True)
        os._exit(7)

    def choose(self, view, legal_actions):
        return legal_actions[0]
