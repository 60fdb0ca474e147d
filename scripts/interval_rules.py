"""The rating intervals' coverage bot by bot on a grid of simulated round robins (issue 39,
docs/strength.md, "Lopsided pairs"): head to head 0.6, 2 and 3 nats apart on 4-20 deals with
shared deal luck 0, 0.7 and 0.9, and the per-bot schedules of ``arbiter.tools.statreport``. It
rates with the standings' own rule (``arbiter.rating.ratings``); ``--floor F`` sets the model's
floor under the clustered variance (``ratings.MODEL_FLOOR``; 0: none).

    .venv/bin/python scripts/interval_rules.py 300               # today's rule, 300 runs a cell (a few minutes)
    .venv/bin/python scripts/interval_rules.py 300 --floor 0.3   # a floor measured and not kept
    .venv/bin/python scripts/interval_rules.py 500 --partners    # the partnership cells alone (twenty-ninth session)
    .venv/bin/python scripts/interval_rules.py 300 --tables      # fields whose deals are played at several tables
    .venv/bin/python scripts/interval_rules.py 300 --formats     # a gauntlet, a double round robin, no duplicate deals
    .venv/bin/python scripts/interval_rules.py 300 --seats       # Spite and Malice's partnerships, Spot at 5 and 6 seats

The rules before are in the history: at commit a13194ec the ± t(df) s.e. interval with the floor
(``git checkout a13194ec -- arbiter/rating/ratings.py``), at 18bb9521 without it.
"""

from __future__ import annotations

import random
import sys

from arbiter.rating import ratings
from arbiter.tools.calibration import strength_calibration
from arbiter.tools.statreport import PER_BOT_SCHEDULES

CELLS = [(None, d, deals, shared) for d in (0.3, 1.0, 1.5) for deals in (4, 8, 12, 20) for shared in (0.0, 0.7, 0.9)] + [
    (name, None, deals, shared) for name, deals, shared in (
        ("spot 4 seats, 4 bots", 4, 0.9), ("spot 4 seats, 4 bots", 8, 0.7), ("spot 4 seats, 4 bots", 20, 0.9),
        ("spades, 3 partnerships", 8, 0.9), ("spades, 3 partnerships", 8, 0.7), ("spades, 3 partnerships", 20, 0.9),
        ("spades, 4 partnerships", 8, 0.9), ("spades, a random bot among two", 4, 0.7),
        ("spades, a random bot among two", 8, 0.7), ("spades, a random bot among two", 12, 0.7),
        ("spot 4 seats, a random bot among three", 4, 0.7), ("spot 4 seats, a random bot among three", 6, 0.9))]

#: The partnership cells where the intervals over-cover (docs/strength.md, "The partnerships'
#: over-coverage"), their seeds ``p:…``.
PARTNER_CELLS = [(name, None, deals, shared) for name, deals, shared in (
    ("spades, 3 partnerships", 8, 0.7), ("spades, 3 partnerships", 8, 0.9), ("spades, 3 partnerships", 12, 0.9),
    ("spades, 3 partnerships", 20, 0.9), ("spades, 3 partnerships", 40, 0.7), ("spades, 3 partnerships", 20, 0.0),
    ("spades, 4 partnerships", 8, 0.7), ("spades, 4 partnerships", 8, 0.9), ("spades, 4 partnerships", 12, 0.7))]

#: Fields whose deals are played at several tables (a round robin of three bots or more head to
#: head, or of more bots than a table seats): docs/strength.md, "Several tables a deal". Each at
#: 4-12 deals with shared luck 0.7 and 0.9, the worst bot's coverage, ``*`` where the standings
#: show no interval, seeds ``g2:…`` (4-7 deals) and ``g3:…`` (8-12).
SP = ("spades", {"deals": 1})
TABLE_FIELDS = {
    "h2h 3 spread": (SP, {"a": 1.2, "b": 0.0, "c": -1.2}),
    "h2h 3 demo": (SP, {"h": 1.5, "g": 0.5, "r": -2.0}),
    "h2h 4 spread": (SP, {"a": 1.2, "b": 0.4, "c": -0.3, "d": -1.3}),
    "h2h 4 close": (SP, {"a": 0.3, "b": 0.1, "c": -0.1, "d": -0.3}),
    "h2h 5 spread": (SP, {"a": 1.2, "b": 0.6, "c": 0.0, "d": -0.6, "e": -1.2}),
    "h2h 8 spread": (SP, {f"b{i}": -1.5 + 3 * i / 7 for i in range(8)}),
    "spot4 5 bots": (("spot", {"players": 4, "hands": 1}), {"a": 0.6, "b": 0.3, "c": 0.0, "d": -0.3, "e": -0.6}),
    "spot3 4 bots": (("spot", {"players": 3, "hands": 1}), {"a": 0.6, "b": 0.2, "c": -0.2, "d": -0.6}),
    "spot4 6 bots": (("spot", {"players": 4, "hands": 1}), {"a": 0.6, "b": 0.3, "c": 0.0, "d": -0.1, "e": -0.3, "f": -0.5}),
}


def tables(runs: int, deals=(4, 5, 6, 7, 8, 9, 10, 12)) -> None:
    for name, ((game, options), strength) in TABLE_FIELDS.items():
        for shared in (0.7, 0.9):
            row = []
            for n in deals:
                c = strength_calibration(game, options, strength, n, runs,
                                         random.Random(f"{'g2' if n < 8 else 'g3'}:{name}:{n}:{shared}"), (), shared=shared)
                row.append(f"{n}: {c.min_coverage:.3f}{'' if c.shown_share == 1 else '*' if c.shown_share == 0 else '?'}")
            print(f"{name}, shared {shared:g}: " + "  ".join(row), flush=True)


def formats(runs: int) -> None:
    """The other schedules a tournament can have (docs/strength.md, "Several tables a deal"): a
    gauntlet of a challenger against four bots, a double round robin and a round robin without
    duplicate deals of four bots (1.2 to -1.3 nats), 4-12 deals; the worst bot, ``*`` where no
    interval is shown. Seeds ``f:…``."""
    import collections

    from arbiter.rating.ratings import ELO_PER_NAT, compute_standings
    from arbiter.tools.calibration import simulated_rows
    from arbiter.tournament.run import schedule
    from arbiter.tournament.spec import TournamentSpec

    four = {"a": 1.2, "b": 0.4, "c": -0.3, "d": -1.3}
    for fmt, duplicate, strength in (("gauntlet", True, {"ch": 0.5, "a": 1.0, "b": 0.2, "c": -0.6, "d": -1.1}),
                                     ("double-round-robin", True, four), ("round-robin", False, four)):
        for shared in (0.7, 0.9):
            row = []
            for deals in (4, 6, 8, 12):
                spec = TournamentSpec(game="spades", bots=tuple(strength), options={"deals": 1}, deals=deals, seed=0,
                                      format=fmt, duplicate=duplicate)
                game = spec.validate_game()
                matches = schedule(game, spec)
                rng = random.Random(f"f:{fmt}:{deals}:{shared}:{duplicate}")
                mean = sum(strength.values()) / len(strength)
                truth = {b: 1500 + ELO_PER_NAT * (v - mean) for b, v in strength.items()}
                hit: collections.Counter = collections.Counter()
                shown = 0
                for _ in range(runs):
                    st = compute_standings(simulated_rows(matches, game.teams, strength, rng, shared), game.teams,
                                           duplicate=duplicate, bots=tuple(strength))
                    for r in st.rows:
                        hit[r.name] += r.rating.low <= truth[r.name] <= r.rating.high
                        shown += r.rating.interval
                share = shown / (runs * len(strength))
                row.append(f"{deals}: {min(hit.values()) / runs:.3f}{'' if share == 1 else '*' if share == 0 else '?'}")
            print(f"{fmt}{'' if duplicate else ', no duplicate deals'}, shared {shared:g}: " + "  ".join(row), flush=True)


#: Other games' and seats' shapes (docs/strength.md, "Several tables a deal"): (name, game, options,
#: strengths, teams), at 4, 8 and 12 deals, seeds ``h2:…``.
SEAT_FIELDS = (
    ("s&m 3 partnerships", "spite-and-malice", {"players": 6, "partnerships": True},
     {"a": 0.5, "b": 0.5, "c": 0.0, "d": 0.0, "e": -0.6, "f": -0.6}, (("a", "b"), ("c", "d"), ("e", "f"))),
    ("s&m 2 partnerships", "spite-and-malice", {"players": 4, "partnerships": True},
     {"a": 0.6, "b": 0.6, "c": -0.6, "d": -0.6}, (("a", "b"), ("c", "d"))),
    ("spot 6 seats 6 bots", "spot", {"players": 6, "hands": 1}, {"a": 1.0, "b": 0.4, "c": 0.1, "d": -0.1, "e": -0.4, "f": -1.0}, ()),
    ("spot 5 seats 7 bots", "spot", {"players": 5, "hands": 1}, {f"b{i}": 0.9 - 0.3 * i for i in range(7)}, ()),
)


def seats(runs: int) -> None:
    for name, game, options, strength, teams in SEAT_FIELDS:
        for shared in (0.7, 0.9):
            row = []
            for n in (4, 8, 12):
                c = strength_calibration(game, options, strength, n, runs, random.Random(f"h2:{name}:{n}:{shared}"), teams,
                                         shared=shared)
                row.append(f"{n}: {c.min_coverage:.3f}{'' if c.shown_share == 1 else '*' if c.shown_share == 0 else '?'}")
            print(f"{name}, shared {shared:g}: " + "  ".join(row), flush=True)


def main(runs: int, cells=CELLS, seed: str = "g") -> None:
    for name, d, deals, shared in cells:
        if d is not None:
            game, options, strength, teams = "spades", {"deals": 1}, {"a": d, "b": -d}, ()
            label, tag = f"head to head, {2 * d:g} nats apart", str(d)
        else:
            (game, options, strength, teams), label, tag = PER_BOT_SCHEDULES[name], name, name
        c = strength_calibration(game, options, strength, deals, runs, random.Random(f"{seed}:{tag}:{deals}:{shared}"), teams,
                                 shared=shared)
        each = c.bot_coverage.values()
        print(f"{label}, {deals} deals, shared {shared:g}: {min(each):.3f}..{max(each):.3f}", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--floor" in args:
        at = args.index("--floor")
        ratings.MODEL_FLOOR = float(args[at + 1])
        del args[at:at + 2]
    partners, several, other, shapes = "--partners" in args, "--tables" in args, "--formats" in args, "--seats" in args
    args = [a for a in args if a not in ("--partners", "--tables", "--formats", "--seats")]
    if shapes:
        seats(int(args[0]) if args else 300)
    elif several:
        tables(int(args[0]) if args else 300)
    elif other:
        formats(int(args[0]) if args else 300)
    else:
        main(int(args[0]) if args else 300, *((PARTNER_CELLS, "p") if partners else ()))
