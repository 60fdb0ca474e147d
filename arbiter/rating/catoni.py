"""A sequential test that holds on any deal distribution whose s.d. is at most a stated bound.

    from arbiter.rating.catoni import VarianceTest
    test = VarianceTest(m0=0, m1=20, sd_bound=45)      # margins per deal, their s.d. at most 45
    state = test.run(deal_margins)
    print(state.verdict, state.assumption())          # the verdict, and whether the deals contradict s.d. <= 45

Why: a test valid on every distribution within the margin's bounds [lo, hi] cannot be short
when the bounds are far wider than the deals (``BettingTest.least_deals``: Spades at 0,20
within ±900 needs 134 deals whatever the test, where a fixed test needs 39): the rare deal at
the bound that such a test must allow for is what costs. A bound on the s.d. instead rules
that deal out (a 2% chance of -900 is an s.d. of 133), and lets a test be as short as the
normal SPRT, on any shape: skewed, heavy-tailed, discrete.

The test (Wang & Ramdas 2023, "Catoni-style confidence sequences for heavy-tailed mean
estimation", with Catoni's influence function φ(x) = log(1 + x + x²/2) for x >= 0 and
-log(1 - x + x²/2) below; tightened where their closed form needs what a test does not):

* Evidence for H1 (against H0: mean <= m0): log K0 = Σ φ(λ (x_i - m0)) - log(1 + λ² S² / 2),
  λ >= 0 fixed before the first deal. Since e^φ(y) <= 1 + y + y²/2 for every y and φ is
  nondecreasing, E e^φ(λ(x - m0)) <= E e^φ(λ(x - μ)) <= E [1 + λ(x - μ) + λ²(x - μ)²/2]
  = 1 + λ² σ² / 2 <= 1 + λ² S² / 2 whenever μ <= m0 and σ <= S: K0 is a nonnegative
  supermartingale under H0, and by Ville's inequality it ever reaches 1/α with chance at most
  α, at every stopping time, with no minimum of deals.
* Evidence for H0 (against H1: mean >= m1): the same on m1 - x_i, at 1/β.
* The bet: one λ for every deal, the one that maximizes the mean growth E φ(λ (x - m0)) -
  log(1 + λ² S² / 2) for normal deals at the other hypothesis with s.d. S (``bet``; about
  d / S² for d = m1 - m0 small against S). Raising it when the running mean says the bots are
  further apart (as the betting test does) cut the deals of a bot far better (2.6 against 4.1)
  but cost 5-20% near the hypotheses, where a test is slowest (docs/strength.md), so it is not done.

Wang and Ramdas's own form (``form="catoni"``: the penalty λ² S² / 2, which their closed-form
confidence sequence needs (e^a >= 1 + a) and a test does not, and the λ best for a deal exactly
d away) is kept for the evaluations and ladders stored before December 2026 (their specs name
no form). log(1 + a) < a, so the same deals give more evidence: 0.88x against 1.02x the fixed
test's deals on the close Spades pair at 0,50, 0.79x against 0.84x at 0,20, from 100 deals read
(docs/strength.md, "The tighter wealth", with the form that was tried and not kept).

The assumption is checked as the deals come: consecutive deals pair up, and z = (x - x')² / 2
has mean σ² exactly on any distribution, so a gambler betting z > S² (wealth Π (1 + γ (z / S²
- 1)), γ = 1/2, never negative since z >= 0) is a test of "σ <= S" that holds at every
stopping time too. When it reaches 1/α the deals contradict the bound: the run says so and
decides nothing more (``assumption``).

Where the bound comes from is the user's to say (``arbiter evaluate --sd-bound S``), as the
bounds are for the betting test: a previous evaluation of the same kind of deals, with room
(docs/strength.md measures the lengths at 1.2x the true s.d.). ``--sd-bound auto`` says it by
rule (``AutoVarianceTest``): a room (``auto_room``: 1.2 at the 100 deals it reads at least, less
with more) times the s.d. of the same pair's deal margins in the store's earlier evaluations,
else its kin's (``arbiter.tournament.evaluate.sd_from_store``), checked as any bound is.
"""

from __future__ import annotations

import functools
import math
from statistics import NormalDist
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from arbiter.rating.sprt import FINEST, Decided, Scanned, _z, both_reached, check_rates, check_scale, decide
from arbiter.rating.stats import DeferredMoments, MeanSE, Moments

if TYPE_CHECKING:
    from arbiter.rating.betting import BettingTest

#: The monitor's bet on the squared differences of consecutive deals (any 0 <= γ < 1 is valid).
MONITOR_BET = 0.5
#: ``--sd-bound auto``: the least deals a pair needs in the store to be read (with 30 the swings
#: pool's s.d. was read too small often enough to err 0.18 for 0.05; with 100 every pool held:
#: docs/strength.md),
AUTO_HISTORY = 100
#: and the room over the s.d. of H such deals: 1 + AUTO_ROOM_Z / √H (``auto_room``), so many of
#: the s.d. estimate's relative standard errors whatever H (1.2 at 100 deals, 1.1 at 400, 1.05 at
#: 1,600): every pool's error rates held at each (docs/strength.md), and the bound, with the test's
#: length, comes down as the store's deals of the pair grow.
AUTO_ROOM_Z = 2.0
#: ``BettingThenVariance`` (a run with no deals of the pair to read before it): it switches after
#: its own first SWITCH_AFTER deals, at a room of 1 + SWITCH_ROOM_Z / √SWITCH_AFTER (1.42) over
#: their s.d.: a wider room for a shorter read. Every pool and recorded set within nominal at 50
#: and 3 (worst 0.044; at 30 or 40 deals, 0.079 and 0.057; at 50 with the auto room of 2, 0.077 on
#: the swings pool: docs/strength.md, "The switch within a run").
SWITCH_AFTER = 50
SWITCH_ROOM_Z = 3.0


def auto_room(deals: int) -> float:
    """``--sd-bound auto``'s room over the s.d. of ``deals`` stored deal margins (``AUTO_ROOM_Z``)."""
    return 1.0 + AUTO_ROOM_Z / math.sqrt(max(deals, 1))


#: The gambler's wealth per deal (``VarianceTest.form``): "catoni-log" (φ less log(1 + λ² S² / 2),
#: since December 2026) or "catoni" (Wang and Ramdas's φ less λ² S² / 2: a stored spec naming no form).
FORM = "catoni-log"
FORMS = ("catoni-log", "catoni")
_NORMAL = [NormalDist().inv_cdf((k + 0.5) / 64) for k in range(64)]  # 64 quantiles of the standard normal


def phi(x: float) -> float:
    """Catoni's influence function (the widest one): log(1 + x + x²/2), odd."""
    return math.copysign(math.log1p(abs(x) + x * x / 2), x)


def penalty(lam: float, s2: float, form: str = FORM) -> float:
    """What a gambler's log-wealth gives up per deal at stake ``lam`` when the s.d. is at most √s2:
    log(1 + λ² S² / 2), or the "catoni" form's λ² S² / 2."""
    a = lam * lam * s2 / 2
    return a if form == "catoni" else math.log1p(a)


def growth(lam: float, gap: float, sd: float, s2: float, form: str = FORM) -> float:
    """A gambler's mean log-wealth per deal at stake ``lam`` when the deals are normal with s.d.
    ``sd``, ``gap`` past the hypothesis it bets against, the bound S = √s2 (64 quantiles)."""
    return sum(phi(lam * (gap + sd * q)) for q in _NORMAL) / 64 - penalty(lam, s2, form)


@functools.lru_cache(maxsize=4096)
def bet(d: float, s2: float, form: str = FORM) -> float:
    """The stake λ of both gamblers: ``form="catoni-log"``, the one that maximizes ``growth`` at a
    mean d away with s.d. S (a golden-section search in log λ d; the growth is one-peaked there);
    ``"catoni"``, Wang and Ramdas's: the λ that maximizes φ(λ d) - λ² S² / 2."""
    r2 = s2 / (d * d)
    if form != "catoni" and math.isfinite(r2) and 0 < r2 < math.inf:
        # in t = log(λ d) about the small-stake optimum 1 / r² (d / S²), 400x either way
        sd = math.sqrt(s2)
        g = lambda t: growth(math.exp(t) / d, d, sd, s2, form)  # noqa: E731
        lo, hi = -math.log(r2) - 6.0, -math.log(r2) + 6.0
        inv = (math.sqrt(5) - 1) / 2
        a, b = hi - inv * (hi - lo), lo + inv * (hi - lo)
        ga, gb = g(a), g(b)
        for _ in range(60):
            if ga < gb:
                lo, a, ga = a, b, gb
                b = lo + inv * (hi - lo)
                gb = g(b)
            else:
                hi, b, gb = b, a, ga
                a = hi - inv * (hi - lo)
                ga = g(a)
        return math.exp((lo + hi) / 2) / d
    # the Catoni form's: solve φ'(u) = u r² for u = λ d; φ'(u) = (1 + u) / (1 + u + u²/2), falling from 1
    lo, hi = 0.0, 1.0 / r2
    for _ in range(40):
        u = (lo + hi) / 2
        if (1 + u) / (1 + u + u * u / 2) > u * r2:
            lo = u
        else:
            hi = u
    return lo / d


def _e(log: float) -> str:
    """An e-value (a gambler's wealth) from its logarithm, as a short number."""
    return f"{math.exp(min(log, 700.0)):.3g}"


class _Checked(Decided):
    """What the states of the tests that check an s.d. bound share: the progress of the stronger
    gambler, and a stop (with no decision) where the deals contradict the bound (``contradicted``)."""

    log_h1: float
    log_h0: float
    upper_h1: float
    upper_h0: float
    contradicted: bool

    @property
    def progress(self) -> float:
        """How far the stronger evidence is towards its bound, 0..1 (for a progress bar)."""
        return min(1.0, max(0.0, self.log_h1 / self.upper_h1, self.log_h0 / self.upper_h0))

    @property
    def stopped(self) -> bool:
        return self.decision is not None or self.contradicted

    @property
    def verdict(self) -> str:
        if self.contradicted and not self.decision:
            return "no decision (the s.d. bound is contradicted)"
        return super().verdict


@dataclass(frozen=True)
class VarianceState(_Checked):
    """Where the variance-bounded test stands; ``log_check`` is the evidence that s.d. > S."""

    log_h1: float  # the evidence for H1 (against H0)
    log_h0: float  # the evidence for H0 (against H1)
    upper_h1: float  # log(1/α)
    upper_h0: float  # log(1/β)
    decision: str | None
    margin: MeanSE  # the deal margins so far
    log_check: float = 0.0
    sd_bound: float = 0.0
    contradicted: bool = False

    def assumption(self, way_on: str = "give a larger --sd-bound") -> str:
        """Whether the deals contradict the s.d. bound. The check pairs consecutive deals, so before
        the second deal it has seen nothing, and says so: "do not contradict" of a decision on one
        deal read as a bound tested (at --sd-bound 0.5 on Spades margins of some 100)."""
        if self.margin.n < 2 and not self.contradicted:
            return (f"{'no deal' if self.margin.n == 0 else 'one deal'}: no pair of deals yet to check the s.d. bound "
                    f"{self.sd_bound:g} against (the check pairs consecutive deals)")
        if self.contradicted:
            return (f"the deals contradict the s.d. bound {self.sd_bound:g} (evidence {_e(self.log_check)} >= 1/alpha): "
                    f"no decision is taken on it; {way_on}")
        return (f"the deals do not contradict the s.d. bound {self.sd_bound:g} (evidence against it {_e(self.log_check)}, "
                f"contradicted at 1/alpha = {_e(self.upper_h1)})")

    def evidence(self) -> str:
        return (f"evidence for H1 {_e(self.log_h1)} (accepted at 1/alpha = {_e(self.upper_h1)}), "
                f"for H0 {_e(self.log_h0)} (at 1/beta = {_e(self.upper_h0)}){both_reached(self)}; {self.assumption()}")

    def to_json(self) -> dict:
        return {"log_h1": self.log_h1, "log_h0": self.log_h0, "upper_h1": self.upper_h1, "upper_h0": self.upper_h0,
                "decision": self.decision, "verdict": self.verdict, "deals": self.deals, "mean": self.margin.mean,
                "se": self.margin.se, "log_check": self.log_check, "sd_bound": self.sd_bound,
                "contradicted": self.contradicted}


@dataclass(frozen=True)
class VarianceTest(Scanned):
    """H0: the mean deal margin is at most ``m0``; H1: at least ``m1``; its s.d. at most ``sd_bound``."""

    m0: float
    m1: float
    sd_bound: float
    alpha: float = 0.05
    beta: float = 0.05
    min_deals: int = 0  # none is needed for validity; kept for the interface
    form: str = FORM  # the gambler's wealth per deal (``FORMS``): "catoni" for a spec stored before it was named
    kind = "margin"
    name = "variance"

    def __post_init__(self) -> None:
        check_form(self.form)
        for k in ("m0", "m1", "sd_bound"):
            if not math.isfinite(getattr(self, k)):
                raise ValueError(f"sprt: {k} must be a finite number, got {getattr(self, k)!r}")
        if self.m0 >= self.m1:
            raise ValueError(f"sprt: M0 must be less than M1, got {self.m0:g}, {self.m1:g}")
        if self.sd_bound <= 0:
            raise ValueError(f"sd-bound: the s.d. bound must be above 0, got {self.sd_bound:g}")
        if self.sd_bound < FINEST:  # 1e-300: its square underflowed to 0, a ZeroDivisionError traceback
            raise ValueError(f"sd-bound: the s.d. bound must be at least {FINEST:g} (game units), got {self.sd_bound:g}")
        check_scale(self.m0, self.m1, S=self.sd_bound)
        check_rates(self.alpha, self.beta)
        if not isinstance(self.min_deals, int) or self.min_deals < 0:
            raise ValueError(f"min-deals: must be 0 or more, got {self.min_deals!r}")

    def deal_value(self, seating_margins: Sequence[float]) -> float:
        return sum(seating_margins) / len(seating_margins)

    @property
    def bet(self) -> float:
        """Both gamblers' stake λ on every deal: growth-optimal for a mean at the other
        hypothesis, the gap m1 - m0 away (``bet``)."""
        return bet(self.m1 - self.m0, self.sd_bound ** 2, self.form)

    def expected_deals(self, sd: float | None = None) -> float:
        """Roughly the deals it needs at M1 (and, alike, at M0) when the deals are normal with
        s.d. ``sd`` (the bound by default): log(1/α) over the gambler's mean growth per deal
        (``growth``: E φ(λ (x - m0)) - log(1 + λ² S² / 2), the mean over 64 quantiles of the normal)."""
        sd = self.sd_bound if sd is None else sd
        g = growth(self.bet, self.m1 - self.m0, sd, self.sd_bound ** 2, self.form)
        return math.log(1 / self.alpha) / g if g > 0 else math.inf

    def start(self) -> "VarianceRun":
        return VarianceRun(self)

    def stops(self, state: VarianceState) -> bool:
        """A decision, or deals that contradict the s.d. bound (the test no longer holds)."""
        return bool(state.decision or state.contradicted)

    def fixed_deals(self, sd: float) -> int:
        """Deals of the fixed-length normal test with the same α and β at s.d. ``sd`` (for comparison)."""
        z = _z(1 - self.alpha) + _z(1 - self.beta)
        return max(1, math.ceil((z * sd / (self.m1 - self.m0)) ** 2))

    def describe(self) -> str:
        return (f"variance-bounded test (anytime-valid on any shape with s.d. at most {self.sd_bound:g}, checked as it "
                f"goes) H0: {self.m0:g} or less, H1: {self.m1:g} or more (alpha {self.alpha:g}, beta {self.beta:g})")

    def to_json(self) -> dict:
        return _with_form({"test": self.name, **asdict(self)}, self.form)


@dataclass
class VarianceRun:
    """The two gamblers' wealth and the check of the s.d. bound, one deal at a time."""

    test: VarianceTest
    n: int = 0
    log_h1: float = 0.0
    log_h0: float = 0.0
    log_check: float = 0.0
    _last: float | None = None  # the first deal of an unfinished pair, for the check
    _deals: DeferredMoments = field(default_factory=DeferredMoments)  # the moments, ``play``'s deals noted
    _decision: str | None = None
    _contradicted: bool = False

    def __post_init__(self) -> None:
        # The test's constants, computed once a run, not once a deal (the same expressions,
        # so the same floats): the stake ``bet`` is a 40-step bisection, and the plan's and
        # the benches' simulations add hundreds of thousands of deals.
        t = self.test
        s2 = self._s2 = t.sd_bound ** 2
        lam = self._lam = t.bet
        self._penalty = penalty(lam, s2, t.form)

    def add(self, x: float) -> None:
        t = self.test
        self._deals.read().add(x)
        s2 = self._s2
        if self._decision is None and not self._contradicted:
            lam = self._lam
            self.log_h1 += phi(lam * (x - t.m0)) - self._penalty
            self.log_h0 += phi(lam * (t.m1 - x)) - self._penalty
        if self._last is None:
            self._last = x
        else:
            z = (x - self._last) ** 2 / 2
            self._last = None
            self.log_check += math.log1p(MONITOR_BET * (z / s2 - 1))
        self.n += 1
        if self._decision is None and not self._contradicted:
            if self.log_check >= t.upper_h1:
                self._contradicted = True
            elif self.n >= t.min_deals:
                self._decision = decide(self.log_h1, t.upper_h1, self.log_h0, t.upper_h0)

    def play(self, draw: Callable[[Any], float], rng: Any, max_deals: int) -> str | None:
        """``add`` deals ``draw(rng)`` until a decision, the bound contradicted or ``max_deals``
        deals; the decision. The same arithmetic on locals (``sprt.simulate``)."""
        t = self.test
        m0, m1, s2, lam, pen = t.m0, t.m1, self._s2, self._lam, self._penalty
        up1, up0, least = t.upper_h1, t.upper_h0, t.min_deals
        log1p, copysign = math.log1p, math.copysign
        n, log_h1, log_h0, log_check, last = self.n, self.log_h1, self.log_h0, self.log_check, self._last
        decision, contradicted = self._decision, self._contradicted
        seen = self._deals.unread
        while n < max_deals and decision is None and not contradicted:
            x = draw(rng)
            seen.append(x)
            u = lam * (x - m0)  # phi(u), phi(v)
            v = lam * (m1 - x)
            log_h1 += copysign(log1p(abs(u) + u * u / 2), u) - pen
            log_h0 += copysign(log1p(abs(v) + v * v / 2), v) - pen
            if last is None:
                last = x
            else:
                z = (x - last) ** 2 / 2
                last = None
                log_check += log1p(MONITOR_BET * (z / s2 - 1))
            n += 1
            if log_check >= up1:
                contradicted = True
            elif n >= least:
                decision = decide(log_h1, up1, log_h0, up0)
        self.n, self.log_h1, self.log_h0, self.log_check, self._last = n, log_h1, log_h0, log_check, last
        self._decision, self._contradicted = decision, contradicted
        return decision

    @property
    def decision(self) -> str | None:
        return self._decision

    @property
    def contradicted(self) -> bool:
        return self._contradicted

    def state(self) -> VarianceState:
        t = self.test
        return VarianceState(self.log_h1, self.log_h0, t.upper_h1, t.upper_h0, self._decision, self._deals.read().result(),
                             self.log_check, t.sd_bound, self._contradicted)


def round_up(x: float, digits: int = 3) -> float:
    """``x`` rounded up to ``digits`` significant digits (a bound shown short, never below ``x``)."""
    step = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return float(f"{math.ceil(x / step - 1e-9) * step:.{digits + 1}g}")


@dataclass(frozen=True)
class AutoVarianceTest:
    """The variance-bounded test with its s.d. bound still to be read: ``arbiter evaluate
    --sd-bound auto --db FILE`` takes a room (``auto_room`` of the deals read: 1.2 at 100) times
    the s.d. of the pair's deal margins in the evaluations of the same game and options stored
    there, else its kin's (``arbiter.tournament.evaluate.sd_from_store``, whose ``SdSource``
    carries the s.d. and the room), and plays ``resolve(sd, room)`` (a pair is read once it has
    ``history`` deals there). ``room`` set: that room whatever the deals (the simulations'
    ``--room``). The bound is then an assumption
    made by rule, not by the user: the run checks it as any bound (docs/strength.md measures the
    error rates when it is too small)."""

    m0: float
    m1: float
    alpha: float = 0.05
    beta: float = 0.05
    min_deals: int = 0
    room: float | None = None  # None: ``auto_room`` of the deals read
    history: int = AUTO_HISTORY  # the least deals of a pair read
    form: str = FORM
    kind = "margin"
    name = "variance"

    def __post_init__(self) -> None:
        VarianceTest(self.m0, self.m1, 1.0, self.alpha, self.beta, self.min_deals, self.form)  # the same checks, named alike
        if self.room is not None and not (math.isfinite(self.room) and self.room >= 1):
            raise ValueError(f"sd-bound: the room over the s.d. seen must be at least 1, got {self.room!r}")
        if not isinstance(self.history, int) or self.history < 2:
            raise ValueError(f"sd-bound: a pair read needs at least 2 deals, got {self.history!r}")

    def room_for(self, deals: int) -> float:
        """The room over the s.d. of ``deals`` deals read: ``room`` if set, else ``auto_room``."""
        return self.room if self.room is not None else auto_room(deals)

    def resolve(self, sd: float, room: float | None = None) -> VarianceTest:
        """The test at ``room`` x ``sd`` (``room`` None: ``room_for(history)``, the room at the
        least deals read; a source read from the store says its own: ``SdSource.room``), rounded
        up to three digits."""
        if not (math.isfinite(sd) and sd > 0):
            raise ValueError(f"sd-bound: an s.d. to bound must be above 0, got {sd!r}")
        room = self.room_for(self.history) if room is None else room
        return VarianceTest(self.m0, self.m1, round_up(room * sd), self.alpha, self.beta, self.min_deals, self.form)

    def to_json(self) -> dict:
        return _with_form({"test": self.name, "m0": self.m0, "m1": self.m1, "sd_bound": "auto",
                           "room": "by deals" if self.room is None else self.room, "history": self.history,
                           "alpha": self.alpha, "beta": self.beta, "min_deals": self.min_deals}, self.form)


class _OfBetting:
    """A test made of a betting test (``betting``): its hypotheses, error rates and least deals are that test's."""

    betting: BettingTest

    @property
    def m0(self) -> float:
        return self.betting.m0

    @property
    def m1(self) -> float:
        return self.betting.m1

    @property
    def alpha(self) -> float:
        return self.betting.alpha

    @property
    def beta(self) -> float:
        return self.betting.beta

    @property
    def min_deals(self) -> int:
        return self.betting.min_deals


@dataclass(frozen=True)
class OwnDealsOrBetting(_OfBetting):
    """``arbiter evaluate --sprt``'s test with ``--db`` and no test named: the variance-bounded
    test at ``--sd-bound auto``'s bound (``auto()``: ``room`` x the s.d. of the pair's deal margins)
    where the store holds ``history`` deals of this very pair, every one played by today's bot
    files; the ``betting`` test otherwise (``arbiter.tournament.evaluate.default_choice``). With
    the pair's own 100 deals that bound held every error rate within nominal on every pool
    measured, skewed and heavy-tailed ones too, at 0.80x the fixed test's deals on the close
    Spades pair at 0,20 and 0.89x at 0,50, where the betting
    test within ±900 needs 5.1x and 11x (docs/strength.md); a bound
    borrowed from other bots, or from another version of one, is no such evidence (a third too
    small, the error rates double), so those runs keep the betting test, valid on any shape."""

    betting: BettingTest
    room: float | None = None  # None: ``auto_room`` of the deals read
    history: int = AUTO_HISTORY
    form: str = FORM  # the variance-bounded test's
    switch_after: int = SWITCH_AFTER  # ``switching``'s
    kind = "margin"
    name = "default"

    def __post_init__(self) -> None:
        check_form(self.form)

    def switching(self, after: int | None = None, room_z: float = SWITCH_ROOM_Z) -> "BettingThenVariance":
        """What it runs where the store holds too few of the pair's own deals: the betting test
        until this run has played ``after`` (default ``switch_after``) of them, then the
        variance-bounded test on their s.d. with room ``room_z``."""
        return BettingThenVariance(self.betting, after or self.switch_after, self.form, room_z)

    def auto(self) -> AutoVarianceTest:
        """The variance-bounded test it runs on the pair's own deals, its bound still to be read."""
        b = self.betting
        return AutoVarianceTest(b.m0, b.m1, b.alpha, b.beta, b.min_deals, self.room, self.history, self.form)

    def to_json(self) -> dict:
        d = {"test": self.name, "betting": self.betting.to_json(), "room": "by deals" if self.room is None else self.room,
             "history": self.history}
        if self.switch_after != SWITCH_AFTER:  # (absent: the default, as every spec stored before it had one)
            d["switch_after"] = self.switch_after
        return _with_form(d, self.form)


def check_form(form: Any) -> None:
    if form not in FORMS:
        raise ValueError(f"sprt: the variance-bounded test's form must be one of {', '.join(FORMS)}, got {form!r}")


def _with_form(d: dict, form: str) -> dict:
    """A test's JSON with its form, which a spec stored before forms were named leaves out ("catoni")."""
    d.pop("form", None)
    return d if form == "catoni" else {**d, "form": form}


VARIANCE_FAMILY = ("variance", "default")  # the JSON "test" of the tests that carry a form


def stored_form(js: Any) -> str | None:
    """The form a stored test's JSON (``to_json``) runs in: "catoni" where it names none (stored
    before December 2026); None for a test of another kind."""
    if not isinstance(js, Mapping) or js.get("test") not in VARIANCE_FAMILY:
        return None
    return str(js.get("form", "catoni"))


def as_stored(test: Any, js: Any) -> Any:
    """``test`` in the form of the stored test ``js`` it resumes (the same test but for the form:
    ``in_stored_form``): an evaluation or ladder goes on testing as it began."""
    form = stored_form(js)
    if form is None or getattr(test, "form", None) in (None, form) or form not in FORMS:
        return test
    return replace(test, form=form)


def without_form(js: Any) -> Any:
    """A test's JSON as a spec stored before forms were named wrote it (None: it has no form to drop)."""
    if stored_form(js) is None or "form" not in js:
        return None
    return {k: v for k, v in js.items() if k != "form"}


@dataclass(frozen=True)
class SwitchState(_Checked):
    """Where ``BettingThenVariance`` stands: the two gamblers' wealth (the betting test's, times
    the variance-bounded test's from the switch on), and, once it has switched, after how many
    deals and at what s.d. bound (``variance``: that test's own state from the switch on)."""

    log_h1: float
    log_h0: float
    upper_h1: float
    upper_h0: float
    decision: str | None
    margin: MeanSE  # every deal so far
    after: int  # the deals it switches after
    room: float  # the bound over their s.d.
    variance: VarianceState | None = None  # None: not switched (yet)
    read_sd: float | None = None  # the s.d. of the first ``after`` deals, once read
    clipped: int = 0  # deals the betting test clipped to its bounds
    #: once read: the deals the variance-bounded test at that s.d. expects, and the least any test
    #: valid within the betting test's bounds can (it switched where the first is fewer)
    expected: tuple[float, float] | None = None

    @property  # type: ignore[override]
    def contradicted(self) -> bool:
        return self.variance is not None and self.variance.contradicted

    def evidence(self) -> str:
        said = (f"evidence for H1 {_e(self.log_h1)} (accepted at 1/alpha = {_e(self.upper_h1)}), "
                f"for H0 {_e(self.log_h0)} (at 1/beta = {_e(self.upper_h0)}){both_reached(self)}")
        if self.variance is None:
            if self.expected is not None:
                return said + (f"; the betting test throughout: after {self.after} deals the variance-bounded test at "
                               f"{self.room:.3g}x their s.d. ({self.read_sd:.4g}) would expect about "
                               f"{math.ceil(self.expected[0])} deals, no fewer than the bounds let any test need "
                               f"({math.ceil(self.expected[1])})")
            return said
        v = self.variance
        return (said + f"; the betting test for the first {self.after} deals, then the variance-bounded test at s.d. "
                f"at most {v.sd_bound:g} ({self.room:.3g}x {self.read_sd:.4g}, the s.d. of those deals), "
                f"its evidence multiplying the betting test's; "
                f"{v.assumption('--sequential betting tests with no s.d. bound, on the bounds alone')}")

    def to_json(self) -> dict:
        return {"log_h1": self.log_h1, "log_h0": self.log_h0, "upper_h1": self.upper_h1, "upper_h0": self.upper_h0,
                "decision": self.decision, "verdict": self.verdict, "deals": self.deals, "mean": self.margin.mean,
                "se": self.margin.se, "after": self.after, "room": self.room, "switched": self.variance is not None,
                "sd_bound": None if self.variance is None else self.variance.sd_bound, "read_sd": self.read_sd,
                "log_check": None if self.variance is None else self.variance.log_check,
                "contradicted": self.contradicted, "clipped": self.clipped}


@dataclass(frozen=True)
class BettingThenVariance(_OfBetting, Scanned):
    """The betting test until ``after`` deals, then the variance-bounded test at ``auto_room(after)``
    x the s.d. of those deals, **the betting wealth carried over**, where that test expects fewer
    deals than the betting test's bounds let any test need (``BettingTest.least_deals``: the bounds,
    not the deals, would set the betting test's length; else the betting test goes on): what ``arbiter evaluate --sprt
    --db`` runs by default where the store holds too few deals of the pair played by today's bot
    files to read a bound from before the run (a new version's first evaluation): its own first
    deals are then the 100 read.

    Valid as each part is: the betting wealth is a supermartingale under H0 on any deals within the
    bounds; from the switch on each deal multiplies it by a factor whose mean given the past is at
    most 1 whenever the s.d. is at most S (``VarianceTest``), and S, read from earlier deals only,
    is chosen before them: the product is a supermartingale, and Ville's inequality holds at every
    stopping time. The assumption is the ``--sd-bound auto`` default's (the pair's own 100 deals
    with room; checked as the deals come), measured on every pool: docs/strength.md, "The switch
    within a run"."""

    betting: BettingTest
    after: int = SWITCH_AFTER
    form: str = FORM
    room_z: float = SWITCH_ROOM_Z
    kind = "margin"
    name = "switch"

    def __post_init__(self) -> None:
        check_form(self.form)
        if not isinstance(self.after, int) or self.after < 2:
            raise ValueError(f"sprt: the test switches after at least 2 deals, got {self.after!r}")
        if not (math.isfinite(self.room_z) and self.room_z >= 0):
            raise ValueError(f"sprt: the switch's room must be a number at least 0, got {self.room_z!r}")

    @property
    def room(self) -> float:
        """The bound over the s.d. of the first ``after`` deals: 1 + room_z / √after."""
        return 1.0 + self.room_z / math.sqrt(self.after)

    def deal_value(self, seating_margins: Sequence[float]) -> float:
        return sum(seating_margins) / len(seating_margins)

    def start(self) -> "SwitchRun":
        return SwitchRun(self)

    def stops(self, state: SwitchState) -> bool:
        return state.stopped

    def fixed_deals(self, sd: float) -> int:
        return self.betting.fixed_deals(sd)

    def describe(self) -> str:
        b = self.betting
        return (f"betting test (anytime-valid, any distribution; margin, bounds {b.lo:g}..{b.hi:g}) until {self.after} "
                f"deals, then the variance-bounded test at {self.room:.3g}x their s.d. where it is the quicker "
                f"(anytime-valid on any shape within it, checked as it goes) H0: {self.m0:g} or less, H1: {self.m1:g} or more (alpha "
                f"{self.alpha:g}, beta {self.beta:g})")

    def to_json(self) -> dict:
        return {"test": self.name, "betting": self.betting.to_json(), "after": self.after, "form": self.form,
                "room_z": self.room_z}


class SwitchRun:
    """``BettingThenVariance`` one deal at a time."""

    def __init__(self, test: BettingThenVariance) -> None:
        self.test = test
        self._betting = test.betting.start()
        self._variance: VarianceRun | None = None
        self._moments = Moments()
        self._read_sd: float | None = None
        self._expected: tuple[float, float] | None = None  # at the switch: the bounded test's deals, the bounds' floor

    @property
    def n(self) -> int:
        return self._moments.n

    def add(self, x: float) -> None:
        self._moments.add(x)
        if self._variance is not None:
            self._variance.add(x)
            return
        self._betting.add(x)
        t = self.test
        if self._betting.decision is None and self._betting.n == t.after:  # once: the first ``after`` deals
            sd = self._betting.state().margin.sd  # (the betting run's moments: every deal so far, unclipped)
            if sd and sd > 0:  # every deal alike: no s.d. to read, the betting test goes on
                self._read_sd = sd
                b = t.betting
                bounded = VarianceTest(b.m0, b.m1, round_up(t.room * sd), b.alpha, b.beta, form=t.form)
                # switched only where the bounds, not the deals, would set the betting test's length: the
                # bounded test expects fewer deals than any test valid within the bounds can (a choice made
                # on the deals so far: the wealth stays a supermartingale either way)
                self._expected = (bounded.expected_deals(sd), max(b.least_deals()))
                if self._expected[0] < self._expected[1]:
                    v = VarianceRun(bounded)
                    v.log_h1, v.log_h0 = self._betting.log_h1, self._betting.log_h0
                    self._variance = v

    @property
    def decision(self) -> str | None:
        return self._variance.decision if self._variance is not None else self._betting.decision

    @property
    def contradicted(self) -> bool:
        return self._variance is not None and self._variance.contradicted

    def state(self) -> SwitchState:
        t, b = self.test, self._betting.state()
        v = self._variance.state() if self._variance is not None else None
        src = v if v is not None else b
        return SwitchState(src.log_h1, src.log_h0, b.upper_h1, b.upper_h0, src.decision, self._moments.result(), t.after,
                           t.room, v, self._read_sd, b.clipped, self._expected)

