"""The bundled ``dds`` bot (Spades): plays the action with the best determinized double-dummy
value over deals sampled from its view (``bots/spades_dds.py``).

At each decision with a choice it draws deals consistent with its view (the SDK's forward
model), values every candidate on each deal (DDS tricks scored by Spades' rules; nil deals
played out by the heuristic), and plays the best mean; ties go to the heuristic's own
choice. The blind-nil exchange is the heuristic's.

Budget: ``worlds`` sampled deals a decision (default ``WORLDS``), stopped early (after at
least ``MIN_WORLDS``) at ``CLOCK_SHARE`` of the match's per-decision limit
(``MatchInfo.decision_ms``) and at ``max_ms`` if given: clock-bounded in a clocked match,
and without a clock (``arbiter evaluate``) it replays exactly from its seed. Without the
solver (endplay not installed) it plays as the heuristic and says so once on stderr.
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any, Sequence

from bots import spades_dds, spades_heuristic
from sdk.bot import Action, Bot, MatchInfo
from sdk.forward import get_game, sample_states

WORLDS = 24
MIN_WORLDS = 4
CLOCK_SHARE = 0.5


class DdsBot(Bot):
    """Determinized double-dummy Spades (see the module docstring)."""

    name = "dds"
    version = "1.0"
    games = ("spades",)

    def __init__(self, worlds: int | None = None, max_ms: int | None = None) -> None:
        super().__init__()
        self.worlds = worlds
        self.max_ms = max_ms
        #: How a live nil is valued (``spades_dds.DOUBLE_DUMMY`` as the bot plays; the
        #: arbiter's analysis sets ``spades_dds.AT_TABLE``).
        self.nils = spades_dds.DOUBLE_DUMMY

    def on_match_start(self, info: MatchInfo) -> None:
        self.game = get_game(info.game, info.options)
        self.policy = spades_heuristic.choose  # the heuristic: ties, the exchange
        self.n_worlds = max(1, self.worlds or WORLDS)
        caps = [c for c in (self.max_ms, int(info.decision_ms * CLOCK_SHARE) if info.decision_ms else None) if c]
        self.limit_ms = min(caps) if caps else 0
        self.solver = spades_dds.available()
        if not self.solver:
            print("dds: endplay is not installed: playing as the heuristic", file=sys.stderr)

    def action_values(self, world: Any, seat: int, cands: Sequence[Action], seed: int) -> list[float]:
        """Each candidate's value on one sampled deal (``spades_dds.action_values``): the
        evaluator the arbiter's analysis uses for Spades."""
        return spades_dds.action_values(self.game, world, seat, cands, seed, self.nils)

    def state_value(self, world: Any, seat: int, seed: int) -> float:
        """The deal in progress in ``world``, for ``seat`` (``spades_dds.deal_value``)."""
        return spades_dds.deal_value(self.game, world, seat, seed, nils=self.nils)

    def choose(self, view: Any, legal_actions: Sequence[Action]) -> Action:
        legal = list(legal_actions)
        base = spades_heuristic.choose(view, legal, self.rng)
        if len(legal) == 1 or not self.solver:
            return base
        cands = [base] + [a for a in spades_dds.candidates(view, legal, self.rng) if a != base]
        if len(cands) == 1:
            return base
        t0 = time.monotonic()
        rng = random.Random(self.rng.getrandbits(32))
        sums = [0.0] * len(cands)
        for w, world in enumerate(sample_states(self.game, view, self.n_worlds, rng)):
            if self.limit_ms and w >= MIN_WORLDS and (time.monotonic() - t0) * 1000 >= self.limit_ms:
                break
            for i, x in enumerate(spades_dds.action_values(self.game, world, view.seat, cands, rng.getrandbits(32))):
                sums[i] += x
        top = max(sums)
        return next(c for c, s in zip(cands, sums) if s == top)
