"""Spot for bot authors: the typed actions and view a Spot bot receives.

    from sdk.spot import Draw, DrawSource, Meld, LayOff, Discard, SpotView

The same types the arbiter's engine uses, plus helpers for reasoning about melds. Every
field of the view is described in its class (``pydoc sdk.spot.SpotView``, ``pydoc
sdk.spot.SpotTableMeld``, ...). Rules: docs/rules/spot.md, or ``arbiter rules spot``.

What it exports (``__all__``; the engine's own, from ``cardarena.games.spot`` and
``cardarena.games.cards``):

- actions: ``Draw`` (``Draw(DrawSource.STOCK)``; ``DrawSource``), ``Meld``, ``LayOff``,
  ``Discard``;
- the view: ``SpotView`` and its parts ``SpotTableMeld``, ``SpotPickup``, ``SpotLayoff``,
  ``SpotRevealedHand``, ``SpotHandSummary``; ``Phase`` (where the seat is in its turn),
  ``HandEnd`` (how a hand ended), ``MeldKind``;
- cards: ``Card``, ``Suit``;
- helpers: ``candidate_melds`` (every meld a hand can make), ``meld_kind``, ``fits`` (may
  a card be laid off on a meld), ``card_value``, ``spots`` (a hand's count).

Events (``Bot.on_events``), by ``kind``; ``seat`` is the seat it is about (None for
the table), and an event is public unless said:

- ``hand_start``: a hand begins (dealer, first player, antes, pot in the text);
  ``deal``: public with the counts, and each seat's own cards to it alone;
- ``draw``: from the stock, public without the card and with it to the drawer alone;
  from the discard pile, public with the card;
- ``meld`` (``cards``: the new meld's), ``layoff`` (the card laid off; the view keeps
  the hand's layoffs: ``layoffs``), ``discard``
  (the card discarded: the turn ends);
- ``reveal``: at a hand's end, each seat's remaining cards; ``score``: the hand's
  payments (``view.last_hand`` has them as numbers); ``pot``: a pot left at the end is
  split; ``game_over``: the match ended.
"""

from cardarena.games.cards import Card, Suit  # noqa: F401  (re-exported)
from cardarena.games.spot import Discard, Draw, DrawSource, HandEnd, LayOff, Meld, MeldKind, Phase, SpotHandSummary, SpotLayoff, SpotPickup, SpotRevealedHand, SpotTableMeld, SpotView, candidate_melds, card_value, fits, meld_kind, spots  # noqa: F401  (re-exported)

__all__ = ["Card", "Discard", "Draw", "DrawSource", "HandEnd", "LayOff", "Meld", "MeldKind", "Phase", "SpotHandSummary",
           "SpotLayoff", "SpotPickup", "SpotRevealedHand", "SpotTableMeld", "SpotView", "Suit", "candidate_melds", "card_value", "fits",
           "meld_kind", "spots"]
