"""`arbiter analyse`: which of a seat's decisions cost it, valued from that seat's view only.

    arbiter analyse 1-4-9f3a --seat 2               # every decision of seat 2 with a choice
    arbiter analyse 1-4-9f3a --seat 2 --samples 16  # more sampled states: smaller errors
    arbiter analyse match.json --seat 0 --from 10 --to 20 --top 5
    arbiter analyse 1-4-9f3a --seat 1 --hindsight   # Spades: each card play's double-dummy count, every card known
    arbiter analyse --bot heuristic                 # a bot's costliest decisions in its analysed matches

A match from the store is analysed once per seat and settings and the analysis stored
(when the store can be written): the next run, and the web's inspector page
(``/m/MATCH/inspect?seat=S``), read it back instead of sampling again.

Each action is valued on states sampled from what the seat could see (the forward model),
by the game's reference evaluator (Spades: determinized double-dummy values scored by the
rules; Spot and Spite and Malice: the search bot's heuristic rollouts), sampling until the
verdict is clear: a mistake (it cost more than the game's margin, with 95% confidence), fine
(nothing better by that much; at Spot, nothing better at all), or unsure when the budget
ends. docs/analysis.md says how.
The same command gives the same numbers (--seed). The match is read as `arbiter replay`
reads it: a match the disclosure rule withholds is refused.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from arbiter.analysis.hindsight import APPROXIMATE, CardCount, HindsightUnavailable, double_dummy, require_solver
from arbiter.analysis.reask import decisions
from arbiter.analysis.stored import Analysed, analysed_rows, costliest_of, stored_analysis
from arbiter.batch.settings import bot_names
from arbiter.analysis.values import DEFAULT_MAX_ACTIONS, DEFAULT_SAMPLES, MAX_SAMPLES, UNITS, meaning, most_states, unsure_at_best
from arbiter.cli._common import DbOpt, UsageError, _run, app, err, error, no_store, out, plural, show_progress
from arbiter.cli.layout import Column, console_width, fitted_table
from arbiter.cli.replay import load_record, record_file, replay_errors
from arbiter.store.db import DEFAULT_DB, Store, StoreError
from cardarena.replay import step_number, verify_record


@app.command()
def analyse(
    match_id: Annotated[Optional[str], typer.Argument(help="A match id from the store, or a path to a match record JSON file.")] = None,
    seat: Annotated[Optional[int], typer.Option("--seat", help="The seat whose decisions to analyse (default: every seat).")] = None,
    db: DbOpt = Path(DEFAULT_DB),
    samples: Annotated[int, typer.Option("--samples", help="States sampled from the seat's view per decision, in batches of 8 until the verdict is clear (a decision near its verdict at the end may take more, up to twice this at Spite and Malice, 16 more at Spades: the header says; more: fewer 'unsure', slower).")] = DEFAULT_SAMPLES,
    seed: Annotated[int, typer.Option("--seed", help="Seeds the sampling: the same seed gives the same analysis.")] = 0,
    max_actions: Annotated[int, typer.Option("--max-actions", help="At most this many actions valued per decision (the chosen one and the heuristic's first).")] = DEFAULT_MAX_ACTIONS,
    first: Annotated[int, typer.Option("--from", help="The seat's first decision to analyse (from 1).")] = 1,
    last: Annotated[Optional[int], typer.Option("--to", help="The seat's last decision to analyse (default: its last).")] = None,
    top: Annotated[int, typer.Option("--top", help="Then list the decisions that cost most, this many (0: none).")] = 5,
    hindsight: Annotated[bool, typer.Option("--hindsight", help="Spades: also each card play's double-dummy count with every card known (hindsight, not what the seat knew; needs endplay: pip install 'card-arena\\[hindsight]'). Approximate: bridge's count, without 'spades not led until broken'.")] = False,
    bot: Annotated[Optional[str], typer.Option("--bot", help="Instead of a match: this bot's costliest decisions across its stored matches already analysed (name as in the seats, or a file or folder bot as it was given, mybot.py or mybot/: its seats are mybot; a registered bot's name alone: every version of it, name@version: that one), each with its inspector page.")] = None,
) -> None:
    """Why did my bot lose? Value each decision of a seat from what it could know, and mark its mistakes.

    Each action is valued on states drawn from the seat's own view (never another seat's hidden cards) by the game's strongest evaluator; a decision is a mistake (it cost more than the game's margin, 95% confidence), fine, or unsure: the header says each in the game's units. The analysis of a stored match is kept in --db (the store is written), and read back by the next run and the web's inspector (/m/MATCH/inspect?seat=S); a slice (--from, --to) not stored yet is computed alone and not kept. A match the disclosure rule withholds (a duplicate tournament's not finished: running, or interrupted, and then how to resume it) is refused. How: docs/analysis.md.

    The step column numbers the match's steps as `arbiter replay` and the inspector do (step 0 is the deal, step K the match's K-th action): the decision listed at step 9 is replay's "step 9 of N".
    """
    if top < 0:
        error(f"--top {top}: a number of decisions, 0 or more")
        raise typer.Exit(2)
    if bot is not None:
        if match_id is not None:
            error("give a match or --bot NAME, not both")
            raise typer.Exit(2)
        analysing = [flag for flag, given in (("--seat", seat is not None), ("--samples", samples != DEFAULT_SAMPLES),
                                              ("--seed", seed != 0), ("--max-actions", max_actions != DEFAULT_MAX_ACTIONS),
                                              ("--from", first != 1), ("--to", last is not None), ("--hindsight", hindsight))
                     if given]
        if analysing:  # they shape an analysis of a match; --bot reads the ones already stored
            error(f"{', '.join(analysing)}: for analysing a match; --bot lists the decisions of the bot's matches "
                  "analysed already, as they were stored: leave them out")
            raise typer.Exit(2)
        if top == 0:
            error("--top 0 with --bot would list nothing: give how many of the costliest decisions to list")
            raise typer.Exit(2)
        _run(bot_costliest, bot, db, top)
        return
    if match_id is None:
        error("give a match id (or a record file), or --bot NAME")
        raise typer.Exit(2)
    record = _run(load_record, match_id, db)
    with replay_errors():  # a record that does not replay (a hand-edited file) is said so before anything reads its game
        verify_record(record)
    from_store = record_file(match_id) is None
    n = len(record.seat_names)
    if seat is not None and not 0 <= seat < n:
        error(f"--seat {seat}: {record.game} match {record.match_id} has seats 0 to {n - 1}")
        raise typer.Exit(2)
    if first < 1 or (last is not None and last < first):
        given = f"--from {first}" + (f" --to {last}" if last is not None else "")  # not "--to None": it was not given
        error(f"{given}: decisions are counted from 1, and --to is not before --from")
        raise typer.Exit(2)
    if not 1 <= samples <= MAX_SAMPLES:  # a typo of a few zeros sampled without end
        error(f"--samples {samples}: from 1 to {MAX_SAMPLES} states sampled per decision")
        raise typer.Exit(2)
    if max_actions < 2:
        error(f"--max-actions {max_actions}: at least 2 actions per decision, to compare")
        raise typer.Exit(2)
    if seed < 0:
        error(f"--seed {seed}: a seed is 0 or more")
        raise typer.Exit(2)
    if hindsight and record.game != "spades":
        error(f"--hindsight counts tricks with every card known: Spades only, not {record.game}")
        raise typer.Exit(2)
    if hindsight:
        try:
            require_solver()
        except HindsightUnavailable as exc:
            error(exc)
            raise typer.Exit(2) from None
    if seat is not None and first > 1:  # refused before the header, which promised an analysis
        with replay_errors():
            count = sum(1 for _ in decisions(record, seat))
        if count and first > count:
            error(f"--from {first}: seat {seat} has {plural(count, 'decision')}")
            raise typer.Exit(2)
    most = most_states(record.game, samples)
    beyond = f" ({samples} unless a verdict needs more)" if most > samples else ""
    out.print(f"[bold]{record.game} match {escape(record.match_id)}[/]: values in {UNITS[record.game]}; "
              f"up to {plural(most, 'sampled state')} per decision{beyond}, seed {seed}; {meaning(record.game)}")
    _say_result(record)
    for s in ([seat] if seat is not None else range(n)):
        with replay_errors():
            whole = first == 1 and last is None  # only a whole seat's analysis is stored
            points = list(decisions(record, s))
            total = sum(1 for p in points if p.number >= first and (last is None or p.number <= last))
        if not points:  # the match ended before the seat was asked anything
            out.print(f"seat {s} ({record.seat_names[s]}) had no decision in this match", markup=False)
            continue
        if not total:  # --from past the seat's last decision: say so, not an empty table
            said = f"--from {first}: seat {s} has {plural(len(points), 'decision')}"
            if seat is not None:
                error(said)
                raise typer.Exit(2)
            out.print(f"{said}, none of them analysed", markup=False)
            continue
        with replay_errors():
            columns = [TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
            with show_progress(*columns) as progress:
                task = progress.add_task(f"seat {s}: decisions valued", total=total)
                settings = dict(samples=samples, seed=seed, max_actions=max_actions)
                every = _run(_stored, db, record.match_id, s, settings, None)[0] if from_store and not whole else None
                if every is not None:
                    pass  # a slice of a stored analysis
                elif from_store and whole:
                    valued: list = []
                    every, saved = _run(_stored, db, record.match_id, s, settings,
                                        lambda r: (valued.append(r), progress.advance(task)))
                    said = "stored in" if valued and saved else ("read back from" if saved else "not stored: cannot write")
                    # an address of the web page: said with the command that serves it, not alone
                    page = (f" (the inspector: arbiter web --db {shlex.quote(str(db))}, then /m/{record.match_id}/inspect?seat={s})"
                            if saved else "")  # none to show there
                    err.print(f"seat {s}: analysis {said} {db}{page}", style="dim", markup=False)
                else:
                    every = analysed_rows(record, s, **settings, first=first, last=last,
                                          progress=lambda _: progress.advance(task))
        rows = [r for r in every if r.number >= first and (last is None or r.number <= last)]
        choices = [r for r in rows if r.values]  # a single legal action is no choice: not shown
        out.print(decision_table(choices, f"seat {s} ({record.seat_names[s]})", from_store), width=console_width())
        if any(r.verdict == "unsure" and r.played_best for r in choices):  # "best play X, 0.0 ± 0.0, unsure" read as a contradiction
            out.print(f"({unsure_at_best(record.game)})", style="dim", markup=False, highlight=False)
        mistakes = [r for r in rows if r.mistake]
        unsure = [r for r in rows if r.verdict == "unsure"]
        fine = [r for r in rows if r.verdict == "fine"]
        lost = sum(r.loss for r in rows if r.chosen is not None)
        out.print(f"seat {s}: {plural(len(rows), 'decision')} ({len(choices)} with a choice), "
                  f"{plural(len(mistakes), 'mistake')}, {len(fine)} fine, {len(unsure)} unsure, {lost:.1f} lost in all against the best valued action")
        costly = sorted((r for r in rows if r.loss > 0), key=lambda r: -r.loss)[:top]
        if costly:
            out.print(decision_table(costly, f"seat {s}: the {plural(len(costly), 'decision')} that cost most", from_store), width=console_width())
        if hindsight:
            with replay_errors():
                counts = [c for c in double_dummy(record, s) if first <= c.number <= (last or c.number)]
            plays = sum(len(c.tricks) > 1 for c in counts)
            if not plays:  # said in words, not as a table of headers over no row
                out.print(f"seat {s}: no card play with a choice to count in hindsight", markup=False)
                continue
            out.print(hindsight_table(counts, f"seat {s} in hindsight: tricks its side wins from each card play, every card known"))
            out.print(f"({APPROXIMATE})", style="dim")
            out.print(f"seat {s}: {plural(sum(c.lost for c in counts), 'trick')} given away in hindsight "
                      f"over {plural(plays, 'card play')} with a choice")


def _say_result(record) -> None:
    """How the match ended, in the words of `arbiter play` and the web's banner: a seat that
    crashed, timed out or moved illegally lost by forfeit, which no decision's value shows
    (its last decision read "nothing was played: the match ended here", 0 mistakes), and
    that is the first answer to "why did my bot lose?"."""
    from arbiter.present.table import verdict

    out.print(f"result: {verdict(record.game, record.outcome, record.seat_names, options=record.options)}",
              highlight=False, markup=False)


def _stored(db: Path, match_id: str, seat: int, settings: dict, advance) -> tuple[list[Analysed] | None, bool]:
    """The seat's analysis from the store, or (``advance`` given) computed and stored there
    (a read-only store: computed, not stored); (None, False) if not stored and not asked to compute."""
    if advance is None:
        with Store(db, read_only=True) as store:
            return stored_analysis(store, match_id, seat, compute=False, **settings)
    try:
        store = Store(db)
    except StoreError:
        store = Store(db, read_only=True)
    with store:
        return stored_analysis(store, match_id, seat, progress=advance, **settings)


def bot_costliest(bot: str, db: Path, top: int) -> None:
    """Print ``bot``'s costliest decisions across its stored, analysed matches."""
    if not db.exists():
        raise no_store(db)
    with Store(db, read_only=True) as store:
        # a registered bot sits as name@version: its name alone means every version of it
        names = [bot] + ([] if "@" in bot else store.versions_played(bot))
        given = bot
        if not any(store.bot_matches(name, 1) for name in names) and (seated := bot_names([bot])[0]) != bot:
            # a file or folder bot as `arbiter evaluate` and `play` were given it (mybot.py, mybot/), which
            # their report names so ("mybot.py lost most in..."), sits in its matches by its stem (mybot)
            bot, names = seated, [seated]
        newest = [m for name in names for m in store.bot_matches(name, 1)]
        if not newest:  # a typo: "analyse one first" sent its author looking
            raise UsageError(f"no match of {given!r} in {db}: a bot is named as it sits in its matches (arbiter replay "
                             "MATCH, the web's match pages), a registered one by its name alone or name@version")
        # every costly decision, then each game's top: a loss is in its game's units (Spades'
        # points, Spot's money, pay-off cards), and one ranking of them all put a bundled bot's
        # Spades bids above its Spite and Malice mistakes by their numbers alone
        found, analysed_matches = costliest_of(store, names, top=sys.maxsize)
        game_of = {m: store.read_match(m)[0].game for m in sorted({c.match_id for c in found})}
    if not analysed_matches:
        # its newest match, as a command to run: `arbiter bots show` (named here before) lists a registered
        # bot's matches only, and a file bot's author found none there
        last = newest[0]
        seat = next(i for i, s in enumerate(last.seats) if s in names)
        out.print(f"no analysed match of {escape(bot)} in {escape(str(db))}: analyse one first, e.g. its newest: "
                  f"`arbiter analyse {last.match_id} --seat {seat} --db {escape(shlex.quote(str(db)))}`",
                  highlight=False, soft_wrap=True)
        return
    if not found:
        out.print(f"no decision of {escape(bot)} lost anything against the best valued action in "
                  f"{plural(analysed_matches, 'analysed match', 'analysed matches')}")
        return
    in_matches = plural(analysed_matches, 'analysed match', 'analysed matches')
    games = sorted(set(game_of.values()))
    for game in games:
        of_game = [c for c in found if game_of[c.match_id] == game][:top]
        title = (f"{bot}: the {plural(len(of_game), 'costliest decision')} in {in_matches}" if len(games) == 1
                 else f"{bot} at {game}: the {plural(len(of_game), 'costliest decision')}")
        cells = [[escape(c.match_id), str(c.seat), str(c.row.number), escape(c.row.played), escape(c.row.best),
                  f"{number(c.row.loss)} ± {number(c.row.loss_se)}", verdict_text(c.row),
                  escape(f"/m/{c.match_id}/inspect?seat={c.seat}&d={c.row.number}")] for c in of_game]
        out.print(fitted_table(COSTLY_COLUMNS, cells, title=escape(f"{title}; losses in {UNITS[game]}"),
                               width=console_width(), hint="each is in its inspector address", min_wrap=8),
                  width=console_width())
    if len(games) > 1:
        out.print(f"({escape(bot)} plays {len(games)} games here: each its own table, from {in_matches} in all)",
                  markup=False)
    out.print(f"(each inspect address is a page of arbiter web --db {shlex.quote(str(db))}; or in the terminal: arbiter "
              f"analyse MATCH --seat S --from N --to N --db {shlex.quote(str(db))})", style="dim", markup=False)


def hindsight_table(counts: list[CardCount], title: str) -> Table:
    """One row per card play with a choice: the played card's double-dummy tricks, the best."""
    table = Table(title=escape(title), title_justify="left")
    for name, justify in (("#", "right"), ("step", "right"), ("played", "left"), ("tricks", "right"),
                          ("best cards", "left"), ("tricks", "right"), ("lost", "right")):
        table.add_column(name, justify=justify)
    for c in counts:
        if len(c.tricks) < 2:
            continue
        best = [card for card, t in c.tricks.items() if t == c.best]
        table.add_row(str(c.number), str(step_number(c.step)), escape(c.played or "-"), str(c.tricks.get(c.played, "")), " ".join(best),
                      str(c.best), f"[bold red]{c.lost}[/]" if c.lost else "0")
    return table


def verdict_text(r: Analysed) -> str:
    """A valued decision's verdict as the inspector names it ("fine" too, not a blank), in
    rich markup; a decision with none (nothing played: its "played" cell says so) shows "-"
    (its note there said it again, in a cell wide enough to push the values off an 80-column
    table)."""
    style = {"mistake": "bold red", "unsure": "yellow", "fine": "green"}.get(r.verdict)
    return f"[{style}]{r.verdict}[/]" if style else "-"


#: The columns of a bot's costliest decisions where the terminal is narrow: the inspector
#: address whole on one line (a cut one, "/m/679d…", opens nothing; one folded over four
#: lines, as a squeezed rich table did at 80 columns, pastes as nothing either), the match,
#: seat and decision number it holds left out first, the actions wrapped at their spaces.
COSTLY_COLUMNS = (Column("match", "left", drop=3), Column("seat", drop=2), Column("#", drop=1),
                  Column("played", "left", wrap=True), Column("best", "left", wrap=True), Column("loss ± s.e."),
                  Column("", "left"), Column("inspect", "left"))


#: The decision tables' columns, least needed dropped first where the terminal is narrow
#: (``fitted_table``): at 80 columns a rich table squeezed to fit wrapped every value over
#: two lines and cut the actions themselves ("play hand:KD -> center:n…", the one thing
#: the table is for); the step, then the values the loss is the difference of, go instead.
DECISION_COLUMNS = (Column("#"), Column("step", drop=3), Column("played", "left", wrap=True), Column("value", drop=2),
                    Column("best", "left", wrap=True), Column("best's value", drop=1), Column("loss ± s.e."),
                    Column("", "left", wrap=True))


def number(x: float) -> str:
    """A value to one decimal, "0.0" rather than "-0.0" (a mean of tiny negative values)."""
    text = f"{x:.1f}"
    return "0.0" if text == "-0.0" else text


def decision_table(rows: list[Analysed], title: str, inspector: bool = False) -> Table:
    """One row per decision: what was played, its value, the best, the loss ± its error.
    ``inspector``: the match has an inspector page, where the columns a narrow terminal
    leaves out are shown (a record file has none)."""
    cells = []
    for r in rows:
        if not r.values:
            cells.append([f"[dim]{c}[/]" if c else "" for c in (str(r.number), str(step_number(r.step)), escape(r.played), "", "", "", "",
                                                                 escape(r.note))])
            continue
        mine, best = r.chosen_value, r.values[0]
        cells.append([
            str(r.number), str(step_number(r.step)), escape(r.played),
            f"{number(mine.mean)} ± {number(mine.se)}" if mine else "",
            escape(best.action), f"{number(best.mean)} ± {number(best.se)}",
            f"{number(r.loss)} ± {number(r.loss_se)}" if mine else "",
            verdict_text(r),
        ])
    return fitted_table(DECISION_COLUMNS, cells, title=escape(title), width=console_width(),
                        hint="widen the terminal, or open the inspector" if inspector else "widen the terminal")
