"""A bot must not watch the other matches of its tournament.

The bots and the spectators reach the same arbiter. With duplicate deals another seating
of a bot's own deal, watched live or replayed from the Spectate service's recent matches,
shows card by card the hands the bot is playing against. ``hostile/spectate_spy.py`` dials
the Spectate service at its own arbiter address and bids 13 if it gets in, 12 if it only
gets into the admin side (Matches.ListSessions), else 1. It gets in on an arbiter without
tokens (so the check can fail), and never on an arbiter that runs its own matches (a
tournament, `arbiter play`, a cluster worker: ``server.start_private_server``), which
requires a spectator token it shows only to its organiser and locks its Matches service.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import arbiter.tournament.play
from arbiter.store.db import Store
from arbiter.tournament.run import TournamentSpec, run_tournament

SPY = str(Path(__file__).parent / "hostile" / "spectate_spy.py")


def spy_bids(actions: list[dict], seats: tuple[str, ...], spy: str = "spy") -> list[str]:
    return [a["action"] for a in actions if a["action"].startswith("bid") and seats[a["seat"]] == spy]


def test_on_an_arbiter_without_a_spectator_token_the_spy_gets_in(tmp_path):
    from tests.e2e.hostile_arena import hostile_folder, run_hostile

    r = run_hostile(hostile_folder(tmp_path, "spectate_spy.py", {}), tmp_path)  # Matches locked, Spectate open
    assert r.report("spectate")["result"].startswith("LISTED"), r.report("spectate")
    assert spy_bids([{"seat": a.seat, "action": a.action} for a in r.hostile.actions], ("spy", "x", "spy", "x")) == \
        ["bid 13", "bid 13"]


def test_arbiter_play_keeps_its_bots_from_spectating():
    record = arbiter.tournament.play.play_local("spades", [SPY, "random", SPY, "random"], seed=4, options={"deals": 1})
    assert record.outcome.reason.value == "completed"
    actions = [{"seat": a.seat, "action": a.action} for a in record.actions]
    assert spy_bids(actions, record.seat_names, record.seat_names[0]) == ["bid 1", "bid 1"]


def test_a_tournament_arbiter_keeps_its_bots_from_spectating(tmp_path):
    spec = TournamentSpec(game="spades", bots=(f"spy={SPY}", "random"), options={"deals": 1}, deals=2, name="spy")
    with Store(tmp_path / "spy.sqlite") as store:
        rows = asyncio.run(run_tournament(spec, store, concurrency=2))
    assert [r.outcome.reason.value for r in rows] == ["completed"] * 4
    for r in rows:
        assert spy_bids(json.loads(r.record_json)["actions"], r.seats) == ["bid 1", "bid 1"], r.match_id


def test_a_cluster_workers_arbiter_keeps_its_bots_from_spectating(tmp_path, monkeypatch):
    from arbiter.batch import cluster
    from arbiter.tournament.run import schedule

    monkeypatch.setenv("ARENA_CLUSTER_CACHE", str(tmp_path / "cache"))
    spec = TournamentSpec(game="spades", bots=(f"spy={SPY}", "random"), options={"deals": 1}, deals=1, seed=5, name="w")
    refs = cluster.bot_refs(spec.bot_sources, spec.bot_names, None)
    arena = cluster._WorkerArbiter()
    try:
        for m in schedule(spec.validate(), spec):
            job = cluster.MatchJob("w", m.idx, spec.match_config(m.seed, f"w-{m.idx}"), m.seats, tuple(refs.values()),
                                   cluster.code_fingerprint(), 3, "shared")
            record = json.loads(arena.play(job)[0])
            assert spy_bids(record["actions"], m.seats) == ["bid 1", "bid 1"], m.idx
    finally:
        arena.close()
