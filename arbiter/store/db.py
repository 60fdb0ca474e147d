"""The SQLite store: tournaments, their entrants, scheduled matches and results, records.

One file (default ``arena.sqlite`` in the current directory; ``--db`` or ``ARENA_DB`` to
change). Every finished match is committed in its own transaction as it ends, so a run
that is killed (even with SIGKILL) loses no finished match; a match either has its full
result row or counts as not played, and the primary key (tournament, schedule index)
means no match is ever counted twice. A run holds an exclusive lock on ``<db>.lock``
(beside the file itself, whatever symlink led to it; released by the OS when the process dies), so a second run on the same file is refused
with a clear message instead of interleaving writes. Readers (standings, tournament show,
replay, web) open it read-only (``Store(read_only=True)``): they never lock and never write,
so an archived store reads on a read-only file, folder or filesystem.

Bots are referred to by name and spec text (table ``entrants``); the bot registry keeps
its own tables in the same file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import json
import os
import secrets
import shlex
import sqlite3
import stat
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Iterator, Mapping, Sequence

from arbiter import metrics
from cardarena import disclosure
from cardarena.disclosure import Disclosure
from cardarena.games import EndReason, Outcome
from cardarena.records import Incident, MatchRecord, number

DEFAULT_DB = "arena.sqlite"
SCHEMA_VERSION = 5

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    spec TEXT NOT NULL,          -- JSON: everything that defines the schedule and matches
    created REAL NOT NULL,
    finished REAL,               -- NULL while matches are missing
    planned INTEGER NOT NULL DEFAULT 0,  -- matches in the schedule
    secret_seed INTEGER          -- the seed drawn for a spec without one (never shown while it runs)
);
CREATE TABLE IF NOT EXISTS entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
    name TEXT NOT NULL,          -- display name, as in matches.seats
    spec TEXT NOT NULL,          -- as written in the tournament spec
    launched TEXT NOT NULL,      -- what was launched (a registered name@version resolved)
    version TEXT NOT NULL DEFAULT '',  -- the version the bot reported when it connected
    PRIMARY KEY (tournament_id, name)
);
-- Schema 5: ONE table for every match, whatever played it, with the batch it belongs to:
-- a tournament's (an evaluation's, a batch of single matches ``play:GAME``) by
-- (tournament_id, idx), an arena encounter's by (arena_id, encounter, idx).
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    batch TEXT NOT NULL DEFAULT 'tournament',  -- tournament | arena: what tournament_id or arena_id names
    tournament_id INTEGER REFERENCES tournaments(id) ON DELETE CASCADE,  -- NULL for an arena's match
    arena_id INTEGER,            -- with encounter: the arena encounter it is part of (NULL for a tournament's)
    encounter INTEGER,
    idx INTEGER NOT NULL,        -- position in its batch (a tournament's schedule, an encounter)
    match_id TEXT NOT NULL,
    deal INTEGER NOT NULL,       -- which deal seed of the batch
    rotation INTEGER NOT NULL,   -- which seating of that deal
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,         -- JSON list: bot name per seat
    scores TEXT NOT NULL,        -- JSON list per seat
    ranks TEXT NOT NULL,         -- JSON list per seat
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,        -- why it ended, in words
    finished REAL NOT NULL,
    round INTEGER NOT NULL DEFAULT 0,
    table_no INTEGER NOT NULL DEFAULT 0,  -- which combination of entries
    sides TEXT NOT NULL DEFAULT '[]',     -- JSON list: entry (bot or team) per side
    incidents TEXT NOT NULL DEFAULT '[]', -- JSON list of {seat, kind, detail[, stderr]}
    decisions INTEGER NOT NULL DEFAULT 0,
    seconds REAL NOT NULL DEFAULT 0,
    -- last: the long one (kilobytes, on overflow pages), so that reading any other column of a
    -- row never walks through it
    record TEXT NOT NULL,        -- JSON MatchRecord: replays the match
    FOREIGN KEY (arena_id, encounter) REFERENCES arena_encounters(arena_id, idx) ON DELETE CASCADE
);
CREATE UNIQUE INDEX IF NOT EXISTS matches_in_tournament ON matches(tournament_id, idx) WHERE tournament_id IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS matches_in_encounter ON matches(arena_id, encounter, idx) WHERE arena_id IS NOT NULL;
-- Who played which match, for a bot's matches newest first (``Store.bot_matches``) without
-- reading every row's seats: one row per (bot, match), the newest last in its bot's range.
CREATE TABLE IF NOT EXISTS match_bots (
    bot TEXT NOT NULL,
    match INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    PRIMARY KEY (bot, match)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS match_bots_by_match ON match_bots(match);
CREATE INDEX IF NOT EXISTS matches_by_id ON matches(match_id);
-- Schema 4: arenas (continuous rated ladders, `arbiter arena`, read and written by
-- arbiter.store.arenas). An encounter is a pairing (or table) playing a set of fresh deals in
-- every seating: it is stored whole, with its matches, in one transaction, or not at all.
CREATE TABLE IF NOT EXISTS arenas (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    spec TEXT NOT NULL,          -- JSON: what defines the ladder's encounters (game, options, deals, clock, policy)
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS arena_entrants (
    arena_id INTEGER NOT NULL REFERENCES arenas(id) ON DELETE CASCADE,
    player TEXT NOT NULL,        -- name@version (as in its matches' seats), or a house bot's name
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    author TEXT NOT NULL,
    source TEXT NOT NULL,        -- how it is launched (a house bot's spec, '' for registered bots)
    joined REAL NOT NULL,
    status TEXT NOT NULL,        -- active | replaced | suspended | withdrawn
    reason TEXT NOT NULL DEFAULT '',  -- why it is not active, in words
    changed REAL NOT NULL,
    mu REAL NOT NULL,            -- the rating after its last encounter (recomputable from encounters)
    sigma REAL NOT NULL,
    encounters INTEGER NOT NULL DEFAULT 0,
    matches INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,  -- matches it forfeited
    streak INTEGER NOT NULL DEFAULT 0,    -- encounters in a row with a forfeit of its own
    PRIMARY KEY (arena_id, player)
);
CREATE TABLE IF NOT EXISTS arena_encounters (
    arena_id INTEGER NOT NULL REFERENCES arenas(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,        -- in order of starting
    seq INTEGER,                 -- in order of finishing (the rating order), NULL until done
    players TEXT NOT NULL,       -- JSON list: the table's entries
    seed INTEGER NOT NULL,       -- drawn for this encounter alone, its deals never come back elsewhere
    status TEXT NOT NULL,        -- playing | done | abandoned (cut off by a stop or a crash: never counted)
    started REAL NOT NULL,
    finished REAL,
    ratings TEXT NOT NULL DEFAULT '{}',   -- JSON: player -> [mu, sigma] after this encounter
    failures TEXT NOT NULL DEFAULT '{}',  -- JSON: player -> what went wrong (its forfeits)
    PRIMARY KEY (arena_id, idx)
);
CREATE UNIQUE INDEX IF NOT EXISTS arena_encounters_by_seq ON arena_encounters(arena_id, seq);
-- An evaluation's verdict (``arbiter evaluate --sprt --db``): what its sequential test decided,
-- written when a run of it ends (with its finish, in one transaction), and undecided so far as
-- each deal is played (a run interrupted, even killed outright, leaves where it stood), each later
-- run of it replaces it. A table added to schema 5: a store written before has none, and its
-- readers find no verdict (``Store.verdict``).
CREATE TABLE IF NOT EXISTS verdicts (
    tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id) ON DELETE CASCADE,
    decision TEXT,               -- H0 | H1 | NULL: none (at its cap, its s.d. bound contradicted, or not yet)
    deals INTEGER NOT NULL,      -- the deals the test read
    final INTEGER NOT NULL,      -- 1: the run ended, 0: undecided so far (its run going on, or interrupted)
    text TEXT NOT NULL,          -- the test's line, as arbiter evaluate prints it (EvalResult.sprt_summary)
    state TEXT NOT NULL,         -- JSON: the test's state (its to_json)
    written REAL NOT NULL
);
"""


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on an autocommit connection: all of it commits, or none.
    Its time, BEGIN to COMMIT, is the store's write latency (``arbiter.metrics``)."""
    t0 = time.perf_counter()
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.in_transaction:  # (SQLite rolls back by itself on some errors: a full disk)
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    if (m := metrics.active()) is not None:
        m.store_write.observe(time.perf_counter() - t0)


def set_wal(db: sqlite3.Connection, timeout: float = 30.0) -> None:
    """Put the store in WAL mode (kept in the file: once is enough). Two processes opening a new
    store at once: the change needs the file to itself, and SQLite answers "database is locked"
    at once, without waiting out the connection's timeout, while the other is creating it (two
    ``arbiter play`` started together: the second ended with that error); so it is tried again
    until ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _closed_to_others(path: Path) -> None:
    """Make the store file ``path`` (made now if missing) unreadable by other users: the
    records of a running duplicate tournament are in it, the twin seatings still to be
    played among them, and a hosted bot runs under a uid of its own that sees /usr, the
    Python installation, the packages and its own folder (``hosting.sandbox``), wherever
    a store may lie. SQLite makes its ``-wal`` and ``-shm`` files with the file's own
    mode; those already there are closed too. The group keeps what the umask gives it (a
    web server may run as another user of it); a file of another owner is left as it is."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o660))  # an empty file: a new SQLite database
    except FileExistsError:
        pass
    except OSError:
        return  # sqlite3 says what is wrong with the path, in its own words
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with contextlib.suppress(OSError):
            st = p.stat()
            if stat.S_ISREG(st.st_mode) and st.st_mode & 0o007 and st.st_uid == os.geteuid():
                p.chmod(st.st_mode & 0o770)


def _may_write(path: str | os.PathLike, mode: int = os.W_OK) -> bool:
    """Whether this process may write ``path``, as the kernel judges its writes: by the
    effective user and group (``os.access`` asks of the real ones unless told, and the two
    differ in a process that changed its effective user)."""
    return os.access(path, mode, effective_ids=os.access in os.supports_effective_ids)


def connect_writer(path: str | os.PathLike, threads: bool = False) -> sqlite3.Connection:
    """A connection that writes the store (``Store``, ``Registry``): autocommit (``transaction``
    makes each write one), foreign keys on, WAL mode so that readers never see a write half done,
    and the 30 s a write waits for another. ``threads``: shared by a server's threads (its owner
    makes them take turns). The file is closed to other users (``_closed_to_others``).
    sqlite3's errors as they come."""
    db = None
    if str(path) != ":memory:":
        if os.path.isfile(path) and not _may_write(path):
            # refused before SQLite makes its -wal and -shm, this user's, beside another's file (whose
            # owner then could not open them: 'unable to open database file' on its own store)
            raise store_error(Path(path), sqlite3.OperationalError("attempt to write a readonly database"))
        if os.path.isfile(path) and os.path.getsize(path):  # refused before anything of it changes, its mode too
            db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=not threads)
            try:  # (before WAL mode: that alone would rewrite its header)
                if other := foreign_tables(db):
                    raise StoreError(foreign_text(path, other))
                refuse_newer(db, path)
            except BaseException:
                db.close()
                raise
        _closed_to_others(Path(path))
    if db is None:
        db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=not threads)
    db.execute("PRAGMA foreign_keys = ON")
    set_wal(db)
    db.execute("PRAGMA synchronous = NORMAL")
    return db


#: Tables that make a SQLite file an arena store: every store written by ``Store`` has ``meta``,
#: one written by the bot registry alone (``arbiter bots submit`` first) has ``bots``.
_OUR_TABLES = ("meta", "bots")


def foreign_tables(db: sqlite3.Connection) -> list[str]:
    """The tables of a SQLite file that is another program's database, not an arena store
    (none of ``_OUR_TABLES``); [] for a store or a file with no tables yet. A writer refuses
    such a file (``--db`` pointed at a browser's history by mistake): it would add its own
    tables to it and switch it to WAL mode."""
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return [] if not names or any(n in names for n in _OUR_TABLES) else names


def refuse_newer(db: sqlite3.Connection, path: str | os.PathLike) -> None:
    """StoreError if the file's schema (its ``meta`` table's) is newer than this arbiter's:
    a newer arbiter may have changed any of its tables, the registry's too, so this one
    neither writes to it nor reads it."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone():
        return
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if row is not None and str(row[0]).isdigit() and int(row[0]) > SCHEMA_VERSION:
        raise StoreError(f"{path}: schema version {row[0]} is newer than this arbiter ({SCHEMA_VERSION})")


def foreign_text(path: str | os.PathLike, tables: Sequence[str]) -> str:
    """Why ``path`` (``foreign_tables``: ``tables``) is refused, in words."""
    shown = ", ".join(tables[:5]) + (f" and {len(tables) - 5} more" if len(tables) > 5 else "")
    return (f"{path} is another program's SQLite database (its tables: {shown}), not an arena store: "
            "it is left as it is; pass another --db")


def differences(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any, Any]]:
    """(dotted key, stored, now) of each setting that differs between a stored spec and a new
    one: inside a table (the gate, the options) the keys that differ, not the two whole tables."""
    out = []
    for k in sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k)):
        a, b = old.get(k), new.get(k)
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            out += differences(a, b, f"{prefix}{k}.")
        else:
            out.append((f"{prefix}{k}", a, b))
    return out


def differences_text(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """The first four ``differences``, each with its stored value and the new one."""
    return ", ".join(f"{k}: {a!r} stored, {b!r} now" for k, a, b in differences(old, new)[:4]) or "same fields, other order"


def _differs(stored_json: str, spec: Mapping[str, Any]) -> str:
    """`` (it differs in deals, sprt)``: the settings a stored spec and a new one disagree on, so
    that a run refused for resuming with other settings says which (empty if it cannot tell)."""
    try:
        stored = json.loads(stored_json)
    except ValueError:
        return ""
    if not isinstance(stored, dict):
        return ""
    keys = [k for k, _, _ in differences(stored, json.loads(json.dumps(spec, sort_keys=True)))]  # tuples as lists
    return f" (it differs in {', '.join(keys)})" if keys else ""


def _extends(stored_json: str, spec: Mapping[str, Any], field: str) -> bool:
    """Whether ``spec`` is the stored spec with a larger number in ``field`` and nothing else
    changed (``Store.open_tournament``'s ``extend``)."""
    try:
        stored = json.loads(stored_json)
    except ValueError:
        return False
    new = json.loads(json.dumps(spec, sort_keys=True))  # tuples as lists, as stored
    old_n, new_n = (stored.get(field) if isinstance(stored, dict) else None), new.get(field)
    return (isinstance(old_n, int) and isinstance(new_n, int) and old_n < new_n
            and {k: v for k, v in stored.items() if k != field} == {k: v for k, v in new.items() if k != field})


def _is_evaluation(spec_json: str) -> bool:
    """Whether a stored spec is an evaluation's (``arbiter evaluate --db``; its spec has the key
    "evaluate"), not a tournament's."""
    try:
        spec = json.loads(spec_json)
    except ValueError:
        return False
    return isinstance(spec, dict) and "evaluate" in spec


def run_lock_path(db: str | os.PathLike) -> str:
    """The run lock of the store ``db`` (``Store.lock``): beside the file itself, whatever path
    (a symlink to it) a run was given, so that the same store is locked by one lock."""
    return f"{Path(db).resolve()}.lock"


@dataclass(frozen=True)
class RunHolder:
    """The run holding a store's run lock, as it wrote itself in the lock file (``Store.lock``)."""

    pid: str  # its process id ("" if unknown)
    tournament: str  # the tournament (or evaluation) it runs; "" for a ladder, or a run of an older arbiter
    arena: str = ""  # the ladder it runs (``arbiter arena``); "" for a tournament's run, or an older arbiter's

    @staticmethod
    def read(text: str) -> "RunHolder":
        """The lock file's text: ``{"pid": ..., "tournament": ...}``, or the bare process id an
        older arbiter wrote."""
        text = text.strip()
        if text.isdigit():
            return RunHolder(text, "")
        try:
            d = json.loads(text)
            return RunHolder(str(int(d["pid"])), str(d.get("tournament") or ""), str(d.get("arena") or ""))
        except (ValueError, TypeError, KeyError):
            return RunHolder("", "")


def run_holder(db: str | os.PathLike) -> RunHolder | None:
    """The run that holds the store's run lock (``Store.lock``), or None when no run is
    writing ``db``. The lock is the store's, not a tournament's: which tournament the run
    plays is its ``tournament``. The probe is a shared lock taken and let go at once, and
    creates nothing."""
    try:
        fd = os.open(run_lock_path(db), os.O_RDONLY)
    except OSError:
        return None
    with os.fdopen(fd) as f:
        try:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return RunHolder.read(f.read())
        fcntl.flock(f, fcntl.LOCK_UN)
    return None


class StoreError(Exception):
    """The store file is unusable (corrupt, newer schema, locked); the message says how."""


#: What reading a store may raise: StoreError, and SQLite's own errors that reach a reader
#: as they are (a file that is not a database, a table locked mid-read). Readers above the
#: store catch these, never ``sqlite3`` itself: only the store imports it.
READ_ERRORS: tuple[type[Exception], ...] = (StoreError, sqlite3.Error)


#: The oldest schema a read-only connection can read (its tables have every column the
#: readers select); an older file is migrated by the first writer that opens it.
OLDEST_READABLE_SCHEMA = 5


def connect_read_only(path: str | os.PathLike) -> sqlite3.Connection:
    """A connection to an existing SQLite file that writes nothing to it (SQLite refuses writes
    through it).

    The connection is SQLite's ``mode=ro``, which reads what writers have committed and
    keeps its snapshot whole while one writes, when a writer may be at work (its ``-wal``
    file is there) or may start during the read: the store is this user's own, in a folder
    it may write (``_may_start_writer``); its ``-wal``/``-shm``, made by this user with the
    file's mode, serve the owner's next run. Otherwise (an archived store: a read-only file,
    folder or filesystem, or another user's store with no writer now) it is
    ``immutable=1``: no ``-wal``/``-shm`` files are created and no lock is taken, so the
    store reads where nothing can be written and its bytes and mtime stay as they were; a
    writer that another user starts during such a read can make it fail as "malformed"
    (what SQLite promises of an immutable file no longer holds). StoreError (saying why) if it cannot be read,
    and if it can be read only without the commits its ``-wal`` holds (a copy taken while
    a writer ran, in a folder where SQLite cannot make the ``-shm`` it needs to read them):
    the file alone would read as if it were all.
    """
    p = Path(path)
    if not p.exists():
        raise StoreError(f"{p} is not a readable store: no such file")
    if p.is_dir():  # as the writers say it (``store_error``)
        raise StoreError(f"{p} is a folder, not a store file")
    if not p.is_file():
        raise StoreError(f"{p} is not a readable store: not a file")
    if p.stat().st_size == 0:
        raise StoreError(f"{p} is empty: not a store yet (nothing has been stored in it)")
    base = f"file:{urllib.parse.quote(str(p.resolve()))}?mode=ro"
    wal = Path(f"{p}-wal")
    modes = [base, base + "&immutable=1"] if wal.exists() or _may_start_writer(p) else [base + "&immutable=1"]
    last: Exception | None = None
    for uri in modes:
        if uri.endswith("immutable=1") and last is not None and _size(wal) > 0:
            # the file alone would be read as if it were all: without the commits its -wal holds
            if "locked" in str(last) or "busy" in str(last):
                raise StoreError(f"{p} is busy: another process has kept it locked ({last}); try again") from None
            raise StoreError(f"{p} cannot be read whole here: {wal} holds writes not yet in it, which need a "
                             f"{p.name}-shm beside it that cannot be made in this folder ({last}): read it where it can "
                             "be made, or open it once where it can be written (any command that writes folds them "
                             "into the file)") from None
        db = None
        try:
            db = sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None, check_same_thread=False)
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.DatabaseError as exc:  # e.g. no -shm can be made in a read-only folder
            last = exc
            if db is not None:
                db.close()
    raise StoreError(f"{p} is not a readable store: {last}")


def _may_start_writer(path: Path) -> bool:
    """Whether a reader of the store at ``path`` should expect a writer to start during its
    read and can share the files that keep its snapshot whole: the store is this user's own
    and this user may write it and its folder (SQLite makes the ``-wal``/``-shm`` there).
    A reader that opened it immutable saw "database disk image is malformed" when a run
    started and folded its first commits into the file mid-read (a page of the web server
    while ``arbiter tournament run`` began on its store). Another user's store is read
    immutable still: ``-wal``/``-shm`` of this user's beside it would stop its owner's next
    run ('unable to open database file')."""
    try:
        own = path.stat().st_uid == os.geteuid()
    except OSError:
        return False
    return own and _may_write(path) and _may_write(path.parent, os.W_OK | os.X_OK)


def _size(path: Path) -> int:
    """The file's size (0: none)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def store_unwritable(path: Path) -> str:
    """Why the store at ``path`` cannot take a match now ('' if it can): a write lock is
    taken and given back at once (nothing is written). A store busy with another writer
    counts as writable: its writes wait their turn."""
    try:
        db = sqlite3.connect(f"file:{urllib.parse.quote(str(path.resolve()))}?mode=rw", uri=True, timeout=0.5,
                             isolation_level=None)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        db.execute("BEGIN IMMEDIATE")
        db.execute("ROLLBACK")
        return ""
    except sqlite3.OperationalError as exc:
        return "" if "locked" in str(exc) or "busy" in str(exc) else str(exc)
    except sqlite3.Error as exc:
        return str(exc)
    finally:
        db.close()


def store_error(path: Path, exc: sqlite3.DatabaseError) -> StoreError:
    """SQLite's error on the store at ``path`` (opening it, writing to it, or a read that met
    damage inside it), in words that name the file."""
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return StoreError(f"{path} is read-only (the file, its folder or its filesystem): it can be read "
                          "(standings, tournament show, replay, web), not written; pass another --db")
    if "unable to open" in text and path.is_file() and not (
            _may_write(path) and _may_write(path.parent, os.W_OK | os.X_OK)):
        # a read-only mount (or folder): SQLite cannot make the -wal beside the file
        return store_error(path, sqlite3.OperationalError("attempt to write a readonly database"))
    if "unable to open" in text and not path.parent.is_dir():
        return StoreError(f"{path}: no folder {path.parent} for the store (create it first)")
    if "unable to open" in text and path.is_dir():
        return StoreError(f"{path} is a folder, not a store file")
    if "unable to open" in text and path.is_symlink() and not path.exists():
        return StoreError(f"{path} is a symbolic link to {os.readlink(path)}, which leads to no file that can be made "
                          "(a missing folder, or a loop of links): mend the link or pass another --db")
    if "unable to open" in text and not path.exists():
        return StoreError(f"{path} cannot be created: its folder {path.parent} is read-only (pass another --db)")
    if "full" in text:  # SQLITE_FULL ("database or disk is full"): the transaction was rolled back whole
        return StoreError(f"{path} cannot take more: its disk is full ({text}); every match stored before is kept: "
                          "free some space (or pass another --db) and run again")
    if "locked" in text or "busy" in text:  # not damage: another process's write held it past the timeout
        return StoreError(f"{path} is busy: another process kept it locked for writing longer than 30 s ({text}); "
                          "nothing in it is damaged: try again when that process is done")
    return StoreError(f"{path} is not a usable store: {text}")


# Columns added by schema 2 to files written by schema 1.
_MIGRATE_1_TO_2 = [
    "ALTER TABLE tournaments ADD COLUMN planned INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE matches ADD COLUMN round INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE matches ADD COLUMN table_no INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE matches ADD COLUMN sides TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE matches ADD COLUMN incidents TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE matches ADD COLUMN decisions INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE matches ADD COLUMN seconds REAL NOT NULL DEFAULT 0",
]

# Columns added by schema 3.
_MIGRATE_2_TO_3 = [
    "ALTER TABLE tournaments ADD COLUMN secret_seed INTEGER",
]

# Schema 4 only adds tables (the arenas'): _SCHEMA creates them in files of any version.
_MIGRATE_3_TO_4: list[str] = []

# Schema 5: one table for every match. The tournaments' matches (schema 1-4: keyed by
# tournament and index) and the arenas' (schema 4's arena_matches) are copied, row for
# row and column for column, into the new table; the old ones are dropped.
_MATCHES_4 = ("tournament_id, idx, match_id, deal, rotation, seed, seats, scores, ranks, reason, detail, record, finished, "
              "round, table_no, sides, incidents, decisions, seconds")


def statements(script: str) -> list[str]:
    """The SQL statements of ``script``, each whole with the comments before it, as SQLite
    reads them (``sqlite3.complete_statement``): a ";" in a comment or a string ends none.
    (``executescript`` would read them too, but it commits the transaction it is called in.)"""
    out: list[str] = []
    text = ""
    for piece in script.split(";"):
        text += piece + ";"
        if sqlite3.complete_statement(text):
            if _without_comments(text) != ";":  # (what follows the last statement: nothing, or comments)
                out.append(text)
            text = ""
    if _without_comments(text[:-1]):
        raise ValueError(f"an unfinished SQL statement ends the script: {_without_comments(text[:-1])[:80]!r}")
    return out


def _schema_statement(start: str) -> str:
    """The statement of ``_SCHEMA`` that begins (after its comments) with ``start``."""
    found = [s for s in statements(_SCHEMA) if _without_comments(s).startswith(start)]
    assert len(found) == 1, (start, len(found))
    return found[0]


def _without_comments(stmt: str) -> str:
    return "\n".join(line for line in stmt.splitlines() if not line.strip().startswith("--")).strip()


def _migrate_4_to_5(db: sqlite3.Connection) -> None:
    for stmt in statements(_SCHEMA):  # every other table first (an older file has no arenas'): the keys point at them
        if "EXISTS matches (" not in stmt and " ON matches(" not in stmt:
            db.execute(stmt)
    create = _schema_statement("CREATE TABLE IF NOT EXISTS matches (")
    db.execute(create.replace("CREATE TABLE IF NOT EXISTS matches (", "CREATE TABLE matches_5 ("))
    # one table, in the order the matches finished (a bot's newest matches are the last rows)
    rows = (f"SELECT 'tournament' AS batch, tournament_id, NULL AS arena_id, NULL AS encounter, {_MATCHES_4.replace('tournament_id, ', '')} "
            "FROM matches")
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'arena_matches'").fetchone():
        rows += (" UNION ALL SELECT 'arena', NULL, arena_id, encounter, k, match_id, deal, seating, seed, seats, scores, "
                 "ranks, reason, detail, record, finished, 0, 0, sides, incidents, decisions, seconds FROM arena_matches")
    db.execute(f"INSERT INTO matches_5 (batch, tournament_id, arena_id, encounter, {_MATCHES_4.replace('tournament_id, ', '')}) "
               f"SELECT * FROM ({rows}) ORDER BY finished, tournament_id, arena_id, encounter, idx")
    db.execute("DROP TABLE IF EXISTS arena_matches")
    db.execute("DROP TABLE matches")
    db.execute("ALTER TABLE matches_5 RENAME TO matches")
    db.execute(_schema_statement("CREATE TABLE IF NOT EXISTS match_bots"))
    index_bots(db)


def index_bots(db: sqlite3.Connection, where: str = "1", params: Sequence[Any] = ()) -> None:
    """Enter the bots of the matches ``where`` selects in ``match_bots`` (each bot once per match)."""
    db.execute("INSERT OR IGNORE INTO match_bots (bot, match) SELECT DISTINCT j.value, m.id "
               f"FROM matches m, json_each(m.seats) j WHERE {where}", tuple(params))


@functools.lru_cache(maxsize=1 << 16)
def _json_tuple(text: str) -> tuple:
    """A row's JSON list (seats, sides, scores, ranks: strings and numbers) as a tuple. The
    same texts recur row after row (a tournament's seatings, its usual scores): each is
    parsed once, so reading a bot's last 1,000 matches is the query, not the parsing."""
    return tuple(json.loads(text))


def incidents_json(incidents: Sequence[Incident]) -> str:
    """A match's incidents as a row stores them (tournament and arena matches alike), with
    the failing process's stderr tail, so every reader of the rows (tournament show
    --failures, the web pages) has the bot's own words, not only the record's readers."""
    return json.dumps([{"seat": i.seat, "kind": i.kind, "detail": i.detail, **({"stderr": i.stderr} if i.stderr else {})}
                       for i in incidents])


def incidents_from_json(text: str) -> tuple[Incident, ...]:
    """``incidents_json`` read back (rows stored before the stderr was kept have none)."""
    if text == "[]":  # most matches: no JSON to parse
        return ()
    return tuple(Incident(int(i["seat"]), str(i["kind"]), str(i["detail"]), str(i.get("stderr", "")))
                 for i in json.loads(text))


#: The state of a run that ``TournamentRow.stopped_early``, beside its matches (CLI, exports, pages).
STOPPED_EARLY = "stopped early"


@dataclass(frozen=True)
class TournamentRow:
    id: int
    name: str
    game: str
    spec: dict[str, Any]
    created: float
    finished: float | None
    planned: int = 0  # matches in the schedule
    done: int = 0  # matches stored

    def state(self, holder: RunHolder | None) -> str:
        """"finished" (``STOPPED_EARLY`` for an evaluation its sequential test ended before its
        plan); "in progress" while a run of it holds the store's run lock (``holder``:
        ``run_holder``); else "interrupted" (stopped by Ctrl-C, a signal or a crash, and not
        resumed): the lock is the store's, and a tournament not finished is not running for
        that alone."""
        if self.finished is not None:
            return STOPPED_EARLY if self.stopped_early else "finished"
        return "in progress" if holder is not None and holder.tournament == self.name else "interrupted"

    @property
    def stopped_early(self) -> bool:
        """An evaluation with a sequential test (``arbiter evaluate --sprt``) that ended it before
        its plan: decided, or its s.d. bound contradicted. Its plan is kept, so what it meant to
        play and what it played are both there to say. (A tournament plays its whole plan.)"""
        return bool(self.spec.get("sprt")) and self.finished is not None and self.done < self.planned

    @property
    def disclosure(self) -> Disclosure:
        """What of it may be shown now (``cardarena.disclosure``): closed while it runs with
        duplicate deals (the default of a spec that does not say). Whether a run plays it now
        is the store's to say: ``Store.tournament_disclosure``."""
        return disclosure.of_tournament(self.name, finished=self.finished is not None,
                                        duplicate=bool(self.spec.get("duplicate", True)))

    def resume_text(self, db: str | os.PathLike) -> str:
        """How to resume it once interrupted (``resume_text``; it is stored in the store ``db``)."""
        return resume_text(self.name, self.spec, db)


def resume_text(name: str, spec: Mapping[str, Any], db: str | os.PathLike) -> str:
    """How to resume the interrupted tournament ``name`` (stored with ``spec`` in the store
    ``db``), quoted to paste: ``tournament run --resume`` reads its settings from the store (a
    command of its flags would show its seed, withheld until it ends); an evaluation's own
    command resumes it."""
    if "evaluate" in spec:
        return f"the arbiter evaluate command that started it, run again with --db {shlex.quote(str(db))}, resumes it"
    return f"resume it: arbiter tournament run --resume {shlex.quote(name)} --db {shlex.quote(str(db))}"


@dataclass(frozen=True)
class Verdict:
    """What an evaluation's sequential test decided (``Store.verdict``): ``text`` is its line as
    ``arbiter evaluate`` printed it (``EvalResult.sprt_summary``), which every display shows."""

    decision: str | None  # "H0", "H1" or None
    deals: int  # the deals the test read
    final: bool  # False: undecided so far (its run going on, or interrupted)
    text: str
    state: dict[str, Any] = field(default_factory=dict)  # the test's state (its to_json)
    written: float = 0.0


@dataclass(frozen=True)
class Entrant:
    name: str
    spec: str  # as written in the tournament spec
    launched: str  # what was launched
    version: str = ""  # reported by the bot on connecting (gRPC runs)


@dataclass(frozen=True)
class ThinkTimes:
    """A bot's decisions' times over some matches, from their records (docs/latency.md):
    ``RecordedAction.ms`` (its think time as the arbiter saw it: what its clock is charged),
    ``bot_us`` (its own time, as its SDK said) and ``overhead_us`` (the arbiter's own time
    per decision, charged to no clock). The decisions of a seat the arbiter no longer
    asked (disconnected) are not counted."""

    decisions: int = 0
    total_ms: int = 0
    worst_ms: int = 0
    measured: int = 0  # decisions whose record has the arbiter's own time (records since it is kept)
    overhead_us: float = 0.0  # summed over those
    reported: int = 0  # decisions whose bot said its own time (Act.think_us)
    reported_ms: int = 0  # the arbiter's ``ms`` summed over those
    bot_us: float = 0.0  # the bot's own time summed over those

    def __add__(self, other: "ThinkTimes") -> "ThinkTimes":
        return ThinkTimes(self.decisions + other.decisions, self.total_ms + other.total_ms,
                          max(self.worst_ms, other.worst_ms), self.measured + other.measured,
                          self.overhead_us + other.overhead_us, self.reported + other.reported,
                          self.reported_ms + other.reported_ms, self.bot_us + other.bot_us)

    @property
    def mean_ms(self) -> float | None:
        return self.total_ms / self.decisions if self.decisions else None

    @property
    def overhead_ms(self) -> float | None:
        """The arbiter's mean own time per decision, in ms (None: no record measured it)."""
        return self.overhead_us / self.measured / 1000 if self.measured else None

    @property
    def transport_ms(self) -> float | None:
        """The mean of the arbiter's time less the bot's own per decision, in ms, over the
        decisions whose bot said its time (None: it never did, e.g. in the arbiter's process)."""
        return max(0.0, (self.reported_ms - self.bot_us / 1000) / self.reported) if self.reported else None


#: Each (match, seat)'s decision times, summed in SQLite (json_each) without parsing a record in Python.
_TIMES_SQL = """SELECT m.rowid, m.seats, json_extract(a.value, '$.seat') AS seat, count(*), total(json_extract(a.value, '$.ms')),
    max(json_extract(a.value, '$.ms')), count(json_extract(a.value, '$.overhead_us')),
    total(json_extract(a.value, '$.overhead_us')), count(json_extract(a.value, '$.bot_us')),
    total(CASE WHEN json_extract(a.value, '$.bot_us') IS NOT NULL THEN json_extract(a.value, '$.ms') END),
    total(json_extract(a.value, '$.bot_us'))
    FROM {table} AS m, json_each(m.record, '$.actions') AS a
    WHERE {where} AND json_extract(a.value, '$.forced') IS NOT 'disconnected'
    GROUP BY m.rowid, seat"""


def _file_of(db: sqlite3.Connection) -> str:
    """The file a connection reads ("the store" if SQLite cannot say), for an error that has
    only the connection to name it by."""
    try:
        return str(db.execute("PRAGMA database_list").fetchone()[2]) or "the store"
    except (sqlite3.Error, TypeError, IndexError):
        return "the store"


#: Matches' times already read, by store file: (file, rowid) -> (the row's identity, its
#: seats' (name, ThinkTimes)). A stored match's record does not change, and reading its
#: times parses every action of it: a running tournament's page, re-rendered at each match
#: it stores, read all of them each time (12 s for 600 Spades matches), so each is read
#: once. The identity (match id, seed, decisions, seconds) tells a row replaced under the
#: same rowid (a tournament run again --fresh) from the one read.
_TIMES_CACHE: dict[tuple[str, int], tuple[tuple[Any, ...], tuple[tuple[str, ThinkTimes], ...]]] = {}
_TIMES_CACHE_MAX = 200_000
_TIMES_LOCK = threading.Lock()


def think_times(db: sqlite3.Connection, table: str, where: str, params: Sequence[Any]) -> dict[str, ThinkTimes]:
    """Bot name (as in the matches' seats) -> its ``ThinkTimes`` over the rows of ``table``
    (``matches`` or ``arena_matches``) that ``where`` selects (alias ``m``); the records of
    rows read before in this process are not read again (``_TIMES_CACHE``)."""
    path = _file_of(db) if table == "matches" else ""
    path = "" if path == "the store" else path
    rows = db.execute(f"SELECT m.rowid, m.match_id, m.seed, m.decisions, m.seconds FROM {table} AS m WHERE {where}",
                      tuple(params)).fetchall()
    per_row: dict[int, tuple[tuple[str, ThinkTimes], ...]] = {}
    missing: dict[int, tuple[Any, ...]] = {}
    with _TIMES_LOCK:
        for rowid, *identity in rows:
            hit = _TIMES_CACHE.get((path, rowid)) if path else None
            if hit is not None and hit[0] == tuple(identity):
                per_row[rowid] = hit[1]
            else:
                missing[rowid] = tuple(identity)
    if missing:
        read = _read_times(db, table, f"({where}) AND m.rowid IN (SELECT value FROM json_each(?))",
                           (*params, json.dumps(list(missing))))
        per_row.update((rowid, read.get(rowid, ())) for rowid in missing)
        if path:
            with _TIMES_LOCK:
                if len(_TIMES_CACHE) + len(missing) > _TIMES_CACHE_MAX:
                    _TIMES_CACHE.clear()
                _TIMES_CACHE.update(((path, rowid), (identity, per_row[rowid])) for rowid, identity in missing.items())
    out: dict[str, ThinkTimes] = {}
    for row in rows:
        for name, times in per_row.get(row[0], ()):
            out[name] = out.get(name, ThinkTimes()) + times
    return out


def _read_times(db: sqlite3.Connection, table: str, where: str,
                params: Sequence[Any]) -> dict[int, tuple[tuple[str, ThinkTimes], ...]]:
    """Each selected row's seats' times, read from its record: rowid -> ((bot, times), ...)."""
    out: dict[int, tuple[tuple[str, ThinkTimes], ...]] = {}
    try:
        rows = db.execute(_TIMES_SQL.format(table=table, where=where), tuple(params)).fetchall()
    except sqlite3.DatabaseError as exc:
        try:  # which one, for the error to name
            bad = db.execute(f"SELECT m.match_id FROM {table} AS m WHERE {where} AND NOT json_valid(m.record) LIMIT 1",
                             tuple(params)).fetchone()
        except sqlite3.DatabaseError:
            bad = None
        which = f" (match {bad[0]}'s, and maybe others')" if bad else ""
        raise StoreError(f"{_file_of(db)}: the matches' records cannot be read for their times{which}: {exc}") from None
    for rowid, seats, seat, n, total, worst, measured, overhead, reported, reported_ms, bot_us in rows:
        names = json.loads(seats)
        if not isinstance(seat, int) or not 0 <= seat < len(names):
            continue
        out[rowid] = (*out.get(rowid, ()), (names[seat], ThinkTimes(n, int(total), int(worst or 0), measured, overhead,
                                                                     reported, int(reported_ms), bot_us)))
    return out


@dataclass(frozen=True)
class MatchRow:
    """One stored match, of whatever batch: who sat where, the result, and what went wrong.
    ``tournament_id`` and ``idx`` place a tournament's; an arena encounter's has
    ``arena_id`` and ``encounter`` instead (``tournament_id`` None, ``idx`` its position)."""

    tournament_id: int | None
    idx: int
    match_id: str
    deal: int
    rotation: int  # the seating of the table for this deal
    seed: int
    seats: tuple[str, ...]
    outcome: Outcome
    record_json: str = field(repr=False)
    round: int = 0
    table: int = 0
    sides: tuple[str, ...] = ()
    incidents: tuple[Incident, ...] = ()
    decisions: int = 0
    seconds: float = 0.0
    arena_id: int | None = None
    encounter: int | None = None

    @property
    def batch(self) -> str:
        """What it belongs to: ``tournament`` or ``arena``."""
        return "arena" if self.arena_id is not None else "tournament"

    @property
    def seating(self) -> int:
        return self.rotation

    def record(self) -> MatchRecord:
        return MatchRecord.from_json(self.record_json)


_MATCH_COLUMNS = (
    "tournament_id, idx, match_id, deal, rotation, seed, seats, scores, ranks, reason, detail, record, "
    "round, table_no, sides, incidents, decisions, seconds"
)
#: What a reader selects of a row (``Store._match_row``): the columns and the arena's place.
_ROW_COLUMNS = _MATCH_COLUMNS + ", arena_id, encounter"


class Store:
    """A connection to one store file. Use as a context manager."""

    def __init__(self, path: str | os.PathLike = DEFAULT_DB, read_only: bool = False):
        """Open (creating or migrating the schema) the store at ``path``.

        ``read_only``: a connection that writes nothing (``connect_read_only``: SQLite
        refuses writes through it; beside a store of this user's it may leave the ``-wal``/``-shm``
        that keep a read whole while a run writes), for readers
        such as standings and the web page; the file must exist and have a schema from
        ``OLDEST_READABLE_SCHEMA`` to the current one. It reads a read-only file, folder
        or filesystem.
        """
        self.path = Path(path)
        self._lock_file: Any = None
        if read_only:
            self.db = connect_read_only(self.path)
            try:
                has_meta = self.db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'meta'").fetchone()[0]
                row = self.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() if has_meta else None
            except sqlite3.DatabaseError as exc:
                self.db.close()
                raise StoreError(f"{self.path} is not a readable store: {exc}") from None
            version = row[0] if row is not None else None
            if not has_meta and (other := foreign_tables(self.db)):
                self.db.close()
                raise StoreError(foreign_text(self.path, other))
            if version is not None and not str(version).isdigit():
                self.db.close()
                raise StoreError(f"{self.path}: unreadable schema version {str(version)[:40]!r} (its meta table's 'schema')")
            if version is None:
                self.db.close()
                raise StoreError(f"{self.path} has no tournament tables: no tournament or match has been stored in it")
            try:
                refuse_newer(self.db, self.path)
            except StoreError:
                self.db.close()
                raise
            if int(version) < OLDEST_READABLE_SCHEMA:
                self.db.close()
                raise StoreError(f"{self.path}: schema version {version} is too old to read without migrating it, "
                                 "and reading never writes: a command that writes to it migrates it, e.g. arbiter "
                                 f"tournament run --resume NAME --db {self.path} (NAME: one of its tournaments)")
            return
        try:
            self.db = connect_writer(self.path)
            with self._tx() as db:  # one writer creates or migrates the schema
                row = None
                if db.execute("SELECT name FROM sqlite_master WHERE name = 'meta'").fetchone():
                    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
                refuse_newer(db, self.path)  # (again, in the transaction: another writer may have made it)
                if row is not None:
                    int(row[0])  # ValueError: unreadable
                if row is not None and int(row[0]) == 1:
                    for stmt in _MIGRATE_1_TO_2:
                        db.execute(stmt)
                if row is not None and int(row[0]) in (1, 2):
                    for stmt in _MIGRATE_2_TO_3:
                        db.execute(stmt)
                if row is not None and int(row[0]) in (1, 2, 3):
                    for stmt in _MIGRATE_3_TO_4:
                        db.execute(stmt)
                if row is not None and int(row[0]) in (1, 2, 3, 4):
                    _migrate_4_to_5(db)
                for stmt in statements(_SCHEMA):
                    db.execute(stmt)
                db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError as exc:
            raise store_error(self.path, exc) from None
        except ValueError as exc:
            raise StoreError(f"{self.path}: unreadable schema version: {exc}") from None

    def close(self) -> None:
        self.unlock()
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        self.close()
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.IntegrityError):
            # a read that met damage inside the file (it opened): named by its file
            raise store_error(self.path, exc) from None

    # -- run lock ------------------------------------------------------------------------

    def lock(self, tournament: str = "", arena: str = "") -> None:
        """Take the exclusive run lock, for a run of ``tournament`` (its name; "" for a ladder)
        or of the ladder ``arena``; StoreError at once if another run holds it.

        The lock is an flock on ``<db>.lock``: the OS drops it when the holder dies, so a
        killed run never leaves the file locked. It holds the process id and the tournament
        (``RunHolder``): a tournament not finished is running only while a run of it holds the
        lock, and otherwise interrupted (``TournamentRow.state``). Held already (a command takes
        it before work that comes first, ``evaluate --luck-adjusted``'s probes), it takes the
        name of the run it is now for.
        """
        if self._lock_file is not None:
            if tournament or arena:
                self._write_holder(self._lock_file, tournament, arena)
            return
        lock_path = run_lock_path(self.path)
        f = open(lock_path, "a+")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            holder = RunHolder.read(f.read())
            f.close()
            who = f" by process {holder.pid}" if holder.pid else ""
            what = f", running {holder.tournament!r}" if holder.tournament else ""
            if holder.arena:  # a ladder does not end of itself: "wait for it" would be forever
                raise StoreError(f"another run is writing {self.path} (lock {lock_path} held{who}, running the arena "
                                 f"{holder.arena!r}, which plays until it is stopped: one run per store file); stop it "
                                 f"first, or use another --db") from None
            raise StoreError(
                f"another run is writing {self.path} (lock {lock_path} held{who}{what}); wait for it or use another --db"
            ) from None
        self._write_holder(f, tournament, arena)
        self._lock_file = f

    @staticmethod
    def _write_holder(f: Any, tournament: str, arena: str = "") -> None:
        """The lock file's record of its holder (``RunHolder``): this process, running ``tournament``
        or the ladder ``arena``."""
        f.seek(0)
        f.truncate()
        f.write(json.dumps({"pid": os.getpid(), "tournament": tournament} | ({"arena": arena} if arena else {})))
        f.flush()

    def unlock(self) -> None:
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """``transaction`` on the store; SQLite's errors but a broken constraint (which its
        callers word) become StoreError naming the file (``store_error``: a full disk)."""
        try:
            with transaction(self.db) as db:
                yield db
        except sqlite3.IntegrityError:
            raise
        except sqlite3.DatabaseError as exc:
            raise store_error(self.path, exc) from None

    @contextlib.contextmanager
    def snapshot(self) -> Iterator["Store"]:
        """Reads within it see the store as the first of them found it: one read transaction,
        so a run storing matches meanwhile changes none of them (a table, its header and its
        think times from the same matches). For reading only; within another, the outer holds."""
        if self.db.in_transaction:
            yield self
            return
        self.db.execute("BEGIN")
        try:
            yield self
        except BaseException:  # (a damaged file may refuse even the ROLLBACK: the first error is the one to tell)
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise
        self.db.execute("ROLLBACK")  # it read only: the read is over

    # -- tournaments -----------------------------------------------------------------------

    def open_tournament(
        self, name: str, game: str, spec: dict[str, Any], fresh: bool = False, planned: int = 0, extend: str = "",
        check: bool = False,
    ) -> TournamentRow | None:
        """The tournament ``name``: created, or resumed if its spec is the same.

        StoreError if a tournament of that name exists with a different spec (resuming it
        would mix two schedules), unless ``fresh`` (then it is deleted and recreated, in the
        one transaction that creates it: the old one is never gone without the new one there).
        ``extend``: a field of the spec (an evaluation's ``deals``) that may be larger than the
        stored one's, all else the same: the stored spec takes the new one and its plan, and the
        tournament is not finished again until its run ends (its stored matches are kept).

        ``check``: write nothing, only ask (the same StoreErrors): the stored tournament the run
        would resume, or None if it would create one (or replace it, ``fresh``). A run asks
        first and opens it once it is known to start (``tournament.run.run_tournament``), so that
        one that never starts leaves the store as it was.
        """
        spec_json = json.dumps(spec, sort_keys=True)
        with self._tx() as db:
            row = db.execute("SELECT id, spec FROM tournaments WHERE name = ?", (name,)).fetchone()
            if check and (row is None or fresh):
                return None
            if check and extend and _extends(row[1], spec, extend):
                return self.tournament(name)
            if row is not None and fresh:
                db.execute("DELETE FROM tournaments WHERE id = ?", (row[0],))
                row = None
            if row is not None and extend and _extends(row[1], spec, extend):
                db.execute("UPDATE tournaments SET spec = ?, planned = ?, finished = NULL WHERE id = ?",
                           (spec_json, planned, row[0]))
                row = (row[0], spec_json)
            if row is not None and row[1] != spec_json and (stored_eval := _is_evaluation(row[1])) != ("evaluate" in spec):
                # the name is held by a run of the other kind: its spec's fields are not this one's
                held, this = ("an evaluation (arbiter evaluate)", "a tournament") if stored_eval else (
                    "a tournament (arbiter tournament run)", "an evaluation")
                raise StoreError(f"{name!r} in {self.path} is {held}, not {this}; use --fresh to replace it or "
                                 "--name to start another")
            if row is not None and row[1] != spec_json:
                kind = "evaluation" if "evaluate" in spec else "tournament"
                raise StoreError(
                    f"{kind} {name!r} already exists in {self.path} with a different spec{_differs(row[1], spec)}; "
                    "use --fresh to replace it or --name to start another"
                )
            if check:
                return self.tournament(name)
            if row is None:
                db.execute(
                    "INSERT INTO tournaments (name, game, spec, created, planned) VALUES (?, ?, ?, ?, ?)",
                    (name, game, spec_json, time.time(), planned),
                )
            elif planned:
                db.execute("UPDATE tournaments SET planned = ? WHERE id = ?", (planned, row[0]))
        return self.tournament(name)

    def single_batch(self, name: str, game: str, spec: dict[str, Any], formerly: str | None = None) -> TournamentRow:
        """The batch of single matches ``name`` (``play:GAME``): created with ``spec`` the
        first time, else the one stored under that name, whatever spec it was created with
        (a batch of single matches has no schedule to keep apart). ``formerly``: the name an
        older arbiter gave the same batch; where only it is stored, that batch is the one."""
        with self._tx() as db:
            def stored(n: str) -> bool:
                return db.execute("SELECT id FROM tournaments WHERE name = ?", (n,)).fetchone() is not None

            if not stored(name) and formerly and formerly != name and stored(formerly):
                name = formerly
            elif not stored(name):
                db.execute("INSERT INTO tournaments (name, game, spec, created, planned) VALUES (?, ?, ?, ?, 0)",
                           (name, game, json.dumps(spec, sort_keys=True), time.time()))
        batch = self.tournament(name)
        if batch.disclosure.closed:  # a tournament so named: storing (and finishing) a match in it would open it
            raise StoreError(f"{name!r} in {self.path} is a tournament still running with duplicate deals, not a batch "
                             "of single matches: the match is not stored in it")
        return batch

    def next_index(self, tournament_id: int) -> int:
        """The index after the batch's last stored match (0 for none)."""
        row = self.db.execute("SELECT MAX(idx) FROM matches WHERE tournament_id = ?", (tournament_id,)).fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def set_planned(self, tournament_id: int, planned: int) -> None:
        """Record how many matches the tournament's schedule has."""
        with self._tx() as db:
            db.execute("UPDATE tournaments SET planned = ? WHERE id = ?", (planned, tournament_id))

    def drawn_seed(self, tournament_id: int) -> int | None:
        """The secret seed drawn for the tournament, or None (none drawn; read-only safe)."""
        row = self.db.execute("SELECT secret_seed FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def shown_seed(self, tour: TournamentRow) -> int | None:
        """The seed that reproduces ``tour`` (given, else drawn) if its disclosure lets it be
        shown now; else None."""
        if not tour.disclosure.seed:
            return None
        given: Any = tour.spec.get("seed")
        return int(given) if given is not None else self.drawn_seed(tour.id)

    def disclosure_of(self, row: "MatchRow") -> Disclosure:
        """The disclosure of a stored match: its batch's (``cardarena.disclosure`` decides):
        its tournament's, or its arena encounter's (closed unless stored whole); a batch that
        cannot be read is closed (``UNSAID``), as a match of none is."""
        if row.arena_id is not None:
            found = self.db.execute(
                "SELECT a.name, e.status FROM arena_encounters e JOIN arenas a ON a.id = e.arena_id "
                "WHERE e.arena_id = ? AND e.idx = ?", (row.arena_id, row.encounter)).fetchone()
            return disclosure.of_encounter(found[0], row.encounter, found[1]) if found else disclosure.UNSAID
        if row.tournament_id is None:
            return disclosure.UNSAID
        try:
            return self.tournament_disclosure(self.tournament(row.tournament_id))
        except StoreError:
            return disclosure.UNSAID

    def tournament_disclosure(self, tour: TournamentRow) -> Disclosure:
        """``tour.disclosure``, saying too, of a closed one that no run plays now (interrupted:
        ``TournamentRow.state``), how to resume it: its messages say "was interrupted ...;
        resume it: ..." where they said "still running" of a tournament nothing runs."""
        shown = tour.disclosure
        if shown.closed and tour.state(run_holder(self.path)) == "interrupted":
            return dataclasses.replace(shown, resume=tour.resume_text(self.path))
        return shown

    def read_match(self, match_id: str) -> tuple[MatchRecord, Disclosure]:
        """The one reader of a stored match, whatever played it (a tournament, an
        evaluation, ``arbiter play``, /play, an arena): its record and what of it may be
        shown (its batch's disclosure: ask ``require_match`` before showing it whole).
        StoreError if there is no such match or its record cannot be read."""
        row = self.match(match_id)
        try:
            record = row.record()
        except ValueError as exc:
            raise StoreError(f"match {match_id!r} in {self.path}: {exc}") from None
        return record, self.disclosure_of(row)

    def secret_seed(self, tournament_id: int, drawn: int | None = None) -> int:
        """The tournament's secret seed: drawn (62 random bits, ``secrets``) the first time
        and kept, so that a resumed run plays the same deals. ``drawn``: the seed to keep if
        none is kept yet (one a run drew before its tournament was written)."""
        with self._tx() as db:
            row = db.execute("SELECT secret_seed FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
            if row is None:
                raise StoreError(f"no tournament {tournament_id} in {self.path}")
            if row[0] is not None:
                return int(row[0])
            seed = secrets.randbits(62) if drawn is None else drawn
            db.execute("UPDATE tournaments SET secret_seed = ? WHERE id = ?", (seed, tournament_id))
        return seed

    _T_COLUMNS = (
        "id, name, game, spec, created, finished, planned, "
        "(SELECT COUNT(*) FROM matches m WHERE m.tournament_id = tournaments.id)"
    )

    def tournament(self, name_or_id: str | int | None = None) -> TournamentRow:
        """By name or id; the newest when None. StoreError if there is none.

        An ``int`` is an id and nothing else (a row's ``tournament_id``: its disclosure is
        that tournament's, whatever another one is named); text of digits, as a user types
        it, is a name first, then an id."""
        cols = self._T_COLUMNS
        if name_or_id is None:
            row = self.db.execute(f"SELECT {cols} FROM tournaments ORDER BY id DESC LIMIT 1").fetchone()
        elif isinstance(name_or_id, int):
            row = self.db.execute(f"SELECT {cols} FROM tournaments WHERE id = ?", (name_or_id,)).fetchone()
        elif (as_id := number(str(name_or_id))) is not None:
            row = self.db.execute(
                f"SELECT {cols} FROM tournaments WHERE name = ? OR id = ? ORDER BY name = ? DESC LIMIT 1",
                (str(name_or_id), as_id, str(name_or_id)),
            ).fetchone()
        else:
            row = self.db.execute(f"SELECT {cols} FROM tournaments WHERE name = ?", (name_or_id,)).fetchone()
        if row is None:
            what = "no tournaments" if name_or_id is None else f"no tournament {name_or_id[:80] if isinstance(name_or_id, str) else name_or_id!r}"
            raise StoreError(f"{what} in {self.path}")
        try:
            spec = json.loads(row[3])
        except json.JSONDecodeError as exc:
            raise StoreError(f"tournament {row[1]!r}: corrupt spec: {exc}") from None
        return TournamentRow(row[0], row[1], row[2], spec, row[4], row[5], row[6], row[7])

    def stored_spec(self, name: str) -> dict[str, Any] | None:
        """The spec stored under the tournament ``name`` (None: none of that name)."""
        try:
            return self.tournament(name).spec
        except StoreError:
            return None

    def tournaments(self, unreadable: list[str] | None = None) -> list[TournamentRow]:
        """Every tournament, by id. One whose stored spec cannot be read raises StoreError, or,
        given ``unreadable``, is left out and its error added there (a list of the others)."""
        out = []
        for (i,) in self.db.execute("SELECT id FROM tournaments ORDER BY id").fetchall():
            try:
                out.append(self.tournament(i))
            except StoreError as exc:
                if unreadable is None:
                    raise
                unreadable.append(str(exc))
        return out

    def mark_finished(self, tournament_id: int, verdict: "Verdict | None" = None) -> None:
        """The tournament is over; ``verdict``: an evaluation's, written in the same transaction
        (a finished evaluation never shows the verdict of a run before)."""
        with self._tx() as db:
            db.execute("UPDATE tournaments SET finished = ? WHERE id = ?", (time.time(), tournament_id))
            if verdict is not None:
                self._write_verdict(db, tournament_id, verdict)

    # -- an evaluation's verdict -------------------------------------------------------------

    def set_verdict(self, tournament_id: int, verdict: "Verdict") -> None:
        """Write (or replace) the verdict of the evaluation ``tournament_id``."""
        with self._tx() as db:
            self._write_verdict(db, tournament_id, verdict)

    @staticmethod
    def _write_verdict(db: sqlite3.Connection, tournament_id: int, v: "Verdict") -> None:
        db.execute("INSERT OR REPLACE INTO verdicts (tournament_id, decision, deals, final, text, state, written) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (tournament_id, v.decision, v.deals, int(v.final), v.text, json.dumps(v.state, sort_keys=True),
                    time.time()))

    def verdict(self, tournament_id: int) -> "Verdict | None":
        """The stored verdict of the evaluation ``tournament_id``: None for one without a
        sequential test, one whose runs have played no deal yet, and in a store written before
        verdicts were kept (it has no table of them: read-only readers do not create it)."""
        if not self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'verdicts'").fetchone():
            return None
        row = self.db.execute("SELECT decision, deals, final, text, state, written FROM verdicts WHERE tournament_id = ?",
                              (tournament_id,)).fetchone()
        if row is None:
            return None
        try:
            state = json.loads(row[4])
        except ValueError:
            state = {}
        return Verdict(row[0], int(row[1]), bool(row[2]), str(row[3]), state if isinstance(state, dict) else {},
                       float(row[5]))

    # -- entrants --------------------------------------------------------------------------

    def set_entrants(self, tournament_id: int, entrants: list[tuple[str, str, str]]) -> None:
        """Record (name, spec, launched) per bot; a resumed run keeps reported versions."""
        with self._tx() as db:
            for name, spec, launched in entrants:
                db.execute(
                    "INSERT INTO entrants (tournament_id, name, spec, launched) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (tournament_id, name) DO UPDATE SET spec = excluded.spec, launched = excluded.launched",
                    (tournament_id, name, spec, launched),
                )

    def set_entrant_versions(self, tournament_id: int, versions: list[tuple[str, str]]) -> None:
        with self._tx() as db:
            for name, version in versions:
                db.execute("UPDATE entrants SET version = ? WHERE tournament_id = ? AND name = ?", (version, tournament_id, name))

    def entrants(self, tournament_id: int) -> list[Entrant]:
        rows = self.db.execute(
            "SELECT name, spec, launched, version FROM entrants WHERE tournament_id = ? ORDER BY rowid", (tournament_id,)
        )
        return [Entrant(*r) for r in rows]

    # -- matches ---------------------------------------------------------------------------

    def save_match(
        self,
        tournament_id: int,
        idx: int,
        deal: int,
        rotation: int,
        record: MatchRecord,
        round: int = 0,
        table: int = 0,
        sides: tuple[str, ...] | list[str] = (),
    ) -> None:
        """Commit one finished match atomically; StoreError if that index is already stored."""
        self.save_matches(tournament_id, [(idx, deal, rotation, record, round, table, tuple(sides))])

    def append_match(self, tournament_id: int, record: MatchRecord) -> int:
        """Commit one finished match after the batch's last stored one (a batch of single
        matches, ``play:GAME``), its index read in the same transaction as it is written, so
        that matches kept at once by several writers (two ``arbiter play``, /play's tables)
        each get their own; the index it was stored at. Each single match is a deal of its
        own: its deal number is its index (all at deal 0, the standings counted a batch of
        any size as one deal, "too few deals" for an interval, and the dataset export's
        ``deal`` column said every match of it was one deal's seating)."""
        return self.save_matches(tournament_id, [(None, None, 0, record, 0, 0, ())])

    def save_matches(self, tournament_id: int,
                     matches: Sequence[tuple[int | None, int | None, int, MatchRecord, int, int, Sequence[str]]]) -> int:
        """Commit finished matches of a tournament, each ``(idx, deal, rotation, record, round,
        table, sides)``, in one transaction: all or none (``save_match`` is one of them); an
        idx of None is the one after the batch's last stored match (``append_match``), a deal
        of None the same number as the idx.
        StoreError if an index is already stored. The first match's index."""
        rows = []
        for idx, deal, rotation, record, round_, table, sides in matches:
            if record.outcome is None:
                raise ValueError(f"save_match: the record of match {idx} has no outcome (the match did not finish)")
            o = record.outcome
            rows.append((tournament_id, idx, record.match_id, deal, rotation, record.seed,
                         json.dumps(list(record.seat_names)), json.dumps(list(o.scores)), json.dumps(list(o.ranks)),
                         o.reason.value, o.detail, record.to_json(), round_, table, json.dumps(list(sides)),
                         incidents_json(record.incidents), len(record.actions), record.seconds, time.time()))
        try:
            with self._tx() as db:
                if any(row[1] is None for row in rows):
                    (after,) = db.execute("SELECT COALESCE(MAX(idx) + 1, 0) FROM matches WHERE tournament_id = ?",
                                          (tournament_id,)).fetchone()
                    rows = [(r[0], after + k, *r[2:]) if r[1] is None else r for k, r in enumerate(rows)]
                rows = [(*r[:3], r[1], *r[4:]) if r[3] is None else r for r in rows]
                (last,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM matches").fetchone()
                db.executemany(f"INSERT INTO matches ({_MATCH_COLUMNS}, finished) VALUES ({', '.join('?' * 19)})", rows)
                index_bots(db, "m.id > ?", (last,))
        except sqlite3.IntegrityError as exc:
            what = f"match {rows[0][1]}" if len(rows) == 1 else "a match"
            raise StoreError(f"{what} of tournament {tournament_id} is already stored ({exc})") from None
        return int(rows[0][1])

    def think_times(self, tournament_id: int, only: Collection[int] | None = None) -> dict[str, ThinkTimes]:
        """Each bot's think time and the arbiter's own time per decision over the
        tournament's stored matches (``ThinkTimes``; a bot by its name in the seats); ``only``:
        over these schedule indices alone (what ``Counted.indices`` lets be added up)."""
        if only is None:
            return think_times(self.db, "matches", "m.tournament_id = ?", (tournament_id,))
        return think_times(self.db, "matches", "m.tournament_id = ? AND m.idx IN (SELECT value FROM json_each(?))",
                           (tournament_id, json.dumps(sorted(only))))

    def done_indices(self, tournament_id: int) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT idx FROM matches WHERE tournament_id = ?", (tournament_id,))}

    def matches(self, tournament_id: int, records: bool = True) -> list[MatchRow]:
        """Every stored match of the tournament, in schedule order; without ``records``
        their records are left out (``record_json`` empty): the results alone."""
        columns = _ROW_COLUMNS if records else _ROW_COLUMNS.replace(" record,", " '',")
        rows = self.db.execute(
            f"SELECT {columns} FROM matches WHERE tournament_id = ? ORDER BY idx", (tournament_id,)
        ).fetchall()
        return [self._match_row(r) for r in rows]

    def match(self, match_id: str, tournament_id: int | None = None) -> MatchRow:
        """Any batch's match by its id, or (with ``tournament_id``) a tournament's by its
        schedule index too. What of it may be shown is ``disclosure_of``'s (or use
        ``read_match``)."""
        r = self.db.execute(f"SELECT {_ROW_COLUMNS} FROM matches WHERE match_id = ?", (match_id,)).fetchone()
        if r is None and tournament_id is not None and number(str(match_id)) is not None:
            r = self.db.execute(
                f"SELECT {_ROW_COLUMNS} FROM matches WHERE tournament_id = ? AND idx = ?", (tournament_id, number(str(match_id)))
            ).fetchone()
        if r is None:
            raise StoreError(f"no match {str(match_id)[:80]!r} in {self.path}")
        return self._match_row(r)

    def bot_matches(self, bot: str, limit: int = 1000, records: bool = False) -> list[MatchRow]:
        """The last ``limit`` matches ``bot`` (a name as in the seats: ``name@version`` for a
        registered one) played, in any batch, newest first; without ``records`` their
        records are left out (``record_json`` empty). What of each may be shown is its
        batch's (``disclosure_of``). Indexed (``match_bots``): ``python -m
        arbiter.tools.store_bench`` measures it on a million matches."""
        columns = ", ".join(f"m.{c.strip()}" if records or c.strip() != "record" else "''" for c in _ROW_COLUMNS.split(","))
        rows = self.db.execute(
            f"SELECT {columns} FROM match_bots b JOIN matches m ON m.id = b.match WHERE b.bot = ? "
            "ORDER BY b.match DESC LIMIT ?", (bot, limit)).fetchall()
        return [self._match_row(r) for r in rows]

    def versions_played(self, name: str) -> list[str]:
        """The seat names ``name@version`` under which versions of the registered bot
        ``name`` played stored matches (removed versions included: their matches stay), in
        order; what a bot's author means by its name alone. Indexed (``match_bots``' key)."""
        rows = self.db.execute("SELECT DISTINCT bot FROM match_bots WHERE bot > ? AND bot < ? ORDER BY bot",
                               (f"{name}@", f"{name}A"))  # '@' then 'A': every name@..., nothing else
        return [r[0] for r in rows]

    def _match_row(self, r: tuple) -> MatchRow:
        try:
            outcome = Outcome(_json_tuple(r[7]), _json_tuple(r[8]), EndReason(r[9]), r[10])
            incidents = incidents_from_json(r[15])
            return MatchRow(
                r[0], r[1], r[2], r[3], r[4], r[5], _json_tuple(r[6]), outcome, r[11],
                r[12], r[13], _json_tuple(r[14]), incidents, r[16], r[17], r[18], r[19],
            )
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreError(f"match {r[2]!r} in {self.path} is corrupt: {exc}") from None
