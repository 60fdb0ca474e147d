"""The ``heuristic`` bot with a share of random moves: bots of a known strength order.

``NoisyHeuristicBot`` plays a uniformly random legal action with probability ``noise``
(from its ``noise`` attribute, else the ``ARENA_NOISE`` environment variable, else 0) and
the heuristic's choice otherwise, drawing both from its seeded ``rng``, so it replays
exactly. ``Noisy0``, ``Noisy10`` ... ``Noisy90`` are the same with 0%, 10% ... 90% noise,
to launch by ``module:Class`` (``bots.noisy:Noisy30``) where an attribute cannot be set,
as bot processes are. The ladder benchmark (``arbiter.tools.arena_bench``) uses
them: the more noise, the weaker, in every game the heuristic plays.
"""

from __future__ import annotations

import os

from bots.heuristic import HeuristicBot


class NoisyHeuristicBot(HeuristicBot):
    name = "noisy"
    version = "1.0"
    noise: float | None = None

    def on_match_start(self, info):
        super().on_match_start(info)
        self._p = self.noise if self.noise is not None else float(os.environ.get("ARENA_NOISE", "0") or 0)

    def choose(self, view, legal_actions):
        # one draw per decision whatever the outcome, so the stream of draws stays aligned
        if self.rng.random() < self._p:
            return self.rng.choice(legal_actions)
        return super().choose(view, legal_actions)


def _level(pct: int) -> type[NoisyHeuristicBot]:
    return type(f"Noisy{pct}", (NoisyHeuristicBot,), {"name": f"noisy-{pct}", "noise": pct / 100,
                                                       "__doc__": f"The heuristic with {pct}% random moves."})


for _pct in range(0, 100, 10):
    globals()[f"Noisy{_pct}"] = _level(_pct)
del _pct
