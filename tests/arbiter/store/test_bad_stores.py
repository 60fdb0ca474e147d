"""Stores a user may meet that are not what the arbiter wrote, or cannot take a write: each is
refused with the file named and what is wrong, and never changed by the refusal."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from arbiter.store.db import Store, StoreError
from arbiter.store.registry import Registry, RegistryError


def _foreign(path):
    """Another program's SQLite database (a browser's history, an app's settings)."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
    db.execute("INSERT INTO moz_places (url) VALUES ('https://example.org')")
    db.commit()
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize("opener", [Store, Registry], ids=["store", "registry"])
def test_another_programs_sqlite_database_is_refused_and_left_as_it_was(tmp_path, opener):
    path = tmp_path / "places.sqlite"
    before = _foreign(path)
    path.chmod(0o644)
    with pytest.raises((StoreError, RegistryError)) as exc:
        opener(path)
    text = str(exc.value)
    assert str(path) in text and "moz_places" in text and "not an arena store" in text
    assert path.read_bytes() == before  # no table of ours added to another program's file
    assert path.stat().st_mode & 0o777 == 0o644  # nor its mode changed (a store is closed to others)
    assert not (tmp_path / "places.sqlite-wal").exists() or (tmp_path / "places.sqlite-wal").stat().st_size == 0


def test_another_programs_database_read_only_is_named_as_such(tmp_path):
    path = tmp_path / "places.sqlite"
    _foreign(path)
    with pytest.raises(StoreError, match="not an arena store"):
        Store(path, read_only=True)


def test_a_store_with_only_the_registrys_tables_is_one_of_ours(tmp_path):
    """``bots submit`` before any match: the file holds the registry's tables alone."""
    path = tmp_path / "a.sqlite"
    Registry(path).close()
    Store(path).close()
    Registry(path).close()


def _store_of_three(path, schema: str | None = None):
    """A store at ``path`` with a finished tournament of three matches; ``schema``: the schema
    version its meta row then says, written over (a store of another arbiter, or damaged)."""
    from tests.arbiter.store.test_store import a_record

    with Store(path) as store:
        t = store.open_tournament("t1", "spades", {"bots": ["random"], "deals": 3, "duplicate": False, "game": "spades",
                                                   "name": "t1", "options": {"deals": 1}})
        for i in range(3):
            store.save_match(t.id, i, i, 0, a_record(i + 1))
        store.mark_finished(t.id)
    if schema is not None:
        with contextlib.closing(sqlite3.connect(path)) as db, db:
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (schema,))
    return t.id


def test_a_full_disk_mid_run_names_the_file_and_keeps_what_was_stored(tmp_path):
    """SQLite's own limit on the file's size (``max_page_count``) is a real SQLITE_FULL, as a
    full disk gives: the match that did not fit is refused in words, the others stay."""
    from tests.arbiter.store.test_store import a_record

    path = tmp_path / "a.sqlite"
    tid = _store_of_three(path)
    with Store(path) as store:
        (pages,) = store.db.execute("PRAGMA page_count").fetchone()
        store.db.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(StoreError) as exc:
            for i in range(3, 40):
                store.save_match(tid, i, i, 0, a_record(i + 1))
        text = str(exc.value)
        assert str(path) in text and "full" in text and "kept" in text and "not a usable store" not in text
    with Store(path, read_only=True) as store:
        assert store.done_indices(tid) >= {0, 1, 2}
        assert store.db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_a_store_damaged_inside_is_named_by_the_commands_that_meet_the_damage(tmp_path):
    """A file that opens, and fails only where a read reaches a damaged page (a disk's bad
    block, a copy cut short and patched): the error names the file."""
    from typer.testing import CliRunner

    from arbiter.cli import app

    path = tmp_path / "a.sqlite"
    _store_of_three(path)
    data = bytearray(path.read_bytes())
    size = 4096  # the page size
    pages = [p for p in range(1, len(data) // size)  # the matches' rows: table leaves (0x0d) holding records
             if data[p * size] == 0x0D and b'"actions"' in data[p * size:(p + 1) * size]]
    assert pages
    for p in pages:
        data[p * size] = 0xFF  # no page type: SQLite finds the damage where it reads them, not on opening
    path.write_bytes(bytes(data))
    for args in (["standings", "t1"], ["tournament", "show", "t1"], ["export", "--decisions", "-o", str(tmp_path / "o.parquet")]):
        result = CliRunner().invoke(app, [*args, "--db", str(path)])
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output and str(path) in result.output.replace("\n", ""), (args, result.output)


def test_a_record_whose_text_is_damaged_is_named_with_its_file(tmp_path):
    from typer.testing import CliRunner

    from arbiter.cli import app

    path = tmp_path / "a.sqlite"
    _store_of_three(path)
    db = sqlite3.connect(path)
    db.execute("UPDATE matches SET record = substr(record, 1, 100) WHERE idx = 1")  # cut short
    db.commit()
    db.close()
    result = CliRunner().invoke(app, ["standings", "t1", "--db", str(path)])
    assert result.exit_code == 2 and str(path) in result.output.replace("\n", ""), result.output


@pytest.mark.parametrize("opener", [Store, Registry], ids=["store", "registry"])
def test_a_folder_given_as_the_store_is_named_a_folder_by_every_writer(tmp_path, opener):
    with pytest.raises((StoreError, RegistryError), match="is a folder, not a store file"):
        opener(tmp_path)


def test_an_unreadable_schema_version_is_named_as_such_by_readers_as_by_writers(tmp_path):
    """Not 'no tournament has been stored in it': its tournaments are there."""
    path = tmp_path / "a.sqlite"
    _store_of_three(path, schema="five")
    for read_only in (True, False):
        with pytest.raises(StoreError, match="unreadable schema version.*five"):
            Store(path, read_only=read_only)


@pytest.mark.parametrize("read_only", [False, True], ids=["write", "read"])
def test_the_registry_refuses_a_store_of_a_newer_schema_as_the_store_does(tmp_path, read_only):
    """A newer arbiter may have changed the registry's tables too: this one neither adds its
    own to such a file nor reads it as if they were its own."""
    path = tmp_path / "a.sqlite"
    _store_of_three(path, schema="99")
    before = path.read_bytes()
    with pytest.raises(RegistryError, match=r"schema version 99 is newer than this arbiter"):
        Registry(path, read_only=read_only)
    assert path.read_bytes() == before


def test_a_folder_given_to_the_readers_is_named_a_folder_not_a_missing_store(tmp_path):
    """'no store at FOLDER (run a tournament first)' sent the user to make one there."""
    from typer.testing import CliRunner

    from arbiter.cli import app
    from arbiter.present.web import check_store

    with pytest.raises(StoreError, match="is a folder, not a store file"):
        check_store(tmp_path)
    for args in (["standings"], ["tournament", "list"], ["export", "--decisions", "-o", str(tmp_path / "o.parquet")]):
        result = CliRunner().invoke(app, [*args, "--db", str(tmp_path)])
        assert result.exit_code == 2 and "is a folder, not a store file" in result.output, (args, result.output)


def test_a_full_disk_under_an_arena_names_the_file(tmp_path):
    """The ladder's writes are the store's: a full disk is said as for a tournament's."""
    from arbiter.store.arenas import Arenas

    path = tmp_path / "a.sqlite"
    with Store(path) as store:
        arenas = Arenas(store)
        arenas.open_arena("first", "spot", {"game": "spot"})
        (pages,) = store.db.execute("PRAGMA page_count").fetchone()
        store.db.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(StoreError) as exc:
            arenas.open_arena("second", "spot", {"game": "spot", "note": "x" * 100_000})
        assert str(path) in str(exc.value) and "full" in str(exc.value)
        assert [a.name for a in arenas.arenas()] == ["first"]


@pytest.mark.parametrize("target", ["gone/a.sqlite", "loop"], ids=["missing-folder", "loop"])
def test_a_symlink_to_nowhere_is_named_as_one_not_as_a_read_only_folder(tmp_path, target):
    """'cannot be created: its folder is read-only' of a folder one can write sent the user
    looking at permissions; it is the link that leads nowhere."""
    link = tmp_path / "loop" if target == "loop" else tmp_path / "a.sqlite"
    link.symlink_to(tmp_path / target)
    with pytest.raises(StoreError) as exc:
        Store(link)
    text = str(exc.value)
    assert str(link) in text and "symbolic link" in text and "read-only" not in text, text


def test_resuming_a_tournament_of_a_schema_4_store_migrates_it_as_the_message_says(tmp_path):
    """Readers refuse a schema-4 store, saying that a command that writes to it (tournament
    run) migrates it; tournament run --resume refused it with the same words."""
    import json
    from pathlib import Path

    from typer.testing import CliRunner

    from arbiter.cli import app

    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript((Path(__file__).parent / "data" / "schema4.sql").read_text())
    db.execute("INSERT INTO meta VALUES ('schema', '4')")
    spec = {"bank_ms": 60000, "bots": ["random", "random"], "challenger": None, "deals": 1, "decision_ms": 10000,
            "duplicate": False, "format": "round-robin", "game": "spot", "max_strikes": 3, "name": "club",
            "options": {"hands": 1}, "policy": "forfeit", "preset": None, "seatings": "rotations", "seed": 3, "teams": []}
    db.execute("INSERT INTO tournaments (name, game, spec, created, planned) VALUES ('club', 'spot', ?, 0, 0)",
               (json.dumps(spec),))
    db.commit()
    db.close()
    result = CliRunner().invoke(app, ["tournament", "run", "--resume", "club", "--db", str(path), "--transport", "inproc", "-q"])
    assert "too old" not in result.output and result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["standings", "club", "--db", str(path)])
    assert result.exit_code == 0, result.output


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="runs a writer as another user: needs root")
def test_a_writer_refused_a_store_it_may_not_write_leaves_nothing_beside_it():
    """Another user's store (readable, not writable by this one): SQLite made its -wal and
    -shm, this user's, before it refused the write, and the owner's next run then failed
    ('unable to open database file') on its own store. The writer runs as nobody in this
    process (``unprivileged``: a process started as nobody could not import a checkout in
    root's home, as a CI clone may be)."""
    import tempfile

    from tests.cli.badinput import unprivileged

    folder = Path(tempfile.mkdtemp(prefix="arena-other-"))  # tmp_path's parents are closed to others
    try:
        folder.chmod(0o777)
        path = folder / "a.sqlite"
        _store_of_three(path)
        path.chmod(0o644)
        with unprivileged(), pytest.raises(StoreError) as refused:
            Store(path)
        assert "is read-only" in str(refused.value) and str(path) in str(refused.value), refused.value
        assert sorted(p.name for p in folder.iterdir()) == ["a.sqlite"]
        Store(path).close()  # the owner's store still opens for writing
    finally:
        shutil.rmtree(folder)


def test_a_read_stays_whole_when_a_run_starts_writing_the_store_during_it(tmp_path):
    """A reader of a store with no writer at work (no -wal) opened it immutable, which
    promises SQLite that nothing will change it: a run starting meanwhile folded its commits
    into the file (a checkpoint at its close), and the reader's next query met pages of two
    versions: "database disk image is malformed" (a page of the web server while a
    tournament began on its store). A store of this user's is read as a normal read-only
    connection, which sees each commit whole."""
    from tests.arbiter.store.test_store import a_record

    path = tmp_path / "a.sqlite"
    tid = _store_of_three(path)
    record = a_record(7)
    with Store(path, read_only=True) as reader:
        assert len(reader.matches(tid)) == 3  # its pages read, and cached
        with Store(path) as writer:  # a run starts, stores its matches, ends
            t2 = writer.open_tournament("t2", "spades", {"bots": ["random"], "deals": 300, "duplicate": False,
                                                         "game": "spades", "name": "t2", "options": {"deals": 1}})
            for i in range(300):
                writer.save_match(t2.id, i, i, 0, record)
            writer.mark_finished(t2.id)
        assert [m.match_id for m in reader.matches(tid)] == [m.match_id for m in Store(path, read_only=True).matches(tid)]
        assert len(reader.matches(t2.id)) == 300
