"""Spot for bot authors: the typed actions and view a Spot bot receives.

    from sdk.spot import Draw, DrawSource, Meld, LayOff, Discard, SpotView

The same types the arbiter's engine uses, plus helpers for reasoning about melds. Every
field of the view is described in its class (``pydoc sdk.spot.SpotView``, ``pydoc
sdk.spot.SpotTableMeld``, ...). Rules: docs/rules/spot.md, or ``arbiter rules spot``.
"""

from cardarena.games.cards import Card, Suit  # noqa: F401  (re-exported)
from cardarena.games.spot import Discard, Draw, DrawSource, HandEnd, LayOff, Meld, MeldKind, Phase, SpotHandSummary, SpotPickup, SpotRevealedHand, SpotTableMeld, SpotView, candidate_melds, card_value, fits, meld_kind, spots  # noqa: F401  (re-exported)
