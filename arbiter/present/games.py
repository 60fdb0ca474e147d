"""The pages' one registry of games: how a registered game is drawn.

One line per game, beside the engine's in ``cardarena.games.GAMES`` and the SDK's in
``sdk.games``; a test checks every engine has its line here. Each part is a
``"module:function"`` string, imported on first use:

* ``board(view, names, seat_views) -> list[BoardRow]``: the neutral rows of cards the
  terminal and the replay page draw (``arbiter.present.boards.board``);
* ``table(view, names, me, catalogue, seat_views, options) -> TableModel``: the card table
  of a seat's page and of a replay (``arbiter.present.table.table_model``);
* ``entry(text) -> Entry | None``: an action's sources and target, read from its notation
  (the table's buttons; None: a plain labelled choice);
* ``result(outcome, winners, others, names, me, final_view, options) -> str``: the end of
  a match in a sentence (``arbiter.present.table.verdict``); optional, else a plain one.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class GamePages:
    """How one game is drawn (see the module docstring for each part's signature).

    Attributes:
        board: ``"module:function"`` of its board rows.
        table: ``"module:function"`` of its card table model.
        entry: ``"module:function"`` reading an action's notation for the table.
        result: ``"module:function"`` of its result sentence ("" for the plain one).
    """

    board: str
    table: str
    entry: str
    result: str = ""


_B, _T = "arbiter.present.boards", "arbiter.present.table"

#: game name -> how its pages draw it.
PAGES: dict[str, GamePages] = {
    "spades": GamePages(f"{_B}:_spades_board", f"{_T}:_spades", f"{_T}:_spades_entry", f"{_T}:_spades_result"),
    "spite-and-malice": GamePages(f"{_B}:_spite_board", f"{_T}:_spite", f"{_T}:_spite_entry", f"{_T}:_spite_result"),
    "spot": GamePages(f"{_B}:_spot_board", f"{_T}:_spot", f"{_T}:_spot_entry", f"{_T}:_spot_result"),
}


def page_part(game: str, part: str) -> Callable[..., Any] | None:
    """``game``'s ``part`` (board, table, entry, result) as a function; ValueError for a
    game the pages do not know, None for an optional part it leaves out."""
    pages = PAGES.get(game)
    if pages is None:
        raise ValueError(f"no pages for game {game!r} (known: {', '.join(PAGES)})")
    target = getattr(pages, part)
    return _load(target) if target else None


@functools.lru_cache(maxsize=None)
def _load(target: str) -> Callable[..., Any]:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
