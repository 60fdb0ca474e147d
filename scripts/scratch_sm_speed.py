"""Scratch timing (not a test): the Spite and Malice engine of this tree against an old copy.

Usage: python scripts/scratch_sm_speed.py OLD_DIR [PASSES] [GAMES]

The bench's loop (arbiter.tools.bench.engine_rate: a new game per seed, the current seat's
view, the legal actions, a random one applied), over the same seeded games for both
engines, old and new alternated PASSES times, on the CPU clock; also without the view
(legal + apply only). Prints µs per decision, medians and spreads, and new / old.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

sys.path.insert(0, sys.argv[1])

from oldgames.spite_malice import SpiteAndMalice as OldSM  # noqa: E402

from cardarena.games.spite_malice import SpiteAndMalice as NewSM  # noqa: E402


def rate(game, games: int, view: bool) -> float:
    rng = random.Random(0)
    d = 0
    t = time.process_time()
    for g in range(games):
        s = game.new_initial_state(g)
        while not s.is_terminal:
            if view:
                s.view(s.current_seat)
            legal = s.legal_actions()
            s.apply(legal[rng.randrange(len(legal))])
            d += 1
    return (time.process_time() - t) / d * 1e6


def main() -> None:
    passes = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    games = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    engines = {"old": OldSM({}), "new": NewSM({})}
    out: dict[tuple[str, bool], list[float]] = {}
    for p in range(passes):
        order = ("old", "new") if p % 2 == 0 else ("new", "old")
        for view in (True, False):
            for name in order:
                out.setdefault((name, view), []).append(rate(engines[name], games, view))
    for view in (True, False):
        o, n = out[("old", view)], out[("new", view)]
        label = "view+legal+apply" if view else "legal+apply"
        ratios = [b / a for a, b in zip(o, n)]
        print(f"{label:17s} old {statistics.median(o):.2f} us ({min(o):.2f}-{max(o):.2f})  "
              f"new {statistics.median(n):.2f} us ({min(n):.2f}-{max(n):.2f})  "
              f"new/old {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main()
