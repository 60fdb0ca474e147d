"""The AEC environment over the rules engines (see the package docstring)."""

from __future__ import annotations

import random
from typing import Any, Mapping

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cardarena.games import get_game
from sdk.encoding import encoder_for_game


class CardArenaEnv(AECEnv):
    """One game with one option set as a PettingZoo AEC environment.

    ``game``: ``spades``, ``spite-and-malice`` or ``spot``; ``options``/``preset`` as in
    ``arbiter rules GAME`` (a bad one is the engine's ConfigError, naming it); ``seed``:
    as if the first ``reset()`` were ``reset(seed=seed)`` (its deal, and the later ones
    drawn from it), unless that reset names a seed of its own.
    """

    metadata = {"name": "cardarena_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game: str = "spades", options: Mapping[str, Any] | None = None, preset: str | None = None,
                 seed: int | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi' (or None)")
        self.game = get_game(game, dict(options or {}), preset)
        self.encoder = encoder_for_game(self.game)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"cardarena_{self.game.name.replace('-', '_')}_v0"}
        self.possible_agents = [f"seat_{s}" for s in range(self.game.num_seats)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        obs = spaces.Box(low=-np.inf, high=np.inf, shape=self.encoder.shape, dtype=np.float32)
        mask = spaces.Box(low=0, high=1, shape=(self.encoder.num_actions,), dtype=np.int8)
        self._obs_spaces = {a: spaces.Dict({"observation": obs, "action_mask": mask}) for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(self.encoder.num_actions) for a in self.possible_agents}
        # action -> index, read once: the environment looks every legal action up each step
        # (the encoder's action_index adds a call and a try per action; same numbers)
        self._size, self._num_actions = self.encoder.size, self.encoder.num_actions
        self._index_of = {self.encoder.action_of(i): i for i in range(self.encoder.num_actions)}
        self._seeds = random.Random(seed)
        self._first_seed = seed
        self.state = None
        self._legal_now: dict[int, Any] | None = None
        self.deal_seed: int | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new episode: deal ``seed``, which also seeds the deals of the resets after it
        without one (Gymnasium's rule: ``reset(seed=S)`` once, then ``reset()`` per episode,
        is one reproducible sequence of deals); without a seed, the constructor's for the
        first reset, then the next deal drawn."""
        if seed is not None:
            self._seeds = random.Random(seed)
            self._first_seed = None  # a seed given now comes before the constructor's
        elif self._first_seed is not None:
            seed, self._first_seed = self._first_seed, None
        else:
            seed = self._seeds.randrange(2**63)
        self.deal_seed = seed
        self.state = self.game.new_initial_state(seed)
        self._legal_now = None
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.last_action = None
        self.agent_selection = self.possible_agents[self.state.current_seat]

    def _legal(self) -> dict[int, Any]:
        """The legal actions now by index, computed once per state (observe and step share it)."""
        if self._legal_now is None:
            index = self._index_of
            self._legal_now = {index[a]: a for a in self.state.legal_actions()}
        return self._legal_now

    def observe(self, agent: str) -> dict:
        seat = self._seat[agent]
        # The encoding written straight into the array: converting a list of ``size``
        # Python floats cost more than the encoding itself (docs/performance.md).
        x = np.zeros(self._size, dtype=np.float32)
        self.encoder.encode_into(self.state.view(seat), memoryview(x))
        # the mask set byte by byte in a bytearray, then viewed as int8 (a fresh, writable
        # array each time): cheaper than numpy's fancy indexing for a dozen legal actions
        mask = bytearray(self._num_actions)
        if not self.state.is_terminal and self.state.current_seat == seat:
            for i in self._legal():
                mask[i] = 1
        return {"observation": x, "action_mask": np.frombuffer(mask, dtype=np.int8)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: an action index, not None")
        index = int(action)
        if not 0 <= index < self.encoder.num_actions:
            raise ValueError(f"action {action!r} is out of range 0..{self.encoder.num_actions - 1}")
        act = self._legal().get(index)
        if act is None:
            raise ValueError(f"action {index} ({self.encoder.action_of(index)}) is not legal for {agent} now "
                             "(see observation['action_mask'])")
        self._cumulative_rewards[agent] = 0.0
        self.state.apply(act)
        self._legal_now = None
        self.last_action = (agent, act)
        if self.state.is_terminal:
            scores = self.state.outcome().scores
            for a in self.agents:
                self.rewards[a] = float(scores[self._seat[a]])
                self.terminations[a] = True
            self._accumulate_rewards()
        else:
            # no reward before the end: every reward is still the 0 of reset, so neither
            # zeroing nor accumulating them changes anything
            self.agent_selection = self.possible_agents[self.state.current_seat]
        if self.render_mode == "ansi":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        if self.state is None:
            return "not started"
        if self.state.is_terminal:
            return f"{self.game.name}: over, {self.state.outcome().scores}"
        last = f"{self.last_action[0]} {self.last_action[1]}; " if self.last_action else ""
        return f"{self.game.name}: {last}{self.agent_selection} to act"

    def close(self) -> None:
        pass


def raw_env(game: str = "spades", **kwargs: Any) -> CardArenaEnv:
    """The environment without PettingZoo's checking wrappers."""
    return CardArenaEnv(game, **kwargs)


def env(game: str = "spades", **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's order-enforcing wrapper (what api_test expects)."""
    return wrappers.OrderEnforcingWrapper(CardArenaEnv(game, **kwargs))
