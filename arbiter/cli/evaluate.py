"""`arbiter evaluate`: a duplicate match between two bots, in process, with its margin ± s.e.

    arbiter evaluate spades search heuristic --deals 20 --seed 1 -o deals=1 --jobs 2
"""

from __future__ import annotations

from typing import Annotated

import typer

from cardarena.games import GAMES
from arbiter.cli._common import OptionOpt, PresetOpt, SeedOpt, UsageError, _parse_options, _run, app, out


@app.command()
def evaluate(
    game: Annotated[str, typer.Argument(help=f"Game: {', '.join(GAMES)}.")],
    bot_a: Annotated[str, typer.Argument(help="Bot A: bundled name (random, heuristic, search...) or FILE.py.")],
    bot_b: Annotated[str, typer.Argument(help="Bot B, the reference A is measured against.")],
    deals: Annotated[int, typer.Option("--deals", help="Deals to play; each is played twice, the bots swapping seats.")] = 10,
    seed: SeedOpt = 0,
    option: OptionOpt = None,
    preset: PresetOpt = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes (1: play in this process).")] = 1,
    decision_ms: Annotated[int, typer.Option("--decision-ms", help="Per-decision limit given to the bots in ms (0: none).")] = 0,
) -> None:
    """Play BOT_A against BOT_B on duplicate deals and print A's mean margin ± standard error."""
    from rich.progress import Progress

    from arbiter.tournament.evaluate import evaluate as run_evaluation

    options = _run(_parse_options, option)
    if deals < 1:
        _run(_raise, UsageError(f"--deals must be at least 1, got {deals}"))
    with Progress(transient=True, console=out) as progress:
        task = progress.add_task(f"{bot_a} vs {bot_b}", total=2 * deals)
        result = _run(
            run_evaluation, game, bot_a, bot_b, deals=deals, seed=seed, options=options, preset=preset,
            jobs=jobs, decision_ms=decision_ms, progress=lambda m: progress.advance(task),
        )
    out.print(result.summary())
    out.print(f"margin {result.mean_margin:+.3f}  s.e. {result.stderr:.3f}  win rate {result.win_rate:.3f}  matches {len(result.matches)}")


def _raise(exc: Exception) -> None:
    raise exc
