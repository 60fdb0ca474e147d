"""The click command of a Typer app, built once per process.

``typer.main.get_command(app)`` rebuilds the whole click tree from the command functions'
signatures (``get_type_hints`` on every ``Annotated`` parameter) on every call, and typer's
``CliRunner.invoke`` calls it on every invocation: in the bad-input walk that rebuild was
two thirds of the CPU. A real ``arbiter`` process builds the tree once and runs one
command; a test process that runs many commands in process builds it once too, and runs
each on the same tree (click keeps no state on it between invocations).

The tree is rebuilt when the app's shape changes (a command or group registered later,
say by a test): the cache is keyed on the callbacks registered, not on the app alone.
"""

from __future__ import annotations

from typing import Any

import typer.main
import typer.testing

_real_get_command = typer.main.get_command
_built: dict[int, tuple[Any, tuple, Any]] = {}  # id(app) -> (app, shape, click command)


def _shape(app: typer.Typer) -> tuple:
    cb = app.registered_callback
    return (id(cb.callback) if cb is not None else None,
            tuple((c.name, id(c.callback)) for c in app.registered_commands),
            tuple((g.name, id(g.typer_instance), _shape(g.typer_instance)) for g in app.registered_groups
                  if g.typer_instance is not None))


def get_command(app: typer.Typer) -> Any:
    """``typer.main.get_command(app)``, built once per shape of ``app``."""
    shape = _shape(app)
    hit = _built.get(id(app))
    if hit is not None and hit[0] is app and hit[1] == shape:
        return hit[2]
    cli = _real_get_command(app)
    _built[id(app)] = (app, shape, cli)
    return cli


def install() -> None:
    """Every ``CliRunner.invoke`` of this process (typer's) reuses the built tree."""
    typer.testing._get_command = get_command  # type: ignore[attr-defined]
