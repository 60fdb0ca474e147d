"""Variance reduction for duplicate evaluations: what duplicate deals buy, and control variates.

Two measurements on an ``EvalResult`` (docs/strength.md, "Variance"):

* ``duplicate_gain``: how many times fewer *matches* a duplicate evaluation needs than one
  playing every deal once, in one seating: var(one match's margin) / (2 · var(deal margin)).
  A one-seating evaluation's matches are the recorded matches pooled over both seatings
  (a deal in a random seating), so the ratio is read off the same run.
* ``regression_adjusted``: the mean deal margin corrected by features of the deal's cards,
  which the bots cannot change (control variates): every deal's margin d_i minus
  b · (f_i - E f), with E f known in advance (``feature_means``: the mean over deals that are
  not in the evaluation) and the slope b fitted by least squares on the *other* folds of
  deals (cross-fitting). Each corrected value then has expectation E d exactly (b is
  independent of f_i, and E[f_i - E f] = 0), so the adjusted mean is unbiased for any
  number of deals; its standard error is ``mean_se`` of the corrected values. An in-sample
  slope (the textbook control-variate estimate) would be biased by O(1/n).

The features (``deal_features``) describe a deal's cards as dealt, before any decision,
from the point of view of the sides: in seating 0 bot A holds the even sides' cards, in
seating 1 the odd sides'. A feature that flips sign when the seatings swap (A's cards
minus B's) cancels from a deal margin, which averages both seatings, so only symmetric
ones can help: how lopsided the deal is (|difference| between the sides), how long the
longest trump suit is, how many short suits there are. Whether they do is measured, not
assumed: the numbers are in docs/strength.md.

What duplicate deals leave, taken apart (Spades, deals replayed in process, ``replay``):

* ``variance_sources``: which deals carry the deal margins' variance (bids the same in both
  seatings, a nil bid, a side set) and how the two seatings' margins go together.
* ``bid_control``: the bids as control variates. With deterministic bots they are a
  function of the deal, so their mean can be known in advance from bidding-only probes of
  the same two bots on deals of their own (``bid_probes``); the correction is cross-fitted
  as above, and the probes' error is in the standard error.

(``more_seatings``, each deal played four times with the hands moved round the table, was tried
and not kept; its numbers are in docs/strength.md with the commit that measured them.)
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from cardarena.games import get_game
from arbiter.batch.engine import worker_pool
from arbiter.batch.plan import deal_seed
from arbiter.tournament.evaluate import EvalResult
from arbiter.tournament.probes import Replayed, probe_seeds, replay_seatings
from arbiter.tournament.spec import bot_names
# the features, the least squares and the cross-fitted adjustment live with the statistics
# (``arbiter evaluate --luck-adjusted`` uses them); re-exported here for the tools and tests
from arbiter.rating.luck import (  # noqa: F401
    Adjusted, _spades_hand_stats, bid_features, hand_numbers, least_squares as _least_squares, regression_adjusted,
    trick_features, value_features,
)
from arbiter.rating.stats import MeanSE, mean_se

# --------------------------------------------------------------------------------------
# Features of a deal.

def _seat_stats(game_name: str, options: Mapping[str, Any], preset: str | None, seed: int) -> tuple[list[dict[str, float]], int]:
    """Per seat, numbers about its cards as dealt; and the seat that acts first."""
    game = get_game(game_name, options, preset)
    state = game.new_initial_state(seed)
    if game.num_seats != 4:
        raise ValueError(f"deal features are defined for 4 seats, {game_name} has {game.num_seats} with these options")
    out = []
    if game_name == "spades":
        return [_spades_hand_stats(h) for h in state.hands], (state.dealer + 1) % 4
    if game_name == "spot":
        for seat in range(4):
            h = state.view(seat).hand
            ranks: dict[int, int] = {}
            for c in h:
                ranks[c.rank] = ranks.get(c.rank, 0) + 1
            cards = {(c.suit, c.rank) for c in h}
            out.append({
                "spots": sum(min(c.rank, 10) for c in h),
                "pairs": sum(k * (k - 1) // 2 for k in ranks.values()),
                "runs": sum(1 for (s, r) in cards if (s, r + 1) in cards),
            })
        return out, state.spectator_view().first_player
    raise ValueError(f"deal features: none defined for {game_name}")


def _side_diffs(stats: list[dict[str, float]]) -> dict[str, float]:
    """Each number summed over the even seats minus the odd seats (bot A's side in seating 0)."""
    return {k: stats[0][k] + stats[2][k] - stats[1][k] - stats[3][k] for k in stats[0]}


def deal_features(game_name: str, options: Mapping[str, Any], preset: str | None, seed: int) -> dict[str, float]:
    """Symmetric features of the cards of deal ``seed``, unchanged when the seatings swap: how
    lopsided the deal is between the sides (|even - odd|), and table-wide counts."""
    stats, first = _seat_stats(game_name, options, preset, seed)
    out = {f"abs_{k}_diff": abs(v) for k, v in _side_diffs(stats).items()}
    for k in stats[0]:
        out[f"max_{k}"] = max(s[k] for s in stats)
        out[f"min_{k}"] = min(s[k] for s in stats)
    return out


def side_features(game_name: str, options: Mapping[str, Any], preset: str | None, seed: int, rotation: int) -> dict[str, float]:
    """Antisymmetric features of one seating: bot A's side minus bot B's (A holds the even
    seats in seating 0), and +1/-1 as A's side or B's acts first. Over deals each has mean 0
    exactly: the shuffle and the first dealer are uniform, so the deal looks the same from
    every seat, and the seating does not depend on the cards."""
    stats, first = _seat_stats(game_name, options, preset, seed)
    sign = 1 if rotation == 0 else -1
    out = {f"{k}_diff": sign * v for k, v in _side_diffs(stats).items()}
    out["a_first"] = sign * (1 if first % 2 == 0 else -1)
    return out


def feature_means(game_name: str, options: Mapping[str, Any], preset: str | None, deals: int = 20_000,
                  seed: str = "control-variates") -> dict[str, float]:
    """The mean of every feature over ``deals`` deals of their own seeds (never an evaluation's:
    the seeds come from ``seed``, a string, not an evaluation seed)."""
    acc: dict[str, float] = {}
    for s in probe_seeds(seed, deals):
        for k, v in deal_features(game_name, options, preset, s).items():
            acc[k] = acc.get(k, 0.0) + v
    return {k: v / deals for k, v in acc.items()}


def features_of(result: EvalResult) -> list[dict[str, float]]:
    """The features of every deal of an evaluation, in deal order (dealt from the seeds its
    matches carry: a recorded evaluation may predate today's ``deal_seed``)."""
    seeds = sorted({(m.deal, m.seed) for m in result.matches})
    return [deal_features(result.game, result.options, result.preset, s) for _, s in seeds]


# --------------------------------------------------------------------------------------
# What duplicate deals buy.


@dataclass(frozen=True)
class DuplicateGain:
    match_sd: float  # s.d. of one match's margin (a deal in one seating)
    deal_sd: float  # s.d. of a deal margin (both seatings)
    deals: int

    @property
    def ratio(self) -> float:
        """Matches a one-seating evaluation needs per match of a duplicate one, for the same s.e."""
        return self.match_sd**2 / (2 * self.deal_sd**2)


def duplicate_gain(result: EvalResult) -> DuplicateGain:
    deal = mean_se(result.deal_margins())
    match = mean_se([m.margin for m in result.matches])
    return DuplicateGain(match.sd or 0.0, deal.sd or 0.0, deal.n)


# --------------------------------------------------------------------------------------
# Regression adjustment (control variates), cross-fitted.


def adjusted_result(result: EvalResult, means: Mapping[str, float] | None = None,
                    names: Sequence[str] | None = None, folds: int = 10, mean_deals: int = 20_000) -> Adjusted:
    """``regression_adjusted`` for a duplicate evaluation: deal margins on ``deal_features``
    (their means over ``mean_deals`` independent deals unless given)."""
    if means is None:
        means = feature_means(result.game, result.options, result.preset, mean_deals)
    return regression_adjusted(result.deal_margins(), features_of(result), means, names, folds)


@dataclass(frozen=True)
class OneSeating:
    """The same deals played once each (deal d in seating d mod 2): plain, regression-adjusted
    on ``side_features``, and the duplicate evaluation of the same deals for comparison."""

    plain: MeanSE  # one match per deal
    adjusted: MeanSE
    duplicate: MeanSE  # deal margins, two matches per deal
    r2_in_sample: float

    def per_match_variance(self, m: MeanSE, matches_per_value: int) -> float:
        return (m.se or 0.0) ** 2 * m.n * matches_per_value

    @property
    def plain_over_duplicate(self) -> float:
        """Variance per match played, one seating over duplicate (the matches duplicate saves)."""
        return self.per_match_variance(self.plain, 1) / self.per_match_variance(self.duplicate, 2)

    @property
    def adjusted_over_duplicate(self) -> float:
        return self.per_match_variance(self.adjusted, 1) / self.per_match_variance(self.duplicate, 2)

    @property
    def adjusted_over_plain(self) -> float:
        return self.per_match_variance(self.adjusted, 1) / self.per_match_variance(self.plain, 1)


def one_seating(result: EvalResult, folds: int = 10) -> OneSeating:
    """What a one-seating evaluation of the same deals gives, with and without control variates
    (features with mean 0 by symmetry, so nothing is estimated in advance)."""
    picked = sorted((m for m in result.matches if m.rotation == m.deal % 2), key=lambda m: m.deal)
    feats = [side_features(result.game, result.options, result.preset, m.seed, m.rotation) for m in picked]
    names = tuple(sorted(feats[0]))
    adj = regression_adjusted([m.margin for m in picked], feats, {k: 0.0 for k in names}, names, folds)
    return OneSeating(adj.plain, adj.adjusted, mean_se(result.deal_margins()), adj.r2_in_sample)


# --------------------------------------------------------------------------------------
# Replaying deals in process.
#
# With deterministic bots (the bundled heuristic and greedy are) a deal margin is a fixed
# function of the deal, so what duplicate deals leave of its variance can be taken apart
# deal by deal: which deals carry it and what the bots did in them (bids, sets, nils). The
# recorded margins do not say that, so the deals are played again the way ``evaluate``
# plays them: through the one match runner by the batch engine
# (``arbiter.tournament.probes.play_seatings``: the same match configuration, seatings, bot
# seeds, clock and failure policy as an evaluation's), and what the record holds (bids, the
# deal's summary) is read back by the one replay verifier (``cardarena.replay.step_record``).
# A bidding-only probe is the same match stopped by the runner after the bidding
# (``MatchConfig.stop_after``). The tests check that the replayed margins are the evaluation's.


def replay(game_name: str, bot_a: str, bot_b: str, seed: int, rotation: int, options: Mapping[str, Any] | None = None,
           preset: str | None = None, bidding_only: bool = False) -> Replayed:
    """Play deal ``seed`` in seating ``rotation`` between two bot specs (see ``Replayed``)."""
    return replay_seatings(game_name, bot_a, bot_b, [seed], (rotation,), options, preset, bidding_only=bidding_only)[0][0]


#: The evaluation's two seatings of a deal.
SEATINGS: tuple[int, ...] = (0, 1)


def replay_deals(game_name: str, bot_a: str, bot_b: str, seeds: Sequence[int], options: Mapping[str, Any] | None = None,
                 preset: str | None = None, seatings: Sequence[int] = SEATINGS,
                 bidding_only: bool = False, jobs: int = 1) -> list[list[Replayed]]:
    """``replay`` of every deal in ``seeds`` in each of ``seatings`` (rotations), in ``jobs``
    processes (the same result for any ``jobs``): per deal, its seatings in order."""
    return replay_seatings(game_name, bot_a, bot_b, list(seeds), tuple(seatings), options, preset,
                           bidding_only=bidding_only, jobs=jobs)


def replay_evaluation(game_name: str, bot_a: str, bot_b: str, deals: int, seed: int,
                      options: Mapping[str, Any] | None = None, preset: str | None = None,
                      seatings: Sequence[int] = SEATINGS, jobs: int = 1) -> list[list[Replayed]]:
    """The deals of ``evaluate(game_name, bot_a, bot_b, deals, seed, options, preset)``, replayed."""
    return replay_deals(game_name, bot_a, bot_b, [deal_seed(seed, d) for d in range(deals)], options, preset, seatings,
                        jobs=jobs)


def _deal_margin(pair: Sequence[Replayed]) -> float:
    """The mean of a deal's two seatings (rotation 0, then 1, the same hands)."""
    r0, r1 = pair[0], pair[1]
    if (r0.rotation, r1.rotation) != (0, 1) or r0.seed != r1.seed:
        raise ValueError("the two seatings of one deal, rotation 0 first")
    return (r0.margin + r1.margin) / 2


def _var(xs: Sequence[float]) -> float:
    return (mean_se(xs).sd or 0.0) ** 2


def _corr(xs: Sequence[float], ys: Sequence[float]) -> float:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else 0.0


# --------------------------------------------------------------------------------------
# Where the rest of a deal margin's variance comes from (Spades).


@dataclass(frozen=True)
class SourceRow:
    """One kind of deal: how many there are and how much of the deal margins' variance they carry."""

    label: str
    deals: int
    deal_share: float
    variance_share: float  # its deals' share of the sum of squared deviations of the deal margins from their mean
    mean: float  # their mean deal margin


@dataclass(frozen=True)
class VarianceSources:
    """A Spades evaluation's deal margins taken apart (``variance_sources``)."""

    deals: int
    margin: MeanSE  # the deal margins
    match_sd: float  # s.d. of one match's margin (both seatings pooled)
    seating_correlation: float  # of the two seatings' match margins, over deals
    zero_share: float  # deals with a deal margin of exactly 0
    rows: tuple[SourceRow, ...]  # a partition of the deals, the first kind that applies: shares sum to 1
    overlapping: tuple[SourceRow, ...]  # kinds that overlap, each on its own

    @property
    def duplicate_ratio(self) -> float:
        """Variance per match played, duplicate over independent deals: 2 var(deal) / var(match)
        (1 / ``DuplicateGain.ratio``)."""
        return 2 * (self.margin.sd or 0.0) ** 2 / self.match_sd**2 if self.match_sd else 1.0


def variance_sources(deals: Sequence[Sequence[Replayed]]) -> VarianceSources:
    """Which deals carry a Spades deal margin's variance: per deal (its two seatings, as
    ``replay_evaluation`` gives them) whether the bids were the same in both seatings, a
    seat bid nil, a side was set; and how the two seatings' margins go together."""
    us = [_deal_margin(d) for d in deals]
    n = len(us)
    mean = sum(us) / n
    dev = [(u - mean) ** 2 for u in us]
    total = sum(dev) or 1.0
    same = [d[0].bids == d[1].bids for d in deals]
    nil = [any(b == 0 for r in d[:2] for b in r.bids) for d in deals]
    sets = [[r.set_bots() for r in d[:2]] for d in deals]
    is_set = [bool(s0 or s1) for s0, s1 in sets]

    def row(label: str, mask: Sequence[bool]) -> SourceRow:
        k = sum(mask)
        return SourceRow(label, k, k / n, sum(v for v, m in zip(dev, mask) if m) / total,
                         sum(u for u, m in zip(us, mask) if m) / k if k else float("nan"))

    kind = ["same" if a else "nil" if b else "set" if c else "rest" for a, b, c in zip(same, nil, is_set)]
    rows = (
        row("bids the same in both seatings", [k == "same" for k in kind]),
        row("else: a nil bid in either seating", [k == "nil" for k in kind]),
        row("else: a side set in either seating", [k == "set" for k in kind]),
        row("else (no nil, every contract made)", [k == "rest" for k in kind]),
    )
    failed_nil = [any(x.nil_tricks > 0 for r in d[:2] for x in r.summary.sides) for d in deals]
    overlapping = (
        row("a nil bid in either seating", nil),
        row("a nil bid failed in either seating", failed_nil),
        row("a side set in either seating", is_set),
        row("a side set in one seating only", [bool(s0) != bool(s1) for s0, s1 in sets]),
        row("a side set in both seatings", [bool(s0) and bool(s1) for s0, s1 in sets]),
        row("bot A's side set (either seating)", [0 in s0 + s1 for s0, s1 in sets]),
        row("bot B's side set (either seating)", [1 in s0 + s1 for s0, s1 in sets]),
        row("a bag penalty in either seating", [any(x.penalties for r in d[:2] for x in r.summary.sides) for d in deals]),
    )
    m0 = [d[0].margin for d in deals]
    m1 = [d[1].margin for d in deals]
    return VarianceSources(n, mean_se(us), mean_se(m0 + m1).sd or 0.0, _corr(m0, m1), sum(u == 0 for u in us) / n,
                           rows, overlapping)


# --------------------------------------------------------------------------------------
# Control variates on the bids.
#
# With deterministic bots the bids of both seatings are a function of the deal alone: the
# bidding comes before any card is played. A function g of the bids is then a legitimate
# control variate if E g is known in advance, and it can be: the same two bots, queried
# as black boxes on deals of their own (``probe_seeds``, never the evaluation's), each
# seating played only until the bidding ends. The correction is the cross-fitted one of
# ``regression_adjusted``; the probes' mean has its own error, independent of the
# evaluation's deals, which the standard error adds (``BidControl.probe_se``).
#
# Valid for bots whose bids depend on nothing but what they are shown: a randomised bot is
# fine if its randomness is independent of the deal (the probes give it the same bot seeds
# as a match would); a bot that could tell a probe from a match could bias the estimate.


@dataclass(frozen=True)
class BidControl:
    """The mean deal margin corrected by bid features (``bid_control``), and what it costs."""

    adjusted: Adjusted  # plain and corrected deal margins, the features, their cross-fitted slopes
    probes: int  # deals probed for the features' means
    probe_se: float  # the standard error the probes' means add to the adjusted mean
    match_var: float  # variance of one match's margin (both seatings pooled): independent deals' unit
    match_decisions: float  # decisions a match takes, on average
    probe_decisions: float  # decisions a probe (one seating, bidding only) takes, on average
    margins: tuple[float, ...] = field(default=(), repr=False)  # the plain deal margins, in deal order

    @property
    def deals(self) -> int:
        return self.adjusted.plain.n

    @property
    def se(self) -> float:
        """The adjusted mean's standard error, the probes' error included."""
        return ((self.adjusted.adjusted.se or 0.0) ** 2 + self.probe_se**2) ** 0.5

    @property
    def r2(self) -> float:
        """The share of the deal margins' variance the correction removes (cross-fitted)."""
        return 1 - (self.adjusted.adjusted.sd or 0.0) ** 2 / (self.adjusted.plain.sd or 1.0) ** 2

    @property
    def shift(self) -> float:
        """Adjusted minus plain mean."""
        return self.adjusted.adjusted.mean - self.adjusted.plain.mean

    @property
    def shift_se(self) -> float:
        """The standard error of ``shift``: of the mean correction, the probes' error included."""
        corrections = [m - c for m, c in zip(self.margins, self.adjusted.corrected)]
        return ((mean_se(corrections).se or 0.0) ** 2 + self.probe_se**2) ** 0.5

    @property
    def over_duplicate(self) -> float:
        """Variance of the adjusted mean over that of the plain duplicate mean."""
        return self.se**2 / (self.adjusted.plain.se or 1.0) ** 2

    def per_match(self, se: float, matches: float) -> float:
        """Variance per match played for standard error ``se`` from ``matches`` matches, over
        the variance of one match's margin: what independent deals (one match each) give."""
        return se**2 * matches / self.match_var if self.match_var else 1.0

    @property
    def plain_per_match(self) -> float:
        """Plain duplicate deals (= 1 / ``DuplicateGain.ratio``)."""
        return self.per_match(self.adjusted.plain.se or 0.0, 2 * self.deals)

    @property
    def adjusted_per_match(self) -> float:
        """The probes not counted (means computed once, reused by every evaluation of the pair)."""
        return self.per_match(self.se, 2 * self.deals)

    @property
    def adjusted_per_match_with_probes(self) -> float:
        """The probes counted, at their cost in decisions (a match's decisions = one match)."""
        probe_matches = 2 * self.probes * self.probe_decisions / self.match_decisions if self.match_decisions else 0.0
        return self.per_match(self.se, 2 * self.deals + probe_matches)


def bid_probes(game_name: str, bot_a: str, bot_b: str, options: Mapping[str, Any] | None = None,
               preset: str | None = None, deals: int = 20_000, seed: str = "bid-probes",
               jobs: int = 1) -> list[list[Replayed]]:
    """Both seatings of ``deals`` deals of their own seeds (``probe_seeds``), each played only
    until the bidding ends."""
    return replay_deals(game_name, bot_a, bot_b, probe_seeds(seed, deals), options, preset, bidding_only=True, jobs=jobs)


def bid_control(deals: Sequence[Sequence[Replayed]], probes: Sequence[Sequence[Replayed]], cards: bool = False,
                folds: int = 10) -> BidControl:
    """The cross-fitted control-variate estimate of the mean deal margin on ``bid_features``,
    their means taken over ``probes`` (``bid_probes`` of the same two bots).

    The probes' mean m of the features errs by (m - E f), which moves the adjusted mean by
    slope · (m - E f): its variance, var(slope · f) / probes, is added to the standard error
    (``probe_se``); the evaluation's deals and the probes are independent."""
    margins = [_deal_margin(d) for d in deals]
    feats = [bid_features(d, cards) for d in deals]
    rows = [bid_features(p, cards) for p in probes]
    names = tuple(sorted(rows[0]))
    means = {k: sum(r[k] for r in rows) / len(rows) for k in names}
    adj = regression_adjusted(margins, feats, means, names, folds)
    g = [sum(b * r[k] for b, k in zip(adj.slope, names)) for r in rows]
    matches = [r for d in deals for r in d[:2]]
    probe_seatings = [r for p in probes for r in p[:2]]
    return BidControl(adj, len(probes), mean_se(g).se or 0.0, _var([r.margin for r in matches]),
                      sum(r.decisions for r in matches) / len(matches),
                      sum(r.decisions for r in probe_seatings) / len(probe_seatings), tuple(margins))


# --------------------------------------------------------------------------------------
# A value of the deal with a known expectation (issue 39, AIVAT-style).
#
# AIVAT subtracts, at each chance event, the change in a value function that chance alone
# caused, with values whose expectation over the chance event is known. In Spades the
# arbiter's only chance event is the deal: every card is dealt before the first decision.
# The correction for it is v(deal) - E v for any function v of the deal; with deterministic
# bots the bids are one (``bid_features``). Unlike ``bid_control``, v is fitted once, on
# deals of its own (``probe_seeds("deal-values")``, fully replayed), never on the deals it
# corrects, so it may use many features without the O(1/n) cost of fitting them on the
# evaluation; E v is the mean over bidding-only probes of other seeds (``bid_probes``),
# whose error the standard error carries. Each corrected deal margin U - (v - m) then has
# expectation E U whatever v is: v is fixed before the evaluation, and the probes' mean m
# is an unbiased estimate of E v independent of the evaluation's deals.
#
# Corrections at the bots' own decisions (AIVAT's other terms) need the bot's policy: for
# a deterministic bot the chosen action is the policy's only action and the term is 0; for
# a black-box randomised bot its expectation is not known. So the deal is the only term.


def deal_tricks(pair: Sequence[Replayed], options: Mapping[str, Any] | None = None, preset: str | None = None) -> int:
    """The double-dummy tricks of the even seats' side in the deal of ``pair`` as dealt (spades
    trump, the dealer's left-hand opponent leading): one DDS solve (``bots.spades_dds``), a
    function of the cards alone, the same for both seatings."""
    from arbiter.hosting.doubledummy import opening_tricks

    r = pair[0]
    state = get_game("spades", dict(options or {}), preset).new_initial_state(r.seed)
    return opening_tricks(state.hands, (state.dealer + 1) % 4)


def _tricks_chunk(args: tuple) -> list[int]:
    seeds, options, preset = args
    game = get_game("spades", dict(options), preset)
    from arbiter.hosting.doubledummy import opening_tricks

    out = []
    for seed in seeds:
        state = game.new_initial_state(seed)
        out.append(opening_tricks(state.hands, (state.dealer + 1) % 4))
    return out


def deals_tricks(deals: Sequence[Sequence[Replayed]], options: Mapping[str, Any] | None = None, preset: str | None = None,
                 jobs: int = 1) -> list[int]:
    """``deal_tricks`` of every deal, in ``jobs`` processes (the same for any ``jobs``)."""
    seeds = [d[0].seed for d in deals]
    chunk = max(1, min(100, -(-len(seeds) // (4 * jobs))))
    tasks = [(seeds[i:i + chunk], dict(options or {}), preset) for i in range(0, len(seeds), chunk)]
    if jobs == 1:
        return [t for task in tasks for t in _tricks_chunk(task)]
    with worker_pool(jobs) as pool:
        return [t for part in pool.map(_tricks_chunk, tasks) for t in part]


@dataclass(frozen=True)
class DealValue:
    """A value of the deal, v = intercept + coefficients · ``value_features`` (and with
    ``tricks``, ``trick_features``), fitted by least squares on the deal margins of
    ``fit_deal_value``'s training deals."""

    names: tuple[str, ...]
    coefficients: tuple[float, ...]  # intercept first
    train_deals: int
    tricks: bool = False  # whether v uses the double-dummy tricks (``trick_features``)

    def __call__(self, pair: Sequence[Replayed], tricks: int | None = None) -> float:
        f = value_features(pair)
        if self.tricks:
            if tricks is None:
                raise ValueError("this value of the deal needs the deal's double-dummy tricks (deal_tricks)")
            f.update(trick_features(pair, tricks))
        return self.coefficients[0] + sum(b * f.get(k, 0.0) for b, k in zip(self.coefficients[1:], self.names))


def fit_deal_value(train: Sequence[Sequence[Replayed]], tricks: Sequence[int] | None = None) -> DealValue:
    """v fitted on ``train`` (both seatings of deals of their own seeds, fully replayed: never
    the evaluation's deals); with ``tricks`` (``deals_tricks`` of ``train``) on the double-dummy
    features too."""
    feats = [value_features(d) for d in train]
    if tricks is not None:
        for f, d, t in zip(feats, train, tricks, strict=True):
            f.update(trick_features(d, t))
    names = tuple(sorted(set().union(*feats)))
    beta = _least_squares([[f.get(k, 0.0) for k in names] for f in feats], [_deal_margin(d) for d in train], ridge=1e-3)
    return DealValue(names, tuple(beta), len(train), tricks is not None)


@dataclass(frozen=True)
class ValueControl:
    """Deal margins corrected by a value of the deal (``value_control``)."""

    plain: MeanSE  # the deal margins U
    corrected: MeanSE  # U - (v - m), m the probes' mean of v; its s.e. without the probes' error
    expected_value: MeanSE  # m: the mean of v over the probes, with its standard error
    shift_se: float  # the s.e. of corrected minus plain mean (the mean correction's, the probes' included)
    match_var: float  # variance of one match's margin (independent deals' unit)
    margins: tuple[float, ...] = field(default=(), repr=False)  # U, in deal order
    corrections: tuple[float, ...] = field(default=(), repr=False)  # v - m, in deal order

    @property
    def se(self) -> float:
        """The corrected mean's standard error, the probes' error included."""
        return ((self.corrected.se or 0.0) ** 2 + (self.expected_value.se or 0.0) ** 2) ** 0.5

    @property
    def shift(self) -> float:
        return self.corrected.mean - self.plain.mean

    @property
    def variance_ratio(self) -> float:
        """Per-deal variance, corrected over plain duplicate deals."""
        return (self.corrected.sd or 0.0) ** 2 / (self.plain.sd or 1.0) ** 2

    @property
    def plain_per_match(self) -> float:
        """Variance per match played, plain duplicate deals over independent deals."""
        return 2 * (self.plain.sd or 0.0) ** 2 / self.match_var if self.match_var else 1.0

    @property
    def corrected_per_match(self) -> float:
        """The same for the corrected margins (probes reused, not counted)."""
        return 2 * (self.corrected.sd or 0.0) ** 2 / self.match_var if self.match_var else 1.0


def value_control(deals: Sequence[Sequence[Replayed]], probes: Sequence[Sequence[Replayed]], value: DealValue,
                  expected: float | None = None, deal_tricks: Sequence[int] | None = None,
                  probe_tricks: Sequence[int] | None = None) -> ValueControl:
    """Every deal margin U of ``deals`` corrected by ``value``: U - (v - m), m the mean of v over
    ``probes`` (``bid_probes`` of the same two bots), or ``expected`` if given (a known E v;
    the tests give a wrong one to show the bias it causes). A ``value`` on the double-dummy
    tricks needs them for the deals and the probes (``deals_tricks``)."""
    margins = [_deal_margin(d) for d in deals]
    dt = list(deal_tricks) if deal_tricks is not None else [None] * len(deals)
    pt = list(probe_tricks) if probe_tricks is not None else [None] * len(probes)
    vs = [value(d, t) for d, t in zip(deals, dt, strict=True)]
    ev = mean_se([value(p, t) for p, t in zip(probes, pt, strict=True)]) if expected is None else MeanSE(expected, 0.0, 0)
    m = ev.mean
    corrections = [x - m for x in vs]
    corrected = [u - c for u, c in zip(margins, corrections)]
    shift_se = ((mean_se(vs).se or 0.0) ** 2 + (ev.se or 0.0) ** 2) ** 0.5
    return ValueControl(mean_se(margins), mean_se(corrected), ev, shift_se,
                        _var([r.margin for d in deals for r in d[:2]]), tuple(margins), tuple(corrections))


# A variant tried (docs/strength.md): each side's score in each seating predicted from its own
# bid against its cards (the overbid in bins, so a set's jump can be fitted), one model per bot,
# v the mean over the seatings of A's predicted score minus B's.

_OVER_BINS = (-3, -2, -1, 0, 1, 2, 3)


def _side_numbers(r: Replayed, nums: Sequence[Mapping[str, float]], bot: int) -> dict[str, float]:
    seats, opp = r.side_of(bot), r.side_of(1 - bot)
    bids = [r.bids[s] or 0 for s in seats]
    c = sum(bids)
    q = sum(nums[s]["quick"] for s, b in zip(seats, bids) if b > 0)
    over = round(max(-3, min(3, c - q)))
    f = {"c": c, "c2": c * c, "q": q, "opp_quick": sum(nums[s]["quick"] for s in opp),
         "opp_bids": sum(r.bids[s] or 0 for s in opp), "spades": sum(nums[s]["spades"] for s in seats),
         "hcp": sum(nums[s]["hcp"] for s in seats), "nil": 0.0, "nil_quick": 0.0, "nil_spades": 0.0, "nil_hcp": 0.0}
    for k in _OVER_BINS:
        f[f"over_{k}"] = 1.0 if over == k else 0.0
        f[f"over_{k}_x_bids"] = c if over == k else 0.0
    for s, b in zip(seats, bids):
        if b == 0:
            f["nil"] += 1
            f["nil_quick"] += nums[s]["quick"]
            f["nil_spades"] += nums[s]["spades"]
            f["nil_hcp"] += nums[s]["hcp"]
    return f


def _sides(pair: Sequence[Replayed]):
    for r in pair[:2]:
        nums = [hand_numbers(h) for h in r.hands]
        for bot in (0, 1):
            side = r.side_of(bot)[0] % 2
            yield bot, _side_numbers(r, nums, bot), (r.summary.sides[side].score if r.summary is not None else None)


@dataclass(frozen=True)
class SideValue:
    """v = the mean over the two seatings of A's side's predicted score minus B's (``fit_side_value``)."""

    names: tuple[str, ...]
    coefficients: tuple[tuple[float, ...], tuple[float, ...]]  # per bot (A, B), intercept first
    train_deals: int

    def __call__(self, pair: Sequence[Replayed]) -> float:
        total = 0.0
        for bot, f, _ in _sides(pair):
            beta = self.coefficients[bot]
            g = beta[0] + sum(b * f[k] for b, k in zip(beta[1:], self.names))
            total += g if bot == 0 else -g
        return total / 2


def fit_side_value(train: Sequence[Sequence[Replayed]]) -> SideValue:
    """Per bot, its side's score in a seating fitted by least squares on ``train`` (deals of their own)."""
    rows: dict[int, tuple[list[list[float]], list[float]]] = {0: ([], []), 1: ([], [])}
    names: tuple[str, ...] = ()
    for d in train:
        for bot, f, y in _sides(d):
            names = names or tuple(sorted(f))
            rows[bot][0].append([f[k] for k in names])
            rows[bot][1].append(float(y))
    return SideValue(names, (tuple(_least_squares(*rows[0], ridge=1e-3)), tuple(_least_squares(*rows[1], ridge=1e-3))),
                     len(train))


# --------------------------------------------------------------------------------------
# Duplicate deals in a tournament: the two seatings' card luck cancels.


def tournament_duplicate_ratio(bots: Sequence[str], deals: int, seed: int, db: Any) -> float:
    """var(duplicate unit) / var(independent unit) of the second bot's score margin, from ONE
    duplicate Spades tournament (1-deal matches, in process) of ``deals`` deals stored in
    ``db``: a duplicate unit averages the two seatings of one deal; an independent unit
    averages seating 1 of one deal with seating 2 of the next, so both mix one result from
    each side and differ only in whether the cards match. Two copies of one deterministic
    bot give 0 (every difference is the cards'); greedy against heuristic about 0.7-0.9 at
    300 deals (the bench's ``statistics.duplicate_variance_ratio``)."""
    import statistics

    from arbiter.store.db import Store
    from arbiter.tournament.run import TournamentSpec, run_tournament

    spec = TournamentSpec(game="spades", bots=tuple(bots), options={"deals": 1}, seed=seed, name="dup", deals=deals)
    with Store(db) as store:
        rows = asyncio.run(run_tournament(spec, store, transport="inproc"))
    me = bot_names(spec.bots)[1]

    def margin(r: Any) -> float:
        side = 0 if r.seats[0] == me else 1
        return r.outcome.scores[side] - r.outcome.scores[1 - side]

    twins = list(zip(rows[::2], rows[1::2]))
    if len(twins) != deals or len({r.seed for r in rows}) != deals or any(
            a.seed != b.seed or a.seats == b.seats for a, b in twins):
        raise RuntimeError(f"the tournament did not play {deals} deals each in both seatings")
    pairs = [(margin(a), margin(b)) for a, b in twins]
    duplicate = [(x + y) / 2 for x, y in pairs]
    independent = [(pairs[i][0] + pairs[(i + 1) % deals][1]) / 2 for i in range(deals)]
    return statistics.variance(duplicate) / statistics.variance(independent)
