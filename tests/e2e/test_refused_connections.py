"""Refused Hellos cannot pile up (issue #41 item 4), and the arbiter's sockets are its own.

A real `arbiter serve`, clients written from the .proto: a flood of Hellos with wrong
tokens from one address is bounded (``botstream.MAX_REFUSING_PER_PEER`` wait for their
turn of the limit on wrong credentials, the rest are told "busy" at once, their tokens
unchecked), so every one is answered and closed long before the limiter alone would have
answered them, and a real bot's Hello gets in meanwhile. The Unix sockets beside the port
are 0600 in a 0700 folder: no other local user reaches them.
"""

from __future__ import annotations

import asyncio
import collections
import os
import re
import socket
import stat
import time
from pathlib import Path

import grpc
import pytest

from arbiter.server import auth
from arbiter.server.botstream import MAX_REFUSING_PER_PEER
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from tests.conftest import start_serve, stop_serve

pytestmark = pytest.mark.e2e

FLOOD = 600
WAVE = 40  # streams opened at once: fewer than the cap on streams yet to say Hello
#: A generous bound (a budget, not a measurement): the limiter alone answers 20 a second,
#: so FLOOD waiting their turns would take 30 s.
ANSWERED_WITHIN_S = 20


def _hello(name: str, token: str) -> pb.BotMessage:
    return pb.BotMessage(hello=pb.Hello(bot_name=name, bot_version="1", token=token, protocol_version=1))


async def _first_reply(address: str, hello: pb.BotMessage, hold: asyncio.Event | None = None) -> str:
    """The code of the first answer to ``hello`` on a stream of its own channel ("welcome",
    an Error's code, or the gRPC status); ``hold``: keep the stream open until it is set."""
    async with grpc.aio.insecure_channel(address) as channel:
        async def messages():
            yield hello
            if hold is not None:
                await hold.wait()

        call = pb_grpc.ArenaStub(channel).Play(messages(), timeout=ANSWERED_WITHIN_S + 20)
        try:
            async for msg in call:
                return "welcome" if msg.WhichOneof("msg") == "welcome" else msg.error.code
            return "closed"
        except grpc.aio.AioRpcError as exc:
            return exc.code().name
        finally:
            call.cancel()


async def _from_another_address(address: str, source: str) -> tuple[asyncio.AbstractServer, str]:
    """A TCP relay to ``address`` whose connections come from ``source`` (another address of
    this machine, so another peer to the arbiter); the address to dial it at."""
    host, port = address.rsplit(":", 1)

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(host, int(port), local_addr=(source, 0))
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        except (ConnectionError, OSError, asyncio.CancelledError):
            writer.close()

    server = await asyncio.start_server(relay, "127.0.0.1", 0)
    return server, f"127.0.0.1:{server.sockets[0].getsockname()[1]}"


def test_a_flood_of_wrong_hellos_is_answered_at_once_and_a_real_bot_gets_in():
    """One address (127.0.0.1) floods; a real bot at another (127.0.0.2) says Hello meanwhile."""
    s = start_serve("--bot", "north")
    try:
        token = auth.read(s.credentials).bots["north"]

        async def flood() -> tuple[collections.Counter, str]:
            relay, via = await _from_another_address(s.address, "127.0.0.2")
            replies = []
            for i in range(FLOOD):
                replies.append(asyncio.ensure_future(_first_reply(s.address, _hello("north", f"wrong-token-{i:05d}-xx"))))
                if i % WAVE == WAVE - 1:
                    await asyncio.sleep(0.1)
            hold = asyncio.Event()
            real = await _first_reply(via, _hello("north", token), hold)  # during the flood
            hold.set()
            relay.close()
            done, pending = await asyncio.wait(replies, timeout=ANSWERED_WITHIN_S)
            for p in pending:
                p.cancel()
            return collections.Counter([d.result() for d in done] + ["unanswered"] * len(pending)), real

        t0 = time.monotonic()
        codes, real = asyncio.run(flood())
        assert real == "welcome", real
        # none unanswered, none UNAVAILABLE ("protocol": past the cap on streams yet to say
        # Hello, the one that waited longest is closed)
        assert set(codes) <= {"auth", "busy", "protocol"}, codes
        elapsed = time.monotonic() - t0
        assert elapsed < ANSWERED_WITHIN_S
        # the wrong tokens checked were only those the limit on wrong credentials answered
        # in the time (the rest: "busy", unchecked, or closed before their Hello)
        assert codes["auth"] <= MAX_REFUSING_PER_PEER + auth.GUESS_BURST + auth.GUESS_RATE * elapsed, codes
        assert codes["busy"] > 0, codes
        assert s.proc.poll() is None  # the server is alive and well
    finally:
        stop_serve(s)


def _unix_sockets(pid: int) -> list[Path]:
    """The Unix sockets process ``pid`` listens on (by the inodes of its descriptors)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            m = re.fullmatch(r"socket:\[(\d+)\]", os.readlink(fd))
        except OSError:
            continue
        if m:
            inodes.add(m.group(1))
    out = []
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 8 and fields[6] in inodes and fields[7].startswith("/"):
            out.append(Path(fields[7]))
    return out


def test_the_arbiters_sockets_are_its_users_alone():
    s = start_serve()
    try:
        socks = _unix_sockets(s.proc.pid)
        assert {p.name for p in socks} >= {"arena.sock", "local.sock"}, socks
        for p in socks:
            assert stat.S_IMODE(p.stat().st_mode) == 0o600, (p, oct(p.stat().st_mode))
            assert stat.S_IMODE(p.parent.stat().st_mode) == 0o700, p.parent
    finally:
        stop_serve(s)


def _connect_all(paths: list[str], uid: int | None = None) -> list[str]:
    """How a connection to each of ``paths`` went ("connected", or the error's name), tried
    by a forked child, as ``uid`` (and no group of the arbiter's) when given."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: nothing of pytest's runs here
        try:
            os.close(r)
            if uid is not None:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
            said = []
            for path in paths:
                with socket.socket(socket.AF_UNIX) as s:
                    try:
                        s.connect(path)
                        said.append("connected")
                    except OSError as exc:
                        said.append(type(exc).__name__)
            os.write(w, " ".join(said).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        out = f.read().decode().split()
    os.waitpid(pid, 0)
    return out


def test_another_local_user_reaches_neither_socket_the_local_channel_as_grpc():
    """The local channel (the default wire of hosted Python bots) is as closed as the gRPC
    socket: as root, a process of another uid (nobody) is refused by both, where the
    arbiter's own user connects to both (then Hello needs a launch token on either)."""
    s = start_serve()
    try:
        socks = sorted(str(p) for p in _unix_sockets(s.proc.pid) if p.name in ("arena.sock", "local.sock"))
        assert len(socks) == 2, socks
        assert _connect_all(socks) == ["connected", "connected"]
        if os.geteuid() == 0:  # only root can be another user
            assert _connect_all(socks, uid=65534) == ["PermissionError", "PermissionError"]
    finally:
        stop_serve(s)
