"""The arena's pages in a real headless browser (Debian's chromium through chromedriver,
as tests/e2e/test_web.py): a ladder played in process, `arbiter web` over its store; the
leaderboard, a bot's page with its rating chart, a replay of a finished encounter, and
a suspended bot's page saying why."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import textwrap
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from arbiter.store.arenas import Arenas
from arbiter.store.db import Store
from arbiter.arena import matchmaking
from arbiter.arena.ladder import Arena, ArenaSpec
from arbiter.present.web import first_decision
from tests.arbiter.arena.test_arena import CRASHER
from tests.e2e.browser import serve_web, shoot

#: The tests that share the module's web server, and the Chromium of tests/e2e/test_web.py
#: (``browser``, tests/e2e/conftest.py): its xdist group (--dist loadgroup, tests/conftest.py),
#: so each is made once in a run.
pytestmark = pytest.mark.xdist_group("web")



@pytest.fixture(scope="module")
def ladder_site():
    tmp = Path(tempfile.mkdtemp(prefix="arena-web-"))
    db = tmp / "arena.sqlite"
    (tmp / "crasher.py").write_text(textwrap.dedent(CRASHER))
    spec = ArenaSpec(game="spades", name="club", options={"deals": 1}, transport="inproc", seed=3,
                     house=("random", "greedy", "heuristic", f"crasher={tmp / 'crasher.py'}"))
    arena = Arena(spec, db, poll=0)
    asyncio.run(arena.run(max_encounters=16))
    arena.close()
    with serve_web(db) as url:
        yield url, db
    shutil.rmtree(tmp, ignore_errors=True)


def _entrants(db: Path):
    with Store(db) as store:
        t = Arenas(store)
        a = t.arena("club")
        return t.entrants(a.id), t.encounters(a.id)


def test_leaderboard_lists_the_ladder_in_rating_order_and_the_suspended_bot_with_why(ladder_site, browser):
    url, db = ladder_site
    entrants, encounters = _entrants(db)
    expected = [r for r in matchmaking.standings(entrants) if r.status == "active"]
    browser.get(url + "a")
    browser.find_element(By.LINK_TEXT, "club").click()
    assert browser.find_element(By.TAG_NAME, "h1").text == "club"
    assert browser.find_element(By.ID, "live").get_attribute("data-hash")  # live: its event stream updates it
    scale = browser.find_element(By.ID, "rating-scale").text  # its scale said, apart from the tournaments' Elo
    assert "starts at 25" in scale and "not the Elo scale" in scale
    rows = browser.find_elements(By.CSS_SELECTOR, "#leaderboard tr.ladder-row")
    assert [r.get_attribute("data-player") for r in rows] == [r.player for r in expected]
    assert [r.find_element(By.CSS_SELECTOR, "td.rating").text for r in rows] == [f"{r.mu:.2f}" for r in expected]
    assert [r.find_element(By.CSS_SELECTOR, "td.interval").text for r in rows] == [f"{r.low:.2f} – {r.high:.2f}" for r in expected]
    assert rows[0].find_element(By.CSS_SELECTOR, "td.los").text == f"{100 * expected[0].los_next:.1f}%"
    assert [int(r.find_element(By.CSS_SELECTOR, "td.encounters").text) for r in rows] == [r.encounters for r in expected]
    other = browser.find_element(By.CSS_SELECTOR, '#others tr.other-row[data-player="crasher"]')
    assert other.find_element(By.CSS_SELECTOR, ".status").text == "suspended"
    assert "out of ideas" in other.find_element(By.CSS_SELECTOR, ".reason").text
    # every finished encounter is listed, with a link to each of its two seatings
    assert len(browser.find_elements(By.CSS_SELECTOR, "#encounters tr.encounter")) == len(encounters)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#encounters a.replay")) == 2 * len(encounters)
    shoot(browser, "arena-leaderboard")


def test_a_bots_page_has_its_rating_chart_encounters_and_replays(ladder_site, browser):
    url, db = ladder_site
    entrants, encounters = _entrants(db)
    heuristic = next(e for e in entrants if e.player == "heuristic")
    browser.get(url + "a/club")
    browser.find_element(By.LINK_TEXT, "heuristic").click()
    assert browser.find_element(By.TAG_NAME, "h1").text == "heuristic"
    chart = browser.find_element(By.CSS_SELECTOR, "svg#rating-chart")
    assert chart.is_displayed() and chart.size["width"] > 300
    line = chart.find_element(By.CSS_SELECTOR, "polyline.rating-line")
    assert len(line.get_attribute("points").split()) == heuristic.encounters
    assert chart.find_elements(By.CSS_SELECTOR, "polygon.band")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#bot-encounters tr.encounter")) == heuristic.encounters
    shoot(browser, "arena-bot")
    replay = browser.find_elements(By.CSS_SELECTOR, "#bot-encounters a.replay")[0]
    match_id = replay.get_attribute("href").rstrip("/").rsplit("/", 1)[1]
    replay.click()
    assert "replay verified" in browser.page_source
    with Store(db, read_only=True) as store:
        record = Arenas(store).match(match_id).record()
    first = first_decision(record, None)  # it opens on the first decision (not a look at the hand)
    assert int(browser.find_element(By.ID, "step-index").text) == first and record.actions[first].action != "look"
    browser.find_element(By.ID, "next").click()
    assert int(browser.find_element(By.ID, "step-index").text) == first + 1


def test_a_suspended_bots_page_says_why(ladder_site, browser):
    url, _ = ladder_site
    browser.get(url + "a/club/bot/crasher")
    assert browser.find_element(By.ID, "status").text == "suspended"
    assert "3 encounters in a row" in browser.find_element(By.ID, "suspended").text
    failures = browser.find_elements(By.CSS_SELECTOR, "#failures tr.failure")
    assert len(failures) == 3 and all("out of ideas" in f.text for f in failures)


def test_a_bots_page_fits_a_phone_its_rating_chart_scaled_down(ladder_site, browser):
    """The rating chart is drawn 640 px wide: on a 390 px screen it made a bot's page 648 px
    wide, the whole page scrolling sideways (and its versions' table 535 px). The chart scales
    down to the window (its viewBox); the wide tables scroll in boxes of their own."""
    from tests.e2e.browser import accessibility_problems, on_a_phone

    url, _ = ladder_site
    browser.get(url + "a/club/bot/heuristic")
    with on_a_phone(browser):
        chart = browser.find_element(By.ID, "rating-chart")
        assert chart.tag_name == "svg" and 0 < chart.size["width"] <= 390 and chart.size["height"] < 220
        assert not accessibility_problems(browser)


def test_the_leaderboard_fits_a_phone_and_has_no_accessibility_violation(ladder_site, browser):
    """Issue 44 (item 17): the leaderboard overflowed a 390 px screen."""
    from tests.e2e.browser import accessibility_problems, on_a_phone

    url, _ = ladder_site
    browser.get(url + "a/club")
    with on_a_phone(browser):
        board = browser.find_element(By.ID, "leaderboard").rect
        assert board["x"] >= 0 and board["x"] + board["width"] <= 390, board
        assert not accessibility_problems(browser)
