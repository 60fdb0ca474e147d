"""The ``arbiter`` command: a thin typer + rich layer over the library API.

    arbiter serve --port 50051
    arbiter play spades heuristic random heuristic random --seed 7
    arbiter tournament run --game spades --bots random,greedy,heuristic --deals 4
    arbiter standings
    arbiter replay MATCH_ID

Each command parses its arguments, calls one library function and renders the result.
Only this module knows about rich.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from arbiter.games import ConfigError, GAMES
from arbiter.store import DEFAULT_DB, Store, StoreError

app = typer.Typer(help="Card Arena arbiter: host card games between bots, run tournaments, show standings.", no_args_is_help=True)
tournament_app = typer.Typer(help="Run round-robin tournaments.", no_args_is_help=True)
app.add_typer(tournament_app, name="tournament")

out = Console()
err = Console(stderr=True)

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
    except (UsageError, ConfigError, StoreError) as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None
    except Exception as exc:  # noqa: BLE001
        from arbiter.botproc import BotStartError
        from bots import BotLoadError

        if isinstance(exc, (BotStartError, BotLoadError)):
            err.print(f"[bold red]error:[/] {exc}")
            raise typer.Exit(2) from None
        raise


def _outcome_table(seat_names, outcome, title: str) -> Table:
    table = Table(title=title)
    table.add_column("seat", justify="right")
    table.add_column("bot")
    table.add_column("score", justify="right")
    table.add_column("rank", justify="right")
    for seat, name in enumerate(seat_names):
        table.add_row(str(seat), name, f"{outcome.scores[seat]:g}", str(outcome.ranks[seat]))
    return table


# --------------------------------------------------------------------------------------


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


@app.command()
def play(
    game: Annotated[str, typer.Argument(help=f"Game: {', '.join(GAMES)}.")],
    bots: Annotated[list[str], typer.Argument(help="One bot per seat: bundled name (random, greedy, heuristic) or FILE.py.")],
    seed: SeedOpt = 0,
    option: OptionOpt = None,
    preset: PresetOpt = None,
    server: Annotated[Optional[str], typer.Option(help="Play on a running arbiter HOST:PORT whose connected bots have these names.")] = None,
    admin_token: Annotated[Optional[str], typer.Option(envvar="ARENA_ADMIN_TOKEN", help="Admin token of --server.")] = None,
    transport: TransportOpt = "grpc",
    decision_ms: DecisionOpt = 10_000,
    bank_ms: BankOpt = 60_000,
    policy: PolicyOpt = "forfeit",
) -> None:
    """Play one match between bots and print the result."""
    from arbiter.play import play_local, play_remote

    options = _run(_parse_options, option)
    if server:
        summary = _run(play_remote, server, game, bots, seed, options, preset, admin_token, decision_ms, bank_ms, policy)
        out.print(_outcome_table(bots, summary.outcome, f"{game} (seed {seed}) on {server}: {summary.outcome.reason.value}"))
        for inc in summary.incidents:
            out.print(f"[yellow]incident:[/] {inc}")
        return
    record = _run(play_local, game, bots, seed, options, preset, transport, decision_ms, bank_ms, policy)
    out.print(_outcome_table(record.seat_names, record.outcome, f"{game} (seed {seed}): {record.outcome.reason.value}"))
    if record.outcome.detail:
        out.print(record.outcome.detail)
    for inc in record.incidents:
        out.print(f"[yellow]incident:[/] seat {inc.seat}: {inc.kind}: {inc.detail}")
    out.print(f"{len(record.actions)} decisions in {record.seconds:.2f} s; match {record.match_id}")


@tournament_app.command("run")
def tournament_run(
    game: Annotated[str, typer.Option(help=f"Game: {', '.join(GAMES)}.")] = "spades",
    bots: Annotated[str, typer.Option(help="Comma-separated bots: bundled names or FILE.py paths.")] = "random,greedy,heuristic",
    deals: Annotated[int, typer.Option(help="Deals per pairing (each played once per seating when duplicate).")] = 2,
    seed: SeedOpt = 0,
    option: OptionOpt = None,
    preset: PresetOpt = None,
    duplicate: Annotated[bool, typer.Option("--duplicate/--no-duplicate", help="Replay each deal with the sides swapped.")] = True,
    concurrency: Annotated[Optional[int], typer.Option(help="Matches at once (default: number of cores).")] = None,
    name: Annotated[Optional[str], typer.Option(help="Tournament name in the store (default GAME-SEED); the same name resumes.")] = None,
    db: DbOpt = Path(DEFAULT_DB),
    fresh: Annotated[bool, typer.Option("--fresh", help="Replace a stored tournament of the same name instead of resuming.")] = False,
    transport: TransportOpt = "grpc",
    decision_ms: DecisionOpt = 10_000,
    bank_ms: BankOpt = 60_000,
    policy: PolicyOpt = "forfeit",
) -> None:
    """Run (or resume) a round-robin tournament and print the standings."""
    from arbiter.tournament import TournamentSpec, run_tournament

    spec = TournamentSpec(
        game=game, bots=tuple(b.strip() for b in bots.split(",") if b.strip()), deals=deals, seed=seed,
        options=_run(_parse_options, option), preset=preset, duplicate=duplicate, decision_ms=decision_ms,
        bank_ms=bank_ms, policy=policy, name=name or "",
    )
    game_obj = _run(spec.validate)
    with _run(Store, db) as store:
        with Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[leader]}"), console=err, transient=False,
        ) as progress:
            task = progress.add_task(f"{game} round robin", total=None, rate="", leader="")
            results: list = []

            def on_progress(p) -> None:
                if p.record is None:
                    progress.update(task, total=p.total, completed=p.done)
                    if p.resumed:
                        progress.console.print(f"resuming: {p.resumed} of {p.total} matches already in {db}")
                    return
                results.append(p.record)
                elapsed = progress.tasks[0].elapsed or 1e-9
                progress.update(task, completed=p.done, rate=f"{(p.done - p.resumed) / elapsed:.1f} matches/s")

            rows = _run(asyncio.run, run_tournament(spec, store, concurrency, on_progress, fresh, transport))
        tour = store.tournament(spec.name or f"{game}-{seed}")
        _print_standings(store, tour, game_obj, crosstable=True)


def _print_standings(store: Store, tour, game_obj, crosstable: bool = False) -> None:
    from arbiter.tournament import standings

    rows = store.matches(tour.id)
    table_rows = standings(rows, game_obj)
    table = Table(title=f"Standings: {tour.name} ({tour.game}, {len(rows)} matches)")
    for col, just in (("#", "right"), ("bot", "left"), ("matches", "right"), ("W", "right"), ("D", "right"), ("L", "right"),
                      ("points", "right"), ("score %", "right"), ("95% interval", "right"), ("mean margin", "right"), ("forfeits", "right")):
        table.add_column(col, justify=just)
    for i, st in enumerate(table_rows, 1):
        lo, hi = st.interval()
        table.add_row(str(i), st.name, str(st.matches), str(st.wins), str(st.draws), str(st.losses), f"{st.points:g}",
                      f"{100 * st.score_rate:.1f}", f"{100 * lo:.0f}-{100 * hi:.0f}", f"{st.mean_margin:+.1f}", str(st.forfeits))
    out.print(table)
    if crosstable and len(table_rows) > 1:
        ct = Table(title="Cross-table: score % of the row bot against the column bot")
        ct.add_column("")
        for st in table_rows:
            ct.add_column(st.name, justify="right")
        for st in table_rows:
            cells = []
            for other in table_rows:
                pts = st.opponents.get(other.name)
                cells.append("-" if other is st else (f"{100 * sum(pts) / len(pts):.0f}" if pts else ""))
            ct.add_row(st.name, *cells)
        out.print(ct)


@app.command("standings")
def standings_cmd(
    tournament: Annotated[Optional[str], typer.Argument(help="Tournament name or id (default: the newest).")] = None,
    db: DbOpt = Path(DEFAULT_DB),
    crosstable: Annotated[bool, typer.Option("--crosstable", help="Also print the cross-table.")] = False,
) -> None:
    """Print the standings of a stored tournament."""
    from arbiter.games import get_game

    if not db.exists():
        err.print(f"[bold red]error:[/] no store at {db} (run a tournament first, or pass --db)")
        raise typer.Exit(2)
    with _run(Store, db) as store:
        tour = _run(store.tournament, tournament)
        game_obj = _run(get_game, tour.game, tour.spec.get("options", {}), tour.spec.get("preset"))
        _print_standings(store, tour, game_obj, crosstable)


@app.command()
def replay(
    match_id: Annotated[str, typer.Argument(help="A match id from the store, or a path to a match record JSON file.")],
    db: DbOpt = Path(DEFAULT_DB),
) -> None:
    """Verify a recorded match: replay its actions from its seed and compare the result."""
    from arbiter.match import MatchRecord, ReplayError, replay_record

    path = Path(match_id)
    if path.is_file():
        record = _run(lambda: _record_from_file(path))
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


def _record_from_file(path: Path):
    from arbiter.match import MatchRecord

    try:
        return MatchRecord.from_json(path.read_text())
    except ValueError as exc:
        raise UsageError(f"{path}: {exc}") from None


def main() -> None:
    app()
