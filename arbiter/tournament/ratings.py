"""Standings from stored matches: results, margins, duplicate advantage, ratings.

Per bot: matches, W/D/L, points (a side gets 1 for every other side it beats and ½ for
every tie, divided by the number of other sides: 1/½/0 head to head), the mean score
margin per match (its side's score minus the mean of the other sides'; every match plays
one tournament deal), and with duplicate deals the mean *duplicate advantage*: for every
deal of every table, the bot's margin averaged over all the seatings that deal was played
in (the luck of the cards cancels), with its standard error over those deals.

Ratings, always computed from the matches in schedule order so that the same results give
the same table however the run was interrupted:

* head to head (two sides, each one bot or a bot and its copy): Bradley-Terry (Elo scale,
  mean 1500) fitted by maximum a posteriori with a weak Gaussian prior on each strength
  (σ = 2 natural-log units ≈ 350 Elo) so that a bot that never loses still has a finite
  rating; the 95% interval and the likelihood of superiority come from the Laplace
  approximation (the inverse Hessian at the optimum).
* partnerships of distinct bots and free for all: Weng-Lin Plackett-Luce (openskill);
  rating μ with the interval μ ± 1.96σ.

The likelihood of superiority (LOS) of a row over the next one is P(strength of the row >
strength of the next) under that model's normal approximation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from arbiter.store.db import MatchRow
from arbiter.tournament.stats import mean_se

ELO_PER_NAT = 400 / math.log(10)
BT_PRIOR_SIGMA = 2.0
Z95 = 1.959963984540054


def phi(x: float) -> float:
    """Standard normal CDF."""
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


# --------------------------------------------------------------------------------------
# One match, per side and per bot.


def side_results(teams: Sequence[Sequence[int]], scores: Sequence[float], ranks: Sequence[int]) -> list[tuple[float, float, int]]:
    """Per side: (points in [0, 1], score margin, rank)."""
    k = len(teams)
    side_score = [sum(scores[s] for s in t) / len(t) for t in teams]
    side_rank = [min(ranks[s] for s in t) for t in teams]
    out = []
    for j in range(k):
        others = [i for i in range(k) if i != j]
        if not others:
            out.append((0.5, 0.0, side_rank[j]))
            continue
        beaten = sum(1 for i in others if side_rank[j] < side_rank[i])
        tied = sum(1 for i in others if side_rank[j] == side_rank[i])
        margin = side_score[j] - sum(side_score[i] for i in others) / len(others)
        out.append(((beaten + 0.5 * tied) / len(others), margin, side_rank[j]))
    return out


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
    dup_values: list[float] = field(default_factory=list, repr=False)
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
        r = self.rating
        return {
            "rank": self.rank, "bot": self.name, "matches": self.matches, "wins": self.wins, "draws": self.draws,
            "losses": self.losses, "points": self.points, "score_rate": round(self.score_rate, 6),
            "mean_margin": round(self.mean_margin, 6),
            "dup_advantage": None if self.dup_advantage is None else round(self.dup_advantage, 6),
            "dup_se": None if self.dup_se is None else round(self.dup_se, 6), "dup_deals": len(self.dup_values),
            "rating": None if r is None else round(r.value, 3), "rating_low": None if r is None else round(r.low, 3),
            "rating_high": None if r is None else round(r.high, 3),
            "los_next": None if self.los_next is None else round(self.los_next, 6), "forfeits": self.forfeits,
            "incidents": dict(sorted(self.incidents.items())),
        }


@dataclass
class Standings:
    rows: list[StandingRow]
    model: str  # "bradley-terry" or "plackett-luce"
    crosstable: dict[str, dict[str, tuple[float, int]]]  # row bot -> column bot -> (points, meetings)
    matches: int
    duplicate: bool

    def cross(self, a: str, b: str) -> float | None:
        """Score rate of ``a`` against ``b`` (None if they never met)."""
        pts, n = self.crosstable.get(a, {}).get(b, (0.0, 0))
        return pts / n if n else None


def compute_standings(
    rows: Sequence[MatchRow], teams: Sequence[Sequence[int]], duplicate: bool = True, bots: Sequence[str] = ()
) -> Standings:
    """The table for these matches (any order; they are sorted by schedule index)."""
    rows = sorted(rows, key=lambda r: r.idx)
    table: dict[str, StandingRow] = {b: StandingRow(0, b) for b in bots}
    cross: dict[str, dict[str, list[float]]] = {}
    groups: dict[tuple[int, int, int], list[MatchRow]] = {}
    k = len(teams)
    for row in rows:
        res = side_results(teams, row.outcome.scores, row.outcome.ranks)
        sides = sides_of(teams, row.seats)
        firsts = {j for j in range(k) if res[j][2] == min(r[2] for r in res)}
        failing = row.incidents[-1].seat if row.outcome.reason.is_forfeit and row.incidents else None
        mine: dict[str, list[int]] = {}
        for j, bots_j in enumerate(sides):
            for b in bots_j:
                mine.setdefault(b, []).append(j)
        for b, js in mine.items():
            st = table.setdefault(b, StandingRow(0, b))
            st.matches += 1
            st.points += sum(res[j][0] for j in js) / len(js)
            st.margin_sum += sum(res[j][1] for j in js) / len(js)
            own = set(js)
            if own == set(range(k)) or (firsts & own and not firsts <= own):
                st.draws += 1
            elif firsts <= own:
                st.wins += 1
            else:
                st.losses += 1
            if failing is not None and row.seats[failing] == b:
                st.forfeits += 1
        for inc in row.incidents:
            st = table[row.seats[inc.seat]]
            st.incidents[inc.kind] = st.incidents.get(inc.kind, 0) + 1
        for a, ja in mine.items():
            for b, jb in mine.items():
                if a == b:
                    continue
                pairs = [(x, y) for x in ja for y in jb if x != y]
                if not pairs:
                    continue  # partners
                val = sum(1.0 if res[x][2] < res[y][2] else 0.5 if res[x][2] == res[y][2] else 0.0 for x, y in pairs) / len(pairs)
                cross.setdefault(a, {}).setdefault(b, []).append(val)
        groups.setdefault((row.round, row.deal, row.table), []).append(row)

    if duplicate:
        # a deal counts once all its seatings are in (a partial set is not luck-balanced)
        full = _seatings_per_table(rows)
        for (rnd, deal, tab), members in sorted(groups.items()):
            if len(members) < full.get((rnd, tab), 0) or len(members) < 2:
                continue
            acc: dict[str, list[float]] = {}
            for row in members:
                res = side_results(teams, row.outcome.scores, row.outcome.ranks)
                per: dict[str, list[float]] = {}
                for j, bots_j in enumerate(sides_of(teams, row.seats)):
                    for b in bots_j:
                        per.setdefault(b, []).append(res[j][1])
                for b, v in per.items():
                    acc.setdefault(b, []).append(sum(v) / len(v))
            for b, v in acc.items():
                table[b].dup_values.append(sum(v) / len(v))

    head_to_head = k == 2 and all(len(s) == 1 for row in rows for s in sides_of(teams, row.seats))
    names = list(table)
    if head_to_head:
        model = "bradley-terry"
        ratings, los = _bradley_terry(names, rows, teams, clustered=duplicate)
    else:
        model = "plackett-luce"
        ratings, los = _plackett_luce(names, rows, teams)
    for b, r in ratings.items():
        table[b].rating = r
    ordered = sorted(table.values(), key=lambda s: (-(s.rating.value if s.rating else 0.0), -s.score_rate, -s.mean_margin, s.name))
    for i, st in enumerate(ordered):
        st.rank = i + 1
        if i + 1 < len(ordered):
            st.los_next = los(st.name, ordered[i + 1].name)
    crosstable = {a: {b: (sum(v), len(v)) for b, v in row.items()} for a, row in cross.items()}
    return Standings(ordered, model, crosstable, len(rows), duplicate)


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
# Bradley-Terry (head to head).


#: Fewer deals than this (or than bots + 2) and the deal-clustered variance is not used.
MIN_CLUSTERS = 8


def _bradley_terry(names: list[str], rows: Sequence[MatchRow], teams, clustered: bool = False) -> tuple[dict[str, Rating], Any]:
    """MAP Bradley-Terry strengths by Newton's method; Elo-scaled ratings and LOS.

    ``clustered`` (duplicate deals): the matches of one deal are not independent (what one
    seating's cards give, another's take back: their results correlate at about -0.4 in
    Spades), so the model's variance, which counts every match as independent, is too
    wide (95% intervals covered the truth 98-99% of the time in simulation). With enough
    deals the covariance is the deal-clustered sandwich H⁻¹ (Σ_deals g gᵀ) H⁻¹ instead,
    g a deal's summed score residuals: coverage 93-95% (tests/arbiter/test_statistics.py).
    """
    n = len(names)
    index = {b: i for i, b in enumerate(names)}
    games: list[tuple[int, int, float, int]] = []  # (i, j, score of i against j, deal seed)
    for row in rows:
        res = side_results(teams, row.outcome.scores, row.outcome.ranks)
        a, b = (sides_of(teams, row.seats)[j][0] for j in range(2))
        if a != b:
            games.append((index[a], index[b], res[0][0], row.seed))
    theta = [0.0] * n
    prec = 1 / BT_PRIOR_SIGMA**2
    hess = [[0.0] * n for _ in range(n)]
    for _ in range(100):
        grad = [-prec * t for t in theta]
        hess = [[(prec if i == j else 0.0) for j in range(n)] for i in range(n)]  # negative Hessian
        for i, j, s, _ in games:
            p = 1 / (1 + math.exp(theta[j] - theta[i]))
            w = p * (1 - p)
            grad[i] += s - p
            grad[j] -= s - p
            hess[i][i] += w
            hess[j][j] += w
            hess[i][j] -= w
            hess[j][i] -= w
        step = _solve(hess, grad)
        theta = [t + d for t, d in zip(theta, step)]
        if max((abs(d) for d in step), default=0.0) < 1e-10:
            break
    # The ratings are centred (mean 1500): their covariance is that of the centred
    # strengths, P·C·P with P = I - 11ᵀ/n, which drops the overall level only the prior fixes.
    raw = _inverse(hess)
    deals = {d for *_, d in games}
    if clustered and len(deals) >= max(MIN_CLUSTERS, n + 2) and len(deals) < len(games):
        residual: dict[int, list[float]] = {}
        for i, j, s, d in games:
            g = residual.setdefault(d, [0.0] * n)
            r = s - 1 / (1 + math.exp(theta[j] - theta[i]))
            g[i] += r
            g[j] -= r
        meat = [[sum(g[a] * g[b] for g in residual.values()) for b in range(n)] for a in range(n)]
        left = [[sum(raw[a][k] * meat[k][b] for k in range(n)) for b in range(n)] for a in range(n)]
        raw = [[sum(left[a][k] * raw[k][b] for k in range(n)) for b in range(n)] for a in range(n)]
    row_mean = [sum(r) / n for r in raw]
    all_mean = sum(row_mean) / n if n else 0.0
    cov = [[raw[i][j] - row_mean[i] - row_mean[j] + all_mean for j in range(n)] for i in range(n)]
    mean = sum(theta) / n if n else 0.0
    ratings = {}
    for b, i in index.items():
        value = 1500 + ELO_PER_NAT * (theta[i] - mean)
        half = Z95 * ELO_PER_NAT * math.sqrt(max(cov[i][i], 0.0))
        ratings[b] = Rating(value, value - half, value + half)

    def los(a: str, b: str) -> float:
        i, j = index[a], index[b]
        var = cov[i][i] + cov[j][j] - 2 * cov[i][j]
        return phi((theta[i] - theta[j]) / math.sqrt(var)) if var > 0 else 0.5

    return ratings, los


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a·x = b (Gaussian elimination with partial pivoting; a is small and SPD)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for cc in range(c, n + 1):
                m[r][cc] -= f * m[c][cc]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][cc] * x[cc] for cc in range(r + 1, n))) / m[r][r]
    return x


def _inverse(a: list[list[float]]) -> list[list[float]]:
    n = len(a)
    cols = [_solve(a, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


# --------------------------------------------------------------------------------------
# Plackett-Luce (teams, free for all).


def _plackett_luce(names: list[str], rows: Sequence[MatchRow], teams) -> tuple[dict[str, Rating], Any]:
    """Weng-Lin Plackett-Luce ratings (openskill), updated match by match in schedule order.

    A bot whose copies sit on several sides of one match plays each as its own team member
    and takes the mean of their updates.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {b: model.rating(name=b) for b in names}
    for row in rows:
        ranks = [min(row.outcome.ranks[s] for s in t) for t in teams]
        sides = [[row.seats[s] for s in dict.fromkeys(_side_bots_order(t, row.seats))] for t in teams]
        lineup = [[model.rating(mu=current[b].mu, sigma=current[b].sigma, name=b) for b in side] for side in sides]
        new = model.rate(lineup, ranks=ranks)
        acc: dict[str, list[tuple[float, float]]] = {}
        for side in new:
            for r in side:
                acc.setdefault(r.name, []).append((r.mu, r.sigma))
        for b, v in acc.items():
            current[b] = model.rating(mu=sum(x for x, _ in v) / len(v), sigma=sum(y for _, y in v) / len(v), name=b)
    ratings = {b: Rating(r.mu, r.mu - Z95 * r.sigma, r.mu + Z95 * r.sigma) for b, r in current.items()}

    def los(a: str, b: str) -> float:
        ra, rb = current[a], current[b]
        return phi((ra.mu - rb.mu) / math.sqrt(ra.sigma**2 + rb.sigma**2))

    return ratings, los


def _side_bots_order(side: Sequence[int], seats: Sequence[str]) -> list[int]:
    """Seats of the side with one seat per distinct bot (copies of one bot are one member)."""
    seen: dict[str, int] = {}
    for s in side:
        seen.setdefault(seats[s], s)
    return list(seen.values())
