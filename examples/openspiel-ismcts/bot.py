"""OpenSpiel's IS-MCTS as a hosted reference bot, for all three games.

OpenSpiel's own Python ``ISMCTSBot`` searching our games through the wrappers of
``cardarena_envs.openspiel`` (the forward model resamples the hidden cards), as a folder
bot: its ``bot.toml`` declares open-spiel and numpy (``requirements.txt``), which the
arbiter installs once into a cached environment of their own (``arbiter.hosting.botenv``;
the operator allows installs with ``ARENA_INSTALL_BOT_ENVS=1``), so the platform's own
dependencies do not grow::

    ARENA_INSTALL_BOT_ENVS=1 arbiter play spades examples/openspiel-ismcts heuristic \\
        examples/openspiel-ismcts heuristic -o deals=1

``ISMCTS_SIMULATIONS`` is fixed here (25 a decision, one random rollout each): the same
budget as docs/strength.md's harness measurement.
"""

from cardarena_envs.openspiel import ISMCTSReferenceBot


class OpenSpielISMCTS(ISMCTSReferenceBot):
    name = "openspiel-ismcts"
    version = "1"
    simulations = 25
