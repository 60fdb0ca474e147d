"""The one random bot: a uniformly random legal action, in any game, seeded per match by
the arbiter. The author's package brings it (``python -m sdk --bot random`` with
``card-arena-sdk`` alone: an opponent to try a bot against); the platform's bundled
``random`` (``bots.random_bot``) is this class."""

from __future__ import annotations

from sdk.bot import Bot


class RandomBot(Bot):
    name = "random"
    version = "1.0"
    games = ("*",)

    def choose(self, view, legal_actions):
        return self.rng.choice(legal_actions)
