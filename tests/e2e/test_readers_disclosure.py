"""Every reader gives the disclosure's answer, and none derives its own.

Three stores of one tournament: a duplicate one stopped with a deal unfinished (its twin
seating still to be played), the same one over, and one without duplicate deals still
running. For every stored match each reader is asked over its real interface: the web
site over real HTTP (``arbiter web`` in a subprocess: the replay page and the tournament
page), the CLI (``arbiter replay``, ``arbiter tournament show --match``) and the JSON
export (``arbiter standings --format json``); each must show the match exactly when
``cardarena.disclosure`` says ``matches`` (else refuse with its words), and the seed
exactly when it says ``seed``.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import shutil
import sqlite3
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.store.db import Store
from arbiter.tournament.run import TournamentSpec, run_tournament
from cardarena.disclosure import Withheld
from tests.e2e.browser import serve_web

#: The tests that share the module's stores: one xdist group (--dist loadgroup,
#: tests/conftest.py), so it is made once in a run.
pytestmark = pytest.mark.xdist_group("readers_disclosure")

SEED = 515151


def _copy_store(src: Path, dst: Path) -> None:
    """A copy of a store as it reads now (its write-ahead log included)."""
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)


def _text(result) -> str:
    return " ".join(result.output.split())


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("readers")
    out = {}
    for duplicate in (True, False):
        spec = TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, deals=2, seed=SEED,
                              name="t", duplicate=duplicate)
        db = tmp / f"dup{int(duplicate)}.sqlite"
        with Store(db) as store:
            asyncio.run(run_tournament(spec, store, transport="inproc"))
        out[duplicate] = db
    unfinished = tmp / "unfinished.sqlite"
    shutil.copy(out[True], unfinished)
    with sqlite3.connect(unfinished) as db:  # stopped before the last seating of its last deal
        last = db.execute("SELECT MAX(idx) FROM matches").fetchone()[0]
        db.execute("DELETE FROM matches WHERE idx = ?", (last,))
        db.execute("UPDATE tournaments SET finished = NULL")
    running_plain = out[False]
    with sqlite3.connect(running_plain) as db:
        db.execute("UPDATE tournaments SET finished = NULL")
    return {"unfinished duplicate": unfinished, "finished duplicate": out[True], "running, no duplicate": running_plain}


@pytest.mark.parametrize("which", ["unfinished duplicate", "finished duplicate", "running, no duplicate"])
def test_every_reader_shows_what_the_disclosure_allows_and_nothing_else(stores, which):
    db = stores[which]
    with Store(db, read_only=True) as store:
        tour = store.tournament("t")
        rule = tour.disclosure
        rows = store.matches(tour.id)
        per_match = {r.match_id: store.disclosure_of(r) for r in rows}
    assert {d.matches for d in per_match.values()} == {rule.matches}  # a tournament's matches share its rule
    assert rule.closed == (which == "unfinished duplicate") and rule.seed == (which == "finished duplicate")
    if which == "unfinished duplicate":
        deals = {}
        for r in rows:
            deals.setdefault(r.seed, []).append(r)
        assert any(len(v) == 1 for v in deals.values())  # a deal whose twin seating is still to come
    runner = CliRunner()
    with serve_web(db, env={**os.environ, "COLUMNS": "500"}) as url:  # its address on one line
        status, page = _get(url + "t/t")
        assert status == 200
        # its table counts the deals all of whose matches are in (Disclosure.counted), and says so
        assert ("1 deal of 2 counted; a deal counts once all its matches are in" in html.unescape(page)) == rule.closed
        if not rule.seed:  # (the page never prints the tournament's seed; a replay prints its deal's)
            assert str(SEED) not in page
        for r in rows:
            allowed = per_match[r.match_id]
            try:
                allowed.require_match(r.match_id)
                words = ""
            except Withheld as exc:
                words = str(exc)
            assert bool(words) == (not allowed.matches)
            # the tournament page links the replay exactly when it may be shown
            assert (f'href="/m/{r.match_id}"' in page) == allowed.matches
            if not allowed.matches:
                assert str(r.seed) not in page
            # the replay page, over HTTP
            status, body = _get(url + f"m/{r.match_id}?view=full&step=1")
            if allowed.matches:
                assert status == 200 and "Step 1:" in body
            else:
                assert status == 403 and words in html.unescape(body) and f"seed {r.seed}" not in body
            # the inspector of a seat's decisions, over HTTP
            status, body = _get(url + f"m/{r.match_id}/inspect?seat=0&d=2")
            if allowed.matches:
                assert status == 200 and 'id="decision">2<' in body
            else:
                assert status == 403 and words in html.unescape(body) and 'id="board"' not in body
            # the CLI: replay and the drill-down
            for args in (["replay", r.match_id], ["tournament", "show", "t", "--match", r.match_id]):
                got = runner.invoke(app, [*args, "--db", str(db)])
                if allowed.matches:
                    assert got.exit_code == 0, got.output
                else:
                    assert got.exit_code == 2 and " ".join(words.split()) in _text(got) and str(r.seed) not in got.output
    # the JSON export: the seed exactly when the rule lets it be shown
    got = runner.invoke(app, ["standings", "t", "--db", str(db), "--format", "json"])
    assert got.exit_code == 0, got.output
    info = json.loads(got.output)["tournament"]
    assert info["seed_withheld"] == (not rule.seed) and info["seed"] == (SEED if rule.seed else None)
    assert info["counted"] == ({"deals": 1, "of": 2, "matches": 2, "closed": True} if rule.closed
                               else {"deals": 2, "of": None, "matches": len(rows), "closed": False})
    assert (str(SEED) in got.output) == rule.seed


def test_a_tournament_named_like_another_ones_id_does_not_lend_it_its_disclosure(tmp_path):
    """A stored match's batch is found by its id, never by a name: a finished tournament
    named "2" (any name is allowed) must not open the matches of tournament 2, a duplicate
    one still running. It did: ``Store.tournament(2)`` preferred the tournament *named*
    "2", so ``arbiter replay`` printed a running duplicate tournament's deal while
    ``tournament show`` said it was withheld, and the web replay showed it too."""
    from arbiter.tournament.spec import SpecError

    db = tmp_path / "ids.sqlite"
    for name, seed in (("two", 11), ("weekly", 12)):  # ids 1 and 2
        spec = TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, deals=1, seed=seed,
                              name=name, duplicate=True)
        with Store(db) as store:
            asyncio.run(run_tournament(spec, store, transport="inproc"))
    with pytest.raises(SpecError, match="a name of digits alone reads as another tournament's id"):
        TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, name="2").validate()
    with sqlite3.connect(db) as conn:  # "weekly" stopped before its last seating: closed
        conn.execute("UPDATE tournaments SET name = '2' WHERE name = 'two'")  # as a store of an older version may
        tid = conn.execute("SELECT id FROM tournaments WHERE name = 'weekly'").fetchone()[0]
        assert tid == 2
        last = conn.execute("SELECT MAX(idx) FROM matches WHERE tournament_id = ?", (tid,)).fetchone()[0]
        conn.execute("DELETE FROM matches WHERE tournament_id = ? AND idx = ?", (tid, last))
        conn.execute("UPDATE tournaments SET finished = NULL WHERE id = ?", (tid,))
    with Store(db, read_only=True) as store:
        tour = store.tournament("weekly")
        assert tour.disclosure.closed
        rows = store.matches(tour.id)
        assert rows and all(store.disclosure_of(r).closed for r in rows)
        assert store.tournament(2).name == "weekly"  # an id is an id
        assert store.tournament("2").name == "2"  # what a user types: a name first
    runner = CliRunner()
    with serve_web(db, env={**os.environ, "COLUMNS": "500"}) as url:
        for r in rows:
            got = runner.invoke(app, ["replay", r.match_id, "--json", "--db", str(db)])
            assert got.exit_code == 2 and "duplicate deals" in _text(got) and str(r.seed) not in got.output
            status, body = _get(url + f"m/{r.match_id}?view=full&step=1")
            assert status == 403 and f"seed {r.seed}" not in body


def test_a_match_whose_tournament_cannot_be_read_is_withheld(stores, tmp_path):
    """Secure by default: a match whose tournament row cannot be read (its spec corrupt)
    is withheld like a match of no known batch (``UNSAID``), never shown as open."""
    db = tmp_path / "corrupt.sqlite"
    _copy_store(stores["unfinished duplicate"], db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE tournaments SET spec = '{not json'")
        match_id, seed = conn.execute("SELECT match_id, seed FROM matches LIMIT 1").fetchone()
    with Store(db, read_only=True) as store:
        assert store.disclosure_of(store.match(match_id)).closed
    got = CliRunner().invoke(app, ["replay", match_id, "--json", "--db", str(db)])
    assert got.exit_code == 2 and str(seed) not in got.output, got.output


def test_a_tournament_cannot_pass_for_the_batch_of_single_matches(stores, tmp_path):
    """The store keeps single played matches (``arbiter play``, /play) in batches named
    ``play:GAME``, and two readers took that name for what the batch is: /play/history
    listed the scores of every match of a tournament so named without asking its
    disclosure, and a match played at /play was stored into it and marked it finished,
    which opened every replay of a duplicate tournament still running. Such a name is not
    given to a tournament or an evaluation; a store that has one anyway (named by an older
    version, or by hand) keeps it closed."""
    from arbiter.batch.single import play_batch_name, store_play
    from arbiter.tournament.evaluate import evaluate
    from arbiter.tournament.spec import SpecError
    from cardarena.games import ConfigError

    for name in ("play:spades", "play:night"):
        spec = TournamentSpec(game="spades", bots=("random", "greedy"), options={"deals": 1}, deals=1, seed=1,
                              name=name, duplicate=True)
        with Store(tmp_path / "new.sqlite") as store:
            with pytest.raises(SpecError, match="play:"):
                asyncio.run(run_tournament(spec, store, transport="inproc"))
            with pytest.raises(ConfigError, match="play:"):
                evaluate("spades", "random", "greedy", deals=1, seed=1, options={"deals": 1}, store=store, name=name)
    db = tmp_path / "named.sqlite"
    _copy_store(stores["unfinished duplicate"], db)
    with Store(stores["finished duplicate"], read_only=True) as other:  # a spades match to store as /play does
        record = other.matches(other.tournament("t").id)[0].record()
    batch, _ = play_batch_name(record.game, record.options)
    with sqlite3.connect(db) as conn:  # a running duplicate tournament that the store calls play:GAME
        conn.execute("UPDATE tournaments SET name = ?", (batch,))
    with Store(db, read_only=True) as store:
        tour = store.tournament(batch)
        rows = store.matches(tour.id)
        assert tour.disclosure.closed and rows
    with serve_web(db, env={**os.environ, "COLUMNS": "500"}) as url:
        status, page = _get(url + "play/history")
        assert status == 200
        for r in rows:
            assert " / ".join(f"{s:g}" for s in r.outcome.scores) not in page, "a closed match's scores are listed"
    with pytest.raises(Exception, match="play:"):
        store_play(db, record)
    with Store(db, read_only=True) as store:
        assert store.tournament(batch).disclosure.closed  # still running: nothing opened
        assert len(store.matches(tour.id)) == len(rows)
