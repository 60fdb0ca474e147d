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

import asyncio

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


async def read_frame(reader: asyncio.StreamReader, limit: int) -> bytes | None:
    """The next frame's payload; None at a clean end of the stream (between frames).

    FrameError if the frame announces more than ``limit`` bytes (nothing of it is read)
    or the stream ends inside a frame."""
    try:
        header = await reader.readexactly(HEADER)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise FrameError("the stream ended inside a frame's header") from None
    size = int.from_bytes(header, "big")
    if size > limit:
        raise FrameError(f"a frame of {size} bytes; at most {limit} are accepted")
    try:
        return await reader.readexactly(size)
    except asyncio.IncompleteReadError as exc:
        raise FrameError(f"the stream ended inside a frame ({len(exc.partial)} of {size} bytes)") from None
