"""How many deals until we know, before a deal is played: each sequential test of ``arbiter
evaluate --sprt M0,M1`` run on deals drawn from those a store already holds.

    from arbiter.tournament.plan import deals_plan
    with Store("eval.sqlite", read_only=True) as store:
        plan = deals_plan(store, "spades", ("mybot.py", "greedy"), {"deals": 1}, None, 0, 20, bounds=(-900, 900))

The deals are the same pair's stored deal margins (``arbiter.tournament.evaluate.stored_pairs``:
its evaluations pooled, each deal once), else its kin's, chosen as ``--sd-bound auto`` chooses
(``closest_pairs``): the pair's own, else the widest of the pairs with either bot, else of any.
Each deal less its evaluation's mean, then moved to the margin asked about (M0, M1, and the pair's
stored margin when they are its own), and drawn with replacement (``arbiter.rating.sprt.shifted``):
the tests are run ``runs`` times on the very shape of those deals, skew and rare deals as often
as they were seen (a deal they never saw is missing here too). The result is each test's mean
deals and how often it accepted each side, beside what a fixed-length test needs at their s.d.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from cardarena.games import ConfigError
from arbiter.batch.settings import bot_contents
from arbiter.rating.betting import sequential_test
from arbiter.rating.catoni import AUTO_HISTORY, SWITCH_AFTER, AutoVarianceTest, BettingThenVariance
from arbiter.rating.sprt import SimResult, Sprt, shifted, simulate
from arbiter.rating.stats import mean_se
from arbiter.store.db import Store
from arbiter.tournament.evaluate import (NONE_OF_THE_PAIR, StoredPair, closest_pairs, edited_text, no_pair_deals,
                                         own_pair_note, stored_pairs)

#: Simulated runs of each test at each margin (a few seconds in all at Spades' widest bounds).
PLAN_RUNS = 500


@dataclass(frozen=True)
class PlanRow:
    """One test: its name, the flags that choose it, and its runs at M0, at M1 and at the stored
    margin (None: not simulated, ``why`` says why)."""

    name: str  # short: betting, auto, variance, normal
    flags: str  # what chooses it on the command line
    test: Any
    at_m0: SimResult | None = None
    at_m1: SimResult | None = None
    at_stored: SimResult | None = None
    why: str = ""


@dataclass(frozen=True)
class DealsPlan:
    """``deals_plan``'s answer: the deals it drew from (``source``, of the pair's kin ``among``
    when not its own), their s.d. and the pair's stored margin (A's minus B's; None when the
    deals are another pair's), the fixed-length test's deals at that s.d., and a row a test."""

    bots: tuple[str, str]
    m0: float
    m1: float
    alpha: float
    beta: float
    source: StoredPair
    among: str
    sd: float
    stored_margin: float | None
    fixed: int
    runs: int
    cap: int
    rows: tuple[PlanRow, ...]
    edited: Mapping[str, int] = field(default_factory=dict)  # bot file -> deals played by another version of it
    own: str = NONE_OF_THE_PAIR  # with ``among``: why not the pair's own deals (``own_pair_note``)

    def describe_source(self) -> str:
        p = self.source
        names = [n for n, _ in p.evaluations]
        shown = ", ".join(names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
        if self.among:
            return (f"the {p.deals} stored deals of {' and '.join(p.pair)} ({shown}), the widest among the stored "
                    f"evaluations {self.among} ({self.own}): s.d. {self.sd:.4g}")
        return (f"the {p.deals} stored deals of this pair ({shown}{edited_text(self.edited)}): s.d. {self.sd:.4g}, "
                f"margin {self.stored_margin:+.4g}")


def deals_plan(store: Store, game: str, bots: tuple[str, str], options: Mapping[str, Any], preset: str | None,
               m0: float, m1: float, alpha: float = 0.05, beta: float = 0.05, *,
               bounds: tuple[float, float] | None = None, sd_bound: float | str | None = "auto",
               min_deals: int | None = None, model: str = "glr", cap: int = 1000, runs: int = PLAN_RUNS,
               seed: int = 0, exclude: str | None = None, history: int = AUTO_HISTORY) -> DealsPlan:
    """Each test ``arbiter evaluate GAME A B --sprt M0,M1`` can run (betting within ``bounds``;
    variance at ``sd_bound``, "auto" as ``--sd-bound auto`` would read it; normal), run ``runs``
    times (each at most ``cap`` deals) on deals drawn from those stored of ``bots`` or their kin
    (module docstring). ConfigError when the store holds no ``history`` deals of one pair at
    ``game`` with these ``options``; ValueError for a bad hypothesis or bound, as the tests name it."""
    if runs < 1 or cap < 1:
        raise ValueError(f"plan: runs and cap must be at least 1, got {runs} and {cap}")
    fixed_test = Sprt(m0, m1, alpha, beta)  # M0 < M1 and the error rates checked, named as the tests name them
    pairs = stored_pairs(store, game, options, preset, exclude)
    among, found = closest_pairs(pairs, bots, game, history)
    if not found:
        raise ConfigError(no_pair_deals(store, game, history, "plan", "draw deals from", pairs))
    source = found[0]
    sd = source.sd or 0.0
    margins = source.margins(bots)
    stored = None if among else sum(margins) / len(margins)
    edited = source.edited_deals(bot_contents(bots)) if not among else {}
    # the default test where these are not the pair's own deals by today's files (``OwnDealsOrBetting``)
    switch = SWITCH_AFTER if among or edited else None
    rows = plan_rows(source.centred(), m0, m1, alpha, beta, sd=sd, bounds=bounds, sd_bound=sd_bound,
                     min_deals=min_deals, model=model, cap=cap, runs=runs, seed=seed, stored=stored, switch=switch)
    fixed = fixed_test.fixed_deals(sd)
    own = own_pair_note(pairs, bots, history) if among else NONE_OF_THE_PAIR
    return DealsPlan(bots, m0, m1, alpha, beta, source, among, sd, stored, fixed, runs, cap, rows, edited, own)


def plan_rows(pool: Sequence[float], m0: float, m1: float, alpha: float = 0.05, beta: float = 0.05, *,
              sd: float | None = None, bounds: tuple[float, float] | None = None,
              sd_bound: float | str | None = "auto", min_deals: int | None = None, model: str = "glr",
              cap: int = 1000, runs: int = PLAN_RUNS, seed: int | str = 0,
              stored: float | None = None, switch: int | None = None) -> tuple[PlanRow, ...]:
    """``deals_plan``'s rows on deal margins ``pool`` (drawn with replacement, moved to M0, M1 and
    ``stored`` if given), ``sd`` their s.d. (default: ``pool``'s; "auto" resolves the variance test
    at it as ``--sd-bound auto`` would). ``switch``: also the betting test until that many deals,
    then the variance-bounded test on their s.d. with the switch's room (``BettingThenVariance``,
    the default where the deals are not the pair's own by today's files)."""
    sd = (mean_se(pool).sd or 0.0) if sd is None else sd
    text = f"{m0!r},{m1!r}"  # exact: the tests parse M0,M1 back
    kw = {"min_deals": min_deals, "model": model}
    tests: list[tuple[str, str, Any, str]] = []
    if bounds is None:
        tests.append(("betting", "--sequential betting", None, "needs the margin's bounds: --bounds LO,HI"))
    else:
        betting = sequential_test("betting", text, alpha, beta, bounds=bounds, **kw)
        tests.append(("betting", f"bounds {bounds[0]:g}..{bounds[1]:g}", betting, ""))
        if switch:  # the default where the store holds too few of the pair's own deals
            tests.append(("switch", f"betting until {switch} deals, then the variance-bounded test on their s.d.",
                          BettingThenVariance(betting, switch), ""))
    if sd_bound is not None:
        test = sequential_test("variance", text, alpha, beta, sd_bound=sd_bound, **kw)
        if isinstance(test, AutoVarianceTest):
            test = test.resolve(sd, test.room_for(len(pool)))  # as auto reads the room: by the deals
            tests.append(("auto", f"--sd-bound auto, S = {test.sd_bound:g}", test, ""))
        else:
            # a bound below the deals' own s.d.: its runs here are not what its error rates were designed for
            below = (f"below the s.d. of the deals drawn from, {sd:.4g}: more often wrong than alpha and beta say, "
                     "as its columns show; a run stops undecided once its deals contradict the bound"
                     if test.sd_bound < sd else "")
            tests.append(("variance", f"--sd-bound {test.sd_bound:g}", test, below))
    tests.append(("normal", "--sequential normal", sequential_test("normal", text, alpha, beta, **kw), ""))
    out = []
    for name, flags, test, why in tests:
        if test is None:
            out.append(PlanRow(name, flags, None, why=why))
            continue

        def run(at: float, where: str) -> SimResult:
            return simulate(test, shifted(pool, at), at, runs, cap, random.Random(f"plan:{seed}:{flags}:{where}"))

        out.append(PlanRow(name, flags, test, run(m0, "m0"), run(m1, "m1"),
                           None if stored is None else run(stored, "stored"), why))
    return tuple(out)
