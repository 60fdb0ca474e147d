"""Play bots against each other in this process: no server, no sockets, no clocks.

For a bot author's tests. The rules are the engine's own, the bots get exactly what a
hosted match gives them (``MatchInfo`` with a per-seat seed, the seat's view, its legal
actions, the events it may see before each ``choose`` and at the end), and the record
replays and verifies like any other (``cardarena.replay.verify_record``).

A complete example (save it as ``try_mybot.py`` and run ``python try_mybot.py``)::

    from sdk import Bot
    from sdk.harness import play_match
    from sdk.loading import load_bot             # any bot by name: a bundled one, FILE.py, ...
    from sdk.spades import Bid, Play, SpadesView, power

    class MyBot(Bot):
        name = "mybot"
        games = ("spades",)

        def choose(self, view: SpadesView, legal_actions):
            bids = [a for a in legal_actions if isinstance(a, Bid) and not a.blind]
            if bids:                              # bid 3 if we may, else the lowest bid
                return next((b for b in bids if b.tricks == 3), bids[0])
            plays = [a for a in legal_actions if isinstance(a, Play)]
            if plays:                             # our lowest card (power: 2 low .. A high)
                return min(plays, key=lambda p: power(p.card))
            return legal_actions[0]               # look, give: the first legal one

    random_bot = load_bot("random")               # the random bot (sdk.random_bot.RandomBot)
    record = play_match("spades", [MyBot(), random_bot, MyBot(), random_bot], seed=7,
                        options={"deals": 2})
    print(record.outcome)                         # scores, ranks (1 = best), how it ended
    print(len(record.actions), "decisions")

``play_match`` seats ``bots[i]`` (a fresh copy per match, as the arbiter does) at seat
``i``, and refuses a bot whose ``games`` do not include the game, as the arbiter does; the random bot comes with the SDK (``from sdk.random_bot import RandomBot``), the
other bundled bots (greedy, heuristic, search, dds) with the platform, card-arena
(``load_bot("heuristic")``). Game names: ``spades``, ``spite-and-malice``, ``spot``;
options and presets as in ``arbiter rules GAME``.

Unlike the arbiter, which applies the match's failure policy, the harness raises
``HarnessError`` when a bot's code raises in any hook, exits, returns something that is
not an action, or returns an illegal one, so that a test fails at the decision that went
wrong. What counts as each failure, and its words, are the driver's: the same as the
arbiter records. The decision is numbered as the arbiter numbers it: the seat's own
decision K (from 1, as ``arbiter replay MATCH --seat N --at K`` and the hint ``arbiter
play`` prints after a forfeit count it) and the match's step (``cardarena.replay.step_number``:
as ``arbiter replay`` and ``arbiter analyse`` show it), e.g. "seat 1 (mybot), its decision 1
(as arbiter replay --at counts), step 4 of the match: ..."; ``HarnessError`` has them as
``seat``, ``decision`` and ``step``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from cardarena.games import events_for, get_game, seat_options
from cardarena.games.base import options_to_dict
from cardarena.names import does_not_play
from cardarena.records import Clock, MatchInfo, MatchRecord, MatchResult, RecordedAction, bot_seed_for
from cardarena.replay import step_number
from sdk.bot import Bot, game_names
from sdk.driver import SeatDriver


class HarnessError(Exception):
    """A bot failed in a local match; the message names the seat, the bot and the decision:
    ``seat``; ``decision``, the seat's own decision number (from 1, ``arbiter replay --at``'s),
    and ``step``, the match's step (``arbiter replay``'s), both None for a failure at the end."""

    def __init__(self, message: str, seat: int | None = None, decision: int | None = None, step: int | None = None):
        super().__init__(message)
        self.seat, self.decision, self.step = seat, decision, step


def play_match(
    game: str,
    bots: Sequence[Bot],
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    preset: str | None = None,
    clock: Clock = Clock(0, 0),
) -> MatchRecord:
    """Play one match, ``bots[i]`` (a fresh copy of it) at seat i; returns its record. A game
    with a number of players (Spot, Spite and Malice) takes it from the number of bots, as
    ``arbiter play`` does, unless ``options`` give ``players``.

    ``clock`` is only what the bots are told (``MatchInfo.decision_ms``/``bank_ms``), a
    ``cardarena.records.Clock(decision_ms, bank_ms)`` (``arbiter play``'s is ``Clock(10_000,
    60_000)``; the default tells 0, no limit): the harness does not time them. Each bot's life in the match is the SDK's one driver
    (``sdk.driver.SeatDriver``), as on the arbiter.
    """
    options = seat_options(game, options or {}, preset, len(bots))  # players from the bots, as arbiter play
    g = get_game(game, options, preset)
    if len(bots) != g.num_seats:
        raise ValueError(f"{game} with these options seats {g.num_seats} bots, got {len(bots)}")
    names = tuple(getattr(b, "name", "bot") for b in bots)
    for seat, bot in enumerate(bots):  # as every match refuses it: a Spot bot played Spades here and crashed
        if isinstance(bot, Bot) and not bot.plays(g.name):
            raise ValueError(f"seat {seat}: {does_not_play(names[seat], g.name, game_names(bot.games))}")
    record = MatchRecord(match_id=f"local-{seed}", game=g.name, options=options_to_dict(g.options), seed=seed,
                         seat_names=names)
    state = g.new_initial_state(seed)
    drivers = [
        SeatDriver(bot, MatchInfo(match_id=record.match_id, game=g.name, options=dict(record.options), seat=seat,
                                  num_seats=g.num_seats, teams=g.teams, seat_names=names, decision_ms=clock.decision_ms,
                                  bank_ms=clock.bank_ms, seed=bot_seed_for(seed, seat)))
        for seat, bot in enumerate(bots)
    ]
    for seat, driver in enumerate(drivers):
        driver.push(events_for(state.log, seat))
    asked = [0] * g.num_seats  # each seat's own decisions so far: `arbiter replay --seat N --at K`'s K
    while not state.is_terminal:
        seat = state.current_seat
        assert seat is not None
        asked[seat] += 1
        # numbered as the arbiter numbers it: the seat's own count (the "--at 1" of `arbiter play`'s
        # hint after a forfeit) and the match's step; a count of every seat's decisions was neither
        at = dict(seat=seat, decision=asked[seat], step=step_number(len(record.actions)))
        where = (f"seat {seat} ({names[seat]}), its decision {at['decision']} (as arbiter replay --at counts), "
                 f"step {at['step']} of the match")
        legal = state.legal_actions()
        decision = drivers[seat].decide(state.view(seat), legal)
        if decision.failure:
            raise HarnessError(f"{where}: {decision.failure}", **at)
        if decision.malformed:
            # the parser's words name the text already ("'play ZZ': unknown card 'ZZ'")
            raise HarnessError(f"{where}: not an action of {g.name}: {decision.malformed}", **at)
        if decision.action not in legal:
            why = state.illegal_reason(decision.action)  # the engine's, from this seat's own information
            raise HarnessError(f"{where}: {decision.notation or decision.action!r} is not one of the {len(legal)} "
                               f"legal actions{': ' + why if why else ''}", **at)
        record.actions.append(RecordedAction(seat, str(decision.action), 0, note=decision.note))  # as the arbiter keeps it
        events = state.apply(decision.action)
        for s, driver in enumerate(drivers):
            driver.push(events_for(events, s))
    record.outcome = state.outcome()
    for seat, driver in enumerate(drivers):
        failure = driver.end(MatchResult(record.match_id, record.outcome, seat))
        if failure:
            raise HarnessError(f"seat {seat} ({names[seat]}), at the end: {failure}", seat)
    return record
