"""``arbiter standings --arena NAME``: an arena's ladder read from its store, as a table and in the
four export formats (before, a ladder was seen only on its web page and in the live command), with
the text others control (bot names, suspension reasons) made safe as in every export."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET

from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.store.arenas import Arenas
from arbiter.store.db import Store


def _ladder(db) -> None:
    with Store(db) as store:
        tables = Arenas(store)
        a = tables.open_arena("spades", "spades", {"game": "spades"})
        tables.add_entrant(a.id, "alpha@1", "alpha", "1", "ann", "x", 27.0, 2.0)
        tables.add_entrant(a.id, "beta@2", "beta", "2", "bob", "x", 24.0, 3.0)
        tables.add_entrant(a.id, "=evil@1", "=evil", "1", "eve", "x", 20.0, 8.0, status="suspended",
                           reason="forfeited 3 encounters <b>\x1b[2J")
        tables.add_entrant(a.id, "alpha@0", "alpha", "0", "ann", "x", 25.0, 8.3)
        tables.set_status(a.id, "alpha@0", "replaced", "replaced by version 1")


def test_a_ladder_as_a_table_and_in_every_format(tmp_path):
    db = tmp_path / "arena.sqlite"
    _ladder(db)
    run = CliRunner()
    shown = run.invoke(app, ["standings", "--arena", "spades", "--db", str(db)], env={"COLUMNS": "160"})
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    at = {name: next(i for i, x in enumerate(lines) if name in x) for name in ("alpha@1", "beta@2", "alpha@0", "=evil@1")}
    assert at["alpha@1"] < at["beta@2"] < at["=evil@1"] and at["alpha@1"] < at["alpha@0"]  # active by rating, then the rest
    assert "\x1b" not in shown.output and "Ranked by rating" in shown.output and "openskill" in shown.output

    rows = list(csv.DictReader(io.StringIO(run.invoke(app, ["standings", "--arena", "spades", "--db", str(db),
                                                             "-f", "csv"]).output)))
    assert [(r["player"], r["rank"], r["status"]) for r in rows] == [
        ("alpha@1", "1", "active"), ("beta@2", "2", "active"), ("alpha@0", "0", "replaced"), ("'=evil@1", "0", "suspended")]
    assert float(rows[0]["rating"]) == 27.0 and 0.5 < float(rows[0]["los_next"]) < 1  # its lead over beta's
    data = json.loads(run.invoke(app, ["standings", "--arena", "spades", "--db", str(db), "-f", "json"]).output)
    assert data["arena"] == "spades" and [r["player"] for r in data["standings"]][:2] == ["alpha@1", "beta@2"]
    md = run.invoke(app, ["standings", "--arena", "spades", "--db", str(db), "-f", "md"]).output
    assert "| 1 | alpha@1 | active |" in md and "<b>" not in md and "\\<b\\>" in md
    page = tmp_path / "ladder.html"
    wrote = run.invoke(app, ["standings", "--arena", "spades", "--db", str(db), "-f", "html", "-o", str(page)])
    assert wrote.exit_code == 0, wrote.output
    ET.fromstring(page.read_text().split("\n", 1)[1])  # well-formed, the reason's markup and ESC escaped
    assert "<b>" not in page.read_text() and "\\x1b" in page.read_text()


def test_a_missing_arena_and_mixed_flags_are_named(tmp_path):
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:  # a store with a tournament's tables only
        store.open_tournament("t1", "spades", {"x": 1})
    run = CliRunner()
    got = run.invoke(app, ["standings", "--arena", "nope", "--db", str(db)])
    assert got.exit_code != 0 and "no arena 'nope'" in got.output and "Traceback" not in got.output
    got = run.invoke(app, ["standings", "t1", "--arena", "nope", "--db", str(db)])
    assert got.exit_code != 0 and "--arena shows a ladder" in got.output
    _ladder(db)
    got = run.invoke(app, ["standings", "--arena", "spades", "--db", str(db), "-o", str(tmp_path / "x")])
    assert got.exit_code != 0 and "--output needs --format" in got.output


def test_a_candidate_and_a_rejected_version_are_named_where_the_unranked_rows_are_listed(tmp_path):
    """The page listed a candidate on trial (and a rejected one) under "Suspended, replaced and
    withdrawn", and every table's note said the others were "candidate, replaced, suspended,
    withdrawn": a rejected version was in none of the words."""
    from arbiter.arena import matchmaking
    from arbiter.present.export import LADDER_ORDER
    from arbiter.present.web import arena_page
    from arbiter.store.arenas import Arenas

    with Store(tmp_path / "a.sqlite") as store:
        tables = Arenas(store)
        row = tables.open_arena("l", "spades", {"deals": 1})
        for player, status in (("m@1", "active"), ("m@2", "candidate"), ("m@3", "rejected"), ("r", "active")):
            tables.add_entrant(row.id, player, player.split("@")[0], player.split("@")[-1], "alice", "", matchmaking.MU,
                               matchmaking.SIGMA, status=status)
        page = arena_page(store, "l")
    assert "Suspended, replaced and withdrawn" not in page and "candidates, rejected" in page, page
    assert "candidate, rejected, replaced, suspended, withdrawn" in LADDER_ORDER


def test_the_ladder_table_keeps_each_rows_status_at_a_terminals_width(tmp_path):
    """At 120 columns (and less) ``arbiter standings --arena`` dropped the status column (its
    cells carry the reason, a suspension's last words, and were counted whole): a suspended or
    replaced version was listed among the ratings with nothing saying it no longer plays."""
    db = tmp_path / "arena.sqlite"
    _ladder(db)
    with Store(db) as store:  # a suspension's reason as the arena writes it: its last words
        tables = Arenas(store)
        tables.set_status(tables.arena("spades").id, "=evil@1", "suspended",
                          "suspended after 3 encounters in a row with a forfeit; the last: crash: the bot failed: "
                          "choose raised RuntimeError: crash on purpose (bot.py:47 in choose)")
    for width in ("120", "90"):
        shown = CliRunner().invoke(app, ["standings", "--arena", "spades", "--db", str(db)], env={"COLUMNS": width})
        assert shown.exit_code == 0, shown.output
        lines = shown.output.splitlines()
        assert any("=evil@1" in x and "suspended" in x for x in lines), shown.output
        assert any("alpha@0" in x and "replaced" in x for x in lines), shown.output


def test_an_arena_page_shows_now_playing_only_while_the_ladder_runs(tmp_path):
    """An arena killed mid-encounter (SIGKILL, a crash) left its encounter "playing" in the
    store, and its page said "Now playing: a vs b" until it was started again, of a ladder
    that was not running. Now playing needs a ladder's run holding the store; otherwise the
    page says the encounter was cut off."""
    from arbiter.present.web import arena_page

    from arbiter.arena import matchmaking

    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        tables = Arenas(store)
        row = tables.open_arena("spades", "spades", {"game": "spades", "deals": 1})
        for p in ("alpha@1", "beta@2"):
            tables.add_entrant(row.id, p, p.split("@")[0], p.split("@")[1], "ann", "", matchmaking.MU, matchmaking.SIGMA)
        tables.begin_encounter(row.id, ("alpha@1", "beta@2"), 5)
        page = arena_page(store, "spades")
        assert 'id="playing"' not in page and 'id="cut-off"' in page and "alpha@1 vs beta@2" in page, page
        store.lock(arena="other")  # another ladder's run, on the same store
        page = arena_page(store, "spades")
        assert 'id="playing"' not in page and 'id="cut-off"' in page, page
        store.unlock()
        store.lock(arena="spades")  # the ladder's run
        page = arena_page(store, "spades")
        assert 'id="playing"' in page and 'id="cut-off"' not in page, page


def test_versions_level_on_their_rating_share_a_rank_in_every_ladder_table(tmp_path):
    """A new ladder's versions all start at 25 ± 8.3, and the ladder ranked them 1, 2, 3 by name
    (on its page, ``standings --arena`` and every export) as if one were ahead before any had
    played; a tournament's tied rows share a rank. Level on μ and σ they now share one (1, 1, 3)."""
    from arbiter.arena import matchmaking
    from arbiter.present.web import arena_page

    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        tables = Arenas(store)
        row = tables.open_arena("new", "spades", {"game": "spades", "deals": 1})
        for p in ("zed@1", "amy@1"):
            tables.add_entrant(row.id, p, p.split("@")[0], "1", "ann", "", matchmaking.MU, matchmaking.SIGMA)
        tables.add_entrant(row.id, "low@1", "low", "1", "ann", "", 20.0, matchmaking.SIGMA)
        page = arena_page(store, "new")
    run = CliRunner()
    rows = list(csv.DictReader(io.StringIO(run.invoke(app, ["standings", "--arena", "new", "--db", str(db), "-f", "csv"]).output)))
    assert [(r["player"], r["rank"]) for r in rows] == [("amy@1", "1"), ("zed@1", "1"), ("low@1", "3")], rows
    assert float(rows[0]["los_next"]) == 0.5
    shown = run.invoke(app, ["standings", "--arena", "new", "--db", str(db)], env={"COLUMNS": "160"}).output
    assert [x.split()[:2] for x in shown.splitlines() if "@1" in x] == [["1", "amy@1"], ["1", "zed@1"], ["3", "low@1"]], shown
    ranks = re.findall(r'<td class="num">(\d+)</td><td class="bot"><a href="/a/new/bot/', page)
    assert ranks == ["1", "1", "3"], ranks


def test_the_arena_page_gives_a_ladders_interval_as_the_command_and_exports_do(tmp_path):
    """The arena's page gave each 95% interval to two places (18.94 – 44.17), as the rating is,
    where ``standings --arena`` and its md/html exports gave one (18.9 – 44.2)."""
    from arbiter.present.web import arena_page

    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        tables = Arenas(store)
        a = tables.open_arena("spades", "spades", {"game": "spades", "deals": 1})
        tables.add_entrant(a.id, "alpha@1", "alpha", "1", "ann", "x", 27.0, 2.0)
        tables.add_entrant(a.id, "beta@2", "beta", "2", "bob", "x", 24.0, 3.0)
        page = arena_page(store, "spades")
    shown = re.findall(r'<td class="num interval phone-hide">([^<]*)</td>', page)
    md = CliRunner().invoke(app, ["standings", "--arena", "spades", "--db", str(db), "-f", "md"]).output
    exported = [line.split("|")[5].strip() for line in md.splitlines() if re.match(r"\| \d", line)]
    assert shown == exported == ["23.08 – 30.92", "18.12 – 29.88"], (shown, exported)


def test_a_ladders_exported_numbers_are_rounded_as_a_tournaments_are(tmp_path):
    """The ladder's CSV and JSON wrote μ, σ, the interval and the LOS whole (31.5554707435273,
    0.6928413536856368) where a tournament's exports round to six places (README, "Standings
    exports", says so of both)."""
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        tables = Arenas(store)
        a = tables.open_arena("spades", "spades", {"game": "spades", "deals": 1})
        tables.add_entrant(a.id, "alpha@1", "alpha", "1", "ann", "x", 31.5554707435273, 6.438468210914577)
        tables.add_entrant(a.id, "beta@2", "beta", "2", "bob", "x", 27.099485093175794, 6.061217969936666)
    run = CliRunner()
    text = run.invoke(app, ["standings", "--arena", "spades", "--db", str(db), "-f", "csv"]).output
    for row in csv.DictReader(io.StringIO(text)):
        for key in ("rating", "sigma", "low", "high", "los_next"):
            assert len(row[key].partition(".")[2]) <= 6, (key, row)
    data = json.loads(run.invoke(app, ["standings", "--arena", "spades", "--db", str(db), "-f", "json"]).output)
    assert data["standings"][0]["rating"] == 31.555471 and data["standings"][0]["los_next"] == round(data["standings"][0]["los_next"], 6)


def test_an_arena_name_the_store_does_not_hold_is_told_what_it_does(tmp_path):
    """``standings --arena NAME`` said only "no arena 'NAME'": of a tournament's name, nothing of
    the tournament (``standings NAME`` points the other way, to ``--arena``), and of a typo
    nothing of the arenas the store holds."""
    db = tmp_path / "arena.sqlite"
    _ladder(db)
    with Store(db) as store:
        store.open_tournament("club", "spades", {"game": "spades"})
    run = CliRunner()
    got = run.invoke(app, ["standings", "--arena", "club", "--db", str(db)], env={"COLUMNS": "300"})
    said = " ".join(got.output.split())
    assert got.exit_code == 2 and f"'club' is a tournament; its standings: arbiter standings club --db {db}" in said, said
    got = run.invoke(app, ["standings", "--arena", "spadse", "--db", str(db)], env={"COLUMNS": "300"})
    said = " ".join(got.output.split())
    assert got.exit_code == 2 and "no arena 'spadse'" in said and "it holds 'spades'" in said, said


def test_the_arena_page_says_what_a_forfeit_counts_in_a_deals_tie_break(tmp_path):
    """The page said a deal's ties are "broken by the score margin", where a forfeit's margin is
    not its stored all-zero scores but the widest loss the rules allow (README "A forfeit never
    pays"): a reader saw a bot that crashed rank below one it had outscored, and no word why."""
    from arbiter.present.web import arena_page

    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        tables = Arenas(store)
        tables.open_arena("short", "spades", {"game": "spades", "deals": 1, "options": {"deals": 1}})
        tables.open_arena("whole", "spades", {"game": "spades", "deals": 1})
        short, whole = arena_page(store, "short"), arena_page(store, "whole")
    said = "ties broken by the score margin, in which a forfeit counts as a loss by {}, the widest the rules allow"
    assert said.format(900) in " ".join(short.split()), short
    assert said.format("186000") in " ".join(whole.split())
