"""Scratch check (not a test): the Spite and Malice engine of this tree against an old copy.

Usage: python scripts/scratch_sm_identity.py OLD_DIR [GAMES_PER_CONFIG]

OLD_DIR holds ``oldgames/``, a copy of an older ``cardarena/games`` (e.g.
``git archive <commit> cardarena/games | tar -x -C OLD_DIR; mv OLD_DIR/cardarena/games
OLD_DIR/oldgames``). Both engines replay the same seeded random games (every preset and
variant of tests/games/test_spite_malice_properties.py); at every decision they must give
the same view to every seat, the same spectator view, the same legal actions in the same
order (and texts) and the same events; now and then play goes on from a clone, and views
are sometimes skipped (the caches must not depend on them being asked).
"""

from __future__ import annotations

import dataclasses
import enum
import random
import sys

sys.path.insert(0, sys.argv[1])

from oldgames.spite_malice import SpiteAndMalice as OldSM  # noqa: E402

from cardarena.games.spite_malice import SpiteAndMalice as NewSM  # noqa: E402

CONFIGS: dict[str, tuple[dict, str | None]] = {
    "default": ({}, None),
    "standard": ({}, "standard"),
    "massachusetts": ({}, "massachusetts"),
    "book": ({}, "book"),
    "book-reshuffle": ({"deadlock_rule": "reshuffle", "max_deadlock_reshuffles": 2}, "book"),
    "book-hand-ace-two": ({"deadlock_rule": "hand_ace_two_then_end", "center_limit": 4}, "book"),
    "three-players": ({"players": 3, "center_limit": 4, "stalemate_rule": "fewer_payoff_wins"}, None),
    "partners-4": ({"players": 4, "partnerships": True, "payoff_size": 8}, None),
    "partners-6-series": ({"players": 6, "partnerships": True, "payoff_size": 5, "series_scoring": True, "match_target": 6}, None),
    "jokers-kings-natural": ({"jokers": 4, "kings_wild": False, "wild_excluded_ranks": "A,7"}, None),
    "loading": ({"loading": True, "payoff_size": 10}, None),
    "deferred": ({"center_limit": "unlimited", "recycle": "deferred", "payoff_size": 8}, None),
    "series": ({"series_scoring": True, "match_target": 8, "payoff_size": 6}, None),
    "small-fast-win": ({"payoff_size": 3, "decks": 1, "jokers": 2}, None),
    "descending": ({"side_stack_order": "descending", "may_end_without_discard": True}, None),
    "deck-split": ({"deck_split": True, "decks": 2, "payoff_size": 10}, None),
}


def norm(x):
    """A class-free, comparable form: dataclasses by class name and fields, enums by value."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__, tuple((f.name, norm(getattr(x, f.name))) for f in dataclasses.fields(x)))
    if isinstance(x, enum.Enum):
        return (type(x).__name__, x.value)
    if isinstance(x, (tuple, list)):
        return tuple(norm(y) for y in x)
    if isinstance(x, frozenset):
        return ("frozenset", tuple(sorted(x)))
    if isinstance(x, int) and not isinstance(x, bool):
        return int(x)
    return x


def check(name: str, opts: dict, preset: str | None, games: int) -> int:
    old, new = OldSM(opts, preset), NewSM(opts, preset)
    decisions = 0
    for g in range(games):
        rng = random.Random(f"{name}:{g}")
        a, b = old.new_initial_state(g), new.new_initial_state(g)
        assert norm(a.log) == norm(b.log), (name, g, "initial log")
        step = 0
        while True:
            assert a.is_terminal == b.is_terminal and a.current_seat == b.current_seat, (name, g, step)
            if a.is_terminal:
                break
            if rng.random() < 0.8:  # sometimes no view at all before the action
                for s in rng.sample(range(old.n), old.n):
                    assert norm(a.view(s)) == norm(b.view(s)), (name, g, step, "view", s)
                if rng.random() < 0.2:
                    assert norm(a.spectator_view()) == norm(b.spectator_view()), (name, g, step, "spectator")
            la, lb = a.legal_actions(), b.legal_actions()
            assert [str(x) for x in la] == [str(x) for x in lb] and norm(la) == norm(lb), (name, g, step, "legal")
            i = rng.randrange(len(la))
            ea, eb = a.apply(la[i]), b.apply(lb[i])
            assert norm(ea) == norm(eb), (name, g, step, "events")
            if rng.random() < 0.03:  # go on from a clone (the caches are shared or copied)
                a, b = a.clone(), b.clone()
            step += 1
            decisions += 1
        assert norm(a.outcome()) == norm(b.outcome()), (name, g, "outcome")
        assert norm(a.spectator_view()) == norm(b.spectator_view()), (name, g, "final spectator")
        assert norm(a.log) == norm(b.log), (name, g, "log")
    return decisions


def main() -> None:
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    total = 0
    for name, (opts, preset) in CONFIGS.items():
        d = check(name, opts, preset, games)
        total += d
        print(f"{name}: {games} games, {d} decisions identical", flush=True)
    print(f"all identical: {len(CONFIGS)} configurations, {total} decisions")


if __name__ == "__main__":
    main()
