"""A standing arbiter stopped (Ctrl-C, TERM) while a match plays stops the match: it has no
result, its caller is told the arbiter is shutting down, and each seat's bot is told the
match stopped. It was played on as if one bot had hung up: `arbiter play --server`
printed a forfeit of the seat whose stream happened to close first ("seat 2 (south):
south: connection closed") and kept that match in its store."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from arbiter.server.app import start_server
from arbiter.server.botstream import Hub
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc

pytestmark = pytest.mark.e2e  # a real arbiter's gRPC server, in this process


async def _scenario() -> tuple[tuple[grpc.StatusCode, str], list[list[str]]]:
    server = await start_server(hub=Hub(open_join=True), admin_token="admin")
    channel = grpc.aio.insecure_channel(server.address)
    streams, seen = [], [[], []]
    for _ in range(2):  # one stream per seat; neither answers its Turns (a ten-minute clock)
        call = pb_grpc.ArenaStub(channel).Play()
        await call.write(pb.BotMessage(hello=pb.Hello(bot_name="north", protocol_version=1, games=["spite-and-malice"])))
        assert (await call.read()).WhichOneof("msg") == "welcome"
        streams.append(call)
    match = asyncio.ensure_future(pb_grpc.MatchesStub(channel).RunMatch(pb.RunMatchRequest(
        game="spite-and-malice", seats=["north", "north"], seed=1, admin_token="admin",
        clock=pb.Clock(decision_ms=600_000, bank_ms=0))))

    started = asyncio.Event()  # both seats have their MatchStart

    async def read_all(i: int) -> None:  # (read(): the stream's first message was read so)
        while (msg := await streams[i].read()) is not grpc.aio.EOF:
            seen[i].append(msg.WhichOneof("msg") + (f":{msg.error.code}" if msg.HasField("error") else ""))
            if all("match_start" in s for s in seen):
                started.set()

    readers = [asyncio.ensure_future(read_all(i)) for i in range(2)]
    async with asyncio.timeout(5):
        await started.wait()
    await server.stop(1.0)
    try:
        await match
        ended = (grpc.StatusCode.OK, "")
    except grpc.RpcError as exc:
        ended = (exc.code(), exc.details())
    await asyncio.wait(readers, timeout=10)
    for reader in readers:  # a stream the stop cut off ends its read with the status
        if reader.done() and not reader.cancelled():
            reader.exception()
    await channel.close()
    return ended, seen


def test_a_match_running_when_the_arbiter_stops_is_stopped_not_forfeited():
    (code, details), seen = asyncio.run(_scenario())
    assert code == grpc.StatusCode.UNAVAILABLE, (code, details)
    assert "shutting down" in details and "no result" in details, details
    for msgs in seen:
        assert "error:stopped" in msgs, msgs
        assert "match_end" not in msgs, msgs


async def _watch_a_stopped_match():
    """A match whose caller hangs up (RunMatch cancelled) while its two seats think, then
    `arbiter watch MATCH` of it: the Outcome of that command."""
    from arbiter.spectating.hub import SpectatorHub
    from tests.cli.badinput import invoke

    spectator = "s" * 24
    server = await start_server(hub=Hub(open_join=True), admin_token="admin", spectators=SpectatorHub(token=spectator))
    channel = grpc.aio.insecure_channel(server.address)
    try:
        streams = []
        for _ in range(2):  # one stream per seat; neither answers its Turns
            call = pb_grpc.ArenaStub(channel).Play()
            await call.write(pb.BotMessage(hello=pb.Hello(bot_name="north", protocol_version=1, games=["spite-and-malice"])))
            assert (await call.read()).WhichOneof("msg") == "welcome"
            streams.append(call)
        match = pb_grpc.MatchesStub(channel).RunMatch(pb.RunMatchRequest(
            game="spite-and-malice", seats=["north", "north"], seed=1, admin_token="admin",
            clock=pb.Clock(decision_ms=600_000, bank_ms=0)))
        async with asyncio.timeout(10):
            while (msg := await streams[0].read()).WhichOneof("msg") != "match_start":
                pass
        match_id = msg.match_start.match_id
        match.cancel()  # the caller hangs up: the match stops, with no result
        async with asyncio.timeout(10):
            while (msg := await streams[0].read()).WhichOneof("msg") != "error":
                pass
        assert msg.error.code == "stopped", msg
        return await asyncio.to_thread(invoke, ["watch", match_id, "--server", server.address, "--token", spectator])
    finally:
        await channel.close()
        await server.stop(1.0)


def test_watching_a_match_that_stopped_says_it_has_no_result():
    """`arbiter watch` of a match that stopped before its end (its caller hung up, the admin
    token revoked, the arbiter stopping) printed the match's header and its moves, then
    ended as if all was well (exit 0): nothing said the match had ended, let alone that it
    has no result. It says so now, and exits 2."""
    done = asyncio.run(_watch_a_stopped_match())
    said = " ".join(done.output.split())
    assert not done.crash and done.exit_code == 2, done.describe()
    assert "stopped before its end" in said and "no result" in said, done.describe()


async def _a_waiting_watch_when_the_arbiter_stops() -> tuple[grpc.StatusCode, str]:
    from arbiter.spectating.hub import SpectatorHub
    from cardarena.v1 import spectate_pb2 as spb
    from cardarena.v1 import spectate_pb2_grpc as spb_grpc

    server = await start_server(admin_token="admin", spectators=SpectatorHub(token="s" * 24))
    channel = grpc.aio.insecure_channel(server.address)
    try:
        watch = spb_grpc.SpectateStub(channel).Watch(spb.WatchRequest(token="s" * 24))  # waits for a match
        await watch.initial_metadata()  # the Watch is accepted
        await server.stop(2.0)
        try:
            await watch.read()
        except grpc.RpcError as exc:
            return exc.code(), exc.details()
        return await watch.code(), await watch.details()
    finally:
        await channel.close()


def test_a_watch_open_when_the_arbiter_stops_is_told_so():
    """`arbiter watch` waiting for a match when the arbiter stopped (Ctrl-C, TERM) ended with
    gRPC's words for a cancelled call ("UNAVAILABLE: Cancelling all calls"); the arbiter
    ends its watches itself now, saying it is shutting down."""
    code, details = asyncio.run(_a_waiting_watch_when_the_arbiter_stops())
    assert code == grpc.StatusCode.UNAVAILABLE and "the arbiter is shutting down" in details, (code, details)
