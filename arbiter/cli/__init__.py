"""The ``arbiter`` command: a thin typer + rich layer over the library API.

    arbiter serve --port 50051 --bot north --bot south
    arbiter play spades heuristic random heuristic random --seed 7
    arbiter tournament run --game spades --bots random,greedy,heuristic --deals 4
    arbiter standings
    arbiter replay MATCH_ID
    arbiter analyse MATCH_ID --seat 2

This package only wires commands together; each command module parses its arguments,
calls one library function and renders the result. Only the CLI knows about rich.
"""

from arbiter.cli._common import app
from arbiter.cli import play, replay, serve, tournament  # noqa: F401  (registers the commands)
from arbiter.cli import evaluate  # noqa: F401  (registers `arbiter evaluate`)
from arbiter.cli import bots  # noqa: F401  (bot template, self-test, registry)
from arbiter.cli import watch, web  # noqa: F401  (spectating: live and on a web page)
from arbiter.cli import rules  # noqa: F401  (`arbiter rules GAME`: rules, notation, options, presets)
from arbiter.cli import credentials  # noqa: F401  (a standing arbiter's tokens)
from arbiter.cli import arena  # noqa: F401  (`arbiter arena`: a continuous rated ladder)
from arbiter.cli import analyse  # noqa: F401  (`arbiter analyse`: a seat's decisions valued, its mistakes)
from arbiter.cli import export  # noqa: F401  (`arbiter export --decisions`: a training dataset)


def main() -> None:
    app()
