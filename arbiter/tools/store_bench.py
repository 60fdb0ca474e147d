"""The store at scale: a million stored matches, and the two reads that must stay quick.

    python -m arbiter.tools.store_bench [--matches 1000000] [--db PATH] [--runs 5]

Generates a store (``--db``, default a temporary file, removed after) of ``--matches``
matches: tournaments of 1,000 Spades matches each, four of 40 bots at every table, each
row carrying the record of a real one-deal match (played once, in process, its seats
renamed per row). The first tournament is written by the store's own writer
(``Store.save_matches``), the others are copies of its rows made in SQL (``generate``). Then it times,
each the median of ``--runs`` runs on a fresh read-only connection:

* ``bot.last_1000``: a bot's last 1,000 matches, of every batch (``Store.bot_matches``,
  through the ``match_bots`` index): target < 200 ms;
* ``standings``: a tournament's standings, its matches read and the table computed
  (``tournament.run.load_standings``, what ``arbiter standings`` and the web page do):
  target < 1 s.

Issue 40 set the targets; docs/performance.md has the figures measured.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from arbiter.store.db import Store, index_bots, transaction
from arbiter.tournament.play import play_local
from arbiter.tournament import run as run_module
from arbiter.tournament.run import load_standings

PER_TOURNAMENT = 1000
BOTS = [f"bot{i:02d}" for i in range(40)]
TARGETS = {"bot.last_1000": 0.2, "standings": 1.0}


def _renamed(column: str, names: list[str]) -> str:
    """SQL for ``column`` with the first tournament's bots renamed to ``names`` (through
    placeholders, so that no new name is renamed again)."""
    for k, old in enumerate(_FIRST):
        column = f"replace({column}, '\"{old}\"', '\"#{k}#\"')"
    for k, new in enumerate(names):
        column = f"replace({column}, '\"#{k}#\"', '\"{new}\"')"
    return column


def _bots(t: int) -> list[str]:
    """The four bots of tournament ``t`` (40 bots, each in every tenth tournament)."""
    return [BOTS[(t + k) % len(BOTS)] for k in range(0, len(BOTS), 10)]


_FIRST = _bots(0)


def generate(path: Path, matches: int, progress=print) -> None:
    """A store of ``matches`` matches (see the module docstring); progress every 50,000.

    The first tournament's rows are written by the store's writer (``save_matches``: the
    columns, the record's JSON, ``match_bots``); every further tournament copies them in
    SQL with its own bots, match ids and times, and enters its bots in ``match_bots`` as
    the writer does (``index_bots``): the same rows, written in minutes where a record
    serialised per row took hours."""
    template = play_local("spades", ["random"] * 4, seed=1, options={"deals": 1}, transport="inproc")
    written = 0
    first_id = None
    with Store(path) as store:
        for t in range((matches + PER_TOURNAMENT - 1) // PER_TOURNAMENT):
            bots = _bots(t)
            spec = {"game": "spades", "bots": bots, "options": {"deals": 1}, "duplicate": True, "seed": t, "deals": 250}
            tour = store.open_tournament(f"t{t:04d}", "spades", spec, planned=PER_TOURNAMENT)
            n = min(PER_TOURNAMENT, matches - written)
            if first_id is None:
                first_id = tour.id
                rows = []
                for idx in range(n):
                    seats = tuple(bots[(idx + s) % 4] for s in range(4))
                    record = dataclasses.replace(template, match_id=f"{tour.id}-{idx}", seat_names=seats)
                    rows.append((idx, idx // 4, idx % 4, record, 0, 0, (seats[0], seats[1])))
                store.save_matches(tour.id, rows)
            else:
                new_id = f"'{tour.id}-' || idx"
                record = _renamed(f"replace(record, '\"match_id\": \"{first_id}-' || idx || '\"', "
                                  f"'\"match_id\": \"' || {new_id} || '\"')", bots)
                with transaction(store.db) as db:
                    (last,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM matches").fetchone()
                    db.execute(
                        "INSERT INTO matches (tournament_id, idx, match_id, deal, rotation, seed, seats, scores, ranks, "
                        "reason, detail, record, round, table_no, sides, incidents, decisions, seconds, finished) "
                        f"SELECT ?, idx, {new_id}, deal, rotation, seed, {_renamed('seats', bots)}, scores, ranks, "
                        f"reason, detail, {record}, round, table_no, {_renamed('sides', bots)}, incidents, decisions, "
                        "seconds, ? FROM matches WHERE tournament_id = ? AND idx < ? ORDER BY idx",
                        (tour.id, time.time(), first_id, n))
                    index_bots(db, "m.id > ?", (last,))
            store.mark_finished(tour.id)
            written += n
            if written % 50_000 == 0 or written == matches:
                progress(f"{written:,} matches stored")


def measure(path: Path, runs: int, cpu: dict[str, list[float]] | None = None) -> dict[str, list[float]]:
    """Wall seconds of each read (``TARGETS``), ``runs`` times: a bot of the newest
    tournaments, one per run, and that tournament's standings; ``cpu`` gets this process's
    CPU seconds of each (steadier than the wall on a loaded machine)."""
    times: dict[str, list[float]] = {k: [] for k in TARGETS}
    cpu = cpu if cpu is not None else {}
    for k in TARGETS:
        cpu.setdefault(k, [])
    with Store(path, read_only=True) as store:
        names = [t.name for t in store.tournaments()]
    for r in range(runs):
        t = max(0, len(names) - 1 - r)  # the newest tournaments: a bot of each, and its standings
        with Store(path, read_only=True) as store:
            t0, c0 = time.perf_counter(), time.process_time()
            got = store.bot_matches(_bots(t)[0], limit=1000)
            times["bot.last_1000"].append(time.perf_counter() - t0)
            cpu["bot.last_1000"].append(time.process_time() - c0)
            assert got, f"no match of {_bots(t)[0]}"  # 1,000 of them from 10 tournaments on
        run_module.forget_standings()  # a cold read, as a page's first load (a store with fewer tournaments than runs)
        with Store(path, read_only=True) as store:
            last = names[t]
            t0, c0 = time.perf_counter(), time.process_time()
            table, _ = load_standings(store, last)
            times["standings"].append(time.perf_counter() - t0)
            cpu["standings"].append(time.process_time() - c0)
            assert table.rows, last
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arbiter.tools.store_bench", description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--db", type=Path, help="the store to generate (or reuse, if it has the matches); default: a temporary one")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="store-bench-") as tmp:
        path = args.db or Path(tmp) / "million.sqlite"
        t0 = time.perf_counter()
        if not path.exists():
            generate(path, args.matches, lambda text: print(text, file=sys.stderr, flush=True))
        made = time.perf_counter() - t0
        cpu: dict[str, list[float]] = {}
        times = measure(path, args.runs, cpu)
    out = {"matches": args.matches, "generate_s": round(made, 1), "figures": {}}
    ok = True
    for key, values in times.items():
        median = statistics.median(values)
        passed = median < TARGETS[key]
        ok &= passed
        cpu_ms = statistics.median(cpu[key]) * 1000
        out["figures"][key] = {"median_ms": round(median * 1000, 1), "max_ms": round(max(values) * 1000, 1),
                               "cpu_median_ms": round(cpu_ms, 1), "target_ms": TARGETS[key] * 1000, "passed": passed}
        print(f"{key:15} median {median * 1000:8.1f} ms  (max {max(values) * 1000:.1f}, CPU {cpu_ms:.1f})  "
              f"target < {TARGETS[key] * 1000:.0f} ms  {'pass' if passed else 'SHORT'}")
    print(json.dumps(out))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
