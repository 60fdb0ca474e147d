"""A hostile bot in JavaScript (tests/e2e/hostile/hostile.js), hosted by a real arbiter
as any Node bot: the same checks the Python hostile bots get (tests/e2e/hostile_arena.py:
the arbiter serves on, the honest match beside it is unchanged, the store is intact),
and what happened to it is recorded with its reason. Skipped only without Node.js."""

from __future__ import annotations

import json
import socket
import sys
import threading
from pathlib import Path

from arbiter.hosting.sandbox import _package_dirs
from cardarena.games import EndReason
from tests.e2e.hostile_arena import HOSTILE, run_hostile
from tests.e2e.nodejs import ROOT, node_folder


def hostile_node(tmp: Path, mode: str, **params) -> Path:
    return node_folder(tmp, f"hostile-{mode}", HOSTILE / "hostile.js",
                       {"params.json": json.dumps({"mode": mode, **params})})


def test_an_illegal_action_forfeits_with_the_arbiters_reason(tmp_path):
    r = run_hostile(hostile_node(tmp_path, "illegal"), tmp_path)
    assert r.hostile.outcome.reason is EndReason.FORFEIT_ILLEGAL
    assert r.hostile.outcome.ranks == (2, 1, 2, 1)
    [inc] = r.incidents()
    assert inc.kind == "illegal" and inc.seat in (0, 2) and "bid 14" in inc.detail, inc
    assert r.report("errors")["codes"] == ["illegal"]  # and it was told


def test_garbage_acts_are_refused_and_the_match_plays_on(tmp_path):
    r = run_hostile(hostile_node(tmp_path, "garbage"), tmp_path)
    assert r.hostile.outcome.reason is EndReason.COMPLETED and r.hostile.incidents == []
    errors = r.report("errors")
    assert errors["codes"] == ["unknown_request", "wrong_seat"] and errors["count"] >= 10, errors
    assert all(a.forced == "" for a in r.hostile.actions)  # its real answers, every one


def test_a_flooded_stream_is_cut_and_the_seat_forfeits(tmp_path):
    r = run_hostile(hostile_node(tmp_path, "flood"), tmp_path)
    assert r.hostile.outcome.reason is EndReason.FORFEIT_DISCONNECT
    [inc] = r.incidents("disconnect")
    assert inc.seat in (0, 2)
    assert "arbiter says flood" in inc.stderr, inc.stderr[-500:]  # its own stderr, in the record


def test_a_stalled_bot_times_out_and_forfeits(tmp_path):
    r = run_hostile(hostile_node(tmp_path, "stall"), tmp_path, decision_ms=300, bank_ms=200)
    assert r.hostile.outcome.reason is EndReason.FORFEIT_TIMEOUT
    [inc] = r.incidents()
    assert inc.kind == "timeout" and inc.seat in (0, 2) and "no answer within" in inc.detail
    assert r.proc_returncode is None  # still waiting when the match ended; the pool killed it


def test_files_outside_its_folder_are_out_of_reach(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the organisers' secret")
    secret.chmod(0o644)  # readable by anyone: only the sandbox's mount namespace hides it
    params = {"secret": str(secret), "store": str(tmp_path / "arena.sqlite"), "source": str(ROOT / "pyproject.toml")}
    r = run_hostile(hostile_node(tmp_path, "files", **params), tmp_path)
    files = r.report("files")
    assert r.hostile.outcome.reason is EndReason.COMPLETED
    assert files["write_workdir"] == "WROTE"  # its private working directory
    if r.sandbox.hides_files:  # bwrap: none of these exist in its world
        for key in ("secret", "store", "source", "passwd", "write_store", "write_own_code"):
            assert files[key].startswith("blocked"), (key, files[key])
        installed = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve(), *_package_dirs()]
        tops = {p.resolve().parts[1] for p in installed}
        assert set(files["listdir_root"]) <= {"bin", "bot", "dev", "etc", "lib", "lib32", "lib64", "proc", "run",
                                              "sbin", "tmp", "usr", *tops}, (files["listdir_root"], tops)
    else:  # without bwrap only file permissions protect files, and the test says so
        assert files["secret"].startswith("READ")
    assert secret.read_text() == "the organisers' secret"


def test_the_network_outside_is_unreachable(tmp_path):
    canary = socket.create_server(("127.0.0.1", 0))
    canary.settimeout(0.2)
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
        r = run_hostile(hostile_node(tmp_path, "network", canary_port=canary.getsockname()[1]), tmp_path)
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
