"""Scratch folders: named for their owner, swept once the owner is gone (arbiter/scratch.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arbiter import scratch


def _dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _named(folder: Path, prefix: str, ns: int, pid: int) -> Path:
    path = folder / f"{prefix}{scratch._b36(ns)}.{scratch._b36(pid)}-abc123"
    path.mkdir()
    (path / "inside").mkdir()
    (path / "inside" / "file.log").write_text("what the bot wrote")
    return path


def test_a_folder_names_its_owner_and_the_owner_keeps_it(tmp_path, monkeypatch):
    monkeypatch.setattr(scratch.tempfile, "tempdir", str(tmp_path))
    made = scratch.make("arena-bot-")
    assert made.parent == tmp_path and made.is_dir()
    assert scratch.owner(made) == (scratch._pid_namespace(), os.getpid())
    assert oct(made.stat().st_mode & 0o777) == "0o700"
    assert scratch.stale(tmp_path) == []
    with pytest.raises(ValueError, match="unknown scratch prefix"):
        scratch.make("mine-")


@pytest.mark.e2e
def test_the_sweep_removes_dead_owners_folders_only(tmp_path):
    ns, dead = scratch._pid_namespace(), _dead_pid()
    gone = [_named(tmp_path, prefix, ns, dead) for prefix in scratch.PREFIXES]
    kept = [
        _named(tmp_path, "arena-bot-", ns, os.getpid()),  # alive: this process
        _named(tmp_path, "arena-bot-", ns, os.getppid()),  # alive: another process
        _named(tmp_path, "arena-bot-", ns + 1, dead),  # another PID namespace: its pids mean nothing here
        _named(tmp_path, "arena-other-", ns, dead),  # not one of ours
    ]
    legacy = tmp_path / "arena-bot-k2j3h4"  # an older version's name: no owner to ask
    legacy.mkdir()
    (tmp_path / f"arena-bot-{scratch._b36(ns)}.{scratch._b36(dead)}-file").write_text("a file, not a folder")
    assert sorted(scratch.stale(tmp_path)) == sorted(gone)
    assert scratch.sweep(tmp_path) == len(gone)
    assert not any(p.exists() for p in gone)
    assert all(p.exists() for p in kept) and legacy.exists()
    assert (tmp_path / f"arena-bot-{scratch._b36(ns)}.{scratch._b36(dead)}-file").exists()


@pytest.mark.e2e
def test_a_sigkilled_process_s_folders_go_with_the_next_process_s_first_folder(tmp_path):
    """Real processes: one makes folders and is SIGKILLed; the next one's first folder sweeps them."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    maker = textwrap.dedent("""
        import sys, time
        from arbiter import scratch
        for prefix in scratch.PREFIXES:
            (scratch.make(prefix) / "log").write_text("x")
        print("made", flush=True)
        time.sleep(60)
    """)
    p = subprocess.Popen([sys.executable, "-c", maker], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "made"
        left = sorted(d for d in tmp_path.iterdir() if scratch.owner(d) == (scratch._pid_namespace(), p.pid))
        assert len(left) == len(scratch.PREFIXES)
        assert scratch.stale(tmp_path) == []  # its owner is still running
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert all(d.exists() for d in left)  # nobody cleaned up: it was killed
    out = subprocess.run([sys.executable, "-c", "from arbiter import scratch; print(scratch.make('arena-bots-'))"],
                         env=env, capture_output=True, text=True, check=True)
    assert not any(d.exists() for d in left)
    assert Path(out.stdout.strip()).is_dir()  # its own folder stays (no owner removed it here)


def test_the_socket_folder_moves_to_tmp_when_the_temporary_folder_is_too_long(tmp_path, monkeypatch):
    from arbiter.server import app

    deep = tmp_path / ("d" * 60) / ("e" * 40)
    deep.mkdir(parents=True)
    monkeypatch.setattr(scratch.tempfile, "tempdir", str(deep))
    made = app.socket_dir()
    try:
        assert made.parent == Path("/tmp") and scratch.owner(made) is not None
        assert len(os.fsencode(made / "arena.sock")) <= app.MAX_UNIX_PATH
        assert list(deep.iterdir()) == []  # the first try did not stay behind
    finally:
        made.rmdir()
    short = Path(scratch.tempfile.mkdtemp(prefix="sock-", dir="/tmp"))
    try:
        monkeypatch.setattr(scratch.tempfile, "tempdir", str(short))
        assert app.socket_dir().parent == short  # short enough: where it was asked
    finally:
        shutil.rmtree(short)
