"""Stored matches as per-seat decisions, for training: ``arbiter export --decisions``.

One row per decision a seat took: the ``sdk.encoding`` tensor of the view it was asked
with, the mask of its legal actions, the index of the action it played, and the match's
final outcome for it. The schema is in docs/datasets.md (and ``SCHEMA`` below); the file
is Parquet, written with pyarrow (the ``data`` extra: ``pip install 'card-arena[data]'``).

What a row holds is what that seat saw, and nothing else: each seat's decisions come from
the one replay verifier stepping the record from that seat's viewpoint
(``cardarena.replay.step_record(record, seat)``), so the tensor is the encoding of
``State.view(seat)`` and the mask that seat's legal actions. The deal seed is not written
(it would give every hidden hand away): ``match_id`` and ``deal`` say which deal a row is
of. A match is exported only where the disclosure rule lets its actions be shown
(``cardarena.disclosure``: never a match of a tournament still running with duplicate
deals); a tournament named on purpose that is closed is refused with the rule's own words.

``decisions(record)`` is the library function (pure: a record in, rows out);
``export(store, path)`` writes a file; ``read(path)`` reads one back as the same rows.
"""

from __future__ import annotations

import array
import json
import os
from dataclasses import dataclass, fields
from typing import Any, Callable, Iterable, Iterator, Sequence

from arbiter.hosting.encoding import Encoder, encoder
from arbiter.store.arenas import arena_matches
from arbiter.store.db import MatchRow, Store, TournamentRow
from cardarena.disclosure import Withheld
from cardarena.games import get_game
from cardarena.records import MatchRecord
from cardarena.replay import ReplayError, step_record

FORMAT = "cardarena-decisions/1"
EXTRA_HINT = ("the decisions' Parquet files (arbiter export --decisions, and reading them back) need pyarrow, which "
              "is not installed: pip install 'card-arena[data]' (or pip install pyarrow)")


@dataclass(frozen=True)
class Decision:
    """One decision of one seat (a row of the export; docs/datasets.md)."""

    tournament: str  # the tournament's name
    match_id: str
    deal: int  # the tournament's deal number: matches of one deal (duplicate seatings) share it
    seating: int  # which seating of that deal
    seat: int
    bot: str  # the bot at this seat
    step: int  # the index of this action among the match's actions (0-based)
    decision: int  # the seat's own count of decisions so far (0-based)
    observation: tuple[float, ...]  # the sdk.encoding tensor of the seat's view when asked (float32 values)
    action_mask: tuple[bool, ...]  # its legal actions, by sdk.encoding index
    action: int  # the index of the action it played
    action_text: str  # that action in the game's notation
    forced: str  # non-empty: the arbiter chose the action (timeout, ...) and why
    ms: int  # the seat's think time as the arbiter saw it
    score: float  # the seat's final score (Outcome.scores, the game's units)
    rank: int  # its final rank (1 = first)
    reason: str  # how the match ended (Outcome.reason: completed, forfeit, ...)


COLUMNS = tuple(f.name for f in fields(Decision))


class ExportError(ValueError):
    """A selection that cannot be exported as one file; the message says what to do."""


def decisions(record: MatchRecord, tournament: str = "", deal: int = 0, seating: int = 0,
              enc: Encoder | None = None) -> list[Decision]:
    """Every seat's decisions in ``record``, in the order they were taken.

    Each seat's rows come from stepping the record from that seat's viewpoint, so nothing
    another seat holds can reach them. ReplayError if the record does not replay.
    """
    if record.outcome is None:
        raise ExportError(f"match {record.match_id!r} has no result")
    game = get_game(record.game, record.options)
    enc = enc or encoder(record.game, record.options)
    out: list[Decision] = []
    for seat in range(game.num_seats):
        count = 0
        for step in step_record(record, seat):
            if step.to_act != seat or step.is_last:
                continue
            ra = record.actions[step.index]
            assert ra.seat == seat  # the verifier checked it
            action = game.parse_action(ra.action)
            mask = [False] * enc.num_actions
            for i in enc.legal_indices(step.legal):
                mask[i] = True
            out.append(Decision(
                tournament=tournament, match_id=record.match_id, deal=deal, seating=seating, seat=seat,
                bot=record.seat_names[seat], step=step.index, decision=count,
                observation=tuple(array.array("f", enc.encode(step.view))), action_mask=tuple(mask),
                action=enc.action_index(action), action_text=ra.action, forced=ra.forced, ms=ra.ms,
                score=float(record.outcome.scores[seat]), rank=int(record.outcome.ranks[seat]),
                reason=record.outcome.reason.value))
            count += 1
    out.sort(key=lambda d: d.step)
    return out


@dataclass(frozen=True)
class Selection:
    """The matches an export takes, and what it left out and why."""

    matches: list[tuple[TournamentRow, MatchRow]]  # the rows without their records
    withheld: list[str]  # one sentence per tournament left out by the disclosure rule
    store: Store  # where each record is read (``Store.read_match``, the one reader)


def select(store: Store, tournaments: Sequence[str] = ()) -> Selection:
    """The stored matches of ``tournaments`` (names or ids; none: every tournament) that
    the disclosure rule lets be shown. A tournament named on purpose that is closed raises
    ``Withheld``; among all of them, a closed one is left out and said in ``withheld``."""
    chosen = [store.tournament(t) for t in tournaments] if tournaments else store.tournaments()
    chosen = list({t.id: t for t in chosen}.values())  # one named twice (by name, by id): once, where first named
    picked: list[tuple[TournamentRow, MatchRow]] = []
    withheld: list[str] = []
    for tour in chosen:
        rule = store.tournament_disclosure(tour)
        if not rule.matches:
            if tournaments:
                rule.require_matches()
            withheld.append(f"{rule.name} {rule.closed_text()}")
            continue
        picked += [(tour, row) for row in store.matches(tour.id, records=False)]
    return Selection(picked, withheld, store)


def _nothing_stored(store: Store, tournaments: Sequence[str]) -> str:
    """Why a selection with nothing withheld is empty: its tournaments have no match yet, or
    the store holds none (a ladder's matches, if any, are not part of this export)."""
    if tournaments or store.tournaments():
        return "the store has no stored match of a tournament"
    n = arena_matches(store.db)
    ladder = (f"; its {n} arena match{'es are' if n != 1 else ' is'} not part of this export (one at a time: "
              f"arbiter replay MATCH_ID --json)") if n else ""
    return f"the store holds no tournament{ladder}"


def _encoding_key(record: MatchRecord) -> tuple[str, str]:
    game = get_game(record.game, record.options)
    return game.name, json.dumps(record.options, sort_keys=True, default=str)


def _differs(key: tuple[str, str], began: tuple[str, str]) -> str:
    """How a match's encoding (``_encoding_key``) differs from the one the export began
    with, in a few words: the two games, or the options that differ (each game has some
    twenty options: both sets in full hid the one that differs)."""
    if key[0] != began[0]:
        return f"{key[0]}, but the export began with {began[0]}"
    mine, first = json.loads(key[1]), json.loads(began[1])
    diff = sorted(o for o in mine.keys() | first.keys() if mine.get(o) != first.get(o))
    return (f"{key[0]} with {', '.join(f'{o}={json.dumps(mine.get(o))}' for o in diff)}, but the export began with "
            f"{', '.join(f'{o}={json.dumps(first.get(o))}' for o in diff)}")


def require_one_encoding(selection: Selection) -> None:
    """ExportError, before any match is stepped, if the selection's tournaments have two
    encodings (another game or option set): each tournament's first match says its own.
    ``rows_of`` checks every match as it goes, but found a Spot tournament after every
    match of the Spades ones before it (an export of a whole store: minutes, then refused)."""
    firsts: dict[int, tuple[TournamentRow, MatchRow]] = {}
    for tour, row in selection.matches:
        firsts.setdefault(tour.id, (tour, row))
    began = None
    for tour, row in firsts.values():
        record, _ = selection.store.read_match(row.match_id)  # its game and options: nothing of it is written
        key = _encoding_key(record)
        if began is None:
            began = (key, tour)
        elif key != began[0]:
            raise ExportError(
                f"tournament {tour.name!r} is {_differs(key, began[0])} (tournament {began[1].name!r}): one file "
                "holds one encoding; export one tournament at a time (--tournament NAME)")


def rows_of(selection: Selection, on_match: Callable[[int, int], None] | None = None
            ) -> Iterator[tuple[Encoder, MatchRecord, list[Decision]]]:
    """Each selected match's decisions with its encoder and record; ExportError if two
    matches have different encodings (another game or option set: one file holds one
    tensor shape) or if a match does not replay. Each record is read through the store's
    one reader (``read_match``), and shown only if what it returns says the match may be
    (``Withheld`` otherwise)."""
    key = enc = None
    total = len(selection.matches)
    for n, (tour, row) in enumerate(selection.matches, 1):
        record, shown = selection.store.read_match(row.match_id)
        shown.require_match(row.match_id)
        k = _encoding_key(record)
        if key is None:
            key, enc = k, encoder(record.game, record.options)
        elif k != key:
            raise ExportError(
                f"match {row.match_id} of tournament {tour.name!r} is {_differs(k, key)}: one file holds one "
                "encoding; export one tournament at a time (--tournament NAME)")
        try:
            rows = decisions(record, tour.name, row.deal, row.seating, enc)
        except ReplayError as exc:  # altered or corrupt in the store: no row of it can be trusted
            raise ExportError(f"match {row.match_id} of tournament {tour.name!r} does not replay ({exc}): it cannot "
                              f"be exported (arbiter replay {row.match_id} shows where it stops)") from None
        yield enc, record, rows
        if on_match:
            on_match(n, total)


def _pyarrow():
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == "pyarrow":
            raise ExportError(EXTRA_HINT) from None
        raise
    return pa, pq


def schema(enc: Encoder, game: str, options: dict[str, Any]):
    """The Arrow schema of an export of one encoding, with the file's metadata."""
    pa, _ = _pyarrow()
    types = {
        "tournament": pa.string(), "match_id": pa.string(), "deal": pa.int32(), "seating": pa.int32(),
        "seat": pa.int8(), "bot": pa.string(), "step": pa.int32(), "decision": pa.int32(),
        "observation": pa.list_(pa.float32(), enc.size), "action_mask": pa.list_(pa.bool_(), enc.num_actions),
        "action": pa.int32(), "action_text": pa.string(), "forced": pa.string(), "ms": pa.int32(),
        "score": pa.float64(), "rank": pa.int16(), "reason": pa.string(),
    }
    meta = {
        "format": FORMAT, "game": game, "options": json.dumps(options, sort_keys=True, default=str),
        "observation_size": str(enc.size), "num_actions": str(enc.num_actions),
        "layout": json.dumps([[s.name, s.start, s.stop, s.meaning] for s in enc.layout.segments]),
    }
    return pa.schema([(c, types[c]) for c in COLUMNS], metadata=meta)


@dataclass(frozen=True)
class Written:
    path: str
    decisions: int
    matches: int
    tournaments: int
    withheld: list[str]


def export(store: Store, path: str | os.PathLike, tournaments: Sequence[str] = (),
           on_match: Callable[[int, int], None] | None = None, batch: int = 4096) -> Written:
    """Write the decisions of the selected matches (``select``) to a Parquet file at
    ``path``; ExportError if there is nothing to write or pyarrow is missing."""
    pa, pq = _pyarrow()
    selection = select(store, tournaments)
    if not selection.matches:
        said = "; ".join(selection.withheld) or _nothing_stored(store, tournaments)
        raise ExportError(f"no match to export ({said})")
    require_one_encoding(selection)
    writer = None
    pending: list[Decision] = []
    count = 0

    def flush() -> None:
        nonlocal pending, count
        if pending:
            cols = {c: [getattr(d, c) for d in pending] for c in COLUMNS}
            writer.write_table(pa.table(cols, schema=writer.schema))
            count += len(pending)
            pending = []

    tmp = f"{os.fspath(path)}.partial"
    try:
        for enc, record, rows in rows_of(selection, on_match):
            if writer is None:
                writer = pq.ParquetWriter(tmp, schema(enc, record.game, record.options), compression="zstd")
            pending += rows
            if len(pending) >= batch:
                flush()
        flush()
        writer.close()
        os.replace(tmp, path)
    except BaseException:
        if writer is not None:
            writer.close()
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return Written(os.fspath(path), count, len(selection.matches), len({t.id for t, _ in selection.matches}),
                   selection.withheld)


def read(path: str | os.PathLike) -> tuple[list[Decision], dict[str, str]]:
    """An export read back: its rows as ``Decision`` and its metadata (game, options,
    layout...); ExportError if the file is not one."""
    _, pq = _pyarrow()
    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as exc:
        raise ExportError(f"{path}: not a Parquet file: {exc}") from None
    meta = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()}
    if meta.get("format") != FORMAT:
        raise ExportError(f"{path}: not a {FORMAT} export")
    data = table.to_pydict()
    rows = [Decision(**{c: (tuple(data[c][i]) if c in ("observation", "action_mask") else data[c][i]) for c in COLUMNS})
            for i in range(table.num_rows)]
    return rows, meta


def iter_all(selection: Selection) -> Iterable[Decision]:
    """Every decision of a selection, in order (what ``export`` writes)."""
    for _, _, rows in rows_of(selection):
        yield from rows
