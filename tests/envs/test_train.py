"""`python -m cardarena_envs.train` on bad input: the trainer says what is wrong in one
line, before it spends the training (the learned bot end to end: test_learned_bot.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the envs extra (pip install -e '.[envs]'); make test installs it")

from cardarena_envs.train import main  # noqa: E402


def test_a_teacher_that_does_not_play_the_game_is_refused(capsys, tmp_path) -> None:
    """greedy plays Spades only: in Spot it would be asked anyway (its first legal action)
    and imitated, where arbiter play refuses it."""
    code = main(["spot", "--teacher", "greedy", "--episodes", "1", "-o", "players=3", "-o", "hands=1",
                 "--out", str(tmp_path / "bot")])
    assert code == 2
    assert capsys.readouterr().err.strip() == "error: bot 'greedy' does not play spot (it plays spades)"
    assert not (tmp_path / "bot").exists()
