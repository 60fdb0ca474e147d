"""Interval rules for the standings' ratings, measured against the kept one (issue 39, docs/strength.md,
"Lopsided pairs"): a prototype kept so that the next attempt starts from the numbers, not a second
way to rate (the standings use ``arbiter.rating.ratings._bradley_terry`` alone).

    .venv/bin/python scripts/interval_rules.py kept 300     # today's rule on the grid (about 80 s)
    .venv/bin/python scripts/interval_rules.py lr 300       # the profile-likelihood rule below

``lr``: each rating's interval is the set of values whose penalized profile likelihood ratio is
within t(df)² x the design effect (the kept, floored clustered variance over the model's own:
Rao and Scott's scaling), lopsided where the binomial is. Measured (300 runs a cell): head to head 2
nats apart on 12 deals 0.917 / 0.947 / 0.930 with shared luck 0 / 0.7 / 0.9 (kept rule 0.903 / 0.913 /
0.897), but on 20 deals 0.933-0.940 (kept 0.967-0.970); 4 deals 0.950-0.993 (kept 0.970-1.000); the
other cells as the kept rule. Not kept: no cell clearly better without another worse.
"""

from __future__ import annotations

import math
import random
import sys

from arbiter.rating import ratings as R
from arbiter.tools.calibration import strength_calibration
from arbiter.tools.statreport import PER_BOT_SCHEDULES

ORIG = R._bradley_terry


def _fit(n, totals, prec, theta, a=None, v=None, iters=100):
    theta = list(theta)
    for _ in range(iters):
        grad = [-prec * t for t in theta]
        hess = [[(prec if i == j else 0.0) for j in range(n)] for i in range(n)]
        for design, score, count in totals:
            p = 1 / (1 + math.exp(-sum(c * theta[i] for i, c in design)))
            w = count * p * (1 - p)
            for i, ci in design:
                grad[i] += ci * (score - count * p)
                for j, cj in design:
                    hess[i][j] += w * ci * cj
        if a is None:
            step = R.solve(hess, grad)
        else:  # Newton on the Lagrangian: [H a; a' 0][d; mu] = [g; v - a'theta]
            m = [row[:] + [a[i]] for i, row in enumerate(hess)] + [list(a) + [0.0]]
            rhs = grad + [v - sum(x * y for x, y in zip(a, theta))]
            sol = R.solve(m, rhs)
            step = sol[:n]
        theta = [t + d for t, d in zip(theta, step)]
        if max((abs(d) for d in step), default=0.0) < 1e-10:
            break
    return theta

def _parts(n, data, totals, prec, theta, clustered_factor):
    grad = [-prec * t for t in theta]
    hess = [[(prec if i == j else 0.0) for j in range(n)] for i in range(n)]
    for design, score, count in totals:
        p = 1 / (1 + math.exp(-sum(c * theta[i] for i, c in design)))
        w = count * p * (1 - p)
        for i, ci in design:
            grad[i] += ci * (score - count * p)
            for j, cj in design:
                hess[i][j] += w * ci * cj
    if clustered_factor is None:
        meat = [[hess[i][j] - (prec if i == j else 0.0) for j in range(n)] for i in range(n)]
    else:
        residual = {}
        for design, per in data.items():
            p = 1 / (1 + math.exp(-sum(c * theta[i] for i, c in design)))
            for cluster, (score, count) in per.items():
                g = residual.setdefault(cluster, [0.0] * n)
                for i, c in design:
                    g[i] += c * (score - count * p)
        meat = [[clustered_factor * sum(g[x] * g[y] for g in residual.values()) for y in range(n)] for x in range(n)]
    return grad, hess, meat


def _parts(n, data, totals, prec, theta):
    """The penalized log-likelihood's gradient, its negative Hessian, and the model's own meat J, at ``theta``."""
    grad = [-prec * t for t in theta]
    hess = [[(prec if i == j else 0.0) for j in range(n)] for i in range(n)]
    for design, score, count in totals:
        p = 1 / (1 + math.exp(-sum(c * theta[i] for i, c in design)))
        w = count * p * (1 - p)
        for i, ci in design:
            grad[i] += ci * (score - count * p)
            for j, cj in design:
                hess[i][j] += w * ci * cj
    return grad, hess, [[hess[i][j] - (prec if i == j else 0.0) for j in range(n)] for i in range(n)]


def entries(names, data):
    n = len(names)
    # bots always with identical coefficients form one entry
    sig = {i: [] for i in range(n)}
    for design in data:
        d = dict(design)
        for i in range(n):
            sig[i].append(round(d.get(i, 0.0), 9))
    groups = {}
    for i in range(n):
        groups.setdefault(tuple(sig[i]), []).append(i)
    return {i: g for g in groups.values() for i in g}

def loglik(totals, prec, theta):
    out = -prec / 2 * sum(t * t for t in theta)
    for design, score, count in totals:
        eta = sum(c * theta[i] for i, c in design)
        out += score * eta - count * (math.log1p(math.exp(-abs(eta))) + max(eta, 0.0))
    return out

def patched(names, parsed, clustered=False):
    ratings, cov, df = ORIG(names, parsed, clustered)
    n = len(names)
    if n < 2:
        return ratings, cov, df
    data = R._comparisons(names, parsed, clustered)
    totals = [(d, sum(v[0] for v in per.values()), sum(v[1] for v in per.values())) for d, per in data.items()]
    prec = 1 / R.BT_PRIOR_SIGMA ** 2
    theta = _fit(n, totals, prec, [0.0] * n)
    _, hess, J = _parts(n, data, totals, prec, theta)
    inv = R._inverse(hess)
    covm = R._centred_cov(inv, J)
    l0 = loglik(totals, prec, theta)
    q = R.interval_quantile(df)
    ent = entries(names, data)
    done = {}
    for i, b in enumerate(names):
        key = tuple(ent[i])
        if key not in done:
            a = [(1 / len(key) if k in key else 0.0) - 1 / n for k in range(n)]
            deff = cov[i][i] / covm[i][i] if covm[i][i] > 0 else 1.0
            vhat = sum(x * y for x, y in zip(a, theta))
            crit = q * q * deff
            def g(v, warm):
                th = _fit(n, totals, prec, warm, a, v)
                return 2 * (l0 - loglik(totals, prec, th)) - crit, th
            ends = []
            for direction in (-1, 1):
                lo_v, th_lo, step = vhat, theta, 0.25
                while True:
                    hi_v = vhat + direction * step
                    f, th = g(hi_v, th_lo)
                    if f > 0 or step > 30:
                        break
                    lo_v, th_lo, step = hi_v, th, step * 2
                for _ in range(40):
                    mid = (lo_v + hi_v) / 2
                    f, th = g(mid, th_lo)
                    if f > 0:
                        hi_v = mid
                    else:
                        lo_v, th_lo = mid, th
                    if abs(hi_v - lo_v) < 1e-4:
                        break
                ends.append((lo_v + hi_v) / 2)
            done[key] = tuple(ends)
        lo, hi = done[key]
        r = ratings[b]
        r.low, r.high = 1500 + R.ELO_PER_NAT * lo, 1500 + R.ELO_PER_NAT * hi
    return ratings, cov, df


CELLS = [("h2h", d, deals, shared) for d in (0.3, 1.0, 1.5) for deals in (4, 8, 12, 20) for shared in (0.0, 0.7, 0.9)] + [
    (name, None, deals, shared) for name, deals, shared in (
        ("spot 4 seats, 4 bots", 4, 0.9), ("spot 4 seats, 4 bots", 8, 0.7), ("spot 4 seats, 4 bots", 20, 0.9),
        ("spades, 3 partnerships", 8, 0.9), ("spades, 3 partnerships", 8, 0.7), ("spades, 3 partnerships", 20, 0.9),
        ("spades, 4 partnerships", 8, 0.9))]


def main(rule: str, runs: int) -> None:
    if rule == "lr":
        R._bradley_terry = patched
    for name, d, deals, shared in CELLS:
        if d is not None:
            game, options, strength, teams = "spades", {"deals": 1}, {"a": d, "b": -d}, ()
            name = f"head to head, {2 * d:g} nats apart"
        else:
            game, options, strength, teams = PER_BOT_SCHEDULES[name]
        c = strength_calibration(game, options, strength, deals, runs, random.Random(f"g:{d if d is not None else name}:{deals}:{shared}"),
                                 teams, shared=shared)
        each = c.bot_coverage.values()
        print(f"{rule}  {name}, {deals} deals, shared {shared:g}: {min(each):.3f}..{max(each):.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "kept", int(sys.argv[2]) if len(sys.argv) > 2 else 300)
