"""A match played only while the game is in one phase (``MatchConfig.stop_after``): what a
bidding-only probe of ``arbiter evaluate --luck-adjusted`` is (arbiter/tournament/probes.py).

The runner stops it before the first decision of another phase, through the task's loop and
through the seats' answer callbacks alike: the record holds the decisions up to there and no
result, the seats and observers are told it stopped (never a result or an ``ended``), and a
phase the game does not have is an error naming the phases it has."""

from __future__ import annotations

import asyncio

import pytest

from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import MatchObserver, run_match
from bots.random_bot import RandomBot
from cardarena.games import get_game
from cardarena.records import MatchConfig
from tests.arbiter.match.test_relay import CallbackSeat


class Watcher(MatchObserver):
    def __init__(self):
        self.seen: list[str] = []

    async def started(self, match_id, game, seat_names, spectator_view):
        self.seen.append("started")

    async def ended(self, record, final_view):
        self.seen.append("ended")

    def stopped(self, match_id):
        self.seen.append("stopped")


class Told(InProcessSeat):
    """An in-process seat that notes whether it was told the match ended or stopped."""

    def __init__(self, bot, name=None):
        super().__init__(bot, name)
        self.told: list[str] = []

    def stopped(self, match_id, seat):
        super().stopped(match_id, seat)
        self.told.append("stopped")

    async def finish(self, match_id, seat, outcome, final_view):
        self.told.append("finish")
        await super().finish(match_id, seat, outcome, final_view)


def _run(seats, stop_after="", observers=(), seed=3):
    config = MatchConfig(game="spades", seed=seed, options={"deals": 1}, stop_after=stop_after)
    return asyncio.run(run_match(config, seats, observers=observers))


@pytest.mark.parametrize("seed", [1, 3])
def test_a_spades_match_stopped_after_the_bidding(seed):
    full = _run([InProcessSeat(RandomBot(), f"r{i}") for i in range(4)], seed=seed)
    seats, watcher = [Told(RandomBot(), f"r{i}") for i in range(4)], Watcher()
    probe = _run(seats, "BIDDING", [watcher], seed=seed)
    n = len(probe.actions)
    assert probe.outcome is None and not probe.incidents
    # the full match's decisions up to the end of its bidding, and not one more
    assert [a.action for a in probe.actions] == [a.action for a in full.actions[:n]]
    assert all(a.action.split()[0] in ("look", "bid") for a in probe.actions)
    assert full.actions[n].action.split()[0] not in ("look", "bid")
    game = get_game("spades", {"deals": 1})
    state = game.new_initial_state(seed)
    for a in probe.actions:
        state.apply(game.parse_action(a.action))
    assert state.spectator_view().phase.name != "BIDDING" and not state.is_terminal
    assert watcher.seen == ["started", "stopped"]
    assert all(s.told == ["stopped"] and not s._drivers for s in seats)


def test_the_callback_path_stops_at_the_same_place():
    through_task = _run([InProcessSeat(RandomBot(), f"r{i}") for i in range(4)], "BIDDING")
    seats = [CallbackSeat(RandomBot(), f"r{i}") for i in range(4)]
    relayed = _run(seats, "BIDDING")
    assert [a.action for a in relayed.actions] == [a.action for a in through_task.actions]
    assert relayed.outcome is None
    assert sum(len(s.asked_in_task) for s in seats) == len(relayed.actions)  # nothing asked past the stop
    assert [s.stops for s in seats] == [[(relayed.match_id, i)] for i in range(4)]


def test_a_phase_the_game_does_not_have_is_named():
    with pytest.raises(ValueError, match=r"stop_after: spades has no phase 'BIDS' \(its phases: BIDDING, EXCHANGE"):
        _run([InProcessSeat(RandomBot()) for _ in range(4)], "BIDS")


def test_a_stopped_match_is_no_longer_live_in_the_metrics():
    from arbiter import metrics

    registry = metrics.enable(metrics.Metrics(process=False))
    try:
        _run([InProcessSeat(RandomBot(), f"r{i}") for i in range(4)], "BIDDING")
        get = registry.registry.get_sample_value
        assert get("arbiter_matches_started_total", {"game": "spades"}) == 1
        assert get("arbiter_live_matches", {"game": "spades"}) == 0
    finally:
        metrics.disable()
