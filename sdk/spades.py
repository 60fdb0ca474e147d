"""Spades for bot authors: the typed actions and view a Spades bot receives.

    from sdk.spades import Bid, Play, SpadesView

The same types the arbiter's engine uses (rules: shared/rules/spades.md), plus the
small helpers a bot needs to reason about tricks.
"""

from cardarena.games.spades import Bid, Give, Look, Phase, Play, SpadesDealResult, SpadesExchange, SpadesPlayedCard, SpadesSeat, SpadesSide, SpadesTrick, SpadesView, partner, power, side_of, sort_cards, trick_winner  # noqa: F401  (re-exported)
from cardarena.games.cards import Card, Suit  # noqa: F401  (re-exported)
