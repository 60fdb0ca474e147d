"""`arbiter play`: one match between bots."""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path
from shlex import quote
from typing import Annotated, Any, Callable, Iterator, Optional

import typer
from rich.markup import escape
from rich.progress import TextColumn, TimeElapsedColumn

from cardarena.games import GAMES
from arbiter.hosting.botproc import DEFAULT_TRANSPORT
from arbiter.store.db import DEFAULT_DB
from arbiter.tournament.play import check_store, play_local, play_remote, store_play
from arbiter.cli._common import (environment, ENV_BOT_ENVS,
    BankOpt, DbOpt, DecisionOpt, OptionOpt, PolicyOpt, PresetOpt, TransportOpt, _outcome_table, _parse_options, _run, app,
    check_address, out, plural, server_ca, show_progress, TlsCaOpt, stderr_block, token_needs_server, UsageError,
)


@app.command(epilog=environment(ENV_BOT_ENVS))
def play(
    game: Annotated[str, typer.Argument(help=f"Game: {', '.join(GAMES)}.")],
    bots: Annotated[list[str], typer.Argument(help="One bot per seat: bundled name (random, greedy, heuristic, search, dds), FILE.py, a folder, or name@version from the registry. Games with a number of players take it from the number of bots.")],
    seed: Annotated[Optional[int], typer.Option("--seed", help="Deal seed (default: a fresh random one, printed). A bot that could guess it could recompute every hand: keep it unguessable in real play.")] = None,
    option: OptionOpt = None,
    preset: PresetOpt = None,
    server: Annotated[Optional[str], typer.Option(help="Play on a running arbiter HOST:PORT whose connected bots have these names (the match is kept in --db too).")] = None,
    admin_token: Annotated[Optional[str], typer.Option(envvar="ARENA_ADMIN_TOKEN", help="Admin token of --server (arbiter credentials token admin).")] = None,
    tls_ca: TlsCaOpt = None,
    transport: TransportOpt = DEFAULT_TRANSPORT,
    decision_ms: DecisionOpt = 10_000,
    bank_ms: BankOpt = 60_000,
    policy: PolicyOpt = "forfeit",
    max_strikes: Annotated[int, typer.Option("--max-strikes", help="With --policy default: failures a seat may have before its side forfeits.")] = 3,
    db: DbOpt = Path(DEFAULT_DB),
) -> None:
    """Play one match between bots, print the result and keep the match in the store.

    Then `arbiter replay MATCH_ID` and the web page show it."""
    options = _run(_parse_options, option)
    if seed is None:
        import secrets

        seed = secrets.randbits(62)
    if server is not None:  # (an empty one too: it is not "no server", and it would play here)
        server = _run(check_address, server, "--server")
    _run(_check_bot_count, game, bots, options, preset)
    _run(check_store, db)  # a store that cannot keep the match: said now, not after it is played
    _run(token_needs_server, server, admin_token, "--admin-token", "ARENA_ADMIN_TOKEN", "to play here")
    ca = _run(server_ca, server, tls_ca)
    turns = _TurnWatch(bots, decision_ms, bank_ms, policy)
    if server:
        with _progress(game, turns, f"waiting for {server} to start the match") as report:
            record = _run(play_remote, server, game, bots, admin_token=admin_token or "", seed=seed, options=options,
                          preset=preset, decision_ms=decision_ms, bank_ms=bank_ms, policy=policy,
                          max_strikes=max_strikes, tls_ca=ca, progress=report)
        _print_record(record, f"{game} (seed {seed}) on {server}: {record.outcome.reason.value}")
        _keep(db, record, preset, plural(len(record.actions), 'decision'))
        return
    with _progress(game, turns, "starting the bots") as report:
        record = _run(play_local, game, bots, seed, options, preset, transport, decision_ms, bank_ms, policy,
                      max_strikes, db, report)
    _print_record(record, f"{game} (seed {seed}): {record.outcome.reason.value}")
    _keep(db, record, preset, f"{plural(len(record.actions), 'decision')} in {record.seconds:.2f} s")
    _reask_hint(record, bots, db, decision_ms, bank_ms)


def _reask_hint(record: Any, bots: list[str], db: Path, decision_ms: int, bank_ms: int) -> None:
    """The command that re-asks a bot of the author's (a file or folder) the decision its
    side forfeited at, here and now: why it failed, in the engine's words for an illegal
    action, which the record keeps to itself ("play 9S is not a legal action now"), and what
    a fixed version answers there. Nothing for a bundled bot or a match that ended well."""
    if not record.outcome.reason.is_forfeit or not record.incidents:
        return
    seat = record.incidents[-1].seat
    spec = bots[seat] if 0 <= seat < len(bots) else ""
    if not spec or not Path(spec).exists():
        return
    at = sum(1 for a in record.actions if a.seat == seat) + 1  # the decision it failed: not recorded
    clock = f" --decision-ms {decision_ms} --bank-ms {bank_ms}" if record.incidents[-1].kind == "timeout" else ""
    out.print(f"why, and what it answers there now: arbiter replay {record.match_id} --db {quote(str(db))} "
              f"--seat {seat} --at {at} --bot {quote(spec)}{clock}", highlight=False, markup=False, soft_wrap=True)


@contextlib.contextmanager
def _progress(game: str, turns: "_TurnWatch", first: str) -> Iterator[Callable[[int, Any], None]]:
    """While a match plays, here or on a --server: a progress line on stderr (where it is,
    the decisions, the time) and whose turn it waits on (``_TurnWatch``); yields the
    ``report(decisions, spectator_view)`` that ``play_local`` and ``play_remote`` call."""
    with show_progress(TextColumn("{task.description}", markup=False), TimeElapsedColumn(),
                       TextColumn("{task.fields[waiting]}", markup=False)) as bar:
        task = bar.add_task(f"{game}: {first}", total=None, waiting="")

        def report(decisions: int, view: Any) -> None:
            where = next((f"{label} {getattr(view, f)}" for f, label in _WHERE if getattr(view, f, None) is not None), "")
            bar.update(task, description=f"{game}: {where + ', ' if where else ''}{plural(decisions, 'decision')}")
            turns.turn(next((getattr(view, f) for f in ("to_act", "current_seat") if getattr(view, f, None) is not None),
                            None))

        def show(text: str, late: str) -> None:
            bar.update(task, waiting=text)
            if late:  # a line of its own (kept on a terminal, and the only sign of it in a log)
                bar.console.print(late, markup=False, highlight=False, soft_wrap=True)

        with turns.watching(show):
            yield report


def _check_bot_count(game: str, bots: list[str], options: dict[str, Any], preset: str | None) -> None:
    """A game whose number of players comes from the number of bots, given too few or too
    many: say how many it takes, in bots (not as the ``players`` option nobody typed)."""
    import dataclasses

    from cardarena.games import ConfigError, GameError, game_class, get_game

    if game not in GAMES or "players" in options or "players" not in {
            f.name for f in dataclasses.fields(game_class(game).Options)}:
        return

    def refusal(n: int, given: dict[str, Any] = options) -> str | None:
        """Why the game refuses ``n`` players with ``given``; None if it takes them."""
        try:
            get_game(game, {**given, "players": n}, preset)
            return None
        except (ConfigError, GameError, ValueError) as exc:
            return str(exc)

    def fits(n: int, given: dict[str, Any] = options) -> bool:
        return refusal(n, given) is None

    if fits(len(bots)):
        return
    counts = [n for n in range(1, 13) if fits(n)]
    if not counts:
        return  # the options themselves are wrong: the game's own error says how
    if counts == list(range(counts[0], counts[-1] + 1)):  # a range: 2 to 6
        many = f"{counts[0]} to {counts[-1]}" if len(counts) > 1 else str(counts[0])
    else:  # partnerships: 4 or 6, never "4 to 6" with the 5 it refuses
        many = ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}"
    # the options that refuse this count, named, with the game's reason: "spot is played by
    # 4 to 6 bots" for -o first_dealer=3 with 3 bots read as if Spot took no 3 players
    blamed = [k for k in options if fits(len(bots), {o: v for o, v in options.items() if o != k})]
    with_ = (" with " + " ".join(f"-o {k}={options[k]}" for k in blamed)) if blamed else ""
    why = f"; with {plural(len(bots), 'bot')}, {refusal(len(bots))}" if blamed else ""
    example = " ".join([bots[0] if bots else "random"] * counts[0])
    raise UsageError(f"{game} is played by {many} bots{with_}, one per seat: {plural(len(bots), 'bot')} given "
                     f"(e.g. arbiter play {game} {example}){why}")


def _keep(db: Path, record: Any, preset: str | None, played: str) -> None:
    where = _run(store_play, db, record, preset)
    # --db always, as tournament show's "replay it": pasted from another folder, or with another
    # store beside it, the command would look in the wrong store
    out.print(f"{played}; match {record.match_id} (kept in {db} as {where}: arbiter replay {record.match_id} "
              f"--db {quote(str(db))})",
              highlight=False, markup=False, soft_wrap=True)  # one line: a path is never cut in two


def _print_record(record: Any, title: str) -> None:
    from arbiter.present.table import verdict

    out.print(_outcome_table(record.seat_names, record.outcome, title))
    # who won, by how much and why, in the words of the web page's banner (issue 44); a
    # forfeit's detail is the runner's own sentence (the failure, as the bot wrote it)
    o = record.outcome
    said = o.detail if o.reason.is_forfeit else verdict(record.game, o, record.seat_names, options=record.options)
    if said:
        out.print(said, highlight=False, markup=False, soft_wrap=True)
    if getattr(record, "venue", ""):  # a file's bot in the arbiter's process, as asked: said here and in the record
        out.print(f"[yellow]played {escape(record.venue)}[/]: without the sandbox's limits", highlight=False, soft_wrap=True)
    for inc in record.incidents:  # a bot's own words: not markup; one line each
        out.print(f"[yellow]incident:[/] seat {inc.seat}: {escape(inc.kind)}: {escape(inc.detail)}", highlight=False,
                  soft_wrap=True)
        if inc.stderr:
            out.print(f"  the bot's stderr ends:\n{stderr_block(inc.stderr)}", highlight=False, markup=False)


class _TurnWatch:
    """Whose turn a match waits on, for how long, against its clock: what `arbiter play`
    shows while a bot thinks, so that a hung bot is not a silent minute and a half. Only
    a display: the runner keeps the match's clock; the bank left is the CLI's estimate
    (each turn's time past the decision limit, as this process saw it)."""

    #: a wait this long with no decision limit (``--decision-ms 0``) is worth a line too
    NO_LIMIT_NOTE = 10.0

    def __init__(self, names: list[str], decision_ms: int, bank_ms: int, policy: str = "forfeit"):
        self.names, self.decision, self.bank = names, decision_ms / 1000, bank_ms / 1000
        self.then = ("the arbiter plays its first legal action for it (a strike)" if policy == "default"
                     else "its side forfeits the match")
        self.used = [0.0] * len(names)
        self.seat: int | None = None
        self.since = 0.0
        self.said = False
        self.lock = threading.Lock()

    def turn(self, seat: int | None) -> None:
        """The next decision is ``seat``'s (None: the match is over)."""
        now = time.monotonic()
        with self.lock:
            if self.seat is not None and self.decision and 0 <= self.seat < len(self.used):
                self.used[self.seat] += max(0.0, now - self.since - self.decision)
            self.seat, self.since, self.said = seat, now, False

    def _clock(self, seat: int) -> str:
        if not self.decision and not self.bank:
            return "no clock: it may take as long as it likes"
        limit = f"{_s(self.decision)} a decision" if self.decision else "no limit a decision"
        return f"{limit}, then its bank: about {_s(self.bank - self.used[seat])} of {_s(self.bank)} left"

    def status(self) -> tuple[str, str]:
        """(what the progress line shows, a line to print once a turn: past the decision limit)."""
        with self.lock:
            seat, waited = self.seat, time.monotonic() - self.since
            if seat is None or not 0 <= seat < len(self.names) or waited < 1.0:
                return "", ""
            who = f"seat {seat} ({self.names[seat]})"
            shown = f"waiting {_s(waited)} for {who}; {self._clock(seat)}"
            threshold = self.decision or self.NO_LIMIT_NOTE
            if self.said or waited < threshold:
                return shown, ""
            self.said = True
            if self.decision:
                late = (f"waiting for {who}: past its decision limit ({_s(self.decision)}), now on its bank "
                        f"(about {_s(self.bank - self.used[seat])} of {_s(self.bank)} left); "
                        f"when that is used up, {self.then}")
            else:
                late = f"waiting for {who} for {_s(waited)}; {self._clock(seat)}"
            return shown, late

    @contextlib.contextmanager
    def watching(self, show: Callable[[str, str], None], every: float = 0.25) -> Iterator[None]:
        """Call ``show(status...)`` every ``every`` seconds while the block runs."""
        stop = threading.Event()

        def loop() -> None:
            while not stop.wait(every):
                show(*self.status())

        t = threading.Thread(target=loop, daemon=True, name="play-turns")
        t.start()
        try:
            yield
        finally:
            stop.set()
            t.join(2)


def _s(seconds: float) -> str:
    """``1.5 s``, ``2 s``, ``0 s``: seconds to a tenth, as a person reads a clock."""
    return f"{max(0.0, seconds):.1f}".rstrip("0").rstrip(".") + " s"


#: Where a match is, by its spectator view's fields: Spades deals, Spot hands, Spite and Malice games.
_WHERE = (("deal", "deal"), ("hand_number", "hand"), ("game_number", "game"))
