"""Pure rules engines and the registry of games by name.

``get_game("spades", {"target": 300})`` returns a configured ``Game``. Engines import
nothing from grpc, protobuf, rich, time, asyncio or the global ``random``.

A game is one folder, ``cardarena/games/<game>/``, and one line in ``GAMES``; its facts for
the platform (smoke options, what an analysis value counts, seats...) are its Game class's
``platform`` (``base.Platform``), read by ``facts``. The SDK (``sdk.games``) and the pages
(``arbiter.present.games``) each keep one registry of their own side of a game.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any, Iterator, Mapping

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
    Platform,
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


def _meant(name: str) -> str:
    """``: did you mean 'spite-and-malice'?`` where ``name`` is a game's name but for case,
    ``_`` or spaces for ``-`` (``spite_and_malice``, the SDK module's spelling; ``Spades``),
    else ``""``: the wording of ``cardarena.names.did_you_mean``, which the engines may not
    import (nor difflib)."""
    folded = "-".join(str(name).lower().replace("_", " ").replace("-", " ").split())
    return f": did you mean {folded!r}?" if folded in GAMES else ""


def game_class(name: str) -> type[Game]:
    """The Game class registered under ``name``; ConfigError naming the known games."""
    target = GAMES.get(name)
    if target is None:
        raise ConfigError(f"unknown game {name!r}{_meant(name)} (known: {', '.join(GAMES)})")
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)


def get_game(name: str, options: Mapping[str, Any] | None = None, preset: str | None = None) -> Game:
    """A configured game; ConfigError on an unknown game, option or preset."""
    return game_class(name)(options, preset)


def seat_options(game: str, options: Mapping[str, Any], preset: str | None, bots: int) -> dict[str, Any]:
    """``options`` with ``players`` set from the number of bots, where the game takes a
    number of players and none was given (``arbiter play spot random random``, the SDK's
    ``play_match("spot", [a, b])``: 2 players).

    Options that are not valid with the default number of players (Spite and Malice's
    ``partnerships``, which needs 4 or 6) take it from the bots as well: four bots with
    ``partnerships`` were refused as "needs 4 or 6 'players', got 2", the 2 being the
    default, not what was given."""
    out = dict(options)
    if "players" in out or "players" not in {f.name for f in dataclasses.fields(game_class(game).Options)}:
        return out
    try:
        seats = get_game(game, out, preset).num_seats
    except ConfigError:
        seats = None  # not valid as given: with the bots' number it may be (else get_game says why, with it)
    if seats != bots:
        out["players"] = bots
    return out


def typed_options(name: str, options: Mapping[str, Any], preset: str | None = None) -> dict[str, Any]:
    """``options`` (typed, or text as a command line gives them: ``"1"``, ``"off"``) read by
    the game ``name``'s option schema, each as JSON keeps it (``describe_options``: an enum as
    its value, a set as a sorted list), the keys given only: a spec file's ``deals = 1`` and
    ``-o deals=1`` are then stored alike. ConfigError as ``get_game``."""
    shown = get_game(name, options, preset).describe_options()
    return {k: shown[k] for k in options}


class _Facts(Mapping[str, Any]):
    """One field of ``Platform`` for every registered game, read when asked (so a game
    registered later, a test's, is in it too)."""

    def __init__(self, field: str) -> None:
        self._field = field

    def __getitem__(self, name: str) -> Any:
        if name not in GAMES:
            raise KeyError(name)
        return getattr(game_class(name).platform, self._field)

    def __iter__(self) -> Iterator[str]:
        return iter(GAMES)

    def __len__(self) -> int:
        return len(GAMES)


def facts(field: str) -> Mapping[str, Any]:
    """``{game: game_class(game).platform.<field>}`` over the registry, e.g.
    ``facts("smoke_options")["spot"]``; a live view, not a copy."""
    if field not in Platform.__dataclass_fields__:
        raise ValueError(f"no platform fact {field!r} (known: {', '.join(Platform.__dataclass_fields__)})")
    return _Facts(field)
