"""A bot's session lives exactly as long as its stream (issue #41: the fuzz campaign found
sessions that outlived theirs). A real `arbiter serve`, a client written from the .proto:
streams that say a real Hello and are cancelled at once, before or while the Welcome is
written, leave no session behind; a stream that stays open keeps its own.
"""

from __future__ import annotations

import asyncio
import random
import time

import grpc
import pytest

from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from tests.conftest import start_serve, stop_serve

pytestmark = pytest.mark.e2e

BOTS = [f"b{i}" for i in range(12)]
ROUNDS = 15
#: A bound on the wait for the server to drop the cancelled streams' sessions (a budget,
#: not a measurement: it drops them as soon as it reads each stream's end).
GONE_WITHIN_S = 20


def _hello(name: str, token: str) -> bytes:
    return pb.BotMessage(hello=pb.Hello(bot_name=name, bot_version="1", token=token, protocol_version=1)).SerializeToString()


def _play(channel: grpc.aio.Channel):
    return channel.stream_stream("/cardarena.v1.Arena/Play", request_serializer=None, response_deserializer=None)(timeout=60)


def test_a_stream_cancelled_around_its_welcome_leaves_no_session():
    s = start_serve()
    try:
        tokens = {n: s.bot_token(n) for n in [*BOTS, "keeper"]}
        rng = random.Random(41)

        def sessions() -> list[str]:
            with grpc.insecure_channel(s.address) as ch:
                reply = pb_grpc.MatchesStub(ch).ListSessions(pb.ListSessionsRequest(admin_token=s.admin_token))
            return sorted(x.bot_name for x in reply.sessions)

        async def cancelled(channel, name: str) -> None:
            call = _play(channel)
            await call.write(_hello(name, tokens[name]))
            await asyncio.sleep(rng.random() * 0.01)  # before, while or after the Welcome is written
            call.cancel()

        async def run() -> list[str]:
            async with grpc.aio.insecure_channel(s.address) as channel:
                keeper = _play(channel)  # a real bot that stays: its session must stay too
                await keeper.write(_hello("keeper", tokens["keeper"]))
                first = pb.ArbiterMessage.FromString(await keeper.read())
                assert first.WhichOneof("msg") == "welcome", first
                for _ in range(ROUNDS):
                    await asyncio.gather(*(cancelled(channel, n) for n in BOTS))
                left = await asyncio.to_thread(sessions)
                deadline = time.monotonic() + GONE_WITHIN_S
                while left != ["keeper"] and time.monotonic() < deadline:
                    await asyncio.sleep(0.2)
                    left = await asyncio.to_thread(sessions)
                keeper.cancel()
                return left

        assert asyncio.run(run()) == ["keeper"]
        assert s.proc.poll() is None
    finally:
        stop_serve(s)
