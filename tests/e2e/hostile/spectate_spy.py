"""Tries to watch the other matches of its tournament through the Spectate service of the
arbiter it plays on: it knows the address (its --address argument), and with duplicate
deals another seating of its own deal shows, card by card, the hands it plays against.
It also tries the admin side (Matches.ListSessions). It says in the record whether it got
in: it bids 13 if it could list the matches, 12 if only the sessions, else 1."""

import json
import sys

import grpc

from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from cardarena.v1 import spectate_pb2 as spb
from cardarena.v1 import spectate_pb2_grpc as spb_grpc
from sdk import Bot

RESULT: list[str] = []


def arbiter_address() -> str:
    args = sys.argv
    return args[args.index("--address") + 1] if "--address" in args else "127.0.0.1:50051"


def probe() -> str:
    if not RESULT:
        try:
            with grpc.insecure_channel(arbiter_address()) as channel:
                listed = spb_grpc.SpectateStub(channel).ListMatches(spb.ListMatchesRequest(include_finished=True), timeout=10)
            RESULT.append(f"LISTED {len(listed.matches)}")
        except grpc.RpcError as exc:
            RESULT.append(f"blocked: {exc.code().name}")
        try:  # and the admin side: the sessions connected to its arbiter
            with grpc.insecure_channel(arbiter_address()) as channel:
                pb_grpc.MatchesStub(channel).ListSessions(pb.ListSessionsRequest(), timeout=10)
            RESULT[0] += " SESSIONS"
        except grpc.RpcError:
            pass
        print("HOSTILE " + json.dumps({"kind": "spectate", "result": RESULT[0]}), file=sys.stderr, flush=True)
    return RESULT[0]


class SpectateSpyBot(Bot):
    name = "spectate-spy"
    games = ("spades",)

    def choose(self, view, legal_actions):
        if not view.hand_visible:  # offered a blind nil: look at the cards first
            return next(a for a in legal_actions if not getattr(a, "blind", False))
        bids = [a for a in legal_actions if type(a).__name__ == "Bid" and not a.blind]
        if bids:
            result = probe()
            want = 13 if result.startswith("LISTED") else 12 if "SESSIONS" in result else 1
            return next((b for b in bids if b.tricks == want), bids[0])
        return legal_actions[0]
