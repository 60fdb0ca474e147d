"""Play one match locally: an own arbiter and bot processes, or trusted bots in process.

(On a running arbiter: ``arbiter.server.client.run_match``.)
"""

from __future__ import annotations

import asyncio
from typing import Any, Mapping, Sequence

from arbiter.hosting.botproc import BotPool
from cardarena.games import ConfigError
from cardarena.records import Clock, FailurePolicy, MatchConfig, MatchRecord, Policy
from arbiter.hosting.local import LocalSeat
from arbiter.match import run_match
from arbiter.server.arena import RemoteSeat
from arbiter.server.app import start_private_server
from arbiter.tournament.run import bot_names
from arbiter.hosting.loading import load_bot


def _config(game, seed, options, preset, decision_ms, bank_ms, policy) -> tuple[MatchConfig, int]:
    if policy not in {p.value for p in Policy}:
        raise ConfigError(f"policy: expected forfeit or default, got {policy!r}")
    config = MatchConfig(game=game, seed=seed, options=dict(options), preset=preset,
                         clock=Clock(decision_ms, bank_ms), policy=FailurePolicy.uniform(policy))
    n = config.make_game().num_seats
    return config, n


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
) -> MatchRecord:
    """One match, bot i at seat i. With ``grpc``: an arbiter on a free loopback port and one
    process per seat (a bot at two seats, e.g. partners, runs as two processes that cannot
    share what each seat sees); with ``inproc``: trusted bots in this process."""
    config, n = _config(game, seed, options or {}, preset, decision_ms, bank_ms, policy)
    if len(bots) != n:
        raise ConfigError(f"{game} needs {n} bots (one per seat), got {len(bots)}")
    distinct = list(dict.fromkeys(bots))
    names = dict(zip(distinct, bot_names(distinct)))
    if transport == "inproc":
        loaded = {spec: load_bot(spec) for spec in distinct}
        return asyncio.run(run_match(config, [LocalSeat(loaded[b], names[b]) for b in bots]))
    if transport != "grpc":
        raise ConfigError(f"transport: expected grpc or inproc, got {transport!r}")

    async def main() -> MatchRecord:
        server = await start_private_server()
        occurrence = [bots[:i].count(b) for i, b in enumerate(bots)]  # k-th seat of its bot
        pools = [BotPool(server.hub, server.address) for _ in range(max(occurrence) + 1)]
        try:
            for b, k in zip(bots, occurrence):
                pools[k].launch(names[b], b)
            for pool in pools:
                await pool.wait_connected()
            seats = [RemoteSeat(pools[k].procs[names[b]].session, game) for b, k in zip(bots, occurrence)]
            return await run_match(config, seats)
        finally:
            await server.stop(0.5)
            for pool in pools:
                pool.stop()

    return asyncio.run(main())
