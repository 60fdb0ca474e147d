"""`python -m sdk` as an author runs it: it says whom it connected as, says when the
arbiter goes away, and stops cleanly on Ctrl-C (no traceback)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.conftest import ROOT, start_serve, stop_serve

pytestmark = pytest.mark.e2e  # `python -m sdk` against a real `arbiter serve`


def _bot(serve, name: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sdk", "--bot", "random", "--name", name, "--address", serve.address,
                             "--token", serve.bot_token(name)], cwd=ROOT, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_connected(proc: subprocess.Popen) -> str:
    line = proc.stderr.readline()
    assert line.startswith("connected to ") and " as " in line, line
    return line


@pytest.fixture(scope="module")
def serve():
    """One `arbiter serve` for the tests that leave it running (the others stop their own)."""
    s = start_serve()
    yield s
    stop_serve(s)


def test_ctrl_c_stops_the_bot_cleanly(serve):
    proc = _bot(serve, "north")
    assert "as north" in _wait_connected(proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130 and "Traceback" not in err and "stopped (0 matches played)" in err


def test_the_bot_says_when_the_arbiter_goes_away():
    s = start_serve()
    proc = _bot(s, "south")
    try:
        _wait_connected(proc)
    finally:
        stop_serve(s)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0 and "the arbiter closed the connection (0 matches played)" in err and "Traceback" not in err


def test_a_refused_or_unreachable_bot_is_one_error_line(serve):
    proc = subprocess.run([sys.executable, "-m", "sdk", "--bot", "random", "--name", "east", "--address", serve.address,
                           "--token", "not-the-right-token-at-all"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.strip() == "error: arbiter refused the session: auth: token not accepted"
    # no token at all: the arbiter's words name the operator's command; the author is told what to set
    env = {k: v for k, v in os.environ.items() if k != "ARENA_TOKEN"}
    proc = subprocess.run([sys.executable, "-m", "sdk", "--bot", "random", "--name", "east", "--address", serve.address],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "a bot token is required" in proc.stderr and "no token was given: set ARENA_TOKEN" in proc.stderr, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "sdk", "--bot", "random", "--address", "127.0.0.1:1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.startswith("error: cannot reach the arbiter at 127.0.0.1:1")
    assert len(proc.stderr.strip().splitlines()) == 1
    # nothing listens there (the arbiter not started yet, or another port): said in words, beside grpc's
    assert "nothing listens at 127.0.0.1:1" in proc.stderr, proc.stderr


def test_a_bot_script_run_by_python_says_when_it_is_connected(tmp_path):
    """Issue 44 (item 7): `python mybot.py` (``sdk.run``) says what `python -m sdk` says."""
    (tmp_path / "mybot.py").write_text("from sdk import run\nfrom sdk.random_bot import RandomBot\n"
                                       "if __name__ == '__main__':\n    run(RandomBot())\n")
    s = start_serve()
    try:
        proc = subprocess.Popen([sys.executable, "mybot.py", "--address", s.address, "--name", "north",
                                 "--token", s.bot_token("north")], cwd=tmp_path, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert f"connected to {s.address} as north" in _wait_connected(proc)
    finally:
        stop_serve(s)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0 and "the arbiter closed the connection (0 matches played)" in err, err


def test_a_bot_script_ends_as_python_m_sdk_does(serve, tmp_path):
    """`python mybot.py` (``sdk.run``, the README's bot) meets no traceback where `python -m sdk`
    has none: a refused or unreachable arbiter is one error line (exit 1), Ctrl-C stops it
    cleanly (exit 130)."""
    (tmp_path / "mybot.py").write_text("from sdk import run\nfrom sdk.random_bot import RandomBot\n"
                                       "if __name__ == '__main__':\n    run(RandomBot())\n")
    proc = subprocess.run([sys.executable, "mybot.py", "--name", "east", "--address", serve.address, "--token",
                           "not-the-right-token-at-all"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.strip() == "error: arbiter refused the session: auth: token not accepted"
    proc = subprocess.run([sys.executable, "mybot.py", "--address", "127.0.0.1:1"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr.startswith("error: cannot reach the arbiter at 127.0.0.1:1")
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = subprocess.Popen([sys.executable, "mybot.py", "--address", serve.address, "--name", "west", "--token",
                             serve.bot_token("west")], cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert "as west" in _wait_connected(proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130 and "Traceback" not in err and "stopped (0 matches played)" in err, err


def test_the_sdk_brings_its_own_random_bot():
    """Issue 44: with card-arena-sdk alone (no entry points of the platform) `--bot random`
    is the SDK's own random bot; installed, the platform's is the same class."""
    from sdk.loading import BUNDLED, _bundled
    from sdk.random_bot import RandomBot

    alone = _bundled([])
    assert sorted(alone) == ["random"] and alone["random"].load() is RandomBot
    assert issubclass(BUNDLED["random"].load(), RandomBot)  # bots.random_bot is its subclass
