"""Stores a user may meet that are not what the arbiter wrote, or cannot take a write: each is
refused with the file named and what is wrong, and never changed by the refusal."""

from __future__ import annotations

import sqlite3

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
    with pytest.raises((StoreError, RegistryError)) as exc:
        opener(path)
    text = str(exc.value)
    assert str(path) in text and "moz_places" in text and "not an arena store" in text
    assert path.read_bytes() == before  # no table of ours added to another program's file
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
