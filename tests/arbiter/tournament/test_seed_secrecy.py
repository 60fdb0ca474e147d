"""What a bot is told when a match starts (match id, its own RNG seed, options, names)
must not let it compute the deal seed, and so every hand, with the public seeding scheme.

An adversarial bot tries every number it can read out of MatchStart — each decimal or
hex token of the match id, its bot seed, and the inverse of a linear mix of the seed —
as a deal seed, deals with the engine, and compares with the cards it holds."""

from __future__ import annotations

import importlib.metadata

import asyncio

from sdk import loading
import re

from cardarena.games import get_game
from cardarena.records import bot_seed_for
from arbiter.store.db import Store
from arbiter.tournament.run import TournamentSpec, run_tournament
from sdk import Bot

SEEN: list = []


class Spy(Bot):
    name = "spy"

    def on_match_start(self, info):
        SEEN.append(info)

    def choose(self, view, legal_actions):
        return legal_actions[0]


def candidates(info) -> set[int]:
    out = {info.seed, info.seed ^ info.seat}
    for tok in re.split(r"[^0-9a-fA-F]+", info.match_id):
        if tok:
            out.add(int(tok, 16))
            if tok.isdigit():
                out.add(int(tok))
    mod = 2**63
    for k in (1_000_003, 1):  # undo seed * k + seat, the kind of mix this replaced
        out.add(((info.seed - info.seat) * pow(k, -1, mod)) % mod)
    for value in info.options.values():
        if isinstance(value, int) and not isinstance(value, bool):
            out.add(value)
    return out


def test_a_bot_cannot_recompute_the_deal_from_its_match_start(tmp_path):
    SEEN.clear()
    spec = TournamentSpec(game="spades", bots=("spy", "random"), options={"deals": 1, "blind_nil": False}, deals=3, seed=0,
                          name="secret")
    loading.BUNDLED["spy"] = importlib.metadata.EntryPoint("spy", f"{__name__}:Spy", loading.ENTRY_POINT_GROUP)
    try:
        with Store(tmp_path / "s.sqlite") as store:
            rows = asyncio.run(run_tournament(spec, store, transport="inproc"))
    finally:
        del loading.BUNDLED["spy"]
    game = get_game("spades", {"deals": 1, "blind_nil": False})
    seeds = {r.match_id: r.seed for r in rows}
    assert len(SEEN) == 2 * len(rows)  # the spy holds two seats of every match
    for info in SEEN:
        real = game.new_initial_state(seeds[info.match_id]).hands[info.seat]
        assert str(seeds[info.match_id]) not in info.match_id and f"{seeds[info.match_id]:x}" not in info.match_id
        for c in candidates(info):
            assert game.new_initial_state(c).hands[info.seat] != real, f"deal recovered from {c} ({info.match_id})"


def test_bot_seeds_are_stable_distinct_per_seat_and_one_way():
    assert bot_seed_for(7, 0) == bot_seed_for(7, 0)
    assert len({bot_seed_for(7, s) for s in range(6)}) == 6
    assert all(0 <= bot_seed_for(s, 1) < 2**63 for s in range(100))
    assert bot_seed_for(7, 1) - bot_seed_for(7, 0) != bot_seed_for(8, 1) - bot_seed_for(8, 0)  # no linear mix


def test_a_tournament_without_a_seed_deals_from_a_secret_one_kept_for_resuming(tmp_path):
    """The default seed is not guessable: drawn at random per tournament, kept in the store
    (a resumed run plays the same deals), never shown while the tournament runs."""
    from arbiter.present.export import _summary
    from arbiter.tournament.spec import SpecError
    from arbiter.tournament.run import load_standings, schedule

    spec = TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, deals=2, name="quiet")
    assert spec.seed is None
    try:
        schedule(spec.validate(), spec)
        raise AssertionError("a schedule without a seed must be refused")
    except SpecError as exc:
        assert "seed" in str(exc)
    deal_seeds = []
    for db in ("a.sqlite", "b.sqlite"):
        with Store(tmp_path / db) as store:
            rows = asyncio.run(run_tournament(spec, store, transport="inproc"))
            deal_seeds.append(sorted({r.seed for r in rows}))
            # the seed 0 a guesser would try first gives none of these deals
            public = sorted({m.seed for m in schedule(spec.validate(), TournamentSpec(**{**spec.to_json(), "seed": 0}))})
            assert set(deal_seeds[-1]).isdisjoint(public)
            tour = store.tournament("quiet")
            st, info = load_standings(store, "quiet")  # finished: the drawn seed reproduces it
            assert info["seed"] == store.drawn_seed(tour.id) == store.secret_seed(tour.id)
            assert f"seed {info['seed']} (drawn by the arbiter)" in _summary(st, info)
            rerun = TournamentSpec(**{**spec.to_json(), "seed": info["seed"], "name": "again"})
            again = asyncio.run(run_tournament(rerun, store, transport="inproc"))
            assert [(r.seed, r.outcome.scores) for r in again] == [(r.seed, r.outcome.scores) for r in rows]
    assert deal_seeds[0] != deal_seeds[1]  # two tournaments, two secrets
    with Store(tmp_path / "a.sqlite") as store:  # resuming (--fresh not given) keeps the drawn seed
        tour = store.tournament("quiet")
        store.db.execute("DELETE FROM matches WHERE tournament_id = ? AND idx >= 2", (tour.id,))
        store.db.execute("UPDATE tournaments SET finished = NULL WHERE id = ?", (tour.id,))
        st, info = load_standings(store, "quiet")
        assert info["seed"] is None and "seed withheld" in _summary(st, info)  # running: never shown
        rows = asyncio.run(run_tournament(spec, store, transport="inproc"))
        assert sorted({r.seed for r in rows}) == deal_seeds[0]


def test_a_known_seed_is_withheld_from_standings_until_the_tournament_ends():
    from arbiter.present.export import seed_text

    # what tournament_info says, as cardarena.disclosure decides (tests/arbiter/test_disclosure.py)
    assert seed_text({"seed": None, "seed_withheld": True}) == "seed withheld until the tournament ends"
    assert seed_text({"seed": 7, "seed_withheld": False}) == "seed 7"
    assert seed_text({"seed": None, "seed_withheld": False}).startswith("seed secret")
