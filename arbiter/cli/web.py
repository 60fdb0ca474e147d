"""`arbiter web`: the standings web page over the store.

    arbiter web                       # http://127.0.0.1:8080/ over ./arena.sqlite
    make demo && arbiter web          # no arena.sqlite yet: the demo's .demo.sqlite (said so)
    arbiter web --db club.sqlite --port 8000
    arbiter web --db new.sqlite       # no such store yet: made empty, for /play's matches (said so)

Read-only: tournaments, standings with ratings and intervals, the cross-table, every
match with its outcome, and a replay viewer that steps through a match card by card.
At /play a person plays a seat against bots (the one page that writes: each finished
match goes to the store; --play-limit, --play-clock).

    arbiter web --arbiter 127.0.0.1:50051 --arbiter-credentials arbiter-credentials.json

also offers, at /play, the bots connected to that standing arbiter (`arbiter serve`) as
`remote:NAME`: they run on their authors' machines, so such a match is refereed there,
the person's seat joining it as bot `browser` (its token, and the admin token, from that
arbiter's credentials file: `arbiter credentials add-bot browser` issues the seat's).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from arbiter.cli._common import DbOpt, MetricsOpt, UsageError, _run, app, err, not_nan, out, port_free, start_metrics, log_to_stderr
from arbiter.store.db import DEFAULT_DB

#: The store `make demo` writes (the Makefile's demo target); `arbiter web` without --db
#: serves it when there is no arena.sqlite, so the demo's standings and /play are one
#: command away.
DEMO_DB = ".demo.sqlite"


def default_store(db: Path | None) -> tuple[Path, str]:
    """The store to serve and a note saying why it is that one ("" when it was given)."""
    if db is not None:
        return db, ""
    if not Path(DEFAULT_DB).exists() and Path(DEMO_DB).is_file():
        return Path(DEMO_DB), (f"no {DEFAULT_DB} here: serving the demo's store {DEMO_DB} (written by `make demo`; "
                               "--db for another)")
    return Path(DEFAULT_DB), ""


def new_store(db: Path, play_limit: int, given: bool) -> None:
    """Create the empty store ``db`` named with --db (``given``) where there is none yet, so
    that /play can be used on it (its finished matches are stored there, as `arbiter play
    --db` stores its match), and say so. With /play off there is nothing to show nor to
    store: refused, naming the commands that fill a store (no file made). Without --db
    nothing is created (not an arena.sqlite in whatever folder it was started in): refused,
    saying how to get one."""
    from arbiter.store.db import Store, StoreError

    if not given:
        raise UsageError(f"no store at {db} (run a tournament first, or `make demo`, or pass --db FILE: a new FILE "
                         "is created empty for /play's matches)")
    if not play_limit:
        raise UsageError(f"no store at {db}, and /play is off (--play-limit 0): nothing to show or store. Fill one first "
                         f"(arbiter tournament run SPEC --db {db}, arbiter play GAME BOT... --db {db}), or allow "
                         "/play (--play-limit N) to have it created for the matches played there")
    try:
        with Store(db):
            pass
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    err.print(f"no store at {db}: created an empty one; /play's matches are stored there", highlight=False, markup=False,
              soft_wrap=True)  # one line: a long path too


#: /play matches at once at most (--play-limit, --play-per-client): each starts bot processes.
MAX_PLAYS = 1024
#: --analysis-samples at most: arbiter.analysis.values.MAX_SAMPLES (not imported here: the
#: analysis loads only once a page asks for one).
MAX_SAMPLES = 1024


@app.command()
def web(
    db: Annotated[Optional[Path], typer.Option(
        "--db", envvar="ARENA_DB", show_default=False,
        help=f"SQLite store file; one named here that does not exist yet is created empty, for /play's matches "
        f"(with /play on). Default: {DEFAULT_DB}, or the demo's {DEMO_DB} (`make demo`) where only it exists.")] = None,
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on (0: any free port).")] = 8080,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log every request (one line each) and the "
                                          "traceback of an error (without it: one line per error).")] = False,
    play_limit: Annotated[Optional[int], typer.Option(min=0, max=MAX_PLAYS, help="Most matches with a person at the table (/play) at "
                                                      "once; 0: none can be started. Default: 4 on a loopback "
                                                      "interface, 0 on any other (anyone reaching the page could "
                                                      "start bot processes: say how many you allow).")] = None,
    play_per_client: Annotated[int, typer.Option(min=1, max=MAX_PLAYS, help="Most /play matches one client (its address) plays at "
                                                 "once; it starts one at a time.")] = 2,
    play_clock: Annotated[float, typer.Option(min=1, max=86_400, callback=not_nan, help="Seconds a person has for each decision at /play; past "
                                              "them the person's side forfeits (the match is recorded). A person whose page "
                                              "has been closed for a minute at their turn forfeits at once.")] = 300,
    metrics: MetricsOpt = None,
    arbiter: Annotated[Optional[str], typer.Option("--arbiter", help="A standing arbiter HOST:PORT (arbiter serve) whose connected "
                                                   "bots /play offers as opponents (remote:NAME), the match played on it.")] = None,
    arbiter_credentials: Annotated[Optional[Path], typer.Option("--arbiter-credentials", envvar="ARENA_ARBITER_CREDENTIALS",
                                                                help="That arbiter's credentials file: its admin token and the "
                                                                "bot token of `browser`, the person's seat (tokens never on the "
                                                                "command line).")] = None,
    arbiter_tls_ca: Annotated[Optional[Path], typer.Option("--arbiter-tls-ca", help="PEM CA certificate: reach --arbiter over TLS.")] = None,
    analysis_samples: Annotated[int, typer.Option(min=0, max=MAX_SAMPLES, help="Sampled states per decision of an analysis a page asks for "
                                                  "(the inspector's 'analyse now', computed in the background and stored; "
                                                  "one at a time); 0: pages compute none.")] = 64,
) -> None:
    """Serve the standings, cross-tables, matches and replays of the store as a web page, and /play (a seat against bots).

    Right after `make demo` (which writes .demo.sqlite), `arbiter web` serves the demo's standings.
    Pages that change (a running tournament, an arena, a seat at /play) update themselves."""
    from arbiter.analysis.jobs import JOBS
    from arbiter.present.web import make_server

    from arbiter.present.play_page import DEFAULT_LIMIT
    from arbiter.server import is_loopback

    JOBS.samples = analysis_samples
    given = db is not None
    db, note = default_store(db)
    if note:
        err.print(note, highlight=False, markup=False)
    if play_limit is None:
        play_limit = DEFAULT_LIMIT if is_loopback(host) else 0
        if not play_limit:
            err.print(f"{host} reaches other machines: /play is off (give --play-limit N to allow N matches with a "
                      "person at once)", highlight=False, markup=False)
    _run(port_free, host, port)  # said as serve and arena say it (not the server's own words), before a store is made
    if not db.exists():
        _run(new_store, db, play_limit, given)
    log_to_stderr(verbose)
    standing = _run(_standing, arbiter, arbiter_credentials, arbiter_tls_ca) \
        if arbiter or arbiter_credentials or arbiter_tls_ca else None

    def listen():
        # Each game's engine is imported on first use (a quarter of a second for Spades): here,
        # not in the first request of a page that replays a match (the inspector's, a replay).
        from cardarena.games import GAMES, game_class

        for name in GAMES:
            game_class(name)
        try:
            return make_server(db, host, port, play_limit=play_limit, play_per_client=play_per_client, play_clock=play_clock,
                               play_arbiter=standing,
                               verbose=verbose)
        except OSError as exc:  # port taken, or host not an interface of this machine
            raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None

    metrics_line = _run(start_metrics, metrics, say=False)  # a taken port fails before anything says "serving"
    server = _run(listen)
    server.stop_on_signals()  # a Ctrl-C as soon as the URL is out is a clean stop too
    out.print(f"serving {db} on {server.url}", highlight=False, markup=False, soft_wrap=True)  # one line: a long path too
    if metrics_line:
        out.print(metrics_line, highlight=False, markup=False)
    sys.stdout.flush()
    try:
        server.serve_forever()  # until Ctrl-C or SIGTERM: open pages' streams end, requests in flight finish
    except KeyboardInterrupt:  # a second Ctrl-C during the stop
        pass
    finally:
        server.server_close()
        err.print("stopped", highlight=False, markup=False)


def _standing(address: str | None, credentials: Path | None, tls_ca: Path | None):
    """--arbiter with its credentials, as /play's ``StandingArbiter``; UsageError naming what is wrong."""
    from arbiter.cli._common import check_address, read_ca
    from arbiter.person.tables import StandingArbiter
    from arbiter.server import auth

    if not address and credentials is None:  # (its CA alone, which would otherwise be ignored)
        raise UsageError("--arbiter-tls-ca needs --arbiter HOST:PORT (the standing arbiter it is the CA of)")
    if not address:
        raise UsageError("--arbiter-credentials needs --arbiter HOST:PORT (the standing arbiter they are for)")
    if credentials is None:
        raise UsageError("--arbiter needs --arbiter-credentials FILE (or ARENA_ARBITER_CREDENTIALS): that arbiter's "
                         "credentials file, with its admin token and a bot token for `browser`")
    check_address(address, "--arbiter")
    ca = read_ca(tls_ca, "--arbiter-tls-ca") if tls_ca is not None else None
    try:
        return StandingArbiter.from_credentials(address, credentials, ca)
    except auth.CredentialsError as exc:
        raise UsageError(f"--arbiter-credentials: {exc}") from None
