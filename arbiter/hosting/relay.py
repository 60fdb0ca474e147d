"""A seat decided in this process, played on a standing arbiter (``arbiter serve``).

``arbiter web --arbiter ADDR`` lets a person play against the bots connected to a
standing arbiter: those bots run on their authors' machines and reach only that arbiter,
so the match is refereed there (``Matches.RunMatch``) and the person's seat joins it as
any bot does: a stream of its own (``Arena.Play``) that says Hello with the seat's bot
token (an identity, as every bot's: the arbiter decides who it is from the token). That
stream is the SDK's own connection and its one driver (``sdk.runner``, ``sdk.driver``):
the "bot" it drives hands every hook to a ``SeatClient`` of this process (the person's
``BrowserSeat``), so the seat sees what the arbiter sends that seat, nothing else: its
MatchStart, its view and legal actions in each Turn, the events in them, its MatchEnd.

One ``RelayedSeat`` plays one match: ``connect`` opens the stream (its session id goes
into the RunMatch request, so that the arbiter seats this stream and no other of the same
bot), ``started``/``ended`` say when the match began and ended for the seat, ``close``
ends the stream (an unfinished match then ends at the arbiter by disconnection).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from typing import Any, Callable, Sequence

from arbiter.match import SeatClient, SeatDisconnected, TurnRequest
from cardarena.games import Action, Event
from cardarena.records import MatchInfo, MatchResult
from cardarena.wire import codec
from sdk.bot import Bot
from sdk.runner import ArbiterError, Connection, run

log = logging.getLogger(__name__)


class RelayError(Exception):
    """The seat could not join the arbiter (unreachable, token refused); the message says why."""


class _Relay(Bot):
    """The SDK bot whose every hook is the ``SeatClient``'s (on the caller's event loop).
    One match per connection: the driver's "fresh copy" is the relay itself."""

    games = ("*",)

    def __init__(self, owner: "RelayedSeat"):
        super().__init__()
        self.owner = owner
        self.final_view: Any = None  # MatchEnd.final_view, read by the connection before the driver's end
        self._asked = 0

    def __deepcopy__(self, memo: dict) -> "_Relay":
        return self

    def on_match_start(self, info: MatchInfo) -> None:
        self.owner._call(self.owner.seat.start(info))
        self.owner._set(self.owner.started)

    def on_events(self, events: list[Event]) -> None:
        assert self.info is not None
        self.owner._call(self.owner.seat.notify(self.info.match_id, self.info.seat, events))
        if self.owner.told is not None:
            self.owner.loop.call_soon_threadsafe(self.owner.told)

    def choose(self, view: Any, legal_actions: Sequence[Action]) -> Action | None:
        assert self.info is not None
        self._asked += 1
        turn = TurnRequest(self.info.match_id, self._asked, self.info.seat, view, tuple(legal_actions),
                           self.info.decision_ms, self.info.bank_ms)
        return self.owner._decide(turn)

    def on_match_end(self, result: MatchResult) -> None:
        self.owner._call(self.owner.seat.finish(result.match_id, result.seat, result.outcome, self.final_view))
        self.owner._set(self.owner.ended)


class _RelayConnection(Connection):
    """The SDK's connection, which also hands the relay the seat's session id (Welcome) and
    its final view (MatchEnd.final_view: what the arbiter's disclosure lets it see)."""

    def __init__(self, bot: Bot, name: str):
        super().__init__(bot, name)
        self.report = self._reported

    def _reported(self, text: str) -> None:
        if self.session_id:
            self.template.owner._welcomed(self.session_id)

    def handle(self, msg: Any) -> None:
        relay = self.template
        if msg.WhichOneof("msg") == "match_end" and msg.match_end.HasField("final_view") and relay.info is not None:
            try:
                relay.final_view = codec.view_from_proto(relay.info.game, msg.match_end.final_view)
            except codec.WireError as exc:
                log.warning("the final view of %s cannot be read: %s", relay.info.match_id, exc)
        super().handle(msg)


class RelayedSeat:
    """``seat`` (a ``SeatClient`` whose coroutines run on ``loop``) at one match of the arbiter
    it ``connect``s to, under the bot name ``name``. ``told()`` is called on ``loop`` after
    each batch of events the seat was given (a person's page shows them at once)."""

    def __init__(self, seat: SeatClient, loop: asyncio.AbstractEventLoop, name: str, told: Callable[[], None] | None = None):
        self.seat = seat
        self.loop = loop
        self.name = name
        self.told = told
        self.started = asyncio.Event()  # the MatchStart was handed to the seat
        self.ended = asyncio.Event()  # the MatchEnd was
        self.gone = asyncio.Event()  # the stream has ended (after the MatchEnd, or without one)
        self.session_id = ""
        self._relay = _Relay(self)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._welcome: asyncio.Future[str] = loop.create_future()
        self._pending: concurrent.futures.Future | None = None
        self._lock = threading.Lock()
        self._over = False

    @property
    def info(self) -> MatchInfo | None:
        return self._relay.info

    async def finished(self, timeout: float) -> bool:
        """Wait (at most ``timeout`` s) until the seat's MatchEnd was handed to it, or its
        stream ended without one; True in the first case."""
        waits = [asyncio.ensure_future(e.wait()) for e in (self.ended, self.gone)]
        try:
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
        return self.ended.is_set()

    async def connect(self, address: str, token: str, tls_ca: bytes | None = None, timeout: float = 30.0) -> str:
        """Open the seat's stream; its session id. RelayError if the arbiter cannot be
        reached or refuses the token (its words), or says nothing within ``timeout`` s."""
        def play() -> None:
            try:
                run(self._relay, address, token=token, name=self.name, stop=self._stop, tls_ca=tls_ca,
                    connection=_RelayConnection)
                why = "the arbiter closed the stream before it said Welcome"
            except ArbiterError as exc:
                why = str(exc)
            except SystemExit as exc:  # the seat left (``_decide``): the stream is closed
                why = f"the seat left: {exc.code}"
            except Exception as exc:  # noqa: BLE001 - said to the caller; this thread ends
                log.exception("the relayed seat %s failed", self.name)
                why = f"{type(exc).__name__}: {exc}"
            try:
                self.loop.call_soon_threadsafe(self._refused, why)
                self.loop.call_soon_threadsafe(self.gone.set)
            except RuntimeError:  # the caller's loop is closed: nobody waits for the Welcome any more
                pass

        self._thread = threading.Thread(target=play, name=f"relay-{self.name}", daemon=True)
        self._thread.start()
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.shield(self._welcome)
        except TimeoutError:
            raise RelayError(f"{address} did not welcome the seat within {timeout:g} s") from None

    def interrupt(self) -> None:
        """The match is over at the arbiter (RunMatch has answered): a decision the seat is
        still making (its clock ran out there) is called off, answered with nothing (the
        arbiter no longer asks it), and the MatchEnd queued behind it is read."""
        with self._lock:
            self._over = True
            pending = self._pending
        if pending is not None:
            pending.cancel()

    async def close(self, timeout: float = 10.0) -> None:
        """End the stream (and so the seat's part in an unfinished match: the arbiter records
        a disconnection) and its thread."""
        self._stop.set()
        with self._lock:
            pending = self._pending
        if pending is not None:
            pending.cancel()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, timeout)

    # -- called from the connection's thread ------------------------------------------

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def _set(self, event: asyncio.Event) -> None:
        self.loop.call_soon_threadsafe(event.set)

    def _decide(self, turn: TurnRequest) -> Action | None:
        """The seat's answer. The seat gone (``SeatDisconnected``: a person who left the
        table) or the stream closing: the SDK's way for a bot to leave, ``SystemExit``, ends
        the connection, and the arbiter applies its disconnect policy. The match over at
        the arbiter: None, an answer to nobody (never a move made for the seat)."""
        with self._lock:
            if self._over:
                return None
            if self._stop.is_set():
                raise SystemExit("the seat's stream is closing")
            pending = self._pending = asyncio.run_coroutine_threadsafe(self.seat.decide(turn), self.loop)
        try:
            return pending.result()
        except concurrent.futures.CancelledError:
            if self._over and not self._stop.is_set():
                return None
            raise SystemExit("the seat's stream is closing") from None
        except SeatDisconnected as exc:
            log.info("%s: %s; closing its stream", self.name, exc)
            raise SystemExit(str(exc)) from None
        finally:
            with self._lock:
                self._pending = None

    # -- on the loop ------------------------------------------------------------------

    def _welcomed(self, session_id: str) -> None:
        self.session_id = session_id
        self.loop.call_soon_threadsafe(lambda: self._welcome.done() or self._welcome.set_result(session_id))

    def _refused(self, why: str) -> None:
        if not self._welcome.done():
            self._welcome.set_exception(RelayError(why))


__all__ = ["RelayError", "RelayedSeat"]
