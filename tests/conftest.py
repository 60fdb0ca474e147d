"""Shared fixtures: a real `arbiter serve` subprocess and real bot processes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import pytest

ROOT = Path(__file__).resolve().parent.parent


class ServeProcess:
    def __init__(self, proc: subprocess.Popen, address: str):
        self.proc = proc
        self.address = address
        self.bots: list[subprocess.Popen] = []

    def start_bot(self, spec: str, name: str, token: str = "", extra_env: dict | None = None) -> subprocess.Popen:
        env = dict(os.environ, ARENA_TOKEN=token, **(extra_env or {}))
        p = subprocess.Popen(
            [sys.executable, "-m", "sdk", "--bot", spec, "--address", self.address, "--name", name],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
        )
        self.bots.append(p)
        return p

    def wait_sessions(self, names: list[str], admin_token: str = "", timeout: float = 30) -> None:
        from cardarena.v1 import arena_pb2 as pb, arena_pb2_grpc as pb_grpc

        deadline = time.monotonic() + timeout
        with grpc.insecure_channel(self.address) as ch:
            stub = pb_grpc.MatchesStub(ch)
            while time.monotonic() < deadline:
                live = [s.bot_name for s in stub.ListSessions(pb.ListSessionsRequest(admin_token=admin_token)).sessions]
                if all(live.count(n) >= names.count(n) for n in set(names)):
                    return
                time.sleep(0.05)
        raise TimeoutError(f"bots {names} did not all connect; connected: {live}")

    def alive(self) -> bool:
        return self.proc.poll() is None


def start_serve(*args: str) -> ServeProcess:
    # stderr goes to a file: a pipe nobody reads would block the server once it filled
    log = tempfile.NamedTemporaryFile(prefix="arbiter-serve-", suffix=".log", delete=False)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arbiter", "serve", "--port", "0", *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True, stdin=subprocess.DEVNULL,
    )
    line = proc.stdout.readline()
    m = re.search(r"listening on ([\d.]+:\d+)", line)
    if not m:
        proc.kill()
        raise RuntimeError(f"arbiter serve did not start: {line!r} {Path(log.name).read_text()}")
    return ServeProcess(proc, m.group(1))


def stop_serve(serve: ServeProcess) -> None:
    for b in serve.bots:
        if b.poll() is None:
            b.terminate()
    for b in serve.bots:
        try:
            b.wait(5)
        except subprocess.TimeoutExpired:
            b.kill()
    serve.proc.terminate()
    try:
        serve.proc.wait(10)
    except subprocess.TimeoutExpired:
        serve.proc.kill()


@pytest.fixture
def serve():
    """`arbiter serve` on a free loopback port, open to any bot; stopped after the test."""
    s = start_serve()
    yield s
    stop_serve(s)


@pytest.fixture
def secured_serve():
    """`arbiter serve` requiring a join token and an admin token."""
    s = start_serve("--token", "join-secret", "--admin-token", "admin-secret")
    yield s
    stop_serve(s)
