"""Options whose values reach the wire are bounded where the wire still carries them.

A view's scores, targets and points are 32-bit integers in the messages to a bot process.
``-o target=99999999999999999999999`` was taken, and the first message to a bot failed to
encode mid-match: the seat was forfeited as "disconnected", the match stored so. Each such
option now has a maximum that the option parser refuses past, by name, and a match played
at the maxima carries every view over the wire and back (the conformance playout)."""

from __future__ import annotations

import pytest

from cardarena.games import ConfigError, get_game
from cardarena.games.spades.options import MAX_BONUS, MAX_POINTS
from tests.games import conformance as cf


@pytest.mark.parametrize("game, options, named", [
    ("spades", {"target": 10**23}, "option 'target': must be 1..1000000, got 100000000000000000000000"),
    ("spades", {"lose_at": -(10**12)}, "option 'lose_at': must be -1000000..1000000"),
    ("spades", {"nil_value": 2**31}, "option 'nil_value': must be 0..10000"),
    ("spades", {"bag_penalty_points": 10**6}, "option 'bag_penalty_points'"),
    ("spite-and-malice", {"match_target": 2**40}, "option 'match_target': must be 1..100000"),
    ("spot", {"ante": 10**20}, "option 'ante': must be 0..1000000"),
])
def test_a_value_past_what_the_wire_carries_is_refused_by_name(game, options, named):
    with pytest.raises(ConfigError) as e:
        get_game(game, options)
    assert named in str(e.value)


@pytest.mark.parametrize("game, options, reached", [
    # every bonus and penalty at its most, a bag penalty at every bag, the targets out of reach:
    # the scores swing by up to ~150,000 a deal for the 40 deals of the guard
    ("spades", {"target": MAX_POINTS, "lose_at": -MAX_POINTS, "nil_value": MAX_BONUS, "blind_nil_value": MAX_BONUS,
                "bag_limit": 1, "bag_penalty_points": MAX_BONUS, "blind_nil_min_deficit": 0, "max_deals": 40}, 2**16),
    ("spite-and-malice", {"match_target": 100_000, "payoff_size": 3, "max_turns": 120}, 0),  # (its views carry the target)
    ("spot", {"ante": 1_000_000, "unit_per_spot": 1_000_000.0, "players": 2, "hands": 2}, 2**16),
])
def test_a_match_at_the_maxima_crosses_the_wire_whole(game, options, reached):
    g = get_game(game, options)
    outcome, _ = cf.check_playout(g, 3)  # every viewer's view to its message and back, every third step and the end
    assert outcome.reason.finishes_the_game and max(abs(x) for x in outcome.scores) >= reached, outcome
