"""The statistics every result table shares: a mean with its standard error.

One computation for the standings' duplicate advantage, ``arbiter evaluate``'s margin
and the sequential test (``arbiter.rating.sprt``), so that the same deals always give
the same ± everywhere. ``mean_se`` takes a list; ``Moments`` is the same computation fed one
value at a time (the sequential test looks at the mean after every deal, and its
simulations after every simulated deal, without re-reading the list each time).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence


@dataclass(frozen=True)
class MeanSE:
    """The mean of ``n`` values and its standard error (None with fewer than two values):
    the sample standard deviation (n - 1 in the denominator) over the square root of n."""

    mean: float
    se: float | None
    n: int

    @property
    def sd(self) -> float | None:
        """The sample standard deviation (n - 1 in the denominator); None with fewer than two."""
        return None if self.se is None else self.se * math.sqrt(self.n)

    @property
    def no_spread(self) -> str | None:
        """Why there is no ± to give, in words, or None when there is one: one value (or none), or
        every value alike (an s.e. of exactly 0 is no certainty, only a sample with no spread in it:
        three drawn deals, or a bot that forfeits every match, would claim "± 0.00")."""
        if self.n == 0:
            return "no deals"
        if self.se is None:
            return "one deal: too few for a standard error"
        if self.se == 0:
            return f"all {self.n} deals alike: no spread to give a standard error from"
        return None

    def text(self, decimals: int = 2, scale: float = 1.0) -> str:
        """The mean ± ``scale`` standard errors at ``decimals`` places, more where the ± would round to
        0 (its first significant digit shown), or the mean with ``no_spread`` when there is no ±."""
        why = self.no_spread
        if why is not None or self.se is None:
            return f"{self.mean:+.{decimals}f} ({why})"
        half = scale * self.se
        places = max(decimals, -math.floor(math.log10(half))) if 0 < half < 1 else decimals
        if places > 8:  # far below anything a game scores: its first digit, not 17 places of the mean
            return f"{self.mean:+.{decimals}f} ± {half:.1g}"
        return f"{self.mean:+.{places}f} ± {half:.{places}f}"

    def __str__(self) -> str:
        return f"{self.mean:+.2f}" if self.se is None else self.text()


@dataclass
class Moments:
    """Running count, sum and sum of squared deviations from the mean (Welford's update).

    The mean is the plain sum over n, as a list's would be; the squared deviations are
    updated in a numerically stable way, so adding a million values loses nothing.
    """

    n: int = 0
    total: float = 0.0
    m2: float = 0.0  # sum of (x - mean)^2
    # the deviations are taken from the first value (``shift``; their sum ``shifted``), so that values
    # all alike give exactly 0: from total / n, which for ten 0.1s is not 0.1 to the last bit, they
    # gave an s.e. of 3e-18, shown as a spread there is none of
    shift: float = 0.0
    shifted: float = 0.0

    def add(self, x: float) -> None:
        n = self.n
        if not n:
            self.shift = x
        y = x - self.shift
        shifted = self.shifted
        old = shifted / n if n else 0.0
        self.n = n = n + 1
        self.total += x
        self.shifted = shifted = shifted + y
        self.m2 += (y - old) * (y - shifted / n)

    def extend(self, values: Iterable[float]) -> "Moments":
        """``add`` each of ``values`` (on locals: the analysis's looks and the statistics'
        simulations take the moments of many short lists)."""
        n, total, m2, shift, shifted = self.n, self.total, self.m2, self.shift, self.shifted
        try:
            for x in values:
                if not n:
                    shift = x
                y = x - shift
                old = shifted / n if n else 0.0
                n += 1
                total += x
                shifted += y
                m2 += (y - old) * (y - shifted / n)
        finally:
            self.n, self.total, self.m2, self.shift, self.shifted = n, total, m2, shift, shifted
        return self

    def result(self) -> MeanSE:
        n = self.n
        if n == 0:
            return MeanSE(0.0, None, 0)
        mean = self.total / n
        if n < 2:
            return MeanSE(mean, None, n)
        var = max(self.m2, 0.0) / (n - 1)
        return MeanSE(mean, math.sqrt(var / n), n)


@dataclass
class DeferredMoments:
    """``Moments`` of values noted now and added when read (``read``): a sequential run played
    deal by deal in a simulation never asks for its moments, and extending them deal by deal
    was a fifth of its time (``BettingRun.play``, ``VarianceRun.play``)."""

    moments: Moments = field(default_factory=lambda: Moments())
    unread: list[float] = field(default_factory=list)  # noted, not yet in ``moments``

    def read(self) -> Moments:
        """The moments of every value noted so far."""
        if self.unread:
            self.moments.extend(self.unread)
            self.unread = []
        return self.moments


def pooled_sd(groups: Iterable[Sequence[float]]) -> float | None:
    """The s.d. of values pooled about each group's own mean (the spread of deals played in
    several runs, none of the runs' means in it); None with no degree of freedom or no spread."""
    ss, df = 0.0, 0
    for xs in groups:
        if xs:
            ys = [x - xs[0] for x in xs]  # from the first: values all alike give exactly 0 (``Moments``)
            m = sum(ys) / len(ys)
            ss += sum((y - m) ** 2 for y in ys)
            df += len(xs) - 1
    return math.sqrt(ss / df) if df >= 1 and ss > 0 else None


def mean_of(values: Iterable[float]) -> float:
    """``mean_se(values).mean`` (the plain sum over n, as ``Moments`` adds it), without the squared
    deviations: the simulations' samplers centre pools of 20,000 deals (0 with no values)."""
    n, total = 0, 0.0
    for x in values:
        n += 1
        total += x
    return total / n if n else 0.0


def mean_se(values: Sequence[float]) -> MeanSE:
    """The mean of ``values`` with its standard error (see ``MeanSE``)."""
    return Moments().extend(values).result()


def t_cdf(x: float, df: int) -> float:
    """Student's t distribution function for a whole number of degrees of freedom ``df`` >= 1
    (the finite sums of Abramowitz & Stegun 26.7.3-4: exact, no special functions)."""
    if df < 1:
        raise ValueError(f"t_cdf: degrees of freedom must be 1 or more, got {df!r}")
    theta = math.atan2(x, math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    if df % 2:  # odd: A = (2/π)(θ + s (c + c³·2/3 + ...))
        term, total = c, 0.0
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c * c * (2 * k) / (2 * k + 1)
        a = 2 / math.pi * (theta + (s * total if df > 1 else 0.0))
    else:  # even: A = s (1 + c²/2 + c⁴·3/8 + ...)
        term, total = 1.0, 0.0
        for k in range(1, df // 2 + 1):
            total += term
            term *= c * c * (2 * k - 1) / (2 * k)
        a = s * total
    return (1 + a) / 2


@functools.lru_cache(maxsize=1024)
def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (bisection on ``t_cdf``;
    kept: every table's intervals ask for 0.975 at a handful of ``df``)."""
    if not 0 < p < 1:
        raise ValueError(f"t_quantile: p must be between 0 and 1, got {p!r}")
    lo, hi = -1.0, 1.0
    while t_cdf(lo, df) > p:
        lo *= 2
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2
