"""The bundled heuristic bot, slowed down by a few milliseconds per decision, so that a
match over gRPC lasts long enough for a spectator to watch it while it runs."""

from __future__ import annotations

import time

from bots.heuristic import HeuristicBot


class SlowBot(HeuristicBot):
    name = "slow"

    def choose(self, view, legal_actions):
        time.sleep(0.01)
        return super().choose(view, legal_actions)
