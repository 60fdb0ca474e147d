"""`arbiter bench`: the benchmark (engines, OpenSpiel, gRPC floor, hosted, scale, memory, isolation, cluster,
statistics, arena)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from arbiter.cli._common import UsageError, _run, app, check_writable, err, out, plural, write_text


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "x":
        return f"{value:.2f}"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:,.2f}"


@app.command()
def bench(
    runs: Annotated[int, typer.Option("--runs", help="Rounds per figure; each figure is the median of the rounds.")] = 5,
    seconds: Annotated[float, typer.Option("--seconds", help="Seconds of play per engine run.")] = 1.0,
    section: Annotated[
        Optional[list[str]],
        typer.Option("--section", "-s", help="Only these sections (repeatable): engines, openspiel, floor, hosted, scale, memory, isolation, cluster, statistics, arena."),
    ] = None,
    openspiel_python: Annotated[
        Optional[str],
        typer.Option("--openspiel-python", envvar="ARENA_BENCH_PYTHON",
                     help="Python of an environment with open-spiel (default: .venv-bench/bin/python if present)."),
    ] = None,
    json_path: Annotated[Path, typer.Option("--json", help="Where to write the results as JSON.")] = Path("bench-results.json"),
) -> None:
    """Measure the platform's speed and print one table with the targets (pass/short).

    Examples:

        arbiter bench                          # everything, about 4 minutes on 2 cores
        arbiter bench -s engines --runs 3      # engines only
    """
    from arbiter.bench import SECTIONS, run_bench

    sections = tuple(section) if section else SECTIONS

    def check() -> None:
        unknown = sorted(set(sections) - set(SECTIONS))
        if unknown:
            raise UsageError(f"--section: unknown {', '.join(unknown)} (known: {', '.join(SECTIONS)})")
        if runs < 1 or seconds <= 0:
            raise UsageError("--runs must be at least 1 and --seconds positive")
        check_writable(json_path, "--json")  # before minutes of measuring, not after

    _run(check)
    result = _run(run_bench, runs, seconds, sections, openspiel_python, lambda msg: err.print(f"[dim]{msg}[/]"))
    table = Table(title=f"Card Arena bench: median of {plural(runs, 'run')} (spread min..max), {result.machine.get('cores')} cores")
    table.add_column("figure")
    table.add_column("median", justify="right")
    table.add_column("spread", justify="right")
    table.add_column("unit")
    table.add_column("target")
    for f in result.figures:
        spread = f.spread
        if f.passed is None:
            verdict = f"[dim]{f.target}[/]" if f.target else ""
        else:
            verdict = f"{f.target} [green]pass[/]" if f.passed else f"{f.target} [red]short[/]"
        median = _fmt(f.median, f.unit) if f.values else f"[yellow]{f.note or 'not measured'}[/]"
        table.add_row(f.label, median, f"{_fmt(spread[0], f.unit)}..{_fmt(spread[1], f.unit)}" if spread else "",
                      f.unit, verdict)
    from rich.console import Console

    Console(width=max(out.size.width, 120), emoji=False).print(table)  # one row per figure, even when piped
    _run(write_text, json_path, result.to_json(), "--json")
    out.print(f"{result.seconds:.0f} s; results written to {json_path}")
