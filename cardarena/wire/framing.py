"""The local channel's frames: the bot stream's protobuf messages over a Unix socket.

The arbiter hosts its own bot processes on the same machine; for them it also listens on a
second Unix socket, beside the gRPC one, that carries the very same messages
(``BotMessage`` up, ``ArbiterMessage`` down, arena.proto) without HTTP/2: each message is a
frame, its length as 4 bytes big-endian, then its bytes. A round trip then costs a pipe's,
not grpc.aio's (docs/performance.md). The protocol above the frames is the stream's in every
respect: Hello first, then Welcome, Turn/Act, MatchEnd, Error, one connection many matches.

The address of a local channel is ``local:PATH`` (``sdk.run`` dials it).
"""

from __future__ import annotations

#: The bytes of a frame's length.
HEADER = 4
#: The scheme of a local channel's address.
SCHEME = "local:"
#: The socket's file name, beside the gRPC one (``arena.sock``) in the arbiter's socket folder.
SOCKET_NAME = "local.sock"


class FrameError(Exception):
    """A frame longer than the reader allows, or cut off by the end of the stream."""


def frame(payload: bytes) -> bytes:
    """``payload`` as one frame."""
    return len(payload).to_bytes(HEADER, "big") + payload


class FrameReader:
    """Frames out of a byte stream, whatever chunks it arrives in (no I/O of its own: the
    SDK's blocking socket and the arbiter's ``asyncio.Protocol`` both feed it)."""

    __slots__ = ("limit", "buf")

    def __init__(self, limit: int):
        self.limit = limit
        self.buf = bytearray()

    def feed(self, data: bytes) -> None:
        """Bytes as they were read."""
        self.buf += data

    def next(self) -> bytes | None:
        """The next whole frame's payload, or None until more bytes are fed; FrameError if
        the frame announces more than ``limit`` bytes (nothing of it is kept)."""
        buf = self.buf
        if len(buf) < HEADER:
            return None
        size = int.from_bytes(buf[:HEADER], "big")
        if size > self.limit:
            raise FrameError(f"a frame of {size} bytes; at most {self.limit} are accepted")
        if len(buf) < HEADER + size:
            return None
        payload = bytes(buf[HEADER:HEADER + size])
        del buf[:HEADER + size]
        return payload

    def whole(self, data: bytes) -> bytes | None:
        """``data``'s payload if it is exactly one frame within the limit and nothing is held
        (then nothing is kept: the usual read of a blocking reader); else None, and ``data``
        is still to be fed."""
        if self.buf or len(data) < HEADER:
            return None
        size = int.from_bytes(data[:HEADER], "big")
        if size + HEADER != len(data) or size > self.limit:
            return None
        return data[HEADER:]

    def end(self) -> None:
        """The stream has ended: FrameError if it ended inside a frame."""
        if self.buf:
            raise FrameError(f"the stream ended inside a frame ({len(self.buf)} bytes)")
