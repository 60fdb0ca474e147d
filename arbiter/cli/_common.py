"""Shared pieces of the ``arbiter`` command: the apps, consoles, option aliases, errors."""

from __future__ import annotations

import contextlib
import gc
import logging
import math
import os
import signal
import sys
import threading
import time
import traceback
import warnings
from pathlib import Path
from typing import Annotated, Any, Optional, Sequence

import typer
from typer.core import TyperGroup
from rich.console import Console
from rich.markup import escape
from rich.segment import Segment
from rich.table import Table

from arbiter.present.boards import plural  # the pages' and the commands' counts: one rule
from cardarena.records import visible

#: The library's errors a command prints as one ``error:`` line (``_run``), by module and
#: class name: a command imports only the library it uses (``arbiter.cli.COMMANDS``), and an
#: error can only come from a module that was imported, so each is looked up where it is
#: already loaded, never imported for the check.
KNOWN_ERRORS = (("cardarena.games", "ConfigError"), ("arbiter.hosting.botproc", "BotStartError"),
                ("arbiter.hosting.loading", "BotLoadError"), ("arbiter.server.auth", "CredentialsError"),
                ("arbiter.server.client", "ClientError"), ("arbiter.store.db", "StoreError"),
                ("arbiter.store.registry", "RegistryError"), ("cardarena.disclosure", "Withheld"))


def known_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a command-line mistake or one of the library's ``KNOWN_ERRORS``."""
    if isinstance(exc, UsageError):
        return True
    for module, name in KNOWN_ERRORS:
        loaded = sys.modules.get(module)
        if loaded is not None and isinstance(exc, getattr(loaded, name)):
            return True
    return False

class _Commands(TyperGroup):
    """The ``arbiter`` command group: a Ctrl-C anywhere in a command says so. Typer turns a
    KeyboardInterrupt into exit 130 without a word; where a command does not catch it itself
    (``_run``, a run that says where its matches are), it is one ``interrupted`` line here."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            interrupted(exc)
            raise typer.Exit(130) from None


def interrupted(exc: BaseException) -> None:
    """Say ``interrupted`` for the KeyboardInterrupt ``exc``, and free what it left half made
    in silence. A Ctrl-C can land inside an object's making: an event loop's (``asyncio.run``
    interrupted before its loop had its self-pipe), whose ``__del__`` failed when the
    interrupt's frames were freed, a traceback under "interrupted" ("Exception ignored in
    BaseEventLoop.__del__ ... no attribute '_ssock'", "coroutine 'run_tournament' was never
    awaited"). The frames are cleared here, with such complaints silenced for that moment only."""
    err.print("interrupted", highlight=False)
    hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: None
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="coroutine .* was never awaited", category=RuntimeWarning)
            traceback.clear_frames(exc.__traceback__)
            gc.collect()
    finally:
        sys.unraisablehook = hook


app = typer.Typer(cls=_Commands, help="Card Arena arbiter: host card games between bots, run tournaments, show standings.",
                  no_args_is_help=True)
tournament_app = typer.Typer(help="Run round-robin tournaments.", no_args_is_help=True)
app.add_typer(tournament_app, name="tournament")

# Piped or captured output (a log, CI, `make demo | tee`) gets room for the standings
# table instead of rich's 80-column default; a terminal keeps its own width. No emoji
# codes: user text such as ``play:spades: arbiter replay`` or ``legal:spades:`` must not
# turn into a spade sign (markup is escaped where user text is printed, ``escape``).
_WIDE = 120


class ShownConsole(Console):
    """The command's console: what it prints is shown, never acted on by the terminal. Text
    others wrote (a bot's notes, stderr and errors, a tournament's name, a store someone
    gave you) may hold control characters: ESC sequences that clear the screen, recolour or
    plant an OSC 8 hyperlink, a CR that overwrites the line. Every such character is written
    as its escape (``cardarena.records.visible``), here, for every command: in a string
    before it is laid out (``render_str``, so tables keep their widths), and in whatever
    else reaches the terminal (a ``Text``), while rich's own styles and cursor moves (control
    segments) pass. Markup stays the call sites' to escape (``escape``): only they know which
    brackets are theirs."""

    def render_str(self, text: str, **kwargs: Any) -> Any:
        return super().render_str(visible(text), **kwargs)

    def _render_buffer(self, buffer: Any) -> str:
        return super()._render_buffer(Segment(visible(t), s, c) if c is None else Segment(t, s, c) for t, s, c in buffer)


out = ShownConsole(emoji=False)
if not out.is_terminal and "COLUMNS" not in os.environ:
    out = ShownConsole(width=_WIDE, emoji=False)
err = ShownConsole(stderr=True, emoji=False)
if not err.is_terminal and "COLUMNS" not in os.environ:
    err = ShownConsole(stderr=True, width=_WIDE, emoji=False)


def show_progress(*columns: Any, transient: bool = True) -> Any:
    """The long commands' progress display (``evaluate``, ``tournament run``, ``analyse``,
    ``play``): rich's Progress on stderr. On a terminal it moves in place. On anything else
    (``2>err.txt``, CI, a pipe) a transient one is off, as it would leave nothing there anyway
    (rich's own ``stop`` wrote a blank line), and a kept one (``transient=False``) writes its
    final line. rich.progress is imported here, by the commands that show one, not by every
    command."""
    from rich.progress import Progress

    return Progress(*columns, console=err, transient=transient, disable=transient and not err.is_interactive)


class ShownFormatter(logging.Formatter):
    """A log record on one line, whatever its message holds: a newline (``\\n``) or another
    control character (``visible``) in text someone else wrote (a submission's name, a
    tournament's, a bot's error) would otherwise start a line that reads as a record of its
    own, or act on the terminal showing the log. A traceback, appended after, keeps its lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return visible(super().formatMessage(record)).replace("\n", "\\n")


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def log_to_stderr(verbose: bool) -> None:
    """The long-running commands' log (``arbiter serve``, ``web``, ``arena``): on stderr, one
    line a record (``ShownFormatter``), INFO with ``--verbose``, else WARNING."""
    handler = logging.StreamHandler()
    handler.setFormatter(ShownFormatter(LOG_FORMAT))
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, handlers=[handler])


class _QuietCancel(logging.Filter):
    """grpc.aio logs a servicer cancelled by a server's stop (a private arbiter closing at
    the end of a check or a match) as an error with a traceback; it is neither."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        # asyncio looked up where it is loaded, not imported (~14 ms of CPU at the start of
        # every command, and `rules`, `replay` or `standings` run no event loop): without it
        # nothing was cancelled by one
        loaded = sys.modules.get("asyncio")
        return loaded is None or not isinstance(exc, loaded.CancelledError)


logging.getLogger("grpc._cython.cygrpc").addFilter(_QuietCancel())

# Options shared by several commands, defined once.
SeedOpt = Annotated[int, typer.Option("--seed", help="Deal seed: the same seed replays the same deals.")]


def _option_flag() -> str:
    """What ``--option`` takes, from the games' option schemas: every game's option names
    (``arbiter rules GAME`` says each one's type, range, default and meaning)."""
    from cardarena.games import GAMES, game_class
    from cardarena.games.options import option_specs

    names = "; ".join(f"{g}: {', '.join(o.name for o in option_specs(game_class(g).Options))}" for g in GAMES)
    return f"Written KEY=VALUE, repeatable, e.g. -o deals=1. The options of each game ({names}) are described by arbiter rules GAME"


def _presets_text() -> str:
    """Each game's presets, for ``--preset``'s help (read from the games: a new one is listed)."""
    from cardarena.games import GAMES, game_class

    return "; ".join(f"{n}: {', '.join(sorted(game_class(n).presets)) or 'none'}" for n in GAMES)


#: The names this module makes when first imported (``__getattr__``): ``OPTION_FLAG`` (the
#: ``--option`` flag's help, after the setting's meaning: ``OptionOpt``, ``arbiter tournament
#: run``, ``arbiter arena``), ``OptionOpt`` and ``PresetOpt``. Their help reads every game's
#: options and presets, which imports every game's engine (~70 ms of CPU at a start): only
#: the commands that take these flags pay it, not ``serve``, ``web``, ``rules`` or ``replay``.
_LAZY = {
    "OPTION_FLAG": _option_flag,
    "OptionOpt": lambda: Annotated[Optional[list[str]], typer.Option("--option", "-o", help=f"A game option. {__getattr__('OPTION_FLAG')}.")],
    "PresetOpt": lambda: Annotated[Optional[str], typer.Option("--preset", help=f"A named option preset of the game ({_presets_text()}; "
                                                                               "arbiter rules GAME shows what each sets).")],
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = globals()[name] = _LAZY[name]()  # made once
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


DbOpt = Annotated[Path, typer.Option("--db", help="SQLite store file.", envvar="ARENA_DB")]
DecisionOpt = Annotated[int, typer.Option("--decision-ms", help="Per-decision time limit in ms (0: none).")]
BankOpt = Annotated[int, typer.Option("--bank-ms", help="Per-match time bank in ms, used past the decision limit.")]
PolicyOpt = Annotated[str, typer.Option("--policy", help="On timeout/illegal action/disconnect: forfeit, or default (play the first legal action, up to --max-strikes).")]
CredentialsOpt = Annotated[Path, typer.Option("--credentials", help="The standing arbiter's credentials file (tokens; mode 0600).", envvar="ARENA_CREDENTIALS")]
MetricsOpt = Annotated[Optional[str], typer.Option(
    "--metrics", metavar="HOST:PORT", help="Serve Prometheus metrics at http://HOST:PORT/metrics (off by default; a bare "
    "PORT means 127.0.0.1; 0 takes a free port). The page asks no token: name an interface other machines reach only "
    "on a network you trust.")]
#: ``--verbose`` of the long-running commands whose log is ``log_to_stderr``'s (``serve``, ``arena``).
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Log at INFO on stderr, one line a record (without it: "
                                          "warnings and errors only).")]
TransportOpt = Annotated[str, typer.Option("--transport", help="local (bots as sandboxed processes on the arbiter's local channel: the bot stream in plain frames on a Unix socket, no HTTP/2; a bot of another runtime, such as Node, speaks gRPC), grpc (the same processes over gRPC), inproc (the bots in this process: trusted code; a file's bot only when asked, and its record says so) or auto (bundled bots in process, anything else hosted as local does).")]


def not_nan(value: float | None) -> float | None:
    """A float option's callback: NaN refused (a range's comparisons all let it through)."""
    if value is not None and math.isnan(value):
        raise typer.BadParameter("not a number (nan)")
    return value


class UsageError(Exception):
    """A command-line mistake; printed without a traceback."""


def _parse_options(pairs: list[str] | None) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--option {pair!r}: expected KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


def stderr_block(stderr: str, lines: int = 8) -> str:
    """The last ``lines`` lines of a bot's stderr, each indented under the command's own line
    that introduces them (print it with ``markup=False``): unindented, a line the bot wrote
    (``error: ...``, ``17 decisions in 0.30 s; match ...``) read as the command's own."""
    return "\n".join("    " + line for line in stderr.strip().splitlines()[-lines:])


def need(flags: Sequence[tuple[str, bool]], needed: str) -> None:
    """UsageError if any of ``flags`` ((flag, given)) was given, naming those given and the flag
    they need (``--probes: needs --luck-adjusted``): a flag that would do nothing without it is
    refused, and never by a flag the command line does not hold."""
    given = [flag for flag, on in flags if on]
    if given:
        raise UsageError(f"{' and '.join(given)}: {'need' if len(given) > 1 else 'needs'} {needed}")


def fail(message: str) -> None:
    """UsageError(``message``): for ``_run(fail, ...)``, which prints it as one ``error:`` line."""
    raise UsageError(message)


def error(message: object) -> None:
    """Print ``error: MESSAGE`` on stderr: one line, never wrapped, the message not read as markup."""
    err.print(f"[bold red]error:[/] {escape(str(message))}", soft_wrap=True, highlight=False)


def warn_exposed(said: str) -> None:
    """``warning: SAID`` on stderr, if ``auth.tighten`` found the credentials file open to others."""
    if said:
        err.print(f"[yellow]warning:[/] {escape(said)}", soft_wrap=True, highlight=False)


def os_error_text(exc: OSError) -> str:
    """An OSError in words: the path and the reason (``out/x.md: No such file or directory``)."""
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename else reason


def _run(fn, *args: Any, **kwargs: Any) -> Any:
    """Call a library function, turning known errors into one ``error:`` line and exit 2
    (an interrupt: one line and exit 130)."""
    try:
        return fn(*args, **kwargs)
    except Exception as exc:
        if known_error(exc):
            error(exc)
        elif isinstance(exc, OSError):  # a path that cannot be read or written
            error(os_error_text(exc))
        elif (store := sys.modules.get("arbiter.store.db")) is not None and isinstance(exc, store.READ_ERRORS):
            # SQLite's own error past the store's opening: a file damaged inside ("database
            # disk image is malformed") opens, and fails where a read reaches the damage; named
            # by the store the call was given (a method of it, or its first argument)
            path = next((a.path for a in (getattr(fn, "__self__", None), *args) if isinstance(a, store.Store)), None)
            error(store.store_error(path, exc) if path is not None else f"the store cannot be used: {exc}")
        else:
            raise
        raise typer.Exit(2) from None
    except KeyboardInterrupt as exc:
        interrupted(exc)
        raise typer.Exit(130) from None


def interrupted_run(db: Path, what: str, begun: bool, fresh: bool = False, kept: str | None = None,
                    resumes: bool = False) -> str:
    """The line a run into the store ``db`` (``what``: "tournament", "evaluation") stopped by
    Ctrl-C or SIGTERM ends with, true of what it left. ``begun``: it had started (its bots up),
    so its finished matches are stored and the same command resumes it (without ``--fresh``,
    which would replace it again). Stopped before, it wrote nothing: "the finished matches are
    stored" said of a run that never started read as if some were. ``kept``: the stored run of
    that name, as it was; ``resumes``: the same command would resume it (it was checked to)."""
    if begun:
        again = " without --fresh" if fresh else ""
        return f"interrupted: the finished matches are stored in {db}; the same command{again} resumes the {what}"
    line = f"interrupted before the {what} started: nothing was stored in {db}"
    if kept is not None:
        line += f"; {kept} there is as it was" + ("" if fresh or not resumes else ", and the same command resumes it")
    return line


def no_store(db: Path) -> UsageError:
    """The error of a command that reads the store at ``db`` where there is none: a typo in
    --db, or no run yet. "(pass --db)" told one who had passed it to do so; this names what
    makes a store and how to read another."""
    return UsageError(f"no store at {db} (arbiter play, arbiter tournament run and arbiter evaluate --db make one; "
                      "another store: --db FILE)")


def creating_store(db: Path) -> None:
    """Say on stderr that a run creates a new store at ``db`` (none there yet): a first run's
    store, or a typo in --db, which would otherwise start from nothing unsaid. (No folder to
    make it in: the store's opening says so, alone.)"""
    if not db.exists() and db.parent.is_dir():
        err.print(f"creating a new store at {db}", markup=False, highlight=False, soft_wrap=True)


#: How long a graceful stop on SIGTERM may take before the process ends as SIGTERM ends it.
STOP_GRACE_S = 60.0

#: The environment variables README documents for a command, each said at the end of its
#: --help (``epilog=environment(...)``): a variable that changes what a command does is
#: found where its flags are.
ENV_STOP_GRACE = (f"ARENA_STOP_GRACE_S: seconds the graceful stop after Ctrl-C or SIGTERM may take before the process "
                  f"ends as SIGTERM ends it (default {STOP_GRACE_S:g}).")
ENV_BOT_ENVS = ("ARENA_INSTALL_BOT_ENVS: 1 installs the packages a bot folder's bot.toml declares (its requirements, "
                "wheels only) into a cached environment (ARENA_BOTENV_CACHE); all also for bots submitted to a Bots "
                "service; unset, such a bot is refused unless its environment is cached.")


def environment(*lines: str) -> str:
    """A command's --help epilog: the environment variables of ``lines`` (``ENV_*``)."""
    return "Environment:\n\n" + "\n\n".join(lines)


def stop_grace() -> float:
    """``STOP_GRACE_S``, or ``ARENA_STOP_GRACE_S`` seconds when set to a positive number."""
    try:
        value = float(os.environ.get("ARENA_STOP_GRACE_S", ""))
    except ValueError:
        return STOP_GRACE_S
    return value if value > 0 and math.isfinite(value) else STOP_GRACE_S


class BoundedStop:
    """A graceful stop bounded as a scheduler bounds it, for every long command (``tournament
    run``, ``evaluate`` through ``terminate_as_interrupt``, ``arena`` through its event loop's
    signal handlers): the first stop begins it; a second stop, or ``stop_grace()`` seconds after
    the first (``ARENA_STOP_GRACE_S``), ends the process as the signal does by default (what is
    stored is stored: every finished match was committed as it ended)."""

    def __init__(self) -> None:
        self.requested = threading.Event()

    def request(self, sig: int) -> bool:
        """True for the first stop (the caller begins its graceful stop); a second ends the
        process now, as ``sig`` does by default. The first starts the grace: when it runs out,
        SIGTERM again (the second stop, handled where the caller handles its signals), and should
        nothing handle it within 5 s (a main thread or loop that runs no handler any more), the
        process exits as SIGTERM would have it."""
        if self.requested.is_set():
            end_as(sig)
            return False
        self.requested.set()
        timer = threading.Timer(stop_grace(), _grace_over)
        timer.daemon = True  # a stop that ends in time ends with it
        timer.start()
        return True


def end_as(sig: int) -> None:
    """End the process as ``sig`` does by default."""
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)


def _grace_over() -> None:  # in the timer's thread, where no handler can be set
    os.kill(os.getpid(), signal.SIGTERM)  # the second stop, handled in the main thread or loop
    time.sleep(5.0)
    os._exit(128 + signal.SIGTERM)


@contextlib.contextmanager
def terminate_as_interrupt():
    """Within it, SIGTERM (a scheduler's stop, ``kill``, a CI job's timeout) stops a long
    command as Ctrl-C does: the run is cancelled where asyncio cancels it on Ctrl-C, what is
    finished stays stored, and the command says so (and how to go on) and exits 130, instead
    of dying where it stands with no word. The signal is passed on as SIGINT, so both go one
    way. Where SIGINT is ignored (a job started in the background by a shell, which a
    scheduler's stop must still end) SIGTERM keeps its own meaning. The graceful stop is
    bounded (``BoundedStop``). Only in the main thread, where signal handlers live; elsewhere
    nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stop = BoundedStop()

    def on_term(signum: int, frame: Any) -> None:
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            end_as(signal.SIGTERM)  # a background job's stop: not graceful
        elif stop.request(signal.SIGTERM):
            signal.raise_signal(signal.SIGINT)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def start_metrics(address: str | None, say: bool = True, own: tuple[str, int] | None = None) -> str:
    """``--metrics HOST:PORT``: the process's metrics on (``arbiter.metrics``), served by
    prometheus_client's own HTTP server on that port; the line that says where (printed on
    stdout unless ``say`` is False). Nothing, and "", if ``address`` is None. ``own``: the
    command's own port (its flag, the port), which the metrics may not take: they took it
    first, and the command's server then failed to bind it as to a port another process holds."""
    if address is None:
        return ""
    from arbiter import metrics
    from arbiter.server import host_port
    from arbiter.server import is_loopback

    try:
        host, port = metrics.parse_address(address)
    except ValueError as exc:
        raise UsageError(f"--metrics {exc}") from None
    if own is not None and own[1] and port == own[1]:
        raise UsageError(f"--metrics {address}: port {port} is {own[0]}'s; the metrics need a port of their own")
    try:
        _, bound = metrics.enable().serve(host, port)
    except OSError as exc:
        metrics.disable()
        raise UsageError(f"--metrics: cannot listen on {host_port(host, port)}: {exc.strerror or exc}") from None
    if not is_loopback(host):
        err.print(f"[yellow]warning:[/] --metrics {escape(host)}: other machines may read the metrics (no token)", highlight=False)
    line = f"metrics on http://{host_port(host, bound)}/metrics"
    if say:
        out.print(line, highlight=False, markup=False)
        sys.stdout.flush()
    return line


def port_free(host: str, port: int, what: str = "") -> None:
    """UsageError unless ``host:port`` can be listened on now (port 0 always can): checked
    before a server that would log its own failure (gRPC's C core prints a line of its own).
    ``what``: which of a command's ports it is and where it was set, said after the address
    (the arena listens on two, and "the port is taken" did not say which to change)."""
    import errno
    import socket

    from arbiter.server import host_port

    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError(f"cannot listen on {host_port(host, port)}{what}: {host!r} is not a known address ({exc.strerror})") from None
    for family, kind, proto, _, addr in infos:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as a server does: a port in TIME_WAIT is free
            try:
                s.bind(addr)
            except OSError as exc:
                why = {errno.EADDRINUSE: "the port is taken (another process listens on it)",
                       errno.EADDRNOTAVAIL: f"{host} is not an address of this machine",
                       errno.EACCES: "the port is not allowed (below 1024 needs privileges)"}.get(exc.errno, exc.strerror or str(exc))
                raise UsageError(f"cannot listen on {host_port(host, port)}{what}: {why}") from None


def check_writable(path: Path, flag: str) -> None:
    """UsageError unless a file can be written at ``path`` (its folder exists and may be
    written): checked before long work whose result goes there."""
    folder = path.parent
    eff = os.access in os.supports_effective_ids
    if path.is_dir():
        raise UsageError(f"{flag} {path}: is a folder, not a file")
    if not folder.is_dir():
        raise UsageError(f"{flag} {path}: no folder {folder} (create it first)")
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=eff) or (
            path.exists() and not os.access(path, os.W_OK, effective_ids=eff)):
        raise UsageError(f"{flag} {path}: not writable")
    refuse_store(path, flag)


#: The first bytes of every SQLite file: a store.
SQLITE_HEADER = b"SQLite format 3\0"


def refuse_store(path: Path, flag: str) -> None:
    """UsageError if ``path`` is a store (a SQLite file): an output written there would
    replace every match and tournament in it, and ``-o`` next to ``--db`` is an easy slip."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError:  # absent (or unreadable: writing says why)
        return
    if head == SQLITE_HEADER:
        raise UsageError(f"{flag} {path}: is a store (SQLite); writing there would replace it: give another file")


def write_text(path: Path, text: str, flag: str) -> None:
    """Write an output file; UsageError (one line, naming ``flag``) if it cannot be, or if
    it is a store (``refuse_store``)."""
    refuse_store(path, flag)
    try:
        path.write_text(text, encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{flag} {path}: no folder {path.parent} (create it first)") from None
    except IsADirectoryError:
        raise UsageError(f"{flag} {path}: is a folder, not a file") from None
    except OSError as exc:
        raise UsageError(f"{flag} {path}: {exc.strerror or exc}") from None


def is_stdout(path: Path | None) -> bool:
    """Whether an output file flag names ``-``: stdout, as everywhere on the command line (a
    file named ``-`` was written, and ``| jq`` read nothing)."""
    return path is not None and str(path) == "-"


def emit(text: str, output: Path | None, said: str = "") -> None:
    """An export's ``text``: on stdout (no ``output``, or ``-``), or written to ``output``
    (``--output``) with a line on stderr saying so (then ``said``)."""
    if output is None or is_stdout(output):
        sys.stdout.write(text)
        return
    _run(write_text, output, text, "--output")
    err.print(f"wrote {output}{said}", markup=False, highlight=False)


def read_tls(cert: Path | None, key: Path | None) -> tuple[bytes, bytes] | None:
    """``--tls-cert`` and ``--tls-key`` (PEM files) as bytes, None without either;
    UsageError if only one is given or one cannot be read."""
    if cert is None and key is None:
        return None

    def read(path: Path | None, what: str) -> bytes:
        if path is None:
            raise UsageError(f"--tls-cert and --tls-key go together: {what} is missing")
        try:
            return path.read_bytes()
        except OSError as exc:
            raise UsageError(f"{what} {path}: {exc.strerror or exc}") from None

    return read(cert, "--tls-cert"), read(key, "--tls-key")


#: The CA a bot (the SDK) and the commands that reach a remote arbiter trust its TLS with,
#: when ``--tls-ca`` is not given (README: TLS).
TLS_CA_ENV = "ARENA_TLS_CA"
#: ``--tls-ca`` of the commands with a ``--server`` (``play``, ``bots ...``).
TlsCaOpt = Annotated[Optional[Path], typer.Option("--tls-ca", envvar=TLS_CA_ENV, help="PEM CA certificate: reach a --server that "
                                                  "serves TLS (arbiter serve --tls-cert).")]


def read_ca(path: Path, flag: str = "--tls-ca") -> bytes:
    """The CA certificate (PEM) a command trusts a remote arbiter's TLS with: ``--tls-ca``
    of `play --server`, `bots ... --server` and `watch`, web's ``--arbiter-tls-ca``. Read
    and checked here, before anything connects: a file that is no certificate otherwise
    ends in gRPC's own log lines and "Failed to create security handshaker". UsageError
    naming ``flag`` (as the user typed it), the file and what is wrong."""
    from cardarena.wire.tls import PEM_CERTIFICATE  # (the SDK's --tls-ca checks the same)

    try:
        ca = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{flag} {path}: {exc.strerror or exc}") from None
    if PEM_CERTIFICATE not in ca:
        raise UsageError(f"{flag} {path}: not a PEM certificate (no {PEM_CERTIFICATE.decode()} line)")
    return ca


def token_needs_server(server: str | None, token: str | None, flag: str, envvar: str, here: str) -> None:
    """A token given on the command line (``flag``) is a server's: without ``--server`` it is
    a usage error, not a local run that ignores it (UsageError; ``here``: what leaving it out
    does). The same token from ``envvar`` does not count: it is set once for remote use and
    must not break local commands."""
    if token and not server and token != os.environ.get(envvar):
        raise UsageError(f"{flag} is the token of a --server: add --server HOST:PORT, or leave {flag} out {here}")


def given(ctx: typer.Context, param: str) -> bool:
    """Whether the option ``param`` (its Python name) was on the command line: not its
    default, nor its environment variable (set once, for every command, it never counts as
    asked for). By its name: typer's own copy of click has its own ParameterSource, not
    click's."""
    source = ctx.get_parameter_source(param)
    return source is not None and source.name == "COMMANDLINE"


def db_or_server(ctx: typer.Context, db_does: str, server_does: str) -> None:
    """UsageError if both ``--db`` and ``--server`` are on the command line of a command that
    uses one of them: the other would be ignored without a word. ``db_does`` and
    ``server_does`` say what each does (``--db DB_DOES, --server SERVER_DOES: give one of
    them``). Either from its environment variable gives way to the other, unsaid."""
    if given(ctx, "db") and given(ctx, "server"):
        raise UsageError(f"--db {db_does}, --server {server_does}: give one of them")


def server_ca(server: str | None, tls_ca: Path | None) -> bytes | None:
    """``--tls-ca`` of a command whose ``--server`` is optional (a local store otherwise):
    the CA's bytes (``read_ca``), None without it; UsageError if it is given without
    ``--server``, where it would be silently ignored. The same CA from ``ARENA_TLS_CA`` does
    not count there: it is set once for remote use and must not break local commands."""
    if tls_ca is None:
        return None
    if not server and str(tls_ca) == os.environ.get(TLS_CA_ENV):
        return None
    if not server:
        raise UsageError("--tls-ca is the CA of a --server's certificate: add --server HOST:PORT, or leave --tls-ca out")
    return read_ca(tls_ca)


def check_address(address: str, flag: str = "--server") -> str:
    """``HOST:PORT`` (an arbiter's address; or a gRPC ``unix:PATH``), else UsageError naming the flag.
    gRPC reads neither a scheme (``http://``) nor an IPv6 host without brackets (``::1:50051``)
    as a person means them: it failed to resolve them, in its own words."""
    if address.startswith("unix:") and len(address) > 5:
        return address
    if "://" in address:
        raise UsageError(f"{flag}: expected HOST:PORT without a scheme (e.g. 127.0.0.1:50051), got {address[:80]!r}")
    host, sep, port = address.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"{flag}: expected HOST:PORT (e.g. 127.0.0.1:50051), got {address[:80]!r}")
    if ":" in host and not (host.startswith("[") and host.endswith("]")):
        raise UsageError(f"{flag}: an IPv6 address goes in brackets, [HOST]:PORT (e.g. [::1]:50051), got {address[:80]!r}")
    return address.strip()


def _outcome_table(seat_names, outcome, title: str) -> Table:
    """The result as a table of seats. The table is at least as wide as its title (up to the
    console's width): a title wider than the four narrow columns was wrapped to their width,
    and `arbiter play`'s drawn seed, the one place it is printed, broke over two lines."""
    from rich.cells import cell_len

    table = Table(title=escape(title), min_width=cell_len(visible(title)))  # plain text: a bot's error message is not markup
    table.add_column("seat", justify="right")
    table.add_column("bot")
    table.add_column("score", justify="right")
    table.add_column("rank", justify="right")
    for seat, name in enumerate(seat_names):
        table.add_row(str(seat), escape(name), f"{outcome.scores[seat]:g}", str(outcome.ranks[seat]))
    return table


