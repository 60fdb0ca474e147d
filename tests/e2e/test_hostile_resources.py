"""Hostile bots that attack the machine: memory, CPU, processes, network, files. Each is
hosted as a sandboxed process by a real arbiter with a real store (see
tests/e2e/hostile_arena.py for what every test also checks: the arbiter serves on, the
honest match is unchanged, the store is intact).

Each test states which sandbox mode blocks what (``arbiter bots sandbox`` prints it):
rlimits hold everywhere; the network is cut by bwrap or unshare; files are hidden and
processes confined to a PID namespace by bwrap only; RLIMIT_NPROC binds only a non-root
uid (bwrap runs each bot under its own uid when the arbiter is root).
"""

from __future__ import annotations

import asyncio
import signal

from cardarena.games import EndReason
from arbiter.hosting.sandbox import Limits, Sandbox
from tests.e2e.hostile_arena import (HOSTILE, canary_listener, check_files_report, check_network_report, file_targets,
                                     hostile_folder, no_processes_of_uid, processes_of_uid, run_hostile)

ROOT = HOSTILE.parent.parent.parent


def test_unbounded_memory_is_stopped_at_the_limit(tmp_path):
    # RLIMIT_DATA: enforced in every sandbox mode
    r = run_hostile(HOSTILE / "memory.py", tmp_path, limits=Limits(memory_mb=256, cpu_seconds=30))
    got = r.report("memory")["mb"]
    assert 0 < got <= 256, got  # it could not allocate past its limit
    # the SDK catches the MemoryError in choose and reports it (a crash under the forfeit
    # policy); had the allocation killed the interpreter outright, the stream would close
    assert r.hostile.outcome.reason in (EndReason.FORFEIT_CRASH, EndReason.FORFEIT_DISCONNECT)
    assert "MemoryError" in r.incidents()[0].stderr


def test_a_spinning_cpu_times_out_and_is_killed_by_its_cpu_limit(tmp_path):
    # the clock forfeits it; RLIMIT_CPU (every mode) then kills the process that spins on.
    # The bot has used about 0.25 CPU-s when it starts to spin (measured at load 13), so a
    # 1 s limit leaves it 0.75 s of spinning, past the clock's 0.5 s: it spins that long
    # whatever the limit, and each second more was a second of the test's CPU
    r = run_hostile(HOSTILE / "cpu.py", tmp_path, decision_ms=300, bank_ms=200,
                    limits=Limits(memory_mb=512, cpu_seconds=1), settle=20.0)
    assert r.hostile.outcome.reason is EndReason.FORFEIT_TIMEOUT
    # killed by a signal (bwrap reports a child's death by signal N as exit code 128 + N)
    killed = {-signal.SIGXCPU, -signal.SIGKILL, 128 + signal.SIGXCPU, 128 + signal.SIGKILL}
    assert r.proc_returncode in killed, r.proc_returncode


def test_forking_is_limited_and_no_child_outlives_the_bot(tmp_path):
    box = Sandbox(Limits(memory_mb=512, cpu_seconds=30, processes=64))
    r = run_hostile(HOSTILE / "fork.py", tmp_path, limits=box.limits)
    # forking is no protocol fault; a bot that spends its process budget may starve its own
    # gRPC threads and time out: either way the record says what happened to it
    assert r.hostile.outcome.reason in (EndReason.COMPLETED, EndReason.FORFEIT_TIMEOUT)
    uid = r.report("fork-start")["uid"]
    children = r.report("fork-progress")["children"]
    if box.limits_processes:  # bwrap as root (own uid), or any non-root arbiter
        assert children < 64, children  # processes AND threads of its uid: never past the limit
    else:  # root without bwrap: the kernel exempts root from RLIMIT_NPROC, and the test says so
        assert children > 64, children
    # the PID namespace (bwrap) or the process group (elsewhere) took every child down
    if box.drops_privileges:
        assert no_processes_of_uid(uid, 10), processes_of_uid(uid)


def test_the_network_outside_is_unreachable(tmp_path):
    with canary_listener() as (port, visitors):
        r = run_hostile(hostile_folder(tmp_path, "network.py", {"canary_port": port}), tmp_path)
    check_network_report(r, visitors)


def test_files_outside_its_directory_are_out_of_reach(tmp_path):
    secret, params = file_targets(tmp_path, ROOT / "pyproject.toml")
    r = run_hostile(hostile_folder(tmp_path, "files.py", params), tmp_path)
    check_files_report(r, secret)


def test_a_store_in_a_folder_the_sandbox_shows_is_not_readable_by_its_bots(tmp_path):
    # The store lies in the spy's own folder (the default arena.sqlite of a run started
    # there; /usr or the Python installation would do as well): bwrap shows the bot the
    # folder, and with it the running tournament's records, the twin seatings of its deals
    # among them. The store is closed to other users (Store: the file, its -wal and -shm),
    # and a bot of an arbiter that runs as root has a uid of its own.
    import json
    import shutil

    from arbiter.store.db import Store
    from arbiter.tournament.run import TournamentSpec, run_tournament

    folder = tmp_path / "spy"
    folder.mkdir()
    shutil.copy(HOSTILE / "store_spy.py", folder / "bot.py")
    for p in (tmp_path, folder, folder / "bot.py"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    spec = TournamentSpec(game="spades", bots=(f"spy={folder}", "random"), options={"deals": 1}, deals=1, name="spy")
    with Store(folder / "arena.sqlite") as store:
        rows = asyncio.run(run_tournament(spec, store, concurrency=1))
    bids = [a["action"] for r in rows for a in json.loads(r.record_json)["actions"]
            if a["action"].startswith("bid") and r.seats[a["seat"]] == "spy"]
    assert [r.outcome.reason.value for r in rows] == ["completed"] * 2 and len(bids) == 4, bids
    if Sandbox().drops_privileges:  # bwrap as root: the bot's own uid is one of the others
        assert set(bids) == {"bid 1"}, [r.record_json[:2000] for r in rows]
    else:  # the bot runs as the arbiter's user, who may read its store: the test says so
        assert set(bids) == {"bid 13"}, bids
