"""The bundled ``heuristic`` bot: one bot for every game, dispatching to each game's heuristic."""

from __future__ import annotations

import importlib

from sdk import Bot

#: game name -> module with ``choose(view, legal_actions, rng)``
_BY_GAME = {
    "spades": "bots.spades_heuristic",
    "spite-and-malice": "bots.spite_malice_heuristic",
    "spot": "bots.spot_heuristic",
}


class HeuristicBot(Bot):
    name = "heuristic"
    version = "1.0"
    games = tuple(_BY_GAME)

    def on_match_start(self, info):
        self._choose = importlib.import_module(_BY_GAME[info.game]).choose

    def choose(self, view, legal_actions):
        return self._choose(view, legal_actions, self.rng)
