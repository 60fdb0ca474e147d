"""The TLS files of `arbiter serve`. A certificate out of its dates: serve served an expired
one without a word, and every client's handshake then failed, told "the arbiter's
certificate is not signed by the CA of --tls-ca, or does not name this address" (neither
was true); serve refuses it, and a client that meets one is told it is out of its dates.
A private key other users may read: serve says so."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from cardarena.wire.tls import unreachable_hint
from tests.cli.badinput import run_in_process


def _expired(folder) -> tuple:
    """A self-signed certificate for localhost that expired yesterday, and its key."""
    assert shutil.which("openssl"), "the openssl command makes the test certificate"
    key, csr, cert = folder / "key.pem", folder / "req.csr", folder / "cert.pem"
    subprocess.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(key), "-out", str(csr), "-subj", "/CN=localhost"], check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", str(csr), "-signkey", str(key), "-out", str(cert), "-days", "-1"],
                   check=True, capture_output=True)
    return cert, key


@pytest.mark.e2e  # openssl makes the certificate: a process
def test_serve_refuses_an_expired_certificate(tmp_path):
    cert, key = _expired(tmp_path)
    got = run_in_process("serve", "--port", "0", "--credentials", str(tmp_path / "c.json"), "--tls-cert", str(cert),
                         "--tls-key", str(key), serving=True)
    said = " ".join(got.stderr.split())
    assert got.returncode == 2 and f"--tls-cert {cert}: the certificate expired on" in said and "renew it" in said, got


@pytest.mark.parametrize("details", [
    "Tls handshake failed (TSI_PROTOCOL_FAILURE): SSL_ERROR_SSL: error:1000007d:SSL routines:OPENSSL_internal:"
    "CERTIFICATE_VERIFY_FAILED: certificate has expired: OK",
    "Tls handshake failed (TSI_PROTOCOL_FAILURE): SSL_ERROR_SSL: error:1000007d:SSL routines:OPENSSL_internal:"
    "CERTIFICATE_VERIFY_FAILED: certificate is not yet valid: OK",
])
def test_a_client_is_told_the_certificate_is_out_of_its_dates(details):
    hint = unreachable_hint("127.0.0.1:50051", details, tls=True)
    assert "out of its dates" in hint and "not signed by the CA" not in hint, hint


@pytest.mark.parametrize("tls", [False, True])
def test_a_client_given_a_web_port_is_told_it_is_one(tls):
    """`arbiter bots submit --server` given the arena's leaderboard port (the one a person has
    open in the browser) said only gRPC's "Failed parsing HTTP/2 (Expected SETTINGS frame as
    the first frame, got frame type 80) (Trying to connect an http1.x server (HTTP status 404))"."""
    details = ("failed to connect to all addresses; last error: UNIMPLEMENTED: ipv4:127.0.0.1:8080: Failed parsing "
               "HTTP/2 (Expected SETTINGS frame as the first frame, got frame type 80) (Trying to connect an http1.x "
               "server (HTTP status 404))")
    hint = unreachable_hint("127.0.0.1:8080", details, tls=tls)
    assert hint == (" (127.0.0.1:8080 is a web server's port (arbiter web, an arena's leaderboard), not an arbiter's: "
                    "give the port of its 'arbiter listening on' line (an arena's 'Bots service listening on'))"), hint


@pytest.mark.e2e  # openssl makes the certificate, and the server starts (and stops at once)
def test_serve_warns_of_a_private_key_other_users_may_read(tmp_path):
    """The credentials file is made its owner's alone; the TLS private key, read as it was
    (0644 after a copy), let any user of the machine pose as the arbiter. serve says so."""
    from tests.conftest import tls_certificate

    cert, key = tls_certificate(tmp_path)
    key.chmod(0o644)
    args = ("serve", "--port", "0", "--credentials", str(tmp_path / "c.json"), "--tls-cert", str(cert), "--tls-key", str(key))
    said = " ".join(run_in_process(*args, serving=True).stderr.split())
    assert f"warning: --tls-key {key} may be read by other users of this machine (mode 0644)" in said, said
    key.chmod(0o600)
    assert "--tls-key" not in run_in_process(*args, serving=True).stderr
