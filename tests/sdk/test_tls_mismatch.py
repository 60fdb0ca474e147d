"""A bot whose TLS setting does not match the arbiter's is told which side to change:
`--tls-ca` given to an arbiter that serves no TLS, none given to one that does, a CA that
did not sign the arbiter's certificate, and a --tls-ca file that is no PEM certificate.
Each said only grpc's words ("Socket closed", "Tls handshake failed (TSI_PROTOCOL_FAILURE):
... WRONG_VERSION_NUMBER", "Failed to create security handshaker" after four lines of
grpc's own log)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from arbiter.server.app import start_server
from arbiter.server.botstream import Hub
from sdk.random_bot import RandomBot
from sdk.runner import ArbiterError, run
from tests.conftest import tls_certificate


def test_a_tls_ca_file_that_is_no_pem_certificate_is_named(tmp_path):
    bad = tmp_path / "ca.pem"
    bad.write_text("from sdk import Bot\n")
    with pytest.raises(ArbiterError, match=r"--tls-ca .*ca\.pem: not a PEM certificate"):
        run(RandomBot(), address="127.0.0.1:9", token="t", tls_ca=str(bad))


@pytest.mark.e2e  # two real arbiters' gRPC servers, in a thread of this process
def test_a_tls_setting_that_does_not_match_the_arbiters_says_which_to_change(tmp_path):
    cert, key = tls_certificate(tmp_path)
    (tmp_path / "other").mkdir()
    other, _ = tls_certificate(tmp_path / "other")  # a CA that signed another certificate
    loop = asyncio.new_event_loop()
    started = threading.Event()
    servers: list = []

    async def serve() -> None:
        servers.append(await start_server(hub=Hub(open_join=True)))
        servers.append(await start_server(hub=Hub(open_join=True), tls=(cert.read_bytes(), key.read_bytes())))
        started.set()
        await asyncio.Event().wait()

    threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True).start()
    assert started.wait(30)
    plain, tls = servers[0].address, servers[1].address

    def refused(address: str, ca) -> str:
        with pytest.raises(ArbiterError) as exc:
            run(RandomBot(), address=address, token="", tls_ca=ca)
        return str(exc.value)

    said = refused(plain, str(cert))
    assert "does not serve TLS" in said and "without --tls-ca" in said, said
    said = refused(tls, None)
    assert "serves TLS" in said and "--tls-ca" in said, said
    said = refused(tls, str(other))
    assert "not signed by the CA of --tls-ca" in said, said
