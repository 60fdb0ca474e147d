"""Shared pieces of the ``arbiter`` command: the apps, consoles, option aliases, errors."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from cardarena.games import ConfigError
from arbiter.hosting.botproc import BotStartError
from arbiter.hosting.loading import BotLoadError
from arbiter.server.auth import CredentialsError
from arbiter.server.client import ClientError
from arbiter.store.db import StoreError
from arbiter.tournament.disclosure import Withheld

app = typer.Typer(help="Card Arena arbiter: host card games between bots, run tournaments, show standings.", no_args_is_help=True)
tournament_app = typer.Typer(help="Run round-robin tournaments.", no_args_is_help=True)
app.add_typer(tournament_app, name="tournament")

# Piped or captured output (a log, CI, `make demo | tee`) gets room for the standings
# table instead of rich's 80-column default; a terminal keeps its own width.
_WIDE = 120
out = Console()
if not out.is_terminal and "COLUMNS" not in os.environ:
    out = Console(width=_WIDE)
err = Console(stderr=True)
if not err.is_terminal and "COLUMNS" not in os.environ:
    err = Console(stderr=True, width=_WIDE)

# Options shared by several commands, defined once.
SeedOpt = Annotated[int, typer.Option("--seed", help="Deal seed: the same seed replays the same deals.")]
OptionOpt = Annotated[
    Optional[list[str]], typer.Option("--option", "-o", help="Game option KEY=VALUE (repeatable), e.g. -o target=300.")
]
PresetOpt = Annotated[Optional[str], typer.Option("--preset", help="A named option preset of the game, e.g. book.")]
DbOpt = Annotated[Path, typer.Option("--db", help="SQLite store file.", envvar="ARENA_DB")]
DecisionOpt = Annotated[int, typer.Option("--decision-ms", help="Per-decision time limit in ms (0: none).")]
BankOpt = Annotated[int, typer.Option("--bank-ms", help="Per-match time bank in ms, used past the decision limit.")]
PolicyOpt = Annotated[str, typer.Option("--policy", help="On timeout/illegal action/disconnect: forfeit, or default (play the first legal action, up to --max-strikes).")]
CredentialsOpt = Annotated[Path, typer.Option("--credentials", help="The standing arbiter's credentials file (tokens; mode 0600).", envvar="ARENA_CREDENTIALS")]
TransportOpt = Annotated[str, typer.Option("--transport", help="grpc (bots as processes over gRPC) or inproc (trusted bots in this process).")]


class UsageError(Exception):
    """A command-line mistake; printed without a traceback."""


def _parse_options(pairs: list[str] | None) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--option {pair!r}: expected KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


def _run(fn, *args: Any, **kwargs: Any) -> Any:
    """Call a library function, turning known errors into a clear message and exit 2."""
    try:
        return fn(*args, **kwargs)
    except (UsageError, ConfigError, StoreError, Withheld, BotStartError, BotLoadError, CredentialsError, ClientError) as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None


def _outcome_table(seat_names, outcome, title: str) -> Table:
    table = Table(title=title)
    table.add_column("seat", justify="right")
    table.add_column("bot")
    table.add_column("score", justify="right")
    table.add_column("rank", justify="right")
    for seat, name in enumerate(seat_names):
        table.add_row(str(seat), name, f"{outcome.scores[seat]:g}", str(outcome.ranks[seat]))
    return table


