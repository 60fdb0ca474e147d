"""Tables that fit the terminal: the columns that matter stay whole, the others go first.

A rich table squeezed below its natural width wraps or cuts every column alike, so at 80
columns the standings lost the rank and cut every name and number. ``fitted_table``
instead drops whole columns, least important first, until the rest fits, keeps the
essential ones unwrapped (rank, bot, score), and says in the caption what it left out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

from rich import box
from rich.table import Table
from rich.text import Text

from arbiter.cli._common import out


@dataclass(frozen=True)
class Column:
    header: str
    justify: str = "right"
    #: 0: always shown; a higher number is dropped earlier when the table is too wide.
    drop: int = 0
    #: the column may wrap (long lists such as the seats of a match); else no_wrap.
    wrap: bool = False
    style: str | None = None
    #: a name that may be cut with an ellipsis when even the essential columns do not fit.
    shrink: bool = False


def console_width() -> int:
    """The width to lay tables out for: the console's, or ``COLUMNS`` if it is narrower
    (rich reads ``COLUMNS`` once, when the console is made; it may have changed since)."""
    cols = os.environ.get("COLUMNS", "")
    return min(int(cols), out.width) if cols.isdigit() and int(cols) > 0 else out.width


def _natural(col: Column, cells: Sequence[str]) -> int:
    """The width the column's longest cell needs (markup not counted)."""
    return max(len(Text.from_markup(t).plain) for t in [col.header, *cells])


def fitted_table(columns: Sequence[Column], rows: Sequence[Sequence[str]], *, title: str = "", caption: str = "",
                 width: int | None = None, min_wrap: int = 12, wrap_at: int = 30,
                 hint: str = "widen the terminal or export with --format") -> Table:
    """A table of ``rows`` with as many of ``columns`` as fit in ``width`` (the terminal's).

    A wrapping column counts as its longest cell up to ``wrap_at`` characters (beyond
    that it wraps rather than cost other columns), and never below ``min_wrap``. ``hint``:
    where the columns left out can be seen, said in the caption (a command without
    ``--format`` names its own)."""
    width = console_width() if width is None else width
    natural = [_natural(c, [r[i] for r in rows]) for i, c in enumerate(columns)]
    # A droppable column with nothing in it (no incidents, say) costs room and says nothing.
    empty = {i for i, c in enumerate(columns) if c.drop and rows and not any(r[i].strip() for r in rows)}
    keep = [i for i in range(len(columns)) if i not in empty]

    def needed(idx: list[int]) -> int:
        # content + one space of padding on each side, none at the table's edges
        return sum(min(natural[i], wrap_at) if columns[i].wrap else natural[i] for i in idx) + 2 * (len(idx) - 1)

    for i in sorted((i for i in keep if columns[i].drop), key=lambda i: -columns[i].drop):
        if needed(keep) <= width:
            break
        keep.remove(i)
    dropped = [columns[i].header for i in range(len(columns)) if i not in keep and i not in empty]
    if dropped:
        note = f"(at {width} columns {', '.join(dropped)} not shown: {hint})"
        caption = f"{caption}\n{note}" if caption else note
    table = Table(title=title or None, caption=caption or None, caption_justify="left", box=box.SIMPLE_HEAD,
                  show_edge=False, padding=(0, 1), pad_edge=False, collapse_padding=True)
    for i in keep:
        c = columns[i]
        if c.wrap:
            table.add_column(c.header, justify=c.justify, style=c.style, overflow="fold", min_width=min(natural[i], min_wrap))
        elif c.shrink:
            table.add_column(c.header, justify=c.justify, style=c.style, no_wrap=True, overflow="ellipsis",
                             min_width=min(natural[i], min_wrap))
        else:
            table.add_column(c.header, justify=c.justify, style=c.style, no_wrap=True, min_width=natural[i])
    for r in rows:
        table.add_row(*[r[i] for i in keep])
    return table
