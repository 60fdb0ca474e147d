"""Plays a uniformly random legal action, in any game. Seeded per match by the arbiter."""

from __future__ import annotations

from sdk import Bot


class RandomBot(Bot):
    name = "random"
    version = "1.0"
    games = ("*",)

    def choose(self, view, legal_actions):
        return self.rng.choice(legal_actions)
