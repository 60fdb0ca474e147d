"""The SQLite store: matches committed one by one, resume, locking, corrupt files."""

from __future__ import annotations

import asyncio
import os

import pytest

from arbiter.hosting.inprocess import InProcessSeat
from cardarena.records import MatchConfig
from arbiter.match import run_match
from arbiter.store.db import SCHEMA_VERSION, Store, StoreError
from bots.random_bot import RandomBot


def a_record(seed=1):
    return asyncio.run(run_match(MatchConfig("spades", seed, {"deals": 1}), [InProcessSeat(RandomBot())] * 4))


def test_matches_are_saved_and_read_back(tmp_path):
    db = tmp_path / "a.sqlite"
    with Store(db) as store:
        t = store.open_tournament("t1", "spades", {"x": 1})
        rec = a_record()
        store.save_match(t.id, 0, 0, 0, rec)
        assert store.done_indices(t.id) == {0}
    with Store(db) as store:  # a new connection sees the committed row
        [row] = store.matches(store.tournament("t1").id)
        assert row.outcome == rec.outcome and row.record() == rec
        assert store.match(rec.match_id).seats == rec.seat_names
        with pytest.raises(Exception):
            store.save_match(t.id, 0, 0, 0, rec)  # an index is never counted twice


def test_a_failing_seats_stderr_tail_is_on_the_match_rows_incidents(tmp_path):
    """Every reader of the match rows (tournament show --failures, the web page) gets the
    bot's own words, not only the readers of the whole record."""
    from cardarena.records import Incident

    rec = a_record()
    rec.incidents.append(Incident(2, "crash", "choose raised RuntimeError: out of ideas", "Traceback ...\nRuntimeError: out of ideas"))
    rec.incidents.append(Incident(1, "timeout", "no answer in 10 ms"))
    with Store(tmp_path / "a.sqlite") as store:
        t = store.open_tournament("t1", "spades", {"x": 1})
        store.save_match(t.id, 0, 0, 0, rec)
        [row] = store.matches(t.id)
    assert row.incidents == tuple(rec.incidents)
    assert row.incidents[0].stderr.endswith("RuntimeError: out of ideas") and row.incidents[1].stderr == ""


def test_resuming_with_a_different_spec_is_refused(tmp_path):
    with Store(tmp_path / "a.sqlite") as store:
        t = store.open_tournament("t1", "spades", {"deals": 2})
        store.save_match(t.id, 0, 0, 0, a_record())
        assert store.open_tournament("t1", "spades", {"deals": 2}).id == t.id  # same spec resumes
        with pytest.raises(StoreError, match="different spec.*--fresh"):
            store.open_tournament("t1", "spades", {"deals": 3})
        fresh = store.open_tournament("t1", "spades", {"deals": 3}, fresh=True)
        assert store.matches(fresh.id) == []


def test_two_runs_cannot_write_one_file(tmp_path):
    db = tmp_path / "a.sqlite"
    with Store(db) as first, Store(db) as second:
        first.lock()
        with pytest.raises(StoreError, match="another run is writing"):
            second.lock()
        first.unlock()
        second.lock()


def test_two_runs_cannot_write_one_file_through_a_symlink_to_it_either(tmp_path):
    """``--db link.sqlite`` (a symlink to the store) and ``--db data/a.sqlite`` are one
    store: one lock. Before, each path had its own ``.lock`` beside it, both runs played,
    and the second died on "match 0 of tournament 1 is already stored"."""
    (tmp_path / "data").mkdir()
    db = tmp_path / "data" / "a.sqlite"
    (tmp_path / "link.sqlite").symlink_to(db)
    with Store(db) as first, Store(tmp_path / "link.sqlite") as second:
        first.lock()
        with pytest.raises(StoreError, match="another run is writing .*link.sqlite"):
            second.lock()


def test_a_corrupt_file_is_a_clear_error_and_is_left_alone(tmp_path):
    db = tmp_path / "junk.sqlite"
    db.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="not a usable store"):
        Store(db)
    assert db.read_bytes().startswith(b"this is not a database")


def test_unknown_tournament_and_match(tmp_path):
    with Store(tmp_path / "a.sqlite") as store:
        with pytest.raises(StoreError, match="no tournaments"):
            store.tournament()
        with pytest.raises(StoreError, match="no tournament 'x'"):
            store.tournament("x")
        with pytest.raises(StoreError, match="no match 'm'"):
            store.match("m")


def test_a_corrupt_row_is_reported_not_crashed_on(tmp_path):
    with Store(tmp_path / "a.sqlite") as store:
        t = store.open_tournament("t1", "spades", {})
        rec = a_record()
        store.save_match(t.id, 0, 0, 0, rec)
        store.db.execute("UPDATE matches SET ranks = 'garbage'")
        with pytest.raises(StoreError, match="corrupt"):
            store.matches(t.id)


def test_a_schema_1_file_is_migrated_in_place(tmp_path):
    import sqlite3

    db = tmp_path / "old.sqlite"
    with sqlite3.connect(db) as c:  # the first cut's schema, with one tournament
        c.executescript(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO meta VALUES ('schema', '1');"
            "CREATE TABLE tournaments (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, game TEXT NOT NULL,"
            " spec TEXT NOT NULL, created REAL NOT NULL, finished REAL);"
            "CREATE TABLE matches (tournament_id INTEGER NOT NULL, idx INTEGER NOT NULL, match_id TEXT NOT NULL,"
            " deal INTEGER NOT NULL, rotation INTEGER NOT NULL, seed INTEGER NOT NULL, seats TEXT NOT NULL,"
            " scores TEXT NOT NULL, ranks TEXT NOT NULL, reason TEXT NOT NULL, detail TEXT NOT NULL, record TEXT NOT NULL,"
            " finished REAL NOT NULL, PRIMARY KEY (tournament_id, idx));"
            "INSERT INTO tournaments VALUES (1, 'old', 'spades', '{}', 0, NULL);"
        )
    with Store(db) as store:
        t = store.tournament("old")
        assert (t.planned, t.done) == (0, 0)
        rec = a_record()
        store.save_match(t.id, 0, 0, 0, rec, round=1, table=2, sides=("random", "random"))
        [row] = store.matches(t.id)
        assert (row.round, row.table, row.sides, row.decisions) == (1, 2, ("random", "random"), len(rec.actions))
        assert store.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == str(SCHEMA_VERSION)
        seed = store.secret_seed(t.id)  # schema 3's column, drawn once and kept
        assert seed == store.secret_seed(t.id) and 0 <= seed < 2**62


def test_a_secret_seed_is_drawn_once_per_tournament_and_differs_between_them(tmp_path):
    with Store(tmp_path / "a.sqlite") as store:
        a = store.open_tournament("a", "spades", {})
        b = store.open_tournament("b", "spades", {})
        seeds = store.secret_seed(a.id), store.secret_seed(b.id)
        assert seeds[0] != seeds[1]
    with Store(tmp_path / "a.sqlite") as store:  # reopened: the same seeds
        assert (store.secret_seed(a.id), store.secret_seed(b.id)) == seeds
        with pytest.raises(StoreError, match="no tournament 99"):
            store.secret_seed(99)


def test_a_newer_schema_is_refused(tmp_path):
    db = tmp_path / "new.sqlite"
    with Store(db) as store:
        store.db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(StoreError, match="newer than this arbiter"):
        Store(db)


def test_a_read_only_store_reads_and_cannot_write(tmp_path):
    import sqlite3

    db = tmp_path / "ro.sqlite"
    with Store(db) as store:
        t = store.open_tournament("t1", "spades", {})
        store.save_match(t.id, 0, 0, 0, a_record())
    with Store(db, read_only=True) as ro:
        assert len(ro.matches(ro.tournament("t1").id)) == 1
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            ro.db.execute("DELETE FROM matches")
    with pytest.raises(StoreError, match="not a readable store"):
        Store(tmp_path / "missing.sqlite", read_only=True)


def test_append_match_takes_the_index_after_the_last_one_as_it_writes(tmp_path):
    """A batch of single matches is appended to in one transaction (the index read where it
    is written), whoever else wrote meanwhile (tests/e2e/test_store_concurrency.py)."""
    rec = a_record()
    with Store(tmp_path / "a.sqlite") as first, Store(tmp_path / "a.sqlite") as second:
        t = first.single_batch("play:spades", "spades", {"duplicate": False})
        assert first.append_match(t.id, rec) == 0
        assert second.append_match(t.id, rec) == 1
        assert first.append_match(t.id, rec) == 2
        assert sorted(first.done_indices(t.id)) == [0, 1, 2]
        # each single match a deal of its own: at deal 0 all, the standings counted the batch as
        # one deal (never an interval) and the dataset export called them one deal's seatings
        assert [(m.idx, m.deal, m.rotation) for m in first.matches(t.id, records=False)] == [(0, 0, 0), (1, 1, 0), (2, 2, 0)]


def test_a_store_locked_past_the_timeout_is_called_busy_not_damaged(tmp_path) -> None:
    """SQLite's "database is locked" after the 30 s timeout read "is not a usable store: database is
    locked", as if the file were damaged; it is only busy (the wait itself is too long for a test)."""
    import sqlite3

    from arbiter.store.db import store_error

    err = store_error(tmp_path / "a.sqlite", sqlite3.OperationalError("database is locked"))
    assert "is busy: another process kept it locked" in str(err) and "not a usable store" not in str(err)
    assert "nothing in it is damaged" in str(err)


def test_reads_in_a_snapshot_see_the_store_as_the_first_one_did(tmp_path):
    """``standings`` reads a tournament's matches, its header and its think times in three
    queries: in a ``snapshot`` a match stored by a run meanwhile is in none of them (before,
    the table and the times could differ by a match), and seen once the snapshot ends."""
    rec = a_record()
    db = tmp_path / "a.sqlite"
    with Store(db) as writer:
        t = writer.open_tournament("t1", "spades", {"x": 1})
        writer.save_match(t.id, 0, 0, 0, rec)
        with Store(db, read_only=True) as reader:
            with reader.snapshot():
                assert len(reader.matches(t.id)) == 1
                writer.save_match(t.id, 1, 0, 1, rec)  # a run stores another meanwhile
                assert len(reader.matches(t.id)) == 1 and sum(x.decisions for x in reader.think_times(t.id).values()) \
                    == sum(x.decisions for x in writer.think_times(t.id).values()) / 2
                with reader.snapshot():  # nested: the outer one holds
                    assert len(reader.matches(t.id)) == 1
            assert len(reader.matches(t.id)) == 2


def _others_bits(path) -> int:
    return path.stat().st_mode & 0o007


def test_the_store_is_not_readable_by_other_users_and_so_by_no_sandboxed_bot(tmp_path):
    # A hosted bot runs under a uid of its own and sees /usr, the Python installation, the
    # packages and its own folder: a store that lies there (a Docker WORKDIR under /usr, a
    # folder bot's folder) was read by it, with the stored twin seatings of the deals it
    # plays (tests/e2e/test_hostile_resources.py shows the bot's side). Files made by any
    # umask leave other users nothing; the group keeps reading (a web server of its own).
    old = os.umask(0o002)
    try:
        db = tmp_path / "a.sqlite"
        with Store(db) as store:
            t = store.open_tournament("t1", "spades", {"x": 1})
            store.save_match(t.id, 0, 0, 0, a_record())
            files = [db, tmp_path / "a.sqlite-wal", tmp_path / "a.sqlite-shm"]
            assert all(p.exists() for p in files)
            assert {p.name: oct(_others_bits(p)) for p in files} == {p.name: "0o0" for p in files}
            assert db.stat().st_mode & 0o060 == 0o060  # the group still reads (and writes, as the umask says)
        # a store made world-readable before (an older arbiter, a copy) is closed to others
        # the next time the arbiter writes it
        db.chmod(0o644)
        with Store(db):
            assert _others_bits(db) == 0
    finally:
        os.umask(old)
