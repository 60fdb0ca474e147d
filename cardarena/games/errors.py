"""The errors every engine and the option schema raise (``cardarena.games`` re-exports them)."""

from __future__ import annotations


class GameError(Exception):
    """Base of every error an engine raises."""


class InvalidActionError(GameError):
    """The action text is malformed: not in the game's notation at all."""


class IllegalActionError(GameError):
    """A well-formed action that is not legal in this state. The state is unchanged.

    The message names the action and the reason, computed only from what the actor
    may see (it never mentions another seat's cards).
    """


class ConfigError(GameError):
    """A bad option: unknown key, wrong type, out of range or contradicting another."""
