"""examples/budget-100ms: the bots at fixed budgets of about 100 ms of CPU a decision, and
the script that measures a bot's CPU per decision (docs/strength.md, "At 100 ms a
decision"). The budgets themselves are measurements, in the doc."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from sdk.bot import MatchInfo
from sdk.forward import get_game
from sdk.harness import play_match
from sdk.loading import load_bot

FOLDER = Path(__file__).resolve().parents[2] / "examples" / "budget-100ms"


def _info(game: str, options: dict) -> MatchInfo:
    g = get_game(game, options)
    return MatchInfo(match_id="m", game=game, options=options, seat=0, num_seats=g.num_seats, teams=g.teams,
                     seat_names=tuple(f"s{i}" for i in range(g.num_seats)), decision_ms=0, bank_ms=0, seed=1)


def test_the_cpu_script_times_each_choice_of_a_real_match() -> None:
    spec = importlib.util.spec_from_file_location("cpu_per_decision", FOLDER / "cpu_per_decision.py")
    cpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cpu)
    a, b = [0, 0.0, 0.0], [0, 0.0, 0.0]
    heuristic, rnd = cpu.timed("heuristic", a), cpu.timed("random", b)
    record = play_match("spades", [heuristic(), rnd(), heuristic(), rnd()], seed=3, options=cpu.OPTIONS["spades"])
    moves = {s: sum(1 for x in record.actions if x.seat % 2 == s) for s in (0, 1)}
    # every seat's decisions with a choice, no more than it made; CPU time summed, the longest within it
    assert 0 < a[0] <= moves[0] and 0 < b[0] <= moves[1]
    assert 0.0 <= a[2] <= a[1] and 0.0 <= b[2] <= b[1]


@pytest.mark.skipif(importlib.util.find_spec("endplay") is None, reason="needs endplay")
def test_dds_at_100ms_samples_4_deals_a_decision_and_plays_legally() -> None:
    bot = load_bot(str(FOLDER / "dds.py"))
    bot.on_match_start(_info("spades", {"deals": 1}))
    assert (bot.n_worlds, bot.limit_ms) == (4, 0)  # no clock: the budget is the sampled deals
    game = get_game("spades", {"deals": 1})
    state = game.new_initial_state(5)
    seat = state.current_seat
    bot.rng = random.Random(1)
    legal = state.legal_actions()
    assert bot.choose(state.view(seat), legal) in legal


def test_spot_search_at_100ms_keeps_the_late_hand_schedule_at_a_smaller_budget() -> None:
    bot = load_bot(str(FOLDER / "spot_search.py"))
    bot.on_match_start(_info("spot", {"hands": 1}))
    assert (bot.sims, bot.n_worlds) == (180, 45)
    state = get_game("spot", {"hands": 1}).new_initial_state(5)
    view = state.view(state.current_seat)
    assert view.stock_count > 10 and bot._budget(view) == (0, 1)  # early in the hand: the heuristic's play
