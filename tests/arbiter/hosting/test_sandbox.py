"""The sandbox, mode by mode, on this machine: a real confined process reports what it
can see and do. Modes this machine lacks are skipped (and say so)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.hosting import sandbox as sb
from tests.campaigns import procs

PROBE = r"""
import json, os, resource, socket, sys
out = {"uid": os.getuid(), "cwd": os.getcwd(), "env": sorted(os.environ),
       "limits": {n: resource.getrlimit(getattr(resource, n))[0] for n in
                  ("RLIMIT_DATA", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_CORE")},
       "nice": os.nice(0)}
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close(); out["net"] = "connected"
except OSError as e:
    out["net"] = type(e).__name__
try:
    open(sys.argv[2]).read(); out["secret"] = "read"
except OSError as e:
    out["secret"] = type(e).__name__
open("scratch", "w").write("x"); out["scratch"] = os.path.exists("scratch")
print(json.dumps(out))
"""


def run_probe(mode: str, tmp_path: Path, limits: sb.Limits = sb.Limits(memory_mb=300, cpu_seconds=7, processes=33, open_files=77, file_size_mb=5)):
    box = sb.Sandbox(limits, mode)
    listener = socket.create_server(("127.0.0.1", 0))
    secret = tmp_path / "secret"
    secret.write_text("s")
    secret.chmod(0o644)
    os.environ["ARENA_TEST_SECRET_ENV"] = "leak"
    try:
        launch = box.prepare([sys.executable, "-c", PROBE, str(listener.getsockname()[1]), str(secret)], needs_arbiter=False,
                             env={"ARENA_TOKEN": "t"})
        proc = subprocess.run(launch.argv, env=launch.env, cwd=launch.cwd, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return box, launch, json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        del os.environ["ARENA_TEST_SECRET_ENV"]
        listener.close()


@pytest.mark.e2e
@pytest.mark.parametrize("mode", sb.MODES)
def test_each_mode_confines_a_real_process(mode, tmp_path):
    if mode not in sb.available_modes():
        pytest.skip(f"sandbox mode {mode} is not available on this machine")
    box, launch, seen = run_probe(mode, tmp_path)
    # everywhere: the limits, a lower priority, a scrubbed environment, a private directory
    assert seen["limits"] == {"RLIMIT_DATA": 300 << 20, "RLIMIT_CPU": 7, "RLIMIT_NPROC": 33, "RLIMIT_NOFILE": 77,
                              "RLIMIT_FSIZE": 5 << 20, "RLIMIT_CORE": 0}
    assert seen["nice"] >= 5
    assert "ARENA_TEST_SECRET_ENV" not in seen["env"] and "ARENA_TOKEN" in seen["env"]
    assert seen["scratch"] is True and (launch.workdir / "scratch").exists()
    # network: cut by bwrap and unshare, not by rlimits
    assert (seen["net"] != "connected") == box.blocks_network == (mode in ("bwrap", "unshare"))
    # files: hidden by bwrap only
    assert (seen["secret"] != "read") == box.hides_files == (mode == "bwrap")
    if mode == "bwrap":
        assert seen["cwd"] == sb.WORK_DIR
        if os.geteuid() == 0:
            assert seen["uid"] == launch.uid and launch.uid >= 200_000  # not root inside
    sb.cleanup(launch.workdir)
    assert not launch.workdir.exists()


def test_describe_says_what_is_and_is_not_enforced():
    for mode in sb.available_modes():
        d = sb.Sandbox(mode=mode).describe()
        text = "\n".join(d["enforced"] + d["not enforced"])
        assert "memory" in text and "network" in text and "files" in text
        if mode == "rlimit":
            assert any(line.startswith("network: not blocked") for line in d["not enforced"])
            assert any(line.startswith("files: the host file system is visible") for line in d["not enforced"])
        if mode == "bwrap":
            assert d["not enforced"] == [] or os.geteuid() != 0


def test_a_server_hosting_strangers_bots_is_told_when_its_sandbox_does_not_isolate_them():
    """`arbiter arena` and `arbiter serve --bots-db` print this at their start: without bwrap a
    submitted bot could read this user's files and reach the network, and nothing said so."""
    for mode in sb.available_modes():
        box = sb.Sandbox(mode=mode)
        said = box.untrusted_warning()
        if mode == "bwrap":
            assert said == ""
        else:
            assert f"sandbox mode {mode}" in said and "install bubblewrap" in said, said
            assert ("the host's files" in said) and (("the network" in said) == (mode == "rlimit")), said


def test_a_mode_can_be_forced_and_a_bad_one_is_refused(monkeypatch):
    monkeypatch.setenv("ARENA_SANDBOX", "rlimit")
    assert sb.Sandbox().mode == "rlimit"
    monkeypatch.setenv("ARENA_SANDBOX", "chroot")
    with pytest.raises(sb.SandboxError, match="expected auto"):
        sb.Sandbox()
    with pytest.raises(sb.SandboxError, match="expected auto"):
        sb.Sandbox(mode="jail")


def test_a_mode_without_network_needs_the_arbiters_unix_socket():
    mode = next((m for m in sb.available_modes() if m != "rlimit"), None)
    if mode is None:
        pytest.skip("neither bwrap nor unshare here")
    with pytest.raises(sb.SandboxError, match="Unix socket"):
        sb.Sandbox(mode=mode).prepare(["true"])


@pytest.mark.e2e
def test_kill_tree_takes_the_children_down(tmp_path):
    # the process says it is ready (its children started) and who they are over a socket:
    # its stdout is the sandbox's (nobody's)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(30)
    box = sb.Sandbox(mode="rlimit")
    launch = box.prepare([sys.executable, "-c", "import socket,subprocess,sys,time\n"
                          "kids = [subprocess.Popen([sys.executable,'-c','import time;time.sleep(60)']) for _ in range(3)]\n"
                          f"socket.create_connection(('127.0.0.1', {listener.getsockname()[1]}))"
                          ".sendall(' '.join(str(k.pid) for k in kids).encode() + b'\\n'); time.sleep(60)"],
                         needs_arbiter=False)
    proc = sb.start(launch, tmp_path / "err.log")
    try:
        conn, _ = listener.accept()
        with conn, conn.makefile() as ready:
            kids = [int(pid) for pid in ready.readline().split()]
    finally:
        listener.close()
    assert len(kids) == 3 and all(_pgid(k) == proc.pid for k in kids)
    started = {k: procs.start_time(k) for k in kids}
    pgid = proc.pid
    sb.kill_tree(proc, 2)
    assert procs.wait_gone(started, 10) == set()  # the leader is reaped; its children exit a moment later
    alive = [p for p in os.listdir("/proc") if p.isdigit() and _pgid(int(p)) == pgid and _state(int(p)) not in ("Z", "X")]
    assert alive == []  # (zombies wait for their reaper; they run nothing)
    sb.cleanup(launch.workdir)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "X"


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None
