"""`arbiter serve`: a standing arbiter bots connect to."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from typing import Annotated, Optional

import typer

from arbiter.cli._common import (
    _run, app, err, out,
)


@app.command()
def serve(
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 50051,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    token: Annotated[Optional[str], typer.Option(help="Token bots must present (env ARENA_TOKEN); none: any bot may join.", envvar="ARENA_TOKEN")] = None,
    admin_token: Annotated[Optional[str], typer.Option(help="Token for the Matches service (env ARENA_ADMIN_TOKEN).", envvar="ARENA_ADMIN_TOKEN")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v")] = False,
) -> None:
    """Run the arbiter: bots connect to it; `arbiter play --server` runs matches on it."""
    from arbiter.server import Hub, start_server

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    async def main() -> None:
        hub = Hub(join_token=token, open_join=token is None)
        running = await start_server(port, host, hub=hub, admin_token=admin_token)
        if token is None:
            err.print("[yellow]warning:[/] no --token: any bot may connect")
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
