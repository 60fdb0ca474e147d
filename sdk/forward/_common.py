"""Shared pieces of the forward model: options, errors, uniform constrained dealing."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, Mapping, Sequence


class ConsistencyError(ValueError):
    """No full state is consistent with the view (a corrupt or hand-made view)."""


@dataclass(frozen=True)
class SamplingOptions:
    """How samples are drawn. ``infer``: apply the rule inferences from public history."""

    infer: bool = True


def parse_sampling_options(options: SamplingOptions | Mapping[str, Any] | None) -> SamplingOptions:
    if options is None:
        return SamplingOptions()
    if isinstance(options, SamplingOptions):
        return options
    known = {f.name for f in fields(SamplingOptions)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"unknown sampling option {', '.join(map(repr, unknown))} (known: {', '.join(sorted(known))})")
    return SamplingOptions(**options)


class ConstrainedDeal:
    """Deal the distinct cards ``pool`` into hands of sizes ``caps``, uniformly among the
    deals in which hand ``i`` gets no card whose ``group_of(card)`` is in ``banned[i]``.

    Exact: the cards are split group by group, the number of cards of each group per
    hand drawn with probability proportional to the number of complete deals it allows
    (a dynamic programme over the remaining capacities, built once per view), then the
    cards of the group are shuffled into those slots. Raises ConsistencyError when no
    such deal exists.
    """

    def __init__(self, pool: Sequence[int], caps: Sequence[int], banned: Sequence[frozenset[int]], group_of) -> None:
        if any(c < 0 for c in caps) or sum(caps) != len(pool):
            raise ConsistencyError(f"{len(pool)} unseen cards for hidden places of sizes {list(caps)}")
        self.pool = sorted(pool)
        self.caps = tuple(caps)
        self.constrained = any(banned)
        if not self.constrained:
            return
        groups: dict[int, list[int]] = {}
        for c in self.pool:
            groups.setdefault(group_of(c), []).append(c)
        self.keys = sorted(groups)
        self.groups = groups
        sizes = tuple(len(groups[k]) for k in self.keys)
        allowed = tuple(tuple(i for i in range(len(caps)) if k not in banned[i]) for k in self.keys)
        self.table = _DealCounts(sizes, allowed, len(caps))
        if self.table.count(0, self.caps) == 0:
            raise ConsistencyError("no deal of the unseen cards satisfies the inferred voids")

    def draw(self, rng: random.Random) -> list[list[int]]:
        """One deal, uniformly among the allowed ones."""
        if not self.constrained:
            cards = list(self.pool)
            rng.shuffle(cards)
            out, i = [], 0
            for c in self.caps:
                out.append(cards[i:i + c])
                i += c
            return out
        caps = self.caps
        hands: list[list[int]] = [[] for _ in caps]
        for gi, k in enumerate(self.keys):
            splits = self.table.splits(gi, caps)
            r = rng.randrange(sum(w for _, w in splits))
            for split, w in splits:
                if r < w:
                    break
                r -= w
            cards = list(self.groups[k])
            rng.shuffle(cards)
            j = 0
            for i, take in enumerate(split):
                hands[i].extend(cards[j:j + take])
                j += take
            caps = tuple(c - t for c, t in zip(caps, split))
        return hands


class _DealCounts:
    """Counts of complete deals from group ``g`` on, given the remaining capacities."""

    def __init__(self, sizes: tuple[int, ...], allowed: tuple[tuple[int, ...], ...], hands: int):
        self.sizes, self.allowed, self.hands = sizes, allowed, hands
        self.count = lru_cache(maxsize=None)(self._count)
        self._splits: dict[tuple[int, tuple[int, ...]], list] = {}

    def _compositions(self, g: int, caps: tuple[int, ...]):
        """Every way to split group ``g`` over its allowed hands within ``caps``."""
        k, allowed = self.sizes[g], self.allowed[g]

        def rec(idx: int, left: int, acc: list[int]):
            if idx == len(allowed) - 1:
                if left <= caps[allowed[idx]]:
                    yield acc + [left]
                return
            for t in range(min(left, caps[allowed[idx]]) + 1):
                yield from rec(idx + 1, left - t, acc + [t])

        if not allowed:
            if k == 0:
                yield (0,) * self.hands
            return
        for comp in rec(0, k, []):
            split = [0] * self.hands
            for i, t in zip(allowed, comp):
                split[i] = t
            yield tuple(split)

    def _count(self, g: int, caps: tuple[int, ...]) -> int:
        if g == len(self.sizes):
            return 1 if not any(caps) else 0
        total = 0
        for split in self._compositions(g, caps):
            rest = tuple(c - t for c, t in zip(caps, split))
            sub = self.count(g + 1, rest)
            if sub:
                total += _multinomial(split) * sub
        return total

    def splits(self, g: int, caps: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
        """The splits of group ``g`` with their weights (deals they allow); cached."""
        key = (g, caps)
        if key in self._splits:
            return self._splits[key]
        out = []
        for split in self._compositions(g, caps):
            rest = tuple(c - t for c, t in zip(caps, split))
            w = _multinomial(split) * self.count(g + 1, rest)
            if w:
                out.append((split, w))
        self._splits[key] = out
        return out


def _multinomial(parts: Sequence[int]) -> int:
    out, n = 1, 0
    for p in parts:
        n += p
        out *= math.comb(n, p)
    return out
