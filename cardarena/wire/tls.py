"""What both sides' clients of an arbiter check alike about reaching it, TLS or not: a bot
(``sdk.runner``, ``python -m sdk --tls-ca``) and the commands that reach a remote arbiter
(``arbiter.server.client``: `arbiter play|bots|watch --server`, `arbiter web --arbiter`).

gRPC says of a failed connection only "Connection refused", "Socket closed" (an arbiter
that serves TLS closing a plain connection) or the handshake's OpenSSL error; a CA file
that holds no certificate it reports in log lines of its own. Here both become one
sentence saying what to change, the same for a bot and a command.
"""

from __future__ import annotations

#: The line a PEM certificate starts with: what a CA file (--tls-ca) must hold.
PEM_CERTIFICATE = b"-----BEGIN CERTIFICATE-----"


def unreachable_hint(address: str, details: str, tls: bool, flag: str = "--tls-ca", env: str = "") -> str:
    """What to change when a connection to ``address`` failed with gRPC's ``details``:
    nothing listens there, or this client's TLS setting (``tls``: it gave a CA) and the
    arbiter's differ; " (...)" to append to the error, "" when it is none of those.
    ``flag`` (and ``env``, its environment variable, if any) is how this client is given
    the CA."""
    lowered = details.lower()
    if "connection refused" in lowered:
        return (f" (nothing listens at {address}: is the arbiter running, and on the port its 'arbiter listening on' "
                "line says?)")
    if "http1.x server" in lowered:  # gRPC's "Trying to connect an http1.x server": a web page's port
        return (f" ({address} is a web server's port (arbiter web, an arena's leaderboard), not an arbiter's: give the "
                "port of its 'arbiter listening on' line (an arena's 'Bots service listening on'))")
    if not tls:
        if "socket closed" in lowered:
            give = f"{flag} CA.pem" + (f" or {env}" if env else "")
            return f" (an arbiter that serves TLS closes a plain connection so: if it was started with --tls-cert, connect with {give})"
        return ""
    if "wrong_version_number" in lowered:
        return f" (the arbiter does not serve TLS: connect without {flag}" + (f" and {env})" if env else ")")
    if "certificate has expired" in lowered or "certificate is not yet valid" in lowered:  # (before the CA's case)
        return (" (the arbiter's certificate is out of its dates: expired, or not valid yet; its operator renews it "
                "(or this machine's clock is wrong))")
    if "certificate_verify_failed" in lowered or "certificate verify failed" in lowered:
        return (f" (the arbiter's certificate is not signed by the CA of {flag}, or does not name this address: "
                "ask its operator for the CA certificate)")
    return ""
