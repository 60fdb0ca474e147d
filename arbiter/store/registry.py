"""The bot registry: checked, immutable, content-hashed copies of submitted bots.

A submission is one Python file, or a folder whose entry point is ``bot.py`` (other
modules of the folder may be imported by it; ``arbiter bots new NAME`` writes a template).
``submit`` collects its files (regular files only: no symlinks, no ``..``, at most
``MAX_FILES`` files and ``MAX_BYTES`` bytes; ``__pycache__`` and ``*.pyc`` are skipped),
checks the bot (``check_bot``: the sandboxed self-test of ``arbiter.botcheck`` plus a
smoke match against the random bot over gRPC, the bot in its sandbox, within its
clocks), then stores a read-only copy under ``<store>.bots/<sha256>/`` next to the store
file and records it in the ``bots`` and ``bot_versions`` tables of the SAME SQLite file.

The hash covers the sorted relative paths and the bytes of every file, so equal content
is stored once, and a stored copy whose files no longer hash to its name is detected
(``Registry.verify``). A (name, version) pair never changes content: submitting other
content under a registered version is an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from arbiter.hosting import sandbox as sb
from arbiter.hosting.botcheck import SMOKE_OPTIONS, Check, Report
from arbiter.store.db import transaction

log = logging.getLogger(__name__)

MAX_FILES = 200
MAX_BYTES = 5 * 1024 * 1024
ENTRY = "bot.py"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,31}$")

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
"""


class RegistryError(Exception):
    """A bad submission or request (name, layout, size, unknown bot, not yours); says what."""


class SubmissionRejected(RegistryError):
    """The bot failed its checks; ``report`` says which."""

    def __init__(self, message: str, report: Report):
        super().__init__(message)
        self.report = report


@dataclass(frozen=True)
class Submission:
    """The files of a submission, by relative posix path, and its entry file."""

    files: dict[str, bytes]
    entry: str

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
    if not _NAME.match(name):
        raise RegistryError(f"bad bot name {name[:80]!r}: letters, digits, '-', '_', '.' (max 64)")
    return name


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
    files: dict[str, bytes] = {}
    total = 0
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if "__pycache__" in rel.parts or p.suffix == ".pyc" or any(part.startswith(".") for part in rel.parts):
            continue
        if p.is_symlink():
            raise RegistryError(f"{root}: {rel} is a symlink; a submission holds regular files only")
        if p.is_dir():
            continue
        if not p.is_file():
            raise RegistryError(f"{root}: {rel} is not a regular file")
        total += p.stat().st_size
        if total > MAX_BYTES or len(files) >= MAX_FILES:
            raise RegistryError(f"{root}: too big (at most {MAX_FILES} files and {MAX_BYTES // 1024} KiB)")
        files[rel.as_posix()] = p.read_bytes()
    return validate(Submission(files, ENTRY))


def validate(sub: Submission) -> Submission:
    """Check the layout of a submission (from disk or from the wire); RegistryError if bad."""
    if not sub.files:
        raise RegistryError("empty submission")
    if len(sub.files) > MAX_FILES or sub.size > MAX_BYTES:
        raise RegistryError(f"submission too big: {len(sub.files)} files, {sub.size} bytes "
                            f"(at most {MAX_FILES} files and {MAX_BYTES // 1024} KiB)")
    for p in sub.files:
        _clean_relpath(p)
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
    return dest if sub.entry == ENTRY else dest / sub.entry


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
        return str(self.path if self.entry == ENTRY else self.path / self.entry)


def read_stored(path: Path) -> dict[str, bytes]:
    """The files of a bot folder by relative path: what its content hash covers."""
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in path.rglob("*") if p.is_file()}


# --------------------------------------------------------------------------------------
# Checks.


def check_bot(
    path: str | os.PathLike,
    *,
    positions: int = 200,
    decision_ms: int = 2000,
    bank_ms: int = 10_000,
    smoke: bool = True,
    seed: int = 1,
    sandbox: sb.Sandbox | None = None,
    timeout: float = 120.0,
) -> Report:
    """Check a bot without registering it: the sandboxed self-test, then a smoke match.

    The self-test runs the untrusted code confined (``arbiter.botcheck``); the smoke match
    is refereed by this process (an arbiter on a free port, the bot in its sandbox against
    the random bot, forfeit on any failure), so a bot cannot talk its way past it.
    """
    box = sandbox or sb.Sandbox()
    path = Path(path).resolve()
    spec = box.code_path(path)
    argv = [sys.executable, "-m", "arbiter.hosting.botcheck", spec, "--positions", str(positions), "--decision-ms", str(decision_ms)]
    env = {"PYTHONPATH": box.code_path(path)} if path.is_dir() else {}
    launch = box.prepare(argv, code=[path], env=env, needs_arbiter=False)
    report = Report(str(path))
    try:
        proc = subprocess.run(launch.argv, env=launch.env, cwd=launch.cwd, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=timeout, start_new_session=True)
        lines = [ln for ln in proc.stdout.decode("utf-8", "replace").splitlines() if ln.startswith("{")]
        if not lines:
            tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-8:]
            report.add("self-test", False, f"the check process ended (code {proc.returncode}) without a report: " + " | ".join(tail))
            return report
        report = Report.from_dict(json.loads(lines[-1]))
        report.spec = str(path)
    except subprocess.TimeoutExpired:
        report.add("self-test", False, f"did not finish within {timeout:.0f} s (a decision that never returns?)")
        return report
    except (ValueError, KeyError) as exc:
        report.add("self-test", False, f"unreadable report: {exc}")
        return report
    finally:
        sb.cleanup(launch.workdir)
    if report.ok and smoke:
        games = report.bot.get("games") or ["*"]
        game = "spades" if "*" in games else games[0]
        report.checks.append(asyncio.run(_smoke(path, game, decision_ms, bank_ms, seed, box)))
    return report


async def _smoke(path: Path, game_name: str, decision_ms: int, bank_ms: int, seed: int, box: sb.Sandbox) -> Check:
    from arbiter.hosting.botproc import BotPool, BotStartError
    from cardarena.games import get_game
    from cardarena.records import Clock, FailurePolicy, MatchConfig
    from arbiter.match import run_match
    from arbiter.server.arena import RemoteSeat, start_private_server

    options = SMOKE_OPTIONS.get(game_name, {})
    game = get_game(game_name, options)
    server = await start_private_server()
    pool = BotPool(server.hub, server.address, sandbox=box)
    try:
        pool.launch("candidate", str(path))
        pool.launch("random", "random")
        try:
            await pool.wait_connected(30)
        except BotStartError as exc:
            return Check("smoke", False, f"did not connect: {exc}")
        seats = [RemoteSeat(pool.procs["candidate" if s % 2 == 0 else "random"].session, game_name) for s in range(game.num_seats)]
        config = MatchConfig(game=game_name, seed=seed, options=options, clock=Clock(decision_ms, bank_ms),
                             policy=FailurePolicy.uniform("forfeit"))
        record = await run_match(config, seats)
    finally:
        await server.stop(0.2)
        pool.stop()
    mine = [i for i in record.incidents if i.seat % 2 == 0]
    if mine or record.outcome is None:
        inc = mine[0] if mine else None
        detail = f"{inc.kind}: {inc.detail}" + (f"; stderr: {inc.stderr[-600:]}" if inc.stderr else "") if inc else "no outcome"
        return Check("smoke", False, f"{game_name} vs random: {detail}")
    return Check("smoke", True, f"{game_name} vs random (seed {seed}): {record.outcome.reason.value}, "
                 f"{len(record.actions)} decisions in {record.seconds:.2f} s, ranks {list(record.outcome.ranks)}")


# --------------------------------------------------------------------------------------
# The registry.


def registry_dir(db_path: str | os.PathLike) -> Path:
    """The folder of stored copies next to the store file: ``arena.sqlite`` -> ``arena.bots``."""
    p = Path(db_path)
    return p.with_name(p.stem + ".bots")


class Registry:
    """The ``bots``/``bot_versions`` tables of a store file and the copies next to it."""

    def __init__(self, db_path: str | os.PathLike):
        self.db_path = Path(db_path)
        self.root = registry_dir(self.db_path).resolve()
        try:
            self.db = sqlite3.connect(self.db_path, timeout=30, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA foreign_keys = ON")
            self.db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise RegistryError(f"{self.db_path} is not a usable store: {exc}") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "Registry":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _tx(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return transaction(self.db)

    # -- copies ----------------------------------------------------------------------------

    def _store_copy(self, sub: Submission) -> Path:
        """The read-only copy of ``sub`` (written once; an existing one is verified)."""
        digest = sub.content_hash
        dest = self.root / digest
        if dest.exists():
            if self._hash_dir(dest, sub.entry) != digest:
                raise RegistryError(f"stored copy {dest} does not match its hash (tampered?); remove it by hand")
            return dest
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.root))
        try:
            materialize(sub, tmp)
            for p in sorted(tmp.rglob("*"), reverse=True):
                p.chmod(0o555 if p.is_dir() else 0o444)
            tmp.chmod(0o555)
            tmp.rename(dest)  # atomic: a copy is there whole or not at all
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

    def add(self, name: str, version: str, sub: Submission, report: Report, author: str = "local") -> BotVersion:
        """Store ``sub`` and record it as ``name`` ``version`` (after its checks passed)."""
        check_name(name)
        if not _VERSION.match(version):
            raise RegistryError(f"bad version {version[:40]!r}: letters, digits, '.', '_', '+', '-' (max 32)")
        sub = validate(sub)
        digest = sub.content_hash
        with self._tx() as db:
            owner = db.execute("SELECT author FROM bots WHERE name = ?", (name,)).fetchone()
            if owner is not None and owner[0] != author and author != "admin":
                raise RegistryError(f"bot {name!r} belongs to another author")
            row = db.execute("SELECT content_hash FROM bot_versions WHERE name = ? AND version = ?", (name, version)).fetchone()
            if row is not None and row[0] != digest:
                raise RegistryError(f"{name} {version} is already registered with other content; versions are immutable: "
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
        return [self._row(r) for r in self.db.execute(sql + " ORDER BY name, submitted, version", args)]

    def get(self, name: str, version: str | None = None) -> BotVersion:
        """A version, the latest when ``version`` is None; RegistryError if there is none."""
        vs = [v for v in self.versions(name) if version is None or v.version == version]
        if not vs:
            what = f"{name} {version}" if version else name
            raise RegistryError(f"no bot {what!r} in the registry of {self.db_path}")
        return vs[-1]

    def owner(self, name: str) -> str | None:
        row = self.db.execute("SELECT author FROM bots WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def remove(self, name: str, version: str | None = None, author: str = "admin") -> int:
        """Remove one version (or all); deletes a stored copy no version uses any more."""
        owner = self.owner(name)
        if owner is None:
            raise RegistryError(f"no bot {name!r} in the registry of {self.db_path}")
        if author != "admin" and owner != author:
            raise RegistryError(f"bot {name!r} belongs to another author")
        with self._tx() as db:
            if version is None:
                hashes = [r[0] for r in db.execute("SELECT content_hash FROM bot_versions WHERE name = ?", (name,))]
                db.execute("DELETE FROM bot_versions WHERE name = ?", (name,))
                db.execute("DELETE FROM bots WHERE name = ?", (name,))
            else:
                hashes = [r[0] for r in db.execute("SELECT content_hash FROM bot_versions WHERE name = ? AND version = ?", (name, version))]
                if not hashes:
                    raise RegistryError(f"bot {name!r} has no version {version!r}")
                db.execute("DELETE FROM bot_versions WHERE name = ? AND version = ?", (name, version))
                if db.execute("SELECT COUNT(*) FROM bot_versions WHERE name = ?", (name,)).fetchone()[0] == 0:
                    db.execute("DELETE FROM bots WHERE name = ?", (name,))
        for h in set(hashes):
            if self.db.execute("SELECT COUNT(*) FROM bot_versions WHERE content_hash = ?", (h,)).fetchone()[0] == 0:
                _rmtree(self.root / h)
        return len(hashes)


def _rmtree(path: Path) -> None:
    def writable(func: Callable, p: str, _exc: Any) -> None:
        os.chmod(os.path.dirname(p), 0o755)
        os.chmod(p, 0o755)
        func(p)

    if path.exists():
        for d in [path, *(p for p in path.rglob("*") if p.is_dir())]:
            d.chmod(0o755)
        shutil.rmtree(path, onerror=writable)


def check_submission(sub: Submission, check: Callable[[Path], Report] | None = None) -> Report:
    """Write ``sub`` to a temporary folder and check it there (``check_bot`` by default)."""
    with tempfile.TemporaryDirectory(prefix="arena-submit-") as tmp:
        staged = materialize(sub, Path(tmp) / "bot")
        # the sandboxed bot (its own uid) must read its code
        for p in [Path(tmp), *Path(tmp).rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        return (check or check_bot)(staged)


def submit(
    registry: Registry,
    source: str | os.PathLike | Submission,
    name: str,
    version: str | None = None,
    author: str = "local",
    check: Callable[[Path], Report] | None = None,
) -> tuple[BotVersion, Report]:
    """Check and register a bot; SubmissionRejected (with the report) if a check fails."""
    sub = source if isinstance(source, Submission) else collect(source)
    sub = validate(sub)
    check_name(name)
    owner = registry.owner(name)
    if owner is not None and owner != author and author != "admin":
        raise RegistryError(f"bot {name!r} belongs to another author")
    report = check_submission(sub, check)
    if not report.ok:
        failed = [c for c in report.checks if not c.ok]
        raise SubmissionRejected(f"{name}: failed {', '.join(c.name for c in failed)}: {failed[0].detail}", report)
    version = version or str(report.bot.get("version") or "0")
    return registry.add(name, version, sub, report, author), report
