"""A planted blunder: the bundled Spades heuristic, except that its first bid is 13 tricks
(whatever its hand), a contract it all but never makes."""

from __future__ import annotations

from bots.heuristic import HeuristicBot
from sdk.spades import Bid


class BidThirteenOnce(HeuristicBot):
    name = "blunder"

    def on_match_start(self, info):
        super().on_match_start(info)
        self.blundered = 0  # the decision (of this seat, from 1) of the blunder; 0: not yet
        self.decisions = 0

    def choose(self, view, legal_actions):
        self.decisions += 1
        if not self.blundered and Bid(13) in legal_actions:
            self.blundered = self.decisions
            return Bid(13)
        return super().choose(view, legal_actions)
