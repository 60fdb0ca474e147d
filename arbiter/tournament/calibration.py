"""Are the intervals and LOS of the tables right? Simulated tournaments from recorded deals.

A recorded evaluation (``EvalResult``, e.g. tests/arbiter/data/*.json) is a sample of real
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
  1500 + (400 / ln 10) · logit(p) / 2 (ratings are centred on 1500). For Plackett-Luce
  tables (Spot: four seats, each its own side) there is no such closed-form truth, so only
  the LOS of equal bots is checked there.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass
from typing import Sequence

from cardarena.games import EndReason, Outcome, get_game
from arbiter.store.db import MatchRow
from arbiter.tournament.evaluate import EvalResult, MatchMargin, _seating
from arbiter.tournament.ratings import ELO_PER_NAT, Z95, compute_standings, side_results
from arbiter.tournament.stats import mean_se


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
        who = _seating(game.num_seats, game.teams, m.rotation)
        res = side_results(game.teams, m.scores, m.ranks)
        a = [res[t][0] for t, team in enumerate(game.teams) if who[team[0]] == 0]
        total += sum(a) / len(a)
    return total / len(result.matches)


def true_rating(p: float) -> float:
    """Bot A's Bradley-Terry rating against B alone when its expected match score is ``p``."""
    return 1500 + ELO_PER_NAT * math.log(p / (1 - p)) / 2


@dataclass(frozen=True)
class RatingCalibration:
    model: str
    runs: int
    deals: int
    relabel: float
    truth: float | None  # A's true rating (Bradley-Terry), None for Plackett-Luce
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


def _row(i: int, m: MatchMargin, seats: tuple[str, ...]) -> MatchRow:
    outcome = Outcome(tuple(m.scores), tuple(m.ranks), EndReason(m.reason))
    return MatchRow(0, i, f"sim-{i}", i // 2, m.rotation, m.seed, seats, outcome, "")


def rating_calibration(result: EvalResult, deals: int, runs: int, rng: random.Random, relabel: float = 0.0) -> RatingCalibration:
    """``runs`` simulated two-bot duplicate tournaments of ``deals`` deals (module doc)."""
    game = get_game(result.game, result.options, result.preset)
    pairs = _pairs(result)
    if not pairs or not all(m.scores for p in pairs for m in p):
        raise ValueError("rating_calibration: the recorded matches carry no scores and ranks")
    names = ("A", "B")
    seatings = [tuple(names[w] for w in _seating(game.num_seats, game.teams, r)) for r in (0, 1)]
    swapped = [tuple(names[1 - names.index(n)] for n in s) for s in seatings]
    p = match_score(result)
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
                rows.append(_row(len(rows), m, seats))
        st = compute_standings(rows, game.teams, duplicate=True, bots=names)
        model = st.model
        first, second = st.rows
        a_los = first.los_next if first.name == "A" else 1 - first.los_next
        los.append(a_los)
        if model == "bradley-terry" and 0 < p < 1:
            truth = true_rating(p)
            a, b = (first, second) if first.name == "A" else (second, first)
            covered += a.rating.low <= truth <= a.rating.high
    return RatingCalibration(model, runs, deals, relabel, truth, covered, tuple(los))
