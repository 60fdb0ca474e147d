"""Crashes mid-match: its fifth decision raises."""

from sdk import Bot

CALLS = [0]


class CrashBot(Bot):
    name = "crash"
    games = ("spades",)

    def choose(self, view, legal_actions):
        CALLS[0] += 1
        if CALLS[0] == 5:
            raise RuntimeError("hostile crash in the middle of the match")
        return legal_actions[0]
