"""The web page in a real headless browser: Debian's chromium driven through chromedriver.

A real store is filled with real matches, `arbiter web` runs as a subprocess, and the test
reads the standings page and steps through a replay by clicking, like a person would.
Screenshots of both pages are written to tests/artifacts/ for review.
"""

from __future__ import annotations

import asyncio
import http.client
import itertools
import re
import shutil
import tempfile
import urllib.parse
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from arbiter.hosting.inprocess import InProcessSeat
from cardarena.records import MatchConfig
from arbiter.match import run_match
from arbiter.store.db import Store
from sdk import Bot
from sdk.loading import load_bot
from tests.e2e.browser import SHOTS, serve_web, shoot

#: The tests that share the module's web server, and with tests/e2e/test_arena_web.py and
#: test_inspector.py one Chromium (``browser``, tests/e2e/conftest.py): one xdist group
#: (--dist loadgroup, tests/conftest.py), so each is made once in a run.
pytestmark = pytest.mark.xdist_group("web")

BOTS = ["heuristic", "greedy", "random"]


def _fill_store(db: Path) -> None:
    """A round robin of one-deal Spades matches, both seatings of every deal: 8 deals, the fewest
    whose standings give three bots intervals (each deal is played at three tables:
    ``ratings.min_interval_deals``)."""
    loaded = {b: load_bot(b) for b in BOTS}
    with Store(db) as store:
        t = store.open_tournament("club-night", "spades", {"game": "spades", "bots": BOTS})
        idx = 0
        for a, b in itertools.combinations(BOTS, 2):
            for deal in range(8):
                for rot in range(2):
                    x, y = (a, b) if rot == 0 else (b, a)
                    config = MatchConfig(game="spades", seed=500 + deal, options={"deals": 1}, match_id=f"cn-{idx}")
                    record = asyncio.run(run_match(config, [InProcessSeat(loaded[n], n) for n in (x, y, x, y)]))
                    store.save_match(t.id, idx, deal, rot, record)
                    idx += 1
        store.mark_finished(t.id)


def _expected_order(db: Path) -> list[tuple[str, float]]:
    """Bots by share of pairwise points (computed here, independently of the page)."""
    pts: dict[str, list[float]] = {b: [] for b in BOTS}
    with Store(db) as store:
        for row in store.matches(store.tournament("club-night").id):
            best = {n: min(r for s, r in enumerate(row.outcome.ranks) if row.seats[s] == n) for n in set(row.seats)}
            (a, ra), (b, rb) = best.items()
            pts[a].append(1.0 if ra < rb else 0.5 if ra == rb else 0.0)
            pts[b].append(1.0 if rb < ra else 0.5 if ra == rb else 0.0)
    shares = {b: sum(p) / len(p) for b, p in pts.items()}
    return sorted(shares.items(), key=lambda kv: -kv[1])


@pytest.fixture(scope="module")
def site():
    tmp = Path(tempfile.mkdtemp(prefix="arena-web-"))
    db = tmp / "arena.sqlite"
    _fill_store(db)
    with serve_web(db) as url:
        yield url, db
    shutil.rmtree(tmp, ignore_errors=True)


def test_standings_page_shows_the_bots_in_order_with_ratings(site, browser):
    url, db = site
    expected = _expected_order(db)
    assert len({share for _, share in expected}) == len(expected), f"the fixture must rank the bots strictly: {expected}"
    browser.get(url)
    shoot(browser, "index")  # the front page: the tournaments
    link = browser.find_element(By.LINK_TEXT, "club-night")
    link.click()
    assert browser.find_element(By.TAG_NAME, "h1").text == "club-night"
    rows = browser.find_elements(By.CSS_SELECTOR, "#standings tr.standing")
    names = [r.find_element(By.CSS_SELECTOR, "td.bot").text for r in rows]
    assert names == [name for name, _ in expected]
    ratings = [int(r.find_element(By.CSS_SELECTOR, "td.rating").text) for r in rows]
    assert ratings == sorted(ratings, reverse=True) and len(set(ratings)) == len(ratings)
    # each shown rating (and its interval) is the tournament library's (arbiter.rating.ratings)
    from arbiter.present.web import open_read_only, tournament_standings

    store = open_read_only(db)
    try:
        lib, _ = tournament_standings(store, store.tournament("club-night"))
    finally:
        store.close()
    assert [r.name for r in lib.rows] == names
    assert ratings == [round(r.rating) for r in lib.rows]
    intervals = [r.find_elements(By.CSS_SELECTOR, "td.num")[7].text for r in rows]
    assert intervals == [f"{r.rating_lo:.0f} – {r.rating_hi:.0f}" for r in lib.rows]
    assert all(r.rating_lo < r.rating < r.rating_hi for r in lib.rows)
    # the cross-table and every match with its outcome are on the page
    assert browser.find_element(By.ID, "crosstable").is_displayed()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#matches a")) == 48
    shoot(browser, "standings")  # at both sizes, with every page of the site (tests/e2e/browser.py)
    assert (SHOTS / "standings-wide.png").stat().st_size > 10_000


def test_replay_page_steps_through_a_match(site, browser):
    url, db = site
    with Store(db) as store:
        record = store.match("cn-5").record()
    browser.get(url + "t/1")
    browser.find_element(By.LINK_TEXT, "cn-5").click()
    step = lambda: int(browser.find_element(By.ID, "step-index").text)  # noqa: E731
    # it opens on the first decision (not the deal), every hand shown: the match is over
    first = next(i for i, a in enumerate(record.actions) if a.action != "look")
    assert step() == first and "replay verified" in browser.page_source
    assert browser.find_element(By.CSS_SELECTOR, "#views a.on").text == "every hand"
    assert int(browser.find_element(By.ID, "step-total").text) == len(record.actions)
    # the card table: the four seats by their bots' names, the seat to act marked
    seats = {int(e.get_attribute("data-seat")): e for e in browser.find_elements(By.CSS_SELECTOR, "#board .seat")}
    assert sorted(seats) == [0, 1, 2, 3]
    assert [seats[i].find_element(By.CSS_SELECTOR, ".name").text.split(" ")[0] for i in range(4)] == list(record.seat_names)
    assert seats[record.actions[first].seat].get_attribute("class").split().count("to-act") == 1
    for i in range(first + 1, first + 4):
        browser.find_element(By.ID, "next").click()
        assert step() == i
        assert record.actions[i - 1].action in browser.find_element(By.ID, "step-title").text
    # the arrow key steps too
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
    at = first + 4
    assert step() == at
    # the spectator sees no hand: every seat's cards face down, counted
    browser.find_element(By.LINK_TEXT, "spectator").click()
    assert step() == at
    assert not browser.find_elements(By.CSS_SELECTOR, "#board .seat .card:not(.back)")
    from cardarena.replay import replay_steps

    spectator = next(s for s in replay_steps(record) if s.index == at)
    counts = [int(e.text.strip().lstrip("×")) for e in browser.find_elements(By.CSS_SELECTOR, "#board .seat .backs")]
    assert sorted(counts) == sorted(st.hand_count for st in spectator.view.seats)
    # seen as seat 0 once it has looked at its hand: its cards face up, the others' face down
    mine = next(s for s in replay_steps(record, seat=0) if s.view.hand_visible and s.index >= 4)
    browser.find_element(By.LINK_TEXT, "seat 0").click()
    assert step() == at
    browser.get(re.sub(r"step=\d+", f"step={mine.index}", browser.current_url))
    assert step() == mine.index
    hand = [e.get_attribute("data-card") for e in browser.find_elements(By.CSS_SELECTOR, "#hand .card")]
    assert sorted(hand) == sorted(str(c) for c in mine.view.hand)
    assert not browser.find_elements(By.CSS_SELECTOR, "#board .seat:not(.pos-bottom) .card:not(.back)")
    trick = [e.get_attribute("data-card") for e in browser.find_elements(By.CSS_SELECTOR, "#trick .card")]
    shown = mine.view.trick or (mine.view.tricks[-1].cards if mine.view.tricks else ())
    assert sorted(trick) == sorted(str(p.card) for p in shown)
    # every hand: in the middle of the play, cards of all four seats
    browser.find_element(By.LINK_TEXT, "every hand").click()
    target = len(record.actions) // 2
    browser.get(re.sub(r"step=\d+", f"step={target}", browser.current_url))
    assert step() == target
    cards = [e.get_attribute("data-card") for e in browser.find_elements(By.CSS_SELECTOR, "#board .seat .card:not(.back)")]
    assert len(cards) >= 20 and len(set(cards)) == len(cards)
    assert {e.get_attribute("data-seat") for e in browser.find_elements(By.CSS_SELECTOR, "#board .seat")
            if e.find_elements(By.CSS_SELECTOR, ".card:not(.back)")} == {"0", "1", "2", "3"}
    shoot(browser, "replay")
    assert (SHOTS / "replay-wide.png").stat().st_size > 10_000
    # the last step shows the result
    browser.find_element(By.ID, "last").click()
    assert step() == len(record.actions)
    assert browser.find_element(By.ID, "result").is_displayed()


def test_bad_addresses_get_clear_pages(site, browser):
    url, _ = site
    browser.get(url + "m/no-such-match")
    assert "no match 'no-such-match'" in browser.find_element(By.CLASS_NAME, "error").text
    browser.get(url + "m/cn-1?step=abc")
    assert "step must be a number" in browser.find_element(By.CLASS_NAME, "error").text
    browser.get(url + "m/cn-1?view=seat9")
    assert "unknown view" in browser.find_element(By.CLASS_NAME, "error").text


def test_odd_numbers_in_an_address_are_a_short_4xx_never_a_500(site):
    """A number a URL writes that ``int`` or SQLite refuses ('²' passes ``isdigit``; 22
    digits overflow a store id; 5,000 digits pass no ``int``): a 400 or 404 naming it, not
    a 500, and the echo is clipped (an error page is short whatever the address)."""
    url, _ = site
    u = urllib.parse.urlsplit(url)
    huge, sup = "7" * 5000, urllib.parse.quote("²")

    def ask(method: str, path: str, body: str | None = None) -> tuple[int, str]:
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        r = conn.getresponse()
        out = r.status, r.read().decode()
        conn.close()
        return out

    base = len(ask("GET", "/m/no-such-match")[1])
    for path, status in [("/t/999999999999999999999", 404), (f"/t/{sup}", 404), (f"/t/{huge}", 404),
                         ("/t/999999999999999999999/bot/random", 404), (f"/a/{sup}", 404),
                         ("/a/999999999999999999999", 404), (f"/m/{huge}", 404),
                         (f"/m/cn-1?step={sup}", 400), (f"/m/cn-1?step={huge}", 400),
                         (f"/m/cn-1?view=seat{sup}", 400), (f"/m/cn-1?view=seat{huge}", 400),
                         (f"/m/cn-1/inspect?d={sup}", 400), (f"/m/cn-1/inspect?seat={sup}", 400),
                         (f"/m/cn-1/inspect?seat=1&d={huge}", 400), (f"/play?seat={sup}", 200),
                         (f"/play?seat={huge}&bot.{sup}=random", 200)]:
        got, body = ask("GET", path)
        assert (got, "Traceback" in body) == (status, False), (path[:60], got, body[-300:])
        assert status == 200 or len(body) < base + 400, (path[:60], len(body), base)
    got, body = ask("POST", "/play/new", urllib.parse.urlencode({"game": "spades", "seat": "²", "bot.1": "random",
                                                                 "bot.2": "random", "bot.3": "random"}))
    assert got == 400 and "seat must be a number from 0 to 3" in body, (got, body[-300:])


def test_analysing_as_the_spectator_is_refused_by_name(site):
    """The inspector's "analyse" POST for ``seat=spectator`` (the page's own word for a view)
    says a spectator makes no decisions, not "seat must be a seat number or spectator"."""
    url, _ = site
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request("POST", "/m/cn-1/inspect?seat=spectator", body="",
                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    r = conn.getresponse()
    body = r.read().decode()
    conn.close()
    assert r.status == 400 and "a spectator makes no decisions" in body, (r.status, body[-300:])


def test_a_head_of_an_event_stream_answers_as_its_get_does(site):
    """HEAD ?events=1 is the GET's status and type without its body (and holds no stream):
    404 for a page with no live part, an event stream for one that has it; it was the
    page's own 200 text/html either way."""
    url, _ = site
    u = urllib.parse.urlsplit(url)
    for path, status, ctype in [("/m/cn-1?events=1", 404, "text/plain"), ("/play?events=1", 404, "text/plain"),
                                ("/t/club-night?events=1", 200, "text/event-stream")]:
        answers = []
        for method in ("GET", "HEAD"):
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
            conn.request(method, path)
            r = conn.getresponse()
            answers.append((r.status, (r.getheader("content-type") or "").split(";")[0]))
            conn.close()  # (a GET's stream: closed unread)
        assert answers == [(status, ctype)] * 2, (path, answers)


def test_a_method_no_page_takes_is_the_sites_own_405_page(site):
    """PUT, DELETE, OPTIONS... are a 405 like a POST to a page of the store: the site's page
    naming the method, its Allow and its security headers (not the framework's bare text);
    so is a request target that is no path (``*``, ``http://host/...``), a 404."""
    url, _ = site
    u = urllib.parse.urlsplit(url)
    for method, path in [("PUT", "/"), ("DELETE", "/m/cn-1"), ("OPTIONS", "/play/new"), ("PATCH", "/healthz")]:
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        conn.request(method, path)
        r = conn.getresponse()
        body, headers = r.read().decode(), {k.lower(): v for k, v in r.getheaders()}
        conn.close()
        assert r.status == 405 and f"no page takes a {method}" in body, (method, path, r.status, body[-200:])
        assert headers.get("allow") == "GET, HEAD, POST" and "content-security-policy" in headers, headers
    for target in ("*", "http://elsewhere/t/1"):
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        conn.request("GET", target)
        r = conn.getresponse()
        body, headers = r.read().decode(), {k.lower(): v for k, v in r.getheaders()}
        conn.close()
        assert r.status == 404 and "no page" in body and "content-security-policy" in headers, (target, r.status, body)


def test_a_running_duplicate_tournament_keeps_its_replays_closed(site, browser):
    """Its deals come back in seatings still to be played: whoever could tell a bot must
    not see them (nor the seed) before the tournament ends."""
    url, db = site
    with Store(db) as store:
        t = store.open_tournament("still-running", "spades", {"game": "spades", "bots": BOTS, "seed": 99, "duplicate": True})
        config = MatchConfig(game="spades", seed=900, options={"deals": 1}, match_id="run-0")
        store.save_match(t.id, 0, 0, 0, asyncio.run(run_match(config, [InProcessSeat(load_bot(n), n) for n in BOTS[:2] * 2])))
    browser.get(url + "m/run-0?view=full")
    error = browser.find_element(By.CLASS_NAME, "error").text
    # (nothing runs it yet: interrupted, and said so)
    assert "was interrupted with duplicate deals" in error and "replay, seed and result are withheld until it finishes" in error
    assert "900" not in browser.page_source  # not even the deal seed
    with Store(db) as run:
        run.lock("still-running")  # a run of it holds the store: in progress
        browser.get(url + "t/still-running")
        # read while the run holds it: once let go the tournament is interrupted, and the page's
        # live part, which updates itself, was swapped to say so before it was read (under load)
        main = browser.find_element(By.TAG_NAME, "main").text
        assert "in progress" in main and "99" not in main and "seed" not in main  # no seed
        # nor the match, whose deal is still to be played (its row's timing would tell a forfeit): only how many wait
        assert "run-0" not in main and "after 1 deal" not in main
        assert "1 match of a deal not yet played through is listed once its deal is whole" in main
        assert "Replays open when the tournament ends" in main and not browser.find_elements(By.LINK_TEXT, "run-0")
    with Store(db) as store:
        store.mark_finished(t.id)
    browser.get(url + "t/still-running")
    browser.find_element(By.LINK_TEXT, "run-0").click()  # listed, with its link, once it has ended
    browser.get(url + "m/run-0?view=full")
    assert browser.find_elements(By.CLASS_NAME, "error") == []
    assert "seed 900" in browser.page_source


class Crashy(Bot):
    """A bot whose every decision raises."""

    name = "crashy"

    def choose(self, view, legal_actions):
        raise RuntimeError("boom at the first decision")


def _play(config: MatchConfig, seats: list[tuple[str, object]]):
    return asyncio.run(run_match(config, [InProcessSeat(bot, name) for name, bot in seats]))


def test_the_tournament_page_shows_what_was_played_and_updates_itself_while_running(site, browser):
    """Format, options as applied, clock, failure policy, partnerships (one row per team)
    and entrant versions; live (its standings pushed, never reloaded) only while the tournament runs."""
    url, db = site
    bots = ["heuristic", "greedy", "random", "r2=random"]
    spec = {"game": "spades", "bots": bots, "teams": [["heuristic", "greedy"], ["random", "r2"]], "format": "round-robin",
            "deals": 1, "duplicate": False, "options": {"deals": 1, "target": 300}, "decision_ms": 1500, "bank_ms": 9000,
            "policy": "default", "max_strikes": 2}
    with Store(db) as store:
        t = store.open_tournament("pairs-night", "spades", spec, planned=3)
        store.set_entrants(t.id, [("heuristic", "heuristic", "heuristic"), ("greedy", "greedy", "greedy"),
                                  ("random", "random", "random"), ("r2", "random", "random")])
        store.set_entrant_versions(t.id, [("heuristic", "1.4"), ("greedy", "2.0"), ("random", "1.0"), ("r2", "1.0")])
        for i, seats in enumerate([("heuristic", "random", "greedy", "r2"), ("random", "heuristic", "r2", "greedy")]):
            config = MatchConfig(game="spades", seed=700 + i, options={"deals": 1, "target": 300}, match_id=f"pn-{i}")
            store.save_match(t.id, i, i, 0, _play(config, [(n, load_bot("random" if n == "r2" else n)) for n in seats]))
    running = Store(db)
    running.lock("pairs-night")  # a run of it holds the store, as long as it plays (else it is interrupted)
    browser.get(url + "t/pairs-night")
    assert browser.find_element(By.ID, "played-format").text.startswith("round-robin, 1 deal a table")
    assert browser.find_element(By.ID, "played-options").text == "deals=1, target=300"
    assert browser.find_element(By.ID, "played-clock").text == "1500 ms a decision + 9000 ms bank"
    assert "up to 2 strikes" in browser.find_element(By.ID, "played-failures").text
    assert browser.find_element(By.ID, "played-teams").text == "heuristic + greedy, random + r2"
    versions = {r.find_element(By.CSS_SELECTOR, "td.bot").text: r.find_element(By.CSS_SELECTOR, "td.version").text
                for r in browser.find_elements(By.CSS_SELECTOR, "#entrants tr.entrant")}
    assert versions == {"heuristic": "1.4", "greedy": "2.0", "random": "1.0", "r2": "1.0"}
    names = sorted(r.find_element(By.CSS_SELECTOR, "td.bot").text for r in browser.find_elements(By.CSS_SELECTOR, "#standings tr.standing"))
    assert names == ["heuristic + greedy", "random + r2"]  # one row per partnership, not two identical ones
    live = browser.find_element(By.ID, "live")
    assert live.get_attribute("data-hash") and not live.find_elements(By.CSS_SELECTOR, "[data-live-end]")
    assert "updates by itself" in browser.find_element(By.ID, "refreshing").text
    assert browser.find_elements(By.CSS_SELECTOR, "meta[http-equiv='refresh']") == []  # pushed, never reloaded
    browser.execute_script("window.stillThisPage = true;")
    with Store(db) as store:  # the tournament goes on: its page shows the new match by itself
        seats = ("greedy", "r2", "heuristic", "random")
        config = MatchConfig(game="spades", seed=702, options={"deals": 1, "target": 300}, match_id="pn-2")
        store.save_match(t.id, 2, 2, 0, _play(config, [(n, load_bot("random" if n == "r2" else n)) for n in seats]))
    WebDriverWait(browser, 20).until(lambda d: "3 matches of 3" in d.find_element(By.ID, "live").text)
    assert "pn-2" in browser.find_element(By.ID, "matches").text
    with Store(db) as store:
        store.mark_finished(t.id)
    running.unlock()
    running.close()
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#live [data-live-end]"))
    assert browser.execute_script("return window.stillThisPage === true")  # the same page: swapped in, not reloaded
    assert browser.find_elements(By.ID, "refreshing") == []
    assert "finished" in browser.find_element(By.ID, "live").text
    browser.get(url + "t/pairs-night")
    assert browser.find_elements(By.CSS_SELECTOR, "#live [data-live-end]")  # over: it stays put, no stream


def test_a_preset_is_shown_as_applied_and_free_for_all_explains_wdl(site, browser):
    url, db = site
    with Store(db) as store:
        t = store.open_tournament("book-club", "spite-and-malice",
                                  {"game": "spite-and-malice", "bots": ["random", "heuristic"], "preset": "book",
                                   "options": {"max_turns": 40}, "duplicate": False, "decision_ms": 5000, "bank_ms": 0})
        config = MatchConfig(game="spite-and-malice", seed=41, options={"max_turns": 40}, preset="book", match_id="bk-0")
        store.save_match(t.id, 0, 0, 0, _play(config, [("random", load_bot("random")), ("heuristic", load_bot("heuristic"))]))
        store.mark_finished(t.id)
        f = store.open_tournament("three-way", "spot", {"game": "spot", "bots": ["random", "heuristic", "r2=random"],
                                                        "options": {"players": 3, "hands": 1}, "duplicate": False})
        config = MatchConfig(game="spot", seed=42, options={"players": 3, "hands": 1}, match_id="tw-0")
        store.save_match(f.id, 0, 0, 0, _play(config, [("random", load_bot("random")), ("heuristic", load_bot("heuristic")),
                                                     ("r2", load_bot("random"))]))
        store.mark_finished(f.id)
    browser.get(url + "t/book-club")
    options = browser.find_element(By.ID, "played-options").text
    assert options.startswith("preset book, max_turns=40; as applied:") and "deck_split=true" in options
    assert "jokers=4" in options and "defaults" not in options
    assert browser.find_element(By.ID, "played-clock").text == "5000 ms a decision"
    assert browser.find_elements(By.ID, "wdl-note") == []  # head to head: W-D-L needs no note
    browser.get(url + "t/three-way")
    assert "W-D-L counts first places only" in browser.find_element(By.ID, "wdl-note").text


def test_a_forfeited_match_shows_the_forfeit_and_its_reason_not_verified(site, browser):
    url, db = site
    with Store(db) as store:
        t = store.open_tournament("crashes", "spite-and-malice", {"game": "spite-and-malice", "bots": ["random", "crashy"],
                                                                  "duplicate": False})
        config = MatchConfig(game="spite-and-malice", seed=43, match_id="cr-0")
        record = _play(config, [("crashy", Crashy()), ("random", load_bot("random"))])
        assert record.outcome.reason.is_forfeit
        store.save_match(t.id, 0, 0, 0, record)
        store.mark_finished(t.id)
    browser.get(url + "m/cr-0")
    assert "replay verified" not in browser.page_source and not browser.find_elements(By.ID, "verified")
    assert browser.find_element(By.ID, "forfeit").text == record.outcome.reason.value
    reason = browser.find_element(By.ID, "forfeit-reason").text
    assert "boom at the first decision" in reason and "seat 0 (crashy)" in reason
    # an ordinary match still says it verified
    browser.get(url + "m/cn-1")
    assert browser.find_element(By.ID, "verified").text.startswith("replay verified")


def test_a_tournament_page_fits_a_phone_its_wide_tables_scrolling_in_their_own_box(site, browser):
    """The standings have fourteen columns and the cross-table one a bot: on a 390 px screen
    the standings were 893 px wide (and a dozen bots' tables 1,500 px on a laptop), pushing
    the whole page sideways, its text with it. Each wide table scrolls in a box of its own,
    reachable from the keyboard, and the page keeps the window's width."""
    from tests.e2e.browser import accessibility_problems, on_a_phone

    url, _ = site
    browser.get(url)
    browser.find_element(By.LINK_TEXT, "club-night").click()
    with on_a_phone(browser):
        for table in ("standings", "crosstable", "matches"):  # (and the entrants, where the spec lists them)
            box = browser.find_element(By.CSS_SELECTOR, f"div.wide[role=region] > #{table}").find_element(By.XPATH, "..")
            assert box.get_attribute("tabindex") == "0" and box.get_attribute("aria-label")
        standings = browser.find_element(By.ID, "standings")
        assert standings.size["width"] > 390  # every column still there, scrolled to
        assert not accessibility_problems(browser)


def test_a_very_long_tournament_name_wraps_instead_of_pushing_the_page_sideways(browser, tmp_path):
    """A tournament's name has no length limit (`tournament run --name`): a 3,000-character
    one pushed the front page's table, and with it every other tournament's game, bots and
    state, off the right of the window, and the header and title of its own page with it."""
    from arbiter.present.web import serve_in_thread

    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        t = store.open_tournament("L" * 3000, "spades", {"game": "spades", "bots": BOTS})
        store.open_tournament("short", "spades", {"game": "spades", "bots": BOTS})
    server, _ = serve_in_thread(db)
    try:
        for page in ("", f"t/{t.id}"):
            browser.get(server.url + page)
            wide = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
            assert wide[0] <= wide[1], (page, wide)
        browser.get(server.url)
        state = browser.find_elements(By.CSS_SELECTOR, "#tournaments td:last-child")[-1]
        assert state.rect["x"] + state.rect["width"] <= browser.execute_script("return window.innerWidth")
    finally:
        server.shutdown()
        server.server_close()
