"""The gRPC edge: the bot stream (Arena.Play), the Matches service, health and reflection.

The servicers only translate: they check a message is well formed, hand it to the hub or
the match runner, and convert what comes back. Domain errors become Error messages or
gRPC status codes here and nowhere else.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import itertools
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Collection

import grpc
from google.protobuf.message import DecodeError

from cardarena import names
from cardarena.wire import codec as convert
from cardarena.games import GAMES, ConfigError, Event, Outcome, seat_options
from cardarena.disclosure import OPEN
from cardarena.records import Clock, FailurePolicy, MatchConfig, clip
from arbiter import metrics
from arbiter.match import (
    BotFailed, MalformedAction, MatchObserver, SeatClient, SeatDisconnected, TurnRequest, run_match,
)
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from cardarena.records import MatchInfo
from arbiter.server import MATCH_ID_METADATA
from arbiter.server.auth import (MAX_REFUSING, MAX_REFUSING_PER_PEER, Refusals, busy_text, new_token, require_token,
                                 same, until_revoked)

log = logging.getLogger(__name__)

#: Largest message a bot may send; a Hello or an Act is tiny.
MAX_BOT_MESSAGE_BYTES = 64 * 1024
#: Messages a session may send that answer nothing (unknown request, wrong seat token,
#: unexpected kind): a burst, then a steady rate per second. Past it the session is closed
#: as a flood (its seats then follow the disconnect policy). Real answers never count.
FLOOD_BURST = 200
FLOOD_RATE = 50.0
#: A session whose unread outbox grows past this is closed (it stopped reading).
MAX_OUTBOX = 10_000
#: A stream must say Hello within this many seconds, else it is closed.
HELLO_TIMEOUT_S = 10.0
#: Streams that have not said Hello yet, at most; a new one past that closes the one that
#: has waited longest (a real bot says Hello as soon as its stream opens).
MAX_UNAUTHENTICATED = 64
#: Streams whose Hello was refused and that wait for their answer: ``auth.MAX_REFUSING_PER_PEER``
#: and ``auth.MAX_REFUSING`` (``auth.Refusals``). A peer with the most waiting gets Error "busy"
#: for any further Hello, its token unchecked. Either way the stream is closed at once: refused
#: streams cannot pile up and exhaust the descriptors, while a real bot's Hello (a right token
#: never waits) from any other peer still gets in.
#: At most this many game names in a Hello.
MAX_HELLO_GAMES = 16
#: Act.resync a seat may send for one decision (each gets the whole view again); the
#: next one is answered as a malformed action (arena.proto Act.resync).
MAX_RESYNCS = 3
#: The arbiter's gRPC server options (the bench's protocol floor uses the same).
SERVER_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.max_receive_message_length", MAX_BOT_MESSAGE_BYTES),
    ("grpc.so_reuseport", 0),
)


def add_arena(servicer: "BotStreamServicer", server: Any) -> None:
    """Serve the bot stream (``Arena.Play``) on ``server``: the generated
    ``add_ArenaServicer_to_server`` with ``convert.serialized`` as the response serializer
    (a Turn written as bytes goes out as it is, no message parsed from it to be serialized
    again)."""
    name = pb.DESCRIPTOR.services_by_name["Arena"].full_name  # as the .proto names it
    handlers = {"Play": grpc.stream_stream_rpc_method_handler(
        servicer.Play, request_deserializer=pb.BotMessage.FromString, response_serializer=convert.serialized)}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
    server.add_registered_method_handlers(name, handlers)


def _err(code: str, message: str, match_id: str = "", request_id: int = 0) -> pb.ArbiterMessage:
    return pb.ArbiterMessage(error=pb.Error(code=code, message=message, match_id=match_id, request_id=request_id))


@dataclass(eq=False)
class Session:
    """One connected bot stream."""

    session_id: str
    bot_name: str
    bot_version: str
    games: tuple[str, ...]
    outbox: asyncio.Queue = field(default_factory=asyncio.Queue)
    pending: dict[tuple[str, int], tuple["_Asking", str, int]] = field(default_factory=dict)  # -> (its asking, game, seat)
    closed: bool = False
    seat_tokens: dict[tuple[str, int], str] = field(default_factory=dict)  # (match, seat) -> secret
    stderr_source: Callable[[], str] | None = None  # the bot process's stderr tail, if the arbiter started it
    claimed_name: str = ""  # the name the Hello gave (a launched bot's own name; equal to bot_name otherwise)
    credential: str = ""  # the credentials-file token it opened with ('' for a launch token or --open)
    view_deltas: int = 0  # the revision of view deltas its Turns use (Welcome.view_deltas; 0: whole views)
    why_closed: str = "connection closed"  # what its seats' records say of its end (``close``)
    _request_ids: Any = field(default_factory=lambda: itertools.count(1))  # unique per session (arena.proto)
    _allowance: float = FLOOD_BURST
    _last_refill: float = field(default_factory=time.monotonic)

    def spend_junk(self) -> bool:
        """Count one message that answered nothing; False once the flood limit is passed."""
        now = time.monotonic()
        self._allowance = min(FLOOD_BURST, self._allowance + (now - self._last_refill) * FLOOD_RATE)
        self._last_refill = now
        self._allowance -= 1
        return self._allowance >= 0

    #: A transport that writes a message where it is sent (the local channel: ``wire.send``,
    #: ``wire.close``, ``wire.stalled``), in place of the outbox and the Play generator.
    wire: Any = None

    def send(self, msg: pb.ArbiterMessage | bytes | None) -> None:
        """Send ``msg`` (a message, or one already serialized) to the bot; None ends the
        stream (``close``)."""
        if self.wire is not None:
            if not self.closed and msg is not None:
                self.wire.send(msg)
        elif not self.closed or msg is None:
            self.outbox.put_nowait(msg)

    def stalled(self) -> bool:
        """True if the bot has stopped reading what it is sent (MAX_OUTBOX)."""
        return self.wire.stalled() if self.wire is not None else self.outbox.qsize() >= MAX_OUTBOX

    def close(self, why: str = "connection closed") -> None:
        """End the session; ``why``: what the records of its seats say (a revoked token, not a
        bot that hung up)."""
        if self.closed:
            return
        self.closed = True
        self.why_closed = why
        asked = [asking for asking, *_ in self.pending.values()]
        self.pending.clear()
        for asking in asked:  # each one's runner plays on (the disconnect policy)
            asking.answer(SeatDisconnected(f"{self.bot_name}: {why}"))
        if self.wire is not None:
            self.wire.close()
        else:
            self.outbox.put_nowait(None)

    def plays(self, game: str) -> bool:
        return not self.games or game in self.games

    def next_request_id(self) -> int:
        return next(self._request_ids)


class Hub:
    """Who may connect and as whom (credentials), and who is connected (sessions).

    A session's name is an identity: the name its launch token was made for (a bot
    process the arbiter started), or the bot whose token it presented (``credentials``,
    ``arbiter.server.auth``). ``open_join`` (``arbiter serve --open``, loopback only)
    lets any bot in under any name without a token: for trusted local use.
    """

    #: The highest revision of view deltas this hub grants a Hello that asks (arena.proto
    #: ViewDelta) over gRPC, where a bot may be across a network (a Turn ~30 % fewer bytes);
    #: 0 gives every such session whole views.
    view_deltas: int = convert.VIEW_DELTAS
    #: The same over the local channel (the arbiter's own bot processes): 0, whole views.
    #: There bytes cost nothing and CPU is the measure, and deltas cost a few µs more of it
    #: per decision on both sides than whole views (docs/performance.md, "Say only what changed").
    local_view_deltas: int = 0

    def __init__(self, credentials: Any = None, open_join: bool = False):
        self.credentials = credentials  # an auth.LiveCredentials, or None
        self.open_join = open_join
        self._launch_tokens: dict[str, str] = {}  # token -> expected bot name
        self.sessions: dict[str, Session] = {}
        self._by_token: dict[str, Session] = {}
        self._changed = asyncio.Event()
        self._ids = itertools.count(1)
        #: Set when the server stops: the matches RunMatch is playing stop first (no result,
        #: their bots told ``stopped``), before the streams close; a match played on would
        #: end as a forfeit of whichever seat's stream the stop happened to close first.
        self.stopping = asyncio.Event()
        #: The matches RunMatch is playing now (their tasks), which a stop waits for.
        self.matches: set[asyncio.Future] = set()
        #: The Unix socket the server also listens on (sandboxed bots without a network dial it).
        self.unix_path: str | None = None
        #: The local channel's socket beside it (``localchannel``: the same stream in plain frames).
        self.local_path: str | None = None

    def expect(self, name: str) -> str:
        """A fresh token for a bot process the arbiter is about to start."""
        token = new_token()
        self._launch_tokens[token] = name
        return token

    def unexpect(self, token: str) -> None:
        """The launch token of a bot process that has stopped: no longer accepted (a
        long-running arbiter starts a process per match; each Hello is checked against the
        tokens of the live ones only)."""
        self._launch_tokens.pop(token, None)

    def check_hello(self, hello: pb.Hello) -> tuple[str, str] | None:
        """None if the Hello is well formed, else (error code, reason)."""
        if hello.protocol_version != convert.PROTOCOL_VERSION:
            return "version", (f"protocol version {hello.protocol_version} not supported: this arbiter speaks "
                               f"{convert.PROTOCOL_VERSION} (set Hello.protocol_version)")
        if not names.is_seat_name(hello.bot_name):
            return "protocol", f"bad bot name {clip(hello.bot_name, 80)!r}: {names.NAME_RULE}, or name@version"
        if hello.bot_version and not names.VERSION_RE.match(hello.bot_version):
            return "protocol", f"bad bot version {clip(hello.bot_version, 40)!r}: {names.VERSION_RULE}"
        if len(hello.games) > MAX_HELLO_GAMES or any(not names.is_name(g) for g in hello.games):
            return "protocol", f"games: at most {MAX_HELLO_GAMES} game names ({', '.join(GAMES)})"
        return None

    def authenticate(self, hello: pb.Hello) -> tuple[str | None, str]:
        """(the identity this Hello opens a session as, "") or (None, why not)."""
        token = hello.token
        for known, name in self._launch_tokens.items():
            if same(known, token):
                if known in self._by_token:
                    return None, "this token is already in use by another connection"
                return name, ""
        creds = self.credentials.get() if self.credentials is not None else None
        if creds is not None and token:
            bot = creds.bot_for(token)
            if bot is not None:
                if hello.bot_name != bot:
                    return None, (f"this token is the identity of bot {bot!r}, not of {clip(hello.bot_name, 80)!r}: "
                                  f"connect as {bot}")
                return bot, ""
        if self.open_join and not token:
            return hello.bot_name, ""
        return None, "token not accepted" if token else "a bot token is required (arbiter credentials add-bot NAME)"

    def add(self, hello: pb.Hello, identity: str | None = None, local: bool = False) -> Session:
        """A new session for ``hello`` (``local``: on the local channel)."""
        session = Session(
            session_id=f"s{next(self._ids)}-{secrets.token_hex(3)}",
            bot_name=identity or self._launch_tokens.get(hello.token, hello.bot_name),
            bot_version=hello.bot_version,
            games=tuple(hello.games),
            claimed_name=hello.bot_name,
            view_deltas=min(hello.view_deltas, self.local_view_deltas if local else self.view_deltas),
        )
        self.sessions[session.session_id] = session
        if (m := metrics.active()) is not None:
            m.connected.labels(m.bot(session.bot_name)).inc()
        if hello.token in self._launch_tokens:
            self._by_token[hello.token] = session
        elif hello.token:
            session.credential = hello.token
        self._changed.set()
        return session

    def drop_revoked(self) -> list[Session]:
        """Close every session whose bot token is no longer in the credentials (revoked, or
        given to another name): its seats then follow the disconnect policy. The closed ones."""
        creds = self.credentials.get() if self.credentials is not None else None
        if creds is None:
            return []
        dropped = [s for s in self.sessions.values()
                   if s.credential and not s.closed and creds.bot_for(s.credential) != s.bot_name]
        for session in dropped:
            log.warning("bot %s (%s): its token was revoked; closing its stream", session.bot_name, session.session_id)
            session.send(_err("auth", "this bot's token was revoked (arbiter credentials revoke); the stream is closed"))
            session.close("its token was revoked (arbiter credentials revoke); connection closed")
        return dropped

    def remove(self, session: Session) -> None:
        session.close()
        if self.sessions.pop(session.session_id, None) is not None and (m := metrics.active()) is not None:
            m.connected.labels(m.bot(session.bot_name)).dec()
        for token, s in list(self._by_token.items()):
            if s is session:
                del self._by_token[token]
        self._changed.set()

    def session_for(self, token: str) -> Session | None:
        """The live session opened with launch token ``token`` (one bot process)."""
        session = self._by_token.get(token)
        return session if session is not None and not session.closed else None

    @staticmethod
    def gone(name: str, why: str | None = None) -> Session:
        """A closed session standing for a bot process that is not there: its seats
        disconnect (``why``, if given, goes into the record as the process's last words)."""
        session = Session(session_id="gone", bot_name=name, bot_version="", games=(), closed=True)
        if why is not None:
            session.stderr_source = lambda: why
        return session

    def find(self, name: str, besides: Collection[Session] = ()) -> Session | None:
        """The least busy live session of bot ``name`` that is not one of ``besides``."""
        live = [s for s in self.sessions.values() if s.bot_name == name and not s.closed and s not in besides]
        return min(live, key=lambda s: len(s.pending)) if live else None

    async def changed(self, timeout: float) -> None:
        """Return when a session is next added or removed, or after ``timeout`` seconds
        (``BotProcess.connect`` waits for its process's session so, not a poll's period)."""
        self._changed.clear()
        try:
            async with asyncio.timeout(timeout):
                await self._changed.wait()
        except TimeoutError:
            pass

    async def wait_for(self, name: str, timeout: float) -> Session:
        """A live session of bot ``name``; TimeoutError if none connects in time."""
        async def _wait() -> Session:
            while True:
                session = self.find(name)
                if session is not None:
                    return session
                self._changed.clear()
                await self._changed.wait()

        async with asyncio.timeout(timeout):
            return await _wait()


def _retrieved(task: asyncio.Task) -> None:
    """Read what ``task`` ended with, so that a stream that ended (StopAsyncIteration) as
    the server stopped is not reported as "Task exception was never retrieved"."""
    if not task.cancelled():
        task.exception()


def _resolve(fut: asyncio.Future, answer: Any) -> None:
    """``RemoteSeat.ask``'s answer as ``fut``'s result (an error as its exception)."""
    if not fut.done():
        if isinstance(answer, BaseException):
            fut.set_exception(answer)
        else:
            fut.set_result(answer)


#: How early the event loop runs a timer (``BaseEventLoop._run_once``: a timer is due within
#: the clock's resolution).
_CLOCK_RESOLUTION = time.get_clock_info("monotonic").resolution


class _Asking:
    """One decision asked of a remote seat, until it is answered: its Turn on the wire (sent
    again, whole, on a resync), its deadline, and whom to tell the answer. The
    session's ``pending`` holds it under (match, wire request id) while the bot decides."""

    __slots__ = ("seat", "turn", "rid", "events", "views", "answered", "deadline", "resyncs")

    def __init__(self, seat: "RemoteSeat", turn: TurnRequest, rid: int, events: Any, views: Any,
                 answered: Callable[[Any], None]):
        self.seat, self.turn, self.rid, self.events, self.views = seat, turn, rid, events, views
        self.answered: Callable[[Any], None] | None = answered
        self.deadline: float | None = None  # the event loop's time past which it is unanswered
        self.resyncs = 0

    def send(self) -> None:
        """Write the Turn (the serialized ArbiterMessage: no message is built,
        docs/performance.md) and wait for its Act."""
        seat, turn = self.seat, self.turn
        views = self.views
        msg = convert.turn_wire(
            seat.game, turn.match_id, self.rid, turn.seat, turn.view, turn.legal_actions,
            turn.decision_ms, turn.bank_ms, self.events, views.delta(turn.view) if views is not None else None,
        )
        seat.session.pending[(turn.match_id, self.rid)] = (self, seat.game, turn.seat)
        seat.session.send(msg)

    def forget(self) -> None:
        """No answer is wanted any more (the runner stopped waiting)."""
        self.answered = None
        if self.seat._asking is self:
            self.seat._asking = None

    def expire(self) -> None:
        """The decision's deadline passed unanswered."""
        self.answer(TimeoutError())

    def answer(self, got: Any) -> None:
        """The bot's Act (from ``BotStreamServicer.receive``), or why there is none
        (TimeoutError from the timer, SeatDisconnected from ``Session.close``): the
        runner is told the Action, or the error ``decide_within`` raises."""
        answered = self.answered
        if answered is None:
            return
        seat = self.seat
        seat.session.pending.pop((self.turn.match_id, self.rid), None)
        if isinstance(got, BaseException):
            self.forget()
            answered(got)
            return
        if got.resync:
            # The seat could not apply the delta: the same Turn again, with the whole view,
            # on the same decision's clock (arena.proto Act.resync).
            if self.views is None:
                return self.answer(MalformedAction("Act.resync, but this session takes whole views (Hello.view_deltas is 0)"))
            self.resyncs += 1
            if self.resyncs > MAX_RESYNCS:
                return self.answer(MalformedAction(f"Act.resync more than {MAX_RESYNCS} times for one decision"))
            self.views.reset()
            self.send()
            return
        self.forget()
        seat._reported = got.think_us
        seat._note = got.note
        if got.failure:  # the bot's code failed to choose, and says how
            answered(BotFailed(clip(got.failure)))
            return
        try:
            action = convert.action_from_proto(seat.game, got.action)
        except convert.WireError as exc:
            action = MalformedAction(clip(str(exc)))
        except Exception as exc:  # noqa: BLE001 - the runner raises it (its match fails), as a decision it waits for
            action = exc
        answered(action)


class RemoteSeat(SeatClient):
    """A seat played by a bot over its Play stream."""

    def __init__(self, session: Session, game: str):
        self.session = session
        self.game = game
        convert.warm_actions(game)  # once per game in this process, before its first match's Turn
        self.name = session.bot_name
        #: (match, seat) -> the seat's events not sent yet. They travel in the seat's next
        #: Turn, or in its MatchEnd (arena.proto: Turn.events, MatchEnd.events): one message
        #: per decision instead of an Update to every seat after every action.
        self._unsent: dict[tuple[str, int], list[Event]] = {}
        #: (match, the runner's request id) -> the id on the wire, unique in the session.
        self._wire_ids: dict[tuple[str, int], int] = {}
        #: Act.think_us of the last answer (0: not said).
        self._reported = 0
        #: (match, seat) -> what the seat was last sent of its view, when its session takes
        #: view deltas (arena.proto ViewDelta): each Turn then carries what changed.
        self._views: dict[tuple[str, int], convert.ViewDeltaWriter] = {}
        #: the decision it waits for, and the one timer that watches its deadline
        self._asking: _Asking | None = None
        self._timer: asyncio.TimerHandle | None = None

    async def start(self, info: MatchInfo) -> None:
        if self.session.closed:
            raise SeatDisconnected(f"{self.name} is not connected")
        seat_token = new_token(16)
        self.session.seat_tokens[(info.match_id, info.seat)] = seat_token
        # written as bytes, what every seat of the match is told alike encoded once (issue 42)
        self.session.send(convert.match_start_wire(info, seat_token))

    #: An Act is read in a callback (the local channel's ``data_received``, gRPC's reader):
    #: the runner plays its decisions from there (``ask``).
    answers_in_callback = True

    async def decide(self, turn: TurnRequest) -> Any:
        return await self.decide_within(turn, None)

    async def decide_within(self, turn: TurnRequest, seconds: float | None) -> Any:
        """``ask``, awaited (for a runner that cannot play from callbacks: a match with a
        seat that does not answer in them)."""
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        self.ask(turn, seconds, functools.partial(_resolve, fut))
        try:
            return await fut
        finally:
            if not fut.done():  # cancelled: the seat forgets the request
                self.cancel(turn.match_id, turn.request_id)

    def ask(self, turn: TurnRequest, seconds: float | None, answered: Callable[[Any], None]) -> None:
        session = self.session
        if session.closed:
            answered(SeatDisconnected(f"{self.name}: {session.why_closed}"))
            return
        # The seat's events since its last message travel in this Turn (arena.proto).
        rid = session.next_request_id()
        views = None
        if session.view_deltas:  # only what changed in the seat's own view since its last Turn
            views = self._views.get((turn.match_id, turn.seat))
            if views is None:
                views = self._views[(turn.match_id, turn.seat)] = convert.ViewDeltaWriter(self.game)
        asking = _Asking(self, turn, rid, self._unsent.pop((turn.match_id, turn.seat), ()), views, answered)
        self._asking = asking
        asking.send()
        # What only a later callback reads (the request's id for ``cancel``/``reject``, the
        # deadline's timer) is kept once the Turn is on its way (docs/performance.md, attempt 72).
        self._wire_ids[(turn.match_id, turn.request_id)] = rid
        if seconds is not None:
            # The deadline: no Timeout context, no task cancellation and no timer of its own
            # per decision (a timer made and cancelled at every decision cost the loop as
            # much as the rest of its work on it): one timer per seat, moved on lazily.
            loop = asyncio.get_running_loop()
            asking.deadline = loop.time() + seconds
            if self._timer is None or self._timer.when() > asking.deadline:
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = loop.call_at(asking.deadline, self._check_deadline)

    def _check_deadline(self) -> None:
        """The seat's timer: the decision it waits for, if its deadline has passed, gets
        TimeoutError; one still in time sets the timer to its deadline."""
        self._timer = None
        asking = self._asking
        if asking is None or asking.deadline is None:
            return
        loop = asyncio.get_running_loop()
        if asking.deadline <= loop.time() + _CLOCK_RESOLUTION:  # as the loop judges a timer due
            asking.expire()
        else:
            self._timer = loop.call_at(asking.deadline, self._check_deadline)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def reported_us(self) -> int | None:
        return self._reported or None

    def reported_note(self) -> str:
        return getattr(self, "_note", "")

    def cancel(self, match_id: str, request_id: int) -> None:
        rid = self._wire_ids.get((match_id, request_id))
        if rid is not None:
            entry = self.session.pending.pop((match_id, rid), None)
            if entry is not None:
                entry[0].forget()

    async def stderr_tail(self) -> str:
        source = self.session.stderr_source
        return await asyncio.to_thread(source) if source is not None else ""

    async def notify(self, match_id: str, seat: int, events: list[Event]) -> None:
        self.hold(match_id, seat, events)

    def hold(self, match_id: str, seat: int, events: list[Event]) -> None:
        """Hold ``events`` (already filtered for ``seat`` by the runner) for the seat's next
        Turn or its MatchEnd; nothing is sent now."""
        if self.session.closed:
            return
        self._unsent.setdefault((match_id, seat), []).extend(events)

    async def reject(self, match_id: str, request_id: int, code: str, message: str) -> None:
        rid = self._wire_ids.get((match_id, request_id), 0)
        for (match, _), views in self._views.items():  # after any doubt, the seat's next view is whole
            if match == match_id:
                views.reset()
        self.session.send(_err(code, message.replace(f"request {request_id}", f"request {rid}"), match_id, rid))

    def stopped(self, match_id: str, seat: int) -> None:
        """The match stopped before its end: the seat's token is void and the bot is told."""
        self._stop_timer()
        self.session.seat_tokens.pop((match_id, seat), None)
        self._unsent.pop((match_id, seat), None)
        for key in [k for k in self._wire_ids if k[0] == match_id]:
            del self._wire_ids[key]
        self.session.send(_err("stopped", "the match was stopped before its end (its caller hung up, its admin "
                               "token was revoked or the arbiter is shutting down); it has no result", match_id))

    async def finish(self, match_id: str, seat: int, outcome: Outcome, final_view: Any) -> None:
        self._stop_timer()
        self.session.seat_tokens.pop((match_id, seat), None)
        for key in [k for k in self._wire_ids if k[0] == match_id]:
            del self._wire_ids[key]
        self._views.pop((match_id, seat), None)
        # written as bytes (its final view by the compiled wire encoder, as a Turn's view)
        self.session.send(convert.match_end_wire(self.game, match_id, seat, outcome,
                                                 self._unsent.pop((match_id, seat), ()), final_view))


class BotStreamServicer(pb_grpc.ArenaServicer):
    """The bot stream, the wire's ``Arena.Play`` (the service keeps its wire name until a
    ``v2``; here "arena" means the ladder only): authenticates the Hello, then routes Acts
    to the pending requests.

    A stream must say Hello within ``HELLO_TIMEOUT_S``; at most ``MAX_UNAUTHENTICATED``
    streams may be waiting to, and a new one past that closes the one that has waited
    longest (so streams held open without a word cannot keep a real bot out: its Hello
    comes at once); a wrong token is answered only in its turn of the arbiter's one limit
    on wrong credentials (``auth.GUESSES``), and at most ``MAX_REFUSING_PER_PEER`` refused
    streams of a peer and ``MAX_REFUSING`` in all wait for it."""

    def __init__(self, hub: Hub, hello_timeout: float = HELLO_TIMEOUT_S, max_unauthenticated: int = MAX_UNAUTHENTICATED,
                 max_refusing: int = MAX_REFUSING, max_refusing_per_peer: int = MAX_REFUSING_PER_PEER):
        self.hub = hub
        self.hello_timeout = hello_timeout
        self.max_unauthenticated = max_unauthenticated
        #: the refused streams waiting for their answer, by peer
        self._refusals = Refusals(max_refusing, max_refusing_per_peer)
        #: the streams waiting to say Hello, longest first: each one's "you are closed" event
        self._waiting: collections.OrderedDict[object, asyncio.Event] = collections.OrderedDict()

    async def _hello(self, request_iterator: AsyncIterator[pb.BotMessage]) -> pb.BotMessage | str:
        """The stream's first message, or why there is none (an Error's message: the wait
        is over, or a newer stream took this one's place); StopAsyncIteration, RpcError or
        DecodeError as the stream gives them."""
        me, evicted = object(), asyncio.Event()
        self._waiting[me] = evicted
        if len(self._waiting) > self.max_unauthenticated:
            _, oldest = self._waiting.popitem(last=False)
            oldest.set()
        first = asyncio.ensure_future(request_iterator.__anext__())
        bumped = asyncio.ensure_future(evicted.wait())
        for task in (first, bumped):  # what a task ends with is read even when this wait is cancelled
            task.add_done_callback(_retrieved)
        try:
            done, _ = await asyncio.wait({first, bumped}, timeout=self.hello_timeout, return_when=asyncio.FIRST_COMPLETED)
            if first in done:
                return first.result()
            if bumped in done:
                return ("too many connections are waiting to say Hello; this one waited longest and is closed "
                        "(say Hello as soon as the stream opens)")
            return f"no Hello within {self.hello_timeout:g} s; the stream is closed"
        finally:
            self._waiting.pop(me, None)
            for task in (first, bumped):
                if not task.done():
                    task.cancel()

    async def Play(self, request_iterator: AsyncIterator[pb.BotMessage], context: grpc.aio.ServicerContext):
        try:
            first = await self._hello(request_iterator)
        except (StopAsyncIteration, grpc.RpcError, asyncio.CancelledError):
            return
        except DecodeError:  # bytes that are not a BotMessage: no session, and no traceback in the log
            log.info("refused a stream whose first message is not a BotMessage")
            yield _err("protocol", "the first message is not a valid BotMessage")
            return
        if isinstance(first, str):
            yield _err("protocol", first)
            return
        if first.WhichOneof("msg") != "hello":
            yield _err("protocol", "the first message must be Hello")
            return
        hello = first.hello
        peer = context.peer() or "?"
        if self._refusals.busy(peer):
            yield _err("busy", busy_text(self._refusals.per_peer, "connections"))
            return
        bad = self.hub.check_hello(hello)
        identity, reason = (None, "") if bad else self.hub.authenticate(hello)
        if bad or identity is None:
            if not bad:  # a refused token: answered in its turn of the one limit on wrong credentials
                await self._refusals.turn(peer, "bot")
            code, reason = bad or ("auth", reason)
            log.warning("refused a bot connection from %s: %s", peer, reason)
            yield _err(code, reason)
            return
        session = self.hub.add(hello, identity, local=getattr(context, "attach", None) is not None)
        log.info("bot %s %s connected (%s)", session.bot_name, clip(session.bot_version, 40), session.session_id)
        welcome = pb.ArbiterMessage(welcome=pb.Welcome(session_id=session.session_id, protocol_version=convert.PROTOCOL_VERSION,
                                                       view_deltas=session.view_deltas))
        attach = getattr(context, "attach", None)
        if attach is not None:  # the local channel: it writes what is sent and hands over what it reads itself
            try:
                yield welcome
                await attach(session, self)
            finally:
                self.hub.remove(session)
                log.info("bot %s disconnected (%s)", session.bot_name, session.session_id)
            return
        # The reader removes the session when the bot's side of the stream ends (its cancel,
        # its deadline), before the Welcome is out too: grpc stops iterating this generator
        # if the stream ends while it writes what the generator yielded, and leaves it
        # suspended there, its ``finally`` never run (the session would outlive its stream).
        reader = asyncio.create_task(self._read(session, request_iterator))
        try:
            yield welcome
            while True:
                msg = await session.outbox.get()
                if msg is None:
                    break
                yield msg  # a Turn as the bytes it was written as (``convert.serialized``)
        finally:
            reader.cancel()
            self.hub.remove(session)
            log.info("bot %s disconnected (%s)", session.bot_name, session.session_id)

    async def _read(self, session: Session, request_iterator: AsyncIterator[pb.BotMessage]) -> None:
        try:
            async for msg in request_iterator:
                if session.closed or not self.receive(session, msg):
                    break
        except (grpc.RpcError, asyncio.CancelledError):
            pass
        except DecodeError:
            self.undecodable(session)
        except Exception:  # noqa: BLE001 - never let one stream take the server down
            log.exception("error reading bot stream %s", session.session_id)
        finally:
            self.hub.remove(session)  # closes it (Play's generator may never resume: see there)

    def receive(self, session: Session, msg: pb.BotMessage) -> bool:
        """One message of an open session, where it is read: an Act resolves its request;
        anything else is answered. False once the stream must be closed (the caller closes
        the session)."""
        which = msg.WhichOneof("msg")
        act = msg.act
        key = (act.match_id, act.request_id)
        entry = session.pending.get(key) if which == "act" else None
        if entry is not None:
            expected = session.seat_tokens.get((act.match_id, entry[2]), "")
            if not same(expected, act.seat_token):
                if not self._junk(session):  # the request stays open for the real answer
                    return False
                session.send(_err("wrong_seat", f"request {act.request_id}: seat_token is not the token of the seat "
                                  "this request is for", act.match_id[:40], act.request_id))
                return True
            session.pending.pop(key, None)
        elif not self._junk(session):
            return False
        if which == "hello":  # arena.proto: a protocol error closes the stream
            session.send(_err("protocol", "a second Hello on one stream; the stream is closed"))
            return False
        if which != "act":
            session.send(_err("protocol", f"unexpected {which or 'empty'} message after Hello"))
            return True
        if entry is None:
            session.send(
                _err(
                    "unknown_request",
                    f"no pending request {act.request_id} for you in match {act.match_id[:40]!r} "
                    "(answered already, timed out, or never asked)",
                    act.match_id[:40],
                    act.request_id,
                )
            )
            return True
        entry[0].answer(act)  # its decision played, and the next Turn written, from here (runner._on_answer)
        return True

    @staticmethod
    def undecodable(session: Session) -> None:
        """The session sent bytes that are not a BotMessage: told, then its stream closes."""
        log.warning("bot %s (%s) sent bytes that are not a BotMessage; closing its stream", session.bot_name, session.session_id)
        session.send(_err("protocol", "a message is not a valid BotMessage; the stream is closed"))

    @staticmethod
    def _junk(session: Session) -> bool:
        """Charge a message that answered nothing; False (and the session told) on a flood."""
        flooding = not session.spend_junk()
        if not flooding and not session.stalled():
            return True
        log.warning("bot %s (%s) flooded the stream; closing it", session.bot_name, session.session_id)
        # the words say which limit it passed: the stall (it sent without reading) was told it sent too many
        session.send(_err("flood", f"more than {FLOOD_BURST} messages that answer no request (or over {FLOOD_RATE:g} a "
                          "second); the stream is closed" if flooding else "a message that answers no request while the "
                          "arbiter's to it pile up unread (the bot stopped reading them); the stream is closed"))
        session.close()
        return False


class _Announce(MatchObserver):
    """Tells RunMatch's caller the match id as soon as the match has started (the spectators'
    observers, before this one, have it then: it can be watched), in the call's initial
    metadata (``MATCH_ID_METADATA``): the summary comes only at the end, and a caller that
    shows the match meanwhile (`arbiter play --server`: whose turn it waits on) needs the id."""

    wants_steps = False

    def __init__(self, context: Any):
        self.context = context

    async def started(self, match_id: str, game: str, seat_names: tuple[str, ...], spectator_view: Any) -> None:
        await self.context.send_initial_metadata(((MATCH_ID_METADATA, match_id),))


class MatchesServicer(pb_grpc.MatchesServicer):
    """Runs matches between connected bots on request."""

    def __init__(self, hub: Hub, admin_token: str | None = None, default_clock: Clock = Clock()):
        self.hub = hub
        self.admin_token = admin_token
        self.default_clock = default_clock
        #: MatchConfig -> observers of that match (spectators); set by start_server.
        self.observers_for: Any = lambda config: ()

    async def _check_admin(self, token: str, context) -> None:
        await require_token(self.admin_token, token, context, kind="admin", message=
                            "admin token required: pass --admin-token (or set ARENA_ADMIN_TOKEN); on the "
                            "arbiter's machine `arbiter credentials token admin` prints it")

    async def _run_while_admin(self, token: str, config: MatchConfig, seats: list, context) -> Any:
        """The match's record, unless the admin token the call came with is revoked while it
        plays (``auth.until_revoked``): then the match stops (its bots told, its watchers'
        streams ended) and the call ends with PERMISSION_DENIED. A caller that hangs up
        stops it the same way (the handler is cancelled), and so does the server's stop
        (``Hub.stopping``: the call ends with UNAVAILABLE, the arbiter shutting down)."""
        match = asyncio.ensure_future(run_match(config, seats, observers=(*self.observers_for(config), _Announce(context))))
        revoked = asyncio.ensure_future(until_revoked(self.admin_token, token))
        stopping = asyncio.ensure_future(self.hub.stopping.wait())
        self.hub.matches.add(match)
        try:
            await asyncio.wait({match, revoked, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            revoked.cancel()
            stopping.cancel()
            if not match.done():
                match.cancel()
                await asyncio.wait({match})
            self.hub.matches.discard(match)
        if match.cancelled() and self.hub.stopping.is_set():
            log.warning("a match of %s stopped: the arbiter is shutting down", config.game)
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the arbiter is shutting down; the match was stopped "
                                "and has no result")
        if match.cancelled():
            log.warning("a match of %s stopped: the admin token it was started with was revoked", config.game)
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "the admin token was revoked (arbiter credentials "
                                "revoke admin); the match was stopped")
        return match.result()

    async def ListSessions(self, request, context):
        await self._check_admin(request.admin_token, context)
        return pb.ListSessionsResponse(
            sessions=[
                pb.SessionInfo(session_id=s.session_id, bot_name=s.bot_name, bot_version=s.bot_version, games=list(s.games))
                for s in self.hub.sessions.values()
            ]
        )

    async def RunMatch(self, request: pb.RunMatchRequest, context):
        await self._check_admin(request.admin_token, context)
        clock = Clock(request.clock.decision_ms, request.clock.bank_ms) if request.HasField("clock") else self.default_clock
        try:
            strikes = request.max_strikes if request.HasField("max_strikes") else 3  # (0 is none, not unset)
            policy = FailurePolicy.uniform(request.policy or "forfeit", strikes)
        except ValueError:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"unknown policy {clip(request.policy, 40)!r} (forfeit or default)")
        # no seed given: a secret one (a seed the bots could guess would hand them every hand)
        seed = request.seed if request.HasField("seed") else secrets.randbits(62)
        try:  # a game of a number of players takes it from the seats, as `arbiter play` and the SDK do
            options = seat_options(request.game, dict(request.options), request.preset or None, len(request.seats))
        except ConfigError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, clip(str(exc), 400))
        config = MatchConfig(
            game=request.game, seed=seed, options=options, preset=request.preset or None,
            clock=clock, policy=policy, disclosure=OPEN,  # a match of no batch: its deal never comes back
        )
        try:
            game = config.make_game()
        except ConfigError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, clip(str(exc), 400))
        if len(request.seats) != game.num_seats:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"{request.game} needs {game.num_seats} seats, got {len(request.seats)}")
        if len(request.seat_sessions) > len(request.seats):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"seat_sessions: {len(request.seat_sessions)} entries "
                                f"for {len(request.seats)} seats")
        wanted = list(request.seat_sessions) + [""] * (len(request.seats) - len(request.seat_sessions))
        seats = []
        taken: list[Session] = []
        for name, sid in zip(request.seats, wanted):
            if sid:  # this very session: who it is was settled by its token when it said Hello
                session = self.hub.sessions.get(sid)
                if session is None or session.closed or session in taken:
                    await context.abort(grpc.StatusCode.FAILED_PRECONDITION, f"session {clip(sid, 40)!r} is not "
                                        "connected (or holds another seat of this match)")
                if session.bot_name != name:
                    await context.abort(grpc.StatusCode.FAILED_PRECONDITION, f"session {clip(sid, 40)!r} is bot "
                                        f"{session.bot_name!r}, not {name[:64]!r}")
            else:
                # one stream never holds two seats of one match: a bot at two seats
                # (partners, copies) needs as many connections
                session = self.hub.find(name, besides=taken)
            if session is None:
                have = sum(1 for s in taken if s.bot_name == name)
                why = (f"{have + 1} connections of bot {name[:64]!r} for its seats, {have} connected: one connection "
                       f"holds one seat of a match, so connect it once more (python -m sdk --name {name[:64]})") if have else \
                    f"no bot named {name[:64]!r} is connected"
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION, why)
            taken.append(session)
            if not session.plays(request.game):
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION, names.does_not_play(name[:64], request.game, session.games))
            seats.append(RemoteSeat(session, request.game))
        record = await self._run_while_admin(request.admin_token, config, seats, context)
        return pb.MatchSummary(
            match_id=record.match_id,
            outcome=convert.outcome_to_proto(record.outcome),
            decisions=len(record.actions),
            actions=[a.action for a in record.actions],
            incidents=[convert.incident_text(i) for i in record.incidents],
            seed=record.seed,
        )
