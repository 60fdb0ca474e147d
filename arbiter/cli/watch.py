"""`arbiter watch`: follow a match live on a running arbiter (the Spectate service).

    arbiter watch --list                      # matches running (and recently finished)
    arbiter watch                             # the newest running match, or the next one
    arbiter watch 9f3a1c2b --server host:50051
    arbiter watch 9f3a1c2b --hidden-cards     # every hand, each deal once over (needs --spectator-delay)
    arbiter watch --server 127.0.0.1:41234 --token T   # a tournament run prints its address and token
    arbiter watch --db arena.sqlite           # the tournament or ladder running from that store on this machine
    arbiter watch --server host:50051 --tls-ca ca.pem   # an arbiter that serves TLS (arbiter serve --tls-cert)

With no match running it says so and waits for the next one (Ctrl-C stops it).
Live, only public cards are shown; the full deal appears when the match is over. A match
stopped before its end (its caller hung up, the arbiter stopped) has no result: watch says so, exit 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any, Optional

import typer
from rich.console import Group
from rich.live import Live
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from arbiter.cli._common import UsageError, _outcome_table, _run, app, check_address, db_or_server, error, fail, out, plural, read_ca, TLS_CA_ENV
from arbiter.cli.replay import board_table
from arbiter.present.boards import board
from arbiter.spectating import runs
from cardarena.records import visible

ServerOpt = Annotated[Optional[str], typer.Option("--server", show_default=False, envvar="ARENA_SERVER",
                                                  help="Address of the running arbiter (host:port). Default: 127.0.0.1:50051, "
                                                  "or with --db the tournament or ladder running from that store.")]
DEFAULT_SERVER = "127.0.0.1:50051"


def running_from(db: Path, match_id: str | None = None) -> tuple[str, str, str]:
    """(address, spectator token, tournament) of the tournament running from ``db``; UsageError if none,
    saying how to step through ``match_id`` if the store holds it (played: only a replay shows it)."""
    try:
        return runs.running_from(db)
    except runs.NotRunning as exc:
        if match_id and db.is_file():
            from arbiter.store.db import READ_ERRORS, Store, StoreError

            try:
                with Store(db, read_only=True) as store:
                    shown = store.disclosure_of(store.match(match_id)).matches  # (withheld: the error alone)
            except (StoreError, *READ_ERRORS):
                shown = False
            if shown:
                raise UsageError(f"{exc}; match {match_id} is stored there, played: arbiter replay {match_id} --db {db} "
                                 "--all shows it step by step (or --step, one step per Enter)") from None
        from arbiter.store.db import run_holder

        # No watch file, yet a run holds the store: one playing its bots in its own process
        # announces no arbiter (there is none to connect to), and "nothing runs" would be false.
        if not runs.watch_file(db).exists() and (holder := run_holder(db)) is not None:
            by = f" (process {holder.pid})" if holder.pid else ""
            raise UsageError(
                f"a run is writing {db}{by} with no arbiter to watch: its bots play in its own process "
                "(--transport inproc, or auto with bundled bots only), or it is still starting; "
                "run it with --transport local or grpc to watch it") from None
        raise UsageError(str(exc)) from None


def _seat_views(hands: Any) -> tuple:
    """A delayed frame's hands as the seat views a board reads (``hand``, shown)."""
    return tuple(SimpleNamespace(hand=h, hand_visible=True) for h in hands) if hands else ()


@app.command()
def watch(
    ctx: typer.Context,
    match_id: Annotated[Optional[str], typer.Argument(help="The match to watch (default: the newest running one, or the next to start).")] = None,
    server: ServerOpt = None,
    hidden_cards: Annotated[bool, typer.Option("--hidden-cards", help="Show every hand, each deal once it is over and at least the delay late (only an arbiter serve started with --spectator-delay: a tournament run or an arena, --db, shows none).")] = False,
    list_only: Annotated[bool, typer.Option("--list", help="List the watchable matches and exit.")] = False,
    token: Annotated[str, typer.Option("--token", help="The arbiter's spectator token, if it requires one (a tournament run's is in the watch file beside its store, STORE.watch, which --db reads); given in ARENA_SPECTATOR_TOKEN it stays out of ps.", envvar="ARENA_SPECTATOR_TOKEN")] = "",
    db: Annotated[Optional[Path], typer.Option("--db", show_default=False, help="Watch the tournament (or the ladder: arbiter arena) running from this store on this machine (its arbiter and token are found beside it).")] = None,
    tls_ca: Annotated[Optional[Path], typer.Option("--tls-ca", envvar=TLS_CA_ENV, help="PEM CA certificate: reach an arbiter that serves TLS (arbiter serve --tls-cert).")] = None,
) -> None:
    """Watch a match live: the public table as it changes, then the result and the full deal.

    With no MATCH_ID and no match running, it says it waits for the next match to start, and waits (the arbiter gives up after a minute without one); Ctrl-C stops it.
    A match already played is stepped through with arbiter replay MATCH_ID --all (or --step)."""
    from cardarena.frames import HeaderFrame, OverFrame, StepFrame
    from arbiter.server.client import SpectateError, list_matches, watch as follow

    ca = _run(read_ca, tls_ca) if tls_ca is not None else None
    # both given: --db would be ignored, its run's token not read, its arbiter not asked
    _run(db_or_server, ctx, "finds the arbiter of the run writing that store", "names one")
    if db is not None:
        server = None  # ARENA_SERVER, set once for remote use, gives way to --db
    if db is not None and hidden_cards:  # refused by its arbiter once reached, after "every hand is shown ..."
        _run(fail, "--hidden-cards: a tournament run or an arena shows no hand while its matches are played (only "
                   "arbiter serve --spectator-delay does); watch without it: each match's full deal is shown as it ends")
    if db is not None:
        server, found, tournament = _run(running_from, db, match_id)
        token = token or found
        out.print(f"{runs.run_kind(db)} {tournament}, running from {db}: its arbiter at {server}", highlight=False, markup=False)
    server = _run(check_address, server or DEFAULT_SERVER, "--server")
    if list_only:
        try:
            matches = list_matches(server, token=token, tls_ca=ca)
        except SpectateError as exc:
            error(exc)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
        table = Table(title=Text(f"matches on {server}"))
        for col in ("match", "game", "seats", "steps", "state"):
            table.add_column(col)
        for m in matches:
            table.add_row(Text(m.match_id), Text(m.game), Text(", ".join(m.seat_names)), str(m.steps), "running" if m.running else "finished")
        out.print(table if matches else "no matches running or recently finished")
        return

    if not match_id:  # the arbiter waits for the next match to start: said, not a silent wait
        try:
            running = [m for m in list_matches(server, include_finished=False, token=token, tls_ca=ca) if m.running]
        except SpectateError as exc:
            error(exc)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
        if not running:
            out.print(f"no match is running on {server}: waiting for the next one to start (Ctrl-C to stop)",
                      highlight=False, markup=False)
    if hidden_cards:  # the hub holds each frame until its deal is over: say why nothing shows yet
        out.print("every hand is shown deal by deal, each deal once it is over (and at least the arbiter's "
                  "spectator delay late): nothing shows while the first deal is played", highlight=False, markup=False)
    live_display = sys.stdout.isatty()
    header: HeaderFrame | None = None
    lines: list[Text] = []
    steps = 0
    try:
        with Live(console=out, auto_refresh=False, transient=False) if live_display else _Nothing() as live:
            for frame in follow(server, match_id or "", hidden_cards, token, ca):
                if isinstance(frame, HeaderFrame):
                    header = frame
                    delay = (f", every hand shown, each deal once it is over and at least {frame.delay_ms / 1000:g} s late"
                             if hidden_cards else ", live, public cards only")
                    out.print(f"[bold]{escape(frame.game)} match {escape(frame.match_id)}[/]: {escape(', '.join(frame.seat_names))}{delay}")  # what the server says: text
                    view, hands, title = frame.view, frame.hands, "the deal"
                elif isinstance(frame, StepFrame):
                    assert header is not None
                    steps += 1
                    who = header.seat_names[frame.seat] if frame.seat < len(header.seat_names) else "?"
                    title = f"step {frame.index}: seat {frame.seat} ({who}) {frame.action}"
                    lines.append(Text(visible(title), style="bold"))  # (a Text drops CR and BEL unseen)
                    lines.extend(Text("  · " + e.text, style="green") for e in frame.events)
                    view, hands = frame.view, frame.hands
                    if not live_display:
                        for line in lines:
                            out.print(line)
                        lines.clear()
                        continue
                else:
                    assert isinstance(frame, OverFrame) and header is not None
                    if live is not None:
                        live.stop()
                    if frame.final_view is not None:
                        out.print(board_table(board(header.game, frame.final_view, header.seat_names), "the full deal"))
                    out.print(_outcome_table(header.seat_names, frame.outcome,
                                             f"result ({frame.outcome.reason.value}): {frame.outcome.detail}"))
                    if frame.actions:
                        out.print(f"seed {frame.seed}, {plural(len(frame.actions), 'action')}: `arbiter replay "
                                  f"{header.match_id}` can verify it from the store", highlight=False, markup=False)
                    else:  # a running duplicate tournament's or an arena encounter's (cardarena.disclosure)
                        out.print(f"{plural(steps, 'step')} watched; the seed and the actions are withheld until the "
                                  f"tournament or arena encounter it is part of is over (its deals may come back in its "
                                  f"other matches): `arbiter replay {header.match_id}` verifies it from the store then",
                                  highlight=False, markup=False)
                    break
                if live is not None:
                    lines[:] = lines[-12:]
                    live.update(Group(*lines, board_table(board(header.game, view, header.seat_names, _seat_views(hands)), title)),
                                refresh=True)
            else:  # the stream ended without the match's end: it was stopped (spectate.py ends it so)
                if live is not None:
                    live.stop()
                which = f"match {header.match_id}" if header is not None else "the match"
                error(f"{which} stopped before its end (its caller hung up, its admin token was revoked or the arbiter "
                      f"stopped) after {plural(steps, 'step')}: it has no result")
                raise typer.Exit(2)
    except SpectateError as exc:
        error(exc)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


class _Nothing:
    """Stands in for rich's Live when stdout is not a terminal."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None
