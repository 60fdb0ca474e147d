"""`arbiter bots`: write, check, submit and manage bots in the registry.

    arbiter bots new mybot                       # a folder bot from the template
    arbiter bots check mybot/                    # the self-test: a pass/fail report
    arbiter bots submit mybot/ [--name mybot]    # check, store an immutable copy, record it
    arbiter bots list | show mybot[@1.0] | remove mybot[@1.0]
    arbiter bots submit mybot/ --name mybot --server HOST:PORT --token AUTHOR_TOKEN [--tls-ca CA.pem]
    arbiter bots sandbox                         # what the sandbox enforces on this machine
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Annotated, Any, Callable, Optional

import typer
from rich.markup import escape
from rich.table import Table

from arbiter.server import client
from arbiter.store.registry import RegistryError, SubmissionRejected, missing_copy
from arbiter.cli._common import (environment, ENV_BOT_ENVS,
    DbOpt, UsageError, _run, app, check_address, db_or_server, err, error, out, plural, server_ca, TlsCaOpt, token_needs_server,
)
from arbiter.store.db import DEFAULT_DB
from cardarena import names
from cardarena.records import MAX_CLOCK_MS
from cardarena.runtimes import MANIFEST

bots_app = typer.Typer(help="Bots: a template, a self-test, the registry (submit, list, show, remove).", no_args_is_help=True)
app.add_typer(bots_app, name="bots")

ServerOpt = Annotated[Optional[str], typer.Option("--server", help="A running arbiter HOST:PORT (its Bots service, its own registry) instead of the local --db (not both).")]
FreshOpt = Annotated[bool, typer.Option("--fresh", help="Run the self-test again even if this content passed it before "
                                         "with the same settings and arbiter code (its report is otherwise reused).")]
TokenOpt = Annotated[Optional[str], typer.Option("--token", envvar="ARENA_AUTHOR_TOKEN", help="Author or admin token of --server (env ARENA_AUTHOR_TOKEN).")]
TEMPLATE = Path(__file__).resolve().parent.parent.parent / "bots" / "template" / "bot.py"


def _name_version(name: str, version: Optional[str] = None) -> tuple[str, Optional[str]]:
    """A bot named as a tournament names it: NAME (every version) or NAME@VERSION (that one),
    as (name, version); ``version`` (remove's --version) must then be the same one."""
    if not names.is_ref(name):
        return name, version
    base, at = names.split_ref(name)
    if version is not None and version != at:
        raise UsageError(f"{name} names version {at}, and --version {version} another: give the version once")
    return base, at


def _only_version(rows: list[dict[str, Any]], name: str, version: str) -> list[dict[str, Any]]:
    """The row of ``version`` among a bot's ``rows``; UsageError naming the versions it has."""
    mine = [r for r in rows if r["version"] == version]
    if not mine:
        known = ", ".join(r["version"] for r in rows)
        raise UsageError(f"{name} has no version {version!r} (its version{'s' if len(rows) > 1 else ''}: {known})")
    return mine


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Like _run, also turning registry errors into a clear message and exit 2."""
    try:
        return _run(fn, *args, **kwargs)
    except SubmissionRejected as exc:
        _print_report(exc.report.to_dict())
        err.print(f"[bold red]rejected:[/] {escape(str(exc))}", soft_wrap=True, highlight=False)
        raise typer.Exit(1) from None
    except RegistryError as exc:
        error(exc)
        raise typer.Exit(2) from None


def _server(address: str) -> str:
    return _run(check_address, address, "--server")


def _one_registry(ctx: typer.Context) -> None:
    """``--db`` and ``--server`` together: refused, not ``--db`` ignored (the bot would be
    registered, listed or shown in the arbiter's registry, never in that store's)."""
    _run(db_or_server, ctx, "uses the registry of a local store", "that of a running arbiter")


def _no_token_without_server(server: str | None, token: str | None) -> None:
    """``--token`` without ``--server``: refused, not ignored (a local submit would run the
    whole self-test first)."""
    _run(token_needs_server, server, token, "--token", "ARENA_AUTHOR_TOKEN", "to use the local --db")


def _existing_store(db: Path) -> Path:
    """``db`` if it is a file; UsageError otherwise (reading never creates a store)."""
    if not db.exists():
        raise UsageError(f"no store at {db} (arbiter bots submit registers bots there, or pass --db)")
    if not db.is_file():
        raise UsageError(f"--db {db}: is a folder, not a store file")
    return db


def _print_report(report: dict[str, Any], title: str | None = None) -> None:
    """The self-test's checks, titled by what was checked (``title``: what it is registered as)."""
    bot = report.get("bot") or {}
    games = ', '.join(bot.get('games', []))
    if title is None:
        if bot.get("name"):
            title = f"{report.get('spec', '')}: {bot['name']} {bot.get('version', '')}".rstrip()
        else:  # it did not load: nothing of it is known but where it is
            title = f"{report.get('spec', '')}: did not load"
    if games:
        title = f"{title}, games {games}"
    table = Table(title=escape(title))  # what a bot said of itself, and its errors: not markup
    table.add_column("check")
    table.add_column("result")
    table.add_column("detail", overflow="fold")
    for c in report.get("checks", []):
        table.add_row(escape(str(c["name"])), "[green]pass[/]" if c["ok"] else "[bold red]FAIL[/]", escape(str(c.get("detail", ""))))
    out.print(table)
    if report.get("reused_from"):
        out.print(f"the report of an earlier check of the same content, settings and arbiter code "
                  f"({escape(str(report['reused_from']))}); --fresh runs it again", highlight=False)


def _versions_table(rows: list[dict[str, Any]], title: str) -> Table:
    table = Table(title=escape(title))
    for col in ("name", "version", "hash", "games", "det.", "author", "checks"):
        # a name and a version are what `name@version` takes: whole, never `timebom…`
        whole = {"name": max([4] + [len(r["name"]) for r in rows]),
                 "version": max([7] + [len(r["version"]) for r in rows])}.get(col)
        table.add_column(col, no_wrap=whole is not None, min_width=whole, overflow="fold")
    for r in rows:
        report = r["report"]
        passed = sum(1 for c in report.get("checks", []) if c["ok"])
        table.add_row(escape(r["name"]), escape(r["version"]), r["content_hash"][:12], escape(",".join(r["games"])),
                      "yes" if r["deterministic"] else "no", escape(r["author"]), f"{passed}/{len(report.get('checks', []))}")
    return table


def _ladders_table(ladders: list[dict[str, Any]]) -> Table:
    """Where a bot's versions stand in the arenas: rating ± its 95% interval and play (the
    reason a version is not playing follows the table, in full: ``_ladder_reasons``)."""
    table = Table(title="in the arenas")
    for col in ("arena", "version", "status", "rating", "encounters", "matches", "forfeits"):
        table.add_column(col, justify="left" if col in ("arena", "version", "status") else "right",
                         no_wrap=col in ("status", "rating"))
    for s in ladders:
        status = s["status"] if s["status"] not in ("suspended", "rejected") else f"[bold red]{s['status']}[/]"
        table.add_row(escape(s["arena"]), escape(s["player"]), status, f"{s['mu']:.2f} ± {1.96 * s['sigma']:.2f}",
                      str(s["encounters"]), str(s["matches"]), str(s["failures"]))
    return table


def _ladder_reasons(ladders: list[dict[str, Any]]) -> None:
    for s in ladders:
        if s["reason"]:
            out.print(f"{escape(s['player'])} in {escape(s['arena'])}: {s['status']}: {escape(s['reason'])}",
                      highlight=False, soft_wrap=True)


def _row(v: Any) -> dict[str, Any]:
    """A stored BotVersion as a plain dict (what the Bots service client returns too)."""
    return {"name": v.name, "version": v.version, "content_hash": v.content_hash, "games": list(v.games),
            "deterministic": v.deterministic, "author": v.author, "report": v.report, "entry": v.entry, "path": str(v.path)}


@bots_app.command("new")
def new(
    name: Annotated[str, typer.Argument(help="Bot name; also the folder created.")],
    dest: Annotated[Path, typer.Option("--dir", help="Where to create the folder.")] = Path("."),
) -> None:
    """Create a folder bot from the template (bot.py: one sdk.Bot subclass)."""
    from arbiter.batch.submissions import check_submitted_name

    _call(check_submitted_name, name)  # the name its class declares: what `bots submit` registers it under
    folder = dest / name
    if folder.exists():
        error(f"{folder} already exists")
        raise typer.Exit(2)
    if dest.exists() and not dest.is_dir():
        error(f"--dir {dest}: not a folder")
        raise typer.Exit(2)
    text = _run(TEMPLATE.read_text)  # a checkout this user may not read (root's home, mode 700): one line
    cls = "".join(p.capitalize() for p in name.replace(".", "_").replace("-", "_").split("_") if p) + "Bot"
    if not cls[0].isalpha():
        cls = "My" + cls
    text = text.replace("class TemplateBot(Bot):", f"class {cls}(Bot):").replace('name = "template"', f'name = "{name}"')

    def write() -> None:
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(text)

    _run(write)
    out.print(f"created {folder}/bot.py: edit choose(), then `arbiter bots check {folder}`", markup=False, highlight=False)


@bots_app.command("check", epilog=environment(ENV_BOT_ENVS))
def check(
    path: Annotated[Path, typer.Argument(help="A bot file (.py) or folder (with bot.py, or a bot.toml naming its runtime: node).")],
    positions: Annotated[int, typer.Option(min=1, max=10_000, help="Random positions to answer per game.")] = 200,
    decision_ms: Annotated[int, typer.Option("--decision-ms", min=1, max=MAX_CLOCK_MS, help="Per-decision limit the bot must keep.")] = 2000,
    smoke: Annotated[bool, typer.Option(help="Also play a smoke match against the random bot.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    fresh: FreshOpt = False,
) -> None:
    """Check a bot without submitting it; exit 1 if any check fails."""
    from arbiter.batch.submissions import check_bot, declared_name
    from arbiter.store.registry import RegistryError, collect

    _call(collect, path)  # the layout a submission needs
    report = _call(check_bot, path, positions=positions, decision_ms=decision_ms, smoke=smoke, fresh=fresh).to_dict()
    if as_json:
        out.print_json(json.dumps(report))
    else:
        _print_report(report)
        out.print("[bold green]PASS[/]" if report["ok"] else "[bold red]FAIL[/]")
        if report["ok"]:
            try:  # what `bots submit` without --name would say, said now
                declared_name(report.get("bot") or {})
            except RegistryError as exc:
                err.print(f"[yellow]note:[/] {escape(str(exc))}", highlight=False)
    if not report["ok"]:
        raise typer.Exit(1)


@bots_app.command("submit")
def submit(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="A bot file (.py) or folder (with bot.py, or a bot.toml naming its runtime: node).")],
    name: Annotated[Optional[str], typer.Option("--name", help="Registry name (default: the one the bot declares: its "
                                                 "class's name = \"...\", or another runtime's Hello.bot_name; never a "
                                                 "bundled bot's).")] = None,
    version: Annotated[Optional[str], typer.Option("--version", help="Version label (default: the bot's own).")] = None,
    db: DbOpt = Path(DEFAULT_DB),
    server: ServerOpt = None,
    token: TokenOpt = None,
    tls_ca: TlsCaOpt = None,
    fresh: FreshOpt = False,
) -> None:
    """Check a bot and register an immutable, content-hashed copy of it."""
    _one_registry(ctx)
    _no_token_without_server(server, token)
    ca = _run(server_ca, server, tls_ca)
    from arbiter.store import registry as reg
    from functools import partial

    from arbiter.batch.submissions import check_bot, check_submitted_name, notices, submit as submit_bot

    sub = _call(reg.collect, path)
    if sub.left_out:
        err.print(f"[yellow]note:[/] left out of the submission: {escape(', '.join(sub.left_out))} (an arbiter's store "
                  "and its bots' copies, made by running arbiter in the bot's folder; a bot's own data needs another name)",
                  highlight=False)
    from arbiter.server.auth import DEFAULT_FILE, credentials_among

    if secrets := credentials_among(sub.files):
        error(f"{path / secrets[0]}: a standing arbiter's credentials file (its admin and bot tokens) is in the bot's "
              f"folder, and a submission would copy it, readable by all, into the registry{' of ' + server if server else ''}"
              f": move it out (run arbiter serve in another folder, or give it --credentials PATH; its default is "
              f"{DEFAULT_FILE} in the folder it runs in)")
        raise typer.Exit(2)
    if name is not None:
        _call(check_submitted_name, name)  # before the self-test, not after it
    if server:
        row = _call(client.submit_bot, _server(server), sub, token or "", name or "", version or "", tls_ca=ca)
    else:
        if version:
            _call(reg.check_version, version)
        with _call(reg.Registry, db) as registry:
            v, _ = _call(submit_bot, registry, sub, name, version, check=partial(check_bot, fresh=True) if fresh else None)
            row = _row(v) | {"notices": _call(notices, registry, v)}  # (a store damaged in its arenas: said, not a traceback)
    # titled by the author's path and what is registered, not the stored copy's path and
    # the version the bot says of itself
    _print_report(row["report"], f"{path}: {row['name']} {row['version']}")
    out.print(f"registered [bold]{escape(row['name'])} {escape(row['version'])}[/] ({row['content_hash'][:12]})"
              + escape(f" at {row['path']}" if "path" in row else f" on {server}"), highlight=False)
    if name is None and sub.entry == MANIFEST:  # a bot of another runtime (a Node bot): no class, its Hello names it
        out.print(f"(the name its Hello says, bot_name \"{escape(row['name'])}\"; --name NAME registers it under another)",
                  highlight=False)
    elif name is None:
        out.print(f"(the name its class declares, name = \"{escape(row['name'])}\"; --name NAME registers it under "
                  "another)", highlight=False)
    for notice in row["notices"]:
        err.print(f"[yellow]note:[/] {escape(notice)}", highlight=False)


@bots_app.command("list")
def list_(ctx: typer.Context, db: DbOpt = Path(DEFAULT_DB), server: ServerOpt = None, token: TokenOpt = None, tls_ca: TlsCaOpt = None) -> None:
    """The registered bots and their versions."""
    _one_registry(ctx)
    _no_token_without_server(server, token)
    ca = _run(server_ca, server, tls_ca)
    if server:
        rows = _call(client.list_bots, _server(server), token or "", tls_ca=ca)
    else:
        from arbiter.store.registry import Registry

        with _call(Registry, _call(_existing_store, db), read_only=True) as registry:
            rows = [_row(v) for v in _call(registry.versions)]
    if not rows:
        out.print("no bots registered")
        return
    out.print(_versions_table(rows, "registered bots"))


NameArg = Annotated[str, typer.Argument(help="The registered bot: NAME (every version), or NAME@VERSION (that version "
                                             "only), as a tournament names it.", show_default=False)]


@bots_app.command("show")
def show(ctx: typer.Context, name: NameArg, db: DbOpt = Path(DEFAULT_DB), server: ServerOpt = None, token: TokenOpt = None,
         tls_ca: TlsCaOpt = None) -> None:
    """One bot's versions, the latest's check report and its arena standing (NAME@VERSION: that version's).

    Where it stands: its rating, games, and why a version was suspended. NAME@VERSION shows that version alone, its report and its place."""
    _one_registry(ctx)
    _no_token_without_server(server, token)
    ca = _run(server_ca, server, tls_ca)
    name, version = _run(_name_version, name)
    if server:
        rows, ladders = _call(client.show_bot, _server(server), token or "", name, tls_ca=ca)
    else:
        from dataclasses import asdict

        from arbiter.store.arenas import standings_of
        from arbiter.store.registry import Registry

        with _call(Registry, _call(_existing_store, db), read_only=True) as registry:
            versions = _call(registry.versions, name)
            if not versions and (remote := [asdict(s) for s in standings_of(registry.db, name, remote=True)]):
                # connected to a remote division, never submitted: where it stands is all there is
                out.print(f"{escape(name)} is not registered here: a bot of the remote division (it connects with its "
                          "bot token; its author's machine runs it)", highlight=False)
                out.print(_ladders_table(remote))
                _ladder_reasons(remote)
                return
            if not versions and (house := [asdict(s) for s in standings_of(registry.db, name, house=True)]):
                # an arena's house bot (its operator's baseline), never submitted: as the remote division's
                out.print(f"{escape(name)} is not registered here: a house bot of "
                          f"{plural(len(house), 'arena')} (its operator's, named in the arena's settings)",
                          highlight=False)
                out.print(_ladders_table(house))
                _ladder_reasons(house)
                return
            if not versions:
                _call(registry.get, name)  # the clear "no bot" error, with the closest name
            rows = [_row(v) for v in versions]
            for r, v in zip(rows, versions):
                r["intact"] = _call(registry.verify, v)
            ladders = [asdict(s) for s in standings_of(registry.db, name)]
    if version is not None:  # (a remote division's bot, or a house bot, has no versions: refused here too)
        rows = _run(_only_version, rows, name, version)
        ladders = [s for s in ladders if s["player"] == f"{name}@{version}"]
    out.print(_versions_table(rows, name if version is None else f"{name}@{version}"))
    if ladders:
        out.print(_ladders_table(ladders))
        _ladder_reasons(ladders)
    latest = rows[-1]
    if "path" in latest:
        # a copy that is not there at all is missing, not tampered with: its store was moved without it
        intact = "yes" if latest["intact"] else "[bold red]NO[/]"
        if server is None and not latest["intact"] and not Path(latest["path"]).is_dir():
            ref = f"{name}@{latest['version']}"
            intact += f": {escape(missing_copy(db, ref, Path(latest['path'])))}"
        out.print(f"stored at {escape(latest['path'])} (entry {escape(latest['entry'])}); copy intact: {intact}",
                  highlight=False)
    # titled by what is registered, as submit's table is: the report's own spec is where it
    # was checked, a temporary folder of the checking machine (/tmp/arena-submit-.../bot)
    _print_report(latest["report"], f"{latest['entry']}: {latest['name']} {latest['version']}")


@bots_app.command("remove")
def remove(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The registered bot: NAME (every version of it), or NAME@VERSION (that "
                                             "version only), as a tournament names it.", show_default=False)],
    version: Annotated[Optional[str], typer.Option("--version", help="Only this version (default: all); the same as NAME@VERSION.")] = None,
    db: DbOpt = Path(DEFAULT_DB),
    server: ServerOpt = None,
    token: TokenOpt = None,
    tls_ca: TlsCaOpt = None,
) -> None:
    """Remove a bot version (NAME@VERSION), or the bot (NAME: every version).

    A version names one set of files for good: one removed keeps its number, refused to other files (the same files may come back under it), and the matches stored under it stay, with their records."""
    _one_registry(ctx)
    _no_token_without_server(server, token)
    ca = _run(server_ca, server, tls_ca)
    name, version = _run(_name_version, name, version)
    if server:
        n = _call(client.remove_bot, _server(server), token or "", name, version or "", tls_ca=ca)
    else:
        from arbiter.store.registry import Registry

        with _call(Registry, _call(_existing_store, db), read_only=True) as registry:
            if registry.owner(name) is None:
                _call(registry.remove, name, version)  # the clear "no bot" error, writing nothing
        with _call(Registry, db) as registry:
            n = _call(registry.remove, name, version)
    out.print(f"removed {n} version{'s' if n != 1 else ''} of {name}", markup=False, highlight=False)


@bots_app.command("sandbox")
def sandbox() -> None:
    """What the bot sandbox enforces on this machine, and what it cannot."""
    from arbiter.hosting.sandbox import Sandbox, available_modes

    box = _call(Sandbox)
    desc = box.describe()
    out.print(f"sandbox mode: [bold]{box.mode}[/] (available here: {', '.join(available_modes())}; ARENA_SANDBOX overrides)")
    for line in desc["enforced"]:
        out.print(f"  [green]enforced[/]  {line}")
    for line in desc["not enforced"]:
        out.print(f"  [yellow]not enforced[/]  {line}")
    if shutil.which("bwrap") is None:
        out.print("install bubblewrap (apt-get install bubblewrap) for network and file isolation")
