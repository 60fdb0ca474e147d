"""Error rates and lengths of the sequential tests on deal margins chosen to be hard.

    python -m arbiter.tools.sequential                 # every distribution, both tests, 2,000 runs a side
    python -m arbiter.tools.sequential --runs 500 --seed 3
    python -m arbiter.tools.sequential --recorded      # on recorded real deals (arbiter/tools/data)
    python -m arbiter.tools.sequential --variance --room 1.2   # the variance-bounded test, s.d. bound 1.2x the true
    python -m arbiter.tools.sequential --variance --history 100  # --sd-bound auto: 1.2x the s.d. of 100 earlier deals
    python -m arbiter.tools.sequential --oracle        # the fewest deals a test within given bounds can need
    python -m arbiter.tools.sequential --plan --runs 300  # evaluate --plan from 100 stored deals against the truth

A distribution here is a pool of deal margins with mean exactly 0 inside -180..180 (so that
moved by M0 = 0 or M1 = 10 it stays inside the bounds -200..200 the betting test is given:
no deal is clipped, and the true mean is exactly the hypothesis). ``draw(pool, mu)`` is a
deal from the pool moved to mean ``mu`` (``arbiter.rating.sprt.shifted``). α is P(H1
accepted) at M0, β is P(H0 accepted) at M1; "fixed" is the fixed-length normal test's
deals for the same α and β at the pool's s.d. Far apart: the pool moved to +150 with M0,M1
= 0,10 (a bot far better), where the test should stop long before the fixed test.

The seeded, smaller versions are tests/arbiter/rating/test_betting.py (marker ``slow``);
``python -m arbiter.tools.bench -s statistics`` runs ``bench_round`` with fresh seeds.
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable, Iterator, Sequence

from arbiter.rating.betting import BettingTest
from arbiter.rating.sprt import Sprt, shifted, simulate
from arbiter.rating.stats import mean_se

M0, M1, LO, HI = 0.0, 10.0, -200.0, 200.0
POOL = 20_000
SPREAD = 180.0  # a pool lies in -SPREAD..SPREAD with mean 0


def _centred(values: Sequence[float]) -> list[float]:
    """``values`` scaled into -SPREAD..SPREAD with mean exactly 0 (clip and re-centre until it holds)."""
    xs = list(values)
    for _ in range(50):
        m = sum(xs) / len(xs)
        xs = [x - m for x in xs]
        if all(-SPREAD <= x <= SPREAD for x in xs):
            return xs
        xs = [min(max(x, -SPREAD), SPREAD) for x in xs]
    raise AssertionError("could not centre the pool")


def _scaled(values: Sequence[float], sd: float) -> list[float]:
    s = mean_se(values).sd or 1.0
    return [x * sd / s for x in values]


def pools(seed: int = 0) -> dict[str, list[float]]:
    """The hard distributions, by name, each a pool of ``POOL`` margins (seeded)."""
    rng = random.Random(f"pools:{seed}")
    lognormal = [math.exp(1.5 * rng.gauss(0, 1)) for _ in range(POOL)]  # skew about 30 before clipping
    t3 = []
    for _ in range(POOL):
        z, chi = rng.gauss(0, 1), sum(rng.gauss(0, 1) ** 2 for _ in range(3))
        t3.append(z / math.sqrt(chi / 3))  # Student t, 3 degrees of freedom
    t2 = []
    for _ in range(POOL):
        z, chi = rng.gauss(0, 1), sum(rng.gauss(0, 1) ** 2 for _ in range(2))
        t2.append(z / math.sqrt(chi / 2))
    # Spades-like: a made contract +40..+90, a set -60..-110, a made nil +100, a failed nil -100
    spades = []
    for _ in range(POOL):
        u = rng.random()
        base = 10 * rng.randint(4, 9)
        spades.append(base if u < 0.72 else -base - 20 if u < 0.84 else 100.0 + base / 2 if u < 0.93 else -100.0 - base / 2)
    return {
        "normal": _centred(_scaled([rng.gauss(0, 1) for _ in range(POOL)], 40)),
        "lognormal-right": _centred(_scaled(lognormal, 40)),
        "lognormal-left": _centred([-x for x in _scaled(lognormal, 40)]),
        "swings": [10.0 if i % 20 else -190.0 for i in range(POOL)],
        "spades-like": _centred([float(x) for x in spades]),
        "t3": _centred(_scaled(t3, 25)),
        "t2": _centred(_scaled(t2, 15)),
    }


#: What each pool is (``pools``' keys).
LABELS = {
    "normal": "normal, s.d. 40",
    "lognormal-right": "lognormal (σ 1.5) skewed right, s.d. 40 before clipping",
    "lognormal-left": "the same skewed left",
    "swings": "one-sided swings: 95% +10, 5% -190",
    "spades-like": "Spades-like mix: contracts +40..90, sets, made and failed nils",
    "t3": "Student t, 3 d.f., x25, clipped",
    "t2": "Student t, 2 d.f., x15, clipped",
}


def tests(alpha: float = 0.05, beta: float = 0.05) -> dict[str, Any]:
    return {"betting": BettingTest(M0, M1, LO, HI, alpha, beta), "normal": Sprt(M0, M1, alpha, beta)}


def measure(test: Any, pool: Sequence[float], runs: int, seed: str, max_deals: int = 20_000,
            far: float | None = None) -> dict[str, float]:
    """α, β and mean deals at M0 and M1 (and at ``far``, if given) on ``pool``."""
    at0 = simulate(test, shifted(pool, M0), M0, runs, max_deals, random.Random(f"{seed}:0"))
    at1 = simulate(test, shifted(pool, M1), M1, runs, max_deals, random.Random(f"{seed}:1"))
    fixed = test.fixed_deals(mean_se(pool).sd)
    out = {"alpha": at0.p_h1, "beta": at1.p_h0, "deals_m0": at0.mean_deals, "deals_m1": at1.mean_deals,
           "undecided": (at0.undecided + at1.undecided) / (2 * runs), "fixed": fixed,
           "length": (at0.mean_deals + at1.mean_deals) / 2 / fixed}
    if far is not None:
        f = simulate(test, shifted(pool, far), far, runs, max_deals, random.Random(f"{seed}:far"))
        out.update(far_h1=f.p_h1, far_deals=f.mean_deals)
    return out


def rows(runs: int = 2000, seed: int = 0, far: float = 150.0) -> Iterator[dict[str, Any]]:
    for name, pool in pools(seed).items():
        for kind, test in tests().items():
            yield {"distribution": name, "test": kind, **measure(test, pool, runs, f"seq:{seed}:{name}:{kind}", far=far)}


def recorded_rows(runs: int = 2000, seed: int = 0) -> Iterator[dict[str, Any]]:
    """The tests on recorded real deals (arbiter/tools/data, ``relabelled`` to the true margin):
    the margin with the bounds the rules give, the normal SPRT, and the pair score."""
    import json
    from importlib import resources

    from arbiter.rating.betting import known_bounds
    from arbiter.rating.sprt import relabelled
    from arbiter.tournament.evaluate import EvalResult

    data = resources.files("arbiter.tools") / "data"
    for name, game, options, (m0, m1) in (("spades_heuristic_greedy", "spades", {"deals": 1}, (0.0, 10.0)),
                                          ("spot_search_heuristic", "spot", {"hands": 1}, (0.0, 5.0))):
        rec = EvalResult.from_json(json.loads((data / f"{name}.json").read_text()))
        xs = rec.deal_margins()
        score = BettingTest.pair_score(0.5, 0.55)
        pairs = [score.deal_value([a.margin, b.margin]) - 0.5 for a, b in zip(rec.matches[::2], rec.matches[1::2])]
        cases: list[tuple[str, Any, list[float], float, float]] = [("normal", Sprt(m0, m1), xs, m0, m1)]
        bounds = known_bounds(game, options)
        if bounds is not None:
            cases.append((f"betting, bounds {bounds[0]:g}..{bounds[1]:g}", BettingTest(m0, m1, *bounds), xs, m0, m1))
        cases.append(("score 0.5,0.55", BettingTest(0.0, 0.05, -0.5, 0.5), pairs, 0.0, 0.05))
        for label, test, pool, a, b in cases:
            at0 = simulate(test, relabelled(pool, a), a, runs, 20_000, random.Random(f"rec:{seed}:{name}:{label}:0"))
            at1 = simulate(test, relabelled(pool, b), b, runs, 20_000, random.Random(f"rec:{seed}:{name}:{label}:1"))
            fixed = test.fixed_deals(mean_se(pool).sd)
            yield {"deals": name, "test": label, "alpha": at0.p_h1, "beta": at1.p_h0, "deals_m0": at0.mean_deals,
                   "deals_m1": at1.mean_deals, "fixed": fixed, "length": (at0.mean_deals + at1.mean_deals) / 2 / fixed}


#: The recorded deals the variance-bounded test is measured on, with their M0,M1 (game units).
VARIANCE_RECORDED = (("spades_heuristic_greedy", (0.0, 10.0)), ("spades_heuristic_greedy", (0.0, 20.0)),
                     ("spades_heuristic_greedy", (0.0, 50.0)), ("spot_search_heuristic", (0.0, 5.0)),
                     ("spot_heuristic_random", (0.0, 5.0)))


def _recorded_margins(name: str) -> list[float]:
    import json
    from importlib import resources

    from arbiter.tournament.evaluate import EvalResult

    data = resources.files("arbiter.tools") / "data"
    return EvalResult.from_json(json.loads((data / f"{name}.json").read_text())).deal_margins()


class FromHistory:
    """``--sd-bound auto`` as a test to simulate: each run first draws ``history`` deals of its
    own from ``pool`` (an earlier evaluation of the same kind of deals) and tests at the bound
    ``auto`` reads from them (``AutoVarianceTest.resolve``: its room x their s.d.)."""

    def __init__(self, auto: Any, pool: Sequence[float], history: int, rng: random.Random):
        self.auto, self.pool, self.history, self.rng = auto, list(pool), history, rng
        self.bounds: list[float] = []

    def start(self) -> Any:
        sd = mean_se([self.rng.choice(self.pool) for _ in range(self.history)]).sd or 1e-9
        test = self.auto.resolve(sd, self.auto.room_for(self.history))
        self.bounds.append(test.sd_bound)
        return test.start()

    def fixed_deals(self, sd: float) -> int:
        return self.auto.resolve(1.0).fixed_deals(sd)


def variance_rows(runs: int = 2000, seed: int = 0, room: float | None = None,
                  history: int | None = None, form: str | None = None) -> Iterator[dict[str, Any]]:
    """The variance-bounded test (``arbiter.rating.catoni``) with the s.d. bound ``room`` x each
    distribution's true s.d. (default 1.0): every hard pool at M 0,10 (and far, at 150), then the
    recorded deals ``shifted`` to M0 and M1 (real shapes; Spades at 0,20 and 0,50 too). "fixed":
    the fixed-length normal test at the true s.d.; for the Spades rows at the s.d. of 38 the issue
    sized them with. With ``history``: ``--sd-bound auto`` instead, each run's bound ``room``
    (default ``auto_room(history)``, as ``auto`` reads it: 1.2 at 100) x the s.d. of ``history``
    deals of its own from the same pool (``FromHistory``); "S" is then the mean of the runs' bounds.
    ``form``: the gambler's wealth (``catoni.FORMS``; default today's, ``catoni.FORM``)."""
    from arbiter.rating.catoni import FORM, AutoVarianceTest, VarianceTest, auto_room

    room = room if room is not None else auto_room(history) if history else 1.0
    form = form or FORM

    def test_for(m0: float, m1: float, pool: Sequence[float], sd: float, tag: str) -> Any:
        if history:
            return FromHistory(AutoVarianceTest(m0, m1, room=room, form=form), pool, history,
                               random.Random(f"{tag}:history"))
        return VarianceTest(m0, m1, room * sd, form=form)

    def bound(t: Any, sd: float) -> float:
        return sum(t.bounds) / len(t.bounds) if history else room * sd

    for name, pool in pools(seed).items():
        sd = mean_se(pool).sd
        tag = f"var:{seed}:{name}:{room}" + (f":{history}" if history else "")
        t = test_for(M0, M1, pool, sd, tag)
        m = measure(t, pool, runs, tag, far=150.0)
        yield {"deals": name, "M": f"{M0:g},{M1:g}", "S": bound(t, sd), **m}
    for name, (m0, m1) in VARIANCE_RECORDED:
        xs = _recorded_margins(name)
        sd = mean_se(xs).sd
        t = test_for(m0, m1, xs, sd, f"var:{seed}:{name}:{m1}:{history}")
        at0 = simulate(t, shifted(xs, m0), m0, runs, 20_000, random.Random(f"var:{seed}:{name}:{m1}:0"))
        at1 = simulate(t, shifted(xs, m1), m1, runs, 20_000, random.Random(f"var:{seed}:{name}:{m1}:1"))
        fixed = t.fixed_deals(38.0 if name.startswith("spades") else sd)
        yield {"deals": f"recorded {name}", "M": f"{m0:g},{m1:g}", "S": bound(t, sd), "alpha": at0.p_h1, "beta": at1.p_h0,
               "deals_m0": at0.mean_deals, "deals_m1": at1.mean_deals, "fixed": fixed,
               "length": (at0.mean_deals + at1.mean_deals) / 2 / fixed,
               "undecided": (at0.undecided + at1.undecided) / (2 * runs), "far_deals": float("nan")}


#: The recorded sets' games and options (their bounds for the betting test: ``known_bounds``).
RECORDED_GAMES = {"spades_heuristic_greedy": ("spades", {"deals": 1}), "spot_search_heuristic": ("spot", {"hands": 1}),
                  "spot_heuristic_random": ("spot", {"hands": 1})}


def switch_rows(runs: int = 300, seed: int = 0, after: int | None = None) -> Iterator[dict[str, Any]]:
    """The default test of ``arbiter evaluate --sprt --db`` where the store holds too few of the
    pair's own deals (``catoni.BettingThenVariance``): the betting test until ``after`` deals
    (default ``SWITCH_AFTER``), then the variance-bounded test on their s.d., the wealth carried
    over. The pools within ``LO..HI`` at M 0,10; the recorded deals ``shifted`` to M0 and M1 within
    the bounds their game's rules give; "fixed" as ``variance_rows``'."""
    from arbiter.rating.betting import known_bounds
    from arbiter.rating.catoni import SWITCH_AFTER, BettingThenVariance

    after = after or SWITCH_AFTER
    for name, pool in pools(seed).items():
        t = BettingThenVariance(BettingTest(M0, M1, LO, HI), after)
        tag = f"switch:{seed}:{name}:{after}"
        yield {"deals": name, "M": f"{M0:g},{M1:g}", "bounds": f"{LO:g}..{HI:g}", **measure(t, pool, runs, tag)}
    for name, (m0, m1) in VARIANCE_RECORDED:
        xs = _recorded_margins(name)
        lo, hi = known_bounds(*RECORDED_GAMES[name]) or (min(xs) - SPREAD, max(xs) + SPREAD)
        t = BettingThenVariance(BettingTest(m0, m1, lo, hi), after)
        at0 = simulate(t, shifted(xs, m0), m0, runs, 20_000, random.Random(f"switch:{seed}:{name}:{m1}:0"))
        at1 = simulate(t, shifted(xs, m1), m1, runs, 20_000, random.Random(f"switch:{seed}:{name}:{m1}:1"))
        fixed = t.fixed_deals(38.0 if name.startswith("spades") else mean_se(xs).sd)
        yield {"deals": f"recorded {name}", "M": f"{m0:g},{m1:g}", "bounds": f"{lo:g}..{hi:g}", "alpha": at0.p_h1,
               "beta": at1.p_h0, "deals_m0": at0.mean_deals, "deals_m1": at1.mean_deals, "fixed": fixed,
               "length": (at0.mean_deals + at1.mean_deals) / 2 / fixed,
               "undecided": (at0.undecided + at1.undecided) / (2 * runs)}


def oracle_rows(name: str = "spades_heuristic_greedy", gaps: Sequence[float] = (20.0, 50.0),
                halves: Sequence[float] = (130, 150, 200, 260, 400, 900)) -> Iterator[dict[str, Any]]:
    """The fewest deals a betting test within bounds ±B could need on the recorded deals, even
    knowing their distribution exactly: log(1/α) over the best growth per deal of a gambler
    whose bet cannot be ruined by a deal at the bound (the Kelly bet, found on a grid of 200),
    at M1 (against H0) and at M0 (against H1); next to it ``BettingTest.least_deals``, the
    bound for any test valid on every distribution within ±B."""
    xs = _recorded_margins(name)
    mean = mean_se(xs).mean
    for half in halves:
        row: dict[str, Any] = {"bounds": f"±{half:g}"}
        for gap in gaps:
            for side, gains, worst in (("m1", [x - mean + gap for x in xs], half),
                                       ("m0", [gap - (x - mean) for x in xs], half - gap)):
                best = max(sum(math.log1p(lam * g) for g in gains) / len(gains)
                           for lam in (i / 200 / worst for i in range(1, 200)))
                row[f"kelly {gap:g} at {side}"] = math.log(20) / best
            row[f"any test {gap:g}"] = sum(BettingTest(0.0, gap, -half, half).least_deals()) / 2
        yield row


def _round(prefix: str, rows_: Iterator[dict[str, Any]]) -> dict[str, float]:
    """``variance_rows`` as bench figures: ``PREFIX.CASE.{alpha,beta,length}`` (a recorded case
    keyed by its M1 too)."""
    out = {}
    for r in rows_:
        key = r["deals"].replace("recorded ", "") + ("" if r["deals"] in LABELS else f".{r['M'].split(',')[1]}")
        out[f"{prefix}.{key}.alpha"] = r["alpha"]
        out[f"{prefix}.{key}.beta"] = r["beta"]
        out[f"{prefix}.{key}.length"] = r["length"]
    return out


def variance_round(seed: int, runs: int = 1000) -> dict[str, float]:
    """The variance-bounded test's figures for the bench (S = the true s.d.: its hardest case)."""
    return _round("variance", variance_rows(runs, seed))


#: ``--sd-bound auto``'s bench round: the deals of the earlier evaluation each run reads its bound from.
AUTO_BENCH_HISTORY = 100


def auto_round(seed: int, runs: int = 250, history: int = AUTO_BENCH_HISTORY) -> dict[str, float]:
    """``--sd-bound auto``'s figures for the bench: each run's bound 1.2x the s.d. of ``history``
    deals of its own from the same pool (an earlier evaluation of the same kind of deals)."""
    return _round("auto", variance_rows(runs, seed, history=history))


#: The default test on the close pair (issue 39's length target): M1 per case, M0 = 0.
DEFAULT_GAPS = (20.0, 50.0)


def default_round(seed: int, runs: int = 250) -> dict[str, float]:
    """The default sequential test of ``arbiter evaluate --sprt --db`` where the store holds too
    few of the pair's own deals (``catoni.BettingThenVariance``: betting within the bounds the rules
    derive, ±900 for one Spades hand, until 50 deals, then the variance-bounded test at 1.42x their s.d.)
    on the recorded close pair, ``shifted`` to M0 and M1: its mean deals over the fixed test's at
    the s.d. of 38 the issue sized it with, and the floor every test valid within those bounds has
    (``BettingTest.least_deals``), likewise."""
    from arbiter.rating.betting import known_bounds
    from arbiter.rating.catoni import BettingThenVariance

    xs = _recorded_margins("spades_heuristic_greedy")
    lo, hi = known_bounds("spades", {"deals": 1}) or (-900.0, 900.0)
    out = {}
    for m1 in DEFAULT_GAPS:
        betting = BettingTest(0.0, m1, lo, hi)
        t = BettingThenVariance(betting)
        at0 = simulate(t, shifted(xs, 0.0), 0.0, runs, 20_000, random.Random(f"default:{seed}:{m1}:0"))
        at1 = simulate(t, shifted(xs, m1), m1, runs, 20_000, random.Random(f"default:{seed}:{m1}:1"))
        fixed = t.fixed_deals(38.0)
        key = f"default.spades_heuristic_greedy.{m1:g}"
        out[f"{key}.alpha"] = at0.p_h1
        out[f"{key}.beta"] = at1.p_h0
        out[f"{key}.length"] = (at0.mean_deals + at1.mean_deals) / 2 / fixed
        out[f"{key}.floor"] = sum(betting.least_deals()) / 2 / fixed
    return out


def bench_round(seed: int, runs: int = 1000) -> dict[str, float]:
    """The betting test's figures for ``python -m arbiter.tools.bench -s statistics``."""
    out = default_round(seed, max(2, runs // 4))
    for name, pool in pools(seed).items():
        m = measure(tests()["betting"], pool, runs, f"bench:{seed}:{name}", far=150.0)
        key = name
        out[f"betting.{key}.alpha"] = m["alpha"]
        out[f"betting.{key}.beta"] = m["beta"]
        out[f"betting.{key}.length"] = m["length"]
        out[f"betting.{key}.far"] = m["far_deals"] / m["fixed"]
    return out


#: ``--plan``'s accuracy is measured on the recorded deals at these M0,M1 (game units), each
#: case's bounds the rules' (Spades, one hand) or none (Spot: no betting row).
PLAN_CASES = (("spades_heuristic_greedy", (0.0, 20.0)), ("spades_heuristic_greedy", (0.0, 50.0)),
              ("spot_heuristic_random", (0.0, 5.0)), ("spot_search_heuristic", (0.0, 5.0)))


def plan_accuracy_rows(reps: int = 20, runs: int = 300, seed: int = 0, history: int = AUTO_BENCH_HISTORY,
              cases: Sequence[tuple[str, tuple[float, float]]] = PLAN_CASES) -> Iterator[dict[str, Any]]:
    """How near ``arbiter evaluate --plan`` comes to the truth when the store holds ``history``
    deals: ``reps`` times, ``history`` deals drawn from a recorded set (the pair's stored deals),
    the plan's mean deals at M0 and M1 (``arbiter.tournament.plan.plan_rows``, ``runs`` runs)
    over the same test's on the whole recorded set (``runs`` runs): per case and test, the
    ratios' median, 10th and 90th percentiles, and the worst (the farthest from 1 either way)."""
    from arbiter.rating.betting import known_bounds
    from arbiter.tournament.plan import plan_rows

    for name, (m0, m1) in cases:
        pop = _recorded_margins(name)
        bounds = known_bounds("spades", {"deals": 1}) if name.startswith("spades") else None
        rng = random.Random(f"plan:{seed}:{name}:{m1:g}")
        ratios: dict[str, list[float]] = {}
        for rep in range(reps):
            hist = [rng.choice(pop) for _ in range(history)]
            for row in plan_rows(hist, m0, m1, bounds=bounds, runs=runs, seed=f"{seed}:{rep}"):
                if row.test is None:
                    continue
                for at, guess in ((m0, row.at_m0), (m1, row.at_m1)):
                    true = simulate(row.test, shifted(pop, at), at, runs, 1000,
                                    random.Random(f"plan-true:{seed}:{name}:{rep}:{row.name}:{at:g}"))
                    ratios.setdefault(row.name, []).append(guess.mean_deals / true.mean_deals)
        for test, rs in ratios.items():
            rs.sort()
            yield {"deals": name, "M": f"{m0:g},{m1:g}", "test": test, "median": rs[len(rs) // 2],
                   "p10": rs[len(rs) // 10], "p90": rs[(9 * len(rs)) // 10],
                   "worst": max(rs, key=lambda r: abs(math.log(r)))}


def plan_round(seed: int, runs: int = 250, reps: int = 20) -> dict[str, float]:
    """``plan_accuracy_rows`` as bench figures: ``plan.CASE.M1.TEST.{p10,p90}``."""
    out = {}
    for r in plan_accuracy_rows(reps, runs, seed):
        key = f"plan.{r['deals']}.{r['M'].split(',')[1]}.{r['test']}"
        out[f"{key}.p10"] = r["p10"]
        out[f"{key}.p90"] = r["p90"]
    return out


def _md(rows_: list[dict[str, Any]], cols: Sequence[str]) -> str:
    def f(v: Any) -> str:
        return f"{v:.3f}" if isinstance(v, float) and abs(v) < 10 else f"{v:.0f}" if isinstance(v, float) else str(v)

    return "\n".join(["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
                     + ["| " + " | ".join(f(r[c]) for c in cols) + " |" for r in rows_])


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> None:
    import argparse

    p = argparse.ArgumentParser(prog="python -m arbiter.tools.sequential", description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=2000, help="simulated tests per side (default 2000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--recorded", action="store_true", help="the recorded real deals instead of the hard pools")
    p.add_argument("--variance", action="store_true", help="the variance-bounded test (--sd-bound) on the pools and "
                                                           "the recorded deals")
    p.add_argument("--room", type=float, default=None, help="with --variance: the s.d. bound over the true s.d. "
                                                            "(default 1.0; with --history, over the history's: 1.2)")
    p.add_argument("--history", type=int, default=None, help="with --variance: --sd-bound auto, each run's bound read "
                                                             "from this many earlier deals of its own")
    p.add_argument("--form", choices=("catoni-log", "catoni"), default=None, help="with --variance: the gambler's wealth "
                   "per deal (default catoni-log, today's; catoni: Wang and Ramdas's, the tables measured before December 2026)")
    p.add_argument("--switch", type=int, nargs="?", const=0, default=None, metavar="AFTER",
                   help="the default test with a store holding too few of the pair's own deals: betting until AFTER "
                        "deals (default 50), then the variance-bounded test at 1 + 3/sqrt(AFTER) their s.d.")
    p.add_argument("--oracle", action="store_true", help="the fewest deals any bounded test could need on the "
                                                         "recorded Spades deals, bounds ±130..±900")
    p.add_argument("--plan", action="store_true", help="arbiter evaluate --plan read from 100 stored deals against "
                                                       "the truth: mean deals over the whole recorded set's, 20 "
                                                       "histories a case (--runs runs a side)")
    a = p.parse_args(argv)
    if a.plan:
        out(_md(list(plan_accuracy_rows(runs=a.runs, seed=a.seed)), ["deals", "M", "test", "median", "p10", "p90", "worst"]))
        return
    if a.switch is not None:
        out(_md(list(switch_rows(a.runs, a.seed, a.switch or None)), ["deals", "M", "bounds", "alpha", "beta", "deals_m0",
                                                                       "deals_m1", "fixed", "length", "undecided"]))
        return
    if a.oracle:
        rows_ = list(oracle_rows())
        out(_md(rows_, list(rows_[0])))
        return
    if a.variance:
        out(_md(list(variance_rows(a.runs, a.seed, a.room, a.history, a.form)), ["deals", "M", "S", "alpha", "beta", "deals_m0", "deals_m1",
                                                              "fixed", "length", "far_deals", "undecided"]))
        return
    if a.recorded:
        out(_md(list(recorded_rows(a.runs, a.seed)), ["deals", "test", "alpha", "beta", "deals_m0", "deals_m1", "fixed",
                                                      "length"]))
        return
    out(_md(list(rows(a.runs, a.seed)), ["distribution", "test", "alpha", "beta", "deals_m0", "deals_m1", "fixed",
                                         "length", "far_deals", "undecided"]))


if __name__ == "__main__":
    main()


# --------------------------------------------------------------------------------------
# The variance-bounded test on luck-adjusted margins (``arbiter evaluate --luck-adjusted
# --sd-bound S``; issue 39, item 3).


def luck_pool(deals: int = 1200, seed: int = 17, jobs: int = 2) -> tuple[list[float], list[dict[str, float]]]:
    """The deal margins of ``arbiter evaluate spades heuristic greedy --deals DEALS --seed SEED -o
    deals=1``, replayed in process, with each deal's ``luck_features``."""
    from arbiter.rating.luck import luck_features
    from arbiter.tools.variance import replay_evaluation

    played = replay_evaluation("spades", "heuristic", "greedy", deals, seed, {"deals": 1}, jobs=jobs)
    return [(d[0].margin + d[1].margin) / 2 for d in played], [luck_features(d) for d in played]


def luck_simulate(test: Any, margins: Sequence[float], features: Sequence[dict[str, float]], mu: float, runs: int,
                  rng: random.Random, adjusted: bool, max_deals: int = 20_000,
                  prior: Sequence[tuple[float, dict[str, float]]] = ()) -> tuple[float, float, float]:
    """``runs`` runs of ``test`` on deals drawn with replacement from the pool (margin moved so
    that the pool's mean is ``mu``, features as they were: the pool's feature means are then
    their exact expectation), each deal's value its margin corrected by ``OnlineCorrection``
    (``adjusted``; learnt first from ``prior``, deals of an earlier evaluation) or raw: P(H1), P(H0),
    mean deals."""
    from arbiter.rating.luck import ExpectedFeatures, OnlineCorrection

    expected = ExpectedFeatures.of(features)
    move = mu - sum(margins) / len(margins)
    h1 = h0 = total = 0
    for _ in range(runs):
        run, corr = test.start(), OnlineCorrection(expected, prior=prior)
        decision = None
        while run.n < max_deals:
            i = rng.randrange(len(margins))
            u = margins[i] + move
            run.add(corr.add(u, features[i]) if adjusted else u)
            decision = run.decision
            if decision or getattr(run, "contradicted", False):
                break
        total += run.n
        h1 += decision == "H1"
        h0 += decision == "H0"
    return h1 / runs, h0 / runs, total / runs


def luck_rows(runs: int = 300, seed: int = 0, pool: tuple[list[float], list[dict[str, float]]] | None = None,
              gaps: Sequence[float] = (10.0, 20.0, 50.0), rooms: Sequence[float] = (1.0, 1.2),
              stored: bool = False) -> Iterator[dict[str, Any]]:
    """The variance-bounded test at M0,M1 = 0,GAP on the close Spades pair's replayed deals, raw
    and luck-adjusted (``luck_simulate``), S = ROOM x the raw margins' s.d.; "fixed": the fixed-length
    test at s.d. 38 as the issue sized it. ``stored``: the first half of the pool is an earlier
    evaluation kept in a probes file (the corrected test learns from it first), the test draws from
    the second half, and the corrected test's S is ROOM x the s.d. of the second half corrected by
    slopes fitted on the first (what the earlier evaluation tells)."""
    from arbiter.rating.catoni import VarianceTest
    from arbiter.rating.luck import ExpectedFeatures, least_squares

    margins, features = pool if pool is not None else luck_pool()
    prior: list[tuple[float, dict[str, float]]] = []
    sd = sd_adjusted = mean_se(margins).sd or 1.0
    if stored:
        half = len(margins) // 2
        prior = list(zip(margins[:half], features[:half]))
        margins, features = margins[half:], features[half:]
        expected = ExpectedFeatures.of(features)
        names, means = expected.names, expected.means
        beta = least_squares([[f[k] - means[k] for k in names] for _, f in prior], [m for m, _ in prior], 1e-3)
        sd = mean_se(margins).sd or 1.0
        sd_adjusted = mean_se([m - sum(b * (f[k] - means[k]) for b, k in zip(beta[1:], names))
                               for m, f in zip(margins, features)]).sd or 1.0
    for gap in gaps:
        for room in rooms:
            fixed = VarianceTest(0.0, gap, room * sd).fixed_deals(38.0)
            for adjusted in (False, True):
                s = room * (sd_adjusted if adjusted else sd)
                t = VarianceTest(0.0, gap, s)
                tag = f"luck:{seed}:{gap}:{room}:{adjusted}:{stored}"
                use = prior if adjusted else ()
                a1, _, n0 = luck_simulate(t, margins, features, 0.0, runs, random.Random(f"{tag}:0"), adjusted, prior=use)
                _, b0, n1 = luck_simulate(t, margins, features, gap, runs, random.Random(f"{tag}:1"), adjusted, prior=use)
                yield {"M": f"0,{gap:g}", "S": s, "margin": "luck-adjusted" if adjusted else "raw", "alpha": a1,
                       "beta": b0, "deals_m0": n0, "deals_m1": n1, "fixed": fixed, "length": (n0 + n1) / 2 / fixed}
