"""The replay inspector (``/m/MATCH/inspect?seat=S``) over a real ``arbiter web``: each of a
seat's decisions as that seat saw it, never a card hidden from it, with its stored analysis;
and in a browser, stepping through every decision of a 1-deal Spades match with the keyboard."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import shutil
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from arbiter.analysis.reask import decisions
from arbiter.analysis.stored import stored_analysis
from arbiter.present import inspector
from arbiter.present.web import make_server
from arbiter.store.analyses import save_analysis
from arbiter.store.db import Store
from arbiter.tournament.play import play_local, store_play
from cardarena.replay import step_record
from tests.e2e.browser import SHOTS, serve_web, shoot
from tests.games.conformance import card_tokens

#: The tests that share the module's web server, and the Chromium of tests/e2e/test_web.py
#: (``browser``, tests/e2e/conftest.py): its xdist group (--dist loadgroup, tests/conftest.py),
#: so each is made once in a run.
pytestmark = pytest.mark.xdist_group("web")

ANALYSED = 0  # the seat whose analysis is stored; the others have none
NOTE = "a note of seat zero: counting on my partner"


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.fixture(scope="module")
def site():
    record = play_local("spades", ["random", "heuristic", "random", "heuristic"], seed=6, options={"deals": 1},
                        transport="inproc")
    # the bot's note on its 2nd decision (as ``Bot.note`` leaves it in the record)
    second = [i for i, a in enumerate(record.actions) if a.seat == ANALYSED][1]
    actions = list(record.actions)
    actions[second] = dataclasses.replace(actions[second], note=NOTE)
    record = dataclasses.replace(record, actions=actions)
    folder = Path(tempfile.mkdtemp(prefix="insp"))  # short: `arbiter web` prints its address on one line
    db = folder / "a.sqlite"
    store_play(db, record)
    with Store(db) as store:
        rows, saved = stored_analysis(store, record.match_id, ANALYSED, samples=2, max_actions=3)
    assert saved and rows
    try:
        with serve_web(db, "--analysis-samples", "2") as url:
            yield url, db, record, rows
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _shown(page: str) -> set[str]:
    """Every card the page shows: the board's cards and card notation in its text."""
    body = page[page.index("<body"):]
    return {str(c) for c in card_tokens(re.sub(r"<[^>]+>", " ", body))} | set(re.findall(r'data-card="([^"]+)"', body))


def test_the_inspector_steps_through_a_spades_match_with_the_keyboard(site, browser):
    url, _, record, rows = site
    n = len(list(decisions(record, ANALYSED)))
    mistakes = sum(r.mistake for r in rows)
    browser.get(f"{url}m/{record.match_id}?view=seat{ANALYSED}")
    browser.find_element(By.CSS_SELECTOR, f'#views a.inspect[href$="seat={ANALYSED}"]').click()
    at = lambda: int(browser.find_element(By.ID, "decision").text)  # noqa: E731
    assert at() == 1 and int(browser.find_element(By.ID, "decisions").text) == n
    for i in range(2, n + 1):
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT if i % 2 else "j")
        assert at() == i
        assert browser.find_element(By.ID, "played").text
        if i == 4:
            shoot(browser, "inspector")
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)  # the last: stays
    assert at() == n
    browser.find_element(By.TAG_NAME, "body").send_keys("k")
    assert at() == n - 1
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    assert at() == n - 2
    assert len(browser.find_elements(By.CSS_SELECTOR, "#chart circle")) == sum(1 for r in rows if r.chosen_value)
    assert len(browser.find_elements(By.CSS_SELECTOR, '#chart circle[fill="#c62828"]')) == mistakes
    assert (SHOTS / "inspector-wide.png").stat().st_size > 10_000


def test_the_inspector_never_shows_a_card_hidden_from_its_seat(site):
    url, _, record, rows = site
    full = {s.index: s for s in step_record(record, None, True)}
    for seat in range(4):
        points = list(decisions(record, seat))
        assert points
        for p in points:
            status, page = _get(f"{url}m/{record.match_id}/inspect?seat={seat}&d={p.number}")
            assert status == 200, page
            hidden = {str(c) for o, v in enumerate(full[p.step].seat_views) if o != seat for c in v.hand}
            assert not _shown(page) & hidden, (seat, p.number, _shown(page) & hidden)
            # the bot's note: on its own decision's page, as that seat (notes_visible), and nowhere else
            assert (NOTE in page) == (seat == ANALYSED and p.number == 2)
            if seat == ANALYSED:
                assert 'id="values"' in page or "Not valued" in page
                assert "no-analysis" not in page
                row = next(r for r in rows if r.number == p.number)
                for v in row.values:  # an action the same play as one valued (method 14) says which
                    assert (f"(the same play as {v.same_as})" in page.split(f"<td>{v.action}", 1)[1].split("</td>", 1)[0]) \
                        == bool(v.same_as), (p.number, v)
            else:
                assert "no-analysis" in page and f"arbiter analyse {record.match_id} --seat {seat}" in page
    # its own hand is on the board at a card play, face up
    p = next(p for p in decisions(record, ANALYSED) if p.played and p.played.startswith("play"))
    _, page = _get(f"{url}m/{record.match_id}/inspect?seat={ANALYSED}&d={p.number}")
    assert {str(c) for c in p.view.hand} <= _shown(page)
    assert "<svg" in page and 'id="chart"' in page
    # the check can fail: the replay's "every hand" view at the same step shows those cards
    status, every = _get(f"{url}m/{record.match_id}?view=full&step={p.step}")
    hidden = {str(c) for o, v in enumerate(full[p.step].seat_views) if o != ANALYSED for c in v.hand}
    assert status == 200 and hidden and hidden <= _shown(every)
    # the replay page links to it; bad addresses get clear pages
    _, replay = _get(f"{url}m/{record.match_id}")
    assert f'/m/{record.match_id}/inspect?seat=3"' in replay
    for query, status, words in [("seat=7", 400, "has seats 0 to 3"), ("seat=x", 400, "seat must be a seat number"),
                                 ("seat=0&d=999", 400, "d must be a decision")]:
        got, page = _get(f"{url}m/{record.match_id}/inspect?{query}")
        assert got == status and words in page, (query, got)
    assert _get(f"{url}m/no-such/inspect?seat=0")[0] == 404


def test_the_spectator_mode_shows_what_a_spectator_saw(site):
    """``seat=spectator``: every decision of the match, no card still in a hand on any page,
    no value, verdict or note (they come from a seat's own view); each links to the
    decision as its seat saw it."""
    url, _, record, _ = site
    full = {s.index: s for s in step_record(record, None, True)}
    n = len(record.actions)
    for d in range(1, n + 1):
        status, page = _get(f"{url}m/{record.match_id}/inspect?seat=spectator&d={d}")
        assert status == 200, page
        held = {str(c) for v in full[d].seat_views for c in v.hand}  # still in a hand after decision d
        assert not _shown(page) & held, (d, _shown(page) & held)
        assert 'id="values"' not in page and 'id="verdict"' not in page and NOTE not in page
        actor = record.actions[d - 1].seat
        k = sum(1 for a in record.actions[:d] if a.seat == actor)
        assert f'/m/{record.match_id}/inspect?seat={actor}&amp;d={k}"' in page
    # the check can fail: the seat's own page at that decision shows its hand
    _, own = _get(f"{url}m/{record.match_id}/inspect?seat=1&d=3")
    assert _shown(own) & {str(c) for c in full[[i for i, a in enumerate(record.actions) if a.seat == 1][2]].seat_views[1].hand}
    got, page = _get(f"{url}m/{record.match_id}/inspect?seat=spectator&d={n + 1}")
    assert got == 400 and "d must be a decision of the match" in page


def test_an_analysed_match_is_replayed_before_its_first_page(site, tmp_path):
    """``arbiter web`` replays the matches of the newest stored analyses before it listens
    (``inspector.warm``): no inspector page of theirs replays (a cache miss) after that, not
    even once the store gains a row elsewhere; a match with no analysis is replayed on its
    first page (the check can fail)."""
    _, db, record, _ = site
    copy = tmp_path / "copy.sqlite"
    with Store(db, read_only=True) as store:
        store.db.execute("VACUUM INTO ?", (str(copy),))
    inspector._points.cache_clear()
    inspector._spectator_steps.cache_clear()
    assert (record.match_id, ANALYSED) in inspector.warm(copy)
    before = inspector._points.cache_info().misses, inspector._spectator_steps.cache_info().misses
    with Store(copy) as store:
        save_analysis(store, "another-match", 0, "samples=1", "[]")  # the store changes, not the record
        for p in decisions(record, ANALYSED):
            inspector.inspect_page(store, record.match_id, {"seat": [str(ANALYSED)], "d": [str(p.number)]}, "n")
        inspector.inspect_page(store, record.match_id, {"seat": ["spectator"], "d": ["3"]}, "n")
        assert (inspector._points.cache_info().misses, inspector._spectator_steps.cache_info().misses) == before
        inspector.inspect_page(store, record.match_id, {"seat": ["2"], "d": ["1"]}, "n")  # no analysis: not warmed
    assert inspector._points.cache_info().misses == before[0] + 1


def test_the_server_is_made_inside_a_running_event_loop_too(site):
    """``arbiter arena`` makes its web server inside its event loop: what ``make_server``
    loads before listening (anyio's backend, by running a loop) must not need the thread's."""
    _, db, _, _ = site

    async def make():
        server = make_server(db, "127.0.0.1", 0)
        server.server_close()
        return server.url

    assert asyncio.run(make()).startswith("http://127.0.0.1:")


def _post(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, str]:
    req = urllib.request.Request(url, data=b"", method="POST", headers=headers or {})
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(req, timeout=30) as r:
            return r.status, r.headers.get("Location", ""), r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Location", ""), exc.read().decode()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_a_page_without_an_analysis_gets_one_computed_in_the_background(site):
    """Seat 3 has no stored analysis: its page offers one; the POST starts a writer job
    (303 back to the page), the page shows its progress, then the stored analysis; a form
    from another site may not start one. Runs last: it stores seat 3's analysis."""
    url, db, record, _ = site
    seat = 3
    page_url = f"{url}m/{record.match_id}/inspect?seat={seat}&d=2"
    _, page = _get(page_url)
    assert 'id="analyse"' in page and 'method="post"' in page
    assert _post(page_url, {"Origin": "http://elsewhere.example"})[0] == 403
    status, to, _ = _post(page_url)
    assert status == 303 and to == f"/m/{record.match_id}/inspect?seat={seat}&d=2"
    deadline = time.monotonic() + 300
    while True:
        _, page = _get(page_url)
        if "no-analysis" not in page and 'id="analysing"' not in page:
            break
        assert "analysis-error" not in page, page
        assert time.monotonic() < deadline, "the analysis job did not finish in 5 minutes"
        time.sleep(0.5)
    assert 'id="analysis-settings"' in page and "2 sampled states per decision" in page and "--samples 2" in page
    # what the verdicts mean, in the game's units (Spades: values.MARGIN and values.FINE)
    assert "mistake: it cost more than 10 points (95% confidence); fine: nothing better by 1 point or more" in page
    with Store(db, read_only=True) as store:
        rows, saved = stored_analysis(store, record.match_id, seat, samples=2, compute=False)
    assert saved and rows and len(rows) == len(list(decisions(record, seat)))
    full = {s.index: s for s in step_record(record, None, True)}
    p = list(decisions(record, seat))[1]
    hidden = {str(c) for o, v in enumerate(full[p.step].seat_views) if o != seat for c in v.hand}
    assert not _shown(page) & hidden
