"""Floods its stream: on its first turn, 20000 Acts that answer nothing."""

from cardarena.v1 import arena_pb2 as pb
from sdk import Bot
from sdk.runner import Connection


class Flood(Connection):
    flooded = False

    def handle(self, msg):
        if msg.WhichOneof("msg") == "turn" and not self.flooded:
            self.flooded = True
            t = msg.turn
            junk = pb.BotMessage(act=pb.Act(match_id=t.match_id, request_id=10**9, action=t.legal_actions[0]))
            for _ in range(20000):
                self.send(junk)
        return super().handle(msg)


class FloodBot(Bot):
    name = "flood"
    games = ("spades",)
    connection = Flood

    def choose(self, view, legal_actions):
        return legal_actions[0]
