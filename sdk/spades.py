"""Spades for bot authors: the typed actions and view a Spades bot receives.

    from sdk.spades import Bid, Play, SpadesView

The same types the arbiter's engine uses, plus the small helpers a bot needs to reason
about tricks. Every field of the view is described in its class (``pydoc
sdk.spades.SpadesView``, ``pydoc sdk.spades.SpadesSeat``, ...). Rules: docs/rules/spades.md,
or ``arbiter rules spades`` (the options too).

What it exports (``__all__``; the engine's own, from ``cardarena.games.spades`` and
``cardarena.games.cards``):

- actions: ``Look`` (pick up your cards; offered only while blind nil is possible),
  ``Bid`` (``Bid(3)``, ``Bid(0)`` for nil, ``Bid(0, blind=True)`` for blind nil), ``Give``
  (the two cards of a blind-nil exchange), ``Play``;
- the view: ``SpadesView`` and its parts ``SpadesSeat``, ``SpadesSide``, ``SpadesHand``,
  ``SpadesTrick``, ``SpadesPlayedCard``, ``SpadesExchange``, ``SpadesDealRecord``,
  ``SpadesDealResult``, ``SpadesSideResult``; ``Phase`` (the deal's phase);
- cards: ``Card``, ``Suit``;
- helpers: ``trick_winner``, ``power`` (a card's strength, 2 low .. A high),
  ``sort_cards``, ``partner``, ``side_of``; ``score_side`` (one side's deal scored, the
  engine's own rule; its ``rules`` default to the default options: the match's are
  ``get_game(info.game, info.options).scoring``, ``from cardarena.games import get_game``).

Events (``Bot.on_events``), by ``kind``; ``seat`` is the seat it is about, ``cards``
empty unless said, and an event with cards is shown to its seat alone unless said:

- ``deal``: a deal begins (``seat``: its dealer); ``hand``: the seat's own cards, once
  it may see them: at the deal, or when it looks; a blind-nil bidder's when it must give in
  the exchange (15 cards, the partner's two among them, when the partner gives first) or,
  with no exchange, when play starts;
- ``look``: a seat looks at its hand; ``bid``: a seat's bid, in the text ("seat 1 bids
  4", "bids nil", "bids blind_nil"; the view's ``seats[i].bid`` has it as a number);
- ``exchange``: two partners will exchange cards (blind nil); ``give``: a seat hands
  two cards to its partner, public without them, with them for the two partners;
- ``play``: a card played to the trick (public, ``cards`` is that one card);
  ``trick``: a trick is complete (``seat``: its winner);
- ``score``: a side's deal scored (``seat`` None; the numbers are in
  ``view.history``); ``game_over``: the game ended (``seat`` None).
"""

from cardarena.games.spades import Bid, Give, Look, Phase, Play, SpadesDealRecord, SpadesDealResult, SpadesExchange, SpadesHand, SpadesPlayedCard, SpadesSeat, SpadesSide, SpadesSideResult, SpadesTrick, SpadesView, partner, power, side_of, sort_cards, trick_winner  # noqa: F401  (re-exported)
from cardarena.games.cards import Card, Suit  # noqa: F401  (re-exported)
from cardarena.games.spades_scoring import score_side  # noqa: F401  (re-exported)

__all__ = ["Bid", "Card", "Give", "Look", "Phase", "Play", "SpadesDealRecord", "SpadesDealResult", "SpadesExchange",
           "SpadesHand", "SpadesPlayedCard", "SpadesSeat", "SpadesSide", "SpadesSideResult", "SpadesTrick", "SpadesView",
           "Suit", "partner", "power", "score_side", "side_of", "sort_cards", "trick_winner"]
