"""`arbiter tournament run|list|show` and `arbiter standings`.

    arbiter tournament run club.toml                       # a spec file (see arbiter/tournament/spec.py)
    arbiter tournament run --game spot --bots random,heuristic --deals 4 -o hands=3
    arbiter tournament run club.toml --seed 9 --name club-9  # flags override the file
    arbiter tournament run club.toml --cluster tcp://10.0.0.5:8786  # on a Dask cluster (docs/cluster.md)
    arbiter tournament run --resume club-night             # an interrupted one, on its stored settings
    arbiter tournament list
    arbiter tournament show club-night --failures          # matches with incidents
    arbiter tournament show club-night --match 17          # one match: seats, scores, incidents
    arbiter standings club-night --crosstable
    arbiter standings club-night --format html -o club.html
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import sys
from shlex import quote
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from cardarena import disclosure
from arbiter.cli._common import (environment, ENV_STOP_GRACE, ENV_BOT_ENVS,
    OPTION_FLAG, DbOpt, TransportOpt, UsageError, _parse_options, _run, app, err, out, plural, terminate_as_interrupt,
    creating_store, emit, fail, interrupted_run, need, no_store, show_progress, stderr_block, tournament_app,
)
from arbiter.batch.settings import check_store_for_registered
from arbiter.hosting.botproc import DEFAULT_TRANSPORT
from arbiter.spectating.runs import announce_run, forget_run
from cardarena.games import GAMES
from cardarena.games.options import flag_help
from arbiter.tournament.spec import TournamentSpec
from arbiter.store.db import DEFAULT_DB, READ_ERRORS, Store

_QUICK_DEFAULTS = {"game": "spades", "bots": ("random", "greedy", "heuristic")}


def _help(setting: str, extra: str = "") -> str:
    """A flag's help, from the spec's declaration of the setting (``flag_help``)."""
    return flag_help(TournamentSpec, setting, extra)


@tournament_app.command("run", epilog=environment(ENV_STOP_GRACE, ENV_BOT_ENVS))
def tournament_run(
    spec_file: Annotated[Optional[Path], typer.Argument(help="Tournament spec (TOML). Without it, the flags define the tournament.", metavar="[SPEC.toml]")] = None,
    game: Annotated[Optional[str], typer.Option(help=_help("game", f"One of {', '.join(GAMES)}; without a spec file, spades"))] = None,
    bots: Annotated[Optional[list[str]], typer.Option(help=_help("bots", "Comma-separated, or repeated; without a spec file, random,greedy,heuristic"))] = None,
    format: Annotated[Optional[str], typer.Option("--format", help=_help("format"))] = None,
    challenger: Annotated[Optional[str], typer.Option(help=_help("challenger"))] = None,
    teams: Annotated[Optional[str], typer.Option(help=_help("teams", "Written a+b,c+d"))] = None,
    deals: Annotated[Optional[int], typer.Option(help=_help("deals"))] = None,
    seed: Annotated[Optional[int], typer.Option(help=_help("seed"))] = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", "-o", help=_help("options", OPTION_FLAG))] = None,
    preset: Annotated[Optional[str], typer.Option(help=_help("preset"))] = None,
    duplicate: Annotated[Optional[bool], typer.Option("--duplicate/--no-duplicate", help=_help("duplicate"))] = None,
    seatings: Annotated[Optional[str], typer.Option(help=_help("seatings"))] = None,
    concurrency: Annotated[Optional[int], typer.Option(help=_help("concurrency"))] = None,
    bot_processes: Annotated[Optional[int], typer.Option(help=_help("bot_processes"))] = None,
    isolation: Annotated[Optional[str], typer.Option(help=_help("isolation"))] = None,
    name: Annotated[Optional[str], typer.Option(help=_help("name"))] = None,
    db: DbOpt = Path(DEFAULT_DB),
    fresh: Annotated[bool, typer.Option("--fresh", help="Replace a stored tournament of the same name instead of resuming, once the new run has started (its bots up): one that cannot start leaves it as it was.")] = False,
    transport: TransportOpt = DEFAULT_TRANSPORT,
    decision_ms: Annotated[Optional[int], typer.Option(help=_help("decision_ms"))] = None,
    bank_ms: Annotated[Optional[int], typer.Option(help=_help("bank_ms"))] = None,
    policy: Annotated[Optional[str], typer.Option(help=_help("policy"))] = None,
    max_strikes: Annotated[Optional[int], typer.Option(help=_help("max_strikes"))] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display; print only the standings.")] = False,
    cluster: Annotated[Optional[str], typer.Option("--cluster", help=_help("cluster"))] = None,
    shared_bots: Annotated[bool, typer.Option("--shared-bots", help="With --cluster: workers read registered bots from the registry folder (mounted at the same path on every worker) instead of receiving their files.")] = False,
    resume: Annotated[Optional[str], typer.Option("--resume", metavar="NAME", help="Resume the tournament NAME of --db with its stored settings (tournament list and show print it for one interrupted; a finished one's standings are printed, nothing played); only how it runs (--concurrency, --isolation, --bot-processes, --cluster, --transport) may be given with it.")] = None,
) -> None:
    """Run (or resume) a tournament, showing progress, then print the standings (their columns: arbiter standings --help)."""
    from arbiter.tournament.spec import spec_from_dict, spec_from_toml
    from arbiter.tournament.run import (counted_think_times, load_standings, run_tournament, stored_tournament_spec,
                                        tournament_where)

    if resume is not None:  # what it plays is the store's: a setting given would be another tournament
        given = {"SPEC.toml": spec_file, "--game": game, "--bots": bots, "--format": format, "--challenger": challenger,
                 "--teams": teams, "--deals": deals, "--seed": seed, "--option": option, "--preset": preset,
                 "--duplicate": duplicate, "--seatings": seatings, "--name": name, "--decision-ms": decision_ms,
                 "--bank-ms": bank_ms, "--policy": policy, "--max-strikes": max_strikes, "--fresh": fresh or None}
        if taken := [flag for flag, value in given.items() if value is not None]:
            _run(fail, f"--resume: {resume!r} resumes with its stored settings; leave out {', '.join(taken)}")
        with _run(_open_existing, db, True) as stored:  # (a run writes: an older store is migrated here)
            spec_of_resumed = _run(stored_tournament_spec, stored, resume, concurrency=concurrency,
                                   bot_processes=bot_processes, isolation=isolation, cluster=cluster)

    overrides: dict[str, Any] = {
        "game": game, "format": format, "challenger": challenger, "deals": deals, "seed": seed, "preset": preset,
        "duplicate": duplicate, "seatings": seatings, "concurrency": concurrency, "bot_processes": bot_processes,
        "isolation": isolation, "name": name, "decision_ms": decision_ms, "bank_ms": bank_ms, "policy": policy, "max_strikes": max_strikes,
        "cluster": cluster,
    }
    if bots is not None:
        overrides["bots"] = tuple(b.strip() for given in bots for b in given.split(",") if b.strip())
        if not overrides["bots"]:  # not a missing field: the flag was given, empty
            _run(fail, f"--bots: no bot in {','.join(bots)!r} (written a,b,c)")
    if teams is not None:
        overrides["teams"] = tuple(tuple(m.strip() for m in t.split("+")) for t in teams.split(",") if t.strip())
        if not overrides["teams"]:  # an empty list would play each bot with its copy, unasked
            _run(fail, f"--teams: no partnership in {teams!r} (written a+b,c+d)")
    if option:
        overrides["options"] = _run(_parse_options, option)
    if resume is not None:
        spec: TournamentSpec = spec_of_resumed
    elif spec_file is not None:
        spec = _run(spec_from_toml, spec_file, overrides)
    else:
        given = {k: v for k, v in overrides.items() if v is not None}
        spec = _run(spec_from_dict, {}, {**_QUICK_DEFAULTS, **given}, source="command line")
    _run(spec.validate)
    _run(tournament_where, spec, transport)  # inproc with a cluster: refused before the store is written
    if shared_bots and spec.cluster is None:  # taken, and nothing done with it
        _run(fail, "--shared-bots: only with a cluster (--cluster, or cluster in the spec), whose workers read the "
             "registry folder; without one, the bots run on this machine")

    begun: list[bool] = []  # the run started (its bots up): from then on it writes
    checked: list[bool] = []  # the store was asked what the run resumes (its first progress)

    def run(on_progress) -> None:
        def progress(p) -> None:
            checked.append(True)
            if on_progress is not None:
                on_progress(p)

        try:
            asyncio.run(run_tournament(spec, store, None, progress, fresh, transport, ship_bots=not shared_bots,
                                       on_begin=lambda: begun.append(True)))
        except KeyboardInterrupt:
            kept = None
            if not begun:  # the store as it was: nothing written
                with contextlib.suppress(*READ_ERRORS):
                    kept = store.stored_spec(spec.display_name)
            said = interrupted_run(db, "tournament", bool(begun), fresh, quote(spec.display_name) if kept else None,
                                   bool(checked))
            err.print(said, markup=False, highlight=False, soft_wrap=True)  # one line, a path never cut
            raise typer.Exit(130) from None

    _run(check_store_for_registered, spec.bots, db)  # not a store made for a bot that cannot be in it
    creating_store(db)
    with terminate_as_interrupt(), _run(Store, db) as store:  # a scheduler's stop ends it as Ctrl-C does
        if quiet:  # only the standings (no progress, no watch line; `arbiter watch --db` still finds it)
            quiet_runs: list[Path] = []
            try:
                _run(run, lambda p: quiet_runs.append(announce_run(db, p.watch_address, p.watch_token, p.tournament))
                     if p.watch_address else None)
            finally:
                for path in quiet_runs:
                    forget_run(path)
        else:
            with show_progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), TextColumn("leader: {task.fields[leader]}"),
                transient=False,
            ) as progress:
                task = progress.add_task(escape(spec.display_name), total=None, rate="", leader="-")

                def on_progress(p) -> None:
                    if p.watch_address:
                        # the token itself is never printed: it is in the watch file (its user's only), and given as
                        # --token it would show in ps (as the README's bot tokens keep to the environment)
                        watch = announce_run(db, p.watch_address, p.watch_token, p.tournament)
                        announced.append(watch)
                        progress.console.print(
                            f"watch live: arbiter watch --db {quote(str(db))} (or arbiter watch --server {p.watch_address} "
                            f"with ARENA_SPECTATOR_TOKEN set to the token in {quote(str(watch))}, readable by you only)",
                            highlight=False, markup=False, soft_wrap=True)
                        return
                    if p.over:  # nothing to play: no bar, the standings as they are
                        progress.update(task, visible=False)
                        progress.console.print(f"{p.tournament} is finished already: its "
                                               f"{plural(p.total, 'match', 'matches')} are in {db}, none played again",
                                               markup=False, highlight=False, soft_wrap=True)
                        return
                    if p.record is None:
                        progress.update(task, total=p.total, completed=p.done, leader=p.leader or "-")
                        if p.venue:
                            progress.console.print(f"bots: {p.venue}", markup=False, highlight=False)
                        if p.resumed:
                            progress.console.print(f"resuming {p.tournament}: {p.resumed} of "
                                                   f"{plural(p.total, 'match', 'matches')} already in {db}",
                                                   markup=False, highlight=False)
                        return
                    elapsed = progress.tasks[0].elapsed or 1e-9
                    rate = (p.done - p.resumed) / elapsed
                    progress.update(task, completed=p.done, rate=f"{rate:.1f} matches/s", leader=p.leader or "-")
                    o = p.record.outcome
                    if o.reason.is_forfeit:
                        progress.console.print(f"[yellow]match {p.record.match_id}:[/] {o.reason.value}: {escape(o.detail)}",
                                               highlight=False)

                if spec.cluster:
                    progress.console.print(f"running the matches on the Dask cluster at {spec.cluster}", highlight=False)
                announced: list[Path] = []
                try:
                    _run(run, on_progress)
                except typer.Exit:  # the run stopped (a bot that cannot start...): its error alone, no bar left behind
                    progress.update(task, visible=False)
                    raise
                finally:
                    for path in announced:
                        forget_run(path)
        standings, info = _run(load_standings, store, spec.display_name)
        times = _run(counted_think_times, store, store.tournament(info["id"]))
    from arbiter.present.played import with_clock

    _print_standings(standings, with_clock(info, spec.to_json()), crosstable=True, times=times)
    out.print(f"stored in {escape(str(db))}; [bold]arbiter standings {escape(quote(spec.display_name))} --db {escape(quote(str(db)))}[/] "
              "shows it again", highlight=False, soft_wrap=True)  # a command to paste: no break inside a path


def _print_standings(st, info: dict[str, Any], crosstable: bool = False, times: dict[str, Any] | None = None,
                     resume: str = "") -> None:
    """``times``: bot -> ThinkTimes (``Store.think_times``), for the latency columns; ``resume``:
    what an interrupted tournament needs said (``interrupted_text``), under the summary."""
    from arbiter.cli.layout import Column, console_width, fitted_table
    from arbiter.present.export import (_cross_cells, _rating_text, _summary, los_text, margin_header, margin_text,
                                         score_text, standings_notes)
    from arbiter.present.played import THINK_COLUMNS, THINK_NOTE, describe, team_rows, think_cells

    played = describe(info)
    # What is dropped first when the terminal is narrow: the higher ``drop``, the earlier.
    cols = [Column("#"), Column("bot", "left", style="bold", shrink=True), Column("n", drop=5),
            Column("W-D-L", drop=2), Column("score%")]
    cols += [Column(margin_header(st), drop=7)]
    cols += [Column("rating", drop=3), Column("95% CI", drop=8), Column("LOS↓", drop=9)]
    forfeits = any(r.forfeits for r in st.rows)
    cols += [Column("forf", drop=4)] if forfeits else []
    cols += [Column(c, drop=10 + i) for i, c in enumerate(THINK_COLUMNS)] if times else []
    rows = []
    for d in team_rows(st, played.teams):
        r = d.row
        value, interval = _rating_text(st, r)
        cells = [str(d.rank), escape(d.label), str(r.matches), f"{r.wins}-{r.draws}-{r.losses}",
                 score_text(r), margin_text(st, r)]
        cells += [value, interval.replace(" – ", "–"), "" if d.los_next is None else los_text(d.los_next)]  # as every export
        cells += [str(d.forfeits)] if forfeits else []
        cells += think_cells(times, d.members) if times else []
        rows.append(cells)
    table = fitted_table(cols, rows, title=f"Standings: {escape(str(info['name']))}")
    shown = {str(c.header) for c in table.columns}  # a narrow terminal's table leaves some out
    out.print(table, width=console_width())
    out.print(_summary(st, info), highlight=False, markup=False, width=console_width())  # its options and teams: text
    if resume:  # how to go on: one line, a command to paste never cut
        out.print(resume, highlight=False, markup=False, soft_wrap=True)
    # A note on a column the table left out explains nothing on the screen: at 80 columns the
    # clock's six lines were printed under a table without its clock columns.
    column_of = {"margin": margin_header(st), "interval": "95% CI"}
    for key, note in standings_notes(st, info):  # the order, the margin, the scale, W-D-L in a free for all
        if column_of.get(key, "#") in shown:
            out.print(note, highlight=False, markup=False, width=console_width())
    if times and shown & set(THINK_COLUMNS):
        out.print(f"{THINK_NOTE}.", highlight=False, width=console_width())
    if crosstable and len(st.rows) > 1:
        head, rows = _cross_cells(st, played.teams)
        title = "Cross-table: score % of the row bot against the column bot"
        # a box of the names in full: each column its widest cell and 3 (padding, rule), and the edge
        if sum(max(len(c) for c in col) + 3 for col in zip(head, *rows)) + 1 > console_width():
            # too wide: the columns were cut to "long_h…", "long_…", no telling which was which;
            # numbered instead, each row with its number
            rows = [[f"{n}. {line[0]}", *line[1:]] for n, line in enumerate(rows, 1)]
            head = ["", *map(str, range(1, len(rows) + 1))]
            title += " (columns numbered as the rows)"
        ct = Table(title=title)
        for i, h in enumerate(head):
            ct.add_column(escape(h), justify="left" if i == 0 else "right", no_wrap=i == 0)  # the bots' names: text
        for line in rows:
            ct.add_row(*[escape(c) if i == 0 or c in ("", "—") else (f"[green]{c}[/]" if float(c) > 50 else f"[red]{c}[/]" if float(c) < 50 else c)
                         for i, c in enumerate(line)])
        out.print(ct, width=console_width())


def _named_or_newest(store: Store, name: str | None) -> str | None:
    """``name`` as given; else the newest tournament, not a batch of the single matches that
    ``arbiter play`` and /play keep apart (``play:GAME``) unless the store holds only those."""
    if name is not None:
        return name
    from arbiter.tournament.play import is_play_name

    tours = [t for t in store.tournaments() if not is_play_name(t.name)]
    return tours[-1].name if tours else None


def _not_a_ladder(store: Store, db: Path, name: str | None) -> None:
    """UsageError pointing to ``standings --arena`` where the tournament asked for (or, with
    none named, any) is missing and the store holds an arena of that name (or any): "no
    tournament 'ladder'" said nothing of the ladder its web page shows. A name the store does
    not hold is told the newest names it does (a typo, or another store's tournament)."""
    from arbiter.store.arenas import Arenas
    from arbiter.store.db import StoreError

    try:
        if (store.tournament(name) if name is not None else store.tournaments()):
            return
    except StoreError:
        pass
    arenas = [a.name for a in Arenas(store).arenas()]
    command = lambda a: f"arbiter standings --arena {quote(a)} --db {quote(str(db))}"  # noqa: E731
    if name is not None and name in arenas:
        raise UsageError(f"no tournament {name!r} in {db}: {name!r} is an arena; its ladder: {command(name)}")
    if name is None and arenas:
        raise UsageError(f"no tournaments in {db}, only arenas; their ladders: " + "; ".join(map(command, arenas)))
    if name is not None:  # a typo, or another store: say what this one holds
        if held := [t.name for t in store.tournaments([])]:
            some = ", ".join(map(repr, held[-5:][::-1])) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
            raise UsageError(f"no tournament {name[:80]!r} in {db}; it holds {some} "
                             f"(arbiter tournament list --db {quote(str(db))} lists them)")


def _tournament_match(store: Store, tour: Any, match: str, db: Path) -> Any:
    """The match ``--match`` names in ``tour``: its schedule index or a match id. One it does
    not hold is said with the indexes it has ("no match '99'" left the reader to guess); an
    index of its schedule not stored yet, while its matches are withheld, is refused as a
    stored one would be (which of them are stored would time them)."""
    from arbiter.store.db import StoreError
    from cardarena.records import number

    try:
        return store.match(match, tour.id)
    except StoreError:
        pass
    n = max(tour.planned, tour.done)
    index = number(match.strip())
    show = f"arbiter tournament show {quote(tour.name)} --db {quote(str(db))}"
    if n == 0:
        raise UsageError(f"no match {match[:80]!r} in tournament {tour.name!r}: it has no match yet")
    numbered = f"its schedule numbers its {n} matches 0 to {n - 1} (the # column of {show})"
    if index is None:
        raise UsageError(f"no match {match[:80]!r} in tournament {tour.name!r}: --match takes a match id of it, or "
                         f"{numbered}")
    if index >= n:
        raise UsageError(f"no match {index} in tournament {tour.name!r}: {numbered}")
    store.tournament_disclosure(tour).require_match(str(index))  # (Withheld while its matches are)
    raise UsageError(f"match {index} of tournament {tour.name!r} is not played yet: {tour.done} of its {n} matches "
                     "are stored")


def _open_existing(db: Path, writes: bool = False) -> Store:
    """The store at ``db``, read-only: reading never writes (nor creates a store). For a
    command that ``writes`` (``tournament run --resume``) it is opened to be written, so
    that a store of an older schema, which readers refuse, is migrated as the run would."""
    if not db.exists():
        # (a reader makes none: a typo in --db is said, not read as an empty store)
        raise no_store(db)
    return Store(db, read_only=not writes)


@app.command("standings")
def standings_cmd(
    tournament: Annotated[Optional[str], typer.Argument(help="Tournament name or id (default: the newest; the matches arbiter play kept, "
                                                   "play:GAME, only where there is no other).")] = None,
    db: DbOpt = Path(DEFAULT_DB),
    crosstable: Annotated[bool, typer.Option("--crosstable", help="Also print the cross-table. The json, md and html exports always hold it; the CSV is the table alone: not with --format csv.")] = False,
    format: Annotated[Optional[str], typer.Option("--format", "-f", help="Export instead of a table: csv, json, md or html.")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the export to this file (default, or -: stdout).")] = None,
    luck_adjusted: Annotated[bool, typer.Option(
        "--luck-adjusted", help="A stored evaluation (arbiter evaluate --db) or a round robin with duplicate deals: "
                                "also give the margin of each pair of bots that met head to head (tables of more than "
                                "two bots are left out) with the luck taken out, beside the raw one, as arbiter "
                                "evaluate --luck-adjusted does (Spades, -o deals=1, bots installed with the arbiter: "
                                "the deal's, its probes played here; Spot and Spite and Malice: the draws', from the "
                                "records). What it cannot correct is refused before the table is printed. Not with "
                                "--format.")] = False,
    probes: Annotated[Optional[int], typer.Option(
        "--probes", help="With --luck-adjusted: bidding-only probe deals (default 2000).")] = None,
    probes_file: Annotated[Optional[Path], typer.Option(
        "--probes-file", help="With --luck-adjusted: the probes file of arbiter evaluate --probes-file, read instead of "
                              "playing the probes again (and the new ones added).")] = None,
    arena: Annotated[Optional[str], typer.Option(
        "--arena", help="An arena's ladder (arbiter arena) instead of a tournament: its versions by rating, as its "
                        "web page shows them; with --format, exported.")] = None,
) -> None:
    """Show the standings of a stored tournament or an arena's ladder, or export them.

    The columns of a tournament's table (a narrow terminal drops the last ones first and says which):
    # rank (rows level on rating, score% and margin share one); bot (a named partnership: its partners);
    n matches played (while a duplicate tournament runs, of the deals all of whose matches are in: the table counts only those, and says so);
    W-D-L wins, draws, losses (in a free for all: placed first alone, first place shared, any other place);
    score% the share of the pairwise points (1 for each side finished ahead of, ½ a tie);
    margin ± s.e. the side's score minus the mean of the other sides', per match (duplicate deals: each deal's averaged over its seatings, ± its standard error over the deals);
    rating Bradley-Terry on the Elo scale, the field's mean at 1500, by which rows are ranked;
    95% CI its 95% interval ("too few deals" below 4 deals, 8 with partnerships);
    LOS↓ the likelihood that the row is stronger than the row below it;
    forf matches its side lost by a failure of its own seat (shown when there are any);
    think ms, worst ms, transport ms, arbiter ms how much of the clock was the bot's (said under the table; docs/latency.md).
    An arena's ladder (--arena): player name@version; status active, or why it no longer plays (candidate, rejected, replaced, suspended, withdrawn); rating openskill's μ; 95% CI μ ± 1.96σ; LOS↓ over the active row below;
    enc encounters played; matches played; fail matches forfeited.
    The exports' CSV columns and JSON keys: README, "Standings exports"."""
    from arbiter.present.export import FORMATS, render
    from arbiter.tournament.run import counted_think_times, load_standings

    if format is not None and format not in FORMATS:
        _run(fail, f"--format: expected one of {', '.join(FORMATS)}, got {format!r}")
    if arena is not None:
        if tournament is not None or crosstable or luck_adjusted or probes is not None or probes_file is not None:
            _run(fail, "--arena shows a ladder: leave out the tournament, --crosstable, --luck-adjusted and --probes")
        if output is not None and format is None:
            _run(fail, "--output needs --format")
        _ladder(db, arena, format, output)
        return
    if not luck_adjusted:
        _run(need, (("--probes", probes is not None), ("--probes-file", probes_file is not None)), "--luck-adjusted")
    if luck_adjusted and format is not None:
        _run(fail, "--luck-adjusted: shown beside the table, not in an export; leave out --format")
    if crosstable and format == "csv":  # (dropped in silence: a CSV is one table, its columns kept for programs)
        _run(fail, "--crosstable with --format csv: the CSV is the standings table alone, one row a bot; the "
                   "cross-table is in --format json, md or html (always), or printed without --format")
    if probes_file is not None:
        from arbiter.cli._common import check_writable

        _run(check_writable, probes_file, "--probes-file")
    from arbiter.present.played import interrupted_text, with_clock

    with _run(_open_existing, db) as store, store.snapshot():  # the table, header and times of the same matches
        tournament = _run(_named_or_newest, store, tournament)
        _run(_not_a_ladder, store, db, tournament)
        st, info = _run(load_standings, store, tournament)
        tour = _run(store.tournament, info["id"])
        info = with_clock(info, tour.spec)
        times = _run(counted_think_times, store, tour)  # of the matches the table counts
        # what --luck-adjusted would correct, refused before the table is printed (not under it)
        plan = _run(_luck_plan, store, tournament, probes, probes_file) if luck_adjusted else None
    resume = interrupted_text(tour.name, tour.spec, db) if info["state"] == "interrupted" else ""
    info["resume"] = resume  # the exports print it as the terminal does
    if format is None:
        if output is not None:
            _run(fail, "--output needs --format")
        _print_standings(st, info, crosstable, times, resume)
        if plan is not None:
            _luck_line(db, plan, probes, probes_file)
        return
    emit(render(format, st, info), output)



def _ladder_rows(store: Store, name: str) -> tuple[Any, list[Any]]:
    """The arena ``name`` and its ladder's rows (``matchmaking.standings``, as its page has them).
    A name the store holds no arena of is told what it does hold: a tournament of that name (and
    the command of its standings), or its arenas ("no arena 'club'" said nothing of either)."""
    from arbiter.arena import matchmaking
    from arbiter.store.arenas import Arenas
    from arbiter.store.db import StoreError

    tables = Arenas(store)
    try:
        a = tables.arena(name)
    except StoreError as exc:
        db = quote(str(store.path))
        if any(t.name == name for t in store.tournaments([])):
            raise UsageError(f"{exc}: {name!r} is a tournament; its standings: arbiter standings {quote(name)} --db {db}") from None
        if arenas := [x.name for x in tables.arenas()]:
            raise UsageError(f"{exc}; it holds {', '.join(map(repr, arenas))}") from None
        raise
    return a, matchmaking.standings(tables.entrants(a.id))


def _ladder(db: Path, name: str, format: Optional[str], output: Optional[Path]) -> None:
    """``standings --arena NAME``: the ladder as a table, or exported (``render_ladder``)."""
    from arbiter.cli.layout import Column, console_width, fitted_table
    from arbiter.present.export import ladder_cells, ladder_notes, render_ladder

    with _run(_open_existing, db) as store, store.snapshot():
        a, rows = _run(_ladder_rows, store, name)
    remote = a.spec.get("division") == "remote"
    if format is not None:
        emit(render_ladder(format, a.name, a.game, rows, remote), output)
        return
    if not rows:
        out.print(f"arena {escape(a.name)} ({a.game}): no version entered yet", highlight=False)
        return
    # the status wraps: with its reason (a suspension's last words) it is as wide as a line, and
    # counted whole it was the first column dropped, an unranked row shown as if it were ranked
    cols = [Column("#"), Column("player", "left", style="bold", shrink=True), Column("status", "left", wrap=True, drop=5),
            Column("rating"), Column("95% CI", drop=3), Column("LOS↓", drop=4), Column("enc", drop=6),
            Column("matches", drop=7), Column("fail", drop=2)]
    cells = [[escape(c) for c in ladder_cells(r)] for r in rows]
    out.print(fitted_table(cols, cells, title=f"Ladder: {escape(a.name)} ({a.game})"), width=console_width())
    for note in ladder_notes(remote):
        out.print(note, highlight=False, markup=False, width=console_width())


def _luck_plan(store: Store, tournament: str, probes: Optional[int], probes_file: Optional[Path]) -> Any:
    """``standings --luck-adjusted``: the pairs it corrects (``luck_pairs``), every condition
    checked, --probes and --probes-file as well, before the table is printed: a refusal after
    it, under a whole table, read as the table's failing."""
    from arbiter.tournament.probes import check_probes, luck_pairs
    from cardarena.games import ConfigError

    plan = luck_pairs(store, tournament)
    if plan.draws and probes is not None:
        raise ConfigError(f"--probes: {plan.game}'s draws are centred on expectations known exactly, with no probes: "
                          "leave it out")
    if plan.draws and probes_file is not None:
        raise ConfigError(f"--probes-file: {plan.game}'s draws are corrected by expectations known exactly, with no "
                          "probes to keep: leave it out")
    if len(plan.pairs) > 1 and probes_file is not None:
        raise ConfigError(f"--probes-file: a probes file holds the probes of one pair, and more than one pair of bots "
                          f"met in this tournament ({len(plan.pairs)}): leave it out")
    if probes is not None:
        check_probes(probes)
    return plan


def _luck_line(db: Path, plan: Any, probes: Optional[int], probes_file: Optional[Path]) -> None:
    """``standings --luck-adjusted``: each pair's luck-adjusted margin beside its raw one (a stored
    evaluation's, a round robin's pairs: ``stored_luck_pairs`` of ``plan``, ``_luck_plan``'s), and
    what was corrected."""
    from arbiter.rating.draws import DRAW_GAMES
    from arbiter.tournament.probes import LUCK_PROBES, luck_probes, stored_luck_pairs

    n = LUCK_PROBES if probes is None else probes
    with show_progress(TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn()) as progress:
        task = progress.add_task("probe deals (bidding only)", total=n, visible=False)

        def make(game, a, b, options, preset):
            if game not in DRAW_GAMES:
                progress.update(task, description=f"{a} vs {b}: probe deals (bidding only)", completed=0, visible=True)
            return luck_probes(game, a, b, options, preset, n, progress=lambda k: progress.update(task, completed=k),
                               file=probes_file)

        with _run(_open_existing, db) as store:
            results = _run(stored_luck_pairs, store, plan.tour.id, make, plan)
    exact = results[0].luck_expected is not None and results[0].luck_expected.exact
    what = "the draws" if exact else "the deal"
    if len(results) == 1:
        (result,) = results
        out.print(f"the margin above is raw; with the luck of {what} taken out ({plural(result.deals, 'deal')} of "
                  f"{result.bot_a} vs {result.bot_b}, raw {result.margin}):", highlight=False, markup=False)
        out.print(result.luck_summary(), highlight=False, markup=False, soft_wrap=True)
        return
    out.print(f"the table above is raw; below, each pair's margin where the two met head to head (bot A's mean score "
              f"minus bot B's, a deal's averaged over its seatings), with the luck of {what} taken out, pair by pair "
              f"({len(results)} pairs; tables of more than two bots are not corrected, and the ratings are not "
              f"recomputed):", highlight=False, markup=False, soft_wrap=True)
    for result in results:
        out.print(f"{result.bot_a} vs {result.bot_b}, {plural(result.deals, 'deal')}: {result.luck_summary()}", highlight=False,
                  markup=False, soft_wrap=True)


@tournament_app.command("list")
def tournament_list(db: DbOpt = Path(DEFAULT_DB)) -> None:
    """List the tournaments in the store."""
    from arbiter.tournament.play import is_play_name

    unreadable: list[str] = []
    from arbiter.store.arenas import Arenas

    with _run(_open_existing, db) as store:
        every = _run(store.tournaments, unreadable)
        arenas = [a.name for a in _run(lambda: Arenas(store).arenas())]
    for why in unreadable:  # the others are listed all the same
        err.print(f"[yellow]warning:[/] {escape(why)} (not listed)", highlight=False)
    played = [t for t in every if is_play_name(t.name)]  # single matches (arbiter play, /play): not tournaments
    tours = [t for t in every if not is_play_name(t.name)]
    if played:
        n = sum(t.done for t in played)
        show = escape(quote(played[0].name)) if len(played) == 1 else "NAME"  # typed back: its brackets quoted
        out.print(f"{plural(n, 'match', 'matches')} played one at a time (arbiter play, arbiter web's /play) "
                  f"{'is' if n == 1 else 'are'} kept apart, in {', '.join(escape(t.name) for t in played)}: "
                  f"arbiter tournament show {show} lists {'it' if n == 1 else 'them'}", highlight=False)
    if not tours:  # an arena's store: its ladders said, as standings says them (not "no tournaments" alone)
        ladders = "; ".join(f"arbiter standings --arena {quote(a)} --db {quote(str(db))}" for a in arenas)
        out.print(f"no tournaments in {db}" + (f", only arenas; their ladders: {ladders}" if arenas else ""),
                  markup=False, highlight=False, soft_wrap=True)
        return
    from arbiter.cli.layout import Column, console_width, fitted_table
    from arbiter.present.played import interrupted_text
    from arbiter.store.db import run_holder

    holder = run_holder(db)
    # The name is what standings, show and --resume take: whole, never cut (a rich table cut
    # it to "evaluate-spades-heuris…" even at 120 columns); the created time, the bots, the
    # format and the game go first when the terminal is narrow.
    cols = [Column("id"), Column("name", "left"), Column("game", "left", drop=3), Column("format", "left", drop=4),
            Column("bots", "left", wrap=True, drop=5), Column("matches"), Column("status", "left"),
            Column("created", "left", drop=6)]
    rows = [[str(t.id), escape(t.name), t.game, escape(str(t.spec.get("format", "round-robin"))),
             escape(", ".join(t.spec.get("bots", []))), f"{t.done}/{t.planned}", t.state(holder),
             datetime.datetime.fromtimestamp(t.created).strftime("%Y-%m-%d %H:%M")] for t in tours]
    out.print(fitted_table(cols, rows, title=f"Tournaments in {escape(str(db))}", hint="widen the terminal"),
              width=console_width())
    for t in tours:  # how to go on with each: one line, a command to paste never cut
        if t.state(holder) == "interrupted":
            out.print(f"{t.name}: {interrupted_text(t.name, t.spec, db)}", highlight=False, markup=False, soft_wrap=True)


@tournament_app.command("show")
def tournament_show(
    tournament: Annotated[Optional[str], typer.Argument(help="Tournament name or id (default: the newest; the matches arbiter play kept, "
                                                   "play:GAME, only where there is no other).")] = None,
    db: DbOpt = Path(DEFAULT_DB),
    match: Annotated[Optional[str], typer.Option("--match", "-m", help="Drill into one match: its schedule index or match id.")] = None,
    failures: Annotated[bool, typer.Option("--failures", help="Only matches where something went wrong.")] = False,
) -> None:
    """A tournament's spec, entrants and matches; or one match in detail.

    A stored evaluation's verdict: what its sequential test decided, in the words arbiter evaluate printed.
    Entrants: bot its name in the tournament; version a registered bot's; spec as given; launched what ran it;
    team its named partnership; think ms, worst ms, transport ms, arbiter ms the clock (said under the table; while a duplicate tournament runs, over the deals all of whose matches are in).
    Matches (a narrow terminal drops some columns and says which): # the schedule index (--match takes it);
    round, deal, table, seating where it is in the schedule (a deal is played once in each seating);
    seats the bots in seat order; scores, ranks each seat's (rank 1 first; withheld while a duplicate one runs);
    ended completed, or why the arbiter ended it (a forfeit); incidents timeouts, illegal actions, crashes (--failures lists only those); match id what arbiter replay and --match take. While a duplicate one runs, a match is listed only once all the matches of its deal are in, and a line under the table says how many are left out until then.
    The standings: arbiter standings."""
    from arbiter.tournament.play import is_play_name
    from arbiter.tournament.run import counted_matches, counted_think_times

    with _run(_open_existing, db) as store:
        tournament = _run(_named_or_newest, store, tournament)
        _run(_not_a_ladder, store, db, tournament)
        tour = _run(store.tournament, tournament)
        policy = tour.disclosure
        if match is not None:
            row = _run(_tournament_match, store, tour, match, db)  # an index of the schedule, or a match id
            record, shown = _run(store.read_match, row.match_id)  # the one reader, and what may be shown
            _run(shown.require_match, row.match_id)
            _show_match(tour, row, record, db)
            return
        entrants = store.entrants(tour.id)
        rows = _run(store.matches, tour.id)
        counted = _run(counted_matches, store, tour, rows)
        times = _run(counted_think_times, store, tour, counted)
        seed_text = policy.seed_text(tour.spec.get("seed"), store.shown_seed(tour))
        verdict = store.verdict(tour.id)
    from arbiter.cli.layout import Column, console_width, fitted_table
    from arbiter.present.played import describe

    spec = tour.spec
    played = describe(spec)
    width = console_width()
    if is_play_name(tour.name):  # single matches: none planned, each dealt from a seed of its own
        count = (f"{plural(tour.done, 'match', 'matches')} played one at a time (arbiter play, arbiter web's /play), "
                 "each on a seed of its own (--match shows it)")
    else:
        count = f"{tour.done}/{plural(tour.planned, 'match', 'matches')}, seed {seed_text}"
    out.print(f"[bold]{escape(tour.name)}[/] (id {tour.id}): {tour.game}, {count}", highlight=False, width=width)
    if not is_play_name(tour.name):  # single matches are never finished: they are played one at a time
        from arbiter.present.played import interrupted_text, stopped_early_text
        from arbiter.store.db import run_holder

        state = tour.state(run_holder(db))
        if state == "interrupted":
            state = interrupted_text(tour.name, tour.spec, db)
        elif tour.stopped_early:
            state = stopped_early_text(tour.done, tour.planned, tour.spec)
        out.print(f"  state: {state}", highlight=False,
                  markup=False, soft_wrap=True)  # a command to paste: no line break put inside a path
    if verdict is not None:  # an evaluation's sequential test, in the words arbiter evaluate printed
        from arbiter.present.export import verdict_note

        out.print(f"  {verdict_note(verdict.text)}", highlight=False, markup=False, soft_wrap=True)
    for label, text in played.lines():
        out.print(f"  {label}: {escape(text)}", highlight=False, width=width)
    if played.wdl_note:
        out.print(f"  {played.wdl_note}", highlight=False, width=width)  # (its sentence names W-D-L itself)
    if entrants:
        from arbiter.present.played import THINK_COLUMNS, THINK_NOTE, think_cells

        et = Table(title="Entrants")
        for col in ("bot", "version", "spec", "launched"):
            et.add_column(col, no_wrap=col in ("bot", "version"), overflow="fold")
        team_of = {m: " + ".join(t) for t in played.teams for m in t}
        if team_of:
            et.add_column("team", no_wrap=True)
        for col in THINK_COLUMNS if times else ():
            et.add_column(col, justify="right", no_wrap=True)
        for e in entrants:
            et.add_row(escape(e.name), escape(e.version or "-"), escape(e.spec), escape(e.launched),
                       *([escape(team_of.get(e.name, ""))] if team_of else []),
                       *(think_cells(times, (e.name,)) if times else ()))
        out.print(et, width=width)
        if times:
            out.print(f"{THINK_NOTE}.", highlight=False, width=width)
    # a match is listed once it counts (cardarena.disclosure: while the tournament runs, once its deal is whole), as
    # the standings' forfeits count it: its row appearing as it is stored would time it (a forfeit ends sooner), and a
    # forfeit (or timeout) by seat read off a seating of a deal still to be played tells its result. --failures picks
    # from those alone.
    listed = counted.rows
    shown = [r for r in listed if r.incidents or r.outcome.reason.is_forfeit] if failures else list(listed)
    # The match id stays whatever the width: it is what `arbiter replay` and --match take.
    cols = [Column("#"), Column("round", drop=9), Column("deal", drop=6), Column("table", drop=8),
            Column("seating", drop=7), Column("seats", "left", wrap=True), Column("scores", "left", drop=2),
            Column("ranks", "left"), Column("ended", "left", drop=3), Column("incidents", "left", drop=4, wrap=True),
            Column("match id", "left")]
    cells = []
    for r in shown:
        inc = "; ".join(f"seat {i.seat} {i.kind}" for i in r.incidents)
        ended = r.outcome.reason.value
        if policy.matches:
            result = (" ".join(f"{s:g}" for s in r.outcome.scores), " ".join(map(str, r.outcome.ranks)), ended)
        else:
            result = ("withheld", "withheld", ended)
        cells.append([str(r.idx), str(r.round), str(r.deal), str(r.table), str(r.seating), escape(" ".join(r.seats)), *result,
                      escape(inc), escape(r.match_id)])
    out.print(fitted_table(cols, cells, title=f"Matches ({len(shown)} shown)", hint="widen the terminal"),
              width=console_width())
    if counted.unlisted_note:  # how many it leaves out, never which
        out.print(f"{counted.unlisted_note}.", highlight=False, width=width)
    if failures and shown:  # what went wrong, in words: the reason, not only its kind (of the matches counted, as above)
        for r in shown:
            for i in r.incidents:
                bot = r.seats[i.seat] if 0 <= i.seat < len(r.seats) else "?"
                out.print(f"match {r.match_id} seat {i.seat} ({escape(bot)}) {escape(i.kind)}: {escape(i.detail)}",
                          highlight=False, width=width)
            if r.outcome.reason.is_forfeit and r.outcome.detail and not r.incidents:
                out.print(f"match {r.match_id}: {r.outcome.reason.value}: {escape(r.outcome.detail)}",
                          highlight=False, width=width)
        if policy.matches:
            # this tournament of this store: without them, --match looks in the newest of arena.sqlite
            out.print(f"each bot's stderr: arbiter tournament show {escape(quote(tour.name))} --db {escape(quote(str(db)))} "
                      "--match MATCH_ID",
                      highlight=False, soft_wrap=True)  # a command to paste: no line break put inside a path
        else:
            out.print("each bot's stderr opens with the matches, when the tournament ends", highlight=False, width=width)
    if failures and counted.closed:
        out.print(f"{counted.note}: the failures of a deal not counted yet are listed once it counts", highlight=False,
                  width=width)
    if not policy.matches:
        out.print(f"each seating's result, seed and replay open when the tournament ends, and a match is listed (how it "
                  f"ended, its incidents) once its deal counts: {disclosure.CLOSED_REASON}", highlight=False, width=width)


def _show_match(tour, row, record, db: Path) -> None:
    """One match in detail, ending with the command that replays it: from this store (``db``),
    which the default of arbiter replay may not be."""
    out.print(f"[bold]match {escape(row.match_id)}[/] of {escape(tour.name)}: #{row.idx}, round {row.round}, deal {row.deal}, "
              f"table {row.table}, seating {row.seating}, deal seed {row.seed}", highlight=False)
    out.print(f"ended: {row.outcome.reason.value}" + (f" ({escape(row.outcome.detail)})" if row.outcome.detail else "")
              + f"; {plural(row.decisions, 'decision')} in {row.seconds:.2f} s", highlight=False)
    ms: dict[int, list[int]] = {}
    own: dict[int, list[int]] = {}  # the arbiter's own time per decision (µs; 0 in records from before it was kept)
    transport: dict[int, list[float]] = {}  # ms less the bot's own time, where its SDK said it (docs/latency.md)
    for a in record.actions:
        ms.setdefault(a.seat, []).append(a.ms)
        own.setdefault(a.seat, []).append(a.overhead_us)
        if a.bot_us is not None:
            transport.setdefault(a.seat, []).append(max(0.0, a.ms - a.bot_us / 1000))
    measured = any(us for v in own.values() for us in v)
    table = Table(title="Seats")
    for col in ("seat", "side", "bot", "score", "rank", "acts", "mean ms", "max ms", *(("transport ms",) if transport else ()),
                *(("arbiter ms",) if measured else ()), "incidents"):
        table.add_column(col, justify="left" if col in ("bot", "incidents", "side") else "right", no_wrap=col == "bot")
    from cardarena.games import get_game

    try:
        teams = get_game(tour.game, tour.spec.get("options", {}), tour.spec.get("preset")).teams
    except Exception:  # noqa: BLE001 - the drill-down still works without sides
        teams = tuple((s,) for s in range(len(row.seats)))
    side_of = {s: j for j, t in enumerate(teams) for s in t}
    for seat, bot in enumerate(row.seats):
        times = ms.get(seat, [])
        incs = escape("; ".join(f"{i.kind}: {i.detail}" for i in row.incidents if i.seat == seat))
        side = side_of.get(seat, 0)
        table.add_row(str(seat), str(side), escape(bot), f"{row.outcome.scores[seat]:g}", str(row.outcome.ranks[seat]),
                      str(len(times)), f"{sum(times) / len(times):.1f}" if times else "", str(max(times)) if times else "",
                      *((f"{sum(transport[seat]) / len(transport[seat]):.2f}" if transport.get(seat) else "",)
                        if transport else ()),
                      *((f"{sum(own[seat]) / len(own[seat]) / 1000:.3f}" if own.get(seat) else "",) if measured else ()),
                      incs or "-")
    out.print(table)
    for inc in row.incidents:  # what went wrong, in the bot's own words (its stderr tail)
        if inc.stderr:
            out.print(f"seat {inc.seat} ({row.seats[inc.seat]}) {inc.kind}; its stderr ends:", highlight=False, markup=False)
            out.print(stderr_block(inc.stderr), highlight=False, markup=False)
    out.print(f"replay it: [bold]arbiter replay {escape(row.match_id)} --db {escape(quote(str(db)))}[/]", highlight=False,
              soft_wrap=True)
