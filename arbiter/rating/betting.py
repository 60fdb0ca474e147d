"""A sequential test that holds on any deal distribution: testing by betting on bounded deals.

    from arbiter.rating.betting import BettingTest
    test = BettingTest(m0=0, m1=50, lo=-400, hi=400)   # margins per deal, known to lie in [lo, hi]
    state = test.run(deal_margins)                      # stops at the first decision
    print(state.verdict)                                # "H1 accepted", "H0 accepted" or "no decision"

    BettingTest.pair_score(0.5, 0.6)                    # on the duplicate pair's score in [0, 1]

Why: the generalized SPRT of ``arbiter.rating.sprt`` takes the deals to be normal with an
estimated variance; on skewed deals (Spot's pot, Spades' sets and nils) a run whose first
deals miss the rare long-tail deal sees a high mean and a low variance together, and its
error rate reaches 0.10-0.40 for a nominal 0.05 (issue 33, docs/strength.md). This test
needs no shape at all, only that a deal's value lies in known bounds [lo, hi], and its
error rates hold at every stopping time, with no minimum number of deals:

* Scale a deal's value to y = (clip(x) - lo) / (hi - lo) in [0, 1]; p0, p1 are m0, m1 scaled.
* Evidence for H1 (against H0: mean <= m0) is the wealth of a gambler who bets on the deals
  coming out above p0: K0_n = Π (1 + λ_i (y_i - p0)), with a bet 0 <= λ_i <= c / p0 chosen
  from deals 1..i-1 only. Under H0 every factor has mean <= 1 and is >= 0, so K0 is a
  nonnegative supermartingale, and by Ville's inequality P(K0 ever reaches 1/α) <= α:
  accept H1 at the first deal where K0 >= 1/α, however the run is stopped.
* Evidence for H0 (against H1: mean >= m1) likewise: K1_n = Π (1 + λ'_i (p1 - y_i)),
  0 <= λ'_i <= c / (1 - p1); accept H0 when K1 >= 1/β (P <= β under H1). This is also the
  moment the test's confidence sequence for the mean excludes [m1, ∞) at level β. Both on one
  deal (the mean lies between m0 and m1): the one further past its bound, H0 on a tie
  (``sprt.decide``); each side is still accepted only at its own bound, so α and β hold.
* The bets follow the aGRAPA rule of Waudby-Smith & Ramdas (2023, "Estimating means of
  bounded random variables by betting", JRSS B, §B.3), the approximately growth-optimal bet
  for a mean d above the null's and the running variance: λ = d / (σ̂² + d²), clipped to
  [0, c / p0] (c = ``MAX_BET`` = 3/4); σ̂² as in their eq. (27), with a prior of one
  pseudo-deal of variance 1/4 at the midpoint of p0 and p1. Where aGRAPA takes d from the
  running mean, d here is at least p1 - p0: the gambler against H0 bets as if H1 held, as
  Wald's ratio does, and more when the running mean says the bots are further apart. Near
  the hypotheses, where a test is slowest, that needed about 15% fewer deals than the
  plug-in mean in a one-off comparison (normal deals, s.d. 40, M 0,10, bounds ±200, 400
  runs: 116-120 deals against 138-141; with the plug-in mean, c = 3/4 rather than 1/2: 138-141
  against 164-171), at the
  same validity (the bets are predictable either way).

The bets adapt to the deals' variance, but no bet may exceed c / p0 (a deal at the bound
would ruin the gambler), so bounds much wider than the deals cost deals: at least about
log(1/α) (m0 - lo) / (c (m1 - m0)) of them (docs/strength.md). And they must be true
bounds: a deal outside [lo, hi] is clipped into it (and counted in ``clipped``), which
makes the test one of the clipped mean. Two ways to have true bounds:

* ``BettingTest(m0, m1, lo, hi)``: the margin in game units, with the game's bounds for
  the options played (``arbiter evaluate --bounds LO,HI``; ``known_bounds`` derives them
  for Spades with a fixed number of hands and single games of Spite and Malice);
* ``BettingTest.pair_score(m0, m1)``: the *pair score* of a deal, the mean over its two
  seatings of 1 for a seating bot A won, 1/2 for a draw, 0 for a loss (fishtest's
  pentanomial outcome of a game pair: 0, 1/4, 1/2, 3/4, 1), bounded by construction;
  m0 and m1 are expected scores (0.5: equal bots).

The normal-approximation SPRT is quicker when its assumption holds (``--sequential
normal``); this one's price for holding everywhere is measured in docs/strength.md.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping, Sequence

from arbiter.rating.sprt import MIN_DEALS, Decided, Scanned, Sprt, _z, both_reached, check_rates, check_scale, decide
from arbiter.rating.stats import DeferredMoments, MeanSE

#: The fraction of the largest safe bet the gambler may stake (Waudby-Smith & Ramdas: 1/2 or 3/4).
MAX_BET = 0.75
KINDS = ("margin", "score")


@dataclass(frozen=True)
class BettingState(Decided):
    """Where the betting test stands after ``margin.n`` deals."""

    log_h1: float  # log K0: the evidence for H1 (against H0)
    log_h0: float  # log K1: the evidence for H0 (against H1)
    upper_h1: float  # log(1/α): accept H1 at or above
    upper_h0: float  # log(1/β): accept H0 at or above
    decision: str | None
    margin: MeanSE  # the deal values so far (margins, or pair scores), unclipped
    clipped: int = 0  # deals outside [lo, hi], clipped into it

    @property
    def progress(self) -> float:
        """How far the stronger evidence is towards its bound, 0..1 (for a progress bar)."""
        return min(1.0, max(0.0, self.log_h1 / self.upper_h1, self.log_h0 / self.upper_h0))

    def evidence(self) -> str:
        return (f"evidence for H1 {_e(self.log_h1)} (accepted at 1/alpha = {_e(self.upper_h1)}), "
                f"for H0 {_e(self.log_h0)} (at 1/beta = {_e(self.upper_h0)})"
                + (f"; {self.clipped} deal{'' if self.clipped == 1 else 's'} clipped to the bounds: the verdict is on the mean of the margin clipped to "
                   f"them, not of the margin (bounds it cannot exceed test the margin)" if self.clipped else "")
                + both_reached(self))

    def to_json(self) -> dict:
        return {"log_h1": self.log_h1, "log_h0": self.log_h0, "upper_h1": self.upper_h1, "upper_h0": self.upper_h0,
                "decision": self.decision, "verdict": self.verdict, "deals": self.deals, "mean": self.margin.mean,
                "se": self.margin.se, "clipped": self.clipped}


def _e(log: float) -> str:
    """An e-value (a gambler's wealth) from its logarithm, as a short number."""
    return f"{math.exp(min(log, 700.0)):.3g}"


@dataclass(frozen=True)
class BettingTest(Scanned):
    """H0: the mean deal value is at most ``m0``; H1: at least ``m1``; values in [lo, hi].

    ``kind`` "margin": a deal's value is its margin (mean over the two seatings);
    "score": its pair score (``pair_score``). ``ValueError`` naming what is wrong otherwise.
    """

    m0: float
    m1: float
    lo: float
    hi: float
    alpha: float = 0.05
    beta: float = 0.05
    kind: str = "margin"
    min_deals: int = 0  # no minimum is needed for validity; kept for the interface

    name = "betting"

    def __post_init__(self) -> None:
        for k in ("m0", "m1", "lo", "hi"):
            if not math.isfinite(getattr(self, k)):
                raise ValueError(f"sprt: {k} must be a finite number, got {getattr(self, k)!r}")
        if self.m0 >= self.m1:
            raise ValueError(f"sprt: M0 must be less than M1, got {self.m0:g}, {self.m1:g}")
        check_scale(self.m0, self.m1, LO=self.lo, HI=self.hi)
        if not self.lo < self.m0 or not self.m1 < self.hi:
            what = "expected score" if self.kind == "score" else "margin"
            raise ValueError(f"sprt: M0,M1 ({self.m0:g},{self.m1:g}) must lie strictly inside the {what}'s bounds "
                             f"{self.lo:g}..{self.hi:g}")
        check_rates(self.alpha, self.beta)
        if self.kind not in KINDS:
            raise ValueError(f"sprt: kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if not isinstance(self.min_deals, int) or self.min_deals < 0:
            raise ValueError(f"min-deals: must be 0 or more, got {self.min_deals!r}")

    @classmethod
    def pair_score(cls, m0: float, m1: float, alpha: float = 0.05, beta: float = 0.05, **kw) -> "BettingTest":
        return cls(m0, m1, 0.0, 1.0, alpha, beta, kind="score", **kw)

    def deal_value(self, seating_margins: Sequence[float]) -> float:
        """A deal's observation from its seatings' margins: their mean, or the pair score."""
        if self.kind == "score":
            return sum(1.0 if m > 0 else 0.5 if m == 0 else 0.0 for m in seating_margins) / len(seating_margins)
        return sum(seating_margins) / len(seating_margins)

    def start(self) -> "BettingRun":
        return BettingRun(self)

    def fixed_deals(self, sd: float) -> int:
        """Deals of the fixed-length normal test with the same α and β at s.d. ``sd`` (for comparison)."""
        z = _z(1 - self.alpha) + _z(1 - self.beta)
        return max(1, math.ceil((z * sd / (self.m1 - self.m0)) ** 2))

    def least_deals(self) -> tuple[float, float]:
        """The fewest deals ANY test (this one or another) can expect to need, at M0 and at M1,
        if its error rates are to hold on every distribution of deal values within [lo, hi].

        Why: mix the deals at M1 with a deal at ``lo`` of chance ε1 = (m1 - m0) / (m1 - lo).
        The mixture's mean is m0, so H0 holds, yet until the first deal at ``lo`` its deals
        look exactly like those at M1. A test that accepts H1 at M1 (chance 1 - β) after N
        deals then accepts it on the mixture with chance at least (1 - β) E[(1 - ε1)^N] >=
        (1 - β) (1 - ε1)^E[N] (Jensen), which must stay <= α: E[N] >= log((1 - β) / α) /
        -log(1 - ε1). At M0 likewise with a deal at ``hi`` of chance (m1 - m0) / (hi - m0).
        Spades, one hand, M 0,20 within the derived ±900: 131 and 134 deals, where a
        fixed-length normal test at the recorded s.d. of 38 needs 39 (docs/strength.md)."""
        gap = self.m1 - self.m0
        e1, e0 = gap / (self.m1 - self.lo), gap / (self.hi - self.m0)
        at_m1 = math.log((1 - self.beta) / self.alpha) / -math.log1p(-e1)
        at_m0 = math.log((1 - self.alpha) / self.beta) / -math.log1p(-e0)
        return at_m0, at_m1

    def describe(self) -> str:
        unit = "expected pair score" if self.kind == "score" else f"margin, bounds {self.lo:g}..{self.hi:g}"
        return (f"betting test (anytime-valid, any distribution; {unit}) H0: {self.m0:g} or less, H1: {self.m1:g} "
                f"or more (alpha {self.alpha:g}, beta {self.beta:g})")

    def to_json(self) -> dict:
        return {"test": self.name, **asdict(self)}


@dataclass
class BettingRun:
    """The two gamblers' wealth, one deal at a time (``BettingTest.start``)."""

    test: BettingTest
    n: int = 0
    log_h1: float = 0.0
    log_h0: float = 0.0
    clipped: int = 0
    _sum: float = 0.0  # Σ y
    _ss: float = 0.0  # Σ (y_i - μ̂_i)²
    _deals: DeferredMoments = field(default_factory=DeferredMoments)  # the moments, ``play``'s deals noted
    _decision: str | None = None

    def __post_init__(self) -> None:
        # The test's constants, computed once a run, not once a deal (the same expressions,
        # so the same floats): the calibration runs add a million deals.
        t = self.test
        span = self._span = t.hi - t.lo
        p0, p1 = self._p = (t.m0 - t.lo) / span, (t.m1 - t.lo) / span
        self._caps = (MAX_BET / p0, MAX_BET / (1 - p1))
        self._uppers = (t.upper_h1, t.upper_h0)

    def add(self, x: float) -> None:
        t = self.test
        self._deals.read().add(x)
        lo, hi = t.lo, t.hi
        if x < lo or x > hi:
            self.clipped += 1
        span = self._span
        y = (min(max(x, lo), hi) - lo) / span
        p0, p1 = self._p
        n = self.n
        # predictable: the bets use deals 1..n only (the prior is one pseudo-deal at the midpoint)
        mu = ((p0 + p1) / 2 + self._sum) / (n + 1)
        var = (0.25 + self._ss) / (n + 1)
        if self._decision is None:
            # bet as if the mean were at least the other hypothesis (growth-optimal there), more
            # when the deals so far say it is further
            d0, d1 = max(mu - p0, p1 - p0), max(p1 - mu, p1 - p0)
            cap0, cap1 = self._caps
            lam0 = min(max(d0 / (var + d0 * d0), 0.0), cap0)
            lam1 = min(max(d1 / (var + d1 * d1), 0.0), cap1)
            self.log_h1 += math.log1p(lam0 * (y - p0))
            self.log_h0 += math.log1p(lam1 * (p1 - y))
        n = self.n = n + 1
        total = self._sum = self._sum + y
        mu_n = ((p0 + p1) / 2 + total) / (n + 1)
        self._ss += (y - mu_n) ** 2
        if self._decision is None and n >= t.min_deals:
            up1, up0 = self._uppers
            self._decision = decide(self.log_h1, up1, self.log_h0, up0)

    def play(self, draw: Callable[[Any], float], rng: Any, max_deals: int) -> str | None:
        """``add`` deals ``draw(rng)`` until a decision or ``max_deals`` deals; the decision. The same
        arithmetic on locals (``sprt.simulate``'s runs add a million deals in the tests)."""
        t = self.test
        lo, hi, span = t.lo, t.hi, self._span
        p0, p1 = self._p
        mid, gap = (p0 + p1) / 2, p1 - p0
        cap0, cap1 = self._caps
        up1, up0 = self._uppers
        least = t.min_deals
        log1p = math.log1p
        n, total, ss, log_h1, log_h0 = self.n, self._sum, self._ss, self.log_h1, self.log_h0
        decision, clipped = self._decision, self.clipped
        seen = self._deals.unread
        while n < max_deals and decision is None:
            x = draw(rng)
            seen.append(x)
            if x < lo or x > hi:
                clipped += 1
            c = lo if lo > x else x  # min(max(x, lo), hi)
            y = ((hi if hi < c else c) - lo) / span
            mu = (mid + total) / (n + 1)
            var = (0.25 + ss) / (n + 1)
            d0, d1 = mu - p0, p1 - mu  # max(mu - p0, p1 - p0), max(p1 - mu, p1 - p0)
            d0 = gap if gap > d0 else d0
            d1 = gap if gap > d1 else d1
            lam0 = d0 / (var + d0 * d0)  # min(max(lam, 0.0), cap)
            lam0 = 0.0 if 0.0 > lam0 else lam0
            lam0 = cap0 if cap0 < lam0 else lam0
            lam1 = d1 / (var + d1 * d1)
            lam1 = 0.0 if 0.0 > lam1 else lam1
            lam1 = cap1 if cap1 < lam1 else lam1
            log_h1 += log1p(lam0 * (y - p0))
            log_h0 += log1p(lam1 * (p1 - y))
            n += 1
            total += y
            ss += (y - (mid + total) / (n + 1)) ** 2
            if n >= least and (log_h1 >= up1 or log_h0 >= up0):
                decision = decide(log_h1, up1, log_h0, up0)
        self.n, self._sum, self._ss, self.log_h1, self.log_h0 = n, total, ss, log_h1, log_h0
        self._decision, self.clipped = decision, clipped
        return decision

    @property
    def decision(self) -> str | None:
        return self._decision

    def state(self) -> BettingState:
        t = self.test
        return BettingState(self.log_h1, self.log_h0, t.upper_h1, t.upper_h0, self._decision, self._deals.read().result(),
                            self.clipped)


def known_bounds(game: str, options: Mapping[str, Any] | None = None, preset: str | None = None) -> tuple[float, float] | None:
    """The bounds of a deal's margin (bot A's side's score minus bot B's) that the rules fix
    under these options, where they are derived here; None elsewhere (give ``--bounds``, or
    test the pair score).

    Each game derives its own (``Game.margin_bounds``: Spite and Malice's single games
    -1..1 and its series, Spades, Spot), also what a forfeit costs (``ratings.forfeit_stake``).
    """
    from cardarena.games import get_game

    return get_game(game, options or {}, preset).margin_bounds()


def parse_bounds(text: str) -> tuple[float, float]:
    """``"LO,HI"`` (as ``--bounds`` takes it)."""
    parts = [p.strip() for p in text.split(",")]
    try:
        if len(parts) != 2:
            raise ValueError
        lo, hi = float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(f"bounds: expected LO,HI (two numbers, e.g. -500,500), got {text!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise ValueError(f"bounds: LO and HI must be finite numbers, got {text!r}")
    if lo >= hi:
        raise ValueError(f"bounds: LO must be less than HI, got {text!r}")
    return lo, hi


SEQUENTIAL = ("betting", "variance", "score", "normal")


def parse_sd_bound(value: float | str) -> float:
    """``--sd-bound``'s number (``auto`` is the caller's): ValueError naming what is wrong."""
    try:
        s = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"sd-bound: expected a number above 0 (a bound on a deal margin's s.d., game units) or "
                         f"auto, got {value!r}") from None
    if not (math.isfinite(s) and s > 0):
        raise ValueError(f"sd-bound: the s.d. bound must be a finite number above 0, got {value!r}")
    return s


def sequential_test(kind: str, text: str, alpha: float = 0.05, beta: float = 0.05, *, bounds: tuple[float, float] | None = None,
                    min_deals: int | None = None, model: str = "glr", sd_bound: float | str | None = None) -> Any:
    """The test ``--sequential KIND --sprt M0,M1`` names: ``betting`` (on margins in
    ``bounds``, default), ``variance`` (on margins whose s.d. is at most ``sd_bound``:
    ``arbiter.rating.catoni``; ``"auto"``: an ``AutoVarianceTest``, its bound read from a store
    later), ``score`` (betting on the pair score, another question) or ``normal`` (the SPRT of
    ``arbiter.rating.sprt``). ValueError naming what is wrong."""
    if kind not in SEQUENTIAL:
        raise ValueError(f"sequential: expected one of {', '.join(SEQUENTIAL)}, got {kind!r}")
    if sd_bound is not None and kind != "variance":
        raise ValueError(f"sd-bound: only the variance-bounded test uses an s.d. bound (--sequential {kind} does not)")
    if kind == "variance":
        from arbiter.rating.catoni import AutoVarianceTest, VarianceTest

        if sd_bound is None:
            raise ValueError("sprt: the variance-bounded test needs --sd-bound S (at most what a deal's margin's s.d. "
                             "can be, e.g. from an earlier evaluation of the same kind of deals, with room) or "
                             "--sd-bound auto (read from the earlier evaluations in --db FILE)")
        probe = Sprt.parse(text, alpha, beta)
        kw = {} if min_deals is None else {"min_deals": min_deals}
        if sd_bound == "auto":
            return AutoVarianceTest(probe.m0, probe.m1, alpha, beta, **kw)
        return VarianceTest(probe.m0, probe.m1, parse_sd_bound(sd_bound), alpha, beta, **kw)
    if kind == "normal":
        return Sprt.parse(text, alpha, beta, min_deals=MIN_DEALS if min_deals is None else min_deals, model=model)
    probe = Sprt.parse(text, alpha, beta)  # the M0,M1 syntax and the error rates, named as before
    kw = {} if min_deals is None else {"min_deals": min_deals}
    if kind == "score":
        return BettingTest.pair_score(probe.m0, probe.m1, alpha, beta, **kw)
    if bounds is None:
        raise ValueError("sprt: the betting test needs the margin's bounds for this game: give --bounds LO,HI (the "
                         "least and most a deal's margin can be under these options; a deal outside is clipped, "
                         "counted in the output), or --sd-bound S (the variance-bounded test: no bounds, its error "
                         "rates hold on any shape of deals whose margin's s.d. is at most S, e.g. from an earlier "
                         "evaluation, with room), or --sequential normal (no bounds; its error rates hold on "
                         "near-normal margins only). --sequential score asks another question (does A win more "
                         "often), not the margin's")
    return BettingTest(probe.m0, probe.m1, bounds[0], bounds[1], alpha, beta, **kw)
