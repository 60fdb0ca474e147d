"""Raw samples behind the analysis's verdicts, kept so that verdict rules can be compared
offline: the stability measurement (docs/analysis.md) without sampling again per rule.

``collect`` plays the bench's separation matches (``analysis_bench.GAMES``: one ``random``
seat among ``heuristic`` seats), and for the random seat's and the next seat's decisions
with a choice, under two sampling seeds, draws ``states`` states the way
``values.Valuer`` does (the same rng, the same batches of ``BATCH``: the first states are
exactly those the analysis draws) and keeps every candidate's value on each. One JSON
line per decision: the game, match seed, seat, decision number, who played it, the
candidates (chosen first), the reference policy's index, and per sampling seed the values
(``values[seed][i][k]``: candidate ``i`` on state ``k``).

``replay_rule`` then gives each kept decision's verdict under a rule (a function of the
samples so far), as if the analysis had run with it: ``python -m
arbiter.tools.analysis_samples collect spot --matches 1 --out spot.jsonl`` and
``python -m arbiter.tools.analysis_samples rules spot.jsonl``.

``noise`` says where a decision's loss noise comes from (the rollout's own randomness
within a state, or the states drawn), before any cure is tried: ``python -m
arbiter.tools.analysis_samples noise spot --matches 2 --states 64``.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import sys
from statistics import NormalDist
from typing import Any, Callable, Iterable

from arbiter.analysis.reask import decisions
from arbiter.analysis.values import (AGREE, ALPHA_MISTAKE, BATCH, DEFAULT_MAX_ACTIONS, EXTEND, FINE, MARGIN, MIN_SAMPLES,
                                     REFERENCE_SETTINGS, Looks, Valuer, _mean_se, extends, finishes, look, mistake_rare, splits, stake, stand_ins, t95)
from arbiter.hosting.forward import sample_states
from arbiter.tools.analysis_bench import GAMES, separation_matches
from cardarena.games import get_game

#: Methods 5 and 6's look: no bound on a difference not yet seen (``values.RARE``).
look5 = functools.partial(look, rare=0.0)


def draw(valuer: Valuer, view: Any, legal: Any, chosen: Any, key: str, states: int) -> tuple[list, int | None, list[list[float]]]:
    """The candidates ``valuer`` compares at a decision (``key``: as ``Valuer.decision``
    names it), the reference policy's index among them, and every candidate's value on
    each of the first ``states`` states it draws there (``per[i][k]``), drawn as it draws
    them: the same rng, the same batches."""
    rng = random.Random(f"{valuer.seed}:{key}")
    cands = valuer.candidates(view, legal, chosen, rng)
    ref = valuer._reference_action
    per: list[list[float]] = [[] for _ in cands]
    n = 0
    while n < states:
        for world in sample_states(valuer.game, view, min(BATCH, states - n), rng):
            ws = rng.getrandbits(32)
            for i, x in enumerate(valuer.reference.action_values(world, valuer.seat, cands, ws)):
                per[i].append(float(x))
        n += min(BATCH, states - n)
    return cands, (cands.index(ref) if ref in cands else None), per


def collect(game: str, matches: int, states: int, seed: int = 0, seeds: tuple[int, ...] = (1, 2),
            progress: Callable[[str], None] = lambda m: None, skip: frozenset = frozenset(),
            who: str = "") -> Iterable[dict[str, Any]]:
    """One row per valued decision of the separation matches (module docstring); ``skip``:
    the (match seed, seat, decision number) already kept; ``who``: only that bot's seat."""
    for m, (record, bots, rnd) in enumerate(separation_matches(game, matches, seed)):
        s, seats = record.seed, len(bots)
        for seat in (rnd, (rnd + 1) % seats):
            if who and bots[seat] != who:
                continue
            valuers = {k: Valuer(record.game, record.options, seat, f"seed-{record.seed}", record.seat_names, seed=k)
                       for k in seeds}
            for point in decisions(record, seat):
                if len(point.legal) < 2 or point.played is None or (s, seat, point.number) in skip:
                    continue
                chosen = valuers[seeds[0]].game.parse_action(point.played)
                row: dict[str, Any] = {"game": game, "match_seed": s, "seat": seat, "number": point.number,
                                       "who": bots[seat], "values": {}}
                for k, valuer in valuers.items():
                    cands, ref, per = draw(valuer, point.view, point.legal, chosen, f"seed-{record.seed}:{seat}:{point.number}",
                                           states)
                    row["cands"] = [str(c) for c in cands]
                    row["anchor"] = cands.index(chosen)
                    row["ref"] = ref
                    row["values"][str(k)] = per
                progress(f"{game} match {m + 1}/{matches} seat {seat} decision {point.number}")
                yield row


def noise(valuer: Valuer, view: Any, legal: Any, chosen: Any, key: str, states: int) -> dict[str, float]:
    """Where the noise of a decision's loss comes from: on ``states`` states drawn as
    ``draw`` draws them, every candidate valued twice, under two rollout seeds. For the
    candidate with the largest mean gain over the chosen one (``gain``), the variance of
    its paired difference on one state (``total``), the part the rollout's own randomness
    makes within a state (``within``: half the mean squared difference between the two
    seeds' differences; 0 when a state's rollouts are deterministic), the rest between
    states (``between``), and how the two candidates' values go together over the states
    (``corr``: common random numbers help as much as it is above 0)."""
    rng = random.Random(f"{valuer.seed}:{key}")
    cands = valuer.candidates(view, legal, chosen, rng)
    a = cands.index(chosen)
    one: list[list[float]] = []
    two: list[list[float]] = []
    for world in sample_states(valuer.game, view, states, rng):
        s1, s2 = rng.getrandbits(32), rng.getrandbits(32)
        one.append([float(x) for x in valuer.reference.action_values(world, valuer.seat, cands, s1)])
        two.append([float(x) for x in valuer.reference.action_values(world, valuer.seat, cands, s2)])
    n = len(one)
    gains = [sum(r[i] - r[a] for r in one) / n if i != a else -math.inf for i in range(len(cands))]
    i = max(range(len(cands)), key=gains.__getitem__)
    d1 = [r[i] - r[a] for r in one]
    d2 = [r[i] - r[a] for r in two]
    m = sum(d1) / n
    total = sum((x - m) ** 2 for x in d1) / (n - 1)
    within = sum((x - y) ** 2 for x, y in zip(d1, d2)) / (2 * n)
    xi, xa = [r[i] for r in one], [r[a] for r in one]
    mi, ma = sum(xi) / n, sum(xa) / n
    cov = sum((x - mi) * (y - ma) for x, y in zip(xi, xa))
    vi, va = sum((x - mi) ** 2 for x in xi), sum((y - ma) ** 2 for y in xa)
    return {"candidates": len(cands), "gain": m, "total": total, "within": within, "between": total - within,
            "corr": cov / math.sqrt(vi * va) if vi and va else 1.0}


def replay_rule(rows: list[dict[str, Any]], rule: Callable[..., tuple[str, int]],
                margin: float | None = None) -> dict[str, Any]:
    """The verdicts ``rule(per, anchor, ref, margin)`` gives on the kept samples, per
    sampling seed, and how many agree; the states the rule took (its cost: ``values``, the
    candidates' values on them, what the evaluator computes). ``margin``:
    another than the game's (``values.MARGIN``)."""
    out = {"compared": 0, "same": 0, "states": 0, "values": 0, "verdicts": {}, "flips": [], "short": 0}
    for r in rows:
        got = {}
        for k, per in r["values"].items():
            try:
                v, n = rule(per, r["anchor"], r["ref"], MARGIN[r["game"]] if margin is None else margin, r.get("stake", 0.0))
            except KeptTooFew:  # the rule wanted states past those kept: not replayable here
                v, n = "kept too few", len(per[r["anchor"]])
                out["short"] += 1
            got[k] = v
            out["states"] += n
            out["values"] += n * len(per)  # the evaluator's calls: every candidate on each state
            out["verdicts"].setdefault(r["who"], {}).setdefault(k, {}).setdefault(v, 0)
            out["verdicts"][r["who"]][k][v] += 1
        out["compared"] += 1
        same = len(set(got.values())) == 1
        out["same"] += same
        if not same:
            out["flips"].append((r["match_seed"], r["seat"], r["number"], got))
    return out



def decision_points(rows: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    """Each kept row's game (rules and options) and decision point (its view, legal actions,
    the action played), read from its separation match, replayed (``separation_matches``,
    cheap: no valuing)."""
    want = {(r["game"], r["match_seed"]) for r in rows}
    points: dict[tuple, Any] = {}
    games: dict[tuple, Any] = {}
    for game, s in sorted(want):
        for record, bots, rnd in separation_matches(game, 1, s):
            games[game, s] = get_game(record.game, record.options)
            for seat in (rnd, (rnd + 1) % len(bots)):
                for point in decisions(record, seat):
                    points[game, s, seat, point.number] = point
    return [(games[r["game"], r["match_seed"]], points[r["game"], r["match_seed"], r["seat"], r["number"]]) for r in rows]


def staked(rows: list[dict[str, Any]], points: list[tuple[Any, Any]] | None = None) -> list[dict[str, Any]]:
    """The kept rows each with its decision's stake (``values.stake``: what the game's rule
    reads from the seat's view; 0 at a game without one), as the analysis's looks take it.
    ``points``: the rows' ``decision_points``, if already read."""
    points = decision_points(rows) if points is None else points
    return [{**r, "stake": stake(g, point.view)} for r, (g, point) in zip(rows, points)]


def same_play_rows(rows: list[dict[str, Any]], max_actions: int = DEFAULT_MAX_ACTIONS,
                   points: list[tuple[Any, Any]] | None = None) -> tuple[list[dict[str, Any]], int]:
    """The kept rows as method 14 values them (``values.stand_ins``): of each class of the
    same play among a row's candidates only the first (in the candidates' order: the chosen
    one, the reference policy's, the others in legal order, as ``Valuer.candidates`` takes
    them) kept, with its values on the very same states (the evaluator values each
    candidate on its own: a candidate left out changes no other's value); the chosen one's
    twins are then the chosen play itself, not compared. Each row's view is read from its
    separation match (``decision_points``). Also how many
    rows method 14 would value more classes in than were kept (``max_actions`` classes,
    where the kept rows hold ``max_actions`` actions: those rows are replayed on the kept
    ones only). ``points``: the rows' ``decision_points``, if already read."""
    out, more = [], 0
    for r, (g, point) in zip(rows, decision_points(rows) if points is None else points):
        texts = {str(a): a for a in point.legal}
        cands = [texts[c] for c in r["cands"]]
        order = list(dict.fromkeys(cands + list(point.legal)))
        stand = stand_ins(g, point.view, order)  # a class's first is a kept candidate: they come first
        keep = [i for i, c in enumerate(cands) if stand[c] == c]
        more += len(keep) < min(max_actions, len(set(stand.values())))
        out.append({**r, "cands": [r["cands"][i] for i in keep], "anchor": keep.index(cands.index(stand[cands[r["anchor"]]])),
                    "ref": None if r["ref"] is None else keep.index(cands.index(stand[cands[r["ref"]]])),
                    "values": {k: [per[i] for i in keep] for k, per in r["values"].items()}})
    return out, more


def scaled(per: list[list[float]], a: int, scale: float) -> list[list[float]]:
    """The values of a decision as a value with ``scale`` times the noise would give them:
    each candidate's paired difference from the chosen one (``a``) drawn towards its mean
    by ``scale`` (1: as kept), added to the chosen one's values again."""
    if scale == 1.0:
        return per
    out = []
    for i, xs in enumerate(per):
        d = [x - y for x, y in zip(xs, per[a])]
        m = sum(d) / max(1, len(d))
        out.append([y + m + scale * (x - m) for x, y in zip(d, per[a])] if i != a else list(xs))
    return out


def bootstrap(rows: list[dict[str, Any]], rule: Callable[..., tuple[str, int]], states: int = 128, reps: int = 40,
              seed: int = 0, margin: float | None = None, scale: float = 1.0) -> dict[str, Any]:
    """Each kept decision's verdict distribution under ``rule``, estimated by running it on
    ``reps`` resamples (with replacement, ``states`` long) of the decision's kept states
    (every sampling seed's pooled: they are independent draws from the same view): the
    chance that two seeds agree (the sum of the squared verdict shares), the states the
    rule takes, and the verdict shares by who played. Rules with a budget beyond the kept
    states can be compared this way (the resampled runs re-use kept states). ``scale``: the
    paired differences' noise scaled (``scaled``), for "what would a less noisy value give"."""
    rng = random.Random(seed)
    out: dict[str, Any] = {"decisions": 0, "agree": 0.0, "states": 0.0, "by": {}}
    for r in rows:
        pooled = [sum((r["values"][k][i] for k in sorted(r["values"])), []) for i in range(len(r["cands"]))]
        pooled = scaled(pooled, r["anchor"], scale)
        n = len(pooled[0])
        counts: dict[str, int] = {}
        for _ in range(reps):
            idx = [rng.randrange(n) for _ in range(states)]
            per = [[xs[j] for j in idx] for xs in pooled]
            v, used = rule(per, r["anchor"], r["ref"], margin if margin is not None else MARGIN[r["game"]], r.get("stake", 0.0))
            counts[v] = counts.get(v, 0) + 1
            out["states"] += used / reps
        out["decisions"] += 1
        out["agree"] += sum((c / reps) ** 2 for c in counts.values())
        pm = counts.get("mistake", 0) / reps
        out["flag_agree"] = out.get("flag_agree", 0.0) + pm * pm + (1 - pm) * (1 - pm)
        by = out["by"].setdefault(r["who"], {})
        for v, c in counts.items():
            by[v] = by.get(v, 0.0) + c / reps
    return out


def at_margin(rows: list[dict[str, Any]], rule: Callable[..., tuple[str, int]], states: int = 128, reps: int = 20,
              seed: int = 0, margin: float | None = None) -> dict[str, float]:
    """How often ``rule`` errs where the truth sits at the margin, on the kept samples'
    own noise: for each kept decision, the rival with the largest mean gain over the chosen
    action (every sampling seed's states pooled), its paired differences shifted so that
    their mean is exactly the margin (a loss of the margin: "mistake" says more, "fine"
    says less), resampled ``reps`` times (``states`` long, with replacement) and judged by
    ``rule`` as one comparison. The shares of runs that say "mistake" and "fine" are the
    rule's error rates there (the rates its verdicts state are at most 5% and 0.1%), and
    ``equal``: the "fine" ones whose differences were all one value on the states the rule
    took (no interval to speak of: only the rare-difference bound stood in the way).
    Decisions whose rival differs by one amount on every kept state are left out (no
    noise, no error)."""
    rng = random.Random(seed)
    out = {"runs": 0, "mistake": 0, "fine": 0, "equal": 0}
    for r in rows:
        m = MARGIN[r["game"]] if margin is None else margin
        pooled = [sum((r["values"][k][i] for k in sorted(r["values"])), []) for i in range(len(r["cands"]))]
        a = r["anchor"]
        diffs = [[x - y for x, y in zip(xs, pooled[a])] for i, xs in enumerate(pooled) if i != a]
        if not diffs:
            continue
        d = max(diffs, key=lambda xs: sum(xs) / len(xs))
        if len(set(d)) == 1:
            continue
        shift = m - sum(d) / len(d)
        for _ in range(reps):
            idx = [rng.randrange(len(d)) for _ in range(states)]
            per = [[pooled[a][j] for j in idx], [pooled[a][j] + d[j] + shift for j in idx]]
            v, n = rule(per, 0, None, m, r.get("stake", 0.0))
            out["runs"] += 1
            out["mistake"] += v == "mistake"
            out["fine"] += v == "fine"
            out["equal"] += v == "fine" and len({d[j] for j in idx[:n]}) == 1
    return out


def _prefix(per, n):
    return [xs[:n] for xs in per]


class KeptTooFew(Exception):
    """The rule wanted more states than were kept for a decision."""


def analysis_rule(budget: int, first: int = MIN_SAMPLES, step: int = BATCH, one: Callable[..., str] = look,
                  finish: bool = True, extend: int = EXTEND, fine: float | None = None,
                  split: bool = False, points: tuple[int, ...] = (), each: bool = True,
                  rare_mistake: float = 0.0) -> Callable[..., tuple[str, int]]:
    """The analysis's rule (``values.look`` at its error rates, stopped by ``values.Looks``,
    as ``Valuer`` stops): a look after each batch from ``first`` states; a verdict stands
    when ``values.AGREE`` looks in a row give it (or the budget allows one look); a decision
    near the edge at the budget's last look (``values.EDGE``) draws on to ``extend`` times
    the budget (method 9); with ``extend=0`` (method 8's rule) a run under way at the
    budget's end may finish (``finish``: the game's is ``values.finishes``); unsure when
    the budget ends. ``fine``: the loss below which "fine" may be given (``values.FINE``;
    None: the rule's margin; never above it), passed to ``one`` (a look that takes it, as
    ``values.look``). ``split`` (method 16, the game's: ``values.splits``): looks at fixed
    numbers of states, the error rates split over them (``values.Looks``; ``points``: other
    looks than the game's, ``each=False``: "fine" split among the candidates too).
    ``rare_mistake`` (method 17, the game's: ``values.mistake_rare``): "mistake" bounding a
    difference not yet seen (``values.Looks``). KeptTooFew when the rule wants states past
    those kept."""
    def rule(per, a, ref, margin, stake=0.0):
        looks = Looks(budget, first, step, finish=finish, extend=extend, split=split, points=points, each=each,
                      rare_mistake=rare_mistake)
        below = margin if fine is None else min(fine, margin)
        n = 0
        while k := looks.wants(n):
            if n + k > len(per[a]):
                if n >= budget:
                    raise KeptTooFew(f"{n + k} states wanted, {len(per[a])} kept")
                break  # a budget past the kept states: what they allow (as before)
            n += k
            if looks.takes(n):
                now, near = looks.judge(_prefix(per, n), a, ref, margin, below, stake, one=one)
                looks.see(now, n, near)
        return looks.verdict, n
    return rule


def at_looks(looks: tuple[int, ...], agree: int = 1, one: Callable[..., str] = look) -> Callable[..., tuple[str, int]]:
    """Looks (``one``, the analysis's ``look`` by default) at the given numbers of states
    only; a verdict stands after ``agree`` looks in a row."""
    def rule(per, a, ref, margin, stake=0.0):  # methods before 15: the spread seen
        run, before = 0, ""
        for n in looks:
            if n > len(per[a]):
                break
            now = one(_prefix(per, n), a, ref, margin)
            run = run + 1 if now == before else 1
            before = now
            if now != "unsure" and run >= agree:
                return now, n
        return "unsure", min(looks[-1], len(per[a]))
    return rule


def variant_look(alpha_fine: float = 0.05, alpha_mistake: float = 0.05, zero: bool = False) -> Callable[..., str]:
    """``values.look`` with its own error rates for "fine" and "mistake" (each split as
    there), and with ``zero``: identical paired differences bound the mean by the rule of
    three (a difference not yet seen, of up to the decision's spread of values, on fewer
    than 3 in n states) instead of an interval of width 0."""
    def one(per, a, ref, margin):
        n = len(per[a])
        others = [i for i in range(len(per)) if i != a]
        split = ref is not None and ref != a and len(others) > 1
        spread = max(max(xs) for xs in per) - min(min(xs) for xs in per)

        def q(alpha, i):
            k = 2 * (len(others) - 1) if split and i != ref else (2 if split else len(others))
            return NormalDist().inv_cdf(1 - alpha / 2 / max(1, k)) * t95(n - 1) / 1.96 if n >= 2 else math.inf
        fine = True
        for i in others:
            g, se = _mean_se([x - y for x, y in zip(per[i], per[a])])
            lo = g - (0.0 if se == 0.0 else q(alpha_mistake, i) * se)
            hi = g + (0.0 if se == 0.0 else q(alpha_fine, i) * se)
            if se == 0.0 and zero:
                hi = g + 3.0 / n * spread
            if lo > margin:
                return "mistake"
            if not hi < margin:
                fine = False
        return "fine" if fine else "unsure"
    return one


def looks_with(one: Callable[..., str], budget: int, agree: int = 2, first: int = MIN_SAMPLES,
               step: int = BATCH, last_decides: bool = False) -> Callable[..., tuple[str, int]]:
    """A look (``one``) after each batch from ``first`` states; a verdict stands after
    ``agree`` looks in a row give it; unsure when the budget ends. ``last_decides``: the
    last look the budget allows gives its verdict on its own (all the states, no run)."""
    def rule(per, a, ref, margin, stake=0.0):  # methods before 15: the spread seen
        run, before = 0, ""
        n = first
        end = min(budget, len(per[a]))
        while n <= end:
            now = one(_prefix(per, n), a, ref, margin)
            run = run + 1 if now == before else 1
            before = now
            if now != "unsure" and (run >= agree or budget <= first  # one look is all the budget allows
                                    or (last_decides and n + step > end)):
                return now, n
            n += step
        return "unsure", end
    return rule


def wide_fine(factor: float) -> Callable[..., str]:
    """``values.look``, but "fine" when every gain's upper bound (0.1%) is below ``factor``
    times the margin (an indifference zone between the margin and that): "mistake" as there."""
    def one(per, a, ref, margin):
        v = look5(per, a, ref, margin)
        if v != "unsure":
            return v
        return "fine" if look5(per, a, ref, margin * factor, alpha_mistake=1e-12) == "fine" else "unsure"
    return one


def gains_only(per, a, ref, margin, fine=None, stake=0.0):
    """``values.look``, but "fine" also when each candidate's gain bounded on its positive
    part (``max(0, value - chosen's)`` per state, whose mean bounds the gain's from above)
    clears the fine margin: a rival worse by a contract on a rare state and equal on the
    others is not a reason for doubt that nothing was better (its symmetric interval is)."""
    v = look(per, a, ref, margin, fine=fine, stake=stake)
    if v != "unsure":
        return v
    up = [xs if i == a else [max(x, y) for x, y in zip(xs, per[a])] for i, xs in enumerate(per)]
    return "fine" if look(up, a, ref, margin, fine=fine, stake=stake) == "fine" else "unsure"


def seen_only(per, a, ref, margin, fine=None, stake=0.0):
    """``values.look`` as until method 14: a difference not yet seen bounded by the spread of
    values seen, whatever the decision's stake (``values.stake``, method 15)."""
    return look(per, a, ref, margin, fine=fine)


def identical_once(per, a, ref, margin):
    """``values.look``, but candidates with the same value as another (or as the chosen
    one) on every state so far count as one comparison (equivalent plays: fewer compared,
    a narrower Bonferroni interval)."""
    seen: dict[tuple, int] = {tuple(per[a]): a}
    keep = [a]
    for i, xs in enumerate(per):
        if i == a:
            continue
        if i == ref or tuple(xs) not in seen:
            seen.setdefault(tuple(xs), i)
            keep.append(i)
    keep.sort()
    return look5([per[i] for i in keep], keep.index(a), keep.index(ref) if ref in keep else None, margin)


def stopping_rules(game: str | None = None, fine: float | None = None) -> dict[str, Callable[..., tuple[str, int]]]:
    """The rules compared (docs/analysis.md, stability); the analysis's own as at ``game``
    (``values.finishes``: method 8 lets no run finish past the budget at Spot; ``values.FINE``:
    from method 12 Spot's "fine" only where no action was better; ``fine``: another)."""
    below = fine if fine is not None else FINE.get(game) if game else None
    # The game's own looks (``values.finishes``, ``values.extends``) and fine margin, which
    # most rules below keep; its method 16 and 17 settings (``values.splits``,
    # ``values.mistake_rare``).
    own = {"finish": finishes(game) if game else True, "extend": extends(game) if game else EXTEND, "fine": below}
    split, rare = (splits(game), mistake_rare(game)) if game else (False, 0.0)
    return {
        "method 9 (values: method 8, and at Spite and Malice a decision near the edge at 64 draws on to 128; "
        "from method 12 at Spot fine below values.FINE; from method 16 at Spite and Malice looks at 32, 64, 96 and 128 "
        "states, the error rates split over them)":
            analysis_rule(64, **own, split=split, rare_mistake=rare),
        "method 15's looks (a run of three looks after each batch; at Spite and Malice the edge extension), not method 16's":
            analysis_rule(64, **own),
        # Method 16's parts and neighbours (docs/analysis.md, "Method 16"), at every game.
        "method 15's looks, fine testing each candidate at 0.1% (method 16's fine alone)":
            analysis_rule(64, one=functools.partial(look, each=True), **own),
        "method 16, fine split among the candidates too (its looks alone)": analysis_rule(64, fine=below, split=True, each=False),
        **{f"method 16 with looks at {'/'.join(map(str, at))}": analysis_rule(64, fine=below, split=True, points=at)
           for at in ((32, 64, 128), (16, 32, 64, 128), (48, 96, 128), (64, 128))},
        # Method 16 at Spades and Spot (docs/analysis.md, "Method 16 at Spades and Spot"): as
        # at Spite and Malice (32/64/96/128), and its looks within the budget, where those
        # games have no edge extension (32 and 64, each at half the rates). Not kept.
        "method 16 at every game (looks at 32/64/96/128, fine testing each candidate)":
            analysis_rule(64, fine=below, split=True),
        "method 16 within the budget (looks at 32/64), fine testing each candidate":
            analysis_rule(64, fine=below, split=True, extend=0),
        "method 16 within the budget (looks at 32/64), fine split among the candidates too":
            analysis_rule(64, fine=below, split=True, extend=0, each=False),
        # A rare unseen difference bounded for "mistake" too (the same section; method 17 at
        # Spades: values.RARE_MISTAKE), the game's looks; and without it (method 16).
        **{f"method 15, mistake bounding a rare difference, RARE {r:g}":
           analysis_rule(64, **own, split=split, rare_mistake=r) for r in (0.5, 1.0, 2.0)},
        "method 16 (mistake by the t interval alone, no rare difference bounded: before method 17)":
            analysis_rule(64, **own, split=split),
        "method 9, fine bounded by the spread of values seen, not the stake (method 14)":
            analysis_rule(64, one=seen_only, **own),
        "method 8 (fine 0.1% and a rare unseen difference bounded, mistake 5%, three looks, 64; "
        "a run under way may finish, not at Spot)": analysis_rule(64, **{**own, "extend": 0}),
        # Method 15's two levers at the game (docs/analysis.md, "Method 15"): the edge extension
        # where the game has it not, and larger budgets under the game's own rule.
        "method 9 with the edge extension at every game (near the edge at 64: on to 128)":
            analysis_rule(64, **{**own, "extend": EXTEND}),
        **{f"method 9 with a budget of {b}": analysis_rule(b, **own) for b in (80, 96, 112, 128)},
        "method 9, fine bounding only where a candidate gains (positive parts)":
            analysis_rule(64, one=gains_only, **own),
        "method 9 with fine at the mistake's confidence (95%)":
            analysis_rule(64, one=functools.partial(look, alpha_fine=ALPHA_MISTAKE), **own),
        "method 7 (a run under way may finish at every game), 64": analysis_rule(64, extend=0),
        "method 7, no run finished past the budget, 64": analysis_rule(64, finish=False, extend=0),
        "method 7 with RARE 1, 64": looks_with(functools.partial(look, rare=1.0), 64, AGREE),
        "method 7 with RARE 3 (the rule of three), 64": looks_with(functools.partial(look, rare=3.0), 64, AGREE),
        "method 5 (and 6: fine 0.1%, mistake 5%, three looks, 64)": looks_with(look5, 64, AGREE),
        "method 4 (fine 1%, three looks, 64)": looks_with(variant_look(alpha_fine=0.01), 64, agree=3),
        "method 3 (5%, two looks, 64)": looks_with(variant_look(), 64),
        "fine at 0.1%, four looks, 64": looks_with(variant_look(alpha_fine=0.001), 64, agree=4),
        "method 5, the last look decides, 64": looks_with(look5, 64, AGREE, last_decides=True),
        "method 5, fine below 2x the margin, 64": looks_with(wide_fine(2.0), 64, AGREE),
        "method 5, fine below 1.5x the margin, 64": looks_with(wide_fine(1.5), 64, AGREE),
        "method 5, identical candidates compared once, 64": looks_with(identical_once, 64, AGREE),
        "5%, three looks, 64": looks_with(variant_look(), 64, agree=3),
        "fine at 1%, two looks, 64": looks_with(variant_look(alpha_fine=0.01), 64),
        "fine at 20%, 64": looks_with(variant_look(alpha_fine=0.2), 64),
        "zero diffs: rule of three, 64": looks_with(variant_look(zero=True), 64),
        "one look at 64": looks_with(variant_look(), 64, agree=1, first=64),
        "fine at 1%, 128": looks_with(variant_look(alpha_fine=0.01), 128),
        "fine and mistake at 1%, 64": looks_with(variant_look(alpha_fine=0.01, alpha_mistake=0.01), 64),
        "fine and mistake at 1%, 128": looks_with(variant_look(alpha_fine=0.01, alpha_mistake=0.01), 128),
        "5%, two looks, 128": looks_with(variant_look(), 128),
        "1% fine, looks at 16/32/64": at_looks((16, 32, 64), one=variant_look(alpha_fine=0.01)),
        "1% fine, looks at 16/32/64/128": at_looks((16, 32, 64, 128), one=variant_look(alpha_fine=0.01)),
        "1% fine, looks at 32/64/128": at_looks((32, 64, 128), one=variant_look(alpha_fine=0.01)),
    }


def compare(game: str, matches: int, seed: int, settings: dict[str, Any], from_turn: int = 0,
            samples: int = 64) -> Iterable[tuple[int, str, int, int, int, str, Any, Any]]:
    """The separation matches' decisions (the random seat's and the next seat's, from turn
    ``from_turn``) valued by the analysis as it is and with the reference evaluator's
    ``settings`` changed (sampling seed 1, as the bench's first): (match seed, who, seat,
    decision number, turn, action played, the two ``DecisionValue``s)."""
    base = dict(REFERENCE_SETTINGS.get(game, {}))
    try:
        for record, bots, rnd in separation_matches(game, matches, seed):
            for seat in (rnd, (rnd + 1) % len(bots)):
                points = [p for p in decisions(record, seat) if len(p.legal) > 1 and p.played is not None
                          and getattr(p.view, "turn_number", 0) >= from_turn]
                got = []
                for setting in (base, {**base, **settings}):
                    REFERENCE_SETTINGS[game] = setting
                    valuer = Valuer(record.game, record.options, seat, f"seed-{record.seed}", record.seat_names,
                                    samples=samples, seed=1)
                    got.append([valuer.decision(p, p.played) for p in points])
                for p, a, b in zip(points, *got):
                    yield record.seed, bots[seat], seat, p.number, getattr(p.view, "turn_number", 0), p.played, a, b
    finally:
        REFERENCE_SETTINGS[game] = base


def _setting(kv: str) -> tuple[str, Any]:
    """``NAME=VALUE`` of ``--set``: a number or true/false."""
    name, _, value = kv.partition("=")
    parsed: Any = {"true": True, "false": False}.get(value.lower())
    if parsed is None:
        try:
            parsed = float(value) if "." in value else int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{kv!r}: NAME=VALUE, the value a number or true/false") from None
    if not name:
        raise argparse.ArgumentTypeError(f"{kv!r}: NAME=VALUE, a setting's name first")
    return name, parsed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="play the separation matches and keep every sample")
    c.add_argument("game", choices=list(GAMES))
    c.add_argument("--matches", type=int, default=1)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--states", type=int, default=128)
    c.add_argument("--out", required=True)
    c.add_argument("--seeds", type=int, nargs="+", default=[1, 2], help="sampling seeds (default: 1 2)")
    c.add_argument("--who", choices=["random", "heuristic"], default="", help="only that seat (default: both)")
    c.add_argument("--set", action="append", default=[], metavar="NAME=NUMBER", type=_setting,
                   help="a setting of the reference evaluator (values.REFERENCE_SETTINGS), e.g. rounds=3")
    r = sub.add_parser("rules", help="each stopping rule's verdicts and stability on kept samples")
    r.add_argument("files", nargs="+")
    r.add_argument("--flips", action="store_true", help="list the decisions whose verdict moved")
    r.add_argument("--margin", type=float, default=None, help="another margin than the game's (values.MARGIN)")
    r.add_argument("--fine-margin", type=float, default=None, metavar="F",
                   help="the analysis's rules give 'fine' below F, not the game's (values.FINE; never above the margin)")
    r.add_argument("--only", default="", help="only the rules whose name contains this")
    r.add_argument("--same-play", action="store_true",
                   help="group each row's candidates by the game's same-play rule first (method 14: one valued per class)")
    r.add_argument("--bootstrap", type=int, default=0, metavar="REPS",
                   help="estimate each rule's agreement by REPS resampled runs a decision instead")
    r.add_argument("--states", type=int, default=128, metavar="N",
                   help="with --bootstrap: the states of each resampled run (default 128; a budget of 128 may finish at 144)")
    r.add_argument("--at-margin", type=int, default=0, metavar="REPS",
                   help="each rule's error rates where the truth sits at the margin: every decision's top rival "
                        "shifted to a loss of exactly the margin, REPS resampled runs of --states (at_margin)")
    r.add_argument("--scale", type=float, default=1.0, metavar="F",
                   help="with --bootstrap: the paired differences' noise times F (a less noisy value: F < 1)")
    m = sub.add_parser("compare", help="each decision's verdict as the analysis is and with a setting changed")
    m.add_argument("game", choices=list(GAMES))
    m.add_argument("--matches", type=int, default=1)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--from-turn", type=int, default=0, help="only decisions from this turn on (Spite and Malice)")
    m.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", required=True, type=_setting,
                   help="a setting of the reference evaluator, e.g. result_only=false")
    z = sub.add_parser("noise", help="where each decision's loss noise comes from: within a state or between states")
    z.add_argument("game", choices=list(GAMES))
    z.add_argument("--matches", type=int, default=1)
    z.add_argument("--seed", type=int, default=0)
    z.add_argument("--states", type=int, default=64)
    a = p.parse_args(argv)
    if a.cmd == "rules" and not a.scale > 0:
        p.error(f"--scale {a.scale}: the noise's factor must be above 0")
    if a.cmd == "compare":
        changed = dict(a.set)
        for s, who, seat, number, turn, played, x, y in compare(a.game, a.matches, a.seed, changed, a.from_turn):
            moved = "" if x.verdict == y.verdict else "  moved"
            print(f"seed {s} {who} seat {seat} decision {number} (turn {turn}) {played}: {x.verdict} {x.loss:.2f} -> "
                  f"{y.verdict} {y.loss:.2f}{moved}", flush=True)
        return 0
    if a.cmd == "noise":
        got = []
        for record, bots, rnd in separation_matches(a.game, a.matches, a.seed):
            for seat in (rnd, (rnd + 1) % len(bots)):
                valuer = Valuer(record.game, record.options, seat, f"seed-{record.seed}", record.seat_names, seed=1)
                for point in decisions(record, seat):
                    if len(point.legal) < 2 or point.played is None:
                        continue
                    r = noise(valuer, point.view, point.legal, valuer.game.parse_action(point.played),
                              f"seed-{record.seed}:{seat}:{point.number}", a.states)
                    got.append(r)
                    print(f"seed {record.seed} {bots[seat]} seat {seat} decision {point.number}: {r['candidates']} candidates, "
                          f"gain {r['gain']:.2f}, sd of a state's paired difference {math.sqrt(r['total']):.2f} "
                          f"(within a state {math.sqrt(max(0.0, r['within'])):.2f}), values' correlation {r['corr']:.2f}",
                          flush=True)
        tot = sum(r["total"] for r in got) or 1.0
        corr = sorted(r["corr"] for r in got)
        sds = sorted(math.sqrt(r["total"]) for r in got)
        print(f"{len(got)} decisions: within a state {sum(r['within'] for r in got) / tot:.3f} of the variance, "
              f"between states {sum(r['between'] for r in got) / tot:.3f}; median sd of a state's paired difference "
              f"{sds[len(sds) // 2] if sds else 0:.2f}; median correlation of the two values {corr[len(corr) // 2] if corr else 0:.2f}")
        return 0
    if a.cmd == "collect":
        for name, value in a.set:
            REFERENCE_SETTINGS[a.game] = {**REFERENCE_SETTINGS.get(a.game, {}), name: value}
        try:
            with open(a.out) as f:
                kept = frozenset((r["match_seed"], r["seat"], r["number"]) for r in map(json.loads, f) if r)
        except FileNotFoundError:
            kept = frozenset()
        with open(a.out, "a") as f:
            for row in collect(a.game, a.matches, a.states, a.seed, tuple(a.seeds),
                               progress=lambda m: print(m, file=sys.stderr, flush=True), skip=kept, who=a.who):
                f.write(json.dumps(row) + "\n")
                f.flush()
        return 0
    rows = [json.loads(line) for path in a.files for line in open(path) if line.strip()]
    points = decision_points(rows)  # each row's view, from its match replayed once
    rows = staked(rows, points)
    if a.same_play:
        rows, more = same_play_rows(rows, points=points)
        print(f"same play (method 14): {sum(len(r['cands']) for r in rows)} candidates kept of the rows'; "
              f"{more} rows would value more classes than were kept (replayed on the kept ones)")
    if a.at_margin:
        for name, rule in stopping_rules(rows[0]["game"] if rows else None, a.fine_margin).items():
            if a.only and a.only not in name:
                continue
            res = at_margin(rows, rule, states=a.states, reps=a.at_margin, margin=a.margin)
            t = max(1, res["runs"])
            print(f"{name}: at the margin ({res['runs']} runs) 'mistake' {res['mistake'] / t:.4f}, "
                  f"'fine' {res['fine'] / t:.4f} (every difference one value: {res['equal'] / t:.4f})", flush=True)
        return 0
    if a.bootstrap:
        for name, rule in stopping_rules(rows[0]["game"] if rows else None, a.fine_margin).items():
            if a.only and a.only not in name:
                continue
            res = bootstrap(rows, rule, states=a.states, reps=a.bootstrap, margin=a.margin, scale=a.scale)
            d = max(1, res["decisions"])
            shares = {who: " ".join(f"{v} {c:.1f}" for v, c in sorted(by.items())) for who, by in res["by"].items()}
            print(f"{name}: two seeds agree {res['agree'] / d:.3f}, on the mistake flag {res['flag_agree'] / d:.3f} "
                  f"(bootstrap, {d} decisions); "
                  f"states {res['states'] / d:.1f} a decision; {shares}", flush=True)
        return 0
    for name, rule in stopping_rules(rows[0]["game"] if rows else None, a.fine_margin).items():
        if a.only and a.only not in name:
            continue
        res = replay_rule(rows, rule, a.margin)
        sep = {}
        for who, by in res["verdicts"].items():
            tot = sum(by["1"].values())
            sep[who] = f"{by['1'].get('mistake', 0)}/{tot} unsure {by['1'].get('unsure', 0)}"
        short = f"; {res['short']} runs wanted states past those kept" if res["short"] else ""
        print(f"{name}: same {res['same']}/{res['compared']} ({res['same'] / max(1, res['compared']):.3f}); "
              f"states {res['states'] / max(1, 2 * res['compared']):.1f} a decision "
              f"({res['values'] / max(1, 2 * res['compared']):.0f} values); {sep}{short}")
        if a.flips:
            for f in res["flips"]:
                print("   ", f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
