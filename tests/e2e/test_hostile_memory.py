"""A bot that remembers deals across matches must never meet the same deal twice.

With duplicate deals every deal comes back in later matches with the seats rotated (and in
every pairing). ``hostile/memory_deals.py`` remembers every hand it sees played, for as
long as its process lives, and bids 13 when it is dealt a hand it has seen: then it would
know every hand of the deal. Each test first shows the attack working where processes are
shared between matches (so the check can fail: a tournament refuses ``isolation =
"shared"`` with duplicate deals, so the first test plays the schedule through a shared
``BotHost`` itself), then shows it blocked by the default
isolation (``deal``: a process plays one match at a time and never two of the same deal)
and with ``match`` isolation (a fresh process per seat per match): locally (``BotHost``)
and on a cluster worker (``cluster._WorkerArbiter``, which plays ``deal`` as ``match``).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from arbiter.hosting.botproc import BotHost
from arbiter.match import run_match
from arbiter.server.app import start_private_server
from arbiter.server.botstream import RemoteSeat
from arbiter.store.db import Store
from arbiter.tournament.run import TournamentSpec, run_tournament, schedule
from arbiter.tournament.spec import SHARED_WITH_DUPLICATE, SpecError

HOSTILE = Path(__file__).parent / "hostile" / "memory_deals.py"


def recognitions(record_json: str, seats: tuple[str, ...]) -> tuple[int, int]:
    """(bids of 13, bids of 1) the memory bot made in this match record."""
    bids = [a["action"] for a in json.loads(record_json)["actions"]
            if a["action"].startswith("bid") and seats[a["seat"]] == "memory"]
    return bids.count("bid 13"), bids.count("bid 1")


def spec(isolation: str | None) -> TournamentSpec:
    return TournamentSpec(game="spades", bots=(f"memory={HOSTILE}", "random"), options={"deals": 1}, deals=2,
                          seed=3, name=f"memory-{isolation}", isolation=isolation)


def run(tmp_path: Path, isolation: str | None, concurrency: int) -> list[tuple[int, int]]:
    with Store(tmp_path / f"{isolation}.sqlite") as store:
        rows = asyncio.run(run_tournament(spec(isolation), store, concurrency=concurrency))
    assert [r.outcome.reason.value for r in rows] == ["completed"] * 4
    return [recognitions(r.record_json, r.seats) for r in rows]


def shared_processes() -> list[tuple[int, int]]:
    """The tournament's schedule played one match at a time by one ``BotHost`` whose
    processes serve every match (``shared``): what a duplicate tournament refuses."""
    s = spec(None)
    plan = schedule(s.validate(), s)

    async def main() -> list[tuple[int, int]]:
        server = await start_private_server()
        host = BotHost(server.hub, server.address, {"memory": str(HOSTILE), "random": "random"}, isolation="shared",
                       copies=2)
        got = []
        try:
            await host.start()
            for m in plan:
                lease, sessions = await host.lease(m.seats, m.seed)
                record = await run_match(s.match_config(m.seed, f"shared-{m.idx}"), [RemoteSeat(x, "spades") for x in sessions])
                host.release(lease)
                assert record.outcome.reason.value == "completed", record.incidents
                got.append(recognitions(record.to_json(), m.seats))
        finally:
            await host.stop()
            await server.stop(0.2)
        return got

    return asyncio.run(main())


def test_no_bot_process_of_a_duplicate_tournament_meets_a_deal_twice(tmp_path):
    assert spec(None).effective_isolation == "deal"
    assert TournamentSpec(game="spades", bots=("a", "b"), duplicate=False).effective_isolation == "shared"
    # shared processes, one match at a time: the second seating of each deal is recognised ...
    shared = shared_processes()
    assert [r[0] for r in shared] == [0, 2, 0, 2], shared
    # ... which is why a duplicate tournament refuses them, saying what to use instead
    with pytest.raises(SpecError) as refused:
        spec("shared").validate()
    assert str(refused.value) == SHARED_WITH_DUPLICATE
    assert '"deal"' in SHARED_WITH_DUPLICATE and "--no-duplicate" in SHARED_WITH_DUPLICATE
    # the default for duplicate deals (processes reused, but never for a deal they have
    # seen), one match at a time so that reuse happens, and fresh processes per match
    for isolation, concurrency in ((None, 1), ("match", 2)):
        got = run(tmp_path, isolation, concurrency=concurrency)
        assert [r[0] for r in got] == [0, 0, 0, 0], (isolation, got)
        assert all(ones == 2 for _, ones in got)  # it did bid, at both its seats, every match


def test_cluster_workers_give_every_match_fresh_bot_processes(tmp_path, monkeypatch):
    from arbiter.batch import cluster

    monkeypatch.setenv("ARENA_CLUSTER_CACHE", str(tmp_path / "cache"))
    s = spec(None)
    game = s.validate()
    refs = cluster.bot_refs(s.bot_sources, s.bot_names, None)
    plan = schedule(game, s)[:2]  # deal 1 in its two seatings
    assert plan[0].seed == plan[1].seed and plan[0].seats != plan[1].seats
    import arbiter.match

    sessions_seen = []
    real_run_match = arbiter.match.run_match

    async def spy(config, seats, *args, **kw):
        sessions_seen.append([id(seat.session) for seat in seats])
        return await real_run_match(config, seats, *args, **kw)

    monkeypatch.setattr(cluster, "run_match", spy)
    arena = cluster._WorkerArbiter()
    try:
        results = {}
        for isolation in ("shared", "deal"):  # a worker plays "deal" with fresh processes
            for m in plan:
                job = cluster.MatchJob("t", m.idx, s.match_config(m.seed, f"t-{m.idx}-{isolation}"), m.seats,
                                       tuple(refs.values()), cluster.code_fingerprint(), 3, isolation)
                record_json, _ = arena.play(job)
                results[isolation, m.idx] = recognitions(json.dumps(json.loads(record_json)), m.seats)
    finally:
        arena.close()
    # four seats, four processes, in every match (partners never share a process)
    assert len(sessions_seen) == 4 and all(len(set(ids)) == 4 for ids in sessions_seen), sessions_seen
    # a worker's long-lived processes remember deal 1 (one process per seat slot: both
    # seats of the memory bot recognise it, so each seat had a process of its own) ...
    assert results["shared", plan[1].idx] == (2, 0), results
    # ... and fresh processes per match never do
    assert results["deal", plan[0].idx] == (0, 2) and results["deal", plan[1].idx] == (0, 2), results
