"""`arbiter web` as a server: a real uvicorn process, real sockets, a real HTTP client.

Its live pages push an event when their content changes (a tournament's standings, an
arena's leaderboard; a /play seat's page is waited on this way by test_human_seat), a
client that goes away mid-response or mid-stream is no traceback, every request is one
line of the access log, and Ctrl-C stops it cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import http.client
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import urllib.parse
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from arbiter.arena.ladder import Arena, ArenaSpec
from arbiter.hosting.inprocess import InProcessSeat
from arbiter.match import run_match
from arbiter.present.web import fragment_hash, live_text
from arbiter.store.db import Store
from cardarena.records import MatchConfig
from sdk.loading import load_bot
from tests.cli.badinput import invoke
from tests.conftest import ROOT

#: The tests that share the module's world: one xdist group (--dist loadgroup,
#: tests/conftest.py), so it is made once in a run.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("web_server")]

ARENA = ArenaSpec(game="spades", name="club", options={"deals": 1}, transport="inproc", seed=5,
                  house=("random", "greedy", "heuristic"))


def _save(store: Store, tid: int, idx: int) -> None:
    config = MatchConfig(game="spades", seed=900 + idx, options={"deals": 1}, match_id=f"ws-{idx}")
    seats = ["random", "greedy", "random", "greedy"] if idx % 2 == 0 else ["greedy", "random", "greedy", "random"]
    record = asyncio.run(run_match(config, [InProcessSeat(load_bot(n), n) for n in seats]))
    store.save_match(tid, idx, idx // 2, idx % 2, record)


@pytest.fixture(scope="module")
def world() -> Iterator[tuple[Path, Path]]:
    """A store with a running tournament (two of four matches played) and an arena ladder."""
    tmp = Path(tempfile.mkdtemp(prefix="arena-webserver-"))
    db = tmp / "arena.sqlite"
    with Store(db) as store:
        t = store.open_tournament("running", "spades", {"game": "spades", "bots": ["random", "greedy"],
                                                        "options": {"deals": 1}}, planned=4)
        for idx in range(2):
            _save(store, t.id, idx)
        store.open_tournament("broken", "spades", {"game": "no-such-game", "bots": ["a", "b"]})  # its page fails
    arena = Arena(ARENA, db, poll=0)
    asyncio.run(arena.run(max_encounters=2))
    arena.close()
    yield tmp, db
    shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def _server(db: Path | None, log: Path, cwd: Path = ROOT, verbose: bool = True) -> Iterator[tuple[subprocess.Popen, str]]:
    """`arbiter web [--verbose] --port 0 [--db DB]`, its stderr (the log) in ``log``; its host:port."""
    with _servers(db, [(log, verbose)], cwd) as [server]:
        yield server


@contextlib.contextmanager
def _servers(db: Path | None, logs: list[tuple[Path, bool]], cwd: Path = ROOT) -> Iterator[list[tuple[subprocess.Popen, str]]]:
    """One `arbiter web` per (log, verbose) in ``logs``, started at once; each one's process and host:port."""
    procs = []
    try:
        for log, verbose in logs:
            with open(log, "w") as err:
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "arbiter", "web", "--port", "0", *(["--verbose"] if verbose else []),
                     *(["--db", str(db)] if db else [])],
                    cwd=cwd, stdout=subprocess.PIPE, stderr=err, text=True, stdin=subprocess.DEVNULL,
                    env={k: v for k, v in os.environ.items() if k != "ARENA_DB"}))
        addresses = []
        for proc, (log, _) in zip(procs, logs):
            line = proc.stdout.readline()
            m = re.search(r"on http://([\d.]+:\d+)/", line)
            assert m, (line, log.read_text())
            addresses.append(m.group(1))
        yield list(zip(procs, addresses))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(20)


def _get(address: str, path: str) -> tuple[int, str, dict[str, str]]:
    host, port = address.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read().decode()
    conn.close()
    return r.status, body, {k.lower(): v for k, v in r.getheaders()}


def _live_hash(page: str) -> str:
    m = re.search(r'<div id="live" data-hash="([0-9a-f]+)"', page)
    assert m, page[:400]
    return m.group(1)


class Stream:
    """A page's event stream (``path?events=1&since=HASH``) read line by line."""

    def __init__(self, address: str, path: str, since: str):
        host, port = address.split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        sep = "&" if "?" in path else "?"
        self.conn.request("GET", f"{path}{sep}events=1&since={since}", headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        assert self.response.status == 200, self.response.read()[:300]
        assert self.response.getheader("content-type", "").startswith("text/event-stream")

    def next_event(self) -> dict[str, str]:
        """The next event's fields (comments and the retry line skipped), as EventSource
        reads them: one space after the colon taken off, the ``data`` lines joined by LF; blocks."""
        fields: dict[str, str] = {}
        data: list[str] = []
        while True:
            line = self.response.readline().decode()
            assert line, "the stream ended"
            line = line.rstrip("\n")
            assert "\r" not in line, line  # the server ends its lines with LF only
            if not line:
                if data:
                    return {**fields, "data": "\n".join(data)}
                continue
            if line.startswith(":"):
                continue
            key, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if key == "data":
                data.append(value)
            else:
                fields[key] = value

    def close(self) -> None:
        self.conn.close()


def test_a_tournament_page_and_an_arena_leaderboard_push_an_event_when_they_change(world):
    tmp, db = world
    with _server(db, tmp / "push.log") as (proc, address):
        _, page, _ = _get(address, "/t/running")
        tour = Stream(address, "/t/running", _live_hash(page))
        _, page, _ = _get(address, "/a/club")
        arena_stream = Stream(address, "/a/club", _live_hash(page))
        _, page, _ = _get(address, "/")
        index = Stream(address, "/", _live_hash(page))
        with Store(db) as store:  # the tournament's third match
            _save(store, store.tournament("running").id, 2)
        event = index.next_event()  # the list of tournaments: its count of matches, the new part itself
        assert event["id"] == fragment_hash(event["data"]) and "3 / 4" in event["data"], event["data"][:500]
        status, fragment, headers = _get(address, "/?fragment=1")  # the same part, asked for alone
        assert status == 200 and headers["x-live-hash"] == event["id"] and live_text(fragment) == event["data"]
        index.close()
        event = tour.next_event()
        fragment = event["data"]
        assert event["id"] == fragment_hash(fragment) and "<html" not in fragment
        assert "3 matches of 4" in fragment and 'id="live"' not in fragment
        # (listed once its deal, played in two seatings, is whole: till then, only counted)
        assert "ws-2" not in fragment and "1 match of a deal not yet played through is listed" in fragment
        arena = Arena(ARENA, db, poll=0)  # the ladder plays on
        asyncio.run(arena.run(max_encounters=1))
        arena.close()
        for _ in range(10):  # the encounter's start ("now playing") may come first: up to its end
            event = arena_stream.next_event()
            if re.search(r"\b3 encounters\b", event["data"]):
                break
        else:
            raise AssertionError("no event for the finished encounter")
        status, fragment, headers = _get(address, "/a/club?fragment=1")
        assert status == 200 and headers["x-live-hash"] == event["id"] == fragment_hash(event["data"])
        with Store(db) as store:  # the tournament ends: one last change, then the stream ends
            t = store.tournament("running")
            _save(store, t.id, 3)
            store.mark_finished(t.id)
        events = [tour.next_event()]
        while events[-1].get("event") != "end" and len(events) < 3:
            events.append(tour.next_event())
        # the last part (the page final), then end, naming it
        assert events[-1].get("event") == "end" and events[-2]["id"] == events[-1]["data"], events
        assert "data-live-end" in events[-2]["data"] and "4 matches of 4" in events[-2]["data"], events[-2]["data"][:600]
        tour.close()
        arena_stream.close()
        # a page that does not change has no stream
        _, replay, _ = _get(address, "/m/ws-0")
        assert 'id="live"' not in replay
        assert _get(address, "/m/ws-0?events=1")[0] == 404
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0
    assert "Traceback" not in (tmp / "push.log").read_text()


def _abort(sock: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0), as a browser does when a page is left."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def test_clients_that_go_away_are_no_traceback_and_every_request_is_one_log_line(world):
    tmp, db = world
    log = tmp / "gone.log"
    with _server(db, log) as (proc, address):
        host, port = address.split(":")
        _, page, _ = _get(address, "/t/running")
        since = _live_hash(page)
        for k in range(12):
            # mid-response: the request sent, the socket reset before the answer is read
            for path in (f"/t/running?n={k}", "/m/ws-0?step=3&view=full", "/play", f"/a/club/bot/greedy?n={k}"):
                s = socket.create_connection((host, int(port)), timeout=10)
                s.sendall(f"GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n".encode())
                if k % 2:
                    s.recv(200)  # the answer begun
                _abort(s)
            # mid-stream: the event stream open, its first event read, then the client gone
            s = socket.create_connection((host, int(port)), timeout=10)
            s.sendall(f"GET /t/running?events=1&since=x{k} HTTP/1.1\r\nHost: {address}\r\n\r\n".encode())
            got = b""
            while b"data:" not in got:
                got += s.recv(4096)
            _abort(s)
            # a POST cut off in its body
            s = socket.create_connection((host, int(port)), timeout=10)
            s.sendall(f"POST /play/new HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                      f"Content-Length: 900\r\n\r\ngame=spa".encode())
            _abort(s)
        # the server is fine, and answers each request with one line of its log
        for k in range(5):
            assert _get(address, f"/?probe={k}")[0] == 200
        assert _get(address, "/no/such/page?probe=404")[0] == 404
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        assert proc.wait(20) == 0
    text = log.read_text()
    assert "Traceback" not in text and "Error" not in text and "Exception" not in text, text[-3000:]
    for k in range(5):
        assert len(re.findall(rf'"GET /\?probe={k} HTTP/1.1" 200$', text, re.M)) == 1, text[-2000:]
    assert len(re.findall(r'"GET /no/such/page\?probe=404 HTTP/1.1" 404$', text, re.M)) == 1
    access = [ln for ln in text.splitlines() if "uvicorn.access" in ln]
    assert all(re.search(r'"(GET|POST|HEAD) \S+ HTTP/1.1" \d{3}$', ln) for ln in access), access[:5]
    assert text.rstrip().endswith("stopped")  # Ctrl-C: a clean stop, said once


def test_ctrl_c_ends_open_streams_at_once(world):
    tmp, db = world
    with _server(db, tmp / "stop.log") as (proc, address):
        _, page, _ = _get(address, "/a/club")  # a ladder's page: live until the server stops
        streams = [Stream(address, "/a/club", _live_hash(page)) for _ in range(3)]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0
        for s in streams:  # each stream was ended by the server (its last chunk sent), not cut off
            assert s.response.read().startswith(b"retry:")  # http.client: IncompleteRead if it were cut
            s.close()
    text = (tmp / "stop.log").read_text()
    assert "Traceback" not in text and "timeout graceful shutdown exceeded" not in text, text[-2000:]


def test_port_zero_prints_the_real_url(world):
    tmp, db = world
    with _server(db, tmp / "url.log") as (proc, address):
        assert not address.endswith(":0")
        assert _get(address, "/healthz")[:2] == (200, "ok")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 0


def test_right_after_make_demo_web_serves_the_demos_store_and_says_so(world, monkeypatch):
    """`make demo` writes .demo.sqlite; `arbiter web` with no --db and no arena.sqlite serves it."""
    tmp, db = world
    here = tmp / "first-run"
    here.mkdir()
    shutil.copy(db, here / ".demo.sqlite")
    with _server(None, tmp / "demo.log", cwd=here) as (proc, address):
        status, index, _ = _get(address, "/")
        assert status == 200 and '>running</a>' in index and 'id="play-link"' in index
        assert _get(address, "/play")[0] == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0
    assert "serving the demo's store .demo.sqlite" in (tmp / "demo.log").read_text()
    assert sorted(p.name for p in here.iterdir()) == [".demo.sqlite"]  # no arena.sqlite made beside it
    (here / ".demo.sqlite").unlink()
    monkeypatch.chdir(here)  # refused before it serves: the command in process, in that folder
    out = invoke(["web", "--port", "0"], env={"ARENA_DB": None}, serving=True)
    assert out.exit_code not in (0, None) and not out.crash, out.describe()
    assert "no store at arena.sqlite" in out.output and "make demo" in out.output, out.describe()


def test_ctrl_c_right_after_the_url_is_printed_is_a_clean_stop(world):
    """The signal handlers are in before the URL is out: a script that stops the server as
    soon as it read the URL gets a clean stop, not a KeyboardInterrupt traceback or a hang."""
    tmp, db = world
    with _server(db, tmp / "early.log") as (proc, _address):
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0
    text = (tmp / "early.log").read_text()
    assert "Traceback" not in text and text.rstrip().endswith("stopped"), text[-2000:]


def test_an_error_in_a_route_is_one_log_line_and_its_traceback_only_with_verbose(world):
    tmp, db = world
    with _servers(db, [(tmp / f"error-{verbose}.log", verbose) for verbose in (False, True)]) as servers:  # at once
        for proc, address in servers:
            status, body, _ = _get(address, "/t/broken")
            assert status == 500 and "internal error" in body and "no-such-game" not in body  # the reason is the log's
            assert _get(address, "/")[0] == 200  # and the server goes on
            proc.send_signal(signal.SIGINT)
        for proc, _ in servers:
            assert proc.wait(20) == 0
    for verbose in (False, True):
        text = (tmp / f"error-{verbose}.log").read_text()
        errors = [ln for ln in text.splitlines() if "error serving" in ln]
        assert len(errors) == 1 and "GET /t/broken: SpecError:" in errors[0] and "no-such-game" in errors[0], text
        assert ("Traceback" in text) is verbose, text


def test_a_seat_whose_clicks_are_cut_off_leaves_no_traceback(world):
    """The issue's case: a person clicks, and the browser drops the request it was still
    being answered (the POST's redirect, the page's event stream) as the next page loads."""
    tmp, db = world
    log = tmp / "seat.log"
    with _server(db, log) as (proc, address):
        host, port = address.split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=120)
        form = {"game": "spades", "seat": "0", "preset": "", "o.deals": "1", "bot.0": "random", "bot.1": "random",
                "bot.2": "random", "bot.3": "random"}
        conn.request("POST", "/play/new", body=urllib.parse.urlencode(form),
                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        r = conn.getresponse()
        r.read()
        assert r.status == 303, r.status
        path, cookie = r.getheader("location"), r.getheader("set-cookie").split(";")[0]
        conn.close()
        acted = 0
        for _ in range(40):
            status, page, _ = _get_with(address, path, cookie)
            assert status == 200, status
            if 'name="request"' not in page:
                assert 'data-over="1"' in page, page[:500]
                break  # the match is over
            rid = re.search(r'name="request" value="(\d+)"', page).group(1)
            action = html.unescape(re.search(r'data-action="([^"]*)"', page).group(1))
            stream = socket.create_connection((host, int(port)), timeout=10)  # the page's live stream, open
            stream.sendall(f"GET {path}?events=1&since={_live_hash(page)} HTTP/1.1\r\nHost: {address}\r\n"
                           f"Cookie: {cookie}\r\n\r\n".encode())
            body = urllib.parse.urlencode({"request": rid, "action": action}).encode()
            s = socket.create_connection((host, int(port)), timeout=10)  # the click, dropped before its answer
            s.sendall(f"POST {path}/act HTTP/1.1\r\nHost: {address}\r\nCookie: {cookie}\r\n"
                      f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
            _abort(s)
            _abort(stream)
            acted += 1
            _wait_for_decision_past(address, path, cookie, rid)
        assert acted >= 5
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
    text = log.read_text()
    assert "Traceback" not in text and "BrokenPipe" not in text and "Error" not in text, text[-3000:]


def _get_with(address: str, path: str, cookie: str) -> tuple[int, str, dict[str, str]]:
    host, port = address.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    conn.request("GET", path, headers={"Cookie": cookie})
    r = conn.getresponse()
    body = r.read().decode()
    conn.close()
    return r.status, body, {k.lower(): v for k, v in r.getheaders()}


def _wait_for_decision_past(address: str, path: str, cookie: str, rid: str) -> None:
    """Until the seat's page asks a decision other than ``rid`` or the match is over (its
    live stream's events, each bounded by the client's timeout)."""
    host, port = address.split(":")
    for _ in range(200):
        _, page, _ = _get_with(address, path, cookie)
        m = re.search(r'name="request" value="(\d+)"', page)
        if (m is not None and m.group(1) != rid) or 'data-over="1"' in page:
            return
        conn = http.client.HTTPConnection(host, int(port), timeout=60)
        conn.request("GET", f"{path}?events=1&since={_live_hash(page)}", headers={"Cookie": cookie})
        r = conn.getresponse()
        while not r.readline().startswith(b"data:"):
            pass
        conn.close()
    raise AssertionError(f"decision {rid} was never answered")


def test_a_new_store_named_with_db_is_created_for_play(tmp_path):
    """`arbiter web --db new.sqlite` refused to start ("no store"), so /play could not be
    used on a brand-new store. A store named with --db that does not exist is created empty
    (said so) and its pages and /play serve; with /play off nothing could be shown or stored:
    refused, naming the commands that fill one, and no file made."""
    db = tmp_path / "new.sqlite"
    with _server(db, tmp_path / "new.log") as (proc, address):
        status, index, _ = _get(address, "/")
        assert status == 200 and "No tournaments yet" in index, index
        assert _get(address, "/play")[0] == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0
    log = (tmp_path / "new.log").read_text()
    assert f"no store at {db}: created an empty one; /play's matches are stored there" in log, log
    with Store(db, read_only=True) as store:  # a store, not an empty file
        assert store.tournaments() == []
    off = tmp_path / "off.sqlite"
    out = invoke(["web", "--port", "0", "--db", str(off), "--play-limit", "0"], serving=True)
    assert out.exit_code == 2 and not out.crash, out.describe()
    assert f"no store at {off}, and /play is off" in out.output and "arbiter tournament run" in out.output, out.describe()
    assert not off.exists()
