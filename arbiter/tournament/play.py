"""Play one match locally: an own arbiter and bot processes, or trusted bots in process.

(On a running arbiter: ``arbiter.server.client.run_match``.)
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from typing import Any, Callable, Mapping, Sequence

from arbiter.hosting.botproc import TRANSPORTS, BotPool
from arbiter.server import client
from cardarena.games import ConfigError, game_class, get_game
from cardarena.games.base import options_to_dict
from cardarena.disclosure import OPEN
from cardarena.records import Clock, FailurePolicy, Incident, MatchConfig, MatchRecord, Policy, RecordedAction
from arbiter.hosting.local import LocalSeat
from arbiter.match import MatchObserver, run_match
from arbiter.server.botstream import RemoteSeat
from arbiter.server.app import start_private_server
from arbiter.tournament.run import bot_names, resolve_bot
from arbiter.tournament.spec import TournamentSpec
from arbiter.store.db import Store
from arbiter.hosting.loading import load_bot


def _config(game, seed, options, preset, decision_ms, bank_ms, policy, max_strikes=3) -> tuple[MatchConfig, int]:
    if policy not in {p.value for p in Policy}:
        raise ConfigError(f"policy: expected forfeit or default, got {policy!r}")
    for what, value in (("decision-ms", decision_ms), ("bank-ms", bank_ms), ("max-strikes", max_strikes)):
        if value < 0:
            raise ConfigError(f"--{what} must be 0 or more, got {value}")
    config = MatchConfig(game=game, seed=seed, options=dict(options), preset=preset,
                         clock=Clock(decision_ms, bank_ms), policy=FailurePolicy.uniform(policy, max_strikes),
                         disclosure=OPEN)  # a match of no batch (stored as play:GAME, open)
    n = config.make_game().num_seats
    return config, n


def seat_options(game: str, options: Mapping[str, Any], preset: str | None, bots: int) -> dict[str, Any]:
    """``options`` with ``players`` set from the number of bots, where the game takes a
    number of players and none was given (``arbiter play spot random random``: 2 players)."""
    out = dict(options)
    if "players" in out or "players" not in {f.name for f in dataclasses.fields(game_class(game).Options)}:
        return out
    if get_game(game, out, preset).num_seats != bots:
        out["players"] = bots
    return out


class _Progress(MatchObserver):
    """Calls ``report(decisions, spectator_view)`` once the deal is done (0 decisions) and
    after every decision of the match: the view says whose turn comes next."""

    def __init__(self, report: Callable[[int, Any], None]):
        self.report = report
        self.decisions = 0

    async def started(self, match_id: str, game: str, seat_names: tuple[str, ...], spectator_view: Any) -> None:
        self.report(0, spectator_view)

    async def step(self, match_id: str, seat: int, action: Any, public_events: list, spectator_view: Any) -> None:
        self.decisions += 1
        self.report(self.decisions, spectator_view)


#: The name of the store's tournament of single matches (``arbiter play``, the web's /play):
#: ``play:GAME`` (with its changed options in brackets). Lists of tournaments keep them apart.
PLAY_PREFIX = "play:"


def is_play_name(name: str) -> bool:
    """A tournament that only keeps single played matches (``store_play``), not a tournament."""
    return name.startswith(PLAY_PREFIX)


def store_play(db_path: str | os.PathLike, record: MatchRecord, preset: str | None = None) -> str:
    """Keep a played match in the store (for ``arbiter replay ID`` and the web page), in a
    tournament of its own kind per game and options, ``play:GAME``; its name."""
    defaults = options_to_dict(game_class(record.game)().options)
    changed = {k: v for k, v in record.options.items() if defaults.get(k) != v}
    name = f"{PLAY_PREFIX}{record.game}" + ("(" + ",".join(f"{k}={v}" for k, v in sorted(changed.items())) + ")" if changed else "")
    spec = TournamentSpec(game=record.game, bots=(), options=changed, duplicate=False, name=name, deals=1)
    with Store(db_path) as store:
        tour = store.open_tournament(name, record.game, spec.to_json())
        store.save_match(tour.id, len(store.matches(tour.id)), 0, 0, record)
        store.mark_finished(tour.id)
    return name


def _plays_not(spec: str, game: str, games: Sequence[str]) -> str:
    return f"bot {spec!r} does not play {game} (it plays {', '.join(games) or 'no game'})"


def check_store(db_path: str | os.PathLike) -> None:
    """StoreError now, before a match is played, if the store at ``db_path`` could not
    keep it (corrupt, not a store, read-only, no folder): as ``tournament run`` checks first."""
    with Store(db_path):
        pass


def play_local(
    game: str,
    bots: Sequence[str],
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    preset: str | None = None,
    transport: str = "grpc",
    decision_ms: int = 10_000,
    bank_ms: int = 60_000,
    policy: str = "forfeit",
    max_strikes: int = 3,
    db_path: str | os.PathLike | None = None,
    progress: Callable[[int, Any], None] | None = None,
) -> MatchRecord:
    """One match, bot i at seat i. With ``grpc``: an arbiter on a free loopback port and one
    process per seat (a bot at two seats, e.g. partners, runs as two processes that cannot
    share what each seat sees); ``local``: the same processes on the arbiter's local
    channel (the bot stream in plain frames, no HTTP/2); ``inproc``: trusted bots in this
    process.

    ``bots`` are bundled names, files, folders or ``name@version`` (from the registry of
    the store at ``db_path``). Where the game takes a number of players and ``options``
    give none, it is the number of bots. ``progress(decisions, spectator_view)`` is called
    when the match starts (0) and after every decision."""
    options = seat_options(game, options or {}, preset, len(bots))
    config, n = _config(game, seed, options, preset, decision_ms, bank_ms, policy, max_strikes)
    if len(bots) != n:
        raise ConfigError(f"{game} needs {n} bots (one per seat), got {len(bots)}")
    bots = [b.rstrip("/") or b for b in bots]  # `mybot/`, as a shell completes a folder
    distinct = list(dict.fromkeys(bots))
    names = dict(zip(distinct, bot_names(distinct)))
    sources = {b: resolve_bot(b, db_path) for b in distinct}
    observers = [_Progress(progress)] if progress is not None else []
    if transport == "inproc":
        loaded = {spec: load_bot(sources[spec]) for spec in distinct}
        for spec, bot in loaded.items():
            if not bot.plays(game):
                raise ConfigError(_plays_not(spec, game, bot.games))
        return asyncio.run(run_match(config, [LocalSeat(loaded[b], names[b]) for b in bots], observers=observers))
    if transport not in TRANSPORTS:
        raise ConfigError(f"transport: expected grpc, local or inproc, got {transport!r}")

    async def main() -> MatchRecord:
        server = await start_private_server()
        occurrence = [bots[:i].count(b) for i, b in enumerate(bots)]  # k-th seat of its bot
        pools = [BotPool(server.hub, server.address, transport=transport) for _ in range(max(occurrence) + 1)]
        try:
            for b, k in zip(bots, occurrence):
                pools[k].launch(names[b], sources[b])
            for pool in pools:
                await pool.wait_connected()
            for b, k in zip(bots, occurrence):  # what each bot's Hello said it plays, as a tournament checks
                session = pools[k].procs[names[b]].session
                if not session.plays(game):
                    raise ConfigError(_plays_not(b, game, session.games))
            seats = [RemoteSeat(pools[k].procs[names[b]].session, game) for b, k in zip(bots, occurrence)]
            return await run_match(config, seats, observers=observers)
        finally:
            await server.stop(0.5)
            for pool in pools:
                pool.stop()

    return asyncio.run(main())


def play_remote(
    address: str,
    game: str,
    bots: Sequence[str],
    *,
    admin_token: str,
    seed: int,
    options: Mapping[str, Any] | None = None,
    preset: str | None = None,
    decision_ms: int = 10_000,
    bank_ms: int = 60_000,
    policy: str = "forfeit",
) -> MatchRecord:
    """One match on the running arbiter at ``address`` between its connected bots named
    ``bots`` (admin), as a record that replays (``record_of``)."""
    options = seat_options(game, options or {}, preset, len(bots))
    config, n = _config(game, seed, options, preset, decision_ms, bank_ms, policy)
    if len(bots) != n:
        raise ConfigError(f"{game} needs {n} bots (one per seat), got {len(bots)}")
    summary = client.run_match(address, game, bots, admin_token=admin_token, seed=seed, options=options, preset=preset,
                               decision_ms=decision_ms, bank_ms=bank_ms, policy=policy)
    return record_of(config, bots, summary)


def record_of(config: MatchConfig, seat_names: Sequence[str], summary: client.RemoteMatch) -> MatchRecord:
    """The record of a match a running arbiter played (``config``: what it was asked to
    play; ``summary``: what Matches.RunMatch answered), one that replays: the seats of the
    actions come from the engine (whose turn each was), the options as the engine applied
    them. No timings: the arbiter keeps those."""
    engine = config.make_game()
    state = engine.new_initial_state(config.seed)
    actions = []
    for text in summary.actions:
        actions.append(RecordedAction(state.current_seat, text, 0))
        state.apply(engine.parse_action(text))
    incidents = []
    for text in summary.incidents:  # "seat N: kind: detail", as the arbiter words them
        seat, kind, detail = (text.split(": ", 2) + ["", ""])[:3]
        incidents.append(Incident(int(seat[5:]) if seat[5:].isdigit() else -1, kind, detail))
    return MatchRecord(summary.match_id, config.game, options_to_dict(engine.options), config.seed, tuple(seat_names),
                       actions, incidents, summary.outcome)
