"""The local channel's arbiter does not sleep between a Turn and its Act while its process
plays one match alone and the machine has a CPU for the bot (``localchannel.SPIN_S``,
docs/performance.md attempts 69-70); side by side, or on one CPU, it never watches."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from arbiter.batch.engine import play_batch
from arbiter.match import matches_in_flight
from arbiter.server import localchannel
from arbiter.tools import bench


@pytest.mark.e2e  # four bot processes and their arbiter
def test_a_match_alone_is_watched_at_every_turn_and_matches_side_by_side_never(monkeypatch):
    watched: list[int] = []  # matches in flight at each Turn watched
    watch = localchannel._Awaited.watch

    def counted(self, conn):
        watched.append(matches_in_flight())
        watch(self, conn)

    monkeypatch.setattr(localchannel._Awaited, "watch", counted)
    # whatever else runs on the machine (its load is the arbiter's to judge, not this test's)
    monkeypatch.setattr(localchannel, "_cpu_for_the_bot", lambda: True)

    async def run():
        async with bench._BenchArbiter(transport="local") as arena:
            alone = await arena.match(7, {"deals": 1})
            n_alone = len(watched)
            assert matches_in_flight() == 0  # it has ended
            monkeypatch.setattr(localchannel, "SPIN_S", 0.0)
            unwatched = await arena.match(7, {"deals": 1})
            n_off = len(watched) - n_alone
            monkeypatch.setattr(localchannel, "SPIN_S", 100e-6)
            del watched[:]
            plan = bench._bench_plan(arena.names, 2, 20, {"deals": 1})
            both = [p.record async for p in play_batch(plan, arena, concurrency=2)]
            assert matches_in_flight() == 0
            return alone, n_alone, unwatched, n_off, both

    alone, n_alone, unwatched, n_off, both = asyncio.run(run())
    assert not alone.incidents and len(alone.actions) >= 56  # 52 cards and 4 bids, at least
    assert n_alone == len(alone.actions)  # every Turn of a match alone (the first's too)
    assert n_off == 0  # SPIN_S 0: never
    played = [[(a.seat, a.action, a.forced) for a in r.actions] for r in (alone, unwatched)]
    assert played[0] == played[1] and alone.outcome == unwatched.outcome  # the same match
    # side by side: no Turn watched while the other match was in flight (only the one that
    # ends last, alone, is watched from then on)
    assert all(n == 1 for n in watched), watched
    assert len(watched) < sum(len(r.actions) for r in both)
    assert not any(r.incidents for r in both)


def test_on_one_cpu_the_arbiter_never_watches_for_the_bot(monkeypatch):
    """A bot woken beside an arbiter that spins on the only CPU it may use would wait for the
    spin to end: the arbiter does not watch (the bench's one-CPU row), however idle the
    machine (here: this process and the bot alone runnable)."""
    monkeypatch.setattr(localchannel, "_runnable", lambda: 2)
    cpus = os.sched_getaffinity(0)
    assert localchannel._cpu_for_the_bot() is (len(cpus) > 1)
    os.sched_setaffinity(0, {max(cpus)})
    try:
        assert localchannel._cpu_for_the_bot() is False
    finally:
        os.sched_setaffinity(0, cpus)


@pytest.mark.e2e  # busy processes
def test_on_a_loaded_machine_the_arbiter_never_watches_for_the_bot():
    """More tasks runnable than CPUs (here one busy process more than this one may use): the
    woken bot would wait for a CPU the arbiter's watching holds."""
    cpus = len(os.sched_getaffinity(0))
    spin = "import sys; sys.stdout.write('spinning'); sys.stdout.flush()\nwhile True: pass"
    busy = [subprocess.Popen([sys.executable, "-c", spin], stdout=subprocess.PIPE) for _ in range(cpus + 1)]
    try:
        for p in busy:  # each says so once it is in its loop, runnable from then on
            assert p.stdout.read(8) == b"spinning"
        assert localchannel._cpu_for_the_bot() is False
    finally:
        for p in busy:
            p.kill()
            p.wait()
            p.stdout.close()


def test_a_busy_look_alone_does_not_stop_the_watching_a_few_in_a_row_do(monkeypatch):
    """A look that finds no CPU free is most often a task about to sleep (the previous bot's
    last steps): the arbiter stops watching after BUSY_LOOKS such looks in a row, then looks
    again only after BUSY_SKIP Turns (a look costs ~2 µs; a busy machine stays busy a while)."""
    busy, skip = localchannel.BUSY_LOOKS, localchannel.BUSY_SKIP
    looks = iter([True] + [False] * (busy - 1) + [True] + [False] * busy + [True])
    looked = []
    monkeypatch.setattr(localchannel, "_cpu_for_the_bot", lambda: looked.append(1) or next(looks))
    awaited, watched = localchannel._Awaited(), []
    for _ in range(2 * busy + 1 + skip + 1):
        awaited.conn = None
        awaited.watch(object())  # type: ignore[arg-type]
        watched.append(awaited.conn is not None)
    assert watched == [True] * busy + [True] * busy + [False] + [False] * skip + [True]
    assert len(looked) == 2 * busy + 2  # none while it skips


@pytest.mark.e2e  # four bot processes and their arbiter
def test_the_watching_reads_the_acts_itself_at_most_chain_minus_one_in_a_row(monkeypatch):
    """While it watches, the arbiter reads the Act it sees arrive itself (the transport's own
    read, attempt 78), at most ``CHAIN`` - 1 in a row before the event loop runs again (its
    timers, other connections); the match is the one the loop reading every Act plays."""
    monkeypatch.setattr(localchannel, "_cpu_for_the_bot", lambda: True)
    monkeypatch.setattr(localchannel, "SPIN_S", 0.01)  # every Act arrives while watched, even under load
    chain = localchannel.CHAIN
    reads: list[bool] = []  # per data_received: read inside the watching (else by the loop)
    received = localchannel._Connection.data_received

    def counted(self, data):
        reads.append(self.awaited.chaining)
        received(self, data)

    monkeypatch.setattr(localchannel._Connection, "data_received", counted)

    async def run():
        async with bench._BenchArbiter(transport="local") as arena:
            del reads[:]
            chained = await arena.match(11, {"deals": 1})
            inside = list(reads)
            monkeypatch.setattr(localchannel, "CHAIN", 1)
            del reads[:]
            looped = await arena.match(11, {"deals": 1})
            return chained, inside, looped, list(reads)

    chained, inside, looped, by_loop = asyncio.run(run())
    assert not chained.incidents and len(chained.actions) >= 56
    assert [(a.seat, a.action) for a in chained.actions] == [(a.seat, a.action) for a in looped.actions]
    assert chained.outcome == looped.outcome
    assert not any(by_loop)  # CHAIN 1: the loop reads every Act
    assert sum(inside) > len(chained.actions) // 2  # most Acts read inside the watching
    runs = "".join("x" if r else "." for r in inside).split(".")
    assert max(len(r) for r in runs) <= chain - 1  # then the loop runs again
