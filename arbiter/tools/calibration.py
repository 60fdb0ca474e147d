"""Are the intervals and LOS of the tables right? Simulated tournaments from recorded deals.

A recorded evaluation (``EvalResult``, e.g. arbiter/tools/data/*.json) is a sample of real
deals, each with both seatings' full outcomes (scores and ranks per seat). A simulated
evaluation or two-bot tournament of n deals draws n of those deals with replacement, so
its truth is known exactly: the recorded mean margin, and bot A's recorded mean match
score p (1 win, ½ tie, 0 loss). ``relabel`` swaps the bots' names on a share q of the
drawn deals, which moves the truth to (1 - 2q) · margin and (1 - q) p + q (1 - p); q = ½ is
two bots of equal strength whatever the recorded pair was.

* ``margin_coverage``: how often mean ± 1.96 s.e. of the deal margins (``arbiter
  evaluate``, the standings' duplicate advantage) holds the true margin.
* ``rating_calibration``: the standings (``ratings.compute_standings``) of each simulated
  tournament: how often A's 95% rating interval holds its true rating, and the likelihood
  of superiority (LOS) of A over B, which for equal bots should be uniform between 0 and 1
  (above 0.95 one time in twenty). The true Bradley-Terry rating of A against B alone is
  1500 + (400 / ln 10) · logit(p) / 2 (ratings are centred on 1500), p A's expected score
  against B's sides: with more than two sides (Spot: four seats, A on two, B on two) the
  ratings are fitted on every pair of sides, so p is A's mean score over the pairs of an A
  side and a B side (``pair_score``; head to head, the match score).
* ``strength_calibration``: whole round robins (the tournament's own schedule) between
  bots of known strengths, free for all or partnerships, their outcomes drawn from a
  Plackett-Luce model with the luck of a deal shared by its seatings (``simulated_rows``):
  how often every bot's interval holds its true rating, and the spread of the errors of
  every rating difference over its standard error (1 if the LOS is calibrated).
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass
from typing import Sequence

from cardarena.games import EndReason, Outcome, get_game
from arbiter.store.db import MatchRow
from arbiter.tournament.evaluate import EvalResult, MatchMargin, seating_who
from arbiter.rating.ratings import ELO_PER_NAT, Z95, compute_standings, side_results
from arbiter.tournament.run import schedule
from arbiter.tournament.spec import TournamentSpec
from arbiter.rating.stats import mean_se


@dataclass(frozen=True)
class Coverage:
    runs: int
    covered: int
    mean_half_width: float
    deals: int

    @property
    def rate(self) -> float:
        return self.covered / self.runs

    def to_json(self) -> dict:
        return {**asdict(self), "rate": self.rate}


def margin_coverage(sample: Sequence[float], deals: int, runs: int, rng: random.Random, z: float = Z95) -> Coverage:
    """How often mean ± z · s.e. of ``deals`` deal margins drawn from ``sample`` holds its mean."""
    truth = mean_se(sample).mean
    covered = 0
    width = 0.0
    for _ in range(runs):
        ms = mean_se([rng.choice(sample) for _ in range(deals)])
        half = z * (ms.se or 0.0)
        covered += abs(ms.mean - truth) <= half
        width += half
    return Coverage(runs, covered, width / runs, deals)


# --------------------------------------------------------------------------------------
# Ratings.


def _pairs(result: EvalResult) -> list[tuple[MatchMargin, MatchMargin]]:
    by: dict[int, dict[int, MatchMargin]] = {}
    for m in result.matches:
        by.setdefault(m.deal, {})[m.rotation] = m
    return [(v[0], v[1]) for _, v in sorted(by.items()) if 0 in v and 1 in v]


def match_score(result: EvalResult) -> float:
    """Bot A's mean match score over the recorded matches (1 win, ½ tie, 0 loss; over all
    sides with several, as the standings count points)."""
    game = get_game(result.game, result.options, result.preset)
    total = 0.0
    for m in result.matches:
        who = seating_who(game, m.rotation)
        res = side_results(game.teams, m.scores, m.ranks)
        a = [res[t][0] for t, team in enumerate(game.teams) if who[team[0]] == 0]
        total += sum(a) / len(a)
    return total / len(result.matches)


def pair_score(result: EvalResult) -> float:
    """Bot A's mean score over every pair of an A side and a B side of the recorded matches
    (1 ahead, ½ level, 0 behind): what its rating against B alone is fitted on."""
    game = get_game(result.game, result.options, result.preset)
    total = 0.0
    pairs = 0
    for m in result.matches:
        who = seating_who(game, m.rotation)
        ranks = [min(m.ranks[s] for s in team) for team in game.teams]
        mine = [t for t, team in enumerate(game.teams) if who[team[0]] == 0]
        theirs = [t for t, team in enumerate(game.teams) if who[team[0]] == 1]
        for x in mine:
            for y in theirs:
                total += 1.0 if ranks[x] < ranks[y] else 0.5 if ranks[x] == ranks[y] else 0.0
                pairs += 1
    return total / pairs


def true_rating(p: float) -> float:
    """Bot A's Bradley-Terry rating against B alone when its expected match score is ``p``."""
    return 1500 + ELO_PER_NAT * math.log(p / (1 - p)) / 2


@dataclass(frozen=True)
class RatingCalibration:
    model: str
    runs: int
    deals: int
    relabel: float
    truth: float | None  # A's true rating (None if A always or never wins: no finite truth)
    covered: int  # A's interval held the truth (0 without a truth)
    los: tuple[float, ...]  # LOS of A over B in each run (the higher-rated row over the next, turned to A's side)
    @property
    def coverage(self) -> float | None:
        return None if self.truth is None else self.covered / self.runs

    def los_above(self, x: float) -> float:
        return sum(1 for v in self.los if v > x) / self.runs

    def los_below(self, x: float) -> float:
        return sum(1 for v in self.los if v < x) / self.runs

    def to_json(self) -> dict:
        return {"model": self.model, "runs": self.runs, "deals": self.deals, "relabel": self.relabel,
                "truth": self.truth, "coverage": self.coverage, "los_above_0.95": self.los_above(0.95),
                "los_below_0.05": self.los_below(0.05), "los_mean": sum(self.los) / self.runs}


def _row(i: int, m: MatchMargin, seats: tuple[str, ...], deal: int) -> MatchRow:
    """Match ``i`` of a simulated tournament: a recorded seating ``m`` played as deal ``deal``.

    The deal seed is the simulated deal's, not the recorded one: a recorded deal drawn twice
    is two independent deals of the simulated tournament, and the standings tell deals
    apart by their seeds (with the recorded seed, the two draws were one deal to the
    deal-clustered variance, which then came out too large: 25% on the s.e. for 60 deals
    drawn from 120)."""
    outcome = Outcome(tuple(m.scores), tuple(m.ranks), EndReason(m.reason))
    return MatchRow(0, i, f"sim-{i}", deal, m.rotation, deal, seats, outcome, "")


def rating_calibration(result: EvalResult, deals: int, runs: int, rng: random.Random, relabel: float = 0.0) -> RatingCalibration:
    """``runs`` simulated two-bot duplicate tournaments of ``deals`` deals (module doc)."""
    game = get_game(result.game, result.options, result.preset)
    pairs = _pairs(result)
    if not pairs or not all(m.scores for p in pairs for m in p):
        raise ValueError("rating_calibration: the recorded matches carry no scores and ranks")
    names = ("A", "B")
    seatings = [tuple(names[w] for w in seating_who(game, r)) for r in (0, 1)]
    swapped = [tuple(names[1 - names.index(n)] for n in s) for s in seatings]
    p = pair_score(result)
    p = (1 - relabel) * p + relabel * (1 - p)
    truth = None
    covered = 0
    los = []
    model = ""
    for _ in range(runs):
        rows = []
        for d in range(deals):
            pair = rng.choice(pairs)
            flip = rng.random() < relabel
            for m in pair:
                seats = (swapped if flip else seatings)[m.rotation]
                rows.append(_row(len(rows), m, seats, d))
        st = compute_standings(rows, game.teams, duplicate=True, bots=names)
        model = st.model
        first, second = st.rows
        a_los = first.los_next if first.name == "A" else 1 - first.los_next
        los.append(a_los)
        if 0 < p < 1:
            truth = true_rating(p)
            a, b = (first, second) if first.name == "A" else (second, first)
            covered += a.rating.low <= truth <= a.rating.high
    return RatingCalibration(model, runs, deals, relabel, truth, covered, tuple(los))


# --------------------------------------------------------------------------------------
# Ratings of many bots, from known strengths (free for all, partnerships).


@dataclass(frozen=True)
class StrengthCalibration:
    """Simulated round robins from known strengths (``strength_calibration``).

    ``z``: for every run and every pair of bots (a, b), the rating difference's error over its
    standard error, ((r_a - r_b) - (true r_a - true r_b)) / s.e.; a calibrated LOS needs these
    to spread as N(0, 1) (for equal bots probit(LOS) is exactly z). ``los``: every row's LOS
    over the next row, with whether that row is truly the stronger.
    """

    game: str
    runs: int
    deals: int
    covered: int  # (run, bot) intervals holding the true rating
    intervals: int
    z: tuple[float, ...]
    los: tuple[tuple[float, bool], ...]
    per_bot: tuple[tuple[str, int], ...] = ()  # each bot's covered runs (of ``runs``)
    shown: int = 0  # (run, bot) intervals the standings show (the rest: too few deals; coverage counts every one)

    @property
    def shown_share(self) -> float:
        """The share of ratings the standings gave an interval (0 below the least deals)."""
        return self.shown / self.intervals

    @property
    def coverage(self) -> float:
        return self.covered / self.intervals

    @property
    def bot_coverage(self) -> dict[str, float]:
        """Each bot's own coverage: the strongest and the weakest are where a shared
        interval method goes wrong first (issue 39), which the mean over bots hides."""
        return {b: c / self.runs for b, c in self.per_bot}

    @property
    def min_coverage(self) -> float:
        return min(self.bot_coverage.values(), default=self.coverage)

    @property
    def z_spread(self) -> float:
        m = sum(self.z) / len(self.z)
        return math.sqrt(sum((v - m) ** 2 for v in self.z) / len(self.z))

    def z_beyond(self, c: float = Z95) -> float:
        """The share of |z| > c (0.05 for c = 1.96 if calibrated: the difference's 95% interval)."""
        return sum(1 for v in self.z if abs(v) > c) / len(self.z)

    def los_bins(self, edges: Sequence[float] = (0.5, 0.7, 0.9, 0.99, 1.0)) -> list[tuple[float, float, int]]:
        """Per LOS bin (the LOS of the higher row, in [edges[i], edges[i+1])): (mean LOS, share
        truly stronger, pairs). A calibrated LOS has the two equal in every bin."""
        out = []
        for lo, hi in zip(edges, edges[1:]):
            got = [(v, t) for v, t in self.los if lo <= v < hi or (hi == edges[-1] and v == hi)]
            if got:
                out.append((sum(v for v, _ in got) / len(got), sum(1 for _, t in got if t) / len(got), len(got)))
        return out

    @property
    def z_mean(self) -> float:
        return sum(self.z) / len(self.z)

    def to_json(self) -> dict:
        return {"game": self.game, "runs": self.runs, "deals": self.deals, "coverage": self.coverage,
                "z_mean": self.z_mean, "z_spread": self.z_spread, "z_beyond_1.96": self.z_beyond(),
                "los_bins": self.los_bins()}


def simulated_rows(matches: Sequence, teams: Sequence[Sequence[int]], strength: dict[str, float], rng: random.Random,
                   shared: float) -> list[MatchRow]:
    """Outcomes of scheduled matches (``run.schedule``) drawn from known strengths (nats).

    A side's utility is the mean strength of its distinct bots plus a standard Gumbel draw;
    the sides rank by utility. The ranking of one match is then exactly Plackett-Luce, and
    any two sides' order exactly Bradley-Terry (the difference of two Gumbels is logistic).
    The luck of the cards: with probability ``shared`` a side's draw is the deal's own draw
    for that side, the same in every match (table, seating) of the deal, so duplicate
    seatings hand the same luck to different bots, as real cards do.
    """
    luck: dict[int, list[float]] = {}
    out = []
    log, random_ = math.log, rng.random
    # per seating: each side's mean strength and its seats (the same sums, once a seating)
    seated: dict[tuple[str, ...], list[tuple[float, Sequence[int]]]] = {}
    for m in matches:
        # (the deal's draws are made for every match, as setdefault's default was: the same stream)
        drawn = [-log(-log(random_() or 1e-300)) for _ in teams]  # standard Gumbel draws
        deal_luck = luck.setdefault(m.seed, drawn)
        sides = seated.get(m.seats)
        if sides is None:
            sides = seated[m.seats] = []
            for side in teams:
                bots = list(dict.fromkeys(m.seats[s] for s in side))
                sides.append((sum(strength[b] for b in bots) / len(bots), side))
        utility = [mean + (deal_luck[j] if random_() < shared else -log(-log(random_() or 1e-300)))
                   for j, (mean, _) in enumerate(sides)]
        scores = [0.0] * len(m.seats)
        ranks = [0] * len(m.seats)
        for (_, side), u in zip(sides, utility):
            rank = 1 + sum(1 for v in utility if v > u)
            for s in side:
                scores[s] = u
                ranks[s] = rank
        outcome = Outcome(tuple(scores), tuple(ranks), EndReason.COMPLETED)
        out.append(MatchRow(0, m.idx, f"sim-{m.idx}", m.deal, m.seating, m.seed, m.seats, outcome, "", m.round, m.table,
                            m.sides))
    return out


def strength_calibration(game_name: str, options: dict, strength: dict[str, float], deals: int, runs: int,
                         rng: random.Random, teams: Sequence[Sequence[str]] = (), shared: float = 0.7,
                         jitter: float = 0.0, duplicate: bool = True) -> StrengthCalibration:
    """``runs`` simulated round robins of ``deals`` deals (duplicate, or not) between bots of known
    strength (nats; partners in ``teams`` should be equal: only a side's mean is seen), each
    rated by the standings (``ratings.compute_standings``): interval coverage, z and LOS.

    ``jitter``: every run moves each entry's strength (a bot's, or a team's) by a uniform
    draw in [-jitter, jitter], so that across runs the true differences are spread evenly,
    which is what "of the pairs with LOS 0.8, 80% are the right way round" presumes.
    """
    bots = tuple(strength)
    spec = TournamentSpec(game=game_name, bots=bots, options=options, teams=tuple(tuple(t) for t in teams), deals=deals,
                          seed=0, duplicate=duplicate)
    game = spec.validate_game()
    matches = schedule(game, spec)
    entry_of = {b: next((i for i, t in enumerate(teams) if b in t), b) for b in bots}
    covered = intervals = shown = 0
    per_bot = dict.fromkeys(bots, 0)
    zs: list[float] = []
    los: list[tuple[float, bool]] = []
    for _ in range(runs):
        moves = {e: rng.uniform(-jitter, jitter) for e in dict.fromkeys(entry_of.values())} if jitter else {}
        now = {b: v + moves.get(entry_of[b], 0.0) for b, v in strength.items()}
        mean = sum(now.values()) / len(now)
        truth = {b: 1500 + ELO_PER_NAT * (v - mean) for b, v in now.items()}
        rows = simulated_rows(matches, game.teams, now, rng, shared)
        st = compute_standings(rows, game.teams, duplicate=duplicate, bots=bots)
        by = {r.name: r for r in st.rows}
        for b in bots:
            r = by[b].rating
            intervals += 1
            shown += r.interval
            hit = r.low <= truth[b] <= r.high
            covered += hit
            per_bot[b] += hit
        for i, a in enumerate(bots):
            for b in bots[i + 1:]:
                se = st.diff_se(a, b)
                if se:
                    zs.append((by[a].rating.value - by[b].rating.value - (truth[a] - truth[b])) / se)
        for top, nxt in zip(st.rows, st.rows[1:]):
            if truth[top.name] != truth[nxt.name]:
                los.append((top.los_next, truth[top.name] > truth[nxt.name]))
    return StrengthCalibration(game_name, runs, deals, covered, intervals, tuple(zs), tuple(los), tuple(per_bot.items()), shown)
