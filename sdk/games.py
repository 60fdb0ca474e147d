"""The SDK's one registry of games: how a registered game is encoded for learning
(``sdk.encoding``: an ``Encoder`` class), modelled forward from a seat's view
(``sdk.forward``: a module with ``knowledge(game, view, options)`` and
``build(game, view, knowledge, rng)``), and played by the bundled reference bots (the
``heuristic`` bot's policy and the ``search`` bot's per-game part, ``bots/search.py``):
those are module names the bundled bots import (``bots.games.part_of``); the SDK never
imports them.

One line per game, beside the engine's line in ``cardarena.games.GAMES`` and the pages'
in ``arbiter.present.games``; a test checks every engine has its line here. Targets are
``"module:Class"`` / ``"module"`` strings, imported on first use.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SdkGame:
    """One game's SDK side.

    Attributes:
        encoder: ``"module:Class"`` of its ``sdk.encoding.Encoder``.
        forward: The module of its forward model: ``knowledge(game, view, options)`` (what
            the seat cannot place) and ``build(game, view, knowledge, rng)``, a state that
            shows ``view`` to its seat, made by the engine's
            ``game.state_from_view(view, <the sampled hidden parts>, seed)`` with a seed
            drawn from ``rng``, the one later deals and shuffles come from (the conformance
            suite pins it to the real game's).
        heuristic: The module of its heuristic policy, ``choose(view, legal, rng)``: what
            the bundled ``heuristic`` bot plays, and the ``search`` bot's rollouts ("":
            the bundled reference bots do not play it).
        search: The module of its part of the ``search`` bot: its budget, candidates
            or plans, horizon and values (the interface is in ``bots/search.py``; "":
            the ``search`` bot does not play it).
    """

    encoder: str
    forward: str
    heuristic: str = ""
    search: str = ""


#: game name -> its SDK side.
SDK_GAMES: dict[str, SdkGame] = {
    "spades": SdkGame("sdk.encoding.spades:SpadesEncoder", "sdk.forward.spades",
                      "bots.spades_heuristic", "bots.spades_search"),
    "spite-and-malice": SdkGame("sdk.encoding.spite_malice:SpiteAndMaliceEncoder", "sdk.forward.spite_malice",
                                "bots.spite_malice_heuristic", "bots.spite_malice_search"),
    "spot": SdkGame("sdk.encoding.spot:SpotEncoder", "sdk.forward.spot", "bots.spot_heuristic", "bots.spot_search"),
}

