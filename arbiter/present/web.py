"""The standings web page: tournaments, standings, cross-tables, matches and a replay viewer.

Served by ``arbiter web`` from the SQLite store, read-only: pages are rendered on the
server from the store and the engine (replays step the record through it, verifying),
so the page works without JavaScript and without a network connection; every style is
inline in the page and no asset comes from anywhere else. The page functions
(``index_page``, ``tournament_page``, ``replay_page``, the arena pages) are pure: a store
(and the request's query) in, HTML out.

Stack: a Starlette (ASGI) app on uvicorn (``WebServer``; ``make_app`` for any other ASGI
server): page functions run in worker threads (they read SQLite; /play waits on its
match), a client that goes away mid-response or mid-stream is a normal end of its
request, every request is one line of uvicorn's access log (``verbose``) and an error
one line of this module's log (its traceback only with ``verbose``). Jinja2 templates
(autoescaping, so a bot name can never inject markup) live in this module, so the
package needs no data files. Every response carries ``security_headers``: a CSP whose
only scripts are the page's own (a nonce per response), no framing, no sniffing, no
Referer, nothing cached.

One visitor cannot stall the site (``StreamLimits``): live streams wait on the event loop
(a /play seat's on ``BrowserSeat.wait_async``), never in a worker thread; a client (its
address) holds at most ``MAX_STREAMS_PER_CLIENT`` of them, a /play match's page
``MAX_STREAMS_PER_MATCH``, the server ``MAX_STREAMS``; a client's requests take at most
``MAX_BUSY_PER_CLIENT`` worker threads at once; a connection sends its request head within
``HEADER_SECONDS`` (``_GuardedH11``) and its body within ``BODY_SECONDS``.

Live pages. A page that changes (the lists of tournaments and arenas, a running
tournament's standings, an arena's leaderboard and bot pages, a /play seat) holds the part that changes in one
``<div id="live">…</div>``; that is all a page does to be live. ``LIVE_SCRIPT`` (the one
script, in the base template) then opens the page's event stream, the same URL with
``?events=1`` (server-sent events: an event each time the live part's HTML changes, its
hash as the event's id and the part itself, ``page_fragment``: the inner HTML of #live, as
its data, ``live_event``) and swaps each in as it comes: a change is rendered once, by the
stream, for the viewer the page was rendered for. (``?fragment=1`` answers the live part
alone, its hash in ``X-Live-Hash``, for a page's own script that wants it.) A fragment holding
``data-live-end`` (``LIVE_END``: the tournament finished, the seat's match over and
stored) is final: the stream ends. A page of the store is looked at again when the store
file is written (``_store_stamp``); a seat's page when its match moves
(``play_page.seat_version``, the seat's cookie checked as for the page).

Routes: ``/`` tournaments, ``/t/<id>`` standings + cross-table + matches, ``/t/<id>/bot/<bot>``
a bot's costliest analysed decisions there,
``/m/<match_id>?step=N&view=full|spectator|seatK`` the replay viewer (the card table of
``arbiter.present.table``, as /play draws it, for the viewed seat at the bottom, seat 0
for every hand and the spectator, its partner named as that seat's; it opens on the first
decision, every hand shown, unless the query says otherwise); arenas
(``arbiter arena``): ``/a`` the arenas, ``/a/<name>`` a live leaderboard,
``/a/<name>/bot/<bot>`` a bot's rating history (an SVG chart drawn here), encounters and
failures, ``/a/<name>/m/<match_id>`` a replay of a finished encounter; ``/play/history`` the
matches played one at a time (kept out of the tournaments' list); ``/play`` a person
plays a seat against bots (``arbiter.present.play_page``: the only pages that write, each
finished match's record, to the store); ``/healthz``.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import hashlib
import html
import logging
import os
import re
import secrets
import signal
import socket
import threading
import urllib.parse
from shlex import quote
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterator

import anyio
import anyio.to_thread
import jinja2
import uvicorn
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol

from cardarena.games import Card, Game, get_game
from cardarena.records import MatchRecord, number
from cardarena.replay import ReplayError
from cardarena.replay import ReplayStep, step_record
from arbiter.present.export import (
    ARENA_SCALE, NOT_HOSTED, NOT_HOSTED_LABEL, seed_text, ladder_interval_text, los_text, margin_header, margin_text, sentence, standings_notes,
)
from arbiter.present.table import TABLE_STYLE, render_table, shown, table_model
from arbiter.present.watching import now_playing
from arbiter.present.played import (THINK_COLUMNS, THINK_NOTE, cross_rates, describe, interrupted_text,
                                    stopped_early_text, team_rows, think_cells)
from arbiter.present import inspector, play_page as play
from arbiter.person.tables import HUMAN
from arbiter.server import host_port
from arbiter.store.arenas import ArenaMatch, ArenaRow, Arenas, EncounterRow
from arbiter.store.db import READ_ERRORS, STOPPED_EARLY, MatchRow, Store, StoreError, TournamentRow, run_holder
from cardarena import disclosure
from arbiter.arena import matchmaking
from arbiter.rating.ratings import RATING_METHOD, forfeit_stake
from arbiter.batch.single import is_play_name
from arbiter.tournament.run import counted_matches, counted_think_times, shown_seed, standings
from arbiter.tournament.spec import TournamentSpec, entrant_names

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------
# The store, read-only.


def check_store(path: str | os.PathLike) -> Path:
    """The store file, checked readable (read-only: the web server never writes, so it
    serves an archived store on a read-only file, folder or filesystem); StoreError if it
    is missing or unusable."""
    p = Path(path)
    if not p.exists():
        raise StoreError(f"no store at {p} (run a tournament first, or `make demo`, or pass --db)")
    open_read_only(p).close()
    return p


def open_read_only(path: Path) -> Store:
    """A Store whose connection cannot write (SQLite ``mode=ro``), for serving pages."""
    return Store(path, read_only=True)


# --------------------------------------------------------------------------------------
# Standings.


@dataclass
class PageRow:
    """One bot's (or partnership's) line of the page's standings table, as shown (the
    numbers are ``arbiter.rating.ratings.StandingRow``'s, the one computation)."""

    name: str
    matches: int = 0
    wins: float = 0
    draws: float = 0
    losses: float = 0
    score: float = 0.0  # share of the pairwise points, 0..1
    rating: float | None = None
    rating_lo: float | None = None
    rating_hi: float | None = None
    forfeits: int = 0
    extra: dict[str, str] = field(default_factory=dict)
    rank: int = 0  # ``team_rows``'s: rows level on every number share one (1, 1, 3)
    members: tuple[str, ...] = ()  # the bots of the line: one, or a named team's partners


@dataclass
class PageStandings:
    """The standings as the page shows them (``tournament_standings``), from
    ``arbiter.rating.ratings.Standings``."""

    rows: list[PageRow]
    cross: dict[tuple[str, str], float]  # (row bot, column bot) -> row bot's score share
    method: str  # how the ratings were computed, shown under the table
    notes: list[tuple[str, str]] = field(default_factory=list)  # (id, sentence): the order, columns, scale
    counted: disclosure.Counted | None = None  # the matches the table adds up (counted_matches), and the list lists


def tournament_standings(store: Store, tour: TournamentRow) -> tuple[PageStandings, list[MatchRow]]:
    """The tournament's standings (``arbiter.rating.ratings``, the one computation) as
    the page's table, and its stored matches (all of them, for the count of matches played: the
    table adds up and the list of matches lists only those ``counted_matches`` counts, whole
    deals while the tournament is closed)."""
    spec = TournamentSpec.from_json(tour.spec)
    game = spec.validate_game()  # a spec that cannot be read is this page's error (logged), not the store's
    with store.snapshot():  # the think times of the matches in the table, not of one stored since
        rows = store.matches(tour.id)
        counted = counted_matches(store, tour, rows)
        times = counted_think_times(store, tour, counted)
    st = standings(counted.rows, game, spec.duplicate, entrant_names(store, tour.id, spec.bots))
    out = []
    shown = team_rows(st, spec.teams)  # one row per named partnership
    for d in shown:
        r = d.row
        extra = {margin_header(st): margin_text(st, r)}  # one margin column (with duplicate deals: ± s.e.)
        if d.los_next is not None:
            extra["LOS over next"] = los_text(d.los_next)
        if times:  # how much of the clock was the bot's (played.THINK_NOTE)
            extra.update(zip(THINK_COLUMNS, think_cells(times, d.members)))
        out.append(PageRow(
            d.label, r.matches, r.wins, r.draws, r.losses, r.score_rate,
            r.rating.value if r.rating else None, r.rating.low if r.rating and r.rating.interval else None,
            r.rating.high if r.rating and r.rating.interval else None,
            d.forfeits, extra, d.rank, tuple(d.members),
        ))
    cross = cross_rates(st, shown)
    method = RATING_METHOD
    verdict = store.verdict(tour.id)  # a stored evaluation's: its notes say it, as the CLI's and the exports' do
    info = {**tour.spec, "verdict": verdict and verdict.text, "counted": counted.to_json()}
    return PageStandings(out, cross, method, standings_notes(st, info), counted), rows


# --------------------------------------------------------------------------------------
# Replays, cached: stepping a long match on every click would redo the same work.


@dataclass(frozen=True)
class ReplayPage:
    record: MatchRecord
    steps: tuple[ReplayStep, ...]
    error: str  # empty when the whole record verified


@functools.lru_cache(maxsize=16)
def _replay(path: str, match_id: str, seat: int | None, full: bool) -> ReplayPage:
    store = open_read_only(Path(path))
    try:
        record, _ = store.read_match(match_id)  # shown only after _read_match allowed it
    finally:
        store.close()
    return _stepped(record, seat, full)


def _stepped(record: Any, seat: int | None, full: bool) -> ReplayPage:
    """The replay page's steps of a record as ``seat`` (None: a spectator) or in full; a
    record that does not replay keeps the steps up to the fault and says why."""
    steps: list[ReplayStep] = []
    error = ""
    try:
        for s in step_record(record, seat, full):
            steps.append(s)
    except ReplayError as exc:
        error = str(exc)
    return ReplayPage(record, tuple(steps), error)


# --------------------------------------------------------------------------------------
# Templates.

_SUITS = {"S": ("♠", "black"), "H": ("♥", "red"), "D": ("♦", "red"), "C": ("♣", "black")}


def card_html(card: Card) -> Markup:
    token = str(card)
    if token == "JK":
        return Markup('<span class="card joker" title="joker">JK</span>')
    sym, colour = _SUITS[token[-1]]
    return Markup(
        f'<span class="card {colour}" title="{html.escape(token)}" data-card="{html.escape(token)}">'
        f"{html.escape(token[:-1])}{sym}</span>"
    )


_BASE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{% block title %}Card Arena{% endblock %}</title>{% block head %}{% endblock %}
<style>
:root { --fg:#1d2330; --muted:#667085; --line:#e4e7ec; --bg:#f8f9fb; --accent:#2f5bd3; --red:#c62828; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color:var(--fg); background:var(--bg); }
header { background:#1d2330; color:#fff; padding:10px 24px; display:flex; gap:18px; align-items:baseline; }
header a { color:#fff; text-decoration:none; font-weight:600; }
header .crumbs a { font-weight:400; color:#c9d3ff; text-decoration:underline; }
main { max-width:1180px; margin:0 auto; padding:18px 24px 48px; }
h1 { font-size:22px; margin:8px 0 4px; } h2 { font-size:17px; margin:26px 0 8px; }
.muted { color:var(--muted); } .small { font-size:13px; }
table { border-collapse:collapse; background:#fff; border:1px solid var(--line); border-radius:6px; }
th, td { padding:6px 10px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
th { background:#f1f3f7; font-weight:600; font-size:13px; color:#344054; }
td.num, th.num { text-align:right; font-variant-numeric: tabular-nums; }
tr:last-child td { border-bottom:none; }
a { color:var(--accent); }
.card { display:inline-block; min-width:30px; padding:2px 4px; margin:1px; border:1px solid #c5cad3; border-radius:4px;
        background:#fff; text-align:center; font-weight:600; font-variant-numeric: tabular-nums; }
.card.red { color:var(--red); } .card.black { color:#111; } .card.joker { color:#7b1fa2; }
.card.back { background:repeating-linear-gradient(45deg,#3b5bb5,#3b5bb5 3px,#5a78cc 3px,#5a78cc 6px); border-color:#2d4690; color:transparent; }
.pill { display:inline-block; padding:1px 8px; border-radius:10px; background:#eef2ff; color:#3538cd; font-size:12px; }
.pill.done { background:#ecfdf3; color:#027a48; } .pill.bad { background:#fef3f2; color:#b42318; }
.nav { display:flex; gap:8px; align-items:center; margin:10px 0; flex-wrap:wrap; }
.nav a, .nav span.off { padding:4px 10px; border:1px solid var(--line); border-radius:5px; background:#fff; text-decoration:none; }
.nav span.off { color:#b0b6c0; }
.nav a.on { background:var(--accent); color:#fff; border-color:var(--accent); }
.layout { display:grid; grid-template-columns: minmax(0,1fr) 260px; gap:18px; }
.steps { max-height:640px; overflow:auto; background:#fff; border:1px solid var(--line); border-radius:6px; font-size:13px; }
.steps a { display:block; padding:2px 8px; text-decoration:none; color:var(--fg); white-space:nowrap; }
.steps a.cur { background:#eef2ff; font-weight:600; }
.events { margin:6px 0 12px; padding-left:18px; color:#175cd3; }
.error { background:#fef3f2; border:1px solid #fecdca; color:#912018; padding:8px 12px; border-radius:6px; }
.ok { color:#027a48; }
dl.played { display:grid; grid-template-columns:max-content 1fr; gap:2px 14px; margin:8px 0 4px; }
dl.played dt { color:var(--muted); } dl.played dd { margin:0; }
pre.stderr { background:#f8f9fb; border:1px solid var(--line); padding:6px 8px; font-size:12px; max-height:220px; overflow:auto; white-space:pre-wrap; }
.board td.label { white-space:nowrap; }
.board td.section { background:#f8f9fb; font-weight:600; color:#344054; }
/* a tournament's name has no length limit: a long one wraps instead of pushing the page sideways */
/* a table wider than the window (many bots, long names, a phone) scrolls in its own box, not the whole page */
.wide { max-width:100%; overflow-x:auto; }
body { overflow-wrap:break-word; } header .crumbs { min-width:0; overflow-wrap:anywhere; } #tournaments td:first-child { overflow-wrap:anywhere; }
@media (max-width:700px) { main { padding:10px 8px 32px; } .phone-hide { display:none; } th, td { padding:5px 6px; } }
</style></head>
<body><header><a href="/">Card Arena</a><span class="crumbs">{% block crumbs %}{% endblock %}</span></header>
<main>{% block body %}{% endblock %}</main>
<script nonce="{{ csp_nonce() }}">{{ live_script }}</script></body></html>
"""

_INDEX = """{% extends "base" %}
{% block title %}Tournaments · Card Arena{% endblock %}
{% block body %}
<h1>Tournaments</h1>
<p class="muted small">From {{ db }}. <a href="/play" id="play-link">Play a seat against bots</a>{% if played %}
· <a href="/play/history" id="played-link">{{ played }} match{{ '' if played == 1 else 'es' }} played at /play and with <code>arbiter play</code></a>{% endif %}{% if arenas %}
· <a href="/a" id="arenas-link">{{ arenas|length }} arena{{ '' if arenas|length == 1 else 's' }}</a> ({{ arenas|join(', ') }}){% endif %}.</p>
<div id="live">{% if not tournaments %}<p>No tournaments yet: run <code>arbiter tournament run</code> (or <code>make demo</code>).</p>{% else %}
<table id="tournaments"><tr><th>name</th><th>game</th><th>bots</th><th class="num">matches</th><th>state</th></tr>
{% for t in tournaments %}
<tr><td><a href="/t/{{ t.id }}">{{ t.name }}</a></td><td>{{ t.game }}</td><td>{{ bots[t.id] }}</td>
<td class="num">{{ done[t.id] }}{% if t.planned %} / {{ t.planned }}{% endif %}</td>
<td>{% if t.finished %}<span class="pill done">{{ states[t.id] }}</span>{% else %}<span class="pill">{{ states[t.id] }}</span>{% endif %}</td></tr>
{% endfor %}</table>{% endif %}</div>
{% endblock %}
"""

_PLAYED = """{% extends "base" %}
{% block title %}Matches played · Card Arena{% endblock %}
{% block crumbs %}/ <a href="/play">play</a> / history{% endblock %}
{% block body %}
<h1>Matches played one at a time</h1>
<p class="muted">At <a href="/play">/play</a> (a person at a seat, shown as <em>you</em>) and with <code>arbiter play</code>:
single matches, not a tournament, so they are in no standings. Each replays like any other.</p>
{% if not matches %}<p id="none">None yet: <a href="/play">play a seat against bots</a>.</p>{% else %}
<table id="played-matches"><tr><th>game</th><th>match</th><th>seats</th><th>scores</th><th>ended</th></tr>
{% for t, m in matches %}<tr class="played-match"><td>{{ t.name[5:] }}</td><td><a href="/m/{{ m.match_id|urlencode }}">{{ m.match_id }}</a></td>
<td>{% for s in m.seats %}{{ 'you' if s == person else s }}{{ ', ' if not loop.last else '' }}{% endfor %}</td>
<td>{{ m.outcome.scores|map('num')|join(' / ') }}</td><td>{{ m.outcome.reason.value }}</td></tr>{% endfor %}</table>{% endif %}
{% endblock %}
"""

_TOURNAMENT = """{% extends "base" %}
{% block title %}{{ t.name }} · Card Arena{% endblock %}
{% block head %}{{ table_style }}{% endblock %}
{% block crumbs %}/ {{ t.name }}{% endblock %}
{% block body %}
<h1>{{ t.name }}</h1>
<div id="live">{% if not running %}<span data-live-end></span>{% endif %}
<p class="muted">{{ t.game }} · {{ rows|length }} matches{% if t.planned %} of {{ t.planned }}{% endif %}
{% if t.finished %} · <span class="pill done">{{ state or "finished" }}</span>{% elif state %} · <span class="pill">{{ state }}</span>{% endif %}
{% if interrupted %}<br><span class="small" id="interrupted">{{ interrupted }}</span>{% endif %}
{% if early %}<br><span class="small" id="stopped-early">{{ early }}</span>{% endif %}
{% if running and state != "interrupted" %} · <span class="small" id="refreshing">this page updates by itself while the tournament runs</span>{% endif %}</p>
{% if playing is not none %}<p id="now-playing">Now playing{% if not playing %}: between matches{% endif %}
{% for m in playing %}<span class="pill live-match" data-match="{{ m.match_id }}">{{ m.seats|join(' · ') }}{% if m.steps is not none %}: {{ m.steps }} decisions{% endif %}</span> {% endfor %}
<span class="muted small">(watch it move: <code>arbiter watch --db {{ db|string|shell }}</code>)</span></p>
{% if playing and closed %}<p class="muted small" id="tables-withheld">The tables are not shown while the tournament runs: {{ closed_reason }}.</p>
{% elif playing %}<p class="muted small" id="tables-late">Each table as it stood {{ live_delay|round|int }} s ago (public cards only).</p>{% endif %}
{% for m in playing %}{% if m.table %}<div class="live-table" data-match="{{ m.match_id }}" data-shown="{{ m.shown }}">{{ m.table }}</div>{% endif %}{% endfor %}{% endif %}
<dl class="played" id="played">
{% for label, text in played.lines() %}<dt>{{ label }}</dt><dd id="played-{{ label }}">{{ text }}</dd>
{% endfor %}{% if seed %}<dt>seed</dt><dd id="played-seed">{{ seed }}</dd>{% endif %}</dl>
{% if entrants %}<h2>Entrants</h2>
<div class="wide" tabindex="0" role="region" aria-label="entrants"><table id="entrants"><tr><th>bot</th><th>version</th><th>spec</th>{% if team_of %}<th>team</th>{% endif %}</tr>
{% for e in entrants %}<tr class="entrant"><td class="bot"><strong>{{ e.name }}</strong></td><td class="version">{{ e.version or '–' }}</td>
<td class="muted small">{{ e.spec }}</td>{% if team_of %}<td>{{ team_of.get(e.name, '') }}</td>{% endif %}</tr>
{% endfor %}</table></div>{% endif %}
<h2>Standings</h2>
<div class="wide" tabindex="0" role="region" aria-label="standings"><table id="standings"><tr><th class="num">#</th><th>bot</th><th class="num">matches</th><th class="num">W</th><th class="num">D</th>
<th class="num">L</th><th class="num">score %</th><th class="num">rating</th><th class="num">95% interval</th>
{% for k in extra_cols %}<th class="num">{{ k }}</th>{% endfor %}<th class="num">forfeits</th></tr>
{% for s in st.rows %}
<tr class="standing" data-bot="{{ s.name }}" data-rating="{{ '%.0f'|format(s.rating) if s.rating is not none else '' }}">
<td class="num">{{ s.rank }}</td><td class="bot"><strong><a href="/t/{{ t.id }}/bot/{{ s.name|urlencode }}">{{ s.name }}</a></strong></td><td class="num">{{ s.matches }}</td>
<td class="num">{{ s.wins|num }}</td><td class="num">{{ s.draws|num }}</td><td class="num">{{ s.losses|num }}</td>
<td class="num">{{ '%.1f'|format(100 * s.score) if s.matches else '–' }}</td>
<td class="num rating">{{ '%.0f'|format(s.rating) if s.rating is not none else '–' }}</td>
<td class="num">{% if s.rating_lo is not none %}{{ '%.0f'|format(s.rating_lo) }} – {{ '%.0f'|format(s.rating_hi) }}{% elif s.rating is not none %}too few deals{% else %}–{% endif %}</td>
{% for k in extra_cols %}<td class="num">{{ s.extra.get(k, '') }}</td>{% endfor %}<td class="num">{{ s.forfeits }}</td></tr>
{% endfor %}</table></div>
<div class="muted small" id="standings-notes">{% for key, note in st.notes %}<p id="{{ key }}" class="note">{{ note }}</p>{% endfor %}
<p class="note" id="rating-method">Rating method: {{ st.method }}.</p></div>
{% if "think ms" in extra_cols %}<p class="muted small" id="think-note">{{ think_note }}.</p>{% endif %}
{% if st.rows|length > 1 %}
<h2>Cross-table</h2>
<div class="wide" tabindex="0" role="region" aria-label="cross-table"><table id="crosstable"><tr><th>score % of the row bot against</th>{% for c in st.rows %}<th class="num">{{ c.name }}</th>{% endfor %}</tr>
{% for r in st.rows %}<tr><th>{{ r.name }}</th>{% for c in st.rows %}
<td class="num">{% if r.name == c.name %}–{% elif (r.name, c.name) in st.cross %}{{ '%.0f'|format(100 * st.cross[(r.name, c.name)]) }}{% endif %}</td>
{% endfor %}</tr>{% endfor %}</table></div>
{% endif %}
<h2>Matches</h2>
{% if closed %}<p class="muted small">Replays open when the tournament ends, and so does each seating's result; a match is listed here, with how it ended and its incidents, once its deal counts: {{ closed_reason }}.</p>{% endif %}
{% if unlisted %}<p class="muted small" id="unlisted">{{ unlisted }}.</p>
{% elif not listed %}<p id="no-matches">No match has finished yet{% if state == 'interrupted' %}: the run stopped before its first result{% elif not t.finished %}: they are listed here as they end{% endif %}.</p>{% endif %}
<div class="wide" tabindex="0" role="region" aria-label="matches"{% if not listed %} hidden{% endif %}><table id="matches"{% if not listed %} hidden{% endif %}><tr><th class="num">#</th><th>match</th><th>seats</th><th>scores</th><th>ranks</th><th>ended</th></tr>
{% for m in listed %}
<tr><td class="num">{{ m.idx }}</td><td>{% if closed %}{{ m.match_id }}{% else %}<a href="/m/{{ m.match_id|urlencode }}">{{ m.match_id }}</a>{% endif %}</td>
<td>{{ m.seats|join(', ') }}</td>{% if closed %}<td class="muted">withheld</td><td class="muted">withheld</td>{% else %}<td>{{ m.outcome.scores|map('num')|join(' / ') }}</td><td>{{ m.outcome.ranks|join(' / ') }}</td>{% endif %}
<td>{% if m.outcome.reason.is_forfeit %}<span class="pill bad">{{ m.outcome.reason.value }}</span>{% else %}{{ m.outcome.reason.value }}{% endif %}
{% if not closed or m.outcome.reason.is_forfeit %}<span class="muted small">{{ m.outcome.detail }}</span>{% endif %}
{% if m.incidents %}<br><span class="small incidents">incidents: {{ incidents(m) }}</span>{% endif %}</td></tr>
{% endfor %}</table></div>
</div>
{% endblock %}
"""

_REPLAY = """{% extends "base" %}
{% block title %}Replay {{ r.match_id }} · Card Arena{% endblock %}
{% block head %}{{ table_style }}{% endblock %}
{% block crumbs %}{% if tour %}/ <a href="/t/{{ tour.id }}">{{ tour.name }}</a> {% elif arena %}/ <a href="/a">arenas</a> / <a href="/a/{{ arena.name|urlencode }}">{{ arena.name }}</a> {% endif %}/ {{ r.match_id }}{% endblock %}
{% block body %}
<h1>{{ r.game }} · match {{ r.match_id }}</h1>
<p class="muted">seed {{ r.seed }} · {{ r.seat_names|map('e')|join(', ') }} ·
{% if error %}<span class="pill bad">does not replay</span>
{% elif forfeit %}<span class="pill bad" id="forfeit">{{ r.outcome.reason.value }}</span> {% if r.actions %}the {{ r.actions|length }} action{{ '' if r.actions|length == 1 else 's' }} before it replay{% else %}it came before any action{% endif %}; the result is the arbiter's ruling, not the game's
{% else %}<span class="ok" id="verified">replay verified: {{ r.actions|length }} actions reproduce the result</span>{% endif %}</p>
{% if error %}<p class="error" id="replay-error">Replay failed: {{ error }}</p>{% endif %}
{% if forfeit %}<div class="error" id="forfeit-reason"><strong>{{ 'Forfeit' if r.outcome.reason.is_forfeit else 'Stopped by the arbiter' }} ({{ r.outcome.reason.value }})</strong>: {{ r.outcome.detail or 'no detail recorded' }}
{% for i in r.incidents %}<p class="incident">seat {{ i.seat }} ({{ r.seat_names[i.seat] if i.seat < r.seat_names|length else '?' }}): {{ i.kind }}: {{ i.detail }}</p>
{% if i.stderr %}<pre class="stderr">{{ i.stderr }}</pre>{% endif %}{% endfor %}</div>
{% elif r.incidents %}<div id="incidents"><p class="muted small">Incidents (the match went on under its failure policy):</p>
{% for i in r.incidents %}<p class="incident small">seat {{ i.seat }}: {{ i.kind }}: {{ i.detail }}</p>{% endfor %}</div>{% endif %}
<div class="nav" id="views">seen as:
{% for key, label in views %}<a href="{{ url(step=step.index, view=key) }}" class="{{ 'on' if key == view else '' }}">{{ label }}</a>{% endfor %}
<span class="muted small">· inspect a seat's decisions:</span>{% for s in range(r.seat_names|length) %}<a class="inspect" href="/m/{{ r.match_id|urlencode }}/inspect?seat={{ s }}">seat {{ s }}</a>{% endfor %}
</div>
<div class="nav" id="stepnav">
{% if step.index > 0 %}<a id="first" href="{{ url(step=0) }}">« first</a><a id="prev" href="{{ url(step=step.index - 1) }}" rel="prev">◀ prev</a>
{% else %}<span class="off">« first</span><span class="off">◀ prev</span>{% endif %}
<span>step <strong id="step-index">{{ step.index }}</strong> of <span id="step-total">{{ last }}</span></span>
{% if step.index < last %}<a id="next" href="{{ url(step=step.index + 1) }}" rel="next">next ▶</a><a id="last" href="{{ url(step=last) }}">last »</a>
{% else %}<span class="off">next ▶</span><span class="off">last »</span>{% endif %}
</div>
<div class="layout"><div>
<h2 id="step-title">{{ title }}</h2>
<p class="muted small" id="table-status">{{ table.status }}</p>
{{ felt }}
{% if step.events %}<ul class="events">{% for e in step.events %}<li>{{ e.text }}</li>{% endfor %}</ul>{% endif %}
{% if step.outcome %}<h2>Result</h2><table id="result"><tr><th>seat</th><th>bot</th><th class="num">score</th><th class="num">rank</th></tr>
{% for s in range(r.seat_names|length) %}<tr><td>{{ s }}</td><td>{{ r.seat_names[s] }}</td><td class="num">{{ step.outcome.scores[s]|num }}</td><td class="num">{{ step.outcome.ranks[s] }}</td></tr>{% endfor %}
</table><p class="muted small">{{ step.outcome.reason.value }}: {{ step.outcome.detail }}</p>{% endif %}
</div>
<div><h2>Steps</h2><div class="steps" id="steplist">
{% for s in steps %}<a href="{{ url(step=s.index) }}" class="{{ 'cur' if s.index == step.index else '' }}">{{ s.index }}. {% if s.index == 0 %}the deal{% else %}seat {{ s.seat }}: {{ s.action }}{% endif %}</a>{% endfor %}
</div></div></div>
<script nonce="{{ csp_nonce() }}">
document.addEventListener("keydown", function (e) {
  var id = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last"}[e.key];
  var a = id && document.getElementById(id);
  if (a) { window.location = a.href; }
});
var cur = document.querySelector(".steps a.cur"), list = document.getElementById("steplist");
if (cur) { list.scrollTop = cur.offsetTop - list.offsetTop - list.clientHeight / 2; }  // the list only, not the page
</script>
{% endblock %}
"""

_ERROR = """{% extends "base" %}
{% block title %}{{ status }} · Card Arena{% endblock %}
{% block body %}<h1>{{ status }}</h1><p class="error">{{ message }}</p><p><a href="/">All tournaments</a></p>{% endblock %}
"""


_ARENAS = """{% extends "base" %}
{% block title %}Arenas · Card Arena{% endblock %}
{% block crumbs %}/ arenas{% endblock %}
{% block body %}
<h1>Arenas</h1>
<div id="live">{% if not arenas %}<p>No arena yet: start one with <code>arbiter arena</code>.</p>{% else %}
<table id="arenas"><tr><th>arena</th><th>game</th><th class="num">active bots</th><th class="num">encounters</th></tr>
{% for a, active, n in arenas %}<tr><td><a href="/a/{{ a.name|urlencode }}">{{ a.name }}</a></td><td>{{ a.game }}</td>
<td class="num">{{ active }}</td><td class="num">{{ n }}</td></tr>{% endfor %}</table>{% endif %}</div>
{% endblock %}
"""

_ARENA = """{% extends "base" %}
{% block title %}{{ a.name }}{{ '' if 'ladder' in a.name|lower else ' ladder' }} · Card Arena{% endblock %}
{% block crumbs %}/ <a href="/a">arenas</a> / {{ a.name }}{% endblock %}
{% block body %}
<h1>{{ a.name }}</h1>
<div id="live">
{% set remote = a.spec.get('division') == 'remote' %}
<p class="muted">{{ a.game }} ladder · {% if remote %}every seating of an encounter on a fresh deal{% else %}{{ a.spec.deals }} deal{{ '' if a.spec.deals == 1 else 's' }} per encounter, each in every seating{% endif %} ·
{{ done }} encounters, {{ matches }} matches · <span class="small" id="refreshing">this page updates by itself</span></p>
{% if remote %}<p id="not-hosted"><span class="pill">{{ not_hosted_label }}</span> {{ not_hosted }}</p>{% endif %}
{% if playing %}<p id="playing">Now playing: {% for e in playing %}<span class="pill">{{ e.players|join(' vs ') }}</span> {% endfor %}</p>{% endif %}
{% if cut_off %}<p class="muted" id="cut-off">Not running: its process stopped while it played {% for e in cut_off %}<span class="pill">{{ e.players|join(' vs ') }}</span> {% endfor %}(cut off: abandoned, never counted, when the arena starts again).</p>{% endif %}
<h2>Leaderboard</h2>
{% if not ranked %}<p id="empty">No bot in the ladder yet: {% if remote %}connect one (<code>python -m sdk --bot BOT --address ADDRESS --token BOT_TOKEN</code>){% else %}submit one (<code>arbiter bots submit DIR --server ADDRESS --token AUTHOR_TOKEN</code>){% endif %}.</p>{% else %}
<table id="leaderboard"><tr><th class="num">#</th><th>bot</th><th class="phone-hide">version</th><th class="num">rating</th><th class="num phone-hide">95% interval</th>
<th class="num phone-hide">LOS over next</th><th class="num">encounters</th><th class="num phone-hide">matches</th><th class="num phone-hide">forfeits</th></tr>
{% for r in ranked %}<tr class="ladder-row" data-bot="{{ r.name }}" data-player="{{ r.player }}">
<td class="num">{{ r.rank }}</td><td class="bot"><a href="/a/{{ a.name|urlencode }}/bot/{{ r.name|urlencode }}"><strong>{{ r.name }}</strong></a></td>
<td class="version phone-hide">{% if remote %}<span class="pill not-hosted">not hosted</span>{% else %}{{ r.version }}{% endif %}</td><td class="num rating">{{ '%.2f'|format(r.mu) }}</td>
<td class="num interval phone-hide">{{ r|ladder_interval }}</td>
<td class="num los phone-hide">{{ r.los_next|los if r.los_next is not none else '' }}</td>
<td class="num encounters">{{ r.encounters }}</td><td class="num phone-hide">{{ r.matches }}</td><td class="num failures phone-hide">{{ r.failures }}</td></tr>{% endfor %}
</table>{% endif %}
<p class="muted small" id="rating-scale">{{ scale }}.</p>
<p class="muted small">Ranked by rating: Weng-Lin Plackett-Luce (openskill) updated after every encounter, one result per deal
(points over its seatings, ties broken by the score margin, in which a forfeit counts as a loss by {{ "%g"|format(stake) }}, the widest the rules allow); interval μ ± 1.96σ; LOS: the likelihood of superiority over the next row.</p>
{% if others %}<h2>Not ranked: candidates, rejected, replaced, suspended and withdrawn versions</h2>
<table id="others"><tr><th>bot</th><th class="phone-hide">version</th><th>status</th><th>why</th><th class="num phone-hide">rating</th><th class="num phone-hide">encounters</th></tr>
{% for r in others %}<tr class="other-row" data-player="{{ r.player }}"><td><a href="/a/{{ a.name|urlencode }}/bot/{{ r.name|urlencode }}">{{ r.name }}</a></td>
<td class="phone-hide">{{ r.version }}</td><td><span class="pill {{ 'bad' if r.status == 'suspended' else '' }} status">{{ r.status }}</span></td>
<td class="small reason">{{ r.reason }}</td><td class="num phone-hide">{{ '%.2f'|format(r.mu) }}</td><td class="num phone-hide">{{ r.encounters }}</td></tr>{% endfor %}</table>{% endif %}
<h2>Recent encounters</h2>
{% if not recent %}<p class="muted">None yet.</p>{% else %}
<table id="encounters"><tr><th class="num">#</th><th>table</th><th>points per deal</th><th>replays</th></tr>
{% for e, pts, ms in recent %}<tr class="encounter"><td class="num">{{ e.seq }}</td><td>{{ e.players|join(' vs ') }}</td>
<td>{% for p in e.players %}{{ p }} {{ '%.2f'|format(pts.get(p, 0)) }}{{ ', ' if not loop.last else '' }}{% endfor %}</td>
<td>{% for m in ms %}<a class="replay" href="/a/{{ a.name|urlencode }}/m/{{ m.match_id|urlencode }}">{{ m.k + 1 }}</a> {% endfor %}</td></tr>{% endfor %}
</table>{% endif %}
</div>
{% endblock %}
"""

_ARENA_BOT = """{% extends "base" %}
{% block title %}{{ name }} · {{ a.name }} · Card Arena{% endblock %}
{% block crumbs %}/ <a href="/a">arenas</a> / <a href="/a/{{ a.name|urlencode }}">{{ a.name }}</a> / {{ name }}{% endblock %}
{% block body %}
{% set remote = a.spec.get('division') == 'remote' %}
<h1>{{ name }}</h1>
<div id="live">
<p class="muted">{% if remote %}remote division: runs on its author's machine, not hosted{% else %}by {{ current.author }} · version {{ current.version }}{% endif %} ·
<span class="pill {{ 'done' if current.status == 'active' else ('bad' if current.status == 'suspended' else '') }}" id="status">{{ current.status }}</span>
{% if current.status == 'active' %} · rating {{ '%.2f'|format(current.mu) }} ± {{ '%.2f'|format(1.96 * current.sigma) }}{% endif %}</p>
{% if current.status == 'suspended' %}<div class="error" id="suspended"><strong>Suspended</strong>: {{ current.reason }}.
{% if remote %}It plays again once it connects anew (its author restarts it with its bot token: <code>python -m sdk --bot BOT --name {{ name }} --address ADDRESS</code>).
{% elif current.author == 'house' %}It plays again when the arena is restarted (a house bot has no new versions: its operator mends what made it forfeit first).
{% else %}It plays again once a new version is registered (<code>arbiter bots submit ... --version NEW</code>).{% endif %}</div>
{% elif current.reason %}<p class="muted" id="reason">{{ current.reason }}</p>{% endif %}
<h2>Rating history</h2>
{{ chart }}
<p class="muted small" id="rating-scale">{{ scale }}.</p>
<h2>Versions</h2>
<div class="wide" tabindex="0" role="region" aria-label="versions"><table id="versions"><tr><th>version</th><th>status</th><th class="num">rating</th><th class="num">95% interval</th><th class="num">encounters</th><th class="num">matches</th><th class="num">forfeits</th><th>why</th></tr>
{% for v in versions %}<tr><td>{{ v.version }}</td><td>{{ v.status }}</td><td class="num">{{ '%.2f'|format(v.mu) }}</td>
<td class="num">{{ '%.2f'|format(v.mu - 1.96 * v.sigma) }} – {{ '%.2f'|format(v.mu + 1.96 * v.sigma) }}</td><td class="num">{{ v.encounters }}</td>
<td class="num">{{ v.matches }}</td><td class="num">{{ v.failures }}</td><td class="small">{{ v.reason }}</td></tr>{% endfor %}</table></div>
{% if think %}<h2>Think time</h2>
<div class="wide" tabindex="0" role="region" aria-label="think times"><table id="think-times"><tr><th>version</th>{% for c in think_columns %}<th class="num">{{ c }}</th>{% endfor %}</tr>
{% for version, cells in think %}<tr class="think"><td>{{ version }}</td>{% for c in cells %}<td class="num">{{ c }}</td>{% endfor %}</tr>{% endfor %}</table></div>
<p class="muted small" id="think-note">{{ think_note }}.</p>{% endif %}
<h2>Recent encounters</h2>
{% if not recent %}<p class="muted">None yet.</p>{% else %}
<div class="wide" tabindex="0" role="region" aria-label="encounters"><table id="bot-encounters"><tr><th class="num">#</th><th>version</th><th>against</th><th class="num">points per deal</th><th class="num">rating after</th><th>replays</th></tr>
{% for e, me, pts, ms in recent %}<tr class="encounter"><td class="num">{{ e.seq }}</td><td>{{ me.split('@')[-1] if '@' in me else ('remote' if remote else 'house') }}</td>
<td>{{ e.players|reject('equalto', me)|join(', ') }}</td><td class="num">{{ '%.2f'|format(pts.get(me, 0)) }}</td>
<td class="num">{{ '%.2f'|format(e.ratings[me][0]) if me in e.ratings else '' }}</td>
<td>{% for m in ms %}<a class="replay" href="/a/{{ a.name|urlencode }}/m/{{ m.match_id|urlencode }}">{{ m.k + 1 }}</a> {% endfor %}</td></tr>{% endfor %}
</table></div>{% endif %}
{{ costly }}
<h2>Failures</h2>
{% if not failures %}<p class="muted" id="no-failures">No forfeit.</p>{% else %}
<div class="wide" tabindex="0" role="region" aria-label="failures"><table id="failures"><tr><th class="num">#</th><th>version</th><th>what happened</th></tr>
{% for e, me, why, stderr in failures %}<tr class="failure"><td class="num">{{ e.seq }}</td><td>{{ me }}</td><td>{{ why }}
{% if stderr %}<pre class="stderr">{{ stderr }}</pre>{% endif %}</td></tr>{% endfor %}</table></div>{% endif %}
</div>
{% endblock %}
"""


_TOURNAMENT_BOT = """{% extends "base" %}
{% block title %}{{ name }} · {{ t.name }} · Card Arena{% endblock %}
{% block crumbs %}/ <a href="/t/{{ t.id }}">{{ t.name }}</a> / {{ name }}{% endblock %}
{% block body %}
<h1>{{ name }}</h1>
<div id="live">{% if not running %}<span data-live-end></span>{% endif %}
<p class="muted">{{ t.game }} · tournament <a href="/t/{{ t.id }}">{{ t.name }}</a>{% if s %} · {{ s.matches }} matches ·
{{ s.wins|num }} won, {{ s.draws|num }} drawn, {{ s.losses|num }} lost{% if s.rating is not none %} · rating {{ '%.0f'|format(s.rating) }}{% endif %}
{% if s.forfeits %} · <span class="pill bad" id="forfeit-count">{{ s.forfeits }} forfeit{{ '' if s.forfeits == 1 else 's' }}</span>{% endif %}{% endif %}</p>
{% if counted %}<p class="muted small" id="counted">{{ counted }}</p>{% endif %}
{% if forfeited %}<h2>Forfeits</h2><p class="muted small">Matches its side lost by a failure of its own; {% if replays %}each replay shows the bot's last words (stderr){% else %}of the deals counted so far (their replays open when the tournament ends){% endif %}.</p>
<div class="wide" tabindex="0" role="region" aria-label="forfeits"><table id="forfeits"><tr><th class="num">#</th><th>match</th><th>why</th></tr>
{% for m, why in forfeited %}<tr class="forfeit"><td class="num">{{ m.idx }}</td><td>{% if replays %}<a href="/m/{{ m.match_id|urlencode }}">{{ m.match_id }}</a>{% else %}{{ m.match_id }}{% endif %}</td><td class="small">{{ why }}</td></tr>{% endfor %}
</table></div>{% elif s and s.forfeits %}<p class="muted small" id="forfeits-closed">Which matches: {{ closed_reason }}.</p>{% endif %}
{{ costly }}
</div>
{% endblock %}
"""


def tournament_bot_page(store: Store, key: str, name: str) -> str:
    """A bot's page in a tournament: its standing and its costliest analysed decisions
    there (``inspector.costliest_html`` over the tournament's matches, each a link into the
    inspector; a tournament whose matches are withheld lists none)."""
    try:
        tour = store.tournament(key)
    except StoreError as exc:
        raise PageError(404, str(exc)) from None
    st, rows = tournament_standings(store, tour)
    s = next((r for r in st.rows if r.name == name), None)
    if s is None:
        team = next((r.name for r in st.rows if name in r.members), None)  # a partner: its team has the line
        raise PageError(404, f"no bot {name[:60]!r} in tournament {tour.name!r}" + (
            f": it plays in the team {team!r}, whose page is /t/{tour.id}/bot/{urllib.parse.quote(team)}" if team else ""))
    members = set(s.members or (name,))  # a named team's line is its partners': their matches, their decisions
    within = {m.match_id for m in rows if members & set(m.seats)}
    # its forfeits, as the standings count them (the last incident's seat is the one that failed),
    # and why: the page said only "0 won, 2 lost" of a bot that crashed in every match
    # (those of the matches the table counts: while the tournament runs, of whole deals; their replays open at its end)
    counts = st.counted.counts if st.counted is not None else (lambda m: tour.disclosure.matches)
    forfeited = [(m, m.outcome.detail) for m in rows if counts(m) and m.outcome.reason.is_forfeit and m.incidents
                 and m.seats[m.incidents[-1].seat] in members]
    return _env.get_template("tournament_bot").render(
        t=tour, name=name, s=s, running=tour.disclosure.running, forfeited=forfeited, counted=dict(st.notes).get("counted", ""),
        replays=tour.disclosure.matches,
        closed_reason=disclosure.CLOSED_REASON, costly=inspector.costliest_html(store, sorted(members), within=within))


def _num(x: float) -> str:
    return f"{x:g}"


_env = jinja2.Environment(
    loader=jinja2.DictLoader({"base": _BASE, "index": _INDEX, "tournament": _TOURNAMENT, "replay": _REPLAY, "error": _ERROR,
                              "arenas": _ARENAS, "played": _PLAYED, "arena": _ARENA, "arena_bot": _ARENA_BOT,
                              "tournament_bot": _TOURNAMENT_BOT}),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    finalize=shown,  # control characters in anyone's text shown as escapes
)
_env.filters["card"] = card_html
_env.filters["num"] = _num
_env.filters["los"] = los_text
_env.filters["ladder_interval"] = ladder_interval_text  # as standings --arena and its exports give it
_env.filters["shell"] = quote  # a command to paste: a store path with a space is one argument


# --------------------------------------------------------------------------------------
# Pages: pure functions of the store and the request, returning (status, html).


class PageError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def index_page(store: Store) -> str:
    every = store.tournaments()
    tournaments = [t for t in every if not is_play_name(t.name)]  # single played matches: their own page
    played = sum(getattr(t, "done", 0) or len(store.matches(t.id)) for t in every if is_play_name(t.name))
    bots, done = {}, {}
    holder = run_holder(store.path)
    for t in tournaments:
        spec_bots = t.spec.get("bots") or []
        bots[t.id] = ", ".join(str(b) for b in spec_bots)
        done[t.id] = getattr(t, "done", 0) or len(store.matches(t.id))
    states = {t.id: t.state(holder) for t in tournaments}  # in progress only while a run of it holds the store
    arenas = [a.name for a in Arenas(store).arenas()]  # the front page is the way in: an arena's store has no tournament
    return _env.get_template("index").render(tournaments=tournaments, bots=bots, done=done, db=store.path, played=played,
                                             states=states, arenas=arenas)


def played_page(store: Store) -> str:
    """``/play/history``: the matches played one at a time (a person at /play, or
    ``arbiter play``), kept in the store's ``play:GAME`` tournaments, newest first (a batch
    so named whose disclosure withholds its matches is no batch of single matches: left out)."""
    matches = []
    for t in store.tournaments():
        if is_play_name(t.name) and t.disclosure.matches:
            matches += [(t, m) for m in store.matches(t.id)]
    matches.sort(key=lambda tm: (tm[0].id, tm[1].idx), reverse=True)
    return _env.get_template("played").render(matches=matches, person=HUMAN)


def tournament_page(store: Store, key: str) -> str:
    try:
        tour = store.tournament(key)
    except StoreError as exc:
        raise PageError(404, str(exc)) from None
    st, rows = tournament_standings(store, tour)
    entrants = store.entrants(tour.id)
    extra_cols = list(dict.fromkeys(k for r in st.rows for k in r.extra))
    played = describe(tour.spec)
    policy = tour.disclosure
    # single matches (play:GAME) are never finished: played one at a time, neither running nor interrupted
    state = None if is_play_name(tour.name) else tour.state(run_holder(store.path))
    # the seed once it may be shown, as the CLI's standings and the exports say it (while the
    # tournament runs the page says nothing of it); single matches are each dealt from a seed
    # of their own (their replays show it)
    seeded = None if is_play_name(tour.name) else shown_seed(store, tour, TournamentSpec.from_json(tour.spec))
    seed = seed_text(seeded) if seeded and not seeded["seed_withheld"] else None
    return _env.get_template("tournament").render(
        state=state, interrupted=interrupted_text(tour.name, tour.spec, store.path) if state == "interrupted" else "",
        # after how many of its deals, as tournament show, the standings and the exports say (the page said "stopped
        # early" alone)
        early=stopped_early_text(tour.done, tour.planned, tour.spec) if state == STOPPED_EARLY else "",
        t=tour, st=st, rows=rows, extra_cols=extra_cols, closed=not policy.matches, seed=seed, incidents=incidents_text,
        # the list: the matches counted (while the tournament is closed, of whole deals: a row appearing as it is stored
        # would time its match), and how many it leaves out
        listed=st.counted.rows, unlisted=st.counted.unlisted_note,
        closed_reason=disclosure.CLOSED_REASON, played=played, entrants=entrants,
        team_of={m: " + ".join(t) for t in played.teams for m in t}, running=policy.running,
        think_note=THINK_NOTE, db=store.path, table_style=Markup(TABLE_STYLE),
        playing=now_playing(store.path, tour.name, policy, versions={e.name: e.version or "" for e in entrants})
        if tour.finished is None else None,
        live_delay=disclosure.LIVE_DELAY_S,
    )


def incidents_text(m: MatchRow) -> str:
    """A match's incidents in a line, as ``tournament show`` lists them, counted ("seat 2 crash
    ×7; seat 0 timeout"): a match the failure policy played on ended "completed", and the page
    said nothing of the seats that failed in it."""
    counts: dict[tuple[int, str], int] = {}
    for i in m.incidents:
        counts[(i.seat, i.kind)] = counts.get((i.seat, i.kind), 0) + 1
    return "; ".join(f"seat {seat} {kind}" + (f" ×{n}" if n > 1 else "") for (seat, kind), n in counts.items())


def _parse_view(view: str, num_seats: int) -> tuple[int | None, bool]:
    if view in ("", "spectator"):
        return None, False
    if view == "full":
        return None, True
    seat = number(view[4:]) if view.startswith("seat") else None
    if seat is not None and seat < num_seats:
        return seat, False
    raise PageError(400, f"unknown view {view[:40]!r}: use spectator, full or seat0..seat{num_seats - 1}")


def _read_match(store: Store, match_id: str, arena: ArenaRow | None = None
                ) -> tuple[MatchRecord, TournamentRow | None, ArenaRow | None]:
    """The one reader of a stored match for every page that shows one (its replay at
    ``/m/ID``, and under an arena's URL): ``Store.read_match``, the store's one reader,
    with what it says may be shown. 404 if there is no such match (or it is not one of
    ``arena``'s), 403 with the disclosure rule's words while it may not be shown, 500 if
    its record cannot be read. The record, its tournament (None: an arena's, or a single
    match's that lost it) and its arena (None: not an arena's), for the page's links home."""
    try:
        row = store.match(match_id)  # where it belongs: its tournament, its arena
    except StoreError as exc:
        raise PageError(404, str(exc)) from None
    if arena is not None and row.arena_id != arena.id:
        raise PageError(404, f"no match {match_id[:64]!r} in arena {arena.name!r}")
    try:
        record, shown = store.read_match(match_id)
    except StoreError as exc:  # a corrupt record is shown as an error, not a crash
        raise PageError(500, f"match {match_id!r}: its record cannot be read: {exc}") from None
    try:
        shown.require_match(match_id)
    except disclosure.Withheld as exc:
        raise PageError(403, str(exc)) from None
    try:
        tour = store.tournament(row.tournament_id) if row.tournament_id is not None else None
    except StoreError:
        tour = None
    if arena is None and row.arena_id is not None:
        try:
            arena = Arenas(store).arena(row.arena_id)
        except StoreError:
            arena = None
    return record, tour, arena


def replay_page(store: Store, match_id: str, query: dict[str, list[str]], arena: ArenaRow | None = None) -> str:
    """The replay of any stored match, whatever played it (``_read_match``); under an
    arena's URL (``arena``) the same viewer with the arena's links."""
    record, tour, home = _read_match(store, match_id, arena)
    try:
        num_seats = get_game(record.game, record.options).num_seats
    except Exception as exc:  # noqa: BLE001 - a corrupt record is shown as an error, not a crash
        raise PageError(500, f"match {match_id!r}: its record cannot be read: {exc}") from None
    base = (f"/a/{urllib.parse.quote(arena.name)}/m/{urllib.parse.quote(match_id)}?" if arena is not None
            else f"/m/{urllib.parse.quote(match_id)}?")
    return _replay_html(lambda seat, full: _replay(str(store.path), match_id, seat, full), match_id, num_seats, query,
                        base, None if arena is not None else tour, home)


def _replay_html(steps_for: Callable[[int | None, bool], ReplayPage], match_id: str, num_seats: int,
                 query: dict[str, list[str]], base: str, tour: Any, arena: ArenaRow | None = None) -> str:
    """The replay viewer's page at the query's ``view`` and ``step``; ``steps_for(seat,
    full)`` gives the steps (cached), ``base`` is the page's own URL up to its query; the
    page's way home is its tournament's page, or its arena's leaderboard."""
    view = (query.get("view") or ["full"])[0]
    seat, full = _parse_view(view, num_seats)
    page = steps_for(seat, full)
    if not page.steps:
        raise PageError(500, f"match {match_id!r} does not replay: {page.error}")
    last = page.steps[-1].index
    raw_step = (query.get("step") or [str(first_decision(page.record, seat))])[0]
    if number(raw_step.removeprefix("-")) is None:
        raise PageError(400, f"step must be a number from 0 to {last}, got {raw_step[:20]!r}")
    step = page.steps[min(max(0, int(raw_step)), last)]
    r = page.record
    if step.index == 0:
        title = "The deal"
    else:
        who = r.seat_names[step.seat] if step.seat is not None and step.seat < len(r.seat_names) else "?"
        forced = f" (played by the arbiter: {step.forced})" if step.forced else ""
        title = f"Step {step.index}: seat {step.seat} ({who}) {step.action}{forced}"
    views = [("full", "every hand"), ("spectator", "spectator")] + [(f"seat{s}", f"seat {s}") for s in range(num_seats)]

    model = table_model(r.game, step.view, r.seat_names, legal=step.legal if seat is not None else (),
                        seat_views=step.seat_views, options=dict(r.options))

    def url(step: int, view: str = view) -> str:
        return base + urllib.parse.urlencode({"step": step, "view": view})

    return _env.get_template("replay").render(
        r=r, step=step, steps=page.steps, last=last, title=title, error=page.error, view=view, views=views, url=url,
        table=model, felt=render_table(model, interactive=False), table_style=Markup(TABLE_STYLE), tour=tour, arena=arena,
        forfeit=r.outcome is not None and not r.outcome.reason.finishes_the_game,  # a forfeit or an abort: a ruling
    )


def first_decision(record: Any, seat: int | None) -> int:
    """The step a replay opens on: just before the first decision of ``seat`` (any seat's
    when None) that is a choice of play, not a look at the hand; 0 if there is none."""
    for i, a in enumerate(record.actions):
        if (seat is None or a.seat == seat) and a.action != "look":
            return i
    return 0


def error_page(status: int, message: str) -> str:
    return _env.get_template("error").render(status=status, message=message)


# --------------------------------------------------------------------------------------
# Arenas (`arbiter arena`): the live ladder, a page per bot, replays of finished encounters.
# What may be shown is the encounter's disclosure's (EncounterRow.disclosure, cardarena.disclosure):
# an encounter deals from its own seed, so once it is stored (whole) nothing of it can come back.


def arena_route(store: Store, parts: list[str], query: dict[str, list[str]]) -> str:
    """``/a`` arenas, ``/a/NAME`` its leaderboard, ``/a/NAME/bot/BOT`` a bot's page,
    ``/a/NAME/m/MATCH_ID`` a replay."""
    if not parts:
        return arenas_page(store)
    if len(parts) == 1:
        return arena_page(store, parts[0])
    if len(parts) == 3 and parts[1] == "bot":
        return arena_bot_page(store, parts[0], parts[2])
    if len(parts) == 3 and parts[1] == "m":
        return arena_replay_page(store, parts[0], parts[2], query)
    raise PageError(404, f"no arena page {'/'.join(parts)[:80]!r}")


def _arena(store: Store, name: str) -> tuple[Arenas, ArenaRow]:
    tables = Arenas(store)
    try:
        return tables, tables.arena(name)
    except StoreError as exc:
        raise PageError(404, str(exc)) from None


def arenas_page(store: Store) -> str:
    tables = Arenas(store)
    rows = []
    for a in tables.arenas():
        active = sum(1 for e in tables.entrants(a.id) if e.status == "active")
        rows.append((a, active, len(tables.encounters(a.id))))
    return _env.get_template("arenas").render(arenas=rows)


def _deal_means(game: Game, enc: EncounterRow, ms: list[ArenaMatch]) -> dict[str, float]:
    deals = matchmaking.deal_points(ms, game.teams, enc.players, forfeit_stake(game))
    return {p: sum(d[p][0] for d in deals if p in d) / max(1, len(deals)) for p in enc.players}


def arena_page(store: Store, name: str, recent: int = 30) -> str:
    tables, a = _arena(store, name)
    rows = matchmaking.standings(tables.entrants(a.id))
    done = tables.encounters(a.id)
    game = a.rules()
    shown = []
    for e in reversed(done[-recent:]):
        ms = tables.matches(a.id, e.idx) if e.disclosure(a.name).matches else []
        shown.append((e, _deal_means(game, e, ms), ms))
    matches = store.db.execute("SELECT COUNT(*) FROM matches WHERE arena_id = ?", (a.id,)).fetchone()[0]
    # An encounter is being played only while a ladder's run holds the store: one left "playing"
    # by a process killed mid-encounter is cut off (abandoned when the arena starts again)
    holder = run_holder(store.path)
    running = holder is not None and (holder.arena == a.name if holder.arena else not holder.tournament)  # (an older arbiter's: any ladder)
    playing = tables.encounters(a.id, "playing")
    return _env.get_template("arena").render(
        a=a, ranked=[r for r in rows if r.status == "active"], others=[r for r in rows if r.status != "active"],
        playing=playing if running else [], cut_off=[] if running else playing, recent=shown, done=len(done), matches=matches, scale=ARENA_SCALE,
        not_hosted_label=NOT_HOSTED_LABEL, not_hosted=sentence(NOT_HOSTED),
        stake=forfeit_stake(game),
    )


_PALETTE = ("#2f5bd3", "#c62828", "#027a48", "#7b1fa2", "#b54708", "#0e7090")


def rating_svg(series: list[tuple[str, list[tuple[float, float]]]], width: int = 640, height: int = 220) -> Markup:
    """A rating chart drawn here: per version, its rating after each of its encounters
    (a polyline, numbered across versions) over the band μ ± 1.96σ; no script, no library."""
    points = [(m, s) for _, hist in series for m, s in hist]
    if not points:
        return Markup('<p class="muted" id="rating-chart">No encounter yet.</p>')
    pad_l, pad_r, pad_t, pad_b = 48, 12, 12, 28
    lo = min(m - 1.96 * s for m, s in points)
    hi = max(m + 1.96 * s for m, s in points)
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    n = len(points)
    sx = (width - pad_l - pad_r) / max(1, n - 1) if n > 1 else 0.0

    def xy(i: int, v: float) -> tuple[float, float]:
        x = pad_l + (i * sx if n > 1 else (width - pad_l - pad_r) / 2)
        return round(x, 1), round(pad_t + (hi - v) / (hi - lo) * (height - pad_t - pad_b), 1)

    parts = [f'<svg id="rating-chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="rating history" '
             'style="background:#fff;border:1px solid #e4e7ec;border-radius:6px;max-width:100%;height:auto">']  # (a phone: scaled down)
    for v in (lo, (lo + hi) / 2, hi):
        _, y = xy(0, v)
        parts.append(f'<line x1="{pad_l}" y1="{y}" x2="{width - pad_r}" y2="{y}" stroke="#eef0f4"/>'
                     f'<text x="{pad_l - 6}" y="{y + 4}" font-size="11" text-anchor="end" fill="#667085">{v:.1f}</text>')
    parts.append(f'<text x="{(width + pad_l) / 2}" y="{height - 6}" font-size="11" text-anchor="middle" fill="#667085">'
                 f'encounters (1 to {n})</text>')
    i0 = 0
    for k, (label, hist) in enumerate(series):
        colour = _PALETTE[k % len(_PALETTE)]
        idx = range(i0, i0 + len(hist))
        upper = [xy(i, m + 1.96 * s) for i, (m, s) in zip(idx, hist)]
        lower = [xy(i, m - 1.96 * s) for i, (m, s) in zip(idx, hist)]
        line = [xy(i, m) for i, (m, _) in zip(idx, hist)]
        band = " ".join(f"{x},{y}" for x, y in upper + lower[::-1])
        parts.append(f'<polygon class="band" points="{band}" fill="{colour}" fill-opacity="0.12" stroke="none"/>')
        parts.append(f'<polyline class="rating-line" data-version="{html.escape(label)}" points="'
                     + " ".join(f"{x},{y}" for x, y in line) + f'" fill="none" stroke="{colour}" stroke-width="2"/>')
        x, y = line[-1]
        parts.append(f'<circle cx="{x}" cy="{y}" r="3" fill="{colour}"/>'
                     f'<text x="{min(x + 6, width - pad_r - 40)}" y="{max(y - 6, 12)}" font-size="11" fill="{colour}">'
                     f'{html.escape(label)}</text>')
        i0 += len(hist)
    parts.append("</svg>")
    return Markup("".join(parts))


def _scrub(text: str, store: Store) -> str:
    """Bot output for a public page: no path of this machine's store in it."""
    for path in sorted({str(store.path.resolve().parent), str(store.path.parent)}, key=len, reverse=True):
        if path not in ("", "."):
            text = text.replace(path, "<store>")
    return text


def arena_bot_page(store: Store, arena_name: str, bot: str, recent: int = 20) -> str:
    tables, a = _arena(store, arena_name)
    name = bot.split("@")[0] if "@" in bot else bot
    versions = [e for e in tables.entrants(a.id) if e.name == name]
    if not versions:
        raise PageError(404, f"no bot {bot[:64]!r} in arena {a.name!r}")
    players = [v.player for v in versions]
    current = max(versions, key=lambda v: (v.status == "active", v.joined))
    encs = [e for e in tables.encounters(a.id) if any(p in e.players for p in players)]
    series = []
    for v in versions:
        hist = [e.ratings[v.player] for e in encs if v.player in e.ratings]
        if hist:
            series.append((v.version, hist))
    shown, failures, game = [], [], a.rules()
    for e in reversed(encs):
        me = next(p for p in players if p in e.players)
        if len(shown) < recent:
            ms = tables.matches(a.id, e.idx) if e.disclosure(a.name).matches else []
            shown.append((e, me, _deal_means(game, e, ms), ms))
        if me in e.failures and len(failures) < recent:
            stderr = ""
            for m in tables.matches(a.id, e.idx):
                if m.outcome.reason.is_forfeit and m.incidents and m.seats[m.incidents[-1].seat] == me:
                    stderr = m.incidents[-1].stderr or ""  # the row keeps it: no record read
            failures.append((e, me, e.failures[me], _scrub(stderr[-600:], store)))
    times = tables.think_times(a.id)
    # its decisions in this arena's matches only: a house bot's name ("random") sits in every
    # game's matches of the store, and the page listed an `arbiter play` Spot match's among
    # the ladder's Spades ones, its money ranked against points (as a tournament's page: within)
    within = {m.match_id for p in players for m in store.bot_matches(p) if m.arena_id == a.id}
    return _env.get_template("arena_bot").render(
        a=a, name=name, current=current, versions=versions, chart=rating_svg(series), recent=shown,
        failures=failures, scale=ARENA_SCALE,
        think=[(v.version, think_cells(times, (v.player,))) for v in versions if v.player in times],
        think_columns=THINK_COLUMNS, think_note=THINK_NOTE, costly=inspector.costliest_html(store, players, within=within),
    )


def arena_replay_page(store: Store, arena_name: str, match_id: str, query: dict[str, list[str]]) -> str:
    """An arena's match: the one reader and viewer of any stored match (``replay_page``),
    under the arena's URL."""
    _, a = _arena(store, arena_name)
    return replay_page(store, match_id, query, arena=a)


# --------------------------------------------------------------------------------------
# Live pages: one script, an event stream per page, the part that changes swapped in.

#: The one script of every page (in the base template, CSP-nonced): on a page with a
#: ``<div id="live">`` it opens the page's event stream (the same URL with ``events=1``), whose
#: every event carries the page's new live part (its data, ``live_event``) and that part's
#: hash (its id), and swaps it in as it comes (no fetch: the server rendered the part once,
#: for this viewer, to see that it changed), keeping the scroll of the page and of the
#: scrolled boxes inside it. The browser's EventSource reconnects by itself (sending the last
#: event's id, the hash of the part it has); an ``end`` event (the page is final, its last
#: part sent before it) closes it. Handlers of a page bind by delegation on #live (its
#: children are replaced); ``live:update`` is dispatched on #live after each swap.
LIVE_SCRIPT = """(function () {
  var live = document.getElementById("live");
  if (!live || !window.EventSource || !live.hasAttribute("data-hash") || live.querySelector("[data-live-end]")) { return; }
  var current = live.getAttribute("data-hash");
  var u = new URL(window.location.href); u.hash = ""; u.searchParams.set("events", "1"); u.searchParams.set("since", current);
  function swap(hash, text) {
    if (!hash || hash === current) { return; }
    var x = window.scrollX, y = window.scrollY, kept = {};
    live.querySelectorAll("[id]").forEach(function (el) { if (el.scrollTop) { kept[el.id] = el.scrollTop; } });
    live.innerHTML = text; current = hash; live.setAttribute("data-hash", hash);
    Object.keys(kept).forEach(function (id) { var el = document.getElementById(id); if (el) { el.scrollTop = kept[id]; } });
    window.scrollTo(x, y);
    live.dispatchEvent(new CustomEvent("live:update", {bubbles: true}));
  }
  var source = new EventSource(u.toString());
  source.onmessage = function (e) { swap(e.lastEventId, e.data); };
  source.addEventListener("end", function () { source.close(); });
})();"""

#: Marks a page's live part final: a fragment holding it ends the page's event stream.
LIVE_END = "data-live-end"

#: How often an event stream looks for a change of the store (a file stat, no query).
STORE_POLL_SECONDS = 0.5

#: A comment line on an idle event stream this often (finds a client gone quietly).
KEEPALIVE_SECONDS = 15.0

_LIVE_OPEN = re.compile(r'<div id="live"([^>]*)>')
_DIV = re.compile(r"<div\b|</div\s*>", re.I)


def page_fragment(page: str) -> str | None:
    """The inner HTML of the page's ``<div id="live">`` (None: the page has none, it does
    not change). Text on a page is escaped, so the only ``<div`` in it are tags."""
    m = _LIVE_OPEN.search(page)
    if not m:
        return None
    depth = 1
    for tag in _DIV.finditer(page, m.end()):
        depth += -1 if tag.group(0).startswith("</") else 1
        if depth == 0:
            return page[m.end():tag.start()]
    return page[m.end():]


_LINE_BREAK = re.compile(r"\r\n?|\n")


def live_text(fragment: str, nonce: str = "") -> str:
    """The live part as its event carries it and its hash reads it: the response's CSP
    nonce (new each time) taken out, every line break (CR LF, CR, LF) one LF. An event
    stream cannot carry a CR (EventSource ends a line at CR, LF or CR LF alike), and the
    HTML is the same without it (a browser's parser makes every CR LF and CR an LF before
    reading a page). No live part holds a script (innerHTML would not run one), so no
    nonce is in one today; one that did would be shown with none."""
    text = fragment.replace(nonce, "") if nonce else fragment
    return _LINE_BREAK.sub("\n", text)


def fragment_hash(fragment: str, nonce: str = "") -> str:
    """What the live part's HTML says, as a short hash: the same content, the same hash
    (of ``live_text``: the nonce taken out, the line breaks made LF)."""
    return hashlib.blake2b(live_text(fragment, nonce).encode(), digest_size=8).hexdigest()


def live_event(fragment: str, nonce: str = "") -> str:
    """The server-sent event that brings a page its new live part: ``id:`` its hash,
    ``data:`` its ``live_text``, one ``data:`` line per line (an empty line of the part is
    an empty ``data:``, never the blank line that ends the event; the space after each
    colon is the one EventSource takes off, so a line's own leading space stays). The
    browser joins the lines with LF: its ``data`` is ``live_text``, whose hash is the id."""
    text = live_text(fragment, nonce)
    return f"id: {fragment_hash(text)}\n" + "".join(f"data: {line}\n" for line in text.split("\n")) + "\n"


def _mark_live(page: str, nonce: str = "") -> str:
    """The page with its live part's hash on ``#live`` (the script's first ``since``)."""
    fragment = page_fragment(page)
    if fragment is None:
        return page
    return _LIVE_OPEN.sub(lambda m: f'<div id="live" data-hash="{fragment_hash(fragment, nonce)}"{m.group(1)}>', page, count=1)


def _store_stamp(db: Path) -> tuple[int, ...]:
    """Changes whenever the store is written (its file or its write-ahead log)."""
    stamp: list[int] = []
    for p in (db, db.with_name(db.name + "-wal")):
        try:
            st = p.stat()
            stamp += [st.st_mtime_ns, st.st_size]
        except OSError:
            stamp += [0, 0]
    return tuple(stamp)


# --------------------------------------------------------------------------------------
# The web app: Starlette (ASGI) on uvicorn.

_NONCE: contextvars.ContextVar[str] = contextvars.ContextVar("csp_nonce", default="")
_env.globals["csp_nonce"] = _NONCE.get
_env.globals["live_script"] = Markup(LIVE_SCRIPT)


def security_headers(nonce: str) -> dict[str, str]:
    """Every response's: nothing cached, no sniffing, no Referer to another site, no framing,
    and no script but the page's own (its nonce), talking to this server only. The
    referrer policy is ``same-origin``, not ``no-referrer``: under ``no-referrer`` a browser
    sends ``Origin: null`` with the site's own form posts, which the same-origin check must
    refuse (a sandboxed frame or a file sends it too), so no form could be posted."""
    return {
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": f"default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}'; "
                                   "connect-src 'self'; form-action 'self'; frame-ancestors 'none'",
    }


def _store_page(db: Path, path: str) -> tuple[int, str, str]:
    """(status, content type, body) of a page of the store (a GET of ``path``)."""
    url = urllib.parse.urlsplit(path)
    query = urllib.parse.parse_qs(url.query)
    parts = [urllib.parse.unquote(p) for p in url.path.split("/") if p]
    html_type = "text/html; charset=utf-8"
    store = open_read_only(db)
    try:
        if not parts:
            return 200, html_type, index_page(store)
        if parts == ["play", "history"]:
            return 200, html_type, played_page(store)
        if parts[0] == "t" and len(parts) == 2:
            return 200, html_type, tournament_page(store, parts[1])
        if parts[0] == "t" and len(parts) == 4 and parts[2] == "bot":
            return 200, html_type, tournament_bot_page(store, parts[1], parts[3])
        if parts[0] == "m" and len(parts) == 2:
            return 200, html_type, replay_page(store, parts[1], query)
        if parts[0] == "m" and len(parts) == 3 and parts[2] == "inspect":
            try:
                return 200, html_type, inspector.inspect_page(store, parts[1], query, _NONCE.get())
            except inspector.InspectError as exc:
                raise PageError(exc.status, str(exc)) from None
        if parts[0] == "a":
            return 200, html_type, arena_route(store, parts[1:], query)
        if parts == ["healthz"]:
            return 200, "text/plain; charset=utf-8", "ok"
        raise PageError(404, f"no page {url.path[:80]!r}")
    finally:
        store.close()


# --------------------------------------------------------------------------------------
# What one client may hold: the site answers everyone while one visitor holds the most it
# may. A client is the peer's address (the server sees no other: no proxy headers).

#: Live streams (``?events=1``) one client may hold open at once; past it 429.
MAX_STREAMS_PER_CLIENT = 16
#: Live streams of one /play match at once (its seat's page in a few tabs); past it 429.
MAX_STREAMS_PER_MATCH = 4
#: Live streams open on the whole server; past it 503.
MAX_STREAMS = 512
#: A client's requests being answered in worker threads at once (a page reads the store; a
#: /play POST waits on its match); more wait their turn without a thread. The worker
#: threads (anyio's 40) are shared by every client: one takes at most this many.
MAX_BUSY_PER_CLIENT = 4
#: Seconds a connection has to send a whole request head (line and headers) after it
#: opens or after its previous response; then it is closed (a slow-loris).
HEADER_SECONDS = 10.0
#: Seconds a request has to send its whole body; then 408 and the connection is closed.
BODY_SECONDS = 10.0


class StreamLimits:
    """The live streams open now, by client and by /play match, and each client's requests
    in worker threads (all counted on the server's event loop: no lock)."""

    def __init__(self, per_client: int = MAX_STREAMS_PER_CLIENT, per_match: int = MAX_STREAMS_PER_MATCH,
                 total: int = MAX_STREAMS, busy_per_client: int = MAX_BUSY_PER_CLIENT):
        self.per_client, self.per_match, self.total, self.busy_per_client = per_client, per_match, total, busy_per_client
        self.by_client: dict[str, int] = {}
        self.by_match: dict[str, int] = {}
        self.open = 0
        self._busy: dict[str, tuple[asyncio.Semaphore, list[int]]] = {}  # client -> (its slots, [users])

    def take(self, client: str, match: str | None) -> tuple[int, str] | None:
        """Count one more stream of ``client`` (and of /play ``match``); None if it may open,
        else (status, why not)."""
        if self.open >= self.total:
            return 503, f"{self.open} live streams are open, the most this server serves: try again later"
        if self.by_client.get(client, 0) >= self.per_client:
            return 429, (f"you hold {self.per_client} live streams, the most one client may: close a page "
                         "(its updates stop; reloading it shows the latest)")
        if match is not None and self.by_match.get(match, 0) >= self.per_match:
            return 429, f"this match's page is open {self.per_match} times, the most it may be: close one"
        self.open += 1
        self.by_client[client] = self.by_client.get(client, 0) + 1
        if match is not None:
            self.by_match[match] = self.by_match.get(match, 0) + 1
        return None

    def give_back(self, client: str, match: str | None) -> None:
        self.open -= 1
        for counts, key in ((self.by_client, client), (self.by_match, match)):
            if key is not None:
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]

    @contextlib.asynccontextmanager
    async def busy(self, client: str) -> AsyncIterator[None]:
        """One of ``client``'s ``busy_per_client`` turns in the worker threads (waited for on the loop)."""
        sem, users = self._busy.setdefault(client, (asyncio.Semaphore(self.busy_per_client), [0]))
        users[0] += 1
        try:
            async with sem:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                self._busy.pop(client, None)


class _CountedStream(StreamingResponse):
    """A live stream that gives its place back (``StreamLimits``) however it ends: its
    events all sent, the client gone, or the server stopping before it even began."""

    def __init__(self, *args: Any, release: Callable[[], None], **kw: Any):
        super().__init__(*args, **kw)
        self._release = release

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


def _client(request: Request) -> str:
    return request.client.host if request.client else ""


def _is_seat_path(path: str) -> bool:
    """A request for ``arbiter.present.play_page`` (the form, a seat), not a page of the store."""
    return play.is_play_path(path) and urllib.parse.urlsplit(path).path.rstrip("/") != "/play/history"


class _Site:
    """What the app's requests share: the store, the /play tables, the stop flag."""

    def __init__(self, db: Path, tables: play.Tables, stopping: threading.Event, verbose: bool,
                 limits: StreamLimits | None = None):
        self.db, self.tables, self.stopping, self.verbose = db, tables, stopping, verbose
        self.limits = limits or StreamLimits()

    def render(self, req: play.Request, nonce: str) -> tuple[int, str, str, list[tuple[str, str]]]:
        """One request answered (in a worker thread: pages read the store, /play waits on
        its match); an error is one line in the log (its traceback with ``verbose``)."""
        _NONCE.set(nonce)
        if _is_seat_path(req.path):
            return play.handle(req, _env, self.tables, nonce, self.verbose)
        if req.method == "POST" and inspector.is_inspect_path(req.path):
            return self._start_analysis(req)
        if req.method not in ("GET", "HEAD"):
            return 405, "text/html; charset=utf-8", error_page(405, f"no page takes a {req.method} at {req.path[:80]!r}"), []
        try:
            status, ctype, body = _store_page(self.db, req.path)
        except PageError as exc:
            status, ctype, body = exc.status, "text/html; charset=utf-8", error_page(exc.status, str(exc))
        except READ_ERRORS as exc:
            status, ctype, body = 503, "text/html; charset=utf-8", error_page(503, f"the store cannot be read: {exc}")
        except Exception as exc:  # noqa: BLE001 - one bad page must not stop the server
            log.error("error serving GET %s: %s: %s", urllib.parse.urlsplit(req.path).path[:80], type(exc).__name__,
                      str(exc)[:200], exc_info=self.verbose)
            status, ctype, body = 500, "text/html; charset=utf-8", error_page(500, "internal error (see the server log)")
        return status, ctype, body, []

    def _start_analysis(self, req: play.Request) -> tuple[int, str, str, list[tuple[str, str]]]:
        """The inspector's "analyse now" (``inspector.start_analysis``): a writer job, then
        back to the page (303), which shows its progress."""
        html = "text/html; charset=utf-8"
        try:
            play._same_origin(req)
            url = urllib.parse.urlsplit(req.path)
            match_id = urllib.parse.unquote(url.path.split("/")[2])
            store = open_read_only(self.db)
            try:
                to = inspector.start_analysis(store, match_id, urllib.parse.parse_qs(url.query))
            finally:
                store.close()
        except play.TableError as exc:
            return exc.status, html, error_page(exc.status, str(exc)), []
        except inspector.InspectError as exc:
            return exc.status, html, error_page(exc.status, str(exc)), []
        except READ_ERRORS as exc:
            return 503, html, error_page(503, f"the store cannot be read: {exc}"), []
        return 303, html, error_page(303, f"analysis started: {to}"), [("Location", to)]

    async def endpoint(self, request: Request) -> Response:
        try:
            return await self._answer(request)
        except ClientDisconnect:  # gone while it sent its request: nobody to answer
            return Response(status_code=400)
        except Exception as exc:  # noqa: BLE001 - one line, not a traceback per bad request
            log.error("error serving %s %s: %s: %s", request.method, request.url.path[:80], type(exc).__name__,
                      str(exc)[:200], exc_info=self.verbose)
            return Response("internal error (see the server log)\n", 500, media_type="text/plain")

    async def _answer(self, request: Request) -> Response:
        nonce = secrets.token_hex(16)  # lowercase hex: never reads as a card (QS, 10H) in a scan of the page
        raw = request.scope.get("raw_path") or request.url.path.encode()
        path = raw.decode("latin-1") + (f"?{request.url.query}" if request.url.query else "")
        client = _client(request)
        if request.method in ("GET", "HEAD") and request.url.path == "/healthz":  # on the loop: no thread, no store
            return Response("ok", 200, headers=security_headers(nonce), media_type="text/plain")
        body = b""
        if request.method == "POST":
            length = request.headers.get("content-length") or ""
            if not (length.isdigit() and int(length) > play.MAX_BODY):  # too long: refused unread
                try:
                    async with asyncio.timeout(BODY_SECONDS):
                        body = await self._body(request)
                except TimeoutError:
                    headers = security_headers(nonce)
                    headers["Connection"] = "close"
                    return Response(f"the request body did not arrive within {BODY_SECONDS:g} s\n", 408,
                                    headers=headers, media_type="text/plain")
        req = play.Request(request.method, path, request.headers, body, client)
        query = request.query_params
        if request.method == "GET" and query.get("events") == "1":
            return await self._events(req, query.get("since", ""), request.headers.get("last-event-id"), nonce)
        if request.method == "HEAD" and query.get("events") == "1":
            return await self._events_head(req, nonce)
        async with self.limits.busy(client):
            status, ctype, text, extra = await run_in_threadpool(self.render, req, nonce)
        headers = security_headers(nonce)
        if status == 200 and ctype.startswith("text/html"):
            if query.get("fragment") == "1":
                fragment = page_fragment(text)
                if fragment is None:
                    status, text = 404, error_page(404, f"the page {request.url.path[:80]!r} has no live part")
                else:
                    text = fragment
                    headers["X-Live-Hash"] = fragment_hash(fragment, nonce)
            else:
                text = _mark_live(text, nonce)
        response = Response(text, status, headers=headers, media_type=ctype)
        for k, v in extra:
            response.headers.append(k, v)
        return response

    async def refused(self, request: Request, exc: Exception) -> Response:
        """What the router refuses before any page is asked: a method no page takes (PUT,
        DELETE...: 405) or a request target that is no path (``*``, ``http://host/...``:
        404). The site's own page and headers, as for a POST to a page of the store or an
        unknown page, not the framework's bare text."""
        nonce = secrets.token_hex(16)
        _NONCE.set(nonce)
        headers = security_headers(nonce)
        if getattr(exc, "status_code", 404) == 405:
            headers["Allow"] = "GET, HEAD, POST"
            status, message = 405, f"no page takes a {request.method[:20]}: use GET, HEAD or POST"
        else:
            status, message = 404, f"no page {request.url.path[:80]!r}: a page's address is a path, as /t/NAME"
        return Response(error_page(status, message), status, headers=headers, media_type="text/html; charset=utf-8")

    @staticmethod
    async def _body(request: Request) -> bytes:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > play.MAX_BODY:
                break
        return body

    async def _events_head(self, req: play.Request, nonce: str) -> Response:
        """A HEAD of a page's event stream: the status and type its GET answers (404 for a
        page with no live part), without holding a stream (a HEAD's body is never sent)."""
        async with self.limits.busy(req.client):
            first = await run_in_threadpool(self._fragment, req, nonce)
        headers = security_headers(nonce)
        if first is None:
            return Response("this page has no live part\n", 404, headers=headers, media_type="text/plain")
        return Response(b"", 200, headers=headers, media_type="text/event-stream")

    def _fragment(self, req: play.Request, nonce: str) -> str | None:
        """The page's live part now (None: it has none, or it is not a page any more)."""
        status, ctype, text, _ = self.render(req, nonce)
        return page_fragment(text) if status == 200 and ctype.startswith("text/html") else None

    async def _events(self, req: play.Request, since: str, last_id: str | None, nonce: str) -> Response:
        """The page's event stream: an event (``live_event``: id the new live part's hash,
        data the part itself, rendered once for this request as the page is) each time its
        live part changes, ``end`` (data: the last hash) once it is final. A seat's page (/play/ID)
        wakes on its match's moves (waited for on the event loop: a stream holds no worker
        thread); a page of the store on a write to the store. Each client, each /play
        match and the server hold at most so many (``StreamLimits``)."""
        seat = _is_seat_path(req.path)
        version, match = 0, None
        plain = security_headers(nonce)
        if seat:
            try:
                match = play.seat_match(req)
                version = await play.seat_version(req, self.tables, -1, 0)
            except play.TableError as exc:  # the same answer as the seat's page gives
                return Response(f"{exc}\n", exc.status, headers=plain, media_type="text/plain")
        refused = self.limits.take(req.client, match)
        if refused is not None:
            status, why = refused
            plain["Retry-After"] = "10"
            return Response(f"{why}\n", status, headers=plain, media_type="text/plain")
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self.limits.give_back(req.client, match)

        try:
            async with self.limits.busy(req.client):
                first = await run_in_threadpool(self._fragment, req, nonce)
        except BaseException:
            release()
            raise
        if first is None:
            release()
            return Response("this page has no live part\n", 404, headers=plain, media_type="text/plain")
        known = last_id or since or ""  # the hash of the live part the page has

        async def stream() -> AsyncIterator[str]:
            nonlocal version, known
            fragment, stamp, idle = first, _store_stamp(self.db), 0.0
            yield "retry: 2000\n\n"
            while True:
                h = fragment_hash(fragment, nonce)
                if h != known:
                    known = h
                    yield live_event(fragment, nonce)
                    idle = 0.0
                if LIVE_END in fragment:
                    yield f"event: end\ndata: {h}\n\n"
                    return
                changed = False
                while not changed:
                    if self.stopping.is_set():
                        return
                    if seat:
                        try:
                            now = await play.seat_version(req, self.tables, version, 1.0)
                        except play.TableError:
                            yield "event: end\ndata: gone\n\n"
                            return
                        changed, version = now != version, now
                        idle += 1.0
                    else:
                        await asyncio.sleep(STORE_POLL_SECONDS)
                        now_stamp = _store_stamp(self.db)
                        changed, stamp = now_stamp != stamp, now_stamp
                        idle += STORE_POLL_SECONDS
                    if idle >= KEEPALIVE_SECONDS:
                        idle = 0.0
                        yield ": still here\n\n"
                async with self.limits.busy(req.client):
                    nxt = await run_in_threadpool(self._fragment, req, nonce)
                if nxt is None:
                    yield "event: end\ndata: gone\n\n"
                    return
                fragment = nxt

        headers = security_headers(nonce)
        headers["X-Accel-Buffering"] = "no"
        return _CountedStream(stream(), headers=headers, media_type="text/event-stream", release=release)


def make_app(db: Path, tables: play.Tables, stopping: threading.Event | None = None, verbose: bool = False,
             limits: StreamLimits | None = None) -> Starlette:
    """The site as an ASGI app (any ASGI server runs it; ``WebServer`` runs it on uvicorn,
    which also bounds how long a request's head may take: ``_GuardedH11``)."""
    site = _Site(db, tables, stopping or threading.Event(), verbose, limits)
    return Starlette(routes=[Route("/{path:path}", site.endpoint, methods=["GET", "HEAD", "POST"])],
                     exception_handlers={404: site.refused, 405: site.refused})


class _GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, and a connection that has not sent a whole request head
    within ``HEADER_SECONDS`` of opening (or of its previous response) is closed: many
    connections that never finish their request (a slow-loris) cannot pile up. A request
    being answered (a live stream) is never cut; a slow body is the app's (``BODY_SECONDS``)."""

    header_seconds = HEADER_SECONDS

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        self._arm_head_timer()

    def _arm_head_timer(self) -> None:
        if getattr(self, "_head_timer", None) is not None:
            self._head_timer.cancel()
        self._head_timer = self.loop.call_later(self.header_seconds, self._head_timeout)

    def _head_timeout(self) -> None:
        self._head_timer = None
        answering = self.cycle is not None and not self.cycle.response_complete
        if not answering and not self.transport.is_closing():
            self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        if getattr(self, "_head_timer", None) is not None:
            self._head_timer.cancel()
            self._head_timer = None
        super().connection_lost(exc)


class _Uvicorn(uvicorn.Server):
    """uvicorn's server, stopped by SIGINT/SIGTERM (in the main thread) or ``should_exit``,
    telling the app's event streams first so that they end at once, and never re-raising
    the signal after its graceful stop (the caller closes what it opened)."""

    def __init__(self, config: uvicorn.Config, stopping: threading.Event):
        super().__init__(config)
        self.stopping = stopping

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.stopping.set()
        super().handle_exit(sig, frame)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        old = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)


class WebServer:
    """``arbiter web``: the app on uvicorn, on a socket bound at once (so ``url`` is known,
    even for port 0, and a port taken is an OSError here). ``serve_forever()`` serves until
    ``shutdown()`` (from another thread) or Ctrl-C; then ``server_close()``."""

    def __init__(self, db: Path, host: str = "127.0.0.1", port: int = 8080, play_limit: int = play.DEFAULT_LIMIT,
                 play_clock: float = play.DEFAULT_DECISION_SECONDS, verbose: bool = False,
                 play_arbiter: Any = None, play_per_client: int = play.DEFAULT_PER_CLIENT):
        self.db = db
        # matches with a person at a seat (/play): they write their records to the store;
        # play_arbiter (a seat.StandingArbiter) offers the bots connected to it too
        self.tables = play.Tables(db, limit=play_limit, per_client=play_per_client, decision_seconds=play_clock,
                                  arbiter=play_arbiter)
        self.stopping = threading.Event()
        self.app = make_app(db, self.tables, self.stopping, verbose)
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        self.socket = socket.create_server((host, port), family=family, backlog=128)
        self.server_address = self.socket.getsockname()[:2]
        config = uvicorn.Config(self.app, log_config=None, access_log=verbose, lifespan="off", server_header=False,
                                date_header=False, proxy_headers=False, timeout_graceful_shutdown=3,
                                timeout_keep_alive=5, http=_GuardedH11)
        config.load()  # (its protocol modules) here, not in serve_forever while a first request waits
        self._server = _Uvicorn(config, self.stopping)
        self._serving = threading.Event()
        self._done = threading.Event()
        self._old_handlers: dict[int, Any] = {}

    def stop_on_signals(self) -> None:
        """From now on (main thread) SIGINT and SIGTERM stop the server gracefully, even one
        arriving before ``serve_forever`` has started (right after the URL is printed)."""
        if threading.current_thread() is threading.main_thread():  # (signals are the main thread's)
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old_handlers.setdefault(sig, signal.signal(sig, self._server.handle_exit))

    def serve_forever(self) -> None:
        self._serving.set()
        try:
            self._server.run(sockets=[self.socket])
        finally:
            self._done.set()

    def shutdown(self) -> None:
        """Stop serving (open event streams end, requests in flight get a few seconds) and
        wait for ``serve_forever`` to return."""
        self.stopping.set()
        self._server.should_exit = True
        if self._serving.is_set():
            self._done.wait(30)

    def server_close(self) -> None:
        self.tables.close()
        self.socket.close()
        while self._old_handlers:  # as they were before stop_on_signals
            sig, handler = self._old_handlers.popitem()
            signal.signal(sig, handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host_port(host, port)}/"


def make_server(db: str | os.PathLike, host: str = "127.0.0.1", port: int = 8080, **options: Any) -> WebServer:
    """A web server over the store ``db`` (checked first); call ``serve_forever()``.
    ``options``: ``play_limit``, ``play_per_client``, ``play_clock`` (seconds a decision), ``play_arbiter``
    (a standing arbiter whose connected bots are offered: ``seat.StandingArbiter``) of /play;
    ``verbose`` (a line per request, tracebacks of errors).

    What a first request would otherwise pay is paid here, before it listens: the worker
    threads' module (anyio's asyncio backend, imported by the first page that reads the
    store: 0.14 s of a first inspector request, cProfile), the pages' templates (compiled
    by each page's first request: 0.29 s of a first replay page; all of them take 0.13
    CPU-s), and the replays of the matches of the newest stored analyses
    (``inspector.warm``), their inspector pages' and their analysed seats' replay pages:
    those pages replay nothing."""
    path = check_store(db)
    # (in a thread of its own: `arbiter arena` makes its server inside a running event loop)
    loader = threading.Thread(target=anyio.run, args=(anyio.to_thread.run_sync, lambda: None), name="anyio-load")
    loader.start()
    loader.join()
    for name in _env.list_templates():
        _env.get_template(name)
    for match_id, seat in inspector.warm(path):
        _replay(str(path), match_id, seat, False)
    return WebServer(path, host, port, **options)


def serve_in_thread(db: str | os.PathLike, host: str = "127.0.0.1", port: int = 0,
                    **options: Any) -> tuple[WebServer, threading.Thread]:
    """Start serving in a daemon thread (for embedding and tests); ``shutdown()`` then
    ``server_close()`` to stop."""
    server = make_server(db, host, port, **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="arbiter-web")
    thread.start()
    return server, thread
