"""The Spot search bot's budget schedule: searched late in the hand, legal, budgeted, reproducible."""

from __future__ import annotations

import random

from cardarena.games import get_game
from cardarena.games.spot import SpotState
from bots import spot_heuristic as H
from bots import spot_search
from bots.search import DEFAULT_BUDGET, SearchBot
from cardarena.records import MatchInfo

OPTIONS = {"hands": 1}


def _info(seat: int, decision_ms: int = 0) -> MatchInfo:
    g = get_game("spot", OPTIONS)
    return MatchInfo("m", "spot", dict(OPTIONS), seat, g.num_seats, g.teams, decision_ms=decision_ms, seed=seat)


def _points(late: bool, count: int) -> list[SpotState]:
    """Turn starts with a real choice (several plans) from seeded heuristic play, early or late."""
    g = get_game("spot", OPTIONS)
    out: list[SpotState] = []
    rng = random.Random(0)
    seed = 0
    while len(out) < count:
        state = g.new_initial_state(seed)
        seed += 1
        while not state.is_terminal:
            seat = state.current_seat
            view, legal = state.view(seat), state.legal_actions()
            is_late = view.stock_count <= spot_search.LATE_STOCK
            if len(legal) > 1 and view.dropped == 0 and is_late == late and rng.random() < 0.3:
                probe = SearchBot(simulations=8, worlds=2)
                probe._start(_info(seat))
                if len(probe.plans(view, legal)) > 1:
                    out.append(state.clone())
                    break
            state.apply(H.choose(view, legal, rng))
    return out


def test_early_decisions_are_the_heuristics_without_rollouts() -> None:
    for state in _points(late=False, count=4):
        seat = state.current_seat
        view, legal = state.view(seat), state.legal_actions()
        bot = SearchBot()  # the default budget, hence the schedule
        bot._start(_info(seat))
        assert bot.choose(view, legal) == H.choose(view, legal, random.Random(0))
        assert bot.last.rollouts == 0


def test_late_decisions_are_searched_legally_within_budget_and_reproducibly() -> None:
    sims, worlds = DEFAULT_BUDGET["spot"]
    for state in _points(late=True, count=2):
        seat = state.current_seat
        view, legal = state.view(seat), state.legal_actions()
        bot = SearchBot()
        bot._start(_info(seat))
        action = bot.choose(view, legal)
        assert action in legal
        assert bot.last.candidates > 1
        assert 0 < bot.last.rollouts <= sims and bot.last.worlds <= worlds
        again = SearchBot()
        again._start(_info(seat))
        assert again.choose(view, legal) == action and again.last.values == bot.last.values


def test_an_explicit_budget_applies_at_every_decision() -> None:
    state = _points(late=False, count=1)[0]
    seat = state.current_seat
    bot = SearchBot(simulations=12, worlds=3)
    bot._start(_info(seat))
    assert bot.choose(state.view(seat), state.legal_actions()) in state.legal_actions()
    assert 0 < bot.last.rollouts <= 12


def test_the_clock_caps_a_late_search() -> None:
    state = _points(late=True, count=1)[0]
    seat = state.current_seat
    bot = SearchBot()
    bot._start(_info(seat, decision_ms=2))  # 1 ms for the search: one world, then stop
    assert bot.limit_ms == 1
    assert bot.choose(state.view(seat), state.legal_actions()) in state.legal_actions()
    assert 0 < bot.last.rollouts < DEFAULT_BUDGET["spot"][0]
