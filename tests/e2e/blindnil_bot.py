"""A Spades bot that bids blind nil whenever it may (so blind-nil exchanges happen), and
otherwise plays like the random bot: for the spectator leak tests."""

from __future__ import annotations

from sdk import Bot
from sdk.spades import Bid


class BlindNilBot(Bot):
    name = "blindnil"
    games = ("spades",)

    def choose(self, view, legal_actions):
        for a in legal_actions:
            if isinstance(a, Bid) and a.blind:
                return a
        return self.rng.choice(legal_actions)
