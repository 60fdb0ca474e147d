"""A person at the table: matches in which one seat is played from a browser (``arbiter web``).

The arbiter hosts such a match as it hosts any other: a batch of one (``arbiter.batch``)
whose person's seat is a guest of the caller's, a ``BrowserSeat``, and whose bots are
sandboxed processes over gRPC from the one venue factory (``open_venue``: a venue per
match, ``deal`` isolation: a process per seat, started for this match, stopped after it). So the runner validates
every action, applies the clock (a generous one by default: minutes per decision) and the
failure policy (forfeit: a person gone past the clock loses by timeout, and one whose
pages have asked nothing for ``GONE_SECONDS`` at their turn, a closed tab, by
disconnection, so an abandoned match does not hold its place for the clock), and the record
goes to the store (``store_play``, as ``arbiter play`` keeps its matches), where it
replays and verifies like any other (``arbiter replay``, ``cardarena.replay``).

What the person sees is what the runner hands the seat, nothing else: the seat's view
(``State.view(seat)`` in each ``TurnRequest``), its legal actions, the events the seat may
see (``events_for``), the rejections, the result and the final view the match's
disclosure allows every seat at the end (a person's match is of no batch, ``OPEN``: the
whole deal, as its replay shows once stored). The page (``arbiter.present.play_page``) renders only a
``Snapshot`` of these.

Bots that run on their authors' machines reach only the standing arbiter they connect to
(``arbiter serve``). With one given (``StandingArbiter``: ``arbiter web --arbiter``), its
connected bots are offered too, as ``remote:NAME`` (NAME: the bot their token was issued
for), and a match against them is refereed there: the person's seat joins that arbiter
as bot ``HUMAN``, with that bot's token, on a stream of its own (``hosting.relay``: the
SDK's connection and driver, each hook handed to the ``BrowserSeat``), which
Matches.RunMatch seats by its session id; the record is what RunMatch answers, replayed
through the engine (``batch.single.record_of``), stored here as any other. The seat is
shown what that arbiter sends it, nothing else.

Who may see or act for the seat is decided by a secret: the per-match seat token given
to whoever started the match (``secrets.token_urlsafe``, compared in constant time). The
number of matches being played at once is bounded (``limit``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import hmac
import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from arbiter.batch.plan import PlannedMatch
from arbiter.batch.settings import SpecError, not_carried
from arbiter.batch.single import record_of, store_play
from arbiter.hosting.botproc import BotStartError
from arbiter.hosting.loading import BUNDLED, load_bot
from arbiter.match import MatchObserver, SeatClient, SeatDisconnected, TurnRequest
from arbiter.server import auth
# Not imported here, but by the methods that play a match or ask a standing arbiter (the batch
# engine, the venue, the relay, the gRPC client: grpc and the gRPC server with them, ~0.1 s of
# CPU): `arbiter web` imports this module at its start, and /play may never be used.
from arbiter.store.db import READ_ERRORS, store_unwritable
from arbiter.store.registry import Registry, RegistryError
from cardarena.disclosure import OPEN
from cardarena.games import GAMES, Action, ConfigError, Event, Game, GameError, Outcome, game_class, get_game
from cardarena.records import Clock, FailurePolicy, MatchConfig, MatchInfo, MatchRecord, Policy, clip, number
from cardarena.names import does_not_play

log = logging.getLogger(__name__)

#: The name the browser's seat plays under (records, replays, the other seats' MatchStart).
HUMAN = "browser"

#: What /play says on a server started with ``--play-limit 0`` (the default on an interface
#: other machines reach, ``arbiter web --host``): no match with a person is started there.
OFF = ("playing a seat is off on this server: it allows no match with a person at the table (--play-limit 0, "
       "the default where other machines reach it); its operator may allow some with --play-limit N. "
       "The rest of the site works")

#: Matches with a person at the table at once (``arbiter web --play-limit``).
DEFAULT_LIMIT = 4

#: Matches started from one client (its address) with a person at the table at once
#: (``arbiter web --play-per-client``); a client starts one at a time.
DEFAULT_PER_CLIENT = 2

#: Seconds a person has for each decision (``arbiter web --play-clock``); past it the
#: runner's policy applies: the person's side forfeits (the match is abandoned, recorded).
DEFAULT_DECISION_SECONDS = 300

#: Seconds without a request from any of the match's pages after which the person has left
#: the table (the tab was closed): at their turn the seat disconnects, and the policy ends
#: the match (their side forfeits), freeing its place under ``limit``. An open page's live
#: stream (``present.play_page.seat_version``) counts as a request every second.
GONE_SECONDS = 60.0

#: Finished matches kept in memory for their pages (their records are in the store).
KEEP_FINISHED = 32

#: How long starting a match may take (bot processes starting and connecting).
START_TIMEOUT = 120.0

#: How an opponent connected to the standing arbiter (``arbiter web --arbiter``) is named
#: on the form: ``remote:NAME``, NAME being its identity there (its token's bot name).
REMOTE = "remote:"

#: Seconds to wait for the standing arbiter to list its connected bots.
LIST_TIMEOUT = 5.0


class TableError(Exception):
    """A request the tables refuse; ``status`` is its HTTP status, the message says why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


# --------------------------------------------------------------------------------------
# The seat.


@dataclass(frozen=True)
class Snapshot:
    """What the seat's page may show, copied at one moment: only what the runner handed
    the seat (its view, legal actions, its events), plus the result."""

    match_id: str
    game: str
    seat: int
    seat_names: tuple[str, ...]
    teams: tuple[tuple[int, ...], ...]
    options: dict[str, Any]
    decision_ms: int
    version: int  # grows with every change; the page's script waits on it
    step: int  # actions applied so far (a seat on a standing arbiter is told no count: 0 there until the record gives it)
    request_id: int | None  # the decision being asked of the seat (None: not its turn)
    view: Any  # the seat's view of its last decision (None before its first)
    legal: tuple[Action, ...]
    events: tuple[str, ...]  # every event the seat may see, in order
    notices: tuple[str, ...]  # what the arbiter said about its answers (timeouts)
    outcome: Outcome | None
    final_view: Any  # what the disclosure lets the seat see of the ended game (None until the end, and after a forfeit)
    stored: str  # "" not yet; "stored"; or why the record could not be stored
    failed: str  # why the match could not be played ('' if it was)
    deadline_ms: int = 0  # when the decision's clock runs out, in ms since the epoch (0: no decision, or no limit)
    #: the version each seat's bot said it is, by seat ("" for the person, or not said)
    seat_versions: tuple[str, ...] = ()

    @property
    def over(self) -> bool:
        return self.outcome is not None or bool(self.failed)


class BrowserSeat(SeatClient):
    """The seat a person plays from a browser: ``decide`` waits for ``act`` (called from a
    web request's thread), which checks the answer before the runner sees it, so a bad
    click is an error for the page, never an illegal action of the match."""

    def __init__(self, loop: asyncio.AbstractEventLoop, game: Game, name: str = HUMAN, gone_seconds: float = GONE_SECONDS):
        self.name = name
        self._loop = loop
        self._game = game
        self.gone_seconds = gone_seconds
        self._last_seen = time.monotonic()
        self._cond = threading.Condition()
        #: the async waiters of the pages' live streams (``wait_async``): each one's loop and event
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self._info: MatchInfo | None = None
        self._turn: TurnRequest | None = None
        self._future: asyncio.Future[Action] | None = None
        self._view: Any = None
        self._events: list[str] = []
        self._pending: list[str] = []  # events of the action being applied (published with its step)
        self._notices: list[str] = []
        self._outcome: Outcome | None = None
        self._final_view: Any = None
        self._stored = ""
        self._failed = ""
        self._step = 0
        self._version = 0
        self._asked_at = time.time()

    def _bump(self) -> None:  # with self._cond held
        self._version += 1
        self._cond.notify_all()
        for loop, event in self._waiters:
            loop.call_soon_threadsafe(event.set)

    # -- the runner's side (the event loop's thread) --------------------------------------

    async def start(self, info: MatchInfo) -> None:
        with self._cond:
            self._info = info
            self._bump()

    async def decide(self, turn: TurnRequest) -> Action:
        future: asyncio.Future[Action] = self._loop.create_future()
        with self._cond:
            self._turn, self._future, self._view = turn, future, turn.view
            self._asked_at = time.time()  # wall clock: the page counts down to a deadline that stays put
            self._bump()
        try:
            while True:  # the answer, unless the person has left the table (GONE_SECONDS)
                left = self.gone_seconds - (time.monotonic() - self._last_seen)
                if left <= 0:
                    raise SeatDisconnected(f"the person left the table: no page of the match asked anything "
                                           f"for {self.gone_seconds:g} s")
                done, _ = await asyncio.wait({future}, timeout=left)
                if done:
                    return future.result()
        finally:
            with self._cond:
                if self._future is future:
                    self._turn = self._future = None
                    self._bump()

    async def notify(self, match_id: str, seat: int, events: list[Event]) -> None:
        with self._cond:
            self._pending.extend(e.text for e in events)

    def stepped(self, view: Any = None) -> None:
        """An action was applied and every seat told: its events, the step and the seat's
        view now (``view``, when the runner gave it) show at once."""
        with self._cond:
            self._step += 1
            if view is not None and self._turn is None:  # (a decision's own view stays as it was asked)
                self._view = view
            self._publish()

    def dealt(self, view: Any = None) -> None:
        with self._cond:
            if view is not None:
                self._view = view
            self._publish()

    def _publish(self) -> None:  # with self._cond held
        self._events.extend(self._pending)
        self._pending.clear()
        self._bump()

    async def reject(self, match_id: str, request_id: int, code: str, message: str) -> None:
        with self._cond:
            self._notices.append(f"{code}: {message}")
            self._bump()

    def cancel(self, match_id: str, request_id: int) -> None:
        with self._cond:
            if self._turn is not None and self._turn.request_id == request_id:
                self._turn = self._future = None
                self._bump()

    async def finish(self, match_id: str, seat: int, outcome: Outcome, final_view: Any) -> None:
        with self._cond:
            self._outcome, self._final_view = outcome, final_view
            self._publish()

    def stored(self, text: str, steps: int | None = None) -> None:
        """The record was stored (``text``: "stored", or why not); ``steps``: its actions,
        where the seat was not told of each as it was applied (a standing arbiter's match)."""
        with self._cond:
            self._stored = text
            if steps is not None:
                self._step = steps
            self._bump()

    def failed(self, why: str) -> None:
        with self._cond:
            self._failed = why or "the match could not be played"
            self._turn = self._future = None
            self._bump()

    # -- the page's side (web request threads) -------------------------------------------

    def seen(self) -> None:
        """A page of the match asked something: the person is still at the table."""
        self._last_seen = time.monotonic()

    def snapshot(self, match_id: str, seat: int, seat_names: tuple[str, ...], seat_versions: tuple[str, ...] = ()) -> Snapshot:
        with self._cond:
            info, turn = self._info, self._turn
            return Snapshot(
                match_id=match_id, game=self._game.name, seat=seat, seat_names=seat_names,
                teams=self._game.teams, options=dict(info.options) if info else {},
                decision_ms=info.decision_ms if info else 0, version=self._version, step=self._step,
                request_id=turn.request_id if turn is not None else None, view=self._view,
                legal=tuple(turn.legal_actions) if turn is not None else (), events=tuple(self._events),
                notices=tuple(self._notices), outcome=self._outcome, final_view=self._final_view,
                stored=self._stored, failed=self._failed, deadline_ms=self._deadline(info, turn),
                seat_versions=seat_versions,
            )

    def _deadline(self, info: MatchInfo | None, turn: TurnRequest | None) -> int:  # with self._cond held
        """The same for every page of one decision (a page's live part changes only when
        the match does); the page shows what is left of it."""
        if turn is None or info is None or not info.decision_ms:
            return 0
        return int(1000 * self._asked_at) + info.decision_ms

    async def wait_async(self, since: int, timeout: float) -> int:
        """The version once it passes ``since`` (or after ``timeout`` seconds), waited for on
        the caller's event loop, so that a page's live stream holds no thread (the web
        server's worker threads are for its pages)."""
        event = asyncio.Event()
        waiter = (asyncio.get_running_loop(), event)
        with self._cond:
            if self._version > since:
                return self._version
            self._waiters.add(waiter)
        try:
            async with asyncio.timeout(timeout):
                await event.wait()
        except TimeoutError:
            pass
        finally:
            with self._cond:
                self._waiters.discard(waiter)
        with self._cond:
            return self._version

    def wait_for_turn_or_end(self, timeout: float) -> None:
        """Block until the seat is asked to decide, or the match is over (at most ``timeout`` s)."""
        with self._cond:
            self._cond.wait_for(lambda: self._turn is not None or self._outcome is not None or bool(self._failed), timeout)

    def act(self, request_id: str, text: str) -> Action:
        """Answer the decision ``request_id`` with the action written ``text``; TableError
        (4xx) if it is not this seat's decision, not an action of the game, or not legal."""
        rid = number(request_id.strip())
        if rid is None:
            raise TableError(400, f"request must be the number of the decision asked, got {clip(request_id, 40)!r}")
        if not text.strip():
            raise TableError(400, "action is missing: send one of the legal actions, e.g. as the page's buttons do")
        try:
            action = self._game.parse_action(text)
        except GameError as exc:  # the game's words begin with the text again: said once, clipped
            why = str(exc).removeprefix(f"{text!r}: ")
            raise TableError(400, f"malformed action {clip(text, 80)!r}: {clip(why, 160)}") from None
        with self._cond:
            turn, future = self._turn, self._future
            if self._outcome is not None or self._failed:
                raise TableError(409, "the match is over: no more actions")
            if turn is None or future is None:
                raise TableError(409, "it is not your turn: wait for the other seats (reload the page)")
            if rid != turn.request_id:
                raise TableError(409, f"decision {rid} is not the one being asked (it is {turn.request_id}): "
                                      "the page was out of date; reload it")
            if action not in turn.legal_actions:
                raise TableError(400, f"{clip(text, 80)!r} is not a legal action now: choose one of the page's buttons")
            self._turn = self._future = None
            self._bump()
        self._loop.call_soon_threadsafe(_resolve, future, action)
        return action


def _resolve(future: asyncio.Future, action: Action) -> None:
    if not future.done():  # the runner may have stopped waiting (its clock ran out)
        future.set_result(action)


class _Steps(MatchObserver):
    """Tells the browser's seat when an action has been applied and every seat told of it,
    with that seat's own view as it is now (``State.view(me)``, the one seam for what a
    seat sees: what the seat's next Turn would carry), so the table follows the game between
    the person's decisions (the trick as the bots play to it), not only at them. The other
    seats' views, which the runner passes to every ``sees_hands`` observer, are dropped here."""

    sees_hands = True

    def __init__(self, seat: BrowserSeat, me: int):
        self.seat = seat
        self.me = me

    async def started(self, match_id: str, game: str, seat_names: tuple[str, ...], spectator_view: Any,
                      seat_views: tuple[Any, ...] = ()) -> None:
        self.seat.dealt(seat_views[self.me] if seat_views else None)

    def step(self, match_id: str, seat: int, action: Action, public_events: list[Event], spectator_view: Any,
             seat_views: tuple[Any, ...] = ()) -> None:
        self.seat.stepped(seat_views[self.me] if seat_views else None)


# --------------------------------------------------------------------------------------
# The tables.


@dataclass(frozen=True)
class BotChoice:
    """An opponent a person may pick: a bundled bot or a registered ``name@version``."""

    ref: str
    games: tuple[str, ...]  # the games it says it plays (empty or "*": any)
    note: str = ""

    def plays(self, game: str) -> bool:
        return not self.games or "*" in self.games or game in self.games


@dataclass(frozen=True)
class StandingArbiter:
    """A standing arbiter (``arbiter serve``) whose connected bots a person may play
    (``arbiter web --arbiter ADDR``). Those bots run on their authors' machines, not
    hosted here: the match is refereed on that arbiter (Matches.RunMatch, with its admin
    token), the person's seat joining it as bot ``HUMAN`` with that bot's token. The
    tokens are read from that arbiter's credentials file as it is now (``LiveCredentials``):
    one rotated or revoked there counts here at once."""

    address: str
    credentials: Any = field(repr=False)  # an auth.LiveCredentials of that arbiter's file
    tls_ca: bytes | None = field(default=None, repr=False)

    @classmethod
    def from_credentials(cls, address: str, path: str | Path, tls_ca: bytes | None = None) -> "StandingArbiter":
        """The arbiter at ``address`` with the tokens of its credentials file ``path`` (the
        admin token and the bot token of ``HUMAN``); CredentialsError naming what is missing."""
        arbiter = cls(address, auth.LiveCredentials(path), tls_ca)
        arbiter.seat_token  # noqa: B018 - said now, at the start, if it is missing
        return arbiter

    @property
    def admin_token(self) -> str:
        return self.credentials.get().admin

    @property
    def seat_token(self) -> str:
        """The bot token of ``HUMAN`` there: the person's seat's identity."""
        seat = self.credentials.get().bots.get(HUMAN)
        if not seat:
            raise auth.CredentialsError(f"{self.credentials.path}: no bot token for {HUMAN!r}, the person's seat on the "
                                        f"arbiter: arbiter credentials add-bot {HUMAN} --credentials {self.credentials.path}")
        return seat


@dataclass
class Table:
    """One match with a person at ``seat``."""

    match_id: str
    token: str
    seat: int
    seat_names: tuple[str, ...]
    browser: BrowserSeat
    config: MatchConfig
    done: concurrent.futures.Future | None = None
    record: MatchRecord | None = None
    client: str = ""  # who started it (the web client's address): ``Tables.per_client`` counts by it
    seat_versions: tuple[str, ...] = ()  # what each seat's bot said its version is ("" for the person)

    def snapshot(self) -> Snapshot:
        return self.browser.snapshot(self.match_id, self.seat, self.seat_names, self.seat_versions)

    @property
    def live(self) -> bool:
        """Being played, or its record being stored: it holds one of the server's places."""
        if self.done is None or self.done.done():
            return self.done is None
        s = self.browser.snapshot(self.match_id, self.seat, self.seat_names)
        return not (s.failed or s.stored)


def table_games() -> list[str]:
    """The games a person may play here: those whose bots can be hosted (``not_carried``)."""
    return [g for g in GAMES if not not_carried(g)]


@dataclass
class Tables:
    """The matches of one web server in which a person plays a seat.

    They run on an event loop of their own (a thread started with the first match), with
    one private arbiter for all of them; ``close()`` stops every match and bot process."""

    db: Path
    limit: int = DEFAULT_LIMIT
    per_client: int = DEFAULT_PER_CLIENT
    decision_seconds: float = DEFAULT_DECISION_SECONDS
    gone_seconds: float = GONE_SECONDS
    sandbox: Any = None  # hosting.sandbox.Sandbox for the bot processes (None: the strongest there is)
    arbiter: StandingArbiter | None = None  # whose connected bots are offered too (``REMOTE``)
    _tables: dict[str, Table] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _loop: asyncio.AbstractEventLoop | None = None
    _starting: int = 0
    _starting_by: dict[str, int] = field(default_factory=dict)  # client -> matches it is starting now
    _bundled_games: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _tasks: set[asyncio.Task] = field(default_factory=set)

    # -- what may be chosen --------------------------------------------------------------

    def unwritable(self) -> str:
        """Why matches cannot be played now ('' if they can): the store must take the record."""
        return store_unwritable(self.db)

    def bots(self, game: str | None = None) -> list[BotChoice]:
        """The opponents on offer: the bundled bots, then the store's registered versions
        (those that play ``game``, when given)."""
        out = []
        for name in sorted(BUNDLED):
            games = self._bundled(name)
            choice = BotChoice(name, games, "bundled")
            if game is None or choice.plays(game):
                out.append(choice)
        try:
            with Registry(self.db, read_only=True) as reg:
                versions = reg.versions()
        except (RegistryError, *READ_ERRORS, OSError) as exc:
            log.info("no registered bots offered: %s", exc)
            versions = []
        for v in versions:
            choice = BotChoice(f"{v.name}@{v.version}", v.games, f"registered, by {v.author}")
            if game is None or choice.plays(game):
                out.append(choice)
        for choice in self._remote_bots():
            if game is None or choice.plays(game):
                out.append(choice)
        return out

    def _remote_bots(self) -> list[BotChoice]:
        """The bots connected to the standing arbiter now, one choice per bot (its
        identity there), but the person's own seat; none if it cannot be asked."""
        arb = self.arbiter
        if arb is None:
            return []
        from arbiter.server import client

        try:
            sessions = client.list_sessions(arb.address, admin_token=arb.admin_token, tls_ca=arb.tls_ca,
                                            timeout=LIST_TIMEOUT)
        except client.ClientError as exc:
            log.warning("no remote bots offered: %s", exc)
            return []
        out: dict[str, BotChoice] = {}
        for s in sorted(sessions, key=lambda s: s.bot_name):
            if s.bot_name != HUMAN and s.bot_name not in out:
                out[s.bot_name] = BotChoice(f"{REMOTE}{s.bot_name}", s.games,
                                            f"remote: connected to {arb.address}, not hosted here")
        return list(out.values())

    def _bundled(self, name: str) -> tuple[str, ...]:
        # Bundled bots are the project's own (trusted): loading one to read its games is
        # what `--transport inproc` does with them.
        if name not in self._bundled_games:
            try:
                self._bundled_games[name] = tuple(getattr(load_bot(name), "games", ()) or ())
            except Exception:  # noqa: BLE001 - a broken entry point (BotLoadError or worse) offers no games
                self._bundled_games[name] = ()
        return self._bundled_games[name]

    def live(self) -> int:
        with self._lock:
            return sum(1 for t in self._tables.values() if t.live) + self._starting

    # -- starting ------------------------------------------------------------------------

    def start(self, game: str, seat: str, opponents: Sequence[str], options: dict[str, str], preset: str = "",
              client: str = "") -> Table:
        """Start a match of ``game`` with the person at ``seat`` and ``opponents`` at the
        other seats, in seat order; TableError (4xx/5xx) naming what is wrong. ``client``
        (the web client's address) starts one match at a time and plays at most
        ``per_client`` at once, so that one client cannot take every place."""
        try:
            cls = game_class(game)
        except ConfigError as exc:
            raise TableError(400, f"game: {exc}") from None
        if why := not_carried(game):  # its bots are processes: a game in process only cannot be played here
            raise TableError(400, f"game: {why}")
        if preset and preset not in cls.presets:
            raise TableError(400, f"preset: unknown preset {clip(preset, 40)!r} of {game} "
                                  f"(known: {', '.join(sorted(cls.presets)) or 'none'})")
        try:
            g = get_game(game, options, preset or None)
            g.validate()
        except (ConfigError, GameError) as exc:
            raise TableError(400, f"options: {exc}") from None
        n = g.num_seats
        me = number(seat.strip())
        if me is None or me >= n:
            raise TableError(400, f"seat must be a number from 0 to {n - 1}, got {clip(seat, 20)!r}")
        if len(opponents) != n - 1:
            raise TableError(400, f"{game} with these options has {n} seats: choose {n - 1} bots for the other seats, "
                                  f"got {len(opponents)}")
        offered = {b.ref: b for b in self.bots()}
        for ref in opponents:
            choice = offered.get(ref)
            if choice is None:
                playing = [r for r, b in offered.items() if b.plays(game)]  # not dds for Spot: it would refuse it next
                raise TableError(400, f"unknown bot {clip(ref, 64)!r}: choose one of {', '.join(playing)}")
            if not choice.plays(game):
                raise TableError(400, does_not_play(ref, game, choice.games))
        remote = [ref for ref in opponents if ref.startswith(REMOTE)]
        if remote and len(remote) != len(opponents) and self.arbiter is not None:
            raise TableError(400, f"a match with a remote bot is played on the arbiter {self.arbiter.address}, which "
                                  "reaches no bot of this server: choose remote bots for every other seat, or none")
        why = self.unwritable()
        if why:
            raise TableError(503, f"the store {self.db} cannot be written ({why}): a match played here could not be "
                                  "recorded, so none can be started; the rest of the site works")
        if not self.limit:  # not "wait until one ends": none ever starts
            raise TableError(503, OFF)
        with self._lock:
            live = sum(1 for t in self._tables.values() if t.live) + self._starting
            if live >= self.limit:
                raise TableError(429, f"{live} matches with a person at the table are being played, the most this "
                                      f"server allows (--play-limit {self.limit}): finish one, or wait until one ends")
            if client and self._starting_by.get(client):
                raise TableError(429, "a match you started is still starting: wait for its page before starting another")
            mine = sum(1 for t in self._tables.values() if t.client == client and t.live) if client else 0
            if client and mine >= self.per_client:
                raise TableError(429, f"you are playing {mine} matches here, the most one client may play at once "
                                      f"(--play-per-client {self.per_client}): finish one, or wait until one ends")
            self._starting += 1
            self._starting_by[client] = self._starting_by.get(client, 0) + 1
        try:
            return self._start(g, me, list(opponents), options, preset or None, client)
        finally:
            with self._lock:
                self._starting -= 1
                self._starting_by[client] -= 1
                if not self._starting_by[client]:
                    del self._starting_by[client]

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="browser-tables", daemon=True).start()
                self._loop = loop
            return self._loop

    def _start(self, g: Game, me: int, opponents: list[str], options: dict[str, str], preset: str | None,
               client: str = "") -> Table:
        loop = self._ensure_loop()
        clock = Clock(decision_ms=int(self.decision_seconds * 1000), bank_ms=0)
        config = MatchConfig(game=g.name, seed=secrets.randbits(62), options=dict(options), preset=preset, clock=clock,
                             policy=FailurePolicy.uniform(Policy.FORFEIT, 0), match_id=f"web-{secrets.token_hex(6)}",
                             disclosure=OPEN)  # a person's match: of no batch, open once stored
        browser = BrowserSeat(loop, g, gone_seconds=self.gone_seconds)
        ready: concurrent.futures.Future[tuple[str, ...]] = concurrent.futures.Future()
        table = Table(config.match_id, secrets.token_urlsafe(24), me, (), browser, config, client=client)
        remote = bool(opponents) and opponents[0].startswith(REMOTE)  # all or none (``start``)
        play = self._play_remote if remote else self._play
        table.done = asyncio.run_coroutine_threadsafe(play(table, opponents, preset, ready), loop)
        try:
            table.seat_names, table.seat_versions = ready.result(START_TIMEOUT)
        except concurrent.futures.TimeoutError:
            table.done.cancel()
            raise TableError(503, f"the bots did not start within {START_TIMEOUT:.0f} s") from None
        with self._lock:
            self._tables[table.match_id] = table
            self._forget_old()
        return table

    async def _play(self, table: Table, opponents: list[str], preset: str | None,
                    ready: concurrent.futures.Future) -> None:
        """Start the bots, tell the starter (``ready``: the seat names and their bots'
        versions, or a TableError),
        play the match (a batch of one, the person's seat the caller's own), store its record."""
        from arbiter.batch.engine import BotsDoNotPlay, play_batch
        from arbiter.batch.venue import HOSTED, VenueError, open_venue

        config, me = table.config, table.seat
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        record: MatchRecord | None = None
        try:
            distinct = list(dict.fromkeys(opponents))
            names = iter(opponents)
            seats = tuple(HUMAN if i == me else next(names) for i in range(len(opponents) + 1))
            match = PlannedMatch(0, config, seats, guests={me: table.browser}, observers=(_Steps(table.browser, me),))
            versions: dict[str, str] = {}
            async with contextlib.AsyncExitStack() as stack:  # its bots are done with before its seat counts as free
                try:
                    # bot processes in their sandbox, a fresh one per seat (``deal``)
                    venue = await stack.enter_async_context(open_venue(
                        HOSTED, {ref: ref for ref in distinct}, config.game, db_path=self.db, isolation="deal",
                        copies=max(opponents.count(r) for r in distinct), sandbox=self.sandbox,
                        on_versions=versions.update))
                except (VenueError, BotsDoNotPlay) as exc:
                    ready.set_exception(TableError(400, clip(str(exc), 600)))
                    return
                except (BotStartError, SpecError) as exc:
                    ready.set_exception(TableError(503, f"the bots could not be started: {clip(str(exc), 600)}"))
                    return
                except Exception as exc:  # noqa: BLE001 - the starter hears of it; the server goes on
                    log.exception("browser match %s could not start", config.match_id)
                    ready.set_exception(TableError(500, f"the match could not start: {clip(str(exc), 300)}"))
                    return
                ready.set_result((seats, tuple(versions.get(name, "") if i != me else "" for i, name in enumerate(seats))))
                try:
                    async with contextlib.aclosing(play_batch([match], venue)) as played:
                        async for p in played:
                            record = p.record
                except Exception as exc:  # noqa: BLE001 - the page says so; the server goes on
                    log.exception("browser match %s failed", config.match_id)
                    table.browser.failed(f"the match failed: {exc}")
                    return
            table.record = record
            try:
                await asyncio.to_thread(store_play, self.db, record, preset)
                table.browser.stored("stored")
            except Exception as exc:  # noqa: BLE001 - the store went away, or turned read-only mid-match
                log.warning("browser match %s could not be stored: %s", config.match_id, exc)
                table.browser.stored(f"the record could not be stored: {exc}")
        finally:
            if not ready.done():  # cancelled while starting
                ready.set_exception(TableError(503, "the server is stopping"))
            self._tasks.discard(task)

    async def _play_remote(self, table: Table, opponents: list[str], preset: str | None,
                           ready: concurrent.futures.Future) -> None:
        """The match on the standing arbiter: the person's seat joins it (``RelayedSeat``,
        its own stream), RunMatch seats that stream and the remote bots; then the record
        (what RunMatch answered, replayed through the engine) goes to the store."""
        from arbiter.hosting.relay import RelayedSeat, RelayError
        from arbiter.server import client

        config, me, arb = table.config, table.seat, self.arbiter
        assert arb is not None
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        browser = table.browser
        relay = RelayedSeat(browser, asyncio.get_running_loop(), HUMAN, told=browser.dealt)
        bots = iter(ref.removeprefix(REMOTE) for ref in opponents)
        names = [HUMAN if i == me else next(bots) for i in range(len(opponents) + 1)]
        played: asyncio.Future | None = None
        try:
            try:
                session_id = await relay.connect(arb.address, arb.seat_token, arb.tls_ca, START_TIMEOUT)
            except (RelayError, auth.CredentialsError) as exc:
                ready.set_exception(TableError(503, f"the person's seat could not join the arbiter at {arb.address}: "
                                                    f"{clip(str(exc), 400)}"))
                return
            played = asyncio.ensure_future(asyncio.to_thread(
                client.run_match, arb.address, config.game, names, admin_token=arb.admin_token, seed=config.seed,
                options=config.options, preset=preset, decision_ms=config.clock.decision_ms, bank_ms=config.clock.bank_ms,
                policy=config.policy.on_timeout.value,
                tls_ca=arb.tls_ca, seat_sessions=[session_id if i == me else "" for i in range(len(names))]))
            started = asyncio.ensure_future(relay.started.wait())
            done, _ = await asyncio.wait({played, started}, timeout=START_TIMEOUT, return_when=asyncio.FIRST_COMPLETED)
            if started not in done:
                started.cancel()
                if played in done and isinstance(played.exception(), client.ClientError):
                    ready.set_exception(TableError(409, f"the arbiter would not play this match: "
                                                        f"{clip(str(played.exception()), 400)}"))
                else:
                    ready.set_exception(TableError(503, f"the match did not start on {arb.address} within "
                                                        f"{START_TIMEOUT:.0f} s"))
                return
            assert relay.info is not None
            ready.set_result((tuple(relay.info.seat_names), await self._remote_versions(relay.info.seat_names, me)))
            try:
                summary = await played
            except client.ClientError as exc:
                browser.failed(f"the arbiter stopped the match: {clip(str(exc), 400)}")
                return
            relay.interrupt()  # a decision the arbiter no longer waits for (its clock ran out) ends
            if not await relay.finished(10):  # the seat's MatchEnd did not come (it left): the result is RunMatch's
                await browser.finish(config.match_id, me, summary.outcome, None)
            # Kept under the table's id: the page links its replay by it.
            record = dataclasses.replace(record_of(config, names, summary), match_id=config.match_id)
            table.record = record
            try:
                await asyncio.to_thread(store_play, self.db, record, preset)
                browser.stored("stored", len(record.actions))
            except Exception as exc:  # noqa: BLE001 - the store went away, or turned read-only mid-match
                log.warning("browser match %s could not be stored: %s", config.match_id, exc)
                browser.stored(f"the record could not be stored: {exc}", len(record.actions))
        except Exception as exc:  # noqa: BLE001 - the starter or the page hears of it; the server goes on
            log.exception("browser match %s on %s failed", config.match_id, arb.address)
            if not ready.done():
                ready.set_exception(TableError(500, f"the match could not start: {clip(str(exc), 300)}"))
            else:
                browser.failed(f"the match failed: {clip(str(exc), 300)}")
        finally:
            if not ready.done():  # cancelled while starting
                ready.set_exception(TableError(503, "the server is stopping"))
            await relay.close()  # an unfinished match ends at the arbiter: this seat disconnected
            self._tasks.discard(task)

    async def _remote_versions(self, names: Sequence[str], me: int) -> tuple[str, ...]:
        """What the standing arbiter's connected bots of ``names`` say their versions are
        (one name connected at two versions, or a listing that fails: "", not a guess)."""
        from arbiter.server import client

        arb = self.arbiter
        assert arb is not None
        try:
            sessions = await asyncio.to_thread(client.list_sessions, arb.address, admin_token=arb.admin_token,
                                               tls_ca=arb.tls_ca, timeout=LIST_TIMEOUT)
        except client.ClientError:
            return ("",) * len(names)
        said: dict[str, set[str]] = {}
        for x in sessions:
            said.setdefault(x.bot_name, set()).add(x.bot_version)
        return tuple(next(iter(said[n])) if i != me and len(said.get(n, ())) == 1 else "" for i, n in enumerate(names))

    def _forget_old(self) -> None:  # with self._lock held
        finished = [k for k, t in self._tables.items() if not t.live]
        for k in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self._tables[k]

    # -- the seat's requests -------------------------------------------------------------

    def get(self, match_id: str, token: str | None) -> Table:
        """The table of ``match_id`` if ``token`` is its seat token; else TableError 404,
        the same answer whether there is no such match or it is not this browser's (so that
        the answer tells nothing of which matches exist)."""
        with self._lock:
            table = self._tables.get(match_id)
        expected = table.token if table is not None else secrets.token_urlsafe(24)  # the same comparison either way
        if table is None or not token or not hmac.compare_digest(token.encode(), expected.encode()):
            raise TableError(404, "no match of yours is played here under this id: only the browser that "
                                  "started a match may see its seat or act for it (a match that ended long ago: its "
                                  "replay is on the site)")
        return table

    def close(self) -> None:
        """Stop every match (unfinished ones are not stored), their bots and the arbiter."""
        loop = self._loop
        if loop is None:
            return

        async def stop() -> None:
            tasks = list(self._tasks)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(stop(), loop).result(15)
        except Exception:  # noqa: BLE001 - closing must not raise
            log.debug("closing the browser tables", exc_info=True)
        loop.call_soon_threadsafe(loop.stop)
        self._loop = None


__all__ = ["BotChoice", "BrowserSeat", "REMOTE", "StandingArbiter", "Snapshot", "Table", "TableError", "Tables", "HUMAN", "DEFAULT_LIMIT",
           "DEFAULT_DECISION_SECONDS", "DEFAULT_PER_CLIENT", "store_unwritable"]
