"""CPU per decision of matches played in this process (``InProcessSeat``s and ``run_match``,
as ``play_local(..., transport="inproc")`` plays them), by how the seats copy what their
bots are handed (``arbiter.hosting.inprocess.bot_copy``): the C loop, the Python loop, no
copies at all (the bots handed the referee's own objects: for comparison only), and, with
``--before FILE``, another version of ``inprocess.py`` (e.g. ``git show
e4b44053:arbiter/hosting/inprocess.py > /tmp/before.py``), loaded beside this one.

    python scripts/inproc_copy_cost.py [--rounds 5] [--before /tmp/before.py]

The variants are alternated in one process, ``--rounds`` times (the machine is shared: the
load moves between runs, less between neighbours), each round every variant plays the same
seeded matches; a row is the min and median over the rounds of CPU time (process time)
over decisions, in µs. docs/performance.md ("One venue, one record") quotes it.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import statistics
import time
from typing import Any

CASES = (  # label, game, bot, seats, options, matches a round
    ("Spades, 1 deal, 4 × random", "spades", "random", 4, {"deals": 1}, 10),
    ("Spot, 4 × random", "spot", "random", 4, {}, 2),
    ("Spades, 1 deal, 4 × heuristic", "spades", "heuristic", 4, {"deals": 1}, 4),
    ("Spite and Malice, 2 × random, 100 turns", "spite-and-malice", "random", 2, {"max_turns": 100}, 6),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", help="another inprocess.py, played beside this one")
    args = parser.parse_args()

    from arbiter.hosting import inprocess
    from arbiter.hosting.loading import load_bot
    from arbiter.match import run_match
    from cardarena.records import MatchConfig

    built = inprocess._copyc

    class Uncopied(inprocess.InProcessSeat):
        """No copies: what a decision costs without them."""

        async def decide(self, turn: Any) -> Any:
            copy, each = inprocess.bot_copy, inprocess._copy_each
            inprocess.bot_copy, inprocess._copy_each = (lambda value, memo=None: value), (lambda items, memo: list(items))
            try:
                return await super().decide(turn)
            finally:
                inprocess.bot_copy, inprocess._copy_each = copy, each

    variants: dict[str, tuple[type, Any]] = {}
    if args.before:
        spec = importlib.util.spec_from_file_location("inprocess_before", args.before)
        before = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(before)
        variants["before"] = (before.InProcessSeat, None)
    if built is not None:
        variants["C"] = (inprocess.InProcessSeat, built)
    variants["Python"] = (inprocess.InProcessSeat, None)
    variants["none"] = (Uncopied, None)

    def play(seat: type, game: str, bot: Any, n: int, options: dict, seed: int) -> int:
        seats = [seat(bot, f"b{i}") for i in range(n)]
        return len(asyncio.run(run_match(MatchConfig(game=game, seed=seed, options=options), seats)).actions)

    print("µs of CPU a decision, min / median of", args.rounds, "rounds:", ", ".join(variants))
    for label, game, name, n, options, matches in CASES:
        bot = load_bot(name)
        for seat, _ in variants.values():
            play(seat, game, bot, n, options, 99)  # warm: imports, caches
        per: dict[str, list[float]] = {v: [] for v in variants}
        for _ in range(args.rounds):
            for v, (seat, copyc) in variants.items():
                inprocess._copyc = copyc
                t, decisions = time.process_time(), 0
                for seed in range(matches):
                    decisions += play(seat, game, bot, n, options, seed)
                per[v].append((time.process_time() - t) / decisions * 1e6)
        inprocess._copyc = built
        print(f"{label:42s}", "  ".join(f"{v} {min(x):4.0f} / {statistics.median(x):4.0f}" for v, x in per.items()))


if __name__ == "__main__":
    main()
