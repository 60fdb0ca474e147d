"""Over gRPC a Turn travels as the bytes the arbiter wrote (``codec.turn_wire``): the
arbiter's Play stream writes them as they are (``codec.serialized``: no message parsed
from them only to be serialized again), and the SDK reads the stream's messages as bytes
and keeps them beside the parsed message (``Connection.frame``), so that, as on the local
channel, a Turn's legal actions are found by their bytes (docs/performance.md, "The gRPC
path's CPU")."""

from __future__ import annotations

import asyncio
import threading

import pytest

from arbiter.server.app import start_server
from cardarena.games import get_game
from cardarena.v1 import arena_pb2 as pb
from cardarena.wire import codec
from sdk.bot import Bot
from sdk.runner import ArbiterError, Connection, run

pytestmark = pytest.mark.e2e  # a real arbiter's gRPC server and the SDK's gRPC loop, in this process


class _First(Bot):
    name = "first"

    def choose(self, view, legal_actions):
        return legal_actions[0]


class _Recording(Connection):
    """A Connection that keeps, for each Turn, the bytes it was handed beside the message."""

    turns: list = []
    got = threading.Event()  # set once a Turn was handled

    def handle(self, msg: pb.ArbiterMessage) -> None:
        if msg.WhichOneof("msg") == "turn":
            frame = self.frame
            _Recording.turns.append(frame[1] if frame is not None and frame[0] is msg else None)
            _Recording.got.set()
        super().handle(msg)


def _turn_fields_reversed(turn: pb.Turn) -> bytes:
    """A serialized ArbiterMessage holding ``turn`` with its fields written last first: the
    same message, but bytes protobuf's serializer never writes (it writes fields in order)."""
    parts = []
    for field, value in turn.ListFields():
        one = pb.Turn()
        if field.is_repeated:
            getattr(one, field.name).extend(value)
        elif field.message_type is not None:
            getattr(one, field.name).CopyFrom(value)
        else:
            setattr(one, field.name, value)
        parts.append(one.SerializeToString())
    body = b"".join(reversed(parts))
    return codec._length_delimited(codec._tag(pb.ArbiterMessage.DESCRIPTOR.fields_by_name["turn"], 2), body)


def _play_in_thread(address: str, token: str, result: list) -> threading.Thread:
    def target() -> None:
        try:
            result.append(run(_First(), address=address, token=token, connection=_Recording))
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            result.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def test_a_turns_bytes_reach_the_sdk_over_grpc_as_the_arbiter_wrote_them():
    state = get_game("spades", {"deals": 1}).new_initial_state(3)
    seat = state.current_seat
    turn = codec.turn_to_proto("spades", "m", 1, seat, state.view(seat), state.legal_actions(), 1000, 60000).turn
    sent = _turn_fields_reversed(turn)
    assert pb.ArbiterMessage.FromString(sent).turn == turn
    assert sent != pb.ArbiterMessage(turn=turn).SerializeToString()  # a parse and serialize would change them
    _Recording.turns = []
    _Recording.got.clear()

    async def main() -> None:
        server = await start_server(0)
        try:
            hub = server.hub
            token = hub.expect("first")
            result: list = []
            thread = _play_in_thread(server.address, token, result)
            session = await hub.wait_for("first", 10)  # the bot's session, once it said Hello
            session.send(pb.ArbiterMessage(match_start=pb.MatchStart(
                match_id="m", game="spades", seat=seat, num_seats=4, seat_token="tok", options={"deals": "1"})))
            session.send(sent)
            assert await asyncio.to_thread(_Recording.got.wait, 10), "the SDK never handled the Turn"
            session.close()
            await asyncio.to_thread(thread.join, 10)
            assert not thread.is_alive() and result == [0]
        finally:
            await server.stop(0.5)

    asyncio.run(main())
    assert _Recording.turns == [sent]


def test_bytes_from_the_arbiter_that_are_no_arbiter_message_end_the_sdks_run_with_an_arbiter_error():
    async def main() -> list:
        server = await start_server(0)
        try:
            token = server.hub.expect("first")
            result: list = []
            thread = _play_in_thread(server.address, token, result)
            (await server.hub.wait_for("first", 10)).send(b"\xff\xff\xff")  # no ArbiterMessage
            await asyncio.to_thread(thread.join, 10)
            assert not thread.is_alive()
            return result
        finally:
            await server.stop(0.5)

    result = asyncio.run(main())
    assert len(result) == 1 and isinstance(result[0], ArbiterError), result
    assert "not an ArbiterMessage" in str(result[0])
