"""Live spectating: a match observer that keeps public frames for watchers (the Spectate
gRPC service in arbiter.server.spectate serves them).

While a match runs, a spectator sees only what the engine's ``spectator_view()`` shows
(no card of any hand, nothing face down, nothing of the stock) and the public events.
The full deal arrives with the last frame, once the match is over.

An arbiter may also be given a spectator delay (``SpectatorHub(delay=30)``, ``arbiter
serve --spectator-delay 30``). Then a watcher may ask for hidden cards: it receives every
frame with every seat's hand once the deal it shows is over (``Platform.deal_of``: a later
frame shows another deal, or the match ended), and no sooner than ``delay`` seconds after
the move, so that what it sees is stale by the time anyone could relay it to a bot. A
delay alone would not make it so: a Spades hand shown 30 s late, less the cards played
since (which every seat sees), is the hand held now. Without a delay, hidden cards are
refused (FAILED_PRECONDITION). The hands are the engine's: the runner hands a delayed
hub's feed every seat's ``State.view(seat)`` (``MatchObserver.sees_hands``); the hub keeps
no game of its own. Everything else of a frame is the engine's too: the spectator view,
each action as a spectator reads it (``Game.action_text(action, seat, None)``) and the
events visible to nobody in particular (``events_for(events, None)``).

What a watcher may see at the end, and whether a delayed watcher may see hands at all,
is the match's disclosure (``MatchConfig.disclosure``, ``cardarena.disclosure``): a match
whose deal comes back in a seating still to be played (a running duplicate tournament, an
arena encounter) ends with its outcome only (no deal, seed or action list), and its feed
is never handed a hand, delay or not.

Frames of a running match are kept from its start, so a late watcher catches up first;
the last ``keep_finished`` finished matches are kept too.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import logging
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable

from cardarena.wire import codec as convert
from cardarena.games import Action, Event, Game, GameError
from cardarena.frames import Frame, Hands, HeaderFrame, OverFrame, StepFrame
from cardarena.records import MatchConfig, MatchRecord
from arbiter.match import MatchObserver

log = logging.getLogger(__name__)

@dataclass(eq=False)
class LiveMatch:
    """One watched match: its frames so far, and a signal for watchers waiting for more."""

    match_id: str
    game: str
    seat_names: tuple[str, ...]
    started: float
    frames: list[tuple[float, Frame]] = field(default_factory=list)  # (monotonic time, frame)
    running: bool = True
    #: Set at the next frame (or the end) for the watchers waiting for it; made by the first
    #: of them (``more``), so that a frame no one waits for costs no Event.
    changed: asyncio.Event | None = None
    steps: int = 0  # the StepFrames among ``frames``, counted as they are pushed (each step reads it)
    #: Which deal a frame's view is of (the game's ``Platform.deal_of``); None: one deal.
    deal_of: Callable[[Any], int] | None = None

    def push(self, frame: Frame) -> None:
        if isinstance(frame, StepFrame):
            self.steps += 1
        self.frames.append((time.monotonic(), frame))
        self.wake()

    def wake(self) -> None:
        """Wake the watchers waiting in ``more``."""
        changed = self.changed
        if changed is not None:
            self.changed = None
            changed.set()

    async def more(self) -> None:
        """Wait for the next frame, or the end of the match."""
        if self.changed is None:
            self.changed = asyncio.Event()
        await self.changed.wait()


class NotFound(LookupError):
    """No such match (or none running and none started in time)."""


class HiddenCardsRefused(PermissionError):
    """Hidden cards were asked of a hub without a spectator delay."""


class SpectatorHub:
    """The watchable matches of one arbiter; ``observers(config)`` feeds it a match."""

    def __init__(self, delay: float | None = None, keep_finished: int = 20, token: str | None = None):
        """``token``: spectators must present it (else PERMISSION_DENIED). The bots reach the
        same server; without a token a bot could watch another seating of its own deal,
        whose public plays show the hands it is playing against.

        What the last frame of a match reveals is its disclosure's (``MatchConfig.disclosure``):
        a duplicate tournament's seating ends with its outcome only, since the same deal is
        played again with the seats swapped."""
        if delay is not None and delay < 0:
            raise ValueError(f"spectator delay must not be negative, got {delay}")
        self.token = token
        self.delay = delay
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
        live.wake()
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
            async with asyncio.timeout(wait):
                await self._new_match.wait()
        except TimeoutError:
            raise NotFound(f"no match is running, and none started within {wait:g} s") from None
        # the match that started: the newest, running or not (one may be over by now)
        newest = next(reversed(self.matches.values()), None)
        if newest is None:  # over and not kept (keep_finished)
            raise NotFound("the match that started is over and no longer kept")
        return newest

    async def follow(self, live: LiveMatch, hidden_cards: bool = False) -> AsyncIterator[Frame]:
        """Every frame of ``live`` from the start, then new ones as they come, to the end.

        Public frames carry no hands. With ``hidden_cards`` (only on a hub with a delay),
        each frame keeps the hands and is released once its deal is over (``_deal_over``),
        no sooner than ``delay`` seconds after it happened.
        """
        if hidden_cards and self.delay is None:
            raise HiddenCardsRefused(
                "this arbiter shows hidden cards only after a match ends; start it with --spectator-delay SECONDS"
            )
        i = 0
        shown_until = 0  # the frames before this one are of deals already over
        while True:
            if i < len(live.frames):
                t, frame = live.frames[i]
                i += 1
                if hidden_cards:
                    if i - 1 >= shown_until and not isinstance(frame, OverFrame):
                        shown_until = await _deal_over(live, i - 1)
                    wait = t + self.delay - time.monotonic()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    if isinstance(frame, HeaderFrame):
                        frame = _replace(frame, delay_ms=int(self.delay * 1000))
                    elif isinstance(frame, StepFrame) and frame.private_action:
                        frame = _replace(frame, action=frame.private_action, private_action="")
                else:
                    frame = _public(frame)
                yield frame
                if isinstance(frame, OverFrame):
                    return
                continue
            if not live.running:
                return  # ended without an OverFrame (should not happen); stop cleanly
            await live.more()


async def _deal_over(live: LiveMatch, i: int) -> int:
    """Wait until the deal of ``live.frames[i]`` is over: a later frame is of another deal
    (``LiveMatch.deal_of``) or ends the match, or the match stopped. Its hands tell where
    the deal's cards are until then, however late they are shown. Returns the index of
    that later frame (every frame before it is of a deal that is over)."""
    deal_of = live.deal_of
    deal = deal_of(live.frames[i][1].view) if deal_of is not None else None
    j = i + 1
    while True:
        for j in range(j, len(live.frames)):
            later = live.frames[j][1]
            if isinstance(later, OverFrame) or (deal_of is not None and deal_of(later.view) != deal):
                return j
        j = len(live.frames)
        if not live.running:
            return j
        await live.more()


def _replace(frame: Any, **kw: Any) -> Any:
    return dataclasses.replace(frame, **kw)


def _public(frame: Frame) -> Frame:
    """The frame without any hidden card: the only form a live watcher receives."""
    if isinstance(frame, StepFrame) and (frame.hands is not None or frame.private_action):
        return _replace(frame, hands=None, private_action="")
    if isinstance(frame, HeaderFrame) and frame.hands is not None:
        return _replace(frame, hands=None)
    return frame


class _Feed(MatchObserver):
    """Feeds one match's frames into the hub (a MatchObserver for ``run_match``)."""

    def __init__(self, hub: SpectatorHub, config: MatchConfig):
        self.hub = hub
        self.config = config
        self.live: LiveMatch | None = None
        self.game: Game | None = None
        self.t0 = time.monotonic()
        # Only a delayed hub ever shows hands, and only of a match whose disclosure lets its
        # deal be shown at all: only then does the runner hand this feed every seat's view.
        self.sees_hands = hub.delay is not None and config.disclosure.matches

    def _hands(self, seat_views: tuple[Any, ...] | None) -> Hands | None:
        if not self.sees_hands or seat_views is None:
            return None
        return tuple(tuple(v.hand) for v in seat_views)

    async def started(self, match_id: str, game: str, seat_names: tuple[str, ...], spectator_view: Any,
                      seat_views: tuple[Any, ...] | None = None) -> None:
        try:
            self.game = self.config.make_game()  # the engine's rules, to read actions as a spectator does
        except GameError:
            log.exception("spectator feed of match %s could not be built", match_id)
        self.t0 = time.monotonic()
        self.live = LiveMatch(match_id, game, tuple(seat_names), time.time(),
                              deal_of=self.game.platform.deal_of if self.game is not None else None)
        self.live.push(HeaderFrame(match_id, game, tuple(seat_names), self.live.started, spectator_view,
                                   self._hands(seat_views)))
        self.hub._open(self.live)

    def step(self, match_id: str, seat: int, action: Action, public_events: list[Event], spectator_view: Any,
             seat_views: tuple[Any, ...] | None = None) -> None:
        if self.live is None or self.game is None:
            return
        index = self.live.steps + 1
        hands = self._hands(seat_views)
        # A watcher reads the action as a spectator does (a blind-nil give names no card);
        # only a delayed hidden-cards watcher, who sees every hand anyway, gets the notation.
        self.live.push(StepFrame(index, seat, self.game.action_text(action, seat, None), tuple(public_events), spectator_view,
                                 hands, round(time.monotonic() - self.t0, 4),
                                 private_action=str(action) if hands is not None else ""))

    async def ended(self, record: MatchRecord, final_view: Any) -> None:
        if self.live is None:
            return
        assert record.outcome is not None
        reveal = self.config.disclosure.matches  # final_view is already the disclosure's
        self.live.push(OverFrame(
            outcome=record.outcome, final_view=final_view if reveal else None, seed=record.seed if reveal else 0,
            actions=tuple(a.action for a in record.actions) if reveal else (),
            action_seats=tuple(a.seat for a in record.actions) if reveal else (),
            options=convert.options_to_wire(record.options),
        ))
        self.hub._close(self.live)

    def stopped(self, match_id: str) -> None:
        """A match stopped before its end: its watchers' streams end, with no deal shown."""
        if self.live is not None and self.live.running:
            self.hub._close(self.live)
