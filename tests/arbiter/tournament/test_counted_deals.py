"""While a duplicate tournament runs, every number made from its matches counts only the deals
all of whose matches are stored (``cardarena.disclosure.Disclosure.counted``, asked through
``arbiter.tournament.run.counted_matches``): its standings may be shown, but two reads a match
apart told that match's result, one seating of a deal its twin seating (or another table of
the round) still had to play.

One real store of a three-bot duplicate round robin (Spades, one hand a match: three tables,
two seatings each, so each deal is six matches), played once; its stored matches are put back
one at a time into a copy made to run again.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sqlite3
from collections import Counter

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.present.export import to_dict
from arbiter.present.web import tournament_bot_page, tournament_page
from arbiter.store.db import Store
from arbiter.tournament.evaluate import evaluate, stored_pairs
from arbiter.tournament.run import (
    TournamentSpec, counted_matches, counted_think_times, load_standings, planned_deals, run_tournament, standings,
)
from cardarena.disclosure import OPEN, counted_note, of_tournament

ONE = {"deals": 1}
SPEC = TournamentSpec(game="spades", bots=("random", "greedy", "r2=random"), options=ONE, deals=2, seed=31, name="rr")
NOTE = "a deal counts once all its matches are in"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """(the finished store, its matches with their records, the run's progress reports)."""
    path = tmp_path_factory.mktemp("counted") / "finished.sqlite"
    reports = []
    with Store(path) as store:
        asyncio.run(run_tournament(SPEC, store, transport="inproc", on_progress=reports.append))
        rows = store.matches(store.tournament("rr").id)
    assert len(rows) == 12
    return path, rows, reports


def running_copy(played, tmp_path, keep=()):
    """A copy of the finished store, made to run again with only the matches ``keep`` (indices)."""
    path = played[0]
    copy = tmp_path / "running.sqlite"
    with sqlite3.connect(path) as a, sqlite3.connect(copy) as b:
        a.backup(b)
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE tournaments SET finished = NULL")
        db.execute(f"DELETE FROM matches WHERE idx NOT IN ({','.join(map(str, keep)) or '-1'})")
        db.execute("DELETE FROM match_bots WHERE match NOT IN (SELECT id FROM matches)")
    return copy


def put(store: Store, row) -> None:
    """Store one of the played matches again, as the run stored it."""
    store.save_match(store.tournament("rr").id, row.idx, row.deal, row.rotation, row.record(), round=row.round,
                     table=row.table, sides=row.sides)


def _section(page: str, start: str, end: str) -> str:
    i = page.index(start)
    return page[i:page.index(end, i)]


def numbers(path) -> dict:
    """Every number the readers make of the tournament's matches, as they show them (not how
    many matches are stored: progress, shown on every page, carries no result)."""
    with Store(path, read_only=True) as store:
        st, info = load_standings(store, "rr")
        tour = store.tournament("rr")
        exported = to_dict(st, info)
        for key in ("played", "state"):
            exported["tournament"].pop(key)
        page = tournament_page(store, "rr")
        return {
            "export": json.dumps(exported, sort_keys=True),
            "page": [_section(page, 'id="standings"', "</table>"), _section(page, 'id="standings-notes"', "</div>"),
                     _section(page, 'id="crosstable"', "</table>") if 'id="crosstable"' in page else ""],
            "bot pages": [tournament_bot_page(store, "rr", b) for b in ("random", "greedy", "r2")],
            "think times": counted_think_times(store, tour),
            "pairs": stored_pairs(store, "spades", ONE, None),
        }


def test_the_plan_read_from_a_stored_spec_is_the_matches_its_run_stored(played, tmp_path):
    """The deals a closed tournament waits for come from its plan, which must be what its run
    plays: every seating at every table of a deal (here three tables of two), and an
    evaluation's two seatings."""
    path, rows, _ = played
    with Store(path, read_only=True) as store:
        tour = store.tournament("rr")
        spec = TournamentSpec.from_json(tour.spec)
    assert planned_deals(spec, spec.validate_game()) == Counter((r.round, r.deal) for r in rows) == {(0, 0): 6, (0, 1): 6}
    with Store(tmp_path / "eval.sqlite") as store:
        evaluate("spades", "random", "greedy", deals=2, seed=3, options=ONE, store=store, name="ev")
        tour = store.tournament("ev")
        spec = TournamentSpec.from_json(tour.spec)
        assert planned_deals(spec, spec.validate_game(), evaluation=True) == Counter(
            (r.round, r.deal) for r in store.matches(tour.id, records=False))


def test_the_rule_counts_whole_deals_only_while_the_batch_is_closed():
    rows = [(0, "a"), (0, "b"), (1, "a")]  # deal 0 in both seatings, deal 1 in one of two
    deal_of, planned = (lambda r: r[0]), {0: 2, 1: 2, 2: 2}
    closed = of_tournament("t", finished=False, duplicate=True).counted(rows, deal_of, planned)
    assert closed.rows == ((0, "a"), (0, "b")) and (closed.deals, closed.planned) == (1, 3)
    assert closed.note == counted_note(1, 3) and closed.note.startswith(f"1 deal of 3 counted; {NOTE}")
    assert [closed.counts(r) for r in rows] == [True, True, False]  # what a list of matches lists
    assert closed.unlisted_note == "1 match of a deal not yet played through is listed once its deal is whole"
    # a deal the plan does not name (or names with no match) never counts while closed
    assert of_tournament("t", False, True).counted(rows, deal_of, {1: 1}).rows == ((1, "a"),)
    for rule in (of_tournament("t", finished=True, duplicate=True), of_tournament("t", finished=False, duplicate=False),
                 OPEN):
        opened = rule.counted(rows, deal_of, planned)
        assert opened.rows == tuple(rows) and not opened.closed and opened.note == ""
        assert all(opened.counts(r) for r in rows) and opened.unlisted_note == ""


def test_every_reader_leaves_out_a_deal_whose_twin_seating_or_other_table_is_still_to_play(played, tmp_path):
    """Deal 0 stored whole, deal 1 in one seating of its first table: the standings, their
    exports, the web pages, the think times and the pairs' deal margins add up deal 0 alone
    and say so. Its twin stored, deal 1 is still not counted (two more tables play it); with
    every match in, it is; and once the tournament is over the numbers are a finished one's."""
    path, rows, _ = played
    copy = running_copy(played, tmp_path, keep=range(7))  # deal 0 (matches 0-5) and match 6 (deal 1, table 0)
    with Store(copy, read_only=True) as store:
        st, info = load_standings(store, "rr")
        tour = store.tournament("rr")
        assert [r.idx for r in counted_matches(store, tour).rows] == list(range(6))
        assert counted_think_times(store, tour) == store.think_times(tour.id, range(6)) != store.think_times(tour.id)
        page, bot = tournament_page(store, "rr"), tournament_bot_page(store, "rr", "greedy")
        pairs = stored_pairs(store, "spades", ONE, None)
    assert st.matches == 6 and {r.name: r.matches for r in st.rows} == {"random": 4, "greedy": 4, "r2": 4}
    assert info["counted"] == {"deals": 1, "of": 2, "matches": 6, "closed": True} and info["played"] == 7
    want = standings([r for r in rows if r.idx < 6], SPEC.validate_game(), True, ("random", "greedy", "r2"))
    assert [r.as_dict() for r in st.rows] == [r.as_dict() for r in want.rows]
    assert sorted(p.deals for p in pairs) == [1, 1, 1]  # each pair's deal 0 only
    said = f"1 deal of 2 counted; {NOTE}"
    assert said in page and 'id="counted"' in page and said in bot
    assert re.search(r'data-bot="greedy".*?<td class="num">4</td>', page, re.S)  # its matches: deal 0's four
    runner = CliRunner()
    exported = json.loads(runner.invoke(app, ["standings", "rr", "--db", str(copy), "-f", "json"]).stdout)
    assert exported["matches"] == 6 and exported["tournament"]["counted"]["deals"] == 1 and said in exported["notes"]["counted"]
    for args in (["standings", "rr"], ["standings", "rr", "-f", "md"], ["tournament", "show", "rr"]):
        got = runner.invoke(app, [*args, "--db", str(copy)], env={"COLUMNS": "400"})
        assert got.exit_code == 0, got.output
        if args[0] == "standings":
            text = " ".join(got.stdout.split())
            assert said in text and "7 of 12 matches played" in text
    with Store(copy) as store:  # its twin: deal 1 is still played at two more tables
        put(store, rows[7])
    assert numbers(copy)["export"].count('"deals": 1') and load_standings(Store(copy, read_only=True), "rr")[0].matches == 6
    with Store(copy) as store:
        for row in rows[8:]:
            put(store, row)
    with Store(copy, read_only=True) as store:
        st, info = load_standings(store, "rr")
        assert st.matches == 12 and info["counted"] == {"deals": 2, "of": 2, "matches": 12, "closed": True}
        running = numbers(copy)
    with sqlite3.connect(copy) as db:
        db.execute("UPDATE tournaments SET finished = 1")
    over, finished = numbers(copy), numbers(path)
    assert over == finished and NOTE not in over["export"] and NOTE not in over["page"][1]
    assert running["think times"] == finished["think times"] and running["pairs"] == finished["pairs"]
    assert running["page"][0] == finished["page"][0] and running["page"][2] == finished["page"][2]


def test_two_reads_around_one_match_stored_differ_only_when_it_completes_a_deal(played, tmp_path):
    """The adversary's test: the matches stored one at a time in a shuffled order (a run's
    concurrency stores them so); before and after each, every reader's numbers. They move
    exactly when the match stored is the last of its deal."""
    _, rows, _ = played
    copy = running_copy(played, tmp_path)
    order = list(rows)
    random.Random(5).shuffle(order)
    stored: Counter = Counter()
    before = numbers(copy)
    assert NOTE in before["page"][1] and "0 deals of 2 counted" in before["export"]
    completed = 0
    for row in order:
        with Store(copy) as store:
            put(store, row)
        stored[(row.round, row.deal)] += 1
        after = numbers(copy)
        whole = stored[(row.round, row.deal)] == 6
        completed += whole
        changed = {k for k in after if after[k] != before[k]}
        if whole:
            assert {"export", "page", "bot pages", "think times", "pairs"} == changed, (row.idx, changed)
            assert f"{completed} deal{'' if completed == 1 else 's'} of 2 counted" in after["export"]
        else:
            assert not changed, (row.idx, changed)
        before = after
    assert completed == 2


def test_the_runs_progress_line_names_a_leader_only_from_whole_deals(played):
    """``tournament run``'s progress line (the best points rate so far) moved with each match
    stored as the table did: it changes only with a match that completes its deal (six matches
    a deal here, in whatever order the run stores them)."""
    reports = played[2]
    seen: Counter = Counter()
    leader = ""
    for p in reports:
        if p.record is None:
            continue
        seen[p.record.seed] += 1  # a deal's seed: every table of the round plays it
        if seen[p.record.seed] < 6:
            assert p.leader == leader, (p.done, p.leader)
        leader = p.leader
    assert leader and sorted(seen.values()) == [6, 6]


def _forfeit(path, idx: int, seat: int) -> None:
    """Make the stored match ``idx`` a forfeit by ``seat`` (a timeout), as a run stores one."""
    with sqlite3.connect(path) as db:
        db.execute("UPDATE matches SET reason = 'forfeit_timeout', detail = ?, incidents = ?, decisions = 9 WHERE idx = ?",
                   (f"seat {seat}: no answer within the decision limit (10 ms)",
                    json.dumps([{"seat": seat, "kind": "timeout", "detail": "no answer within the decision limit (10 ms)"}]),
                    idx))


def lists(path) -> dict:
    """Every list of a tournament's matches, as its readers show it: the web page's, each bot's
    page, ``tournament show`` and ``tournament show --failures``."""
    with Store(path, read_only=True) as store:
        page = tournament_page(store, "rr")
        bots = [tournament_bot_page(store, "rr", b) for b in ("random", "greedy", "r2")]
    runner = CliRunner()
    shows = [runner.invoke(app, ["tournament", "show", "rr", "--db", str(path), *extra], env={"COLUMNS": "400"})
             for extra in ((), ("--failures",))]
    assert all(s.exit_code == 0 for s in shows), [s.output for s in shows]
    return {"page": _section(page, 'id="matches"', "</table>"), "bot pages": bots, "show": [s.stdout for s in shows]}


def test_how_a_match_ended_is_shown_once_its_deal_counts(played, tmp_path):
    """The lists of matches showed each stored match's end reason and its incidents by seat
    while the tournament was closed, so a forfeit's loser (one seating's result) could be read
    off while the deal's twin was still to be played (the bot page hid it). A forfeit in a
    deal not whole now changes no list; one in a deal counted shows, as the standings' forfeits
    column counts it."""
    copy = running_copy(played, tmp_path, keep=range(7))  # deal 0 whole (matches 0-5), deal 1 in match 6 alone
    before = lists(copy)
    assert "withheld" in before["page"] and "completed" in before["page"]
    _forfeit(copy, 6, 1)  # greedy's seat in match 6 (random, greedy, random, greedy)
    assert lists(copy) == before
    _forfeit(copy, 3, 1)  # deal 0, counted
    after = lists(copy)
    assert "forfeit_timeout" in after["page"] and "seat 1 timeout" in after["page"]
    assert "seat 1: no answer within the decision limit" in after["page"]  # its words, as the bot page and show say them
    assert "forfeit_timeout" in after["show"][0] and "seat 1 timeout" in after["show"][0]
    failures = after["show"][1]
    assert re.search(r"^3 .*forfeit_timeout", failures, re.M) and not re.search(r"^6 ", failures, re.M)
    assert "1 deal of 2 counted" in failures and re.search(r"seat 1 \(\w+\) timeout: no answer", failures), failures
    seat = played[1][3].seats[1]
    assert 'id="forfeits"' in after["bot pages"][("random", "greedy", "r2").index(seat)]
    assert '<a href="/m/' not in after["bot pages"][("random", "greedy", "r2").index(seat)]  # replays open at the end


UNLISTED = re.compile(r"(\d+) match(?:es)? of (?:a deal|deals) not yet played through (?:is|are) listed once (?:its deal is|their "
                      r"deals are) whole")


def listed(seen: dict) -> list[set[int]]:
    """The matches (schedule indices) each list of ``lists`` lists: the web page's, ``tournament
    show``'s and its ``--failures``'."""
    page = {int(i) for i in re.findall(r'<tr><td class="num">(\d+)</td>', seen["page"])}
    return [page, *({int(i) for i in re.findall(r"^ *(\d+)(?: +\d+){2,4} +[a-z]", s, re.M)} for s in seen["show"])]


def test_a_match_is_listed_once_its_deal_counts(played, tmp_path):
    """The lists of matches (the web page's, ``tournament show`` and its ``--failures``) listed
    each match as soon as it was stored, its end withheld: a reader polling them timed each
    match (a forfeit ends sooner than a whole deal: one seating's result, told by the clock).
    A match of a deal not whole is now absent from every list, which says only how many it
    leaves out; two reads around storing a match that completes no deal differ in the counts
    alone; once the tournament is over, the lists are a finished one's."""
    rows = played[1]
    copy = running_copy(played, tmp_path, keep=range(7))  # deal 0 whole (matches 0-5), deal 1 in match 6 alone
    _forfeit(copy, 6, 1)  # cut short: what its row's timing would tell
    _forfeit(copy, 3, 1)  # deal 0, counted: listed, with its end
    with Store(copy, read_only=True) as store:
        page = tournament_page(store, "rr")
    seen = lists(copy)
    assert listed(seen) == [set(range(6)), set(range(6)), {3}]
    assert f">{rows[6].match_id}<" not in page and f" {rows[6].match_id} " not in str(seen["show"])
    one = "1 match of a deal not yet played through is listed once its deal is whole"
    assert one in page and 'id="unlisted"' in page and 'id="no-matches"' not in page
    assert all(one in " ".join(s.split()) for s in seen["show"])
    assert "forfeit_timeout" in seen["page"] and "seat 1 timeout" in seen["show"][0]  # match 3's end, its deal counted
    # and its arbiter's words, but not a completed match's: they are its scores ("side B wins 53 to -226 ..."), one
    # seating's result, withheld till the end as the scores column is
    assert "seat 1: no answer within" in seen["page"] and " wins " not in seen["page"] and "withheld" in seen["page"]

    def masked(seen: dict) -> dict:  # the lists with the counts taken out: left out, and played (progress, "7/12")
        return {k: [re.sub(r"\d+/12 matches", "N/12", UNLISTED.sub("N", " ".join(s.split()))) for s in v]
                if isinstance(v, list) else v for k, v in seen.items()}

    with Store(copy) as store:  # deal 1's twin seating: its deal is still to be played at two more tables
        put(store, rows[7])
    twin = lists(copy)
    assert masked(twin) == masked(seen) and twin != seen and listed(twin) == listed(seen)
    assert "2 matches of deals not yet played through are listed once their deals are whole" in " ".join(twin["show"][0].split())
    with Store(copy) as store:
        for row in rows[8:]:
            put(store, row)
    whole = lists(copy)
    assert listed(whole) == [set(range(12)), set(range(12)), {3, 6}]
    assert not UNLISTED.search(" ".join(str(whole).split()))
    # over (here with deal 1 in one match: stopped early), every stored match is listed, with its end and its replay
    (tmp_path / "over").mkdir()
    over = running_copy(played, tmp_path / "over", keep=range(7))
    _forfeit(over, 6, 1)
    with sqlite3.connect(over) as db:
        db.execute("UPDATE tournaments SET finished = 1")
    ended = lists(over)
    assert listed(ended) == [set(range(7)), set(range(7)), {6}]
    assert f'<a href="/m/{rows[6].match_id}">' in ended["page"] and "forfeit_timeout" in ended["show"][1]
    assert not UNLISTED.search(" ".join(str(ended).split())) and "withheld" not in ended["page"] and " wins " in ended["page"]
