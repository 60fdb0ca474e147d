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


def test_shared_processes_serve_many_matches_and_play_exactly_as_fresh_ones(monkeypatch, tmp_path):
    """``isolation="shared"``: a fixed set of long-lived processes per bot (``bot_processes``,
    at least one per seat slot) serves every match, still never two seats of one match;
    the matches are the same as with a fresh process per seat (``"match"``)."""
    seen = spy_on_run_match(monkeypatch, arbiter.tournament)
    results = {}
    for isolation in ("shared", "match"):
        seen.clear()
        spec = TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, deals=3, seed=11,
                              name=f"iso-{isolation}", isolation=isolation, bot_processes=3)
        with Store(tmp_path / f"{isolation}.sqlite") as store:
            rows = asyncio.run(run_tournament(spec, store, concurrency=2))
        results[isolation] = [(r.seats, r.outcome.scores, r.record().actions) for r in rows]
        assert all(len({id(s) for s in sessions}) == 4 for sessions in seen)
        processes = {id(s) for sessions in seen for s in sessions}
        if isolation == "shared":
            assert 4 < len(processes) <= 2 * 3  # spread over the slots, never more than 3 per bot
        else:
            assert len(processes) == 4 * len(seen)  # every seat of every match its own
    assert [(s, sc, [(a.seat, a.action) for a in acts]) for s, sc, acts in results["shared"]] == \
           [(s, sc, [(a.seat, a.action) for a in acts]) for s, sc, acts in results["match"]]
