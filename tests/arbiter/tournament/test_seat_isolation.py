"""A bot at two seats of one match (Spades partners, copies at a Spot table) plays them
from two different processes, so no bot process ever receives two seats' cards."""

from __future__ import annotations

import asyncio
import time

import pytest

import arbiter.batch.engine
import arbiter.tournament.play
from arbiter.hosting.botproc import BotHost
from arbiter.server.app import start_private_server
from arbiter.store.db import Store
from arbiter.tournament.run import TournamentSpec, run_tournament

pytestmark = pytest.mark.e2e  # bot processes over gRPC, every test


def spy_on_run_match(monkeypatch, module):
    seen = []
    real = module.run_match

    async def spy(config, seats, *args, **kw):
        seen.append([s.session for s in seats])
        return await real(config, seats, *args, **kw)

    monkeypatch.setattr(module, "run_match", spy)
    return seen


def test_partners_in_a_played_match_are_separate_processes(monkeypatch):
    seen = spy_on_run_match(monkeypatch, arbiter.batch.engine)  # a played match is a batch of one
    record = arbiter.tournament.play.play_local("spades", ["random", "greedy", "random", "greedy"], seed=3, options={"deals": 1})
    assert record.outcome.reason.value == "completed"
    [sessions] = seen
    assert len({id(s) for s in sessions}) == 4  # four seats, four processes
    assert sessions[0].bot_name == sessions[2].bot_name == "random"


def test_partners_and_copies_in_a_tournament_never_share_a_process(monkeypatch, tmp_path):
    seen = spy_on_run_match(monkeypatch, arbiter.batch.engine)
    spec = TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, deals=2, name="iso")
    with Store(tmp_path / "iso.sqlite") as store:
        rows = asyncio.run(run_tournament(spec, store, concurrency=2))
    assert len(rows) == len(seen) == 4
    for sessions in seen:
        assert len({id(s) for s in sessions}) == 4


def test_every_isolation_plays_the_same_matches_with_the_processes_it_promises(monkeypatch, tmp_path):
    """``shared``: a fixed set of long-lived processes per bot (``bot_processes``, at least
    one per seat slot) serves every match. ``match``: a fresh process per seat per match.
    ``deal``: processes are reused, but never for a second match of the same deal. None
    ever plays two seats of one match, and ``match`` and ``deal`` play exactly the same
    matches. ``shared`` plays without duplicate deals, the only way it is allowed (with
    them a process would carry a deal to its twin seating: refused, test_spec_refuses_...)."""
    seen = []
    real = arbiter.batch.engine.run_match

    async def spy(config, seats, *args, **kw):
        seen.append((config.seed, [s.session for s in seats]))
        return await real(config, seats, *args, **kw)

    monkeypatch.setattr(arbiter.batch.engine, "run_match", spy)
    results = {}
    for isolation in ("shared", "match", "deal"):
        seen.clear()
        spec = TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, deals=3, seed=11,
                              name=f"iso-{isolation}", isolation=isolation, bot_processes=3 if isolation == "shared" else 1,
                              duplicate=isolation != "shared")
        with Store(tmp_path / f"{isolation}.sqlite") as store:
            rows = asyncio.run(run_tournament(spec, store, concurrency=2))
        results[isolation] = [(r.seats, r.outcome.scores, [(a.seat, a.action) for a in r.record().actions]) for r in rows]
        assert len(seen) == len(rows) == (6 if spec.duplicate else 3)  # without duplicate deals: one seating each
        assert all(len({id(s) for s in sessions}) == 4 for _, sessions in seen)
        processes = {id(s) for _, sessions in seen for s in sessions}
        if isolation == "shared":
            assert 4 < len(processes) <= 2 * 3  # spread over the slots, never more than 3 per bot
        elif isolation == "match":
            assert len(processes) == 4 * len(seen)  # every seat of every match its own
        else:
            assert len(processes) < 4 * len(seen)  # reused ...
            deals_of: dict[int, list[int]] = {}
            for deal, sessions in seen:
                for s in sessions:
                    deals_of.setdefault(id(s), []).append(deal)
            assert all(len(d) == len(set(d)) for d in deals_of.values()), deals_of  # ... never for a deal twice
    assert results["match"] == results["deal"]


def test_a_match_that_needs_new_processes_starts_them_together(monkeypatch):
    """``deal`` isolation: a match whose seats find no idle process that has not seen its
    deal starts all its new processes at once, then waits for them (it waited for each
    one's connection before starting the next: ~40 ms each, and four a match)."""
    spans: list[tuple[float, float]] = []
    real = BotHost._fresh

    async def fresh(self, name):
        t0 = time.monotonic()
        try:
            return await real(self, name)
        finally:
            spans.append((t0, time.monotonic()))

    monkeypatch.setattr(BotHost, "_fresh", fresh)
    seats = ["random", "greedy", "random", "greedy"]

    async def main():
        server = await start_private_server()
        host = BotHost(server.hub, server.address, {"random": "random", "greedy": "greedy"}, isolation="deal", copies=2)
        try:
            await host.start()
            first, _ = await host.lease(seats, deal=5)
            await asyncio.gather(*host._ready["random"], *host._ready["greedy"])
            spans.clear()
            second, sessions = await host.lease(seats, deal=5)  # the same deal: four new processes
            return (list(spans), all(not s.closed for s in sessions),
                    {id(bp) for bp in host._leased[first]} & {id(bp) for bp in host._leased[second]})
        finally:
            await host.stop()
            await server.stop(0.2)

    got, connected, shared = asyncio.run(main())
    assert connected and not shared
    assert len(got) == 4
    assert max(start for start, _ in got) < min(end for _, end in got)  # all started before any had connected


def test_match_isolation_starts_no_spare_that_no_seat_of_the_tournament_will_use(monkeypatch, tmp_path):
    """A tournament tells its host how many seats each bot will lease (``planned``): with
    ``match`` isolation every process started plays (the spares kept ahead stopped short of
    the plan's end: 12 of the bench's 108 processes were started and stopped unused)."""
    from arbiter.hosting.botproc import BotPool

    launched = []
    real = BotPool.launch

    def launch(self, name, *args, **kw):
        launched.append(name)
        return real(self, name, *args, **kw)

    monkeypatch.setattr(BotPool, "launch", launch)
    spec = TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, deals=2, seed=3,
                          name="spares", isolation="match")
    with Store(tmp_path / "spares.sqlite") as store:
        rows = asyncio.run(run_tournament(spec, store, concurrency=2))
    assert len(rows) == 4
    assert sorted(launched) == sorted(n for r in rows for n in r.seats)  # one process per seat played, no more


def test_a_stopped_processs_launch_token_is_no_longer_accepted():
    """A launch token identifies one bot process while it runs: once the process is stopped
    (its match over, with ``match`` isolation) a Hello with it is refused, and the hub keeps
    only the tokens of the live processes (an arbiter that runs for weeks starts a process per
    match, and checks every Hello against them)."""
    from cardarena.v1 import arena_pb2 as pb

    async def main():
        server = await start_private_server()
        host = BotHost(server.hub, server.address, {"random": "random"}, isolation="match", copies=1)
        try:
            await host.start()
            lease, _ = await host.lease(["random", "random", "random", "random"])
            tokens = [bp.token for bp in host._leased[lease]]
            live = [server.hub.authenticate(pb.Hello(token=t, bot_name="random"))[1] for t in tokens]
            host.release(lease)
            await asyncio.gather(*host._stopping)
            gone = [server.hub.authenticate(pb.Hello(token=t, bot_name="random")) for t in tokens]
            return live, gone, set(server.hub._launch_tokens) & set(tokens)
        finally:
            await host.stop()
            await server.stop(0.2)

    live, gone, kept = asyncio.run(main())
    assert live == ["this token is already in use by another connection"] * 4  # known while its process plays
    assert gone == [(None, "token not accepted")] * 4 and not kept


def test_bots_join_a_started_host_and_one_that_cannot_start_is_dropped_alone():
    """``BotHost.add`` (a cluster worker's host meets its run's bots match by match): a bot
    that does not start is stopped and forgotten with its error, the bots already there play
    on, and the bot added after plays at once."""
    from arbiter.hosting.botproc import BotStartError

    async def main():
        server = await start_private_server()
        host = BotHost(server.hub, server.address, {"random": "random"}, isolation="match", copies=2)
        try:
            await host.start()
            with pytest.raises(BotStartError, match="no_such_module_xyz"):
                await host.add({"greedy": "greedy", "broken": "no_such_module_xyz:Bot"})
            after_failure = sorted(host.sources), sorted({bp.name for bp in host.pool.procs.values()})
            sessions = await host.add({"greedy": "greedy", "random": "greedy"})  # a bot already here is left as is
            lease, seats = await host.lease(["random", "greedy", "random", "greedy"])
            names = [s.bot_name for s in seats]
            host.release(lease)
            return after_failure, sorted(sessions), host.sources, names, all(not s.closed for s in seats)
        finally:
            await host.stop()
            await server.stop(0.2)

    after_failure, added, sources, names, live = asyncio.run(main())
    assert after_failure == (["random"], ["random"])
    assert added == ["greedy"] and sources == {"random": "random", "greedy": "greedy"}
    assert names == ["random", "greedy", "random", "greedy"] and live
