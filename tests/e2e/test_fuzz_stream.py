"""Fuzzing the bot stream of a real `arbiter serve` process: random bytes and mutated
protobuf messages (valid Hello and Act messages with bytes flipped, cut, inserted,
repeated), alone or after a valid Hello. Every stream must end (an error, or the
arbiter's reply) within a few seconds, and the arbiter must keep serving."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from cardarena.v1 import arena_pb2 as pb
from tests.conftest import ServeProcess, start_serve, stop_serve

HELLO = pb.BotMessage(hello=pb.Hello(bot_name="fuzz", bot_version="1", games=["spades"], protocol_version=1)).SerializeToString()
ACT = pb.BotMessage(act=pb.Act(match_id="m" * 12, request_id=7, seat_token="t" * 22, action=pb.Action(notation="play QS"))).SerializeToString()
_SERVE = {}


def serve_process() -> ServeProcess:
    """One `arbiter serve` for the module; its stderr goes to a file that is never full
    (a pipe nobody reads would block the arbiter's logging: a hang of the harness)."""
    if "s" not in _SERVE or not _SERVE["s"].alive():
        _SERVE["s"] = start_serve()
    return _SERVE["s"]


def teardown_module() -> None:
    if "s" in _SERVE:
        stop_serve(_SERVE["s"])


def test_random_and_mutated_messages_never_crash_or_hang_the_arbiter():
    # hypothesis is imported here, not at the module's top: every xdist worker collects
    # this file, and importing hypothesis costs each of them half a CPU-second.
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @st.composite
    def mutated(draw, seed_messages=(HELLO, ACT)):
        data = bytearray(draw(st.sampled_from(seed_messages)))
        for _ in range(draw(st.integers(1, 6))):
            op = draw(st.sampled_from(["flip", "cut", "insert", "repeat"]))
            i = draw(st.integers(0, max(0, len(data) - 1)))
            if op == "flip" and data:
                data[i] ^= draw(st.integers(1, 255))
            elif op == "cut":
                del data[i:i + draw(st.integers(1, 8))]
            elif op == "insert":
                data[i:i] = draw(st.binary(min_size=1, max_size=8))
            else:
                data += data[i:]
        return bytes(data)

    payloads = st.one_of(st.binary(max_size=300), mutated())

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(messages=st.lists(payloads, min_size=1, max_size=4), hello_first=st.booleans())
    def never_crash_or_hang(messages, hello_first):
        one_stream(messages, hello_first)

    never_crash_or_hang()


def one_stream(messages: list[bytes], hello_first: bool) -> None:
    serve = serve_process()
    # a Hello with the bot's real token, so what follows it reaches the session's reader
    hello = pb.BotMessage.FromString(HELLO)
    hello.hello.token = serve.bot_token("fuzz")
    stream = ([hello.SerializeToString()] if hello_first else []) + messages
    with grpc.insecure_channel(serve.address) as ch:
        call = ch.stream_stream("/cardarena.v1.Arena/Play", request_serializer=None, response_deserializer=None)
        try:
            for _ in call(iter(stream), timeout=5):  # our side closes after the last message
                pass
        except grpc.RpcError as exc:
            assert exc.code() != grpc.StatusCode.DEADLINE_EXCEEDED, "the arbiter hung on this stream"
            assert exc.code() != grpc.StatusCode.UNAVAILABLE, "the arbiter went away"
        health = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=5)
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert serve.alive()
