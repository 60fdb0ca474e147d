"""`arbiter replay`: re-verify a recorded match from its seed and actions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arbiter.cli._common import DbOpt, UsageError, _outcome_table, _run, app, err, out
from arbiter.match import MatchRecord, ReplayError, replay_record
from arbiter.store import DEFAULT_DB, Store


@app.command()
def replay(
    match_id: Annotated[str, typer.Argument(help="A match id from the store, or a path to a match record JSON file.")],
    db: DbOpt = Path(DEFAULT_DB),
) -> None:
    """Verify a recorded match: replay its actions from its seed and compare the result."""
    path = Path(match_id)
    if path.is_file():
        record = _run(_record_from_file, path)
    else:
        with _run(Store, db) as store:
            record = _run(lambda: store.match(match_id).record())
    try:
        outcome = replay_record(record)
    except ReplayError as exc:
        err.print(f"[bold red]replay failed:[/] {exc}")
        raise typer.Exit(1) from None
    out.print(_outcome_table(record.seat_names, outcome, f"{record.game} match {record.match_id}: replay verified"))
    out.print(f"{len(record.actions)} actions from seed {record.seed} reproduce the recorded result ({outcome.reason.value})")


def _record_from_file(path: Path) -> MatchRecord:
    try:
        return MatchRecord.from_json(path.read_text())
    except ValueError as exc:
        raise UsageError(f"{path}: {exc}") from None
