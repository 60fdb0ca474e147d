"""Running tournaments of every shape in process; resuming drops nothing and adds nothing."""

from __future__ import annotations

import asyncio

import pytest

from arbiter.store.db import Store
from arbiter.tournament.run import Progress, TournamentSpec, load_standings, run_tournament, schedule


def run(path, spec, **kw):
    with Store(path) as store:
        rows = asyncio.run(run_tournament(spec, store, transport="inproc", **kw))
        st, info = load_standings(store, spec.display_name)
    return rows, st, info


def test_named_partnerships_in_spite_and_malice(tmp_path):
    spec = TournamentSpec(game="spite-and-malice", bots=("h1=heuristic", "r1=random", "h2=heuristic", "r2=random"),
                          options={"players": 4, "partnerships": True, "payoff_size": 5}, teams=(("h1", "h2"), ("r1", "r2")),
                          deals=2, name="pairs")
    rows, st, info = run(tmp_path / "p.sqlite", spec)
    assert len(rows) == info["planned"] == 2 * 4
    assert st.model == "bradley-terry"  # teams of distinct bots: on the pairs of sides, a side the mean of its bots
    assert {r.name for r in st.rows} == {"h1", "h2", "r1", "r2"}
    for row in rows:
        assert set(row.sides) == {"h1+h2", "r1+r2"}


def test_gauntlet_in_spot_reports_progress_with_a_leader(tmp_path):
    seen: list[Progress] = []
    spec = TournamentSpec(game="spot", bots=("heuristic", "random", "r2=random"), options={"players": 2, "hands": 2},
                          format="gauntlet", deals=2, name="g")
    rows, st, _ = run(tmp_path / "g.sqlite", spec, on_progress=seen.append, concurrency=3)
    assert len(rows) == 2 * 2 * 2 and all("heuristic" in r.seats for r in rows)
    assert seen[0].record is None and seen[0].total == 8 and seen[-1].done == 8
    assert seen[-1].leader.startswith("heuristic")
    assert [r.name for r in st.rows][0] == "heuristic"


def test_the_progress_leader_names_every_bot_level_at_the_top(tmp_path):
    """Two copies of one bot on the same duplicate deals are level, and the standings rank both
    first; the progress line named one ("leader: greedy 62%", the later name). It names both."""
    seen: list[Progress] = []
    spec = TournamentSpec(game="spades", bots=("greedy", "g2=greedy", "random"), options={"deals": 1}, deals=2, seed=3,
                          name="lv")
    _, st, _ = run(tmp_path / "lv.sqlite", spec, on_progress=seen.append)
    assert [r.rank for r in st.rows][:2] == [1, 1]  # the premise: level in the table
    assert seen[-1].leader.startswith("g2, greedy (level) "), seen[-1].leader


def test_resume_replays_only_the_missing_matches(tmp_path):
    path = tmp_path / "r.sqlite"
    spec = TournamentSpec(game="spades", bots=("random", "greedy", "heuristic"), options={"deals": 1}, deals=2, seed=9, name="r")
    full, st_full, _ = run(path, spec)
    with Store(path) as store:  # as if the run had died before these matches ended
        store.db.execute("DELETE FROM matches WHERE idx % 3 = 1")
        kept = {r.idx: r for r in store.matches(store.tournament("r").id)}
    calls: list[Progress] = []
    resumed, st, _ = run(path, spec, on_progress=calls.append)
    assert calls[0].resumed == len(kept) and calls[-1].done == len(full)
    assert len(calls) == 1 + (len(full) - len(kept)), "only the missing matches were played"
    assert [(r.idx, r.seats, r.outcome) for r in resumed] == [(r.idx, r.seats, r.outcome) for r in full]
    assert all(resumed[i].record_json == kept[i].record_json for i in kept)
    assert [(r.name, r.rating) for r in st.rows] == [(r.name, r.rating) for r in st_full.rows]


def test_the_same_seed_gives_the_same_results(tmp_path):
    spec = TournamentSpec(game="spot", bots=("random", "heuristic"), options={"players": 3, "hands": 2}, deals=1, seed=4)
    a, _, _ = run(tmp_path / "a.sqlite", spec)
    b, _, _ = run(tmp_path / "b.sqlite", spec)
    assert [(r.seats, r.outcome) for r in a] == [(r.seats, r.outcome) for r in b]
    assert len(a) == len(schedule(spec.validate(), spec))


@pytest.mark.e2e
def test_no_bot_plays_two_seatings_of_one_deal_at_the_same_time(tmp_path):
    """Duplicate deals, six matches at once, bot processes over gRPC: two matches of one deal
    that share a bot never overlap in time (a bot's copies could otherwise signal each
    other through the CPU), while matches of different deals do run together."""
    from arbiter.store.db import Store
    from arbiter.tournament.run import TournamentSpec, run_tournament

    spec = TournamentSpec(name="turns", game="spades", bots=("random", "greedy", "heuristic"), options={"deals": 1},
                          deals=4, seed=3)
    with Store(tmp_path / "t.sqlite") as store:
        rows = asyncio.run(run_tournament(spec, store, concurrency=6))
    spans = []
    for row in rows:
        rec = row.record()
        spans.append((rec.seed, set(row.seats), rec.started, rec.started + rec.seconds))
    assert len(spans) == 3 * 4 * 2
    clash = [(a, b) for i, a in enumerate(spans) for b in spans[i + 1:]
             if a[0] == b[0] and a[1] & b[1] and a[2] < b[3] - 1e-3 and b[2] < a[3] - 1e-3]  # 1 ms: the clocks' rounding
    assert clash == []
    together = sum(1 for i, a in enumerate(spans) for b in spans[i + 1:] if a[2] < b[3] and b[2] < a[3])
    assert together > 0  # other deals' matches filled the concurrency


_FIRST = "from sdk import Bot\n\nclass B(Bot):\n    name = 'mine'\n    games = ('spades',)\n\n" \
         "    def choose(self, view, legal_actions):\n        return legal_actions[{i}]\n"


def test_a_bot_file_edited_since_is_never_resumed_as_the_same_run(tmp_path):
    """A stored run keeps its file bots' contents: run again after an edit, a tournament says so
    and how to go on (its matches were another bot's), an evaluation is another evaluation; a
    run stored before contents were kept resumes as it was."""
    import json

    from arbiter.batch.settings import CONTENT_KEY, SpecError
    from arbiter.tournament.evaluate import evaluate

    bot = tmp_path / "mine.py"
    bot.write_text(_FIRST.format(i=0))
    db = tmp_path / "t.sqlite"
    spec = TournamentSpec(game="spades", bots=(str(bot), "random"), options={"deals": 1}, deals=2, seed=3)
    first, _, _ = run(db, spec)
    again, _, _ = run(db, spec)  # unchanged: resumed, nothing played
    assert [r.match_id for r in again] == [r.match_id for r in first]
    bot.write_text(_FIRST.format(i=-1))
    with pytest.raises(SpecError, match=r"'spades-3' in .* was played with other contents of .*mine.py \(edited since\): "
                                         r"--fresh plays it again"):
        run(db, spec)
    fresh, _, _ = run(db, spec, fresh=True)
    assert [r.outcome for r in fresh] != [r.outcome for r in first]
    # a run stored before contents were kept: resumed on its spec alone
    with Store(db) as store, store._tx() as tx:  # written as such a run wrote it
        kept = {k: v for k, v in store.tournament("spades-3").spec.items() if k != CONTENT_KEY}
        tx.execute("UPDATE tournaments SET spec = ? WHERE name = 'spades-3'", (json.dumps(kept, sort_keys=True),))
    legacy, _, _ = run(db, spec)
    assert [r.outcome for r in legacy] == [r.outcome for r in fresh]
    with Store(db) as store:
        assert CONTENT_KEY not in store.tournament("spades-3").spec
    # an evaluation of the edited bot is another evaluation, not the first one resumed
    with Store(tmp_path / "e.sqlite") as store:
        kw = dict(deals=2, seed=1, options={"deals": 1}, store=store, transport="inproc")
        old = evaluate("spades", str(bot), "random", **kw)
        bot.write_text(_FIRST.format(i=0))
        new = evaluate("spades", str(bot), "random", **kw)
        assert new.resumed == 0 and new.stored_as != old.stored_as and new.matches != old.matches
        assert json.dumps(store.tournament(new.stored_as).spec[CONTENT_KEY]) != json.dumps(
            store.tournament(old.stored_as).spec[CONTENT_KEY])
        with pytest.raises(SpecError, match="edited since"):
            evaluate("spades", str(bot), "random", name=old.stored_as, **kw)
