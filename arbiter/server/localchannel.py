"""The local channel: the bot stream over a Unix socket without HTTP/2.

For the bot processes the arbiter starts itself (``--transport local``), a second Unix
socket beside the gRPC one carries the same messages in length-prefixed frames
(``cardarena.wire.framing``). Each connection is handed to the one bot-stream servicer
(``botstream.ArenaServicer.Play``) as if it were a gRPC stream: the same Hello, tokens,
limits on wrong tokens and silent streams, session, routing of Acts, flood and outbox rules, and the same match
runner behind it. Only the bytes on the socket differ.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
from typing import AsyncIterator

from google.protobuf.message import DecodeError

from arbiter.server.botstream import MAX_BOT_MESSAGE_BYTES, ArenaServicer, _err
from cardarena.v1 import arena_pb2 as pb
from cardarena.wire.framing import FrameError, frame, read_frame

log = logging.getLogger(__name__)


class _Peer:
    """What the servicer asks of a gRPC context: who is at the other end (for its log).
    Over a Unix socket that is a local uid."""

    def __init__(self, writer: asyncio.StreamWriter):
        sock = writer.get_extra_info("socket")
        uid = "?"
        try:
            _pid, uid_n, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
            uid = str(uid_n)
        except (OSError, AttributeError, struct.error):
            pass
        self._peer = f"local:uid={uid}"

    def peer(self) -> str:
        return self._peer


async def serve(servicer: ArenaServicer, path: str) -> asyncio.AbstractServer:
    """Listen on ``path`` and serve each connection as a bot stream."""

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        broken: list[str] = []

        async def messages() -> AsyncIterator[pb.BotMessage]:
            while True:
                try:
                    data = await read_frame(reader, MAX_BOT_MESSAGE_BYTES)
                except FrameError as exc:  # as gRPC refuses an oversized message: the stream ends
                    broken.append(str(exc))
                    return
                except (ConnectionError, OSError):
                    return
                if data is None:
                    return
                yield pb.BotMessage.FromString(data)  # DecodeError: the servicer says so

        try:
            async for msg in servicer.Play(messages(), _Peer(writer)):
                writer.write(frame(msg.SerializeToString()))
                await writer.drain()
            if broken:
                writer.write(frame(_err("protocol", f"{broken[0]}; the stream is closed").SerializeToString()))
                await writer.drain()
        except (ConnectionError, OSError):
            pass  # the bot went away: its session is closed by the servicer
        except DecodeError:
            pass
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except (ConnectionError, OSError):
                pass

    return await asyncio.start_unix_server(connection, path=path)
