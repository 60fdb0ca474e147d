"""The Spectate gRPC service: lists watchable matches and streams their frames.

It serves whatever spectating hub it is given (``arbiter.spectating.SpectatorHub``): the
hub decides what a frame holds, this servicer checks the spectator token and encodes. A
Watch holds its token for as long as it streams: once the token is revoked (rotated:
``arbiter credentials revoke spectator``), the stream ends with PERMISSION_DENIED, as a
revoked bot's stream ends (``auth.REVOKE_CHECK_S``); once the arbiter stops
(``Hub.stopping``), with UNAVAILABLE, saying so.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Awaitable, TypeVar

import grpc

from arbiter.server.auth import current, require_token, same, until_revoked
from cardarena.v1 import spectate_pb2 as spb
from cardarena.v1 import spectate_pb2_grpc as spb_grpc
from cardarena.wire.frames import frame_to_proto

T = TypeVar("T")

REVOKED = "the spectator token was revoked (arbiter credentials revoke spectator); the stream is closed"
STOPPING = "the arbiter is shutting down; the stream is closed"


class SpectateServicer(spb_grpc.SpectateServicer):
    """Spectate: lists matches and streams public frames (hidden cards only with a delay)."""

    #: How long Watch with an empty match id waits for a match to start.
    WAIT_FOR_NEXT_S = 60.0

    def __init__(self, hub: Any, admin_token: Any = None, stopping: asyncio.Event | None = None):
        self.hub = hub
        #: The arbiter's admin token (or its ``Live`` reader) counts as a spectator's: who may
        #: run a match (`arbiter play --server`) may watch it, and be told whose turn it waits on.
        self.admin_token = admin_token
        #: Set when the arbiter stops (its bot stream hub's, ``Hub.stopping``): each Watch ends
        #: then, saying so, not as a call gRPC cancels ("Cancelling all calls").
        self.stopping = stopping or asyncio.Event()

    def _holder(self, token: str) -> Any:
        """The credential ``token`` is held against (and revoked with): the admin's, if it is
        that, else the spectator's."""
        admin = current(self.admin_token)
        return self.admin_token if admin is not None and token and same(admin, token) else self.hub.token

    async def _check_token(self, token: str, context) -> Any:
        """The credential ``token`` was accepted as (``_holder``); the call aborted if none."""
        holder = self._holder(token)
        await require_token(holder, token, context, "this arbiter requires a spectator token (arbiter watch --token)",
                            kind="spectator")
        return holder

    async def ListMatches(self, request: spb.ListMatchesRequest, context) -> spb.ListMatchesResponse:
        await self._check_token(request.token, context)
        return spb.ListMatchesResponse(matches=[
            spb.MatchListing(match_id=m.match_id, game=m.game, seat_names=list(m.seat_names), steps=m.steps,
                             running=m.running, started=m.started)
            for m in self.hub.listing(request.include_finished)
        ])

    async def Watch(self, request: spb.WatchRequest, context) -> AsyncIterator[spb.WatchFrame]:
        holder = await self._check_token(request.token, context)
        if request.hidden_cards and self.hub.delay is None:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                "this arbiter shows hidden cards only after a match ends (no --spectator-delay): "
                                "watch without --hidden-cards, and each match's full deal is shown as it ends")
        await context.send_initial_metadata(())  # the Watch is accepted (a client may wait for this)
        revoked = asyncio.ensure_future(until_revoked(holder, request.token))
        stopping = asyncio.ensure_future(self.stopping.wait())
        frames = None
        try:
            try:
                live = await self._unless(revoked, stopping, self.hub.find(request.match_id, self.WAIT_FOR_NEXT_S), context)
            except LookupError as exc:  # the hub's NotFound
                await context.abort(grpc.StatusCode.NOT_FOUND, str(exc))
            frames = self.hub.follow(live, request.hidden_cards)
            while True:
                try:
                    frame = await self._unless(revoked, stopping, frames.__anext__(), context)
                except StopAsyncIteration:
                    return
                yield frame_to_proto(live.game, frame)
        finally:
            revoked.cancel()
            stopping.cancel()
            if frames is not None:
                await frames.aclose()

    @staticmethod
    async def _unless(revoked: asyncio.Future, stopping: asyncio.Future, step: Awaitable[T], context) -> T:
        """``step``'s result, unless the token is revoked or the arbiter stops first: then the
        call ends, saying which."""
        task = asyncio.ensure_future(step)
        try:
            await asyncio.wait({task, revoked, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not task.done():
                task.cancel()
                await asyncio.wait({task})  # (a generator's step is over before it is closed)
            if not task.cancelled():
                # read even when this call is cancelled: a watcher leaving as its match's
                # last frame ended the step (StopAsyncIteration) logged "Task exception was
                # never retrieved" on the arbiter's stderr
                task.exception()
        if not task.cancelled():
            return task.result()
        if stopping.done():
            await context.abort(grpc.StatusCode.UNAVAILABLE, STOPPING)
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, REVOKED)
        raise AssertionError("unreachable")


def add_spectate_service(hub: Any, server: grpc.aio.Server, admin_token: Any = None,
                         stopping: asyncio.Event | None = None) -> str:
    """Register the Spectate servicer on ``server`` (``admin_token``: the arbiter's, which
    may watch too; ``stopping``: set when the arbiter stops); returns its full service name."""
    spb_grpc.add_SpectateServicer_to_server(SpectateServicer(hub, admin_token, stopping), server)
    return spb.DESCRIPTOR.services_by_name["Spectate"].full_name
