"""`arbiter web`: the standings web page over the store.

    arbiter web                       # http://127.0.0.1:8080/ over ./arena.sqlite
    arbiter web --db club.sqlite --port 8000

Read-only: tournaments, standings with ratings and intervals, the cross-table, every
match with its outcome, and a replay viewer that steps through a match card by card.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Annotated

import typer

from arbiter.cli._common import DbOpt, _run, app, out
from arbiter.store.db import DEFAULT_DB


@app.command()
def web(
    db: DbOpt = Path(DEFAULT_DB),
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = 8080,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log every request.")] = False,
) -> None:
    """Serve the standings, cross-tables, matches and replays of the store as a web page."""
    from arbiter.present.web import make_server

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    server = _run(make_server, db, host, port)
    out.print(f"serving {db} on {server.url}", highlight=False)
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
