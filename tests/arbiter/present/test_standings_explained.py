"""Standings that explain themselves, on the web page and on the command line: one margin
column (with duplicate deals: the duplicate advantage ± its s.e., not the same number
twice), the ranking key said, free-for-all W-D-L explained, each rating scale said, and
single played matches (arbiter play, /play) kept out of the tournaments' list."""

from __future__ import annotations

import asyncio
import re

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import run_match
from arbiter.person.tables import HUMAN
from arbiter.present.export import ELO_SCALE, RANKED_BY
from arbiter.present.web import index_page, open_read_only, played_page, tournament_page
from arbiter.tournament.play import store_play
from cardarena.records import MatchConfig
from sdk.loading import load_bot

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False, env={"COLUMNS": "160"})


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """A duplicate Spades round robin (two deals, both seatings), a Spot free for all,
    and one match played with a person's seat name, as /play stores it."""
    folder = tmp_path_factory.mktemp("explained")
    path = folder / "arena.sqlite"
    (folder / "dup.toml").write_text('name = "dup"\ngame = "spades"\nbots = ["random", "greedy"]\ndeals = 2\nseed = 4\n'
                                     '[options]\ndeals = 1\n')
    (folder / "ffa.toml").write_text('name = "ffa"\ngame = "spot"\nbots = ["random", "heuristic", "r2=random"]\n'
                                     'deals = 1\nseed = 3\n[options]\nplayers = 3\nhands = 1\n')
    for spec in ("dup.toml", "ffa.toml"):
        r = invoke("tournament", "run", str(folder / spec), "--db", str(path), "--transport", "inproc", "--quiet")
        assert r.exit_code == 0, r.output
    config = MatchConfig(game="spades", seed=11, options={"deals": 1}, match_id="web-0123456789ab")
    bot = load_bot("random")
    record = asyncio.run(run_match(config, [InProcessSeat(bot, n) for n in (HUMAN, "random", "greedy", "random")]))
    store_play(path, record)
    return path


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#39;", "'")


def _headers(page: str, table: str) -> list[str]:
    body = page[page.index(f'id="{table}"'):]
    return [_text(h).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", body[:body.index("</tr>")])]


def test_a_duplicate_tournament_shows_one_margin_column_and_says_how_it_ranks(db):
    with open_read_only(db) as store:
        page = tournament_page(store, "dup")
    heads = _headers(page, "standings")
    assert heads.count("margin ± s.e.") == 1 and not [h for h in heads if "dup" in h or h == "margin"], heads
    text = _text(page)
    assert RANKED_BY[1:40] in text and text.count("Ranked by rating") == 1 and "follows score %" in text
    assert ELO_SCALE[1:30] in text and "1500" in text
    assert "luck of the cards cancels" in text
    cells = re.findall(r'<td class="num">([+-][\d.]+ ± [\d.]+)</td>', page)
    assert len(cells) == 2, cells  # each bot: its duplicate advantage ± s.e. over the two deals


def test_a_free_for_all_says_what_its_w_d_l_and_score_mean(db):
    with open_read_only(db) as store:
        page = tournament_page(store, "ffa")
    assert 'id="wdl-note"' in page and "W-D-L counts first places only" in _text(page)
    assert len([h for h in _headers(page, "standings") if "margin" in h]) == 1


def test_played_matches_have_their_own_page_and_are_no_tournament(db):
    with open_read_only(db) as store:
        index = index_page(store)
        played = played_page(store)
    listed = re.findall(r'<a href="/t/\d+">([^<]+)</a>', index)
    assert sorted(listed) == ["dup", "ffa"], listed  # play:spades is not a tournament
    assert 'href="/play/history"' in index and "1 match played at /play" in _text(index)
    assert HUMAN not in index
    assert 'href="/m/web-0123456789ab"' in played
    row = _text(played[played.index('class="played-match"'):])
    assert row.split("web-0123456789ab")[1].strip().startswith("you, random, greedy, random"), row[:200]


def test_the_cli_standings_say_how_they_rank_and_the_list_keeps_played_matches_apart(db):
    r = invoke("standings", "dup", "--db", str(db))
    assert r.exit_code == 0, r.output
    assert "margin ± s.e." in r.output and "dup±se" not in r.output
    flat = " ".join(r.output.split())
    assert "Ranked by rating" in flat and "follows score %" in flat and "Elo scale" in flat
    r = invoke("tournament", "list", "--db", str(db))
    assert r.exit_code == 0, r.output
    assert "play:spades" not in r.output.split("Tournaments in")[1]  # not a row of the table
    assert "played one at a time" in " ".join(r.output.split())



def test_the_standings_of_single_matches_count_them_without_a_plan(db):
    """``arbiter standings play:spades(...)`` said "1 of 0 matches played": single matches
    have no plan; the count alone is said, as the web page says it."""
    r = invoke("standings", "play:spades(deals=1)", "--db", str(db))
    assert r.exit_code == 0, r.output
    flat = " ".join(r.output.split())
    assert "1 match played" in flat and " of 0 " not in flat
    r = invoke("standings", "dup", "--db", str(db))
    assert "4 of 4 matches played" in " ".join(r.output.split())


def test_the_tournament_page_says_its_seed_as_the_cli_standings_do(db):
    """`arbiter standings dup` says "seed 4" (the exports too); the page said nothing of it, so
    an organiser could not read off the page how to play the tournament again."""
    with open_read_only(db) as store:
        page = tournament_page(store, "dup")
        played = tournament_page(store, "play:spades(deals=1)")
    assert '<dd id="played-seed">seed 4</dd>' in page
    assert "seed 4" in " ".join(invoke("standings", "dup", "--db", str(db)).output.split())
    assert 'id="played-seed"' not in played  # single matches: each dealt from a seed of its own
