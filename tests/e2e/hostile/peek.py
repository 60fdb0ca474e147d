"""Tries to see what it must not: asks the management services (no admin token) for the
sessions and for a match of its own making, sends a second Hello on its stream (which
closes it), and records every seat it is ever shown, to prove it only ever sees its own."""

import json
import os
import sys

import grpc

from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from sdk import Bot
from sdk.runner import Connection

SEEN = {"match_start": set(), "turn": set(), "update": set(), "match_end": set()}
ERRORS: list[str] = []
_done = []


def report(**kw):
    print("HOSTILE " + json.dumps(kw), file=sys.stderr, flush=True)


class Peek(Connection):
    def handle(self, msg):
        which = msg.WhichOneof("msg")
        if which in SEEN:
            sub = getattr(msg, which)
            SEEN[which].add((sub.match_id, sub.seat))
            report(kind="seen", **{k: sorted(map(list, v)) for k, v in SEEN.items()})
        if which == "error":
            ERRORS.append(f"{msg.error.code}: {msg.error.message}")
            report(kind="errors", errors=ERRORS[-5:], count=len(ERRORS))
            return None
        if which == "turn" and not _done:
            _done.append(1)
            results = {}
            with grpc.insecure_channel(os.environ["ARENA_ADDRESS"]) as ch:
                stub = pb_grpc.MatchesStub(ch)
                for what, call in (
                    ("list_sessions", lambda: stub.ListSessions(pb.ListSessionsRequest(), timeout=10)),
                    ("run_match", lambda: stub.RunMatch(pb.RunMatchRequest(game="spades", seats=["honest-a"] * 4), timeout=10)),
                ):
                    try:
                        call()
                        results[what] = "ALLOWED"
                    except grpc.RpcError as exc:
                        results[what] = exc.code().name
            report(kind="management", **results)
            self.send(pb.BotMessage(hello=pb.Hello(bot_name="honest-a", protocol_version=1)))
        return super().handle(msg)


class PeekBot(Bot):
    name = "peek"
    games = ("spades",)
    connection = Peek

    def choose(self, view, legal_actions):
        return legal_actions[0]
