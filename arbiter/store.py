"""The SQLite store: tournaments, their scheduled matches and results, match records.

One file (default ``arena.sqlite`` in the current directory, ``--db`` to change). Every
finished match is committed in its own transaction as it ends, so a run that is killed
loses no finished match; a match either has its full result row or counts as not played.
A run holds an exclusive lock on ``<db>.lock`` so that two runs never write one file.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from arbiter.games import EndReason, Outcome
from arbiter.match import MatchRecord

DEFAULT_DB = "arena.sqlite"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    spec TEXT NOT NULL,          -- JSON: everything that defines the schedule and matches
    created REAL NOT NULL,
    finished REAL                -- NULL while matches are missing
);
CREATE TABLE IF NOT EXISTS matches (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,        -- position in the schedule
    match_id TEXT NOT NULL,
    deal INTEGER NOT NULL,       -- which deal seed of the tournament
    rotation INTEGER NOT NULL,   -- which seating of that deal
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,         -- JSON list: bot name per seat
    scores TEXT NOT NULL,        -- JSON list per seat
    ranks TEXT NOT NULL,         -- JSON list per seat
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,        -- why it ended, in words
    record TEXT NOT NULL,        -- JSON MatchRecord: replays the match
    finished REAL NOT NULL,
    PRIMARY KEY (tournament_id, idx)
);
CREATE INDEX IF NOT EXISTS matches_by_id ON matches(match_id);
"""


class StoreError(Exception):
    """The store file is unusable (corrupt, newer schema, locked); the message says how."""


@dataclass(frozen=True)
class TournamentRow:
    id: int
    name: str
    game: str
    spec: dict[str, Any]
    created: float
    finished: float | None


@dataclass(frozen=True)
class MatchRow:
    tournament_id: int
    idx: int
    match_id: str
    deal: int
    rotation: int
    seed: int
    seats: tuple[str, ...]
    outcome: Outcome
    record_json: str

    def record(self) -> MatchRecord:
        return MatchRecord.from_json(self.record_json)


class Store:
    """A connection to one store file. Use as a context manager."""

    def __init__(self, path: str | os.PathLike = DEFAULT_DB):
        self.path = Path(path)
        try:
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
            self.db.executescript(_SCHEMA)
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None:
                self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: schema version {row[0]} is newer than this arbiter ({SCHEMA_VERSION})")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a usable store: {exc}") from None
        self._lock_file: Any = None

    def close(self) -> None:
        self.unlock()
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- run lock ------------------------------------------------------------------------

    def lock(self) -> None:
        """Take the exclusive run lock; StoreError at once if another run holds it."""
        f = open(f"{self.path}.lock", "a+")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.close()
            raise StoreError(f"another run is writing {self.path} (lock {self.path}.lock held); wait for it or use another --db") from None
        f.seek(0)
        f.truncate()
        f.write(str(os.getpid()))
        f.flush()
        self._lock_file = f

    def unlock(self) -> None:
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # -- tournaments -----------------------------------------------------------------------

    def open_tournament(self, name: str, game: str, spec: dict[str, Any], fresh: bool = False) -> TournamentRow:
        """The tournament ``name``: created, or resumed if its spec is the same.

        StoreError if a tournament of that name exists with a different spec (resuming it
        would mix two schedules), unless ``fresh`` (then it is deleted and recreated).
        """
        spec_json = json.dumps(spec, sort_keys=True)
        with self._tx() as db:
            row = db.execute("SELECT id, spec FROM tournaments WHERE name = ?", (name,)).fetchone()
            if row is not None and fresh:
                db.execute("DELETE FROM tournaments WHERE id = ?", (row[0],))
                row = None
            if row is not None and row[1] != spec_json:
                raise StoreError(
                    f"tournament {name!r} already exists in {self.path} with a different spec; "
                    "use --fresh to replace it or --name to start another"
                )
            if row is None:
                db.execute(
                    "INSERT INTO tournaments (name, game, spec, created) VALUES (?, ?, ?, ?)",
                    (name, game, spec_json, time.time()),
                )
        return self.tournament(name)

    def tournament(self, name_or_id: str | int | None = None) -> TournamentRow:
        """By name or id; the newest when None. StoreError if there is none."""
        if name_or_id is None:
            row = self.db.execute("SELECT * FROM tournaments ORDER BY id DESC LIMIT 1").fetchone()
        elif isinstance(name_or_id, int) or str(name_or_id).isdigit():
            row = self.db.execute("SELECT * FROM tournaments WHERE id = ? OR name = ?", (int(name_or_id), str(name_or_id))).fetchone()
        else:
            row = self.db.execute("SELECT * FROM tournaments WHERE name = ?", (name_or_id,)).fetchone()
        if row is None:
            what = "no tournaments" if name_or_id is None else f"no tournament {name_or_id!r}"
            raise StoreError(f"{what} in {self.path}")
        try:
            spec = json.loads(row[3])
        except json.JSONDecodeError as exc:
            raise StoreError(f"tournament {row[1]!r}: corrupt spec: {exc}") from None
        return TournamentRow(row[0], row[1], row[2], spec, row[4], row[5])

    def tournaments(self) -> list[TournamentRow]:
        ids = [r[0] for r in self.db.execute("SELECT id FROM tournaments ORDER BY id")]
        return [self.tournament(i) for i in ids]

    def mark_finished(self, tournament_id: int) -> None:
        with self._tx() as db:
            db.execute("UPDATE tournaments SET finished = ? WHERE id = ?", (time.time(), tournament_id))

    # -- matches ---------------------------------------------------------------------------

    def save_match(self, tournament_id: int, idx: int, deal: int, rotation: int, record: MatchRecord) -> None:
        """Commit one finished match (atomically; a duplicate index is an error)."""
        assert record.outcome is not None
        o = record.outcome
        with self._tx() as db:
            db.execute(
                "INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    tournament_id, idx, record.match_id, deal, rotation, record.seed,
                    json.dumps(list(record.seat_names)), json.dumps(list(o.scores)), json.dumps(list(o.ranks)),
                    o.reason.value, o.detail, record.to_json(), time.time(),
                ),
            )

    def done_indices(self, tournament_id: int) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT idx FROM matches WHERE tournament_id = ?", (tournament_id,))}

    def matches(self, tournament_id: int) -> list[MatchRow]:
        rows = self.db.execute(
            "SELECT tournament_id, idx, match_id, deal, rotation, seed, seats, scores, ranks, reason, detail, record "
            "FROM matches WHERE tournament_id = ? ORDER BY idx",
            (tournament_id,),
        ).fetchall()
        return [self._match_row(r) for r in rows]

    def match(self, match_id: str) -> MatchRow:
        r = self.db.execute(
            "SELECT tournament_id, idx, match_id, deal, rotation, seed, seats, scores, ranks, reason, detail, record "
            "FROM matches WHERE match_id = ?",
            (match_id,),
        ).fetchone()
        if r is None:
            raise StoreError(f"no match {match_id!r} in {self.path}")
        return self._match_row(r)

    def _match_row(self, r: tuple) -> MatchRow:
        try:
            outcome = Outcome(tuple(json.loads(r[7])), tuple(json.loads(r[8])), EndReason(r[9]), r[10])
            return MatchRow(r[0], r[1], r[2], r[3], r[4], r[5], tuple(json.loads(r[6])), outcome, r[11])
        except (ValueError, TypeError) as exc:
            raise StoreError(f"match {r[2]!r} in {self.path} is corrupt: {exc}") from None
