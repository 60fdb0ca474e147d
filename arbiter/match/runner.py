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
import logging
import time
import uuid
from dataclasses import dataclass
from typing import Any, Sequence

from arbiter.metrics import Metrics, active as active_metrics
from cardarena.games import Action, EndReason, Event, Game, Outcome, events_for
from cardarena.games.base import options_to_dict
from cardarena.records import (
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

    async def step(self, match_id: str, seat: int, action: Action, public_events: list[Event], spectator_view: Any) -> None:
        """``seat`` played ``action``; the public events it caused. ``action`` is the engine's
        value with every card in it: what an observer shows of it, it asks the engine
        (``Game.action_text(action, seat, viewer)``)."""

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

_REASON = {
    "timeout": EndReason.FORFEIT_TIMEOUT,
    "illegal": EndReason.FORFEIT_ILLEGAL,
    "malformed": EndReason.FORFEIT_ILLEGAL,
    "disconnect": EndReason.FORFEIT_DISCONNECT,
    "crash": EndReason.FORFEIT_CRASH,
}


class _Forfeit(Exception):
    def __init__(self, seat: int, kind: str, detail: str):
        self.seat, self.kind, self.detail = seat, kind, detail


async def run_match(
    config: MatchConfig,
    seats: Sequence[SeatClient],
    bot_seed: int | None = None,
    observers: Sequence[MatchObserver] = (),
    clock: MatchClock = SYSTEM_CLOCK,
) -> MatchRecord:
    """Play one match to the end and return its record. Never raises for a bot's failure.

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
    t0 = clock.now()
    try:
        await runner.run()
    finally:
        record.seconds = round(clock.now() - t0, 4)
    return record


class _Runner:
    def __init__(self, game: Game, config: MatchConfig, seats: Sequence[SeatClient], record: MatchRecord, bot_seed: int,
                 observers: Sequence[MatchObserver] = (), clock: MatchClock = SYSTEM_CLOCK):
        self.game, self.config, self.seats, self.record = game, config, seats, record
        self.clock = clock
        self.observers = tuple(observers)
        self.steppers = tuple(o for o in self.observers if o.wants_steps)  # told each step (views built for them)
        self.bot_seed = bot_seed
        n = game.num_seats
        self.bank_ms = [config.clock.bank_ms] * n
        self.strikes = [0] * n
        self.noted = [0] * n  # bytes of notes each seat has had stored
        self.gone = [False] * n  # disconnected seats auto-played under the default policy
        self.request_id = 0
        self.asked_at = 0.0  # when the current decision was asked of its seat (MatchClock.now)

    async def run(self) -> None:
        game, record = self.game, self.record
        state = game.new_initial_state(self.config.seed)
        try:
            await self._start_all()
            await self._notify(state.log)
            view, hands = state.spectator_view(), self._hands(state, self.observers)
            for obs in self.observers:
                await self._safe(obs.started(record.match_id, game.name, record.seat_names, view,
                                             **self._seat_views(obs, hands)))
            mark = self.clock.now()  # when the arbiter's own time for the next decision began
            while not state.is_terminal:
                seat = state.current_seat
                assert seat is not None
                legal = state.legal_actions()
                action, ms, forced = await self._ask(state, seat, legal)
                said = None if forced else self.seats[seat].reported_us()
                note = "" if forced else bound_note(self.seats[seat].reported_note(), self.noted[seat])
                self.noted[seat] += len(note.encode())
                recorded = RecordedAction(seat, str(action), ms, forced, max(0, round((self.asked_at - mark) * 1e6)),
                                          None if said is None else min(said, max(ms, 1) * 1000),  # never more than it took (ms: whole ms)
                                          note)
                mark = self.clock.now()
                record.actions.append(recorded)
                for obs in self.observers:
                    try:
                        obs.decided(record.match_id, seat, recorded)
                    except Exception:  # noqa: BLE001 - an observer must not stop the match
                        log.debug("observer failed", exc_info=True)
                new_events = state.apply(action)
                await self._notify(new_events)
                if self.steppers:
                    public = events_for(new_events, None)
                    view, hands = state.spectator_view(), self._hands(state, self.steppers)
                    for obs in self.steppers:
                        await self._safe(obs.step(record.match_id, seat, action, public, view, **self._seat_views(obs, hands)))
            record.outcome = state.outcome()
        except asyncio.CancelledError:
            self._stopped()
            raise
        except _Forfeit as f:
            record.incidents.append(Incident(f.seat, f.kind, f.detail))
            record.outcome = forfeit_outcome(game, f.seat, _REASON[f.kind], f"seat {f.seat} ({record.seat_names[f.seat]}): {clip(f.detail)}")
        await self._attach_stderr()
        # What each seat (and a spectator) may learn of the ended game is the disclosure's:
        # the whole deal only where no deal of it comes back (cardarena.disclosure).
        told = self.config.disclosure
        await asyncio.gather(
            *(self._safe(s.finish(record.match_id, i, record.outcome, told.final_view(state, i)))
              for i, s in enumerate(self.seats))
        )
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

    async def _start_all(self) -> None:
        game, rec = self.game, self.record
        clock = self.config.clock
        for seat, client in enumerate(self.seats):
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

    async def _notify(self, events: list[Event]) -> None:
        # Runs after every action: the failure handling of _safe is inlined (one coroutine
        # fewer per seat per action), and events all seats see are not filtered per seat.
        if not events:
            return
        match_id = self.record.match_id
        public = all(e.visible_to is None for e in events)
        for seat, client in enumerate(self.seats):
            if self.gone[seat]:
                continue
            mine = list(events) if public else events_for(events, seat)
            if mine:
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
            self.strikes[seat] += 1
            if self.strikes[seat] > self.config.policy.max_strikes:
                raise _Forfeit(seat, kind, f"{detail} (strike {self.strikes[seat]} of {self.config.policy.max_strikes} allowed)")
        self.record.incidents.append(Incident(seat, kind, detail))
        if kind == "disconnect":
            self.gone[seat] = True

    async def _ask(self, state, seat: int, legal: list[Action]) -> tuple[Action, int, str]:
        """The seat's action, or the default one the policy allows; raises _Forfeit."""
        policy = self.config.policy
        if self.gone[seat]:
            self.asked_at = self.clock.now()
            return legal[0], 0, "disconnected"
        client = self.seats[seat]
        clock = self.config.clock
        self.request_id += 1
        rid = self.request_id
        turn = TurnRequest(self.record.match_id, rid, seat, state.view(seat), legal, clock.decision_ms, self.bank_ms[seat])
        limit = (clock.decision_ms + self.bank_ms[seat]) / 1000 if clock.decision_ms else None
        t0 = self.asked_at = self.clock.now()
        try:
            action = await client.decide_within(turn, limit)  # no extra task per decision (the hot path)
        except TimeoutError:
            return await self._late(client, seat, rid, legal, t0)
        except SeatDisconnected as exc:
            self._fail(seat, "disconnect", str(exc) or "connection closed", policy.on_disconnect)
            return legal[0], self._ms(t0), "disconnected"
        except MalformedAction as exc:
            return await self._refused(client, seat, rid, legal, t0, "malformed", str(exc))
        except BotFailed as exc:
            return await self._refused(client, seat, rid, legal, t0, "crash", f"the bot failed: {exc}")
        except SeatError as exc:
            raise _Forfeit(seat, "crash", clip(str(exc))) from None
        ms = self._ms(t0)
        if limit is not None and ms > limit * 1000:  # answered, but after its deadline
            return await self._late(client, seat, rid, legal, t0)
        if clock.decision_ms and ms > clock.decision_ms:
            self.bank_ms[seat] = max(0, self.bank_ms[seat] - (ms - clock.decision_ms))
        if action not in legal:
            return await self._refused(client, seat, rid, legal, t0, "illegal", f"{action} is not a legal action now")
        return action, ms, ""

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
        limit = f"the decision limit ({self.config.clock.decision_ms} ms) plus the bank ({bank} ms left), used up"
        then = "your side forfeits" if policy.on_timeout is Policy.FORFEIT else f"{legal[0]} was played for you"
        await self._safe(client.reject(self.record.match_id, rid, "late", f"request {rid} timed out after {ms} ms: no answer within {limit}; {then}"))
        self._fail(seat, "timeout", f"no answer within {limit}", policy.on_timeout)
        return legal[0], ms, "timeout"

    async def _refused(self, client, seat, rid, legal, t0, kind, detail):
        detail = clip(detail)  # it may echo the bot's answer
        policy = self.config.policy.on_illegal
        then = "your side forfeits" if policy is Policy.FORFEIT else f"{legal[0]} was played for you"
        await self._safe(client.reject(self.record.match_id, rid, kind, f"{detail}; {then}"))
        self._fail(seat, kind, detail, policy)
        return legal[0], self._ms(t0), kind
