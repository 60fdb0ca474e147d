"""Live spectating: a match observer that keeps public frames for watchers, the Spectate
gRPC servicer, and a small client.

While a match runs, a spectator sees only what the engine's ``spectator_view()`` shows
(no card of any hand, nothing face down, nothing of the stock) and the public events.
The full deal arrives with the last frame, once the match is over.

An arbiter may also be given a spectator delay (``SpectatorHub(delay=30)``, ``arbiter
serve --spectator-delay 30``). Then a watcher may ask for hidden cards: it receives every
frame ``delay`` seconds after the move, with every seat's hand, so that what it sees is
stale by the time anyone could relay it to a bot. Without a delay, hidden cards are
refused (FAILED_PRECONDITION). The hands come from a shadow copy of the game, rebuilt from
the match config and the public actions, through the engine's ``view(seat)`` seam.

Frames of a running match are kept from its start, so a late watcher catches up first;
the last ``keep_finished`` finished matches are kept too.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Iterator, Sequence

import grpc

from cardarena.wire import codec as convert
from cardarena.games import Card, Event, GameError, Outcome, State
from cardarena.records import MatchConfig, MatchRecord
from arbiter.match import MatchObserver
from arbiter.server.arena import require_token
from cardarena.v1 import spectate_pb2 as spb
from cardarena.v1 import spectate_pb2_grpc as spb_grpc

log = logging.getLogger(__name__)

Hands = tuple[tuple[Card, ...], ...]


# --------------------------------------------------------------------------------------
# Frames (domain values; converted to protobuf only by the servicer and the client).


@dataclass(frozen=True)
class HeaderFrame:
    """The match as dealt: who sits where, and the public view."""

    match_id: str
    game: str
    seat_names: tuple[str, ...]
    started: float  # Unix time
    view: Any  # spectator view
    hands: Hands | None = None  # every seat's hand; only for a hidden-cards watch
    delay_ms: int = 0


@dataclass(frozen=True)
class StepFrame:
    """One decision: who played what, the public events, the public view after it."""

    index: int  # 1-based
    seat: int
    action: str
    events: tuple[Event, ...]
    view: Any
    hands: Hands | None = None
    at: float = 0.0  # seconds since the match started


@dataclass(frozen=True)
class OverFrame:
    """The result and the full deal (``final_view`` None after a forfeit mid-game)."""

    outcome: Outcome
    final_view: Any
    seed: int
    actions: tuple[str, ...]
    action_seats: tuple[int, ...]
    options: dict[str, str]


Frame = HeaderFrame | StepFrame | OverFrame


@dataclass(eq=False)
class LiveMatch:
    """One watched match: its frames so far, and a signal for watchers waiting for more."""

    match_id: str
    game: str
    seat_names: tuple[str, ...]
    started: float
    frames: list[tuple[float, Frame]] = field(default_factory=list)  # (monotonic time, frame)
    running: bool = True
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def steps(self) -> int:
        return sum(1 for _, f in self.frames if isinstance(f, StepFrame))

    def push(self, frame: Frame) -> None:
        self.frames.append((time.monotonic(), frame))
        self.changed.set()
        self.changed = asyncio.Event()


class NotFound(LookupError):
    """No such match (or none running and none started in time)."""


class HiddenCardsRefused(PermissionError):
    """Hidden cards were asked of a hub without a spectator delay."""


class SpectatorHub:
    """The watchable matches of one arbiter; ``observers(config)`` feeds it a match."""

    def __init__(self, delay: float | None = None, keep_finished: int = 20, reveal_at_end: bool = True,
                 token: str | None = None):
        """``reveal_at_end=False``: the last frame carries the outcome only, not the full
        deal, the seed or the action list. A duplicate tournament needs it: the same deal
        is played again with the seats swapped, so a deal shown when one seating ends
        could be relayed to a bot in the next.

        ``token``: spectators must present it (else PERMISSION_DENIED). The bots reach the
        same server; without a token a bot could watch another seating of its own deal,
        whose public plays show the hands it is playing against."""
        if delay is not None and delay < 0:
            raise ValueError(f"spectator delay must not be negative, got {delay}")
        self.token = token
        self.delay = delay
        self.reveal_at_end = reveal_at_end
        self.keep_finished = keep_finished
        self.matches: collections.OrderedDict[str, LiveMatch] = collections.OrderedDict()
        self._new_match = asyncio.Event()

    def observers(self, config: MatchConfig) -> list[MatchObserver]:
        """The observers to pass to ``run_match`` for a match of ``config``."""
        return [_Feed(self, config)]

    # -- bookkeeping, called by _Feed ----------------------------------------------------

    def _open(self, live: LiveMatch) -> None:
        self.matches[live.match_id] = live
        self._new_match.set()
        self._new_match = asyncio.Event()

    def _close(self, live: LiveMatch) -> None:
        live.running = False
        live.changed.set()
        finished = [m for m in self.matches.values() if not m.running]
        for old in finished[: max(0, len(finished) - self.keep_finished)]:
            self.matches.pop(old.match_id, None)

    # -- for watchers ----------------------------------------------------------------------

    def listing(self, include_finished: bool = False) -> list[LiveMatch]:
        """Running matches newest first, then (if asked) finished ones newest first."""
        newest = list(reversed(self.matches.values()))
        running = [m for m in newest if m.running]
        return running + ([m for m in newest if not m.running] if include_finished else [])

    async def find(self, match_id: str, wait: float = 0.0) -> LiveMatch:
        """The match ``match_id``; with an empty id the newest running one, else the next
        to start within ``wait`` seconds. NotFound otherwise."""
        if match_id:
            live = self.matches.get(match_id)
            if live is None:
                raise NotFound(f"no match {match_id[:64]!r} on this arbiter (running or recently finished)")
            return live
        running = self.listing()
        if running:
            return running[0]
        try:
            await asyncio.wait_for(self._new_match.wait(), wait)
        except asyncio.TimeoutError:
            raise NotFound(f"no match is running, and none started within {wait:g} s") from None
        return self.listing()[0]

    async def follow(self, live: LiveMatch, hidden_cards: bool = False) -> AsyncIterator[Frame]:
        """Every frame of ``live`` from the start, then new ones as they come, to the end.

        Public frames carry no hands. With ``hidden_cards`` (only on a hub with a delay),
        each frame is released ``delay`` seconds after it happened and keeps the hands.
        """
        if hidden_cards and self.delay is None:
            raise HiddenCardsRefused(
                "this arbiter shows hidden cards only after a match ends; start it with --spectator-delay SECONDS"
            )
        i = 0
        while True:
            if i < len(live.frames):
                t, frame = live.frames[i]
                i += 1
                if hidden_cards:
                    wait = t + self.delay - time.monotonic()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    if isinstance(frame, HeaderFrame):
                        frame = _replace(frame, delay_ms=int(self.delay * 1000))
                else:
                    frame = _public(frame)
                yield frame
                if isinstance(frame, OverFrame):
                    return
                continue
            if not live.running:
                return  # ended without an OverFrame (should not happen); stop cleanly
            await live.changed.wait()


def _replace(frame: Any, **kw: Any) -> Any:
    import dataclasses

    return dataclasses.replace(frame, **kw)


def _public(frame: Frame) -> Frame:
    """The frame without any hidden card: the only form a live watcher receives."""
    if isinstance(frame, (HeaderFrame, StepFrame)) and frame.hands is not None:
        return _replace(frame, hands=None)
    return frame


class _Feed(MatchObserver):
    """Feeds one match's frames into the hub (a MatchObserver for ``run_match``)."""

    def __init__(self, hub: SpectatorHub, config: MatchConfig):
        self.hub = hub
        self.config = config
        self.live: LiveMatch | None = None
        self.shadow: State | None = None
        self.t0 = time.monotonic()

    def _hands(self) -> Hands | None:
        if self.shadow is None:
            return None
        return tuple(tuple(self.shadow.view(s).hand) for s in range(self.shadow.game.num_seats))

    async def started(self, match_id: str, game: str, seat_names: tuple[str, ...], spectator_view: Any) -> None:
        if self.hub.delay is not None:
            # Only a delayed hub ever shows hands; only then keep a shadow game to know them.
            try:
                self.shadow = self.config.make_game().new_initial_state(self.config.seed)
            except GameError:
                log.exception("spectator shadow of match %s could not be built", match_id)
        self.t0 = time.monotonic()
        self.live = LiveMatch(match_id, game, tuple(seat_names), time.time())
        self.live.push(HeaderFrame(match_id, game, tuple(seat_names), self.live.started, spectator_view, self._hands()))
        self.hub._open(self.live)

    async def step(self, match_id: str, seat: int, action: str, public_events: list[Event], spectator_view: Any) -> None:
        if self.live is None:
            return
        if self.shadow is not None:
            try:
                self.shadow.apply(self.shadow.game.parse_action(action))
            except GameError:
                log.exception("spectator shadow of match %s diverged at %r", match_id, action)
                self.shadow = None
        index = self.live.steps + 1
        self.live.push(StepFrame(index, seat, action, tuple(public_events), spectator_view, self._hands(),
                                 round(time.monotonic() - self.t0, 4)))

    async def ended(self, record: MatchRecord, final_view: Any) -> None:
        if self.live is None:
            return
        assert record.outcome is not None
        reveal = self.hub.reveal_at_end
        self.live.push(OverFrame(
            outcome=record.outcome, final_view=final_view if reveal else None, seed=record.seed if reveal else 0,
            actions=tuple(a.action for a in record.actions) if reveal else (),
            action_seats=tuple(a.seat for a in record.actions) if reveal else (),
            options=convert.options_to_wire(record.options),
        ))
        self.hub._close(self.live)


# --------------------------------------------------------------------------------------
# gRPC: servicer (server side) and frames <-> protobuf.


def _hands_to_proto(hands: Hands | None) -> list[spb.SeatHand]:
    if hands is None:
        return []
    return [spb.SeatHand(seat=s, cards=[str(c) for c in sorted(h)]) for s, h in enumerate(hands)]


def frame_to_proto(game: str, frame: Frame) -> spb.WatchFrame:
    """Encode a frame; hands are sent only if the frame still carries them."""
    if isinstance(frame, HeaderFrame):
        return spb.WatchFrame(header=spb.MatchHeader(
            match_id=frame.match_id, game=frame.game, seat_names=list(frame.seat_names), started=frame.started,
            view=convert.view_to_proto(game, frame.view), hands=_hands_to_proto(frame.hands), delay_ms=frame.delay_ms,
        ))
    if isinstance(frame, StepFrame):
        return spb.WatchFrame(step=spb.Step(
            index=frame.index, seat=frame.seat, action=frame.action,
            events=[convert.event_to_proto(e) for e in frame.events],
            view=convert.view_to_proto(game, frame.view), hands=_hands_to_proto(frame.hands), at=frame.at,
        ))
    over = spb.MatchOver(
        outcome=convert.outcome_to_proto(frame.outcome), seed=frame.seed, actions=list(frame.actions),
        action_seats=list(frame.action_seats), options=frame.options,
    )
    if frame.final_view is not None:
        over.final_view.CopyFrom(convert.view_to_proto(game, frame.final_view))
    return spb.WatchFrame(over=over)


def frame_from_proto(game: str, msg: spb.WatchFrame) -> Frame:
    """Decode a frame (client side); convert.WireError on malformed data."""
    which = msg.WhichOneof("frame")
    hands = lambda hs: tuple(tuple(Card.parse(c) for c in h.cards) for h in hs) if hs else None  # noqa: E731
    if which == "header":
        h = msg.header
        return HeaderFrame(h.match_id, h.game, tuple(h.seat_names), h.started, convert.view_from_proto(h.game, h.view),
                           hands(h.hands), h.delay_ms)
    if which == "step":
        s = msg.step
        return StepFrame(s.index, s.seat, s.action, tuple(convert.event_from_proto(e) for e in s.events),
                         convert.view_from_proto(game, s.view), hands(s.hands), s.at)
    if which == "over":
        o = msg.over
        final = convert.view_from_proto(game, o.final_view) if o.HasField("final_view") else None
        return OverFrame(convert.outcome_from_proto(o.outcome), final, o.seed, tuple(o.actions), tuple(o.action_seats),
                         dict(o.options))
    raise convert.WireError("empty watch frame")


class SpectateServicer(spb_grpc.SpectateServicer):
    """Spectate: lists matches and streams public frames (hidden cards only with a delay)."""

    #: How long Watch with an empty match id waits for a match to start.
    WAIT_FOR_NEXT_S = 60.0

    def __init__(self, hub: SpectatorHub):
        self.hub = hub

    async def _check_token(self, token: str, context) -> None:
        await require_token(self.hub.token, token, context, "this arbiter requires a spectator token (arbiter watch --token)")

    async def ListMatches(self, request: spb.ListMatchesRequest, context) -> spb.ListMatchesResponse:
        await self._check_token(request.token, context)
        return spb.ListMatchesResponse(matches=[
            spb.MatchListing(match_id=m.match_id, game=m.game, seat_names=list(m.seat_names), steps=m.steps,
                             running=m.running, started=m.started)
            for m in self.hub.listing(request.include_finished)
        ])

    async def Watch(self, request: spb.WatchRequest, context) -> AsyncIterator[spb.WatchFrame]:
        await self._check_token(request.token, context)
        if request.hidden_cards and self.hub.delay is None:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                                "this arbiter shows hidden cards only after a match ends (no --spectator-delay)")
        try:
            live = await self.hub.find(request.match_id, self.WAIT_FOR_NEXT_S)
        except NotFound as exc:
            await context.abort(grpc.StatusCode.NOT_FOUND, str(exc))
        async for frame in self.hub.follow(live, request.hidden_cards):
            yield frame_to_proto(live.game, frame)


def add_spectate_service(hub: SpectatorHub, server: grpc.aio.Server) -> str:
    """Register the Spectate servicer on ``server``; returns its full service name."""
    spb_grpc.add_SpectateServicer_to_server(SpectateServicer(hub), server)
    return spb.DESCRIPTOR.services_by_name["Spectate"].full_name


# --------------------------------------------------------------------------------------
# A blocking client, for `arbiter watch` and tests.


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


__all__: Sequence[str] = (
    "SpectatorHub", "SpectateServicer", "add_spectate_service", "HeaderFrame", "StepFrame", "OverFrame",
    "frame_to_proto", "frame_from_proto", "list_matches", "watch", "raw_watch", "SpectateError",
)
