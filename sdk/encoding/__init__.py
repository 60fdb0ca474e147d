"""One observation encoding per game: a seat's view as a fixed-shape tensor, and the
game's actions as indices with a legal-action mask. The same functions serve an
environment in training (``cardarena_envs``) and a bot at play time, so the policy that
was trained is the one that plays::

    from sdk import Bot
    from sdk.encoding import encoder

    class MyBot(Bot):
        def on_match_start(self, info):
            self.enc = encoder(info.game, info.options)   # the match's option set

        def choose(self, view, legal_actions):
            x = self.enc.encode(view)                     # list of enc.size floats
            mask = self.enc.mask(legal_actions)           # list of enc.num_actions 0/1
            i = my_policy(x, mask)                        # an index with mask[i] == 1
            return self.enc.action_of(i)

``encoder(game, options=None, preset=None)`` returns the ``Encoder`` of one game and one
option set (names and options as in ``arbiter rules GAME``). Its parts:

* ``size`` / ``shape``: the tensor's length; fixed for the option set (the same at every
  decision of every game and every seed).
* ``encode(view)``: the tensor, a plain list of floats (no numpy needed; ``numpy.asarray``
  takes it). It reads the view and the options only: anything the rules hide from the
  seat cannot move a value. Seats are relative to the view's seat.
* ``encode_into(view, out)``: the same tensor written into ``size`` zeros (a list, or a
  ``memoryview`` of a numpy float32 array: no list of Python floats to convert).
* ``layout``: the slices, ``layout.segments`` (name, start, stop, meaning) and
  ``layout.table()``, the text table in each game's module docstring
  (``pydoc sdk.encoding.spades`` / ``.spite_malice`` / ``.spot``).
* ``num_actions``, ``action_index(action)``, ``action_of(index)``, ``mask(legal)``,
  ``legal_indices(legal)``: every action the option set allows has exactly one index.
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping

from cardarena.games import get_game
from sdk.encoding._base import Encoder, Layout, Segment
from sdk.games import SDK_GAMES

__all__ = ["Encoder", "Layout", "Segment", "encoder", "encoder_for_game"]

_CLASSES = SDK_GAMES  # the encoder of each game: sdk.games


def encoder_for_game(game: Any) -> Encoder:
    """The encoder of a configured engine ``Game`` (``cardarena.games.get_game``)."""
    try:
        module, _, cls = _CLASSES[game.name].encoder.partition(":")
    except (KeyError, AttributeError):
        raise ValueError(f"no encoding for {getattr(game, 'name', game)!r} (known: {', '.join(_CLASSES)})") from None
    return getattr(importlib.import_module(module), cls)(game)


def encoder(game: str, options: Mapping[str, Any] | None = None, preset: str | None = None) -> Encoder:
    """The encoder of ``game`` (``spades``, ``spite-and-malice``, ``spot``) with ``options``.

    ``options`` may be ``MatchInfo.options`` as a bot receives it. A bad name or option is
    the engine's own ``ConfigError``/``ValueError``, naming it.
    """
    return encoder_for_game(get_game(game, dict(options or {}), preset))
