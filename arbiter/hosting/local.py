"""A seat played by an SDK bot in this process: the in-process transport and the checks.

Only trusted bots run this way (bundled bots, `--transport inproc`, the self-test inside
its sandbox): the bot shares the arbiter's memory.
"""

from __future__ import annotations

import logging
from typing import Any

from arbiter.match import BotFailed, MalformedAction, SeatClient, SeatCrashed, TurnRequest
from cardarena.games import Action, Event, GameError, Outcome, game_class
from cardarena.records import MatchInfo, MatchResult
from sdk.bot import fresh_copy
from sdk.runner import describe_failure

log = logging.getLogger(__name__)


class LocalSeat(SeatClient):
    """A trusted SDK bot running in this process (the local harness, `--transport inproc`)."""

    def __init__(self, bot: Any, name: str | None = None):
        self._template = bot
        self._copy = fresh_copy
        self._bots: dict[tuple[str, int], Any] = {}
        self._games: dict[str, str] = {}  # match -> game
        self.name = name or getattr(bot, "name", "bot")

    async def start(self, info: MatchInfo) -> None:
        bot = self._copy(self._template)
        self._bots[(info.match_id, info.seat)] = bot
        self._games[info.match_id] = info.game
        try:
            bot._start(info)
        except Exception as exc:  # noqa: BLE001 - a bot's bug is the bot's, not ours
            raise SeatCrashed(describe_failure(exc, "on_match_start")) from exc

    async def decide(self, turn: TurnRequest) -> Action:
        """The bot's answer, as the SDK's runner would send it: a bot that raises or returns
        no action fails under the match's policy (BotFailed); a notation string is parsed."""
        bot = self._bots[(turn.match_id, turn.seat)]
        try:
            answer = bot.choose(turn.view, list(turn.legal_actions))
        except Exception as exc:  # noqa: BLE001
            raise BotFailed(describe_failure(exc, "choose")) from exc
        if isinstance(answer, str):
            try:
                return game_class(self._games[turn.match_id])().parse_action(answer)
            except GameError as exc:
                raise MalformedAction(str(exc)) from None
        if not isinstance(answer, Action):
            raise BotFailed(f"choose returned {type(answer).__name__}" + (": return one of legal_actions" if answer is None else ", not an action"))
        return answer

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
        if not any(k[0] == match_id for k in self._bots):
            self._games.pop(match_id, None)
        if bot is not None:
            try:
                bot.on_match_end(MatchResult(match_id, outcome, seat))
            except Exception:  # noqa: BLE001
                log.exception("bot %s on_match_end raised", self.name)
