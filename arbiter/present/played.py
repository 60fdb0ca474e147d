"""What a stored tournament played, as applied: for the CLI, the exports and the web page.

A spec says what the organiser wrote (``preset = "book"`` and a few ``[options]``); what
was played is the engine's option set after the preset and the options are applied
(``Game.describe_options``). ``describe`` turns a stored spec into the lines every display
shows: the format, the preset and the options that differ from the game's defaults, the
clock and failure policy, the partnerships, and how to read W-D-L in a free for all.
``team_rows`` gives the standings one row per named partnership instead of one identical
row per partner.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from cardarena.games import ConfigError, get_game
from cardarena.games.base import value_text
from arbiter.rating.ratings import tied
from arbiter.store.db import STOPPED_EARLY, resume_text

#: How W-D-L reads when a match has more than two sides (a free for all).
FFA_WDL_NOTE = ("W-D-L counts first places only: W = placed first alone, D = first place shared, L = any "
                "other place; score% counts every side beaten (½ a tie), so it ranks the places below first too")


@dataclass(frozen=True)
class Played:
    """A stored tournament's game as played."""

    game: str
    format: str
    preset: str | None
    given: dict[str, Any]  # the options the spec gives (beside the preset)
    options: dict[str, Any]  # the full option set in force (describe_options); {} if unusable
    changed: dict[str, Any]  # the options in force that differ from the game's defaults
    decision_ms: int | None
    bank_ms: int | None
    policy: str
    max_strikes: int | None
    teams: tuple[tuple[str, ...], ...]  # named partnerships; () without them
    seats_per_side: int  # 1: every seat for itself; 2: partners (a bot and its copy without named teams)
    sides: int  # sides per match
    deals: int | None
    duplicate: bool
    error: str = ""  # why the options could not be applied (a spec from an older version)
    seatings: str = "rotations"  # of a duplicate deal: rotations or permutations

    @property
    def free_for_all(self) -> bool:
        return self.sides > 2

    @property
    def given_text(self) -> str:
        """What the spec asked for: ``preset book, max_turns=60``, ``target=300`` or ``defaults``."""
        parts = ([f"preset {self.preset}"] if self.preset else []) + [f"{k}={value_text(v)}" for k, v in self.given.items()]
        return ", ".join(parts) or "defaults"

    @property
    def applied_text(self) -> str:
        """The options in force that differ from the game's defaults, or ``the defaults``."""
        return ", ".join(f"{k}={value_text(v)}" for k, v in self.changed.items()) or "the defaults"

    @property
    def options_text(self) -> str:
        """What was asked and, when a preset (or a derived value) makes it differ, what
        was applied: ``preset book, max_turns=60; as applied: deck_split=true, ...``."""
        if self.error:
            return f"{self.given_text} (cannot be applied: {self.error})"
        given = {k: value_text(v) for k, v in self.given.items()}
        # an option given at its default is in force as given: "hands=2, players=4; as applied:
        # hands=2" read as if players=4 had not been applied
        in_force = all(k in self.options and value_text(self.options[k]) == v for k, v in given.items())
        if not self.preset and in_force and set(self.changed) <= set(given):
            return self.given_text
        return f"{self.given_text}; as applied: {self.applied_text}"

    @property
    def clock_text(self) -> str:
        if self.decision_ms is None:
            return "not recorded"
        decision = f"{self.decision_ms} ms a decision" if self.decision_ms else "no limit a decision"
        bank = f" + {self.bank_ms} ms bank" if self.bank_ms else ""
        return decision + bank

    @property
    def policy_text(self) -> str:
        if self.policy == "default" and self.max_strikes is not None:
            return f"default (the first legal action is played, up to {self.max_strikes} strike{'' if self.max_strikes == 1 else 's'})"
        return self.policy

    @property
    def teams_text(self) -> str:
        if self.teams:
            return ", ".join(" + ".join(t) for t in self.teams)
        if self.seats_per_side > 1:
            return "each bot with its copy"
        return "none (every seat plays for itself)"

    @property
    def variance_text(self) -> str:
        """Which variance reduction the results carry (docs/strength.md measures each)."""
        if not self.duplicate:
            return "none: every deal played once (independent deals)"
        how = "every rotation" if self.seatings == "rotations" else "every permutation"
        return f"duplicate deals: each deal played in {how} of the seats, so the cards' luck cancels"

    @property
    def wdl_note(self) -> str:
        return FFA_WDL_NOTE if self.free_for_all else ""

    def lines(self) -> list[tuple[str, str]]:
        """(label, text) pairs for a display: format, options, clock, policy, teams."""
        deals = f", {self.deals} deal{'s' * (self.deals != 1)} a table" if self.deals is not None else ""
        out = [("format", f"{self.format}{deals}" + (", duplicate deals" if self.duplicate else "")),
               ("variance reduction", self.variance_text),
               ("options", self.options_text), ("clock", self.clock_text), ("failures", self.policy_text)]
        if self.seats_per_side > 1:
            out.append(("teams", self.teams_text))
        return out


def describe(spec: Mapping[str, Any]) -> Played:
    """What the stored spec ``spec`` (a tournament's JSON) played."""
    game = str(spec.get("game", ""))
    given = dict(spec.get("options") or {})
    preset = spec.get("preset") or None
    options: dict[str, Any] = {}
    changed: dict[str, Any] = {}
    error = ""
    sides, per_side = 2, 1
    try:
        g = get_game(game, given, preset)
        options = g.describe_options()
        defaults = get_game(game).describe_options()
        changed = {k: v for k, v in options.items() if defaults.get(k) != v}
        sides, per_side = len(g.teams), max(len(t) for t in g.teams)
    except ConfigError as exc:
        error = str(exc)
    teams = tuple(tuple(str(m) for m in t) for t in spec.get("teams") or ())
    return Played(
        game=game, format=str(spec.get("format", "round-robin")), preset=preset, given=given, options=options,
        changed=changed,
        decision_ms=spec.get("decision_ms"), bank_ms=spec.get("bank_ms"), policy=str(spec.get("policy", "forfeit")),
        max_strikes=spec.get("max_strikes"), teams=teams, seats_per_side=per_side, sides=sides,
        deals=spec.get("deals"), duplicate=bool(spec.get("duplicate", True)), error=error,
        seatings=str(spec.get("seatings") or "rotations"),
    )


#: The spec fields a display adds to the exports' tournament description
#: (``tournament_info`` carries the game, options, preset, format, deals and teams).
CLOCK_FIELDS = ("decision_ms", "bank_ms", "policy", "max_strikes")


def stopped_early_text(done: int, planned: int, spec: Mapping[str, Any]) -> str:
    """What an evaluation its sequential test ended before its plan (``TournamentRow.stopped_early``)
    says beside its matches: that it stopped early, and after how many of its deals (``spec``'s
    ``deals``, each played in every seating: ``planned`` matches in all, ``done`` played)."""
    deals = int(spec.get("deals") or 0)
    played = done * deals // planned if deals and planned else 0
    after = f" after {played} of its {deals} deals" if deals else ""
    return f"{STOPPED_EARLY} by its sequential test{after}"


def interrupted_text(name: str, spec: Mapping[str, Any], db: str | os.PathLike) -> str:
    """What an interrupted tournament (``TournamentRow.state``: ``name``, stored with ``spec``
    in the store ``db``) needs said: that nothing runs it, and the command that resumes it,
    quoted to paste (``tournament run --resume`` reads its settings from the store: a command
    of its flags would show its seed, withheld until it ends). An evaluation's own command
    resumes it."""
    from arbiter.batch.settings import edited_bots

    if files := edited_bots(spec):  # its resume would not happen: said what the command does instead
        return f"interrupted, nothing runs it; {edited_text(name, spec, db, files)}"
    return f"interrupted, nothing runs it; {resume_text(name, spec, db)}"  # (as a withheld match's refusal says it)


def edited_text(name: str, spec: Mapping[str, Any], db: str | os.PathLike, files: Sequence[str]) -> str:
    """What an interrupted run whose bot ``files`` changed since it was played (``edited_bots``)
    needs said instead of the command that resumes it, which would not: an evaluation's command
    begins a new evaluation beside it (its default name is its spec's, the files' contents
    included), or is refused (one named with --name); ``tournament run --resume`` is refused.
    Each resumes it with the files as they were."""
    from shlex import quote

    changed = f"{', '.join(files)} {'has' if len(files) == 1 else 'have'} changed since it was played"
    where = f"--db {quote(str(db))}"
    if "evaluate" in spec:
        from arbiter.tournament.evaluate import default_named

        if default_named(name, spec):
            return (f"{changed}: the arbiter evaluate command that started it, run again with {where}, begins a new "
                    f"evaluation (on a new seed if it gave no --seed) and leaves this one as it is; it resumes this one "
                    f"with the files as they were (--name {quote(name)} --fresh plays them as they are now in its place)")
        return (f"{changed}: the arbiter evaluate command that started it (--name {quote(name)}), run again with "
                f"{where}, is refused; it resumes it with the files as they were (with --fresh it plays them as they "
                f"are now in its place)")
    return (f"{changed}: arbiter tournament run --resume {quote(name)} {where} is refused; it resumes it with the files "
            f"as they were (the command that started it, with --fresh, plays them as they are now in its place)")


def with_clock(info: Mapping[str, Any], spec: Mapping[str, Any]) -> dict[str, Any]:
    """``info`` with the clock and the failure policy of the stored ``spec``."""
    return {**info, **{k: spec[k] for k in CLOCK_FIELDS if k in spec}}


# --------------------------------------------------------------------------------------
# Standings rows: one per named partnership.


@dataclass(frozen=True)
class DisplayRow:
    """A line of a standings table: its rank, what it names, and the row it shows."""

    rank: int
    label: str  # a bot's name, or "a + b" for a partnership
    row: Any  # the ratings.StandingRow whose numbers are shown
    members: tuple[str, ...]
    los_next: float | None = None  # P(stronger than the line below it); None on the last line
    forfeits: int = 0  # matches the line's side lost by a failure of one of its seats (a partnership: its partners')


def _same_numbers(a: Any, b: Any) -> bool:
    keys = ("matches", "wins", "draws", "losses", "points", "margin_sum")
    ra, rb = a.rating, b.rating
    same_rating = (ra is None) == (rb is None) and (ra is None or abs(ra.value - rb.value) < 1e-6)
    return same_rating and all(abs(getattr(a, k) - getattr(b, k)) < 1e-9 for k in keys)


def team_rows(st: Any, teams: Sequence[Sequence[str]]) -> list[DisplayRow]:
    """The standings ``st`` (``ratings.Standings``) as displayed: partners who always sat
    together (a named team) have the same numbers, so they are shown as one row ``a + b``; a
    team whose partners' numbers differ (it cannot happen in a finished tournament, but a
    table can be partial) keeps one row per partner, each marked with its team. Without
    teams: one row per bot.

    Each line's LOS is over the line shown below it (``Standings.los`` of their first
    members: partners share one strength). It was the LOS of a partner's bot row over the
    next bot row, which with two partnerships tied and their names interleaved (h2, heuristic,
    r2, random) was over a bot of the line above, and the last line showed one."""
    rows = st.rows
    team_of = {m: tuple(t) for t in teams for m in t}
    by_name = {r.name: r for r in rows}
    out: list[DisplayRow] = []
    done: set[str] = set()

    def add(label: str, row: Any, members: tuple[str, ...]) -> None:
        # rows level on every number the table is ordered by share a rank (1, 1, 3: ``tied``)
        rank = out[-1].rank if out and tied(out[-1].row, row) else len(out) + 1
        # a forfeit is counted to the bot whose seat failed, so a partnership's are its partners'
        # together (the line showed one partner's: 0 beside 9 lost by the other's crashes)
        forfeits = sum(by_name[m].forfeits for m in members if m in by_name)
        out.append(DisplayRow(rank, label, row, members, forfeits=forfeits))

    for r in rows:
        if r.name in done:
            continue
        team = team_of.get(r.name)
        if team is None or len(team) < 2:
            add(r.name, r, (r.name,))
            done.add(r.name)
            continue
        members = [by_name[m] for m in team if m in by_name]
        if all(_same_numbers(r, m) for m in members):
            last = max(members, key=lambda m: (m.rank, rows.index(m)))
            add(" + ".join(team), last, tuple(team))
            done.update(team)
        else:
            add(f"{r.name} (team {' + '.join(team)})", r, (r.name,))
            done.add(r.name)
    return [dataclasses.replace(d, los_next=st.los(d.members[0], below.members[0]))
            if d.row.rating is not None and below.row.rating is not None else d
            for d, below in zip(out, out[1:])] + out[-1:]


def cross_rates(st: Any, shown: Sequence[DisplayRow]) -> dict[tuple[str, str], float]:
    """The cross-table of the rows a standings table shows (``team_rows``): (row label, column
    label) -> the row's score share against the column, for the pairs that met. A partnership's
    score against another is its first member's (partners who always sat together have the
    same), so every display's cross-table has the rows of its standings, not one per partner."""
    out = {}
    for la in shown:
        for lb in shown:
            v = st.cross(la.members[0], lb.members[0]) if la.label != lb.label else None
            if v is not None:
                out[(la.label, lb.label)] = v
    return out


# --------------------------------------------------------------------------------------
# Latency: how much of the clock was the bot's (docs/latency.md).

#: The latency columns every display shows (CLI standings and `tournament show`, the web
#: standings, an arena bot's page), and what they mean.
THINK_COLUMNS = ("think ms", "worst ms", "transport ms", "arbiter ms")
THINK_NOTE = ("think ms: the bot's mean time per decision as the arbiter saw it, from the question sent to the answer "
              "received (what its clock is charged); worst ms: its longest; transport ms: how much of the think time was "
              "not the bot's own (the arbiter's time less the time the bot's SDK says it took: encoding, the network, "
              "decoding; empty where the bot does not say, or plays in the arbiter's process); arbiter ms: the arbiter's "
              "own mean time per decision, charged to no clock (docs/latency.md)")


def think_cells(times: Mapping[str, Any], members: Sequence[str]) -> tuple[str, str, str, str]:
    """The latency columns of a row standing for ``members`` (a bot, or a partnership's
    bots), from ``times`` (bot -> ``arbiter.store.db.ThinkTimes``); '' where unknown."""
    found = [times[m] for m in members if m in times]
    if not found:
        return "", "", "", ""
    t = found[0]
    for more in found[1:]:
        t = t + more
    mean, transport, own = t.mean_ms, t.transport_ms, t.overhead_ms
    return ("" if mean is None else f"{mean:.2f}", str(t.worst_ms) if t.decisions else "",
            "" if transport is None else f"{transport:.2f}", "" if own is None else f"{own:.3f}")
