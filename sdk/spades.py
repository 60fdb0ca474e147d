"""Spades for bot authors: the typed actions and view a Spades bot receives.

    from sdk.spades import Bid, Play, SpadesView

The same types the arbiter's engine uses, plus the small helpers a bot needs to reason
about tricks. Every field of the view is described in its class (``pydoc
sdk.spades.SpadesView``, ``pydoc sdk.spades.SpadesSeat``, ...). Rules: docs/rules/spades.md,
or ``arbiter rules spades`` (the options too).
"""

from cardarena.games.spades import Bid, Give, Look, Phase, Play, SpadesDealRecord, SpadesDealResult, SpadesExchange, SpadesHand, SpadesPlayedCard, SpadesSeat, SpadesSide, SpadesSideResult, SpadesTrick, SpadesView, partner, power, side_of, sort_cards, trick_winner  # noqa: F401  (re-exported)
from cardarena.games.cards import Card, Suit  # noqa: F401  (re-exported)
