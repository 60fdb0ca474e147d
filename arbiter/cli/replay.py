"""`arbiter replay`: verify a recorded match, or step through it in the terminal.

    arbiter replay 1-4-9f3a                 # verify: the actions reproduce the result
    arbiter replay 1-4-9f3a --all           # every step, spectator's view (public cards)
    arbiter replay 1-4-9f3a --step --seat 2 # one step per Enter, as seat 2 saw it
    arbiter replay match.json --all --full  # every hand visible
    arbiter replay 1-4-9f3a --json -o match.json   # the record itself, which `arbiter replay match.json` reads

Stepping verifies as it goes: a step that does not replay stops with the reason.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Annotated, Any, Iterator, Optional, Sequence

import typer
from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from arbiter.cli._common import SQLITE_HEADER, DbOpt, UsageError, _outcome_table, _run, app, err, error, out, plural, emit
from cardarena.games import Card
from cardarena.disclosure import notes_visible
from cardarena.records import MAX_CLOCK_MS, MatchRecord, clip, visible
from cardarena.replay import ReplayError
from arbiter.present.boards import BoardRow, board
from cardarena.replay import ReplayStep, step_number, step_record, verify_record
from arbiter.store.db import DEFAULT_DB, Store
from arbiter.analysis.reask import DEFAULT_BANK_MS, DEFAULT_DECISION_MS, DecisionPoint, Reask, decision_at, reask

_SUIT = {"S": ("♠", "bold"), "H": ("♥", "bold red"), "D": ("♦", "bold red"), "C": ("♣", "bold")}


def card_text(card: Card) -> Text:
    """A card as coloured text, e.g. ``Q♥`` in red."""
    token = str(card)
    if token == "JK":
        return Text("JK", style="bold magenta")
    symbol, style = _SUIT[token[-1]]
    return Text(token[:-1] + symbol, style=style)


def board_table(rows: Sequence[BoardRow], title: str = "") -> Table:
    """A board (see ``arbiter.present.boards.board``) as a rich table, one section after another."""
    # the rows name the seats (a record file's, a remote arbiter's): text, never markup
    table = Table(title=Text(title) if title else None, show_header=False, box=None, padding=(0, 1), title_justify="left")
    table.add_column("", style="dim", no_wrap=True)
    table.add_column("")
    table.add_column("", style="italic")
    section = None
    for row in rows:
        if row.section != section:
            section = row.section
            table.add_row(Text(section, style="bold cyan"), "", "")
        cards = Text(" ").join(card_text(c) for c in row.cards)
        if row.face_down:
            if cards:
                cards.append(" ")
            cards.append(f"[{row.face_down} face down]", style="dim")
        table.add_row(Text("  " + row.label), cards, Text(row.note))
    return table


def _step_title(step: ReplayStep, names: Sequence[str]) -> str:
    if step.index == 0:
        return f"step 0 of {step.total}: the deal"
    who = f"seat {step.seat} ({names[step.seat]})" if step.seat is not None and step.seat < len(names) else f"seat {step.seat}"
    forced = f"  [arbiter's choice: {step.forced}]" if step.forced else ""
    return f"step {step.index} of {step.total}: {who} {step.action}{forced}"


def render_step(step: ReplayStep, record: MatchRecord, viewer: int | None = None, full: bool = False) -> Group:
    """One step: what happened, the bot's note if the viewpoint may read it (the seat's
    own, or every hand), the events the viewpoint may see, and the board."""
    parts: list[Any] = [Text(visible(_step_title(step, record.seat_names)), style="bold")]
    ra = record.actions[step.index - 1] if 0 < step.index <= len(record.actions) else None
    if ra is not None and ra.note and notes_visible(ra.seat, viewer, full):
        parts.append(Text(visible(f"  note: {ra.note}"), style="italic cyan"))
    for e in step.events:
        line = Text("  · " + e.text, style="green")
        parts.append(line)
    parts.append(board_table(board(record.game, step.view, record.seat_names, step.seat_views)))
    if step.outcome is not None:
        parts.append(_outcome_table(record.seat_names, step.outcome, f"result ({step.outcome.reason.value}): {step.outcome.detail}"))
    return Group(*parts)


def record_file(match_id: str) -> Path | None:
    """The record file ``match_id`` names, or None for a match id of the store (a text too
    long to name a file is one: asking the file system raised "File name too long", printed
    with the whole text, where the store says it has no such match)."""
    path = Path(match_id)
    try:
        return path if path.is_file() else None
    except OSError:
        return None


def looks_like_file(text: str) -> bool:
    """Whether a MATCH_ID argument names a file rather than a match of the store: a path
    (a folder in it) or a ``.json`` name. No match id the arbiter makes looks so."""
    return "/" in text or text.lower().endswith(".json")


def _stored(match_id: str, db: Path) -> bool:
    """Whether the store ``db`` (if there is one) holds a match of that id."""
    if not db.exists():
        return False
    from arbiter.store.db import READ_ERRORS

    try:
        with Store(db, read_only=True) as store:
            store.match(match_id)
    except READ_ERRORS:
        return False
    return True


def load_record(match_id: str, db: Path) -> MatchRecord:
    """The record of ``match_id`` from the store, or from a JSON file at that path."""
    path = Path(match_id)
    if record_file(match_id) is not None:
        data = path.read_bytes()
        if data.startswith(SQLITE_HEADER):
            raise UsageError(f"{path} is a store (SQLite), not a match record: give it with --db and a match id "
                             f"(arbiter replay MATCH_ID --db {path}; `arbiter standings --db {path}` lists its tournaments)")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise UsageError(f"{path} is not a match record (not JSON text: a record is what `arbiter replay ID --json` "
                             "writes); a store goes with --db") from None
        try:
            return MatchRecord.from_json(text)
        except ValueError as exc:
            raise UsageError(f"{path} is not a match record ({clip(str(exc), 120)}); a store goes with --db") from None
    if not match_id.strip():  # Path("") is ".", the current folder: ": a folder" named nothing
        raise UsageError("an empty match id: give a match id from the store or a match record file")
    try:
        folder = path.is_dir()
    except OSError:  # too long a name for a folder's: a match id
        folder = False
    if folder:
        raise UsageError(f"{match_id}: a folder, not a match id or a match record file")
    if looks_like_file(match_id) and not _stored(match_id, db):
        # "/tmp/x.json", gone or mistyped: said "no match '/tmp/x.json' in arena.sqlite", as if a file were an id
        raise UsageError(f"{match_id}: no such file (a match record file, as `arbiter replay ID --json -o FILE` writes "
                         "one; a match of the store is named by its id, with --db)")
    if not db.exists():
        raise UsageError(f"no store at {db} and no file {match_id!r} (pass --db or a record file)")
    with Store(db, read_only=True) as store:  # reading never writes
        record, shown = store.read_match(match_id)  # a tournament's, an arena's, a played one: one reader
    shown.require_match(match_id)
    return record


@app.command()
def replay(
    match_id: Annotated[str, typer.Argument(help="A match id from the store, or a path to a match record JSON file.")],
    db: DbOpt = Path(DEFAULT_DB),
    seat: Annotated[Optional[int], typer.Option("--seat", help="Step through the match as this seat saw it.")] = None,
    full: Annotated[bool, typer.Option("--full", help="Step through it with every seat's hand visible.")] = False,
    step: Annotated[bool, typer.Option("--step", help="Show one step at a time: Enter for the next, a number to jump, q to quit (all at once when stdin is not a terminal).")] = False,
    all_steps: Annotated[bool, typer.Option("--all", help="Show every step, one after another.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the match record as JSON instead (what `arbiter replay FILE` reads back); nothing is verified.")] = False,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="With --json: write the record to this file instead of stdout (-: stdout).")] = None,
    at: Annotated[Optional[int], typer.Option("--at", help="With --seat: rebuild that seat's K-th decision (from 1): its view, legal actions and the events it was shown since its previous one.")] = None,
    bot: Annotated[Optional[str], typer.Option("--bot", help="With --at: ask this bot (bundled name, file, module:Class; run in this process) that decision, after replaying its earlier ones, and show its choice beside what was played.")] = None,
    decision_ms: Annotated[int, typer.Option("--decision-ms", help="With --bot: the per-decision limit the bot is told (the record does not keep the clock); each of its decisions is waited for this plus --bank-ms (0: without limit), then reported as timed out.")] = DEFAULT_DECISION_MS,
    bank_ms: Annotated[int, typer.Option("--bank-ms", help="With --bot: the time bank the bot is told.")] = DEFAULT_BANK_MS,
) -> None:
    """Verify a recorded match, step through it, export its record, or re-ask a seat's decision.

    Verify: replay its actions from its seed and compare the result; export: --json; re-ask: --seat N --at K [--bot mybot.py].

    Steps are numbered from the deal, step 0; step K is the match's K-th action, as `arbiter analyse`, the web replay and the inspector number them. --at K is not a step but the seat's own K-th decision, from 1 (as analyse's # column, the inspector and `arbiter play`'s hint after a forfeit count them): its output says the step it was played at."""
    if bot is not None and at is None:
        error("--bot re-asks one decision: give it with --seat N --at K")
        raise typer.Exit(2)
    for flag, value in (("--decision-ms", decision_ms), ("--bank-ms", bank_ms)):
        if not 0 <= value <= MAX_CLOCK_MS:  # the clock --bot is told: as a match's would be checked
            error(f"{flag} must be a whole number from 0 to {MAX_CLOCK_MS}, got {value}")
            raise typer.Exit(2)
    if at is not None:
        if seat is None:
            error("--at K is a decision of one seat: give --seat N too")
            raise typer.Exit(2)
        if full or step or all_steps or as_json:
            error("--at shows one decision: --full, --step, --all and --json step through or export the match; pick one")
            raise typer.Exit(2)
        record = _run(load_record, match_id, db)
        _decision(record, seat, at, bot, decision_ms, bank_ms)
        return
    if output is not None and not as_json:
        error("--output goes with --json (the record as JSON)")
        raise typer.Exit(2)
    if as_json and (seat is not None or full or step or all_steps):
        error("--json exports the record; --seat, --full, --step and --all step through it: pick one")
        raise typer.Exit(2)
    if seat is not None and full:
        error("--seat and --full are two different viewpoints; pick one")
        raise typer.Exit(2)
    record = _run(load_record, match_id, db)  # the disclosure rule as for a replay: a withheld match is not exported
    if as_json:
        emit(record.to_json() + "\n", output, f": arbiter replay {output} verifies it")
        return
    if seat is not None and not 0 <= seat < len(record.seat_names):
        error(f"--seat {seat}: {record.game} match {record.match_id} has seats 0 to {len(record.seat_names) - 1}")
        raise typer.Exit(2)
    if not (step or all_steps or seat is not None or full):
        try:
            outcome = verify_record(record)
        except ReplayError as exc:
            err.print(f"[bold red]replay failed:[/] {escape(str(exc))}", soft_wrap=True, highlight=False)
            raise typer.Exit(1) from None
        out.print(_outcome_table(record.seat_names, outcome, f"{record.game} match {record.match_id}: replay verified"))
        out.print(f"{plural(len(record.actions), 'action')} from seed {record.seed} reproduce"
                  f"{'s' if len(record.actions) == 1 else ''} the recorded result ({outcome.reason.value})")
        return
    interactive = step and sys.stdin.isatty()
    viewpoint = "every hand" if full else (f"seat {seat}" if seat is not None else "spectator (public cards)")
    out.print(f"[bold]{escape(record.game)} match {escape(record.match_id)}[/], seed {record.seed}, seen as: {viewpoint}")
    try:
        with replay_errors():
            steps = step_record(record, seat, full)
            if interactive:
                _interactive(list_until_error(steps, record, seat, full), record, seat, full)
            else:
                for s in steps:
                    out.print(render_step(s, record, seat, full))
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    out.print(f"[green]replay verified:[/] {plural(len(record.actions), 'action')} reproduce"
              f"{'s' if len(record.actions) == 1 else ''} the recorded result")


@contextlib.contextmanager
def replay_errors() -> Iterator[None]:
    """Stepping a record: a seat or decision it does not have is a usage error (exit 2), a
    step that does not replay says why (exit 1)."""
    try:
        yield
    except ValueError as exc:
        error(exc)
        raise typer.Exit(2) from None
    except ReplayError as exc:
        err.print(f"[bold red]replay failed:[/] {escape(str(exc))}", soft_wrap=True, highlight=False)
        raise typer.Exit(1) from None


def list_until_error(steps, record: MatchRecord, viewer: int | None = None, full: bool = False) -> list[ReplayStep]:
    """All steps; on a ReplayError, print the ones that verified first, then re-raise. They
    are shown from the viewpoint asked for, as --all shows them: printed as a spectator's,
    a seat's own notes (--seat N, --full) were left out."""
    done: list[ReplayStep] = []
    try:
        for s in steps:
            done.append(s)
    except ReplayError:
        for s in done:
            out.print(render_step(s, record, viewer, full))
        raise
    return done


def _interactive(steps: list[ReplayStep], record: MatchRecord, viewer: int | None = None, full: bool = False) -> None:
    i = 0
    while True:
        out.clear()
        out.print(render_step(steps[i], record, viewer, full))
        try:
            answer = input(f"[{i}/{len(steps) - 1}] Enter: next, b: back, NUMBER: jump, q: quit > ").strip().lower()
        except EOFError:
            return
        if answer == "q":
            return
        if answer == "b":
            i = max(0, i - 1)
        elif answer.isdigit():
            i = min(len(steps) - 1, int(answer))
        elif i == len(steps) - 1:
            return
        else:
            i += 1


def _decision(record: MatchRecord, seat: int, at: int, bot: str | None, decision_ms: int, bank_ms: int) -> None:
    """``--seat N --at K [--bot B]``: the decision as the seat had it, and B's answer to it."""
    if not 0 <= seat < len(record.seat_names):
        error(f"--seat {seat}: {record.game} match {record.match_id} has seats 0 to {len(record.seat_names) - 1}")
        raise typer.Exit(2)
    with replay_errors():
        if bot is None:
            point, _ = decision_at(record, seat, at)
            answer = None
        else:
            answer = _run(reask, record, seat, at, bot, decision_ms=decision_ms, bank_ms=bank_ms)
            point = answer.point
    out.print(render_decision(point, record))
    if answer is not None:
        out.print(render_answer(answer))


def _played_text(point: DecisionPoint, record: MatchRecord) -> str:
    if point.played is None:
        why = "; ".join(i.detail for i in record.incidents if i.seat == point.seat) or (record.outcome.detail if record.outcome else "")
        return "nothing: the match ended here" + (f" ({why})" if why else "")
    return point.played + (f"  [arbiter's choice: {point.forced}]" if point.forced else "")


def render_decision(point: DecisionPoint, record: MatchRecord) -> Group:
    """One decision as its seat had it: the events since its previous one, its board, its legal actions."""
    name = record.seat_names[point.seat] if point.seat < len(record.seat_names) else "?"
    total = len(record.actions)
    # the step its action was played at, numbered as the stepping above and `arbiter analyse` number it
    at = f"step {step_number(point.step)} of {total}" if point.step < total else f"after step {total} of {total}, the last"
    parts: list[Any] = [Text(visible(f"{record.game} match {record.match_id}: seat {point.seat} ({name}), decision {point.number} "
                                     f"({at})"), style="bold")]
    parts.append(Text(f"events shown since its previous decision: {len(point.events)}", style="dim"))
    for e in point.events:
        parts.append(Text("  · " + e.text, style="green"))
    parts.append(board_table(board(record.game, point.view, record.seat_names)))
    parts.append(Text(f"legal actions ({len(point.legal)}): " + ", ".join(map(str, point.legal))))
    parts.append(Text("played: " + _played_text(point, record), style="bold"))
    ra = record.actions[point.step] if point.step < len(record.actions) else None
    if ra is not None and ra.note and notes_visible(ra.seat, point.seat, False):
        parts.append(Text(visible(f"its note: {ra.note}"), style="italic cyan"))
    return Group(*parts)


def render_answer(answer: Reask) -> Group:
    """What the bot chose, now, beside what was played; its traceback or stack in full."""
    parts: list[Any] = []
    if answer.note:
        parts.append(Text(visible("note: " + answer.note), style="yellow"))
    d = answer.decision
    if answer.timed_out:
        parts.append(Text(f"{answer.bot}: no answer in time (timed out)", style="bold red"))
        if answer.stack:
            parts.append(Text(visible("where it was:\n" + answer.stack.rstrip())))
    elif d is None or not answer.chosen:
        why = (d.failure or d.malformed) if d is not None else "no answer"
        parts.append(Text(visible(f"{answer.bot} chooses: nothing: {why}"), style="bold red"))
    else:
        why = f" ({answer.why.removeprefix(f'{answer.chosen}: ')})" if answer.why else ""
        verdict = "the same as played" if answer.same else ("differs from what was played" if answer.legal
                                                            else f"NOT a legal action here{why}: the arbiter would refuse it")
        parts.append(Text(visible(f"{answer.bot} chooses: {answer.chosen}  ({verdict}; {answer.ms:.0f} ms)"),
                          style="bold green" if answer.legal else "bold red"))
        if d is not None and d.notation and d.notation != answer.chosen:  # text, and how it was read
            parts.append(Text(visible(f"  it answered the text {d.notation!r}"), style="dim"))
    if answer.stderr:
        parts.append(Text("its stderr at this decision:", style="bold"))
        parts.append(Text(visible(answer.stderr.rstrip())))
    return Group(*parts)
