"""`python -m cardarena_envs.train` and the bot it writes on bad input: the trainer says
what is wrong in one line, before it spends the training, and the bot names the options
its policy does not fit (the learned bot end to end: test_learned_bot.py)."""

from __future__ import annotations

import importlib
import runpy
import sys

import pytest

pytest.importorskip("numpy", reason="the envs extra (pip install -e '.[envs]'); make test installs it")

from cardarena.records import MatchInfo  # noqa: E402
from cardarena_envs.policy_bot import LinearPolicyBot  # noqa: E402
from cardarena_envs.train import check_note, main, train, write_bot  # noqa: E402


def test_a_teacher_that_does_not_play_the_game_is_refused(capsys, tmp_path) -> None:
    """greedy plays Spades only: in Spot it would be asked anyway (its first legal action)
    and imitated, where arbiter play refuses it."""
    code = main(["spot", "--teacher", "greedy", "--episodes", "1", "-o", "players=3", "-o", "hands=1",
                 "--out", str(tmp_path / "bot")])
    assert code == 2
    assert capsys.readouterr().err.strip() == "error: bot 'greedy' does not play spot (it plays spades)"
    assert not (tmp_path / "bot").exists()


def test_an_unusable_out_folder_is_refused_before_the_training(capsys, tmp_path) -> None:
    """A file where the folder goes, a file among its parents, another bot's bot.py: refused
    at once (the training took its time, then a traceback; or replaced the bot's code)."""
    (tmp_path / "afile").write_text("x")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "bot.py").write_text("# my own bot\n")
    for out, said in [(tmp_path / "afile", "is a file, not a folder"),
                      (tmp_path / "afile" / "bot", f"{tmp_path / 'afile'} is a file, not a folder"),
                      (theirs, "holds a bot.py that is not a learned policy's; writing there would replace it")]:
        code = main(["spades", "--teacher", "nosuch-teacher", "--episodes", "1", "--out", str(out)])
        assert code == 2
        assert capsys.readouterr().err.startswith(f"error: --out {out}: {said}")  # not the teacher's error: first
    assert (theirs / "bot.py").read_text() == "# my own bot\n"


def test_a_learned_bots_folder_is_trained_again(capsys, tmp_path) -> None:
    out = write_bot(train("spades", {"deals": 1}, episodes=1, holdout=0)[0], tmp_path / "mybot")
    assert main(["spades", "--episodes", "1", "-o", "deals=1", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["bot.py", "policy.json"]
    assert "learned from 1 match of heuristic;" in capsys.readouterr().out  # not "1 matches"


def test_a_negative_seed_is_named(capsys) -> None:
    with pytest.raises(SystemExit) as ended:  # numpy's "expected non-negative integer" named no flag
        main(["spades", "--seed", "-1", "--episodes", "1"])
    assert ended.value.code == 2 and "--seed must be 0 or more" in capsys.readouterr().err


def test_without_numpy_the_trainer_says_how_to_install_it(monkeypatch, capsys) -> None:
    """Without the envs extra, `python -m cardarena_envs.train` ended in numpy's
    ModuleNotFoundError traceback; the environments already said how to install it."""
    monkeypatch.setitem(sys.modules, "numpy", None)  # what an import of a missing numpy meets
    monkeypatch.delitem(sys.modules, "cardarena_envs.train")
    with pytest.raises(SystemExit) as ended:
        runpy.run_module("cardarena_envs.train", run_name="__main__")
    assert ended.value.code == 2
    assert capsys.readouterr().err == ("error: python -m cardarena_envs.train needs numpy, of the envs extra: "
                                       "pip install 'card-arena-sdk[envs]' (a checkout: pip install -e '.[envs]')\n")
    with pytest.raises(ModuleNotFoundError, match=r"needs numpy, of the envs extra: pip install"):
        importlib.import_module("cardarena_envs.train")  # imported as a library: the same words, raised


def test_a_policy_played_with_other_options_names_them(tmp_path) -> None:
    """A Spot policy of three players at a table of four: the sizes alone (1307 values, this
    match's 1364) did not say that ``players`` was what moved them."""
    policy, _ = train("spot", {"players": 3, "hands": 1}, teacher="random", episodes=1, holdout=0)
    bot = LinearPolicyBot(write_bot(policy, tmp_path / "spotbot") / "policy.json")
    info = MatchInfo(match_id="t", game="spot", options={"players": 4, "hands": 1}, seat=0, num_seats=4,
                     teams=((0,), (1,), (2,), (3,)))
    with pytest.raises(ValueError, match=r"^the policy was trained for spot \(players=3; this match: players=4\) "
                                         r"with an encoding of \d+ values"):
        bot.on_match_start(info)


def test_a_bot_the_self_test_will_refuse_is_said_at_the_training(capsys, tmp_path) -> None:
    """A Spot policy of three players failed `arbiter bots check` (and so its submission),
    which asks Spot with four: the README's "a bot like any other" held for Spades only,
    and nothing said so until the check."""
    assert main(["spot", "--teacher", "heuristic", "--episodes", "1", "-o", "players=3", "-o", "hands=1",
                 "--out", str(tmp_path / "three")]) == 0
    assert capsys.readouterr().err == (
        "note: arbiter bots check (and so a submission) asks spot with players=4, an encoding of another shape than "
        "this bot's (players=3): the bot refuses those matches, so the check fails; train with those options to "
        "submit it\n")
    policy, _ = train("spot", {"hands": 2}, teacher="heuristic", episodes=1, holdout=0)
    assert check_note(policy) is None  # two hands: the same shape as the check's one
