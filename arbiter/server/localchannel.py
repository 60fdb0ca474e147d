"""The local channel: the bot stream over a Unix socket without HTTP/2.

For the bot processes the arbiter starts itself (``--transport local``), a second Unix
socket beside the gRPC one carries the same messages in length-prefixed frames
(``cardarena.wire.framing``). Each connection is handed to the one bot-stream servicer
(``botstream.BotStreamServicer.Play``) as if it were a gRPC stream: the same Hello, tokens,
limits on wrong tokens and silent streams, session, routing of Acts, flood rules, and the
same match runner behind it. Only the bytes on the socket differ, and how few times the
event loop wakes for them: once the session is open, a message the arbiter sends is
written to the socket where it is sent (``Session.wire``), and a bot's message is handled
where its frame is read (``BotStreamServicer.receive``, from ``data_received``): an Act
resolves its decision's future without any task in between (docs/performance.md).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import math
import os
import select
import socket
import struct
import threading
import time
from typing import Any, AsyncIterator, Callable, Sequence

from google.protobuf.message import DecodeError

from arbiter.server.botstream import MAX_BOT_MESSAGE_BYTES, BotStreamServicer, Session, _err
from cardarena.v1 import arena_pb2 as pb
from cardarena.wire.framing import FrameError, FrameReader, frame

log = logging.getLogger(__name__)

#: Bytes written to a bot and not yet taken by it past which its session is closed as one
#: that stopped reading (the outbox's MAX_OUTBOX for the gRPC stream).
MAX_UNREAD_BYTES = 8 << 20
#: Seconds a closed connection's unread bytes are kept for a bot that does not read them.
CLOSE_GRACE_S = 10.0


def _peer_uid(sock: Any) -> str:
    """Who is at the other end, for the servicer's log: over a Unix socket a local uid."""
    try:
        _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        return str(uid)
    except (OSError, AttributeError, struct.error):
        return "?"


class _Connection(asyncio.Protocol):
    """One bot's connection. Until its session is open the frames it reads are queued for
    the servicer's Hello (``messages``); from then on (``attach``) each is handled as it
    is read, and every message for the bot is written as it is sent. It is also the
    servicer's context (``peer``, ``attach``)."""

    def __init__(self, servicer: BotStreamServicer):
        self.servicer = servicer
        self.transport: asyncio.Transport | None = None
        self.frames = FrameReader(MAX_BOT_MESSAGE_BYTES)
        self.incoming: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.session: Session | None = None
        self.broken = ""  # why the stream ended on a bad frame
        self.ended = False  # no more frames will be read
        self.finished: asyncio.Future | None = None  # set when an attached session ends
        self._peer = "local:uid=?"
        #: The match thread that reads and writes this connection now (``_Pump``), or None:
        #: the event loop does. While lent: what could not be written at once (``spill``),
        #: and the event loop's own work on it, done when it is given back (``later``).
        self.pump: "_Pump | None" = None
        self.spill = bytearray()
        self.fd = -1  # its socket's, while lent
        self.later: list[Callable[[], None]] = []

    # --- the servicer's context -----------------------------------------------------

    def peer(self) -> str:
        return self._peer

    async def attach(self, session: Session, servicer: BotStreamServicer) -> None:
        """Play ``session`` on this connection until it closes: writes go straight to the
        socket, frames are handled as they are read."""
        self.finished = asyncio.get_running_loop().create_future()
        self.session = session
        session.wire = self
        while not self.incoming.empty():  # frames read between the Hello and now
            data = self.incoming.get_nowait()
            if data is None:
                self._end_session()
                break
            self._handle(data)
            if session.closed:
                break
        if self.ended:
            self._end_session()
        await self.finished

    # --- Session.wire ----------------------------------------------------------------

    def send(self, msg: pb.ArbiterMessage | bytes) -> None:
        pump = self.pump
        if pump is not None:  # lent to a match's thread (``_Pump``)
            if threading.get_ident() == pump.tid:
                pump.write(self, frame(msg if isinstance(msg, bytes) else msg.SerializeToString()))
            else:
                self.deferred(functools.partial(self.send, msg))
        elif self.transport is not None and not self.transport.is_closing():
            self.transport.write(frame(msg if isinstance(msg, bytes) else msg.SerializeToString()))

    def stalled(self) -> bool:
        if self.pump is not None:
            return len(self.spill) > MAX_UNREAD_BYTES
        return self.transport is not None and self.transport.get_write_buffer_size() > MAX_UNREAD_BYTES

    def close(self) -> None:
        """The session closed (a flood, a protocol error, the arbiter's stop): no more reads."""
        self.ended = True
        if self.pump is not None:  # the event loop's part once the thread has given it back
            self.later.append(self._closed)
        else:
            self._closed()

    def _closed(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.pause_reading()
        if self.finished is not None and not self.finished.done():
            self.finished.set_result(None)

    def deferred(self, fn: Callable[[], None]) -> bool:
        """True if this connection is lent to a match's thread and this is another thread
        (the event loop's: another match, the hub): ``fn`` then runs once the thread has
        given the connection back, which it does at once (``_Pump.wake``)."""
        pump = self.pump
        if pump is None or threading.get_ident() == pump.tid:
            return False
        self.later.append(fn)
        pump.wake()
        return True

    def lendable(self) -> bool:
        """Whether a match's thread may take this connection's reads and writes now: its
        session is open, nothing is waiting to be written, and no one else has it."""
        t = self.transport
        return (self.pump is None and self.session is not None and not self.session.closed and not self.ended
                and t is not None and not t.is_closing() and not t.get_write_buffer_size())

    # --- asyncio.Protocol --------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self._peer = f"local:uid={_peer_uid(transport.get_extra_info('socket'))}"
        task = asyncio.get_running_loop().create_task(self._serve())
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    def data_received(self, data: bytes) -> None:
        if self.ended:
            return
        if self.session is not None and (payload := self.frames.whole(data)) is not None:
            self._handle(payload)  # the usual read: one Act, whole (nothing buffered)
            return
        self.frames.feed(data)
        while True:
            try:
                payload = self.frames.next()
            except FrameError as exc:  # as gRPC refuses an oversized message: the stream ends
                self.broken = str(exc)
                self._stop_reading()
                return
            if payload is None:
                return
            if self.session is None:
                self.incoming.put_nowait(payload)
            else:
                self._handle(payload)
                if self.ended:
                    return

    def eof_received(self) -> bool:
        try:
            self.frames.end()
        except FrameError as exc:
            self.broken = self.broken or str(exc)
        self._stop_reading()
        return True  # keep the socket open for writing: the last words go out

    def seats_pump(self, seats: Sequence[Any]) -> "_Pump | None":
        """A ``_Pump`` over the connections of ``seats`` (``RemoteSeat``s), or None if any
        seat is not on the local channel (``SeatClient.pump``)."""
        if not PUMP:
            return None
        conns = []
        for seat in seats:
            wire = getattr(getattr(seat, "session", None), "wire", None)
            if not isinstance(wire, _Connection):
                return None
            if wire not in conns:
                conns.append(wire)
        return _Pump(conns, list(seats))

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_reading()
        if self.session is not None:
            self.session.close()

    # --- internals ------------------------------------------------------------------------

    def _handle(self, payload: bytes) -> None:
        session = self.session
        assert session is not None
        try:
            msg = pb.BotMessage.FromString(payload)
        except DecodeError:
            self.servicer.undecodable(session)
            session.close()
            return
        try:
            keep = not session.closed and self.servicer.receive(session, msg)
        except Exception:  # noqa: BLE001 - never let one stream take the server down
            log.exception("error reading bot stream %s", session.session_id)
            keep = False
        if not keep:
            session.close()

    def _stop_reading(self) -> None:
        if self.ended:
            return
        self.ended = True
        if self.pump is not None:
            pass  # paused already; given back paused (``_Pump.give_back``)
        elif self.transport is not None and not self.transport.is_closing():
            try:
                self.transport.pause_reading()
            except RuntimeError:
                pass
        if self.session is None:
            self.incoming.put_nowait(None)
        else:
            self._end_session()

    def _end_session(self) -> None:
        """The bot's side ended: its session closes (its seats follow the disconnect policy),
        after the protocol Error of a bad frame."""
        session = self.session
        assert session is not None
        if self.broken and not session.closed:
            session.send(_err("protocol", f"{self.broken}; the stream is closed"))
            self.broken = ""
        session.close()

    async def _messages(self) -> AsyncIterator[pb.BotMessage]:
        """The frames read before the session is attached, as the servicer's request
        iterator (its Hello)."""
        while (data := await self.incoming.get()) is not None:
            yield pb.BotMessage.FromString(data)  # DecodeError: the servicer says so

    async def _serve(self) -> None:
        transport = self.transport
        assert transport is not None
        try:
            async for msg in self.servicer.Play(self._messages(), self):
                self.send(msg)
            if self.broken:  # a bad frame before the session opened
                self.send(_err("protocol", f"{self.broken}; the stream is closed"))
        except DecodeError:
            pass
        finally:
            if not transport.is_closing():
                transport.close()  # after what is written is flushed
            if transport.get_write_buffer_size():  # a bot that does not read its last words
                asyncio.get_running_loop().call_later(CLOSE_GRACE_S, transport.abort)


# --------------------------------------------------------------------------------------
# A match's seats read from a thread of its own (issue 42).

#: Play a match whose seats are all on the local channel from a thread of its own, with
#: blocking reads of its bots' sockets (``_Pump``); False: the event loop reads them. The
#: same runner, callbacks and records either way (docs/performance.md, issue 42).
PUMP = True

_threads: concurrent.futures.ThreadPoolExecutor | None = None


def _executor() -> concurrent.futures.ThreadPoolExecutor:
    global _threads
    if _threads is None:
        _threads = concurrent.futures.ThreadPoolExecutor(max_workers=256, thread_name_prefix="match")
    return _threads


#: How early the event loop runs a timer (``BaseEventLoop._run_once``); the pump judges a
#: deadline due the same way.
_CLOCK_RESOLUTION = time.get_clock_info("monotonic").resolution


class _Pump:
    """The seats of one match on the local channel, read and written from a thread of its
    own while their answers need no waiting (``runner._Runner._relayed``).

    The event loop lends it the connections (``lend``: their reads paused); the thread
    writes the first Turn, then polls the sockets: each read is handed to the connection's
    own ``data_received`` (so the servicer's ``receive``, the session's rules and the
    runner's ``_on_answer`` run as they do from the loop), each message is written straight
    to its socket, and a seat's deadline is the poll's timeout (``RemoteSeat.expire_due``).
    It stops when the runner's task is needed (the match's end, a failure), when the
    runner is stopped (``stop``), when a write does not fit a socket's buffer, or when
    another thread (the event loop: another match, the hub) has work for one of the
    connections (``_Connection.deferred``); ``give_back`` then hands everything back to the
    event loop, in order. One thread switch per match, against an event-loop wake-up per
    decision."""

    def __init__(self, conns: list[_Connection], seats: list[Any]):
        self.conns, self.seats = conns, seats
        self.tid: int | None = None  # the thread that has the connections now
        self.stopping = False
        self._fds: dict[int, _Connection] = {}
        self._pipe: tuple[int, int] | None = None

    def lend(self, match_id: str) -> bool:
        """Take the connections from the event loop (in its thread), if they are this
        match's alone; False (nothing taken) otherwise."""
        for c in self.conns:
            session = c.session
            if not c.lendable() or session is None or session.pending or any(k[0] != match_id for k in session.seat_tokens):
                return False
        self._pipe = os.pipe()
        for c in self.conns:
            assert c.transport is not None
            c.transport.pause_reading()
            c.pump = self
            c.fd = c.transport.get_extra_info("socket").fileno()
            self._fds[c.fd] = c
        for seat in self.seats:
            seat.pumped(True)
        return True

    async def play(self, first: Callable[[], None], done: concurrent.futures.Future) -> None:
        """Run the thread (``first``, then the reads) until ``done`` or it stops; give the
        connections back. A cancellation stops the thread, waits for it, and is raised."""
        fut = asyncio.get_running_loop().run_in_executor(_executor(), self._run, first, done)
        cancelled = False
        try:
            while not fut.done():
                try:
                    await asyncio.wait({fut})
                except asyncio.CancelledError:
                    cancelled = True
                    self.stop()
        finally:
            self.give_back()
        if cancelled:
            raise asyncio.CancelledError
        fut.result()

    def stop(self) -> None:
        self.stopping = True
        self.wake()

    def wake(self) -> None:
        """Make the thread give the connections back (any thread)."""
        pipe = self._pipe
        if pipe is not None:
            try:
                os.write(pipe[1], b"x")
            except OSError:
                pass

    def write(self, conn: _Connection, data: bytes) -> None:
        """Write ``data`` to ``conn``'s socket (the thread's own writes); what does not fit
        waits for the event loop (``give_back``), and the thread stops."""
        if conn.spill:
            conn.spill += data
            return
        try:
            n = os.write(conn.fd, data)
        except BlockingIOError:
            n = 0
        except OSError:  # the bot is gone: its reads say so (end of stream)
            return
        if n < len(data):
            conn.spill += data[n:]
            self.stopping = True

    def _run(self, first: Callable[[], None], done: concurrent.futures.Future) -> None:
        self.tid = threading.get_ident()
        try:
            first()
            self._read(done)
        except Exception:  # noqa: BLE001 - the event loop takes over (``give_back``)
            log.exception("a match's reading thread failed; the event loop reads on")
        finally:
            self.tid = None

    def _read(self, done: concurrent.futures.Future) -> None:
        assert self._pipe is not None
        poll = select.epoll(len(self._fds) + 1)
        fds = {fd: c for fd, c in self._fds.items() if not c.ended}
        for fd in fds:
            poll.register(fd, select.EPOLLIN)
        poll.register(self._pipe[0], select.EPOLLIN)
        try:
            self._poll(done, poll, fds)
        finally:
            poll.close()

    def _poll(self, done: concurrent.futures.Future, poll: Any, fds: dict[int, _Connection]) -> None:
        seats = self.seats
        while not done.done() and not self.stopping:
            due = None
            for s in seats:
                d = s.due()
                if d is not None and (due is None or d < due):
                    due = d
            ready = poll.poll(-1 if due is None else max(0, math.ceil((due - time.monotonic()) * 1000) / 1000))  # whole ms, as the loop's
            if not ready:
                now = time.monotonic()
                for s in seats:
                    s.expire_due(now + _CLOCK_RESOLUTION)
                continue
            for fd, _ in ready:
                c = fds.get(fd)
                if c is None:
                    return  # the pipe: wanted elsewhere
                try:
                    data = os.read(fd, 262144)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    c.data_received(data)
                else:
                    c.eof_received()
                if c.ended:
                    poll.unregister(fd)
                    del fds[fd]

    def give_back(self) -> None:
        """The connections to the event loop again (in its thread): what waited to be
        written, then the loop's own work on them, then their reads."""
        for c in self.conns:
            c.pump = None
            t = c.transport
            assert t is not None
            if c.spill:
                data = bytes(c.spill)
                c.spill.clear()
                if not t.is_closing():
                    t.write(data)
            later, c.later = c.later, []
            for fn in later:
                try:
                    fn()
                except Exception:  # noqa: BLE001 - one must not keep the others from running
                    log.exception("deferred work on a bot connection failed")
            if not c.ended and not t.is_closing():
                t.resume_reading()
        for seat in self.seats:
            seat.pumped(False)
        self._fds.clear()
        if self._pipe is not None:
            for fd in self._pipe:
                os.close(fd)
            self._pipe = None


async def serve(servicer: BotStreamServicer, path: str) -> asyncio.AbstractServer:
    """Listen on ``path`` and serve each connection as a bot stream."""
    loop = asyncio.get_running_loop()
    return await loop.create_unix_server(lambda: _Connection(servicer), path=path)
