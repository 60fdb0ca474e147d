"""Blocking gRPC clients of the arbiter's services, for the CLI and tests.

The CLI talks to a remote arbiter only through these functions; errors come back as
one exception per service whose message names the address and what was refused.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

import grpc

from cardarena.frames import Frame, HeaderFrame
from cardarena.games import Outcome
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from cardarena.v1 import bots_pb2 as bpb
from cardarena.v1 import bots_pb2_grpc as bpb_grpc
from cardarena.v1 import spectate_pb2 as spb
from cardarena.v1 import spectate_pb2_grpc as spb_grpc
from arbiter.server import MATCH_ID_METADATA
from cardarena.wire import codec
from cardarena.wire.codec import WireError
from cardarena.wire.tls import unreachable_hint
from cardarena.wire.frames import frame_from_proto



class ClientError(Exception):
    """The arbiter refused a call, or could not be reached; the message names the
    address, the status and the arbiter's words."""


class SpectateError(ClientError):
    """The arbiter refused or broke off a watch; the message says why."""


def _channel(address: str, tls_ca: bytes | None = None) -> grpc.Channel:
    return grpc.secure_channel(address, grpc.ssl_channel_credentials(tls_ca or None)) if tls_ca is not None \
        else grpc.insecure_channel(address)


def _said(address: str, exc: grpc.RpcError, tls_ca: bytes | None) -> str:
    """A failed call in words: the address, gRPC's status and details, and for an arbiter
    not reached, what to change (``unreachable_hint``: nothing listens, TLS on one side only)."""
    hint = unreachable_hint(address, exc.details() or "", tls_ca is not None) \
        if exc.code() == grpc.StatusCode.UNAVAILABLE else ""
    return f"{address}: {exc.code().name}: {exc.details()}{hint}"


def _failed(address: str, exc: grpc.RpcError, tls_ca: bytes | None) -> ClientError:
    return ClientError(_said(address, exc, tls_ca))


# The Matches service (`arbiter play --server`).


@dataclass(frozen=True)
class RemoteMatch:
    """What Matches.RunMatch reports of a match it played."""

    match_id: str
    outcome: Outcome
    actions: tuple[str, ...]
    incidents: tuple[str, ...]
    seed: int = 0  # the deal seed it was played with


#: Matches.RunMatch's method path (``run_match`` calls it as a stream of one answer).
_RUN_MATCH = f"/{pb.DESCRIPTOR.services_by_name['Matches'].full_name}/RunMatch"


def run_match(address: str, game: str, seats: Sequence[str], *, admin_token: str, seed: int | None = None,
              options: Mapping[str, Any] | None = None, preset: str | None = None, decision_ms: int = 10_000,
              bank_ms: int = 60_000, policy: str = "forfeit", max_strikes: int | None = None, tls_ca: bytes | None = None,
              timeout: float | None = None, seat_sessions: Sequence[str] = (),
              started: Callable[[str], None] | None = None) -> RemoteMatch:
    """Ask the arbiter at ``address`` to play a match between its connected bots (admin);
    ``seat_sessions``: the session to play each seat ("" for any of its bot's); ``seed`` None:
    a secret one the arbiter draws (``RemoteMatch.seed`` says which); ``max_strikes`` None: the
    arbiter's default (3). ``started(match_id)``
    is called once the match has started (the id the arbiter sends then, ``MATCH_ID_METADATA``;
    an arbiter that sends none: never), while it plays."""
    request = pb.RunMatchRequest(
        game=game, options=codec.options_to_wire(options or {}), preset=preset or "", seed=seed, seats=list(seats),
        clock=pb.Clock(decision_ms=decision_ms, bank_ms=bank_ms), policy=policy, max_strikes=max_strikes,
        admin_token=admin_token, seat_sessions=list(seat_sessions),
    )
    with _channel(address, tls_ca) as ch:
        # Called as a stream of one answer: the wire is the same as a unary call's, but gRPC's
        # unary call hands its caller the initial metadata only with the answer, at the end.
        call = ch.unary_stream(_RUN_MATCH, request_serializer=pb.RunMatchRequest.SerializeToString,
                               response_deserializer=pb.MatchSummary.FromString)(request, timeout=timeout)
        try:
            if started is not None:
                match_id = dict(call.initial_metadata() or ()).get(MATCH_ID_METADATA)  # (or the call is over)
                if match_id:
                    started(match_id)
            msg = next(call)
            for _ in call:  # its end: the arbiter's status (one answer only)
                pass
        except grpc.RpcError as exc:
            raise _failed(address, exc, tls_ca) from None
    return RemoteMatch(msg.match_id, codec.outcome_from_proto(msg.outcome), tuple(msg.actions), tuple(msg.incidents),
                       msg.seed)


@dataclass(frozen=True)
class Connected:
    """A bot session connected to an arbiter, as Matches.ListSessions reports it."""

    session_id: str
    bot_name: str  # its identity: the name its token was issued for
    bot_version: str
    games: tuple[str, ...]  # the games its Hello named (empty: any)


def list_sessions(address: str, *, admin_token: str, tls_ca: bytes | None = None, timeout: float = 10.0) -> list[Connected]:
    """The bot sessions connected to the arbiter at ``address`` (admin)."""
    with _channel(address, tls_ca) as ch:
        try:
            msg = pb_grpc.MatchesStub(ch).ListSessions(pb.ListSessionsRequest(admin_token=admin_token), timeout=timeout)
        except grpc.RpcError as exc:
            raise _failed(address, exc, tls_ca) from None
    return [Connected(s.session_id, s.bot_name, s.bot_version, tuple(s.games)) for s in msg.sessions]


def list_matches(address: str, include_finished: bool = True, timeout: float = 10.0, token: str = "",
                 tls_ca: bytes | None = None) -> list[spb.MatchListing]:
    """The matches the arbiter at ``address`` offers to watch (``token``: its spectator token;
    ``tls_ca``: the CA of the certificate of an arbiter that serves TLS)."""
    with _channel(address, tls_ca) as ch:
        try:
            return list(spb_grpc.SpectateStub(ch).ListMatches(
                spb.ListMatchesRequest(include_finished=include_finished, token=token), timeout=timeout).matches)
        except grpc.RpcError as exc:
            raise SpectateError(_said(address, exc, tls_ca)) from None


def watch(address: str, match_id: str = "", hidden_cards: bool = False, token: str = "",
          tls_ca: bytes | None = None) -> Iterator[Frame]:
    """Follow a match on the arbiter at ``address``: header, steps, then the result."""
    with _channel(address, tls_ca) as ch:
        stream = spb_grpc.SpectateStub(ch).Watch(spb.WatchRequest(match_id=match_id, hidden_cards=hidden_cards, token=token))
        try:
            yield from _frames(address, stream, tls_ca)
        finally:
            stream.cancel()


def _frames(address: str, stream: Any, tls_ca: bytes | None) -> Iterator[Frame]:
    """A Watch stream's frames, decoded; SpectateError if it fails."""
    game = ""
    try:
        for msg in stream:
            frame = frame_from_proto(game, msg)
            if isinstance(frame, HeaderFrame):
                game = frame.game
            yield frame
    except grpc.RpcError as exc:
        raise SpectateError(_said(address, exc, tls_ca)) from None


def follow(address: str, match_id: str, on_frame: Callable[[Frame], None], *, token: str = "",
           tls_ca: bytes | None = None) -> Callable[[], None]:
    """Watch match ``match_id`` on a thread of its own, each frame to ``on_frame``, until the
    match is over; returns ``stop()``, which ends the watch and waits for the thread. For a
    display beside a call that waits on the match (``run_match``'s ``started``): a watch
    the arbiter refuses or breaks off (an arbiter that offers none to ``token``) ends
    quietly, the call's own result being what counts."""
    ch = _channel(address, tls_ca)
    stream = spb_grpc.SpectateStub(ch).Watch(spb.WatchRequest(match_id=match_id, token=token))

    def read() -> None:
        try:
            for frame in _frames(address, stream, tls_ca):
                on_frame(frame)
        except (SpectateError, WireError):
            pass

    t = threading.Thread(target=read, daemon=True, name=f"follow-{match_id[:12]}")
    t.start()

    def stop() -> None:
        stream.cancel()
        t.join(5)
        ch.close()

    return stop


def raw_watch(address: str, match_id: str = "", hidden_cards: bool = False, token: str = "") -> Iterator[spb.WatchFrame]:
    """The Watch stream's messages as they arrive, undecoded (for leak tests)."""
    with grpc.insecure_channel(address) as ch:
        stream = spb_grpc.SpectateStub(ch).Watch(spb.WatchRequest(match_id=match_id, hidden_cards=hidden_cards, token=token))
        try:
            yield from stream
        finally:
            stream.cancel()


# The Bots service (`arbiter bots submit|list|show|remove --server`).


def version_row(v: bpb.BotVersionInfo) -> dict[str, Any]:
    """A registered version as the Bots service describes it, as plain data."""
    return {"name": v.name, "version": v.version, "content_hash": v.content_hash, "games": list(v.games),
            "deterministic": v.deterministic, "author": v.author, "report": json.loads(v.report_json or "{}"),
            "entry": v.entry, "notices": list(v.notices)}


def _bots_call(address: str, method: str, request: Any, tls_ca: bytes | None, timeout: float) -> Any:
    """``method`` of the Bots service; ClientError naming what failed. An arbiter without the
    service (`arbiter serve` without --bots-db) is said to be one, not in gRPC's words for
    it ("UNIMPLEMENTED: Method not found!")."""
    with _channel(address, tls_ca) as ch:
        try:
            return getattr(bpb_grpc.BotsStub(ch), method)(request, timeout=timeout)
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.UNIMPLEMENTED:
                raise ClientError(f"{address}: this arbiter serves no Bots service (its operator starts it with "
                                  "`arbiter serve --bots-db STORE`, or runs an arena with a [server])") from None
            raise _failed(address, exc, tls_ca) from None


def submit_bot(address: str, sub: Any, token: str, name: str, version: str = "", tls_ca: bytes | None = None) -> dict[str, Any]:
    """Submit ``sub`` (a ``registry.Submission``); the registered version. A rejection's
    ClientError lists the failed checks."""
    return version_row(_bots_call(address, "Submit", submission_chunks(sub, token, name, version), tls_ca, 600))


def list_bots(address: str, token: str, tls_ca: bytes | None = None) -> list[dict[str, Any]]:
    return [version_row(v) for v in _bots_call(address, "List", bpb.ListBotsRequest(token=token), tls_ca, 60).versions]


def show_bot(address: str, token: str, name: str, tls_ca: bytes | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The bot's versions (``version_row``) and where they stand in the server's arenas."""
    msg = _bots_call(address, "Show", bpb.ShowBotRequest(token=token, name=name), tls_ca, 60)
    # a ladder row by the message's fields, which are the store's Standing's (tests/test_protos.py)
    ladders = [{f.name: getattr(s, f.name) for f in bpb.LadderStanding.DESCRIPTOR.fields} for s in msg.ladders]
    return [version_row(v) for v in msg.versions], ladders


def remove_bot(address: str, token: str, name: str, version: str = "", tls_ca: bytes | None = None) -> int:
    return _bots_call(address, "Remove", bpb.RemoveBotRequest(token=token, name=name, version=version), tls_ca, 60).removed


def submission_chunks(sub: Any, token: str, name: str, version: str = "", piece: int = 32 * 1024):
    """The request stream of a Submit call (``sub``: a ``registry.Submission``)."""
    yield bpb.SubmitChunk(header=bpb.SubmitHeader(token=token, name=name, version=version, entry=sub.entry))
    for path in sorted(sub.files):
        data = sub.files[path]
        for i in range(0, max(1, len(data)), piece):
            yield bpb.SubmitChunk(data=bpb.FileChunk(path=path, content=data[i:i + piece]))
