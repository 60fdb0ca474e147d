"""Sends malformed bytes on side connections (garbage, truncated and wrongly typed
protobuf), then an oversized Act (1 MiB) on its own stream."""

import json
import os
import sys

import grpc

from cardarena.v1 import arena_pb2 as pb
from sdk import Bot
from sdk.runner import Connection

GARBAGE = [b"\xff" * 64, b"\x0a\xff\xff\xff\xff\x0f", b"\x12\x05abc", bytes(range(256)), b"\x08" * 1000]


def report(**kw):
    print("HOSTILE " + json.dumps(kw), file=sys.stderr, flush=True)


def raw_stream(payloads):
    with grpc.insecure_channel(os.environ["ARENA_ADDRESS"]) as ch:
        call = ch.stream_stream("/cardarena.v1.Arena/Play", request_serializer=None, response_deserializer=None)
        try:
            return [len(r) for r in call(iter(payloads), timeout=10)]
        except grpc.RpcError as exc:
            return exc.code().name


class Oversized(Connection):
    done = False

    def handle(self, msg):
        if msg.WhichOneof("msg") == "turn" and not self.done:
            self.done = True
            report(kind="malformed", results=[str(raw_stream([g])) for g in GARBAGE])
            t = msg.turn
            big = pb.Action()
            big.CopyFrom(t.legal_actions[0])
            big.notation = "x" * (1 << 20)
            token = next(tok for (m, s), tok in self.seat_tokens.items() if m == t.match_id and s == t.seat)
            self.send(pb.BotMessage(act=pb.Act(match_id=t.match_id, request_id=t.request_id, action=big, seat_token=token)))
        return super().handle(msg)


class OversizedBot(Bot):
    name = "oversized"
    games = ("spades",)
    connection = Oversized

    def choose(self, view, legal_actions):
        return legal_actions[0]
