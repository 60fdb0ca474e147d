"""Standings from stored matches: results, margins, duplicate advantage, ratings.

Per bot: matches, W/D/L, points (a side gets 1 for every other side it beats and ½ for
every tie, divided by the number of other sides: 1/½/0 head to head), the mean score
margin per match (its side's score minus the mean of the other sides'; every match plays
one tournament deal), and with duplicate deals the mean *duplicate advantage*: for every
deal of every table, the bot's margin averaged over all the seatings that deal was played
in (the luck of the cards cancels), then over the deal's tables (one value a deal), with its
standard error over those deals.

Ratings, always computed from the matches in schedule order so that the same results give
the same table however the run was interrupted, for every shape of game (``_bradley_terry``):

* Bradley-Terry strengths (Elo scale, mean 1500) fitted on every pair of sides of every
  match (head to head: the match; free for all: the k(k-1)/2 pairs of a k-way ranking; a
  side's strength is the mean of its distinct bots'), by maximum a posteriori with a weak
  Gaussian prior on each strength (σ = 2 natural-log units ≈ 350 Elo) so that a bot that
  never loses still has a finite rating;
* their covariance is deal-clustered ("sandwich"): the matches of one duplicate deal and
  the pairs of one match are not independent, and counting them as if they were made the
  intervals too wide head to head and (with openskill's σ, used for more sides until
  December 2026) the LOS too timid or too bold. docs/strength.md, "Calibration", has the
  measurements;
* the 95% interval spans Student's t quantile with as many degrees of freedom as there are
  clusters beyond the strength differences fitted (half as many with partnerships), (``interval_quantile``; 1.96 for the
  model's own variance), and below ``MIN_INTERVAL_DEALS`` deals (``MIN_PARTNERSHIP_INTERVAL_DEALS``
  with partnerships) there is none: the standings say there are too few deals for an
  interval (docs/strength.md, "Coverage per bot").

The likelihood of superiority (LOS) of a row over the next one is P(strength of the row >
strength of the next) under the normal approximation with that covariance
(``Standings.los``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from itertools import repeat
from operator import mul, sub
from typing import Any, Mapping, Sequence

from arbiter.store.db import MatchRow
from arbiter.rating.stats import mean_se, t_quantile

ELO_PER_NAT = 400 / math.log(10)
BT_PRIOR_SIGMA = 2.0
Z95 = 1.959963984540054


def phi(x: float) -> float:
    """Standard normal CDF."""
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


# --------------------------------------------------------------------------------------
# One match, per side and per bot.


def forfeit_stake(game: Any) -> float:
    """What a forfeit costs its failing side (``counted_result``): the widest margin the rules
    allow ``game`` under its options (``Game.margin_bounds``), so that a forfeit counts as a
    loss by more than any play could lose by, and no bot gains by crashing, timing out or
    playing an illegal move to cap a loss (counted by rank alone, +-1, a bot losing a deal by
    174 could crash in it and lose by 1). 1 where a game fixes no bounds (by rank alone)."""
    bounds = game.margin_bounds()
    return 1.0 if bounds is None else max(-bounds[0], bounds[1])


def forfeits_line(by: Mapping[str, int], kinds: Mapping[str, int], matches: str, stake: float, first: str = "",
                  where: str = "the margin") -> str:
    """The line that says what forfeits made of a duplicate margin (``arbiter evaluate``'s, the
    arena gate's reasons): ``by`` bot and ``kinds`` of failure, how many each, of ``matches``
    ("40 matches"); each counts at ``stake`` (``forfeit_stake``), which the margin alone does
    not tell from play. ``first``: said of the first (evaluate's "; the first in deal 0 ...")."""
    whose = f"all by {next(iter(by))}" if len(by) == 1 else ", ".join(f"{n} by {w}" for w, n in by.items())
    why = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
    return (f"forfeits: {sum(by.values())} of {matches}, {whose} ({why}){first}; a forfeit counts -{stake:g} for the "
            f"side that failed and +{stake:g} for the other in {where} (the widest margin the rules allow: no bot "
            "gains by forfeiting)")


def counted_result(outcome: Any, seats: Sequence[Any], teams: Sequence[Sequence[int]],
                   stake: float = 1.0) -> tuple[Sequence[float], Sequence[int]]:
    """The scores and ranks a match is read by (every margin, point, win and rating): its own, but
    a forfeit's as the loss it is. A forfeit stores all-zero scores with the failing seat's side
    last and every other side first (``cardarena.records.forfeit_outcome``); read so, a copy of the
    failing bot on another side (``seats``: who holds each seat; ``teams``: the game's sides)
    shared first place with the bots it was losing to, a draw its own play could not have made.
    Counted here every side that holds a bot of the failing side ranks last and scores 0, every
    other side first with ``stake`` (``forfeit_stake``: the widest margin the game's rules allow),
    so against every other side each of the failing bot's sides loses by the widest margin, and
    its copies tie only each other: no better than any play, its copies last. The other sides keep
    the order the forfeit gave them (by where they stood when it ended, records of format 2; all
    first in format 1), ranked among themselves."""
    if not outcome.reason.is_forfeit:
        return outcome.scores, outcome.ranks
    ranks = outcome.ranks
    last = max(ranks)
    failing = {seats[s] for s, r in enumerate(ranks) if r == last}
    lost = {s for t in teams if any(seats[x] in failing for x in t) for s in t}
    kept = [t[0] for t in teams if t[0] not in lost]  # a seat of each side that did not fail
    return (tuple(0.0 if s in lost else stake for s in range(len(seats))),
            tuple(last if s in lost else 1 + sum(ranks[k] < ranks[s] for k in kept) for s in range(len(seats))))


def margin_of(outcome: Any, who: Sequence[int | None], stake: float = 1.0) -> float:
    """Bot A's mean score minus bot B's in one match (``who``: per seat 0 for A, 1 for B, None
    for a seat of neither), from ``counted_result`` (a forfeit's failing side at -``stake``, the
    game's widest margin: ``forfeit_stake``); ``arbiter evaluate``'s duplicate margin and the
    arena gate's. A forfeit by a seat of A's is -``stake`` whatever A's other seats' ranks (a
    copy of the failing bot on another side still ranked first), by B's +``stake``, so no side of
    copies gains by one copy forfeiting; by a third bot's seat, 0 (A and B both ranked first)."""
    scores, _ = counted_result(outcome, who, [[s] for s in range(len(who))], stake)
    a = [scores[s] for s, w in enumerate(who) if w == 0]
    b = [scores[s] for s, w in enumerate(who) if w == 1]
    return sum(a) / len(a) - sum(b) / len(b)


def side_results(teams: Sequence[Sequence[int]], scores: Sequence[float], ranks: Sequence[int]) -> list[tuple[float, float, int]]:
    """Per side: (points in [0, 1], score margin, rank). A match's ``scores`` and ``ranks``: ``counted_result``'s."""
    side_score = [sum([scores[s] for s in t]) / len(t) for t in teams]
    side_rank = [min([ranks[s] for s in t]) for t in teams]
    out = []
    for j, others in enumerate(_others(len(teams))):
        mine = side_rank[j]
        if not others:
            out.append((0.5, 0.0, mine))
            continue
        beaten = tied = 0
        for i in others:
            if mine < side_rank[i]:
                beaten += 1
            elif mine == side_rank[i]:
                tied += 1
        margin = side_score[j] - sum([side_score[i] for i in others]) / len(others)
        out.append(((beaten + 0.5 * tied) / len(others), margin, mine))
    return out


@functools.lru_cache(maxsize=None)
def _others(k: int) -> tuple[tuple[int, ...], ...]:
    """Per side of ``k``, the other sides (``side_results`` reads them once a match)."""
    return tuple(tuple(i for i in range(k) if i != j) for j in range(k))


def sides_of(teams: Sequence[Sequence[int]], seats: Sequence[str]) -> list[tuple[str, ...]]:
    """The distinct bots on each side."""
    return [tuple(dict.fromkeys(seats[s] for s in t)) for t in teams]


def side_points(teams: Sequence[Sequence[int]], seats: Sequence[str], ranks: Sequence[int]) -> dict[str, float]:
    """Points per bot in one match (averaged over its sides when copies sit on several)."""
    res = side_results(teams, [0.0] * len(seats), ranks)
    acc: dict[str, list[float]] = {}
    for side, bots in enumerate(sides_of(teams, seats)):
        for b in bots:
            acc.setdefault(b, []).append(res[side][0])
    return {b: sum(v) / len(v) for b, v in acc.items()}


# --------------------------------------------------------------------------------------
# The table.


@dataclass
class Rating:
    value: float
    low: float
    high: float
    se: float = 0.0  # the standard error behind the interval (Elo)
    interval: bool = True  # False: too few deals for an interval (``MIN_INTERVAL_DEALS``); low and high not shown


@dataclass
class StandingRow:
    """One bot's line of the table."""

    rank: int
    name: str
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    margin_sum: float = 0.0
    dup_values: list[float] = field(default_factory=list, repr=False)  # one a deal: its tables' duplicate advantages averaged
    forfeits: int = 0  # matches its side lost by a failure of its own seat
    incidents: dict[str, int] = field(default_factory=dict)  # kind -> count (timeouts, illegal, crashes)
    rating: Rating | None = None
    los_next: float | None = None  # P(stronger than the next row)

    @property
    def score_rate(self) -> float:
        return self.points / self.matches if self.matches else 0.0

    @property
    def mean_margin(self) -> float:
        return self.margin_sum / self.matches if self.matches else 0.0

    @property
    def dup_advantage(self) -> float | None:
        return mean_se(self.dup_values).mean if self.dup_values else None

    @property
    def dup_se(self) -> float | None:
        return mean_se(self.dup_values).se

    def as_dict(self) -> dict[str, Any]:
        """The row for the CSV and JSON exports. Points are sums of fractions (a third of a point
        for each side beaten of four) and are rounded as the other numbers are, not written as
        ``2.4999999999999996``; with no match yet there is no score rate nor margin (None, as
        the tables' "–"), not a level 0."""
        r = self.rating
        played = self.matches > 0
        return {
            "rank": self.rank, "bot": self.name, "matches": self.matches, "wins": self.wins, "draws": self.draws,
            "losses": self.losses, "points": round(self.points, 6), "score_rate": round(self.score_rate, 6) if played else None,
            "mean_margin": round(self.mean_margin, 6) if played else None,
            "dup_advantage": None if self.dup_advantage is None else round(self.dup_advantage, 6),
            "dup_se": None if self.dup_se is None else round(self.dup_se, 6), "dup_deals": len(self.dup_values),
            "rating": None if r is None else round(r.value, 3),
            "rating_low": None if r is None or not r.interval else round(r.low, 3),
            "rating_high": None if r is None or not r.interval else round(r.high, 3),
            "los_next": None if self.los_next is None else round(self.los_next, 6), "forfeits": self.forfeits,
            "incidents": dict(sorted(self.incidents.items())),
        }


#: Fewer deals than this and the standings give no rating interval, only "too few deals for an
#: interval": below it some bot's 95% interval was covered less than 93% of the time in one of
#: the simulated schedules (docs/strength.md, "Coverage per bot").
MIN_INTERVAL_DEALS = 4
#: ... and with partnerships (a side of two or more distinct bots) fewer than this: below it the
#: variance is the model's own, which knows nothing of the deal luck partners share, and with
#: strong shared luck the best and worst of four partnerships were covered 0.89-0.90 on 4 and
#: 6 deals (docs/strength.md, "Coverage per bot").
MIN_PARTNERSHIP_INTERVAL_DEALS = 8


#: Why ``min_interval_deals`` asks for more than ``MIN_INTERVAL_DEALS`` (the note's words).
WITH_PARTNERSHIPS = "with partnerships"
AT_SEVERAL_TABLES = "where each deal is played at several tables"


def min_interval_deals(partnerships: bool, several_tables: bool = False, rank: int = 1) -> tuple[int, str]:
    """The fewest deals whose standings give rating intervals, and why more than
    ``MIN_INTERVAL_DEALS`` ("" if not): ``MIN_PARTNERSHIP_INTERVAL_DEALS`` with partnerships; where
    one duplicate deal's cards are played at several tables (a round robin of three bots or more,
    each pairing or table on the same cards), as many as clustering by deal needs for ``rank``
    strength differences (``enough_clusters``). Below that the variance is the model's own or
    clustered by match, and the deal's luck, shared by the results of different tables, is seen
    by neither: the strongest and weakest of four bots head to head (1.2 to -1.3 nats) were
    covered 0.85-0.88 on 4-7 deals with strong shared luck, of six Spot bots at tables of four
    0.66-0.86; clustered by deal from 8, 0.96-1.00 (docs/strength.md, "Several tables a deal")."""
    least, why = (MIN_PARTNERSHIP_INTERVAL_DEALS, WITH_PARTNERSHIPS) if partnerships else (MIN_INTERVAL_DEALS, "")
    if several_tables:
        clustered = clusters_needed(rank)
        if clustered > least:
            least, why = clustered, AT_SEVERAL_TABLES
    return least, why


def too_few_deals(minimum: int = MIN_INTERVAL_DEALS, why: str | None = None) -> str:
    """What the standings say instead of an interval below ``minimum`` deals (``why``: the
    reason it is more than ``MIN_INTERVAL_DEALS``; by default partnerships' where it is theirs)."""
    if why is None:
        why = WITH_PARTNERSHIPS if minimum == MIN_PARTNERSHIP_INTERVAL_DEALS != MIN_INTERVAL_DEALS else ""
    return f"too few deals for an interval (fewer than {minimum}{' ' + why if why else ''})"


def several_tables_a_deal(rows: Sequence[MatchRow]) -> bool:
    """Whether some deal (its seed) was played at more than one table: by different sets of bots."""
    tables: dict[Any, set[frozenset[str]]] = {}
    for r in rows:
        tables.setdefault(r.seed, set()).add(frozenset(r.seats))
    return any(len(t) > 1 for t in tables.values())


TOO_FEW_DEALS = too_few_deals(MIN_INTERVAL_DEALS)

#: How the ratings and their intervals are made, in words (the web page, exports).
RATING_METHOD = ("Bradley-Terry (Elo scale) on every pair of sides, 95% interval from the profile likelihood scaled by the "
                 "deals' design effect (a deal-clustered variance, never below half the model's own) and Student's t")


@dataclass
class Standings:
    rows: list[StandingRow]
    model: str  # "bradley-terry" (since December 2026 for every shape; "plackett-luce" before)
    crosstable: dict[str, dict[str, tuple[float, int]]]  # row bot -> column bot -> (points, meetings)
    matches: int
    duplicate: bool
    covariance: dict[str, dict[str, float]] = field(default_factory=dict, repr=False)  # of the ratings, Elo²
    interval_df: int | None = None  # the intervals' degrees of freedom (None: the model's own variance)
    min_interval_deals: int = MIN_INTERVAL_DEALS  # fewer deals and no rating has an interval (``min_interval_deals``)
    min_interval_why: str | None = None  # why that many (``min_interval_deals``' reason; None: as ``too_few_deals`` reads it)
    stake: float = 1.0  # what a forfeit costs its failing side in the margins (``forfeit_stake``)

    @property
    def too_few_deals(self) -> str:
        """Why no rating has an interval, when none has."""
        return too_few_deals(self.min_interval_deals, self.min_interval_why)

    def cross(self, a: str, b: str) -> float | None:
        """Score rate of ``a`` against ``b`` (None if they never met)."""
        pts, n = self.crosstable.get(a, {}).get(b, (0.0, 0))
        return pts / n if n else None

    def diff_se(self, a: str, b: str) -> float | None:
        """Standard error of ``a``'s rating minus ``b``'s (Elo; None without a covariance).

        0 for partners the results cannot tell apart (they always played together)."""
        c = self.covariance
        if a not in c or b not in c:
            return None
        var = c[a][a] + c[b][b] - 2 * c[a][b]
        return math.sqrt(var) if var > 1e-9 * (abs(c[a][a]) + abs(c[b][b])) and var > 0 else 0.0

    def los(self, a: str, b: str) -> float:
        """Likelihood of superiority: P(``a`` is stronger than ``b``), normal approximation."""
        ra, rb = (next(r.rating for r in self.rows if r.name == x) for x in (a, b))
        se = self.diff_se(a, b)
        if not se or ra is None or rb is None:
            return 0.5
        return phi((ra.value - rb.value) / se)


#: One match as the ratings read it: the row, its ``side_results`` and its ``sides_of``.
_Parsed = tuple[MatchRow, list[tuple[float, float, int]], list[tuple[str, ...]]]


def compute_standings(
    rows: Sequence[MatchRow], teams: Sequence[Sequence[int]], duplicate: bool = True, bots: Sequence[str] = (),
    stake: float = 1.0,
) -> Standings:
    """The table for these matches (any order; they are sorted by schedule index). ``stake``:
    what a forfeit costs in the margins (``forfeit_stake`` of the game); a forfeit read by ``counted_result``."""
    rows = sorted(rows, key=lambda r: r.idx)
    table: dict[str, StandingRow] = {b: StandingRow(0, b) for b in bots}
    cross: dict[str, dict[str, list[float]]] = {}
    groups: dict[tuple[int, int, int], list[int]] = {}
    parsed: list[_Parsed] = []
    k = len(teams)
    everyone = set(range(k))
    # what a seating decides whatever the result, once a seating (a table's matches repeat a few):
    # its sides, each bot's sides (with their set), and each two bots' crosstable cell and pairs of sides
    seatings: dict[tuple[str, ...], tuple[list[tuple[str, ...]], list[tuple[str, list[int], set[int]]],
                                         list[tuple[list[float], list[tuple[int, int]]]]]] = {}
    margins: list[list[tuple[str, float]]] = []  # per match: each bot's margin (its sides' mean)
    for row in rows:
        res = side_results(teams, *counted_result(row.outcome, row.seats, teams, stake))
        seats = tuple(row.seats)
        seating = seatings.get(seats)
        if seating is None:
            sides = sides_of(teams, seats)
            of: dict[str, list[int]] = {}
            for j, bots_j in enumerate(sides):
                for b in bots_j:
                    of.setdefault(b, []).append(j)
            meets = []
            for a, ja in of.items():
                for b, jb in of.items():
                    if a == b:
                        continue
                    pairs = [(x, y) for x in ja for y in jb if x != y]
                    if pairs:  # else partners; the crosstable's cell made where the first match of the pair made it
                        meets.append((cross.setdefault(a, {}).setdefault(b, []), pairs))
            seating = seatings[seats] = (sides, [(b, js, set(js)) for b, js in of.items()], meets)
        sides, mine, meets = seating
        parsed.append((row, res, sides))
        ranks = [r[2] for r in res]
        best = min(ranks)
        firsts = {j for j in range(k) if ranks[j] == best}
        failing = row.incidents[-1].seat if row.outcome.reason.is_forfeit and row.incidents else None
        kept: list[tuple[str, float]] = []
        for b, js, own in mine:
            st = table.get(b)
            if st is None:
                st = table[b] = StandingRow(0, b)
            st.matches += 1
            if len(js) == 1:  # the sum of one over one: the value itself (neither is ever -0.0)
                j = js[0]
                points, margin = res[j][0], res[j][1]
            else:
                points = sum(res[j][0] for j in js) / len(js)
                margin = sum(res[j][1] for j in js) / len(js)
            st.points += points
            st.margin_sum += margin
            kept.append((b, margin))
            if own == everyone or (firsts & own and not firsts <= own):
                st.draws += 1
            elif firsts <= own:
                st.wins += 1
            else:
                st.losses += 1
            if failing is not None and row.seats[failing] == b:
                st.forfeits += 1
        margins.append(kept)
        for inc in row.incidents:
            st = table[row.seats[inc.seat]]
            st.incidents[inc.kind] = st.incidents.get(inc.kind, 0) + 1
        for cell, pairs in meets:
            if len(pairs) == 1:
                x, y = pairs[0]
                cell.append(1.0 if ranks[x] < ranks[y] else 0.5 if ranks[x] == ranks[y] else 0.0)
            else:
                cell.append(sum(1.0 if ranks[x] < ranks[y] else 0.5 if ranks[x] == ranks[y] else 0.0 for x, y in pairs) / len(pairs))
        groups.setdefault((row.round, row.deal, row.table), []).append(len(parsed) - 1)

    if duplicate:
        # a deal counts once all its seatings are in (a partial set is not luck-balanced)
        full = _seatings_per_table(rows)
        # one value a bot a deal: its tables of one deal (the other bots it met on the same
        # cards) averaged, so that the ± is over deals, as it says (over a deal's tables it gave
        # one deal of a round robin of three a standard error, and many tables of few deals a
        # narrow one, their shared cards counted as independent)
        per_deal: dict[tuple[int, int], dict[str, list[float]]] = {}
        for (rnd, deal, tab), members in sorted(groups.items()):
            if len(members) < full.get((rnd, tab), 0) or len(members) < 2:
                continue
            acc: dict[str, list[float]] = {}
            for m in members:
                for b, margin in margins[m]:
                    acc.setdefault(b, []).append(margin)
            for b, v in acc.items():
                per_deal.setdefault((rnd, deal), {}).setdefault(b, []).append(sum(v) / len(v))
        for _, bots_values in sorted(per_deal.items()):
            for b, v in bots_values.items():
                table[b].dup_values.append(sum(v) / len(v))

    # a bot with no match yet (a table read before its first one) is not rated: the prior alone
    # put it at the field's mean, and with no data of it the sandwich gave it an interval of width
    # 0 and a likelihood of superiority near 1 over the next row
    names = [b for b in table if table[b].matches]
    ratings, cov, df, rank = _bradley_terry(names, parsed, clustered=duplicate)
    least, why = min_interval_deals(any(len(bots) > 1 for _, _, sides in parsed for bots in sides),
                                    duplicate and several_tables_a_deal(rows), rank)
    few = len({(row.round, row.deal) for row in rows}) < least
    for b, r in ratings.items():
        r.interval = not few
        table[b].rating = r
    covariance = {a: {b: cov[i][j] for j, b in enumerate(names)} for i, a in enumerate(names)}
    ordered = sorted(table.values(), key=lambda s: (-(s.rating.value if s.rating else 0.0), -s.score_rate, -s.mean_margin, s.name))
    crosstable = {a: {b: (sum(v), len(v)) for b, v in row.items()} for a, row in cross.items()}
    out = Standings(ordered, "bradley-terry", crosstable, len(rows), duplicate, covariance, df, least, why, stake)
    for i, st in enumerate(ordered):
        st.rank = ordered[i - 1].rank if i and tied(ordered[i - 1], st) else i + 1
        if i + 1 < len(ordered) and st.rating is not None and ordered[i + 1].rating is not None:
            st.los_next = out.los(st.name, ordered[i + 1].name)
    return out


def tied(a: StandingRow, b: StandingRow) -> bool:
    """Whether two rows are level on everything a table is ordered by (rating, score %, margin),
    the name aside: they share a rank, standard competition ranking (1, 1, 3), wherever a table
    is shown (``compute_standings``, ``arbiter.present.played.team_rows``). Two copies of one bot
    on the same duplicate deals tie so; ranked 1 and 2 by their names' order, the table claimed
    an order its numbers do not have."""
    ra = a.rating.value if a.rating else None
    rb = b.rating.value if b.rating else None
    same_rating = ra == rb or (ra is not None and rb is not None and abs(ra - rb) < 1e-6)
    return same_rating and abs(a.score_rate - b.score_rate) < 1e-9 and abs(a.mean_margin - b.mean_margin) < 1e-9


def _seatings_per_table(rows: Sequence[MatchRow]) -> dict[tuple[int, int], int]:
    """How many seatings each (round, table) plays per deal: the most seen for any deal."""
    counts: dict[tuple[int, int, int], int] = {}
    for r in rows:
        counts[(r.round, r.table, r.deal)] = counts.get((r.round, r.table, r.deal), 0) + 1
    best: dict[tuple[int, int], int] = {}
    for (rnd, tab, _), c in counts.items():
        best[(rnd, tab)] = max(best.get((rnd, tab), 0), c)
    return best


# --------------------------------------------------------------------------------------
# Bradley-Terry on every pair of sides, with a deal-clustered variance.


#: Fewer deals than this (or than the strength differences the results determine, + 2) and
#: the variance is not clustered by deal (by match instead, if there are enough matches;
#: else the model's own).
MIN_CLUSTERS = 8
#: ... and fewer than this many clusters beyond the strength differences the results determine.
MIN_CLUSTER_DF = 2


def clusters_needed(rank: int) -> int:
    """The fewest clusters the clustered (sandwich) variance of ``rank`` strength differences
    takes: ``MIN_CLUSTERS``, and ``MIN_CLUSTER_DF`` beyond the rank."""
    return max(MIN_CLUSTERS, rank + MIN_CLUSTER_DF)


def enough_clusters(clusters: int, rank: int) -> bool:
    """Whether ``clusters`` clusters are enough for the clustered variance of ``rank`` strength
    differences (``clusters_needed``)."""
    return clusters >= clusters_needed(rank)


def _by_deal(clustered: bool, deals: set[Any], rank: int) -> bool:
    """Whether the comparisons cluster by deal (``_comparisons``): duplicate deals, as many of
    them as the clustered variance of ``rank`` strength differences needs."""
    return clustered and enough_clusters(len(deals), rank)


def _comparisons(
    names: list[str], parsed: Sequence[_Parsed], clustered: bool
) -> tuple[dict[tuple[tuple[int, float], ...], dict[Any, list[float]]], int, bool]:
    """Every pair of sides of every match whose bots differ, as design -> cluster -> [score, count];
    the rank of the designs (the strength differences the results determine) and whether the
    clusters are deals, which ``_bradley_terry`` reads too.

    A design is a side's mean strength minus the other's, as ((bot index, coefficient), ...),
    oriented so that the first coefficient is positive (the score is then the first side's:
    1 ahead, ½ level, 0 behind). ``clustered``: clusters are deals (matches sharing a deal
    seed) when there are at least ``MIN_CLUSTERS`` (and the rank of the designs + 2: partners who
    always play together count once), else matches. ``parsed``:
    (row, ``side_results``, ``sides_of``) per match.
    """
    n = len(names)
    index = {b: i for i, b in enumerate(names)}
    deals = {row.seed for row, _, _ in parsed}
    seen: list[tuple[tuple[tuple[int, float], ...], float, Any, Any]] = []
    # each seating's pairs of sides, once: (x, y, design, whether the design is y's side less x's)
    layouts: dict[int, list[tuple[int, int, tuple[tuple[int, float], ...], bool]]] = {}
    for row, res, sides in parsed:
        layout = layouts.get(id(sides))
        if layout is None:
            layout = layouts[id(sides)] = _side_pairs(sides, index)
        ranks = [r[2] for r in res]
        for x, y, design, flip in layout:
            score = 1.0 if ranks[x] < ranks[y] else 0.5 if ranks[x] == ranks[y] else 0.0
            seen.append((design, 1 - score if flip else score, row.seed, row.idx))
    # enough deals for the strength differences the results determine (partners who always
    # play together share one): with 4 partnerships of 8 bots on 8 deals, counting bots
    # (8 + 2) left the variance unclustered, and the strongest and weakest teams were
    # covered 0.92 and 0.94, the middle ones 0.99 and 0.97; by rank (3 + 2), 0.94-0.96
    rank = _rank(list(dict.fromkeys(d for d, _, _, _ in seen)))  # the designs in the order ``out`` keeps them
    by_deal = _by_deal(clustered, deals, rank)
    out: dict[tuple[tuple[int, float], ...], dict[Any, list[float]]] = {}
    for design, score, seed, idx in seen:
        acc = out.setdefault(design, {}).setdefault(seed if by_deal else idx, [0.0, 0])
        acc[0] += score
        acc[1] += 1
    return out, rank, by_deal


def _side_pairs(sides: Sequence[tuple[str, ...]], index: Mapping[str, int]) -> list[tuple[int, int, tuple[tuple[int, float], ...], bool]]:
    """The pairs of sides (x, y) of a match seated as ``sides`` whose bots differ, each with its
    design and whether it is oriented from y (``_comparisons``)."""
    out = []
    for x in range(len(sides)):
        for y in range(x + 1, len(sides)):
            coef: dict[int, float] = {}
            for b in sides[x]:
                coef[index[b]] = coef.get(index[b], 0.0) + 1 / len(sides[x])
            for b in sides[y]:
                coef[index[b]] = coef.get(index[b], 0.0) - 1 / len(sides[y])
            design = tuple(sorted((i, c) for i, c in coef.items() if abs(c) > 1e-12))
            if not design:
                continue  # the same bots on both sides: nothing to learn
            flip = design[0][1] < 0
            if flip:
                design = tuple((i, -c) for i, c in design)
            out.append((x, y, design, flip))
    return out


def _bradley_terry(
    names: list[str], parsed: Sequence[_Parsed], clustered: bool = False
) -> tuple[dict[str, Rating], list[list[float]], int | None, int]:
    """MAP Bradley-Terry strengths of the bots from every pair of sides, by Newton's method;
    Elo-scaled ratings, their covariance (Elo², centred), the intervals' degrees of freedom
    (None: the model's variance) and the number of strength differences the results determine.

    A side's strength is the mean of its distinct bots' strengths; side x finishes ahead of
    side y with probability 1 / (1 + exp(θ_y - θ_x)). Head to head that is the whole match.
    With more sides it is every pair of them: when a match's ranking is Plackett-Luce
    (utilities plus Gumbel noise) its pairs are exactly Bradley-Terry, so the pairwise
    (composite) likelihood has the Plackett-Luce strengths as its optimum, and it needs no
    rule for ties (½).

    Its variance is the sandwich H⁻¹ (Σ_clusters g gᵀ) H⁻¹, g a cluster's summed score
    residuals, clustered by deal (with duplicate deals) or else by match. Two things make
    the model's own variance H⁻¹ wrong: the pairs of one match are not independent (a
    four-way ranking is not six games), and neither are the matches of one duplicate deal
    (what one seating's cards give, another's take back: head-to-head results correlate at
    about -0.4 in Spades). Measured (docs/strength.md, "Calibration"): the model's variance
    covered 98-99% head to head; openskill's σ, used for more sides before, gave LOS spreads
    of 0.4 and 1.3 instead of 1; the sandwich covers 93-97% in all three. It is never taken
    below ``MODEL_FLOOR`` x the model's own clustered by deal, nor below the model's own
    (``MATCH_FLOOR``) clustered by match (``_floored``).

    A rating's interval is the profile likelihood's: the values whose profile log posterior lies
    within q² x e / 2 of its best, q the quantile (``interval_quantile``) and e the deals' design
    effect on that rating, its variance above over the model's own (Rao and Scott's scaling of a
    likelihood ratio; e = 1 where the variance is the model's). Where the likelihood is near its
    normal shape that is about ± q standard errors; where a bot won nearly every match it is
    lopsided as the likelihood is, where ± q s.e. about an overestimate missed (docs/strength.md,
    "Lopsided pairs").

    Partners who always play together (fixed teams) are told apart only by the prior: they
    get the same rating, and the sandwich gives their difference no variance (their
    interval is their team's).
    """
    n = len(names)
    data, rank, by_deal = _comparisons(names, parsed, clustered)
    theta = [0.0] * n
    prec = 1 / BT_PRIOR_SIGMA**2
    totals = [(d, sum(v[0] for v in per.values()), sum(v[1] for v in per.values())) for d, per in data.items()]
    theta = _newton(totals, prec, theta)
    hess = _information(totals, prec, theta)[1]
    # The covariance of the estimate is H⁻¹ M H⁻¹, M the variance of the data's score (the
    # prior's term is fixed): the model's own, J = H - prior, or, better, the clustered one.
    # (J rather than H⁻¹ alone leaves nothing, not the prior's width, to the differences
    # the results never show, such as between partners who always play together.)
    inv = _inverse(hess)
    meat = model = [[hess[i][j] - (prec if i == j else 0.0) for j in range(n)] for i in range(n)]
    per_cluster: dict[Any, int] = {}
    for per in data.values():
        for cluster, (_, count) in per.items():
            per_cluster[cluster] = per_cluster.get(cluster, 0) + int(count)
    # one comparison per cluster (head to head without duplicate deals): the clustered M is
    # the model's again, only noisier
    several = any(c > 1 for c in per_cluster.values())
    df = None  # the interval's degrees of freedom: None for the model's own variance (normal quantile)
    if several and enough_clusters(len(per_cluster), rank):
        residual: dict[Any, list[float]] = {}
        for design, per in data.items():
            p = _logistic(sum(c * theta[i] for i, c in design))
            for cluster, (score, count) in per.items():
                g = residual.setdefault(cluster, [0.0] * n)
                for i, c in design:
                    g[i] += c * (score - count * p)
        # the small-sample factor G / (G - r), r the number of strength differences the
        # results determine (the cluster analogue of n / (n - k) for a regression's residuals):
        # on 12-20 deals without it the intervals covered 91-94% instead of 95%
        f = len(residual) / max(len(residual) - rank, 1)
        df = max(len(residual) - rank, 1)
        if any(len(design) > 2 for design in data):
            # Partnerships (a side of two bots): half the degrees of freedom. With strong shared
            # deal luck the sandwich of a handful of deals is noisier than t(G - r) allows: the
            # worst of three partnerships was covered 0.92 on 8 and 12 deals and 0.93 on 20
            # with t(G - r), 0.94-0.95 with t((G - r) / 2) (docs/strength.md, "Coverage per bot")
            df = max(df // 2, 1)
        per_bot = list(zip(*residual.values()))  # each strength's residual over the clusters, in their order
        meat = [[f * sum(map(mul, per_bot[a], per_bot[b])) for b in range(n)] for a in range(n)]
    cov = own = _centred_cov(inv, meat)
    if df is not None:  # clustered: never below the floor x the model's own, rating by rating and difference by difference
        own = _centred_cov(inv, model)
        cov = _floored(cov, own, MODEL_FLOOR if by_deal else MATCH_FLOOR)
    mean = sum(theta) / n if n else 0.0
    ratings = {}
    q = interval_quantile(df)
    ends: dict[tuple[int, ...], tuple[float, float]] = {}
    best = _log_likelihood(totals, prec, theta)
    entries = _entries(n, data)
    for i, b in enumerate(names):
        value = 1500 + ELO_PER_NAT * (theta[i] - mean)
        se = math.sqrt(max(cov[i][i], 0.0))
        entry = entries[i]
        if entry not in ends:
            # the deals' design effect on this rating: its (floored, clustered) variance over the model's own
            effect = cov[i][i] / own[i][i] if own[i][i] > 0 else 1.0
            contrast = [(1 / len(entry) if k in entry else 0.0) - 1 / n for k in range(n)]
            ends[entry] = _profile_interval(totals, prec, theta, best, contrast, q * q * effect, q * se / ELO_PER_NAT,
                                             hess)
        low, high = ends[entry]
        ratings[b] = Rating(value, 1500 + ELO_PER_NAT * low, 1500 + ELO_PER_NAT * high, se)
    return ratings, cov, df, rank


def _information(totals: Sequence[tuple[tuple[tuple[int, float], ...], float, float]], prec: float,
                 theta: Sequence[float]) -> tuple[list[float], list[list[float]]]:
    """The gradient of the log posterior (the Bradley-Terry likelihood of ``totals``, design ->
    summed score and count, and the prior of precision ``prec``) at ``theta``, and its negative
    Hessian. (On locals, the products in the order they were written: the same floats; the
    profile intervals' Newton steps call it some 100,000 times in the statistics' tests.)"""
    n = len(theta)
    grad = [-prec * t for t in theta]
    hess = [[0.0] * n for _ in range(n)]
    for i in range(n):
        hess[i][i] = prec
    exp = math.exp
    for design, score, count in totals:
        eta = 0.0
        for i, c in design:
            eta += c * theta[i]
        if eta >= 0:  # _logistic
            p = 1 / (1 + exp(-eta))
        else:
            e = exp(eta)
            p = e / (1 + e)
        w = count * p * (1 - p)
        r = score - count * p
        for i, ci in design:
            grad[i] += ci * r
            row = hess[i]
            wci = w * ci
            for j, cj in design:
                row[j] += wci * cj
    return grad, hess


def _logistic(x: float) -> float:
    """1 / (1 + e^-x), without overflow however far x is (a profile's ends reach tens of nats)."""
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def _newton(totals: Sequence[tuple[tuple[tuple[int, float], ...], float, float]], prec: float, theta: Sequence[float],
            contrast: Sequence[float] | None = None, value: float = 0.0, tol: float = 1e-10) -> list[float]:
    """The posterior mode from ``theta`` by Newton's method (until no step exceeds ``tol``); with
    ``contrast``, the mode among the strengths whose contrast · θ is ``value`` (Newton on the
    Lagrangian: every step after the first keeps the constraint). A step that would lower the log
    posterior is halved until it does not (the log posterior is concave, so this converges from any
    start: a profile's far points start where a full step overshot, 8 bots on 9 deals overflowed)."""
    n = len(theta)
    theta = list(theta)
    for _ in range(100):
        grad, hess = _information(totals, prec, theta)
        if contrast is None:
            step = _solved([row + [grad[i]] for i, row in enumerate(hess)], n)
            on = True
        else:
            # the bordered system built as solve's augmented matrix at once (the same rows)
            at = sum(c * t for c, t in zip(contrast, theta))
            m = [row + [contrast[i], grad[i]] for i, row in enumerate(hess)]
            m.append(list(contrast) + [0.0, value - at])
            step = _solved(m, n + 1)[:n]
            on = abs(at - value) < 1e-9
        if on and max(map(abs, step), default=0.0) > 0.5:
            # a long step on the constraint must not lower the log posterior (halved until it does
            # not; near the mode Newton's steps are short and right)
            level = _log_likelihood(totals, prec, theta)
            for _ in range(30):
                if _log_likelihood(totals, prec, [t + d for t, d in zip(theta, step)]) >= level - 1e-12 * (1 + abs(level)):
                    break
                step = [d / 2 for d in step]
        theta = [t + d for t, d in zip(theta, step)]
        if max(map(abs, step), default=0.0) < tol:
            break
    return theta


def _log_likelihood(totals: Sequence[tuple[tuple[tuple[int, float], ...], float, float]], prec: float,
                    theta: Sequence[float]) -> float:
    """The log posterior (up to a constant) of ``theta``."""
    out = -prec / 2 * sum(t * t for t in theta)
    exp, log1p = math.exp, math.log1p
    for design, score, count in totals:
        eta = 0.0
        for i, c in design:
            eta += c * theta[i]
        out += score * eta - count * ((0.0 if 0.0 > eta else eta) + log1p(exp(-abs(eta))))  # max(eta, 0.0)
    return out


def _entries(n: int, data: Mapping[tuple[tuple[int, float], ...], Any]) -> list[tuple[int, ...]]:
    """Per bot, it and the partners it played every comparison beside (the same coefficient in
    every design): what the results rate is their mean, one interval for them all."""
    coefs = [dict(design) for design in data]
    sign = [tuple(c.get(k, 0.0) for c in coefs) for k in range(n)]
    return [tuple(k for k in range(n) if sign[k] == sign[i]) for i in range(n)]


def _profile_interval(totals: Sequence[tuple[tuple[tuple[int, float], ...], float, float]], prec: float,
                      theta: Sequence[float], best: float, contrast: Sequence[float], crit: float,
                      guess: float, hess: list[list[float]] | None = None) -> tuple[float, float]:
    """The values v of ``contrast`` · θ (nats) whose profile log posterior is within ``crit`` / 2 of
    its ``best`` (at the mode ``theta``): both ends, each found from the mode ± ``guess`` (a Wald
    half-width) by bracketing and regula falsi (Illinois) on the deviance's root, nearly linear in
    v; the constrained mode at each v by Newton from the mode moved along H⁻¹a (``hess``: H at the
    mode, if the caller has it: the same for every bot of one table)."""
    centre = sum(c * t for c, t in zip(contrast, theta))
    if not any(contrast):  # one bot (or one team) alone: no difference for the results to bound
        return centre, centre
    # the constrained mode's first guess at v: the mode moved along H⁻¹a, as a normal posterior would
    toward = solve(_information(totals, prec, theta)[1] if hess is None else hess, list(contrast))
    scale = sum(c * t for c, t in zip(contrast, toward))
    root = math.sqrt(crit)

    def excess(v: float) -> float:  # the root of the profile deviance at v less √crit: about linear in v
        start = [t + (v - centre) / scale * w for t, w in zip(theta, toward)]
        mode = _newton(totals, prec, start, contrast, v, tol=1e-5)
        return math.sqrt(max(2 * (best - _log_likelihood(totals, prec, mode)), 0.0)) - root

    out = []
    for direction in (-1.0, 1.0):
        near, f_near = centre, -root
        step = max(guess, 1e-3)
        far = centre + direction * step
        f_far = excess(far)
        while f_far < 0 and step < 64:  # widen until past the end (the prior bounds every strength)
            near, f_near, step = far, f_far, step * 2
            far = centre + direction * step
            f_far = excess(far)
        side = 0
        if abs(f_far) < 2e-3:  # the ± form's end is the profile's already (within 0.002 s.e.)
            near = far
        for _ in range(60):
            if abs(f_far - f_near) < 1e-12 or abs(far - near) < 1e-7:
                break
            mid = far - f_far * (far - near) / (f_far - f_near)
            f_mid = excess(mid)
            if abs(f_mid) < 2e-3:
                near = far = mid
                break
            if (f_mid < 0) == (f_near < 0):
                near, f_near = mid, f_mid
                if side == -1:
                    f_far /= 2
                side = -1
            else:
                far, f_far = mid, f_mid
                if side == 1:
                    f_near /= 2
                side = 1
        out.append((near + far) / 2 if f_far >= 0 else far)
    return out[0], out[1]


def _centred_cov(inv: list[list[float]], meat: list[list[float]]) -> list[list[float]]:
    """The ratings' covariance (Elo²) from the sandwich H⁻¹ M H⁻¹. The ratings are centred (mean
    1500): their covariance is that of the centred strengths, P·C·P with P = I - 11ᵀ/n, which
    drops the overall level only the prior fixes."""
    n = len(inv)
    meat_cols, inv_cols = list(zip(*meat)), list(zip(*inv))  # (the same products, summed in the same order)
    left = [[sum(map(mul, row, col)) for col in meat_cols] for row in inv]
    raw = [[sum(map(mul, row, col)) for col in inv_cols] for row in left]
    row_mean = [sum(r) / n for r in raw]
    all_mean = sum(row_mean) / n if n else 0.0
    return [[ELO_PER_NAT**2 * (raw[i][j] - row_mean[i] - row_mean[j] + all_mean) for j in range(n)] for i in range(n)]


#: The deal-clustered variance of a rating, or of a difference of two, is never taken below this
#: share of the model's own (``_floored``). Where one bot beats another in nearly every match the
#: deals' residuals are all alike and tiny, and the sandwich of a handful of them reads almost no
#: variance: head to head 3 nats apart on 12 deals the stronger bot's interval was covered 0.66-0.70
#: of the time, a random bot among two others on 8 deals 0.76; with the floor 0.97-0.99 and 0.98.
#: Floors of 0.3 / 0.4 / 0.5 measured: 0.3 left 2 nats apart on 8 deals at 0.83-0.86, 0.4 and 0.5
#: held every cell at 0.95 or more but one (docs/strength.md, "Lopsided pairs").
MODEL_FLOOR = 0.5
#: ... and where the comparisons cluster by match (a free for all on fewer deals than clustering
#: by deal needs), below the model's own not at all: the pairs of one ranking can only agree (a
#: bot last loses every pair at once), so a design effect under 1 there is the alike residuals'
#: artefact. With 0.5 the weakest of a lopsided Spot field (1.5, 0.5, 0, -2 nats) on 4-6 deals
#: was covered 0.91-0.93; with 1, 0.94-0.99, the usual fields unchanged (docs/strength.md).
MATCH_FLOOR = 1.0


def _floored(cov: list[list[float]], model: list[list[float]], share: float) -> list[list[float]]:
    """``cov`` with each rating's variance, and each difference of two ratings' variance, at least
    ``share`` x ``model``'s (the covariances set so that both hold: what the intervals, the
    differences' standard errors and the likelihoods of superiority read)."""
    n = len(cov)
    var = [max(cov[i][i], share * model[i][i]) for i in range(n)]
    out = [[0.0] * n for _ in range(n)]
    for i in range(n):
        out[i][i] = var[i]
        for j in range(i + 1, n):
            diff = max(cov[i][i] + cov[j][j] - 2 * cov[i][j], share * (model[i][i] + model[j][j] - 2 * model[i][j]))
            out[i][j] = out[j][i] = (var[i] + var[j] - diff) / 2
    return out


def interval_quantile(df: int | None) -> float:
    """The quantile of a 95% interval (about the multiple of the standard error it spans; its
    square, times the design effect, bounds the profile deviance: ``_bradley_terry``): Student's
    t with ``df`` degrees of freedom for a clustered variance (the clusters beyond the strength
    differences fitted, halved with partnerships), the normal 1.96 for the model's own (``df``
    None). With few clusters the sandwich's own error is large, and 1.96 covered the strongest
    of three partnerships 0.92 of the time on 8 deals (docs/strength.md, "Coverage per bot")."""
    return Z95 if df is None else t_quantile(0.975, df)


def _rank(designs: Sequence[tuple[tuple[int, float], ...]]) -> int:
    """The rank of these sparse vectors (Gaussian elimination; few and short)."""
    basis: list[dict[int, float]] = []  # each with its own pivot, eliminated from the later ones
    pivots: list[int] = []
    for design in designs:
        v = dict(design)
        for piv, b in zip(pivots, basis):
            if abs(v.get(piv, 0.0)) > 1e-12:
                f = v[piv] / b[piv]
                for i, c in b.items():
                    v[i] = v.get(i, 0.0) - f * c
        piv = max(v, key=lambda i: abs(v[i]), default=None)
        if piv is not None and abs(v[piv]) > 1e-9:
            basis.append(v)
            pivots.append(piv)
    return len(basis)


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a·x = b (Gaussian elimination with partial pivoting; a is small). A column
    with no usable pivot (a singular ``a``: a feature that never varies) gets 0: the
    ratings' Hessians are positive definite and never meet it, the bench's least squares
    (``arbiter.tools.variance``) can. The one linear solver of the arbiter."""
    return _solved([row[:] + [b[i]] for i, row in enumerate(a)], len(b))


def _solved(m: list[list[float]], n: int) -> list[float]:
    """``solve`` on its augmented matrix ``m`` (n rows of a | b), which it overwrites: the ratings'
    Newton steps build theirs so, with no copy."""
    for c in range(n):
        p, top = c, abs(m[c][c])  # the first row of the largest pivot, as max() picks it
        for r in range(c + 1, n):
            v = abs(m[r][c])
            if v > top:
                p, top = r, v
        m[c], m[p] = m[p], m[c]
        mc = m[c]
        pivot = mc[c]
        if abs(pivot) < 1e-300:
            continue
        tail = mc[c:]
        for r in range(c + 1, n):
            mr = m[r]
            f = mr[c] / pivot
            mr[c:] = map(sub, mr[c:], map(mul, repeat(f), tail))  # x - f * y, on C loops
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        mr = m[r]
        if abs(mr[r]) < 1e-300:
            continue
        x[r] = (mr[n] - sum(map(mul, mr[r + 1:n], x[r + 1:]))) / mr[r]
    return x


def _inverse(a: list[list[float]]) -> list[list[float]]:
    n = len(a)
    cols = [solve(a, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]
