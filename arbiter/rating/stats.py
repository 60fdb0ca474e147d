"""The statistics every result table shares: a mean with its standard error.

One computation for the standings' duplicate advantage, ``arbiter evaluate``'s margin
and the sequential test (``arbiter.rating.sprt``), so that the same deals always give
the same ± everywhere. ``mean_se`` takes a list; ``Moments`` is the same computation fed one
value at a time (the sequential test looks at the mean after every deal, and its
simulations after every simulated deal, without re-reading the list each time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
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

    def __str__(self) -> str:
        return f"{self.mean:+.2f}" + ("" if self.se is None else f" ± {self.se:.2f}")


@dataclass
class Moments:
    """Running count, sum and sum of squared deviations from the mean (Welford's update).

    The mean is the plain sum over n, as a list's would be; the squared deviations are
    updated in a numerically stable way, so adding a million values loses nothing.
    """

    n: int = 0
    total: float = 0.0
    m2: float = 0.0  # sum of (x - mean)^2

    def add(self, x: float) -> None:
        old = self.total / self.n if self.n else 0.0
        self.n += 1
        self.total += x
        self.m2 += (x - old) * (x - self.total / self.n)

    def extend(self, values: Iterable[float]) -> "Moments":
        for x in values:
            self.add(x)
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


def mean_se(values: Sequence[float]) -> MeanSE:
    """The mean of ``values`` with its standard error (see ``MeanSE``)."""
    return Moments().extend(values).result()
