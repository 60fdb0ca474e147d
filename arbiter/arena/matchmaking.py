"""The arena's ladder: its rating model, its matchmaking and its table. Pure functions of
results, so the ratings recomputed from the store come out bit for bit as stored.

Ratings: Weng-Lin Plackett-Luce (openskill, ``PlackettLuce(tau=0)``: a bot version is
immutable code, so its strength does not drift and its uncertainty may shrink without a
floor). An encounter plays ``deals`` deals, each in every seating (duplicate): the unit
of one rating update is a *deal*: each player's points (1 a win, ½ a tie, 0 a loss
against every other side, as ``ratings.side_results``) averaged over the deal's seatings,
ranked, a tie of points broken by the mean score margin over those seatings (who did
better with the same cards; a forfeit counted at the game's widest margin,
``ratings.forfeit_stake``, so a bot that crashes in one seating cannot win the deal on the
other seating's margin); so the luck of the cards cancels before the model sees a
result. Updates run in
the order the encounters finished (``seq``), deals in order within one.

The table: rating μ with the interval μ ± 1.96σ, the likelihood of superiority over the
next row P(μ_row > μ_next) = Φ((μa − μb)/√(σa² + σb²)), encounters, matches, forfeits.

Matchmaking (``pick``): the next table is the one whose result is expected to teach the
ladder most: the expected Kullback-Leibler divergence from the current ratings of its
players to their ratings after it (the mutual information between its outcome and their
strengths, under the model itself: both outcomes of a deal are rated, weighted by their
predicted probabilities). That is largest for close ratings with wide intervals. Two
rules keep the ladder fair: a newcomer (no encounter yet) plays first, against the
opponent who teaches most; a bot left out of ``max_wait`` encounters in a row (3 × the
active players) goes next. A bot plays one encounter at a time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from arbiter.rating.ratings import Z95, counted_result, margin_of, phi, side_results

__all__ = [
    "MU", "SIGMA", "Rated", "deal_points", "deal_margins", "encounter_failures", "rate_encounter", "replay", "los",
    "expected_gain", "pick", "StandingsRow", "standings",
]


def _model() -> Any:
    from openskill.models import PlackettLuce

    return PlackettLuce(tau=0.0)


_MODEL = _model()
MU: float = float(_MODEL.mu)
SIGMA: float = float(_MODEL.sigma)

Rated = dict[str, tuple[float, float]]  # player -> (mu, sigma)


# --------------------------------------------------------------------------------------
# Results.


def deal_points(matches: Iterable[Any], teams: Sequence[Sequence[int]], players: Sequence[str],
                stake: float | None) -> list[dict[str, tuple[float, float]]]:
    """Per deal (in deal order): each player's (points, score margin), each averaged over
    that deal's seatings. Points rank first; the margin breaks a tie of points (the
    duplicate comparison: in a deal each side won once, who did better with the same
    cards). ``matches``: objects with ``deal``, ``seats`` and ``outcome`` (stored arena
    matches, or anything shaped so). ``stake``: what a forfeit costs its failing side in the
    margin (``ratings.forfeit_stake``: the game's widest; a forfeit read by
    ``ratings.counted_result``, every side of the failing bot last); None reads a forfeit's stored
    all-zero scores, as ladders did before 7 December 2026 (``ladder.verify`` recognises
    ratings stored so, to recompute them saying why)."""
    acc: dict[int, dict[str, list[tuple[float, float]]]] = {}
    for m in matches:
        read = (m.outcome.scores, m.outcome.ranks) if stake is None else counted_result(m.outcome, m.seats, teams, stake)
        res = side_results(teams, *read)
        mine: dict[str, list[tuple[float, float]]] = {}
        for j, side in enumerate(teams):
            for b in dict.fromkeys(m.seats[s] for s in side):
                mine.setdefault(b, []).append((res[j][0], res[j][1]))
        per = acc.setdefault(m.deal, {p: [] for p in players})
        for p in players:
            if p in mine:
                v = mine[p]
                per[p].append((sum(x for x, _ in v) / len(v), sum(y for _, y in v) / len(v)))
    out = []
    for d in sorted(acc):
        out.append({p: (sum(x for x, _ in v) / len(v), sum(y for _, y in v) / len(v)) for p, v in acc[d].items() if v})
    return out


def deal_margins(matches: Iterable[Any], a: str, b: str, stake: float) -> list[float]:
    """Per deal (in deal order), ``a``'s mean score minus ``b``'s over the deal's seatings
    (the duplicate margin ``arbiter evaluate`` and its sequential test use, in the game's
    own units; a forfeit, whose stored scores are all zero, at -``stake`` for its failing side:
    ``ratings.forfeit_stake``): each match's ``ratings.margin_of``, evaluate's. ``matches``:
    objects with ``deal``, ``seats`` and ``outcome``."""
    acc: dict[int, list[float]] = {}
    for m in matches:
        who = [0 if p == a else 1 if p == b else None for p in m.seats]
        if 0 in who and 1 in who:
            acc.setdefault(m.deal, []).append(margin_of(m.outcome, who, stake))
    return [sum(v) / len(v) for _, v in sorted(acc.items())]


def encounter_failures(matches: Iterable[Any], players: Sequence[str]) -> dict[str, tuple[int, str]]:
    """Per player who forfeited a match of the encounter: (how many, what the last one was)."""
    out: dict[str, tuple[int, str]] = {}
    for m in matches:
        if not (m.outcome.reason.is_forfeit and m.incidents):
            continue
        inc = m.incidents[-1]  # the failure the match ended on (as ratings.compute_standings counts it)
        player = m.seats[inc.seat]
        n, _ = out.get(player, (0, ""))
        out[player] = (n + 1, f"{inc.kind}: {inc.detail}"[:400])
    return out


def rate_encounter(current: Mapping[str, tuple[float, float]], players: Sequence[str],
                   deals: Sequence[Mapping[str, tuple[float, float]]]) -> Rated:
    """The players' ratings after an encounter (``deals``: ``deal_points``'s)."""
    state = {p: current.get(p, (MU, SIGMA)) for p in players}
    for pts in deals:
        present = [p for p in players if p in pts]
        if len(present) < 2:
            continue
        ranks = _ranks([pts[p] for p in present])
        teams = [[_MODEL.rating(mu=state[p][0], sigma=state[p][1])] for p in present]
        new = _MODEL.rate(teams, ranks=ranks)
        for p, (r,) in zip(present, new):
            state[p] = (float(r.mu), float(r.sigma))
    return state


def _ranks(points: Sequence[tuple[float, float]]) -> list[int]:
    """Rank 0 for the most (points, margin); equal, equal rank."""
    order = sorted(set(points), reverse=True)
    return [order.index(x) for x in points]


def replay(encounters: Iterable[tuple[Sequence[str], Sequence[Mapping[str, tuple[float, float]]]]],
           players: Iterable[str] = ()) -> Rated:
    """Every player's rating from the stored results alone: ``encounters`` are (players,
    deal points) in ``seq`` order; ``players`` start at the prior even if they never played."""
    state: Rated = {p: (MU, SIGMA) for p in players}
    for table_players, deals in encounters:
        state.update(rate_encounter(state, table_players, deals))
    return state


def los(a: tuple[float, float], b: tuple[float, float]) -> float:
    """P(a is stronger than b) under the model's normal approximation."""
    var = a[1] ** 2 + b[1] ** 2
    return phi((a[0] - b[0]) / math.sqrt(var)) if var > 0 else 0.5


# --------------------------------------------------------------------------------------
# Matchmaking.


def _kl(post: tuple[float, float], prior: tuple[float, float]) -> float:
    """KL(N(post) || N(prior)) for normal distributions."""
    (m1, s1), (m0, s0) = post, prior
    return math.log(s0 / s1) + (s1 ** 2 + (m1 - m0) ** 2) / (2 * s0 ** 2) - 0.5


def expected_gain(ratings: Sequence[tuple[float, float]]) -> float:
    """The information a deal between these players is expected to give (nats): the
    expected KL divergence of their ratings after it from their ratings now."""
    teams = [[_MODEL.rating(mu=m, sigma=s)] for m, s in ratings]
    n = len(teams)
    if n < 2:
        return 0.0
    # outcomes: each player first, the others tied behind (n outcomes, weighted by the
    # model's win probabilities): enough to rank tables, exact for two players
    wins = _MODEL.predict_win(teams)
    gain = 0.0
    for first, p in enumerate(wins):
        ranks = [0 if i == first else 1 for i in range(n)]
        new = _MODEL.rate([[_MODEL.rating(mu=m, sigma=s)] for m, s in ratings], ranks=ranks)
        gain += p * sum(_kl((float(r.mu), float(r.sigma)), prior) for (r,), prior in zip(new, ratings))
    return gain


@dataclass(frozen=True)
class Candidate:
    """What matchmaking knows of an active player."""

    player: str
    mu: float
    sigma: float
    encounters: int  # finished or under way
    waited: int  # encounters started since its last one (or since it joined)
    joined: float = 0.0


def pick(candidates: Sequence[Candidate], sides: int, busy: Iterable[str] = (), max_wait: int | None = None) -> tuple[str, ...] | None:
    """The next table (players, in no particular seat order), or None if there are not
    ``sides`` free active players. Deterministic: ties go by player name."""
    busy = set(busy)
    free = sorted((c for c in candidates if c.player not in busy), key=lambda c: c.player)
    if len(free) < sides or sides < 2:
        return None
    limit = max_wait if max_wait is not None else 3 * max(len(candidates), 2)
    newcomers = sorted((c for c in free if c.encounters == 0), key=lambda c: (c.joined, c.player))
    starving = sorted((c for c in free if c.waited >= limit), key=lambda c: (-c.waited, c.player))
    first = newcomers[0] if newcomers else (starving[0] if starving else None)
    gain_cache: dict[tuple[str, ...], float] = {}

    def gain(group: Sequence[Candidate]) -> float:
        key = tuple(sorted(c.player for c in group))
        if key not in gain_cache:
            gain_cache[key] = expected_gain([(c.mu, c.sigma) for c in group])
        return gain_cache[key]

    def pair_gain(group: Sequence[Candidate]) -> float:  # a table of more sides: its pairs' sum
        return sum(gain((a, b)) for i, a in enumerate(group) for b in group[i + 1:])

    if first is None:
        best, best_score = None, -1.0
        for i, a in enumerate(free):
            for b in free[i + 1:]:
                score = gain((a, b))
                if score > best_score + 1e-15:
                    best, best_score = [a, b], score
        assert best is not None
        table = best
    else:
        table = [first]
    while len(table) < sides:
        rest = [c for c in free if c not in table]
        table.append(min(rest, key=lambda c: (-pair_gain([*table, c]), c.player)))
    return tuple(c.player for c in table)


# --------------------------------------------------------------------------------------
# The table.


@dataclass(frozen=True)
class StandingsRow:
    rank: int  # 0 for a player not in the ranking (not active)
    player: str
    name: str
    version: str
    status: str
    reason: str
    mu: float
    sigma: float
    encounters: int
    matches: int
    failures: int
    los_next: float | None  # over the next active row

    @property
    def low(self) -> float:
        return self.mu - Z95 * self.sigma

    @property
    def high(self) -> float:
        return self.mu + Z95 * self.sigma

    def as_dict(self) -> dict[str, Any]:
        """The row for the CSV and JSON exports, its numbers to six places as a tournament's are
        (they were written whole: 31.5554707435273 beside a tournament's 0.947877)."""
        def six(x: float | None) -> float | None:
            return None if x is None else round(x, 6)

        return {"rank": self.rank, "player": self.player, "name": self.name, "version": self.version,
                "status": self.status, "reason": self.reason, "rating": six(self.mu), "sigma": six(self.sigma),
                "low": six(self.low), "high": six(self.high), "encounters": self.encounters, "matches": self.matches,
                "failures": self.failures, "los_next": six(self.los_next)}


def standings(entrants: Iterable[Any]) -> list[StandingsRow]:
    """Active players by rating (with their LOS over the next), then the others by name.
    Players level on μ and σ share a rank (1, 1, 3), as a tournament's tied rows do: the
    versions of a new ladder all start at 25 ± 8.3, and ranking them 1, 2, 3 by name said one
    was ahead before any had played.

    ``entrants``: ``arbiter.store.arenas.EntrantRow``s (or anything shaped so)."""
    rows = list(entrants)
    active = sorted((e for e in rows if e.status == "active"), key=lambda e: (-e.mu, e.sigma, e.player))
    others = sorted((e for e in rows if e.status != "active"), key=lambda e: (e.status, e.name, -e.joined))
    out = []
    rank = 0
    for i, e in enumerate(active):
        nxt = active[i + 1] if i + 1 < len(active) else None
        if not i or (e.mu, e.sigma) != (active[i - 1].mu, active[i - 1].sigma):
            rank = i + 1
        out.append(StandingsRow(rank, e.player, e.name, e.version, e.status, e.reason, e.mu, e.sigma, e.encounters,
                            e.matches, e.failures, los((e.mu, e.sigma), (nxt.mu, nxt.sigma)) if nxt else None))
    for e in others:
        out.append(StandingsRow(0, e.player, e.name, e.version, e.status, e.reason, e.mu, e.sigma, e.encounters,
                            e.matches, e.failures, None))
    return out
