"""Duplicate evaluation: seating, margins, standard error, the CLI command."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from cardarena.games import ConfigError
from arbiter.tournament.evaluate import EvalResult, MatchMargin, _seating, evaluate


def test_seatings_swap_sides() -> None:
    assert _seating(4, ((0, 2), (1, 3)), 0) == [0, 1, 0, 1]
    assert _seating(4, ((0, 2), (1, 3)), 1) == [1, 0, 1, 0]
    assert _seating(2, ((0,), (1,)), 1) == [1, 0]


def test_margin_and_standard_error_over_deals() -> None:
    r = EvalResult("spades", "a", "b", 3, 0, {})
    for d, (x, y) in enumerate([(10, 30), (-20, 0), (40, 20)]):
        r.matches += [MatchMargin(d, 0, 0, x, "completed"), MatchMargin(d, 1, 0, y, "completed")]
    assert r.deal_margins() == [20, -10, 30]
    assert r.mean_margin == pytest.approx(40 / 3)
    # sample s.d. of (20, -10, 30) is 20.8167; / sqrt(3)
    assert r.stderr == pytest.approx(12.0185, rel=1e-4)
    assert (r.wins, r.draws, r.losses) == (4, 1, 1)
    assert r.win_rate == pytest.approx(4.5 / 6)


def test_same_seed_same_result_and_a_bot_against_itself_is_even() -> None:
    a = evaluate("spades", "heuristic", "random", deals=1, seed=4, options={"deals": 1})
    b = evaluate("spades", "heuristic", "random", deals=1, seed=4, options={"deals": 1})
    assert a.matches == b.matches and len(a.matches) == 2
    same = evaluate("spades", "heuristic", "heuristic", deals=2, seed=4, options={"deals": 1})
    assert same.mean_margin == 0  # duplicate deals: identical bots cancel exactly


def test_bad_input_is_named() -> None:
    with pytest.raises(ConfigError, match="deals"):
        evaluate("spades", "heuristic", "random", deals=0)
    with pytest.raises(ConfigError, match="greedy.*spot"):
        evaluate("spot", "greedy", "random", deals=1)


def test_cli_prints_margin_and_standard_error() -> None:
    result = CliRunner().invoke(app, ["evaluate", "spot", "heuristic", "random", "--deals", "2", "--seed", "1", "-o", "hands=1"])
    assert result.exit_code == 0, result.output
    assert "heuristic vs random" in result.output and "s.e." in result.output and "win rate" in result.output
    bad = CliRunner().invoke(app, ["evaluate", "spades", "heuristic", "nobot"])
    assert bad.exit_code == 2 and "nobot" in bad.output
