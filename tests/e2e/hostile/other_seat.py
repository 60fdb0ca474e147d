"""Tries to act for other seats: its partner's seat token on its own request, guessed
request ids (other seats' requests), another match id. Then answers properly."""

import json
import sys

from cardarena.v1 import arena_pb2 as pb
from sdk import Bot
from sdk.runner import Connection

ERRORS: list[str] = []


class OtherSeat(Connection):
    def handle(self, msg):
        which = msg.WhichOneof("msg")
        if which == "error":
            ERRORS.append(msg.error.code)
            print("HOSTILE " + json.dumps({"kind": "errors", "codes": sorted(set(ERRORS)), "count": len(ERRORS)}), file=sys.stderr, flush=True)
            return None
        if which == "turn":
            t = msg.turn
            tokens = {seat: tok for (m, seat), tok in self.seat_tokens.items() if m == t.match_id}
            partner = next(tok for seat, tok in tokens.items() if seat != t.seat)
            action = t.legal_actions[0]
            # the partner's token on my own request: refused, request stays open
            self.send(pb.BotMessage(act=pb.Act(match_id=t.match_id, request_id=t.request_id, action=action, seat_token=partner)))
            # other seats' (guessed) requests, with my own token
            for d in (1, 2, 3):
                self.send(pb.BotMessage(act=pb.Act(match_id=t.match_id, request_id=t.request_id + d, action=action,
                                                         seat_token=tokens[t.seat])))
            self.send(pb.BotMessage(act=pb.Act(match_id="honest-match", request_id=t.request_id, action=action,
                                                     seat_token=tokens[t.seat])))
        return super().handle(msg)


class OtherSeatBot(Bot):
    name = "other-seat"
    games = ("spades",)
    connection = OtherSeat

    def choose(self, view, legal_actions):
        return legal_actions[0]
