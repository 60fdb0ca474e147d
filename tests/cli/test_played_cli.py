"""What was played, on the command line: a preset as applied (never "options: defaults"),
the clock, partnerships as one row, entrant versions, W-D-L explained in a free for all,
and tables that keep rank, bot and score readable at 80 columns."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.store.db import Store

runner = CliRunner()


def invoke(*args: str, columns: int = 120):
    return runner.invoke(app, list(args), catch_exceptions=False, env={"COLUMNS": str(columns)})


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """A book-preset Spite and Malice tournament from a TOML file, a Spades tournament of
    named partnerships and a three-player Spot free for all (in process, short)."""
    folder = tmp_path_factory.mktemp("played")
    path = folder / "arena.sqlite"
    (folder / "book.toml").write_text(
        'name = "book-night"\ngame = "spite-and-malice"\npreset = "book"\nbots = ["random", "heuristic"]\n'
        'deals = 1\nseed = 5\n[options]\nmax_turns = 40\n[clock]\ndecision_ms = 2000\nbank_ms = 5000\n')
    (folder / "pairs.toml").write_text(
        'name = "pairs"\ngame = "spades"\nbots = ["random", "greedy", "heuristic", "a-very-long-bot-name=random"]\n'
        'teams = [["random", "greedy"], ["heuristic", "a-very-long-bot-name"]]\ndeals = 1\nseed = 3\n'
        '[options]\ndeals = 1\n')
    (folder / "ffa.toml").write_text(
        'name = "ffa"\ngame = "spot"\nbots = ["random", "heuristic", "r2=random"]\ndeals = 1\nseed = 3\n'
        '[options]\nplayers = 3\nhands = 1\n')
    for spec in ("book.toml", "pairs.toml", "ffa.toml"):
        r = invoke("tournament", "run", str(folder / spec), "--db", str(path), "--transport", "inproc", "--quiet")
        assert r.exit_code == 0, r.output
    with Store(path) as store:  # what a gRPC run records when the bots connect
        store.set_entrant_versions(store.tournament("book-night").id, [("heuristic", "2.5")])
    return path


def words(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_show_gives_the_preset_and_options_as_applied_the_clock_and_versions(db):
    r = invoke("tournament", "show", "book-night", "--db", str(db))
    assert r.exit_code == 0, r.output
    text = words(r.stdout)
    assert "options: defaults" not in text
    assert "options: preset book, max_turns=40; as applied:" in text
    for applied in ("deck_split=true", "jokers=4", "kings_wild=false", "payoff_size=26", "side_stack_order=descending"):
        assert applied in text
    assert "clock: 2000 ms a decision + 5000 ms bank" in text and "failures: forfeit" in text
    assert "format: round-robin, 1 deal a table, duplicate deals" in text
    assert re.search(r"heuristic\s+│\s+2\.5", r.stdout)  # the entrant's version


def test_standings_and_exports_say_what_was_played(db):
    text = words(invoke("standings", "book-night", "--db", str(db)).stdout)
    assert "(preset book, max_turns=40; as applied: " in text and "clock 2000 ms a decision" in text
    md = invoke("standings", "book-night", "--db", str(db), "--format", "md").stdout
    assert "preset book" in md and "deck_split=true" in md
    data = json.loads(invoke("standings", "book-night", "--db", str(db), "--format", "json").stdout)
    assert data["played"]["options_applied"]["deck_split"] is True
    assert data["played"]["options_changed"]["payoff_size"] == 26 and data["played"]["clock"].startswith("2000 ms")


def test_partners_are_one_row_in_the_standings(db):
    r = invoke("standings", "pairs", "--db", str(db))
    rows = [line for line in r.stdout.splitlines() if re.match(r"\s*\d+\s", line)]
    assert len(rows) == 2, r.stdout
    assert any("random + greedy" in line for line in rows)
    assert any("heuristic + a-very-long-bot-name" in line for line in rows)
    assert "teams random + greedy, heuristic + a-very-long-bot-name" in words(r.stdout)
    show = words(invoke("tournament", "show", "pairs", "--db", str(db)).stdout)
    assert "teams: random + greedy, heuristic + a-very-long-bot-name" in show
    data = json.loads(invoke("standings", "pairs", "--db", str(db), "--format", "json").stdout)
    assert {s["bot"]: s["team"] for s in data["standings"]}["greedy"] == "random + greedy"


def test_free_for_all_explains_wdl(db):
    text = words(invoke("standings", "ffa", "--db", str(db)).stdout)
    assert "W-D-L counts first places only" in text
    assert "W-D-L counts" not in words(invoke("standings", "pairs", "--db", str(db)).stdout)  # two sides
    shown = words(invoke("tournament", "show", "ffa", "--db", str(db)).stdout)
    assert "W-D-L counts first places only" in shown and "W-D-L: W-D-L" not in shown  # said once, not labelled twice
    assert "W-D-L counts first places only" in invoke("standings", "ffa", "--db", str(db), "--format", "md").stdout


def _table_lines(text: str, header_word: str) -> tuple[str, list[str]]:
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if re.match(rf"\s*#\s+{header_word}", line))
    body = []
    for line in lines[head + 2:]:  # rows start with their number; a wrapped cell goes on indented
        if not line.strip() or not (line[0].isdigit() or line.startswith(" ")) or line.lstrip().startswith("("):
            break
        if re.match(r"\s*\d+\s", line):
            body.append(line)
    return lines[head], body


@pytest.mark.parametrize("name", ["pairs", "ffa", "book-night"])
def test_at_80_columns_the_standings_keep_rank_bot_and_score(db, name):
    r = invoke("standings", name, "--db", str(db), columns=80)
    assert r.exit_code == 0
    head, rows = _table_lines(r.stdout, "bot")
    assert all(len(line) <= 80 for line in r.stdout.splitlines())
    assert "score%" in head and "#" in head
    ranks = [int(line.split()[0]) for line in rows]
    for i, rank in enumerate(ranks, 1):  # the rank, whole (rows level on every number share one: 1, 1, 3)
        assert rank == i or (i > 1 and rank == ranks[i - 2]), ranks
    for line in rows:
        assert re.search(r"\d+\.\d", line)  # the score, whole
    wide = invoke("standings", name, "--db", str(db), columns=200).stdout
    _, wide_rows = _table_lines(wide, "bot")
    assert len(wide_rows) == len(rows)
    for narrow, full in zip(rows, wide_rows):
        # the bot column is not cut: the name (a team's too) reads as at full width
        name = re.match(r"\s*\d+\s+(.+?)\s{2,}", full).group(1)
        assert re.match(rf"\s*\d+\s+{re.escape(name)}\s", narrow), (name, narrow)


def test_at_80_columns_the_match_table_keeps_seats_scores_and_ranks(db):
    r = invoke("tournament", "show", "pairs", "--db", str(db), columns=80)
    assert all(len(line) <= 80 for line in r.stdout.splitlines())
    head, rows = _table_lines(r.stdout, r"(round|deal|seating|seats)")
    for col in ("seats", "scores", "ranks"):
        assert col in head
    assert "not shown" in r.stdout  # what was dropped is said
    first = rows[0].split()
    assert first[0] == "0"
    assert re.search(r"-?\d+ -?\d+ -?\d+ -?\d+", rows[0])  # the four scores on one line
    assert re.search(r"\b[12] [12] [12] [12]\b", rows[0])  # and the four ranks
