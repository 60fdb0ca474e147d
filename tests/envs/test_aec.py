"""The PettingZoo AEC environments (cardarena_envs): PettingZoo's own API and seed tests
on the three games and several option sets, and what the environment promises beyond
them: the observation is the SDK encoding of the seat's view, rewards are the engine's
outcome in the game's units, a seed is the engine's deal seed."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the envs extra (pip install -e '.[envs]'); make test installs it")

from cardarena.games import get_game  # noqa: E402
from cardarena_envs import env, raw_env  # noqa: E402
from sdk.encoding import encoder  # noqa: E402

CASES = [
    ("spades", {"deals": 1}),
    ("spades", {"nil": False, "blind_nil": False, "deals": 1}),
    ("spite-and-malice", {"payoff_size": 5}),
    ("spite-and-malice", {"players": 4, "partnerships": True, "payoff_size": 4, "loading": True}),
    ("spot", {"players": 2, "hands": 1}),
    ("spot", {"players": 5, "hands": 1}),
]
IDS = [f"{g}-{i}" for i, (g, _) in enumerate(CASES)]


# PettingZoo's advice: a Box observation; an observation dict with "action_mask" is its own
# convention for masked actions (its classic games do the same).
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_pettingzoo_api_and_seed_tests_pass(name, options) -> None:
    from pettingzoo.test import api_test, seed_test  # here: its test suite is ~0.2 CPU-s of every worker's collection

    api_test(env(name, options=options, seed=5), num_cycles=200, verbose_progress=False)
    seed_test(lambda: env(name, options=options), num_cycles=200)


def _episode(e, seed: int, choose):
    """Play one episode; returns (actions in engine notation, summed rewards per agent)."""
    e.reset(seed=seed)
    actions, totals = [], {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        index = choose(obs["action_mask"])
        actions.append(str(e.unwrapped.encoder.action_of(index)))
        e.step(index)
    return actions, totals


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_an_episode_is_the_engines_match_with_its_outcome_as_rewards(name, options) -> None:
    rng = random.Random(3)
    e = env(name, options=options)
    actions, totals = _episode(e, 42, lambda mask: int(rng.choice(np.flatnonzero(mask))))
    game = get_game(name, options)
    state = game.new_initial_state(42)  # the same deal seed: the same match
    for text in actions:
        state.apply(game.parse_action(text))
    assert state.is_terminal
    scores = state.outcome().scores
    assert [totals[f"seat_{s}"] for s in range(game.num_seats)] == [float(x) for x in scores]
    assert any(scores)  # a real outcome, not the zero rewards of a running game


def test_the_observation_is_the_sdk_encoding_of_the_seats_view() -> None:
    e = raw_env("spot", options={"players": 3, "hands": 1})
    e.reset(seed=9)
    enc = encoder("spot", {"players": 3, "hands": 1})
    rng = random.Random(1)
    for _ in range(25):
        for agent in e.possible_agents:
            seat = int(agent.split("_")[1])
            obs = e.observe(agent)
            assert obs["observation"].tolist() == pytest.approx(enc.encode(e.state.view(seat)))
            legal = e.state.legal_actions() if e.state.current_seat == seat else []
            assert obs["action_mask"].tolist() == (enc.mask(legal) if legal else [0] * enc.num_actions)
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))


def test_seeds_reproduce_and_differ() -> None:
    first = _episode(env("spades", options={"deals": 1}), 7, lambda m: int(np.flatnonzero(m)[0]))
    again = _episode(env("spades", options={"deals": 1}), 7, lambda m: int(np.flatnonzero(m)[0]))
    other = _episode(env("spades", options={"deals": 1}), 8, lambda m: int(np.flatnonzero(m)[0]))
    assert first == again and first[0] != other[0]
    unseeded = raw_env("spades", options={"deals": 1}, seed=7)
    unseeded.reset()
    assert unseeded.deal_seed == 7


def test_bad_input_is_a_clear_error() -> None:
    e = raw_env("spades", options={"deals": 1})
    e.reset(seed=1)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        e.step(illegal)
    with pytest.raises(ValueError, match="out of range"):
        e.step(10**6)
    with pytest.raises(ValueError, match="not None"):
        e.step(None)
    with pytest.raises(Exception, match="deals"):
        raw_env("spades", options={"deals": 0})
    with pytest.raises(ValueError, match="render_mode"):
        raw_env("spot", render_mode="human")


def test_a_seeded_reset_seeds_the_resets_after_it() -> None:
    """Gymnasium's rule, the usual training loop: ``reset(seed=S)`` once, then ``reset()``
    each episode. The resets after a seeded one drew from the unseeded constructor's
    generator (a new sequence each run), or went back to the constructor's seed."""
    def deals(e, first: int) -> list:
        e.reset(seed=first)
        out = [e.deal_seed]
        for _ in range(3):
            e.reset()
            out.append(e.deal_seed)
        return out

    a = deals(raw_env("spades", options={"deals": 1}), 42)
    assert a == deals(raw_env("spades", options={"deals": 1}), 42) and a[0] == 42 and len(set(a)) == 4
    assert a[1:] != deals(raw_env("spades", options={"deals": 1}), 43)[1:]
    assert deals(raw_env("spades", options={"deals": 1}, seed=7), 42) == a  # the seed named at the reset wins
    constructed = raw_env("spades", options={"deals": 1}, seed=42)
    constructed.reset()
    assert [constructed.deal_seed] + [constructed.reset() or constructed.deal_seed for _ in range(3)] == a
