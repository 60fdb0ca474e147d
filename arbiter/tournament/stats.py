"""The statistics every result table shares: a mean with its standard error.

One computation for the standings' duplicate advantage, ``arbiter evaluate``'s margin
and the sequential test, so that the same deals always give the same ± everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class MeanSE:
    """The mean of ``n`` values and its standard error (None with fewer than two values):
    the sample standard deviation (n - 1 in the denominator) over the square root of n."""

    mean: float
    se: float | None
    n: int

    def __str__(self) -> str:
        return f"{self.mean:+.2f}" + ("" if self.se is None else f" ± {self.se:.2f}")


def mean_se(values: Sequence[float]) -> MeanSE:
    n = len(values)
    if n == 0:
        return MeanSE(0.0, None, 0)
    mean = sum(values) / n
    if n < 2:
        return MeanSE(mean, None, n)
    var = sum((x - mean) ** 2 for x in values) / (n - 1)
    return MeanSE(mean, math.sqrt(var / n), n)
