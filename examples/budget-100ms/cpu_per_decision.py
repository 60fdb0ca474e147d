"""CPU time a bot spends per decision, in this process: what "100 ms a decision" buys.

    PYTHONPATH=. .venv/bin/python examples/budget-100ms/cpu_per_decision.py spades dds heuristic --deals 2

Plays BOT_A against BOT_B (bundled names, bot files or folders, as ``arbiter evaluate``
takes them) on DEALS deals, each twice with the seats swapped, in the SDK's harness
(``sdk.harness.play_match``: no clock, no hosting), and times every ``choose`` with
``time.process_time``: CPU time, which the machine's load does not inflate, unlike wall
time. Prints, per bot, the decisions with more than one legal action, their mean CPU time
and the longest. A bot that needs packages of its own (``examples/openspiel-ismcts``) runs
under its environment's Python, which also sees the arbiter's packages::

    BE=$(.venv/bin/python -c "from arbiter.hosting import botenv; print(botenv.python_of(botenv.ensure('examples/openspiel-ismcts', 'requirements.txt', allow=True)))")
    PYTHONPATH=. $BE examples/budget-100ms/cpu_per_decision.py spades examples/openspiel-ismcts heuristic
"""

from __future__ import annotations

import argparse
import time

from sdk.forward import get_game
from sdk.harness import play_match
from sdk.loading import load_bot

#: The option sets of docs/strength.md's tables: one Spades deal, one Spot hand, one game.
OPTIONS = {"spades": {"deals": 1}, "spot": {"hands": 1}, "spite-and-malice": {"stalemate_rule": "fewer_payoff_wins"}}


def timed(spec: str, totals: list) -> type:
    """``spec``'s bot class with its ``choose`` timed into ``totals`` (decisions with a
    choice, CPU seconds, the longest): a class attribute, shared by the match's copies."""
    base = type(load_bot(spec))

    def choose(self, view, legal_actions):
        t0 = time.process_time()
        try:
            return base.choose(self, view, legal_actions)
        finally:
            if len(legal_actions) > 1:
                dt = time.process_time() - t0
                totals[0] += 1
                totals[1] += dt
                totals[2] = max(totals[2], dt)

    return type(base.__name__, (base,), {"choose": choose})


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("game", choices=sorted(OPTIONS))
    p.add_argument("bot_a")
    p.add_argument("bot_b")
    p.add_argument("--deals", type=int, default=2)
    p.add_argument("--seed", type=int, default=1000, help="Deal d is played on seed SEED + d.")
    args = p.parse_args()
    options = OPTIONS[args.game]
    seats = get_game(args.game, options).num_seats
    totals = {args.bot_a: [0, 0.0, 0.0], args.bot_b: [0, 0.0, 0.0]}
    classes = {spec: timed(spec, totals[spec]) for spec in totals}
    for d in range(args.deals):
        for first, second in ((args.bot_a, args.bot_b), (args.bot_b, args.bot_a)):
            bots = [classes[first if s % 2 == 0 else second]() for s in range(seats)]
            play_match(args.game, bots, seed=args.seed + d, options=options)
    for spec, (n, cpu, longest) in totals.items():
        mean = 1000 * cpu / n if n else 0.0
        print(f"{args.game}: {spec}: {n} decisions with a choice in {args.deals} deals x 2 seatings, "
              f"CPU {mean:.1f} ms a decision on average, the longest {1000 * longest:.0f} ms")


if __name__ == "__main__":
    main()
