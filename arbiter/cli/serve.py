"""`arbiter serve`: a standing arbiter that remote bots connect to, safe to reach by default.

    arbiter serve --bot north --bot south          # tokens for two bots, in arbiter-credentials.json
    arbiter credentials token north                # what `north` presents (python -m sdk --token ...)
    arbiter serve --host 0.0.0.0 --tls-cert c.pem --tls-key k.pem   # off this machine: TLS only

With no flags it generates an admin and a spectator token, keeps them (and every bot
and author token) in a credentials file only its user can read, and says where.
"""

from __future__ import annotations

import asyncio
import signal
import ssl
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape

from arbiter.server import auth, host_port
from arbiter.server import is_loopback
from arbiter.server.app import start_server
from arbiter.server.botstream import Hub
from arbiter.spectating.hub import SpectatorHub
from arbiter.cli._common import (environment, ENV_STOP_GRACE, BoundedStop, CredentialsOpt, MetricsOpt, UsageError, _run, app, err, fail, log_to_stderr,
                                 not_nan, out, port_free, read_tls, start_metrics, warn_exposed, VerboseOpt)


def _check_tls(cert: Path, key: Path) -> None:
    """UsageError unless ``cert`` and ``key`` are a PEM certificate chain and its private key,
    the certificate within its dates: an expired one was served without a word, and every
    client's handshake failed (CERTIFICATE_VERIFY_FAILED: certificate has expired)."""
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(str(cert), str(key))
    except ssl.SSLError as exc:
        raise UsageError(f"--tls-cert {cert} and --tls-key {key}: not a PEM certificate chain and its private key "
                         f"({exc.reason or exc})") from None
    except OSError as exc:
        raise UsageError(f"--tls-cert {cert} / --tls-key {key}: {exc.strerror or exc}") from None
    try:  # the first certificate of the chain, the server's own (the ssl module's decoder: no public one reads a file)
        dates = ssl._ssl._test_decode_cert(str(cert))  # type: ignore[attr-defined]
        before, after = ssl.cert_time_to_seconds(dates["notBefore"]), ssl.cert_time_to_seconds(dates["notAfter"])
    except (AttributeError, KeyError, ValueError, ssl.SSLError, OSError):
        return  # a decoder that is not there (another Python): the clients say it
    now = time.time()
    if now > after:
        raise UsageError(f"--tls-cert {cert}: the certificate expired on {dates['notAfter']}; every client would refuse "
                         "it: renew it")
    if now < before:
        raise UsageError(f"--tls-cert {cert}: the certificate is valid only from {dates['notBefore']}; every client "
                         "would refuse it until then (or this machine's clock is wrong)")


def _check_given_tokens(admin: str | None, spectator: str | None) -> None:
    """UsageError naming the flag if a token given on the command line (or in its variable)
    cannot be one: it was refused as a fault of the credentials file it was to be written to."""
    given = {"--admin-token (ARENA_ADMIN_TOKEN)": admin, "--spectator-token (ARENA_SPECTATOR_TOKEN)": spectator}
    for flag, token in given.items():
        if token is not None and len(token) < auth.MIN_TOKEN_CHARS:
            raise UsageError(f"{flag}: a token must be at least {auth.MIN_TOKEN_CHARS} characters, got {len(token)}")
    if admin is not None and admin == spectator:
        raise UsageError("--admin-token and --spectator-token are the same token: a spectator would have the admin's rights")


def _replacing(path: Path, admin: str | None, spectator: str | None) -> list[str]:
    """What to tell of the tokens given (``--admin-token``, ``--spectator-token`` or their
    variables) that replace a different one in the credentials file: a token rotated with
    `arbiter credentials revoke admin` came back in silence at the next start from an
    environment that still held it. Nothing for a file not there yet (or unreadable: the
    start refuses it then)."""
    try:
        stored = auth.read(path) if path.exists() else None
    except auth.CredentialsError:
        return []
    if stored is None:
        return []
    given = {"admin": (admin, "--admin-token (ARENA_ADMIN_TOKEN)"),
             "spectator": (spectator, "--spectator-token (ARENA_SPECTATOR_TOKEN)")}
    return [f"{flag} replaces the {role} token {path} held: one revoked there (arbiter credentials revoke {role}) "
            "is in force again if it is this one" for role, (token, flag) in given.items()
            if token is not None and not auth.same(token, getattr(stored, role))]


#: --spectator-delay at most: a day (past any match, the hands are shown once it is over).
MAX_SPECTATOR_DELAY = 86_400


@app.command(epilog=environment(ENV_STOP_GRACE))
def serve(
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free port).")] = 50051,
    host: Annotated[str, typer.Option(help="Interface to listen on. Anything but loopback needs --tls-cert/--tls-key (or --insecure).")] = "127.0.0.1",
    credentials: CredentialsOpt = Path(auth.DEFAULT_FILE),
    bot: Annotated[Optional[list[str]], typer.Option("--bot", help="Issue a token for this bot name (repeatable); kept in the credentials file.")] = None,
    author: Annotated[Optional[list[str]], typer.Option("--author", help="Issue a Bots-service token for this author (repeatable).")] = None,
    open_join: Annotated[bool, typer.Option("--open", help="Let any bot join under any name without a token (loopback only; trusted local use).")] = False,
    admin_token: Annotated[Optional[str], typer.Option(help="Use this admin token (Matches; all of Bots) instead of the stored one (env ARENA_ADMIN_TOKEN).", envvar="ARENA_ADMIN_TOKEN")] = None,
    spectator_token: Annotated[Optional[str], typer.Option("--spectator-token", help="Use this spectator token instead of the stored one (env ARENA_SPECTATOR_TOKEN).", envvar="ARENA_SPECTATOR_TOKEN")] = None,
    spectator_delay: Annotated[Optional[float], typer.Option("--spectator-delay", help="Seconds after which spectators who ask may see every hand, each deal's once that deal is over (default: hidden cards only once a match is over).")] = None,
    bots_db: Annotated[Optional[str], typer.Option("--bots-db", help="Serve the Bots service (remote submission, author tokens) over the registry of this store file.")] = None,
    tls_cert: Annotated[Optional[Path], typer.Option("--tls-cert", help="PEM certificate chain: serve TLS (bots then pass --tls-ca).")] = None,
    tls_key: Annotated[Optional[Path], typer.Option("--tls-key", help="PEM private key of --tls-cert.")] = None,
    insecure: Annotated[bool, typer.Option("--insecure", help="Allow a non-loopback interface without TLS: tokens then travel in clear.")] = False,
    hello_timeout: Annotated[float, typer.Option("--hello-timeout", min=0.1, max=3600, callback=not_nan, help="Seconds a new connection has to say Hello before it is closed.")] = 10.0,
    metrics: MetricsOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Run a standing arbiter: bots connect to it with their tokens; `arbiter play --server` runs matches on it."""
    log_to_stderr(verbose)
    host = host.strip("[]")  # "[::1]" or "::1": bracketed again wherever it is written with a port (host_port)
    if spectator_delay is not None and not 0 <= spectator_delay <= MAX_SPECTATOR_DELAY:  # (NaN too)
        _run(fail, f"--spectator-delay must be from 0 to {MAX_SPECTATOR_DELAY} seconds, got {spectator_delay:g}")
    tls = _run(read_tls, tls_cert, tls_key)
    if tls is not None:
        _run(_check_tls, tls_cert, tls_key)
        if (mode := tls_key.stat().st_mode & 0o777) & 0o077:  # (readable: _check_tls read it)
            err.print(f"[yellow]warning:[/] --tls-key {escape(str(tls_key))} may be read by other users of this machine "
                      f"(mode {mode:04o}): whoever reads it can pose as this arbiter to its bots (chmod 600 it)",
                      highlight=False, soft_wrap=True)
    if not is_loopback(host) and tls is None and not insecure:
        _run(fail, f"--host {host} reaches other machines: give --tls-cert and --tls-key (or --insecure, and tokens travel in clear)")
    if open_join and not is_loopback(host):
        _run(fail, "--open lets any bot in under any name: only on a loopback interface")
    _run(port_free, host, port)  # before gRPC tries it: its own log line would come first
    metrics_line = _run(start_metrics, metrics, say=False, own=("--port", port))  # said after the address, which comes first
    _run(_check_given_tokens, admin_token, spectator_token)
    warn_exposed(_run(auth.tighten, credentials))
    replacing = _replacing(credentials, admin_token, spectator_token)
    creds = _run(auth.ensure, credentials, tuple(bot or ()), tuple(author or ()), admin_token,
                 spectator_token)
    live = auth.LiveCredentials(credentials, creds)
    catalog = None
    if bots_db:  # the Bots service only: its registry, vetting and batch engine are not every server's
        from arbiter.batch.submissions import RegistryCatalog
        from arbiter.hosting.sandbox import Sandbox

        catalog = _run(RegistryCatalog, bots_db)

    async def main() -> None:
        hub = Hub(credentials=live, open_join=open_join)
        # Every token as the credentials file has it now: one added, rotated or revoked
        # (arbiter credentials ...) counts at once, without a restart.
        spectators = SpectatorHub(delay=spectator_delay, token=lambda: live.get().spectator)
        try:
            running = await start_server(port, host, hub=hub, admin_token=lambda: live.get().admin, spectators=spectators,
                                         bots_catalog=catalog, author_tokens=lambda: live.get().author_tokens(), tls=tls,
                                         hello_timeout=hello_timeout)
        except RuntimeError as exc:  # grpc: "Failed to bind to address ..."
            if "bind" not in str(exc):
                raise
            raise UsageError(f"cannot listen on {host_port(host, port)}: the port is taken or not allowed, or {host} is not "
                             "an address of this machine") from None
        # The commands said name this file (without it they read arbiter-credentials.json),
        # each on one line: a command wrapped at the terminal's width is no longer one to copy.
        file = escape(str(credentials))
        err.print(f"credentials: {file} (admin, spectator, {len(creds.bots)} bot and {len(creds.authors)} author "
                  f"tokens; only this user may read it). A bot's token: arbiter credentials token NAME --credentials {file}",
                  highlight=False, soft_wrap=True)
        for said in replacing:
            err.print(f"[yellow]note:[/] {escape(said)}", highlight=False, soft_wrap=True)
        if open_join:
            err.print("[yellow]warning:[/] --open: any bot may join under any name without a token")
        elif not creds.bots:
            err.print(f"no bot tokens yet: `arbiter credentials add-bot NAME --credentials {file}` issues one (the server "
                      "reads it at once)", highlight=False, soft_wrap=True)
        if catalog is not None and not creds.authors:  # a Bots service nobody may submit to yet
            err.print(f"no author tokens yet: nobody can submit a bot; `arbiter credentials add-author NAME --credentials "
                      f"{file}` issues one (the server reads it at once)", highlight=False, soft_wrap=True)
        if catalog is not None and (weak := _run(lambda: Sandbox().untrusted_warning())):  # submissions run here
            err.print(f"[yellow]warning:[/] {escape(weak)}", highlight=False, soft_wrap=True)
        if tls is None and not is_loopback(host):
            err.print("[yellow]warning:[/] --insecure: no TLS on a reachable interface; tokens travel in clear")
        out.print(f"arbiter listening on {host_port(host, running.port)}" + (" (TLS)" if tls else ""), highlight=False)
        if metrics_line:
            out.print(metrics_line, highlight=False, markup=False)
        sys.stdout.flush()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        bounded = BoundedStop()

        def on_stop(sig: signal.Signals) -> None:
            """The first Ctrl-C or SIGTERM stops the server gracefully; a second one, or the grace
            after the first running out (ARENA_STOP_GRACE_S), ends the process as the signal does
            by default (``BoundedStop``, as ``arbiter arena``). A submission's check under way
            (--bots-db) is stopped with its call (it ran on in its thread, and the process
            waited for it, deaf to a second Ctrl-C, as long as the check took); whatever could
            still hold the stop (a bot's packages being installed) is bounded so."""
            if bounded.request(sig):
                # said now, "arbiter stopped" once it has: what may hold the stop (an install) is
                # no longer hidden behind a line that says it is over
                out.print("arbiter stopping (a second Ctrl-C or SIGTERM ends it at once)", highlight=False)
                sys.stdout.flush()
                stop.set()

        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, on_stop, sig)
            await stop.wait()
        finally:
            await running.stop(2.0)

    _run(asyncio.run, main())  # returns once every thread of its loop has ended (a submission's check too)
    out.print("arbiter stopped")

