"""`arbiter play`: one match between bots."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from cardarena.games import GAMES
from arbiter.server.client import run_match
from arbiter.tournament.play import play_local
from arbiter.cli._common import (
    BankOpt, DecisionOpt, OptionOpt, PolicyOpt, PresetOpt, TransportOpt, _outcome_table, _parse_options, _run, app, out,
)


@app.command()
def play(
    game: Annotated[str, typer.Argument(help=f"Game: {', '.join(GAMES)}.")],
    bots: Annotated[list[str], typer.Argument(help="One bot per seat: bundled name (random, greedy, heuristic) or FILE.py.")],
    seed: Annotated[Optional[int], typer.Option("--seed", help="Deal seed (default: a fresh random one, printed). A bot that could guess it could recompute every hand: keep it unguessable in real play.")] = None,
    option: OptionOpt = None,
    preset: PresetOpt = None,
    server: Annotated[Optional[str], typer.Option(help="Play on a running arbiter HOST:PORT whose connected bots have these names.")] = None,
    admin_token: Annotated[Optional[str], typer.Option(envvar="ARENA_ADMIN_TOKEN", help="Admin token of --server (arbiter credentials token admin).")] = None,
    transport: TransportOpt = "grpc",
    decision_ms: DecisionOpt = 10_000,
    bank_ms: BankOpt = 60_000,
    policy: PolicyOpt = "forfeit",
) -> None:
    """Play one match between bots and print the result."""
    options = _run(_parse_options, option)
    if seed is None:
        import secrets

        seed = secrets.randbits(62)
    if server:
        summary = _run(run_match, server, game, bots, admin_token=admin_token or "", seed=seed, options=options,
                       preset=preset, decision_ms=decision_ms, bank_ms=bank_ms, policy=policy)
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
