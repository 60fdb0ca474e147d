"""`arbiter tournament run|list|show` and `arbiter standings` through typer's CliRunner."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.store.db import Store

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """A store with a finished Spades round robin and a Spot free for all (in process)."""
    path = tmp_path_factory.mktemp("cli") / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--game", "spades",
               "--bots", "random,greedy,heuristic", "-o", "deals=1", "--deals", "3", "--name", "sp", "--quiet")
    assert r.exit_code == 0, r.output
    assert "Standings: sp" in r.stdout and "Cross-table" in r.stdout
    spec = path.parent / "ffa.toml"
    spec.write_text('name = "ffa"\ngame = "spot"\nbots = ["random", "heuristic", "r2=random"]\ndeals = 2\n'
                    "seed = 3\n[options]\nplayers = 3\nhands = 2\n")
    r = invoke("tournament", "run", str(spec), "--db", str(path), "--transport", "inproc")
    assert r.exit_code == 0, r.output
    return path


def test_standings_table_and_crosstable(db):
    r = invoke("standings", "sp", "--db", str(db), "--crosstable")
    assert r.exit_code == 0
    for word in ("heuristic", "greedy", "random", "W-D-L", "95% CI", "Cross-table", "Bradley-Terry"):
        assert word in r.stdout
    # 3 deals: fewer than an interval needs (ratings.min_interval_deals), and the table says so
    assert "too few deals" in r.stdout and "Too few deals for an interval" in r.stdout
    r = invoke("standings", "--db", str(db))  # the newest
    assert "Standings: ffa" in r.stdout and "Bradley-Terry" in r.stdout  # every shape, on the pairs of sides


def test_csv_and_json_exports_parse_and_agree(db):
    rows = list(csv.DictReader(io.StringIO(invoke("standings", "sp", "--db", str(db), "--format", "csv").stdout)))
    data = json.loads(invoke("standings", "sp", "--db", str(db), "--format", "json").stdout)
    assert [r["bot"] for r in rows] == [s["bot"] for s in data["standings"]]
    assert {r["bot"] for r in rows} == {"random", "greedy", "heuristic"}
    assert all(int(r["matches"]) == 12 for r in rows)  # 2 opponents x 3 deals x 2 seatings
    assert data["tournament"]["planned"] == data["matches"] == 18
    assert data["rating_model"] == "bradley-terry"
    first = data["standings"][0]
    assert first["rating"] is not None and first["rating_low"] is None and first["rating_high"] is None  # 3 deals: too few
    # and says why, as the tables under them do (the JSON gave the nulls unexplained)
    # (three bots: each deal played at three pairings' tables, so as many deals as clustering by deal needs)
    assert data["notes"]["interval"] == "Too few deals for an interval (fewer than 8 where each deal is played at several tables)."
    assert data["notes"]["ranked-by"].startswith("Ranked by rating") and "Elo scale" in data["notes"]["scale"]
    assert 0 <= first["los_next"] <= 1
    ct = data["crosstable"]
    assert ct["random"]["greedy"]["meetings"] == 6
    assert ct["random"]["greedy"]["points"] + ct["greedy"]["random"]["points"] == 6


def test_a_match_index_the_tournament_has_not_says_its_range(db):
    """`tournament show NAME --match 99` said "no match '99'", leaving the reader to guess what
    the tournament has: the refusal gives its schedule's indexes, and where they are listed."""
    for match, said in (("99", "no match 99 in tournament 'sp': its schedule numbers its 18 matches 0 to 17"),
                        ("18", "no match 18 in tournament 'sp': its schedule numbers its 18 matches 0 to 17"),
                        ("nosuch", "no match 'nosuch' in tournament 'sp': --match takes a match id of it, or its "
                                   "schedule numbers its 18 matches 0 to 17")):
        r = invoke("tournament", "show", "sp", "--db", str(db), "--match", match)
        text = " ".join(r.output.split())
        assert r.exit_code == 2 and said in text and f"the # column of arbiter tournament show sp --db {db}" in text, text
    assert invoke("tournament", "show", "sp", "--db", str(db), "--match", "17").exit_code == 0


def test_the_crosstable_is_not_dropped_from_a_csv_in_silence(db, tmp_path):
    """`standings --crosstable --format csv` wrote the table alone, as if --crosstable had not
    been given. The CSV is one table, its columns kept for programs: the combination is refused,
    saying where the cross-table is; the other exports hold it."""
    out = tmp_path / "sp.csv"
    r = invoke("standings", "sp", "--db", str(db), "--crosstable", "--format", "csv", "--output", str(out))
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "--crosstable with --format csv: the CSV is the standings table alone" in said, said
    assert "--format json, md or html" in said and not out.exists()
    for fmt, mark in (("json", '"crosstable"'), ("md", "ross-table"), ("html", "ross-table")):
        r = invoke("standings", "sp", "--db", str(db), "--crosstable", "--format", fmt)
        assert r.exit_code == 0 and mark in r.stdout, (fmt, r.output)


def test_html_export_is_one_well_formed_self_contained_file(db, tmp_path):
    out = tmp_path / "sp.html"
    r = invoke("standings", "sp", "--db", str(db), "--format", "html", "--output", str(out))
    assert r.exit_code == 0
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>")
    root = ET.fromstring(text.split("\n", 1)[1])  # well-formed: parses as XML
    assert root.tag == "html"
    assert root.find("head/style") is not None and root.find("head/title").text == "Standings: sp"
    tables = root.findall("body/table")
    assert len(tables) == 2
    assert len(tables[0].findall("tbody/tr")) == 3
    assert "<script" not in text and "http" not in text and "<link" not in text  # nothing external
    md = invoke("standings", "sp", "--db", str(db), "--format", "md").stdout
    assert md.startswith("# Standings: sp") and md.count("\n| ") >= 8


def test_list_and_show_and_match_drill_down(db):
    r = invoke("tournament", "list", "--db", str(db))
    assert r.exit_code == 0 and "sp" in r.stdout and "ffa" in r.stdout and "18/18" in r.stdout
    r = invoke("tournament", "show", "sp", "--db", str(db))
    assert r.exit_code == 0 and "Entrants" in r.stdout and "Matches (18 shown)" in r.stdout
    with Store(db) as store:
        row = store.matches(store.tournament("sp").id)[5]
    r = invoke("tournament", "show", "sp", "--db", str(db), "--match", "5")
    assert r.exit_code == 0
    assert row.match_id in r.stdout and "Seats" in r.stdout
    for bot in row.seats:
        assert bot in r.stdout
    assert invoke("tournament", "show", "sp", "--db", str(db), "--match", row.match_id).stdout == r.stdout
    # the command it gives works as printed: this store, not the default one (where it found
    # no store), and the match is of this tournament, which is not the newest
    said = " ".join(r.stdout.split())
    assert f"replay it: arbiter replay {row.match_id} --db {db}" in said
    assert invoke("replay", row.match_id, "--db", str(db)).exit_code == 0
    r = invoke("tournament", "show", "sp", "--db", str(db), "--failures")
    assert "Matches (0 shown)" in r.stdout


def test_single_matches_are_shown_as_such_not_as_a_tournament_of_none_planned(tmp_path):
    """`arbiter tournament show play:spades` counts the matches `arbiter play` kept, each on a
    seed of its own: not "1/0 matches, seed secret (drawn by the arbiter)" for a match of seed 7."""
    path = tmp_path / "arena.sqlite"
    r = invoke("play", "spades", "greedy", "greedy", "greedy", "greedy", "--seed", "7", "--transport", "inproc",
               "--db", str(path))
    assert r.exit_code == 0, r.output
    r = invoke("tournament", "list", "--db", str(path))  # and the list says how to see it
    said = " ".join(r.stdout.split())
    assert r.exit_code == 0 and "is kept apart" in said and "show play:spades lists it" in said, r.stdout
    r = invoke("tournament", "show", "play:spades", "--db", str(path))
    assert r.exit_code == 0 and "1/0" not in r.stdout and "secret" not in r.stdout, r.stdout
    assert "1 match played one at a time" in r.stdout and "each on a seed of its own" in r.stdout, r.stdout
    r = invoke("tournament", "show", "play:spades", "--db", str(path), "--match", "0")
    assert r.exit_code == 0 and "deal seed 7" in " ".join(r.stdout.split()), r.stdout  # (as wrapped)


def test_a_single_matchs_batch_is_named_with_its_options_as_the_command_line_writes_them(tmp_path):
    """The batch of single matches was named with Python's text of its options,
    ``play:spite-and-malice(ace_two_compulsion=True,...,wild_excluded_ranks=['A'])``, shown by
    `arbiter play`, `tournament list` and the standings. Its options are written as ``-o``
    takes them (``true``, ``A,7``); the list's command to show it quotes the name (its
    brackets). A store an older arbiter wrote keeps adding to its batch of those options,
    under the name it has: not a second batch beside it."""
    import shlex

    from arbiter.batch.single import former_play_batch_name
    from arbiter.tournament.play import play_local

    options = ("-o", "ace_two_compulsion=true", "-o", "wild_excluded_ranks=A,7", "-o", "max_turns=4")
    name = "play:spite-and-malice(ace_two_compulsion=true,max_turns=4,wild_excluded_ranks=7,A)"
    path = tmp_path / "arena.sqlite"
    play = ("play", "spite-and-malice", "random", "random", "--seed", "3", "--transport", "inproc", *options)
    r = invoke(*play, "--db", str(path))
    assert r.exit_code == 0 and f"as {name}: arbiter replay" in " ".join(r.stdout.split()), r.stdout
    r = invoke("tournament", "list", "--db", str(path))
    said = " ".join(r.stdout.split())
    assert f"in {name}: arbiter tournament show {shlex.quote(name)} lists it" in said, r.stdout
    assert "True" not in said and "['A'" not in said, said
    r = invoke("tournament", "show", name, "--db", str(path))
    assert r.exit_code == 0 and "1 match played one at a time" in " ".join(r.stdout.split()), r.stdout

    # a store whose batch of these options an older arbiter made, under the name it gave it
    old = tmp_path / "old.sqlite"
    record = play_local("spite-and-malice", ["random", "random"], seed=4, transport="inproc",
                        options={"ace_two_compulsion": True, "wild_excluded_ranks": ["7", "A"], "max_turns": 4})
    changed = {"ace_two_compulsion": True, "max_turns": 4, "wild_excluded_ranks": ["7", "A"]}
    former = former_play_batch_name("spite-and-malice", changed)
    assert former == "play:spite-and-malice(ace_two_compulsion=True,max_turns=4,wild_excluded_ranks=['7', 'A'])"
    with Store(old) as store:  # as the older store_play kept it
        batch = store.single_batch(former, "spite-and-malice", {"game": "spite-and-malice", "bots": [], "options": changed,
                                                                 "duplicate": False, "name": former, "deals": 1})
        store.append_match(batch.id, record)
        store.mark_finished(batch.id)
    r = invoke(*play, "--db", str(old))
    assert r.exit_code == 0 and f"as {former}: arbiter replay" in " ".join(r.stdout.split()), r.stdout
    with Store(old, read_only=True) as store:
        assert [(t.name, t.done) for t in store.tournaments()] == [(former, 2)]
    r = invoke("tournament", "show", former, "--db", str(old))
    assert r.exit_code == 0 and "2 matches played one at a time" in " ".join(r.stdout.split()), r.stdout


def test_the_default_tournament_is_the_newest_tournament_not_a_later_single_match(tmp_path):
    """`arbiter standings` and `tournament show` with no name read the newest tournament, not the
    batch of single matches an `arbiter play` after it made (kept apart: README "Tournaments");
    with nothing else in the store, that batch."""
    path = str(tmp_path / "arena.sqlite")
    play = ("play", "spades", "greedy", "greedy", "greedy", "greedy", "--seed", "7", "--transport", "inproc",
            "-o", "deals=1", "--db", path)
    assert invoke(*play).exit_code == 0
    r = invoke("standings", "--db", path)
    assert r.exit_code == 0 and "Standings: play:spades(deals=1)" in r.stdout, r.stdout
    r = invoke("tournament", "run", "--db", path, "--transport", "inproc", "--game", "spades", "--bots",
               "random,greedy", "-o", "deals=1", "--deals", "1", "--name", "club", "--quiet")
    assert r.exit_code == 0, r.output
    later = [*play]
    later[later.index("deals=1")] = "deals=2"  # a single match of other options after it: a batch newer than it
    assert invoke(*later).exit_code == 0
    r = invoke("standings", "--db", path)
    assert r.exit_code == 0 and "Standings: club" in r.stdout, r.stdout
    r = invoke("tournament", "show", "--db", path)
    assert r.exit_code == 0 and r.stdout.startswith("club (id"), r.stdout


def test_a_forfeit_shows_what_went_wrong(tmp_path):
    bot = tmp_path / "crashy.py"
    bot.write_text("from sdk import Bot\n\nclass Crashy(Bot):\n    name = 'crashy'\n\n"
                   "    def choose(self, view, legal_actions):\n        raise RuntimeError('boom')\n")
    path = tmp_path / "c.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--game", "spite-and-malice",
               "--bots", f"random,{bot}", "--deals", "1", "--name", "c", "--quiet")
    assert r.exit_code == 0, r.output
    data = json.loads(invoke("standings", "c", "--db", str(path), "--format", "json").stdout)
    crashy = next(s for s in data["standings"] if s["bot"] == "crashy")
    assert crashy["forfeits"] == 2 and crashy["losses"] == 2 and crashy["incidents"] == {"crash": 2}
    r = invoke("tournament", "show", "c", "--db", str(path), "--failures")
    assert "Matches (2 shown)" in r.stdout and "crash" in r.stdout
    # where each bot's stderr is: this tournament of this store (not the newest of arena.sqlite)
    assert f"each bot's stderr: arbiter tournament show c --db {path} --match MATCH_ID" in " ".join(r.stdout.split())
    r = invoke("tournament", "show", "c", "--db", str(path), "--match", "0")
    assert "boom" in r.stdout and "forfeit_crash" in r.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--game", "spot", "--bots", "random,greedy"], "'greedy' does not play spot"),
        (["--game", "nope"], "unknown game 'nope'"),
        (["--deals", "0"], "deals: must be"),
        # a typo of a few zeros: the whole schedule was built in memory (about 1 KB a
        # match, 85 MB more each second) until the machine ran out, with no word
        (["--deals", "1000000000000"], "deals: must be"),
        # so many processes at once (every seat of a match is one) would bring the machine down
        (["--concurrency", "1000000"], "concurrency: must be a whole number from 1 to 1024"),
        (["--bot-processes", "1000000", "--isolation", "shared"], "bot_processes: must be a whole number from 1 to 64"),
        (["-o", "target"], "expected KEY=VALUE"),
        # settings of another mode were taken and did nothing: processes per bot serve
        # only shared isolation, the registry folder only a cluster's workers
        (["--bot-processes", "4"], "bot_processes: 4 processes per bot are for shared isolation"),
        (["--no-duplicate", "--isolation", "match", "--bot-processes", "2"], "with match isolation"),
        (["--shared-bots"], "--shared-bots: only with a cluster"),
        # a cluster's workers host every bot: refused before the store was written (it was after)
        (["--cluster", "tcp://127.0.0.1:1"], "inproc cannot be used with a cluster"),
        # an empty partnership list played each bot with its copy without a word
        (["--teams", ","], "--teams: no partnership in ','"),
        (["--bots", ","], "--bots: no bot in ','"),
        # given twice, the first was dropped without a word ("needs at least 2 bots, got 1")
        (["--game", "spite-and-malice", "--bots", "greedy", "--bots", "random"], "'greedy' does not play spite-and-malice"),
        # a name chosen twice was made a and a-2 without a word, a name chosen as another's automatic one two bots'
        (["--bots", "a=random,a=greedy"], "field bots: the name 'a' is chosen for 2 bots (a=random, a=greedy)"),
        (["--bots", "random,random,random-2=greedy"], "the name 'random-2' is chosen for random-2=greedy and is also "
                                                       "another bot's automatic name"),
    ],
)
def test_bad_command_lines_are_refused_before_anything_runs(tmp_path, args, message):
    path = tmp_path / "x.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", *args)
    assert r.exit_code == 2 and message in r.stderr
    assert not path.exists(), "nothing is written for a bad spec"


def test_a_name_chosen_twice_in_a_spec_file_is_refused_and_names_not_chosen_are_numbered(tmp_path):
    path = tmp_path / "n.sqlite"
    spec = tmp_path / "club.toml"
    spec.write_text('game = "spades"\nbots = [{name = "a", bot = "random"}, "a=greedy"]\ndeals = 1\n[options]\ndeals = 1\n')
    r = invoke("tournament", "run", str(spec), "--db", str(path), "--transport", "inproc")
    assert r.exit_code == 2 and f"{spec}: field bots: the name 'a' is chosen for 2 bots (a=random, a=greedy)" in r.stderr
    assert not path.exists()
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,random,a=greedy",
               "-o", "deals=1", "--deals", "1", "--name", "n", "--quiet")
    assert r.exit_code == 0, r.output
    with Store(path) as store:
        assert [e.name for e in store.entrants(store.tournament("n").id)] == ["random", "random-2", "a"]


def test_shared_processes_with_duplicate_deals_are_refused_saying_what_to_use(tmp_path):
    """A process serving many matches would carry a deal from one seating to its twin."""
    from arbiter.tournament.spec import SHARED_WITH_DUPLICATE

    path = tmp_path / "x.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--game", "spades", "--bots", "random,heuristic",
               "--isolation", "shared")
    assert r.exit_code == 2 and SHARED_WITH_DUPLICATE in " ".join(r.stderr.split()), r.stderr
    assert "--isolation shared" in SHARED_WITH_DUPLICATE and '"deal"' in SHARED_WITH_DUPLICATE
    spec = tmp_path / "shared.toml"
    spec.write_text('game = "spades"\nbots = ["random", "heuristic"]\nisolation = "shared"\n')
    r = invoke("tournament", "run", str(spec), "--db", str(path))
    assert r.exit_code == 2 and SHARED_WITH_DUPLICATE in " ".join(r.stderr.split()), r.stderr
    assert not path.exists(), "nothing is written for a refused spec"


def test_bad_spec_file_names_the_field(tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text('game = "spades"\nbots = ["random", "heuristic"]\nformat = "swiss"\n')
    r = invoke("tournament", "run", str(spec), "--db", str(tmp_path / "x.sqlite"))
    assert r.exit_code == 2 and "format: expected one of round-robin" in r.stderr


def test_a_second_run_on_a_busy_store_is_refused(tmp_path):
    path = tmp_path / "busy.sqlite"
    with Store(path) as holder:
        holder.lock()
        r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--game", "spades",
                   "--bots", "random,heuristic", "-o", "deals=1", "--deals", "1", "--quiet")
        assert r.exit_code == 2 and "another run is writing" in r.stderr
        assert holder.tournaments() == []


def test_resuming_with_another_spec_needs_fresh(tmp_path):
    path = tmp_path / "r.sqlite"
    base = ["tournament", "run", "--db", str(path), "--transport", "inproc", "--game", "spades", "--bots", "random,heuristic",
            "-o", "deals=1", "--name", "r", "--quiet"]
    assert invoke(*base, "--deals", "1").exit_code == 0
    r = invoke(*base, "--deals", "2")
    assert r.exit_code == 2 and "different spec" in r.stderr
    assert invoke(*base, "--deals", "2", "--fresh").exit_code == 0
    with Store(path) as store:
        assert store.tournament("r").done == 4


@pytest.mark.parametrize("transport", ["inproc", pytest.param("local", marks=pytest.mark.e2e)])
def test_a_run_that_cannot_start_leaves_the_store_as_it_was(tmp_path, transport):
    """A bot that does not load (in process, or its hosted processes exiting): --fresh keeps
    the finished tournament it was to replace (it was deleted first, its 4/4 lost, and a
    "0/4 interrupted" left), and a new name leaves no entry whose resume would fail alike."""
    path = tmp_path / "f.sqlite"
    broken = tmp_path / "syntax.py"
    broken.write_text("from sdk import Bot\n\n\nclass S(Bot)\n    name = 's'\n")
    base = ["tournament", "run", "--db", str(path), "--game", "spades", "-o", "deals=1", "--deals", "1", "--quiet"]
    assert invoke(*base, "--transport", "inproc", "--bots", "random,greedy", "--name", "fr").exit_code == 0
    with Store(path) as store:
        before = store.tournament("fr")
        played = [(m.match_id, m.outcome) for m in store.matches(before.id)]
        seed = store.drawn_seed(before.id)
    for more in (["--name", "fr", "--fresh"], ["--name", "new"]):
        r = invoke(*base, "--transport", transport, "--bots", f"random,{broken}", *more)
        assert r.exit_code == 2 and "SyntaxError" in r.stderr and "Traceback" not in r.output, r.output
    with Store(path) as store:
        assert [t.name for t in store.tournaments()] == ["fr"]
        after = store.tournament("fr")
        assert (after.id, after.spec, after.created, after.finished, after.planned, after.done) == (
            before.id, before.spec, before.created, before.finished, 2, 2)
        assert [(m.match_id, m.outcome) for m in store.matches(after.id)] == played
        assert store.drawn_seed(after.id) == seed and [e.name for e in store.entrants(after.id)] == ["random", "greedy"]
    r = invoke("tournament", "list", "--db", str(path))
    assert "2/2" in r.stdout and "finished" in r.stdout and "interrupted" not in r.stdout and "resume" not in r.stdout


def test_missing_store_is_a_clear_error(tmp_path):
    r = invoke("standings", "--db", str(tmp_path / "none.sqlite"))
    assert r.exit_code == 2 and "no store at" in r.stderr
    r = invoke("standings", "--db", str(tmp_path / "none.sqlite"), "--format", "xml")
    assert r.exit_code == 2 and "--format" in r.stderr


def test_partnerships_cross_table_is_the_standings_rows_everywhere(tmp_path):
    """Named teams are one standings row each (``team_rows``), and the cross-table is of
    those rows on the web page, in the terminal and in the exports alike: it was one row and
    column per bot in the terminal and the exports, partners interleaved by name with
    empty cells between them, while the web page showed the partnerships."""
    import re

    from arbiter.present.web import tournament_page

    path = tmp_path / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy,r2=random,g2=greedy",
               "--teams", "random+greedy,r2+g2", "-o", "deals=1", "--deals", "1", "--seed", "1", "--name", "tm", "--quiet")
    assert r.exit_code == 0, r.output
    store = Store(path, read_only=True)
    page = tournament_page(store, "tm")
    web = re.findall(r"<th>([^<]*)</th>", page.split('id="crosstable"')[1].split("</table>")[0])[1:]
    web = [w.replace("&#43;", "+") for w in web]
    assert sorted(web) == ["r2 + g2", "random + greedy"]
    cli = invoke("standings", "tm", "--db", str(path), "--crosstable").stdout.split("Cross-table")[1]
    assert all(label in cli for label in web) and "│ g2 " not in cli
    md = invoke("standings", "tm", "--db", str(path), "--format", "md").stdout.split("## Cross-table")[1]
    head = [c.strip() for c in md.strip().splitlines()[2].strip("|").split("|")][1:]
    assert head == web
    html = invoke("standings", "tm", "--db", str(path), "--format", "html").stdout.split("Cross-table")[1]
    assert all(f"<th>{label}</th>" in html for label in web) and "<th>g2</th>" not in html


def test_watching_a_run_with_no_arbiter_says_so_not_that_nothing_runs(tmp_path):
    """A run whose bots play in its own process (--transport inproc) has no arbiter to watch
    and announces none; arbiter watch --db said 'no tournament is running' while one was
    writing the store. The store's run lock (what every run holds) tells it."""
    path = tmp_path / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy",
               "-o", "deals=1", "--deals", "1", "--name", "w", "--quiet")
    assert r.exit_code == 0, r.output
    r = invoke("watch", "--db", str(path))
    assert r.exit_code != 0 and "no tournament is running" in r.output  # nothing holds the store: true
    with Store(path) as store:
        store.lock()  # as a run does, in process, for as long as it plays
        r = invoke("watch", "--db", str(path))
    said = " ".join(r.output.split())
    assert r.exit_code != 0 and "no tournament is running" not in said, said
    assert f"a run is writing {path}" in said and "--transport inproc" in said and "--transport local" in said
    with Store(path) as store:
        store.lock()  # the probe took nothing: the next run still gets the lock


def test_the_commands_a_run_prints_work_as_printed_whatever_the_name(tmp_path):
    """'stored in ...; arbiter standings NAME --db DB shows it again' printed the name and the
    store bare: with a space (club night) the command took two arguments, with a ';' the shell
    ran the rest; and a name starting with '-' reads as an option in every command."""
    import shlex

    folder = tmp_path / "my stores"
    folder.mkdir()
    path = folder / "arena.sqlite"
    for name in ("club night", "a;b"):
        r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy",
                   "-o", "deals=1", "--deals", "1", "--name", name, "--quiet")
        assert r.exit_code == 0, r.output
        said = " ".join(r.stdout.split())
        command = said.split("; ")[-1].removesuffix(" shows it again")
        args = shlex.split(command)
        assert args[:2] == ["arbiter", "standings"], command
        shown = invoke(*args[1:])
        assert shown.exit_code == 0 and f"Standings: {name}" in shown.stdout, (command, shown.output)
        r = invoke("tournament", "show", name, "--db", str(path), "--match", "0")
        args = shlex.split(" ".join(r.stdout.split()).split("replay it: ")[1])
        assert args[:2] == ["arbiter", "replay"] and args[-1] == str(path), args
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy", "--name", "-x")
    assert r.exit_code != 0 and "name: '-x'" in r.output and "option" in r.output


def test_the_progress_line_names_the_leading_partnership_as_the_standings_do(tmp_path):
    """With named teams the standings have one row per partnership; the progress line's
    leader named one partner ('leader: random 50%'), a row the table does not have."""
    path = tmp_path / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy,r2=random,g2=greedy",
               "--teams", "random+greedy,r2+g2", "-o", "deals=1", "--deals", "1", "--seed", "1", "--name", "tm")
    assert r.exit_code == 0, r.output
    leader = r.output.split("leader: ")[-1].split("\n")[0]
    assert leader.startswith(("random + greedy ", "r2 + g2 ", "r2 + g2, random + greedy (level) ")), leader


def test_partners_rows_in_csv_and_json_have_their_partnerships_rank(tmp_path):
    """The CSV and the JSON keep one row per bot (with its team), but the rank and the LOS
    are the partnership's, as every table shows them: the second team's partners were ranked
    3 and 4 under a table that ranks it 2, and a partner's LOS was 'over' its own partner. (Two
    partnerships of the same bots tie, and share rank 1: the second has another bot.)"""
    path = tmp_path / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy,r2=random,h=heuristic",
               "--teams", "random+greedy,r2+h", "-o", "deals=1", "--deals", "1", "--seed", "1", "--name", "tm", "--quiet")
    assert r.exit_code == 0, r.output
    md = invoke("standings", "tm", "--db", str(path), "--format", "md").stdout.split("## Cross-table")[0]
    table = {}
    for line in md.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) > 10 and cells[0].isdigit():
            table[cells[1]] = (int(cells[0]), cells[11])  # rank, LOS over next
    assert sorted(rank for rank, _ in table.values()) == [1, 2]
    rows = list(csv.DictReader(io.StringIO(invoke("standings", "tm", "--db", str(path), "--format", "csv").stdout)))
    data = json.loads(invoke("standings", "tm", "--db", str(path), "--format", "json").stdout)["standings"]
    assert len(rows) == len(data) == 4
    for row, item in zip(rows, data):
        rank, los = table[row["team"]]
        assert int(row["rank"]) == item["rank"] == rank, (row, table)
        assert (row["los_next"] == "") == (item["los_next"] is None) == (los == ""), (row, table)


def test_luck_adjusted_standings_of_one_deal_say_one_deal(tmp_path):
    """'(1 deals of random vs greedy ...)' and '1 deals are fewer than the 40'."""
    path = tmp_path / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy",
               "-o", "deals=1", "--deals", "1", "--seed", "1", "--name", "one", "--quiet")
    assert r.exit_code == 0, r.output
    said = " ".join(invoke("standings", "one", "--db", str(path), "--luck-adjusted", "--probes", "20").stdout.split())
    assert "(1 deal of random vs greedy" in said and "none, 1 deal is fewer than the" in said, said
    assert "1 deals" not in said


def test_a_tournament_named_as_a_stored_evaluation_is_told_what_holds_the_name(tmp_path):
    """The refusal listed nine 'differences' (bank_ms, deals, ..., evaluate, format, name...)
    from a spec of another kind: the name is an evaluation's (arbiter evaluate --db)."""
    path = tmp_path / "arena.sqlite"
    r = invoke("evaluate", "spades", "random", "greedy", "-o", "deals=1", "--deals", "2", "--db", str(path),
               "--transport", "inproc")
    assert r.exit_code == 0, r.output
    with Store(path) as store:
        (name,) = [t.name for t in store.tournaments()]
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy",
               "-o", "deals=1", "--deals", "1", "--name", name, "--quiet")
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and f"{name!r} in {path} is an evaluation (arbiter evaluate), not a tournament" in said, said
    assert "differs in" not in said and "--fresh" in said


def test_a_tournament_with_a_corrupt_spec_does_not_hide_the_others_from_the_list(tmp_path):
    """One row whose stored spec cannot be read made `tournament list` fail for the whole store;
    it is named in a warning and the others are listed."""
    from arbiter.store.db import Store, StoreError

    db = tmp_path / "a.sqlite"
    with Store(db) as store:
        store.open_tournament("good", "spades", {"bots": ["random", "greedy"]})
        store.open_tournament("bad", "spades", {})
        store.db.execute("UPDATE tournaments SET spec = '{broken' WHERE name = 'bad'")
        with pytest.raises(StoreError, match="'bad': corrupt spec"):
            store.tournaments()
    r = CliRunner().invoke(app, ["tournament", "list", "--db", str(db)], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "good" in r.output and "tournament 'bad': corrupt spec" in r.output and "(not listed)" in r.output


def test_exactly_tied_rows_share_a_rank_in_every_table(tmp_path):
    """Standard competition ranking (1, 1, 3): two copies of one bot on the same duplicate
    deals tie on everything the table is ordered by (rating, score %, margin), and were
    ranked 1 and 2 by their names' order in the terminal, the exports and the web page."""
    import re

    from arbiter.present.web import tournament_page

    path = tmp_path / "arena.sqlite"
    r = runner.invoke(app, ["tournament", "run", "--db", str(path), "--transport", "inproc", "--game", "spot",
                            "--bots", "heuristic,h2=heuristic,random", "-o", "players=2", "-o", "hands=1", "--deals", "1",
                            "--seed", "1", "--name", "tie", "--quiet"], env={"COLUMNS": "200"}, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    data = json.loads(invoke("standings", "tie", "--db", str(path), "--format", "json").stdout)["standings"]
    assert data[0]["rating"] == data[1]["rating"] and data[0]["score_rate"] == data[1]["score_rate"]  # the premise
    want = {"heuristic": 1, "h2": 1, "random": 3}
    assert {d["bot"]: d["rank"] for d in data} == want
    rows = csv.DictReader(io.StringIO(invoke("standings", "tie", "--db", str(path), "--format", "csv").stdout))
    assert {row["bot"]: int(row["rank"]) for row in rows} == want
    md = invoke("standings", "tie", "--db", str(path), "--format", "md").stdout.split("## Cross-table")[0]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in md.splitlines() if line.startswith("| ")]
    assert {c[1]: int(c[0]) for c in cells if c[0].isdigit()} == want
    html = invoke("standings", "tie", "--db", str(path), "--format", "html").stdout
    assert {b: int(n) for n, b in re.findall(r"<tr><td>(\d+)</td><td class=\"name\">([^<]+)</td>", html)} == want
    terminal = runner.invoke(app, ["standings", "tie", "--db", str(path)], env={"COLUMNS": "200"}).stdout
    assert {b: int(n) for n, b in re.findall(r"^\s*(\d+)\s+(h2|heuristic|random)\s", terminal, re.M)} == want
    page = tournament_page(Store(path, read_only=True), "tie")
    assert {b: int(n) for n, b in re.findall(r'<td class="num">(\d+)</td><td class="bot"><strong><a [^>]*>([^<]+)</a>',
                                              page)} == want


def test_options_from_flags_are_stored_typed_as_a_spec_file_stores_them(tmp_path):
    """-o deals=1 was stored as the text "1" (shown so in standings --format json) where a spec
    file's deals = 1 is stored as 1: the game's option schema reads both into the same JSON."""
    path = tmp_path / "arena.sqlite"
    (tmp_path / "f.toml").write_text('name = "file"\ngame = "spot"\nbots = ["random", "heuristic"]\ndeals = 1\nseed = 1\n'
                                     "[options]\nplayers = 2\nhands = 1\npot_carry_over = false\nunit_per_spot = 2\n")
    r = invoke("tournament", "run", str(tmp_path / "f.toml"), "--db", str(path), "--transport", "inproc", "--quiet")
    assert r.exit_code == 0, r.output
    r = invoke("tournament", "run", "--game", "spot", "--bots", "random,heuristic", "--deals", "1", "--seed", "1", "-o", "players=2",
               "-o", "hands=1", "-o", "pot_carry_over=off", "-o", "unit_per_spot=2", "--name", "flags", "--db", str(path),
               "--transport", "inproc", "--quiet")
    assert r.exit_code == 0, r.output
    want = {"players": 2, "hands": 1, "pot_carry_over": False, "unit_per_spot": 2.0}
    for name in ("file", "flags"):
        shown = json.loads(invoke("standings", name, "--db", str(path), "--format", "json").stdout)["tournament"]["options"]
        assert shown == want and type(shown["unit_per_spot"]) is float, (name, shown)
    with Store(path, read_only=True) as store:
        assert json.dumps(store.tournament("file").spec["options"]) == json.dumps(store.tournament("flags").spec["options"])


def test_a_tournament_stored_with_options_as_text_resumes_with_the_same_command(tmp_path):
    """A store written before -o options were typed keeps them as text ("deals": "1"); the same
    command resumes it (the stored options mean the same), and another value is still another spec."""
    path = tmp_path / "arena.sqlite"
    run = ("tournament", "run", "--bots", "random,greedy", "--deals", "2", "--seed", "1", "--name", "old", "--db", str(path),
           "--transport", "inproc", "--quiet")
    assert invoke(*run, "-o", "deals=1").exit_code == 0
    with Store(path) as store:  # as an older arbiter stored it, one match not played yet
        spec = store.tournament("old").spec
        store.db.execute("UPDATE tournaments SET spec = ?, finished = NULL WHERE name = 'old'",
                         (json.dumps({**spec, "options": {"deals": "1"}}, sort_keys=True),))
        store.db.execute("DELETE FROM matches WHERE idx = 3")
    r = invoke(*run, "-o", "deals=1")
    assert r.exit_code == 0, r.output
    with Store(path, read_only=True) as store:
        tour = store.tournament("old")
        assert tour.done == tour.planned == 4 and tour.finished is not None and tour.spec["options"] == {"deals": "1"}
    r = invoke(*run, "-o", "deals=2")
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "different spec (it differs in options.deals)" in said, said


def test_resuming_a_finished_tournament_prints_its_standings_and_starts_nothing(tmp_path, monkeypatch):
    """`tournament run --resume NAME` of a finished tournament said "bots: hosted (bot
    processes ...)" and "resuming NAME: 12 of 12 matches", drew a progress bar and wrote the
    tournament again (a new finishing time, as if played now) before its standings: it says it
    is finished, starts no bot (the venue that would host them is never opened) and writes nothing."""
    import arbiter.batch.venue

    path = tmp_path / "arena.sqlite"
    assert invoke("tournament", "run", "--bots", "random,greedy", "--deals", "1", "-o", "deals=1", "--name", "done",
                  "--db", str(path), "--transport", "inproc", "--quiet").exit_code == 0
    with Store(path, read_only=True) as store:
        before = store.tournament("done")

    def no_venue(*args, **kwargs):
        raise AssertionError("a finished tournament's bots were started")

    monkeypatch.setattr(arbiter.batch.venue, "open_venue", no_venue)
    r = runner.invoke(app, ["tournament", "run", "--resume", "done", "--db", str(path)], terminal_width=200)
    assert r.exit_code == 0, r.output
    said = " ".join(r.output.split())
    assert f"done is finished already: its 2 matches are in {path}, none played again" in said, said
    assert "bots: hosted" not in said and "resuming done" not in said and "Standings: done" in said, said
    with Store(path, read_only=True) as store:
        assert store.tournament("done") == before


def test_an_interrupted_tournament_says_so_and_how_to_resume_it(tmp_path, monkeypatch):
    """A run stopped (Ctrl-C, SIGTERM, a crash) left its tournament "in progress" in tournament
    list, show and the web pages while nothing ran it: the store's run lock says which
    tournament a run holds. Interrupted, each says so and prints the command that resumes it
    (tournament run --resume NAME: its settings from the store, its seed not shown), quoted to
    paste (the name and the store's folder have spaces and quotes), and that command resumes
    it; "in progress" only while a run holds it."""
    import shlex

    from arbiter.present.web import index_page, tournament_page

    folder = tmp_path / "my stores"
    folder.mkdir()
    path = folder / "arena.sqlite"
    name = "club night's"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,h2=greedy", "-o", "deals=1",
               "--deals", "2", "--seed", "5", "--decision-ms", "4000", "--name", name, "--quiet")
    assert r.exit_code == 0, r.output
    with Store(path) as store:  # as a run stopped before its last match leaves it
        store.db.execute("UPDATE tournaments SET finished = NULL")
        store.db.execute("DELETE FROM matches WHERE idx = 3")

    from arbiter.cli import _common

    monkeypatch.setattr(_common.out, "_width", 250)  # whatever width an earlier test left it at: whole cells

    def said(*args: str) -> str:
        r = runner.invoke(app, list(args), env={"COLUMNS": "250"}, catch_exceptions=False)
        assert r.exit_code == 0, r.output
        return " ".join(r.stdout.split())

    def pages() -> str:
        with Store(path, read_only=True) as store:
            return index_page(store) + tournament_page(store, name)

    listed, shown, web = said("tournament", "list", "--db", str(path)), said("tournament", "show", name, "--db", str(path)), pages()
    assert "in progress" not in listed + shown + web and " 3/4 interrupted " in listed, listed
    assert "state: interrupted, nothing runs it; resume it: " in shown, shown
    assert web.count('<span class="pill">interrupted</span>') == 2, web
    assert 'id="refreshing"' not in web, web  # "updates by itself while the tournament runs" beside "nothing runs it"
    command = listed.split("resume it: ")[1]  # the list's last line
    assert command in shown, (command, shown)
    assert command.replace("&", "&amp;").replace("'", "&#39;").replace('"', "&#34;") in web, command
    argv = shlex.split(command)
    assert argv == ["arbiter", "tournament", "run", "--resume", name, "--db", str(path)], argv
    assert "--seed" not in command and " 5 " not in command  # withheld until it ends (its settings are the store's)
    r = invoke(*argv[1:], "--deals", "3")
    assert r.exit_code == 2 and "leave out --deals" in " ".join(r.stderr.split()), r.output
    with Store(path) as store:
        store.lock(name)  # a run of it, as long as it plays
        assert " 3/4 in progress " in said("tournament", "list", "--db", str(path))
        assert pages().count('<span class="pill">in progress</span>') == 2 and 'id="refreshing"' in pages()
        assert "resume it" not in said("tournament", "show", name, "--db", str(path))
        store.unlock()
        store.lock("another")  # a run of another tournament of the store: this one is still interrupted
        assert " 3/4 interrupted " in said("tournament", "list", "--db", str(path)) and "in progress" not in pages()
    r = invoke(*argv[1:], "--transport", "inproc", "--quiet")  # the command as printed
    assert r.exit_code == 0 and "Standings" in r.stdout, r.output
    with Store(path, read_only=True) as store:
        tour = store.tournament(name)
        assert tour.finished is not None and tour.done == tour.planned == 4
    listed = said("tournament", "list", "--db", str(path))
    assert "finished" in listed and "nothing runs it" not in listed and "resume" not in listed


_FIRST_LEGAL = "from sdk import Bot\n\n\nclass Mine(Bot):\n    games = ('*',)\n\n    def choose(self, view, legal):\n        return legal[0]\n"


def test_a_spec_files_relative_bot_paths_are_read_from_its_folder(tmp_path, monkeypatch):
    """club.toml's "mine=./mybot.py" was looked for in the current directory ("file not found:
    mybot.py" when run from elsewhere): it is the file beside club.toml, stored as its full path,
    so --resume finds it from anywhere; a missing one is named by the full path tried."""
    club, elsewhere = tmp_path / "club", tmp_path / "elsewhere"
    club.mkdir(), elsewhere.mkdir()
    (club / "mybot.py").write_text(_FIRST_LEGAL)
    (club / "club.toml").write_text('name = "club"\ngame = "spades"\nbots = ["mine=./mybot.py", {name = "f", bot = "mybot.py"}, '
                                    '"random"]\ndeals = 1\n[options]\ndeals = 1\n')
    (club / "bad.toml").write_text('game = "spades"\nbots = ["./nope.py", "random"]\n')
    path = tmp_path / "c.sqlite"
    monkeypatch.chdir(elsewhere)
    r = invoke("tournament", "run", str(club / "club.toml"), "--db", str(path), "--transport", "inproc", "--quiet")
    assert r.exit_code == 0, r.output
    with Store(path, read_only=True) as store:
        tour = store.tournament("club")
        assert [(e.name, e.spec) for e in store.entrants(tour.id)] == [
            ("mine", str(club / "mybot.py")), ("f", str(club / "mybot.py")), ("random", "random")]
        assert tour.done == tour.planned
    monkeypatch.chdir(tmp_path)
    r = invoke("tournament", "run", "--resume", "club", "--db", str(path), "--transport", "inproc", "--quiet")
    assert r.exit_code == 0 and "Standings: club" in r.stdout, r.output
    r = invoke("tournament", "run", "club/bad.toml", "--db", str(path), "--transport", "inproc")  # a relative one's too
    assert r.exit_code == 2 and f"bots: '{club / 'nope.py'}': file not found: {club / 'nope.py'}" in r.stderr, r.output


def test_a_run_stored_with_a_spec_files_path_as_written_resumes_with_the_same_command(tmp_path, monkeypatch):
    """Before a spec file's paths were read from its folder, its "./mybot.py" was stored as
    written (found from the current directory): the same command, from there, resumes that run
    (as the same spec given by flags from there) rather than refuse it as another spec."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mybot.py").write_text(_FIRST_LEGAL)
    (tmp_path / "club.toml").write_text('name = "club"\ngame = "spades"\nbots = ["mine=./mybot.py", "random"]\ndeals = 1\n'
                                        "[options]\ndeals = 1\n")
    path = tmp_path / "c.sqlite"
    r = invoke("tournament", "run", "--name", "club", "--game", "spades", "--bots", "mine=./mybot.py,random", "--deals", "1",
               "-o", "deals=1", "--db", str(path), "--transport", "inproc", "--quiet")
    assert r.exit_code == 0, r.output
    r = invoke("tournament", "run", "club.toml", "--db", str(path), "--transport", "inproc", "--quiet")
    assert r.exit_code == 0 and "Standings: club" in r.stdout, r.output
    with Store(path, read_only=True) as store:
        assert [t.spec["bots"] for t in store.tournaments()] == [["mine=./mybot.py", "random"]]


def test_a_bot_given_as_module_and_class_is_named_by_its_class(tmp_path):
    """bots.noisy:Noisy30 was named "bots" (the module path's stem), and two classes of one
    file (zoo.py:A, zoo.py:B) "zoo" and "zoo-2": a table of names that say nothing of which
    bot is which. Each is named by its class, in the standings, the entrants and the records."""
    from arbiter.tournament.spec import bot_names

    zoo = tmp_path / "zoo.py"
    assert bot_names(["bots.noisy:Noisy30", f"{zoo}:RaiseInChoose", f"{zoo}:ReturnIllegal", "random", "x=bots.noisy:Noisy60",
                      "mybot.py", "other.noisy:Noisy30"]) == (
        "Noisy30", "RaiseInChoose", "ReturnIllegal", "random", "x", "mybot", "Noisy30-2")
    path = tmp_path / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--game", "spot", "--bots",
               "bots.noisy:Noisy30,bots.noisy:Noisy60,random", "-o", "players=2", "-o", "hands=1", "--deals", "1",
               "--seed", "1", "--name", "noisy", "--quiet")
    assert r.exit_code == 0, r.output
    data = json.loads(invoke("standings", "noisy", "--db", str(path), "--format", "json").stdout)
    assert {s["bot"] for s in data["standings"]} == {"Noisy30", "Noisy60", "random"}
    with Store(path, read_only=True) as store:
        tour = store.tournament("noisy")
        assert [e.name for e in store.entrants(tour.id)] == ["Noisy30", "Noisy60", "random"]
        assert {n for row in store.matches(tour.id) for n in row.seats} == {"Noisy30", "Noisy60", "random"}


def test_a_tournament_stored_under_the_module_names_keeps_them(tmp_path, monkeypatch):
    """A store written when bots.noisy:Noisy30 was named "bots" keeps its records' names: its
    standings read as they were, and the same command resumes it under those names, not a
    table of "bots" and "Noisy30" side by side."""
    import arbiter.batch.settings as settings
    import arbiter.tournament.spec as spec_module

    path = tmp_path / "arena.sqlite"
    run = ("tournament", "run", "--db", str(path), "--transport", "inproc", "--game", "spot", "--bots",
           "bots.noisy:Noisy30,bots.noisy:Noisy60,random", "-o", "players=2", "-o", "hands=1", "--deals", "1", "--seed", "1",
           "--name", "old", "--quiet")
    with monkeypatch.context() as m:  # the older rule: the module path's stem, made unique
        for module in (spec_module, settings):
            m.setattr(module, "bot_names", lambda specs: ("bots", "bots-2", "random"))
        assert invoke(*run).exit_code == 0
    with Store(path) as store:  # interrupted before its last match
        store.db.execute("UPDATE tournaments SET finished = NULL")
        store.db.execute("DELETE FROM matches WHERE idx = (SELECT MAX(idx) FROM matches)")
    data = json.loads(invoke("standings", "old", "--db", str(path), "--format", "json").stdout)
    assert sorted(s["bot"] for s in data["standings"]) == ["bots", "bots-2", "random"]
    r = invoke(*run)
    assert r.exit_code == 0, r.output
    with Store(path, read_only=True) as store:
        tour = store.tournament("old")
        assert tour.finished is not None and tour.done == tour.planned == 6
        assert {n for row in store.matches(tour.id) for n in row.seats} == {"bots", "bots-2", "random"}
        assert [e.name for e in store.entrants(tour.id)] == ["bots", "bots-2", "random"]
    data = json.loads(invoke("standings", "old", "--db", str(path), "--format", "json").stdout)
    assert sorted((s["bot"], s["matches"]) for s in data["standings"]) == [("bots", 4), ("bots-2", 4), ("random", 4)]

    spades = ("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "bots.noisy:Noisy30,random", "-o",
              "deals=1", "--deals", "1", "--seed", "1", "--name", "old-spades", "--quiet")
    with monkeypatch.context() as m:
        for module in (spec_module, settings):
            m.setattr(module, "bot_names", lambda specs: ("bots", "random"))
        assert invoke(*spades).exit_code == 0
    # its probes play each pair's bots, found by the names its records carry ("unknown bot 'bots'")
    r = invoke("standings", "old-spades", "--db", str(path), "--luck-adjusted", "--probes", "20")
    assert r.exit_code == 0 and "luck-adjusted margin" in r.stdout, r.output


def test_exported_numbers_are_rounded_and_a_bot_with_no_match_has_no_score(tmp_path):
    """In a free for all of four a side beaten is worth a third of a point, and the CSV and JSON
    wrote points as sums of thirds (``2.4999999999999996``, ``10.666666666666666``) beside numbers
    rounded to six places; a bot with no match yet (a run stopped before it played) was written a
    score rate and a margin of 0 where every table shows "–". Now rounded, and empty (null)."""
    path = tmp_path / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--game", "spot", "--bots",
               "random,heuristic,r2=random,h2=heuristic", "-o", "players=4", "-o", "hands=1", "--deals", "1",
               "--seed", "3", "--name", "four", "--quiet")
    assert r.exit_code == 0, r.output

    def exported() -> tuple[list[dict[str, str]], dict]:
        text = invoke("standings", "four", "--db", str(path), "--format", "csv").stdout
        return list(csv.DictReader(io.StringIO(text))), json.loads(invoke("standings", "four", "--db", str(path), "-f", "json").stdout)

    rows, data = exported()
    assert any(float(row["points"]) * 2 % 1 for row in rows), rows  # the premise: thirds of a point
    for row in rows:
        assert all(len(v.partition(".")[2]) <= 6 for k, v in row.items() if k not in ("bot", "team")), row
    for s in data["standings"]:
        assert s["points"] == round(s["points"], 6) and len(repr(s["points"]).partition(".")[2]) <= 6, s
    for against in data["crosstable"].values():
        assert all(c is None or len(repr(c["points"]).partition(".")[2]) <= 6 for c in against.values()), against
    with Store(path) as store:  # as a run stopped before its first result leaves it
        store.db.execute("UPDATE tournaments SET finished = NULL")
        store.db.execute("DELETE FROM matches")
    rows, data = exported()
    assert [(row["matches"], row["score_rate"], row["mean_margin"]) for row in rows] == [("0", "", "")] * 4, rows
    assert all(s["score_rate"] is None and s["mean_margin"] is None for s in data["standings"]), data["standings"]
    # the tables: "–" for each number there is none of yet, as the web page gives them (md and html were blank)
    md = invoke("standings", "four", "--db", str(path), "--format", "md").stdout.split("## Cross-table")[0]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in md.splitlines() if line.startswith("| 1 ")]
    assert len(cells) == 4 and all(c[7:11] == ["–"] * 4 for c in cells), md


def test_the_standings_of_a_tournament_not_finished_say_it_is_running_or_interrupted(tmp_path):
    """``tournament list``, ``show`` and the web page say a tournament is interrupted (and how to
    resume it) or in progress; ``arbiter standings`` and its exports said only "3 of 4 matches
    played", a table of a run cut off read as if it were final. Now the summary says which, the
    JSON has its ``state``, and the terminal's table prints the command that resumes it."""
    import shlex

    path = tmp_path / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy", "-o", "deals=1",
               "--deals", "2", "--seed", "5", "--name", "cut", "--quiet")
    assert r.exit_code == 0, r.output

    def said(*args: str) -> str:
        r = runner.invoke(app, ["standings", "cut", "--db", str(path), *args], env={"COLUMNS": "250"}, catch_exceptions=False)
        assert r.exit_code == 0, r.output
        return r.stdout

    assert "so far" not in said() and json.loads(said("-f", "json"))["tournament"]["state"] == "finished"
    with Store(path) as store:  # as a run stopped before its last match leaves it
        store.db.execute("UPDATE tournaments SET finished = NULL")
        store.db.execute("DELETE FROM matches WHERE idx = 3")
    table = said()
    assert "3 of 4 matches played so far: interrupted, nothing runs it" in " ".join(table.split()), table
    command = table.split("resume it: ")[1].splitlines()[0]
    assert shlex.split(command) == ["arbiter", "tournament", "run", "--resume", "cut", "--db", str(path)], command
    for fmt in ("md", "html"):
        assert "played so far: interrupted" in said("-f", fmt)
    assert json.loads(said("-f", "json"))["tournament"]["state"] == "interrupted"
    with Store(path) as store:
        store.lock("cut")  # a run of it, as long as it plays
        table = said()
        assert "so far: still running" in " ".join(table.split()) and "resume" not in table, table
        assert json.loads(said("-f", "json"))["tournament"]["state"] == "in progress"
        store.unlock()


def test_the_exports_of_an_interrupted_tournament_say_how_to_resume_it(tmp_path):
    """The md and html exports of an interrupted tournament said "interrupted, nothing runs
    it" and not the command that resumes it, which the terminal's table prints under it: each
    now has the table's own line, and the JSON has it as ``resume``."""
    import html

    from arbiter.present.export import md_text

    path = tmp_path / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy", "-o", "deals=1",
               "--deals", "2", "--seed", "5", "--name", "cut", "--quiet")
    assert r.exit_code == 0, r.output
    with Store(path) as store:  # as a run stopped before its last match leaves it
        store.db.execute("UPDATE tournaments SET finished = NULL")
        store.db.execute("DELETE FROM matches WHERE idx = 3")

    def said(*args: str) -> str:
        r = runner.invoke(app, ["standings", "cut", "--db", str(path), *args], env={"COLUMNS": "250"}, catch_exceptions=False)
        assert r.exit_code == 0, r.output
        return r.stdout

    line = next(x for x in said().splitlines() if "resume it: " in x)
    assert line.startswith("interrupted, nothing runs it; resume it: arbiter tournament run --resume cut"), line
    assert f"\n\n{md_text(line)}\n\n" in said("-f", "md")
    assert f'<p class="meta">{html.escape(line)}</p>' in said("-f", "html")
    assert json.loads(said("-f", "json"))["tournament"]["resume"] == line
    with Store(path) as store:
        store.lock("cut")  # a run of it, as long as it plays: nothing to resume
        assert "resume it" not in said("-f", "md") + said("-f", "html")
        store.unlock()


def test_the_terminal_table_shows_the_numbers_the_exports_and_the_web_page_show(db):
    """Each number of a row is the same text wherever the standings are read: the terminal's
    table gave the likelihood of superiority in whole percents ("97%") where the page, the
    Markdown and HTML exports (and the ladder's own terminal table) gave "96.5%"."""
    import re

    from arbiter.present.web import tournament_page

    terminal = runner.invoke(app, ["standings", "sp", "--db", str(db)], env={"COLUMNS": "250"}).stdout
    md = invoke("standings", "sp", "--db", str(db), "--format", "md").stdout.split("## Cross-table")[0]
    head = [c.strip() for c in md.splitlines()[4].strip("|").split("|")]
    exported = {}
    for line in md.splitlines()[6:]:
        if line.startswith("| "):
            c = dict(zip(head, (x.strip() for x in line.strip("|").split("|"))))
            exported[c["bot"]] = c
    assert len(exported) == 3, md
    page = _page_text(tournament_page(Store(db, read_only=True), "sp"))
    for line in terminal.splitlines():
        cells = line.split()
        if len(cells) > 8 and cells[1] in exported:
            want = exported[cells[1]]
            wdl = f"{want['W']}-{want['D']}-{want['L']}"
            los = want["LOS over next"].replace("\\>", ">").replace("\\<", "<")
            got = [cells[0], cells[2], cells[3], cells[4], " ".join(cells[5:8]), cells[8], cells[9:12]]
            assert got[:6] == [want["#"], want["matches"], wdl, want["score %"], want["margin ± s.e."], want["rating"]], (got, want)
            assert los in line.split(want["rating"], 1)[1], (line, los)  # the interval reads too few deals here
            assert re.search(rf"{cells[1]} {want['matches']} .*{re.escape(want['margin ± s.e.'])} {re.escape(los)}", page), page


def _page_text(html: str) -> str:
    import re

    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&gt;", ">").replace("&lt;", "<")


def test_standings_help_says_what_each_column_of_its_tables_means(db):
    """The terminal's table heads its columns n, W-D-L, score%, LOS↓, forf...; the notes under it
    explain the margin and the rating, and nothing said what n, LOS↓ or forf were. Each head of
    the tournament's and the ladder's tables is now explained in ``arbiter standings --help``."""
    help_text = " ".join(runner.invoke(app, ["standings", "--help"], env={"COLUMNS": "250"}).stdout.split())
    terminal = runner.invoke(app, ["standings", "sp", "--db", str(db)], env={"COLUMNS": "250"}).stdout.splitlines()
    heads = re.split(r"\s{2,}", terminal[1].strip())
    assert heads[:4] == ["#", "bot", "n", "W-D-L"] and "LOS↓" in heads and "think ms" in heads, heads
    ladder = ["#", "player", "status", "rating", "95% CI", "LOS↓", "enc", "matches", "fail"]  # _ladder's columns
    for head in heads + ["forf", "transport ms"] + ladder:
        assert re.search(rf"(^|[ ;(]){re.escape(head)}[ ,]", help_text), (head, help_text)



def test_every_export_column_and_key_is_documented(db, tmp_path):
    """The CSV's columns and the JSON's keys were documented nowhere: a program reading them had
    only the names to go by. README's "Standings exports" lists each; this holds it to the exports."""
    from pathlib import Path

    from arbiter.present.export import CSV_COLUMNS, LADDER_COLUMNS

    readme = Path(__file__).resolve().parents[2] / "README.md"
    section = readme.read_text().split("### Standings exports", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`([a-z_]+)`", section))
    data = json.loads(invoke("standings", "sp", "--db", str(db), "--format", "json").stdout)
    keys = set(data) | set(data["tournament"]) | set(data["played"]) | set(data["standings"][0])
    keys |= {"seed_drawn", "division", "not_hosted", "arena", "game", "ranked_by", "scale", "standings"}  # not in this one
    header = invoke("standings", "sp", "--db", str(db), "--format", "csv").stdout.splitlines()[0].split(",")
    assert header == CSV_COLUMNS
    missing = (set(CSV_COLUMNS) | set(LADDER_COLUMNS) | keys) - documented
    assert not missing, sorted(missing)


def test_a_narrow_terminal_explains_only_the_columns_it_shows(db):
    """At 80 columns and below the table leaves out its last columns (and says which), but the
    notes under it still explained them: six lines on think ms, worst ms, transport ms and
    arbiter ms, and why the 95% interval was missing, under a table without either column."""
    def at(width: str) -> str:
        r = runner.invoke(app, ["standings", "sp", "--db", str(db)], env={"COLUMNS": width}, catch_exceptions=False)
        assert r.exit_code == 0, r.output
        return " ".join(r.stdout.split())

    wide, narrow = at("250"), at("60")
    assert "think ms:" in wide and "Too few deals for an interval" in wide and "Margin:" in wide, wide
    assert "95% CI, LOS↓, think ms" in narrow, narrow  # what the table left out, said under it
    assert "think ms:" not in narrow and "Too few deals for an interval" not in narrow, narrow
    assert "Ranked by rating" in narrow and "Margin:" in narrow, narrow  # the columns it shows are explained


def test_each_partnerships_los_is_over_the_line_below_it_when_two_are_tied(tmp_path):
    """A partnership's line showed the LOS of its last partner's bot row over the next bot row.
    Two partnerships tied, with their names interleaved in the bots' order (h1, h2, h3, h4),
    put the top line's LOS over the bottom partnership (>99.9%) and the middle one's over a
    bot of the top line (50%). Each line's LOS is now over the line below it, in every reader."""
    from arbiter.present.web import tournament_page

    path = tmp_path / "arena.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--game", "spades", "--bots",
               "h1=heuristic,h2=heuristic,h3=heuristic,h4=heuristic,r1=random,r2=random", "--teams", "h1+h4,h2+h3,r1+r2",
               "-o", "deals=1", "--deals", "2", "--seed", "2", "--name", "tt", "--quiet")
    assert r.exit_code == 0, r.output
    want = {"h1 + h4": "50.0%", "h2 + h3": ">99.9%", "r1 + r2": ""}
    terminal = runner.invoke(app, ["standings", "tt", "--db", str(path)], env={"COLUMNS": "250"}).stdout
    got = {m.group(1): m.group(2) for m in re.finditer(r"^\d+\s+(\w+ \+ \w+) .* deals\s+(\S*%)?", terminal, re.M)}
    assert {k: v or "" for k, v in got.items()} == want, terminal
    md = invoke("standings", "tt", "--db", str(path), "--format", "md").stdout.split("## Cross-table")[0]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in md.splitlines() if line[:3] in ("| 1", "| 3")]
    assert {c[1].replace("\\+", "+"): c[11].replace("\\>", ">") for c in cells} == want, md
    data = json.loads(invoke("standings", "tt", "--db", str(path), "--format", "json").stdout)["standings"]
    los = {d["team"]: d["los_next"] for d in data}
    assert los["h1 + h4"] == 0.5 and los["h2 + h3"] > 0.999 and los["r1 + r2"] is None, los
    page = tournament_page(Store(path, read_only=True), "tt")
    table = _page_text(page[page.index('id="standings"'):].split("</table>")[0])
    assert re.search(r"h1 \+ h4 [^%]* 50\.0% [^%]* h2 \+ h3 [^%]* >99\.9% [^%]* r1 \+ r2 [^%]*$", table), table


def test_a_partnerships_forfeits_are_its_partners_together(tmp_path):
    """A forfeit is counted to the bot whose seat failed; a partnership's line showed the
    forfeits of one partner (the later in the bots' order), so a side that lost every match by
    its other partner's crashes read 0 forfeits in the terminal, the web page and md/html."""
    from arbiter.present.web import tournament_page

    bot = tmp_path / "crashy.py"
    bot.write_text("from sdk import Bot\n\nclass Crashy(Bot):\n    name = 'crashy'\n\n"
                   "    def choose(self, view, legal_actions):\n        raise RuntimeError('boom')\n")
    path = tmp_path / "c.sqlite"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--game", "spades", "-o", "deals=1",
               "--bots", f"a={bot},zr=random,greedy,heuristic", "--teams", "a+zr,greedy+heuristic", "--deals", "1",
               "--name", "c", "--quiet")
    assert r.exit_code == 0, r.output
    data = json.loads(invoke("standings", "c", "--db", str(path), "--format", "json").stdout)["standings"]
    lost = {s["bot"]: s["forfeits"] for s in data}
    assert lost["a"] == 4 and lost["zr"] == 0, lost  # the premise: each bot's own, as the CSV and JSON give them
    terminal = runner.invoke(app, ["standings", "c", "--db", str(path)], env={"COLUMNS": "250"}).stdout
    line = next(x for x in terminal.splitlines() if "a + zr" in x)
    head = next(x for x in terminal.splitlines() if "W-D-L" in x)
    assert line[:head.index("forf") + 4].split()[-1] == "4", (head, line)  # the column's cell, right-aligned
    md = invoke("standings", "c", "--db", str(path), "--format", "md").stdout
    assert re.search(r"^\| 2 \| a \+ zr \|.* \| 4 \|$", md, re.M), md
    page = tournament_page(Store(path, read_only=True), "c")
    table = _page_text(page[page.index('id="standings"'):].split("</table>")[0])
    assert re.search(r"a \+ zr .* 4 $", table), table


def test_a_tournament_name_the_store_does_not_hold_is_told_the_ones_it_does(db):
    """``arbiter standings nigth`` said "no tournament 'nigth' in arena.sqlite" and nothing of
    what the store holds (a typo, or the tournament of another store); ``tournament show`` the
    same. Both now name the newest tournaments it holds and the command that lists them."""
    for command in (["standings"], ["tournament", "show"]):
        r = runner.invoke(app, [*command, "nigth", "--db", str(db)], env={"COLUMNS": "300"})
        said = " ".join(r.output.split())
        assert r.exit_code == 2 and f"no tournament 'nigth' in {db}; it holds 'ffa', 'sp' " in said, said
        assert f"(arbiter tournament list --db {db} lists them)" in said and "Traceback" not in said, said


def test_a_cross_table_too_wide_for_the_terminal_numbers_its_columns(db):
    """A cross-table wider than the terminal had its column heads cut ("heur…", "gre…"): no
    telling which column was which bot. Its columns are now numbered as its rows are."""
    r = runner.invoke(app, ["standings", "sp", "--db", str(db), "--crosstable"], env={"COLUMNS": "40"})
    assert r.exit_code == 0, r.output
    cross = r.stdout.split("Cross-table")[1]
    assert "…" not in cross and "(columns numbered as the rows)" in " ".join(cross.split()), cross
    heads = next(line for line in cross.splitlines() if "┃" in line).split("┃")[1:-1]
    assert [h.strip() for h in heads] == ["", "1", "2", "3"], heads
    labels = [line.split("│")[1].strip() for line in cross.splitlines() if line.startswith("│")]
    order = [s["bot"] for s in json.loads(invoke("standings", "sp", "--db", str(db), "-f", "json").stdout)["standings"]]
    assert labels == [f"{n}. {bot}" for n, bot in enumerate(order, 1)], labels  # the fixture's seed is drawn
    wide = runner.invoke(app, ["standings", "sp", "--db", str(db), "--crosstable"], env={"COLUMNS": "200"}).stdout
    assert "numbered" not in wide and "┃ heuristic" in wide  # the names, where they fit


def test_tournament_list_shows_each_name_whole_at_80_columns(tmp_path):
    """``tournament list`` cut a long name to "evaluate-spades-heuris…" at 80 columns and at 120:
    the name is what standings, show and --resume take, and could not be typed back. It is
    whole now; the created time, the bots and the format go first, and the caption says so
    (not "export with --format": the list has none, nor has ``tournament show``)."""
    path = tmp_path / "arena.sqlite"
    name = "a-rather-long-club-night-name-2026-12-07"
    r = invoke("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy", "-o", "deals=1",
               "--deals", "1", "--seed", "1", "--name", name, "--quiet")
    assert r.exit_code == 0, r.output
    for width in ("120", "80"):
        listed = runner.invoke(app, ["tournament", "list", "--db", str(path)], env={"COLUMNS": width}).stdout
        row = next(line for line in listed.splitlines() if line.lstrip().startswith("1 "))
        assert f" {name} " in row and "finished" in row and "…" not in listed, listed
    assert "not shown: widen the terminal)" in " ".join(listed.split()) and "--format" not in listed, listed  # at 80
    shown = runner.invoke(app, ["tournament", "show", name, "--db", str(path)], env={"COLUMNS": "60"}).stdout
    assert "not shown: widen the terminal)" in " ".join(shown.split()) and "--format" not in shown, shown


def test_tournament_show_help_says_what_each_column_means(db):
    """``tournament show`` heads its matches round, deal, table, seating, ended...; its help said
    only "a tournament's spec, entrants and matches". Each head of its two tables is explained."""
    help_text = " ".join(runner.invoke(app, ["tournament", "show", "--help"], env={"COLUMNS": "250"}).stdout.split())
    shown = runner.invoke(app, ["tournament", "show", "sp", "--db", str(db)], env={"COLUMNS": "250"}).stdout
    heads = re.split(r"\s{2,}", next(x for x in shown.splitlines() if "seating" in x).strip())
    entrants = [h.strip() for h in next(x for x in shown.splitlines() if "launched" in x).strip("┃ ").split("┃")]
    assert "match id" in heads and "spec" in entrants, (heads, entrants)
    for head in heads + entrants + ["incidents", "team"]:
        assert re.search(rf"(^|[ ;:(]){re.escape(head)}[ ,]", help_text), (head, help_text)


def _stopped_while_the_bots_start(monkeypatch, module: str) -> None:
    """A Ctrl-C as the run's venue opens (its bots starting): before the run is known to start."""
    import contextlib

    @contextlib.asynccontextmanager
    async def stopped(*args, **kwargs):
        raise KeyboardInterrupt
        yield  # noqa: unreachable (an async generator)

    monkeypatch.setattr(module, stopped)


def test_a_run_stopped_before_it_started_says_nothing_was_stored(tmp_path, monkeypatch):
    """Ctrl-C while a tournament's bots were starting said "the finished matches are stored in
    DB; the same command resumes the tournament", when the run had written nothing (it writes
    once it is known to start): no tournament there to resume, or, with --fresh, the stored one
    it was to replace left as it was. What it says now is what is true of the store."""
    path = tmp_path / "t.sqlite"
    args = ("tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy", "-o", "deals=1",
            "--deals", "1", "--seed", "1", "--name", "night", "--quiet")
    with monkeypatch.context() as m:
        _stopped_while_the_bots_start(m, "arbiter.batch.venue.open_venue")
        r = runner.invoke(app, list(args))
    said = " ".join(r.stderr.split())
    assert r.exit_code == 130 and f"interrupted before the tournament started: nothing was stored in {path}" in said, said
    assert "finished matches" not in said and "resumes" not in said and "Traceback" not in r.output, said
    with Store(path, read_only=True) as store:
        assert store.tournaments() == []
    assert invoke(*args).exit_code == 0  # played whole
    with monkeypatch.context() as m:
        _stopped_while_the_bots_start(m, "arbiter.batch.venue.open_venue")
        r = runner.invoke(app, [*args, "--fresh"])
    said = " ".join(r.stderr.split())
    assert r.exit_code == 130 and f"nothing was stored in {path}; night there is as it was" in said, said
    assert "finished matches" not in said and "resumes" not in said, said
    with Store(path, read_only=True) as store:
        (t,) = store.tournaments()
        assert t.name == "night" and t.finished is not None and t.done == t.planned == 2


def test_a_run_into_a_store_not_there_says_it_creates_one(tmp_path):
    """``--db`` naming a file that is not there (a first run, or a typo of the store meant)
    created an empty store in silence, and a typo then started from nothing: a run says it
    creates one, on stderr; a run into a store that is there says nothing of it."""
    path = tmp_path / "new.sqlite"
    args = ["tournament", "run", "--db", str(path), "--transport", "inproc", "--bots", "random,greedy", "-o", "deals=1",
            "--deals", "1", "--seed", "1", "--quiet"]
    r = runner.invoke(app, args + ["--name", "a"])
    assert r.exit_code == 0 and " ".join(r.stderr.split()) == f"creating a new store at {path}", r.output
    r = runner.invoke(app, args + ["--name", "b"])
    assert r.exit_code == 0 and "creating" not in r.stderr, r.output


@pytest.mark.parametrize("how", ["file", "flags", "evaluate"])
def test_a_registered_bot_named_for_a_store_not_there_makes_no_store(tmp_path, how):
    """``bots = ["random", "mine@1"]`` run with a --db not there (a typo of the store it was
    submitted to) said "creating a new store at b.sqlite", then "no bot 'mine@1' in the registry
    of b.sqlite", as if it had been removed, and left that empty store (and `evaluate` its lock
    file) behind: the run is refused first, saying there is no store to look the bot up in."""
    db = tmp_path / "b.sqlite"
    spec = tmp_path / "b.toml"
    spec.write_text('name = "x"\ngame = "spades"\nbots = ["random", "me=mine@1"]\n')
    args = {"file": ["tournament", "run", str(spec)], "flags": ["tournament", "run", "--bots", "random,mine@1"],
            "evaluate": ["evaluate", "spades", "mine@1", "random"]}[how]
    r = runner.invoke(app, [*args, "--db", str(db)])
    said = " ".join(r.stderr.split())
    assert r.exit_code == 2 and said == (f"error: bots: 'mine@1' names a registered bot, and there is no store at {db} "
                                         "to look it up in: give the store it was submitted to (--db), or register it "
                                         "there first (arbiter bots submit)"), r.output
    assert list(tmp_path.iterdir()) == [spec]


@pytest.mark.parametrize("command", [("standings",), ("standings", "--arena", "x"), ("tournament", "list"),
                                     ("tournament", "show"), ("tournament", "show", "x", "--match", "1"),
                                     ("tournament", "run", "--resume", "x")])
def test_the_readers_refuse_a_store_not_there_and_create_none(tmp_path, command):
    """A reader given a --db that is not there (a typo) says so, naming the path, and creates nothing."""
    path = tmp_path / "typo.sqlite"
    r = runner.invoke(app, [*command, "--db", str(path)])
    assert r.exit_code == 2 and f"error: no store at {path}" in " ".join(r.output.split()), r.output
    assert "Traceback" not in r.output and list(tmp_path.iterdir()) == [], r.output


_FIRST_LEGAL = "from sdk import Bot\n\n\nclass Mine(Bot):\n    games = ('*',)\n\n    def choose(self, view, legal):\n        return legal[0]\n"


def test_an_interrupted_evaluation_whose_bot_file_changed_is_not_promised_a_resume(tmp_path, monkeypatch):
    """``tournament list`` said of an interrupted evaluation "the arbiter evaluate command that
    started it, run again, resumes it" after its bot file was edited, when that command (on a secret
    seed) begins a new evaluation and leaves it as it is, as it says itself when run. The list,
    ``show`` and ``standings`` say the file changed and what the command does; put back, the file
    resumes it, and the promise is back."""
    from arbiter.tournament import evaluate as module

    bot, db = tmp_path / "mybot.py", tmp_path / "e.sqlite"
    bot.write_text(_FIRST_LEGAL)
    args = ["evaluate", "spades", str(bot), "greedy", "--deals", "3", "-o", "deals=1", "--transport", "inproc",
            "--db", str(db)]
    margin, calls = module._margin, []

    def stop_at_the_third_match(*a, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return margin(*a, **kw)

    with monkeypatch.context() as m:
        m.setattr(module, "_margin", stop_at_the_third_match)
        assert runner.invoke(app, args).exit_code == 130
    with Store(db, read_only=True) as store:
        (old,) = store.tournaments()
    listed = " ".join(invoke("tournament", "list", "--db", str(db)).stdout.split())
    assert f"{old.name}: interrupted, nothing runs it; the arbiter evaluate command that started it, run again with " \
           f"--db {db}, resumes it" in listed, listed
    bot.write_text(_FIRST_LEGAL + "# edited\n")
    said = (f"{bot} has changed since it was played: the arbiter evaluate command that started it, run again with "
            f"--db {db}, begins a new evaluation (on a new seed if it gave no --seed) and leaves this one as it is; it "
            f"resumes this one with the files as they were (--name {old.name} --fresh plays them as they are now in its "
            "place)")
    for reader in (("tournament", "list"), ("tournament", "show", old.name), ("standings", old.name)):
        text = " ".join(invoke(*reader, "--db", str(db)).stdout.split())
        assert said in text and "resumes it" not in text.replace("resumes this one", ""), (reader, text)
    r = runner.invoke(app, args)  # what the list says the command does, it does
    assert r.exit_code == 0 and "a new evaluation" in " ".join(r.output.split()), r.output
    with Store(db, read_only=True) as store:
        kept, new = store.tournaments()
        assert (kept.name, kept.done, kept.finished) == (old.name, old.done, None) and new.finished is not None
    bot.write_text(_FIRST_LEGAL)  # put back: the promise holds again
    listed = " ".join(invoke("tournament", "list", "--db", str(db)).stdout.split())
    assert f"{old.name}: interrupted, nothing runs it; the arbiter evaluate command that started it" in listed, listed
    assert "changed since" not in listed, listed
