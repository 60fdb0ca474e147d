"""The ``arbiter`` command: a thin typer + rich layer over the library API.

    arbiter serve --port 50051 --bot north --bot south
    arbiter play spades heuristic random heuristic random --seed 7
    arbiter tournament run --game spades --bots random,greedy,heuristic --deals 4
    arbiter standings
    arbiter replay MATCH_ID
    arbiter analyse MATCH_ID --seat 2

This package only wires commands together; each command module parses its arguments,
calls one library function and renders the result. Only the CLI knows about rich.

A command loads only its own module (``COMMANDS``) and the library that module uses:
``arbiter serve`` does not import the tournament runner, the analysis or the ratings. All
of them at once took about 0.55 s of CPU at every start, paid by every server, web page
server and command a script or a test starts; ``arbiter --help`` (and an unknown command,
whose error lists the others) loads every module. ``app`` here is the whole command, every
module loaded (``from arbiter.cli import app``, as the tests and typer's docs tools use it).
"""

from __future__ import annotations

import importlib
import sys

#: The module of ``arbiter.cli`` that registers each top-level command (a test checks this
#: table against what the modules register, so it cannot fall behind them).
COMMANDS = {
    "serve": "serve",
    "play": "play",
    "tournament": "tournament",
    "standings": "tournament",
    "replay": "replay",
    "evaluate": "evaluate",
    "bots": "bots",
    "watch": "watch",
    "web": "web",
    "rules": "rules",
    "credentials": "credentials",
    "arena": "arena",
    "analyse": "analyse",
    "export": "export",
}


def load(*commands: str):
    """The typer app with the modules of ``commands`` registered (every module if none is
    named or one is not a command)."""
    if commands and all(c in COMMANDS for c in commands):
        modules = {COMMANDS[c] for c in commands}
    else:
        modules = set(COMMANDS.values())
    for name in sorted(modules):
        importlib.import_module(f"arbiter.cli.{name}")
    from arbiter.cli._common import app as typer_app

    return typer_app


def command_named(argv: list[str]) -> str | None:
    """The command a command line names: its first word that is not an option (the app
    itself takes no option with a value), or None."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word
    return None


def for_command_line(argv: list[str]):
    """The typer app with what the command line ``argv`` (without the program) needs loaded."""
    name = command_named(argv)
    return load(*([name] if name else []))


def main() -> None:
    for_command_line(sys.argv[1:])()


def __getattr__(name: str):
    if name == "app":  # the whole command: every module registered
        return load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
