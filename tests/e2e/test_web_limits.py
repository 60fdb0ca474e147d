"""One visitor cannot stall `arbiter web` (issue #41): a real server process, real sockets.

What one client (one address) may hold is bounded (``present.web.StreamLimits``): live
streams per client and per /play match, matches it plays and starts, its requests in the
worker threads; while one client holds the most it may, the site answers everyone else,
and another person (another address: 127.0.0.2) still starts a match. A connection that
never finishes its request is closed (a slow-loris); ``Origin: null`` is refused; "not
yours" and "not there" are one answer.
"""

from __future__ import annotations

import http.client
import re
import select
import shutil
import socket
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Iterator

import pytest

from arbiter.present.web import HEADER_SECONDS, MAX_STREAMS_PER_CLIENT, MAX_STREAMS_PER_MATCH
from arbiter.store.db import Store
from tests.e2e.browser import serve_web

#: The tests that share the module's web server: one xdist group (--dist loadgroup,
#: tests/conftest.py), so it is made once in a run.
pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("web_limits")]

ME, OTHER = "127.0.0.1", "127.0.0.2"  # two clients: the loopback range is all this machine
START = {"game": "spades", "seat": "0", "preset": "", "o.deals": "1", "bot.1": "random", "bot.2": "random",
         "bot.3": "random"}
#: A generous bound on any one answer (a budget, not a measurement): the site answers at once.
ANSWER_S = 10


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[str, int]]:
    tmp = Path(tempfile.mkdtemp(prefix="arena-web-limits-"))
    db = tmp / "arena.sqlite"
    Store(db).close()
    with serve_web(db, "--play-limit", "4", "--play-clock", "900") as url:
        u = urllib.parse.urlsplit(url)
        yield u.hostname, u.port
    shutil.rmtree(tmp, ignore_errors=True)


def _conn(site: tuple[str, int], source: str = ME) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(*site, timeout=ANSWER_S, source_address=(source, 0))


def _ask(site, method: str, path: str, *, source: str = ME, body: str | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    conn = _conn(site, source)
    hdrs = dict(headers or {})
    if body is not None:
        hdrs.setdefault("Content-Type", "application/x-www-form-urlencoded")
    conn.request(method, path, body=body, headers=hdrs)
    r = conn.getresponse()
    out = r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode()
    conn.close()
    return out


def _start(site, source: str = ME) -> tuple[int, str, str]:
    """POST /play/new: (status, the match's path, its cookie) ('' for a refusal)."""
    status, headers, body = _ask(site, "POST", "/play/new", source=source, body=urllib.parse.urlencode(START))
    if status != 303:
        return status, "", body
    return status, headers["location"], headers["set-cookie"].split(";")[0]


def _stream(site, path: str, cookie: str = "", source: str = ME) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    conn = http.client.HTTPConnection(*site, timeout=60, source_address=(source, 0))
    conn.request("GET", f"{path}{'&' if '?' in path else '?'}events=1", headers={"Cookie": cookie} if cookie else {})
    return conn, conn.getresponse()


def _same(body: str) -> str:
    return re.sub(r"[0-9a-f]{32}", "NONCE", body)  # the page's script nonce differs per response


def test_one_client_at_its_most_streams_and_matches_does_not_stall_the_site(site):
    status, path, cookie = _start(site)
    assert status == 303, (status, path)
    held = []
    try:
        for _ in range(MAX_STREAMS_PER_MATCH):  # the seat's page open in as many tabs as a match may have
            conn, r = _stream(site, path, cookie)
            assert r.status == 200 and r.readline().startswith(b"retry:"), r.status
            held.append(conn)
        conn, r = _stream(site, path, cookie)
        assert r.status == 429 and "this match's page is open" in r.read().decode()
        conn.close()
        while len(held) < MAX_STREAMS_PER_CLIENT:  # then the site's own live pages, to the client's most
            conn, r = _stream(site, "/")
            assert r.status == 200 and r.readline().startswith(b"retry:"), r.status
            held.append(conn)
        conn, r = _stream(site, "/")
        assert r.status == 429 and "live streams, the most one client may" in r.read().decode()
        conn.close()
        # A second match is this client's last; a third is refused, by name of the bound.
        second, path2, _ = _start(site)
        assert second == 303
        third, _, body = _start(site)
        assert third == 429 and "--play-per-client 2" in body, (third, body[-400:])
        # The site answers (itself and everyone else) while the client holds all of that.
        assert _ask(site, "GET", "/healthz")[:1] == (200,)
        assert _ask(site, "GET", "/")[0] == 200
        assert _ask(site, "GET", "/play")[0] == 200
        assert _ask(site, "GET", path, headers={"Cookie": cookie})[0] == 200
        assert _ask(site, "GET", "/healthz", source=OTHER)[0] == 200
        theirs, their_path, _ = _start(site, source=OTHER)  # another person starts a match
        assert theirs == 303 and their_path not in (path, path2)
        conn, r = _stream(site, "/", source=OTHER)  # and opens a live page: the bound was one client's
        assert r.status == 200
        conn.close()
    finally:
        for conn in held:
            conn.close()
    # the streams closed, the client's places are free again
    deadline = time.monotonic() + ANSWER_S
    while True:
        conn, r = _stream(site, path, cookie)
        ok = r.status == 200
        conn.close()
        if ok or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert ok


def test_not_yours_and_not_there_are_one_answer_and_origin_null_is_refused(site):
    status, path, cookie = _start(site, source=OTHER)
    if status == 429:  # (the previous test's matches of this address still playing)
        pytest.skip("no place for a match")
    assert status == 303
    nowhere = "/play/web-000000000000"
    answers = []
    for p in (path, nowhere):
        one = [_ask(site, "GET", p), _ask(site, "GET", p, headers={"Cookie": "seat=" + "x" * 32}),
               _ask(site, "GET", f"{p}?fragment=1"), _ask(site, "GET", f"{p}?events=1"),
               _ask(site, "POST", f"{p}/act", body="request=1&action=bid+1")]
        answers.append([(s, _same(b)) for s, _, b in one])
    assert answers[0] == answers[1], "a stranger tells a match that exists from one that does not"
    assert {s for s, _ in answers[0]} == {404}
    # the owner still reads its page
    assert _ask(site, "GET", path, source=OTHER, headers={"Cookie": cookie})[0] == 200
    # Origin: null (a sandboxed frame, a data: page) may not start or act
    s, h, body = _ask(site, "POST", "/play/new", body=urllib.parse.urlencode(START), headers={"Origin": "null"})
    assert s == 403 and "set-cookie" not in h and "may not act" in body
    s, _, _ = _ask(site, "POST", f"{path}/act", source=OTHER, body="request=1&action=bid+1",
                   headers={"Origin": "null", "Cookie": cookie})
    assert s == 403


def test_connections_that_never_finish_their_request_are_closed(site):
    """A slow-loris: 120 connections dribbling a request head, 10 saying nothing, 5 POSTs
    whose body never comes; all closed within 15 s, and the site answers meanwhile."""
    heads, silent, bodies = [], [], []
    for k in range(120):
        s = socket.create_connection(site, timeout=5)
        s.sendall(f"GET /?k={k} HTTP/1.1\r\nHost: x\r\n".encode())
        heads.append(s)
    for _ in range(10):
        silent.append(socket.create_connection(site, timeout=5))
    for _ in range(5):
        s = socket.create_connection(site, timeout=5)
        s.sendall(b"POST /play/new HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                  b"Content-Length: 100\r\n\r\ngame=spa")
        bodies.append(s)
    opened = time.monotonic()
    assert HEADER_SECONDS < 15
    everyone = heads + silent + bodies
    closed: dict[socket.socket, bytes] = {}
    try:
        while len(closed) < len(everyone) and time.monotonic() - opened < 15:
            assert _ask(site, "GET", "/healthz")[0] == 200  # the site answers all along
            for s in heads:  # one more header line each, as a slow-loris does
                if s not in closed:
                    try:
                        s.sendall(b"X-Slow: 1\r\n")
                    except OSError:
                        closed[s] = b""
            ready, _, _ = select.select([s for s in everyone if s not in closed], [], [], 1.0)
            for s in ready:
                try:
                    data = s.recv(4096)
                    while data and not data.endswith(b"\r\n\r\n") and b"\r\n\r\n" not in data:
                        data += s.recv(4096)
                except OSError:
                    data = b""
                closed[s] = data
                if data:  # an answer (408) and then the close
                    try:
                        while s.recv(4096):
                            pass
                    except OSError:
                        pass
        open_ = [s for s in everyone if s not in closed]
        assert not open_, f"{len(open_)} of {len(everyone)} connections still open 15 s after they opened"
        assert all(closed[s].startswith(b"HTTP/1.1 408") for s in bodies), [closed[s][:40] for s in bodies]
        assert not any(closed[s] for s in heads + silent)  # closed without a word: no request came
    finally:
        for s in everyone:
            s.close()
