"""Margins adjusted for the luck of the deal (issue 39; docs/strength.md, "Luck-adjusted
margins"): ``arbiter evaluate --luck-adjusted``.

At Spades the arbiter's one chance event is the deal: every card is dealt before the first
decision. Duplicate deals cancel what the cards do alike in both seatings; what is left is how
the two bots' choices on the same cards differ, and the first of those choices, the bids, come
before any card is played. A deal's margin U is corrected by a function of its deal,

    U - b · (f - E f),

with f the deal's features in its two seatings (``luck_features``: the nil bids, the bids, and
the bids against the cards) and E f their expectation over deals, known in advance
from bidding-only probes of the same two bots on deals of their own (never the evaluation's;
``arbiter.tournament.probes.luck_probes``). Whatever b is, the corrected value has expectation
E U as long as b does not depend on the deal it corrects (AIVAT's construction: a value of the
chance event with a known expectation): so b is fitted on other deals,

* for the estimate and its interval (``luck_adjusted``), by cross-fitting: deal i is in fold
  i mod 10 and its slope is fitted on the other nine folds (``regression_adjusted``);
* for a sequential test (``OnlineCorrection``), on the deals before it only (0 for the first
  ``MIN_DEALS``), so that every corrected value has expectation E U given the deals before it
  and the test's martingale argument holds for the corrected values as for the raw ones.

The probes' mean m of the features errs by m - E f, which moves the corrected mean by
b · (m - E f): its variance, var(b · f) / probes, is added to the standard error
(``LuckAdjusted.probe_se``). It is independent of the evaluation's deals, so the estimate stays
unbiased; a sequential test reads its hypotheses shifted by at most that error (the output
gives it).

Valid for bots whose bids depend only on what they are shown and their bot seed (the probes
give each seat the seed and the views a match would); a bot that could tell a probe from a
match could bias it. Pure functions here; the probes are played by the tournament layer.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from cardarena.games import Suit
from arbiter.rating.ratings import solve
from arbiter.rating.stats import MeanSE, mean_se

# --------------------------------------------------------------------------------------
# Features of a Spades deal (also the variance tools', arbiter/tools/variance.py). A
# "seating" is any object with ``rotation``, ``seed``, ``who`` (per seat 0 for bot A, 1 for
# B), ``bids`` (per seat; 0 or None for nil), ``hands`` (per seat, the cards as dealt) and
# ``side_of(bot)``: ``arbiter.tournament.probes.Replayed``.

_HCP = {1: 4, 13: 3, 12: 2, 11: 1}  # ace, king, queen, jack (Card.rank: 1 = ace .. 13 = king)


def _spades_hand_stats(hand: Sequence[Any]) -> dict[str, float]:
    suits = [sum(1 for c in hand if c.suit == s) for s in Suit]
    return {
        "hcp": sum(_HCP.get(c.rank, 0) for c in hand),
        "spades": suits[Suit.S],
        "spade_honours": sum(1 for c in hand if c.suit == Suit.S and c.rank in (1, 13, 12)),
        "short_suits": sum(1 for n in suits if n <= 1),
    }


def hand_numbers(hand: Sequence[Any]) -> dict[str, float]:
    """Numbers about one Spades hand as dealt: high cards, spades, short suits, and a crude
    count of tricks it should take (aces, guarded kings, long spades)."""
    suits = {s: [c.rank for c in hand if c.suit == s] for s in Suit}
    st = _spades_hand_stats(hand)
    aces = sum(1 for c in hand if c.rank == 1)
    kings = sum(1 for s, rs in suits.items() if 13 in rs and len(rs) >= 2)
    queens = sum(1 for s, rs in suits.items() if 12 in rs and len(rs) >= 3)
    nsp = len(suits[Suit.S])
    voids = sum(1 for rs in suits.values() if not rs)
    singles = sum(1 for rs in suits.values() if len(rs) == 1)
    quick = aces + 0.75 * kings + 0.4 * queens + max(0, nsp - 3) + 0.5 * (voids + singles) * min(nsp, 3) / 3
    return {"hcp": st["hcp"], "spades": nsp, "spade_honours": st["spade_honours"], "aces": aces, "kings": kings,
            "voids": voids, "singletons": singles, "quick": quick}


def value_features(pair: Sequence[Any]) -> dict[str, float]:
    """Functions of a deal's bids and cards in its two seatings (rotation 0, then 1), summed
    over the seatings (as ``bid_features``, which they include with ``cards``): per bot's side
    its bids against the crude trick count of its cards (over, its positive part and square,
    under), and for its nil bidders the nil hand's tricks, spades and aces."""
    f = dict(bid_features(pair, cards=True))

    def add(k: str, v: float) -> None:
        f[k] = f.get(k, 0.0) + v

    for r in pair[:2]:
        nums = [hand_numbers(h) for h in r.hands]
        for bot, tag in ((0, "a"), (1, "b")):
            seats = r.side_of(bot)
            bids = [r.bids[s] or 0 for s in seats]
            quick = sum(nums[s]["quick"] for s in seats if bids[seats.index(s)] > 0)
            over = sum(bids) - quick
            add(f"{tag}_over", over)
            add(f"{tag}_over_pos", max(0.0, over))
            add(f"{tag}_over_pos_sq", max(0.0, over) ** 2)
            add(f"{tag}_under", max(0.0, -over))
            for s, b in zip(seats, bids):
                if b == 0:
                    add(f"{tag}_nil_quick", nums[s]["quick"])
                    add(f"{tag}_nil_spades", nums[s]["spades"])
                    add(f"{tag}_nil_aces", nums[s]["aces"])
                    add(f"{tag}_nil_hcp", nums[s]["hcp"])
    return f


def bid_features(pair: Sequence[Any], cards: bool = False) -> dict[str, float]:
    """Functions of a deal's bids in its two seatings (``pair``: rotation 0, then 1, from a
    match or a bidding-only probe), each summed over the two seatings: the deal margin
    averages them, and a deal looks the same from every seat, so a seating's feature has
    the same slope in either and one slope does for both.

    Per bot's side: its bids, their square, its nil bids and nil bids times the side's bid;
    per seating: the product of the sides' bids and the table's bids above 13; per seat, the
    two bots' bids on the same cards (A's minus B's): the sum of their absolute values and
    of their squares. With ``cards``: each side's bid times its high-card points and times
    its spades."""
    r0, r1 = pair[0], pair[1]
    if (r0.rotation, r1.rotation) != (0, 1) or r0.seed != r1.seed:
        raise ValueError("bid_features: the two seatings of one deal, rotation 0 first")
    f: dict[str, float] = {}

    def add(k: str, v: float) -> None:
        f[k] = f.get(k, 0.0) + v

    for r in (r0, r1):
        sides = []
        for bot, tag in ((0, "a"), (1, "b")):
            seats = r.side_of(bot)
            bids = [r.bids[s] or 0 for s in seats]
            c, nils = sum(bids), sum(1 for b in bids if b == 0)
            sides.append(c)
            add(f"{tag}_bids", c)
            add(f"{tag}_bids_sq", c * c)
            add(f"{tag}_nils", nils)
            add(f"{tag}_nils_x_bids", nils * c)
            if cards:
                stats = [_spades_hand_stats(r.hands[s]) for s in seats]
                add(f"{tag}_bids_x_hcp", c * sum(x["hcp"] for x in stats))
                add(f"{tag}_bids_x_spades", c * sum(x["spades"] for x in stats))
        add("a_bids_x_b_bids", sides[0] * sides[1])
        add("table_bids_over_13", max(0, sides[0] + sides[1] - 13))
    gaps = [((r0.bids[s] or 0) - (r1.bids[s] or 0)) * (1 if r0.who[s] == 0 else -1) for s in range(len(r0.bids))]
    f["bid_gap_abs"] = float(sum(abs(g) for g in gaps))
    f["bid_gap_sq"] = float(sum(g * g for g in gaps))
    return f


def trick_features(pair: Sequence[Any], tricks: int) -> dict[str, float]:
    """Each bot's side's bids against its double-dummy tricks (``deal_tricks``: ``tricks`` for
    the even seats), summed over the two seatings: the overbid, a set (bid above the tricks)
    and its size in bids, the bags, and the overbid in bins (-4..4, clipped) alone and times
    the bid, so that a linear v can follow a set's jump; and the deal's margin if every side
    took its double-dummy tricks and every nil were made (``dd_margin``)."""
    f: dict[str, float] = {}

    def add(k: str, v: float) -> None:
        f[k] = f.get(k, 0.0) + v

    for r in pair[:2]:
        points = {}
        for bot, tag in ((0, "a"), (1, "b")):
            seats = r.side_of(bot)
            t = tricks if seats[0] % 2 == 0 else 13 - tricks
            bids = [r.bids[s] or 0 for s in seats]
            c, nils = sum(bids), sum(1 for b in bids if b == 0)
            over = c - t
            add(f"{tag}_dd_over", over)
            add(f"{tag}_dd_set", float(over > 0))
            add(f"{tag}_dd_set_x_bids", c * float(over > 0))
            add(f"{tag}_dd_bags", max(0, -over))
            o = max(-4, min(4, over))
            for k in range(-4, 5):
                add(f"{tag}_dd_over_{k}", float(o == k))
                add(f"{tag}_dd_over_{k}_x_bids", c * float(o == k))
            points[bot] = (10 * c - over if over <= 0 else -10 * c) + 100 * nils
        add("dd_margin", (points[0] - points[1]) / 2)
    return f



# --------------------------------------------------------------------------------------
# Least squares and the cross-fitted control variate.


def _moments(rows: Sequence[Sequence[float]], ys: Sequence[float]) -> tuple[list[list[float]], list[float]]:
    """X'X and X'y of ``rows`` with an intercept column first (X's columns summed pairwise)."""
    cols = [[1.0] * len(rows), *(list(c) for c in zip(*rows))] if rows else []
    k = len(cols)
    xtx = [[0.0] * k for _ in range(k)]
    for i in range(k):
        for j in range(i, k):
            xtx[i][j] = xtx[j][i] = sum(map(operator.mul, cols[i], cols[j]))
    return xtx, [sum(map(operator.mul, c, ys)) for c in cols]


def _fit(xtx: Sequence[Sequence[float]], xty: Sequence[float], ridge: float) -> list[float]:
    """The coefficients of normal equations (``ridge`` relative to each feature's sum of squares)."""
    a = [list(r) for r in xtx]
    for i in range(1, len(a)):
        a[i][i] += ridge * (a[i][i] or 1.0)
    return solve(a, list(xty))  # the arbiter's one linear solver (k is a handful)


def least_squares(rows: Sequence[Sequence[float]], ys: Sequence[float], ridge: float = 1e-9) -> list[float]:
    """Coefficients (intercept first) of the least-squares fit of ys on rows (normal equations)."""
    return _fit(*_moments(rows, ys), ridge)


@dataclass(frozen=True)
class Adjusted:
    """The plain and the regression-adjusted mean deal margin, with what the features explain."""

    plain: MeanSE
    adjusted: MeanSE
    features: tuple[str, ...]
    r2_in_sample: float  # share of the deal margins' variance the features explain, fitted on all deals
    folds: int
    #: per deal, its margin corrected with the slope fitted on the other folds (in deal order)
    corrected: tuple[float, ...] = field(default=(), repr=False)
    #: per feature, the mean over deals of the cross-fitted slope: how far the adjusted mean
    #: moves per unit of error in that feature's mean (d adjusted / d E f)
    slope: tuple[float, ...] = field(default=(), repr=False)

    @property
    def variance_ratio(self) -> float:
        """Adjusted over plain variance of the mean (below 1: the adjustment helps)."""
        if not self.plain.se or self.adjusted.se is None:
            return 1.0
        return (self.adjusted.se / self.plain.se) ** 2


def regression_adjusted(
    margins: Sequence[float], features: Sequence[Mapping[str, float]], means: Mapping[str, float],
    names: Sequence[str] | None = None, folds: int = 10, ridge: float = 1e-9,
) -> Adjusted:
    """The cross-fitted control-variate estimate of the mean deal margin (module doc).

    ``features[i]`` belongs to ``margins[i]``; ``means`` gives each feature's expectation,
    known in advance. Deal i is in fold i mod ``folds``; its slope is fitted on the others
    (least squares, ``ridge`` relative to each feature's sum of squares).
    """
    n = len(margins)
    names = tuple(names if names is not None else sorted(means))
    if n < 2 * folds or folds < 2:
        raise ValueError(f"regression_adjusted: need at least {2 * folds} deals for {folds} folds, got {n}")
    centred = [[f.get(k, 0.0) - means[k] for k in names] for f in features]
    corrected = [0.0] * n
    slope = [0.0] * len(names)
    # each fold's moments once; a fold's slope is fitted on the sum of the others' (no
    # subtraction from a total, so a feature that is 0 on every training deal stays exactly 0)
    ys = list(margins)
    parts = [_moments(centred[fold::folds], ys[fold::folds]) for fold in range(folds)]

    def summed(which: Sequence[int]) -> tuple[list[list[float]], list[float]]:
        k = len(names) + 1
        return ([[sum(parts[f][0][i][j] for f in which) for j in range(k)] for i in range(k)],
                [sum(parts[f][1][i] for f in which) for i in range(k)])

    for fold in range(folds):
        beta = _fit(*summed([f for f in range(folds) if f != fold]), ridge)
        held = range(fold, n, folds)
        for i in held:
            corrected[i] = margins[i] - sum(b * x for b, x in zip(beta[1:], centred[i]))
        for j, b in enumerate(beta[1:]):
            slope[j] += b * len(held) / n
    beta = _fit(*summed(range(folds)), ridge)
    fitted = [beta[0] + sum(b * x for b, x in zip(beta[1:], row)) for row in centred]
    mean = sum(margins) / n
    ss_tot = sum((y - mean) ** 2 for y in margins)
    ss_res = sum((y - f) ** 2 for y, f in zip(margins, fitted))
    r2 = 1 - ss_res / ss_tot if ss_tot > 0 else 0.0
    return Adjusted(mean_se(margins), mean_se(corrected), names, r2, folds, tuple(corrected), tuple(slope))




# --------------------------------------------------------------------------------------
# The luck adjustment of an evaluation.

#: Fewer deals than this: no adjusted estimate (the slopes are not fitted on fewer), and a
#: sequential test reads the raw margin until then.
MIN_DEALS = 40
#: Folds of the cross-fitting of the estimate.
FOLDS = 10
#: Ridge of the slopes' least squares, relative to each feature's sum of squares.
RIDGE = 1e-3


#: The features ``arbiter evaluate --luck-adjusted`` corrects by (``value_features``' names): each
#: side's nil bids, the product of the sides' bids, and each side's bid beyond the crude trick count
#: of its cards (``hand_numbers``' "quick"). Few, so that slopes fitted on a few dozen deals do not
#: cost more than they explain: chosen by forward selection on 600 replayed deals of heuristic vs
#: greedy and measured on 600 others (docs/strength.md, "Luck-adjusted margins"); all 28 of
#: ``value_features`` cut more on thousands of deals and inflate the variance below 200.
LUCK_FEATURES = ("a_nils", "b_nils", "a_bids_x_b_bids", "a_over_pos", "b_over_pos")


#: From this many deals on, the estimate corrects by all of ``value_features`` (28): on 1,200 deals
#: of the close pair 0.78 of the raw variance against the five's 0.82; below, the five.
MANY_DEALS = 1000


def luck_features(pair: Sequence[Any]) -> dict[str, float]:
    """The ``LUCK_FEATURES`` of a deal (its two seatings, rotation 0 then 1), summed over the seatings."""
    f = value_features(pair)
    return {k: f.get(k, 0.0) for k in LUCK_FEATURES}


def recorded_features(pair: Sequence[Any]) -> dict[str, float]:
    """What probes and matches record of a deal: all of ``value_features`` (``LUCK_FEATURES`` among
    them), so that the estimate can use them all on many deals (``luck_names``)."""
    return value_features(pair)


def luck_names(deals: int, expected: "ExpectedFeatures | None" = None) -> tuple[str, ...] | None:
    """The features the estimate corrects ``deals`` deals by: ``LUCK_FEATURES`` below
    ``MANY_DEALS``, else all recorded (None). Chosen by the count alone, never by the margins.
    The draws' features (``expected.exact``) are all used at any count (None)."""
    if expected is not None and expected.exact:
        return None
    return tuple(sorted(LUCK_FEATURES)) if deals < MANY_DEALS else None


@dataclass(frozen=True)
class ExpectedFeatures:
    """E f, estimated by the mean over probe deals of their own (``luck_probes``); the rows are
    kept to give the probes' error for any slope."""

    names: tuple[str, ...]
    rows: tuple[tuple[float, ...], ...] = field(repr=False)  # per probe deal, its features in ``names`` order
    #: the expectation is known exactly, 0 for every feature (the draws' luck, ``arbiter.rating.draws``):
    #: no probes, no probes' error
    exact: bool = False

    @classmethod
    def zero(cls, names: Sequence[str]) -> "ExpectedFeatures":
        """Features whose expectation is exactly 0 by construction (``arbiter.rating.draws``)."""
        return cls(tuple(names), (), exact=True)

    @classmethod
    def of(cls, features: Sequence[Mapping[str, float]]) -> "ExpectedFeatures":
        if not features:
            raise ValueError("expected features: need at least one probe deal")
        names = tuple(sorted(features[0]))
        return cls(names, tuple(tuple(float(f.get(k, 0.0)) for k in names) for f in features))

    @property
    def probes(self) -> int:
        return len(self.rows)

    def subset(self, names: Sequence[str]) -> "ExpectedFeatures":
        """The same probes, only the features ``names`` (each must be recorded)."""
        index = [self.names.index(k) for k in names]
        return ExpectedFeatures(tuple(names), tuple(tuple(r[j] for j in index) for r in self.rows), self.exact)

    @property
    def means(self) -> dict[str, float]:
        if self.exact:
            return dict.fromkeys(self.names, 0.0)
        n = len(self.rows)
        return {k: sum(r[j] for r in self.rows) / n for j, k in enumerate(self.names)}

    def error(self, slope: Sequence[float]) -> float:
        """The standard error the probes' means give b · m: s.d. over probes of b · f, over √probes."""
        if self.exact:
            return 0.0
        return mean_se([sum(b * x for b, x in zip(slope, r)) for r in self.rows]).se or 0.0


@dataclass(frozen=True)
class LuckAdjusted:
    """The mean deal margin, raw and luck-adjusted (``luck_adjusted``)."""

    raw: MeanSE
    adjusted: MeanSE  # the cross-fitted corrected values; its s.e. without the probes' error
    probe_se: float  # what the probes' error adds to the adjusted mean's standard error
    probes: int
    features: int
    folds: int
    shift_se: float = 0.0  # the s.e. of adjusted minus raw mean: of the mean correction, the probes' error included
    exact: bool = False  # centred on expectations known exactly (the draws' luck): no probes

    @property
    def mean(self) -> float:
        return self.adjusted.mean

    @property
    def se(self) -> float:
        """The adjusted mean's standard error, the probes' error included."""
        return math.hypot(self.adjusted.se or 0.0, self.probe_se)

    @property
    def variance_ratio(self) -> float:
        """Variance of the adjusted mean over that of the raw one (below 1: fewer deals for the same s.e.)."""
        return self.se**2 / self.raw.se**2 if self.raw.se else 1.0

    def describe(self) -> str:
        if self.raw.no_spread is not None:  # no luck to take out: its "± 0.00" and "1.00x" (0 over 0) said nothing
            return (f"luck-adjusted margin: the raw one, {self.raw.mean:+.2f}, stands ({self.raw.no_spread}: no luck "
                    "to take out of it)")
        # a small s.e. keeps its first digit; none left (the features account for every deal) is said
        shown = MeanSE(self.mean, self.se, self.adjusted.n).text() if self.se > 0 else f"{self.mean:+.2f} ± 0"
        if self.exact:
            return (f"luck-adjusted margin {shown} (s.e.), raw {self.raw}: variance "
                    f"{self.variance_ratio:.2f}x the raw margin's, so about {self.variance_ratio:.2f}x the deals for the "
                    f"same s.e. (the luck of the cards drawn from the stock: each against the stock's mean, known "
                    f"exactly, {self.features} feature{'' if self.features == 1 else 's'}, slopes cross-fitted in "
                    f"{self.folds} folds)")
        return (f"luck-adjusted margin {shown} (s.e., the probes' ± {self.probe_se:.2f} "
                f"included), raw {self.raw}: variance {self.variance_ratio:.2f}x the raw margin's, so about "
                f"{self.variance_ratio:.2f}x the deals for the same s.e. (the deal's bids against its cards, "
                f"{self.features} features, slopes cross-fitted in {self.folds} folds, centred on {self.probes} probe deals)")

    @property
    def shift_z(self) -> float:
        """(adjusted - raw mean) / its standard error: within a few units when unbiased."""
        return (self.adjusted.mean - self.raw.mean) / self.shift_se if self.shift_se else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "se": self.se, "raw_mean": self.raw.mean, "raw_se": self.raw.se,
                "probe_se": self.probe_se, "shift_se": self.shift_se, "probes": self.probes, "features": self.features, "folds": self.folds,
                "variance_ratio": self.variance_ratio, "of": "draws" if self.exact else "deal"}


def luck_adjusted(margins: Sequence[float], features: Sequence[Mapping[str, float]],
                  expected: ExpectedFeatures, folds: int = FOLDS, names: Sequence[str] | None = None) -> LuckAdjusted | None:
    """The cross-fitted luck-adjusted mean of ``margins`` (deal margins, in deal order, with their
    ``features``), centred on ``expected`` (only its ``names``, if given); None with fewer than
    ``MIN_DEALS`` deals."""
    if len(margins) < max(MIN_DEALS, 2 * folds):
        return None
    if names is not None:
        expected = expected.subset(names)
    adj = regression_adjusted(margins, features, expected.means, expected.names, folds, ridge=RIDGE)
    probe_se = expected.error(adj.slope)
    corrections = mean_se([m - c for m, c in zip(margins, adj.corrected)])
    return LuckAdjusted(adj.plain, adj.adjusted, probe_se, expected.probes, len(expected.names), folds,
                        math.hypot(corrections.se or 0.0, probe_se), expected.exact)


class OnlineCorrection:
    """The correction for a sequential test: deal i's margin minus b · (f_i - m), b fitted
    (least squares, ``RIDGE``) on the deals before i only, 0 for the first ``warm`` deals. Given
    the deals before it, each corrected value has the deal margin's expectation (m exact).

    ``prior``: (margin, features) of deals of earlier evaluations of the same pair (none of this
    one's: the caller drops any), learnt first, so that with ``warm`` of them the slopes correct
    from the first deal on; deals independent of this evaluation's keep every value unbiased."""

    def __init__(self, expected: ExpectedFeatures, warm: int = MIN_DEALS,
                 prior: Sequence[tuple[float, Mapping[str, float]]] = ()):
        self.names = expected.names
        means = expected.means  # worked out over every probe row: once, not once a feature
        self.means = [means[k] for k in self.names]
        self.warm = warm
        k = len(self.names) + 1
        self.xtx = [[0.0] * k for _ in range(k)]
        self.xty = [0.0] * k
        self.n = 0
        self.slope: tuple[float, ...] = (0.0,) * len(self.names)
        for margin, features in prior:
            self._learn(self._x(features), margin)
        self.prior = len(prior)

    def _x(self, features: Mapping[str, float]) -> tuple[float, ...]:
        return (1.0, *(features.get(k, 0.0) - m for k, m in zip(self.names, self.means)))

    def _learn(self, x: Sequence[float], margin: float) -> None:
        for i, xi in enumerate(x):
            self.xty[i] += xi * margin
            row = self.xtx[i]
            for j, xj in enumerate(x):
                row[j] += xi * xj
        self.n += 1

    def add(self, margin: float, features: Mapping[str, float]) -> float:
        """The corrected value of this deal (from the deals before it), then this deal learnt."""
        x = self._x(features)
        if self.n >= self.warm:
            a = [row[:] for row in self.xtx]
            for i in range(1, len(a)):
                a[i][i] += RIDGE * (a[i][i] or 1.0)
            self.slope = tuple(solve(a, self.xty)[1:])
        value = margin - sum(b * v for b, v in zip(self.slope, x[1:]))
        self._learn(x, margin)
        return value


def simulated_deals(rng: Any, n: int) -> tuple[list[float], list[dict[str, float]], float]:
    """``n`` simulated deals for the checks of this module (tests, the bench's ``luck.*`` rows):
    margins that are a function of three features (a rare jump like a nil, a count like the bids'
    product, a skewed amount) plus skewed noise (+10, or -90 one time in ten, plus a normal s.d.
    15), and the true mean margin, 5. The features' expectations are 0.2, 15 and 1; the features
    of more simulated deals are probes of them."""
    margins, feats = [], []
    for _ in range(n):
        nil = 1.0 if rng.random() < 0.2 else 0.0
        count = float(sum(rng.randint(0, 3) for _ in range(10)))
        amount = rng.expovariate(1.0)
        noise = (-90.0 if rng.random() < 0.1 else 10.0) + rng.gauss(0.0, 15.0)
        margins.append(5.0 + 60.0 * (nil - 0.2) + 3.0 * (count - 15.0) + 8.0 * (amount - 1.0) + noise)
        feats.append({"f0": nil, "f1": count, "f2": amount})
    return margins, feats, 5.0
