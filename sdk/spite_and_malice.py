"""Spite and Malice for bot authors: the typed actions and view a bot receives.

    from sdk.spite_and_malice import Play, Source, SourceKind, TargetKind, End, Load

The same types the arbiter's engine uses (rules: shared/rules/spite-and-malice.md).
"""

from cardarena.games.cards import Card, Suit  # noqa: F401  (re-exported)
from cardarena.games.spite_malice import End, Load, Phase, Play, Source, SourceKind, SpiteAndMaliceCards, SpiteAndMaliceMove, SpiteAndMalicePile, SpiteAndMalicePlayer, SpiteAndMaliceView, TargetKind  # noqa: F401  (re-exported)
