"""Spite and Malice for bot authors: the typed actions and view a bot receives.

    from sdk.spite_and_malice import Play, Source, SourceKind, TargetKind, End, Load

The same types the arbiter's engine uses. Every field of the view is described in its
class (``pydoc sdk.spite_and_malice.SpiteAndMaliceView``, ``pydoc
sdk.spite_and_malice.SpiteAndMalicePlayer``, ...). Rules: docs/rules/spite-and-malice.md,
or ``arbiter rules spite-and-malice``.

What it exports (``__all__``; the engine's own, from ``cardarena.games.spite_malice`` and
``cardarena.games.cards``):

- actions: ``Play`` (a card from a ``Source`` to a centre pile or a side stack:
  ``TargetKind``), ``Load`` (onto an opponent's pay-off pile, option ``loading``), ``End``
  (option ``may_end_without_discard``); ``Source``, ``SourceKind``;
- the view: ``SpiteAndMaliceView`` and its parts ``SpiteAndMalicePlayer``,
  ``SpiteAndMalicePile``, ``SpiteAndMaliceCards``, ``SpiteAndMaliceMove``,
  ``SpiteAndMaliceReveal``; ``Phase``;
- cards: ``Card``, ``Suit``.
"""

from cardarena.games.cards import Card, Suit  # noqa: F401  (re-exported)
from cardarena.games.spite_malice import End, Load, Phase, Play, Source, SourceKind, SpiteAndMaliceCards, SpiteAndMaliceMove, SpiteAndMalicePile, SpiteAndMalicePlayer, SpiteAndMaliceReveal, SpiteAndMaliceView, TargetKind  # noqa: F401  (re-exported)

__all__ = ["Card", "End", "Load", "Phase", "Play", "Source", "SourceKind", "SpiteAndMaliceCards", "SpiteAndMaliceMove",
           "SpiteAndMalicePile", "SpiteAndMalicePlayer", "SpiteAndMaliceReveal", "SpiteAndMaliceView", "Suit", "TargetKind"]
