"""Spite and Malice for bot authors: the typed actions and view a bot receives.

    from sdk.spite_and_malice import Play, Source, SourceKind, TargetKind, End, Load

The same types the arbiter's engine uses. Every field of the view is described in its
class (``pydoc sdk.spite_and_malice.SpiteAndMaliceView``, ``pydoc
sdk.spite_and_malice.SpiteAndMalicePlayer``, ...). Rules: docs/rules/spite-and-malice.md,
or ``arbiter rules spite-and-malice``.
"""

from cardarena.games.cards import Card, Suit  # noqa: F401  (re-exported)
from cardarena.games.spite_malice import End, Load, Phase, Play, Source, SourceKind, SpiteAndMaliceCards, SpiteAndMaliceMove, SpiteAndMalicePile, SpiteAndMalicePlayer, SpiteAndMaliceReveal, SpiteAndMaliceView, TargetKind  # noqa: F401  (re-exported)
