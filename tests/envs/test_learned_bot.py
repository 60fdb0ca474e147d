"""A learned bot end to end: train by imitation (the real CLI), save, play the saved
policy as an SDK bot over the same encoding, in the harness and over real gRPC."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy", reason="the envs extra (pip install -e '.[envs]'); make test installs it")

from arbiter.tournament.play import play_local  # noqa: E402
from cardarena.records import MatchInfo  # noqa: E402
from cardarena_envs import raw_env  # noqa: E402
from cardarena_envs.policy_bot import LinearPolicyBot, load_policy  # noqa: E402
from cardarena_envs.train import train  # noqa: E402
from sdk.harness import play_match  # noqa: E402
from sdk.loading import load_bot  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

pytestmark = pytest.mark.e2e  # trains and plays through real processes (the CLI, bots over gRPC)

OPTIONS = {"deals": 1}
INFO = MatchInfo(match_id="t", game="spades", options=OPTIONS, seat=0, num_seats=4, teams=((0, 2), (1, 3)))


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    """The bot folder the README's training command writes (60 matches: a few seconds)."""
    out = tmp_path_factory.mktemp("learned") / "mybot"
    done = subprocess.run(
        [sys.executable, "-m", "cardarena_envs.train", "spades", "--teacher", "heuristic", "--episodes", "60",
         "--seed", "1", "--option", "deals=1", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "agrees with it on" in done.stdout
    agreement = int(done.stdout.split("agrees with it on ")[1].split("%")[0])
    assert agreement >= 50, done.stdout  # far above a random legal choice's share
    return out


def test_the_folder_is_a_bot_and_its_policy_a_checked_file(learned) -> None:
    assert sorted(p.name for p in learned.iterdir()) == ["bot.py", "policy.json"]
    policy = load_policy(learned / "policy.json")
    assert policy["game"] == "spades" and policy["teacher"] == "heuristic"
    assert all(len(row) == policy["size"] for row in policy["rows"].values())
    assert "import numpy" not in (learned / "bot.py").read_text()  # the submitted bot needs the SDK only
    assert type(load_bot(str(learned))).__name__ == "LinearPolicyBot"  # loaded from the folder's own copy


def test_the_bot_plays_the_trained_weights_over_the_training_encoding(learned) -> None:
    """At every decision of an environment episode the bot's choice is the argmax, over
    the environment's action mask, of the saved weights times the environment's
    observation: training and play see the same tensor."""
    policy = load_policy(learned / "policy.json")
    rows = {int(i): np.asarray(r) for i, r in policy["rows"].items()}
    bias = {int(i): b for i, b in policy["bias"].items()}
    bot = load_bot(str(learned))
    env = raw_env("spades", options=OPTIONS)
    env.reset(seed=5)
    bot._start(INFO)
    checked = 0
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        scores = [bias[i] + float(rows[i] @ obs["observation"]) if i in rows else -1e9 for i in legal]
        expected = int(legal[int(np.argmax(scores))])
        seat = int(agent.split("_")[1])
        state = env.unwrapped.state
        chosen = bot.choose(state.view(seat), state.legal_actions())
        assert env.unwrapped.encoder.action_index(chosen) == expected
        env.step(expected)
        checked += 1
    assert checked > 40


def test_the_learned_bot_beats_random_in_the_harness_and_plays_the_same_over_grpc(learned) -> None:
    bot, rnd = load_bot(str(learned)), load_bot("random")
    margin = 0.0
    for seed in range(6):
        record = play_match("spades", [bot, rnd, bot, rnd], seed=seed, options=OPTIONS)
        margin += record.outcome.scores[0] - record.outcome.scores[1]
    assert margin > 0, margin
    local = play_match("spades", [bot, rnd, bot, rnd], seed=11, options=OPTIONS)
    remote = play_local("spades", [str(learned), "random", str(learned), "random"], seed=11, options=OPTIONS)
    assert [a.action for a in remote.actions] == [a.action for a in local.actions]
    assert remote.outcome == local.outcome


@pytest.mark.e2e
def test_arbiter_play_takes_the_folder(learned, tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arbiter", "play", "spades", str(learned), "random", str(learned), "random",
         "--seed", "3", "-o", "deals=1", "--db", str(tmp_path / "arena.sqlite")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "spades (seed 3): completed" in done.stdout and "mybot" in done.stdout  # a folder bot is named by its folder


def test_a_policy_for_another_encoding_is_refused(learned, tmp_path) -> None:
    policy = json.loads((learned / "policy.json").read_text())
    policy["size"] += 1
    policy["rows"] = {i: r + [0.0] for i, r in policy["rows"].items()}
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    bot = LinearPolicyBot(tmp_path / "policy.json")
    with pytest.raises(ValueError, match="trained for spades with an encoding of"):
        bot.on_match_start(INFO)
    (tmp_path / "junk.json").write_text("{}")
    with pytest.raises(ValueError, match="is not a cardarena-linear-policy"):
        LinearPolicyBot(tmp_path / "junk.json")


def test_training_is_seeded() -> None:
    first, _ = train("spades", OPTIONS, episodes=6, seed=3, holdout=0)
    again, _ = train("spades", OPTIONS, episodes=6, seed=3, holdout=0)
    other, _ = train("spades", OPTIONS, episodes=6, seed=4, holdout=0)
    assert first == again and first["rows"] != other["rows"]


def test_the_same_policy_plays_the_same_in_the_environment_and_in_a_hosted_match(learned) -> None:
    """The trained policy at every seat of seed 21's deal: its actions in the PettingZoo
    environment (chosen from the environment's observation and mask by the saved weights,
    as a trainer evaluates it) are the actions its bot folder plays as four sandboxed
    processes over gRPC in an arbiter match of the same seed."""
    policy = load_policy(learned / "policy.json")
    rows = {int(i): np.asarray(r, dtype=np.float32) for i, r in policy["rows"].items()}
    bias = {int(i): b for i, b in policy["bias"].items()}
    env = raw_env("spades", options=OPTIONS)
    env.reset(seed=21)
    in_env, final = [], {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        scores = [bias[i] + float(rows[i] @ obs["observation"]) if i in rows else -1e9 for i in legal]
        index = int(legal[int(np.argmax(scores))])
        in_env.append((agent, str(env.unwrapped.encoder.action_of(index))))
        env.step(index)
    hosted = play_local("spades", [str(learned)] * 4, seed=21, options=OPTIONS, decision_ms=0, bank_ms=0)
    assert [(f"seat_{a.seat}", a.action) for a in hosted.actions] == in_env
    assert not any(a.forced for a in hosted.actions) and len(in_env) > 50
    assert [float(s) for s in hosted.outcome.scores] == [final[f"seat_{s}"] for s in range(4)]
