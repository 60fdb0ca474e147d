"""The three games as PettingZoo AEC environments, for training bots (optional extra).

    pip install 'card-arena-sdk[envs]'   # pettingzoo, gymnasium, numpy (a checkout: pip install -e '.[envs]')

    from cardarena_envs import env
    e = env("spades", options={"deals": 1}, seed=7)
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            action = None
        else:
            mask = obs["action_mask"]                 # numpy int8, 1 = legal
            action = int(mask.nonzero()[0][0])        # your policy here
        e.step(action)

Agents are ``seat_0`` .. ``seat_{N-1}``. Each agent's observation is a dict:
``"observation"``, the ``sdk.encoding`` tensor of its own view (float32, the layout in
``pydoc sdk.encoding.spades`` / ``spite_malice`` / ``spot``) and ``"action_mask"``
(int8, over ``Discrete(encoder.num_actions)``; all zeros when it is not the agent's turn).
A bot plays with the same encoder: ``sdk.encoding.encoder(info.game, info.options)``.

Rewards are 0 until the game ends, then each seat's ``Outcome.scores`` entry, in the
game's own units (Spades: the side's total score, Spot: net units won, Spite and Malice:
1 / 0.5 / 0 or series points). ``reset(seed=S)`` deals the engine's deal ``S``, so a
seeded episode is the same match ``arbiter play GAME ... --seed S`` plays; the resets
after it without a seed deal a sequence drawn from ``S`` (Gymnasium's rule). The engines end
every game (their turn-limit guards), so episodes terminate and are never truncated.

A learned bot end to end: ``python -m cardarena_envs.train`` (``--help``) trains a linear
policy by imitation of a bundled bot and writes a bot folder (``bot.py``, a copy of
``cardarena_envs.policy_bot``, and its ``policy.json``) that ``arbiter play`` and the
tournaments take like any folder bot; the bot needs the SDK only, not numpy.

This package stands on the core and the SDK only, and nothing in the product imports
it (pyproject's import contracts). ``env``/``raw_env``/``CardArenaEnv`` are imported on
first use, so ``cardarena_envs.policy_bot`` loads without numpy or PettingZoo.
"""

__all__ = ["CardArenaEnv", "env", "raw_env"]


#: The packages of the envs extra (numpy, gymnasium, pettingzoo: pyproject's ``envs``).
EXTRA = ("numpy", "gymnasium", "pettingzoo")


def missing_extra(what: str, exc: ModuleNotFoundError) -> ModuleNotFoundError | None:
    """The error to raise when ``what`` met ``exc``: a package of the envs extra missing,
    said with how to install it; None when ``exc`` is of another module (raise it as it is)."""
    if exc.name and exc.name.split(".")[0] in EXTRA:
        return ModuleNotFoundError(f"{what} needs {exc.name}, of the envs extra: pip install 'card-arena-sdk[envs]' "
                                   "(a checkout: pip install -e '.[envs]')", name=exc.name)
    return None


def __getattr__(name: str):
    if name in __all__:
        try:
            from cardarena_envs import aec
        except ModuleNotFoundError as exc:
            if (said := missing_extra(f"cardarena_envs.{name}", exc)) is not None:
                raise said from None
            raise
        return getattr(aec, name)
    raise AttributeError(f"module 'cardarena_envs' has no attribute {name!r}")
