"""Stores that can be archived (issue #15, item 6): every read command (standings and its
exports, tournament list and show, replay, bots list and show, web) opens the store
read-only, works on a read-only file and on a store in a read-only folder, and never
writes: the file's bytes and mtime, and the folder's contents, are the same after it.

Read-only is tested as an ordinary user (``badinput.unprivileged``: root reads and writes
through any chmod), each command first run once as root on a writable copy.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from tests.cli.badinput import invoke, problems, read_only_works, unprivileged


class _Report:
    """What Registry.add keeps of a passed check (a real one takes seconds)."""

    bot = {"name": "mine", "version": "1.0", "games": ["spades"], "deterministic": False}

    def to_dict(self) -> dict:
        return {"spec": "check", "ok": True, "bot": self.bot, "checks": [{"name": "contract", "ok": True, "detail": "-"}]}


class Stores:
    """One store (a finished tournament ``t``, a registered bot ``mine``) in several places."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="arena-readonly-"))
        self.root.chmod(0o755)
        src = self.root / "src" / "arena.sqlite"
        src.parent.mkdir()
        out = invoke(["tournament", "run", "--db", str(src), "--transport", "inproc", "--bots", "random,greedy",
                      "--deals", "1", "-o", "deals=1", "--name", "t", "--seed", "3", "-q"])
        assert out.exit_code == 0, out.describe()
        assert invoke(["bots", "new", "mine", "--dir", str(self.root / "src")]).exit_code == 0
        from arbiter.store.db import Store
        from arbiter.store.registry import Registry, collect

        with Registry(src) as reg:
            reg.add("mine", "1.0", collect(self.root / "src" / "mine"), _Report())
        with Store(src, read_only=True) as s:
            self.match_id = s.matches(s.tournament("t").id)[0].match_id
        # (a reader of this user's store may leave a -wal beside it, empty: every commit is in the file)
        assert not Path(f"{src}-wal").exists() or not Path(f"{src}-wal").stat().st_size
        self.src = src
        self.writable = self.place("writable", 0o755, 0o644)
        self.read_only_file = self.place("rofile", 0o777, 0o444)  # the folder is anyone's: SQLite could write beside it
        self.read_only_dir = self.place("rodir", 0o555, 0o644)

    def place(self, name: str, folder_mode: int, file_mode: int) -> Path:
        folder = self.root / name
        folder.mkdir()
        db = folder / "arena.sqlite"
        shutil.copy(self.src, db)
        shutil.copytree(self.src.with_name("arena.bots"), folder / "arena.bots")
        db.chmod(file_mode)
        folder.chmod(folder_mode)
        return db

    def close(self) -> None:
        for p in [self.root, *self.root.rglob("*")]:
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="module")
def stores() -> Iterator[Stores]:
    s = Stores()
    yield s
    s.close()


def _read_commands(db: Path, match_id: str) -> list[tuple[list[str], str]]:
    """Every read command, and a word its output must hold."""
    d = str(db)
    return [
        (["standings", "--db", d], "Standings: t"),
        (["standings", "t", "--db", d, "--crosstable"], "Cross-table"),
        (["standings", "t", "--db", d, "-f", "csv"], "random"),
        (["standings", "t", "--db", d, "-f", "json"], '"standings"'),
        (["standings", "t", "--db", d, "-f", "md"], "# Standings: t"),
        (["standings", "t", "--db", d, "-f", "html"], "<!DOCTYPE html>"),
        (["tournament", "list", "--db", d], "finished"),
        (["tournament", "show", "--db", d], "Entrants"),
        (["tournament", "show", "t", "--db", d, "--failures"], "Matches"),
        (["tournament", "show", "t", "--db", d, "-m", "0"], "replay it"),
        (["replay", match_id, "--db", d], "reproduce the recorded result"),
        (["replay", match_id, "--db", d, "--all"], "replay verified"),
        (["bots", "list", "--db", d], "mine"),
        (["bots", "show", "mine", "--db", d], "copy intact: yes"),
        (["web", "--db", d, "--port", "0"], "serving"),
    ]


def _snapshot(db: Path, own: bool = False) -> tuple:
    """The store's bytes and mtime, and the files of its folder; ``own``: but SQLite's scratch,
    which a reader of its own store leaves, the -wal and -shm that kept its reads whole should
    a run start (``connect_read_only``; the -wal then holds nothing). Another user's reads
    leave nothing at all."""
    st = db.stat()
    wal = Path(f"{db}-wal")
    assert not wal.exists() or not wal.stat().st_size, f"{wal} holds writes"
    scratch = (wal.name, f"{db.name}-shm") if own else ()
    return db.read_bytes(), st.st_mtime_ns, sorted(p.name for p in db.parent.iterdir() if p.name not in scratch)


def _run_reads(db: Path, match_id: str, as_user: bool) -> list[str]:
    failures = []
    for args, word in _read_commands(db, match_id):
        before = _snapshot(db, own=not as_user)
        with unprivileged() if as_user else contextlib.nullcontext():
            o = invoke(args, serving=args[0] == "web")
        why = problems(o, tuple(args[:2]) if args[0] in ("tournament", "bots") else (args[0],), expect_error=False)
        if not why and o.exit_code != 0:
            why = f"exit {o.exit_code}"
        if not why and word not in o.output:
            why = f"{word!r} not in the output"
        if not why and _snapshot(db, own=not as_user) != before:
            why = "the store or its folder changed"
        if why:
            failures.append(f"{why}:\n{o.describe()}")
    return failures


@pytest.mark.e2e
def test_read_commands_write_nothing_to_a_writable_store(stores):
    failures = _run_reads(stores.writable, stores.match_id, as_user=False)
    assert not failures, "\n\n".join(failures)


@pytest.mark.e2e
@pytest.mark.parametrize("where", ["read_only_file", "read_only_dir"])
def test_read_commands_work_on_a_read_only_store(stores, where):
    if not read_only_works(stores.root / "rodir"):
        pytest.skip("this user writes through chmod")
    _run_reads(stores.writable, stores.match_id, as_user=False)  # as root first: every module imported
    failures = _run_reads(getattr(stores, where), stores.match_id, as_user=True)
    assert not failures, "\n\n".join(failures)


@pytest.mark.e2e
def test_the_web_pages_of_a_store_in_a_read_only_folder(stores):
    """The web server reads each page through its own read-only connection."""
    from arbiter.present.web import serve_in_thread

    db = stores.read_only_dir if read_only_works(stores.root / "rodir") else stores.writable

    def serve_pages() -> None:
        server, thread = serve_in_thread(db, "127.0.0.1", 0)
        try:
            for page in ("", "t/t", f"m/{stores.match_id}", "healthz"):
                with urllib.request.urlopen(server.url + page, timeout=30) as r:
                    assert r.status == 200, page
        finally:
            server.shutdown()
            server.server_close()

    before = _snapshot(db, own=True)
    # As root first: the server imports some modules only when it first serves (uvicorn's
    # loop and protocol, the idna codec); nobody cannot read a venv under root's home.
    serve_pages()
    assert _snapshot(db, own=True) == before
    before = _snapshot(db)
    with unprivileged():
        serve_pages()
    assert _snapshot(db) == before


def test_an_empty_file_is_no_store_and_stays_empty(tmp_path):
    """`standings` on an empty file used to write a schema into it."""
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    os.utime(empty, ns=(1_000_000_000, 1_000_000_000))
    for args in (["standings"], ["tournament", "list"], ["tournament", "show"], ["replay", "x"], ["bots", "list"],
                 ["bots", "show", "x"], ["web", "--port", "0"]):
        o = invoke([*args, "--db", str(empty)], serving=args[0] == "web")
        why = problems(o, tuple(args[:2]) if args[0] in ("tournament", "bots") else (args[0],), expect_error=True)
        assert not why, f"{why}:\n{o.describe()}"
        assert "empty" in o.output, o.describe()
        assert empty.read_bytes() == b"" and empty.stat().st_mtime_ns == 1_000_000_000, args
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite"]


def test_reading_a_missing_store_creates_none(tmp_path):
    """(`web` with /play on creates a store named with --db, for /play's matches:
    test_web_server.py; with /play off it only reads, and creates none.)"""
    missing = tmp_path / "nope.sqlite"
    for args in (["standings"], ["tournament", "list"], ["tournament", "show"], ["replay", "x"], ["bots", "list"],
                 ["bots", "show", "x"], ["bots", "remove", "x"], ["web", "--port", "0", "--play-limit", "0"]):
        o = invoke([*args, "--db", str(missing)], serving=args[0] == "web")
        why = problems(o, tuple(args[:2]) if args[0] in ("tournament", "bots") else (args[0],), expect_error=True)
        assert not why, f"{why}:\n{o.describe()}"
        assert "no store" in o.output, o.describe()
    assert list(tmp_path.iterdir()) == []


def test_a_store_being_written_reads_what_its_writer_committed(stores, tmp_path):
    """While a run writes (its -wal file is there), readers see its commits, read-only."""
    from arbiter.store.db import Store

    db = tmp_path / "live.sqlite"
    shutil.copy(stores.src, db)
    with Store(db) as writer:
        writer.open_tournament("live", "spades", {"game": "spades", "bots": ["random", "greedy"]})
        assert Path(f"{db}-wal").exists()
        o = invoke(["tournament", "list", "--db", str(db)])
        assert o.exit_code == 0 and "live" in o.output, o.describe()
        with Store(db, read_only=True) as reader:
            assert {t.name for t in reader.tournaments()} == {"t", "live"}


def test_a_read_only_registry_of_a_store_without_bots_is_empty(stores, tmp_path):
    from arbiter.store.registry import Registry, RegistryError

    db = tmp_path / "t.sqlite"
    assert invoke(["tournament", "run", "--db", str(db), "--transport", "inproc", "--bots", "random,greedy",
                   "--deals", "1", "-o", "deals=1", "-q"]).exit_code == 0
    before = db.read_bytes()
    with Registry(db, read_only=True) as reg:
        assert reg.versions() == [] and reg.owner("x") is None
        with pytest.raises(RegistryError, match="no bot 'x'"):
            reg.get("x")
    assert db.read_bytes() == before
    with Registry(stores.writable, read_only=True) as reg:
        with pytest.raises(RegistryError, match="did you mean 'mine'"):
            reg.get("mnie")


def test_submitting_to_a_read_only_store_says_so(stores, tmp_path):
    """A write to an archived store is refused in one line (the self-test is stubbed: seconds)."""
    from arbiter.store.registry import Registry, RegistryError, collect
    from arbiter.batch.submissions import submit

    if not read_only_works(stores.root / "rodir"):
        pytest.skip("this user writes through chmod")
    sub = collect(stores.root / "src" / "mine")
    with unprivileged():
        for db in (stores.read_only_file, stores.read_only_dir):
            with pytest.raises(RegistryError, match="read-only"):
                with Registry(db) as reg:
                    submit(reg, sub, "other", "2.0", check=lambda path, abandoned: _Checked())


class _Checked:
    ok = True
    checks: list = []
    bot = {"version": "2.0", "games": ["spades"]}

    def to_dict(self) -> dict:
        return {"ok": True, "checks": [], "bot": self.bot}


def test_a_copy_of_a_store_taken_while_it_was_written_never_reads_short(stores, tmp_path):
    """A store copied while its writer ran (or after it was killed): the file and its -wal,
    which holds the commits not yet folded into the file (the -shm is SQLite's scratch: a
    backup leaves it out), archived in a read-only folder. Reading it gives every match,
    or says why it cannot; never the file's older state as if it were all. Before, the
    reader fell back to the file alone and showed a tournament without its latest matches."""
    from arbiter.store.db import Store, StoreError

    db = tmp_path / "live.sqlite"
    shutil.copy(stores.src, db)
    archive = Path(tempfile.mkdtemp(prefix="archive-", dir=stores.root))  # a folder an ordinary user can reach
    with Store(db) as writer:
        writer.open_tournament("live", "spades", {"game": "spades", "bots": ["random", "greedy"]})
        shutil.copy(db, archive / db.name)
        shutil.copy(f"{db}-wal", archive / f"{db.name}-wal")
    archive.chmod(0o555)
    try:
        with unprivileged():
            try:
                with Store(archive / db.name, read_only=True) as reader:
                    names = {t.name for t in reader.tournaments()}
                said = ""
            except StoreError as exc:
                names, said = set(), str(exc)
    finally:
        archive.chmod(0o755)
    if said:
        assert "-wal" in said and "live.sqlite" in said, said
    else:
        assert names == {"t", "live"}
