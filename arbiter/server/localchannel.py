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

While the process plays one match alone, the arbiter does not sleep between a Turn and its
Act: having handled an Act and written the next Turn, it watches that bot's socket for up to
``SPIN_S``, and reads the Act it sees arrive there (the transport's own read, as the loop's),
up to ``CHAIN`` - 1 in a row, before going back to the event loop, which then finds the last
one already readable. A decision is serial, bot then arbiter; a sleeping arbiter pays a
wake-up and cold caches at every one, the loop's iteration ~8.5 µs (docs/performance.md,
attempts 69 and 78).
"""

from __future__ import annotations

import asyncio
import logging
import os
import select
import socket
import struct
import time
from typing import Any, AsyncIterator

from google.protobuf.message import DecodeError

from arbiter.match import matches_in_flight
from arbiter.server.botstream import MAX_BOT_MESSAGE_BYTES, BotStreamServicer, Session, _err
from cardarena.v1 import arena_pb2 as pb
from cardarena.wire.codec import serialized
from cardarena.wire.framing import FrameError, FrameReader, frame

log = logging.getLogger(__name__)

#: Bytes written to a bot and not yet taken by it past which its session is closed as one
#: that stopped reading (the outbox's MAX_OUTBOX for the gRPC stream).
MAX_UNREAD_BYTES = 8 << 20
#: Seconds a closed connection's unread bytes are kept for a bot that does not read them.
CLOSE_GRACE_S = 10.0
#: Bytes asked of the socket at each read (the transport's ``max_size``): under glibc's mmap
#: threshold (128 KiB), so each read's buffer comes from the heap. asyncio's 256 KiB made
#: every read map, fault in, shrink and unmap memory: three more system calls per Act
#: (docs/performance.md, attempt 49). A frame longer than this is read in pieces, as ever.
READ_BYTES = 64 << 10
#: Seconds the arbiter watches a bot's socket for the Act of the Turn it has just written,
#: without sleeping, while this process plays one match alone (``matches_in_flight``: side
#: by side, the matches need every core) and the machine has a CPU for the bot besides
#: the arbiter's (``_cpu_for_the_bot``). The bot on the other core answers within this in
#: a quiet match; past it (a bot thinking) the event loop waits as before. 0: never
#: (docs/performance.md, attempts 69-70).
SPIN_S = 100e-6
#: Looks in a row that find no CPU for the bot before the arbiter stops watching: one busy
#: look is most often a task about to sleep (the previous bot's last steps), a few in a row
#: a machine at work.
BUSY_LOOKS = 4
#: Turns written without a look once the arbiter has stopped watching (a busy machine stays
#: busy a while; a look costs ~2 µs).
BUSY_SKIP = 16
#: Acts the watching reads itself, one decision after another, before it lets the event loop
#: run again (its timers, other connections): the Act it finds readable is read there, by
#: the transport's own read, instead of by the loop's next iteration (~8.5 µs a decision on
#: a quiet machine). 1: the loop reads every Act (docs/performance.md, attempts 69c, 78).
CHAIN = 8
_loadavg = -1  # /proc/loadavg, opened once (a read at offset 0 is the kernel's count anew)


def _runnable() -> int:
    """Tasks runnable on the machine now (/proc/loadavg's, this one among them)."""
    global _loadavg  # noqa: PLW0603 - one file for the process
    if _loadavg < 0:
        _loadavg = os.open("/proc/loadavg", os.O_RDONLY)
    return int(os.pread(_loadavg, 128, 0).split()[3].split(b"/")[0])


def _cpu_for_the_bot() -> bool:
    """Whether the bot just written to finds a CPU of its own: this process may run on more
    than one, and no more tasks are runnable now (this one and the bot among them) than
    that. Otherwise the arbiter's watching would take the CPU from the very bot it waits
    for (a loaded machine, or one CPU)."""
    try:
        cpus = len(os.sched_getaffinity(0))
        return 1 < cpus and _runnable() <= cpus
    except (OSError, AttributeError, ValueError, IndexError):  # not Linux: never
        return False


class _Awaited:
    """One server's connection whose bot was just written a Turn while one match alone is in
    flight (``_Connection.send``), and a CPU was free for it: the one to watch once the Act
    at hand is handled; how many more looks that find none it watches through; and, once
    it has stopped, how many Turns go by before it looks again."""

    __slots__ = ("conn", "calm", "skip", "chaining")

    #: Turns whose Act this process's arbiters watched for (the bench's share of them).
    watched = 0

    def __init__(self) -> None:
        self.conn: _Connection | None = None
        self.calm = 0
        self.skip = 0
        self.chaining = False  # in ``_await_next``: a read there does not watch again itself

    def watch(self, conn: "_Connection") -> None:
        """``conn`` was just written a Turn, and this process plays one match alone."""
        if self.skip > 0:
            self.skip -= 1
            return
        if _cpu_for_the_bot():
            self.calm = BUSY_LOOKS
        elif self.calm > 0:
            self.calm -= 1
        if self.calm > 0:
            self.conn = conn
            _Awaited.watched += 1
        else:
            self.skip = BUSY_SKIP


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

    def __init__(self, servicer: BotStreamServicer, awaited: _Awaited | None = None):
        self.servicer = servicer
        self.awaited = awaited if awaited is not None else _Awaited()
        self._poll: Any = None  # a select.poll of the socket, for ``_await_next``
        self.transport: asyncio.Transport | None = None
        self.frames = FrameReader(MAX_BOT_MESSAGE_BYTES)
        self.incoming: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.session: Session | None = None
        self.broken = ""  # why the stream ended on a bad frame
        self.ended = False  # no more frames will be read
        self.finished: asyncio.Future | None = None  # set when an attached session ends
        self._peer = "local:uid=?"

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
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(frame(serialized(msg)))
            if SPIN_S and self.session is not None and self.session.pending and matches_in_flight() == 1:
                self.awaited.watch(self)  # a Turn: its Act is the next thing this process waits for

    def stalled(self) -> bool:
        return self.transport is not None and self.transport.get_write_buffer_size() > MAX_UNREAD_BYTES

    def close(self) -> None:
        """The session closed (a flood, a protocol error, the arbiter's stop): no more reads."""
        self.ended = True
        if self.transport is not None and not self.transport.is_closing():
            self.transport.pause_reading()
        if self.finished is not None and not self.finished.done():
            self.finished.set_result(None)

    # --- asyncio.Protocol --------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        transport.max_size = READ_BYTES  # type: ignore[attr-defined]
        self._peer = f"local:uid={_peer_uid(transport.get_extra_info('socket'))}"
        task = asyncio.get_running_loop().create_task(self._serve())
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    def data_received(self, data: bytes) -> None:
        self._read(data)
        if not self.awaited.chaining:
            self._await_next()

    def eof_received(self) -> bool:
        try:
            self.frames.end()
        except FrameError as exc:
            self.broken = self.broken or str(exc)
        self._stop_reading()
        return True  # keep the socket open for writing: the last words go out

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_reading()
        if self.session is not None:
            self.session.close()

    # --- internals ------------------------------------------------------------------------

    def _read(self, data: bytes) -> None:
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

    def _await_next(self) -> None:
        """If what was just handled wrote a Turn while one match alone is in flight, watch its
        bot's socket until the Act is there or ``SPIN_S`` has passed; read that Act here (the
        transport's own read: its decision played, the next Turn written, watched for in
        turn), up to ``CHAIN`` - 1 of them, then let the event loop go on: it reads the last
        one at once instead of sleeping until it comes."""
        awaited = self.awaited
        awaited.chaining = True
        try:
            for left in range(CHAIN - 1, -1, -1):
                conn = awaited.conn
                if conn is None:
                    return
                awaited.conn = None
                transport = conn.transport
                if transport is None or conn.ended or transport.is_closing() or not transport.is_reading():
                    return
                poll = conn._poll
                if poll is None:
                    poll = conn._poll = select.poll()
                    poll.register(transport.get_extra_info("socket").fileno(), select.POLLIN)
                until = time.perf_counter() + SPIN_S
                while not (ready := poll.poll(0)) and time.perf_counter() < until:
                    pass
                read = getattr(transport, "_read_ready", None)
                if not ready or not left or read is None:
                    return
                read()
        finally:
            awaited.chaining = False

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
        if self.transport is not None and not self.transport.is_closing():
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


async def serve(servicer: BotStreamServicer, path: str) -> asyncio.AbstractServer:
    """Listen on ``path`` and serve each connection as a bot stream."""
    loop = asyncio.get_running_loop()
    awaited = _Awaited()
    return await loop.create_unix_server(lambda: _Connection(servicer, awaited), path=path)
