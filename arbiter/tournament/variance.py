"""Variance reduction for duplicate evaluations: what duplicate deals buy, and control variates.

Two measurements on an ``EvalResult`` (docs/strength.md, "Variance"):

* ``duplicate_gain``: how many times fewer *matches* a duplicate evaluation needs than one
  playing every deal once, in one seating: var(one match's margin) / (2 · var(deal margin)).
  A one-seating evaluation's matches are the recorded matches pooled over both seatings
  (a deal in a random seating), so the ratio is read off the same run.
* ``regression_adjusted``: the mean deal margin corrected by features of the deal's cards,
  which the bots cannot change (control variates): every deal's margin d_i minus
  b · (f_i - E f), with E f known in advance (``feature_means``: the mean over deals that are
  not in the evaluation) and the slope b fitted by least squares on the *other* folds of
  deals (cross-fitting). Each corrected value then has expectation E d exactly (b is
  independent of f_i, and E[f_i - E f] = 0), so the adjusted mean is unbiased for any
  number of deals; its standard error is ``mean_se`` of the corrected values. An in-sample
  slope (the textbook control-variate estimate) would be biased by O(1/n).

The features (``deal_features``) describe a deal's cards as dealt, before any decision,
from the point of view of the sides: in seating 0 bot A holds the even sides' cards, in
seating 1 the odd sides'. A feature that flips sign when the seatings swap (A's cards
minus B's) cancels from a deal margin, which averages both seatings, so only symmetric
ones can help: how lopsided the deal is (|difference| between the sides), how long the
longest trump suit is, how many short suits there are. Whether they do is measured, not
assumed: the numbers are in docs/strength.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from cardarena.games import get_game
from arbiter.tournament.evaluate import EvalResult, deal_seed
from arbiter.tournament.stats import MeanSE, mean_se

# --------------------------------------------------------------------------------------
# Features of a deal.

_HCP = {1: 4, 13: 3, 12: 2, 11: 1}  # ace, king, queen, jack (Card.rank: 1 = ace .. 13 = king)


def _seat_stats(game_name: str, options: Mapping[str, Any], preset: str | None, seed: int) -> tuple[list[dict[str, float]], int]:
    """Per seat, numbers about its cards as dealt; and the seat that acts first."""
    from cardarena.games import Suit

    game = get_game(game_name, options, preset)
    state = game.new_initial_state(seed)
    if game.num_seats != 4:
        raise ValueError(f"deal features are defined for 4 seats, {game_name} has {game.num_seats} with these options")
    out = []
    if game_name == "spades":
        for h in state.hands:
            suits = [sum(1 for c in h if c.suit == s) for s in Suit]
            out.append({
                "hcp": sum(_HCP.get(c.rank, 0) for c in h),
                "spades": suits[Suit.S],
                "spade_honours": sum(1 for c in h if c.suit == Suit.S and c.rank in (1, 13, 12)),
                "short_suits": sum(1 for n in suits if n <= 1),
            })
        return out, (state.dealer + 1) % 4
    if game_name == "spot":
        for seat in range(4):
            h = state.view(seat).hand
            ranks: dict[int, int] = {}
            for c in h:
                ranks[c.rank] = ranks.get(c.rank, 0) + 1
            cards = {(c.suit, c.rank) for c in h}
            out.append({
                "spots": sum(min(c.rank, 10) for c in h),
                "pairs": sum(k * (k - 1) // 2 for k in ranks.values()),
                "runs": sum(1 for (s, r) in cards if (s, r + 1) in cards),
            })
        return out, state.spectator_view().first_player
    raise ValueError(f"deal features: none defined for {game_name}")


def _side_diffs(stats: list[dict[str, float]]) -> dict[str, float]:
    """Each number summed over the even seats minus the odd seats (bot A's side in seating 0)."""
    return {k: stats[0][k] + stats[2][k] - stats[1][k] - stats[3][k] for k in stats[0]}


def deal_features(game_name: str, options: Mapping[str, Any], preset: str | None, seed: int) -> dict[str, float]:
    """Symmetric features of the cards of deal ``seed``, unchanged when the seatings swap: how
    lopsided the deal is between the sides (|even - odd|), and table-wide counts."""
    stats, first = _seat_stats(game_name, options, preset, seed)
    out = {f"abs_{k}_diff": abs(v) for k, v in _side_diffs(stats).items()}
    for k in stats[0]:
        out[f"max_{k}"] = max(s[k] for s in stats)
        out[f"min_{k}"] = min(s[k] for s in stats)
    return out


def side_features(game_name: str, options: Mapping[str, Any], preset: str | None, seed: int, rotation: int) -> dict[str, float]:
    """Antisymmetric features of one seating: bot A's side minus bot B's (A holds the even
    seats in seating 0), and +1/-1 as A's side or B's acts first. Over deals each has mean 0
    exactly: the shuffle and the first dealer are uniform, so the deal looks the same from
    every seat, and the seating does not depend on the cards."""
    stats, first = _seat_stats(game_name, options, preset, seed)
    sign = 1 if rotation == 0 else -1
    out = {f"{k}_diff": sign * v for k, v in _side_diffs(stats).items()}
    out["a_first"] = sign * (1 if first % 2 == 0 else -1)
    return out


def feature_means(game_name: str, options: Mapping[str, Any], preset: str | None, deals: int = 20_000,
                  seed: str = "control-variates") -> dict[str, float]:
    """The mean of every feature over ``deals`` deals of their own seeds (never an evaluation's:
    the seeds come from ``seed``, a string, not an evaluation seed)."""
    acc: dict[str, float] = {}
    for i in range(deals):
        s = int.from_bytes(random.Random(f"{seed}:{i}").randbytes(6), "big")
        for k, v in deal_features(game_name, options, preset, s).items():
            acc[k] = acc.get(k, 0.0) + v
    return {k: v / deals for k, v in acc.items()}


def features_of(result: EvalResult) -> list[dict[str, float]]:
    """The features of every deal of an evaluation, in deal order."""
    seeds = sorted({(m.deal, m.seed) for m in result.matches})
    assert all(s == deal_seed(result.seed, d) for d, s in seeds), "deal seeds do not follow deal_seed"
    return [deal_features(result.game, result.options, result.preset, s) for _, s in seeds]


# --------------------------------------------------------------------------------------
# What duplicate deals buy.


@dataclass(frozen=True)
class DuplicateGain:
    match_sd: float  # s.d. of one match's margin (a deal in one seating)
    deal_sd: float  # s.d. of a deal margin (both seatings)
    deals: int

    @property
    def ratio(self) -> float:
        """Matches a one-seating evaluation needs per match of a duplicate one, for the same s.e."""
        return self.match_sd**2 / (2 * self.deal_sd**2)


def duplicate_gain(result: EvalResult) -> DuplicateGain:
    deal = mean_se(result.deal_margins())
    match = mean_se([m.margin for m in result.matches])
    return DuplicateGain(match.sd or 0.0, deal.sd or 0.0, deal.n)


# --------------------------------------------------------------------------------------
# Regression adjustment (control variates), cross-fitted.


def _least_squares(rows: Sequence[Sequence[float]], ys: Sequence[float], ridge: float = 1e-9) -> list[float]:
    """Coefficients (intercept first) of the least-squares fit of ys on rows (normal equations)."""
    k = len(rows[0]) + 1
    xtx = [[0.0] * k for _ in range(k)]
    xty = [0.0] * k
    for r, y in zip(rows, ys):
        x = (1.0, *r)
        for i in range(k):
            xty[i] += x[i] * y
            for j in range(k):
                xtx[i][j] += x[i] * x[j]
    for i in range(1, k):
        xtx[i][i] += ridge * (xtx[i][i] or 1.0)
    # Gaussian elimination with partial pivoting (k is a handful).
    m = [row[:] + [xty[i]] for i, row in enumerate(xtx)]
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-300:
            continue
        for r in range(c + 1, k):
            f = m[r][c] / m[c][c]
            for cc in range(c, k + 1):
                m[r][cc] -= f * m[c][cc]
    beta = [0.0] * k
    for r in range(k - 1, -1, -1):
        if abs(m[r][r]) < 1e-300:
            continue
        beta[r] = (m[r][k] - sum(m[r][cc] * beta[cc] for cc in range(r + 1, k))) / m[r][r]
    return beta


@dataclass(frozen=True)
class Adjusted:
    """The plain and the regression-adjusted mean deal margin, with what the features explain."""

    plain: MeanSE
    adjusted: MeanSE
    features: tuple[str, ...]
    r2_in_sample: float  # share of the deal margins' variance the features explain, fitted on all deals
    folds: int

    @property
    def variance_ratio(self) -> float:
        """Adjusted over plain variance of the mean (below 1: the adjustment helps)."""
        if not self.plain.se or self.adjusted.se is None:
            return 1.0
        return (self.adjusted.se / self.plain.se) ** 2


def regression_adjusted(
    margins: Sequence[float], features: Sequence[Mapping[str, float]], means: Mapping[str, float],
    names: Sequence[str] | None = None, folds: int = 10,
) -> Adjusted:
    """The cross-fitted control-variate estimate of the mean deal margin (module doc).

    ``features[i]`` belongs to ``margins[i]``; ``means`` gives each feature's expectation,
    known in advance. Deal i is in fold i mod ``folds``; its slope is fitted on the others.
    """
    n = len(margins)
    names = tuple(names if names is not None else sorted(means))
    if n < 2 * folds or folds < 2:
        raise ValueError(f"regression_adjusted: need at least {2 * folds} deals for {folds} folds, got {n}")
    centred = [[f[k] - means[k] for k in names] for f in features]
    corrected = [0.0] * n
    for fold in range(folds):
        train = [i for i in range(n) if i % folds != fold]
        beta = _least_squares([centred[i] for i in train], [margins[i] for i in train])
        for i in range(fold, n, folds):
            corrected[i] = margins[i] - sum(b * x for b, x in zip(beta[1:], centred[i]))
    beta = _least_squares(centred, margins)
    fitted = [beta[0] + sum(b * x for b, x in zip(beta[1:], row)) for row in centred]
    mean = sum(margins) / n
    ss_tot = sum((y - mean) ** 2 for y in margins)
    ss_res = sum((y - f) ** 2 for y, f in zip(margins, fitted))
    r2 = 1 - ss_res / ss_tot if ss_tot > 0 else 0.0
    return Adjusted(mean_se(margins), mean_se(corrected), names, r2, folds)


def adjusted_result(result: EvalResult, means: Mapping[str, float] | None = None,
                    names: Sequence[str] | None = None, folds: int = 10, mean_deals: int = 20_000) -> Adjusted:
    """``regression_adjusted`` for a duplicate evaluation: deal margins on ``deal_features``
    (their means over ``mean_deals`` independent deals unless given)."""
    if means is None:
        means = feature_means(result.game, result.options, result.preset, mean_deals)
    return regression_adjusted(result.deal_margins(), features_of(result), means, names, folds)


@dataclass(frozen=True)
class OneSeating:
    """The same deals played once each (deal d in seating d mod 2): plain, regression-adjusted
    on ``side_features``, and the duplicate evaluation of the same deals for comparison."""

    plain: MeanSE  # one match per deal
    adjusted: MeanSE
    duplicate: MeanSE  # deal margins, two matches per deal
    r2_in_sample: float

    def per_match_variance(self, m: MeanSE, matches_per_value: int) -> float:
        return (m.se or 0.0) ** 2 * m.n * matches_per_value

    @property
    def plain_over_duplicate(self) -> float:
        """Variance per match played, one seating over duplicate (the matches duplicate saves)."""
        return self.per_match_variance(self.plain, 1) / self.per_match_variance(self.duplicate, 2)

    @property
    def adjusted_over_duplicate(self) -> float:
        return self.per_match_variance(self.adjusted, 1) / self.per_match_variance(self.duplicate, 2)

    @property
    def adjusted_over_plain(self) -> float:
        return self.per_match_variance(self.adjusted, 1) / self.per_match_variance(self.plain, 1)


def one_seating(result: EvalResult, folds: int = 10) -> OneSeating:
    """What a one-seating evaluation of the same deals gives, with and without control variates
    (features with mean 0 by symmetry, so nothing is estimated in advance)."""
    picked = sorted((m for m in result.matches if m.rotation == m.deal % 2), key=lambda m: m.deal)
    feats = [side_features(result.game, result.options, result.preset, m.seed, m.rotation) for m in picked]
    names = tuple(sorted(feats[0]))
    adj = regression_adjusted([m.margin for m in picked], feats, {k: 0.0 for k in names}, names, folds)
    return OneSeating(adj.plain, adj.adjusted, mean_se(result.deal_margins()), adj.r2_in_sample)
