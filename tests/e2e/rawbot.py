"""A bot written directly against the generated stubs, for protocol and leak tests.

It records every message it receives, and answers each Turn through a pluggable
``respond(turn) -> list[BotMessage]`` (default: echo the first legal action), so tests
can send malformed, illegal, late or misaddressed answers over a real socket.
"""

from __future__ import annotations

import queue
import random
import threading
from typing import Callable

import grpc

from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc


def act(turn: pb.Turn, action: pb.Action, request_id: int | None = None, match_id: str | None = None,
        seat_token: str = "") -> pb.BotMessage:
    """An Act answering ``turn``. An empty ``seat_token`` is filled in by RawBot with the
    token of the Turn's seat (so tests that forge one pass it explicitly)."""
    return pb.BotMessage(
        act=pb.Act(
            match_id=turn.match_id if match_id is None else match_id,
            request_id=turn.request_id if request_id is None else request_id,
            action=action,
            seat_token=seat_token,
        )
    )


class RawBot:
    """``server``: an address, or a ``tests.conftest.ServeProcess`` (then ``token``
    defaults to the bot's own token on it, issued now)."""

    def __init__(self, server, name: str, token: str | None = None, respond: Callable | None = None, seed: int = 0,
                 hello: pb.BotMessage | None = None):
        address = server if isinstance(server, str) else server.address
        if token is None:
            token = "" if isinstance(server, str) else server.bot_token(name)
        self.address = address
        self.name = name
        self.rng = random.Random(seed)
        self.respond = respond or (lambda turn: [act(turn, self.rng.choice(turn.legal_actions))])
        self.received: list[pb.ArbiterMessage] = []
        self.arrived = threading.Condition()  # notified on each message received, and when the stream ends
        self.outbox: queue.Queue = queue.Queue()
        self.hello = hello or pb.BotMessage(hello=pb.Hello(bot_name=name, bot_version="raw", token=token, protocol_version=1))
        self.seat_tokens: dict[tuple[str, int], str] = {}  # (match, seat) -> MatchStart.seat_token
        self.done = threading.Event()
        self.error: Exception | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.channel = grpc.insecure_channel(address)

    def start(self) -> "RawBot":
        self.thread.start()
        return self

    def _requests(self):
        yield self.hello
        while True:
            m = self.outbox.get()
            if m is None:
                return
            yield m

    def _run(self) -> None:
        try:
            for msg in pb_grpc.ArenaStub(self.channel).Play(self._requests()):
                with self.arrived:
                    self.received.append(msg)
                    self.arrived.notify_all()
                if msg.WhichOneof("msg") == "match_start":
                    self.seat_tokens[(msg.match_start.match_id, msg.match_start.seat)] = msg.match_start.seat_token
                if msg.WhichOneof("msg") == "turn":
                    for out in self.respond(msg.turn):
                        if out.WhichOneof("msg") == "act" and not out.act.seat_token:
                            out.act.seat_token = self.seat_tokens.get((msg.turn.match_id, msg.turn.seat), "")
                        self.outbox.put(out)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.CANCELLED:
                self.error = exc
        finally:
            with self.arrived:
                self.done.set()
                self.arrived.notify_all()

    def send(self, msg: pb.BotMessage) -> None:
        self.outbox.put(msg)

    def close(self) -> None:
        self.outbox.put(None)
        self.channel.close()
        if threading.current_thread() is not self.thread:
            self.thread.join(5)

    def of_kind(self, kind: str) -> list:
        return [getattr(m, kind) for m in self.received if m.WhichOneof("msg") == kind]

    def wait_for(self, kind: str, count: int = 1, timeout: float = 10.0) -> list:
        """The messages of ``kind`` once at least ``count`` have arrived (or the stream ended,
        or at the timeout)."""
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.of_kind(kind)) >= count or self.done.is_set(), timeout)
        return self.of_kind(kind)
