"""The SDK's one registry of games: how a registered game is encoded for learning
(``sdk.encoding``: an ``Encoder`` class) and modelled forward from a seat's view
(``sdk.forward``: a module with ``knowledge(game, view, options)`` and
``build(game, view, knowledge, rng)``).

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
        forward: The module of its forward model (``knowledge`` and ``build``).
    """

    encoder: str
    forward: str


#: game name -> its SDK side.
SDK_GAMES: dict[str, SdkGame] = {
    "spades": SdkGame("sdk.encoding.spades:SpadesEncoder", "sdk.forward.spades"),
    "spite-and-malice": SdkGame("sdk.encoding.spite_malice:SpiteAndMaliceEncoder", "sdk.forward.spite_malice"),
    "spot": SdkGame("sdk.encoding.spot:SpotEncoder", "sdk.forward.spot"),
}
