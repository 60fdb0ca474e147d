"""The sequential probability ratio test on duplicate deals: stop as soon as the margin is known.

    from arbiter.rating.sprt import Sprt
    test = Sprt(m0=0, m1=50)                  # H0: margin <= 0, H1: margin >= 50 (game units)
    state = test.run(deal_margins)            # scans the deals in order, stops at the first decision
    print(state.verdict)                      # "H1 accepted", "H0 accepted" or "no decision"

The observation is one *deal*: bot A's margin over bot B averaged over the deal's two
seatings (``EvalResult.deal_margins``), in the game's own units; ``m0`` and ``m1`` are in
those units too (Spades points, Spot units, Spite and Malice games). The deals are
independent, their distribution unknown, so the test is a *generalized* SPRT (as fishtest's
and fastchess's): the likelihood ratio of the two hypotheses with everything but the mean
(here: the variance) estimated from the deals. Wald's bounds: accept H0 when
LLR <= log(β / (1 - α)), H1 when LLR >= log((1 - β) / α).

With x̄ the mean of the n deal margins and v their variance (maximum likelihood: squared
deviations over n), two forms of the ratio (fishtest ``server/fishtest/stats/LLRcalc.py``):

* ``model="glr"`` (the default; fishtest's ``LLR_alt``)::

      LLR = (n / 2) · log((v + (x̄ - m0)²) / (v + (x̄ - m1)²))

  Deals normal with mean m and unknown variance σ²: the likelihood is maximized over σ² at
  σ̂²(m) = Σ(x_i - m)² / n = v + (x̄ - m)², where it is ∝ σ̂²(m)^(-n/2); the ratio of the
  two maxima is the formula. (Integrating σ² out under the prior 1/σ² gives the same ratio,
  so it is also the Bayes factor that lets the variance be unsure.)
* ``model="normal"`` (fishtest's ``LLR_alt2``, Van den Bergh's "GSPRT approximation")::

      LLR = n / (2 v) · ((x̄ - m0)² - (x̄ - m1)²) = n (m1 - m0) (2 x̄ - m0 - m1) / (2 v)

  With σ² known the log-likelihood ratio of mean m1 against m0 is Σ[(x_i - m0)² -
  (x_i - m1)²] / (2σ²), which is exactly this with σ² for v; it is also the glr form to
  first order in ((x̄ - m)² / v). Its drift per deal is (m1 - m0)(μ - (m0 + m1)/2) / σ².

Both agree when the margin is near the hypotheses (where it matters). Far from both the
normal form takes the estimated variance at its word and crosses a bound sooner (Spades
heuristic against random with M0,M1 = 0,50: at the 10th deal, the glr at the 15th to 20th),
but near them, whenever the first deals' variance happens to come out small, it overstates
the evidence: on recorded deals its error rates were 0.06-0.07 for a nominal 0.05 (0.12-0.17
with 5 deals before a decision), the glr's on target (docs/strength.md,
"Sequential tests"); hence the default.

The variance is estimated from the deals themselves, so it is unreliable over the first few:
no decision is taken before ``min_deals`` deals (default ``MIN_DEALS``), and a run capped
at ``max_deals`` ends with "no decision" (a truncated SPRT: the cap only removes decisions,
so it adds no errors; "no decision" is a third outcome). ``simulate`` measures the error rates
and the average length by replaying recorded deal margins (tests/arbiter/rating/test_sprt.py,
docs/strength.md).
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import asdict, dataclass, field
from statistics import NormalDist
from typing import Any, Callable, Iterable, Sequence

from arbiter.rating.stats import MeanSE, Moments, mean_of

#: No decision before this many deals: the variance of a handful of deals is too unsure (on
#: recorded deals, 10 let the error rate at M1 reach 0.06 for β = 0.05; 20 kept it at β, and
#: cost nothing in average length near the hypotheses: docs/strength.md).
MIN_DEALS = 20
MODELS = ("glr", "normal")

H0 = "H0"
H1 = "H1"

#: The largest a test's M0, M1, bounds and s.d. bound may be in size, and the least M1 - M0 may be
#: (game units; every game's margins lie far inside): beyond them its arithmetic overflowed or
#: divided by zero (--bounds -1e308,1e308, --sd-bound 1e300, M1 - M0 = 1e-300 were tracebacks).
LARGEST = 1e12
FINEST = 1e-9


#: The least an error rate may be: below it 1 - alpha rounds to 1 and the normal quantile of the
#: fixed test's length fails (--alpha 1e-300 was a StatisticsError traceback after the whole run).
SMALLEST_RATE = 1e-12


def check_rates(alpha: float, beta: float) -> None:
    """ValueError naming ``alpha`` or ``beta`` if it is not an error rate a test can keep."""
    for name, v in (("alpha", alpha), ("beta", beta)):
        if not 0 < v < 1:
            raise ValueError(f"{name}: must be between 0 and 1, got {v:g}")
        if v < SMALLEST_RATE:
            raise ValueError(f"{name}: must be at least {SMALLEST_RATE:g} (smaller is certainty: 1 - {name} rounds "
                             f"to 1), got {v:g}")


def check_scale(m0: float, m1: float, **more: float) -> None:
    """ValueError naming the first of M0, M1 and ``more`` (LO, HI, S) beyond ``LARGEST`` in size,
    or an M1 - M0 below ``FINEST``; the caller has checked they are finite and M0 < M1."""
    for name, v in (("M0", m0), ("M1", m1), *more.items()):
        if abs(v) > LARGEST:  # named by the flag that gave it: --sprt, --bounds or --sd-bound
            flag = {"LO": "bounds", "HI": "bounds", "S": "sd-bound"}.get(name, "sprt")
            raise ValueError(f"{flag}: {name} must be at most {LARGEST:g} in size (game units), got {v:g}")
    if m1 - m0 < FINEST:
        raise ValueError(f"sprt: M1 - M0 must be at least {FINEST:g} (game units), got {m1 - m0:g}")


class Scanned:
    """What the betting tests share (``betting.BettingTest``, ``catoni.VarianceTest``): the
    thresholds their wealth must reach, 1/alpha and 1/beta, and the scan of deal values to
    the first state that stops the test. A subclass has ``alpha``, ``beta`` and ``start()``
    (a run with ``n``, ``add`` and ``state()``)."""

    alpha: float
    beta: float

    @property
    def upper_h1(self) -> float:
        return math.log(1 / self.alpha)

    @property
    def upper_h0(self) -> float:
        return math.log(1 / self.beta)

    def stops(self, state: Any) -> bool:
        """Whether the scan ends at ``state``: a decision."""
        return bool(state.decision)

    def run(self, values: Iterable[float], max_deals: int | None = None) -> Any:
        """Scan the deal values in order; the state at the first stop (or after the last)."""
        r = self.start()  # type: ignore[attr-defined]
        state = r.state()
        for x in values:
            if max_deals is not None and r.n >= max_deals:
                break
            r.add(x)
            state = r.state()
            if self.stops(state):
                break
        return state


def decide(log_h1: float, upper_h1: float, log_h0: float, upper_h0: float) -> str | None:
    """What two gamblers' wealth (``betting``, ``catoni``) accepts: the side whose bound is
    reached. Both on one deal (the deals lie between M0 and M1: each gamble against one side has
    won): the one further past its bound, and on a tie H0, the claim not made (A is not shown to
    be better by M1); two identical bots' pair scores of 1/2 against 0.4,0.6 had H1 accepted for
    being checked first. The error rates still hold: a side is accepted only at its own bound."""
    h1, h0 = log_h1 >= upper_h1, log_h0 >= upper_h0
    if h1 and h0:
        return H1 if log_h1 - upper_h1 > log_h0 - upper_h0 else H0
    return H1 if h1 else H0 if h0 else None


def both_reached(state: Any) -> str:
    """The evidence's note when both gamblers reached their bounds on the deal that decided."""
    if state.decision and state.log_h1 >= state.upper_h1 and state.log_h0 >= state.upper_h0:
        return ("; both bounds reached at once: the mean lies between M0 and M1 (decided for the evidence further "
                "past its bound, H0 on a tie)")
    return ""


class Decided:
    """What the state of every sequential test (``SprtState``, ``betting.BettingState``)
    says the same way: the deals so far and the verdict."""

    margin: MeanSE
    decision: str | None

    @property
    def deals(self) -> int:
        return self.margin.n

    @property
    def verdict(self) -> str:
        return {H0: "H0 accepted", H1: "H1 accepted"}.get(self.decision or "", "no decision")

    @property
    def stopped(self) -> bool:
        """Whether more deals can change nothing: a decision (or, for a test with an
        assumption, the deals contradicting it)."""
        return self.decision is not None


@dataclass(frozen=True)
class SprtState(Decided):
    """Where the test stands after ``margin.n`` deals."""

    llr: float
    lower: float
    upper: float
    decision: str | None  # "H0", "H1" or None (go on)
    margin: MeanSE  # the deal margins so far

    @property
    def progress(self) -> float:
        """Where the LLR is between its two bounds, 0..1 (for a progress bar)."""
        return min(max((self.llr - self.lower) / (self.upper - self.lower), 0.0), 1.0)

    def evidence(self) -> str:
        """The LLR against its bounds; with deals all alike, first that they have no spread and
        what follows, in the words of the other tests' notes ("every deal alike: no spread",
        "the verdict is on ..."): the normal model takes a margin with no spread as certain, so it
        accepts the nearer side, on that alone (it printed "LLR -inf"); midway, never."""
        bounds = f"[{self.lower:.2f}, {self.upper:.2f}]"
        if not math.isfinite(self.llr):
            side = "H1" if self.llr > 0 else "H0"
            return (f"every deal alike: no spread, so the normal model takes their margin as certain: the verdict "
                    f"rests on that alone, not on a spread measured (LLR unbounded towards {side}, bounds {bounds})")
        if self.margin.se == 0:
            return (f"every deal alike: no spread, and their margin is midway between M0 and M1: the normal model "
                    f"leans to neither, and no number of such deals decides (LLR {self.llr:+.2f} in {bounds})")
        return f"LLR {self.llr:+.2f} in {bounds}"

    def to_json(self) -> dict:
        return {"llr": _finite(self.llr), "lower": self.lower, "upper": self.upper, "decision": self.decision,
                "verdict": self.verdict, "deals": self.deals, "mean": self.margin.mean, "se": self.margin.se}


def _finite(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


@dataclass(frozen=True)
class Sprt:
    """H0: the mean deal margin is at most ``m0``; H1: it is at least ``m1`` (m0 < m1).

    ``alpha``: the chance of accepting H1 when the margin is m0; ``beta``: of accepting H0
    when it is m1. ``ConfigError``-style ``ValueError`` for anything else.
    """

    m0: float
    m1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_deals: int = MIN_DEALS
    model: str = "glr"

    def __post_init__(self) -> None:
        if not (math.isfinite(self.m0) and math.isfinite(self.m1)):
            raise ValueError(f"sprt: M0 and M1 must be finite numbers, got {self.m0:g}, {self.m1:g}")
        if self.m0 >= self.m1:
            raise ValueError(f"sprt: M0 must be less than M1, got {self.m0:g}, {self.m1:g}")
        check_scale(self.m0, self.m1)
        check_rates(self.alpha, self.beta)
        if self.alpha + self.beta >= 1:
            raise ValueError(f"alpha: alpha + beta must be less than 1, got {self.alpha + self.beta:g}")
        if not isinstance(self.min_deals, int) or self.min_deals < 2:
            raise ValueError(f"min-deals: must be at least 2 for the normal SPRT (its variance is estimated), got "
                             f"{self.min_deals!r}")
        if self.model not in MODELS:
            raise ValueError(f"sprt-model: must be one of {', '.join(MODELS)}, got {self.model!r}")

    @classmethod
    def parse(cls, text: str, alpha: float = 0.05, beta: float = 0.05, **kw) -> "Sprt":
        """From ``"M0,M1"`` (as ``--sprt`` takes it)."""
        parts = [p.strip() for p in text.split(",")]
        try:
            if len(parts) != 2:
                raise ValueError
            m0, m1 = float(parts[0]), float(parts[1])
        except ValueError:
            raise ValueError(f"sprt: expected M0,M1 (two numbers, e.g. 0,50), got {text!r}") from None
        return cls(m0, m1, alpha, beta, **kw)

    @functools.cached_property  # the test is frozen: computed once (a simulation asks at every deal)
    def lower(self) -> float:
        """Accept H0 at or below this log-likelihood ratio: log(β / (1 - α))."""
        return math.log(self.beta / (1 - self.alpha))

    @functools.cached_property
    def upper(self) -> float:
        """Accept H1 at or above this log-likelihood ratio: log((1 - β) / α)."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, margin: MeanSE) -> float:
        """The generalized log-likelihood ratio of H1 against H0 for these deals (module doc)."""
        n = margin.n
        if n < 2 or margin.se is None:
            return 0.0
        v = margin.se**2 * (n - 1)  # maximum-likelihood variance: squared deviations / n
        x = margin.mean
        d0, d1 = (x - self.m0) ** 2, (x - self.m1) ** 2
        if v <= 1e-12 * (1.0 + d0 + d1):  # every deal the same margin
            return 0.0 if d0 == d1 else (math.inf if d0 > d1 else -math.inf)
        if self.model == "glr":
            return n / 2 * math.log((v + d0) / (v + d1))
        return n / (2 * v) * (d0 - d1)

    def state(self, margin: MeanSE) -> SprtState:
        llr, decision = self._judged(margin)
        return SprtState(llr, self.lower, self.upper, decision, margin)

    def _judged(self, margin: MeanSE) -> tuple[float, str | None]:
        """The LLR of these deals and the decision it reaches (``state`` without the state)."""
        llr = self.llr(margin)
        decision = None
        if margin.n >= self.min_deals:
            if llr >= self.upper:
                decision = H1
            elif llr <= self.lower:
                decision = H0
        return llr, decision

    name = "normal"

    def deal_value(self, seating_margins: Sequence[float]) -> float:
        """A deal's observation: the mean of its seatings' margins."""
        return sum(seating_margins) / len(seating_margins)

    def start(self) -> "SprtRun":
        return SprtRun(self)

    def describe(self) -> str:
        return (f"SPRT (normal approximation, {self.model}; at least {self.min_deals} deals) H0: margin <= {self.m0:g}, "
                f"H1: margin >= {self.m1:g} (alpha {self.alpha:g}, beta {self.beta:g})")

    def run(self, deal_margins: Iterable[float], max_deals: int | None = None) -> SprtState:
        """Scan the deals in order; the state at the first decision (or after the last deal)."""
        acc = Moments()
        state = self.state(acc.result())
        for x in deal_margins:
            if max_deals is not None and acc.n >= max_deals:
                break
            acc.add(x)
            state = self.state(acc.result())
            if state.decision:
                break
        return state

    def fixed_deals(self, sd: float) -> int:
        """Deals a fixed-length one-sided test of m0 against m1 needs for the same α and β
        when a deal's standard deviation is ``sd``: ((z_(1-α) + z_(1-β)) sd / (m1 - m0))²."""
        z = _z(1 - self.alpha) + _z(1 - self.beta)
        return max(1, math.ceil((z * sd / (self.m1 - self.m0)) ** 2))

    def to_json(self) -> dict:
        return asdict(self)  # no "test" key: the key of evaluations stored before the betting test


@dataclass
class SprtRun:
    """The SPRT fed one deal at a time (``Sprt.start``), as ``BettingRun`` feeds its test."""

    test: Sprt
    acc: Moments = field(default_factory=Moments)

    @property
    def n(self) -> int:
        return self.acc.n

    def add(self, x: float) -> None:
        self.acc.add(x)

    def play(self, draw: Callable[[random.Random], float], rng: random.Random, max_deals: int) -> str | None:
        """``add`` deals ``draw(rng)`` until a decision or ``max_deals`` deals; the decision. The
        moments, their ``result`` and ``Sprt.llr`` on locals, the same arithmetic (``simulate``)."""
        t = self.test
        m0, m1, least, lower, upper, glr = t.m0, t.m1, t.min_deals, t.lower, t.upper, t.model == "glr"
        acc = self.acc
        n, total, m2, shift, shifted = acc.n, acc.total, acc.m2, acc.shift, acc.shifted
        log, sqrt = math.log, math.sqrt
        decision = None
        try:
            while n < max_deals:
                x = draw(rng)
                if not n:  # Moments.add
                    shift = x
                y = x - shift
                old = shifted / n if n else 0.0
                n += 1
                total += x
                shifted += y
                m2 += (y - old) * (y - shifted / n)
                if n < least or n < 2:
                    continue
                mean = total / n  # Moments.result
                se = sqrt((0.0 if 0.0 > m2 else m2) / (n - 1) / n)  # max(m2, 0.0)
                v = se**2 * (n - 1)  # Sprt.llr
                d0, d1 = (mean - m0) ** 2, (mean - m1) ** 2
                if v <= 1e-12 * (1.0 + d0 + d1):
                    llr = 0.0 if d0 == d1 else (math.inf if d0 > d1 else -math.inf)
                elif glr:
                    llr = n / 2 * log((v + d0) / (v + d1))
                else:
                    llr = n / (2 * v) * (d0 - d1)
                if llr >= upper:
                    decision = H1
                    break
                if llr <= lower:
                    decision = H0
                    break
        finally:
            acc.n, acc.total, acc.m2, acc.shift, acc.shifted = n, total, m2, shift, shifted
        return decision

    @property
    def decision(self) -> str | None:
        return self.test._judged(self.acc.result())[1]

    def state(self) -> SprtState:
        return self.test.state(self.acc.result())


def _z(p: float) -> float:
    """The standard normal quantile."""
    return NormalDist().inv_cdf(p)


# --------------------------------------------------------------------------------------
# Simulation: error rates and lengths, from recorded deal margins.

Sampler = Callable[[random.Random], float]


def shifted(sample: Sequence[float], true_margin: float) -> Sampler:
    """Deals drawn from the recorded ones moved by a constant so that their mean is
    ``true_margin`` (same shape, skew and all; a deal the bots played alike moves too)."""
    m = mean_of(sample)
    pool = [x - m + true_margin for x in sample]
    return lambda rng: rng.choice(pool)


def relabelled(sample: Sequence[float], true_margin: float) -> Sampler:
    """Deals drawn from the recorded ones, each with the bots' names swapped (the margin's
    sign flipped) with the chance that makes the mean ``true_margin``: deals where A is the
    better bot mixed with deals where B is. A deal the bots played alike stays at 0.
    ``true_margin`` must lie between minus and plus the recorded mean."""
    m = mean_of(sample)
    if m == 0 or abs(true_margin) > abs(m):
        raise ValueError(f"relabelled: {true_margin:g} is not between -{abs(m):g} and {abs(m):g}")
    q = (1 - true_margin / m) / 2
    pool = list(sample)
    return lambda rng: -rng.choice(pool) if rng.random() < q else rng.choice(pool)


@dataclass(frozen=True)
class SimResult:
    """How ``runs`` simulated tests at one true margin ended."""

    true_margin: float
    runs: int
    h1: int  # H1 accepted
    h0: int  # H0 accepted
    undecided: int  # capped at max_deals
    mean_deals: float
    max_deals: int

    @property
    def p_h1(self) -> float:
        return self.h1 / self.runs

    @property
    def p_h0(self) -> float:
        return self.h0 / self.runs

    def to_json(self) -> dict:
        d = asdict(self)
        d.update(p_h1=self.p_h1, p_h0=self.p_h0)
        return d


def simulate(test: Any, draw: Sampler, true_margin: float, runs: int, max_deals: int, rng: random.Random) -> SimResult:
    """Run the test (a ``Sprt`` or an ``arbiter.rating.betting.BettingTest``) ``runs`` times
    on deals from ``draw`` (whose mean is ``true_margin``); each run stops at a decision or
    after ``max_deals`` deals."""
    h1 = h0 = total = 0
    for _ in range(runs):
        run = test.start()
        play = getattr(run, "play", None)
        if play is not None:  # the same deals added on the run's locals
            decision = play(draw, rng, max_deals)
        else:
            decision = None
            while run.n < max_deals:
                run.add(draw(rng))
                decision = run.decision
                if decision or getattr(run, "contradicted", False):
                    break
        total += run.n
        h1 += decision == H1
        h0 += decision == H0
    return SimResult(true_margin, runs, h1, h0, runs - h1 - h0, total / runs, max_deals)


def operating_characteristic(
    test: Sprt, sample: Sequence[float], margins: Sequence[float], runs: int, max_deals: int, seed: int = 0,
    sampler: Callable[[Sequence[float], float], Sampler] = relabelled,
) -> list[SimResult]:
    """``simulate`` at each true margin (deals from ``sampler(sample, margin)``), each from
    its own seeded generator."""
    return [simulate(test, sampler(sample, mu), mu, runs, max_deals, random.Random(f"{seed}:sprt:{i}:{mu}"))
            for i, mu in enumerate(margins)]
