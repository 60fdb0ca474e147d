"""The Spite and Malice heuristic: rule-of-thumb scenarios and a duplicate match
against uniformly random choice.

Stated margin (duplicate match, standard options except ``stalemate_rule =
fewer_payoff_wins`` so every game is decisive unless the pay-off counts tie): over 12
deals, each played twice with the seats swapped (24 games), the heuristic wins at least
75% of the games, loses at most 1, and its mean score minus the random bot's is > 0.6
(scores 1 / 0.5 / 0). Measured when written: 24 wins, 0 losses over the 24 games (mean difference 1.0).
"""

from __future__ import annotations

import random

import pytest

from cardarena.games.spite_malice import SpiteAndMalice
from bots.spite_malice_heuristic import SpiteAndMaliceHeuristicBot, choose
from cardarena.records import MatchInfo
from tests.games.test_spite_malice import do, layout, pile

DEALS = 12


def pick(st) -> str:
    return str(choose(st.view(st.current_seat), st.legal_actions(), random.Random(0)))


def test_plays_payoff_card_first():
    st = layout(payoffs=["4D 4D 5C", "4D 4D 10C"], hands=["AS 2S 3S 9H 9C", "9S 9S 9H 9H 9C"], center=[pile(4)])
    assert pick(st) == "play payoff -> center:0"


def test_chains_through_hand_and_side_to_reach_payoff():
    st = layout(payoffs=["4D 4D 7C", "4D 4D 10C"], hands=["5H QS QS QH QC", "9S 9S 9H 9H 9C"],
                center=[pile(4)], side=[[["6D"], [], [], []], [[], [], [], []]])
    assert pick(st) == "play hand:5H -> center:0"
    do(st, "play hand:5H -> center:0")
    assert pick(st) == "play side:0 -> center:0"
    do(st, "play side:0 -> center:0")
    assert pick(st) == "play payoff -> center:0"


def test_uses_a_wild_to_reach_payoff():
    st = layout(payoffs=["4D 4D 6C", "4D 4D 10C"], hands=["KH QS QS QH QC", "9S 9S 9H 9H 9C"], center=[pile(4)])
    assert pick(st) == "play hand:KH -> center:0"


def test_avoids_setting_up_opponent_payoff():
    # Opponent's pay-off top is 9: playing 8 on the pile of value 7 would hand it over.
    st = layout(payoffs=["4D 4D QC", "4D 4D 9C"], hands=["8H 2S QS QH JC", "9S 9S 9H 9H 9C"], center=[pile(7), pile(1)])
    assert pick(st) != "play hand:8H -> center:0"
    assert pick(st) == "play hand:2S -> center:1"


def test_moves_a_pile_off_the_danger_value():
    st = layout(payoffs=["4D 4D QC", "4D 4D 9C"], hands=["9H 2S QS QH JC", "9S 9S 9H 9H 9C"], center=[pile(8), pile(4)])
    assert pick(st) == "play hand:9H -> center:0"


def test_discard_builds_descending_and_keeps_wilds():
    st = layout(payoffs=["4D 4D QC", "4D 4D 10C"], hands=["KH 8S 4C 4C QD", "9S 9S 9H 9H 9C"],
                center=[pile(5)], side=[[["9D"], ["2C"], [], []], [[], [], [], []]])
    choice = pick(st)
    assert choice == "play hand:8S -> side:0"
    assert "KH" not in choice


def _duel(game: SpiteAndMalice, seed: int, heuristic_seat: int) -> tuple[float, float]:
    bot = SpiteAndMaliceHeuristicBot()
    bot._start(MatchInfo("m", game.name, game.describe_options(), heuristic_seat, 2, game.teams, seed=seed))
    rng = random.Random(seed * 2 + heuristic_seat)
    st = game.new_initial_state(seed)
    while not st.is_terminal:
        seat = st.current_seat
        legal = st.legal_actions()
        st.apply(bot.choose(st.view(seat), legal) if seat == heuristic_seat else rng.choice(legal))
    s = st.outcome().scores
    return s[heuristic_seat], s[1 - heuristic_seat]


@pytest.mark.slow
def test_duplicate_match_beats_random():
    game = SpiteAndMalice({"stalemate_rule": "fewer_payoff_wins"})
    wins = losses = 0
    diff = 0.0
    for seed in range(DEALS):
        for seat in (0, 1):  # the same deal with the seats swapped
            h, r = _duel(game, seed, seat)
            diff += h - r
            wins += h > r
            losses += h < r
    games = 2 * DEALS
    assert wins >= 0.75 * games, (wins, losses)
    assert losses <= 1
    assert diff / games > 0.6
