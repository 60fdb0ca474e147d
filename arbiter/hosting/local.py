"""A seat played by an SDK bot in this process: the in-process transport.

Only trusted bots run this way (bundled bots, `--transport inproc`, the self-test inside
its sandbox): the bot shares the arbiter's memory. Its life in the match is the SDK's one
driver (``sdk.driver.SeatDriver``), as over gRPC; this class only hands the driver's
``Decision`` to the match runner in the runner's terms. The driver itself is exported
here too: re-asking a recorded decision (``arbiter.analysis.reask``) drives a bot
through it in this process, decision by decision, without a match runner.
"""

from __future__ import annotations

import logging
from typing import Any

from arbiter.match import BotFailed, MalformedAction, SeatClient, SeatDisconnected, TurnRequest
from cardarena.games import Action, Event, Outcome
from cardarena.records import MatchInfo, MatchResult
from sdk.driver import Decision, SeatDriver

__all__ = ["Decision", "LocalSeat", "SeatDriver"]

log = logging.getLogger(__name__)


class LocalSeat(SeatClient):
    """A trusted SDK bot running in this process (`--transport inproc`, evaluate, the arena)."""

    def __init__(self, bot: Any, name: str | None = None):
        self._template = bot
        self._drivers: dict[tuple[str, int], SeatDriver] = {}
        self.name = name or getattr(bot, "name", "bot")

    async def start(self, info: MatchInfo) -> None:
        self._drivers[(info.match_id, info.seat)] = SeatDriver(self._template, info)

    async def decide(self, turn: TurnRequest) -> Action:
        """The driver's decision in the runner's terms: an action, or the failure the
        runner applies the match's policy to (the same the gRPC seat raises for it)."""
        decision = self._drivers[(turn.match_id, turn.seat)].decide(turn.view, turn.legal_actions)
        self._note = decision.note
        if decision.action is not None:
            return decision.action
        if decision.exited:  # over gRPC the process ends and its stream with it
            raise SeatDisconnected(f"{self.name}: connection closed")
        if decision.malformed:
            raise MalformedAction(decision.malformed)
        raise BotFailed(decision.failure)

    def reported_note(self) -> str:
        return getattr(self, "_note", "")

    async def notify(self, match_id: str, seat: int, events: list[Event]) -> None:
        driver = self._drivers.get((match_id, seat))
        if driver is not None:
            driver.push(events)

    async def reject(self, match_id: str, request_id: int, code: str, message: str) -> None:
        log.info("bot %s: %s: %s", self.name, code, message)

    async def finish(self, match_id: str, seat: int, outcome: Outcome, final_view: Any) -> None:
        driver = self._drivers.pop((match_id, seat), None)
        if driver is not None:
            failure = driver.end(MatchResult(match_id, outcome, seat))
            if failure:
                log.error("bot %s: %s", self.name, failure)
