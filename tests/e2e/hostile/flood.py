"""Floods its stream: on its first turn, 20000 Acts that answer nothing."""

import sdk.runner as runner
from cardarena.v1 import arena_pb2 as pb
from sdk import Bot

_orig = runner._Session.handle
_done = []


def handle(self, msg):
    if msg.WhichOneof("msg") == "turn" and not _done:
        _done.append(1)
        t = msg.turn
        junk = pb.BotMessage(act=pb.Act(match_id=t.match_id, request_id=10**9, action=t.legal_actions[0]))
        for _ in range(20000):
            self.outbox.put(junk)
    return _orig(self, msg)


runner._Session.handle = handle


class FloodBot(Bot):
    name = "flood"
    games = ("spades",)

    def choose(self, view, legal_actions):
        return legal_actions[0]
