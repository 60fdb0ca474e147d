"""A forfeit with three sides or more ranks the sides that did not fail by where they stood
when it ended (``State.standing``: public facts). Every other side first let one side's
failure make the sides it was losing to equal to the leader: the leader's share of first
halved, a side far behind raised to it (kingmaking; a bot could hand a result to its
author's other bot by crashing). Records of format 1 keep their rule."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest

from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import run_match
from arbiter.rating.ratings import compute_standings, counted_result
from arbiter.store.db import MatchRow
from bots.random_bot import RandomBot
from cardarena.games import EndReason, get_game
from cardarena.records import MatchConfig, MatchRecord, forfeit_outcome
from cardarena.replay import ReplayError, verify_record
from sdk import Bot


class CrashInHand(Bot):
    """Plays at random until the Spot hand ``hand``, then crashes."""

    name = "crash"

    def __init__(self, hand: int = 2) -> None:
        super().__init__()
        self.hand = hand
        self.inner = RandomBot()

    def choose(self, view, legal_actions):
        if view.hand_number >= self.hand:
            raise RuntimeError("boom")
        return self.inner.choose(view, legal_actions)


def _spot_forfeit(seed: int) -> MatchRecord:
    config = MatchConfig(game="spot", seed=seed, options={"players": 4, "hands": 3})
    seats = [InProcessSeat(RandomBot(), "a"), InProcessSeat(RandomBot(), "b"), InProcessSeat(CrashInHand(), "crash"),
             InProcessSeat(RandomBot(), "c")]
    return asyncio.run(run_match(config, seats))


def _unequal_spot_forfeit() -> MatchRecord:
    """A forfeit in Spot's second hand after a first hand that left the others' balances apart."""
    for seed in range(20):
        record = _spot_forfeit(seed)
        assert record.outcome.reason is EndReason.FORFEIT_CRASH, record.outcome
        if sorted(r for s, r in enumerate(record.outcome.ranks) if s != 2)[:2] == [1, 2]:  # one leader
            return record
    raise AssertionError("no seed of 20 left one of the others ahead after a hand")


def test_a_spot_forfeit_ranks_the_others_by_their_money_when_it_ended_and_the_record_verifies():
    record = _unequal_spot_forfeit()
    state = get_game("spot", record.options).new_initial_state(record.seed)
    for a in record.actions:
        state.apply(get_game("spot", record.options).parse_action(a.action))
    money = [b for b in state.spectator_view().balances]
    ranks = record.outcome.ranks
    assert ranks[2] == 4  # the failing seat last
    others = [0, 1, 3]
    assert [ranks[s] for s in others] == [1 + sum(money[t] > money[s] for t in others) for s in others], (ranks, money)
    assert record.format == 2 and verify_record(MatchRecord.from_json(record.to_json())) == record.outcome

    # the old rule's result (every other side first) on a record of format 2 is an altered one...
    old = dataclasses.replace(record.outcome, ranks=tuple(4 if s == 2 else 1 for s in range(4)))
    with pytest.raises(ReplayError, match=r"the others by where they stood.*the result was altered"):
        verify_record(dataclasses.replace(record, outcome=old))
    # ...and the rule of a record of format 1 (stored before): it verifies as it was written
    data = json.loads(record.to_json())
    data["outcome"]["ranks"] = list(old.ranks)
    del data["format"]
    assert verify_record(MatchRecord.from_json(json.dumps(data))).ranks == old.ranks


def test_the_standings_give_first_to_the_leader_alone_and_copies_of_the_failing_bot_stay_last():
    record = _unequal_spot_forfeit()
    teams = get_game("spot", record.options).teams
    seats = ("a", "b", "crash", "c")
    scores, ranks = counted_result(record.outcome, seats, teams, stake=10.0)
    assert ranks == record.outcome.ranks and scores[2] == 0.0 and {scores[s] for s in (0, 1, 3)} == {10.0}
    # a copy of the failing bot on another side ranks last with it; the rest are ranked among themselves
    copies = ("a", "crash", "crash", "c")
    _, by_copies = counted_result(record.outcome, copies, teams, stake=10.0)
    assert by_copies[1] == by_copies[2] == 4
    kept = [0, 3]
    assert [by_copies[s] for s in kept] == [1 + sum(record.outcome.ranks[t] < record.outcome.ranks[s] for t in kept)
                                            for s in kept]
    leader = next(s for s in (0, 1, 3) if record.outcome.ranks[s] == 1)
    row = MatchRow(1, 0, "m0", 0, 0, 0, seats, record.outcome, "{}", 0, 0, (), tuple(record.incidents))
    table = {r.name: r for r in compute_standings([row], teams, stake=10.0).rows}
    assert (table[seats[leader]].wins, table[seats[leader]].points) == (1, 1.0) and table["crash"].losses == 1
    others = [s for s in (0, 1, 3) if s != leader]
    assert all(table[seats[s]].wins == 0 and table[seats[s]].points < 1.0 for s in others)  # not first beside it


def test_spite_and_malice_ranks_the_others_by_the_pay_off_cards_they_have_left():
    game = get_game("spite-and-malice", {"players": 3, "payoff_size": 5})
    state = game.new_initial_state(3)
    state.payoff[0] = state.payoff[0][:2]  # seat 0 nearer going out than seat 2
    assert state.standing() == ((-2.0,), (-5.0,), (-5.0,))
    out = forfeit_outcome(game, 1, EndReason.FORFEIT_CRASH, "boom", state.standing())
    assert out.ranks == (1, 3, 2)
    series = get_game("spite-and-malice", {"players": 3, "payoff_size": 5, "series_scoring": True})
    s = series.new_initial_state(3)
    s.points[2] = 3  # series points first, then the cards left
    assert forfeit_outcome(series, 1, EndReason.FORFEIT_CRASH, "boom", s.standing()).ranks == (2, 3, 1)
    # two sides (Spades, or any game of two): the other side first, as before
    spades = get_game("spades", {"deals": 1})
    assert spades.new_initial_state(1).standing() is None
    assert forfeit_outcome(spades, 0, EndReason.FORFEIT_CRASH, "boom").ranks == (2, 1, 2, 1)
