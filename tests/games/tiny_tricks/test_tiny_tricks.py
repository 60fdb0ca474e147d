"""Tiny Tricks, registered by one line in each registry and nothing else, is a whole game
of the platform: complete in every registry, it passes the conformance suite, plays a
tournament in process (stored, ranked) and draws its card table."""

from __future__ import annotations

import asyncio

from arbiter.store.db import Store
from arbiter.tournament.run import TournamentSpec, load_standings, run_tournament
from tests.games import conformance as cf
from tests.games.registrations import check_complete
from tests.games.tiny_tricks import NAME, register


def test_one_line_per_registry_makes_it_complete(monkeypatch):
    register(monkeypatch)
    check_complete(NAME)


def test_it_passes_the_conformance_suite(monkeypatch):
    register(monkeypatch)
    assert NAME in {c.game for c in cf.all_configs()}
    assert cf.uncovered_options(NAME) == []
    for config in cf.configs(NAME):
        game = config.make()
        for seed in (1, 2):
            assert cf.check_deterministic(game, seed) > 0
            assert cf.check_playout(game, seed)[1] > 0
            assert cf.check_conservation(game, seed) is not None
            assert cf.check_redeal_invariance(game, seed, every=2)[1] > 0
            assert cf.check_no_hidden_cards(game, seed, fanout=1) > 0


def test_it_plays_a_tournament(monkeypatch, tmp_path):
    register(monkeypatch)
    spec = TournamentSpec(game=NAME, bots=("random", "r2=random", "r3=random"), options={"players": 3, "hand_size": 3},
                          deals=2, seed=5, name="tiny")
    with Store(tmp_path / "t.sqlite") as store:
        rows = asyncio.run(run_tournament(spec, store, transport="inproc"))
        standings, info = load_standings(store, "tiny")
    assert len(rows) == info["planned"] > 0
    assert all(r.outcome is not None for r in rows)
    assert {r.name for r in standings.rows} == {"random", "r2", "r3"}
