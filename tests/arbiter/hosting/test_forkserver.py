"""Fresh bot processes from a fork server (arbiter.hosting.forkserver, zygote.py): each
is confined as a fresh sandboxed process is, and none can leave a note for the next.

``hostile/notes.py`` looks for notes of earlier processes of its bot (files, memory, the
environment, sockets, a process left running, SysV IPC, the PID counter), then leaves
them all. Played with ``shared`` processes, the second match finds them (so the check can
fail); with ``match`` and ``deal`` isolation, whose processes come from the fork server
where it exists, no process of a later match, nor the partner of the same match, finds
any. Without bwrap the sandbox shares /tmp and the network, and these tests skip."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from arbiter.hosting import forkserver
from arbiter.hosting import sandbox as sb
from arbiter.hosting.botproc import BotHost
from arbiter.match import run_match
from arbiter.server.app import start_private_server
from arbiter.server.botstream import RemoteSeat
from cardarena.records import Clock, MatchConfig

pytestmark = pytest.mark.e2e  # real processes: every test here starts one

NOTES = Path(__file__).resolve().parents[2] / "e2e" / "hostile" / "notes.py"
SEATS = ["notes", "random", "notes", "random"]
DEAL = 7

needs_bwrap = pytest.mark.skipif("bwrap" not in sb.available_modes(),
                                 reason="without bwrap the sandbox shares /tmp and the network between processes")
needs_forks = pytest.mark.skipif(not sb.fork_support(sb.Sandbox())[0] if "bwrap" in sb.available_modes() else True,
                                 reason="no fork server on this machine (bwrap as root)")


def reports(log_dir: Path) -> list[dict]:
    """The notes bot's reports, one per process that decided, from every stderr log."""
    out = []
    for path in sorted(log_dir.glob("notes*.stderr.log")):
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("HOSTILE "):
                out.append({"log": path.name, **json.loads(line[len("HOSTILE "):])})
    return out


def play(tmp_path: Path, isolation: str, matches: int = 2) -> tuple[list[dict], str]:
    """``matches`` matches of one deal, one after another, the notes bot at seats 0 and 2."""
    log_dir = tmp_path / f"logs-{isolation}"
    log_dir.mkdir()

    async def main() -> str:
        server = await start_private_server()
        host = BotHost(server.hub, server.address, {"notes": str(NOTES), "random": "random"}, isolation=isolation,
                       copies=2, log_dir=log_dir)
        try:
            await host.start()
            for i in range(matches):
                lease, sessions = await host.lease(SEATS, deal=DEAL)
                record = await asyncio.wait_for(run_match(
                    MatchConfig("spades", DEAL, {"deals": 1}, match_id=f"notes-{isolation}-{i}"),
                    [RemoteSeat(s, "spades") for s in sessions]), 60)
                assert record.outcome.reason.value == "completed", record.incidents
                host.release(lease)
            return host.process_start
        finally:
            await host.stop()
            await server.stop(0.2)

    how = asyncio.run(main())
    return reports(log_dir), how


def found(report: dict) -> dict:
    return {k: v for k, v in report["found"].items() if k != "listing_cwd" and not v.startswith("no")}


@needs_bwrap
def test_shared_processes_find_their_notes_so_the_check_can_fail(tmp_path):
    got, how = play(tmp_path, "shared")
    if sb.fork_support(sb.Sandbox())[0]:  # long-lived, but forked and confined as a fresh one
        assert how.startswith("long-lived processes (shared isolation), forked by a fork server"), how
    # two long-lived processes (one per seat) each report twice: at their first decision
    # of each match
    assert len(got) == 4 and len({r["log"] for r in got}) == 2, [r["log"] for r in got]
    first, second = got[0::2], got[1::2]  # (sorted by log, in the order each process wrote)
    for r in first:
        left = r["left"]
        assert left["file_cwd"] == "WROTE" and left["listeners"] >= 3 and left["daemon"] == "STARTED", left
        assert left["sysv_shm"] == "CREATED", left
        # the partner of the same match left its notes first or not, in a sandbox of its own
        assert found(r) == {}, found(r)
    for r in second:  # the same process, the same deal again: every note is there
        notes = found(r)
        for kind in ("file_cwd", "file_home", "module_global", "sdk_module", "environ", "tcp", "abstract_socket",
                     "unix_socket_cwd", "sysv_shm", "keyring"):
            assert kind in notes, (kind, notes)


@needs_bwrap
@pytest.mark.parametrize("isolation", ["match", "deal"])
def test_no_fresh_process_of_a_deal_finds_a_note(tmp_path, isolation):
    got, how = play(tmp_path, isolation)
    if sb.fork_support(sb.Sandbox())[0]:
        assert how.startswith("forked by a fork server"), how
    # two matches of one deal: four fresh processes of the notes bot (deal isolation never
    # gives a process a deal it has played), each reporting at its first decision
    assert len(got) == 4 and len({r["log"] for r in got}) == 4, [r["log"] for r in got]
    for r in got:
        assert r["left"]["file_cwd"] == "WROTE" and r["left"]["listeners"] >= 3, r["left"]  # it did try
        assert found(r) == {}, (r["log"], found(r))
        assert r["found"]["listing_cwd"] == [], r["found"]["listing_cwd"]  # a fresh, empty working directory
        assert r["me"]["pid"] in (1, 2)  # its own PID namespace: no trace of earlier processes' pids
        assert r["me"]["cwd"] == sb.WORK_DIR and r["me"]["home"] == sb.WORK_DIR
    assert len({r["me"]["uid"] for r in got}) == 4 or os.geteuid() != 0  # as root: a uid for each process


def test_the_old_path_is_used_and_said_when_fork_servers_are_off(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_FORKSERVER", "0")
    assert sb.fork_support(sb.Sandbox()) == (False, "ARENA_FORKSERVER=0")
    assert any("no fork server: ARENA_FORKSERVER=0" in line for line in sb.Sandbox().describe()["enforced"])
    if "bwrap" not in sb.available_modes():
        return
    got, how = play(tmp_path, "match", matches=1)
    assert how.startswith("a fresh sandboxed process each (no fork server: ARENA_FORKSERVER=0)"), how
    assert len(got) == 2 and all(found(r) == {} for r in got)


@needs_forks
def test_a_forked_process_is_confined_as_a_fresh_one(tmp_path):
    """The same uid-per-process, limits, priority, environment and no capabilities as a
    fresh sandboxed process (tests/arbiter/hosting/test_sandbox.py checks those on the old path)."""
    got, _ = play(tmp_path, "match", matches=1)
    limits = sb.Limits()
    for r in got:
        me = r["me"]
        assert me["uid"] >= 200_000
        assert me["caps"]["CapPrm"] == me["caps"]["CapEff"] == "0000000000000000"
        assert me["caps"]["NoNewPrivs"] == "1"
        assert me["limits"]["RLIMIT_NPROC"] == limits.processes and me["limits"]["RLIMIT_NOFILE"] == limits.open_files
        assert me["limits"]["RLIMIT_CPU"] == limits.cpu_seconds and me["limits"]["RLIMIT_CORE"] == 0
        assert me["limits"]["RLIMIT_DATA"] == limits.memory_mb << 20
        assert me["nice"] >= limits.nice
        assert set(me["env"]) <= {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
                                  "ARENA_ADDRESS", "ARENA_TOKEN", "PYTHONPATH", "PWD"}
        assert set(me["procs"]) <= {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}  # its own PID namespace, nothing else
        assert r["left"]["file_tmp"].startswith("blocked")  # /tmp is root's, as in a fresh sandbox


async def _session_gone(hub, token: str) -> None:
    while hub.session_for(token) is not None:
        hub._changed.clear()
        await hub._changed.wait()


@needs_forks
def test_a_fork_server_that_dies_falls_back_to_fresh_processes(tmp_path):
    log_dir = tmp_path / "logs"
    log_dir.mkdir()

    async def main() -> tuple[str, bool, bool, bool]:
        server = await start_private_server()
        host = BotHost(server.hub, server.address, {"random": "random"}, isolation="match", copies=1, log_dir=log_dir)
        try:
            await host.start()
            first = next(iter(host.pool.procs.values()))
            fs = host.pool.forkservers["random"]
            await asyncio.to_thread(fs.wait_ready)
            await asyncio.to_thread(sb.kill_tree, fs.proc, 1)  # the parent and its whole sandbox die
            # the fork server's reader sees its parent go: it marks the fork server dead, then
            # its processes exited (what ``first.proc.wait`` waits for)
            with contextlib.suppress(subprocess.TimeoutExpired):
                await asyncio.to_thread(first.proc.wait, 10)
            bp = await host._fresh("random")
            with contextlib.suppress(TimeoutError):  # its session ends: the hub says when sessions change
                await asyncio.wait_for(_session_gone(server.hub, first.token), 10)
            died = first.proc.poll() is not None and server.hub.session_for(first.token) is None
            return host.process_start, first.forked, died, not bp.forked and not bp.session.closed
        finally:
            await host.stop()
            await server.stop(0.2)

    how, first_forked, first_died, fresh_after = asyncio.run(main())
    assert first_forked and first_died  # its process died with the parent's sandbox
    assert fresh_after  # the next one is a fresh sandboxed process, and plays
    assert "fresh processes for bots whose fork server failed" in how, how


def test_the_parent_imports_no_bot_and_stays_one_thread():
    """The zygote's preload list names the SDK and what it stands on, and no bot; the
    parent refuses to fork when anything started a thread (checked in the zygote)."""
    zygote = (Path(forkserver.__file__).with_name("zygote.py")).read_text()
    assert "threads after the imports" in zygote
    from arbiter.hosting import zygote as z

    assert not any(m.startswith("bots") for m in z.PRELOAD)
    assert {"grpc", "sdk.runner", "sdk.__main__"} <= set(z.PRELOAD)


@needs_forks
def test_a_parent_compiles_the_codecs_before_it_forks_and_a_bundled_bots_imports_its_parts():
    """What each child did first, once in the parent (docs/performance.md, "Isolation"):
    every game's codecs compiled (sdk.convert.warm; tests/sdk/test_warm.py checks that a
    first Turn then compiles nothing) and the command line's parser built; a bundled bot's
    per-game parts imported too (platform code), a submitted bot's parent imports no bot."""
    got = {}
    for name, code, bundled in (("heuristic", [], "bots.heuristic"), ("notes", [NOTES], None)):
        server = forkserver.acquire(sb.Sandbox(), code=code, env={}, name=name, bundled_module=bundled)
        try:
            assert server.wait_ready(), server.why_not
            got[name] = server.ready
        finally:
            forkserver.release(server)
    assert all(r["warmed"] and r["threads"] == 1 for r in got.values()), got
    assert {"bots.heuristic", "bots.spades_heuristic", "bots.spot_heuristic", "bots.spades_search"} <= set(
        got["heuristic"]["preload"])
    assert not any(m.startswith("bots") for m in got["notes"]["preload"])


def _host_start(tmp_path: Path, sources: dict[str, str]) -> tuple[str, dict, Path]:
    log_dir = tmp_path / "logs"
    log_dir.mkdir()

    async def main():
        server = await start_private_server()
        host = BotHost(server.hub, server.address, sources, isolation="match", copies=1, log_dir=log_dir)
        try:
            sessions = await host.start()
            return host.process_start, {n: s.bot_name for n, s in sessions.items()}
        finally:
            await host.stop()
            await server.stop(0.2)

    how, names = asyncio.run(main())
    return how, names, log_dir


@needs_forks
def test_a_folder_bot_imports_its_own_modules_in_a_forked_process(tmp_path):
    folder = tmp_path / "folderbot"
    folder.mkdir()
    (folder / "helper.py").write_text("NAME = 'folder'\n")
    (folder / "bot.py").write_text("from helper import NAME\nfrom sdk import Bot\n\n"
                                   "class FolderBot(Bot):\n    name = NAME\n    games = ('spades',)\n\n"
                                   "    def choose(self, view, legal_actions):\n        return legal_actions[0]\n")
    for p in (tmp_path, folder, *folder.iterdir()):
        p.chmod(0o755 if p.is_dir() else 0o644)
    how, names, _ = _host_start(tmp_path, {"folder": str(folder)})
    assert how.startswith("forked by a fork server"), how
    assert names == {"folder": "folder"}


@needs_forks
def test_a_bot_that_fails_to_import_says_why_from_a_forked_process(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('no luck at import')\n")
    bad.chmod(0o644)
    tmp_path.chmod(0o755)
    from arbiter.hosting.botproc import BotStartError

    with pytest.raises(BotStartError, match="no luck at import"):
        _host_start(tmp_path, {"bad": str(bad)})


@needs_forks
def test_a_forked_process_cannot_pass_its_process_limit_and_leaves_none_behind(tmp_path):
    """hostile/fork.py tries 500 children: its own uid's RLIMIT_NPROC stops it, and its
    PID namespace takes every child down with it."""
    from tests.e2e.hostile_arena import HOSTILE, no_processes_of_uid, processes_of_uid

    log_dir = tmp_path / "logs"
    log_dir.mkdir()

    async def main() -> None:
        server = await start_private_server()
        host = BotHost(server.hub, server.address, {"fork": str(HOSTILE / "fork.py"), "random": "random"},
                       isolation="match", copies=2, log_dir=log_dir, sandbox=sb.Sandbox(sb.Limits(processes=64)))
        try:
            await host.start()
            lease, sessions = await host.lease(["fork", "random", "fork", "random"])
            # a bot that hangs near its limit (gRPC cannot start a thread until the children's
            # minute is up) forfeits after 8 s instead of the default clock's 10 + 60 s: its
            # children start in well under that (it hung at 55 of them within a 6 s clock at
            # load 17, at 59 within 20 s), and the hang is all the rest of the wait
            config = MatchConfig("spades", 3, {"deals": 1}, match_id="fork", clock=Clock(decision_ms=8_000, bank_ms=0))
            await asyncio.wait_for(run_match(config,
                                             [RemoteSeat(s, "spades") for s in sessions]), 120)
            host.release(lease)
        finally:
            await host.stop()
            await server.stop(0.2)

    asyncio.run(main())
    lines = [json.loads(line[len("HOSTILE "):]) for p in log_dir.glob("fork.*.stderr.log")
             for line in p.read_text(errors="replace").splitlines() if line.startswith("HOSTILE ")]
    starts = [r for r in lines if r["kind"] == "fork-start"]
    progress = [r["children"] for r in lines if r["kind"] == "fork-progress"]
    assert starts and progress, lines
    # processes AND threads of its uid: never past the limit (near it, gRPC's fork handlers
    # may hang the bot, which then times out: its problem, as in test_hostile_resources)
    assert max(progress) < 64, max(progress)
    assert len({r["uid"] for r in starts}) == len(starts)  # each process its own uid
    for r in starts:
        assert no_processes_of_uid(r["uid"], 10), processes_of_uid(r["uid"])


FRESH_TMP = r"""
import os, sys, ctypes
sys.path.insert(0, sys.argv[1])
import zygote
root = sys.argv[2]
zygote._mount(None, "/", None, zygote._MS_REC | zygote._MS_PRIVATE)
os.makedirs(f"{root}/project", exist_ok=True)
os.makedirs(f"{root}/stage", exist_ok=True)
open(f"{root}/project/code.py", "w").write("kept")
open(f"{root}/left-behind", "w").write("note")
os.makedirs("/tmp/bound-project", exist_ok=True)
zygote._mount(f"{root}/project", "/tmp/bound-project", None, zygote._MS_BIND)
zygote._mount(None, "/tmp/bound-project", None, zygote._MS_BIND | zygote._MS_REMOUNT | 1)  # MS_RDONLY
zygote._mount("tmpfs", f"{root}/stage", "tmpfs", 0, "size=4k")
zygote._fresh_tmp(f"{root}/stage")
print(open("/tmp/bound-project/code.py").read())
print(os.path.exists(f"{root}/left-behind"), sorted(os.listdir("/tmp")))
try:
    open("/tmp/bound-project/x", "w")
    print("writable")
except OSError:
    print("read-only")
"""


@needs_forks
def test_a_childs_fresh_tmp_keeps_the_sandboxs_binds_below_tmp(tmp_path):
    """A project (or its venv) under /tmp, as a CI clone may be, is bound into the sandbox
    below /tmp: the child's fresh /tmp must keep those binds, read-only as they were, and
    nothing else of the old /tmp."""
    import subprocess
    import sys

    script = tmp_path / "fresh_tmp.py"
    script.write_text(FRESH_TMP)
    root = Path("/var/tmp") / f"arena-fresh-tmp-{os.getpid()}"  # outside /tmp: its staging survives the new tmpfs
    try:
        out = subprocess.run(["unshare", "-m", sys.executable, str(script), str(Path(forkserver.__file__).parent),
                              str(root)], capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.split("\n")
        assert lines[0] == "kept"  # the bind below /tmp came across
        assert lines[1] == "True ['bound-project']"  # and nothing else of the old /tmp
        assert lines[2] == "read-only"  # with its flags
    finally:
        subprocess.run(["rm", "-rf", str(root)], check=False)


PEEK = """import json, os, sys
from sdk import Bot
print("PEEK " + json.dumps({"run": sorted(os.listdir("/run/arena")), "spawn": sorted(os.listdir("/bot/spawn")),
                            "cwd": sorted(os.listdir("."))}), file=sys.stderr, flush=True)

class Peek(Bot):
    name = "peek"
    games = ("spades",)

    def choose(self, view, legal_actions):
        return legal_actions[0]
"""


@needs_forks
def test_the_arbiters_of_one_process_share_a_parent_and_each_child_sees_only_its_own(tmp_path):
    """Two arbiters of one process, each with a pool of the same bot: one parent forks for
    both (started once), and each child finds its own arbiter's sockets at /run/arena and
    nothing of the other's, nor any other child's working directory. Its session is on
    its own arbiter (``connect`` waits on that arbiter's hub for its own token)."""
    peek = tmp_path / "peek.py"
    peek.write_text(PEEK)
    peek.chmod(0o644)
    tmp_path.chmod(0o755)
    logs = [tmp_path / "logs-a", tmp_path / "logs-b"]

    kept: list = []

    async def main() -> tuple[bool, bool, list[str]]:
        servers = [await start_private_server(), await start_private_server()]
        hosts = [BotHost(s.hub, s.address, {"peek": str(peek), "random": "random"}, isolation="match", copies=1,
                         log_dir=d) for s, d in zip(servers, logs)]
        try:
            for d in logs:
                d.mkdir()
            sessions = [await h.start() for h in hosts]
            # both arbiters at once: a child of each while the other's is attached
            same = all(hosts[0].pool.forkservers[n] is hosts[1].pool.forkservers[n] for n in (str(peek), "random"))
            own = all(s.hub.session_for(bp.token) is not None for s, h in zip(servers, hosts)
                      for bp in h.pool.procs.values())
            return same, own and all(not x.closed for ss in sessions for x in ss.values()), \
                [h.process_start for h in hosts]
        finally:
            kept.extend(hosts[0].pool.forkservers.values())
            for h, s in zip(hosts, servers):
                await h.stop()
                await s.stop(0.2)

    same, connected, how = asyncio.run(main())
    assert same and connected
    # kept for the next pool of this process (stopped once idle, or at exit), which gets it
    assert kept and all(fs.alive for fs in kept)
    again = forkserver.acquire(sb.Sandbox(), code=[], env={}, name="random", bundled_module="bots.random_bot")
    try:
        assert any(again is fs for fs in kept)
    finally:
        forkserver.release(again)
    assert all(h.startswith("forked by a fork server") for h in how), how
    peeks = [json.loads(line[len("PEEK "):]) for d in logs for p in d.glob("peek*.stderr.log")
             for line in p.read_text().splitlines() if line.startswith("PEEK ")]
    assert len(peeks) == 2, peeks
    for seen in peeks:
        assert seen == {"run": ["arena.sock", "local.sock"], "spawn": [], "cwd": []}, seen



def test_a_child_takes_the_parents_reading_of_the_mounts_below_tmp_only_for_the_parents_table(monkeypatch):
    """A child reads its mount table before it makes its own namespace and keeps the
    parent's parse of it when the table is the parent's, byte for byte; any other table
    (a mount that came or went since the parent read it) is parsed anew."""
    from arbiter.hosting import zygote

    line = "36 25 0:32 / {} rw,relatime - tmpfs tmpfs rw\n"
    parents = line.format("/") + line.format("/tmp/project") + line.format("/tmp/project/sub") + line.format("/usr")
    monkeypatch.setattr(zygote, "_PARENT_MOUNTS", (parents, zygote._mounts_under("/tmp", parents)))
    assert zygote._PARENT_MOUNTS[1] == ["/tmp/project"]  # the outermost only
    assert zygote._tmp_mounts(parents) is zygote._PARENT_MOUNTS[1]
    changed = parents + line.format("/tmp/venv\\040x")
    assert sorted(zygote._tmp_mounts(changed)) == ["/tmp/project", "/tmp/venv x"]
    assert zygote._tmp_mounts(line.format("/")) == []
