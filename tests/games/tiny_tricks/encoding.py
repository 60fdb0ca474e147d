"""Tiny Tricks' observation encoding: the hand, the finished tricks' cards, the trick."""

from __future__ import annotations

from cardarena.games.cards import STANDARD_DECK
from sdk.encoding._base import Encoder, cards_hot, one_hot

from .engine import Play


class TinyTricksEncoder(Encoder):
    game_name = "tiny-tricks"

    def _build(self) -> None:
        self.layout.add("hand", 52, "1 for each card in the seat's hand")
        self.layout.add("played", 52, "1 for each card of a finished trick")
        self.layout.add("trick", 52, "1 for each card of the trick being played")
        self.layout.add("to_act", 4, "the seat to act, relative to the viewer")

    def _build_actions(self) -> None:
        self._add_actions(Play(c) for c in STANDARD_DECK)

    def _fill(self, view, out) -> None:
        at = self.layout
        cards_hot(out, at["hand"].start, view.hand)
        cards_hot(out, at["played"].start, view.played)
        cards_hot(out, at["trick"].start, [p.card for p in view.trick])
        if view.current_seat is not None and view.seat is not None:
            one_hot(out, at["to_act"].start, (view.current_seat - view.seat) % view.num_players, 4)
