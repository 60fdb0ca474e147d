"""The browser's seat (arbiter.tournament.table.BrowserSeat) without a web server: a match
run by the real runner with trusted bots in process, the seat answered from another
thread as a web request would. (The whole path, bot processes and a browser included:
tests/e2e/test_human_seat.py.)"""

from __future__ import annotations

import asyncio
import threading

import pytest

from arbiter.hosting.local import LocalSeat
from arbiter.match import run_match
from arbiter.tournament.table import BrowserSeat, TableError, _Steps, store_unwritable
from cardarena.games import events_for, get_game
from cardarena.records import Clock, MatchConfig
from cardarena.replay import verify_record
from sdk.loading import load_bot


def _play(game: str, options: dict, seat: int, answer) -> tuple:
    """Run a match with the browser's seat at ``seat``; ``answer(browser, snapshot)`` acts
    for it from this thread. The record and the last snapshot."""
    g = get_game(game, options)
    loop = asyncio.new_event_loop()
    browser = BrowserSeat(loop, g)
    seats = [browser if i == seat else LocalSeat(load_bot("random"), "random") for i in range(g.num_seats)]
    config = MatchConfig(game=game, seed=11, options=options, clock=Clock(600_000, 0), match_id="t-1")
    out: dict = {}

    def run() -> None:
        out["record"] = loop.run_until_complete(run_match(config, seats, observers=[_Steps(browser)]))

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


def test_bad_answers_are_refused_before_the_runner_sees_them():
    tried = []

    def fussy(browser, snap):
        if not tried:
            rid = str(snap.request_id)
            for request, text, status, words in [
                (rid, "play ZZ", 400, "malformed action"),
                (rid, "", 400, "action is missing"),
                ("x", str(snap.legal[0]), 400, "request must be the number"),
                (str(snap.request_id + 1), str(snap.legal[0]), 409, "not the one being asked"),
            ]:
                with pytest.raises(TableError) as err:
                    browser.act(request, text)
                assert err.value.status == status and words in str(err.value)
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
