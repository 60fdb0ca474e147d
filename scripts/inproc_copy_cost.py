"""CPU per decision of matches played in this process (``play_local(..., transport="inproc")``),
with the in-process seat's copies (``arbiter.hosting.inprocess.bot_copy``) as they are, or
without them (``--without``: the bot handed the referee's own objects, for comparison only).

    python scripts/inproc_copy_cost.py [--matches 8] [--without]
    ARENA_NO_COPYC=1 python scripts/inproc_copy_cost.py    # the Python copy, not the C one

Each row: the median over ``--matches`` seeds of one match's CPU time (process time: the
machine is shared, wall time is noise) over its decisions, in µs; a first match is played
and not counted (imports, caches). docs/performance.md ("One venue, one record") quotes it.
"""

from __future__ import annotations

import argparse
import statistics
import time

CASES = (
    ("Spades, 1 deal, 4 × random", "spades", ["random"] * 4, {"deals": 1}),
    ("Spot, 4 × random", "spot", ["random"] * 4, {}),
    ("Spades, 1 deal, 4 × heuristic", "spades", ["heuristic"] * 4, {"deals": 1}),
    ("Spite and Malice, 2 × random, 100 turns", "spite-and-malice", ["random"] * 2, {"max_turns": 100}),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--without", action="store_true", help="no copies: the referee's own objects")
    args = parser.parse_args()

    from arbiter.hosting import inprocess
    from arbiter.tournament.play import play_local

    if args.without:
        inprocess.bot_copy = lambda value, memo=None: value
        inprocess._copy_each = lambda items, memo: list(items)
    print(f"copies: {'none' if args.without else 'C' if inprocess._copyc is not None else 'Python'}")
    play_local("spot", ["random"] * 4, seed=99, transport="inproc", decision_ms=0, bank_ms=0)
    for label, game, bots, options in CASES:
        per = []
        for seed in range(args.matches):
            t = time.process_time()
            record = play_local(game, bots, seed=seed, options=options, transport="inproc", decision_ms=0, bank_ms=0)
            per.append((time.process_time() - t) / len(record.actions) * 1e6)
        print(f"{label:42s} {statistics.median(per):6.0f} µs a decision")


if __name__ == "__main__":
    main()
