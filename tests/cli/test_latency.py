"""How much of the clock was the bot's (issue #31 item 4): each bot's mean and worst think
time and the arbiter's own time per decision, from the stored records, in `arbiter
standings`, `arbiter tournament show`, the web standings and an arena bot's page. Records
stored before the arbiter's own time was kept still load, and show it as unknown."""

from __future__ import annotations

import asyncio
import json
import shutil

import pytest
from arbiter.arena.ladder import Arena, ArenaSpec
from arbiter.cli._common import out
from arbiter.present.played import THINK_COLUMNS, think_cells
from arbiter.present.web import arena_bot_page, tournament_page
from arbiter.store.arenas import Arenas
from arbiter.store.db import Store, StoreError, ThinkTimes
from cardarena.records import MatchRecord
from tests.cli.test_tournament_cli import invoke

BOTS = ("random", "greedy", "heuristic")


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("latency") / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--game", "spades",
               "--bots", ",".join(BOTS), "-o", "deals=1", "--deals", "1", "--name", "lat", "--quiet")
    assert r.exit_code == 0, r.output
    return path


def _from_records(store: Store, tournament_id: int) -> dict[str, ThinkTimes]:
    """The same sums, the slow way: every record parsed in Python."""
    out: dict[str, ThinkTimes] = {}
    for row in store.matches(tournament_id):
        for a in row.record().actions:
            if a.forced != "disconnected":
                name = row.seats[a.seat]
                said = a.bot_us is not None
                out[name] = out.get(name, ThinkTimes()) + ThinkTimes(1, a.ms, a.ms, 1, a.overhead_us, int(said),
                                                                     a.ms if said else 0, a.bot_us or 0)
    return out


def test_the_stores_sums_are_the_records(db):
    with Store(db, read_only=True) as store:
        tour = store.tournament("lat")
        times = store.think_times(tour.id)
        expected = _from_records(store, tour.id)
        decisions = sum(r.decisions for r in store.matches(tour.id))
    assert set(times) == set(BOTS) and times == expected
    assert sum(t.decisions for t in times.values()) == decisions  # in process no seat is ever skipped
    for t in times.values():
        assert t.measured == t.decisions and t.overhead_us > 0  # the runner measured its own time
        assert 0 <= t.mean_ms <= t.worst_ms and t.overhead_ms > 0
        assert t.reported == 0 and t.transport_ms is None  # in the arbiter's process: no transport, nothing said


@pytest.mark.e2e
def test_over_grpc_the_bots_say_their_own_time_and_the_transport_shows(tmp_path, monkeypatch):
    path = tmp_path / "grpc.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--game", "spades", "--bots", "random,greedy", "-o", "deals=1",
               "--deals", "1", "--name", "wire", "--quiet")
    assert r.exit_code == 0, r.output
    with Store(path, read_only=True) as store:
        tour = store.tournament("wire")
        times = store.think_times(tour.id)
        assert times == _from_records(store, tour.id)
        actions = [a for row in store.matches(tour.id) for a in row.record().actions if not a.forced]
    # every answer said its bot's own time (the SDK's Act.think_us), never more than the arbiter saw
    assert actions and all(a.bot_us is not None and 1 <= a.bot_us <= max(a.ms, 1) * 1000 for a in actions)
    monkeypatch.setattr(out, "width", 220)
    monkeypatch.delenv("COLUMNS", raising=False)  # (console_width takes the narrower of the two)
    text = invoke("standings", "wire", "--db", str(path)).stdout
    for bot in ("random", "greedy"):
        t = times[bot]
        assert t.reported == t.decisions and t.transport_ms is not None and 0 <= t.transport_ms <= t.mean_ms
        line = next(ln for ln in text.splitlines() if f" {bot} " in ln)
        assert all(cell in line for cell in think_cells(times, (bot,)))


def test_standings_and_show_print_each_bots_times(db, monkeypatch):
    monkeypatch.setattr(out, "width", 220)  # room for every column
    monkeypatch.delenv("COLUMNS", raising=False)  # (console_width takes the narrower of the two)
    with Store(db, read_only=True) as store:
        times = store.think_times(store.tournament("lat").id)
    standings = invoke("standings", "lat", "--db", str(db)).stdout
    show = invoke("tournament", "show", "lat", "--db", str(db)).stdout
    for text in (standings, show):
        assert all(c in text for c in THINK_COLUMNS) and "docs/latency.md" in text
        for bot in BOTS:
            line = next(ln for ln in text.splitlines() if f" {bot} " in ln)
            mean, worst, transport, own = think_cells(times, (bot,))
            assert transport == ""  # in process: nothing said, no transport
            for cell in (mean, worst, own):
                assert cell and cell in line, (bot, cell, line)


def test_the_web_standings_show_each_bots_times(db):
    with Store(db, read_only=True) as store:
        html = tournament_page(store, "lat")
        times = store.think_times(store.tournament("lat").id)
    for col in THINK_COLUMNS:
        assert f'<th class="num">{col}</th>' in html
    assert 'id="think-note"' in html
    for bot in BOTS:
        row = html[html.index(f'data-bot="{bot}"'):]
        row = row[:row.index("</tr>")]
        for cell in think_cells(times, (bot,)):
            assert f'<td class="num">{cell}</td>' in row


def test_records_from_before_show_the_arbiters_time_as_unknown(db, tmp_path):
    old = tmp_path / "old.sqlite"
    shutil.copy(db, old)
    with Store(old) as store:
        rows = store.db.execute("SELECT rowid, record FROM matches").fetchall()
        for rowid, text in rows:
            d = json.loads(text)
            for a in d["actions"]:
                del a["overhead_us"], a["bot_us"]
            store.db.execute("UPDATE matches SET record = ? WHERE rowid = ?", (json.dumps(d), rowid))
        assert all(a.overhead_us == 0 and a.bot_us is None for a in MatchRecord.from_json(json.dumps(d)).actions)
        times = store.think_times(store.tournament("lat").id)
    for bot in BOTS:
        mean, worst, transport, own = think_cells(times, (bot,))
        assert mean and worst and transport == own == ""
        assert times[bot].measured == 0 and times[bot].overhead_ms is None


def test_an_arena_bots_page_shows_its_times(tmp_path):
    spec = ArenaSpec(game="spades", name="lab", options={"deals": 1}, house=("random", "greedy"), transport="inproc", seed=5)
    a = Arena(spec, tmp_path / "a.sqlite", poll=0)
    asyncio.run(a.run(max_encounters=1))
    a.close()
    with Store(tmp_path / "a.sqlite", read_only=True) as store:
        tables = Arenas(store)
        times = tables.think_times(tables.arena("lab").id)
        html = arena_bot_page(store, "lab", "greedy")
    assert set(times) == {"random", "greedy"} and times["greedy"].decisions > 0
    table = html[html.index('id="think-times"'):]
    table = table[:table.index("</table>")]
    for cell in think_cells(times, ("greedy",)):
        assert f'<td class="num">{cell}</td>' in table
    assert 'id="think-note"' in html


def test_a_matchs_times_are_read_from_its_record_once(db, tmp_path):
    """A running tournament's page is rendered again at each match it stores: reading
    every record's actions each time made it take seconds (12 s at 600 Spades matches).
    Each stored match's times are read once: a record seen before is not parsed again
    (here made unreadable after the first read, and still counted), a match stored since
    is, and a row replaced under the same rowid (a tournament run again --fresh) is too."""
    copy = tmp_path / "once.sqlite"
    shutil.copy(db, copy)
    with Store(copy) as store:
        tid = store.tournament("lat").id
        first = store.think_times(tid)
        rowid, seats = store.db.execute("SELECT rowid, seats FROM matches ORDER BY rowid LIMIT 1").fetchone()
        store.db.execute("UPDATE matches SET record = '{not json' WHERE rowid = ?", (rowid,))
        assert store.think_times(tid) == first  # its record was not read again
        # a row replaced (another run: its seconds differ) is read again: now unreadable
        store.db.execute("UPDATE matches SET seconds = seconds + 1 WHERE rowid = ?", (rowid,))
        with pytest.raises(StoreError, match="cannot be read for their times"):
            store.think_times(tid)
