"""Spot for bot authors: the typed actions and view a Spot bot receives.

    from sdk.spot import Draw, DrawSource, Meld, LayOff, Discard, SpotView

The same types the arbiter's engine uses (rules: shared/rules/spot.md), plus helpers
for reasoning about melds.
"""

from cardarena.games.cards import Card, Suit  # noqa: F401  (re-exported)
from cardarena.games.spot import Discard, Draw, DrawSource, HandEnd, LayOff, Meld, MeldKind, Phase, SpotHandSummary, SpotPickup, SpotRevealedHand, SpotTableMeld, SpotView, candidate_melds, card_value, fits, meld_kind, spots  # noqa: F401  (re-exported)
