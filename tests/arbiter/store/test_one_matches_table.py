"""Every match has one home: a row of the one ``matches`` table with the batch it belongs
to (a tournament, an evaluation, ``arbiter play``'s ``play:GAME``, an arena encounter), and
one reader (``Store.read_match``: the record and what of it may be shown).

The migration is tested on a store written the way the arbiter before schema 5 wrote it:
its schema (data/schema4.sql, the previous release's ``_SCHEMA`` as it was) and its rows,
inserted column for column as that release's ``save_match`` and ``finish_encounter`` did,
from real played records. Nothing of it may be lost.
"""

from __future__ import annotations

import functools
import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.store.arenas import Arenas
from arbiter.store.db import SCHEMA_VERSION, Store, StoreError, incidents_json
from arbiter.tournament.play import play_local, store_play
from cardarena.disclosure import Withheld
from cardarena.records import MatchRecord

SCHEMA_4 = (Path(__file__).parent / "data" / "schema4.sql").read_text()
TOURNAMENT_COLUMNS = ("tournament_id, idx, match_id, deal, rotation, seed, seats, scores, ranks, reason, detail, record, "
                      "round, table_no, sides, incidents, decisions, seconds, finished")
ARENA_COLUMNS = ("arena_id, encounter, k, match_id, deal, seating, seed, seats, sides, scores, ranks, reason, detail, "
                 "incidents, record, decisions, seconds, finished")


def _played(seed: int, match_id: str, bots=("random", "heuristic")) -> MatchRecord:
    """The seeded match, played once per module (four tests build the same schema-4 store
    of six matches): each call gets its own copy of the record."""
    record = MatchRecord.from_json(_played_json(seed, tuple(bots)))
    record.match_id = match_id
    return record


@functools.cache
def _played_json(seed: int, bots: tuple[str, ...]) -> str:
    return play_local("spite-and-malice", list(bots), seed=seed, transport="inproc", decision_ms=0, bank_ms=0).to_json()


def _values(record: MatchRecord) -> tuple:
    o = record.outcome
    return (record.seed, json.dumps(list(record.seat_names)), json.dumps(list(o.scores)), json.dumps(list(o.ranks)),
            o.reason.value, o.detail)


def _schema_4_store(path: Path) -> dict[str, MatchRecord]:
    """A store as schema 4 kept it: a finished tournament of two matches, a running one
    (duplicate deals: closed), a ``play:GAME`` match and an arena with one stored encounter."""
    records = {m: _played(s, m) for s, m in ((1, "7-0"), (2, "7-1"), (3, "8-0"), (4, "play-0"), (5, "a1-e0-0"),
                                             (6, "a1-e0-1"))}
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_4)
    db.execute("INSERT INTO meta VALUES ('schema', '4')")
    now = time.time()
    for tid, name, finished in ((7, "club", now), (8, "running", None)):
        spec = {"game": "spite-and-malice", "bots": ["random", "heuristic"], "duplicate": True, "seed": 3}
        db.execute("INSERT INTO tournaments (id, name, game, spec, created, finished, planned) VALUES (?, ?, ?, ?, ?, ?, 4)",
                   (tid, name, "spite-and-malice", json.dumps(spec), now, finished))
    db.execute("INSERT INTO tournaments (id, name, game, spec, created, finished, planned) VALUES "
               "(9, 'play:spite-and-malice', 'spite-and-malice', '{}', 0, 0, 0)")
    for n, (tid, idx, mid) in enumerate(((7, 0, "7-0"), (7, 1, "7-1"), (8, 0, "8-0"), (9, 0, "play-0"))):
        r = records[mid]
        db.execute(f"INSERT INTO matches ({TOURNAMENT_COLUMNS}) VALUES ({', '.join('?' * 19)})",
                   (tid, idx, mid, idx // 2, idx % 2, *_values(r), r.to_json(), 0, idx, '["random", "heuristic"]',
                    incidents_json(r.incidents), len(r.actions), r.seconds, now + n))  # finished in this order
    db.execute("INSERT INTO arenas VALUES (1, 'ladder', 'spite-and-malice', '{}', ?)", (now,))
    db.execute("INSERT INTO arena_encounters (arena_id, idx, seq, players, seed, status, started, finished) "
               "VALUES (1, 0, 0, '[\"random\", \"heuristic\"]', 99, 'done', ?, ?)", (now, now))
    for k, mid in enumerate(("a1-e0-0", "a1-e0-1")):
        r = records[mid]
        seed, seats, scores, ranks, reason, detail = _values(r)
        db.execute(f"INSERT INTO arena_matches ({ARENA_COLUMNS}) VALUES ({', '.join('?' * 18)})",
                   (1, 0, k, mid, 0, k, seed, seats, '["random", "heuristic"]', scores, ranks, reason, detail,
                    incidents_json(r.incidents), r.to_json(), len(r.actions), r.seconds, now + 10))  # the last to finish
    db.commit()
    db.close()
    return records


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


def test_a_schema_4_store_is_migrated_into_one_matches_table_with_nothing_lost(tmp_path):
    path = tmp_path / "old.sqlite"
    records = _schema_4_store(path)
    before_t = _rows(path, f"SELECT {TOURNAMENT_COLUMNS} FROM matches ORDER BY tournament_id, idx")
    before_a = _rows(path, f"SELECT {ARENA_COLUMNS} FROM arena_matches ORDER BY arena_id, encounter, k")
    with pytest.raises(StoreError, match="too old to read without migrating"):
        Store(path, read_only=True)  # a reader never writes: it says who migrates
    with Store(path) as store:  # the first writer migrates
        assert store.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(SCHEMA_VERSION)
    assert not _rows(path, "SELECT name FROM sqlite_master WHERE name = 'arena_matches'")
    after_t = _rows(path, f"SELECT {TOURNAMENT_COLUMNS} FROM matches WHERE batch = 'tournament' ORDER BY tournament_id, idx")
    after_a = _rows(path, f"SELECT {ARENA_COLUMNS.replace('k,', 'idx,').replace('seating,', 'rotation,')} FROM matches "
                          "WHERE batch = 'arena' ORDER BY arena_id, encounter, idx")
    assert after_t == before_t and after_a == before_a  # every column of every row
    assert _rows(path, "SELECT COUNT(*) FROM matches") == [(len(records),)]
    assert _rows(path, "PRAGMA foreign_key_check") == [] and _rows(path, "PRAGMA integrity_check") == [("ok",)]

    with Store(path, read_only=True) as store:
        # one reader, whatever played the match; its batch says what may be shown
        for mid, played in records.items():
            record, shown = store.read_match(mid)
            assert record.to_json() == played.to_json() and record.content_hash() == played.content_hash()
            assert shown.matches == (mid != "8-0"), mid  # "running": duplicate deals still to come
        with pytest.raises(Withheld):
            store.read_match("8-0")[1].require_match("8-0")
        assert "encounter 0 of arena 'ladder'" in store.read_match("a1-e0-0")[1].name
        # the arena's own readers read the same rows
        tables = Arenas(store)
        assert [(m.k, m.match_id, m.seating) for m in tables.matches(1)] == [(0, "a1-e0-0", 0), (1, "a1-e0-1", 1)]
        assert tables.match("a1-e0-1").record().to_json() == records["a1-e0-1"].to_json()
        assert set(tables.think_times(1)) == {"random", "heuristic"}
        assert [r.match_id for r in store.matches(7)] == ["7-0", "7-1"]
        assert store.tournament("club").done == 2

    with Store(path) as store:  # and it goes on being written: the keys still hold
        with pytest.raises(StoreError, match="already stored"):
            store.save_match(7, 1, 0, 1, records["7-1"])
        assert store.next_index(9) == 1


def test_replay_and_analyse_read_an_arena_match(tmp_path):
    path = tmp_path / "old.sqlite"
    _schema_4_store(path)
    with Store(path):
        pass  # migrated
    runner = CliRunner()
    r = runner.invoke(app, ["replay", "a1-e0-0", "--db", str(path)])
    assert r.exit_code == 0 and "verified" in r.output.lower(), r.output
    r = runner.invoke(app, ["analyse", "a1-e0-0", "--db", str(path), "--seat", "0", "--samples", "1", "--to", "2",
                            "--top", "0"])
    assert r.exit_code == 0 and "seat 0" in r.output, r.output
    r = runner.invoke(app, ["replay", "8-0", "--db", str(path)])  # a running tournament's duplicate deal: withheld
    assert r.exit_code != 0 and "was interrupted with duplicate deals" in r.output, r.output  # (nothing runs it)


def test_a_played_match_and_a_tournament_match_are_rows_of_one_table(tmp_path):
    db = tmp_path / "a.sqlite"
    record = play_local("spot", ["random"] * 4, seed=2, transport="inproc")
    name = store_play(db, record)
    with Store(db, read_only=True) as store:
        row = store.match(record.match_id)
        assert row.batch == "tournament" and store.tournament(row.tournament_id).name == name
        got, shown = store.read_match(record.match_id)
        assert got.content_hash() == record.content_hash() and shown.matches


def test_a_bots_last_matches_come_from_every_batch_newest_first_through_the_index(tmp_path):
    path = tmp_path / "old.sqlite"
    records = _schema_4_store(path)  # the migration enters the bots of every old match
    with Store(path) as store:
        fresh = _played(9, "7-2", bots=("heuristic", "random"))
        store.save_match(7, 2, 1, 0, fresh)
        got = store.bot_matches("heuristic", limit=4)
        assert [r.match_id for r in got] == ["7-2", "a1-e0-1", "a1-e0-0", "play-0"]
        assert got[0].record_json == "" and store.bot_matches("heuristic", 1, records=True)[0].record().to_json() == fresh.to_json()
        assert len(store.bot_matches("random")) == len(records) + 1 and store.bot_matches("nobody") == []
        plan = " ".join(r[-1] for r in store.db.execute(
            "EXPLAIN QUERY PLAN SELECT m.id FROM match_bots b JOIN matches m ON m.id = b.match WHERE b.bot = ? "
            "ORDER BY b.match DESC LIMIT 1000", ("random",)))
        assert "USING PRIMARY KEY (bot=?)" in plan and "TEMP B-TREE" not in plan, plan  # no scan, no sort
        store.db.execute("DELETE FROM tournaments WHERE id = 7")  # a tournament's matches go, and their index rows
        assert [r.match_id for r in store.bot_matches("heuristic")] == ["a1-e0-1", "a1-e0-0", "play-0", "8-0"]


def test_the_web_has_one_replay_reader_for_every_match(tmp_path):
    """/m/ID and an arena's /a/NAME/m/ID are one reader (``Store.read_match``): the same
    replay of an arena match under both URLs, a match of no such arena a 404, a withheld
    one a 403 with the rule's words, under either."""
    from arbiter.present import web

    path = tmp_path / "old.sqlite"
    _schema_4_store(path)
    with Store(path):
        pass  # migrated
    with Store(path, read_only=True) as store:
        plain = web.replay_page(store, "a1-e0-1", {"view": ["full"], "step": ["3"]})
        under = web.arena_replay_page(store, "ladder", "a1-e0-1", {"view": ["full"], "step": ["3"]})
        assert "a1-e0-1" in plain and "/m/a1-e0-1?" in plain and "/a/ladder/m/a1-e0-1?" in under
        strip = lambda text: text.replace("/a/ladder/m/", "/m/")  # noqa: E731 - the links differ, nothing else
        assert strip(under).count("data-card") == plain.count("data-card") > 0
        # the way home is the arena's leaderboard under either URL (its crumbs named only the match)
        home = '/ <a href="/a">arenas</a> / <a href="/a/ladder">ladder</a> / a1-e0-1</span>'
        assert home in plain and home in under
        assert '/ <a href="/t/7">club</a> / 7-0</span>' in web.replay_page(store, "7-0", {})
        # and the inspector's lead there too, as a seat and as the spectator (they named only the match)
        from arbiter.present import inspector
        for q in ({"seat": ["0"]}, {"seat": ["spectator"]}):
            assert '<span class="crumbs">/ <a href="/a/ladder">ladder</a> / <a href="/m/a1-e0-1?view=' in \
                inspector.inspect_page(store, "a1-e0-1", q, "n0nce")
            assert '<span class="crumbs">/ <a href="/t/7">club</a> / <a href="/m/7-0?view=' in \
                inspector.inspect_page(store, "7-0", q, "n0nce")
        for page, args in ((web.arena_replay_page, (store, "ladder", "7-0")), (web.replay_page, (store, "nope"))):
            with pytest.raises(web.PageError) as missing:
                page(*args, {})
            assert missing.value.status == 404
        with pytest.raises(web.PageError) as withheld:
            web.replay_page(store, "8-0", {})
        assert withheld.value.status == 403 and "was interrupted with duplicate deals" in str(withheld.value)


def test_a_record_that_cannot_be_read_for_its_times_is_named(tmp_path):
    """The think times are summed in SQLite over every record of a batch: one record that is
    not JSON (damaged by hand, or by a disk) makes the sum fail, and the error names it."""
    path = tmp_path / "s.sqlite"
    for seed in (1, 2):
        batch = store_play(path, play_local("spades", ["random"] * 4, seed=seed, options={"deals": 1}, transport="inproc"))
    with Store(path, read_only=True) as store:
        tid = store.tournament(batch).id
        bad = store.matches(tid)[1].match_id
        assert set(store.think_times(tid)) == {"random"}
    # (a copy: this process has read the times of the file's matches, and does not read a
    # record twice: tests/cli/test_latency.py, test_a_matchs_times_are_read_from_its_record_once)
    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(path, damaged)
    with sqlite3.connect(damaged) as conn:
        conn.execute("UPDATE matches SET record = '{not json' WHERE match_id = ?", (bad,))
    with Store(damaged, read_only=True) as store:
        with pytest.raises(StoreError, match=f"cannot be read for their times \\(match {bad}'s, and maybe others'\\)"):
            store.think_times(tid)


def test_a_semicolon_in_a_comment_of_the_schema_breaks_neither_a_new_store_nor_a_migration(tmp_path, monkeypatch):
    """The schema's statements are read as SQLite reads them: a ";" in one of its comments
    (above a statement, inside the matches table the migration copies, inside match_bots) is
    a comment's, and a new store and a schema-4 store open as they do without it."""
    from arbiter.store import db as store_db

    schema = (store_db._SCHEMA
              .replace("-- Schema 5: ONE table", "-- Schema 5 (a comment; with a semicolon): ONE table")
              .replace("-- why it ended, in words", "-- why it ended; in words")
              .replace("bot TEXT NOT NULL,", "bot TEXT NOT NULL,  -- its name; as in seats"))
    assert schema.count(";") == store_db._SCHEMA.count(";") + 3
    monkeypatch.setattr(store_db, "_SCHEMA", schema)
    with Store(tmp_path / "new.sqlite") as store:
        tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert {"matches", "match_bots", "verdicts", "arenas"} <= tables
    path = tmp_path / "old.sqlite"
    records = _schema_4_store(path)
    with Store(path) as store:
        assert store.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(SCHEMA_VERSION)
        assert [r.match_id for r in store.bot_matches("random")] == list(reversed(records))
    assert _rows(path, "PRAGMA foreign_key_check") == [] and _rows(path, "PRAGMA integrity_check") == [("ok",)]
