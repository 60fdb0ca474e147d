"""Answers every Turn with Act.resync (asks for the whole view again and again, and never
acts): the arbiter sends the whole view MAX_RESYNCS times, then counts the answer as
malformed (the match's failure policy follows)."""

from cardarena.v1 import arena_pb2 as pb
from sdk import Bot
from sdk.runner import Connection


class AlwaysResync(Connection):
    def handle(self, msg):
        if msg.WhichOneof("msg") == "turn":
            turn = msg.turn
            self.send(pb.BotMessage(act=pb.Act(match_id=turn.match_id, request_id=turn.request_id, resync=True,
                                               seat_token=self.seat_tokens.get((turn.match_id, turn.seat), ""))))
            return None
        return super().handle(msg)



class AlwaysResyncBot(Bot):
    name = "always-resync"
    games = ("spades",)
    connection = AlwaysResync

    def choose(self, view, legal_actions):
        return legal_actions[0]
