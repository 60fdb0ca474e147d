"""`arbiter tournament run` and `arbiter standings`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Optional

import typer

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from arbiter.games import GAMES
from arbiter.store import DEFAULT_DB, Store
from arbiter.cli._common import (
    BankOpt, DbOpt, DecisionOpt, OptionOpt, PolicyOpt, PresetOpt, SeedOpt, TransportOpt, _parse_options, _run, app, err, out, tournament_app,
)


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

            _run(asyncio.run, run_tournament(spec, store, concurrency, on_progress, fresh, transport))
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
