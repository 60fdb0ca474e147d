"""The pages by keyboard and for a screen reader (issue 44): headless Chromium plays a
whole Spades deal at ``/play`` with the keyboard alone (Tab and Shift+Tab, arrows, Enter,
the digit keys; never a click), and axe-core (tests/e2e/axe, from the npm registry) finds no
serious or critical accessibility violation on any page it sees: the form, the table at
a bid, a play and the end, the replay, the tournament index. The table names its cards
in words, says whose turn it is in an aria-live region, and shows the last trick when
asked (a ``<details>`` opened by the keyboard).

Waits are bounded and wait for the page itself, never a sleep; nothing here measures time.
"""

from __future__ import annotations

import random

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from arbiter.store.db import Store
from cardarena.replay import verify_record
from tests.e2e.browser import accessibility_problems, shoot
from tests.e2e.test_table import WAIT, _settled

#: The module's tests share the `arbiter web` and Chromium of tests/e2e/test_table.py
#: (``play_site`` and ``browser``, tests/e2e/conftest.py): its xdist group, so they are
#: started once in a run.
pytestmark = pytest.mark.xdist_group("table")

MAX_TABS = 250  # a bound on Tab presses to reach one control


def _keys(browser, *keys: str) -> None:
    ActionChains(browser).send_keys(*keys).perform()


#: Where the focus and ``arguments[0]`` are in the order Tab moves the focus in, by the HTML
#: rules of sequential focus navigation as far as these pages use them (positive tabindex
#: first, then document order; a radio group is one stop; nothing hidden, in a closed
#: ``<details>`` or disabled): [the focus's place, the target's, how many places]; -1 for
#: one not in the order (the focus on the page itself).
_TAB_ORDER_JS = """
var target = document.querySelector(arguments[0]);
if (!target) throw new Error('no element ' + arguments[0] + ' on the page');
var all = Array.from(document.querySelectorAll(
  'a[href], button, input, select, textarea, summary, [tabindex]')).filter(function (e) {
  if (e.tabIndex < 0 || e.disabled || e.type === 'hidden' || e.closest('[inert]')) return false;
  if (e.type === 'radio' && e.name) {
    var group = document.querySelectorAll('input[type=radio][name="' + e.name + '"]');
    var checked = Array.from(group).find(function (r) { return r.checked; });
    if (e !== (checked || group[0])) return false;
  }
  return e.checkVisibility({visibilityProperty: true});
});
var order = all.filter(function (e) { return e.tabIndex > 0; }).sort(function (a, b) { return a.tabIndex - b.tabIndex; })
  .concat(all.filter(function (e) { return e.tabIndex === 0; }));
return [order.indexOf(document.activeElement), order.indexOf(target), order.length];
"""


def _tabs_ahead(browser, css: str) -> int | None:
    """The fewest presses that can take the focus to the element ``css`` (``_TAB_ORDER_JS``):
    positive for Tab, negative for Shift+Tab, whichever way round is shorter (past the last
    place, and before the first, Tab may stop on the page itself, which is not counted: a
    press too few costs one more look, a press too many a whole round of the page); None
    when not known (the focus on the page itself: Tab then starts from where the focus last
    was, which the page does not say)."""
    here, there, places = browser.execute_script(_TAB_ORDER_JS, css)
    if here < 0 or there < 0:
        return None
    forward = (there - here) % places
    backward = (here - there) % places
    return forward if forward <= backward else -backward


def _tab(browser, presses: int, back: bool) -> None:
    """Tab pressed ``presses`` times, held with Shift when ``back``: one WebDriver call."""
    if back:
        ActionChains(browser).key_down(Keys.SHIFT).send_keys(*[Keys.TAB] * presses).key_up(Keys.SHIFT).perform()
    else:
        _keys(browser, *[Keys.TAB] * presses)


def _tab_to(browser, css: str) -> None:
    """Tab (or Shift+Tab, where that way round is shorter) until the element ``css`` has the
    focus: it is reachable by keyboard. The presses it should take (``_tabs_ahead``) go as one
    WebDriver call, then the focus is looked at and, where it is not there yet, Tab is pressed
    one at a time (a press and a look each were two round trips: a Spot hand pressed Tab about
    350 times). The element is found in those scripts, not by a WebDriver call of its own.
    The shorter way round is two fifths fewer presses than Tab alone (508 -> 299 for the 84
    reaches of the three keyboard tests, counted on the same deals), each a key event through
    chromedriver, the browser and the renderer."""
    pressed, back = 0, False
    for _ in range(2):  # once more after one press where the focus was on the page itself
        ahead = _tabs_ahead(browser, css)
        if ahead == 0:
            return
        back = ahead is not None and ahead < 0
        _tab(browser, abs(ahead or 1), back)
        pressed += abs(ahead or 1)
        if ahead is not None:
            break
    for _ in range(pressed, MAX_TABS):  # on the same way round (the page itself may be one more stop)
        if browser.execute_script("return document.activeElement === document.querySelector(arguments[0])", css):
            return
        _tab(browser, 1, back)
    raise AssertionError(f"{css} cannot be reached with Tab")


def _clean(browser, where: str) -> None:
    problems = accessibility_problems(browser)
    assert not problems, f"{where}: " + "\n".join(problems)


#: The raised (legal) cards of the hand in the order → visits them, the focus's place among
#: them (-1: none has it) and the aria-label of the card ``arguments[0]``.
_RAISED_JS = """
var cards = Array.from(document.querySelectorAll('#hand button.pick.legal'));
var card = document.querySelector('#hand [data-src="' + arguments[0] + '"] .card');
return [cards.map(function (c) { return c.getAttribute('data-src'); }), cards.indexOf(document.activeElement),
        card ? card.getAttribute('aria-label') : null];
"""


def _decide(browser, rng: random.Random, checked: set[str], cat: list[tuple[str, tuple[str, ...], str]]) -> str:
    """One decision of Spades by keyboard alone (``cat``: the legal actions the page lists,
    ``_settled``); the action taken."""
    texts = [t for t, _, _ in cat]
    plays = [t for t in texts if t.startswith("play ")]
    if plays:
        if "play" not in checked:
            _clean(browser, "a play")
            checked.add("play")
        chosen = rng.choice(plays)[5:]
        order, here, label = browser.execute_script(_RAISED_JS, chosen)  # one call, not three
        assert label and " of " in label, label  # "queen of spades", not "QS"
        # → moves among the raised cards (from the first when none has the focus): the presses
        # it should take go as one WebDriver call, then the focus is looked at, and where it
        # is not there yet → is pressed one at a time (a press and a look each were two calls)
        there = order.index(chosen) if chosen in order else 0
        presses = there + 1 if here < 0 else (there - here) % len(order) or len(order)
        _keys(browser, *[Keys.ARROW_RIGHT] * presses)
        for _ in range(len(order) + 1):
            if browser.execute_script("return document.activeElement.getAttribute('data-src')") == chosen:
                break
            _keys(browser, Keys.ARROW_RIGHT)
        else:
            raise AssertionError(f"{chosen} cannot be reached with the arrow keys")
        _keys(browser, Keys.ENTER)
        return "play " + chosen
    gives = [t for t in texts if t.startswith("give ")]
    if gives:
        for card in gives[0][5:].split():  # each card by Tab and Enter, then the button that gives them
            _tab_to(browser, f'#hand [data-src="{card}"]')
            _keys(browser, Keys.ENTER)
        _tab_to(browser, f'#selection [data-act="{gives[0]}"]')
        _keys(browser, Keys.ENTER)
        return gives[0]
    if "bid" not in checked:
        _clean(browser, "a bid")
        assert "Your turn" in browser.find_element(By.ID, "announce").get_attribute("textContent")  # said aloud
        checked.add("bid")
    choice = "look" if "look" in texts else rng.choice([t for t in texts if t != "bid blind_nil"])
    button = f'#choices [data-act="{choice}"]'
    if "digit" not in checked and browser.find_element(By.CSS_SELECTOR, button).get_attribute("data-n"):
        _keys(browser, browser.find_element(By.CSS_SELECTOR, button).get_attribute("data-n"))  # its digit key
        checked.add("digit")
    else:
        _tab_to(browser, button)
        _keys(browser, Keys.ENTER)
    return choice


def test_a_whole_spades_deal_by_keyboard_with_no_accessibility_violation(play_site, browser):
    url, db = play_site
    browser.get(url)
    _clean(browser, "the index")
    browser.get(url + "play?game=spades&o.deals=1")
    _clean(browser, "the form")
    _tab_to(browser, "input[name=seat]:checked")  # a radio group: Tab reaches it, the arrows choose
    for _ in range(2):
        _keys(browser, Keys.ARROW_DOWN)
    assert browser.find_element(By.ID, "seat-2").is_selected()  # you sit South
    assert not browser.find_element(By.ID, "bot-2").is_displayed()
    _tab_to(browser, "#start")
    _keys(browser, Keys.ENTER)
    WebDriverWait(browser, WAIT, poll_frequency=0.05).until(lambda d: "/play/web-" in d.current_url)
    match_id = browser.current_url.rsplit("/", 1)[1]
    rng, taken, checked = random.Random(4), [], set()
    page = _settled(browser)
    for _ in range(200):
        if page.done == "1":
            break
        if "peek" not in checked and browser.find_elements(By.CSS_SELECTOR, "#last-trick summary"):
            _tab_to(browser, "#last-trick summary")  # the last trick, opened by the keyboard
            _keys(browser, Keys.ENTER)
            assert browser.find_element(By.ID, "last-trick").get_attribute("open") is not None
            assert len(browser.find_elements(By.CSS_SELECTOR, "#last-trick .card")) == 4
            shoot(browser, "spades-last-trick")
            checked.add("peek")
        taken.append(_decide(browser, rng, checked, page.actions))
        page = _settled(browser, before=page.version)
    else:
        raise AssertionError("the deal did not end")
    assert {"play", "bid", "peek"} <= checked and sum(t.startswith("play ") for t in taken) == 13
    WebDriverWait(browser, WAIT, poll_frequency=0.05).until(lambda d: d.find_elements(By.ID, "replay-link"))
    banner = browser.find_element(By.ID, "over").text
    assert (" won " in banner and " by " in banner) or "draw" in banner.lower(), banner
    _clean(browser, "the end of the match")
    with Store(db, read_only=True) as store:
        record = store.match(match_id).record()
    assert [a.action for a in record.actions if a.seat == 2] == taken and verify_record(record) == record.outcome
    _tab_to(browser, "#replay-link")
    _keys(browser, Keys.ENTER)
    WebDriverWait(browser, WAIT, poll_frequency=0.05).until(lambda d: d.find_elements(By.ID, "step-index"))
    _clean(browser, "the replay")


def _covered_ranks(browser) -> list[str]:
    """The cards of a fanned pile (a side stack, a meld) whose rank the next card covers
    (issue 44 item 12: "10" was cut to "1"), at both sizes."""
    from tests.e2e.browser import set_size

    found = []
    for size in ("phone", "wide"):
        set_size(browser, size)
        found += browser.execute_script("""
          var out = [];
          document.querySelectorAll('#board .pile.spread .stack').forEach(function (st) {
            var cards = st.querySelectorAll('.card');
            for (var i = 0; i + 1 < cards.length; i++) {
              var rank = cards[i].querySelector('b');
              if (rank && rank.getBoundingClientRect().right > cards[i + 1].getBoundingClientRect().left + 0.5) {
                out.push(cards[i].getAttribute('data-card'));
              }
            }
          });
          return out;""")
    return found


_RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13}


def _spot_partners(card: str, hand: list[str]) -> tuple[int, int]:
    """How a Spot discard is chosen: the card of ``hand`` that helps the fewest others
    towards a meld (of its rank, or of its suit within two ranks), the highest first. A
    player who keeps what melds lays melds down: in 300 simulated hands against ``random``
    every one laid a meld down within 30 turns but 4, where random discards left 20 of the
    whole hands without one (the fanned meld is what ``_covered_ranks`` checks)."""
    rank = lambda c: _RANKS.get(c[:-1]) or int(c[:-1])  # noqa: E731
    near = sum(1 for o in hand if o != card and (rank(o) == rank(card) or (o[-1] == card[-1] and abs(rank(o) - rank(card)) <= 2)))
    return near, -rank(card)


def _decide_by_tab(browser, rng: random.Random, game: str, cat: list[tuple[str, tuple[str, ...], str]]) -> str:
    """One decision of Spite and Malice or Spot by keyboard alone: Tab to each card or
    pile the action moves and Enter, then Tab to the place that lights up and Enter (or
    to the button of an action of no card; ``cat``: the legal actions the page lists,
    ``_settled``); the action taken."""
    moves = [(t, s, d) for t, s, d in cat if s or d]
    if game == "spot":
        draws = [m for m in moves if m[0].startswith("draw ")]
        hand = [s for _, srcs, d in moves if d == "discard" for s in srcs]
        pick = draws[0] if draws else min(moves, key=lambda m: (
            m[2] != "newmeld", not m[2].startswith("m"), _spot_partners(m[1][0], hand) if m[2] == "discard" else (0, 0), rng.random()))
    else:
        pick = min(moves, key=lambda m: (m[1][:1] != ("payoff",), not m[2].startswith("center"), rng.random())) if moves else None
    if pick is None:
        text = next(t for t, _, _ in cat)
        _tab_to(browser, f'#choices [data-act="{text}"]')
        _keys(browser, Keys.ENTER)
        return text
    text, srcs, dst = pick
    for src in srcs:
        _tab_to(browser, f'#board [data-src="{src}"]')
        _keys(browser, Keys.ENTER)
    if dst:
        WebDriverWait(browser, WAIT, poll_frequency=0.05).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, f'#board [data-dst="{dst}"].target'))
        _tab_to(browser, f'#board [data-dst="{dst}"].target')
        _keys(browser, Keys.ENTER)
    return text


@pytest.mark.parametrize("game,options,seat", [
    ("spite-and-malice", "o.payoff_size=2&o.max_turns=16", 0),
    # a hand of at most 16 turns (the rules' own turn limit, an end of the hand as a
    # stock run out): about 16 decisions of this seat, not 47 (30 turns took 14-23 s of the suite)
    ("spot", "o.players=2&o.hands=1&o.max_turns_per_hand=16", 1),
])
def test_spite_and_malice_and_a_spot_hand_by_keyboard_with_no_accessibility_violation(play_site, browser, game, options, seat):
    url, db = play_site
    browser.get(url + f"play?game={game}&{options}&seat={seat}")
    _tab_to(browser, "#start")
    _keys(browser, Keys.ENTER)
    WebDriverWait(browser, WAIT, poll_frequency=0.05).until(lambda d: "/play/web-" in d.current_url)
    match_id = browser.current_url.rsplit("/", 1)[1]
    rng, taken = random.Random(5), []
    page = _settled(browser)
    for _ in range(300):
        if page.done == "1":
            break
        if not taken:
            _clean(browser, f"{game}: the first decision")
        assert not _covered_ranks(browser)
        taken.append(_decide_by_tab(browser, rng, game, page.actions))
        page = _settled(browser, before=page.version)
    else:
        raise AssertionError("the match did not end")
    WebDriverWait(browser, WAIT, poll_frequency=0.05).until(lambda d: d.find_elements(By.ID, "replay-link"))
    _clean(browser, f"{game}: the end")
    assert not _covered_ranks(browser), "a rank is hidden under the next card of a fan"
    with Store(db, read_only=True) as store:
        record = store.match(match_id).record()
    assert [a.action for a in record.actions if a.seat == seat] == taken and verify_record(record) == record.outcome
