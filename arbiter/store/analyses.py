"""Stored analyses: a seat's decisions valued once (``arbiter.analysis.stored``), kept so
that pages and the CLI reuse them instead of sampling again.

One row per (match id, seat, settings): ``settings`` is the analysis's canonical settings
text (samples, seed, max actions), ``rows`` its decisions as JSON. The table is created by
the first write (``CREATE TABLE IF NOT EXISTS``): a store never analysed has none, and a
reader (read-only) then finds nothing stored. Writing takes no run lock: one row is
replaced in one transaction, so a run writing matches to the same file is not disturbed.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from arbiter.store.db import Store, StoreError, transaction

__all__ = ["StoredRow", "save_analysis", "load_analysis", "analysed", "recent_analyses"]

_TABLE = """CREATE TABLE IF NOT EXISTS analyses (
    match_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    settings TEXT NOT NULL,      -- the analysis's settings, canonical text (samples, seed, max actions)
    created REAL NOT NULL,
    rows TEXT NOT NULL,          -- JSON list: the seat's decisions valued (arbiter.analysis.stored)
    PRIMARY KEY (match_id, seat, settings)
)"""


@dataclass(frozen=True)
class StoredRow:
    """One stored analysis: its key, when it was made, and its decisions as JSON text."""

    match_id: str
    seat: int
    settings: str
    created: float
    rows_json: str


def _has_table(store: Store) -> bool:
    return store.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'analyses'").fetchone() is not None


def save_analysis(store: Store, match_id: str, seat: int, settings: str, rows_json: str) -> None:
    """Store (or replace) the analysis of ``seat`` in ``match_id`` under ``settings``.
    StoreError if the store cannot be written (a read-only one)."""
    try:
        with transaction(store.db) as db:
            db.execute(_TABLE)
            db.execute("INSERT OR REPLACE INTO analyses VALUES (?, ?, ?, ?, ?)",
                       (match_id, seat, settings, time.time(), rows_json))
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{store.path}: the analysis of match {match_id!r} seat {seat} cannot be stored: {exc}") from None


def load_analysis(store: Store, match_id: str, seat: int, settings: str | None = None,
                  prefix: str = "") -> StoredRow | None:
    """The stored analysis of ``seat`` in ``match_id`` under ``settings`` (None: the newest
    under any whose settings begin with ``prefix``), or None if there is none."""
    if not _has_table(store):
        return None
    sql = "SELECT match_id, seat, settings, created, rows FROM analyses WHERE match_id = ? AND seat = ?"
    params: tuple = (match_id, seat)
    if settings is not None:
        sql += " AND settings = ?"
        params += (settings,)
    sql, params = _with_prefix(sql, params, prefix)
    r = store.db.execute(sql + " ORDER BY created DESC LIMIT 1", params).fetchone()
    return StoredRow(*r) if r else None


def analysed(store: Store, match_ids: list[str], prefix: str = "") -> list[StoredRow]:
    """Every stored analysis of the given matches (any seat; any settings, or those that
    begin with ``prefix``), newest first."""
    if not match_ids or not _has_table(store):
        return []
    out: list[StoredRow] = []
    for i in range(0, len(match_ids), 500):
        chunk = match_ids[i:i + 500]
        sql, params = _with_prefix("SELECT match_id, seat, settings, created, rows FROM analyses "
                                   f"WHERE match_id IN ({','.join('?' * len(chunk))})", tuple(chunk), prefix)
        out += [StoredRow(*r) for r in store.db.execute(sql + " ORDER BY created DESC", params)]
    return out


def _with_prefix(sql: str, params: tuple, prefix: str) -> tuple[str, tuple]:
    """``sql`` (a WHERE clause's query) and its ``params``, kept to settings beginning with
    ``prefix`` (none: as they are)."""
    if not prefix:
        return sql, params
    return sql + " AND substr(settings, 1, ?) = ?", params + (len(prefix), prefix)


def recent_analyses(store: Store, limit: int) -> list[tuple[str, int]]:
    """The (match id, seat) of the ``limit`` newest stored analyses (any settings), newest first."""
    if limit < 1 or not _has_table(store):
        return []
    return [(m, s) for m, s in store.db.execute(
        "SELECT match_id, seat FROM analyses GROUP BY match_id, seat ORDER BY MAX(created) DESC LIMIT ?", (limit,))]
