"""Parity of the game engines with a reference version of them (default: git HEAD).

Replays many seeded random games in both the working-tree engines and the engines of a
git revision, side by side, and compares at every decision, as text (``repr``): the views
of a random subset of seats (and the spectator view) built in a random order, the legal
actions (order included), the events ``apply`` returns, the rejection message of a
random illegal action, clones played apart from their original, states rebuilt by
``state_from_view``, and at the end the outcome and the whole event log.

For engine speed work: every speed-up must keep views, legal actions, events and
outcomes byte-identical. Not a test (it takes a while); run it by hand:

    .venv/bin/python scripts/engine_parity.py              # against HEAD
    .venv/bin/python scripts/engine_parity.py --ref 850e06b --games 20

Exit status 0 when everything matched; else the first difference is printed.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardarena.games import Card as NewCard
from cardarena.games import get_game

#: (game name, options, preset) played in both versions.
CONFIGS: list[tuple[str, dict[str, Any], str | None]] = [
    ("spades", {"deals": 1}, None),
    ("spades", {"max_deals": 4}, None),
    ("spades", {"max_deals": 3, "blind_nil_exchange_order": "bidder_first"}, None),
    ("spades", {"max_deals": 3, "blind_nil_exchange": False}, None),
    ("spades", {"max_deals": 3, "blind_nil": False, "nil": False}, None),
    ("spades", {"max_deals": 3, "failed_nil_tricks": "count_for_partner", "bag_limit": 5}, None),
    ("spades", {"target": 150, "lose_at": -150, "simultaneous_target_rule": "higher_deal_score"}, None),
    ("spades", {"max_deals": 6, "blind_nil_min_deficit": 50, "first_dealer": 1}, None),
    ("spite-and-malice", {}, None),
    ("spite-and-malice", {}, "massachusetts"),
    ("spite-and-malice", {}, "book"),
    ("spite-and-malice", {"deadlock_rule": "reshuffle", "max_deadlock_reshuffles": 2}, "book"),
    ("spite-and-malice", {"deadlock_rule": "hand_ace_two_then_end", "center_limit": 4}, "book"),
    ("spite-and-malice", {"players": 3, "center_limit": 4, "stalemate_rule": "fewer_payoff_wins"}, None),
    ("spite-and-malice", {"players": 4, "partnerships": True, "payoff_size": 8}, None),
    ("spite-and-malice", {"players": 6, "partnerships": True, "payoff_size": 5, "series_scoring": True,
                          "match_target": 6}, None),
    ("spite-and-malice", {"jokers": 4, "kings_wild": False, "wild_excluded_ranks": "A,7"}, None),
    ("spite-and-malice", {"loading": True, "payoff_size": 10}, None),
    ("spite-and-malice", {"center_limit": "unlimited", "recycle": "deferred", "payoff_size": 8}, None),
    ("spite-and-malice", {"series_scoring": True, "match_target": 8, "payoff_size": 6}, None),
    ("spite-and-malice", {"payoff_size": 3, "decks": 1, "jokers": 2}, None),
    ("spite-and-malice", {"initial_side_cards": 1, "fill_empty_side_stacks": True, "players": 3}, None),
    # Games (and a series' games) cut by the turn guard, mostly right after a discard.
    ("spite-and-malice", {"max_turns": 9}, None),
    ("spite-and-malice", {"max_turns": 6, "series_scoring": True, "match_target": 5, "payoff_size": 5}, None),
    ("spot", {}, None),
    ("spot", {"players": 2}, None),
    ("spot", {"players": 3, "allow_discard_of_taken_card": True, "hands": 2}, None),
    ("spot", {"players": 5, "pot_carry_over": False, "hands": 3}, None),
    ("spot", {"players": 6, "end_pot": "play_until_won", "hands": 2, "max_turns_per_hand": 40}, None),
]


def load_reference(rev: str, into: Path) -> Any:
    """The engines package (``cardarena.games``, earlier ``arbiter.games``) as of ``rev``, importable as ``refgames_<rev>``."""
    files: list[str] = []
    for folder in ("cardarena/games/", "arbiter/games/"):  # the engines moved to the core in December 2026
        # -r: the games are packages of their own (cardarena/games/spite_malice/...), copied whole
        files = subprocess.run(
            ["git", "ls-tree", "-r", "--name-only", rev, folder], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout.split()
        if files:
            break
    name = "refgames_" + "".join(ch if ch.isalnum() else "_" for ch in rev)
    pkg = into / name
    for f in files:
        if f.endswith(".py"):
            text = subprocess.run(["git", "show", f"{rev}:{f}"], cwd=ROOT, check=True, capture_output=True, text=True).stdout
            target = pkg / Path(f).relative_to(folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            # The registry imports "arbiter.games.x" by absolute name: point it at the copy.
            target.write_text(text.replace('"arbiter.games.', f'"{name}.').replace('"cardarena.games.', f'"{name}.'))
    sys.path.insert(0, str(into))
    return importlib.import_module(name)


class Mismatch(Exception):
    pass


def _hidden_of(name: str, st: Any, card: Any) -> tuple:
    """The hidden parts of a reference state, as ``state_from_view`` takes them, made of ``card``."""
    cards = lambda xs: [card(int(c)) for c in xs]  # noqa: E731
    if name == "spades":
        return ([cards(h) for h in st.hands],)
    if name == "spite-and-malice":
        return ([cards(h) for h in st.hands], [cards(p[: st.hidden[s]]) for s, p in enumerate(st.payoff)],
                cards(st.stock))
    return ([cards(h) for h in st._hands], cards(reversed(st._stock)))


class Pair:
    """One game played in both versions; every comparison also feeds a digest."""

    def __init__(self, name: str, new_game: Any, ref_game: Any, where: str, digest: Any):
        self.name, self.new_game, self.ref_game, self.where, self.digest = name, new_game, ref_game, where, digest
        self.ref_card = sys.modules[type(ref_game).__module__.split(".", 1)[0] + ".cards"].Card  # the copy's top package

    def same(self, what: str, new: Any, ref: Any) -> None:
        a, b = repr(new), repr(ref)
        if a != b:
            i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            lo = max(0, i - 300)
            raise Mismatch(f"{self.where}: {what} differs at character {i}\n"
                           f"  new: ...{a[lo:i + 300]}\n  ref: ...{b[lo:i + 300]}")
        self.digest.update(a.encode())

    def call(self, what: str, fn_new, fn_ref) -> tuple[Any, Any] | None:
        """Run both: equal exceptions (type name and message), or both results; None if raised."""
        out, kinds = [], []
        for fn in (fn_new, fn_ref):
            try:
                out.append(fn())
                kinds.append("ok")
            except Exception as exc:  # noqa: BLE001 - compared, not handled
                out.append(None)
                kinds.append(f"{type(exc).__name__}: {exc}")
        self.same(what, kinds[0], kinds[1])
        return None if kinds[0] != "ok" else (out[0], out[1])


def play(pair: Pair, new: Any, ref: Any, rng: random.Random, seen: list, depth: int = 0, max_steps: int = 10**6) -> None:
    """Play ``new`` and ``ref`` side by side to the end (or ``max_steps``), comparing everything."""
    n = pair.new_game.num_seats
    step = 0
    while step < max_steps:
        pair.where = pair.where.split(" step")[0] + f" step {step}" + (f" (clone depth {depth})" if depth else "")
        pair.same("is_terminal", new.is_terminal, ref.is_terminal)
        pair.same("current_seat", new.current_seat, ref.current_seat)
        if new.is_terminal:
            break
        # Views of a random subset of seats, in a random order, before or after legal_actions.
        seats = [s for s in range(n) if rng.random() < 0.6]
        rng.shuffle(seats)
        if rng.random() < 0.3:
            seats.append(None)
        legal_first = rng.random() < 0.5
        if legal_first:
            legal = new.legal_actions()
            pair.same("legal_actions", legal, ref.legal_actions())
        for s in seats:
            if s is None:
                pair.same("spectator_view", new.spectator_view(), ref.spectator_view())
            else:
                pair.same(f"view({s})", new.view(s), ref.view(s))
        if not legal_first:
            legal = new.legal_actions()
            pair.same("legal_actions", legal, ref.legal_actions())
        seen.extend(rng.sample(legal, min(3, len(legal))))
        del seen[:-200]
        # A random earlier action that is not legal now: the same rejection, nothing changed.
        if seen and rng.random() < 0.1:
            probe = rng.choice(seen)
            if probe not in legal:
                pair.call(f"illegal {probe}", lambda: new.apply(probe),
                          lambda: ref.apply(pair.ref_game.parse_action(str(probe))))
        # A clone played a few steps on its own must leave the original untouched.
        if depth == 0 and rng.random() < 0.02:
            cn, cr = new.clone(), ref.clone()
            play(pair, cn, cr, rng, list(seen), depth + 1, max_steps=rng.randrange(1, 30))
            pair.where = pair.where.split(" (clone")[0]
        # The forward model's rebuild from a seat's view and the true hidden cards.
        if depth == 0 and rng.random() < 0.01 and hasattr(pair.new_game, "state_from_view"):
            seat = new.current_seat
            hn, hr = _hidden_of(pair.name, ref, NewCard), _hidden_of(pair.name, ref, pair.ref_card)
            seed = rng.randrange(1 << 30)
            fn, fr = pair.new_game.state_from_view, pair.ref_game.state_from_view
            built = pair.call("state_from_view", lambda: fn(new.view(seat), *hn, seed=seed),
                              lambda: fr(ref.view(seat), *hr, seed=seed))
            if built is not None:
                play(pair, built[0], built[1], rng, list(seen), depth + 1, max_steps=rng.randrange(1, 60))
                pair.where = pair.where.split(" (clone")[0]
        i = rng.randrange(len(legal))
        action = legal[i]
        pair.same("events", new.apply(action), ref.apply(ref.legal_actions()[i]))
        step += 1
    if new.is_terminal:
        pair.same("legal_actions at the end", new.legal_actions(), ref.legal_actions())
        pair.same("outcome", new.outcome(), ref.outcome())
        for s in range(n):
            pair.same(f"final view({s})", new.view(s), ref.view(s))
        pair.same("final spectator_view", new.spectator_view(), ref.spectator_view())
    pair.same("log", new.log, ref.log)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ref", default="HEAD", help="git revision of the reference engines (default HEAD)")
    ap.add_argument("--games", type=int, default=6, help="seeded games per configuration (default 6)")
    ap.add_argument("--game", action="append", help="only this game (repeatable)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        ref_pkg = load_reference(args.ref, Path(tmp))
        failures = 0
        for name, options, preset in CONFIGS:
            if args.game and name not in args.game:
                continue
            new_game = get_game(name, options, preset)
            ref_game = ref_pkg.get_game(name, options, preset)
            digest = hashlib.sha256()
            decisions = 0
            try:
                for seed in range(args.games):
                    rng = random.Random(f"parity:{seed}")
                    pair = Pair(name, new_game, ref_game, f"{name} {options} {preset or ''} seed {seed}", digest)
                    new, ref = new_game.new_initial_state(seed), ref_game.new_initial_state(seed)
                    play(pair, new, ref, rng, [])
                    decisions += len(new.log)
                print(f"ok   {name:17s} {preset or '':13s} {options}  {args.games} games, {decisions} events, "
                      f"digest {digest.hexdigest()[:16]}")
            except Mismatch as exc:
                failures += 1
                print(f"FAIL {exc}")
        print("parity: all matched" if not failures else f"parity: {failures} configuration(s) differ")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
