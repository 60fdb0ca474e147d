"""A command that fails to reach an arbiter says so in one `error:` line: gRPC's C core
logged its own line first ("I1207 08:32:40.643673 1433 ssl_transport_security.cc:2563]
Handshake failed with error SSL_ERROR_SSL ...", for a CA that did not sign the arbiter's
certificate) on the same stderr, in its own words. `arbiter` runs gRPC at ERROR verbosity
unless GRPC_VERBOSITY says otherwise."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import pytest

from arbiter.server.app import start_server
from arbiter.spectating.hub import SpectatorHub
from tests.conftest import ROOT, tls_certificate

pytestmark = pytest.mark.e2e  # an arbiter's gRPC server in a thread of this process, a command in a process


def test_a_tls_refusal_is_one_error_line(tmp_path):
    cert, key = tls_certificate(tmp_path)
    (tmp_path / "other").mkdir()
    other, _ = tls_certificate(tmp_path / "other")  # a CA that signed another certificate
    loop = asyncio.new_event_loop()
    started = threading.Event()
    servers: list = []

    async def serve() -> None:
        servers.append(await start_server(spectators=SpectatorHub(token="s" * 20), tls=(cert.read_bytes(), key.read_bytes())))
        started.set()
        await asyncio.Event().wait()

    threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True).start()
    assert started.wait(30)
    env = {k: v for k, v in os.environ.items() if k != "GRPC_VERBOSITY"}
    run = subprocess.run([sys.executable, "-m", "arbiter", "watch", "--list", "--server", servers[0].address,
                          "--tls-ca", str(other), "--token", "s" * 20], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60)
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), run.stderr
    assert "not signed by the CA of --tls-ca" in lines[0], run.stderr
