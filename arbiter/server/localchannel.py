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
import logging
import socket
import struct
from typing import Any, AsyncIterator

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
#: Bytes asked of the socket at each read (the transport's ``max_size``): under glibc's mmap
#: threshold (128 KiB), so each read's buffer comes from the heap. asyncio's 256 KiB made
#: every read map, fault in, shrink and unmap memory: three more system calls per Act
#: (docs/performance.md, attempt 49). A frame longer than this is read in pieces, as ever.
READ_BYTES = 64 << 10


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
            self.transport.write(frame(msg if isinstance(msg, bytes) else msg.SerializeToString()))

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
    return await loop.create_unix_server(lambda: _Connection(servicer), path=path)
