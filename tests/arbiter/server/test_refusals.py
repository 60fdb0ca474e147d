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
