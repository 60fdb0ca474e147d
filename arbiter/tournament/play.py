"""Play one match locally, a batch of one (``arbiter.batch``): bot processes on an own
private arbiter, or bots in process (bundled ones, or a file's when asked for).

(On a running arbiter: ``arbiter.server.client.run_match``.)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Any, Callable, Mapping, Sequence

from arbiter.batch.engine import BotsDoNotPlay, play_batch
from arbiter.batch.plan import PlannedMatch
from arbiter.batch.settings import bot_names
from arbiter.batch.single import PLAY_PREFIX, is_play_name, record_of, store_play  # noqa: F401 (the play API)
from arbiter.batch.venue import Kind, Where, open_venue, parse_where
from arbiter.hosting.botproc import DEFAULT_TRANSPORT
from arbiter.match import MatchObserver
from arbiter.server import client
from arbiter.store.db import Store
from cardarena.disclosure import OPEN
from cardarena.games import ConfigError, seat_options
from cardarena.records import MAX_CLOCK_MS, MAX_SEED, MAX_STRIKES, Clock, FailurePolicy, MatchConfig, MatchRecord, Policy


def _config(game, seed, options, preset, decision_ms, bank_ms, policy, max_strikes=3) -> tuple[MatchConfig, int]:
    if not 0 <= seed <= MAX_SEED:  # said before the match, not after it is played and cannot be kept
        raise ConfigError(f"--seed must be a whole number from 0 to {MAX_SEED}, got {seed}")
    if policy not in {p.value for p in Policy}:
        raise ConfigError(f"policy: expected forfeit or default, got {policy!r}")
    for what, value, most in (("decision-ms", decision_ms, MAX_CLOCK_MS), ("bank-ms", bank_ms, MAX_CLOCK_MS),
                              ("max-strikes", max_strikes, MAX_STRIKES)):
        if not 0 <= value <= most:
            raise ConfigError(f"--{what} must be a whole number from 0 to {most}, got {value}")
    config = MatchConfig(game=game, seed=seed, options=dict(options), preset=preset,
                         clock=Clock(decision_ms, bank_ms), policy=FailurePolicy.uniform(policy, max_strikes),
                         disclosure=OPEN)  # a match of no batch (stored as play:GAME, open)
    n = config.make_game().num_seats
    return config, n


class _Progress(MatchObserver):
    """Calls ``report(decisions, spectator_view)`` once the deal is done (0 decisions) and
    after every decision of the match: the view says whose turn comes next."""

    def __init__(self, report: Callable[[int, Any], None]):
        self.report = report
        self.decisions = 0

    async def started(self, match_id: str, game: str, seat_names: tuple[str, ...], spectator_view: Any) -> None:
        self.report(0, spectator_view)

    def step(self, match_id: str, seat: int, action: Any, public_events: list, spectator_view: Any) -> None:
        self.decisions += 1
        self.report(self.decisions, spectator_view)


def check_store(db_path: str | os.PathLike) -> None:
    """StoreError now, before a match is played, if the store at ``db_path`` could not
    keep it (corrupt, not a store, read-only, no folder): as ``tournament run`` checks first.
    A store not there yet is made when the match is kept, not here: a command line refused
    after this check (a bot missing, too few bots) leaves no empty store behind."""
    folder = os.path.dirname(os.path.abspath(db_path))
    if not os.path.exists(db_path) and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
        return
    with Store(db_path):
        pass


def play_local(
    game: str,
    bots: Sequence[str],
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    preset: str | None = None,
    transport: str | Where = DEFAULT_TRANSPORT,
    decision_ms: int = 10_000,
    bank_ms: int = 60_000,
    policy: str = "forfeit",
    max_strikes: int = 3,
    db_path: str | os.PathLike | None = None,
    progress: Callable[[int, Any], None] | None = None,
) -> MatchRecord:
    """One match, bot i at seat i, a batch of one (``arbiter.batch``). With ``local`` (the
    default, ``DEFAULT_TRANSPORT``): an arbiter on a free loopback port and one process per seat (a bot
    at two seats, e.g. partners, runs as two processes that cannot share what each seat
    sees) on its local channel (the bot stream in plain frames, no HTTP/2); ``grpc``: the
    same processes over gRPC; ``inproc``: the bots in this process (a file's bot only when
    asked for: its record says so, ``MatchRecord.venue``); ``auto``: bundled bots in
    process, else hosted as ``local``.

    ``bots`` are bundled names, files, folders or ``name@version`` (from the registry of
    the store at ``db_path``). Where the game takes a number of players and ``options``
    give none, it is the number of bots. ``progress(decisions, spectator_view)`` is called
    when the match starts (0) and after every decision."""
    options = seat_options(game, options or {}, preset, len(bots))
    config, n = _config(game, seed, options, preset, decision_ms, bank_ms, policy, max_strikes)
    if len(bots) != n:
        raise ConfigError(f"{game} needs {n} bots (one per seat), got {len(bots)}")
    where = parse_where(transport, bots=bots, allowed=(Kind.INPROC, Kind.GRPC, Kind.LOCAL))
    distinct = list(dict.fromkeys(bots))
    names = dict(zip(distinct, bot_names(distinct)))
    observers = (_Progress(progress),) if progress is not None else ()
    match = PlannedMatch(0, config, tuple(names[b] for b in bots), observers=observers)

    async def main() -> MatchRecord:
        # hosted: a fresh process per seat (a bot at two seats, e.g. partners, runs as two
        # processes that cannot share what each seat sees)
        async with open_venue(where, {names[b]: b for b in distinct}, game, db_path=db_path, isolation="match",
                              copies=max(bots.count(b) for b in distinct)) as venue:
            async with contextlib.aclosing(play_batch([match], venue)) as played:
                async for p in played:
                    return p.record
        raise AssertionError("a batch of one played no match")

    try:
        return asyncio.run(main())
    except BotsDoNotPlay as exc:  # its own type, a ConfigError: a caller may pass the game by (arbiter.tools.strength)
        raise exc from None


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
    max_strikes: int = 3,
    tls_ca: bytes | None = None,
    progress: Callable[[int, Any], None] | None = None,
) -> MatchRecord:
    """One match on the running arbiter at ``address`` between its connected bots named
    ``bots`` (admin), as a record that replays (``record_of``); ``tls_ca``: the CA of the
    certificate of an arbiter that serves TLS. ``progress(decisions, spectator_view)``, as
    ``play_local``'s: from the match's public frames, watched on the arbiter (Spectate,
    with the admin token) once it has started; an arbiter that offers no watch shows none."""
    options = seat_options(game, options or {}, preset, len(bots))
    config, n = _config(game, seed, options, preset, decision_ms, bank_ms, policy, max_strikes)
    if len(bots) != n:
        raise ConfigError(f"{game} needs {n} bots (one per seat), got {len(bots)}")
    stops: list[Callable[[], None]] = []

    def started(match_id: str) -> None:
        if progress is not None:
            stops.append(client.follow(address, match_id, _frame_progress(progress), token=admin_token, tls_ca=tls_ca))

    try:
        summary = client.run_match(address, game, bots, admin_token=admin_token, seed=seed, options=options,
                                   preset=preset, decision_ms=decision_ms, bank_ms=bank_ms, policy=policy,
                                   max_strikes=max_strikes, tls_ca=tls_ca, started=started)
    finally:
        for stop in stops:
            stop()
    return record_of(config, bots, summary)


def _frame_progress(report: Callable[[int, Any], None]) -> Callable[[Any], None]:
    """A watched match's frames (``cardarena.frames``) as ``report(decisions, spectator_view)``
    calls, as ``_Progress`` makes them of a match played here; the last one's view (the
    match over) has nobody to act."""
    from cardarena.frames import HeaderFrame, StepFrame

    def on_frame(frame: Any) -> None:
        if isinstance(frame, HeaderFrame):
            report(0, frame.view)
        elif isinstance(frame, StepFrame):
            report(frame.index, frame.view)

    return on_frame
