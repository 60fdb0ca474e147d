"""`arbiter export --decisions`: stored matches as per-seat decisions, for training.

    arbiter export --decisions -o decisions.parquet                 # every tournament that may be shown
    arbiter export --decisions --tournament club -o club.parquet    # one tournament

One row per decision: the seat's observation tensor (sdk.encoding), its action mask, the
action it played, the final outcome, and the match, deal and seat (docs/datasets.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from arbiter.cli._common import DbOpt, UsageError, _run, app, check_writable, err, error, is_stdout, no_store
from arbiter.present.decisions import ExportError, export as export_decisions
from arbiter.store.db import DEFAULT_DB, Store


def _export(db: Path, output: Path, tournaments: list[str]) -> None:
    if not db.exists():
        raise no_store(db)
    if is_stdout(output):  # elsewhere `-` is stdout; a Parquet file is written in place, and would land in a file named `-`
        raise UsageError("--output -: Parquet is written to a file, not to stdout: give --output FILE.parquet")
    check_writable(output, "--output")
    with Store(db, read_only=True) as store:
        def progress(n: int, total: int) -> None:
            if n == total or n % 50 == 0:
                err.print(f"  {n}/{total} matches", highlight=False)
        try:
            written = export_decisions(store, output, tournaments, on_match=progress)
        except ExportError as exc:
            raise UsageError(str(exc)) from None
    for line in written.withheld:
        err.print(f"left out: {line}", highlight=False, markup=False)
    err.print(f"wrote {output}: {written.decisions} decisions of {written.matches} matches "
              f"({written.tournaments} tournament{'' if written.tournaments == 1 else 's'}); "
              "schema: docs/datasets.md", highlight=False, markup=False)


@app.command("export")
def export(
    decisions: Annotated[bool, typer.Option("--decisions", help="Export every seat's decisions (observation tensor, action mask, action, outcome) as Parquet.")] = False,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="The Parquet file to write.")] = None,
    tournament: Annotated[Optional[list[str]], typer.Option("--tournament", "-t", help="A tournament (name or id) to export; repeatable. Default: every tournament whose matches may be shown.")] = None,
    db: DbOpt = Path(DEFAULT_DB),
) -> None:
    """Export stored matches for training: each seat's decisions, only what that seat saw.

    Only matches the disclosure rule lets be shown (standings: `arbiter standings --format`;
    one record: `arbiter replay ID --json`)."""
    if not decisions:
        error("say what to export: --decisions (standings: arbiter standings --format csv; a record: arbiter replay ID --json)")
        raise typer.Exit(2)
    if output is None:
        error("--decisions writes a Parquet file: give it with --output FILE.parquet")
        raise typer.Exit(2)
    _run(_export, db, output, list(tournament or []))
