"""Connects a Bot to an arbiter over gRPC and plays until the arbiter closes the stream.

    import sdk
    sdk.run(MyBot(), address="127.0.0.1:50051", token="...")

or from a shell: ``python -m sdk --bot path/to/mybot.py --address HOST:PORT --token T``
(address and token also from ``ARENA_ADDRESS`` / ``ARENA_TOKEN``). One connection plays
any number of matches, even several at once: each (match, seat) gets a fresh copy of
the bot, so state kept on ``self`` belongs to one match.
"""

from __future__ import annotations

import collections
import logging
import os
import select
import socket
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from google.protobuf.message import DecodeError

from cardarena.v1 import arena_pb2 as pb
from sdk import convert
from sdk.bot import Bot
from cardarena.wire import framing
from cardarena.wire.tls import PEM_CERTIFICATE, unreachable_hint
from cardarena.wire.codec import serialized
from sdk.driver import FAILURE_LIMIT, SeatDriver

# grpc and asyncio (~35 ms of CPU to import) are imported by the gRPC path only (``_play``): the
# arbiter's own bot processes play on the local channel, with no event loop and no HTTP/2.
if TYPE_CHECKING:
    import asyncio

    import grpc

log = logging.getLogger("sdk")


class ArbiterError(Exception):
    """The arbiter refused the session (bad token, protocol) or the stream failed."""


def _think_us(t0: float) -> int:
    """``Act.think_us``: µs since ``t0`` (``time.perf_counter``), at least 1."""
    return max(1, round((time.perf_counter() - t0) * 1e6))


class Connection:
    """The gRPC side of one connection to an arbiter: the arbiter's messages in
    (``handle``), the bot's out (``send``). It turns them into calls on one
    ``SeatDriver`` per (match, seat) (``sdk.driver``, the same driver every transport
    uses) and the drivers' decisions into Acts: it owns nothing of a bot's life in a
    match but the wire, protobuf in, protobuf out.

    A bot never needs anything here. To experiment with the protocol itself (a test of
    an arbiter plays an attacker this way), subclass it and name the subclass in the
    bot's ``connection`` attribute, or pass it to ``run(..., connection=...)``:

    - ``handle(msg)``: called with every ``ArbiterMessage`` after the Welcome, in order;
      call ``super().handle(msg)`` to play on as the SDK does;
    - ``send(msg)``: queue a ``BotMessage`` on the stream (every answer goes through it
      once ``send``, ``_answer`` or ``_act`` is overridden; otherwise the SDK queues its
      answers as their bytes, ``sdk.convert.act_wire``, the very bytes of the message);
    - ``seat_tokens``: ``(match_id, seat) -> MatchStart.seat_token`` of the open seats;
    - ``views``: ``(match_id, seat) -> codec.ViewDeltaReader``, each seat's view as the
      view deltas left it (a test of resync forgets or spoils one);
    - ``view_deltas`` (class attribute): the revision of view deltas the Hello asks for
      (arena.proto ViewDelta); 0 asks for whole views in every Turn;
    - ``frame``: (the message, the bytes it was read from; on the local channel and over
      gRPC alike), whose Turn's legal actions and events ``super().handle`` reads from
      those bytes when it is given that very message; one that changes the message's legal actions or events in
      place first sets it to None (a new message, or a changed count of them, is noticed).
    """

    view_deltas: int = convert.VIEW_DELTAS
    #: False when the Hello carried no token (``run`` sets it): an auth refusal then tells
    #: the author what to set, where the arbiter's words name its operator's command
    token_given: bool = True

    def __init__(self, bot: Bot, name: str):
        self.template = bot
        self.name = name
        self.report: Callable[[str], None] = lambda text: None
        #: what the run loop writes next: BotMessages, and the SDK's own answers as their bytes
        self._outbox: collections.deque[pb.BotMessage | bytes] = collections.deque()
        cls = type(self)
        #: the answers go out as bytes (no message built) unless a subclass changes how they are made or sent
        self._answers_as_bytes = cls.send is Connection.send and cls._answer is Connection._answer and cls._act is Connection._act
        self.drivers: dict[tuple[str, int], SeatDriver] = {}
        self.seat_tokens: dict[tuple[str, int], str] = {}
        self.views: dict[tuple[str, int], convert.ViewDeltaReader] = {}
        #: Act.resync sent (a delta that did not apply to the view held)
        self.resyncs = 0
        self.matches_played = 0
        self.errors: list[str] = []
        #: (match, request) told ``late``, (match, None) told ``stopped``: the answer that was
        #: on its way then comes back ``unknown_request``, the same mishap, not warned of twice
        self._abandoned: collections.deque[tuple[str, int | None]] = collections.deque(maxlen=64)
        #: the arbiter's id of this connection (Welcome.session_id), once welcomed
        self.session_id = ""
        #: (message, the bytes it was parsed from) of the frame being handled, set by the
        #: local channel's loop and the gRPC one: a Turn's legal actions and events are read from those
        #: bytes (``convert.turn_from_proto``, ``events_from_proto``) when ``handle`` is
        #: given that very message
        self.frame: tuple[pb.ArbiterMessage, bytes] | None = None

    def send(self, msg: pb.BotMessage) -> None:
        """Queue ``msg``; the run loop writes what is queued after each ``handle``."""
        self._outbox.append(msg)

    def _take(self) -> pb.BotMessage | None:
        """The next queued message (an answer queued as bytes, parsed), or None."""
        if not self._outbox:
            return None
        out = self._outbox.popleft()
        return pb.BotMessage.FromString(out) if isinstance(out, bytes) else out

    def _take_wire(self) -> bytes | None:
        """The next queued message's bytes, or None: what the run loops write."""
        if not self._outbox:
            return None
        return serialized(self._outbox.popleft())

    def handle(self, msg: pb.ArbiterMessage) -> None:
        which = msg.WhichOneof("msg")
        if which == "match_start":
            info = convert.match_info_from_proto(msg.match_start)
            key = (info.match_id, info.seat)
            self.seat_tokens[key] = msg.match_start.seat_token
            self.drivers[key] = SeatDriver(self.template, info)
        elif which == "turn":
            frame = self.frame
            data = frame[1] if frame is not None and frame[0] is msg else None
            if self._answers_as_bytes and "send" not in self.__dict__:
                self._outbox.append(self._answer_wire(msg.turn, data))
            else:
                self.send(self._answer(msg.turn, data))
        elif which == "update":  # not sent by this arbiter (events come in Turn/MatchEnd); accepted
            driver = self.drivers.get((msg.update.match_id, msg.update.seat))
            if driver is not None and driver.wants_events:
                driver.push(convert.events_from_proto(msg.update))
        elif which == "match_end":
            end = msg.match_end
            key = (end.match_id, end.seat)
            driver = self.drivers.pop(key, None)
            self.seat_tokens.pop(key, None)
            self.views.pop(key, None)
            if driver is not None:
                try:
                    if end.events and driver.wants_events:  # the last events (final trick, scoring) come first
                        driver.push(convert.events_from_proto(end))
                    result = convert.result_from_proto(end)
                except convert.WireError as exc:  # a MatchEnd this SDK cannot read: said, not fatal (as a Turn's)
                    log.error("%s: cannot read the arbiter's MatchEnd of match %s: %s", self.name, end.match_id[:40], exc)
                    self.errors.append(f"unreadable MatchEnd: {exc}")
                else:
                    failure = driver.end(result)
                    if failure:
                        log.error("%s: %s", self.name, failure)
            self.matches_played += 1
        elif which == "error":
            err = msg.error
            if err.code in ("auth", "protocol", "version", "busy"):
                hint = "" if err.code != "auth" or self.token_given else \
                    "; no token was given: set ARENA_TOKEN (or --token) to the one the arbiter's operator issued this bot"
                raise ArbiterError(f"arbiter refused the session: {err.code}: {err.message}{hint}")
            if err.code == "stopped":  # the match ended without a result: its seats' drivers go
                for key in [k for k in self.drivers if k[0] == err.match_id]:
                    self.drivers.pop(key, None)
                    self.seat_tokens.pop(key, None)
                self._abandoned.append((err.match_id, None))
            elif err.code == "late":
                self._abandoned.append((err.match_id, err.request_id))
            self.errors.append(f"{err.code}: {err.message}")
            if err.code == "unknown_request" and ((err.match_id, err.request_id) in self._abandoned
                                                  or (err.match_id, None) in self._abandoned):
                log.info("%s: the answer to request %d came after the arbiter gave it up: %s", self.name,
                         err.request_id, err.message)
            else:
                log.warning("%s: arbiter says %s: %s", self.name, err.code, err.message)

    def _answer(self, turn: pb.Turn, frame: bytes | None = None) -> pb.BotMessage:
        """The Act for ``turn``: the driver's decision on the wire. An action goes as the
        game's typed action; a text that is not one as its notation (the arbiter parses
        it and answers "malformed"); a failure of the bot's code as ``Act.failure`` (the
        arbiter applies the match's policy; the traceback went to stderr, which the
        arbiter keeps for a hosted bot). A bot that called ``sys.exit`` ends the process,
        whichever hook it called it from, at its next answer. ``Act.think_us`` says how
        long this took, from the Turn in hand to the Act made (docs/latency.md)."""
        t0 = time.perf_counter()
        msg = self._act(turn, frame)
        msg.act.think_us = _think_us(t0)
        return msg

    def _answer_wire(self, turn: pb.Turn, frame: bytes | None = None) -> bytes:
        """``_answer``'s message serialized; an action (without a note) is written as bytes
        (``convert.act_wire``: the same bytes, with no message built: 0.9 against 3.8 µs)."""
        t0 = time.perf_counter()
        got = self._decision(turn, frame)
        if type(got) is tuple:
            driver, token, decision = got
            if decision.action is not None and not decision.note:
                return convert.act_wire(driver.game, turn.match_id, turn.request_id, decision.action, token,
                                        _think_us(t0))
            got = self._act_message(turn, driver, token, decision)
        got.act.think_us = _think_us(t0)
        return got.SerializeToString()

    def _act(self, turn: pb.Turn, frame: bytes | None = None) -> pb.BotMessage:
        got = self._decision(turn, frame)
        return self._act_message(turn, *got) if type(got) is tuple else got

    def _decision(self, turn: pb.Turn, frame: bytes | None) -> tuple[SeatDriver, str, Any] | pb.BotMessage:
        """(the seat's driver, its token, the driver's decision) for ``turn``; or the Act
        that answers a Turn this SDK cannot read or whose view delta does not apply."""
        key = (turn.match_id, turn.seat)
        driver = self.drivers[key]
        token = self.seat_tokens.get(key, "")
        try:
            if turn.HasField("view_delta"):  # what changed in the seat's view (arena.proto ViewDelta)
                views = self.views.get(key)
                if views is None:
                    views = self.views[key] = convert.ViewDeltaReader(driver.game)
                got = convert.turn_delta_from_proto(driver.game, turn, views, frame)
                if got is None:  # not the view this seat holds: the whole view, please (nothing else of the Turn is used)
                    self.resyncs += 1
                    log.info("%s: a view delta did not apply (request %d); asking for the whole view", self.name, turn.request_id)
                    return pb.BotMessage(act=pb.Act(match_id=turn.match_id, request_id=turn.request_id, seat_token=token,
                                                    resync=True))
                view, legal = got
            else:
                view, legal = convert.turn_from_proto(driver.game, turn, frame)
            if driver.wants_events and turn.events:  # what happened since this seat's last message
                driver.push(convert.events_from_proto(turn, frame))
        except convert.WireError as exc:  # a Turn this SDK cannot read: said, not fatal
            log.error("%s: cannot read the arbiter's Turn: %s", self.name, exc)
            return pb.BotMessage(act=pb.Act(match_id=turn.match_id, request_id=turn.request_id, seat_token=token,
                                            failure=f"the SDK could not read the Turn: {exc}"[:FAILURE_LIMIT]))
        return driver, token, driver.decide(view, legal)

    def _act_message(self, turn: pb.Turn, driver: SeatDriver, token: str, decision: Any) -> pb.BotMessage:
        """The Act of ``decision`` as a message (an exit raises SystemExit here)."""
        if decision.action is not None:
            msg = convert.act_to_proto(driver.game, turn.match_id, turn.request_id, decision.action, token)
            if decision.note:
                msg.act.note = decision.note
            return msg
        if decision.exited:
            raise SystemExit(decision.exit_code)
        act = pb.Act(match_id=turn.match_id, request_id=turn.request_id, seat_token=token, note=decision.note)
        if decision.failure:
            log.error("%s: %s", self.name, decision.failure)
            act.failure = decision.failure
        else:  # a text that is no action of the game: as the bot wrote it, for the arbiter to refuse
            act.action.notation = decision.notation
        return pb.BotMessage(act=act)


def run(
    bot: Bot,
    address: str | None = None,
    token: str | None = None,
    name: str | None = None,
    stop: threading.Event | None = None,
    tls_ca: bytes | str | None = None,
    report: Callable[[str], None] | None = None,
    connection: type[Connection] | None = None,
) -> int:
    """Play on the arbiter at ``address`` until it closes the stream; returns matches played.

    ``tls_ca``: connect with TLS, trusting this CA certificate (PEM bytes, or a file path;
    env ``ARENA_TLS_CA``); ``b""`` trusts the system's CAs. None: a plain channel (an
    arbiter on loopback or a Unix socket). ``report`` is told, in words, when the
    session opens and when the arbiter closes it (``python -m sdk`` prints them).

    Raises ArbiterError if the arbiter refuses the session. What the bot's code does
    wrong (a hook that raises, no action) is told to the arbiter as that seat's answer
    (``sdk.driver``), and the connection plays on; a bot that calls ``sys.exit`` ends it
    (the arbiter records a disconnect for its seats). Setting ``stop`` (from another
    thread) ends the connection and returns; a ``Stop`` may also be set from a signal
    handler, and on the local channel needs no thread to watch it. ``connection``: the
    ``Connection`` class to play through (default: the bot's ``connection`` attribute,
    else ``Connection``).
    """
    address = address or os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051")
    token = token if token is not None else os.environ.get("ARENA_TOKEN", "")
    name = name or bot.name
    tls_ca = tls_ca if tls_ca is not None else os.environ.get("ARENA_TLS_CA")
    if isinstance(tls_ca, str) and tls_ca:
        try:
            ca_file, tls_ca = tls_ca, Path(tls_ca).read_bytes()
        except OSError as exc:
            raise ArbiterError(f"--tls-ca {tls_ca}: {exc.strerror or exc}") from None
        if PEM_CERTIFICATE not in tls_ca:  # (grpc logs four lines of its own, then "Failed to create security handshaker")
            raise ArbiterError(f"--tls-ca {ca_file}: not a PEM certificate (no {PEM_CERTIFICATE.decode()} line): "
                               "give the CA certificate that signed the arbiter's --tls-cert")
    session = (connection or getattr(bot, "connection", None) or Connection)(bot, name)
    if report is not None:
        session.report = report
    session.token_given = bool(token)
    # One thread, one event loop: reading a Turn, deciding and writing the Act never cross
    # threads (the blocking API's request iterator did, costing hand-offs every decision).
    hello = convert.hello(name, bot.version, token, bot.games, session.view_deltas)
    if address.startswith(framing.SCHEME):  # the arbiter's own bot processes: the local channel, no event loop
        path = address.removeprefix(framing.SCHEME)
        play: Callable[[], int] = lambda: _play_local(session, path, hello, stop)  # noqa: E731
    else:
        import asyncio

        play = lambda: asyncio.run(_play(session, address, hello, stop, tls_ca))  # noqa: E731
    in_async_code = False
    if (aio := sys.modules.get("asyncio")) is not None:  # (not imported for this: without it no event loop runs)
        try:
            aio.get_running_loop()
        except RuntimeError:  # the usual case: no event loop in this thread
            pass
        else:
            in_async_code = True
    if not in_async_code:  # (outside the except: a bot's traceback then is its own alone)
        return play()
    # called from async code (a notebook, an async app): play on a thread of its own
    result: list[int] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            result.append(play())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            errors.append(exc)

    thread = threading.Thread(target=worker, name=f"sdk-{name}", daemon=True)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


#: The bot stream's method. The SDK reads its messages as bytes and parses them itself (what
#: grpc's deserializer would do), so that, as on the local channel, a Turn's legal actions
#: are found by their bytes in the frame (``session.frame``, ``codec.legal_actions_from_frame``).
PLAY = f"/{pb.DESCRIPTOR.services_by_name['Arena'].full_name}/Play"  # as the .proto names it
_PARSE_ARBITER = pb.ArbiterMessage.FromString


def _channel(address: str, tls_ca: bytes | str | None) -> grpc.aio.Channel:
    import grpc

    if tls_ca is None:
        return grpc.aio.insecure_channel(address)
    return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=tls_ca or None))


async def _play(session: Connection, address: str, hello: pb.BotMessage, stop: threading.Event | None,
                tls_ca: bytes | str | None = None) -> int:
    import asyncio

    import grpc

    name = session.name
    write_failed = False
    try:
        async with _channel(address, tls_ca) as channel:
            call = channel.stream_stream(PLAY, request_serializer=serialized)()  # the answers as bytes (below)
            if stop is not None:
                loop = asyncio.get_running_loop()
                task = asyncio.current_task()
                threading.Thread(target=_cancel_on, args=(stop, loop, call, task), daemon=True).start()
            writable = await _write(call, hello)
            first = True
            # (iterate, not call.read(): read() drops messages still buffered once the
            # status has arrived, and the arbiter's last words, e.g. Error(flood), matter)
            async for data in call:
                msg = _PARSE_ARBITER(data)
                if first:
                    first = False
                    _welcomed(session, msg, address)
                    continue
                session.frame = (msg, data)
                session.handle(msg)
                while (out := session._take_wire()) is not None:
                    if writable:
                        writable = await _write(call, out)
                        write_failed = write_failed or not writable
                if not writable:
                    session._outbox.clear()
    except asyncio.CancelledError:
        if stop is not None and stop.is_set():
            return session.matches_played
        raise
    except DecodeError:  # (grpc's own deserializer failed the call as INTERNAL here)
        raise ArbiterError("stream failed: a message from the arbiter is not an ArbiterMessage") from None
    except grpc.RpcError as exc:
        if exc.code() == grpc.StatusCode.CANCELLED and stop is not None and stop.is_set():
            return session.matches_played
        if exc.code() == grpc.StatusCode.INTERNAL and write_failed:
            # grpc.aio replaces the status with INTERNAL when a write meets a stream the
            # arbiter has just closed; its last messages were read above. (The blocking
            # API reported the arbiter's own status, normally OK, here.)
            log.info("%s: the arbiter closed the stream while an answer was being sent", name)
            session.report(_closed(session))
            return session.matches_played
        if exc.code() == grpc.StatusCode.UNAVAILABLE:
            # (past its Welcome, the connection was there: no hint of how to reach it)
            hint = "" if session.session_id else unreachable_hint(address, exc.details() or "", tls_ca is not None,
                                                                  "--tls-ca", "ARENA_TLS_CA")
            raise ArbiterError(f"cannot reach the arbiter at {address}: {exc.details()}{hint}") from None
        raise ArbiterError(f"stream failed: {exc.code().name}: {exc.details()}") from None
    session.report(_closed(session))
    return session.matches_played


def _welcomed(session: Connection, msg: pb.ArbiterMessage, address: str) -> None:
    """The arbiter's first answer must be its Welcome; its Error (auth, protocol) raises."""
    if msg.WhichOneof("msg") != "welcome":
        session.handle(msg)  # an auth/protocol error raises here
        raise ArbiterError(f"expected Welcome, got {msg.WhichOneof('msg')}")
    session.session_id = msg.welcome.session_id
    log.info("%s connected to %s as %s", session.name, address, msg.welcome.session_id)
    session.report(f"connected to {address} as {session.name} (session {msg.welcome.session_id})")


#: The largest frame the SDK reads from the local channel (a Turn is a few KiB).
MAX_ARBITER_FRAME = 16 << 20


def _play_local(session: Connection, path: str, hello: pb.BotMessage, stop: threading.Event | None) -> int:
    """``_play`` over the local channel (``cardarena.wire.framing``): the same messages in
    length-prefixed frames on a Unix socket, for the bot processes an arbiter hosts.

    No event loop: one thread blocks on the socket, reads a frame, lets the connection
    handle it and writes its answers (docs/performance.md, "A lean hosted decision").
    ``stop`` (a TERM, Ctrl-C, another thread) shuts the socket down, which ends the read.
    Writing never waits on the arbiter without reading: an answer that does not fit the
    socket's buffer at once is written while what arrives is read and kept, so that when
    the arbiter closes the stream (a flood, a protocol error) its last messages are still
    read, as grpc's stream delivers them."""
    address = framing.SCHEME + path
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        raise ArbiterError(f"cannot reach the arbiter at {address}: {exc.strerror or exc}") from None
    done = threading.Event()
    if isinstance(stop, Stop):  # it shuts the socket down itself when set: no thread to watch it
        stop.watch(sock)
    elif stop is not None:
        threading.Thread(target=_shutdown_on, args=(stop, done, sock), daemon=True).start()
    channel = _FrameSocket(sock, MAX_ARBITER_FRAME)
    try:
        channel.write(framing.frame(hello.SerializeToString()))
        first = True
        while (data := channel.read()) is not None:
            msg = pb.ArbiterMessage.FromString(data)
            if first:
                first = False
                _welcomed(session, msg, address)
                continue
            session.frame = (msg, data)
            session.handle(msg)
            if session._outbox:
                out = []
                while (m := session._take_wire()) is not None:
                    out.append(framing.frame(m))
                channel.write(b"".join(out))
    except (ConnectionError, framing.FrameError) as exc:  # the arbiter went away mid-frame
        if stop is not None and stop.is_set():
            return session.matches_played
        log.info("%s: the local channel ended: %s", session.name, exc)
    finally:
        done.set()
        if isinstance(stop, Stop):
            stop.watch(None)
        sock.close()
    if stop is not None and stop.is_set():
        return session.matches_played
    session.report(_closed(session))
    return session.matches_played


class Stop(threading.Event):
    """A ``stop`` for ``run`` that, once set, also shuts down the local channel's socket
    itself (a blocked read then ends), so the blocking loop starts no thread to watch it
    (``python -m sdk`` sets it from its TERM and Ctrl-C handlers; a thread started per bot
    process cost a forked child ~0.3 ms of CPU, docs/performance.md "Eleventh session").
    Set from a signal handler (the reading thread's, whose read the signal interrupted)
    or from any thread. A plain ``threading.Event`` works as well: the loop then starts a
    thread that waits on it."""

    def __init__(self) -> None:
        super().__init__()
        # A signal handler may interrupt itself: a second TERM or Ctrl-C handled while the
        # first one's set() holds the event's lock. With threading.Event's plain lock that
        # second set() waited for it forever (the process hung, neither stopping nor
        # playing); a reentrant one lets it through.
        self._cond = threading.Condition(threading.RLock())
        self._sock: socket.socket | None = None

    def set(self) -> None:
        super().set()
        _shut(self._sock)

    def watch(self, sock: socket.socket | None) -> None:
        """Shut ``sock`` down when set (at once if set already); None: no socket any more."""
        self._sock = sock
        if sock is not None and self.is_set():  # (set before: its own _shut may have missed it)
            _shut(sock)


def _shut(sock: socket.socket | None) -> None:
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _shutdown_on(stop: threading.Event, done: threading.Event, sock: socket.socket) -> None:
    """Shut ``sock`` down once ``stop`` is set (a blocked read then ends), unless the
    connection is over (``done``) first."""
    while not done.is_set():
        if stop.wait(0.5):
            _shut(sock)
            return


class _FrameSocket:
    """Frames on a blocking Unix socket: ``read`` the next one, ``write`` some."""

    __slots__ = ("sock", "frames", "writable")

    def __init__(self, sock: socket.socket, limit: int):
        self.sock = sock
        self.frames = framing.FrameReader(limit)  # what was read and not yet handed out
        self.writable = True

    def read(self) -> bytes | None:
        """The next frame's payload; None at a clean end (between frames); FrameError if it
        announces more than the limit or the stream ends inside it."""
        frames = self.frames
        while (payload := frames.next()) is None:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                frames.end()
                return None
            if (payload := frames.whole(chunk)) is not None:  # the usual case: one frame, read whole
                return payload
            frames.feed(chunk)
        return payload

    def write(self, data: bytes) -> None:
        """Write ``data``, reading (and keeping) what arrives while the socket's buffer is
        full. Once the arbiter no longer takes any (it closed the stream), writes are
        dropped: the reads that follow deliver its last messages."""
        if not self.writable:
            return
        view = memoryview(data)
        while view:
            try:
                sent = self.sock.send(view, socket.MSG_DONTWAIT)
            except BlockingIOError:
                sent = 0
            except OSError:  # EPIPE, ECONNRESET: the arbiter closed the stream
                self.writable = False
                return
            view = view[sent:]
            if view:
                readable, _, _ = select.select([self.sock], [self.sock], [])
                if readable:
                    try:
                        chunk = self.sock.recv(65536, socket.MSG_DONTWAIT)
                    except BlockingIOError:
                        continue
                    except OSError:
                        self.writable = False
                        return
                    if not chunk:  # the arbiter closed: nothing more is read or written
                        self.writable = False
                        return
                    self.frames.feed(chunk)


def _closed(session: Connection) -> str:
    n = session.matches_played
    return f"the arbiter closed the connection ({n} match{'' if n == 1 else 'es'} played)"


async def _write(call: Any, msg: pb.BotMessage | bytes) -> bool:
    """Write one message; False once the stream no longer takes any (the arbiter closed it:
    the reads that follow deliver its last messages and its status)."""
    if call.done():  # a write now would fail and replace the arbiter's status with INTERNAL
        return False
    import asyncio

    import grpc

    try:
        await call.write(msg)
        return True
    except (asyncio.InvalidStateError, grpc.RpcError):
        return False


def _cancel_on(stop: threading.Event, loop: asyncio.AbstractEventLoop, call: Any, task: asyncio.Task | None) -> None:
    stop.wait()
    try:
        loop.call_soon_threadsafe(call.cancel)
        # and the task: a write still waiting for the connection (a peer that took the TCP
        # connection and never speaks HTTP/2) does not wake on the call's cancel
        if task is not None:
            loop.call_soon_threadsafe(task.cancel)
    except RuntimeError:  # the loop has finished: the stream is closed already
        pass
