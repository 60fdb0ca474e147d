"""The card table in a real browser (issue 29): headless Chromium plays a whole Spades
deal, a whole (short) Spite and Malice game and a Spot hand at ``/play`` by clicking the
table as a person would: the form's fields, the cards of the hand, a pay-off pile or a
side stack and then a pile that lights up, the stock, a meld. Nothing is posted by hand.

Each test also: checks that exactly the legal targets of a picked card light up, that the
legal cards of the hand are raised and never drawn smaller than the others, that the
stored match replays and verifies, that the replay opens on the seat's first decision;
takes a screenshot of every page it sees at 1280×800 and at 390×844 (a phone) into
tests/artifacts/screenshots/ (``make screenshots`` into docs/screenshots/, which the README
shows); and finds no traceback in
what `arbiter web` printed.

Waits are bounded and wait for the page itself (selenium's WebDriverWait on the page's
own ``data-version``), never a sleep; nothing here measures time.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import NamedTuple

import pytest
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from arbiter.store.db import Store
from cardarena.games import EndReason
from cardarena.replay import verify_record
from tests.e2e.browser import SIZES, script_timeout, set_size, shoot

MAX_DECISIONS = 300  # a bound on every loop below, far above what these matches take
WAIT = 90  # seconds any one wait may take (the server answers within its long poll)


#: The module's tests and tests/e2e/test_accessibility.py share one `arbiter web` and one
#: Chromium (``play_site`` and ``browser``, tests/e2e/conftest.py): one xdist group, so they
#: are started once in a run.
pytestmark = pytest.mark.xdist_group("table")


#: The legal actions the page lists, read in the page: one WebDriver call, not three per
#: option (a Spot turn lists dozens: its round trips were most of a decision's time).
_CATALOGUE_JS = """Array.from(document.querySelectorAll('#all-actions option'), o =>
    [o.value, (o.getAttribute('data-from') || '').split(/\\s+/).filter(Boolean), o.getAttribute('data-to') || ''])"""


#: The page's own wait for ``_settled``: it looks at the page every 50 ms inside the browser
#: and answers once, so a wait is one WebDriver call, not one round trip (and a few
#: element lookups) every 50 ms. Answers [version, turn, done, the legal actions the page
#: lists (``_CATALOGUE_JS``)], or {failed: text}.
_SETTLED_JS = """
var before = arguments[0], done = arguments[arguments.length - 1];
(function check() {
  var failed = document.getElementById("failed");
  if (failed) { done({failed: failed.textContent}); return; }
  var st = document.getElementById("status");
  if (st && !document.querySelector("#live.busy")) {
    var s = [st.getAttribute("data-version"), st.getAttribute("data-turn"), st.getAttribute("data-done")];
    if ((before === null || s[0] !== before) && (s[1] === "1" || s[2] === "1")) { done(s.concat([""" + _CATALOGUE_JS + """])); return; }
  }
  setTimeout(check, 50);
})();
"""


class Settled(NamedTuple):
    """The page settled (``_settled``): its version, whether the seat is to decide, whether
    the match is over and stored, and the legal actions it lists then (``_CATALOGUE_JS``)."""
    version: str
    turn: str
    done: str
    actions: list[tuple[str, tuple[str, ...], str]]


def _settled(browser, before: str | None = None) -> Settled:
    """Until the page asks the seat to decide or the match is over and stored (and its
    version is past ``before``). The legal actions come in the same call: a loop of
    decisions asks the page once a decision, not three times (a wait that answered at once
    after the last one's, and a read of the actions)."""
    script_timeout(browser, WAIT)  # a wait that outlasts it raises selenium's TimeoutException
    for _ in range(MAX_DECISIONS):
        try:
            found = browser.execute_async_script(_SETTLED_JS, before)
        except TimeoutException:
            raise
        except WebDriverException:  # the document was replaced while the script waited: ask the new one
            continue
        if isinstance(found, dict):
            raise AssertionError(found["failed"])
        return Settled(*found[:3], _rows(found[3]))
    raise AssertionError(f"the page was replaced {MAX_DECISIONS} times while waiting for it to settle")


def _rows(found: list) -> list[tuple[str, tuple[str, ...], str]]:
    """The legal actions as ``_CATALOGUE_JS`` read them: (text, sources, target)."""
    return [(text, tuple(sorted(srcs)), dst) for text, srcs, dst in found]


def _click(browser, css: str) -> None:
    browser.find_element(By.CSS_SELECTOR, css).click()


def _lit(browser) -> set[str]:
    return set(browser.execute_script(
        "return Array.from(document.querySelectorAll('#board .target'), e => e.getAttribute('data-dst'))"))


def _start(browser, url: str, game: str, seat: int, options: dict[str, str], shot: str) -> str:
    browser.get(url + "play")
    browser.find_element(By.LINK_TEXT, game).click()
    WebDriverWait(browser, WAIT, poll_frequency=0.05).until(lambda d: f"game={game}" in d.current_url)
    for name, value in options.items():
        box = browser.find_element(By.ID, f"o-{name}")
        if box.get_attribute("type") == "checkbox":
            if box.is_selected() != (value == "true"):
                box.click()
        elif box.tag_name == "select":
            Select(box).select_by_value(value)
        else:
            box.clear()
            box.send_keys(value)
    browser.find_element(By.ID, "update").click()  # the seats for these options
    WebDriverWait(browser, WAIT, poll_frequency=0.05).until(lambda d: "o." in d.current_url or "preset=" in d.current_url)
    browser.find_element(By.ID, f"seat-{seat}").click()
    # your own seat has no bot menu; every other seat has one
    assert not browser.find_element(By.ID, f"bot-{seat}").is_displayed()
    assert browser.find_element(By.ID, f"you-{seat}").is_displayed()
    start = browser.find_element(By.ID, "start")
    assert start.location["y"] + start.size["height"] <= SIZES["wide"][1], "Start is below the fold at 1280×800"
    shoot(browser, f"{shot}-form")
    for size in SIZES:  # the form fits across: Spite and Malice's preset menu, as wide as its longest preset's line, did not
        set_size(browser, size)
        wide, across = browser.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert wide <= across, f"the {game} form is {wide} px wide in a {across} px window ({size})"
    set_size(browser, "wide")
    start.click()
    WebDriverWait(browser, WAIT, poll_frequency=0.05).until(lambda d: re.search(r"/play/web-[0-9a-f]{12}$", d.current_url))
    return browser.current_url.rsplit("/", 1)[1]


_KEYS: list[str] = []  # the card played by the keyboard
_BID_KEYS: list[str] = []  # the bid made by the keyboard


_SIDE: list[str] = []  # the Spite and Malice test's first discard to a side stack
_CENTRE_OFFERED: list[str] = []  # its decisions where a centre pile was a target


def _act(browser, rng: random.Random, game: str, cat: list[tuple[str, tuple[str, ...], str]]) -> str:
    """One decision, made by clicking the table (``cat``: the legal actions the page lists,
    ``_settled``); the action taken."""
    assert cat, "a decision with no legal action"
    texts = [t for t, _, _ in cat]
    if game == "spades":
        picks = browser.find_elements(By.CSS_SELECTOR, "#hand button.pick.legal")
        if any(t.startswith("play ") for t in texts):
            if not _KEYS:  # once, by the keyboard: → focuses the first raised card, Enter plays it
                _KEYS.append(picks[0].get_attribute("data-src"))
                ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
                assert browser.switch_to.active_element == picks[0]
                ActionChains(browser).send_keys(Keys.ENTER).perform()
                return "play " + _KEYS[0]
            card = rng.choice(picks)
            played = "play " + card.get_attribute("data-src")
            card.click()
            return played
        if any(t.startswith("give ") for t in texts):
            give = next(t for t in texts if t.startswith("give "))
            for c in give[5:].split():
                _click(browser, f'#hand [data-src="{c}"]')
            _click(browser, f'#selection [data-act="{give}"]')
            return give
        choices = browser.find_elements(By.CSS_SELECTOR, "#choices [data-act]")
        assert {b.get_attribute("data-act") for b in choices} == set(texts)
        if "look" in texts:
            assert "blind nil" in browser.find_element(By.ID, "explain").text
            _click(browser, '#choices [data-act="look"]')
            return "look"
        bids = [b for b in choices if b.get_attribute("data-act") not in ("bid blind_nil",)]
        digits = [b for b in bids if b.text.strip() in "123456789" and b.text.strip()]
        if digits and not _BID_KEYS:  # the first bid by its digit key: "3" bids 3
            b = rng.choice(digits)
            assert b.get_attribute("data-n") == b.text.strip()
            _BID_KEYS.append(b.get_attribute("data-act"))
            ActionChains(browser).send_keys(b.text.strip()).perform()
            return _BID_KEYS[0]
        b = rng.choice(bids)
        text = b.get_attribute("data-act")
        b.click()
        return text
    if game == "spite-and-malice":
        moves = [(t, s, d) for t, s, d in cat if s]
        if not moves:
            t = texts[0]
            _click(browser, f'#choices [data-act="{t}"]')
            return t
        # a person's preference: pay off, then the centre, then a discard to a side stack; but
        # the first turn ends on a side stack, so that both kinds of target are clicked
        # whatever the deal (a pay-off of 2 can otherwise be played out before any discard)
        key = lambda m: (m[1][0] != "payoff", not m[2].startswith("center"), rng.random())  # noqa: E731
        sides = [m for m in moves if m[2].startswith("side")]
        forced_side = bool(sides) and not _SIDE
        text, (src,), dst = sides[0] if forced_side else min(moves, key=key)
        _SIDE.extend([text] if dst.startswith("side") else [])
        if not forced_side and any(d.startswith("center") for _, _, d in moves):
            _CENTRE_OFFERED.append(text)  # and so taken: the centre comes before a discard
        _click(browser, f'#board [data-src="{src}"]')
        assert _lit(browser) == {d for _, s, d in cat if s == (src,)}, "only the legal targets of the picked card light up"
        _click(browser, f'#board [data-dst="{dst}"].target')
        return text
    # spot
    if "draw stock" in texts or "draw discard" in texts:
        target = "stock" if "draw stock" in texts else "discard"
        _click(browser, f'#board [data-dst="{target}"]')
        return f"draw {target}"
    melds = [(t, s, d) for t, s, d in cat if d == "newmeld"]
    layoffs = [(t, s, d) for t, s, d in cat if d.startswith("m") and d != "newmeld"]
    text, srcs, dst = (melds or layoffs or [m for m in cat if m[2] == "discard"])[0]
    for c in srcs:
        _click(browser, f'#hand [data-src="{c}"]')
    assert dst in _lit(browser), (text, _lit(browser))
    _click(browser, f'#board [data-dst="{dst}"].target')
    return text


#: What each decision checks of the page, read in one script: the explanation's text, the
#: text of your seat (``arguments[0]``) on the board, whether a seat of yours is marked as the
#: one to act (the seat's element's rendered text, as WebDriver's ``text`` reads it), and
#: how many cards of the hand are dimmed and how many raised (legal).
_TURN_JS = """
var explain = document.getElementById('explain');
var you = document.querySelector('#board .seat.you[data-seat="' + arguments[0] + '"]');
if (!explain || !you) throw new Error('no #explain or no seat ' + arguments[0] + ' of yours on the board');
return [explain.innerText, you.innerText, document.querySelectorAll('#board .seat.to-act.you').length > 0,
        document.querySelectorAll('#hand button.pick.dim').length, document.querySelectorAll('#hand button.pick.legal').length];
"""


def _play(browser, rng: random.Random, game: str, shot: str, seat: int) -> list[str]:
    """Every decision of the seat by clicking, to the end; the actions taken."""
    taken: list[str] = []
    shot_at = {1, 6}
    checked_sizes = False
    page = _settled(browser)
    for _ in range(MAX_DECISIONS):
        if page.done == "1":
            return taken
        if len(taken) + 1 in shot_at:
            shoot(browser, f"{shot}-turn{len(taken) + 1}")
        if not taken:  # your seat, its hand (and pay-off pile and side stacks) above the fold
            for css in ("#board .seat.you",) + (("#board .seat.you .piles",) if game == "spite-and-malice" else ()):
                r = browser.find_element(By.CSS_SELECTOR, css).rect
                assert r["y"] + r["height"] <= SIZES["wide"][1], f"{css} is below the fold at 1280×800: {r}"
        explain, you, marked, dim, legal = browser.execute_script(_TURN_JS, seat)  # one call, not seven
        if not checked_sizes and dim and legal:
            _legal_cards_not_smaller(browser)
            checked_sizes = True
        assert explain.strip()
        assert you.startswith("you")
        assert marked, "whose turn it is is marked"
        taken.append(_act(browser, rng, game, page.actions))
        page = _settled(browser, before=page.version)
    raise AssertionError(f"no end within {MAX_DECISIONS} decisions")


def _legal_cards_not_smaller(browser) -> None:
    # each card's box as WebDriver's rect gives it, every card in one script (not three calls a card)
    legal, dim = browser.execute_script("""return ['legal', 'dim'].map(k => Array.from(
        document.querySelectorAll('#hand button.pick.' + k + ' .card'), e => {
          const r = e.getBoundingClientRect(); return [r.width, r.height, r.y]; }))""")
    sizes = {(w, h) for w, h, _ in legal + dim}
    assert len(sizes) == 1, f"cards of the hand drawn at different sizes: {sizes}"
    assert max(y for _, _, y in legal) < min(y for _, _, y in dim), "the legal cards are raised"


def _finish(browser, db: Path, match_id: str, seat: int, taken: list[str], shot: str) -> None:
    assert browser.find_element(By.ID, "result").is_displayed()
    WebDriverWait(browser, WAIT, poll_frequency=0.05).until(lambda d: d.find_elements(By.ID, "replay-link"))
    shoot(browser, f"{shot}-end")
    with Store(db, read_only=True) as store:
        record = store.match(match_id).record()
    assert record.seat_names[seat] == "browser" and not record.incidents
    assert record.outcome.reason.finishes_the_game
    assert [a.action for a in record.actions if a.seat == seat] == taken  # every click became its action
    assert verify_record(record) == record.outcome
    browser.find_element(By.ID, "replay-link").click()
    WebDriverWait(browser, WAIT, poll_frequency=0.05).until(lambda d: d.find_elements(By.ID, "step-index"))
    assert browser.find_element(By.ID, "verified").text.startswith("replay verified")
    first = next(i for i, a in enumerate(record.actions) if a.seat == seat and a.action != "look")
    assert int(browser.find_element(By.ID, "step-index").text) == first  # the seat's first decision
    assert browser.find_element(By.CSS_SELECTOR, "#views a.on").text == f"seat {seat}"
    assert browser.find_elements(By.CSS_SELECTOR, f'#board .seat.pos-bottom[data-seat="{seat}"] #hand .card')  # the same table, from the seat
    shoot(browser, f"{shot}-replay")


def test_a_whole_spades_deal_played_on_the_table(play_site, browser):
    url, db = play_site
    match_id = _start(browser, url, "spades", 1, {"deals": "1"}, "spades")
    taken = _play(browser, random.Random(1), "spades", "spades", 1)
    assert sum(t.startswith("play ") for t in taken) == 13 and "play " + _KEYS[0] in taken and _BID_KEYS[0] in taken
    _finish(browser, db, match_id, 1, taken, "spades")


def test_a_whole_spite_and_malice_game_played_on_the_table(play_site, browser):
    url, db = play_site
    # 16 turns (the keyboard test's): about 9 decisions of this seat, past the sixth's
    # screenshot, a side stack and a centre pile (24 were 13, the same clicks more times)
    match_id = _start(browser, url, "spite-and-malice", 0, {"payoff_size": "2", "max_turns": "16"}, "spite")
    taken = _play(browser, random.Random(2), "spite-and-malice", "spite", 0)
    assert any(" -> side:" in t for t in taken)
    # a centre pile whenever one was a target (the deal, not this test, decides whether one is:
    # the other seat may pay off first)
    assert all(" -> center:" in t for t in _CENTRE_OFFERED)
    _finish(browser, db, match_id, 0, taken, "spite")


def test_a_spot_hand_played_on_the_table(play_site, browser):
    url, db = play_site
    # the hand ends at its turn limit (scored as a stock run out): a whole hand took 55
    # decisions, each clicked: the costliest test of the suite (README, "The test budget")
    match_id = _start(browser, url, "spot", 0, {"players": "2", "hands": "1", "max_turns_per_hand": "16"}, "spot")
    taken = _play(browser, random.Random(3), "spot", "spot", 0)
    assert any(t.startswith("draw ") for t in taken) and any(t.startswith("discard ") for t in taken)
    _finish(browser, db, match_id, 0, taken, "spot")
    with Store(db, read_only=True) as store:
        assert store.match(match_id).record().outcome.reason is not EndReason.FORFEIT_TIMEOUT


#: Before any script of a page: no EventSource, and every error its scripts throw or log kept.
_NO_EVENT_SOURCE_JS = """delete window.EventSource;
window.arenaErrors = [];
var logged = console.error;
console.error = function () { window.arenaErrors.push(Array.prototype.join.call(arguments, " ")); return logged.apply(console, arguments); };
window.addEventListener("error", function (e) { window.arenaErrors.push(String(e.message)); });
window.addEventListener("unhandledrejection", function (e) { window.arenaErrors.push(String(e.reason)); });"""


def test_a_decision_moves_the_table_in_a_browser_without_event_source(play_site, browser):
    """The seat's page is live, and its action's script left the new table to the page's
    event stream: a browser without EventSource acted and then saw the table stand still.
    Now the action fetches the table itself there, and the live script, which has no
    stream to open, does nothing (no error)."""
    url, _ = play_site
    added = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _NO_EVENT_SOURCE_JS})
    try:
        browser.get(url + "play?game=spades&o.deals=1&seat=1")
        _click(browser, "#start")
        WebDriverWait(browser, WAIT, poll_frequency=0.05).until(lambda d: "/play/web-" in d.current_url)
        assert browser.execute_script("return 'EventSource' in window || !document.getElementById('live').hasAttribute('data-hash')") is False
        page = _settled(browser)
        _click(browser, "#choices [data-act]")  # its first decision: a bid (or a look at its cards)
        _settled(browser, before=page.version)  # the table moved: to the seat's next decision, or the end
        assert browser.execute_script("return window.arenaErrors") == []
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})
