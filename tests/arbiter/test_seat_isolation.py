"""A bot at two seats of one match (Spades partners, copies at a Spot table) plays them
from two different processes, so no bot process ever receives two seats' cards."""

from __future__ import annotations

import asyncio

import arbiter.play
import arbiter.tournament
from arbiter.store import Store
from arbiter.tournament import TournamentSpec, run_tournament


def spy_on_run_match(monkeypatch, module):
    seen = []
    real = module.run_match

    async def spy(config, seats, *args, **kw):
        seen.append([s.session for s in seats])
        return await real(config, seats, *args, **kw)

    monkeypatch.setattr(module, "run_match", spy)
    return seen


def test_partners_in_a_played_match_are_separate_processes(monkeypatch):
    seen = spy_on_run_match(monkeypatch, arbiter.play)
    record = arbiter.play.play_local("spades", ["random", "greedy", "random", "greedy"], seed=3, options={"deals": 1})
    assert record.outcome.reason.value == "completed"
    [sessions] = seen
    assert len({id(s) for s in sessions}) == 4  # four seats, four processes
    assert sessions[0].bot_name == sessions[2].bot_name == "random"


def test_partners_and_copies_in_a_tournament_never_share_a_process(monkeypatch, tmp_path):
    seen = spy_on_run_match(monkeypatch, arbiter.tournament)
    spec = TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, deals=2, name="iso")
    with Store(tmp_path / "iso.sqlite") as store:
        rows = asyncio.run(run_tournament(spec, store, concurrency=2))
    assert len(rows) == len(seen) == 4
    for sessions in seen:
        assert len({id(s) for s in sessions}) == 4
