"""`arbiter serve --host ::1` (IPv6 loopback, which --help's rule counts as loopback) could
not listen: the address was written "::1:PORT", which gRPC reads as host "::1:PORT" on port
443, and the refusal blamed the port or the machine ("the port is taken or not allowed, or
::1 is not an address of this machine") after a line of gRPC's own log. An IPv6 host is
written in brackets, where it is listened on and in the line that says where."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e  # `arbiter serve` in a process of its own


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_serve_listens_on_an_ipv6_loopback_host_and_says_it_in_brackets(tmp_path, host):
    proc = subprocess.Popen([sys.executable, "-m", "arbiter", "serve", "--host", host, "--port", "0", "--credentials",
                             str(tmp_path / "credentials.json")], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        line = proc.stdout.readline()
    finally:
        proc.terminate()  # not stop_processes: its stderr is read to the end
        _, err = proc.communicate(timeout=20)
    assert line.startswith("arbiter listening on [::1]:"), (line, err)
    port = int(line.split("]:")[1].split()[0])
    assert port > 0 and "E1" not in err, err  # (no line of gRPC's log)


def test_a_taken_ipv6_port_is_named_in_brackets():
    """``port_free``'s refusal writes an IPv6 host as the listening line does: ``[::1]:PORT``."""
    import socket

    import pytest

    from arbiter.cli._common import UsageError, port_free

    try:
        taken = socket.socket(socket.AF_INET6)
        taken.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    with taken:
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(UsageError, match=rf"cannot listen on \[::1\]:{port}: the port is taken"):
            port_free("::1", port)
