"""The arbiter's gRPC server: the services of arbiter.server put together on one port
(and a Unix socket for sandboxed bots), with health and reflection."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2

from arbiter import scratch
from arbiter.server import auth, host_port, localchannel
from arbiter.server.botstream import HELLO_TIMEOUT_S, SERVER_OPTIONS, BotStreamServicer, Hub, MatchesServicer, add_arena
from arbiter.server.bots import add_bots_service
from arbiter.server.spectate import add_spectate_service
from cardarena.records import Clock
from cardarena.wire import framing
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc

log = logging.getLogger(__name__)


#: The coroutines grpc.aio runs around each RPC it serves (grpc/_cython/_cygrpc/aio/server.pyx.pxi).
_RPC_COROUTINES = frozenset({"_schedule_rpc_coro", "_handle_exceptions", "_handle_rpc", "_MessageReceiver.__anext__"})


async def rpcs_ended(timeout: float) -> None:
    """Wait (at most ``timeout`` s) until no task of an RPC grpc.aio was serving is left.

    ``server.stop(grace)`` cancels the RPCs still running when the grace ends but returns
    before their tasks have finished (grpc/grpc#37239); a loop closed right after
    (``asyncio.run`` returning) cancels them again, and a traceback of their CancelledError
    lands on stderr: it did at the end of ``arbiter bots submit`` when a bot process had
    not said Hello yet. Found by their coroutines' names, grpc's own: with other names
    (another grpc version) nothing is waited for, and tests/arbiter/server/test_server_stop.py fails.
    """
    me = asyncio.current_task()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        pending = {t for t in asyncio.all_tasks() if t is not me and not t.done()
                   and getattr(t.get_coro(), "__qualname__", "") in _RPC_COROUTINES}
        if not pending:
            return
        await asyncio.wait(pending, timeout=max(0.0, deadline - loop.time()))


@dataclass
class RunningServer:
    server: grpc.aio.Server
    port: int
    hub: Hub
    #: the local channel beside the Unix socket (``localchannel``), for the bots the arbiter hosts
    local: asyncio.AbstractServer | None = None
    #: closes the streams of bots whose token is revoked (``Hub.drop_revoked``)
    watcher: asyncio.Task | None = None
    #: the spectating hub its Spectate service serves (None: no Spectate service); its
    #: ``observers(config)`` are what a match played elsewhere passes to be watchable here
    spectators: Any = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def stop(self, grace: float = 1.0) -> None:
        # The matches first (no result; their bots told "stopped"), then the streams: a
        # stream closed under a running match would be scored as that bot's disconnect.
        self.hub.stopping.set()
        if self.hub.matches:
            await asyncio.wait(set(self.hub.matches), timeout=grace)
        for session in list(self.hub.sessions.values()):
            session.close()
        if self.local is not None:
            self.local.close()
        if self.watcher is not None:
            self.watcher.cancel()
        await self.server.stop(grace)
        await rpcs_ended(grace + 1.0)
        if self.hub.unix_path:
            shutil.rmtree(Path(self.hub.unix_path).parent, ignore_errors=True)


#: The longest path a Unix socket may have (the kernel's sun_path, 108 bytes with its NUL).
MAX_UNIX_PATH = 107


def socket_dir() -> Path:
    """A fresh folder for the server's Unix socket: in the temporary folder, or in /tmp when
    that folder's path is too long for a socket (a long TMPDIR); OSError, saying so, if
    neither will do."""
    first = scratch.make("arena-sock-")
    if len(os.fsencode(first / "arena.sock")) <= MAX_UNIX_PATH:
        return first
    shutil.rmtree(first, ignore_errors=True)
    try:
        second = scratch.make("arena-sock-", Path("/tmp"))
    except OSError as exc:
        raise OSError(f"the temporary folder's path ({first.parent}) is too long for a Unix socket and /tmp is not "
                      f"usable ({exc}); set TMPDIR to a shorter path") from None
    if len(os.fsencode(second / "arena.sock")) > MAX_UNIX_PATH:  # cannot happen with /tmp, but say so if it does
        shutil.rmtree(second, ignore_errors=True)
        raise OSError(f"no folder short enough for a Unix socket; set TMPDIR to a shorter path than {first.parent}")
    return second


#: The standard reflection service (grpcurl asks it first); its messages are those of
#: v1alpha field for field, so the v1alpha servicer answers both.
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"


def _add_reflection_v1(server: grpc.aio.Server, service_names: list[str]) -> None:
    servicer = reflection.aio.ReflectionServicer(service_names)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": handler}),))


async def start_server(
    port: int = 0,
    host: str = "127.0.0.1",
    hub: Hub | None = None,
    admin_token: Any = None,
    default_clock: Clock = Clock(),
    spectators: Any = None,
    bots_catalog: Any = None,
    author_tokens: Any = None,
    tls: tuple[bytes, bytes] | None = None,
    hello_timeout: float = HELLO_TIMEOUT_S,
) -> RunningServer:
    """Start the arbiter's gRPC server on ``host:port`` (0 = any free port).

    ``admin_token`` unlocks the Matches service (and all of Bots); without one a random
    token nobody knows is used, so Matches is locked. ``spectators`` (an
    ``arbiter.spectating.SpectatorHub``, or None for no Spectate service) receives the
    matches run by Matches.RunMatch and serves them on the Spectate service.
    ``bots_catalog`` (an ``arbiter.server.bots.BotCatalog``) adds the Bots service.
    ``tls`` (certificate chain, private key; PEM) serves TLS on ``host:port``; the Unix
    socket for sandboxed bots on this machine stays plain. ``hello_timeout``: seconds a
    new stream has to say Hello.
    """
    hub = hub or Hub()
    admin_token = admin_token or auth.new_token()
    server = grpc.aio.server(options=SERVER_OPTIONS)
    bot_stream = BotStreamServicer(hub, hello_timeout)
    add_arena(bot_stream, server)
    matches_servicer = MatchesServicer(hub, admin_token, default_clock)
    names = [
        pb.DESCRIPTOR.services_by_name["Arena"].full_name,
        pb.DESCRIPTOR.services_by_name["Matches"].full_name,
    ]
    if spectators is not None:
        matches_servicer.observers_for = spectators.observers
        names.append(add_spectate_service(spectators, server, admin_token, hub.stopping))
    pb_grpc.add_MatchesServicer_to_server(matches_servicer, server)
    if bots_catalog is not None:  # the Bots service (arbiter.server.bots), behind author/admin tokens
        names.append(add_bots_service(server, bots_catalog, admin_token, author_tokens or {}))
    served = list(names)  # what health reports SERVING
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names += [health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME, REFLECTION_V1]
    reflection.enable_server_reflection(names, server)
    _add_reflection_v1(server, names)
    address = host_port(host, port)
    bound = server.add_secure_port(address, grpc.ssl_server_credentials([(tls[1], tls[0])])) if tls else \
        server.add_insecure_port(address)
    if bound == 0:
        raise OSError(f"cannot listen on {address}")
    # Sandboxed bots have no network: they reach the arbiter through this socket only. The
    # folder and both sockets are the arbiter's user's alone (0700, 0600): its bots run as
    # that user, or (as root, under bwrap) get a uid of their own and the sockets' group
    # (hosting.sandbox.grant_sockets: 0660); no other local user may connect.
    sock_dir = socket_dir()
    sock_dir.chmod(0o700)
    if server.add_insecure_port(f"unix:{sock_dir / 'arena.sock'}"):
        hub.unix_path = str(sock_dir / "arena.sock")
    await server.start()
    if hub.unix_path:
        Path(hub.unix_path).chmod(0o600)
    # The same bot stream in plain frames, for the bot processes this arbiter starts itself
    # (--transport local): the same servicer, so the same Hello, tokens and limits.
    local_path = sock_dir / framing.SOCKET_NAME
    local = await localchannel.serve(bot_stream, str(local_path))
    local_path.chmod(0o600)
    hub.local_path = str(local_path)
    for name in served + [""]:
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info("arbiter listening on %s%s", host_port(host, bound), " (TLS)" if tls else "")
    watcher = asyncio.create_task(_drop_revoked(hub)) if hub.credentials is not None else None
    return RunningServer(server, bound, hub, local, watcher, spectators)


async def _drop_revoked(hub: Hub) -> None:
    """A revoked bot token takes effect at once: its open streams are closed."""
    while True:
        await asyncio.sleep(auth.REVOKE_CHECK_S)
        try:
            hub.drop_revoked()
        except Exception:  # noqa: BLE001 - a broken file keeps the last good credentials; never stop
            log.exception("checking for revoked tokens failed")


async def start_private_server(spectators: Any = None) -> RunningServer:
    """An arbiter on a free loopback port for the matches its caller runs between the bot
    processes its caller starts (a tournament, `arbiter play`, a cluster worker, a check).

    The bots reach this server too, so what they must not use is locked with tokens they
    never see: the Matches service (a bot could start matches that tie up the others)
    and the Spectate service (with repeated deals, another match's public plays show the
    hands a bot plays against). ``spectators`` (a SpectatorHub) must carry its own token,
    for the organiser; without one, the server has no Spectate service at all."""
    if spectators is not None and spectators.token is None:
        raise ValueError("a private arbiter's spectators need a token: its bots reach the same server")
    return await start_server(0, spectators=spectators, admin_token=auth.new_token(18))
