"""The match runner: drives ONE game between seats, owns clocks, failures and the record.

It asks the seat to act (through a ``SeatClient``: a remote gRPC session, or a bot in
this process), validates the answer against the engine's legal actions, applies it,
tells every seat what it may see, and records everything needed to replay the match.
It knows nothing about gRPC; the engine knows nothing about time.
"""

from __future__ import annotations

import abc
import asyncio
import dataclasses
import functools
import itertools
import logging
import operator
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from arbiter.metrics import Metrics, active as active_metrics
from cardarena.games import Action, Event, Game, Outcome, events_for
from cardarena.games.base import options_to_dict
from cardarena.records import (
    FORFEIT_REASON,
    Incident,
    MatchConfig,
    MatchInfo,
    MatchRecord,
    Policy,
    RecordedAction,
    bot_seed_for,
    bound_note,
    clip,
    forfeit_outcome,
)

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------
# Time: the runner's only source of it, injected so that tests of clocks need no wall time.


class MatchClock:
    """Where the runner reads time: ``now()`` (monotonic seconds, for decision times and
    the bank) and ``wall()`` (Unix time, for the record). The default is the system's;
    tests pass a ``ManualClock`` and let their seats advance it."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()


class ManualClock(MatchClock):
    """A clock that moves only when told (``advance``): a seat that "takes" 40 ms advances
    it by 0.04 inside ``decide``, and the runner's accounting is exact."""

    def __init__(self, start: float = 0.0):
        self._t = start

    def now(self) -> float:
        return self._t

    def wall(self) -> float:
        return self._t

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock does not go back")
        self._t += seconds


SYSTEM_CLOCK = MatchClock()


# --------------------------------------------------------------------------------------
# The seat interface.


class SeatError(Exception):
    """A seat could not answer."""


class SeatDisconnected(SeatError):
    """The bot's connection closed."""


class SeatCrashed(SeatError):
    """The bot raised or died while deciding."""


class BotFailed(SeatError):
    """The bot's own code could not choose (it raised, or returned no action) and says so:
    handled as an illegal answer under the match's policy, recorded as a crash."""


class MalformedAction(SeatError):
    """The bot's answer does not decode to an action of this game."""


@dataclass(frozen=True)
class TurnRequest:
    match_id: str
    request_id: int
    seat: int
    view: Any
    legal_actions: Sequence[Action]
    decision_ms: int  # time for this decision before the bank is used (0: unlimited)
    bank_ms: int  # bank left


class SeatClient(abc.ABC):
    """One seat's bot, wherever it runs. Implementations: server.RemoteSeat, InProcessSeat."""

    name: str = "?"

    @abc.abstractmethod
    async def start(self, info: MatchInfo) -> None: ...

    @abc.abstractmethod
    async def decide(self, turn: TurnRequest) -> Action:
        """The bot's answer; raises SeatError subclasses. The runner applies the timeout."""

    @abc.abstractmethod
    async def notify(self, match_id: str, seat: int, events: list[Event]) -> None: ...

    @abc.abstractmethod
    async def reject(self, match_id: str, request_id: int, code: str, message: str) -> None:
        """Tell the bot its answer was refused (and what the arbiter did instead)."""

    @abc.abstractmethod
    async def finish(self, match_id: str, seat: int, outcome: Outcome, final_view: Any) -> None: ...

    async def decide_within(self, turn: TurnRequest, seconds: float | None) -> Action:
        """``decide``, raising TimeoutError once ``seconds`` have passed (None: no limit).

        The runner calls this once per decision. This default wraps ``decide`` in
        ``asyncio.timeout``; a client that waits on a future of its own (RemoteSeat)
        overrides it with a plain timer on that future, which costs less per decision.
        """
        if seconds is None:
            return await self.decide(turn)
        async with asyncio.timeout(seconds):
            return await self.decide(turn)

    #: True for a client whose answers arrive in the event loop's callbacks (a bot over a
    #: stream: the local channel reads an Act in ``data_received``). It implements ``ask``
    #: and ``hold``, and the runner then plays its decisions from those callbacks (no task
    #: step between an answer read and the next Turn written; docs/performance.md, issue 42).
    answers_in_callback: bool = False

    def ask(self, turn: TurnRequest, seconds: float | None, answered: Callable[[Any], None]) -> None:
        """Send ``turn`` and return at once; ``answered`` is called exactly once, from a
        callback of the event loop (or from here, if the seat is gone already), with the
        bot's Action or the SeatError / TimeoutError that ``decide_within`` would raise
        (TimeoutError once ``seconds`` have passed; None: no limit). ``cancel`` forgets it.
        Only for a client with ``answers_in_callback``."""
        raise NotImplementedError

    def hold(self, match_id: str, seat: int, events: list[Event]) -> None:
        """``notify``, synchronously: only for a client with ``answers_in_callback``, whose
        ``notify`` never waits."""
        raise NotImplementedError

    def cancel(self, match_id: str, request_id: int) -> None:
        """The runner stopped waiting for this request (timeout); forget it."""

    def reported_us(self) -> int | None:
        """The bot's own time for the decision it just answered, in microseconds, as it
        said (``RecordedAction.bot_us``); None if it did not say."""
        return None

    def reported_note(self) -> str:
        """The bot's note on the decision it just answered ("" for none): stored with the
        decision (``RecordedAction.note``), never read by the match."""
        return ""

    async def stderr_tail(self) -> str:
        """The tail of the bot process's stderr ('' if the arbiter did not start it)."""
        return ""

    def stopped(self, match_id: str, seat: int) -> None:
        """The match was stopped before its end (its task cancelled: the caller hung up, or
        the credential it came with was revoked): no ``finish`` follows. Synchronous."""


class MatchObserver(abc.ABC):
    """Watches a match from outside (spectators, live displays). Sees only public things:
    the events visible to nobody in particular, and the spectator view.

    An observer that shows hidden cards later (a spectator hub with a delay) sets
    ``sees_hands``: then ``started`` and ``step`` also get ``seat_views``, every seat's
    view from the engine's ``State.view(seat)`` (the runner's own state: no copy of the
    game is kept anywhere else). What it shows of them, and when, is its own duty."""

    #: Pass ``seat_views=`` (a tuple of ``State.view(seat)``) to ``started`` and ``step``.
    sees_hands: bool = False
    #: Call ``step`` after each action (False: the observer has none; the runner then builds
    #: no spectator view per action for it).
    wants_steps: bool = True

    async def started(self, match_id: str, game: str, seat_names: tuple[str, ...], spectator_view: Any) -> None:
        """The deal is done; no decision made yet."""

    def step(self, match_id: str, seat: int, action: Action, public_events: list[Event], spectator_view: Any) -> None:
        """``seat`` played ``action``; the public events it caused. ``action`` is the engine's
        value with every card in it: what an observer shows of it, it asks the engine
        (``Game.action_text(action, seat, viewer)``). Synchronous: it must not wait (the
        runner may call it from a seat's answer callback, where the next Turn is written)."""

    def decided(self, match_id: str, seat: int, recorded: RecordedAction) -> None:
        """``seat``'s decision is recorded (its time, the arbiter's own time, whether the
        arbiter chose it); called before ``step``. Synchronous: it must not wait."""

    async def ended(self, record: "MatchRecord", final_view: Any) -> None:
        """The match is over; ``final_view`` is what its disclosure lets a spectator see of
        the ended game (``Disclosure.final_view(state, None)``: the whole deal of an open
        match; None for a closed one, and after a forfeit)."""

    def stopped(self, match_id: str) -> None:
        """The match was stopped before its end (``SeatClient.stopped``): no ``ended``
        follows, and nothing of its deal is shown. Synchronous."""


# --------------------------------------------------------------------------------------
# The runner's events as metrics.


class Metered(MatchObserver):
    """One match's events as metrics (``arbiter.metrics``): ``run_match`` adds one to every
    match while the process's metrics are on. It sees what any observer sees (public
    events; not ``sees_hands``) and reports counts and times by game and bot name: never
    an action, a card or a seed."""

    wants_steps = False  # ``decided`` says all it counts

    def __init__(self, metrics: Metrics, game: str, seat_names: tuple[str, ...]):
        self.m, self.game = metrics, game
        self.bots = tuple(metrics.bot(n) for n in seat_names)
        self.live = False
        # each seat's series, looked up once: ``decided`` runs at every decision
        self._decisions = [metrics.decisions.labels(game, b) for b in self.bots]
        self._think = [metrics.think.labels(game, b) for b in self.bots]
        self._overhead = metrics.overhead.labels(game)

    def _start(self) -> None:
        if not self.live:
            self.live = True
            self.m.matches_started.labels(self.game).inc()
            self.m.live_matches.labels(self.game).inc()

    async def started(self, match_id: str, game: str, seat_names: tuple[str, ...], spectator_view: Any) -> None:
        self._start()

    def decided(self, match_id: str, seat: int, recorded: RecordedAction) -> None:
        self._decisions[seat].inc()
        if recorded.forced != "disconnected":  # a seat asked, not one the arbiter plays for
            self._think[seat].observe(recorded.ms / 1000)
        self._overhead.observe(recorded.overhead_us / 1e6)

    def stopped(self, match_id: str) -> None:
        if self.live:  # no longer live, and not finished
            self.live = False
            self.m.live_matches.labels(self.game).dec()

    async def ended(self, record: MatchRecord, final_view: Any) -> None:
        self._start()  # a seat that failed to start ends the match before ``started``
        m = self.m
        self.live = False
        m.live_matches.labels(self.game).dec()
        outcome = record.outcome
        m.matches_finished.labels(self.game, outcome.reason.value if outcome else "none").inc()
        for inc in record.incidents:
            m.failures.labels(self.game, self._bot(inc.seat), inc.kind).inc()
        if outcome is not None and outcome.reason.is_forfeit and record.incidents:
            last = record.incidents[-1]  # the one that ended the match (runner: _Forfeit)
            m.forfeits.labels(self.game, self._bot(last.seat), last.kind).inc()

    def _bot(self, seat: int) -> str:
        return self.bots[seat] if 0 <= seat < len(self.bots) else "_unknown"


# --------------------------------------------------------------------------------------
# The runner.

class _Forfeit(Exception):
    def __init__(self, seat: int, kind: str, detail: str):
        self.seat, self.kind, self.detail = seat, kind, detail


#: Matches this process is playing (``run_match`` between its start and its end), every
#: event loop's: the local channel does not sleep between a Turn and its Act while there
#: is one (``localchannel.SPIN_S``).
_in_flight = 0


def matches_in_flight() -> int:
    """How many matches this process is playing now."""
    return _in_flight


async def run_match(
    config: MatchConfig,
    seats: Sequence[SeatClient],
    bot_seed: int | None = None,
    observers: Sequence[MatchObserver] = (),
    clock: MatchClock = SYSTEM_CLOCK,
) -> MatchRecord:
    """Play one match to the end (or where ``config.stop_after`` stops it, without a result)
    and return its record. Never raises for a bot's failure.

    ``clock``: where decision times come from (the system's; a ``ManualClock`` in tests)."""
    game = config.make_game()
    if len(seats) != game.num_seats:
        raise ValueError(f"{config.game} needs {game.num_seats} seats, got {len(seats)}")
    match_id = config.match_id or uuid.uuid4().hex[:12]
    record = MatchRecord(
        match_id=match_id,
        game=config.game,
        options=options_to_dict(game.options),
        seed=config.seed,
        seat_names=tuple(s.name for s in seats),
        started=clock.wall(),
    )
    metrics = active_metrics()
    if metrics is not None:  # the process's metrics are on (arbiter.metrics): one more observer
        observers = (*observers, Metered(metrics, config.game, record.seat_names))
    runner = _Runner(game, config, seats, record, bot_seed if bot_seed is not None else config.seed, observers, clock)
    global _in_flight  # noqa: PLW0603 - one count for the process
    _in_flight += 1
    t0 = clock.now()
    try:
        await runner.run()
    finally:
        record.seconds = round(clock.now() - t0, 4)
        _in_flight -= 1
    return record


class _Runner:
    def __init__(self, game: Game, config: MatchConfig, seats: Sequence[SeatClient], record: MatchRecord, bot_seed: int,
                 observers: Sequence[MatchObserver] = (), clock: MatchClock = SYSTEM_CLOCK):
        self.game, self.config, self.seats, self.record = game, config, seats, record
        self.clock = clock
        self.observers = tuple(observers)
        self.steppers = tuple(o for o in self.observers if o.wants_steps)  # told each step (views built for them)
        self._steps = tuple((o, o.sees_hands) for o in self.steppers)  # each with whether it is given seat_views
        self._step_hands = any(o.sees_hands for o in self.steppers)  # every seat's view is built for them
        #: the spectator view the observers were last given: the last step of a match whose
        #: deal may not be shown (``Disclosure.matches``) shows it again (``_stepped``)
        self._shown: Any = None
        self.bot_seed = bot_seed
        n = game.num_seats
        self.bank_ms = [config.clock.bank_ms] * n
        self.strikes = [0] * n
        self.noted = [0] * n  # bytes of notes each seat has had stored
        self.gone = [False] * n  # disconnected seats auto-played under the default policy
        # whom ``_hold`` tells a decision's events (``_on_answer``): all seats; one; all but one
        self._all = tuple(range(n))
        self._only = tuple((s,) for s in range(n))
        self._others = tuple(tuple(o for o in range(n) if o != s) for s in range(n))
        self.request_id = 0
        self.asked_at = 0.0  # when the current decision was asked of its seat (MatchClock.now)
        self.mark = 0.0  # when the arbiter's own time for the next decision began
        #: Decisions are played from the seats' answer callbacks (``_relayed``) when every seat
        #: answers in a callback (the observers' ``step`` is synchronous, called from there too).
        self.relay = all(s.answers_in_callback for s in seats)
        self._wake: asyncio.Future | None = None  # what ``_relayed`` waits for
        self._current: _Asked | None = None  # the decision asked in a callback, not yet answered
        self.stop_after = config.stop_after  # a phase the match is played in only ("": to the end)
        self.cut = False  # the match stopped where ``stop_after`` says

    def _cut(self, state) -> bool:
        """Whether the match stops here, unfinished: it has left the phase ``stop_after``."""
        self.cut = state.spectator_view().phase.name != self.stop_after
        return self.cut

    async def run(self) -> None:
        game, record = self.game, self.record
        state = game.new_initial_state(self.config.seed)
        if self.stop_after:
            phases = type(getattr(state.spectator_view(), "phase", None))
            if self.stop_after not in getattr(phases, "__members__", {}):
                known = ", ".join(getattr(phases, "__members__", {})) or "none"
                raise ValueError(f"stop_after: {game.name} has no phase {self.stop_after!r} (its phases: {known})")
        try:
            await self._start_all(state.current_seat)
            await self._notify(state.log)
            if self.observers:  # (a fresh state's spectator view is not made for nobody)
                view, hands = state.spectator_view(), self._hands(state, self.observers)
                self._shown = view
                for obs in self.observers:
                    await self._safe(obs.started(record.match_id, game.name, record.seat_names, view,
                                                 **self._seat_views(obs, hands)))
            self.mark = self.clock.now()  # when the arbiter's own time for the next decision began
            while not state.is_terminal and not (self.stop_after and self._cut(state)):
                seat = state.current_seat
                assert seat is not None
                legal = state.legal_actions()
                asked = self._asking(state, seat, legal)
                if asked is None:  # a disconnected seat under the default policy: the arbiter plays for it
                    action, ms, forced = legal[0], 0, "disconnected"
                else:
                    if self.relay:  # this decision and those after it are played from the seats' callbacks
                        got = await self._relayed(state, asked)
                        if got is None:  # to the end of the match
                            break
                        asked, answer, verdict = got  # a decision whose answer needs this task (a failure)
                    else:
                        answer = await _answer_of(asked.client.decide_within(asked.turn, asked.limit))
                        verdict = None
                    seat = asked.seat
                    action, ms, forced = await self._settle(asked, answer, verdict)
                new_events = self._played(state, seat, action, ms, forced)
                await self._notify(new_events)
                if self.steppers:
                    self._stepped(state, seat, action, new_events)
            if self.cut:  # stopped where the config says: no result, no finish
                self._stopped()
                return
            record.outcome = state.outcome()
        except asyncio.CancelledError:
            self._stopped()
            raise
        except _Forfeit as f:
            record.incidents.append(Incident(f.seat, f.kind, f.detail))
            record.outcome = forfeit_outcome(game, f.seat, FORFEIT_REASON[f.kind], f"seat {f.seat} ({record.seat_names[f.seat]}): {clip(f.detail)}",
                                             state.standing())  # the others ranked by where they stood
        await self._attach_stderr()
        # What each seat (and a spectator) may learn of the ended game is the disclosure's:
        # the whole deal only where no deal of it comes back (cardarena.disclosure).
        told = self.config.disclosure
        # Each seat in turn: no seat's ``finish`` waits (each writes or hands over its
        # MatchEnd), and a task per seat cost the match's end three loop iterations.
        for i, s in enumerate(self.seats):
            await self._safe(s.finish(record.match_id, i, record.outcome, told.final_view(state, i)))
        if self.observers:
            final_view = told.final_view(state, None)
            for obs in self.observers:
                await self._safe(obs.ended(record, final_view))

    def _stopped(self) -> None:
        """Tell every seat and observer that the match stops here (its task was cancelled)."""
        match_id = self.record.match_id
        told = [(s.stopped, (match_id, i)) for i, s in enumerate(self.seats)] + [(o.stopped, (match_id,)) for o in self.observers]
        for tell, args in told:
            try:
                tell(*args)
            except Exception:  # noqa: BLE001 - one failing must not leave the others untold
                log.debug("telling of a stopped match failed", exc_info=True)

    def _stepped(self, state, seat: int, action: Action, new_events: list[Event]) -> None:
        """Tell the observers that want steps that ``seat`` played ``action`` (after every seat
        was told its events): the public events, the spectator view, and every seat's view
        to those that see hands."""
        match_id = self.record.match_id
        public = events_for(new_events, None)
        view = state.spectator_view()
        if state.is_terminal and not self.config.disclosure.matches:
            # An ended game's spectator view is the whole deal (State.spectator_view), which only
            # the disclosure gives (``ended``: nothing, for a match whose deal comes back): the
            # last step shows the table as it stood before the action that ended the game.
            view = self._shown
        self._shown = view
        hands = self._hands(state, self.steppers) if self._step_hands else None
        for obs, sees_hands in self._steps:
            try:
                if sees_hands:
                    obs.step(match_id, seat, action, public, view, seat_views=hands)
                else:
                    obs.step(match_id, seat, action, public, view)
            except Exception:  # noqa: BLE001 - an observer must not stop the match
                log.debug("observer failed", exc_info=True)

    def _hands(self, state, observers: Sequence[MatchObserver]) -> tuple[Any, ...] | None:
        """Every seat's view (``State.view``), built once for all the ``observers`` that see
        hands; None when none does."""
        if not any(o.sees_hands for o in observers):
            return None
        return tuple(state.view(s) for s in range(self.game.num_seats))

    @staticmethod
    def _seat_views(obs: MatchObserver, hands: tuple[Any, ...] | None) -> dict[str, Any]:
        """``seat_views`` for an observer that asked for them (``sees_hands``), else nothing."""
        return {"seat_views": hands} if obs.sees_hands else {}

    async def _attach_stderr(self) -> None:
        """Put each failing seat's stderr tail (its traceback, usually) on its incidents."""
        tails: dict[int, str] = {}
        for i, inc in enumerate(self.record.incidents):
            if inc.seat not in tails:
                try:
                    tails[inc.seat] = await self.seats[inc.seat].stderr_tail()
                except Exception:  # noqa: BLE001 - diagnostics must not fail the match
                    tails[inc.seat] = ""
            if tails[inc.seat] and not inc.stderr:
                self.record.incidents[i] = dataclasses.replace(inc, stderr=tails[inc.seat])

    async def _safe(self, coro) -> None:
        try:
            await coro
        except Exception:  # noqa: BLE001 - a dead seat must not stop the others' results
            log.debug("seat notification failed", exc_info=True)

    async def _start_all(self, first: int | None = None) -> None:
        """Tell each seat the match starts (its MatchStart), in the order of play from
        ``first``, the seat that acts first: its bot then sets up for the match while the
        others are told, and is ready for the first Turn (docs/performance.md, issue 42)."""
        game, rec = self.game, self.record
        clock = self.config.clock
        n = len(self.seats)
        first = first or 0
        for seat in [(first + k) % n for k in range(n)]:
            client = self.seats[seat]
            info = MatchInfo(
                match_id=rec.match_id,
                game=game.name,
                options=dict(rec.options),
                seat=seat,
                num_seats=game.num_seats,
                teams=game.teams,
                seat_names=rec.seat_names,
                decision_ms=clock.decision_ms,
                bank_ms=clock.bank_ms,
                seed=bot_seed_for(self.bot_seed, seat),
            )
            try:
                await client.start(info)
            except SeatDisconnected as exc:
                self._fail(seat, "disconnect", str(exc) or "disconnected before the match started", self.config.policy.on_disconnect)
            except SeatError as exc:
                raise _Forfeit(seat, "crash", str(exc)) from None

    def _told(self, events: list[Event], seats: Sequence[int] | None = None):
        """(seat, its client, the events it may see) for each seat still playing that sees any
        of ``events`` (of ``seats``; None: all): whom ``_notify`` and ``_hold`` tell what.
        Events all seats see are not filtered per seat (this runs after every action)."""
        if not events:
            return
        public = all(e.visible_to is None for e in events)
        clients = self.seats
        for seat in range(len(clients)) if seats is None else seats:
            if self.gone[seat]:
                continue
            client = clients[seat]
            mine = list(events) if public else events_for(events, seat)
            if mine:
                yield seat, client, mine

    async def _notify(self, events: list[Event]) -> None:
        # Runs after every action: the failure handling of _safe is inlined (one coroutine
        # fewer per seat per action).
        match_id = self.record.match_id
        for seat, client, mine in self._told(events):
            try:
                await client.notify(match_id, seat, mine)
            except Exception:  # noqa: BLE001 - a dead seat must not stop the others' results
                log.debug("seat notification failed", exc_info=True)

    def _fail(self, seat: int, kind: str, detail: str, policy: Policy) -> None:
        """Record a failure; raise _Forfeit unless the policy lets the arbiter play on.
        ``detail`` may echo the bot's answer: it is clipped (records.clip)."""
        detail = clip(detail)
        if policy is Policy.FORFEIT:
            raise _Forfeit(seat, kind, detail)
        if kind != "disconnect":
            forfeits = self._forfeits(seat, kind, policy)
            self.strikes[seat] += 1
            if forfeits:
                raise _Forfeit(seat, kind, f"{detail} (strike {self.strikes[seat]} of {self.config.policy.max_strikes} allowed)")
        self.record.incidents.append(Incident(seat, kind, detail))
        if kind == "disconnect":
            self.gone[seat] = True

    def _forfeits(self, seat: int, kind: str, policy: Policy) -> bool:
        """Whether ``seat``'s next failure of ``kind`` under ``policy`` ends the match (``_fail``
        raises): known before it is recorded, so that the seat's Error says what follows."""
        return policy is Policy.FORFEIT or (kind != "disconnect" and self.strikes[seat] >= self.config.policy.max_strikes)

    def _then(self, seat: int, kind: str, policy: Policy, legal: Sequence[Action]) -> str:
        """What follows ``seat``'s failure, for its Error: the forfeit, or the default action
        played and the strike it costs (a bot under the default policy learns how many it has
        left; the one past the last is the forfeit, not the default action)."""
        if policy is Policy.FORFEIT:
            return "your side forfeits"
        strike = f"strike {self.strikes[seat] + 1} of {self.config.policy.max_strikes} allowed"
        if self._forfeits(seat, kind, policy):
            return f"your side forfeits ({strike})"
        return f"{legal[0]} was played for you ({strike})"

    def _asking(self, state, seat: int, legal: list[Action]) -> "_Asked | None":
        """The decision to ask of ``seat`` (its request id, Turn and limit), or None for a
        disconnected seat the arbiter plays for."""
        if self.gone[seat]:
            self.asked_at = self.clock.now()
            return None
        clock = self.config.clock
        self.request_id += 1
        turn = TurnRequest(self.record.match_id, self.request_id, seat, state.view(seat), legal, clock.decision_ms,
                           self.bank_ms[seat])
        limit = (clock.decision_ms + self.bank_ms[seat]) / 1000 if clock.decision_ms else None
        self.asked_at = self.clock.now()
        return _Asked(self.seats[seat], seat, self.request_id, legal, turn, limit, self.asked_at)

    def _verdict(self, asked: "_Asked", answer: Any) -> tuple[str, int]:
        """What is wrong with ``answer`` (the seat's Action, or the error it answered with):
        ("", ms) for an answer to play; else the kind of failure, for ``_settle``. An
        answer in time is charged to the seat's bank here, a failed one too (a crash, a
        malformed answer): under the default policy a seat that thought past the decision
        limit and then failed kept its bank, time bought by failing that an action pays for."""
        ms = self._ms(asked.t0)
        if isinstance(answer, BaseException):
            decision_ms = self.config.clock.decision_ms
            if decision_ms and ms > decision_ms and not isinstance(answer, TimeoutError):  # (late: ``_late`` spends it all)
                self.bank_ms[asked.seat] = max(0, self.bank_ms[asked.seat] - (ms - decision_ms))
            return "error", 0
        limit = asked.limit
        if limit is not None and ms > limit * 1000:  # answered, but after its deadline
            return "late", ms
        decision_ms = self.config.clock.decision_ms
        if decision_ms and ms > decision_ms:
            self.bank_ms[asked.seat] = max(0, self.bank_ms[asked.seat] - (ms - decision_ms))
        legal = asked.legal
        # by identity first (the wire reads an answer as the engine's own object:
        # codec.action_from_proto), in C; by value (a dataclass's __eq__ each) only if not
        if not any(map(operator.is_, legal, itertools.repeat(answer))) and answer not in legal:
            return "illegal", ms
        return "", ms

    async def _settle(self, asked: "_Asked", answer: Any, verdict: tuple[str, int] | None = None) -> tuple[Action, int, str]:
        """The action played for ``asked``: the seat's answer, or the default one the
        policy allows after a failure (told to the seat); raises _Forfeit."""
        kind, ms = verdict or self._verdict(asked, answer)
        if not kind:
            return answer, ms, ""
        client, seat, rid, legal, t0 = asked.client, asked.seat, asked.rid, asked.legal, asked.t0
        if kind == "late" or isinstance(answer, TimeoutError):
            return await self._late(client, seat, rid, legal, t0)
        if kind == "illegal":
            return await self._refused(client, seat, rid, legal, t0, "illegal", f"{answer} is not a legal action now")
        if isinstance(answer, SeatDisconnected):
            self._fail(seat, "disconnect", str(answer) or "connection closed", self.config.policy.on_disconnect)
            return legal[0], self._ms(t0), "disconnected"
        if isinstance(answer, MalformedAction):
            return await self._refused(client, seat, rid, legal, t0, "malformed", str(answer))
        if isinstance(answer, BotFailed):
            return await self._refused(client, seat, rid, legal, t0, "crash", f"the bot failed: {answer}")
        if isinstance(answer, SeatError):
            raise _Forfeit(seat, "crash", clip(str(answer))) from None
        raise answer

    def _played(self, state, seat: int, action: Action, ms: int, forced: str) -> list[Event]:
        """Record ``seat``'s decision, tell the observers, apply it; its events."""
        self._recorded(self._decision(seat, action, ms, forced))
        return state.apply(action)

    def _decision(self, seat: int, action: Action, ms: int, forced: str) -> tuple:
        """``seat``'s decision as it is answered (the arbiter's own time since the last one
        taken now), for ``_recorded``."""
        overhead = self.asked_at - self.mark
        self.mark = self.clock.now()
        return seat, action, ms, forced, overhead

    def _recorded(self, decision: tuple) -> None:
        """``_decision`` in the record, with what the seat said of it, and the observers told
        (``decided``). Before the seat answers again (its report is of this answer)."""
        seat, action, ms, forced, overhead = decision
        said = None if forced else self.seats[seat].reported_us()
        note = "" if forced else bound_note(self.seats[seat].reported_note(), self.noted[seat])
        if note:
            self.noted[seat] += len(note.encode())
        record = self.record
        recorded = RecordedAction(seat, str(action), ms, forced, max(0, round(overhead * 1e6)),
                                  None if said is None else min(said, max(ms, 1) * 1000),  # never more than it took (ms: whole ms)
                                  note)
        record.actions.append(recorded)
        for obs in self.observers:
            try:
                obs.decided(record.match_id, seat, recorded)
            except Exception:  # noqa: BLE001 - an observer must not stop the match
                log.debug("observer failed", exc_info=True)

    # --- decisions played from the seats' callbacks -----------------------------------

    async def _relayed(self, state, asked: "_Asked") -> "tuple[_Asked, Any, tuple[str, int]] | None":
        """Ask ``asked`` and play every decision after it from the seats' answer callbacks
        (``_on_answer``), each the same steps as the loop in ``run``, until the match ends
        (None) or an answer needs this task (a failure: its handling waits on the seat):
        then that decision, its answer and its verdict. The event loop wakes once per decision: the
        answer's read runs the next Turn's write, which goes before the answer's record, the
        other seats' events and the observers' step (done while the next bot decides)."""
        self._wake = wake = asyncio.get_running_loop().create_future()
        self._current = asked
        asked.client.ask(asked.turn, asked.limit, functools.partial(self._on_answer, state, asked))
        try:
            return await wake
        except asyncio.CancelledError:
            current = self._current
            if current is not None:  # the match stopped while a seat was deciding: the seat forgets it
                current.client.cancel(self.record.match_id, current.rid)
            raise
        finally:
            self._wake = self._current = None

    def _on_answer(self, state, asked: "_Asked", answer: Any) -> None:
        """``asked``'s answer, in the seat's callback: play it and ask the next decision, and
        so on while the answers need no waiting; wake ``_relayed`` otherwise."""
        wake = self._wake
        if wake is None or wake.done() or asked is not self._current:
            return  # the match stopped waiting for it (cancelled)
        try:
            verdict = self._verdict(asked, answer)
            if verdict[0]:  # a failure: handled by the task (``_settle`` tells the seat)
                self._current = None
                wake.set_result((asked, answer, verdict))
                return
            seat, action = asked.seat, answer
            decision = self._decision(seat, action, verdict[1], "")
            events = state.apply(action)
            while not state.is_terminal and not (self.stop_after and self._cut(state)):
                nseat = state.current_seat
                legal = state.legal_actions()
                nxt = self._asking(state, nseat, legal)
                if nxt is not None:
                    # The critical path: the next seat's events travel in its Turn, written
                    # now; the rest (the record, the other seats' events, the observers) is
                    # done while that bot decides (docs/performance.md, attempt 72).
                    self._hold(events, self._only[nseat])
                    self._current = nxt
                    try:
                        nxt.client.ask(nxt.turn, nxt.limit, functools.partial(self._on_answer, state, nxt))
                    finally:  # (recorded even if the ask raised: the decision is applied)
                        self._after(state, seat, action, decision, events, self._others[nseat])
                    return
                self._after(state, seat, action, decision, events, self._all)
                seat, action = nseat, legal[0]  # a seat gone: played for it
                decision = self._decision(seat, action, 0, "disconnected")
                events = state.apply(action)
            self._after(state, seat, action, decision, events, self._all)
            self._current = None
            wake.set_result(None)
        except Exception as exc:  # noqa: BLE001 - raised in the match's task, as from its loop
            self._current = None
            if not wake.done():
                wake.set_exception(exc)

    def _after(self, state, seat: int, action: Action, decision: tuple, events: list[Event], told: tuple[int, ...]) -> None:
        """The steps of the loop in ``run`` after a decision is applied, in a callback: the
        decision recorded (``_recorded``), the seats ``told`` held their events, the
        observers stepped; before the next decision is applied (the state is the one
        ``action`` left)."""
        self._recorded(decision)
        self._hold(events, told)
        if self.steppers:
            self._stepped(state, seat, action, events)

    def _hold(self, events: list[Event], seats: tuple[int, ...]) -> None:
        """``_notify`` of ``seats`` for seats that all answer in callbacks (``SeatClient.hold``)."""
        match_id = self.record.match_id
        for seat, client, mine in self._told(events, seats):
            try:
                client.hold(match_id, seat, mine)
            except Exception:  # noqa: BLE001 - a dead seat must not stop the others' results
                log.debug("seat notification failed", exc_info=True)

    def _ms(self, t0: float) -> int:
        return round((self.clock.now() - t0) * 1000)

    async def _late(self, client, seat, rid, legal, t0):
        """No answer in time (or one after the deadline): the bank is spent; the policy decides.

        The record says what the limit was, not how long the wait took: the limit is the
        match's and the same on every transport; the wait is the machine's (a seat in
        this process is found late only once it answers)."""
        policy = self.config.policy
        client.cancel(self.record.match_id, rid)
        ms = self._ms(t0)
        bank = self.bank_ms[seat]
        self.bank_ms[seat] = 0
        limit = (f"the decision limit ({self.config.clock.decision_ms} ms) and the {bank} ms left in its bank"
                 if self.config.clock.bank_ms else f"the decision limit ({self.config.clock.decision_ms} ms)")  # (no bank: none to speak of)
        if not any(a.seat == seat for a in self.record.actions):
            # the seat's set-up (its per-match copy of the bot, on_match_start) runs on this
            # clock: a table loaded in __init__, deep-copied for the match, timed out here
            # with nothing to say that it was not choose
            limit += " (its first decision: the bot's per-match copy and on_match_start count too)"
        then = self._then(seat, "timeout", policy.on_timeout, legal)
        await self._safe(client.reject(self.record.match_id, rid, "late", f"request {rid} timed out after {ms} ms: no answer within {limit}; {then}"))
        self._fail(seat, "timeout", f"no answer within {limit}", policy.on_timeout)
        return legal[0], ms, "timeout"

    async def _refused(self, client, seat, rid, legal, t0, kind, detail):
        detail = clip(detail)  # it may echo the bot's answer
        policy = self.config.policy.on_illegal
        then = self._then(seat, kind, policy, legal)
        await self._safe(client.reject(self.record.match_id, rid, kind, f"{detail}; {then}"))
        self._fail(seat, kind, detail, policy)
        return legal[0], self._ms(t0), kind


@dataclass(slots=True)
class _Asked:
    """One decision asked of a seat: who, its request, its Turn, its limit, when."""

    client: SeatClient
    seat: int
    rid: int
    legal: Sequence[Action]
    turn: TurnRequest
    limit: float | None
    t0: float


async def _answer_of(decision) -> Any:
    """What ``decision`` (a seat's ``decide_within``) answers: its Action, or the error it
    raised (SeatError, TimeoutError), for ``_Runner._verdict``."""
    try:
        return await decision
    except (SeatError, TimeoutError) as exc:
        return exc
