"""The one batch engine (``arbiter.batch``): one seed derivation and seating rule, one
function that plays every batch, and what that buys: ``arbiter evaluate A B`` and a two-bot
tournament on the same seed play the same matches, margin for margin."""

from __future__ import annotations

import asyncio

import pytest

from arbiter.batch import engine
from arbiter.batch.plan import Entry, deal_seed, derive_seed, pair_seatings, seatings_of
from arbiter.store.db import Store
from arbiter.tournament.evaluate import evaluate, margin_of, who_of
from arbiter.tournament.run import TournamentSpec, run_tournament
from arbiter.tournament.spec import bot_names
from cardarena.games import get_game

pytestmark = pytest.mark.e2e  # tournaments and evaluations over gRPC, with bot processes


@pytest.mark.parametrize("game, options, bots", [
    ("spite-and-malice", {}, ("heuristic", "random")),
    ("spades", {"deals": 1}, ("heuristic", "greedy")),  # partnerships: a bot and its copy per team
])
def test_evaluate_and_a_two_bot_tournament_give_the_same_margins_match_for_match(tmp_path, game, options, bots):
    """evaluate plays in process by default, the tournament over gRPC (bot processes): the
    same deals, seatings and seeds, so the same margins, match for match."""
    deals, seed = 2, 7
    ev = evaluate(game, *bots, deals=deals, seed=seed, options=options)
    spec = TournamentSpec(name="twin", game=game, bots=bots, options=options, deals=deals, seed=seed)
    with Store(tmp_path / "t.sqlite") as store:
        rows = sorted(asyncio.run(run_tournament(spec, store)), key=lambda r: r.idx)
    a = bot_names(bots)[0]
    assert len(rows) == len(ev.matches) == 2 * deals
    assert [(r.deal, r.rotation, r.seed) for r in rows] == [(m.deal, m.rotation, m.seed) for m in ev.matches]
    assert [margin_of(r.outcome, who_of(r.seats, a)) for r in rows] == [m.margin for m in ev.matches]
    assert len({m.margin for m in ev.matches}) > 1  # real games, not one repeated result


def test_evaluate_over_grpc_equals_evaluate_in_process():
    """``--transport grpc``: each bot as processes over a private arbiter, as tournaments play."""
    kw = dict(deals=2, seed=7, options={"deals": 1})
    assert evaluate("spades", "heuristic", "greedy", transport="grpc", **kw).matches == \
        evaluate("spades", "heuristic", "greedy", **kw).matches


def test_one_seed_derivation_and_one_seating_rule():
    assert deal_seed(5, 2) == derive_seed(5, "deal", 0, 2) != deal_seed(5, 2, table=0)
    game = get_game("spades", {})
    table = (Entry("a", ("a", "a")), Entry("b", ("b", "b")))
    assert [seats for seats, _ in seatings_of(table, game)] == pair_seatings(game, "a", "b")


class _Taken:
    """Every match the engine hands to a venue (the real ``_DealTurns.take``, watched)."""

    def __init__(self, monkeypatch):
        self.matches: list = []
        real = engine._DealTurns.take

        async def take(turns):
            got = await real(turns)
            if got is not None:
                self.matches.append(got[1])
            return got

        monkeypatch.setattr(engine._DealTurns, "take", take)

    def seeds_and_seats(self) -> list[tuple[int, tuple[str, ...]]]:
        return sorted((m.deal, tuple(m.seats)) for m in self.matches)


# A tiny real run of each batch caller: every stored match was handed out by ``play_batch``
# (its seed and seating as the engine gave them), and the seeds follow ``deal_seed``.


@pytest.mark.parametrize("transport", ["inproc", "grpc"])
def test_a_tournament_plays_through_the_one_engine(tmp_path, monkeypatch, transport):
    taken = _Taken(monkeypatch)
    spec = TournamentSpec(name="t", game="spite-and-malice", bots=("heuristic", "random"), deals=2, seed=3)
    with Store(tmp_path / "t.sqlite") as store:
        rows = asyncio.run(run_tournament(spec, store, transport=transport))
    assert taken.seeds_and_seats() == sorted((r.seed, r.seats) for r in rows) != []
    assert {r.seed for r in rows} == {deal_seed(3, d) for d in range(2)}



def test_evaluate_and_its_sequential_test_play_through_the_one_engine(tmp_path, monkeypatch):
    """Stopped early by the test: what it stored is what the engine played up to the decision."""
    from arbiter.rating.sprt import Sprt

    taken = _Taken(monkeypatch)
    with Store(tmp_path / "e.sqlite") as store:
        r = evaluate("spades", "heuristic", "random", deals=200, seed=1, options={"deals": 1}, sprt=Sprt(0, 50), jobs=2,
                     store=store, name="ev")
        rows = store.matches(store.tournament("ev").id)
    assert r.sprt_state.decision and r.deals < 200  # it stopped early (2 processes: some matches ran past it)
    # the engine may have started matches past the decision: those are neither counted nor stored
    assert sorted((m.seed, m.seats) for m in rows) == sorted(
        (m.deal, m.seats) for m in taken.matches if m.key < 2 * r.deals)
    assert len(rows) == len(r.matches) == 2 * r.deals
    assert [m.seed for m in r.matches] == [deal_seed(1, d) for d in range(r.deals) for _ in (0, 1)]
    game = get_game("spades", {"deals": 1})
    assert [row.seats for row in sorted(rows, key=lambda x: x.idx)] == pair_seatings(game, "heuristic", "random") * r.deals



def test_the_arenas_encounters_play_through_the_one_engine(tmp_path, monkeypatch):
    from arbiter.arena.ladder import Arena, ArenaSpec

    taken = _Taken(monkeypatch)
    arena = Arena(ArenaSpec(game="spades", name="a", options={"deals": 1}, house=("random", "greedy"), transport="inproc",
                            seed=11, deals=1), tmp_path / "a.sqlite", poll=0)
    try:
        asyncio.run(arena.run(max_encounters=2))
        stored = arena.tables.matches(arena.row.id)
        encounter_seed = {e.idx: e.seed for e in arena.tables.encounters(arena.row.id)}
    finally:
        arena.close()
    assert sorted((m.seed, m.seats) for m in stored) == taken.seeds_and_seats() != []
    assert all(m.seed == deal_seed(encounter_seed[m.encounter], m.deal) for m in stored)


def test_a_plan_is_read_lazily_and_a_stop_saves_nothing_past_it():
    """The sequential test's way: a plan consumed in order and stopped after the third match.
    One at a time, nothing past the third is even read ahead more than one, nor saved."""
    from contextlib import aclosing

    from arbiter.batch.engine import InProcess, play_batch
    from arbiter.batch.plan import PlannedMatch
    from cardarena.records import MatchConfig

    read, saved = [], []

    def plan():
        for i in range(50):
            read.append(i)
            yield PlannedMatch(i, MatchConfig(game="spades", seed=100 + i, options={"deals": 1}), ("a", "b", "a", "b"))

    async def run(concurrency):
        read.clear(), saved.clear()
        got = []
        venue = InProcess({"a": "random", "b": "greedy"})
        async with aclosing(play_batch(plan(), venue, concurrency=concurrency, skip={1}, ordered=True,
                                       save=lambda m, r: saved.append(m.key))) as played:
            async for p in played:
                got.append((p.match.key, p.record.seed))
                if len(got) == 3:
                    break
        return got

    assert asyncio.run(run(1)) == [(0, 100), (2, 102), (3, 103)]  # in order, the stored one skipped
    assert saved == [0, 2, 3] and read == [0, 1, 2, 3]
    got = asyncio.run(run(3))  # three at once: more read and played ahead, still only three saved
    assert got == [(0, 100), (2, 102), (3, 103)] and saved == [0, 2, 3] and len(read) <= 3 + 2 * 3 + 1


def test_in_process_matches_are_saved_as_each_ends_not_all_at_the_end():
    """A venue whose matches never wait (trusted bots in this event loop) held the loop
    from the first match to the last: the caller's ``save`` ran only once every match had
    been played, so a tournament run with ``--transport inproc`` stored nothing until its
    end (SIGKILL lost every finished match), and its Ctrl-C was seen only then."""
    from contextlib import aclosing

    from arbiter.batch.engine import InProcess, play_batch
    from arbiter.batch.plan import PlannedMatch
    from cardarena.records import MatchConfig

    played_when_saved: list[int] = []

    class Counting(InProcess):
        played = 0

        async def play(self, match):
            record = await super().play(match)
            self.played += 1
            return record

    venue = Counting({"a": "random", "b": "greedy"})
    plan = [PlannedMatch(i, MatchConfig(game="spades", seed=100 + i, options={"deals": 1}), ("a", "b", "a", "b"))
            for i in range(30)]

    async def run() -> None:
        async with aclosing(play_batch(plan, venue, concurrency=3,
                                       save=lambda m, r: played_when_saved.append(venue.played))) as played:
            async for _ in played:
                pass

    asyncio.run(run())
    assert len(played_when_saved) == 30
    # each match is saved once it ends: never more than the concurrency's worth played ahead
    assert all(n <= i + 1 + 3 for i, n in enumerate(played_when_saved)), played_when_saved
