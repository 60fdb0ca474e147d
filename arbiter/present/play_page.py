"""The pages of a person's seat (``arbiter web``'s ``/play``): start a match against bots,
play the seat by clicking, see the events and the result.

The match itself is hosted by ``arbiter.person.tables`` (the runner, bot processes,
the clock, the store). This module only turns requests into calls on it and its
``Snapshot`` into HTML: every page of a seat is rendered from that seat's snapshot, so
it carries the seat's view, its legal actions, its events and public information, and
nothing else. The seat's page is a card table (``arbiter.present.table``, which replays
draw too); everything on it that changes is one ``<div id="live">`` whose inner HTML
``live_fragment()`` renders. The page is live (``arbiter.present.web``'s one script): the
live part is swapped in from the page's event stream (``/play/ID?events=1``, its cookie
checked like the page's), whose each event, when the match moved, carries the part as the
page would show it; ``data-live-end`` in it (the match over and its record stored) ends the stream. The
table's own script (``TABLE_SCRIPT``) acts with ``fetch`` (the plain form is the
fallback) and binds its handlers on the document, so they outlive each swap; in a browser
without EventSource (no stream) it fetches the live part itself after each action
(``?fragment=1``).

The form that starts a match is drawn from the game's option schema (``option_fields``:
check boxes, selects, number boxes with the range the game accepts, the help text).

Routes (GET unless said): ``/play`` the form (game, preset, options, seats and bots;
``?game=...&o.NAME=...`` fills it in), POST ``/play/new`` starts a match and sets the
seat's cookie, ``/play/ID`` the seat's page, POST ``/play/ID/act`` (``request``,
``action``) answers a decision.

Security: the seat token is a cookie (``HttpOnly``, ``SameSite=Strict``, scoped to the
match's path), never in a URL, so it is in no log, history or Referer; every request for
a seat checks it (``Tables.get``: "not yours" and "not there" are the same 404). A POST
that says it comes from another site, or from an opaque origin (``Origin: null``), is
refused; one client starts one match at a time and plays at most ``Tables.per_client``.
"""

from __future__ import annotations

import enum
import html
import http.cookies
import logging
import re
import typing
import urllib.parse
from dataclasses import dataclass
from typing import Any, Mapping

import jinja2
from markupsafe import Markup

from arbiter.present.boards import board
from arbiter.present.table import (TABLE_SCRIPT, TABLE_STYLE, render_table, say, seat_labels, seat_place, table_model, told_once,
                                   verdict)
from arbiter.batch.settings import not_carried
from arbiter.person.tables import (DEFAULT_DECISION_SECONDS, DEFAULT_LIMIT, DEFAULT_PER_CLIENT, OFF, Snapshot, TableError, Tables,
                                   table_games)
from cardarena.games import GAMES, ConfigError, GameError, game_class, get_game
from cardarena.games.base import option_specs, value_text
from cardarena.games.options import EMPTY, type_hints
from cardarena.records import clip, number

log = logging.getLogger(__name__)

__all__ = ["DEFAULT_DECISION_SECONDS", "DEFAULT_LIMIT", "DEFAULT_PER_CLIENT", "Request", "Tables", "handle", "is_play_path", "seat_match", "seat_version"]

#: Largest request body taken (a form of a few fields).
MAX_BODY = 16 * 1024

#: How long a POST waits for the match to move (for the seat's next decision) before it
#: answers anyway.
WAIT_SECONDS = 20.0

COOKIE = "seat"



def is_play_path(path: str) -> bool:
    p = urllib.parse.urlsplit(path).path
    return p == "/play" or p.startswith("/play/")


# --------------------------------------------------------------------------------------
# Templates (they extend the site's base template, handed in with its environment).

_STYLE = """<style>
#events { padding:4px 0; margin:0; } #events li { padding:1px 8px; }
#status p { margin:4px 0; }
.turn { background:#ecfdf3; border:1px solid #abefc6; padding:6px 12px; border-radius:6px; }
.banner { font-size:17px; padding:10px 14px; } .banner.lost { background:#fef3f2; border-color:#fecdca; }
.banner strong { display:block; font-size:20px; }
details#events-box { margin:8px 0; } details#events-box summary { cursor:pointer; font-weight:600; }
.wait { background:#eef2ff; border:1px solid #c7d7fe; padding:6px 12px; border-radius:6px; }
#live.busy #board { opacity:.75; }
h1.play { margin:0 0 2px; font-size:20px; } #seating { margin:0 0 6px; font-size:13px; }
details#fallback { margin:8px 0; font-size:13px; } details#fallback select { max-width:100%; }
form.new #preset { max-width:100%; }
form.new .cols { display:grid; grid-template-columns:minmax(0,1fr) minmax(0,1.3fr); gap:18px; align-items:start; }
form.new h2 { margin:10px 0 6px; }
form.new #options { display:grid; grid-template-columns:repeat(auto-fill,minmax(250px,1fr)); gap:6px 14px; background:#fff;
  border:1px solid var(--line); border-radius:6px; padding:8px 10px; }
form.new .opt label { font-weight:600; font-size:13px; } form.new .opt .help { font-size:12px; color:var(--muted); }
form.new .opt input[type=number], form.new .opt input[type=text], form.new .opt select { width:11em; font:inherit; }
form.new .you-here { font-weight:600; }
#start { font-size:16px; padding:8px 18px; background:var(--accent); color:#fff; border:none; border-radius:6px; cursor:pointer; }
#start[disabled] { background:#98a2b3; }
@media (max-width:700px) { form.new .cols { grid-template-columns:minmax(0,1fr); } body main { padding:8px 6px 32px; }
  h1.play { font-size:16px; } #seating { font-size:12px; } #status p { font-size:13px; padding:4px 8px; } }
</style>"""

_NEW = """{% extends "base" %}
{% block title %}Play a seat · Card Arena{% endblock %}
{% block head %}""" + _STYLE + """{% endblock %}
{% block crumbs %}/ play{% endblock %}
{% block body %}
<h1 class="play">Play a seat against bots</h1>
<p class="muted small" id="live-count">{{ live }} of {{ limit }} matches with a person at the table are being played ·
{{ clock }} a decision (past it your side forfeits; so does closing the match's page for a minute at your turn) · the match is recorded in {{ db }} and replays like any other.</p>
{% if not limit %}<p class="error" id="play-off">{{ off }}.</p>{% endif %}
{% if unwritable %}<p class="error" id="store-unwritable">Playing is off: the store {{ db }} cannot be written ({{ unwritable }}),
so a match played here could not be recorded. The rest of the site works.</p>{% endif %}
{% if error %}<p class="error" id="play-error">{{ error }}</p>{% endif %}
<div class="nav" id="games">game:
{% for g in games %}<a href="/play?game={{ g|urlencode }}" class="{{ 'on' if g == game else '' }}">{{ g }}</a>{% endfor %}</div>
<form method="post" action="/play/new" class="new" id="new-match">
<input type="hidden" name="game" value="{{ game }}"><input type="hidden" name="base" value="{{ preset }}">
<div class="cols"><div>
<h2>Seats</h2>
{% if seats_error %}<p class="error">{{ seats_error }}</p>{% else %}
<table id="seats"><tr><th>seat</th><th>you</th><th>player</th></tr>
{% for s in range(seats) %}<tr><td>{{ places[s] }}{% if teams[s] %} <span class="muted small">(side with {{ teams[s] }})</span>{% endif %}</td>
<td><input type="radio" name="seat" value="{{ s }}" id="seat-{{ s }}" aria-label="you sit at {{ places[s] }}" {{ 'checked' if s == seat else '' }}></td>
<td><span class="you-here" id="you-{{ s }}" {{ '' if s == seat else 'hidden' }}>you</span>
<select name="bot.{{ s }}" id="bot-{{ s }}" aria-label="the bot at {{ places[s] }}" {{ 'hidden disabled' if s == seat else '' }}>{% for b in bots %}<option value="{{ b.ref }}" {{ 'selected' if b.ref == chosen.get(s, default_bot) else '' }}>{{ b.ref }} ({{ b.note }})</option>{% endfor %}</select></td></tr>
{% endfor %}</table>
<p><button type="submit" id="start" {{ 'disabled' if unwritable or not limit else '' }}>Start the match</button></p>
<p class="muted small">Each bot runs as a sandboxed process of its own, as in a tournament.</p>{% endif %}
</div><div>
<h2>Variant</h2>
<p><label>preset <select name="preset" id="preset"><option value="">none: the options below</option>
{% for name, doc in presets %}<option value="{{ name }}" {{ 'selected' if name == preset else '' }}>{{ name }}{% if doc %}: {{ doc }}{% endif %}</option>{% endfor %}
</select></label> <button type="submit" formmethod="get" formaction="/play" id="update">Update the seats for these options</button></p>
</div></div>
<h2>Options</h2>
<div id="options">
{% for o in options %}<div class="opt" data-option="{{ o.name }}"><label for="o-{{ o.name }}">{{ o.name }}</label><br>
{% if o.kind == 'bool' %}<input type="hidden" name="o.{{ o.name }}" value="false"><input type="checkbox" id="o-{{ o.name }}" name="o.{{ o.name }}" value="true" {{ 'checked' if o.value == 'true' else '' }}>
{% elif o.kind == 'choice' %}<select id="o-{{ o.name }}" name="o.{{ o.name }}">{% for c in o.choices %}<option value="{{ c }}" {{ 'selected' if c == o.value else '' }}>{{ c }}{{ ' (default)' if c == o.default else '' }}</option>{% endfor %}</select>
{% elif o.kind == 'number' %}<input type="number" id="o-{{ o.name }}" name="o.{{ o.name }}" value="{{ o.value }}" placeholder="{{ o.default }}"{% if o.min is not none %} min="{{ o.min }}"{% endif %}{% if o.max is not none %} max="{{ o.max }}"{% endif %} step="{{ o.step }}">
{% else %}<input type="text" id="o-{{ o.name }}" name="o.{{ o.name }}" value="{{ o.value }}" placeholder="{{ o.default }}">{% endif %}
<span class="muted small">{{ o.range }}</span>
<div class="help">{{ o.help }}</div></div>{% endfor %}
</div>
</form>
<script nonce="{{ nonce }}">
document.addEventListener("change", function (e) {
  if (e.target.name !== "seat") { return; }
  document.querySelectorAll("#seats select").forEach(function (s) {
    var mine = s.id === "bot-" + e.target.value;
    s.hidden = mine; s.disabled = mine;
    var you = document.getElementById("you-" + s.id.slice(4)); if (you) { you.hidden = !mine; }
  });
});
</script>
{% endblock %}
"""

_LIVE = """<div id="status" data-version="{{ s.version }}" data-step="{{ s.step }}" data-over="{{ 1 if s.over else 0 }}"
 data-turn="{{ 1 if s.request_id is not none else 0 }}" data-done="{{ 1 if s.failed or s.stored else 0 }}">
{% if s.failed %}<p class="error" id="failed">{{ s.failed }}</p>
{% elif s.outcome %}<p class="turn banner {{ 'won' if s.outcome.ranks[s.seat] == 1 else 'lost' }}" id="over"><strong>{{ headline }}</strong> {{ verdict }}</p>
{% elif s.request_id is not none %}<p class="turn" id="your-turn"><strong>Your turn</strong>{% if s.deadline_ms %} · clock <span id="clock" data-deadline="{{ s.deadline_ms }}" data-decision-ms="{{ s.decision_ms }}">{{ clock }}</span>{% endif %}
{% if t %} · {{ t.status }}{% endif %}</p>
{% else %}<p class="wait" id="waiting">Waiting for {{ waiting_for }}…{% if t %} · {{ t.status }}{% endif %} (this page updates by itself)</p>{% endif %}
</div>
{% for n in s.notices %}<p class="error notice">{{ n }}</p>{% endfor %}
{% if s.request_id is not none %}
<p id="explain">{{ t.explain if t else 'Choose one of the actions.' }}</p>
<form method="post" action="/play/{{ s.match_id|urlencode }}/act" id="choices">
<input type="hidden" name="request" value="{{ s.request_id }}">
{% for e in choices %}<button type="submit" name="action" value="{{ e.text }}" data-act="{{ e.text }}">{{ e.label or e.text }}</button>{% endfor %}
</form>
<div id="selection"></div><p class="error" id="act-error" hidden></p>
{% endif %}
{% if felt %}{{ felt }}{% elif not s.outcome %}<p class="muted">Nothing dealt to you yet.</p>{% endif %}
{% if s.outcome %}<h2>Result</h2><table id="result"><tr><th>seat</th><th>who</th><th class="num">score</th><th class="num">rank</th></tr>
{% for i in range(s.seat_names|length) %}<tr{% if i == s.seat %} id="result-you"{% endif %}><td>{{ places[i] }}</td><td>{{ 'you' if i == s.seat else labels[i] }}</td>
<td class="num">{{ s.outcome.scores[i]|num }}</td><td class="num">{{ s.outcome.ranks[i] }}</td></tr>{% endfor %}</table>
<p id="stored">{% if s.stored == 'stored' %}<span class="ok">Recorded:</span> <a href="/m/{{ s.match_id|urlencode }}?view=seat{{ s.seat }}" id="replay-link">its replay</a>, or <code>arbiter replay {{ s.match_id|shell }}{% if db %} --db {{ db|string|shell }}{% endif %}</code>.
{% elif s.stored %}<span class="error">{{ s.stored }}</span>{% else %}<span class="muted">Recording…</span>{% endif %}</p>
{% if final_rows %}<details id="revealed"><summary>Everything shown at the end</summary><table class="board" id="final-board">
{% for row in final_rows %}
{% if loop.first or row.section != final_rows[loop.index0 - 1].section %}<tr><td class="section" colspan="3">{{ row.section }}</td></tr>{% endif %}
<tr><td class="muted label">{{ row.label }}</td><td>{% for c in row.cards %}{{ c|card }}{% endfor %}{% if row.face_down %} <span class="muted">{{ row.face_down }} face down</span>{% endif %}</td>
<td class="muted small">{{ row.note }}</td></tr>{% endfor %}</table></details>{% endif %}{% endif %}
{% if s.request_id is not none %}
<p class="keys" id="keys">Keys: <kbd>←</kbd> <kbd>→</kbd> move among the raised cards, <kbd>Enter</kbd> picks one,
<kbd>1</kbd>…<kbd>9</kbd> the numbered places and buttons (a bid: its number), <kbd>Esc</kbd> clears the selection.</p>
<details id="fallback"><summary>Every legal action as a list</summary>
<form method="post" action="/play/{{ s.match_id|urlencode }}/act" id="actions">
<input type="hidden" name="request" value="{{ s.request_id }}">
<select name="action" id="all-actions">{% for e in catalogue %}<option value="{{ e.text }}" data-action="{{ e.text }}" data-from="{{ e.srcs|join(' ') }}" data-to="{{ e.dst }}">{{ said[loop.index0] }}</option>{% endfor %}</select>
<button type="submit" id="do-action">Do it</button></form></details>
{% endif %}
<details id="events-box"><summary class="events-title">Events ({{ n_events }}{% if events|length < n_events %}: the last {{ events|length }}{% endif %})</summary><div class="steps" id="event-list"><ol id="events"{% if events|length < n_events %} start="{{ n_events - events|length + 1 }}"{% endif %}>{% for e in events %}<li>{{ e }}</li>{% endfor %}</ol></div></details>
{% if s.failed or s.stored %}<span data-live-end></span>{% endif %}
"""

_TABLE = """{% extends "base" %}
{% block title %}{{ s.game }} {{ s.match_id }} · Card Arena{% endblock %}
{% block head %}""" + _STYLE + "{% raw %}" + TABLE_STYLE + "{% endraw %}" + """{% endblock %}
{% block crumbs %}/ <a href="/play">play</a> / {{ s.match_id }}{% endblock %}
{% block body %}
<h1 class="play">{{ s.game }} · match {{ s.match_id }}</h1>
<p class="muted" id="seating">you are {{ where }}{% if partners %} (partner: {{ partners|join(', ') }}){% endif %} ·
against {{ opponents }}
· {{ clock }} a decision{% if options %} · {{ options }}{% endif %}</p>
<p id="announce" class="sr-only" aria-live="polite" aria-atomic="true"></p>
<div id="live">{{ live }}</div>
<script nonce="{{ nonce }}">{% raw %}""" + TABLE_SCRIPT + """{% endraw %}
</script>
{% endblock %}
"""

_FAIL = """{% extends "base" %}
{% block title %}{{ status }} · Card Arena{% endblock %}
{% block body %}<h1>{{ status }}</h1><p class="error" id="play-error">{{ message }}</p>
<p>{% if back %}<a href="{{ back }}" id="back-to-table">Back to the table</a> · {% endif %}<a href="/play">Play a seat</a> · <a href="/">All tournaments</a></p>{% endblock %}
"""

_compiled: dict[int, dict[str, jinja2.Template]] = {}


def _template(env: jinja2.Environment, name: str) -> jinja2.Template:
    per_env = _compiled.setdefault(id(env), {})
    if name not in per_env:
        per_env[name] = env.from_string({"new": _NEW, "table": _TABLE, "live": _LIVE, "fail": _FAIL}[name])
    return per_env[name]


def _clock_text(ms: int) -> str:
    if not ms:
        return "no limit"
    s = ms / 1000
    return f"{s / 60:g} minute{'' if s == 60 else 's'}" if s >= 60 and s % 60 == 0 else f"{s:g} s"


# --------------------------------------------------------------------------------------
# Pages.


@dataclass(frozen=True)
class OptionField:
    """One option of the form, drawn from the game's option schema (``option_specs``)."""

    name: str
    kind: str  # "bool" (a check box), "choice" (a select), "number", "text"
    value: str  # as the form shows it: the given value, else the default (blank for "none")
    default: str
    choices: tuple[str, ...] = ()
    min: int | None = None
    max: int | None = None
    step: str = "1"
    range: str = ""  # the range in words, or what a blank box means
    help: Markup = Markup("")


_CODE = re.compile(r"``(.+?)``")


def _help(meaning: str) -> Markup:
    """The option's docstring line as HTML: RST ``literals`` as <code>, nothing else marked up."""
    return Markup(_CODE.sub(lambda m: f"<code>{m.group(1)}</code>", str(html.escape(meaning))))


def _one_name(game: str, name: str) -> bool:
    """Whether option ``name`` of ``game`` is a choice of a single name (an enum of one member,
    Spot's ``tie_rule``): its type reads as that name alone, which a text box would ask for."""
    tp = type_hints(game_class(game).Options)[name]
    return (isinstance(tp, type) and issubclass(tp, enum.Enum)) or typing.get_origin(tp) is typing.Literal


def option_fields(game: str, given: dict[str, str], preset: str = "") -> list[OptionField]:
    """The form's fields for ``game``'s options: check boxes for booleans, selects for a
    choice of names, number boxes with the accepted range for whole numbers, text for the rest;
    each filled in with its value in ``given``, else ``preset``'s, else the default (the
    form shows what the match would be played with)."""
    out = []
    of_preset = _preset_values(game, preset)
    for o in option_specs(game_class(game).Options):
        value = given.get(o.name, "") or of_preset.get(o.name, "")
        arms = [a.strip() for a in o.type.split(" or ")]
        help_ = _help(o.meaning)
        if o.type == "bool":
            out.append(OptionField(o.name, "bool", (value or o.default).lower(), o.default, help=help_))
        elif " | " in o.type or _one_name(game, o.name):  # a choice of names (of one name, for now: still a menu)
            choices = tuple(c.strip() for c in o.type.split(" | "))
            out.append(OptionField(o.name, "choice", value or o.default, o.default, choices, help=help_))
        elif arms[0] in ("int", "number") and all(a in ("int", "number", "none") for a in arms):
            whole = arms[0] == "int"  # the range the Options declare (a number box's min and max)
            lo = int(o.min) if whole and o.min is not None else None
            hi = int(o.max) if whole and o.max is not None else None
            words = ("from " + str(lo) if lo is not None else "") + (f" to {hi}" if hi is not None else "")
            if "none" in arms:
                words += ("; " if words else "") + "blank: none"
            out.append(OptionField(o.name, "number", value if value else ("" if o.default == "none" else o.default),
                                   o.default, (), lo, hi, "1" if arms[0] == "int" else "any", words.strip(), help_))
        else:  # the type in words a person reads ("random or a whole number"), not the schema's "random or int"
            words = " or ".join({"int": "a whole number", "number": "a number"}.get(a, a) for a in arms)
            out.append(OptionField(o.name, "text", value, o.default, range=words, help=help_))
    return out


def _preset_values(game: str, preset: str) -> dict[str, str]:
    """The options ``preset`` of ``game`` sets, as a form writes them (``value_text``); none
    for no preset or an unknown one (the form says what is wrong with it)."""
    return {k: value_text(v) for k, v in game_class(game).presets.get(preset, {}).items()} if game in GAMES else {}


def _given_options(game: str, form: dict[str, list[str]]) -> dict[str, str]:
    """The options a form gives (``o.NAME``; a check box's hidden "false" is followed by its
    "true"), less those left as the form was drawn: at the values of the preset its fields
    were filled in for (``base``, a hidden field: the preset selected when the page was
    drawn), else at the defaults. So what the person changed is what overrides the preset
    they chose (a value set back to its default too), and choosing a preset without
    changing a field plays the preset as it is. A box left blank means its default (its
    placeholder): a preset's value cleared from it (the book's ``wild_excluded_ranks=A``)
    is the default again, not the preset's."""
    defaults = {o.name: o.default for o in option_specs(game_class(game).Options)} if game in GAMES else {}
    base = defaults | _preset_values(game, (form.get("base") or [""])[0].strip())
    out = {}
    for k, v in form.items():
        if not k.startswith("o.") or not v:
            continue
        name, value = k[2:], v[-1].strip()
        if not value:
            if name not in defaults or base[name] == defaults[name]:
                continue
            value = "" if defaults[name] == EMPTY else defaults[name]  # (an empty list is written as nothing)
        if base.get(name) != value:
            out[name] = value
    return out


def new_page(env: jinja2.Environment, tables: Tables, query: dict[str, list[str]], error: str = "", nonce: str = "") -> str:
    """The form that starts a match, filled in from ``query`` (its own fields)."""
    first = lambda k, d="": (query.get(k) or [d])[0]  # noqa: E731
    game = first("game", "spades")
    if game not in GAMES:
        raise TableError(400, f"game: unknown game {clip(game, 40)!r} (known: {', '.join(table_games())})")
    if why := not_carried(game):
        raise TableError(400, f"game: {why}")
    cls = game_class(game)
    preset = first("preset")
    given = _given_options(game, query)
    seats, teams, seats_error = 0, [], ""
    try:
        g = get_game(game, given, preset or None)
        seats = g.num_seats
        teams = [", ".join(seat_place(game, o) for t in g.teams if s in t for o in t if o != s) for s in range(seats)]
    except (ConfigError, GameError) as exc:
        seats_error = f"these options are not valid: {exc}"
    seat = number(first("seat", "0")) or 0
    chosen = {}  # seat -> the bot asked for it (bot.N=NAME)
    for k, v in query.items():
        slot = number(k[4:]) if k.startswith("bot.") else None
        if slot is not None and v:
            chosen[slot] = v[0]
    bots = tables.bots(game)
    return _template(env, "new").render(
        games=table_games(), game=game, presets=[(n, cls.preset_docs.get(n, "")) for n in cls.presets], preset=preset,
        options=option_fields(game, given, preset), seats=seats, teams=teams, seats_error=seats_error,
        places=[seat_place(game, k) + (f" (seat {k})" if game == "spades" else "") for k in range(seats)],
        seat=min(seat, max(0, seats - 1)), bots=bots, chosen=chosen, default_bot="random",
        live=tables.live(), limit=tables.limit, clock=_clock_text(int(tables.decision_seconds * 1000)),
        unwritable=tables.unwritable(), db=tables.db, error=error, nonce=nonce, off=OFF,
    )


def live_fragment(env: jinja2.Environment, s: Snapshot, db: Any = None) -> str:
    """What changes on the seat's page, alone: the inner HTML of its ``<div id="live">``
    (the status, the table, the choice asked, the result, the events), from the snapshot;
    ``db`` the store the match is kept in (its replay command names it: it is seldom the default)."""
    view = s.view if s.final_view is None else s.final_view
    names = seat_labels(s.seat_names, s.seat_versions)
    t = None
    if view is not None:
        t = table_model(s.game, view, names, me=s.seat, legal=s.legal if s.request_id is not None else (),
                        options=s.options)
        if s.over:  # a forfeit leaves the last decision's view on the table: nobody is to act any more
            for box in t.seats:
                box.to_act = False
    # the board of the end names the person as the rest of the page does (you), not by its seat's name
    final_rows = (board(s.game, s.final_view, ["you" if i == s.seat else n for i, n in enumerate(names)])
                  if s.final_view is not None else [])
    to_act = _to_act(s)
    waiting_for = (f"{names[to_act]} ({seat_place(s.game, to_act)})" if to_act is not None and to_act != s.seat
                   and to_act < len(names) else "the other seats")
    told = told_once(s.events)
    headline = ""
    if s.outcome is not None:
        mine = s.outcome.ranks[s.seat] == 1
        headline = ("Nobody won." if all(r == 1 for r in s.outcome.ranks) else ("You won." if mine else "You lost."))
    return _template(env, "live").render(
        s=s, t=t, felt=render_table(t, interactive=s.request_id is not None) if t is not None else "",
        choices=t.choices if t is not None and s.request_id is not None else [],
        catalogue=t.catalogue if t is not None else [], final_rows=final_rows, waiting_for=waiting_for,
        said=[say(s.game, e.text) for e in t.catalogue] if t is not None else [],  # in the table's words (centre pile 1)
        clock=_clock_text(s.decision_ms), events=[say(s.game, e) for e in told[-40:]], headline=headline, n_events=len(told),
        verdict=verdict(s.game, s.outcome, names, s.seat, s.final_view, s.options) if s.outcome is not None else "",
        labels=names, db=db,
        places=[seat_place(s.game, i).removeprefix("seat ") for i in range(len(names))],  # as the table names them (North...)
    )


def _to_act(s: Snapshot) -> int | None:
    v = s.view
    for attr in ("to_act", "current_seat"):
        if v is not None and hasattr(v, attr):
            return getattr(v, attr)
    return None


def table_page(env: jinja2.Environment, s: Snapshot, nonce: str, db: Any = None) -> str:
    """The seat's page: the card table of its view, its choice, its events, the result;
    everything that changes is inside ``<div id="live">`` (``live_fragment``)."""
    names = seat_labels(s.seat_names, s.seat_versions)
    partners = [f"{names[o]} ({seat_place(s.game, o)})" for t in s.teams if s.seat in t for o in t if o != s.seat]
    opponents = ", ".join(f"{n} ({seat_place(s.game, i)})" for i, n in enumerate(names) if i != s.seat and not any(
        s.seat in t and i in t for t in s.teams))
    options = ", ".join(f"{k}={value_text(v)}" for k, v in s.options.items() if k in _shown_options(s))
    where = seat_place(s.game, s.seat) + (f" (seat {s.seat})" if s.game == "spades" else "")
    return _template(env, "table").render(
        s=s, live=Markup(live_fragment(env, s, db)), partners=partners, opponents=opponents or "nobody", nonce=nonce,
        clock=_clock_text(s.decision_ms), options=options, where=where,
    )


def _shown_options(s: Snapshot) -> set[str]:
    """The options that differ from the game's defaults (the rest go without saying)."""
    try:
        defaults = get_game(s.game).describe_options()
    except GameError:
        return set(s.options)
    return {k for k, v in s.options.items() if defaults.get(k) != v}


# --------------------------------------------------------------------------------------
# Requests (served by ``arbiter.present.web``'s app: it reads the request, runs ``handle`` in
# a worker thread, since a request may wait on the match, and adds the site's headers).


@dataclass(frozen=True)
class Request:
    """One HTTP request to ``/play...``, as the web app read it."""

    method: str
    path: str  # the raw path and query, as sent
    headers: Mapping[str, str]  # case-insensitive names (Starlette's Headers)
    body: bytes = b""
    client: str = ""  # who asks (the peer's address): what ``Tables.start`` bounds per client


class _Reply(Exception):
    """A response other than a page: a redirect (303) with its headers."""

    def __init__(self, status: int, headers: list[tuple[str, str]]):
        self.status, self.headers = status, headers


def _token(req: Request) -> str | None:
    raw = req.headers.get("cookie")
    if not raw:
        return None
    jar = http.cookies.SimpleCookie()
    try:
        jar.load(raw)
    except http.cookies.CookieError:
        return None
    morsel = jar.get(COOKIE)
    return morsel.value if morsel is not None else None


def _form(req: Request) -> dict[str, list[str]]:
    length = req.headers.get("content-length") or str(len(req.body))
    if not length.isdigit():
        raise TableError(400, "Content-Length must be a number")
    if int(length) > MAX_BODY or len(req.body) > MAX_BODY:
        raise TableError(413, f"the request body is {max(int(length), len(req.body))} bytes, more than the {MAX_BODY} a form needs")
    ctype = (req.headers.get("content-type") or "").split(";")[0].strip().lower()
    if ctype not in ("application/x-www-form-urlencoded", ""):
        raise TableError(415, f"send the form as application/x-www-form-urlencoded, not {clip(ctype, 60)!r}")
    try:
        return urllib.parse.parse_qs(req.body.decode("utf-8"), keep_blank_values=True, max_num_fields=200)
    except (UnicodeDecodeError, ValueError) as exc:
        raise TableError(400, f"the form cannot be read: {clip(str(exc), 100)}") from None


def _same_origin(req: Request) -> None:
    """Refuse a POST another site's page makes this browser send (its Origin says so), and
    one whose Origin is ``null`` (an opaque origin: a sandboxed frame, a data: page, a
    file, a redirect across sites), whose page nobody can vouch for. A POST without an
    Origin (not from a browser's page, or a very old browser) passes."""
    origin = req.headers.get("origin")
    if origin is None:
        return
    host = req.headers.get("host") or ""
    if origin.strip().lower() == "null" or urllib.parse.urlsplit(origin).netloc != host:
        raise TableError(403, f"a form from {clip(origin, 80)!r} may not act on this server")


def _one(form: dict[str, list[str]], key: str, what: str) -> str:
    values = form.get(key)
    if not values:
        raise TableError(400, f"{what} is missing (form field {key!r})")
    if len(values) > 1:
        raise TableError(400, f"{what} is given {len(values)} times (form field {key!r}): give it once")
    return values[0]


def _start(tables: Tables, form: dict[str, list[str]], client: str = "") -> tuple[str, str]:
    game = _one(form, "game", "the game").strip()
    seat = _one(form, "seat", "your seat").strip()
    preset = (form.get("preset") or [""])[0].strip()
    options = _given_options(game, form)
    try:
        n = get_game(game, options, preset or None).num_seats
    except (ConfigError, GameError):
        n = None  # Tables.start says what is wrong
    opponents: list[str] = []
    if n is not None and (me := number(seat)) is not None and me < n:  # (a seat out of range: Tables.start says so)
        for k in range(n):
            if k != me:
                opponents.append(_one(form, f"bot.{k}", f"the bot for seat {k}").strip())
    table = tables.start(game, seat, opponents, options, preset, client)
    table.browser.wait_for_turn_or_end(WAIT_SECONDS)  # so the first page shows the first decision
    return table.match_id, table.token


def _dispatch(req: Request, env: jinja2.Environment, tables: Tables, nonce: str) -> tuple[int, str, str]:
    """(status, content type, body) for one request; raises TableError or _Reply."""
    method = "GET" if req.method == "HEAD" else req.method
    url = urllib.parse.urlsplit(req.path)
    query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
    parts = [urllib.parse.unquote(p) for p in url.path.split("/") if p]
    html_type = "text/html; charset=utf-8"
    if parts == ["play"]:
        if method != "GET":
            raise TableError(405, "POST to /play/new to start a match")
        return 200, html_type, new_page(env, tables, query, nonce=nonce)
    if parts == ["play", "new"]:
        if method != "POST":
            raise _Reply(303, [("Location", "/play")])
        _same_origin(req)
        form = _form(req)
        try:
            match_id, token = _start(tables, form, req.client)
        except TableError as exc:  # the form again, as the person filled it in, saying what is wrong
            try:
                return exc.status, html_type, new_page(env, tables, form, error=str(exc), nonce=nonce)
            except TableError:  # (a form that cannot be drawn: an unknown game)
                raise exc from None
        path = f"/play/{urllib.parse.quote(match_id)}"
        cookie = f"{COOKIE}={token}; Path={path}; HttpOnly; SameSite=Strict"
        raise _Reply(303, [("Location", path), ("Set-Cookie", cookie)])
    if len(parts) in (2, 3) and parts[0] == "play":
        match_id = parts[1]
        action = parts[2] if len(parts) == 3 else ""
        if action not in ("", "act"):
            raise TableError(404, f"no page {clip(url.path, 80)!r}")
        table = tables.get(match_id, _token(req))
        table.browser.seen()  # the seat's own page (its token): the person is at the table
        if action == "":
            if method != "GET":
                raise TableError(405, f"POST to /play/{match_id}/act to act")
            return 200, html_type, table_page(env, table.snapshot(), nonce, tables.db)
        if method != "POST":
            raise TableError(405, "act with a POST of the form on the seat's page")
        _same_origin(req)
        form = _form(req)
        table.browser.act(_one(form, "request", "the decision (request)"), _one(form, "action", "the action"))
        table.browser.wait_for_turn_or_end(WAIT_SECONDS)
        raise _Reply(303, [("Location", f"/play/{urllib.parse.quote(match_id)}")])
    raise TableError(404, f"no page {clip(url.path, 80)!r}")


def _back(req: Request, status: int) -> str:
    """The seat's page to go back to from an action it refused (a stale or illegal one,
    sent by the page's plain form, the fallback without script, which lands on this
    page): '' for any other request, and for one of a match that is not the asker's (404)."""
    parts = [urllib.parse.unquote(p) for p in urllib.parse.urlsplit(req.path).path.split("/") if p]
    if len(parts) != 3 or parts[0] != "play" or parts[2] != "act" or status == 404:
        return ""
    return f"/play/{urllib.parse.quote(parts[1])}"


def handle(req: Request, env: jinja2.Environment, tables: Tables, nonce: str,
           verbose: bool = False) -> tuple[int, str, str, list[tuple[str, str]]]:
    """Answer one ``/play`` request: (status, content type, body, headers of its own: a
    redirect's Location, the seat's cookie). Blocks while the match is waited on (a worker
    thread's call); an error in it is one line in the log (its traceback with ``verbose``)."""
    try:
        status, ctype, body = _dispatch(req, env, tables, nonce)
        return status, ctype, body, []
    except _Reply as r:
        return r.status, "text/plain; charset=utf-8", "", r.headers
    except TableError as exc:
        body = _template(env, "fail").render(status=exc.status, message=str(exc), back=_back(req, exc.status))
        return exc.status, "text/html; charset=utf-8", body, []
    except Exception as exc:  # noqa: BLE001 - one bad request must not stop the server
        path = urllib.parse.urlsplit(req.path).path
        log.error("error serving %s %s: %s: %s", req.method, clip(path, 80), type(exc).__name__, clip(str(exc), 200),
                  exc_info=verbose)
        body = _template(env, "fail").render(status=500, message="internal error (see the server log)")
        return 500, "text/html; charset=utf-8", body, []


def seat_match(req: Request) -> str:
    """The match id of a seat's page (``/play/ID``); TableError 404 for any other path."""
    parts = [urllib.parse.unquote(p) for p in urllib.parse.urlsplit(req.path).path.split("/") if p]
    if len(parts) != 2 or parts[0] != "play" or parts[1] == "new":
        raise TableError(404, "only a seat's page (/play/ID) changes by itself")
    return parts[1]


async def seat_version(req: Request, tables: Tables, since: int, timeout: float) -> int:
    """For the live stream of a seat's page (``/play/ID``, its cookie checked as for the page):
    the match's version once it passes ``since`` (or after ``timeout`` seconds), waited for
    on the caller's event loop (no thread is held); the open stream counts as the person at
    the table. TableError for another path or a wrong seat (the same 404 as a page's)."""
    table = tables.get(seat_match(req), _token(req))
    table.browser.seen()
    version = await table.browser.wait_async(since, timeout)
    table.browser.seen()
    return version
