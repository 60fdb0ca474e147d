"""Forges tokens: a forged seat token on its own requests (before the real answer), and
new connections to the arbiter with a forged Hello token and with its own launch token
(already in use). Reports what the arbiter said."""

import json
import os
import sys

import grpc

from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from sdk import Bot
from sdk.runner import Connection

ERRORS: list[str] = []
_done = []


def report(**kw):
    print("HOSTILE " + json.dumps(kw), file=sys.stderr, flush=True)


def try_hello(token):
    def reqs():
        yield pb.BotMessage(hello=pb.Hello(bot_name="intruder", token=token, protocol_version=1))
    with grpc.insecure_channel(os.environ["ARENA_ADDRESS"]) as ch:
        try:
            first = next(iter(pb_grpc.ArenaStub(ch).Play(reqs(), timeout=10)))
            return f"{first.WhichOneof('msg')}:{first.error.code}:{first.error.message}"
        except grpc.RpcError as exc:
            return f"rpc:{exc.code().name}"


class ForgedToken(Connection):
    def handle(self, msg):
        which = msg.WhichOneof("msg")
        if which == "error":
            ERRORS.append(msg.error.code)
            report(kind="errors", codes=sorted(set(ERRORS)), count=len(ERRORS))
            return None
        if which == "turn":
            t = msg.turn
            self.send(pb.BotMessage(act=pb.Act(match_id=t.match_id, request_id=t.request_id, action=t.legal_actions[0],
                                                     seat_token="forged-" + "x" * 20)))
            if not _done:
                _done.append(1)
                report(kind="hello", forged=try_hello("forged-token"), reused=try_hello(os.environ.get("ARENA_TOKEN", "")))
        return super().handle(msg)


class ForgedTokenBot(Bot):
    name = "forged-token"
    games = ("spades",)
    connection = ForgedToken

    def choose(self, view, legal_actions):
        return legal_actions[0]
