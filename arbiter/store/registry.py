"""The bot registry: checked, immutable, content-hashed copies of submitted bots.

A submission is one Python file, or a folder whose entry point is ``bot.py`` (other
modules of the folder may be imported by it; ``arbiter bots new NAME`` writes a template),
or a folder whose ``bot.toml`` names another runtime and its entry file
(``cardarena.runtimes``: a Node.js bot, ``node_modules`` inside; larger size limits).
``collect`` gathers its files (regular files only: no symlinks, no ``..``, at most
``MAX_FILES`` files and ``MAX_BYTES`` bytes; ``__pycache__`` and ``*.pyc`` are skipped),
is checked (``arbiter.batch.submissions.check_bot``: the sandboxed self-test plus a
smoke match against the random bot over gRPC, the bot in its sandbox, within its
clocks), then ``Registry.add`` stores a read-only copy under ``<store>.bots/<sha256>/`` next to the store
file and records it in the ``bots`` and ``bot_versions`` tables of the SAME SQLite file.

The hash covers the sorted relative paths and the bytes of every file, so equal content
is stored once, and a stored copy whose files no longer hash to its name is detected
(``Registry.verify``). A (name, version) pair never changes content: submitting other
content under a registered version is an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator

from arbiter.store.db import StoreError, connect_read_only, connect_writer, refuse_newer, store_error, transaction
from cardarena import names
from cardarena.runtimes import MANIFEST, PYTHON, ManifestError, Runtime, parse_manifest

log = logging.getLogger(__name__)

MAX_FILES = PYTHON.max_files  # a Python bot's; another runtime's are its own (cardarena.runtimes)
MAX_BYTES = PYTHON.max_bytes
ENTRY = "bot.py"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bots (
    name TEXT PRIMARY KEY,
    author TEXT NOT NULL,        -- who registered the name; only they (or the admin) change it
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS bot_versions (
    name TEXT NOT NULL REFERENCES bots(name) ON DELETE CASCADE,
    version TEXT NOT NULL,
    content_hash TEXT NOT NULL,  -- sha256 of the submission; the stored copy's folder name
    entry TEXT NOT NULL,         -- entry file inside the copy
    games TEXT NOT NULL,         -- JSON list the bot claims ("*": any)
    deterministic INTEGER NOT NULL,
    author TEXT NOT NULL,
    submitted REAL NOT NULL,
    report TEXT NOT NULL,        -- JSON check report
    PRIMARY KEY (name, version)
);
CREATE TABLE IF NOT EXISTS removed_versions (  -- a removed version's number keeps naming its files
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    removed REAL NOT NULL,
    PRIMARY KEY (name, version)
);
"""


class RegistryError(Exception):
    """A bad submission or request (name, layout, size, unknown bot, not yours); says what."""


class SubmissionRejected(RegistryError):
    """The bot failed its checks; ``report`` says which."""

    def __init__(self, message: str, report: Any):
        super().__init__(message)
        self.report = report



def is_registered_ref(spec: str) -> bool:
    """True for ``name@version`` (a bot from the registry), not a path or module."""
    return names.is_ref(spec) and not Path(spec).exists()

@dataclass(frozen=True)
class Submission:
    """The files of a submission, by relative posix path, and its entry file.
    ``left_out``: what ``collect`` found in the folder and did not take (an arbiter's store
    and its bots' copies, ``store_byproduct``), for the author to be told; not content."""

    files: dict[str, bytes]
    entry: str
    left_out: tuple[str, ...] = field(default=(), compare=False)

    @property
    def content_hash(self) -> str:
        h = hashlib.sha256()
        for path in sorted(self.files):
            data = self.files[path]
            h.update(path.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
        return h.hexdigest()

    @property
    def size(self) -> int:
        return sum(len(d) for d in self.files.values())


def _clean_relpath(path: str) -> str:
    p = PurePosixPath(path)
    if p.is_absolute() or not p.parts or any(part in ("", ".", "..") for part in p.parts) or "\\" in path or "\0" in path:
        raise RegistryError(f"bad file path {path[:120]!r} in submission: relative, no '..', no absolute path")
    return p.as_posix()


def check_name(name: str) -> str:
    """``name`` if it is a valid registry name, else RegistryError saying why."""
    try:
        return names.check_name(name)
    except names.NameError_ as exc:
        raise RegistryError(str(exc)) from None


def check_version(version: str) -> str:
    """``version`` if it is a valid version, else RegistryError saying why."""
    try:
        return names.check_version(version)
    except names.NameError_ as exc:
        raise RegistryError(str(exc)) from None


def collect(path: str | os.PathLike) -> Submission:
    """Read a submission from disk: a ``.py`` file, or a folder holding ``bot.py``."""
    root = Path(path)
    if not root.exists():
        raise RegistryError(f"{root}: no such file or folder")
    if root.is_symlink():
        raise RegistryError(f"{root}: a symlink; submit the file or folder itself")
    if root.is_file():
        if root.suffix != ".py":
            raise RegistryError(f"{root}: a single-file bot must be a .py file")
        files = {root.name: root.read_bytes()}
        return validate(Submission(files, root.name))
    runtime = _runtime_of((root / MANIFEST).read_bytes()) if (root / MANIFEST).is_file() else PYTHON
    files: dict[str, bytes] = {}
    left_out: list[str] = []
    total = 0
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if "__pycache__" in rel.parts or p.suffix == ".pyc" or any(part.startswith(".") for part in rel.parts):
            continue
        if any(store_byproduct(part, True) for part in rel.parts[:-1]):
            continue  # inside a store's copies folder, left out with it
        if store_byproduct(rel.name, p.is_dir() and not p.is_symlink()):
            left_out.append(rel.as_posix() + ("/" if p.is_dir() else ""))
            continue
        if p.is_symlink():
            raise RegistryError(f"{root}: {rel} is a symlink; a submission holds regular files only")
        if p.is_dir():
            continue
        if not p.is_file():
            raise RegistryError(f"{root}: {rel} is not a regular file")
        total += p.stat().st_size
        if total > runtime.max_bytes or len(files) >= runtime.max_files:
            raise RegistryError(f"{root}: too big (at most {runtime.max_files} files and {runtime.max_bytes // 1024} KiB"
                                f"{'' if runtime is PYTHON else ' for a ' + runtime.name + ' bot'})")
        files[rel.as_posix()] = p.read_bytes()
    return validate(Submission(files, MANIFEST if runtime is not PYTHON else ENTRY, tuple(left_out)))


def _runtime_of(manifest: bytes) -> Runtime:
    try:
        return parse_manifest(manifest).runtime
    except ManifestError as exc:
        raise RegistryError(str(exc)) from None


def validate(sub: Submission) -> Submission:
    """Check the layout of a submission (from disk or from the wire); RegistryError if bad."""
    if not sub.files:
        raise RegistryError("empty submission")
    manifest = None
    if sub.entry == MANIFEST:  # a bot of another runtime: its manifest says which, and its entry file
        if MANIFEST not in sub.files:
            raise RegistryError(f"the manifest {MANIFEST} is missing")
        try:
            manifest = parse_manifest(sub.files[MANIFEST])
        except ManifestError as exc:
            raise RegistryError(str(exc)) from None
    runtime = manifest.runtime if manifest else PYTHON
    if len(sub.files) > runtime.max_files or sub.size > runtime.max_bytes:
        # in the limit's own unit, and the largest file named: what an author trims first
        largest = max(sub.files, key=lambda p: len(sub.files[p]))
        n = len(sub.files)
        raise RegistryError(f"submission too big: {n} file{'' if n == 1 else 's'}, {-(-sub.size // 1024)} KiB, the "
                            f"largest {largest} ({-(-len(sub.files[largest]) // 1024)} KiB) "
                            f"(at most {runtime.max_files} files and {runtime.max_bytes // 1024} KiB"
                            f"{'' if runtime is PYTHON else ' for a ' + runtime.name + ' bot'})")
    for p in sub.files:
        _clean_relpath(p)
    if manifest is not None:
        if manifest.entry not in sub.files:
            raise RegistryError(f"the entry file {manifest.entry!r} that {MANIFEST} names is missing")
        return sub
    entry = _clean_relpath(sub.entry)
    if entry not in sub.files:
        raise RegistryError(f"the entry file {entry!r} is missing; a folder bot needs {ENTRY} at its top "
                            "(see `arbiter bots new NAME`)")
    if not entry.endswith(".py"):
        raise RegistryError(f"the entry file {entry!r} is not a .py file")
    return sub


def materialize(sub: Submission, dest: Path) -> Path:
    """Write the files under ``dest`` (created); returns the path to hand to the loader."""
    for rel, data in sub.files.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return dest if sub.entry in (ENTRY, MANIFEST) else dest / sub.entry


@dataclass(frozen=True)
class BotVersion:
    name: str
    version: str
    content_hash: str
    entry: str
    games: tuple[str, ...]
    deterministic: bool
    author: str
    submitted: float
    report: dict[str, Any]
    root: Path  # the registry folder

    @property
    def path(self) -> Path:
        """The stored copy (a folder named by the hash)."""
        return self.root / self.content_hash

    @property
    def spec(self) -> str:
        """What ``bots.load_bot`` / ``BotPool.launch`` take to run this version."""
        return str(self.path if self.entry in (ENTRY, MANIFEST) else self.path / self.entry)


def read_stored(path: Path) -> dict[str, bytes]:
    """The files of a bot folder by relative path: what its content hash covers."""
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in path.rglob("*") if p.is_file()}


# --------------------------------------------------------------------------------------
# The registry.


#: The files an arbiter's store is made of, by how their names end: the store, SQLite's
#: companions of it, its lock and its watch file (``Store``).
_STORE_FILES = (".sqlite", ".sqlite-wal", ".sqlite-shm", ".sqlite-journal", ".sqlite.lock", ".sqlite.watch")


def store_byproduct(name: str, is_dir: bool) -> bool:
    """True if a file (or folder) named ``name`` is an arbiter's store or part of it (its
    bots' copies, ``registry_dir``), not a bot's own: `arbiter play . random` and `arbiter
    bots submit .`, run in a bot's folder as docs/other-languages.md shows, make
    ``arena.sqlite`` and ``arena.bots/`` there, and a submission of the folder took them
    (every match of the store, and each earlier version's whole copy, nested)."""
    return name.endswith(".bots") if is_dir else name.endswith(_STORE_FILES)


def registry_dir(db_path: str | os.PathLike) -> Path:
    """The folder of stored copies next to the store file: ``arena.sqlite`` -> ``arena.bots``."""
    p = Path(db_path)
    return p.with_name(p.stem + ".bots")


def _write_error(db_path: Path, exc: sqlite3.DatabaseError) -> RegistryError:
    """A failed write to the registry, in words."""
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return RegistryError(f"{db_path} is read-only (the file, its folder or its filesystem): "
                             "bots can be listed and shown from it, not registered or removed")
    return RegistryError(str(store_error(db_path, exc)))  # the store's words for the rest: one wording


class Registry:
    """The ``bots``/``bot_versions`` tables of a store file and the copies next to it.

    ``read_only``: for listing and showing: the file must exist; nothing is written to it
    or next to it (see ``arbiter.store.db.connect_read_only``), so an archived store on a
    read-only file, folder or filesystem reads; a store without the registry's tables
    reads as an empty registry."""

    def __init__(self, db_path: str | os.PathLike, read_only: bool = False):
        self.db_path = Path(db_path)
        self.root = registry_dir(self.db_path).resolve()
        self.read_only = read_only
        self._tables = True
        # One connection, shared by the threads of a server (the Bots service registers a
        # checked submission in a worker thread while its loop lists and removes): what
        # reads or writes it takes turns, so a transaction never meets another's on it.
        self._lock = threading.RLock()
        if read_only:
            try:
                self.db = connect_read_only(self.db_path)
                try:
                    refuse_newer(self.db, self.db_path)
                except StoreError:
                    self.db.close()
                    raise
                self._tables = self.db.execute(
                    "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('bots', 'bot_versions')").fetchone()[0] == 2
            except StoreError as exc:
                raise RegistryError(str(exc)) from None
            except sqlite3.DatabaseError as exc:
                raise RegistryError(f"{self.db_path} is not a readable store: {exc}") from None
            return
        try:
            self.db = connect_writer(self.db_path, threads=True)  # as the store's own: readers never see a write half done
            self.db.executescript(_SCHEMA)
        except StoreError as exc:  # another program's database, a newer arbiter's store
            raise RegistryError(str(exc)) from None
        except sqlite3.DatabaseError as exc:
            raise _write_error(self.db_path, exc) from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Registry":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock, transaction(self.db) as db:
            yield db

    # -- copies ----------------------------------------------------------------------------

    def _store_copy(self, sub: Submission) -> Path:
        """The read-only copy of ``sub`` (written once; an existing one is verified)."""
        digest = sub.content_hash
        dest = self.root / digest
        if dest.exists():
            if self._hash_dir(dest, sub.entry) != digest:
                raise RegistryError(f"stored copy {dest} does not match its hash (tampered?); remove it by hand")
            return dest
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            _unlisted(self.root)
            # a copy is made only inside a write transaction (``_add``): any other one's half copy
            # here is a submission killed while copying, left hidden; it goes now
            for stale in self.root.glob(".incoming-*"):
                with contextlib.suppress(OSError):
                    _rmtree(stale)
            tmp = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.root))
        except OSError as exc:
            raise RegistryError(f"cannot store the copy under {self.root}: {exc.strerror or exc}") from None
        try:
            materialize(sub, tmp)
            for p in sorted(tmp.rglob("*"), reverse=True):
                p.chmod(0o555 if p.is_dir() else 0o444)
            tmp.chmod(0o555)
            tmp.rename(dest)  # atomic: a copy is there whole or not at all
        except OSError as exc:
            _rmtree(tmp)
            raise RegistryError(f"cannot store the copy under {self.root}: {exc.strerror or exc}") from None
        except BaseException:
            _rmtree(tmp)
            raise
        return dest

    @staticmethod
    def _hash_dir(path: Path, entry: str) -> str:
        return Submission(read_stored(path), entry).content_hash

    def verify(self, v: BotVersion) -> bool:
        """True if the stored copy of ``v`` still hashes to its recorded hash."""
        return v.path.is_dir() and self._hash_dir(v.path, v.entry) == v.content_hash

    # -- records ---------------------------------------------------------------------------

    def add(self, name: str, version: str, sub: Submission, report: Any, author: str = "local") -> BotVersion:
        """``report``: the passed check report (``arbiter.hosting.botcheck.Report``)."""
        """Store ``sub`` and record it as ``name`` ``version`` (after its checks passed)."""
        check_name(name)
        check_version(version)
        sub = validate(sub)
        digest = sub.content_hash
        try:
            return self._add(name, version, sub, digest, report, author)
        except sqlite3.DatabaseError as exc:
            raise _write_error(self.db_path, exc) from None

    def _add(self, name: str, version: str, sub: Submission, digest: str, report: Any, author: str) -> BotVersion:
        with self._tx() as db:
            owner = db.execute("SELECT author FROM bots WHERE name = ?", (name,)).fetchone()
            if owner is not None and owner[0] != author and author != "admin":  # (bot names are public: README)
                raise RegistryError(f"the bot name {name!r} is taken by another author (bot names are public, as on "
                                    "every leaderboard): submit under another name")
            row = db.execute("SELECT content_hash FROM bot_versions WHERE name = ? AND version = ?", (name, version)).fetchone()
            if row is not None and row[0] != digest:
                raise RegistryError(f"{name} {version} is already registered with other content; versions are immutable: "
                                    "submit with a new --version")
            gone = db.execute("SELECT content_hash FROM removed_versions WHERE name = ? AND version = ?",
                              (name, version)).fetchone()
            if row is None and gone is not None and gone[0] != digest:
                # the matches stored under it (a tournament resumed, a ladder's history) name those files
                raise RegistryError(f"{name} {version} was registered with other content and removed; a version names "
                                    "one set of files for good (the matches stored under it were played by them): "
                                    "submit with a new --version")
            self._store_copy(sub)
            if owner is None:
                db.execute("INSERT INTO bots VALUES (?, ?, ?)", (name, author, time.time()))
            if row is None:
                bot = report.bot
                db.execute(
                    "INSERT INTO bot_versions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (name, version, digest, sub.entry, json.dumps(list(bot.get("games", []))), int(bool(bot.get("deterministic"))),
                     author, time.time(), json.dumps(report.to_dict())),
                )
        return self.get(name, version)

    def _row(self, r: tuple) -> BotVersion:
        try:
            return BotVersion(r[0], r[1], r[2], r[3], tuple(json.loads(r[4])), bool(r[5]), r[6], r[7], json.loads(r[8]), self.root)
        except (ValueError, TypeError) as exc:
            raise RegistryError(f"bot {r[0]} {r[1]} in {self.db_path} is corrupt: {exc}") from None

    def versions(self, name: str | None = None, author: str | None = None) -> list[BotVersion]:
        """Every version (of ``name``; of ``author``'s bots), by name then submission order."""
        sql, args = "SELECT * FROM bot_versions WHERE 1=1", []
        if name is not None:
            sql += " AND name = ?"
            args.append(name)
        if author is not None:
            sql += " AND name IN (SELECT name FROM bots WHERE author = ?)"
            args.append(author)
        if not self._tables:
            return []
        with self._lock:
            rows = self.db.execute(sql + " ORDER BY name, submitted, version", args).fetchall()
        return [self._row(r) for r in rows]

    def names(self) -> list[str]:
        """Every registered bot name."""
        if not self._tables:
            return []
        with self._lock:
            return [r[0] for r in self.db.execute("SELECT name FROM bots ORDER BY name")]

    def get(self, name: str, version: str | None = None) -> BotVersion:
        """A version, the latest when ``version`` is None; RegistryError if there is none."""
        vs = [v for v in self.versions(name) if version is None or v.version == version]
        if not vs:
            what = f"{name}@{version}" if version else name
            known = sorted({v.version for v in self.versions(name)})
            if known:
                raise RegistryError(f"no bot {what!r} in the registry of {self.db_path} ({name} has version"
                                    f"{'s' if len(known) > 1 else ''} {', '.join(known)})")
            raise RegistryError(f"no bot {what!r} in the registry of {self.db_path}{self._did_you_mean(name)}")
        return vs[-1]

    def _did_you_mean(self, name: str) -> str:
        return names.did_you_mean(name, self.names())

    def owner(self, name: str) -> str | None:
        if not self._tables:
            return None
        with self._lock:
            row = self.db.execute("SELECT author FROM bots WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def remove(self, name: str, version: str | None = None, author: str = "admin") -> int:
        """Remove one version (or all); deletes a stored copy no version uses any more."""
        owner = self.owner(name)
        if owner is None:
            raise RegistryError(f"no bot {name!r} in the registry of {self.db_path}{self._did_you_mean(name)}")
        if author != "admin" and owner != author:
            raise RegistryError(f"bot {name!r} belongs to another author")
        try:
            return self._remove(name, version)
        except sqlite3.DatabaseError as exc:
            raise _write_error(self.db_path, exc) from None

    def _remove(self, name: str, version: str | None) -> int:
        with self._tx() as db:
            # each version removed keeps its number for its files (``_add`` refuses other content under it)
            db.execute("INSERT OR REPLACE INTO removed_versions SELECT name, version, content_hash, ? FROM bot_versions "
                       "WHERE name = ?" + ("" if version is None else " AND version = ?"),
                       (time.time(), name) + (() if version is None else (version,)))
            if version is None:
                hashes = [r[0] for r in db.execute("SELECT content_hash FROM bot_versions WHERE name = ?", (name,))]
                db.execute("DELETE FROM bot_versions WHERE name = ?", (name,))
                db.execute("DELETE FROM bots WHERE name = ?", (name,))
            else:
                hashes = [r[0] for r in db.execute("SELECT content_hash FROM bot_versions WHERE name = ? AND version = ?", (name, version))]
                if not hashes:
                    known = [r[0] for r in db.execute("SELECT version FROM bot_versions WHERE name = ? "
                                                      "ORDER BY submitted, version", (name,))]
                    raise RegistryError(f"bot {name!r} has no version {version!r} (its version"
                                        f"{'s' if len(known) > 1 else ''}: {', '.join(known)}); nothing removed")
                db.execute("DELETE FROM bot_versions WHERE name = ? AND version = ?", (name, version))
                if db.execute("SELECT COUNT(*) FROM bot_versions WHERE name = ?", (name,)).fetchone()[0] == 0:
                    db.execute("DELETE FROM bots WHERE name = ?", (name,))
        # The copies no version uses now leave their hash's place in a transaction of their
        # own (no row changes in it: a kill inside it loses nothing), so that an ``add`` of
        # the same content (whose copy and row are one transaction) either comes before and
        # keeps its copy, or after and writes a fresh one; and a kill while a copy is being
        # deleted leaves a hidden folder, never a half copy under a hash.
        doomed = []
        with self._tx() as db:
            for h in sorted(set(hashes)):
                if db.execute("SELECT COUNT(*) FROM bot_versions WHERE content_hash = ?", (h,)).fetchone()[0] == 0 \
                        and (self.root / h).exists():
                    doomed.append(self.root / h)
                    doomed[-1] = doomed[-1].rename(Path(tempfile.mkdtemp(prefix=".removed-", dir=self.root)) / h)
        # (another process's removal may be deleting the same leftovers at once: what it took is gone either way)
        for left in [p.parent for p in doomed] + (sorted(self.root.glob(".removed-*")) if self.root.is_dir() else []):
            with contextlib.suppress(OSError):
                _rmtree(left)
        return len(hashes)


def registered_versions(db_path: str | os.PathLike, name: str) -> list[str]:
    """The versions of ``name`` in the registry of the store at ``db_path``, oldest first;
    [] if there is no such bot, store or registry (asked only to explain a name that names
    no bot, so it never fails on an unreadable store: the command's own use says that)."""
    if not names.is_name(name) or not Path(db_path).is_file():
        return []
    try:
        with Registry(db_path, read_only=True) as registry:
            return [v.version for v in registry.versions(name)]
    except (RegistryError, sqlite3.Error, OSError):
        return []


def missing_copy(db_path: str | os.PathLike, ref: str, path: Path) -> str:
    """Why a registered version's stored copy is not there, and where the copies belong: a
    store moved or copied without the folder of copies beside it is the usual way."""
    root = registry_dir(db_path)
    where = f"the store's copies folder {root} is missing" if not root.is_dir() else f"no folder {path}"
    return (f"the stored copy of {ref!r} is missing: {where} (a store's bot copies live beside it, in "
            f"{root.name}/: a store moved or copied without that folder has none of them)")


def lookup(db_path: str | os.PathLike, ref: str) -> tuple[BotVersion, dict[str, bytes]]:
    """The version a ``name@version`` reference names in the registry of the store at
    ``db_path``, and its stored files, checked against its recorded hash; RegistryError
    (naming what is wrong) otherwise."""
    name, version = names.split_ref(ref) if names.is_ref(ref) else (ref, None)
    if not Path(db_path).is_file():
        raise RegistryError(f"no bot {ref!r}: no store at {db_path} (arbiter bots submit registers bots there)")
    with Registry(db_path, read_only=True) as registry:
        found = registry.get(name, version)
        if not found.path.is_dir():  # read_stored would read no files: a "hash mismatch" it is not
            raise RegistryError(missing_copy(db_path, ref, found.path))
        try:
            files = read_stored(found.path)
        except OSError as exc:
            raise RegistryError(f"the stored copy of {ref!r} cannot be read: {exc}") from None
    if Submission(files, found.entry).content_hash != found.content_hash:
        raise RegistryError(f"the stored copy {found.path} does not match its recorded hash")
    return found, files


def _unlisted(root: Path) -> None:
    """Let other users pass through the folder of stored copies but not list it: each bot
    sees its own copy where its sandbox binds it (``/bot/code``), never through this folder,
    and a bot whose sandbox shows the folder (the store under /usr, say) would otherwise
    read the code of every bot registered, by the hashes it lists. Others keep the right
    to pass, which a bot of an arbiter without bubblewrap needs to reach its own copy."""
    with contextlib.suppress(OSError):
        mode = root.stat().st_mode
        if mode & 0o004 or not mode & 0o001:
            root.chmod((mode & 0o7773) | 0o001)


def _rmtree(path: Path) -> None:
    def writable(func: Callable, p: str, _exc: Any) -> None:
        os.chmod(os.path.dirname(p), 0o755)
        os.chmod(p, 0o755)
        func(p)

    if path.exists():
        for d in [path, *(p for p in path.rglob("*") if p.is_dir())]:
            d.chmod(0o755)
        shutil.rmtree(path, onerror=writable)
