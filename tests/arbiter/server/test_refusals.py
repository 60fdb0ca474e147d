"""What the Matches and Spectate services answer a wrong token: that it is wrong, not that
none was given."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from arbiter.server.app import start_server
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc

pytestmark = pytest.mark.e2e  # a real arbiter's gRPC server, in this process


async def _refusals() -> dict[str, str]:
    from arbiter.spectating.hub import SpectatorHub
    from cardarena.v1 import spectate_pb2 as spb
    from cardarena.v1 import spectate_pb2_grpc as spb_grpc

    server = await start_server(admin_token="a" * 24, spectators=SpectatorHub(token="s" * 24))
    said = {}
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            for token in ("", "x" * 24):
                try:
                    await pb_grpc.MatchesStub(channel).ListSessions(pb.ListSessionsRequest(admin_token=token))
                except grpc.RpcError as exc:
                    said[f"admin {token[:1]}"] = exc.details()
                try:
                    await spb_grpc.SpectateStub(channel).ListMatches(spb.ListMatchesRequest(token=token))
                except grpc.RpcError as exc:
                    said[f"spectator {token[:1]}"] = exc.details()
    finally:
        await server.stop(1.0)
    return said


def test_a_wrong_token_is_told_from_a_missing_one():
    """A wrong admin or spectator token (one revoked and replaced a minute before) was
    answered "admin token required: pass --admin-token ..." as if none had been passed."""
    said = asyncio.run(_refusals())
    for kind in ("admin", "spectator"):
        assert "given is not" not in said[f"{kind} "], said
        assert said[f"{kind} x"].startswith(f"the {kind} token given is not this arbiter's (revoked and replaced"), said


async def _flood(n: int) -> dict:
    from arbiter.spectating.hub import SpectatorHub
    from cardarena.v1 import spectate_pb2 as spb
    from cardarena.v1 import spectate_pb2_grpc as spb_grpc

    server = await start_server(admin_token="a" * 24, spectators=SpectatorHub(token="s" * 24))
    codes: dict = {}
    try:
        async with grpc.aio.insecure_channel(server.address) as channel:
            stub = spb_grpc.SpectateStub(channel)

            async def one() -> None:
                try:
                    await stub.ListMatches(spb.ListMatchesRequest(token="x" * 24), timeout=60)
                except grpc.RpcError as exc:
                    key = (exc.code(), "busy" if "token was not checked" in (exc.details() or "") else "")
                    codes[key] = codes.get(key, 0) + 1

            await asyncio.gather(*(one() for _ in range(n)))
    finally:
        await server.stop(1.0)
    return codes


def test_wrong_tokens_from_one_address_cannot_pile_up():
    """Wrong spectator, admin or author tokens each waited for their turn of the one limit on
    wrong credentials (20 a second), however many came from one address: 5,000 from one
    client held 5,000 calls (70 MB of the arbiter's memory) for four minutes, where a bot
    stream's refusals were bounded. At most 32 of one address wait; a further call is told
    it is busy at once, its token unchecked, as a bot's Hello is."""
    from arbiter.server import auth

    codes = asyncio.run(_flood(auth.MAX_REFUSING_PER_PEER + auth.GUESS_BURST + 100))
    assert codes.get((grpc.StatusCode.RESOURCE_EXHAUSTED, "busy"), 0) >= 80, codes
    assert set(codes) <= {(grpc.StatusCode.RESOURCE_EXHAUSTED, "busy"), (grpc.StatusCode.PERMISSION_DENIED, "")}, codes
