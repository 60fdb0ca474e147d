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

import signal
import socket
import sys
import threading
from pathlib import Path

from cardarena.games import EndReason
from arbiter.hosting.sandbox import Limits, Sandbox, _package_dirs
from tests.e2e.hostile_arena import HOSTILE, hostile_folder, no_processes_of_uid, processes_of_uid, run_hostile

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
    # the clock forfeits it; RLIMIT_CPU (every mode) then kills the process that spins on
    r = run_hostile(HOSTILE / "cpu.py", tmp_path, decision_ms=300, bank_ms=200,
                    limits=Limits(memory_mb=512, cpu_seconds=2), settle=20.0)
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
    canary = socket.create_server(("127.0.0.1", 0))
    canary.settimeout(0.2)
    port = canary.getsockname()[1]
    visitors: list = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = canary.accept()
                visitors.append(conn.recv(100))
                conn.close()
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        r = run_hostile(hostile_folder(tmp_path, "network.py", {"canary_port": port}), tmp_path)
    finally:
        stop.set()
        t.join(2)
        canary.close()
    net = r.report("network")
    assert r.hostile.outcome.reason is EndReason.COMPLETED
    if r.sandbox.blocks_network:  # bwrap or unshare: its own network namespace
        assert net["canary"].startswith("blocked") and net["canary_v6"].startswith("blocked"), net
        assert visitors == []
    else:  # rlimit only: nothing stops it, and the test says so
        assert net["canary"] == "CONNECTED" and visitors


def test_files_outside_its_directory_are_out_of_reach(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the organisers' secret")
    secret.chmod(0o644)  # readable by anyone: only the sandbox's mount namespace hides it
    params = {"secret": str(secret), "store": str(tmp_path / "arena.sqlite"), "source": str(ROOT / "pyproject.toml")}
    r = run_hostile(hostile_folder(tmp_path, "files.py", params), tmp_path)
    files = r.report("files")
    assert r.hostile.outcome.reason is EndReason.COMPLETED
    assert files["write_workdir"] == "WROTE"  # its private working directory
    if r.sandbox.hides_files:  # bwrap: none of these exist in its world
        for key in ("secret", "store", "source", "passwd", "write_store", "write_own_code"):
            assert files[key].startswith("blocked"), (key, files[key])
        # its whole world: the system's binaries and libraries, a few /etc files, its own dirs,
        # and the top directories of the Python installation and the SDK packages (read-only;
        # where the project lives depends on the machine, e.g. /work or /check)
        installed = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve(), *_package_dirs()]
        tops = {p.resolve().parts[1] for p in installed}
        assert set(files["listdir_root"]) <= {"bin", "bot", "dev", "etc", "lib", "lib32", "lib64", "proc", "run",
                                              "sbin", "tmp", "usr", *tops}, (files["listdir_root"], tops)
    else:  # without bwrap only file permissions protect files, and the test says so
        assert files["secret"].startswith("READ")
    assert secret.read_text() == "the organisers' secret"
