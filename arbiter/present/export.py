"""Standings as CSV, JSON, Markdown and one self-contained HTML page.

Pure functions from a ``Standings`` (arbiter.rating.ratings) and the tournament's description to
text; the CLI writes them to stdout or a file. The HTML page has its style inline and no
scripts or external resources, and is well-formed XML (it parses with an XML parser).
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import time
from typing import Any, Sequence

from arbiter.present.played import cross_rates, describe, stopped_early_text, team_rows
from arbiter.rating.ratings import RATING_METHOD, Standings
from arbiter.rating.stats import mean_se
from cardarena.disclosure import counted_note
from cardarena.records import visible

FORMATS = ("csv", "json", "md", "html")

CSV_COLUMNS = [
    "rank", "bot", "matches", "wins", "draws", "losses", "points", "score_rate", "mean_margin", "dup_advantage",
    "dup_se", "dup_deals", "rating", "rating_low", "rating_high", "los_next", "forfeits", "team",
]


def _team_of(info: dict[str, Any]) -> dict[str, str]:
    """Bot -> its named partnership ("a + b"), for the CSV and JSON rows."""
    return {m: " + ".join(t) for t in info.get("teams") or () for m in t}


def _bot_rows(st: Standings, info: dict[str, Any]) -> list[dict[str, Any]]:
    """The CSV's and the JSON's rows: one per bot, with its team, and the rank and LOS of
    the row every table shows it in (``team_rows``: a named partnership's), so that partners
    share their partnership's rank rather than count on past each other."""
    team = _team_of(info)
    shown = {m: d for d in team_rows(st, info.get("teams") or ()) for m in d.members}
    out = []
    for r in st.rows:
        d = shown.get(r.name)
        at = {"rank": d.rank, "los_next": None if d.los_next is None else round(d.los_next, 6)} if d is not None else {}
        out.append({**r.as_dict(), **at, "team": team.get(r.name)})
    return out


def _fmt(x: float | None, spec: str) -> str:
    return "" if x is None else format(x, spec)


def to_dict(st: Standings, info: dict[str, Any]) -> dict[str, Any]:
    """Everything the exports show, as plain JSON-able data."""
    names = [r.name for r in st.rows]
    played = describe(info)
    return {
        "tournament": info,
        "played": {"options_applied": played.options, "options_changed": played.changed,
                   "options_text": played.options_text, "clock": played.clock_text, "policy": played.policy_text,
                   "teams": [list(t) for t in played.teams], "free_for_all": played.free_for_all,
                   "wdl_note": played.wdl_note},
        "rating_model": st.model,
        "matches": st.matches,
        "duplicate": st.duplicate,
        "standings": _bot_rows(st, info),
        # the sentences every table has under it (its order, its margin, its scale, a free for
        # all's W-D-L, and why no rating has an interval): the JSON gave null intervals unexplained
        "notes": dict(standings_notes(st, info)),
        "crosstable": {
            a: {b: ({"points": round(st.crosstable[a][b][0], 6), "meetings": st.crosstable[a][b][1]} if b in st.crosstable.get(a, {}) else None)
                for b in names if b != a}
            for a in names
        },
    }


def to_json(st: Standings, info: dict[str, Any]) -> str:
    return json.dumps(to_dict(st, info), indent=2, sort_keys=False) + "\n"


#: The CSV's columns of text (the others are numbers, where a leading "-" is a sign).
_CSV_TEXT = ("bot", "team")


def csv_text(text: str) -> str:
    """A text cell as a spreadsheet shows it: one that begins as a formula does (``=``, ``+``,
    ``-``, ``@``, a tab) gets a leading ``'``, so ``=HYPERLINK(...)`` is not run when the
    file is opened. A name checked by the rule (cardarena.names) never begins so; one read from
    a store someone else gave you may (its control characters are shown as escapes too: the
    CSV is printed on the terminal without ``--output``)."""
    text = visible(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t") else text


def _csv(columns: Sequence[str], text_columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> str:
    """``rows`` as CSV in ``columns`` (others left out): an absent value empty, a text column's
    cells as a spreadsheet may show them (``csv_text``)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({k: ("" if v is None else csv_text(v) if k in text_columns else v) for k, v in row.items()})
    return buf.getvalue()


def to_csv(st: Standings, info: dict[str, Any] | None = None) -> str:
    return _csv(CSV_COLUMNS, _CSV_TEXT, _bot_rows(st, info or {}))


#: The standings' order, said under every standings table (web page, CLI, exports).
RANKED_BY = ("ranked by rating, a Bradley-Terry fit to every pair of sides' result in every match (1 for "
             "finishing ahead, ½ a tie): it follows score %, the share of those pairwise points, not the margin; "
             "ties by score %, then margin")

#: What the tournaments' rating number means (the arena's is another scale: ARENA_SCALE).
ELO_SCALE = ("rating: Elo scale, the field's mean at 1500; 200 points ahead of another bot means about 76% of "
             "the pairwise points expected against it")

#: What the arena's rating number means, beside ELO_SCALE.
ARENA_SCALE = ("rating: openskill's μ (Weng-Lin Plackett-Luce; a new bot starts at 25, σ 8.3: 25 ± 16.3 at 95%, "
               "as the pages' ± and intervals are), not the Elo scale "
               "of tournament pages: once ratings are settled, 1 point here is roughly 30 Elo points")


def margin_header(st: Standings) -> str:
    return "margin ± s.e." if st.duplicate else "margin"


def margin_text(st: Standings, r) -> str:
    """The one margin column: with duplicate deals, the duplicate advantage (each deal's
    margin averaged over its seatings, then over deals) ± its standard error over deals;
    without, the mean margin per match."""
    if not r.matches:  # no match yet: no margin (not a level "+0.0")
        return "–"
    if st.duplicate and r.dup_advantage is not None:
        if r.dup_se is None:
            return f"{r.dup_advantage:+.1f}"
        if r.dup_se == 0:  # every deal alike: a sample with no spread, not a certainty (``margin_note``)
            return f"{r.dup_advantage:+.1f} (no spread)"
        return mean_se(r.dup_values).text(1)  # an s.e. below 0.05 keeps its first digit, not "± 0.0"
    return f"{r.mean_margin:+.1f}"


def margin_note(st: Standings) -> str:
    note = "margin: the side's score minus the mean of the other sides' scores, in game points, per match"
    if st.duplicate:
        note += (" (duplicate deals: each deal's margins averaged over the seatings it was played in, so the "
                 "luck of the cards cancels; ± its standard error over the deals)")
        if any(r.dup_values and r.dup_se == 0 for r in st.rows):
            note += "; no spread: every deal alike, so no standard error to give (a sample without spread, not a certainty)"
    if any(r.forfeits for r in st.rows):
        note += (f"; a forfeit counts as a loss by {st.stake:g} for the side that failed, the widest margin the "
                 "rules allow (no bot gains by forfeiting)")
    return note


def standings_notes(st: Standings, info: dict[str, Any]) -> list[tuple[str, str]]:
    """The sentences a standings table needs, keyed: its order (``ranked-by``), its margin
    column (``margin``), its rating scale (``scale``), W-D-L in a free for all (``wdl-note``),
    with too few deals why no rating has an interval (``interval``), while a duplicate tournament
    runs how many of its deals are counted (``counted``: ``cardarena.disclosure.Counted``), and a
    stored evaluation's verdict (``verdict``: ``info``'s, as ``load_standings`` reads it)."""
    wdl = describe(info).wdl_note
    notes = [("ranked-by", RANKED_BY), ("margin", margin_note(st)), ("scale", ELO_SCALE)] + ([("wdl-note", wdl)] if wdl else [])
    if any(r.rating is not None and not r.rating.interval for r in st.rows):
        notes.append(("interval", st.too_few_deals))
    if (counted := info.get("counted")) and counted.get("closed"):  # cardarena.disclosure: whole deals only
        notes.append(("counted", counted_note(counted["deals"], counted["of"])))
    if info.get("verdict"):  # a stored evaluation's sequential test: its line as arbiter evaluate printed it
        notes.append(("verdict", verdict_note(info["verdict"])))
    return [(k, sentence(n)) for k, n in notes]


def verdict_note(text: str) -> str:
    """A stored evaluation's verdict (``Store.verdict``: ``EvalResult.sprt_summary``'s words) as
    every display of it introduces it: ``tournament show``, the standings' notes, the web page."""
    return f"verdict of its sequential test: {text}"


def sentence(note: str) -> str:
    """A note as a sentence under a table: its first letter a capital, a full stop at its end."""
    return note[0].upper() + note[1:] + "."


def _rating_text(st: Standings, r) -> tuple[str, str]:
    """A row's rating and 95% interval as every table shows them; "–" for a bot with no match
    yet (no rating), as the web page gives it and the score % and margin beside it are (the
    Markdown and HTML exports left both cells blank)."""
    if r.rating is None:
        return "–", "–"
    spec = ".0f"  # Elo points
    if not r.rating.interval:
        return format(r.rating.value, spec), "too few deals"
    return format(r.rating.value, spec), f"{format(r.rating.low, spec)} – {format(r.rating.high, spec)}"


def los_text(p: float, decimals: int = 1) -> str:
    """A likelihood of superiority in percent at ``decimals`` places; one that would round to 100 or
    0 is shown as above or below the last step instead (a normal approximation's probability is
    never certain: 0.9955 read "100%")."""
    text = f"{100 * p:.{decimals}f}"
    step = f"{10.0 ** -decimals:.{decimals}f}"
    if text == f"{100:.{decimals}f}":
        return f">{100 - 10.0 ** -decimals:.{decimals}f}%"
    if text == f"{0:.{decimals}f}":
        return f"<{step}%"
    return text + "%"


def score_text(r) -> str:
    """The score % column: the share of the pairwise points, "–" with no match yet (not 0.0)."""
    return f"{100 * r.score_rate:.1f}" if r.matches else "–"


def _points(x: float) -> str:
    return f"{x:g}" if abs(x * 2 - round(x * 2)) < 1e-9 else f"{x:.2f}"


def _headers(st: Standings) -> list[str]:
    h = ["#", "bot", "matches", "W", "D", "L", "points", "score %", margin_header(st)]
    return h + ["rating", "95% interval", "LOS over next", "forfeits"]


def _cells(st: Standings, d) -> list[str]:
    """A line of the table (``team_rows``'s ``DisplayRow``) as text cells."""
    r = d.row
    value, interval = _rating_text(st, r)
    cells = [str(d.rank), d.label, str(r.matches), str(r.wins),
             str(r.draws), str(r.losses), _points(r.points), score_text(r), margin_text(st, r)]
    return cells + [value, interval, "" if d.los_next is None else los_text(d.los_next), str(d.forfeits)]


def _table_cells(st: Standings, info: dict[str, Any]) -> list[list[str]]:
    """The standings rows as shown in a table: one per bot, or per named partnership."""
    return [_cells(st, d) for d in team_rows(st, info.get("teams") or ())]


def _cross_cells(st: Standings, teams: Sequence[Sequence[str]]) -> tuple[list[str], list[list[str]]]:
    """The cross-table as text cells, one row and column per standings row (``cross_rates``)."""
    shown = team_rows(st, teams)
    names = [d.label for d in shown]
    rates = cross_rates(st, shown)
    rows = []
    for a in names:
        line = [a]
        for b in names:
            v = rates.get((a, b))
            line.append("—" if a == b else ("" if v is None else f"{100 * v:.0f}"))
        rows.append(line)
    return [""] + names, rows


#: The characters that mean something to Markdown (or are raw HTML inside it), each written
#: after a backslash by ``md_text``: CommonMark shows an escaped ASCII punctuation character as
#: itself. An underscore between two letters or digits (``deck_split``) emphasises nothing and
#: is left alone (``_MD_UNDERSCORE``).
_MD_SPECIAL = {ord(c): "\\" + c for c in "\\`*[]<>&|~"}
_MD_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def md_text(text: str) -> str:
    """``text`` as Markdown shows it, for one line (a heading, a paragraph, a table's cell):
    control characters as their escapes (``visible``), a newline as ``\\n`` (it would end the
    heading or the table's row), and Markdown's own characters and HTML's escaped. A
    tournament's name is anyone's text: ``<img onerror=...>`` in it was live HTML wherever
    the Markdown was rendered, and a newline or a ``|`` broke the table."""
    return _MD_UNDERSCORE.sub(r"\\_", visible(text).replace("\n", "\\n").replace("\t", " ").translate(_MD_SPECIAL))


def _md_row(cells: Sequence[str]) -> str:
    """One row of a Markdown table, each cell shown as text (``md_text``)."""
    return "| " + " | ".join(md_text(c) for c in cells) + " |"


def to_markdown(st: Standings, info: dict[str, Any]) -> str:
    line = _md_row
    out = [f"# Standings: {md_text(str(info.get('name', '')))}", "", md_text(_summary(st, info)), ""]
    if info.get("resume"):
        out += [md_text(info["resume"]), ""]
    h = _headers(st)
    out += [line(h), "|" + "|".join("---" if i == 1 else "---:" for i in range(len(h))) + "|"]
    out += [line(c) for c in _table_cells(st, info)]
    out += [""] + [md_text(n) for _, n in standings_notes(st, info)]
    head, rows = _cross_cells(st, info.get("teams") or ())
    out += ["", "## Cross-table", "", "Score % of the row bot against the column bot.", "", line(head),
            "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out) + "\n"


#: What the summary says after the matches played of a tournament not finished (its ``state``):
#: a table of a run cut off read as final. An interrupted one's ``info["resume"]``
#: (``played.interrupted_text``, as the terminal's table prints it) follows the summary: the
#: exports said "interrupted" and not how to resume it.
_UNFINISHED = {"in progress": " so far: still running", "interrupted": " so far: interrupted, nothing runs it"}


def _summary(st: Standings, info: dict[str, Any]) -> str:
    model = RATING_METHOD
    played = describe(info)
    parts = [f"Game {info.get('game', '')} ({played.options_text})", f"format {info.get('format', '')}"]
    if played.seats_per_side > 1:
        parts.append(f"teams {played.teams_text}")
    if played.decision_ms is not None:
        parts.append(f"clock {played.clock_text}")
    planned = info.get("planned")  # none for single matches (play:GAME): each played on its own
    # the matches stored (``played``): while a duplicate tournament runs its table counts fewer (whole deals)
    done = info.get("played", st.matches)
    early = f", {stopped_early_text(done, planned, info)}" if planned and info.get("stopped_early") else ""
    early += _UNFINISHED.get(info.get("state", ""), "") if planned else ""
    played_text = (f"{done} of {planned} match{'' if planned == 1 else 'es'} played{early}" if planned
                   else f"{done} match{'' if done == 1 else 'es'} played")
    parts += [played_text,
              f"variance reduction: {played.variance_text}", seed_text(info), f"ratings: {model}"]
    return "; ".join(parts) + "."


def seed_text(info: dict[str, Any]) -> str:
    """The seed, once the tournament is over: while it runs, a known seed gives away every
    deal still to be played (and a secret one is never shown)."""
    if info.get("seed_withheld"):  # cardarena.disclosure: a running tournament's seed
        return "seed withheld until the tournament ends"
    if info.get("seed") is None:
        return "seed secret (drawn by the arbiter)"
    return f"seed {info['seed']}" + (" (drawn by the arbiter)" if info.get("seed_drawn") else "")


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1d2430;background:#fbfbfd}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem}
p.meta{color:#5a6472;margin-top:0}
table{border-collapse:collapse;margin:.5rem 0;font-variant-numeric:tabular-nums;background:#fff;box-shadow:0 1px 3px #0001}
th,td{padding:.35rem .7rem;border-bottom:1px solid #e3e6ea;text-align:right;white-space:nowrap}
th{background:#eef1f5;font-weight:600}td.name,th.name{text-align:left;font-weight:600}
tr:nth-child(even) td{background:#f7f8fa}
td.good{color:#176b2c}td.bad{color:#a3241b}td.self{color:#aaa;text-align:center}
footer{margin-top:2rem;color:#8a93a0;font-size:.85rem}
"""


def _html_text(text: str) -> str:
    """Text for an HTML page: escaped, its control characters as their escapes (``visible``),
    so that the page stays well-formed XML."""
    return html.escape(visible(text))


def _page(title: str, body: Sequence[str]) -> str:
    """One self-contained page (its style inline, no script) around ``body``, with the footer
    saying when it was made."""
    e = _html_text
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8" />'
            '<meta name="viewport" content="width=device-width, initial-scale=1" />'
            f"<title>{e(title)}</title><style>{_CSS}</style></head>\n<body>\n" + "\n".join(body)
            + f"\n<footer>Card Arena · generated {e(time.strftime('%Y-%m-%d %H:%M:%S'))}</footer>\n</body></html>\n")


def to_html(st: Standings, info: dict[str, Any]) -> str:
    """One self-contained, well-formed page: summary, standings, cross-table."""
    e = _html_text

    def row(cells: list[str], tag: str = "td", name_col: int = 1, classes: list[str] | None = None) -> str:
        parts = []
        for i, c in enumerate(cells):
            cls = "name" if i == name_col else (classes[i] if classes else "")
            attr = f' class="{cls}"' if cls else ""
            parts.append(f"<{tag}{attr}>{e(c)}</{tag}>")
        return "<tr>" + "".join(parts) + "</tr>"

    title = f"Standings: {info.get('name', '')}"
    body = [f"<h1>{e(title)}</h1>", f'<p class="meta">{e(_summary(st, info))}</p>']
    if info.get("resume"):
        body.append(f'<p class="meta">{e(info["resume"])}</p>')
    body += ["<table>", "<thead>" + row(_headers(st), "th") + "</thead>", "<tbody>"]
    body += [row(c) for c in _table_cells(st, info)]
    body += ["</tbody>", "</table>"]
    body += [f'<p class="meta">{e(n)}</p>' for _, n in standings_notes(st, info)]
    head, rows = _cross_cells(st, info.get("teams") or ())
    body += ["<h2>Cross-table</h2>", '<p class="meta">Score % of the row bot against the column bot.</p>', "<table>",
             "<thead>" + row(head, "th", 0) + "</thead>", "<tbody>"]
    for r in rows:
        classes = [""] + ["self" if c == "—" else ("good" if c and float(c) > 50 else "bad" if c and float(c) < 50 else "") for c in r[1:]]
        body.append(row(r, "td", 0, classes))
    body += ["</tbody>", "</table>"]
    return _page(title, body)


def render(fmt: str, st: Standings, info: dict[str, Any]) -> str:
    """The standings in ``fmt`` (one of FORMATS); ValueError for another."""
    if fmt == "csv":
        return to_csv(st, info)
    if fmt == "json":
        return to_json(st, info)
    if fmt == "md":
        return to_markdown(st, info)
    if fmt == "html":
        return to_html(st, info)
    raise ValueError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")


# --------------------------------------------------------------------------------------
# An arena's ladder (``arbiter standings --arena NAME``): its rows as the arena's page shows
# them (``arbiter.arena.matchmaking.standings``), in the same four formats.

LADDER_COLUMNS = ["rank", "player", "name", "version", "status", "reason", "rating", "sigma", "low", "high",
                  "encounters", "matches", "failures", "los_next"]
#: The ladder's CSV columns of text (the others are numbers).
_LADDER_TEXT = ("player", "name", "version", "status", "reason")
LADDER_ORDER = ("ranked by rating: the active versions by openskill's μ, then the others (candidate, rejected, "
                "replaced, suspended, withdrawn) by status and name; 95% interval μ ± 1.96σ; LOS over next: the chance it is "
                "stronger than the active version ranked below it")

#: What a remote division's standings say of its rows, wherever they are shown (its web
#: page, `arbiter standings --arena`, every export format): ``NOT_HOSTED_LABEL``, then why.
NOT_HOSTED_LABEL = "remote division: not hosted"
NOT_HOSTED = ("these bots run on their authors' own machines and connect to this arena over the network, so they do "
              "not compete on equal hardware (hosted bots all run here, in one sandbox with the same limits): a faster "
              "machine thinks more within the same clock. A bot that runs elsewhere also keeps its memory, so no deal "
              "is played twice here, and the luck of the cards is not evened out by duplicate seatings")


def ladder_notes(remote: bool) -> list[str]:
    """The sentences under a ladder's table: for the remote division first why its rows are
    not hosted, then its order and its rating scale."""
    first = [f"{sentence(NOT_HOSTED_LABEL)} {sentence(NOT_HOSTED)}"] if remote else []
    return first + [sentence(LADDER_ORDER), sentence(ARENA_SCALE)]


def ladder_interval_text(r: Any) -> str:
    """A ladder row's 95% interval (μ ± 1.96σ) as every ladder table shows it, to two places as
    its rating is: the arena's page gave two where ``standings --arena`` and its exports gave one."""
    return f"{r.low:.2f} – {r.high:.2f}"


def ladder_cells(r: Any) -> list[str]:
    """One ladder row as a table shows it: #, player, status, rating, 95% interval, LOS over next,
    encounters, matches, failures (``LADDER_HEADERS``)."""
    return [str(r.rank) if r.rank else "", r.player, r.status + (f" ({r.reason})" if r.reason else ""),
            f"{r.mu:.2f}", ladder_interval_text(r), "" if r.los_next is None else los_text(r.los_next),
            str(r.encounters), str(r.matches), str(r.failures)]


LADDER_HEADERS = ["#", "player", "status", "rating", "95% interval", "LOS over next", "encounters", "matches", "failures"]


def render_ladder(fmt: str, name: str, game: str, rows: list[Any], remote: bool = False) -> str:
    """The arena ``name``'s ladder (its ``matchmaking.standings`` rows) in ``fmt`` (one of
    FORMATS); ``remote``: of the remote division (``NOT_HOSTED``). ValueError for another."""
    title = f"Ladder: {name} ({game})"
    notes = ladder_notes(remote)
    if fmt == "json":
        division = {"division": "remote", "not_hosted": sentence(NOT_HOSTED)} if remote else {}
        return json.dumps({"arena": name, "game": game, **division, "ranked_by": LADDER_ORDER, "scale": ARENA_SCALE,
                           "standings": [r.as_dict() for r in rows]}, indent=2) + "\n"
    if fmt == "csv":
        return _csv(LADDER_COLUMNS, _LADDER_TEXT, [r.as_dict() for r in rows])
    if fmt == "md":
        out = [f"# {md_text(title)}", "", _md_row(LADDER_HEADERS),
               "|" + "|".join("---" if i in (1, 2) else "---:" for i in range(len(LADDER_HEADERS))) + "|"]
        out += [_md_row(ladder_cells(r)) for r in rows] + [""] + [md_text(n) for n in notes]
        return "\n".join(out) + "\n"
    if fmt == "html":
        e = _html_text

        def row(cells: list[str], tag: str = "td") -> str:
            named = ' class="name"'
            return "<tr>" + "".join(f"<{tag}{named if i == 1 else ''}>{e(c)}</{tag}>" for i, c in enumerate(cells)) + "</tr>"

        body = [f"<h1>{e(title)}</h1>", "<table>", "<thead>" + row(LADDER_HEADERS, "th") + "</thead>", "<tbody>"]
        body += [row(ladder_cells(r)) for r in rows] + ["</tbody>", "</table>"]
        body += [f'<p class="meta">{e(n)}</p>' for n in notes]
        return _page(title, body)
    raise ValueError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
