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
  ``SpiteAndMaliceReveal``, ``SpiteAndMaliceTurnUp`` (a pay-off card turned up to choose
  the first player: ``view.first_player_turn_ups``); ``Phase``;
- cards: ``Card``, ``Suit``.

Events (``Bot.on_events``), by ``kind``; ``seat`` is the seat it is about (None for
the table), and an event is public unless said:

- a game's start: ``deal`` (the hands dealt: public with the count, and the seat's own
  cards to it alone; again after a deadlock ``reshuffle``), ``side_deal`` (side stacks
  dealt one card each, option ``initial_side_cards``), ``turn_up`` (pay-off tops turned
  up: to choose the first player, then each new top as a pile's top is played),
  ``first_player_tie`` (tied tops reshuffled), ``first_player`` (the view keeps the
  current game's choice: ``first_player_turn_ups`` and ``first_player``);
- a turn: ``turn`` (who is to play), ``draw`` (public with the count, and the cards to
  the drawer alone), ``play`` (to the centre), ``load`` (onto a pay-off pile, option
  ``loading``), ``fill`` (an empty side stack filled, Massachusetts), ``discard`` (onto a
  side stack: the turn ends), ``end`` / ``pass`` (the turn ended without a discard, with
  or without a card moved); each move's ``cards`` is the card moved, its text the action;
- the centre: ``recycle`` (cards shuffled into the stock, a completed pile's at once;
  ``cards``: them), ``complete`` (with ``recycle = deferred``: a completed pile set
  aside; ``cards``: its cards);
- a blocked game: ``deadlock`` (every player passed; ``seat``: who must play an A or
  2), ``reshuffle`` (``deadlock_rule = reshuffle``);
- ``game_over``: a game of the match ended (the text says how).
"""

from cardarena.games.cards import Card, Suit  # noqa: F401  (re-exported)
from cardarena.games.spite_malice import End, Load, Phase, Play, Source, SourceKind, SpiteAndMaliceCards, SpiteAndMaliceMove, SpiteAndMalicePile, SpiteAndMalicePlayer, SpiteAndMaliceReveal, SpiteAndMaliceTurnUp, SpiteAndMaliceView, TargetKind  # noqa: F401  (re-exported)

__all__ = ["Card", "End", "Load", "Phase", "Play", "Source", "SourceKind", "SpiteAndMaliceCards", "SpiteAndMaliceMove",
           "SpiteAndMalicePile", "SpiteAndMalicePlayer", "SpiteAndMaliceReveal", "SpiteAndMaliceTurnUp", "SpiteAndMaliceView", "Suit",
           "TargetKind"]
