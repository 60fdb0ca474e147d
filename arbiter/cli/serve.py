"""`arbiter serve`: a standing arbiter bots connect to."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import Annotated, Optional

import typer

from arbiter.server.app import start_server
from arbiter.server.arena import Hub
from arbiter.spectating.hub import SpectatorHub
from arbiter.tournament.submissions import RegistryCatalog
from arbiter.cli._common import (
    _run, app, err, out,
)


@app.command()
def serve(
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 50051,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    token: Annotated[Optional[str], typer.Option(help="Token bots must present (env ARENA_TOKEN); none: any bot may join.", envvar="ARENA_TOKEN")] = None,
    admin_token: Annotated[Optional[str], typer.Option(help="Token for the Matches service (env ARENA_ADMIN_TOKEN).", envvar="ARENA_ADMIN_TOKEN")] = None,
    spectator_token: Annotated[Optional[str], typer.Option("--spectator-token", help="Token spectators must present (env ARENA_SPECTATOR_TOKEN); none: anyone who reaches the port may watch, bots included.", envvar="ARENA_SPECTATOR_TOKEN")] = None,
    spectator_delay: Annotated[Optional[float], typer.Option("--spectator-delay", help="Seconds after which spectators who ask may see every hand (default: hidden cards only once a match is over).")] = None,
    bots_db: Annotated[Optional[str], typer.Option("--bots-db", help="Serve the Bots service (remote submission) over the registry of this store file.")] = None,
    author_token: Annotated[Optional[list[str]], typer.Option("--author-token", help="AUTHOR=TOKEN allowed to submit to the Bots service (repeatable).")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
) -> None:
    """Run the arbiter: bots connect to it; `arbiter play --server` runs matches on it."""
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    if spectator_delay is not None and spectator_delay < 0:
        err.print(f"[bold red]error:[/] --spectator-delay must not be negative, got {spectator_delay:g}")
        raise typer.Exit(2)

    async def main() -> None:
        hub = Hub(join_token=token, open_join=token is None)
        spectators = SpectatorHub(delay=spectator_delay, token=spectator_token)
        authors = {t: a for a, _, t in (pair.partition("=") for pair in author_token or []) if a and t}
        running = await start_server(port, host, hub=hub, admin_token=admin_token, spectators=spectators,
                                     bots_catalog=RegistryCatalog(bots_db) if bots_db else None,
                                     author_tokens=authors)
        if token is None:
            err.print("[yellow]warning:[/] no --token: any bot may connect")
        if spectator_token is None:
            err.print("[yellow]warning:[/] no --spectator-token: bots may watch other matches (do not play a deal twice)")
        out.print(f"arbiter listening on {host}:{running.port}", highlight=False)
        sys.stdout.flush()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            await stop.wait()
        finally:
            await running.stop(2.0)
            out.print("arbiter stopped")

    _run(asyncio.run, main())
