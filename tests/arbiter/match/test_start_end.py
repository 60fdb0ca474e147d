"""A match's own start and end (issue 42, docs/performance.md attempts 79-82): the seats are
told the match starts in the order of play from the seat that acts first (its bot sets up
while the others are told, and is ready for the first Turn), each seat is told the match
ended from the match's own task (no task per seat), and no spectator view is made for a
match nobody watches. The same records as before: only the order in which seats are told
and who tells them moved."""

from __future__ import annotations

import asyncio

from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import run_match
from bots.random_bot import RandomBot
from cardarena.records import MatchConfig


class _Told(InProcessSeat):
    """An in-process bot that notes, in a list its match shares, when it was started and
    finished, and from which task."""

    def __init__(self, bot, name, told: list):
        super().__init__(bot, name)
        self.told = told

    async def start(self, info):
        self.told.append(("start", info.seat, asyncio.current_task()))
        await super().start(info)

    async def finish(self, match_id, seat, outcome, final_view):
        self.told.append(("finish", seat, asyncio.current_task()))
        await super().finish(match_id, seat, outcome, final_view)


def _played(game: str, seats: int, seed: int, options: dict) -> tuple[list, object, asyncio.Task]:
    told: list = []

    async def play():
        config = MatchConfig(game=game, seed=seed, options=options)
        record = await run_match(config, [_Told(RandomBot(), f"r{i}", told) for i in range(seats)])
        return record, asyncio.current_task()

    record, task = asyncio.run(play())
    return told, record, task


def test_seats_are_started_in_the_order_of_play_from_the_first_to_act():
    firsts = set()
    for game, seats, options in [("spades", 4, {"deals": 1}), ("spot", 4, {}), ("spite-and-malice", 2, {})]:
        for seed in range(6):
            told, record, _ = _played(game, seats, seed, options)
            first = record.actions[0].seat
            firsts.add((game, first))
            started = [seat for what, seat, _ in told if what == "start"]
            assert started == [(first + k) % seats for k in range(seats)]
    assert len({f for g, f in firsts if g == "spades"}) > 1  # the seeds put different seats first


def test_every_seat_is_told_the_end_from_the_matchs_own_task():
    told, record, task = _played("spades", 4, 3, {"deals": 1})
    finished = [(seat, t) for what, seat, t in told if what == "finish"]
    assert [seat for seat, _ in finished] == [0, 1, 2, 3]
    assert all(t is task for _, t in finished)  # no task per seat (asyncio.gather made four)


def test_no_spectator_view_is_made_for_a_match_nobody_watches(monkeypatch):
    from cardarena.games.spades.state import SpadesState

    made = []
    real = SpadesState.spectator_view
    monkeypatch.setattr(SpadesState, "spectator_view", lambda self: made.append(1) or real(self))
    _played("spades", 4, 3, {"deals": 1})
    assert made == []
