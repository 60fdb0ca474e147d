"""A seat played by an SDK bot in this process: the in-process transport and the checks.

Only trusted bots run this way (bundled bots, `--transport inproc`, the self-test inside
its sandbox): the bot shares the arbiter's memory.
"""

from __future__ import annotations

import logging
from typing import Any

from cardarena.records import MatchInfo
from arbiter.match import SeatClient, SeatCrashed, TurnRequest
from cardarena.games import Action, Event, Outcome
from cardarena.records import MatchResult
from sdk.bot import fresh_copy

log = logging.getLogger(__name__)


class LocalSeat(SeatClient):
    """A trusted SDK bot running in this process (the local harness, `--transport inproc`)."""

    def __init__(self, bot: Any, name: str | None = None):
        self._template = bot
        self._copy = fresh_copy
        self._bots: dict[tuple[str, int], Any] = {}
        self.name = name or getattr(bot, "name", "bot")

    async def start(self, info: MatchInfo) -> None:
        bot = self._copy(self._template)
        self._bots[(info.match_id, info.seat)] = bot
        try:
            bot._start(info)
        except Exception as exc:  # noqa: BLE001 - a bot's bug is the bot's, not ours
            raise SeatCrashed(f"on_match_start raised {exc!r}") from exc

    async def decide(self, turn: TurnRequest) -> Action:
        bot = self._bots[(turn.match_id, turn.seat)]
        try:
            return bot.choose(turn.view, list(turn.legal_actions))
        except Exception as exc:  # noqa: BLE001
            raise SeatCrashed(f"choose raised {exc!r}") from exc

    async def notify(self, match_id: str, seat: int, events: list[Event]) -> None:
        bot = self._bots.get((match_id, seat))
        if bot is not None:
            try:
                bot.on_events(events)
            except Exception:  # noqa: BLE001
                log.exception("bot %s on_events raised", self.name)

    async def reject(self, match_id: str, request_id: int, code: str, message: str) -> None:
        log.info("bot %s: %s: %s", self.name, code, message)

    async def finish(self, match_id: str, seat: int, outcome: Outcome, final_view: Any) -> None:
        bot = self._bots.pop((match_id, seat), None)
        if bot is not None:
            try:
                bot.on_match_end(MatchResult(match_id, outcome, seat))
            except Exception:  # noqa: BLE001
                log.exception("bot %s on_match_end raised", self.name)
