"""The bundled ``heuristic`` bot: one bot for every game, playing each game's heuristic
policy (the ``heuristic`` module of its line in ``sdk.games``)."""

from __future__ import annotations

from sdk import Bot
from bots.games import part_of, played_by


class HeuristicBot(Bot):
    name = "heuristic"
    version = "1.0"

    @property
    def games(self) -> tuple[str, ...]:  # type: ignore[override]
        """Every registered game with a heuristic (``sdk.games``)."""
        return played_by("heuristic")

    def on_match_start(self, info):
        self._choose = part_of(info.game, "heuristic").choose

    def choose(self, view, legal_actions):
        return self._choose(view, legal_actions, self.rng)
