"""A bot that reads the wire itself, to see what the arbiter tells a seat when a match ends.

The SDK hands a bot only the outcome at the end, but the MatchEnd message on the wire
carries a final view, and any author may write a client from the .proto files. So this
file, started like any bot (``python -m sdk --bot final_view.py --name N --address A``,
token in ``ARENA_TOKEN``: the arbiter's own launch), takes its process over when it is
imported: a raw client of the generated stubs (over gRPC, or in plain frames where its
address is the local channel's, ``local:PATH``) that plays a random legal action at every
Turn and writes every MatchEnd it receives to stderr, one line each
(``MATCHEND <base64 of the message>``), for the test to read from the bot's side.
"""

from __future__ import annotations

import base64
import os
import queue
import random
import socket
import sys

import grpc

from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from cardarena.wire import framing


def _arg(flag: str) -> str:
    return sys.argv[sys.argv.index(flag) + 1] if flag in sys.argv else ""


def _over_grpc(address: str, hello: pb.BotMessage):
    """The arbiter's messages over gRPC, and how to answer (``send``)."""
    outbox: queue.Queue = queue.Queue()
    outbox.put(hello)

    def requests():
        while (m := outbox.get()) is not None:
            yield m

    def messages():
        try:
            yield from pb_grpc.ArenaStub(grpc.insecure_channel(address)).Play(requests())
        except grpc.RpcError:
            pass  # the arbiter stopped

    return messages(), outbox.put


def _over_local(path: str, hello: pb.BotMessage):
    """The same on the local channel: the same messages, each a length-prefixed frame."""
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(path)

    def send(m: pb.BotMessage) -> None:
        sock.sendall(framing.frame(m.SerializeToString()))

    def messages():
        frames = framing.FrameReader(1 << 24)
        while data := sock.recv(1 << 16):
            frames.feed(data)
            while (payload := frames.next()) is not None:
                yield pb.ArbiterMessage.FromString(payload)

    send(hello)
    return messages(), send


def main() -> None:
    name, address, token = _arg("--name"), _arg("--address"), os.environ.get("ARENA_TOKEN", "")
    rng = random.Random(name)
    hello = pb.BotMessage(hello=pb.Hello(bot_name=name, bot_version="raw", token=token, protocol_version=1))
    if address.startswith(framing.SCHEME):
        messages, send = _over_local(address.removeprefix(framing.SCHEME), hello)
    else:
        messages, send = _over_grpc(address, hello)
    seat_tokens: dict[tuple[str, int], str] = {}
    for msg in messages:
        kind = msg.WhichOneof("msg")
        if kind == "match_start":
            seat_tokens[msg.match_start.match_id, msg.match_start.seat] = msg.match_start.seat_token
        elif kind == "turn":
            t = msg.turn
            send(pb.BotMessage(act=pb.Act(match_id=t.match_id, request_id=t.request_id,
                                          action=rng.choice(t.legal_actions),
                                          seat_token=seat_tokens.get((t.match_id, t.seat), ""))))
        elif kind == "match_end":
            line = base64.b64encode(msg.match_end.SerializeToString()).decode()
            print("MATCHEND", line, file=sys.stderr, flush=True)
    sys.stderr.flush()
    os._exit(0)


main()
