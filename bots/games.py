"""The reference bots' side of a game, read from the game's line in the SDK's registry
(``sdk.games.SDK_GAMES``: its ``heuristic`` and ``search`` modules), so a game registered
there is played by the ``heuristic`` and ``search`` bots with no edit here."""

from __future__ import annotations

import importlib
from typing import Any

from sdk.games import SDK_GAMES


def played_by(part: str) -> tuple[str, ...]:
    """The registered games that have ``part`` (``"heuristic"``, ``"search"``): the games
    a bundled reference bot plays, read when asked (a game registered later is in it)."""
    return tuple(name for name, g in SDK_GAMES.items() if getattr(g, part))


def part_of(game: str, part: str) -> Any:
    """The module of ``game``'s ``part`` (``"heuristic"``, ``"search"``), imported on
    first use; KeyError if the game has none."""
    target = getattr(SDK_GAMES[game], part)
    if not target:
        raise KeyError(f"{game} has no {part} in sdk.games")
    return importlib.import_module(target)


def preload() -> list[str]:
    """Import every registered game's parts now; their module names. A bundled bot's fork
    server parent does (arbiter/hosting/zygote.py), so that none of its children imports
    one (a child that did compiled it, a few ms of CPU each)."""
    done = []
    for name, g in SDK_GAMES.items():
        for part in ("heuristic", "search"):
            if getattr(g, part):
                part_of(name, part)
                done.append(getattr(g, part))
    return done
