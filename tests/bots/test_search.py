"""The search bot: legal, budgeted, reproducible, and (seeded, small) stronger than its base."""

from __future__ import annotations

import random

import pytest

from cardarena.games import get_game
from bots.search import SearchBot
from cardarena.records import MatchInfo
from arbiter.tournament.evaluate import evaluate

CASES = [("spades", {"deals": 1}), ("spot", {"hands": 1}), ("spite-and-malice", {"stalemate_rule": "fewer_payoff_wins"})]


def _info(game: str, options: dict, seat: int, decision_ms: int = 0) -> MatchInfo:
    g = get_game(game, options)
    return MatchInfo("m", game, dict(options), seat, g.num_seats, g.teams, decision_ms=decision_ms, seed=seat)


def _decision_points(game: str, options: dict, count: int):
    """States where the search bot has a real choice (seeded random play)."""
    g = get_game(game, options)
    rng = random.Random(1)
    out = []
    seed = 0
    while len(out) < count:
        state = g.new_initial_state(seed)
        seed += 1
        for _ in range(rng.randrange(80)):
            if state.is_terminal:
                break
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal:
            continue
        bot = SearchBot(simulations=24, worlds=4)
        bot._start(_info(game, options, state.current_seat))
        view, legal = state.view(state.current_seat), state.legal_actions()
        if game == "spades":
            real = len(bot.candidates(view, legal, bot.policy(view, legal, bot.rng))) > 1
        else:
            real = len(legal) > 1 and len(bot.plans(view, legal)) > 1
        if real:
            out.append(state)
    return out


@pytest.mark.parametrize("game,options", CASES)
def test_chooses_a_legal_action_within_its_simulation_budget(game, options) -> None:
    for state in _decision_points(game, options, 3):
        seat = state.current_seat
        bot = SearchBot(simulations=24, worlds=4)
        bot._start(_info(game, options, seat))
        action = bot.choose(state.view(seat), state.legal_actions())
        assert action in state.legal_actions()
        assert bot.last.candidates > 1
        assert 0 < bot.last.rollouts <= max(24, bot.last.candidates)
        # Same seed, same view: the same choice (no hidden state, no clock).
        again = SearchBot(simulations=24, worlds=4)
        again._start(_info(game, options, seat))
        assert again.choose(state.view(seat), state.legal_actions()) == action


@pytest.mark.parametrize("game,options", CASES[1:])
def test_plans_are_legal_turns_and_are_followed_without_searching_again(game, options) -> None:
    """Spot and Spite and Malice plans: legal on the true state, each one a whole stretch
    of the turn (it ends with the discard, or where new cards are revealed); the chosen one
    is then played out decision by decision without a new search."""
    from cardarena.games.spite_malice import End, SourceKind, TargetKind
    from cardarena.games.spot import Discard, Draw

    for state in _decision_points(game, options, 3):
        seat = state.current_seat
        bot = SearchBot(simulations=24, worlds=4)
        bot._start(_info(game, options, seat))
        view, legal = state.view(seat), state.legal_actions()
        plans = bot.plans(view, legal)
        assert len(plans) > 1 and len(set(plans)) == len(plans)
        for plan in plans:
            st = state.clone()
            for i, a in enumerate(plan):
                assert a in st.legal_actions(), (plan, a)
                st.apply(a)
                if i < len(plan) - 1:
                    assert st.current_seat == seat
            if not plan:
                continue  # Spite and Malice: "as the heuristic would"
            last = plan[-1]
            if game == "spot":
                assert isinstance(last, (Discard, Draw))
                if isinstance(last, Draw):
                    assert len(plan) == 1
            else:
                assert (isinstance(last, End) or last.target is TargetKind.SIDE or st.is_terminal
                        or last.source.kind is SourceKind.PAYOFF or len(st.view(seat).hand) >= 5
                        or st.current_seat != seat), plan
        # The chosen plan is followed: the next decisions of the turn are not searched.
        action = bot.choose(view, legal)
        chosen = bot.last
        assert chosen.rollouts > 0 and chosen.values is not None
        rest = list(bot._plan)
        state.apply(action)
        while rest and state.current_seat == seat:
            nxt = bot.choose(state.view(seat), state.legal_actions())
            assert nxt == rest.pop(0) and bot.last.rollouts == 0
            state.apply(nxt)


def test_the_clock_caps_the_search() -> None:
    bot = SearchBot(max_ms=5000)
    bot._start(_info("spades", {"deals": 1}, 0, decision_ms=400))
    assert bot.limit_ms == 200  # half the per-decision limit, never the bank
    unclocked = SearchBot()
    unclocked._start(_info("spades", {"deals": 1}, 0))
    assert unclocked.limit_ms == 0  # no clock: the simulation budget alone, so runs replay exactly
    # An (almost) exhausted time budget stops after the first world however many rollouts are allowed.
    state = _decision_points("spades", {"deals": 1}, 1)[0]
    seat = state.current_seat
    bot = SearchBot(simulations=10**6, worlds=8, max_ms=1)
    bot._start(_info("spades", {"deals": 1}, seat))
    action = bot.choose(state.view(seat), state.legal_actions())
    assert action in state.legal_actions()
    assert bot.last.rollouts < 10**6


@pytest.mark.slow
def test_heuristic_beats_random_in_every_game() -> None:
    """Seeded, small: the baseline ladder's bottom rung (margins in each game's units)."""
    for game, options in CASES:
        result = evaluate(game, "heuristic", "random", deals=2, seed=3, options=options)
        assert result.mean_margin > 0, result.summary()


@pytest.mark.slow
def test_search_is_not_clearly_worse_than_its_rollout_policy_at_spades() -> None:
    """Seeded and small (2 deals x 2 seatings, 16 rollouts in 4 worlds a decision): a guard
    against a broken search, not a strength claim: 4 matches cannot show one. A search that
    plays its WORST candidate (``max`` -> ``min`` of the means) loses by -207 ± 47.5 here
    and fails the guard (at the old 60 rollouts in 8 worlds: -256.5 ± 2.0, 3.7x the CPU);
    the working search scores +34.75 ± 9.75. The strength report with enough deals to mean
    something is docs/strength.md (search +18.8 ± 8.3 over 16 deals x 2)."""
    import bots.search as search

    saved = dict(search.DEFAULT_BUDGET)
    search.DEFAULT_BUDGET["spades"] = (16, 4)
    try:
        result = evaluate("spades", "search", "heuristic", deals=2, seed=1, options={"deals": 1})
    finally:
        search.DEFAULT_BUDGET.clear()
        search.DEFAULT_BUDGET.update(saved)
    assert result.mean_margin > -3 * result.stderr - 1, result.summary()
