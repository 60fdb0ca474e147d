"""The Spectate gRPC service: lists watchable matches and streams their frames.

It serves whatever spectating hub it is given (``arbiter.spectating.SpectatorHub``): the
hub decides what a frame holds, this servicer checks the spectator token and encodes.
"""

from __future__ import annotations

from typing import Any, AsyncIterator

import grpc

from arbiter.server.auth import require_token
from cardarena.v1 import spectate_pb2 as spb
from cardarena.v1 import spectate_pb2_grpc as spb_grpc
from cardarena.wire.frames import frame_to_proto


class SpectateServicer(spb_grpc.SpectateServicer):
    """Spectate: lists matches and streams public frames (hidden cards only with a delay)."""

    #: How long Watch with an empty match id waits for a match to start.
    WAIT_FOR_NEXT_S = 60.0

    def __init__(self, hub: Any):
        self.hub = hub

    async def _check_token(self, token: str, context) -> None:
        await require_token(self.hub.token, token, context, "this arbiter requires a spectator token (arbiter watch --token)",
                            kind="spectator")

    async def ListMatches(self, request: spb.ListMatchesRequest, context) -> spb.ListMatchesResponse:
        await self._check_token(request.token, context)
        return spb.ListMatchesResponse(matches=[
            spb.MatchListing(match_id=m.match_id, game=m.game, seat_names=list(m.seat_names), steps=m.steps,
                             running=m.running, started=m.started)
            for m in self.hub.listing(request.include_finished)
        ])

    async def Watch(self, request: spb.WatchRequest, context) -> AsyncIterator[spb.WatchFrame]:
        await self._check_token(request.token, context)
        if request.hidden_cards and self.hub.delay is None:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                "this arbiter shows hidden cards only after a match ends (no --spectator-delay)")
        try:
            live = await self.hub.find(request.match_id, self.WAIT_FOR_NEXT_S)
        except LookupError as exc:  # the hub's NotFound
            await context.abort(grpc.StatusCode.NOT_FOUND, str(exc))
        async for frame in self.hub.follow(live, request.hidden_cards):
            yield frame_to_proto(live.game, frame)


def add_spectate_service(hub: Any, server: grpc.aio.Server) -> str:
    """Register the Spectate servicer on ``server``; returns its full service name."""
    spb_grpc.add_SpectateServicer_to_server(SpectateServicer(hub), server)
    return spb.DESCRIPTOR.services_by_name["Spectate"].full_name
