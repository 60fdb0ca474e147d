"""Loses its view between Turns: it asks for view deltas (as every SDK bot does), then at
every third Turn forgets the view it holds for the seat (a delta it dropped) and at every
fifth spoils one byte of it (a corrupted copy). Each time the delta does not apply, the
SDK answers Act.resync and the arbiter sends the whole view again; the bot's choices read
its hand, the trick and the finished tricks, so a wrong view would change the match."""

import json
import sys

from sdk import Bot
from sdk.runner import Connection


def report(**fields):
    print("HOSTILE " + json.dumps(fields), file=sys.stderr, flush=True)


class DropDelta(Connection):
    def __init__(self, bot, name):
        super().__init__(bot, name)
        self.turns = self.whole = self.dropped = self.spoiled = 0

    def handle(self, msg):
        if msg.WhichOneof("msg") == "turn" and msg.turn.HasField("view_delta"):
            turn = msg.turn
            key = (turn.match_id, turn.seat)
            self.turns += 1
            if turn.view_delta.base == 0:
                self.whole += 1
            elif self.turns % 3 == 0 and key in self.views:
                del self.views[key]  # as if the previous delta never arrived
                self.dropped += 1
            elif self.turns % 5 == 0 and self.views.get(key) is not None:
                slots = self.views[key].slots  # the fields' bytes it holds: one bit flipped in the last
                i = max(i for i, b in enumerate(slots) if b)
                slots[i] = slots[i][:-1] + bytes([slots[i][-1] ^ 0x20])
                self.spoiled += 1
        out = super().handle(msg)
        if msg.WhichOneof("msg") in ("turn", "match_end"):
            report(kind="deltas", turns=self.turns, whole=self.whole, dropped=self.dropped, spoiled=self.spoiled,
                   resyncs=self.resyncs)
        return out


class DropDeltaBot(Bot):
    name = "drop-delta"
    games = ("spades",)
    connection = DropDelta

    def choose(self, view, legal_actions):
        k = sum(int(c) for c in view.hand) + 7 * len(view.tricks) + 3 * sum(int(p.card) for p in view.trick)
        k += sum(s.tricks_won for s in view.seats) + view.deal
        return legal_actions[k % len(legal_actions)]
