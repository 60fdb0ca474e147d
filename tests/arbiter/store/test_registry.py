"""The bot registry: layout checks, content hashes, immutable copies, the tables in the
store file, the sandboxed self-test and smoke match, and the Bots gRPC service."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import textwrap
from pathlib import Path

import grpc
import pytest

from arbiter.store import registry as reg
from arbiter.batch.submissions import RegistryCatalog, check_bot, submit
from arbiter.server.client import submission_chunks
from arbiter.server.app import start_server
from arbiter.store.db import Store
from cardarena.v1 import bots_pb2 as bpb
from cardarena.v1 import bots_pb2_grpc as bpb_grpc

TEMPLATE = Path(__file__).resolve().parents[3] / "bots" / "template"


def write_bot(folder: Path, body: str, extra: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(textwrap.dedent(body))
    for name, text in (extra or {}).items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder


GOOD = """
    from sdk import Bot
    from helper import pick

    class GoodBot(Bot):
        name = "good"
        version = "2.1"
        games = ("spades",)
        deterministic = True

        def choose(self, view, legal_actions):
            return pick(self.rng, legal_actions)
"""
HELPER = {"helper.py": "def pick(rng, xs):\n    return xs[rng.randrange(len(xs))]\n"}


def test_collect_hashes_content_and_refuses_bad_layouts(tmp_path):
    a = write_bot(tmp_path / "a", GOOD, HELPER)
    (a / "__pycache__").mkdir()
    (a / "__pycache__" / "x.pyc").write_bytes(b"junk")
    sub = reg.collect(a)
    assert set(sub.files) == {"bot.py", "helper.py"} and sub.entry == "bot.py"
    b = write_bot(tmp_path / "b", GOOD, HELPER)
    assert reg.collect(b).content_hash == sub.content_hash  # same content, same hash
    (b / "helper.py").write_text("def pick(rng, xs):\n    return xs[0]\n")
    assert reg.collect(b).content_hash != sub.content_hash
    with pytest.raises(reg.RegistryError, match="entry file 'bot.py' is missing"):
        reg.collect(_no_entry(tmp_path))
    (a / "link.py").symlink_to("/etc/passwd")
    with pytest.raises(reg.RegistryError, match="symlink"):
        reg.collect(a)
    with pytest.raises(reg.RegistryError, match="relative, no '..'"):
        reg.validate(reg.Submission({"../evil.py": b"", "bot.py": b""}, "bot.py"))
    # in the limit's unit, the largest file named (it said "1 files, 5242881 bytes")
    with pytest.raises(reg.RegistryError, match=r"too big: 2 files, 5121 KiB, the largest weights.py \(5121 KiB\) "
                                                 r"\(at most 200 files and 5120 KiB\)$"):
        reg.validate(reg.Submission({"weights.py": b"x" * (reg.MAX_BYTES + 1), "bot.py": b""}, "bot.py"))
    with pytest.raises(reg.RegistryError, match=r"too big: 1 file, "):
        reg.validate(reg.Submission({"bot.py": b"x" * (reg.MAX_BYTES + 1)}, "bot.py"))


def test_collect_leaves_out_a_store_made_in_the_bots_folder_and_says_so(tmp_path):
    """`arbiter play spades . random . random` then `arbiter bots submit .` in a bot's
    folder (docs/other-languages.md) made arena.sqlite and arena.bots/ there, and each
    submission took them: the store's every match, and every earlier version's copy nested
    in the next (the hash changed at each play, so each check ran afresh). They are left
    out, and named for the author to be told; the bot's content, and hash, are its own."""
    clean = reg.collect(write_bot(tmp_path / "clean", GOOD, HELPER))
    a = write_bot(tmp_path / "a", GOOD, HELPER)
    with Store(a / "arena.sqlite"):
        pass
    for extra in ("arena.sqlite-wal", "arena.sqlite.lock", "old.sqlite"):
        (a / extra).write_bytes(b"x")
    (a / "arena.bots" / "0abc").mkdir(parents=True)
    (a / "arena.bots" / "0abc" / "bot.py").write_text("x = 1\n")
    sub = reg.collect(a)
    assert set(sub.files) == {"bot.py", "helper.py"} and sub.content_hash == clean.content_hash
    assert sub.left_out == ("arena.bots/", "arena.sqlite", "arena.sqlite-wal", "arena.sqlite.lock", "old.sqlite")
    assert sub == clean  # what was left out is not content


def _no_entry(tmp_path: Path) -> Path:
    d = tmp_path / "noentry"
    d.mkdir()
    (d / "main.py").write_text("x = 1\n")
    return d


@pytest.mark.e2e
def test_check_passes_a_good_folder_bot_and_names_each_failure_of_bad_ones(tmp_path):
    report = check_bot(write_bot(tmp_path / "good", GOOD, HELPER), positions=40)
    assert report.ok, report.to_dict()
    names = [c.name for c in report.checks]
    # the self-test's own checks, then the arbiter's: a refereed match per claimed game and
    # a fresh process repeating itself (it says it is deterministic)
    assert names == ["import", "contract", "legal:spades", "time:spades", "deterministic:spades", "verify:spades",
                     "deterministic"]
    assert report.bot == {"name": "good", "version": "2.1", "games": ["spades"], "deterministic": True}

    illegal = write_bot(tmp_path / "illegal", """
        from sdk import Bot
        class Bad(Bot):
            name = "bad"; games = ("spades",)
            def choose(self, view, legal_actions):
                return "play ZZ"
    """)
    r = check_bot(illegal, positions=20)
    assert not r.ok and [c.name for c in r.checks if not c.ok] == ["legal:spades"] and "does not parse" in r.checks[-1].detail

    liar = write_bot(tmp_path / "liar", """
        import random
        from sdk import Bot
        class Liar(Bot):
            name = "liar"; games = ("spot",); deterministic = True
            def choose(self, view, legal_actions):
                return random.choice(legal_actions)   # the global RNG: not reproducible
    """)
    r = check_bot(liar, positions=60, smoke=False)
    assert [c.name for c in r.checks if not c.ok] == ["deterministic:spot"] and "differ at decision" in r.checks[-1].detail

    broken = write_bot(tmp_path / "broken", "import no_such_module\n")
    r = check_bot(broken)
    assert [c.name for c in r.checks] == ["import"] and "no_such_module" in r.checks[0].detail

    slow = write_bot(tmp_path / "slow", """
        import time
        from sdk import Bot
        class Slow(Bot):
            name = "slow"; games = ("spades",)
            def choose(self, view, legal_actions):
                time.sleep(0.06)
                return legal_actions[0]
    """)
    r = check_bot(slow, positions=3, decision_ms=20, smoke=False)
    assert [c.name for c in r.checks if not c.ok] == ["time:spades"]


@pytest.mark.e2e
def test_submit_stores_an_immutable_copy_and_records_it_in_the_store_file(tmp_path):
    db = tmp_path / "arena.sqlite"
    Store(db).close()  # the store exists first; the registry adds its tables to the same file
    folder = write_bot(tmp_path / "good", GOOD, HELPER)
    with reg.Registry(db) as r:
        v, report = submit(r, folder, "good")
        assert v.version == "2.1" and report.ok  # the bot's own version by default
        assert v.path == tmp_path / "arena.bots" / v.content_hash
        assert (v.path / "bot.py").read_text() == (folder / "bot.py").read_text()
        assert not (v.path / "bot.py").stat().st_mode & 0o222  # read-only
        assert r.verify(v)
        # the same content again: idempotent; other content under the same version: refused
        again, _ = submit(r, folder, "good", check=lambda p, abandoned: report)
        assert again == v
        (folder / "helper.py").write_text("def pick(rng, xs):\n    return xs[-1]\n")
        with pytest.raises(reg.RegistryError, match="immutable"):
            submit(r, folder, "good", check=lambda p, abandoned: report)
        v2, _ = submit(r, folder, "good", version="2.2", check=lambda p, abandoned: report)
        assert v2.content_hash != v.content_hash and [x.version for x in r.versions("good")] == ["2.1", "2.2"]
        # another author may not touch it
        with pytest.raises(reg.RegistryError, match="another author"):
            submit(r, folder, "good", version="9", author="mallory", check=lambda p, abandoned: report)
        with pytest.raises(reg.RegistryError, match="another author"):
            r.remove("good", author="mallory")
    tables = {row[0] for row in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"bots", "bot_versions", "tournaments", "matches"} <= tables
    with reg.Registry(db) as r:
        assert r.remove("good", "2.1") == 1 and not v.path.exists() and v2.path.exists()
        assert r.remove("good") == 1 and r.versions() == [] and not v2.path.exists()
        # a removed version's number keeps naming its files (matches stored under it were played
        # by them): other content under it is refused, even once the name is free; the same files
        # may come back
        with pytest.raises(reg.RegistryError, match="was registered with other content and removed"):
            submit(r, folder, "good", version="2.1", check=lambda p, abandoned: report)
        with pytest.raises(reg.RegistryError, match="was registered with other content and removed"):
            submit(r, folder, "good", version="2.1", author="mallory", check=lambda p, abandoned: report)
        assert submit(r, folder, "good", version="2.2", check=lambda p, abandoned: report)[0].content_hash == v2.content_hash


@pytest.mark.e2e
def test_a_failing_bot_is_not_registered(tmp_path):
    bad = write_bot(tmp_path / "bad", """
        from sdk import Bot
        class Crashy(Bot):
            name = "crashy"; games = ("spades",)
            def choose(self, view, legal_actions):
                raise ValueError("boom")
    """)
    with reg.Registry(tmp_path / "a.sqlite") as r:
        with pytest.raises(reg.SubmissionRejected, match="legal:spades") as exc:
            submit(r, bad, "crashy")
        assert "choose raised ValueError: boom" in exc.value.report.checks[-1].detail
        assert r.versions() == [] and not any((tmp_path / "a.bots").glob("*/bot.py"))


@pytest.mark.e2e
def test_a_tampered_copy_is_detected(tmp_path):
    with reg.Registry(tmp_path / "a.sqlite") as r:
        report = check_bot(TEMPLATE, positions=5, smoke=False)
        v, _ = submit(r, TEMPLATE, "tmpl", check=lambda p, abandoned: report)
        target = v.path / "bot.py"
        target.chmod(0o644)
        target.write_text(target.read_text() + "\n# changed\n")
        assert not r.verify(v)


#: What the author of GOOD (a Spades bot) is told where ``_arenas`` made the arenas.
SPOT_NOTICE = "arena 'spot-ladder' here plays spot; good 2.1 plays spades: it is not entered there"


def _arenas(db: Path) -> None:
    """Three arenas in the store at ``db``: Spades, Spot, and a Spot ladder of the remote division
    (its entrants connect on their own: no registered bot is entered, so none is told of it)."""
    from arbiter.store.arenas import Arenas

    with Store(db) as store:
        tables = Arenas(store)
        tables.open_arena("spades-ladder", "spades", {"game": "spades"})
        tables.open_arena("spot-ladder", "spot", {"game": "spot"})
        tables.open_arena("spot-remote", "spot", {"game": "spot", "division": "remote"})


@pytest.mark.e2e
def test_a_bot_submitted_where_an_arena_plays_another_game_is_told_so(tmp_path):
    """The arena enters every registered bot that plays its game and says nothing of the others:
    ``bots submit`` tells the author which arenas of the store will not enter the bot (here and,
    through the Bots service, on a server: the service test below)."""
    from typer.testing import CliRunner

    from arbiter.cli import app

    db = tmp_path / "arena.sqlite"
    _arenas(db)
    got = CliRunner().invoke(app, ["bots", "submit", str(write_bot(tmp_path / "good", GOOD, HELPER)), "--name", "good",
                                   "--db", str(db)])
    assert got.exit_code == 0, got.output
    assert f"note: {SPOT_NOTICE}" in " ".join(got.output.split())
    assert "spades-ladder" not in got.output and "spot-remote" not in got.output


@pytest.mark.e2e
def test_the_bots_service_submits_lists_shows_and_removes_behind_tokens(tmp_path):
    db = tmp_path / "arena.sqlite"
    sub = reg.collect(write_bot(tmp_path / "good", GOOD, HELPER))

    _arenas(db)

    async def main():
        server = await start_server(0, admin_token="adm-token-0123456789", bots_catalog=RegistryCatalog(db),
                                    author_tokens={"alice-t": "alice", "bob-t": "bob"})
        try:
            async with grpc.aio.insecure_channel(server.address) as ch:
                stub = bpb_grpc.BotsStub(ch)
                with pytest.raises(grpc.aio.AioRpcError) as e:  # the header alone: the server refuses it
                    # there, and an aio client still sending the files when the call ended reports
                    # its own failed send (INTERNAL "execute_batch") in place of the server's status
                    await stub.Submit(iter([next(submission_chunks(sub, "forged", "good"))]))
                assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
                info = await stub.Submit(submission_chunks(sub, "alice-t", "good", piece=7))  # many small chunks
                assert (info.name, info.version, info.author) == ("good", "2.1", "alice")
                assert json.loads(info.report_json)["ok"] is True
                assert list(info.notices) == [SPOT_NOTICE]  # a Spades bot, told of the Spot ladder here
                assert list((await stub.List(bpb.ListBotsRequest(token="alice-t"))).versions[0].notices) == []
                assert [v.name for v in (await stub.List(bpb.ListBotsRequest(token="alice-t"))).versions] == ["good"]
                assert list((await stub.List(bpb.ListBotsRequest(token="bob-t"))).versions) == []
                with pytest.raises(grpc.aio.AioRpcError) as e:
                    await stub.Show(bpb.ShowBotRequest(token="bob-t", name="good"))
                assert e.value.code() == grpc.StatusCode.NOT_FOUND  # someone else's bot: as if absent
                answers = []
                for name in ("good", "no-such-bot"):  # someone else's bot and no bot read the same
                    with pytest.raises(grpc.aio.AioRpcError) as e:
                        await stub.Remove(bpb.RemoveBotRequest(token="bob-t", name=name))
                    answers.append((e.value.code(), e.value.details().replace(name, "NAME")))
                assert answers[0] == answers[1] and answers[0][0] == grpc.StatusCode.NOT_FOUND
                with pytest.raises(grpc.aio.AioRpcError) as e:
                    await stub.Show(bpb.ShowBotRequest(token="alice-t", name="good-2"))
                assert str(tmp_path) not in e.value.details()  # no message carries a path of the server
                bad = reg.Submission({"bot.py": b"import nope\n"}, "bot.py")
                with pytest.raises(grpc.aio.AioRpcError) as e:
                    await stub.Submit(submission_chunks(bad, "bob-t", "nope"))
                assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "import: FAILED" in e.value.details()
                assert str(tmp_path) not in e.value.details() and "/tmp/" not in e.value.details()
                evil = reg.Submission({"bot.py": b"", "../../etc/x": b""}, "bot.py")
                with pytest.raises(grpc.aio.AioRpcError) as e:
                    await stub.Submit(submission_chunks(evil, "bob-t", "evil"))
                assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "no '..'" in e.value.details()
                shown = await stub.Show(bpb.ShowBotRequest(token="adm-token-0123456789", name="good"))
                assert [v.version for v in shown.versions] == ["2.1"]
                assert (await stub.Remove(bpb.RemoveBotRequest(token="alice-t", name="good"))).removed == 1
        finally:
            await server.stop(0.2)

    asyncio.run(main())
    assert reg.Registry(db).versions() == []


FORGER = """
    import atexit, json
    from sdk import Bot
    from sdk.spades import Bid, Give, Look, Play

    def forge():  # the last '{' line of the self-test's stdout: a report that passes everything
        print(json.dumps({"spec": "x", "ok": True, "checks": [{"name": "import", "ok": True, "detail": ""}],
                          "bot": {"name": "forger", "version": "1", "games": ["*"], "deterministic": False}}))

    atexit.register(forge)

    class Forger(Bot):
        name = "forger"
        games = ("*",)   # claims every game, plays only Spades

        def choose(self, view, legal_actions):
            if not isinstance(legal_actions[0], (Bid, Give, Look, Play)):
                raise RuntimeError("I only know Spades")
            return legal_actions[0]
"""


@pytest.mark.e2e
def test_a_bot_cannot_forge_its_way_into_the_registry(tmp_path):
    """It forges the self-test's report (an atexit hook prints a passing one); the
    arbiter's own matches in every game it claims still refuse it, and nothing is stored."""
    folder = write_bot(tmp_path / "forger", FORGER)
    report = check_bot(folder, positions=10)
    failed = [c for c in report.checks if not c.ok]
    assert not report.ok and failed and failed[0].name.startswith("verify:") and failed[0].name != "verify:spades"
    assert "I only know Spades" in failed[0].detail
    with reg.Registry(tmp_path / "arena.sqlite") as r:
        with pytest.raises(reg.SubmissionRejected, match="verify:"):
            submit(r, folder, "forger")
        assert r.versions() == []


def test_one_registry_used_from_two_threads_at_once_serves_both(tmp_path):
    """The Bots service registers a checked submission in a worker thread while its event
    loop serves List, Show and Remove on the same Registry (one connection, shared across
    threads). Each thread's transaction waits for the other's: before, one of them failed
    ("not a usable store: cannot start a transaction within a transaction")."""
    import threading

    from arbiter.hosting.botcheck import Check, Report

    Store(tmp_path / "a.sqlite").close()
    registry = reg.Registry(tmp_path / "a.sqlite")
    errors: list[str] = []

    def register(name: str, author: str, remove: bool) -> None:
        for i in range(12):
            report = Report(name, {"name": name, "version": str(i), "games": ["spades"]}, [Check("verify:spades", True)])
            try:
                registry.add(name, str(i), reg.Submission({"bot.py": f"# {name} {i}\n".encode()}, "bot.py"), report, author)
                if remove:
                    registry.remove(name, str(i), author)
            except reg.RegistryError as exc:
                errors.append(str(exc))

    threads = [threading.Thread(target=register, args=("a", "alice", False)),
               threading.Thread(target=register, args=("b", "bob", True))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [v.version for v in registry.versions("a")] == [str(i) for i in range(12)] and registry.versions("b") == []
    registry.close()


def test_a_half_copy_left_by_a_killed_submission_goes_with_the_next_one(tmp_path):
    """A submission killed while copying leaves a hidden ``.incoming-*`` folder (never a copy
    under a hash); the next copy, made in its own write transaction, removes it."""
    from arbiter.hosting.botcheck import Check, Report

    Store(tmp_path / "a.sqlite").close()
    with reg.Registry(tmp_path / "a.sqlite") as registry:
        left = registry.root / ".incoming-killed"
        (left / "sub").mkdir(parents=True)
        (left / "sub" / "bot.py").write_text("# half")
        for p in (left / "sub" / "bot.py", left / "sub", left):
            p.chmod(0o555 if p.is_dir() else 0o444)  # as a copy is made: read-only
        report = Report("m", {"name": "m", "version": "1", "games": ["spades"]}, [Check("verify:spades", True)])
        v = registry.add("m", "1", reg.Submission({"bot.py": b"# m\n"}, "bot.py"), report, "alice")
        assert sorted(p.name for p in registry.root.iterdir()) == [v.content_hash]


def test_a_stored_copy_loaded_in_process_is_left_as_it_was_stored(tmp_path, monkeypatch):
    """A registered version played in process (``--transport inproc``, the arena's in-process
    ladders) where Python writes bytecode (no PYTHONDONTWRITEBYTECODE, the usual case): as root
    it wrote ``__pycache__`` into the read-only copy, whose next lookup then failed ("does not
    match its recorded hash"), and an in-process ladder withdrew and retried it without end."""
    import sys

    from arbiter.hosting.botcheck import Check, Report
    from arbiter.hosting.loading import load_bot

    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as outside the suite and in it (tests/conftest.py)
    monkeypatch.setattr(sys, "pycache_prefix", None)  # and no PYTHONPYCACHEPREFIX: bytecode beside the sources
    Store(tmp_path / "a.sqlite").close()
    code = b"from sdk import Bot\n\nclass M(Bot):\n    name = 'm'\n    games = ('spades',)\n\n" \
           b"    def choose(self, view, legal_actions):\n        return legal_actions[0]\n"
    with reg.Registry(tmp_path / "a.sqlite") as registry:
        report = Report("m", {"name": "m", "version": "1", "games": ["spades"]}, [Check("verify:spades", True)])
        v = registry.add("m", "1", reg.Submission({"bot.py": code}, "bot.py"), report, "alice")
        v.path.chmod(0o755)  # writable, as a read-only folder is to root
        assert load_bot(reg.lookup(tmp_path / "a.sqlite", "m@1")[0].spec).name == "m"
        assert sorted(p.name for p in v.path.iterdir()) == ["bot.py"] and registry.verify(v)


def test_other_users_may_pass_through_the_stored_copies_but_not_list_them(tmp_path):
    """A hosted bot's uid is one of the others: were the store under a folder its sandbox
    shows (/usr, the Python installation), the folder of stored copies listed every
    registered bot's hash, and so its code. It sees its own copy where its sandbox binds it."""
    import os

    from arbiter.hosting.botcheck import Check, Report

    old = os.umask(0o022)
    try:
        Store(tmp_path / "a.sqlite").close()
        with reg.Registry(tmp_path / "a.sqlite") as registry:
            report = Report("m", {"name": "m", "version": "1", "games": ["spades"]}, [Check("verify:spades", True)])
            v = registry.add("m", "1", reg.Submission({"bot.py": b"# m\n"}, "bot.py"), report, "alice")
            mode = registry.root.stat().st_mode
            assert (mode & 0o004, mode & 0o001) == (0, 0o001), oct(mode)
            assert (registry.root / v.content_hash / "bot.py").stat().st_mode & 0o004  # its copy stays readable
    finally:
        os.umask(old)


@pytest.mark.e2e
def test_a_refused_single_file_names_its_own_file_not_the_folder_it_was_checked_in(tmp_path):
    """A single-file bot is checked from a temporary copy (/tmp/arena-submit-.../bot/FILE):
    the author is told FILE:LINE, as a folder bot's bot.py:LINE is."""
    bot = tmp_path / "mybot.py"
    bot.write_text("from sdk import Bot\n\nclass Broken(Bot)\n    name = 'broken'\n")
    with reg.Registry(tmp_path / "a.sqlite") as r:
        with pytest.raises(reg.SubmissionRejected) as exc:
            submit(r, bot, "broken")
    assert "arena-submit" not in str(exc.value), exc.value
    assert "mybot.py:3: SyntaxError" in exc.value.report.checks[0].detail and exc.value.report.spec == "mybot.py"


class _Passed:
    """What Registry.add keeps of a passed check (a real one takes seconds)."""

    bot = {"games": ["spades"], "deterministic": False}

    def to_dict(self) -> dict:
        return {"ok": True, "checks": []}


@pytest.mark.e2e
def test_the_bots_service_suggests_the_callers_own_name_for_a_misspelt_one_and_never_anothers(tmp_path):
    """``bots show goood --server`` said only "no bot 'goood' of yours" (the local registry
    suggests 'good'); the closest of the caller's own names is offered, not another author's."""
    from arbiter.server import client

    db = tmp_path / "a.sqlite"
    with reg.Registry(db) as r:
        r.add("good", "1", reg.Submission({"bot.py": b"x = 1\n"}, "bot.py"), _Passed(), author="alice")
        r.add("other", "1", reg.Submission({"bot.py": b"x = 2\n"}, "bot.py"), _Passed(), author="bob")

    async def remote() -> list[str]:
        running = await start_server(0, bots_catalog=RegistryCatalog(db), admin_token="a" * 20,
                                     author_tokens={"t" * 20: "alice"})
        said = []
        try:
            for call, name in ((client.show_bot, "goood"), (client.remove_bot, "goood"), (client.show_bot, "othr")):
                with pytest.raises(client.ClientError) as exc:
                    await asyncio.to_thread(call, running.address, "t" * 20, name)
                said.append(str(exc.value))
        finally:
            await running.stop(0.5)
        return said

    show, remove, others = asyncio.run(remote())
    assert "no bot 'goood' of yours: did you mean 'good'?" in show and "did you mean 'good'?" in remove, (show, remove)
    assert "no bot 'othr' of yours" in others and "other" not in others.replace("'othr'", ""), others


def test_a_version_registered_again_is_told_it_stays_out_of_the_ladder_it_left(tmp_path):
    """The same files under a removed version's number may be registered again, but a ladder
    the version left keeps it out: its author's submission said nothing of it."""
    from arbiter.batch.submissions import notices
    from arbiter.store.arenas import Arenas

    db = tmp_path / "a.sqlite"
    with Store(db) as store:
        t = Arenas(store)
        a = t.open_arena("sp", "spades", {"deals": 1})
        t.add_entrant(a.id, "mine@2", "mine", "2", "bob", "", 25.0, 8.0, status="withdrawn",
                      reason="removed from the registry while it played random (that encounter abandoned, never counted)")
    with reg.Registry(db) as r:
        v = r.add("mine", "2", reg.Submission({"bot.py": b"x = 1\n"}, "bot.py"), _Passed(), author="bob")
        (said,) = notices(r, v)
        assert said.startswith("arena 'sp' here: mine@2 left it (removed from the registry while it played random") and \
            "submit it as a new version" in said, said
        v3 = r.add("mine", "3", reg.Submission({"bot.py": b"x = 3\n"}, "bot.py"), _Passed(), author="bob")
        assert notices(r, v3) == []
