"""Text that others wrote (a tournament's name, its options, a bot's notes) is shown by the
exports and the web pages as text: never HTML, Markdown, a formula or a control sequence."""

from __future__ import annotations

import csv
import io
import re
import sqlite3
import xml.etree.ElementTree as ET

import pytest

from arbiter.present.export import md_text, render
from arbiter.rating.ratings import Rating, Standings, StandingRow

#: Raw HTML, a second line, a table's cell break, Markdown's link and emphasis, a terminal's escape.
NAME = "night\n| <img src=x onerror=alert(1)> [l](javascript:alert(1)) *b* _i_ \x1b[2J & </script>"


def _standings() -> tuple[Standings, dict]:
    r = StandingRow(1, "a", matches=2, wins=2, points=2.0, margin_sum=4.0, dup_values=[2.0])
    r.rating = Rating(1500.0, 1400.0, 1600.0)
    st = Standings([r, StandingRow(2, "c")], "bradley-terry", {}, 2, True)
    return st, {"name": NAME, "game": "spades", "options": {}, "preset": None, "format": "round-robin", "planned": 4, "seed": 1}


def test_markdown_shows_a_name_as_text_on_its_one_line():
    md = render("md", *_standings())
    head = md.splitlines()[0]
    assert head.startswith("# Standings: night\\\\n\\| \\<img src=x onerror=alert(1)\\> \\[l\\](javascript:alert(1)) "
                           "\\*b\\* \\_i\\_ \\\\x1b\\[2J \\& \\</script\\>"), head
    assert re.search(r"(?<!\\)<", md) is None and "\x1b" not in md  # no raw HTML, no ESC
    assert md_text("deck_split=true, a-b.c") == "deck_split=true, a-b.c"  # nothing escaped that needs no escape


def test_the_html_export_stays_well_formed_and_shows_control_characters():
    page = render("html", *_standings())
    ET.fromstring(page.split("\n", 1)[1])  # the ESC made the page not well-formed XML
    assert "&lt;img src=x" in page and "\\x1b[2J" in page and "<img" not in page


def test_a_csv_text_cell_never_begins_as_a_formula():
    st, info = _standings()
    st.rows[1].name = "=HYPERLINK(\"http://evil\",\"x\")"  # past the name rule: read from a store someone gave you
    rows = list(csv.DictReader(io.StringIO(render("csv", st, info))))
    assert rows[1]["bot"] == "'=HYPERLINK(\"http://evil\",\"x\")"
    assert rows[0]["bot"] == "a" and rows[0]["mean_margin"] == "2.0" and rows[1]["mean_margin"] == ""  # as they were (c: no match)
    st.rows[0].margin_sum = -4.0
    assert list(csv.DictReader(io.StringIO(render("csv", st, info))))[0]["mean_margin"] == "-2.0"  # a sign, not a formula


NOTING_BOT = '''
from bots.random_bot import RandomBot


class Noting(RandomBot):
    name = "noting"

    def choose(self, view, legal_actions):
        self.note("held\\x1b[2J\\rover </pre><script>alert(1)</script>")
        return super().choose(view, legal_actions)
'''


@pytest.fixture(scope="module")
def hostile_store(tmp_path_factory):
    from typer.testing import CliRunner

    from arbiter.cli import app

    folder = tmp_path_factory.mktemp("web")
    (folder / "noting.py").write_text(NOTING_BOT)
    db = folder / "w.sqlite"
    r = CliRunner().invoke(app, ["tournament", "run", "--db", str(db), "--transport", "inproc", "--game", "spades", "--bots",
                                 f"{folder / 'noting.py'},random", "-o", "deals=1", "--deals", "1", "--seed", "1",
                                 "--name", "night", "--quiet"])
    assert r.exit_code == 0, r.output
    with sqlite3.connect(db) as con:  # a name no spec may give now (one line of text), from an older or a given store
        con.execute("UPDATE tournaments SET name = ?", ("night\x1b[2J\r<b>",))
    return db


def test_the_pages_show_control_characters_in_anyone_s_text(hostile_store):
    from arbiter.present.inspector import inspect_page
    from arbiter.present.web import open_read_only, tournament_page

    with open_read_only(hostile_store) as store:
        page = tournament_page(store, "1")
        note = inspect_page(store, "1-0", {"seat": ["0"], "d": ["1"]}, "n")
    assert "night\\x1b[2J\\r&lt;b&gt;" in page and "\x1b" not in page and "\r" not in page
    assert "held\\x1b[2J\\rover &lt;/pre&gt;&lt;script&gt;" in note and "\x1b" not in note and "<script>alert" not in note


def test_a_csv_text_cell_shows_control_characters():
    st, info = _standings()
    st.rows[1].name = "c\x1b[2J\r"
    assert list(csv.DictReader(io.StringIO(render("csv", st, info))))[1]["bot"] == "c\\x1b[2J\\r"
