"""Blocking gRPC clients of the arbiter's services, for the CLI and tests.

The CLI talks to a remote arbiter only through these functions; errors come back as
one exception per service whose message names the address and what was refused.
"""

from __future__ import annotations

from typing import Any, Iterator

import grpc

from cardarena.frames import Frame, HeaderFrame
from cardarena.v1 import bots_pb2 as bpb
from cardarena.v1 import spectate_pb2 as spb
from cardarena.v1 import spectate_pb2_grpc as spb_grpc
from cardarena.wire.frames import frame_from_proto



class SpectateError(Exception):
    """The arbiter refused or broke off a watch; the message says why."""


def list_matches(address: str, include_finished: bool = True, timeout: float = 10.0, token: str = "") -> list[spb.MatchListing]:
    """The matches the arbiter at ``address`` offers to watch (``token``: its spectator token)."""
    with grpc.insecure_channel(address) as ch:
        try:
            return list(spb_grpc.SpectateStub(ch).ListMatches(
                spb.ListMatchesRequest(include_finished=include_finished, token=token), timeout=timeout).matches)
        except grpc.RpcError as exc:
            raise SpectateError(f"{address}: {exc.code().name}: {exc.details()}") from None


def watch(address: str, match_id: str = "", hidden_cards: bool = False, token: str = "") -> Iterator[Frame]:
    """Follow a match on the arbiter at ``address``: header, steps, then the result."""
    with grpc.insecure_channel(address) as ch:
        stream = spb_grpc.SpectateStub(ch).Watch(spb.WatchRequest(match_id=match_id, hidden_cards=hidden_cards, token=token))
        game = ""
        try:
            for msg in stream:
                frame = frame_from_proto(game, msg)
                if isinstance(frame, HeaderFrame):
                    game = frame.game
                yield frame
        except grpc.RpcError as exc:
            raise SpectateError(f"{address}: {exc.code().name}: {exc.details()}") from None
        finally:
            stream.cancel()


def raw_watch(address: str, match_id: str = "", hidden_cards: bool = False, token: str = "") -> Iterator[spb.WatchFrame]:
    """The Watch stream's messages as they arrive, undecoded (for leak tests)."""
    with grpc.insecure_channel(address) as ch:
        stream = spb_grpc.SpectateStub(ch).Watch(spb.WatchRequest(match_id=match_id, hidden_cards=hidden_cards, token=token))
        try:
            yield from stream
        finally:
            stream.cancel()


# The Bots service (`arbiter bots submit --server`).


def submission_chunks(sub: Any, token: str, name: str, version: str = "", piece: int = 32 * 1024):
    """The request stream of a Submit call (``sub``: a ``registry.Submission``)."""
    yield bpb.SubmitChunk(header=bpb.SubmitHeader(token=token, name=name, version=version, entry=sub.entry))
    for path in sorted(sub.files):
        data = sub.files[path]
        for i in range(0, max(1, len(data)), piece):
            yield bpb.SubmitChunk(data=bpb.FileChunk(path=path, content=data[i:i + piece]))
