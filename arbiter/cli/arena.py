"""`arbiter arena`: a continuous rated ladder, one long-running process per ladder.

    arbiter arena ladder.toml                  # the ladder, its Bots service and its web page
    arbiter arena --game spite-and-malice -o payoff_size=5 --author alice --db ladder.sqlite
    arbiter credentials token author:alice --credentials arbiter-credentials.json   # an author's token
    arbiter bots submit mybot --name mybot --version 1 --server 127.0.0.1:50051 --token "$TOKEN"

A ladder file (every key optional except ``game``; flags override it)::

    name = "spite-ladder"
    game = "spite-and-malice"
    deals = 1                   # deals per encounter, each played in every seating
    concurrency = 2             # encounters at once
    isolation = "deal"          # or "match"
    house = ["random"]          # bots that always play (bundled names, FILE.py beside this file, NAME=SPEC)
    cluster = "tcp://10.0.0.5:8786"  # optional: play the matches on a Dask cluster
    [options]
    payoff_size = 5
    [clock]
    decision_ms = 2000
    bank_ms = 10000
    [failure]
    policy = "forfeit"
    suspend_after = 3           # encounters in a row with a forfeit of its own
    [gate]                      # optional: a new version must prove itself against the old
    sprt = "0,0.1"              # H0: margin per deal <= 0, H1: >= 0.1 (game units)
    alpha = 0.05
    beta = 0.05
    max_deals = 400             # no decision by then: rejected
    # test = "normal"           # default "betting" (valid on any shape within the game's bounds)
    # bounds = "-5,5"           # the betting test's, narrower than the game's (the margin clipped to them)
    # sd_bound = 0.6            # optional: the variance-bounded test (any shape with this s.d. at most);
    #                           # "auto": 1.2x the s.d. of the bot's earlier trials (100 deals of them; less room with more)
    [server]
    port = 50051                # the Bots service (submissions with author tokens)
    web_port = 8080             # the leaderboard: http://127.0.0.1:8080/a/NAME (-1: none)
    credentials = "arbiter-credentials.json"  # beside this file, as db (without them: the current folder's)
    authors = ["alice", "bob"]
    db = "arena.sqlite"

Run the same command again after a crash (even SIGKILL): it resumes; finished encounters
are kept once each, the ones cut off are abandoned and never counted.

The remote division (``division = "remote"``, ``--division remote``): the entrants are the
bots that connect to the arena's server (``[server] port``) with a bot token of its
credentials file, from their authors' own machines, in any language; they play only each
other, every seating on a deal of its own (a bot that keeps its memory never meets a deal
twice), and the leaderboard marks them not hosted (no equal hardware)::

    arbiter arena --game spite-and-malice --division remote --name remote-spite --db remote.sqlite
    arbiter credentials add-bot mybot --credentials arbiter-credentials.json
    ARENA_TOKEN="$TOKEN" python -m sdk --bot mybot.py --name mybot --address 127.0.0.1:50051
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import threading
import urllib.parse
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from cardarena.games.options import flag_help
from arbiter.arena.ladder import ArenaSpec, ServiceConfig
from arbiter.spectating.runs import announce_run, forget_run
from arbiter.cli._common import (environment, ENV_STOP_GRACE, ENV_BOT_ENVS, OPTION_FLAG, BoundedStop, MetricsOpt, UsageError, _parse_options, _run, app, err, fail,
                                 log_to_stderr, out, plural, port_free, read_tls, start_metrics, VerboseOpt)


@app.command(epilog=environment(ENV_STOP_GRACE, ENV_BOT_ENVS))
def arena(
    config: Annotated[Optional[Path], typer.Argument(help="The ladder's TOML file. Without it, the flags define the ladder.", metavar="[CONFIG.toml]")] = None,
    game: Annotated[Optional[str], typer.Option(help=flag_help(ArenaSpec, "game"))] = None,
    name: Annotated[Optional[str], typer.Option(help=flag_help(ArenaSpec, "name"))] = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", "-o", help=flag_help(ArenaSpec, "options", OPTION_FLAG))] = None,
    preset: Annotated[Optional[str], typer.Option(help=flag_help(ArenaSpec, "preset"))] = None,
    deals: Annotated[Optional[int], typer.Option(help=flag_help(ArenaSpec, "deals"))] = None,
    house: Annotated[Optional[list[str]], typer.Option(help=flag_help(ArenaSpec, "house", "Comma-separated, or repeated"))] = None,
    concurrency: Annotated[Optional[int], typer.Option(help=flag_help(ArenaSpec, "concurrency"))] = None,
    isolation: Annotated[Optional[str], typer.Option(help=flag_help(ArenaSpec, "isolation"))] = None,
    suspend_after: Annotated[Optional[int], typer.Option("--suspend-after", help=flag_help(ArenaSpec, "suspend_after"))] = None,
    decision_ms: Annotated[Optional[int], typer.Option(help=flag_help(ArenaSpec, "decision_ms"))] = None,
    bank_ms: Annotated[Optional[int], typer.Option(help=flag_help(ArenaSpec, "bank_ms"))] = None,
    policy: Annotated[Optional[str], typer.Option(help=flag_help(ArenaSpec, "policy"))] = None,
    max_strikes: Annotated[Optional[int], typer.Option(help=flag_help(ArenaSpec, "max_strikes"))] = None,
    seed: Annotated[Optional[int], typer.Option(help=flag_help(ArenaSpec, "seed"))] = None,
    db: Annotated[Optional[str], typer.Option("--db", help="SQLite store file (default arena.sqlite).", envvar="ARENA_DB")] = None,
    host: Annotated[Optional[str], typer.Option(help=flag_help(ServiceConfig, "host"))] = None,
    port: Annotated[Optional[int], typer.Option(help=flag_help(ServiceConfig, "port"))] = None,
    web_port: Annotated[Optional[int], typer.Option("--web-port", help=flag_help(ServiceConfig, "web_port"))] = None,
    credentials: Annotated[Optional[str], typer.Option("--credentials", help=flag_help(ServiceConfig, "credentials"), envvar="ARENA_CREDENTIALS")] = None,
    author: Annotated[Optional[list[str]], typer.Option("--author", help="Issue a Bots-service token for this author (repeatable).")] = None,
    tls_cert: Annotated[Optional[Path], typer.Option("--tls-cert", help="PEM certificate chain: serve the Bots service over TLS.")] = None,
    tls_key: Annotated[Optional[Path], typer.Option("--tls-key", help="PEM private key of --tls-cert.")] = None,
    insecure: Annotated[bool, typer.Option("--insecure", help="Allow a non-loopback interface without TLS: tokens then travel in clear.")] = False,
    gate: Annotated[Optional[str], typer.Option("--gate", metavar="M0,M1", help=flag_help(ArenaSpec, "gate"))] = None,
    division: Annotated[Optional[str], typer.Option("--division", help=flag_help(ArenaSpec, "division"))] = None,
    cluster: Annotated[Optional[str], typer.Option("--cluster", help=flag_help(ArenaSpec, "cluster"))] = None,
    max_encounters: Annotated[Optional[int], typer.Option("--max-encounters", min=1, help="Stop after this many encounters (default: run until stopped).")] = None,
    metrics: MetricsOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Run a continuous rated ladder: submissions over the Bots service, encounters on duplicate deals, a live leaderboard."""
    from arbiter.arena.ladder import ArenaSpec, ServiceConfig, arena_from_dict, arena_from_toml

    log_to_stderr(verbose)
    overrides: dict[str, Any] = {
        "game": game, "name": name, "preset": preset, "deals": deals, "concurrency": concurrency, "isolation": isolation,
        "suspend_after": suspend_after, "decision_ms": decision_ms, "bank_ms": bank_ms, "policy": policy,
        "max_strikes": max_strikes, "seed": seed, "db": db, "host": host, "port": port, "web_port": web_port,
        "credentials": credentials, "cluster": cluster, "gate": gate, "division": division,
    }
    if option:
        overrides["options"] = _run(_parse_options, option)
    if house is not None:
        overrides["house"] = tuple(h.strip() for given in house for h in given.split(",") if h.strip())
    spec: ArenaSpec
    service: ServiceConfig
    if config is not None:
        if not config.exists() and not config.suffix:  # arbiter arena standings: a reader's word, not a file
            _run(fail, f"{config}: no such ladder file (arbiter arena CONFIG.toml runs a ladder; one is read with "
                       "arbiter standings --arena NAME, arbiter bots show NAME or arbiter web --db FILE)")
        spec, service = _run(arena_from_toml, config, overrides)
    else:
        if game is None:
            _run(fail, "give a ladder file (arbiter arena CONFIG.toml) or --game")
        spec, service = _run(arena_from_dict, {}, overrides, "flags")
    if author:
        service = ServiceConfig(**{**service.__dict__, "authors": tuple(dict.fromkeys((*service.authors, *author)))})
    tls = _run(read_tls, tls_cert, tls_key)
    _run(spec.validate)
    if config is not None:
        given = {"db": db, "credentials": credentials}
        _run(_beside_the_file, config, {k: getattr(service, k) for k, v in given.items() if v is None})
    # what cannot be served, before the store is opened: not once the ladder was created in it
    _run(service.check, tls, insecure)
    _run(port_free, service.host, service.port, " (the Bots service's: --port, or port in the file's [server])")  # before gRPC tries it: a traceback, its own log line first
    if service.web_port > 0:
        _run(port_free, service.host, service.web_port, " (the leaderboard's: --web-port, or web_port in the file's [server])")
    _run(start_metrics, metrics)
    _run(asyncio.run, _main(spec, service, tls, insecure, max_encounters))


async def _main(spec, service, tls, insecure: bool, max_encounters: int | None) -> None:
    from arbiter.present.web import make_server
    from arbiter.arena.ladder import Arena, EncounterDone, serve_submissions
    from arbiter.hosting.sandbox import Sandbox

    def report(e: EncounterDone) -> None:
        result = ", ".join(f"{p} {e.points[p]:.2f}" for p in e.players)
        rated = ", ".join(f"{p} {mu:.2f}±{1.96 * s:.2f}" for p, (mu, s) in e.ratings.items())
        line = f"encounter {e.seq} ({e.matches} matches): {result}; ratings {rated}"
        for p, (n, streak) in e.forfeits.items():  # the count a suspension is decided on, before it comes
            limit = f" of {e.suspend_after} before a suspension" if e.suspend_after else ""
            # (none in a row: a remote bot's old connection's, its detail says)
            row = f"{plural(streak, 'encounter')} in a row{limit}: " if streak else ""
            line += f"; {p} forfeited {plural(n, 'match', 'matches')} ({row}{e.failures.get(p, '')})"
        if e.suspended:
            line += f"; suspended {', '.join(e.suspended)}"
        for p, verdict in e.verdicts.items():  # the gate's, as its author reads it (arbiter bots show)
            line += f"; the gate on {p}: {verdict}"
        out.print(line, highlight=False, markup=False)
        sys.stdout.flush()

    ladder = Arena(spec, service.db, on_encounter=report)
    ladder.open()
    web = web_thread = None
    bots = None
    announced: Path | None = None
    started = False  # "arena stopped" is said of an arena that started, not of one refused on its way
    try:
        bots, creds = await serve_submissions(service.db, service, tls=tls, insecure=insecure, closed=spec.submissions_closed,
                                              check=spec.submission_check())
        ladder.hub = bots.hub  # where the remote division's bots connect
        ladder.spectators = bots.spectators  # and where its matches are watched (the spectator token)
        if service.web_port >= 0:
            web = make_server(service.db, service.host, service.web_port)
            web_thread = threading.Thread(target=_serve_web, args=(web,), daemon=True, name="arena-web")
            web_thread.start()
        err.print(credentials_line(service.credentials, sorted(creds.authors), spec.remote), highlight=False, markup=False)
        announced = announce_run(Path(service.db), f"{service.host}:{bots.port}", creds.spectator, ladder.row.name, "arena")
        err.print(f"watch its matches live: arbiter watch --db {service.db} (or --server {service.host}:{bots.port} with the "
                  f"spectator token: arbiter credentials token spectator --credentials {service.credentials})",
                  highlight=False, markup=False)
        if spec.remote:
            err.print(f"remote division: bots connect to {service.host}:{bots.port} with a bot token "
                      f"(arbiter credentials add-bot NAME --credentials {service.credentials}) as that NAME "
                      f"(python -m sdk --bot BOT --name NAME --address {service.host}:{bots.port})", highlight=False, markup=False)
        if not spec.remote and (weak := _run(lambda: Sandbox().untrusted_warning())):
            err.print(f"warning: {weak}", highlight=False, markup=False, soft_wrap=True)
        if ladder.abandoned:
            err.print(f"{plural(ladder.abandoned, 'encounter')} cut off by the last stop abandoned (never counted)",
                      highlight=False)
        # the remote division's server takes connections, not submissions (spec.submissions_closed)
        served = f"{spec.game}, remote division): listening on {service.host}:{bots.port} for its bots" if spec.remote \
            else f"{spec.game}): Bots service listening on {service.host}:{bots.port}"
        out.print(f"arena {ladder.row.name} ({served}" + (" (TLS)" if tls else ""), highlight=False, markup=False,
                  soft_wrap=True)  # one line: the address is read from it
        if web is not None:
            out.print(f"leaderboard on {web.url}a/{urllib.parse.quote(ladder.row.name)}", highlight=False, markup=False)
        sys.stdout.flush()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()

        bounded = BoundedStop()

        def on_stop(sig: signal.Signals) -> None:
            """The first Ctrl-C or SIGTERM stops the ladder gracefully (what is under way is
            abandoned, never counted); a second one, or the grace after the first running out
            (ARENA_STOP_GRACE_S), ends the process as the signal does by default (``BoundedStop``):
            every stored encounter was committed whole, and one cut off is abandoned on the next start."""
            if bounded.request(sig):
                stop.set()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_stop, sig)
        started = True
        await ladder.run(stop, max_encounters=max_encounters)
    finally:
        forget_run(announced)
        if bots is not None:
            await bots.stop(1.0)
        if web is not None:
            if web_thread is not None and web_thread.is_alive():
                web.shutdown()
            web.server_close()
        ladder.close()
        if started:
            cut = f"; {plural(ladder.cut_off, 'encounter')} under way abandoned (never counted)" if ladder.cut_off else ""
            out.print(f"arena stopped: {plural(ladder.finished, 'encounter')} stored by this run{cut}", highlight=False)


def credentials_line(path: str, authors: list[str], remote: bool) -> str:
    """What the arena says of its credentials file: whose author tokens it holds and how one is
    read; with none, that nobody can submit yet and how an author gets a token (it said "0
    author tokens" and went on, a ladder nobody could enter)."""
    if remote:  # its bots connect with bot tokens; authors submit nothing here
        return f"credentials: {path} (bot tokens: arbiter credentials add-bot NAME --credentials {path})"
    if not authors:
        return (f"credentials: {path} (no author token yet: nobody can submit a bot; give one with --author NAME, or "
                f"arbiter credentials add-author NAME --credentials {path}, which a running arena sees at once)")
    shown = ", ".join(authors[:5]) + (f" and {len(authors) - 5} more" if len(authors) > 5 else "")
    return (f"credentials: {path} (author tokens of {shown}: arbiter credentials token author:NAME --credentials "
            f"{path})")


def _beside_the_file(config: Path, paths: dict[str, str]) -> None:
    """UsageError where the ladder's store or credentials file (``paths``: those no flag gave,
    as the service has them) is not where an earlier run from this folder left it, and the
    arena would begin a new, empty ladder (with new credentials), the old one untouched and
    unsaid. A path the file writes is its folder's (``arena_from_toml``), where an arbiter
    before 8 December 2026 read it from the current folder: a store kept there by that reading
    is named, with the flag that goes on with it. A default one (the file writes none) is the
    current folder's, as every command's --db is: the file's folder holding one instead is
    named likewise."""
    from arbiter.batch.settings import read_toml

    written = read_toml(config).get("server", {})
    for what, value in paths.items():  # ("db", "/abs/conf/arena.sqlite"), as the service has it
        if isinstance(written.get(what), str):  # the file's: its folder's now, the current folder's before
            raw = written[what]
            here, there = Path(value), Path(raw)
            if not here.exists() and not there.is_absolute() and there.exists() and here.resolve() != there.resolve():
                kept = f" (with its {there.stem}.bots folder)" if what == "db" else ""
                raise UsageError(f"{config}: [server] {what} = {raw!r} is the ladder file's folder's, {here}, which is "
                                 f"not there, while the current folder has {there}, where an arbiter before 8 December "
                                 f"2026 kept it: give --{what} {there.resolve()} to go on with it there, or move it{kept} "
                                 f"beside the file")
            continue
        here, there = Path(value), config.parent / value
        if not here.is_absolute() and not here.exists() and there.exists() and here.resolve() != there.resolve():
            raise UsageError(f"{config}: [server] {what} is not set, so {value!r} is read from the current folder, which "
                             f"has none, while the ladder file's folder has {there}: run arbiter arena from "
                             f"{config.parent} (or give --{what} {there} to resume it, --{what} {value} to begin a new "
                             "one here)")


def _serve_web(web: Any) -> None:
    try:
        web.serve_forever()
    except BaseException as exc:  # noqa: BLE001 - the ladder goes on without its page; say so once
        logging.getLogger(__name__).error("the leaderboard page stopped: %r", exc)

