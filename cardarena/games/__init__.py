"""Pure rules engines and the registry of games by name.

``get_game("spades", {"target": 300})`` returns a configured ``Game``. Engines import
nothing from grpc, protobuf, rich, time, asyncio or the global ``random``.
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping

from .base import (  # noqa: F401  (re-exported)
    Action,
    ConfigError,
    EndReason,
    Event,
    Game,
    GameError,
    IllegalActionError,
    InvalidActionError,
    Outcome,
    State,
    events_for,
)
from .cards import Card, Suit, parse_cards  # noqa: F401

#: game name -> "module:Class", imported on first use.
GAMES: dict[str, str] = {
    "spades": "cardarena.games.spades:Spades",
    "spite-and-malice": "cardarena.games.spite_malice:SpiteAndMalice",
    "spot": "cardarena.games.spot:Spot",
}


def game_class(name: str) -> type[Game]:
    """The Game class registered under ``name``; ConfigError naming the known games."""
    target = GAMES.get(name)
    if target is None:
        raise ConfigError(f"unknown game {name!r} (known: {', '.join(GAMES)})")
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)


def get_game(name: str, options: Mapping[str, Any] | None = None, preset: str | None = None) -> Game:
    """A configured game; ConfigError on an unknown game, option or preset."""
    return game_class(name)(options, preset)
