"""Play bots against each other in this process, with the arbiter's own match runner.

For a bot author's tests: no server, no sockets, same rules, same record.

    from sdk.harness import play_match
    record = play_match("spades", [MyBot(), RandomBot(), MyBot(), RandomBot()], seed=7)
    print(record.outcome)
"""

from __future__ import annotations

import asyncio
from typing import Any, Mapping, Sequence

from cardarena.records import Clock, FailurePolicy, MatchConfig, MatchRecord
from arbiter.hosting.local import LocalSeat
from arbiter.match import run_match
from sdk.bot import Bot


def play_match(
    game: str,
    bots: Sequence[Bot],
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    preset: str | None = None,
    clock: Clock = Clock(0, 0),
) -> MatchRecord:
    """Play one match, bot i at seat i; returns the full record (outcome, actions)."""
    config = MatchConfig(game=game, seed=seed, options=dict(options or {}), preset=preset, clock=clock, policy=FailurePolicy())
    seats = [LocalSeat(b) for b in bots]
    return asyncio.run(run_match(config, seats))
