"""`arbiter play`: one match between bots."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape
from rich.progress import Progress, TextColumn, TimeElapsedColumn

from cardarena.games import GAMES
from arbiter.store.db import DEFAULT_DB
from arbiter.tournament.play import check_store, play_local, play_remote, store_play
from arbiter.cli._common import (
    BankOpt, DbOpt, DecisionOpt, OptionOpt, PolicyOpt, PresetOpt, TransportOpt, _outcome_table, _parse_options, _run, app,
    err, out, plural,
)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help=f"Game: {', '.join(GAMES)}.")],
    bots: Annotated[list[str], typer.Argument(help="One bot per seat: bundled name (random, greedy, heuristic, search), FILE.py, a folder, or name@version from the registry. Games with a number of players take it from the number of bots.")],
    seed: Annotated[Optional[int], typer.Option("--seed", help="Deal seed (default: a fresh random one, printed). A bot that could guess it could recompute every hand: keep it unguessable in real play.")] = None,
    option: OptionOpt = None,
    preset: PresetOpt = None,
    server: Annotated[Optional[str], typer.Option(help="Play on a running arbiter HOST:PORT whose connected bots have these names (the match is kept in --db too).")] = None,
    admin_token: Annotated[Optional[str], typer.Option(envvar="ARENA_ADMIN_TOKEN", help="Admin token of --server (arbiter credentials token admin).")] = None,
    transport: TransportOpt = "grpc",
    decision_ms: DecisionOpt = 10_000,
    bank_ms: BankOpt = 60_000,
    policy: PolicyOpt = "forfeit",
    max_strikes: Annotated[int, typer.Option("--max-strikes", help="With --policy default: failures a seat may have before its side forfeits.")] = 3,
    db: DbOpt = Path(DEFAULT_DB),
) -> None:
    """Play one match between bots, print the result and keep the match in the store
    (`arbiter replay MATCH_ID`, the web page)."""
    options = _run(_parse_options, option)
    if seed is None:
        import secrets

        seed = secrets.randbits(62)
    _run(check_store, db)  # a store that cannot keep the match: said now, not after it is played
    if server:
        record = _run(play_remote, server, game, bots, admin_token=admin_token or "", seed=seed, options=options,
                      preset=preset, decision_ms=decision_ms, bank_ms=bank_ms, policy=policy)
        _print_record(record, f"{game} (seed {seed}) on {server}: {record.outcome.reason.value}")
        _keep(db, record, preset, plural(len(record.actions), 'decision'))
        return
    with Progress(TextColumn("{task.description}", markup=False), TimeElapsedColumn(), console=err, transient=True) as bar:
        task = bar.add_task(f"{game}: starting the bots", total=None)

        def report(decisions: int, view: Any) -> None:
            where = next((f"{label} {getattr(view, f)}" for f, label in _WHERE if getattr(view, f, None) is not None), "")
            bar.update(task, description=f"{game}: {where + ', ' if where else ''}{plural(decisions, 'decision')}")

        record = _run(play_local, game, bots, seed, options, preset, transport, decision_ms, bank_ms, policy, max_strikes,
                      db, report)
    _print_record(record, f"{game} (seed {seed}): {record.outcome.reason.value}")
    _keep(db, record, preset, f"{plural(len(record.actions), 'decision')} in {record.seconds:.2f} s")


def _keep(db: Path, record: Any, preset: str | None, played: str) -> None:
    where = _run(store_play, db, record, preset)
    out.print(f"{played}; match {record.match_id} (kept in {db} as {where}: arbiter replay {record.match_id})",
              highlight=False, markup=False)


def _print_record(record: Any, title: str) -> None:
    out.print(_outcome_table(record.seat_names, record.outcome, title))
    if record.outcome.detail:
        out.print(record.outcome.detail, highlight=False, markup=False)
    for inc in record.incidents:  # a bot's own words: not markup
        out.print(f"[yellow]incident:[/] seat {inc.seat}: {escape(inc.kind)}: {escape(inc.detail)}", highlight=False)
        if inc.stderr:
            tail = "\n".join(inc.stderr.strip().splitlines()[-8:])
            out.print(f"  the bot's stderr ends:\n{tail}", highlight=False, markup=False)


#: Where a match is, by its spectator view's fields: Spades deals, Spot hands, Spite and Malice games.
_WHERE = (("deal", "deal"), ("hand_number", "hand"), ("game_number", "game"))

