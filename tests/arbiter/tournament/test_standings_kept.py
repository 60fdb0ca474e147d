"""``arbiter.tournament.run.standings`` keeps its last tables for the next reader (a page, each
bot's page, a running tournament's updates): the same matches give the same table without
computing it again, and any difference in what the table is made of gives a fresh one."""

from __future__ import annotations

import dataclasses
import random

from arbiter.tools.calibration import simulated_rows
from arbiter.tournament import run
from arbiter.tournament.spec import TournamentSpec
from cardarena.games import EndReason, Outcome, get_game

BOTS = ("a", "b", "c")
STRENGTH = {"a": 0.5, "b": 0.0, "c": -0.5}


def rows_of(seed: int, deals: int = 8):
    spec = TournamentSpec(game="spades", bots=BOTS, options={"deals": 1}, deals=deals, seed=1)
    game = get_game("spades", {"deals": 1})
    return game, simulated_rows(run.schedule(game, spec), game.teams, STRENGTH, random.Random(seed), 0.7)


def test_the_same_matches_give_the_kept_table_and_other_results_a_fresh_one():
    run.forget_standings()
    game, rows = rows_of(1)
    first = run.standings(rows, game, True, BOTS)
    again = run.standings([dataclasses.replace(r) for r in rows], game, True, BOTS)  # read again: equal, not the same objects
    assert again is first
    # the same places and ids, one outcome turned round: a store made again at the same path
    flipped = list(rows)
    o = flipped[0].outcome
    flipped[0] = dataclasses.replace(flipped[0], outcome=Outcome(o.scores[::-1], o.ranks[::-1], o.reason))
    other = run.standings(flipped, game, True, BOTS)
    assert other is not first
    assert other.crosstable != first.crosstable or [r.rating.value for r in other.rows] != [r.rating.value for r in first.rows]
    # a forfeit where there was none, the same result otherwise: the forfeits column differs
    forfeited = list(rows)
    forfeited[0] = dataclasses.replace(rows[0], outcome=Outcome(o.scores, o.ranks, EndReason.FORFEIT_TIMEOUT))
    assert run.standings(forfeited, game, True, BOTS) is not first
    # the table asked with other entrants, or without duplicate deals, is another table
    assert run.standings(rows, game, True, BOTS + ("d",)) is not first
    assert run.standings(rows, game, False, BOTS) is not first
    assert run.standings(rows, game, True, BOTS) is first


def test_only_the_last_tables_are_kept():
    run.forget_standings()
    game, rows = rows_of(1)
    first = run.standings(rows, game, True, BOTS)
    for seed in range(2, 2 + run.STANDINGS_KEPT):
        run.standings(rows_of(seed)[1], game, True, BOTS)
    assert len(run._STANDINGS) == run.STANDINGS_KEPT
    again = run.standings(rows, game, True, BOTS)  # dropped, the oldest: computed again, equal
    assert again is not first
    assert [(r.name, r.rating.value, r.rating.low, r.rating.high) for r in again.rows] == [
        (r.name, r.rating.value, r.rating.low, r.rating.high) for r in first.rows]
