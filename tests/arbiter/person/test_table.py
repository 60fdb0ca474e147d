"""The browser's seat (arbiter.person.tables.BrowserSeat) without a web server: a match
run by the real runner with trusted bots in process, the seat answered from another
thread as a web request would. (The whole path, bot processes and a browser included:
tests/e2e/test_human_seat.py.)"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import run_match
from arbiter.match.runner import MatchObserver
from arbiter.person.tables import BrowserSeat, TableError, _Steps, store_unwritable
from cardarena.games import events_for, get_game
from cardarena.records import Clock, FailurePolicy, MatchConfig, Policy
from cardarena.replay import verify_record
from sdk.loading import load_bot


def _play(game: str, options: dict, seat: int, answer, also=()) -> tuple:
    """Run a match with the browser's seat at ``seat``; ``answer(browser, snapshot)`` acts
    for it from this thread (``also``: more observers, after the seat's own). The record
    and the last snapshot."""
    g = get_game(game, options)
    loop = asyncio.new_event_loop()
    browser = BrowserSeat(loop, g)
    for obs in also:
        obs.browser = browser
    seats = [browser if i == seat else InProcessSeat(load_bot("random"), "random") for i in range(g.num_seats)]
    config = MatchConfig(game=game, seed=11, options=options, clock=Clock(600_000, 0), match_id="t-1")
    out: dict = {}

    def run() -> None:
        out["record"] = loop.run_until_complete(run_match(config, seats, observers=[_Steps(browser, seat), *also]))

    thread = threading.Thread(target=run)
    thread.start()
    names = tuple(s.name for s in seats)
    for _ in range(1000):
        browser.wait_for_turn_or_end(30)
        snap = browser.snapshot("t-1", seat, names)
        if snap.outcome is not None:
            break
        if snap.request_id is not None:
            answer(browser, snap)
    thread.join(30)
    loop.close()
    return out["record"], browser.snapshot("t-1", seat, names), browser


def test_the_seat_is_asked_with_its_own_view_and_sees_only_its_events():
    views = []

    def first(browser, snap):
        views.append(snap.view)
        browser.act(str(snap.request_id), str(snap.legal[0]))

    record, last, _ = _play("spades", {"deals": 1}, 2, first)
    assert verify_record(record) == record.outcome and not record.incidents
    assert all(v.seat == 2 for v in views) and len(views) == sum(1 for a in record.actions if a.seat == 2)
    # the seat's events are exactly those the engine lets seat 2 see, in order
    g = get_game("spades", {"deals": 1})
    state = g.new_initial_state(11)
    expected = [e.text for e in events_for(state.log, 2)]
    for ra in record.actions:
        expected += [e.text for e in events_for(state.apply(g.parse_action(ra.action)), 2)]
    assert list(last.events) == expected
    assert last.step == len(record.actions) and last.over and last.final_view is not None


class _Follows(MatchObserver):
    """After the seat's own observer, at the deal and at every action: the seat's page shows
    the engine's view of that seat as it is now (not the one of its last decision)."""

    sees_hands = True

    def __init__(self, seat: int):
        self.seat, self.checked, self.moved = seat, 0, 0
        self.browser: BrowserSeat | None = None  # the match's own seat (_play sets it)

    def _check(self, seat_views) -> None:
        shown = self.browser.snapshot("t-1", self.seat, ("",) * len(seat_views)).view
        assert shown == seat_views[self.seat]
        self.checked += 1

    async def started(self, match_id, game, seat_names, spectator_view, seat_views=()) -> None:
        self._check(seat_views)

    def step(self, match_id, seat, action, public_events, spectator_view, seat_views=()) -> None:
        self.moved += seat != self.seat  # another seat's card: the table follows it too
        self._check(seat_views)


def test_the_table_follows_the_game_between_the_seats_decisions():
    follows = _Follows(2)

    def first(browser, snap):
        browser.act(str(snap.request_id), str(snap.legal[0]))

    record, _, _ = _play("spades", {"deals": 1}, 2, first, also=(follows,))
    # every action and the deal were checked, most of them other seats' (before any decision
    # of seat 2, the old page showed "nothing dealt to you yet")
    assert follows.checked == len(record.actions) + 1 and follows.moved > 30


def test_bad_answers_are_refused_before_the_runner_sees_them():
    tried = []

    def fussy(browser, snap):
        if not tried:
            rid = str(snap.request_id)
            for request, text, status, words in [
                (rid, "play ZZ", 400, "malformed action 'play ZZ': unknown card 'ZZ'"),
                (rid, "x" * 5000, 400, "malformed action 'xxx"),  # a hand-made request: its text said once, clipped
                (rid, "", 400, "action is missing"),
                ("x", str(snap.legal[0]), 400, "request must be the number"),
                (str(snap.request_id + 1), str(snap.legal[0]), 409, "not the one being asked"),
            ]:
                with pytest.raises(TableError) as err:
                    browser.act(request, text)
                assert err.value.status == status and words in str(err.value) and len(str(err.value)) < 400, str(err.value)
                assert str(err.value).count(repr(text)) <= 1  # not the text twice (the game's words repeat it)
                tried.append(text)
            illegal = next(a for a in (f"bid {n}" for n in range(14)) if a not in map(str, snap.legal)) \
                if all(str(a).startswith(("bid", "look")) for a in snap.legal) else None
            if illegal:
                with pytest.raises(TableError, match="is not a legal action now"):
                    browser.act(rid, illegal)
        browser.act(str(snap.request_id), str(snap.legal[-1]))

    record, last, browser = _play("spades", {"deals": 1}, 0, fussy)
    assert tried and not record.incidents and verify_record(record) == record.outcome
    with pytest.raises(TableError, match="the match is over") as err:
        browser.act("1", "bid 1")
    assert err.value.status == 409 and last.over


def test_a_store_probe_writes_nothing(tmp_path):
    from arbiter.store.db import Store

    db = tmp_path / "a.sqlite"
    Store(db).close()
    before = (db.read_bytes(), db.stat().st_mtime_ns, sorted(p.name for p in tmp_path.iterdir()))
    assert store_unwritable(db) == ""
    assert (db.read_bytes(), db.stat().st_mtime_ns, sorted(p.name for p in tmp_path.iterdir())) == before
    assert store_unwritable(tmp_path / "missing" / "b.sqlite") != ""


def _abandoned(gone_seconds: float, present_for: float | None) -> tuple:
    """A Spades match whose person, at the first Turn, is seen (as a page's polls would see
    it) for ``present_for`` seconds, then plays on, answering every Turn at once (None: no
    page ever asks anything); the record."""
    g = get_game("spades", {"deals": 1})
    loop = asyncio.new_event_loop()
    browser = BrowserSeat(loop, g, gone_seconds=gone_seconds)
    seats = [browser if i == 0 else InProcessSeat(load_bot("random"), "random") for i in range(4)]
    names = tuple(s.name for s in seats)
    config = MatchConfig(game="spades", seed=3, options={"deals": 1}, clock=Clock(600_000, 0), match_id="t-gone",
                         policy=FailurePolicy.uniform(Policy.FORFEIT, 0))
    out: dict = {}
    thread = threading.Thread(target=lambda: out.setdefault("record", loop.run_until_complete(run_match(config, seats))))
    thread.start()
    if present_for is not None:
        browser.wait_for_turn_or_end(30)
        end = time.monotonic() + present_for
        while time.monotonic() < end:  # the page's polls (what is under test, not a wait)
            browser.seen()
            time.sleep(0.05)
        for _ in range(100):
            snap = browser.snapshot("t-gone", 0, names)
            if snap.outcome is not None:
                break
            if snap.request_id is not None:
                browser.seen()
                browser.act(str(snap.request_id), str(snap.legal[0]))
            browser.wait_for_turn_or_end(30)
    thread.join(30)
    loop.close()
    return out["record"]


def test_a_person_who_closed_the_page_forfeits_at_their_turn_not_at_the_clock():
    # no page asks anything for 0.5 s (the clock allows 600 s): the seat disconnects, the side forfeits
    record = _abandoned(gone_seconds=0.5, present_for=None)
    assert record.outcome.reason.is_forfeit
    assert [(i.seat, i.kind) for i in record.incidents] == [(0, "disconnect")]
    assert "left the table" in record.incidents[0].detail
    assert record.seconds < 30


def test_a_page_that_keeps_asking_keeps_the_seat():
    # seen for 1 s at the first Turn (twice the limit), then it answers: nothing is forced
    record = _abandoned(gone_seconds=0.5, present_for=1.0)
    assert not record.incidents and not record.outcome.reason.is_forfeit
    mine = [a for a in record.actions if a.seat == 0]
    assert sum(a.action.startswith("play ") for a in mine) == 13  # every card of the hand, played by the person
    assert mine[0].ms >= 1000 and all(a.forced == "" for a in mine)


def test_an_unknown_bot_is_answered_with_the_bots_that_play_the_game(tmp_path):
    """/play refused an unknown bot for Spot with "choose one of dds, greedy, heuristic,
    random, search": two of them (Spades only) it then refused as not playing Spot."""
    from arbiter.person.tables import Tables
    from arbiter.store.db import Store

    Store(tmp_path / "a.sqlite").close()
    tables = Tables(tmp_path / "a.sqlite")
    try:
        with pytest.raises(TableError) as err:
            tables.start("spot", "0", ["random@9.9"], {"players": 2})
        assert err.value.status == 400 and str(err.value) == "unknown bot 'random@9.9': choose one of heuristic, random, search"
    finally:
        tables.close()


def test_with_play_limit_0_the_form_and_a_start_say_playing_is_off(tmp_path):
    """`arbiter web --host 0.0.0.0` turns /play off (--play-limit 0): its page still offered
    the form, and a start answered 429 "0 matches ... are being played, the most this server
    allows: finish one, or wait until one ends", a wait that never ends."""
    from arbiter.person.tables import Tables
    from arbiter.present import web
    from arbiter.present.play_page import new_page
    from arbiter.store.db import Store

    Store(tmp_path / "a.sqlite").close()
    tables = Tables(tmp_path / "a.sqlite", limit=0)
    try:
        with pytest.raises(TableError) as err:
            tables.start("spot", "0", ["random"], {"players": 2})
        assert err.value.status == 503 and "playing a seat is off on this server" in str(err.value)
        assert "wait until one ends" not in str(err.value)
        page = new_page(web._env, tables, {})
        assert 'id="play-off"' in page and "--play-limit N" in page and '<button type="submit" id="start" disabled>' in page
    finally:
        tables.close()
