"""A person at the table (issue 19): a seat played over HTTP against bot processes.

`arbiter web` runs as a subprocess over a fresh store (a real browser plays the card
table by clicking in tests/e2e/test_table.py). The stored matches replay and verify
(``cardarena.replay`` and `arbiter replay`). A plain HTTP client plays matches through
the page's own endpoints (the page, its ``?fragment=1``, its event stream, whose events
carry the live part, its form) and keeps every response body (each event read whole),
which is scanned for any card the seat had not seen by then (from the true deal: the
record replayed through the engine). Bad input (wrong or missing seat
token, malformed and illegal actions, bad options, bots and seats, an oversized body, one
match over the live-match cap) gets a 4xx naming what was wrong and leaves the match as
it was; a store that cannot be written turns playing off, with a message, and the rest of
the site keeps working.

Nothing here measures time: waits are bounded (the server's own long polls), never
asserted on.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import html
import http.client
import os
import random
import re
import shutil
import tempfile
import urllib.parse
from pathlib import Path
from typing import Any, Iterator

import pytest

from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import run_match
from arbiter.present.boards import board
from arbiter.present.web import live_event
from arbiter.store.db import Store
from arbiter.store.registry import Registry, collect
from cardarena.games import Card, EndReason, get_game
from cardarena.records import MatchConfig
from cardarena.replay import step_record, verify_record
from sdk.loading import load_bot
from tests.cli.badinput import invoke
from tests.conftest import ROOT
from tests.e2e.browser import serve_web

SPADES = {"deals": "1"}
SPITE = {"payoff_size": "2", "max_turns": "20"}  # a short game: few cards to pay off, a turn limit
MAX_DECISIONS = 400  # a bound on every loop below, far above what these matches take


# --------------------------------------------------------------------------------------
# The server, the browser, a plain client.


def _new_store(folder: Path) -> Path:
    db = folder / "arena.sqlite"
    Store(db).close()  # the schema: `arbiter web` serves an existing store
    return db


_web = serve_web


class _Report:
    """What Registry.add keeps of a passed check (a real one takes seconds)."""

    bot = {"name": "template", "version": "0.1", "games": ["*"], "deterministic": True}

    def to_dict(self) -> dict:
        return {"spec": "check", "ok": True, "bot": self.bot, "checks": [{"name": "contract", "ok": True, "detail": "-"}]}


#: The tests that share the module's `site` fixture: one xdist group (--dist loadgroup,
#: tests/conftest.py), so it is made once in a run.
SHARED = pytest.mark.xdist_group("human_seat")


@pytest.fixture(scope="module")
def site():
    tmp = Path(tempfile.mkdtemp(prefix="arena-seat-"))
    db = _new_store(tmp)
    with Registry(db) as reg:  # a registered bot, offered as an opponent
        reg.add("mine", "1.0", collect(ROOT / "bots" / "template"), _Report())
    with _web(db, "--play-limit", "8", "--play-clock", "900") as url:
        yield url, db
    shutil.rmtree(tmp, ignore_errors=True)



@dataclasses.dataclass
class Response:
    method: str
    path: str
    status: int
    headers: dict[str, str]
    body: str


class Client:
    """HTTP/1.1 by hand: no redirect is followed and no response is missed (``log``); the
    seat cookie is kept as a browser keeps it (sent back to its match's paths only)."""

    def __init__(self, url: str):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.cookies: dict[str, str] = {}  # path -> token
        self.log: list[Response] = []

    def request(self, method: str, path: str, form: dict[str, Any] | None = None, *, cookie: str | None = None,
                body: bytes | None = None, headers: dict[str, str] | None = None) -> Response:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        hdrs = dict(headers or {})
        if form is not None:
            body = urllib.parse.urlencode(form, doseq=True).encode()
            hdrs.setdefault("Content-Type", "application/x-www-form-urlencoded")
        if cookie is None:
            cookie = self._cookie(path)
        if cookie:
            hdrs["Cookie"] = f"seat={cookie}"
        conn.request(method, path, body=body, headers=hdrs)
        r = conn.getresponse()
        resp = Response(method, path, r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode())
        conn.close()
        set_cookie = resp.headers.get("set-cookie")
        if set_cookie:
            m = re.match(r"seat=([^;]+);.*Path=([^;]+)", set_cookie)
            assert m, set_cookie
            self.cookies[m.group(2)] = m.group(1)
        self.log.append(resp)
        return resp

    def _cookie(self, path: str) -> str | None:
        bare = path.split("?")[0]  # a cookie's Path matches the path, whatever the query
        return next((t for p, t in self.cookies.items() if bare == p or bare.startswith(p + "/")), None)

    def events(self, path: str, since: str = "", *, until_end: bool = False, cookie: str | None = None) -> Response:
        """The page's event stream (``path?events=1``) read to its first event past ``since``
        (the hash of the live part the caller has), or with ``until_end`` to its end event."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        hdrs = {"Accept": "text/event-stream"}
        cookie = self._cookie(path) if cookie is None else cookie
        if cookie:
            hdrs["Cookie"] = f"seat={cookie}"
        conn.request("GET", f"{path}?events=1&since={since}", headers=hdrs)
        r = conn.getresponse()
        lines: list[str] = []
        if r.status != 200:
            lines.append(r.read().decode())
        else:
            ended = data = False
            while True:
                line = r.readline().decode()
                if not line:
                    break
                lines.append(line)
                ended = ended or line.startswith("event: end")
                data = data or line.startswith("data:")
                if line == "\n" and data:  # an event read whole (its data: every line of the live part)
                    if ended or not until_end:
                        break
                    data = False
        conn.close()
        resp = Response("GET", f"{path}?events=1", r.status, {k.lower(): v for k, v in r.getheaders()}, "".join(lines))
        self.log.append(resp)
        return resp

    def changed(self, path: str, page: Response) -> None:
        """Until the seat's page has changed since ``page`` (its live stream's next event)."""
        m = re.search(r'<div id="live" data-hash="([0-9a-f]+)"', page.body)
        assert m, page.body[:300]
        r = self.events(path, m.group(1))
        assert r.status == 200 and "data:" in r.body, (r.status, r.body[:300])

    def get(self, path: str, **kw: Any) -> Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, form: dict[str, Any], **kw: Any) -> Response:
        return self.request("POST", path, form, **kw)


def _start_form(game: str, seat: int, bots: list[str], options: dict[str, str], preset: str = "") -> dict[str, Any]:
    form: dict[str, Any] = {"game": game, "seat": str(seat), "preset": preset}
    others = iter(bots)
    n = get_game(game, options, preset or None).num_seats
    for k in range(n):
        form[f"bot.{k}"] = "random" if k == seat else next(others)
    form.update({f"o.{k}": v for k, v in options.items()})
    return form


def _start(client: Client, game: str, seat: int, bots: list[str], options: dict[str, str]) -> str:
    r = client.post("/play/new", _start_form(game, seat, bots, options))
    assert r.status == 303, (r.status, _error(r))
    assert "HttpOnly" in r.headers["set-cookie"] and "SameSite=Strict" in r.headers["set-cookie"]
    location = r.headers["location"]
    assert re.fullmatch(r"/play/web-[0-9a-f]{12}", location)
    assert r.headers["set-cookie"].split(";")[0].split("=")[1] not in location  # the token is in no URL
    return location.rsplit("/", 1)[1]


def _error(r: Response) -> str:
    m = re.search(r'id="play-error">(.*?)</p>', r.body, re.S)
    return html.unescape(m.group(1)) if m else r.body[:300]


def _other(token: str) -> str:
    """The token with its last character changed."""
    return token[:-1] + ("A" if token[-1] != "A" else "B")


def _decision(page: str) -> tuple[str, list[str]] | None:
    """The decision being asked on a seat's page: its request id and its legal actions."""
    m = re.search(r'name="request" value="(\d+)"', page)
    if not m:
        return None
    return m.group(1), [html.unescape(a) for a in re.findall(r'data-action="([^"]*)"', page)]


def _next_decision(client: Client, match_id: str) -> tuple[str, list[str]]:
    """The seat's page once it is asked to decide (waiting on the page's own long poll)."""
    path = f"/play/{match_id}"
    for _ in range(MAX_DECISIONS):
        page = client.get(path)
        d = _decision(page.body)
        if d is not None:
            return d
        assert 'data-over="1"' not in page.body, "the match ended without asking the seat"
        client.changed(path, page)  # the page's own live stream
    raise AssertionError("the seat was never asked")


def _play_out(client: Client, match_id: str, rng: random.Random | None = None) -> int:
    """Play the seat to the end (the first legal action, or a random one); its decisions."""
    path = f"/play/{match_id}"
    page = client.get(path)
    decisions = 0
    for _ in range(MAX_DECISIONS):
        assert page.status == 200, (page.status, _error(page))
        if 'data-over="1"' in page.body and 'id="stored"' in page.body and "Recording" not in page.body:
            return decisions
        d = _decision(page.body)
        if d is None:  # waiting for the bots (or for the record): the page's own live stream
            client.changed(path, page)
            page = client.get(path)
            continue
        rid, legal = d
        assert _decision(client.get(f"{path}?fragment=1").body) == d  # the page's table alone says the same
        r = client.post(f"{path}/act", {"request": rid, "action": (rng.choice(legal) if rng else legal[0])})
        assert r.status == 303, (r.status, _error(r))
        decisions += 1
        page = client.get(path)
    raise AssertionError(f"match {match_id} did not end within {MAX_DECISIONS} requests")


def _stored(db: Path, match_id: str):
    with Store(db, read_only=True) as store:
        return store.match(match_id).record()


def _verifies(db: Path, match_id: str, seat: int) -> None:
    record = _stored(db, match_id)
    assert record.seat_names[seat] == "browser"
    assert verify_record(record) == record.outcome
    out = invoke(["replay", match_id, "--db", str(db)], timeout=120)  # the command, in this process
    assert out.exit_code == 0 and not out.crash, out.describe()
    assert "reproduce the recorded result" in out.output


# Playing in the browser, by clicking the card table: tests/e2e/test_table.py.


@SHARED
def test_a_registered_bot_is_offered_and_plays_from_its_stored_copy(site):
    url, db = site
    client = Client(url)
    form = client.get("/play?game=spot&o.players=2")
    assert '<option value="mine@1.0"' in form.body and "registered, by local" in form.body
    assert '<option value="greedy"' not in form.body  # greedy plays spades only
    match_id = _start(client, "spot", 1, ["mine@1.0"], {"players": "2", "hands": "1"})
    _play_out(client, match_id)
    record = _stored(db, match_id)
    assert record.seat_names == ("mine@1.0", "browser") and not record.incidents
    _verifies(db, match_id, 1)


# --------------------------------------------------------------------------------------
# Nothing reaches the browser that the seat may not see.

_TOKEN = re.compile(r"(?<![A-Za-z0-9])(10|[2-9AJQK])([SHDC♠♥♦♣])(?![A-Za-z0-9])|(?<![A-Za-z0-9])JK(?![A-Za-z0-9])")
_SYMBOL = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def card_tokens(text: str) -> set[str]:
    """Every card named in ``text``, as ``QS``/``10H``/``JK``: in notation, in attributes,
    or drawn as a rank and a suit symbol (the site's card faces)."""
    out = set()
    for m in _TOKEN.finditer(text):
        out.add("JK" if m.group(1) is None else m.group(1) + _SYMBOL.get(m.group(2), m.group(2)))
    return out


def cards_in(value: Any) -> set[str]:
    """Every card in a view (any nesting of dataclasses, tuples, lists, dicts, sets)."""
    if isinstance(value, Card):
        return {str(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return set().union(*(cards_in(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, dict):
        return set().union(set(), *(cards_in(v) for v in value.values()))
    if isinstance(value, (tuple, list, set, frozenset)):
        return set().union(set(), *(cards_in(v) for v in value))
    return set()


def seen_by(record, seat: int) -> list[set[str]]:
    """For each step N, every card ``seat`` had been shown by then: in its views (from the
    record replayed through the engine's view seam) and in the events it was shown."""
    seen: set[str] = set()
    out = []
    steps = list(step_record(record, seat))
    for s in steps:
        seen |= cards_in(s.view)
        for e in s.events:
            seen |= cards_in(e.cards) | card_tokens(e.text)
        out.append(set(seen))
    # At the end every seat receives the final public view (the full deal, revealed)
    final = list(step_record(record, None))[-1]
    out[-1] |= cards_in(final.view)
    return out


def deal_cards(record) -> set[str]:
    """Every card of the true deal (hands, piles and stock), from the engine."""
    state = get_game(record.game, record.options).new_initial_state(record.seed)
    every = state.all_cards()
    assert every, "the engine can list the deal"
    return {str(c) for c in every}


def _scan(client: Client, db: Path, match_id: str, seat: int) -> int:
    """Fail if any response about this match named a card the seat had not seen by then."""
    record = _stored(db, match_id)
    seen = seen_by(record, seat)
    deal = deal_cards(record)
    last = len(seen) - 1
    hidden_at_deal = deal - seen[0]
    assert len(hidden_at_deal) > 10, "the scan must have hidden cards to look for"
    checked = 0
    prefix = f"/play/{match_id}"
    for r in client.log:
        if not (r.path == prefix or r.path.startswith((prefix + "/", prefix + "?"))):
            continue
        checked += 1
        assert str(record.seed) not in r.body, f"{r.method} {r.path}: the seed is in the response"
        stream = r.status == 200 and r.headers.get("content-type", "").startswith("text/event-stream")
        for body in _event_data(r.body) if stream else [r.body]:  # each event carries the live part as it was
            if not body:
                continue  # a redirect: no body
            m = re.search(r'data-step="(\d+)"', body)
            if m is None:  # an error page, an end event: it names no card at all
                assert not card_tokens(body) - card_tokens(_error(r) if not stream else ""), body[:300]
                continue
            step = int(m.group(1))
            assert 0 <= step <= last
            leaked = (card_tokens(body) & deal) - seen[step]
            if leaked:
                where = [body[max(0, m.start() - 300):m.end() + 100] for m in _TOKEN.finditer(body)
                         if (m.group(0) if m.group(1) is None else m.group(1) + _SYMBOL.get(m.group(2), m.group(2))) in leaked]
                raise AssertionError(f"{r.method} {r.path} (after {step} actions) shows {sorted(leaked)}, which seat {seat} "
                                     f"had not seen, in: {where[:3]}; the match: {record.outcome}, {record.actions}")
    return checked


def _event_data(stream: str) -> list[str]:
    """Each event's data in a read event stream (its ``data:`` lines joined, as EventSource does)."""
    out = []
    for block in stream.split("\n\n"):
        data = [line[5:].removeprefix(" ") for line in block.split("\n") if line.startswith("data:")]
        if data:
            out.append("\n".join(data))
    return out


@SHARED
def test_nothing_reaches_the_browser_that_the_seat_may_not_see(site):
    url, db = site
    rng = random.Random(19)
    for game, seat, bots, options in [
        ("spades", 2, ["random", "heuristic", "random"], SPADES),
        ("spades", 0, ["greedy", "random", "greedy"], SPADES),
        ("spite-and-malice", 1, ["random"], SPITE),
        ("spot", 3, ["random", "heuristic", "random"], {"hands": "1"}),
    ]:
        client = Client(url)
        match_id = _start(client, game, seat, bots, options)
        client.events(f"/play/{match_id}")
        _play_out(client, match_id, rng)
        client.get(f"/play/{match_id}")
        checked = _scan(client, db, match_id, seat)
        assert checked > 10
        _verifies(db, match_id, seat)


def test_the_scan_sees_a_leak():
    """The scanner's own check: a page showing another seat's hand would fail it."""
    config = MatchConfig(game="spades", seed=5, options={"deals": 1})
    record = asyncio.run(run_match(config, [InProcessSeat(load_bot("random"), "random") for _ in range(4)]))
    full = list(step_record(record, None, full=True))[10]  # the bids are in: every hand has been looked at
    page = " ".join(f'<span data-card="{c}">' for row in board("spades", full.view, record.seat_names, full.seat_views)
                    for c in row.cards)
    leaked = (card_tokens(page) & deal_cards(record)) - seen_by(record, 0)[10]
    assert len(leaked) >= 30  # seat 1-3's hands, less what they have played
    # as the live stream pushes it: the same part, its every line scanned
    pushed = _event_data("retry: 2000\n\n" + live_event(page.replace("> ", ">\n")) + "event: end\ndata: x\n\n")
    assert pushed[0] == page.replace("> ", ">\n") and pushed[1] == "x"
    assert not card_tokens("<style>.card{min-width:30px} #3b5bb5</style> Card Arena · play · QSX 2Dx")


# --------------------------------------------------------------------------------------
# Bad input: 4xx naming what was wrong; the match and the store untouched.


@SHARED
def test_a_wrong_or_missing_seat_token_reads_and_does_nothing(site):
    url, db = site
    client = Client(url)
    match_id = _start(client, "spades", 0, ["random", "random", "random"], SPADES)
    path = f"/play/{match_id}"
    rid, legal = _next_decision(client, match_id)
    stranger = Client(url)
    for r in (stranger.get(path), stranger.get(path, cookie="x" * 32), stranger.events(path, cookie="nope"),
              stranger.get(f"{path}?fragment=1", cookie="nope"),
              stranger.post(f"{path}/act", {"request": rid, "action": legal[0]}, cookie=_other(client.cookies[path]))):
        assert r.status == 404, r.status  # the same answer as for no such match (test_web_limits)
        assert "no match of yours" in _error(r)
        assert not card_tokens(r.body) - card_tokens(_error(r))
    assert client.get("/play/web-000000000000").status == 404
    # the seat's decision is still the one asked
    again = client.get(path)
    assert _decision(again.body) == (rid, legal)
    _play_out(client, match_id)
    assert not _stored(db, match_id).incidents
    _verifies(db, match_id, 0)


@SHARED
def test_malformed_and_illegal_actions_are_refused_and_the_match_goes_on(site):
    url, db = site
    client = Client(url)
    match_id = _start(client, "spades", 3, ["random", "random", "random"], SPADES)
    path = f"/play/{match_id}"
    rid, legal = _next_decision(client, match_id)
    page = client.get(path).body  # (issue 44) each seat: its bot with the version it said, and its compass point
    for seat, place in enumerate(("North", "East", "South")):
        assert f'data-seat="{seat}" aria-label="random@1.0 · {place}' in page, page[:3000]
        assert f'random@1.0 <span class="where">{place}</span>' in page
    assert 'aria-label="you · West' in page
    all_bids = {f"bid {n}" for n in range(14)} | {"bid nil"}
    not_legal = sorted(all_bids - set(legal)) or ["play 2C"]
    cases = [
        ({"request": rid, "action": "play ZZ"}, 400, "malformed action 'play ZZ'"),
        ({"request": rid, "action": "shuffle the deck"}, 400, "malformed action"),
        ({"request": rid, "action": ""}, 400, "action is missing"),
        ({"request": rid}, 400, "the action is missing"),
        ({"request": rid, "action": [legal[0], legal[0]]}, 400, "given 2 times"),
        ({"request": "abc", "action": legal[0]}, 400, "request must be the number"),
        ({"request": "\u00b2", "action": legal[0]}, 400, "request must be the number"),  # isdigit, but no int
        ({"request": "9" * 5000, "action": legal[0]}, 400, "request must be the number"),  # past int's 4,300 digits
        ({"request": str(int(rid) + 5), "action": legal[0]}, 409, "is not the one being asked"),
        ({"request": rid, "action": not_legal[0]}, 400, "is not a legal action now"),
        ({"request": rid, "action": "x" * 5000}, 400, "more characters"),
    ]
    for form, status, message in cases:
        r = client.post(f"{path}/act", form)
        assert r.status == status and message in _error(r), (form, r.status, _error(r))
        # the plain form (no script) lands on this page: it leads back to the table, not only to /play
        assert f'<a href="{path}" id="back-to-table">' in r.body, r.body
    r = client.request("POST", f"{path}/act", body=b"a" * 20000, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status == 413 and "more than the" in _error(r)
    r = client.request("POST", f"{path}/act", body=b'{"action": "bid 1"}', headers={"Content-Type": "application/json"})
    assert r.status == 415
    r = client.post(f"{path}/act", {"request": rid, "action": legal[0]}, headers={"Origin": "http://evil.example"})
    assert r.status == 403 and "may not act" in _error(r)
    assert client.get(f"{path}/state").status == 404  # the old long poll: the page's live stream replaced it
    assert client.get(f"{path}/nothing").status == 404
    assert _decision(client.get(path).body) == (rid, legal)  # none of it counted
    _play_out(client, match_id)
    record = _stored(db, match_id)
    assert record.outcome.reason is EndReason.COMPLETED and not record.incidents  # no strike, no forfeit
    _verifies(db, match_id, 3)
    r = client.post(f"{path}/act", {"request": rid, "action": legal[0]})
    assert r.status == 409 and "the match is over" in _error(r)


@SHARED
def test_bad_options_bots_and_seats_are_refused_by_name(site):
    url, db = site
    client = Client(url)
    before = _count_matches(db)
    good = _start_form("spades", 0, ["random"] * 3, SPADES)
    cases = [
        ({**good, "o.deals": "many"}, "option 'deals'"),
        ({**good, "o.no_such": "1"}, "unknown option 'no_such'"),
        ({**good, "game": "poker"}, "unknown game 'poker'"),
        ({**good, "preset": "fancy"}, "unknown preset 'fancy'"),
        ({**good, "bot.2": "../../etc/passwd.py"}, "unknown bot '../../etc/passwd.py'"),
        ({**good, "bot.2": "greedy", "game": "spot", "o.deals": "", "bot.3": "random"}, "does not play spot"),
        ({**good, "seat": "7"}, "seat must be a number from 0 to 3"),
        # as a browser sends it (your own seat has no bot menu): not "the bot for seat 0 is missing" (issue 44)
        ({**{k: v for k, v in good.items() if k != "bot.0"}, "seat": "7"}, "seat must be a number from 0 to 3"),
        ({k: v for k, v in good.items() if k != "bot.1"}, "the bot for seat 1 is missing"),
        ({k: v for k, v in good.items() if k != "seat"}, "your seat is missing"),
    ]
    for form, message in cases:
        r = client.post("/play/new", {k: v for k, v in form.items() if v != ""})
        assert r.status == 400 and message in _error(r), (form, r.status, _error(r))
        assert "set-cookie" not in r.headers
    # the refusal is the form again, as it was filled in (a plain error page lost the bots and
    # options chosen: "Play a seat" drew a fresh form)
    r = client.post("/play/new", {**good, "bot.3": "nobody", "bot.2": "heuristic", "o.target": "300"})
    assert r.status == 400 and "unknown bot 'nobody'" in _error(r) and 'id="new-match"' in r.body
    assert '<option value="heuristic" selected>' in r.body.split('id="bot-2"')[1].split("</select>")[0]
    assert 'name="o.target" value="300"' in r.body
    r = client.post("/play/new", {**good, "o.deals": "many"})  # options the form cannot seat: said twice, the box kept
    assert r.status == 400 and "option 'deals'" in _error(r) and 'name="o.deals" value="many"' in r.body
    assert client.get("/play?game=poker").status == 400
    form_page = client.get("/play?game=spot&o.players=3")
    assert form_page.status == 200 and 'id="bot-2"' in form_page.body and 'id="bot-3"' not in form_page.body
    assert client.get("/").status == 200  # the rest of the site is unaffected
    assert _count_matches(db) == before


def _count_matches(db: Path) -> int:
    with Store(db, read_only=True) as store:
        return store.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]


def test_over_the_live_match_cap_is_refused():
    tmp = Path(tempfile.mkdtemp(prefix="arena-seat-cap-"))
    db = _new_store(tmp)
    try:
        with _web(db, "--play-limit", "1") as url:
            client = Client(url)
            first = _start(client, "spite-and-malice", 0, ["random"], SPITE)
            r = client.post("/play/new", _start_form("spades", 0, ["random"] * 3, SPADES))
            assert r.status == 429 and "--play-limit 1" in _error(r) and "set-cookie" not in r.headers
            assert "1 of 1 matches" in client.get("/play").body
            _play_out(client, first)  # once it ends, a slot is free again
            second = _start(client, "spades", 1, ["random"] * 3, SPADES)
            _play_out(client, second)
            _verifies(db, first, 0)
            _verifies(db, second, 1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_on_an_interface_other_machines_reach_play_is_off_unless_a_limit_is_given():
    """Secure by default: anyone who reaches the page could start bot processes, so on a
    non-loopback interface /play starts nothing until the operator says how many."""
    tmp = Path(tempfile.mkdtemp(prefix="arena-seat-host-"))
    db = _new_store(tmp)
    try:
        with _web(db, "--host", "0.0.0.0") as url:
            client = Client(url.replace("0.0.0.0", "127.0.0.1"))
            r = client.post("/play/new", _start_form("spades", 0, ["random"] * 3, SPADES))
            assert r.status == 503 and "set-cookie" not in r.headers, (r.status, _error(r))
            assert "playing a seat is off on this server" in r.body  # not "wait until one ends": none ever starts
            assert 'id="play-off"' in client.get("/play").body
        with _web(db, "--host", "0.0.0.0", "--play-limit", "1") as url:
            client = Client(url.replace("0.0.0.0", "127.0.0.1"))
            _play_out(client, _start(client, "spades", 0, ["random"] * 3, SPADES))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_a_person_gone_past_the_clock_forfeits_and_the_match_is_recorded():
    """Nobody clicks: past the clock (1 s here) the person's side forfeits by timeout. The
    bots have the same clock; on a very busy machine one of them could run out of it
    first, so a match another seat forfeited is played again (at most three times)."""
    tmp = Path(tempfile.mkdtemp(prefix="arena-seat-clock-"))
    db = _new_store(tmp)
    try:
        with _web(db, "--play-limit", "1", "--play-clock", "1") as url:
            client = Client(url)
            for _ in range(3):
                match_id = _start(client, "spades", 0, ["random"] * 3, SPADES)
                ended = client.events(f"/play/{match_id}", until_end=True)  # the page's live stream, to its end
                assert ended.status == 200 and "event: end" in ended.body, ended.body[-300:]
                record = _stored(db, match_id)
                if record.incidents and record.incidents[0].seat == 0:
                    break
            page = client.get(f"/play/{match_id}").body
            # the banner says who won and why, in words (issue 44), not the reason's code
            assert "won by forfeit: your side lost: a seat ran out of time" in page and "You lost." in page
            assert 'id="replay-link"' in page
            assert record.outcome.reason is EndReason.FORFEIT_TIMEOUT and record.incidents[0].seat == 0
            assert record.incidents[0].kind == "timeout"
            assert verify_record(record) == record.outcome
            _start(client, "spades", 0, ["random"] * 3, SPADES)  # its place is free again
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def _as_nobody() -> Iterator[None]:
    """The block with an ordinary user's permissions (root writes through any chmod): the
    effective uid of this whole process, the web server's threads included, is nobody's."""
    if os.geteuid() != 0:
        yield
        return
    os.setegid(65534)
    os.seteuid(65534)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


def test_a_store_that_cannot_be_written_turns_playing_off_and_the_site_works():
    from arbiter.present.web import serve_in_thread

    tmp = Path(tempfile.mkdtemp(prefix="arena-seat-ro-"))
    tmp.chmod(0o755)
    ro = tmp / "ro"
    ro.mkdir()
    db = _new_store(ro)
    db.chmod(0o444)
    ro.chmod(0o555)
    server, _ = serve_in_thread(db)
    try:
        client = Client(server.url)
        assert client.get("/play").status == 200  # once with this user's rights: every import done
        with _as_nobody():
            page = client.get("/play")
            r = client.post("/play/new", _start_form("spades", 0, ["random"] * 3, SPADES))
            index = client.get("/")
        assert page.status == 200 and 'id="store-unwritable"' in page.body and "cannot be written" in page.body
        assert 'id="start" disabled' in page.body
        assert r.status == 503 and "cannot be written" in _error(r) and "the rest of the site works" in _error(r)
        assert index.status == 200 and 'id="play-link"' in index.body
    finally:
        server.shutdown()
        server.server_close()
        ro.chmod(0o755)
        shutil.rmtree(tmp, ignore_errors=True)
