"""`arbiter bots`: write, check, submit and manage bots in the registry.

    arbiter bots new mybot                       # a folder bot from the template
    arbiter bots check mybot/                    # the self-test: a pass/fail report
    arbiter bots submit mybot/ --name mybot      # check, store an immutable copy, record it
    arbiter bots list | show mybot | remove mybot [--version 1.0]
    arbiter bots submit mybot/ --name mybot --server HOST:PORT --token AUTHOR_TOKEN
    arbiter bots sandbox                         # what the sandbox enforces on this machine
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Annotated, Any, Callable, Optional

import typer
from rich.table import Table

from arbiter.server import client
from arbiter.store.registry import RegistryError, SubmissionRejected
from arbiter.cli._common import DbOpt, _run, app, err, out
from arbiter.store.db import DEFAULT_DB

bots_app = typer.Typer(help="Bots: a template, a self-test, the registry (submit, list, show, remove).", no_args_is_help=True)
app.add_typer(bots_app, name="bots")

ServerOpt = Annotated[Optional[str], typer.Option("--server", help="A running arbiter HOST:PORT (its Bots service) instead of the local --db.")]
TokenOpt = Annotated[Optional[str], typer.Option("--token", envvar="ARENA_AUTHOR_TOKEN", help="Author or admin token of --server (env ARENA_AUTHOR_TOKEN).")]
TEMPLATE = Path(__file__).resolve().parent.parent.parent / "bots" / "template" / "bot.py"


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Like _run, also turning registry errors into a clear message and exit 2."""
    try:
        return _run(fn, *args, **kwargs)
    except SubmissionRejected as exc:
        _print_report(exc.report.to_dict())
        err.print(f"[bold red]rejected:[/] {exc}")
        raise typer.Exit(1) from None
    except RegistryError as exc:
        err.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None


def _print_report(report: dict[str, Any]) -> None:
    bot = report.get("bot") or {}
    title = f"{report.get('spec', '')}: {bot.get('name', '?')} {bot.get('version', '')}, games {', '.join(bot.get('games', [])) or '?'}"
    table = Table(title=title)
    table.add_column("check")
    table.add_column("result")
    table.add_column("detail", overflow="fold")
    for c in report.get("checks", []):
        table.add_row(c["name"], "[green]pass[/]" if c["ok"] else "[bold red]FAIL[/]", c.get("detail", ""))
    out.print(table)


def _versions_table(rows: list[dict[str, Any]], title: str) -> Table:
    table = Table(title=title)
    for col in ("name", "version", "hash", "games", "det.", "author", "checks"):
        table.add_column(col)
    for r in rows:
        report = r["report"]
        passed = sum(1 for c in report.get("checks", []) if c["ok"])
        table.add_row(r["name"], r["version"], r["content_hash"][:12], ",".join(r["games"]), "yes" if r["deterministic"] else "no",
                      r["author"], f"{passed}/{len(report.get('checks', []))}")
    return table


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
    from arbiter.store.registry import check_name

    _call(check_name, name)
    folder = dest / name
    if folder.exists():
        err.print(f"[bold red]error:[/] {folder} already exists")
        raise typer.Exit(2)
    folder.mkdir(parents=True)
    text = TEMPLATE.read_text()
    cls = "".join(p.capitalize() for p in name.replace(".", "_").replace("-", "_").split("_") if p) + "Bot"
    if not cls[0].isalpha():
        cls = "My" + cls
    text = text.replace("class TemplateBot(Bot):", f"class {cls}(Bot):").replace('name = "template"', f'name = "{name}"')
    (folder / "bot.py").write_text(text)
    out.print(f"created {folder}/bot.py: edit choose(), then `arbiter bots check {folder}`")


@bots_app.command("check")
def check(
    path: Annotated[Path, typer.Argument(help="A bot file (.py) or folder (with bot.py).")],
    positions: Annotated[int, typer.Option(help="Random positions to answer per game.")] = 200,
    decision_ms: Annotated[int, typer.Option("--decision-ms", help="Per-decision limit the bot must keep.")] = 2000,
    smoke: Annotated[bool, typer.Option(help="Also play a smoke match against the random bot.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check a bot without submitting it; exit 1 if any check fails."""
    from arbiter.tournament.submissions import check_bot
    from arbiter.store.registry import collect

    _call(collect, path)  # the layout a submission needs
    report = _call(check_bot, path, positions=positions, decision_ms=decision_ms, smoke=smoke).to_dict()
    if as_json:
        out.print_json(json.dumps(report))
    else:
        _print_report(report)
        out.print("[bold green]PASS[/]" if report["ok"] else "[bold red]FAIL[/]")
    if not report["ok"]:
        raise typer.Exit(1)


@bots_app.command("submit")
def submit(
    path: Annotated[Path, typer.Argument(help="A bot file (.py) or folder (with bot.py).")],
    name: Annotated[str, typer.Option("--name", help="Registry name.")],
    version: Annotated[Optional[str], typer.Option("--version", help="Version label (default: the bot's own).")] = None,
    db: DbOpt = Path(DEFAULT_DB),
    server: ServerOpt = None,
    token: TokenOpt = None,
) -> None:
    """Check a bot and register an immutable, content-hashed copy of it."""
    from arbiter.store import registry as reg

    sub = _call(reg.collect, path)
    if server:
        row = _call(client.submit_bot, server, sub, token or "", name, version or "")
    else:
        with reg.Registry(db) as registry:
            v, _ = _call(submit, registry, sub, name, version)
            row = _row(v)
    _print_report(row["report"])
    out.print(f"registered [bold]{row['name']} {row['version']}[/] ({row['content_hash'][:12]})"
              + (f" at {row['path']}" if "path" in row else f" on {server}"))


@bots_app.command("list")
def list_(db: DbOpt = Path(DEFAULT_DB), server: ServerOpt = None, token: TokenOpt = None) -> None:
    """The registered bots and their versions."""
    if server:
        rows = _call(client.list_bots, server, token or "")
    else:
        from arbiter.store.registry import Registry

        with _call(Registry, db) as registry:
            rows = [_row(v) for v in registry.versions()]
    if not rows:
        out.print("no bots registered")
        return
    out.print(_versions_table(rows, "registered bots"))


@bots_app.command("show")
def show(name: str, db: DbOpt = Path(DEFAULT_DB), server: ServerOpt = None, token: TokenOpt = None) -> None:
    """One bot's versions and the check report of the latest."""
    if server:
        rows = _call(client.show_bot, server, token or "", name)
    else:
        from arbiter.store.registry import Registry

        with _call(Registry, db) as registry:
            rows = [_row(v) for v in registry.versions(name)]
            if not rows:
                _call(registry.get, name)  # the clear "no bot" error
            for r, v in zip(rows, registry.versions(name)):
                r["intact"] = registry.verify(v)
    out.print(_versions_table(rows, name))
    latest = rows[-1]
    if "path" in latest:
        out.print(f"stored at {latest['path']} (entry {latest['entry']}); copy intact: {'yes' if latest['intact'] else '[bold red]NO[/]'}")
    _print_report(latest["report"])


@bots_app.command("remove")
def remove(
    name: str,
    version: Annotated[Optional[str], typer.Option("--version", help="Only this version (default: all).")] = None,
    db: DbOpt = Path(DEFAULT_DB),
    server: ServerOpt = None,
    token: TokenOpt = None,
) -> None:
    """Remove a bot version, or the bot."""
    if server:
        n = _call(client.remove_bot, server, token or "", name, version or "")
    else:
        from arbiter.store.registry import Registry

        with _call(Registry, db) as registry:
            n = _call(registry.remove, name, version)
    out.print(f"removed {n} version{'s' if n != 1 else ''} of {name}")


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
