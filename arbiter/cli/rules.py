"""`arbiter rules GAME`: the game's rules in brief, its notation, every option, the presets.

    arbiter rules spades
    arbiter rules spite-and-malice

Everything is read from the engine itself (``cardarena.games``): the summary and notation
it declares, its Options dataclass (names, types and defaults from the declaration, the
meaning of each from the class docstring) and its presets, so the command cannot drift
from the rules that are played. The whole rules of a game of the product are in
docs/rules/GAME.md, its view and actions for a bot author in the SDK's module ``sdk.GAME``; a
game registered from elsewhere (a test's, one being written) is pointed to its own module.
"""

from __future__ import annotations

import importlib.util
from typing import Annotated

import typer
from rich.table import Table

from arbiter.cli._common import _run, app, out
from cardarena.games import GAMES, game_class
from cardarena.games.base import option_specs, value_text


def _plain(text: str) -> str:
    """Docstring markup (``code``) as plain text."""
    return text.replace("``", "")


def _paragraphs(text: str) -> list[str]:
    """Paragraphs separated by blank lines, each joined into one line for the console to wrap."""
    return [" ".join(line.strip() for line in p.splitlines()) for p in text.strip().split("\n\n") if p.strip()]


def _of_the_product(cls: type) -> bool:
    """A game whose engine is one of ``cardarena.games``' folders: its whole rules are in
    docs/rules/ (tests/cli/test_rules_cli.py checks each has its file)."""
    return cls.__module__.startswith("cardarena.games.")


def _documented_in(cls: type) -> str:
    """The module whose pydoc shows a bot author the game's view and actions: the SDK's
    module of the game (``sdk.spite_and_malice``), else, for a game registered from
    elsewhere, the module its view is declared in (named a module that did not exist)."""
    sdk_module = "sdk." + cls.name.replace("-", "_")
    return sdk_module if importlib.util.find_spec(sdk_module) is not None else cls.view_type.__module__


@app.command()
def rules(
    game: Annotated[str, typer.Argument(help=f"Game: {', '.join(GAMES)}.")],
) -> None:
    """Print GAME's rules summary, notation, every option (type, default, meaning) and presets."""
    cls = _run(game_class, game.strip())
    whole = f" (all of them: docs/rules/{cls.name}.md)" if _of_the_product(cls) else ""
    out.print(f"[bold]{cls.name}[/]: the rules in brief{whole}", highlight=False)
    for paragraph in _paragraphs(cls.rules_summary or "(no summary)"):
        out.print(paragraph, highlight=False, markup=False)
        out.print()
    out.print("[bold]Notation[/] (what a bot returns, what records and replays show)", highlight=False)
    notation = Table(box=None, show_header=False, padding=(0, 0, 0, 2), pad_edge=True)
    notation.add_column("action", no_wrap=True, style="bold")
    notation.add_column("meaning", min_width=20)
    notes = []
    for line in (cls.notation or "").strip().splitlines():
        action, sep, meaning = line.partition("  ")
        if sep:
            notation.add_row(action.strip(), meaning.strip())
        else:
            notes.append(line.strip())
    out.print(notation)
    if notes:
        out.print(" ".join(notes), highlight=False, markup=False)
    sdk_module = _documented_in(cls)
    out.print(f"In a bot, choose(view, legal_actions) is given a {cls.view_type.__name__} (every field: pydoc "
              f"{sdk_module}.{cls.view_type.__name__}) and the legal actions, typed (what each is: pydoc "
              f"{sdk_module}); it returns one of them or its notation above.", highlight=False, markup=False)
    out.print()
    out.print(f"[bold]Options[/] of {cls.name}: -o NAME=VALUE (arbiter play, evaluate, tournament run) or a "
              "tournament's \\[options] table", highlight=False)
    for spec in option_specs(cls.Options):
        bounds = f", {spec.range_text}" if spec.range_text else ""
        out.print(f"  [bold]{spec.name}[/]  {spec.type}{bounds}; default {spec.default}", highlight=False)
        grid = Table(box=None, show_header=False, padding=(0, 0, 0, 6), pad_edge=True)
        grid.add_column("meaning")
        grid.add_row(_plain(spec.meaning) or "-")
        out.print(grid)
    out.print()
    if not cls.presets:
        out.print(f"[bold]Presets[/]: none ({cls.name} has no named option sets)", highlight=False)
        return
    out.print("[bold]Presets[/] (--preset NAME, or preset = \"NAME\" in a tournament; options given as well "
              "override the preset's)", highlight=False)
    for name, settings in cls.presets.items():
        what = cls.preset_docs.get(name, "")
        values = ", ".join(f"{k}={value_text(v)}" for k, v in settings.items()) or "every option at its default"
        # each in a grid of its own, so that a line that wraps keeps its indent (the book's doc wrapped to column 0)
        for text, indent in ((f"[bold]{name}[/]" + (f": {what}" if what else ""), 2), (values, 6)):
            if indent == 6 and what.endswith(values):  # (the doc says it already: standard's "every option at its default")
                continue
            grid = Table(box=None, show_header=False, padding=(0, 0, 0, indent), pad_edge=True)
            grid.add_column("text")
            grid.add_row(text)
            out.print(grid)
