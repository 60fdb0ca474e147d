"""The three games as OpenSpiel Python games (optional: needs ``open-spiel``, which is not a
dependency of any extra; ``make bench`` installs it in ``.venv-bench``).

    import cardarena_envs.openspiel                # registers the games (in .venv-bench)
    import pyspiel
    game = pyspiel.load_game("python_cardarena_spades", {"options": '{"deals": 1}'})

Names: ``python_cardarena_spades``, ``python_cardarena_spite_and_malice``,
``python_cardarena_spot``; the parameter ``options`` is the game's option set as JSON (as
in ``arbiter rules GAME``). The first node is a chance node over ``DEALS`` deal seeds
(every later card the engine deals or shuffles follows from that seed); then the engine's
own decisions, numbered by ``sdk.encoding`` (``num_distinct_actions`` = the encoder's
``num_actions``). Information-state and observation tensors are the encoder's tensor of
the player's view; the information-state string is the view's ``repr`` (what the seat
sees, nothing more). Returns are the engine's ``Outcome.scores`` at the end.

``resample(state, player)`` is the forward model (``sdk.forward.sample_states``): a state
consistent with the player's information, meant for OpenSpiel's IS-MCTS
(``ISMCTSBot.set_resampler``); ``state_from_view`` gives a bot an OpenSpiel state to
search from at play time.

``ismcts_bot(game)`` is OpenSpiel's Python ``ISMCTSBot`` wired to that resampler, and
``ISMCTSReferenceBot`` the same search as an ``sdk.Bot`` (it needs pyspiel, so it plays in
the bench environment: ``sdk.harness.play_match`` there; tests/envs/test_openspiel.py).
Hosted, it is the folder bot ``examples/openspiel-ismcts``, whose ``bot.toml`` declares
open-spiel: the arbiter runs it in a cached environment of its own
(``arbiter.hosting.botenv``), and ``python -m arbiter.tools.strength --bot
examples/openspiel-ismcts`` measures it (docs/strength.md).

OpenSpiel clones a Python state by ``copy.deepcopy`` of each attribute; an engine state
is held so that its copy is ``State.clone()``, the engines' own copy. (With the generic
deep copy, IS-MCTS searches left the root state's views inconsistent, so that the forward
model refused them; the engine-level cause was not isolated.)
"""

from __future__ import annotations

import json
import random

from cardarena_envs import missing_extra

try:
    import numpy as np
    import pyspiel
except ModuleNotFoundError as _exc:  # said with how to install it, not a bare "No module named 'pyspiel'"
    if _exc.name == "pyspiel":
        raise ModuleNotFoundError(
            "cardarena_envs.openspiel needs open-spiel, which no extra installs: pip install open-spiel (in this "
            "checkout, make bench-env makes .venv-bench with it)", name="pyspiel") from None
    if (_said := missing_extra("cardarena_envs.openspiel", _exc)) is not None:
        raise _said from None
    raise

from cardarena.games import GAMES as REGISTERED
from cardarena.games import facts, get_game
from sdk import Bot
from sdk.encoding import encoder_for_game
from sdk.forward import sample_states

#: The chance node's outcomes: one of this many deal seeds, uniformly.
DEALS = 1 << 16
#: Every registered game under its OpenSpiel name (``spite-and-malice``: ``python_cardarena_spite_and_malice``).
GAMES = {name: "python_cardarena_" + name.replace("-", "_") for name in REGISTERED}


def _game_type(name: str) -> pyspiel.GameType:
    lo, hi = facts("seats")[name]
    return pyspiel.GameType(
        short_name=GAMES[name], long_name=f"Card Arena {name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=hi, min_num_players=lo,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"options": "{}"})


_PARTS: dict[tuple[str, str], tuple] = {}


def _parts(engine_name: str, options_json: str) -> tuple:
    """The engine Game and its encoder for an option set (cached: OpenSpiel rebuilds game
    objects from their parameters when it clones a state, without ``__init__``)."""
    key = (engine_name, options_json)
    if key not in _PARTS:
        engine = get_game(engine_name, json.loads(options_json or "{}"))
        _PARTS[key] = (engine, encoder_for_game(engine))
    return _PARTS[key]


class CardArenaGame(pyspiel.Game):
    """One Card Arena game with one option set, as an OpenSpiel game."""

    engine_name = ""

    @property
    def engine(self):
        return _parts(self.engine_name, self.get_parameters()["options"])[0]

    @property
    def encoder(self):
        return _parts(self.engine_name, self.get_parameters()["options"])[1]

    def __init__(self, params=None):
        params = dict(params or {})
        options = json.dumps(json.loads(params.get("options", "{}") or "{}"), sort_keys=True)
        engine, encoder = _parts(self.engine_name, options)
        info = pyspiel.GameInfo(
            num_distinct_actions=encoder.num_actions, max_chance_outcomes=DEALS,
            num_players=engine.num_seats, min_utility=-1e6, max_utility=1e6, utility_sum=None,
            max_game_length=100_000)
        super().__init__(_game_type(self.engine_name), info, {"options": options})

    def new_initial_state(self):
        return CardArenaState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return _Observer(self.encoder)


class _Shared:
    """A value every clone shares (the game object)."""

    def __init__(self, value) -> None:
        self.value = value

    def __deepcopy__(self, memo):
        return self


class _Held:
    """The engine state. OpenSpiel clones a Python state by ``copy.deepcopy`` of each
    attribute; the copy of this holder is the engine's own ``State.clone()`` (see the
    module docstring)."""

    def __init__(self, state) -> None:
        self.state = state

    def __deepcopy__(self, memo):
        return _Held(None if self.state is None else self.state.clone())


class CardArenaState(pyspiel.State):
    """A wrapper of one engine state (None at the chance node)."""

    def __init__(self, game, engine_state=None):
        super().__init__(game)
        self._game_ref = _Shared(game)
        self._held = _Held(engine_state)

    @property
    def _g(self):
        return self._game_ref.value

    @property
    def engine_state(self):
        return self._held.state

    def current_player(self):
        if self.engine_state is None:
            return pyspiel.PlayerId.CHANCE
        if self.engine_state.is_terminal:
            return pyspiel.PlayerId.TERMINAL
        return self.engine_state.current_seat

    def _legal_actions(self, player):
        return sorted(self._g.encoder.legal_indices(self.engine_state.legal_actions()))

    def chance_outcomes(self):
        p = 1.0 / DEALS
        return [(s, p) for s in range(DEALS)]

    def _apply_action(self, action):
        if self.engine_state is None:
            self._held.state = self._g.engine.new_initial_state(int(action))
        else:
            self.engine_state.apply(self._g.encoder.action_of(int(action)))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return str(self._g.encoder.action_of(int(action)))

    def is_terminal(self):
        return self.engine_state is not None and self.engine_state.is_terminal

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self._g.engine.num_seats
        return [float(s) for s in self.engine_state.outcome().scores]

    def __str__(self):
        return "chance" if self.engine_state is None else repr(self.engine_state.spectator_view())



class _Observer:
    """The encoder's tensor and the view's repr, for a player (OpenSpiel's PyObserver)."""

    def __init__(self, encoder):
        self.encoder = encoder
        self.tensor = np.zeros(encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        self.tensor.fill(0)
        if state.engine_state is not None:
            self.tensor[:] = self.encoder.encode(state.engine_state.view(player))

    def string_from(self, state, player):
        return "chance" if state.engine_state is None else repr(state.engine_state.view(player))


def state_from_view(game: CardArenaGame, view, rng: random.Random) -> CardArenaState:
    """An OpenSpiel state consistent with ``view`` (one forward-model sample)."""
    return CardArenaState(game, sample_states(game.engine, view, 1, rng)[0])


def resample(state: CardArenaState, player: int, rng: random.Random | None = None) -> CardArenaState:
    """A state with the same information for ``player`` (IS-MCTS's resampler)."""
    rng = rng or random.Random()
    return state_from_view(state._g, state.engine_state.view(player), rng)


def ismcts_bot(game: CardArenaGame, simulations: int = 100, uct_c: float = 100.0, seed: int = 0, rollouts: int = 1):
    """OpenSpiel's (Python) IS-MCTS over ``game``, resampling with the forward model.
    ``uct_c`` is in the game's units (Spades scores run to hundreds)."""
    from open_spiel.python.algorithms import ismcts, mcts

    rs = np.random.RandomState(seed)
    rng = random.Random(seed)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(rollouts, rs), uct_c, simulations,
                           random_state=rs, final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
    bot.set_resampler(lambda state, player: resample(state, player, rng))
    return bot


class ISMCTSReferenceBot(Bot):
    """OpenSpiel's IS-MCTS as an SDK bot: at each decision an OpenSpiel state is drawn from
    the view (the forward model) and searched; the chosen index is ``sdk.encoding``'s."""

    name = "openspiel-ismcts"
    version = "1"
    games = tuple(GAMES)
    simulations = 50

    def on_match_start(self, info) -> None:
        self.game = pyspiel.load_game(GAMES[info.game], {"options": json.dumps(info.options, sort_keys=True, default=str)})
        self.search = ismcts_bot(self.game, simulations=self.simulations, seed=self.rng.randrange(2**31))

    def choose(self, view, legal_actions):
        if len(legal_actions) == 1:
            return legal_actions[0]
        state = state_from_view(self.game, view, self.rng)
        return self.game.encoder.action_of(int(self.search.step(state)))


def _register() -> None:
    for name, short in GAMES.items():
        cls = type(f"CardArena_{short}", (CardArenaGame,), {"engine_name": name})
        pyspiel.register_game(_game_type(name), cls)


_register()
