"""The replay inspector: ``/m/<match_id>/inspect?seat=S&d=N`` steps through seat S's
decisions of a stored match as that seat saw them, with its stored analysis.

Each decision shows the seat's own view (rebuilt by replaying the record from the seat's
viewpoint: ``arbiter.analysis.reask.decisions``, never another seat's hidden cards), the
events it was shown since its previous decision, its legal actions, the action played, each
valued action with its 95% interval and the verdict (``arbiter.analysis.stored``), its think
time (the arbiter's wall time beside the bot's own word, the difference being the
transport), a chart of the chosen action's value through the match, and the bot's note
when ``cardarena.disclosure.notes_visible`` lets a reader stepping as that seat see it.
Left/right arrows (or j/k) step; the script carries the response's CSP nonce.

The web server reads the store read-only. A seat with no stored analysis gets a button
(a POST to the same address: ``start_analysis``) that computes one in a writer thread with
its own writable store (``arbiter.analysis.jobs``); the page then shows its progress
(reloading itself every ``REFRESH_SECONDS``) and, once stored, the analysis as usual. The
page also gives the command that stores it (``arbiter analyse MATCH --seat S``).
"""

from __future__ import annotations

import functools
import hashlib
import math
import urllib.parse
from shlex import quote
from pathlib import Path
from typing import Any, Callable, Iterable

import jinja2
from markupsafe import Markup

from arbiter.analysis import jobs
from arbiter.analysis.reask import DecisionPoint, decisions
from arbiter.analysis.stored import Analysed, costliest_of, current_analysis, from_json, settings_words
from arbiter.analysis.values import UNITS, meaning, unsure_at_best
from arbiter.present.table import TABLE_STYLE, render_table, shown, table_model, verdict
from arbiter.store.analyses import recent_analyses
from arbiter.store.db import MatchRow, Store, StoreError, store_unwritable
from cardarena import disclosure
from cardarena.records import MatchRecord, number
from cardarena.replay import ReplayError, ReplayStep, step_number, step_record

__all__ = ["InspectError", "costliest_html", "inspect_page", "inspect_url", "is_inspect_path", "start_analysis"]

#: While an analysis job runs, its page reloads itself this often (a meta refresh: no script).
REFRESH_SECONDS = 2


#: Replays kept (per seat's decisions, and spectators' steps): ``warm`` fills them at startup.
CACHED = 16


class InspectError(Exception):
    """A page that cannot be shown: ``status`` and why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def inspect_url(match_id: str, seat: int, number: int | None = None) -> str:
    q = {"seat": seat} | ({"d": number} if number is not None else {})
    return f"/m/{urllib.parse.quote(match_id)}/inspect?" + urllib.parse.urlencode(q)


def _replayed(path: str, match_id: str, steps: Callable[[MatchRecord], Iterable[Any]]) -> tuple[MatchRecord, tuple, str]:
    """The record of ``match_id`` and what ``steps`` replays of it, with the error if the
    record stops replaying (what was replayed before it is kept)."""
    store = Store(Path(path), read_only=True)
    try:
        record, _ = store.read_match(match_id)
    finally:
        store.close()
    out: list[Any] = []
    error = ""
    try:
        out.extend(steps(record))
    except ReplayError as exc:
        error = str(exc)
    return record, tuple(out), error


@functools.lru_cache(maxsize=CACHED)
def _points(path: str, match_id: str, seat: int, stamp: str) -> tuple[MatchRecord, tuple[DecisionPoint, ...], str]:
    """The record and ``seat``'s decisions in it (its view at each), replayed once per
    record (``stamp``: its fingerprint, ``_stamp``); the error if it stops replaying."""
    return _replayed(path, match_id, lambda record: decisions(record, seat))


@functools.lru_cache(maxsize=CACHED)
def _spectator_steps(path: str, match_id: str, stamp: str) -> tuple[MatchRecord, tuple[ReplayStep, ...], str]:
    """The record and every step of it as a spectator sees it (``step_record`` with no
    seat: the one disclosure of the replay), replayed once per record (``stamp``)."""
    return _replayed(path, match_id, lambda record: step_record(record, None))


def chart_svg(rows: list[Analysed], current: int, width: int = 560, height: int = 150) -> Markup:
    """The chosen action's value (mean, with its ±1.96 s.e. band) at each valued decision;
    mistakes red, the current decision ringed."""
    pts = [(r.number, v.mean, v.se) for r in rows if (v := r.chosen_value) is not None]
    if not pts:
        return Markup('<p class="muted small" id="chart">No valued decision to chart.</p>')
    lo = min(m - (1.96 * s if math.isfinite(s) else 0) for _, m, s in pts)
    hi = max(m + (1.96 * s if math.isfinite(s) else 0) for _, m, s in pts)
    if hi - lo < 1e-9:
        lo, hi = lo - 1, hi + 1
    n_max = max(r.number for r in rows) or 1
    pad = 30

    def x(n: int) -> float:
        return pad + (width - 2 * pad) * (n - 1) / max(1, n_max - 1)

    def y(v: float) -> float:
        return height - 18 - (height - 30) * (v - lo) / (hi - lo)

    out = [f'<svg id="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="the seat\'s expected outcome through the match">',
           f'<text x="2" y="12" font-size="10" fill="#667085">{hi:.0f}</text>',
           f'<text x="2" y="{height - 20}" font-size="10" fill="#667085">{lo:.0f}</text>']
    if lo < 0 < hi:
        out.append(f'<line x1="{pad}" x2="{width - pad}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#d0d5dd" stroke-dasharray="3 3"/>')
    for n, m, s in pts:
        if math.isfinite(s) and s > 0:
            out.append(f'<line x1="{x(n):.1f}" x2="{x(n):.1f}" y1="{y(m - 1.96 * s):.1f}" y2="{y(m + 1.96 * s):.1f}" stroke="#c7d2fe" stroke-width="3"/>')
    out.append('<polyline fill="none" stroke="#2f5bd3" stroke-width="1.5" points="'
               + " ".join(f"{x(n):.1f},{y(m):.1f}" for n, m, _ in pts) + '"/>')
    verdicts = {r.number: r.verdict for r in rows}
    for n, m, _ in pts:
        colour = "#c62828" if verdicts.get(n) == "mistake" else "#2f5bd3"
        ring = ' stroke="#111" stroke-width="2"' if n == current else ""
        out.append(f'<circle cx="{x(n):.1f}" cy="{y(m):.1f}" r="{5 if n == current else 3}" fill="{colour}"{ring}>'
                   f'<title>decision {n}: {m:.1f}</title></circle>')
    out.append(f'<text x="{pad}" y="{height - 3}" font-size="10" fill="#667085">decision 1</text>'
               f'<text x="{width - pad}" y="{height - 3}" font-size="10" fill="#667085" text-anchor="end">{n_max}</text></svg>')
    return Markup("".join(out))


_env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, finalize=shown)  # (table.shown)
_env.filters["shell"] = quote  # a command to paste: a store path with a space is one argument
#: Both inspector pages step with the keyboard: ← → or j k follow the prev / next links.
_KEYS = """<script nonce="{{ nonce }}">
document.addEventListener("keydown", function (e) {
  var id = {ArrowLeft: "prev", ArrowRight: "next", k: "prev", j: "next"}[e.key];
  var a = id && document.getElementById(id);
  if (a) { window.location = a.href; }
});
</script></body></html>
"""


_PAGE = _env.from_string("""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
{% if job and not job.finished %}<meta http-equiv="refresh" content="{{ refresh }}">{% endif %}
<title>Inspect seat {{ seat }} · {{ r.match_id }} · Card Arena</title>
<style>
body { margin:0; font:15px/1.45 system-ui, sans-serif; color:#1d2330; background:#f8f9fb; }
header { background:#1d2330; color:#fff; padding:10px 24px; } header a { color:#fff; font-weight:600; text-decoration:none; }
header .crumbs a { color:#c9d3ff; font-weight:400; }
main { max-width:1180px; margin:0 auto; padding:18px 24px 48px; }
h1 { font-size:22px; margin:8px 0 4px; } h2 { font-size:17px; margin:20px 0 8px; }
.muted { color:#667085; } .small { font-size:13px; }
table { border-collapse:collapse; background:#fff; border:1px solid #e4e7ec; }
th, td { padding:5px 10px; border-bottom:1px solid #e4e7ec; text-align:left; } th { background:#f1f3f7; font-size:13px; }
td.num { text-align:right; font-variant-numeric:tabular-nums; }
tr.chosen td { font-weight:600; background:#eef2ff; } tr.best td:first-child::after { content:" ★"; color:#b54708; }
.nav { display:flex; gap:8px; align-items:center; margin:10px 0; flex-wrap:wrap; }
.nav a, .nav span.off { padding:4px 10px; border:1px solid #e4e7ec; border-radius:5px; background:#fff; text-decoration:none; color:#2f5bd3; }
.nav span.off { color:#b0b6c0; } .nav a.on { background:#2f5bd3; color:#fff; }
.pill { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px; background:#eef2ff; color:#3538cd; }
.pill.mistake { background:#fef3f2; color:#b42318; } .pill.fine { background:#ecfdf3; color:#027a48; } .pill.unsure { background:#fffaeb; color:#b54708; }
.layout { display:grid; grid-template-columns:minmax(0,1fr) 320px; gap:18px; }
.events { color:#175cd3; padding-left:18px; } .error { background:#fef3f2; border:1px solid #fecdca; padding:8px 12px; }
pre.note { background:#fff; border:1px solid #e4e7ec; padding:6px 8px; white-space:pre-wrap; font-size:13px; }
code { background:#f1f3f7; padding:1px 4px; }
@media (max-width:760px) { .layout { grid-template-columns:1fr; } }
</style>{{ table_style }}</head>
<body><header><a href="/">Card Arena</a> <span class="crumbs">{% if home %}/ <a href="{{ home[1] }}">{{ home[0] }}</a> {% endif %}/ <a href="{{ replay_url }}">{{ r.match_id }}</a> / inspect seat {{ seat }}</span></header>
<main>
<h1>{{ r.game }} · match {{ r.match_id }} · seat {{ seat }} ({{ r.seat_names[seat] }})</h1>
<p class="muted small">Every decision of seat {{ seat }} as it saw it: its own view, never another seat's hidden cards.
Values in {{ units }}. <a href="{{ replay_url }}">The replay</a>.</p>
<p class="small" id="result">{{ result }}</p>
<div class="nav" id="seats">as: <a href="{{ spectator_url }}">spectator</a>{% for s in range(r.seat_names|length) %}<a href="{{ url(s, None) }}" class="{{ 'on' if s == seat else '' }}">seat {{ s }}</a>{% endfor %}</div>
{% if error %}<p class="error" id="replay-error">The record stops replaying: {{ error }}</p>{% endif %}
{% if not points %}<p id="no-decisions">Seat {{ seat }} had no decision in this match.</p>{% else %}
<div class="nav" id="stepnav">
{% if p.number > 1 %}<a id="prev" href="{{ url(seat, p.number - 1) }}" rel="prev">◀ prev</a>{% else %}<span class="off">◀ prev</span>{% endif %}
<span>decision <strong id="decision">{{ p.number }}</strong> of <span id="decisions">{{ points|length }}</span> ({% if p.step < r.actions|length %}<a id="step" href="{{ replay_url }}&amp;step={{ step_number(p.step) }}">step {{ step_number(p.step) }}</a>{% else %}after step {{ r.actions|length }}, the last{% endif %})</span>
{% if p.number < points|length %}<a id="next" href="{{ url(seat, p.number + 1) }}" rel="next">next ▶</a>{% else %}<span class="off">next ▶</span>{% endif %}
<span class="muted small">← → or j k</span></div>
{% if not rows %}{% if job and not job.finished %}<p id="analysing" class="small">Analysing seat {{ seat }}: <strong id="progress">{{ job.done }}</strong> of {{ job.total }} decisions valued
<progress max="{{ job.total or 1 }}" value="{{ job.done }}"></progress> <span class="muted">(this page reloads every {{ refresh }} s)</span></p>
{% else %}<div id="no-analysis" class="error">{% if job and job.error %}<p id="analysis-error">The analysis stopped: {{ job.error }}</p>{% endif %}
<p>No analysis of seat {{ seat }} is stored for this match.</p>
{% if unwritable %}<p id="read-only">This store cannot be written ({{ unwritable }}), so no analysis can be stored in it:
<code>arbiter analyse {{ r.match_id|shell }} --seat {{ seat }} --db {{ db|string|shell }}</code> prints one without storing it (or analyse a writable copy and serve that).</p>
{% elif can_start %}<form method="post" action="{{ url(seat, p.number) }}"><button id="analyse" type="submit">Analyse seat {{ seat }} now</button>
<span class="muted small">(computed here in the background, then stored; or store one with
<code>arbiter analyse {{ r.match_id|shell }} --seat {{ seat }} --db {{ db|string|shell }}</code>)</span></form>
{% else %}<p>Store one with <code>arbiter analyse {{ r.match_id|shell }} --seat {{ seat }} --db {{ db|string|shell }}</code>, then reload.</p>{% endif %}</div>{% endif %}
{% else %}<p class="small muted" id="analysis-settings">Analysis: {{ settings }}{% if mistakes %} · <span class="pill mistake">{{ mistakes }} mistake{{ '' if mistakes == 1 else 's' }}</span>{% endif %}</p>
<p class="small muted" id="analysis-meaning">{{ meaning }}</p>
{{ chart }}{% endif %}
<div class="layout"><div>
{% if p.events %}<ul class="events" id="events">{% for e in p.events %}<li>{{ e.text }}</li>{% endfor %}</ul>{% endif %}
{{ felt }}
</div><div>
<h2>Decision {{ p.number }}{% if a and a.verdict %} <span class="pill {{ a.verdict }}" id="verdict">{{ a.verdict }}</span>{% endif %}</h2>
<p>played <strong id="played">{{ p.played or '(nothing: the match ended)' }}</strong>{% if p.forced %} <span class="muted">(by the arbiter: {{ p.forced }})</span>{% endif %}</p>
<p class="small" id="think">think time: {{ p.ms }} ms at the arbiter{% if bot_us is not none %}, {{ '%.1f'|format(bot_us / 1000) }} ms by the bot's word (the rest: transport){% endif %}</p>
{% if a and a.values %}<table id="values"><tr><th>action</th><th class="num">value ± 1.96 s.e.</th><th class="num">n</th></tr>
{% for v in a.values %}<tr class="{{ 'chosen' if v.action == a.chosen else '' }} {{ 'best' if loop.first else '' }}"><td>{{ v.action }}{% if v.same_as %} <span class="muted small">(the same play as {{ v.same_as }})</span>{% endif %}</td>
<td class="num">{{ '%.1f'|format(v.mean) }} ± {{ ci(v.se) }}</td><td class="num">{{ v.n }}</td></tr>{% endfor %}</table>
<p class="small" id="loss">loss {{ '%.1f'|format(a.loss) }}, s.e. {{ '%.1f'|format(a.loss_se) }}, against the best valued; {{ a.values|length }} of {{ a.legal_count }} legal actions valued (or the same play as one valued) on {{ a.samples }} sampled states</p>
{% if a.verdict == 'unsure' and a.played_best %}<p class="small muted" id="unsure-why">{{ unsure_at_best }}</p>{% endif %}
{% elif a %}<p class="muted small">Not valued{% if a.note %}: {{ a.note }}{% endif %}.</p>{% endif %}
<h2>Legal actions ({{ p.legal|length }})</h2><p class="small" id="legal">{{ p.legal|map('string')|join(' · ') }}</p>
{% if note is not none %}<h2>The bot's note</h2><pre class="note" id="note">{{ note or '(none)' }}</pre>{% endif %}
</div></div>{% endif %}
</main>
""" + _KEYS)


_SPECTATOR = _env.from_string("""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Inspect as a spectator · {{ r.match_id }} · Card Arena</title>
<style>
body { margin:0; font:15px/1.45 system-ui, sans-serif; color:#1d2330; background:#f8f9fb; }
header { background:#1d2330; color:#fff; padding:10px 24px; } header a { color:#fff; font-weight:600; text-decoration:none; }
header .crumbs a { color:#c9d3ff; font-weight:400; }
main { max-width:1180px; margin:0 auto; padding:18px 24px 48px; }
h1 { font-size:22px; margin:8px 0 4px; } h2 { font-size:17px; margin:20px 0 8px; } .muted { color:#667085; } .small { font-size:13px; }
.nav { display:flex; gap:8px; align-items:center; margin:10px 0; flex-wrap:wrap; }
.nav a, .nav span.off { padding:4px 10px; border:1px solid #e4e7ec; border-radius:5px; background:#fff; text-decoration:none; color:#2f5bd3; }
.nav span.off { color:#b0b6c0; } .nav a.on { background:#2f5bd3; color:#fff; }
.layout { display:grid; grid-template-columns:minmax(0,1fr) 320px; gap:18px; }
.events { color:#175cd3; padding-left:18px; } .error { background:#fef3f2; border:1px solid #fecdca; padding:8px 12px; }
@media (max-width:760px) { .layout { grid-template-columns:1fr; } }
</style>{{ table_style }}</head>
<body><header><a href="/">Card Arena</a> <span class="crumbs">{% if home %}/ <a href="{{ home[1] }}">{{ home[0] }}</a> {% endif %}/ <a href="{{ replay_url }}">{{ r.match_id }}</a> / inspect as a spectator</span></header>
<main>
<h1>{{ r.game }} · match {{ r.match_id }} · as a spectator</h1>
<p class="muted small">Every decision of the match as a spectator saw it: no seat's hidden cards, no seat's analysis or
notes (they come from a seat's own view: step as that seat to see them). <a href="{{ replay_url }}">The replay</a>.</p>
<div class="nav" id="seats">as: <a class="on" href="{{ url(None, None) }}">spectator</a>{% for s in range(r.seat_names|length) %}<a href="{{ url(s, None) }}">seat {{ s }}</a>{% endfor %}</div>
{% if error %}<p class="error" id="replay-error">The record stops replaying: {{ error }}</p>{% endif %}
{% if not n %}<p id="no-decisions">No decision was played in this match.</p>{% else %}
<div class="nav" id="stepnav">
{% if d > 1 %}<a id="prev" href="{{ url(None, d - 1) }}" rel="prev">◀ prev</a>{% else %}<span class="off">◀ prev</span>{% endif %}
<span>decision <strong id="decision">{{ d }}</strong> of <span id="decisions">{{ n }}</span> (<a id="step" href="{{ replay_url }}&amp;step={{ step_number(d - 1) }}">step {{ step_number(d - 1) }}</a>)</span>
{% if d < n %}<a id="next" href="{{ url(None, d + 1) }}" rel="next">next ▶</a>{% else %}<span class="off">next ▶</span>{% endif %}
<span class="muted small">← → or j k</span></div>
<div class="layout"><div>
{% if before.events %}<ul class="events" id="events">{% for e in before.events %}<li>{{ e.text }}</li>{% endfor %}</ul>{% endif %}
{{ felt }}
</div><div>
<h2>Decision {{ d }}: seat {{ after.seat }} ({{ r.seat_names[after.seat] }})</h2>
<p>played <strong id="played">{{ after.action }}</strong>{% if after.forced %} <span class="muted">(by the arbiter: {{ after.forced }})</span>{% endif %}</p>
<p class="small" id="think">think time: {{ after.ms }} ms at the arbiter</p>
<p class="small"><a id="as-seat" href="{{ seat_url }}">this decision as seat {{ after.seat }} saw it</a></p>
</div></div>{% endif %}
</main>
""" + _KEYS)


def _spectator_page(store: Store, row: MatchRow, query: dict[str, list[str]], nonce: str) -> str:
    """The spectator's inspector: every decision of the match, the board as a spectator saw
    it before the decision (``step_record`` with no seat), the action as a spectator was
    told it; no values, verdicts or notes (those come from the acting seat's own view)."""
    match_id = row.match_id
    try:
        record, steps, error = _spectator_steps(str(store.path), match_id, _stamp(row))
    except StoreError as exc:
        raise InspectError(500, str(exc)) from None
    n = max(0, len(steps) - 1)
    raw = (query.get("d") or ["1"])[0]
    d = (number(raw) or 0) if n else 0
    if n and not 1 <= d <= n:
        raise InspectError(400, f"d must be a decision of the match from 1 to {n}, got {raw[:20]!r}")
    before, after = (steps[d - 1], steps[d]) if n else (None, None)
    felt = Markup("")
    seat_url = ""
    if before is not None:
        model = table_model(record.game, before.view, record.seat_names, me=None, options=dict(record.options))
        felt = render_table(model, interactive=False)
        mine = [i for i, a in enumerate(record.actions[: d]) if a.seat == after.seat]
        seat_url = inspect_url(match_id, after.seat, len(mine))

    def url(s: int | None, k: int | None) -> str:
        if s is None:
            q = {"seat": "spectator"} | ({"d": k} if k is not None else {})
            return f"/m/{urllib.parse.quote(match_id)}/inspect?" + urllib.parse.urlencode(q)
        return inspect_url(match_id, s, k)

    return _SPECTATOR.render(r=record, d=d, n=n, step_number=step_number, before=before, after=after, felt=felt, url=url, error=error,
                             seat_url=seat_url, table_style=Markup(TABLE_STYLE), nonce=nonce,
                             replay_url=f"/m/{urllib.parse.quote(match_id)}?view=spectator", home=_home(store, row))


def inspect_page(store: Store, match_id: str, query: dict[str, list[str]], nonce: str) -> str:
    """The inspector page (``query``: ``seat``, ``d`` the decision from 1). InspectError
    for no such match (404), a bad query (400), a withheld match (403)."""
    try:
        row = store.match(match_id)  # the record is parsed (and replayed) once, cached: _points
        store.disclosure_of(row).require_match(match_id)
    except StoreError as exc:
        raise InspectError(404, str(exc)) from None
    except disclosure.Withheld as exc:
        raise InspectError(403, str(exc)) from None
    if (query.get("seat") or [""])[0] == "spectator":
        return _spectator_page(store, row, query, nonce)
    seat = _seat(query)
    if not 0 <= seat < len(row.seats):
        raise InspectError(400, f"seat {seat}: match {match_id!r} has seats 0 to {len(row.seats) - 1}")
    try:
        record, points, error = _points(str(store.path), match_id, seat, _stamp(row))
    except StoreError as exc:
        raise InspectError(500, str(exc)) from None
    raw = (query.get("d") or ["1"])[0]
    p = None
    if points:
        d = number(raw) or 0
        if not 1 <= d <= len(points):
            raise InspectError(400, f"d must be a decision of seat {seat} from 1 to {len(points)}, got {raw[:20]!r}")
        p = points[d - 1]
    stored = current_analysis(store, match_id, seat)
    rows: list[Analysed] = []
    if stored is not None:
        try:
            rows = from_json(stored.rows_json)
        except ValueError:
            rows = []
    job = jobs.JOBS.get(store.path, match_id, seat)
    if rows and job is not None:
        jobs.JOBS.forget(store.path, match_id, seat)
        job = None
    a = next((r for r in rows if p is not None and r.number == p.number), None)
    act = record.actions[p.step] if p is not None and p.step < len(record.actions) else None
    note = act.note if act is not None and disclosure.notes_visible(seat, seat, False) else None
    felt = Markup("")
    if p is not None:
        model = table_model(record.game, p.view, record.seat_names, me=seat, legal=p.legal, options=dict(record.options))
        felt = render_table(model, interactive=False)

    def url(s: int, n: int | None) -> str:
        return inspect_url(match_id, s, n)

    return _PAGE.render(
        r=record, seat=seat, p=p, points=points, error=error, step_number=step_number, rows=rows, a=a, note=note, felt=felt, url=url,
        job=job, refresh=REFRESH_SECONDS, can_start=jobs.JOBS.samples > 0,
        unwritable=store_unwritable(store.path) if not rows else "",
        spectator_url=f"/m/{urllib.parse.quote(match_id)}/inspect?seat=spectator",
        bot_us=act.bot_us if act is not None else None, units=UNITS.get(record.game, "points"), meaning=meaning(record.game),
        unsure_at_best=unsure_at_best(record.game),
        settings=settings_words(stored.settings) if stored else "", mistakes=sum(r.mistake for r in rows),
        chart=chart_svg(rows, p.number if p else 0), table_style=Markup(TABLE_STYLE), nonce=nonce, db=store.path,
        replay_url=f"/m/{urllib.parse.quote(match_id)}?view=seat{seat}", home=_home(store, row),
        # how the match ended: a forfeit (a crash, a timeout) shows in no decision's value, only
        # as "nothing: the match ended" at the last one; the sentence of the replay's banner
        result=verdict(record.game, record.outcome, record.seat_names, options=dict(record.options)),
        ci=lambda se: f"{1.96 * se:.1f}" if math.isfinite(se) else "∞",
    )


def _home(store: Store, row: MatchRow) -> tuple[str, str] | None:
    """(name, URL) of what the match belongs to, for the crumbs: its tournament's page or its
    arena's leaderboard, as the replay's crumbs lead (None: neither can be read)."""
    from arbiter.store.arenas import Arenas

    try:
        if row.arena_id is not None:
            a = Arenas(store).arena(row.arena_id)
            return a.name, f"/a/{urllib.parse.quote(a.name)}"
        if row.tournament_id is not None:
            t = store.tournament(row.tournament_id)
            return t.name, f"/t/{t.id}"
    except StoreError:
        pass
    return None


def is_inspect_path(path: str) -> bool:
    """Whether ``path`` is an inspector page's (``/m/MATCH/inspect``)."""
    parts = [p for p in urllib.parse.urlsplit(path).path.split("/") if p]
    return len(parts) == 3 and parts[0] == "m" and parts[2] == "inspect"


def start_analysis(store: Store, match_id: str, query: dict[str, list[str]]) -> str:
    """Start computing ``seat``'s analysis of ``match_id`` in the background (the POST of
    the page's button): the page's address to go back to. InspectError as the page's own,
    and 429 while another analysis runs."""
    try:
        row = store.match(match_id)
        store.disclosure_of(row).require_match(match_id)
    except StoreError as exc:
        raise InspectError(404, str(exc)) from None
    except disclosure.Withheld as exc:
        raise InspectError(403, str(exc)) from None
    if (query.get("seat") or [""])[0] == "spectator":
        raise InspectError(400, f"a spectator makes no decisions to analyse: give a seat, 0 to {len(row.seats) - 1}")
    seat = _seat(query)
    if not 0 <= seat < len(row.seats):
        raise InspectError(400, f"seat {seat}: match {match_id!r} has seats 0 to {len(row.seats) - 1}")
    try:
        _, points, _ = _points(str(store.path), match_id, seat, _stamp(row))
    except StoreError as exc:
        raise InspectError(500, str(exc)) from None
    if current_analysis(store, match_id, seat) is None:
        why = store_unwritable(store.path)
        if why:  # the job could compute it but not store it: refused, as the page says
            raise InspectError(403, f"{store.path} cannot be written ({why}): no analysis can be stored in it; "
                                    f"`arbiter analyse {match_id} --seat {seat}` prints one without storing it")
        try:
            jobs.JOBS.start(store.path, match_id, seat, len(points))
        except jobs.Busy as exc:
            raise InspectError(429, f"{exc}; try again when it ends") from None
        except jobs.Off as exc:
            raise InspectError(403, str(exc)) from None
    raw = (query.get("d") or [""])[0]
    return inspect_url(match_id, seat, number(raw))


def _stamp(row: MatchRow) -> str:
    """The stored record's fingerprint (a hash of its text, read with the row anyway): a
    cached replay is used while the record is the same, whatever else the store gains (an
    analysis stored by a job, an arena's new matches)."""
    return hashlib.blake2b(row.record_json.encode(), digest_size=16).hexdigest()


def warm(path: Path, limit: int = CACHED) -> list[tuple[str, int]]:
    """Replay, into the caches, the matches of the ``limit`` newest stored analyses (each
    analysed seat's decisions and the spectator's steps), so that no page of theirs pays
    for the replay (``arbiter web`` calls it before it listens). The (match id, seat)
    replayed; a match that cannot be read or is withheld is skipped (its page says why)."""
    done: list[tuple[str, int]] = []
    try:
        store = Store(path, read_only=True)
    except StoreError:
        return done
    try:
        for match_id, seat in recent_analyses(store, limit):
            try:
                row = store.match(match_id)
                store.disclosure_of(row).require_match(match_id)
                _points(str(store.path), match_id, seat, _stamp(row))
                _spectator_steps(str(store.path), match_id, _stamp(row))
                done.append((match_id, seat))
            except (StoreError, disclosure.Withheld):
                continue
    finally:
        store.close()
    return done


def _seat(query: dict[str, list[str]]) -> int:
    raw = (query.get("seat") or ["0"])[0]
    seat = number(raw)
    if seat is None:
        raise InspectError(400, f"seat must be a seat number or spectator, got {raw[:20]!r}")
    return seat


_COSTLY = _env.from_string("""<h2>Costliest decisions</h2>
{% if not n %}<p class="muted small" id="no-costly">No analysed match yet: <code>arbiter analyse MATCH --seat S</code> stores one
(then this lists the decisions that cost most, each opening the inspector).</p>
{% elif not found %}<p class="muted small" id="no-costly">Every analysed decision lost nothing against the best valued action, in {{ n }} analysed match{{ '' if n == 1 else 'es' }}.</p>
{% else %}<table id="costliest"><tr><th>match</th><th class="num">seat</th><th class="num">#</th><th>played</th><th>best</th><th class="num">loss ± s.e.</th><th></th></tr>
{% for c in found %}<tr class="costly"><td><a href="{{ url(c.match_id, c.seat, c.row.number) }}">{{ c.match_id }}</a></td><td class="num">{{ c.seat }}</td>
<td class="num">{{ c.row.number }}</td><td>{{ c.row.played }}</td><td>{{ c.row.best }}</td>
<td class="num">{{ '%.1f'|format(c.row.loss) }} ± {{ '%.1f'|format(c.row.loss_se) }}</td><td>{{ c.row.verdict }}</td></tr>{% endfor %}</table>
<p class="muted small">From {{ n }} analysed match{{ '' if n == 1 else 'es' }}; mistakes first, then by loss.</p>{% endif %}""")


def costliest_html(store: Store, players: list[str], top: int = 5, within: set[str] | None = None) -> Markup:
    """A bot's page's list of its costliest analysed decisions (``players``: the names it
    sat under, one per version; ``within``: only these matches, a tournament's), each a
    link into the inspector."""
    found, n = costliest_of(store, players, top, within=within)
    return Markup(_COSTLY.render(found=found, n=n, url=inspect_url))
