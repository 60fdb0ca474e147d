"""A hostile client written from the .proto files alone (the generated stubs in
cardarena.v1, not the SDK), against a real `arbiter serve` started with no security
flags: what an outsider with a bot token can and cannot do (README, "Security").

Each test names the promise it checks; each fails if the promise is broken.
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arbiter.server import auth
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from tests.cli.badinput import run_in_process
from tests.conftest import start_serve, stop_serve, tls_certificate
from tests.e2e.rawbot import RawBot, act


#: The tests that share the module's `arbiter` fixture: one xdist group (--dist loadgroup,
#: tests/conftest.py), so it is made once in a run.
SHARED = pytest.mark.xdist_group("hostile_client")


@pytest.fixture(scope="module")
def arbiter():
    s = start_serve("--hello-timeout", "1.5")
    yield s
    stop_serve(s)


def _hello(name: str, token: str, version: str = "1", protocol: int = 1) -> pb.BotMessage:
    return pb.BotMessage(hello=pb.Hello(bot_name=name, bot_version=version, token=token, protocol_version=protocol))


def _first_reply(address: str, messages: list[pb.BotMessage], timeout: float = 10) -> list[pb.ArbiterMessage]:
    """Send ``messages`` on a fresh stream and read what comes back until it closes."""
    with grpc.insecure_channel(address) as ch:
        try:
            return list(pb_grpc.ArenaStub(ch).Play(iter(messages), timeout=timeout))
        except grpc.RpcError as exc:
            assert exc.code() != grpc.StatusCode.DEADLINE_EXCEEDED, "the arbiter did not close the stream"
            return []


def _run_match(arbiter, seats, token=None, seed=1, game="spades", options=None):
    with grpc.insecure_channel(arbiter.address) as ch:
        return pb_grpc.MatchesStub(ch).RunMatch(pb.RunMatchRequest(
            game=game, seats=seats, seed=seed, options=options or {"deals": "1"},
            admin_token=arbiter.admin_token if token is None else token), timeout=120)


@SHARED
def test_a_bot_token_can_neither_start_a_match_nor_choose_a_seed(arbiter):
    bot_token = arbiter.bot_token("h1")
    for token in (bot_token, "", "x" * 40):
        with pytest.raises(grpc.RpcError) as e:
            _run_match(arbiter, ["h1"] * 4, token=token, seed=1234)
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with grpc.insecure_channel(arbiter.address) as ch, pytest.raises(grpc.RpcError) as e:
            pb_grpc.MatchesStub(ch).ListSessions(pb.ListSessionsRequest(admin_token=token), timeout=10)
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED


@SHARED
def test_no_one_takes_another_bots_name(arbiter):
    north = arbiter.bot_token("north")
    south = arbiter.bot_token("south")
    for token in (south, "", "guess-" * 5):
        replies = _first_reply(arbiter.address, [_hello("north", token)])
        assert [r.WhichOneof("msg") for r in replies] == ["error"] and replies[0].error.code == "auth", replies
    replies = _first_reply(arbiter.address, [_hello("north", north)])
    assert replies and replies[0].WhichOneof("msg") == "welcome"  # the real north (stream closed after)


@SHARED
def test_one_stream_never_holds_two_seats_of_one_match(arbiter):
    px = RawBot(arbiter, "px").start()
    helpers = [RawBot(arbiter, f"h{i}").start() for i in (1, 2)]
    arbiter.wait_sessions(["px", "h1", "h2"])
    with pytest.raises(grpc.RpcError) as e:
        _run_match(arbiter, ["px", "h1", "px", "h2"])
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "connections of bot 'px'" in e.value.details()
    px2 = RawBot(arbiter, "px").start()
    arbiter.wait_sessions(["px", "px", "h1", "h2"])
    summary = _run_match(arbiter, ["px", "h1", "px", "h2"])
    assert not summary.incidents
    for bot in (px, px2):
        bot.wait_for("match_end")
        seats = {m.match_start.seat for m in bot.received if m.WhichOneof("msg") == "match_start"
                 and m.match_start.match_id == summary.match_id}
        assert len(seats) == 1  # each px connection got exactly one seat's messages
    for b in (px, px2, *helpers):
        b.close()


@SHARED
def test_what_a_bot_sends_is_bounded_wherever_it_is_echoed(arbiter):
    huge = "Z" * 60_000
    replies = _first_reply(arbiter.address, [_hello("fat", arbiter.bot_token("fat"), version=huge)])
    assert replies and replies[0].error.code == "protocol" and len(replies[0].error.message) < 400
    replies = _first_reply(arbiter.address, [_hello("Q" * 60_000, "t")])
    assert replies and len(replies[0].error.message) < 400

    def respond(turn):  # a 60,000-character card in its answer
        a = pb.Action()
        if turn.legal_actions[0].spades.HasField("play"):
            a.spades.play.card = huge
        else:
            a.notation = "bid " + huge
        return [act(turn, a)]

    bad = RawBot(arbiter, "big", respond=respond).start()
    others = [RawBot(arbiter, f"o{i}").start() for i in range(3)]
    arbiter.wait_sessions(["big", "o0", "o1", "o2"])
    summary = _run_match(arbiter, ["big", "o0", "o1", "o2"])
    bad.wait_for("match_end")
    errors = [m.error for m in bad.received if m.WhichOneof("msg") == "error"]
    assert errors and all(len(e.message) < 500 for e in errors)
    assert summary.incidents and all(len(i) < 500 for i in summary.incidents)
    assert len(pb.MatchSummary.FromString(summary.SerializeToString()).outcome.detail) < 500
    for b in (bad, *others):
        b.close()


@SHARED
def test_the_protocol_promises_hold(arbiter):
    token = arbiter.bot_token("proto")
    # the protocol version is checked, with its own code
    for version in (0, 2):
        replies = _first_reply(arbiter.address, [_hello("proto", token, protocol=version)])
        assert replies[0].error.code == "version"
    # a second Hello closes the stream with "protocol"
    replies = _first_reply(arbiter.address, [_hello("proto", token), _hello("proto", token)])
    kinds = [r.WhichOneof("msg") for r in replies]
    assert kinds == ["welcome", "error"] and replies[1].error.code == "protocol" and "second Hello" in replies[1].error.message
    # request ids are unique per session, across matches
    bots = [RawBot(arbiter, f"u{i}").start() for i in range(4)]
    arbiter.wait_sessions([f"u{i}" for i in range(4)])
    for seed in (1, 2):
        _run_match(arbiter, [f"u{i}" for i in range(4)], seed=seed)
    for b in bots:
        b.wait_for("match_end", 2)
        ids = [m.turn.request_id for m in b.received if m.WhichOneof("msg") == "turn"]
        assert len(ids) == len(set(ids)) > 13 and len({m.turn.match_id for m in b.received if m.WhichOneof("msg") == "turn"}) == 2
        b.close()


@SHARED
def test_a_silent_stream_is_closed_and_silent_streams_are_capped(arbiter):
    # a stream that never says Hello is closed after --hello-timeout (1.5 s here)
    gate = threading.Event()

    def never():
        gate.wait(30)
        return
        yield

    with grpc.insecure_channel(arbiter.address) as ch:
        got = list(pb_grpc.ArenaStub(ch).Play(never(), timeout=20))
        gate.set()
    assert [m.error.code for m in got] == ["protocol"] and "no Hello within 1.5 s" in got[0].error.message


def test_idle_streams_cannot_keep_a_real_bot_out():
    """#32 item 2: a client holding more streams open without a word than the pre-Hello cap
    (64) does not lock real bots out: each new stream closes the one that has waited
    longest, and a bot that says Hello at once gets its Welcome while the idle ones wait."""
    s = start_serve("--hello-timeout", "20", "--bot", "north")
    try:
        token = auth.read(s.credentials).bots["north"]
        stop = threading.Event()
        answers: queue.Queue = queue.Queue()

        def idle():
            stop.wait(30)
            return
            yield

        with grpc.insecure_channel(s.address) as ch:
            stub = pb_grpc.ArenaStub(ch)

            def open_one():
                try:
                    for m in stub.Play(idle(), timeout=25):
                        answers.put(m.error.message)
                except grpc.RpcError:
                    answers.put("rpc-error")

            threads = [threading.Thread(target=open_one, daemon=True) for _ in range(80)]
            for t in threads:
                t.start()
            # past the cap the longest waiting are closed: 16 of the 80, as they are bumped
            bumped = [answers.get(timeout=20) for _ in range(80 - 64)]
            assert all("waited longest" in m for m in bumped), bumped
            # the 64 still held, a real bot comes in
            replies = _first_reply_until_welcome(s.address, _hello("north", token))
            assert replies[0].WhichOneof("msg") == "welcome", replies
            stop.set()
            for t in threads:
                t.join(10)
    finally:
        stop_serve(s)


def _first_reply_until_welcome(address: str, hello: pb.BotMessage) -> list[pb.ArbiterMessage]:
    """The first answer to ``hello`` on a fresh stream (the stream is then dropped)."""
    with grpc.insecure_channel(address) as ch:
        gate = threading.Event()

        def messages():
            yield hello
            gate.wait(10)

        call = pb_grpc.ArenaStub(ch).Play(messages(), timeout=20)
        try:
            return [next(iter(call))]
        finally:
            gate.set()
            call.cancel()


def test_wrong_credentials_are_answered_in_turn_whoever_asks():
    """auth.GuessLimiter: a burst, then one wrong answer per 1/rate seconds per kind; a new
    peer, another stream or another kind's success does not reset or split it."""
    limiter = auth.GuessLimiter(rate=20.0, burst=5)
    delays = [limiter.delay("bot") for _ in range(9)]
    assert delays[:5] == [0.0] * 5
    assert all(b > a for a, b in zip(delays[4:], delays[5:]))  # every further one waits its turn
    assert delays[-1] >= 4 / 20 - 0.01
    assert limiter.delay("admin") == 0.0  # kinds are counted apart
    assert limiter.delay("bot") >= 5 / 20 - 0.01  # nothing reset the bot tokens' queue


@SHARED
def test_guessing_in_parallel_stays_under_the_documented_rate(arbiter):
    """#32 item 3: 60 wrong Hello tokens and 60 wrong admin tokens, 20 streams at once
    each: the arbiter answers them no faster than its limit (a burst of GUESS_BURST, then
    GUESS_RATE a second, per kind), and a right answer does not clear it."""
    n = 60

    def wrong_hello(i: int) -> str:
        replies = _first_reply(arbiter.address, [_hello("guess", f"guess-number-{i:04d}-xxxxxxxx")], timeout=30)
        return replies[0].error.code if replies else "none"

    def wrong_admin(i: int) -> str:
        with grpc.insecure_channel(arbiter.address) as ch:
            try:
                pb_grpc.MatchesStub(ch).ListSessions(pb.ListSessionsRequest(admin_token=f"wrong-admin-{i:04d}-xxxxxx"),
                                                     timeout=30)
            except grpc.RpcError as exc:
                return exc.code().name
        return "OK"

    admin = auth.read(arbiter.credentials).admin
    for guess in (wrong_hello, wrong_admin):
        t0 = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(20) as pool:
            codes = list(pool.map(guess, range(n)))
        elapsed = time.monotonic() - t0
        assert set(codes) <= {"auth", "PERMISSION_DENIED"}, codes
        assert elapsed >= (n - auth.GUESS_BURST) / auth.GUESS_RATE - 0.1, f"{guess.__name__}: {n} in {elapsed:.2f} s"
    with grpc.insecure_channel(arbiter.address) as ch:  # the right admin token is not made to wait its turn
        pb_grpc.MatchesStub(ch).ListSessions(pb.ListSessionsRequest(admin_token=admin), timeout=5)


def test_health_and_reflection_cover_every_service(tmp_path):
    s = start_serve("--bots-db", str(tmp_path / "arena.sqlite"))
    try:
        with grpc.insecure_channel(s.address) as ch:
            stub = health_pb2_grpc.HealthStub(ch)
            for service in ("cardarena.v1.Arena", "cardarena.v1.Matches", "cardarena.v1.Spectate", "cardarena.v1.Bots", ""):
                assert stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5).status == \
                    health_pb2.HealthCheckResponse.SERVING, service
            from grpc_reflection.v1alpha import reflection_pb2

            for path in ("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                         "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"):
                call = ch.stream_stream(path, request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
                                        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
                names = {x.name for r in call(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5)
                         for x in r.list_services_response.service}
                assert {"cardarena.v1.Arena", "cardarena.v1.Matches", "cardarena.v1.Spectate", "cardarena.v1.Bots",
                        "grpc.reflection.v1.ServerReflection"} <= names, (path, names)
    finally:
        stop_serve(s)


@SHARED
def test_the_credentials_file_is_private(arbiter):
    assert arbiter.credentials.stat().st_mode & 0o777 == 0o600


def test_serve_refuses_a_reachable_interface_without_tls():
    # in this process (stdout and stderr apart, an escaping exception fails; were it to serve,
    # it would stop once up and say 0): the refusal is the command's, before it serves
    proc = run_in_process("serve", "--host", "0.0.0.0", "--port", "0", serving=True)
    assert proc.returncode == 2 and "--tls-cert" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_in_process("serve", "--open", "--host", "0.0.0.0", "--insecure", serving=True)
    assert proc.returncode == 2 and "--open" in proc.stderr


def test_tls_carries_a_real_match_and_plain_clients_are_refused(tmp_path):
    cert, key = tls_certificate(tmp_path)
    s = start_serve("--tls-cert", str(cert), "--tls-key", str(key))
    try:
        names = ["t0", "t1"]
        for n in names:  # SDK bots over TLS, trusting the test CA
            s.start_bot("random", n, extra_env={"ARENA_TLS_CA": str(cert)})
        creds = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        with grpc.secure_channel(s.address, creds) as ch:
            stub = pb_grpc.MatchesStub(ch)
            # as ServeProcess.wait_sessions, over TLS: the server announces no session
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                live = [x.bot_name for x in stub.ListSessions(pb.ListSessionsRequest(admin_token=s.admin_token), timeout=5).sessions]
                if set(names) <= set(live):
                    break
                time.sleep(0.1)
            summary = stub.RunMatch(pb.RunMatchRequest(game="spite-and-malice", seats=names, seed=3,
                                                       options={"payoff_size": "5"}, admin_token=s.admin_token), timeout=120)
            assert not summary.incidents and summary.decisions > 0
        with grpc.insecure_channel(s.address) as ch, pytest.raises(grpc.RpcError) as e:
            pb_grpc.MatchesStub(ch).ListSessions(pb.ListSessionsRequest(admin_token=s.admin_token), timeout=5)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        stop_serve(s)
