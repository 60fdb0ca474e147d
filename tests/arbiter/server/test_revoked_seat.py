"""A bot whose token is revoked while it plays (`arbiter credentials revoke NAME`) has its
stream closed and its seats follow the disconnect policy; the match's record said only
"NAME: connection closed", as if the bot had hung up. It says the token was revoked."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from arbiter.server import auth
from arbiter.server.app import start_server
from arbiter.server.botstream import Hub
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc

pytestmark = pytest.mark.e2e  # a real arbiter's gRPC server, in this process


async def _revoked_mid_match(path) -> pb.MatchSummary:
    creds = auth.ensure(path, ("north",))
    server = await start_server(hub=Hub(credentials=auth.LiveCredentials(path)), admin_token=creds.admin)
    channel = grpc.aio.insecure_channel(server.address)
    try:
        streams = []
        for _ in range(2):  # one stream per seat; neither answers its Turns
            call = pb_grpc.ArenaStub(channel).Play()
            await call.write(pb.BotMessage(hello=pb.Hello(bot_name="north", token=creds.bots["north"], protocol_version=1,
                                                          games=["spite-and-malice"])))
            assert (await call.read()).WhichOneof("msg") == "welcome"
            streams.append(call)
        match = pb_grpc.MatchesStub(channel).RunMatch(pb.RunMatchRequest(
            game="spite-and-malice", seats=["north", "north"], seed=1, admin_token=creds.admin,
            clock=pb.Clock(decision_ms=600_000, bank_ms=0)))
        async with asyncio.timeout(10):
            while (await streams[0].read()).WhichOneof("msg") != "match_start":
                pass
        auth.revoke(path, bots=("north",))
        async with asyncio.timeout(30):
            return await match
    finally:
        await channel.close()
        await server.stop(1.0)


def test_a_seat_whose_bot_is_revoked_says_so_in_the_record(tmp_path):
    summary = asyncio.run(_revoked_mid_match(tmp_path / "creds.json"))
    assert summary.incidents and "token was revoked" in summary.incidents[0], summary.incidents
