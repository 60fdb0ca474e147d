"""Decisions played from the seats' answer callbacks (runner ``_relayed``, issue 42).

A seat whose answers arrive in the event loop's callbacks (``answers_in_callback``: a bot
over a stream, whose Act is read in ``data_received``) has its decisions played from those
callbacks: the answer is judged and applied, the next Turn asked, then the answer recorded
and the other seats and observers told, with no task step in between. These tests hold that path to the coroutine's: the same records as
the same bots asked through ``decide``, the same failure handling, and a stop mid-decision
that the seat is told of.
"""

from __future__ import annotations

import asyncio

import pytest

from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import SeatError, run_match
from bots.random_bot import RandomBot
from cardarena.games import EndReason
from cardarena.records import Clock, FailurePolicy, MatchConfig
from tests.arbiter.match.test_match import Cheater, Crasher


def _now(coro):
    """Run a coroutine that never waits (InProcessSeat's) to its end, here."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("the coroutine waited")


class CallbackSeat(InProcessSeat):
    """An in-process bot whose answers arrive as a transport's do: ``ask`` returns at once,
    and the answer (or the error ``decide`` raises, or TimeoutError at the deadline) comes
    in a later callback of the event loop."""

    answers_in_callback = True

    def __init__(self, bot, name=None, silent=False):
        super().__init__(bot, name)
        self.silent = silent  # never answers
        self.asked_in_task: list[bool] = []  # per ask: was it made from a task (else from a callback)
        self.cancelled: list[int] = []
        self.stops: list[tuple[str, int]] = []
        self._timers: dict[int, asyncio.TimerHandle] = {}

    def ask(self, turn, seconds, answered):
        loop = asyncio.get_running_loop()
        self.asked_in_task.append(asyncio.current_task() is not None)
        rid = turn.request_id

        def deliver(answer):
            timer = self._timers.pop(rid, None)
            if timer is not None:
                timer.cancel()
                answered(answer)

        self._timers[rid] = loop.call_at(loop.time() + seconds, deliver, TimeoutError()) if seconds else \
            loop.call_at(loop.time() + 3600, lambda: None)
        if self.silent:
            return
        try:
            answer = _now(self.decide(turn))
        except SeatError as exc:
            answer = exc
        loop.call_soon(deliver, answer)

    def hold(self, match_id, seat, events):
        _now(self.notify(match_id, seat, events))

    def cancel(self, match_id, request_id):
        self.cancelled.append(request_id)
        timer = self._timers.pop(request_id, None)
        if timer is not None:
            timer.cancel()

    def stopped(self, match_id, seat):
        self.stops.append((match_id, seat))


def _record(seats, game="spades", seed=3, options=None, **kw):
    config = MatchConfig(game=game, seed=seed, options={"deals": 1} if options is None and game == "spades" else options or {},
                         **kw)
    return asyncio.run(run_match(config, seats))


@pytest.mark.parametrize("game,seats", [("spades", 4), ("spot", 4), ("spite-and-malice", 2)])
def test_the_same_record_as_through_decide(game, seats):
    for seed in (1, 2):
        through_decide = _record([InProcessSeat(RandomBot(), f"r{i}") for i in range(seats)], game, seed)
        callback_seats = [CallbackSeat(RandomBot(), f"r{i}") for i in range(seats)]
        relayed = _record(callback_seats, game, seed)
        assert [a.action for a in relayed.actions] == [a.action for a in through_decide.actions]
        assert relayed.outcome == through_decide.outcome and not relayed.incidents
        asks = [in_task for s in callback_seats for in_task in s.asked_in_task]
        assert len(asks) == len(relayed.actions)
        # only the first decision is asked from the match's task; every other one from the
        # callback that read the answer before it
        assert sum(asks) == 1


def test_failures_are_handled_by_the_task_and_the_callbacks_play_on():
    policy = FailurePolicy.uniform("default", max_strikes=100)
    plain = [Cheater(), RandomBot(), Crasher(), RandomBot()]
    through_decide = _record([InProcessSeat(b) for b in plain], policy=policy)
    seats = [CallbackSeat(b) for b in [Cheater(), RandomBot(), Crasher(), RandomBot()]]
    relayed = _record(seats, policy=policy)
    assert [a.action for a in relayed.actions] == [a.action for a in through_decide.actions]
    assert [a.forced for a in relayed.actions] == [a.forced for a in through_decide.actions]
    assert [(i.seat, i.kind) for i in relayed.incidents] == [(i.seat, i.kind) for i in through_decide.incidents]
    assert {i.kind for i in relayed.incidents} == {"illegal", "crash"}
    # after each failure (handled in the task) the next decision is asked from the task,
    # and the ones after it from callbacks again
    followed = sum(1 for a in relayed.actions[:-1] if a.forced)  # failures with a decision after them
    assert followed and sum(in_task for s in seats for in_task in s.asked_in_task) == 1 + followed


def test_a_timeout_from_the_seats_timer_forfeits():
    seats = [CallbackSeat(RandomBot(), "r0"), CallbackSeat(RandomBot(), "r1", silent=True),
             CallbackSeat(RandomBot(), "r2"), CallbackSeat(RandomBot(), "r3")]
    # 20 ms let an answering seat time out too at a load of 17 on 2 cores (the process starved
    # between a question and its answer); the silent seat waits the clock out once either way
    config = dict(clock=Clock(decision_ms=300, bank_ms=0), policy=FailurePolicy.uniform("forfeit"))
    record = _record(seats, **config)
    assert record.outcome.reason is EndReason.FORFEIT_TIMEOUT
    assert [(i.seat, i.kind) for i in record.incidents] == [(1, "timeout")]
    assert seats[1].cancelled == [len(record.actions) + 1]  # the request that timed out (its action is not recorded)


def test_a_match_stopped_mid_decision_tells_the_seat_to_forget_it():
    seats = [CallbackSeat(RandomBot(), "r0"), CallbackSeat(RandomBot(), "r1", silent=True),
             CallbackSeat(RandomBot(), "r2"), CallbackSeat(RandomBot(), "r3")]

    async def main():
        config = MatchConfig(game="spades", seed=3, options={"deals": 1})
        match = asyncio.ensure_future(run_match(config, seats))
        while not seats[1].asked_in_task:  # seat 1 is asked, and never answers
            await asyncio.sleep(0)
        match.cancel()
        with pytest.raises(asyncio.CancelledError):
            await match

    asyncio.run(main())
    assert seats[1].cancelled == [sum(len(s.asked_in_task) for s in seats)]  # its request: the last one asked
    assert [[seat for _, seat in s.stops] for s in seats] == [[0], [1], [2], [3]]


@pytest.mark.parametrize("delay", [None, 30.0])
def test_a_spectator_hub_sees_the_same_frames_from_the_callbacks(delay):
    """A match with a spectator hub's feed (an observer with ``step``) is played from the
    callbacks too, and the hub's frames are those of the same match played through
    ``decide``: every step, in order, with the same views (and hands, for a delayed hub)."""
    import dataclasses

    from arbiter.spectating.hub import SpectatorHub
    from cardarena.disclosure import OPEN

    def frames(seats):
        hub = SpectatorHub(delay=delay)
        config = MatchConfig(game="spades", seed=5, options={"deals": 1}, match_id="m", disclosure=OPEN)
        record = asyncio.run(run_match(config, seats, observers=hub.observers(config)))
        # the frames without their times (when the match started, seconds into it)
        untimed = [dataclasses.replace(f, **{k: 0.0 for k in ("at", "started") if hasattr(f, k)})
                   for _, f in hub.matches["m"].frames]
        return record, untimed

    through_decide, want = frames([InProcessSeat(RandomBot(), f"r{i}") for i in range(4)])
    seats = [CallbackSeat(RandomBot(), f"r{i}") for i in range(4)]
    relayed, got = frames(seats)
    assert [a.action for a in relayed.actions] == [a.action for a in through_decide.actions]
    assert got == want and len(got) == len(relayed.actions) + 2  # the header, every step, the end
    assert (got[1].hands is not None) == (delay is not None)
    assert sum(in_task for s in seats for in_task in s.asked_in_task) == 1  # the rest from callbacks


class _Told:
    """A seat that keeps every event it is told (``hold`` tells through ``notify``)."""

    told: list

    async def notify(self, match_id, seat, events):
        self.told = [*getattr(self, "told", []), *events]
        await super().notify(match_id, seat, events)


class _ToldCallback(_Told, CallbackSeat):
    pass


class _ToldInProcess(_Told, InProcessSeat):
    pass


def test_the_next_turn_is_asked_before_the_answer_before_it_is_recorded():
    """From an answer's callback the next seat's Turn goes first (with that seat's events);
    the answer is recorded, the other seats told its events and the observers told after it,
    while that seat decides (docs/performance.md, attempt 72). Every seat is still told
    every event it may see, in order, as through ``decide``; the record is the same."""
    from arbiter.match import MatchObserver

    seats = [_ToldCallback(RandomBot(), f"r{i}") for i in range(4)]
    asked_when_decided = []

    class Asks(MatchObserver):
        def decided(self, match_id, seat, recorded):
            asked_when_decided.append(sum(len(s.asked_in_task) for s in seats))

    config = MatchConfig(game="spades", seed=7, options={"deals": 1})
    relayed = asyncio.run(run_match(config, seats, observers=[Asks()]))
    plain = [_ToldInProcess(RandomBot(), f"r{i}") for i in range(4)]
    through_decide = asyncio.run(run_match(config, plain))
    n = len(relayed.actions)
    assert [a.action for a in relayed.actions] == [a.action for a in through_decide.actions] and n > 50
    # decision k (asked k + 1st) is recorded once decision k + 1 is asked; the last, at the end
    assert asked_when_decided == [k + 2 for k in range(n - 1)] + [n]
    assert [s.told for s in seats] == [s.told for s in plain] and all(s.told for s in seats)
