"""The old path of Spades' scoring, kept so ``from cardarena.games.spades_scoring import ...``
still works: the module is ``cardarena.games.spades.scoring``."""

from __future__ import annotations

from .spades.scoring import (  # noqa: F401  (re-exported)
    FailedNilTricks,
    ScoringRules,
    SideDealScore,
    SimultaneousTargetRule,
    game_result,
    score_side,
)
