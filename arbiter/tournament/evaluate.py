"""Duplicate-match evaluation of two bots, in process: the margin with its standard error.

    from arbiter.tournament.evaluate import evaluate
    result = evaluate("spades", "search", "heuristic", deals=20, seed=1, options={"deals": 1})
    print(result.summary())

Every deal is played twice with the same cards, the bots swapping seats (bot A takes the
even-numbered sides, bot B the odd ones, then the reverse: ``arbiter.batch.plan.pair_seatings``),
so the luck of the cards cancels. The deals, their seeds and seatings are a two-bot
duplicate tournament's on the same seed (``arbiter.batch.plan.deal_seed``), match for match:
``arbiter evaluate A B --seed S`` and ``arbiter tournament run --bots A,B --seed S`` play the
same matches. A match's margin is bot A's mean score minus bot B's mean
score (the games' own numbers: Spades points, Spot units, Spite and Malice 1/0.5/0 or
series points); a deal's margin is the mean over its two seatings. The reported
margin is the mean over deals with its standard error (sample standard deviation of the
deal margins / √deals), and the win rate counts a match won when its margin is
positive (draws half).

With a sequential test, ``sprt=BettingTest(m0, m1, lo, hi)`` (``arbiter.rating.betting``:
valid on any deal distribution within the bounds; ``BettingTest.pair_score`` on the
pair's win/draw/loss score) or ``sprt=Sprt(m0, m1)`` (``arbiter.rating.sprt``: the
normal approximation), ``deals`` is a cap: the deals are taken in order and the evaluation
stops after the first deal at which the test decides ("H1 accepted": the margin, or
score, is at least m1; "H0 accepted": at most m0). ``sprt=VarianceTest(m0, m1, sd_bound)``
(``arbiter.rating.catoni``) holds on any distribution whose s.d. is at most the bound, and is about
as short as a fixed test; ``AutoVarianceTest`` reads the bound from ``store`` (``sd_from_store``),
and ``OwnDealsOrBetting`` (``arbiter evaluate --sprt --db`` with no test named) runs it where
``store`` holds 100 deals of this very pair by today's bot files, else its betting test
(``default_choice``).

With ``luck`` (``arbiter.tournament.probes.luck_probes``) the result also gives the margin with
the luck taken out (``EvalResult.luck``, ``arbiter.rating.luck``, the slopes fitted on other
deals), and a sequential test reads the corrected margins. Spades, one hand a match: each deal
corrected by its bids against its cards, centred on bidding-only probes, the first deals' bids
checked against probes of the same deals. Spot and Spite and Malice: by the luck of the cards
drawn from the stock, each against the stock's exact mean (``arbiter.rating.draws``), no probes.

With ``store`` every finished match is committed to the store (as a two-bot duplicate
tournament named ``name``, readable by ``arbiter standings`` and the web page), and running
the same evaluation again resumes it: stored matches are kept, missing ones are played.
The sequential test looks at the deals in deal order whatever was stored when, so an
interrupted and resumed evaluation stops at the same deal, with the same result, as one
run straight through. Nothing is written until the run is known to start (its venue open: its
bots up, its cluster reached; ``play_batch``'s ``on_open``), as a tournament's run: one that
never starts leaves the store as it was.

The matches are played by the one batch engine (``arbiter.batch.engine.play_batch``, in plan
order): in this process with the arbiter's own match runner (bots as ``InProcessSeat``), in
``jobs`` worker processes, as hosted bot processes (``transport="local"`` or ``"grpc"``, as
tournaments play), or on a Dask cluster (``cluster``: a scheduler's address), where each match is a
task played as tournaments play theirs there (``arbiter.batch.cluster``: the bots as
sandboxed processes on the worker, their files shipped and checked by hash, a fresh
process per seat per match); the result is the same for the same seed every way. With
``jobs`` > 1 (on the cluster: ``jobs`` matches at once, 16 if ``jobs`` is 1) matches run
ahead of the deal being counted: with a sequential test those past the deal that decides
are stopped, and neither counted nor stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

from cardarena.games import ConfigError, Game, Outcome, get_game, typed_options
from arbiter.batch.engine import BotsDoNotPlay, batch_key, play_batch
from arbiter.batch.plan import PlannedMatch, deal_seed, pair_seatings
from arbiter.batch.settings import CONTENT_KEY, bot_contents, bot_names, check_named, entrant_names, keyed_spec
from arbiter.hosting.loading import BUNDLED, game_names, load_bot
from arbiter.batch.single import name_taken
from arbiter.batch.venue import AUTO, Kind, Where, describe, open_venue, parse_where
from arbiter.tournament.spec import MAX_DEALS  # a tournament's bound on its deals: a typo of a few zeros
from arbiter.tournament.spec import in_stored_form
from arbiter.tournament.run import counted_matches  # what of a stored tournament may be added up
from arbiter.store.db import MatchRow, Store, StoreError, TournamentRow, Verdict
from arbiter.store.registry import is_registered_ref
from arbiter.rating.betting import BettingState, BettingTest
from arbiter.rating.catoni import (
    AUTO_HISTORY, AutoVarianceTest, BettingThenVariance, OwnDealsOrBetting, VarianceTest, as_stored, auto_room, without_form,
)
from arbiter.rating.luck import (
    MIN_DEALS as LUCK_MIN_DEALS, ExpectedFeatures, LuckAdjusted, OnlineCorrection, luck_adjusted, luck_names,
)
from arbiter.rating.sprt import Sprt, SprtState
from arbiter.rating.ratings import forfeit_stake, forfeits_line, margin_of  # margin_of: evaluate's API, the gate's margin too
from arbiter.rating.stats import MeanSE, mean_se, pooled_sd
from cardarena.records import MAX_CLOCK_MS, MAX_SEED, Clock, FailurePolicy, MatchConfig, MatchRecord

if TYPE_CHECKING:
    from arbiter.tournament.probes import LuckProbes

log = logging.getLogger(__name__)

#: Format of ``EvalResult.to_json`` (the recorded margins under arbiter/tools/data/).
JSON_FORMAT = 1
#: Format of a stored evaluation's spec (its resume key). 2: the deals are a tournament's
#: (``arbiter.batch.plan.deal_seed``); an evaluation stored by format 1 is not resumed.
SPEC_FORMAT = 2


@dataclass(frozen=True)
class MatchMargin:
    deal: int
    rotation: int  # 0: bot A on the even sides; 1: swapped
    seed: int
    margin: float  # bot A's mean score minus bot B's
    reason: str  # the outcome's end reason
    scores: tuple[float, ...] = ()  # per seat, as in the outcome
    ranks: tuple[int, ...] = ()  # per seat
    detail: str = ""  # a forfeit's: which seat failed and how (the outcome's detail); "" otherwise

    def to_json(self) -> dict[str, Any]:
        return {"deal": self.deal, "rotation": self.rotation, "seed": self.seed, "margin": self.margin,
                "reason": self.reason, "scores": list(self.scores), "ranks": list(self.ranks),
                **({"detail": self.detail} if self.detail else {})}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "MatchMargin":
        return cls(int(d["deal"]), int(d["rotation"]), int(d["seed"]), float(d["margin"]), str(d["reason"]),
                   tuple(float(x) for x in d.get("scores", ())), tuple(int(x) for x in d.get("ranks", ())),
                   str(d.get("detail", "")))


@dataclass
class EvalResult:
    """The outcome of a duplicate evaluation."""

    game: str
    bot_a: str
    bot_b: str
    deals: int  # deals counted in the result (both seatings played)
    seed: int
    options: dict[str, Any]
    matches: list[MatchMargin] = field(default_factory=list)
    sprt: Sprt | BettingTest | VarianceTest | None = None
    sprt_state: SprtState | BettingState | None = None  # where the test stopped (None without a test)
    max_deals: int = 0  # the cap (``deals`` asked for)
    resumed: int = 0  # matches found in the store instead of played
    played: int = 0  # matches this run played (0: every one counted was read from the store; ``venue`` unused)
    seed_source: str = ""  # with seed None: "drawn" (a new secret seed) or "resumed" (an unfinished evaluation's)
    stored_as: str | None = None  # the store's tournament name
    #: its deals when ``stored_as`` is an evaluation of more deals whose first ones were read (None:
    #: the run's own, resumed, extended or new): nothing was played, nothing of it written
    read_of: int | None = None
    #: with ``read_of``: the deals that evaluation holds whole (fewer than ``read_of`` when its
    #: sequential test stopped it early: it never played the rest)
    read_held: int = 0
    #: a new evaluation begun under the default name where one of the same command with other bot
    #: files is stored (``edited_since``): its name and the files that differ (None: no such one)
    edited: tuple[str, tuple[str, ...]] | None = None
    #: a new evaluation on a new secret seed beside a finished one of the same command and bot
    #: files, which the same command does not extend (``finished_alike``): its name and whether its
    #: sequential test decided (None: none)
    after_finished: tuple[str, bool] | None = None
    preset: str | None = None
    venue: str = ""  # where the matches were played (``arbiter.batch.venue.Where``), in words
    #: with ``luck``: the features' expectation over the probes, and each deal's features in deal order
    luck_expected: ExpectedFeatures | None = None
    luck_features: list[dict[str, float]] = field(default_factory=list, repr=False)
    luck_test: bool = False  # whether the sequential test read the luck-adjusted margins
    luck_decisions: tuple[int, int] = (0, 0)  # with ``luck``: the probes' decisions, the counted matches'
    luck_reused: int = 0  # with ``luck``: probe deals read from a probes file, not played
    luck_prior: int = 0  # with ``luck`` and a test: deals of earlier evaluations its slopes started from
    sd_source: "SdSource | None" = None  # with ``--sd-bound auto``: where the test's s.d. bound was read
    #: the test ``OwnDealsOrBetting`` chose (``--sprt`` with ``--db``, no test named; None: a test
    #: named): "" the variance-bounded one on the pair's own deals, else why the betting test
    default_why: str | None = None
    #: with ``store``: the run began (its venue open, its evaluation written or about to be). False
    #: when it stopped before (a Ctrl-C while its bots started): it wrote nothing to the store
    begun: bool = False

    @property
    def luck(self) -> LuckAdjusted | None:
        """The luck-adjusted mean margin (``arbiter.rating.luck``); None without ``luck`` or with
        fewer than ``arbiter.rating.luck.MIN_DEALS`` deals."""
        if self.luck_expected is None:
            return None
        margins = self.deal_margins()
        return luck_adjusted(margins, self.luck_features, self.luck_expected,
                             names=luck_names(len(margins), self.luck_expected))

    def luck_summary(self) -> str | None:
        """The luck-adjusted margin beside the raw one (None without ``luck``)."""
        if self.luck_expected is None:
            return None
        adjusted = self.luck
        if adjusted is None:
            return (f"luck-adjusted margin: none, {self.deals} {'deal is' if self.deals == 1 else 'deals are'} fewer than the {LUCK_MIN_DEALS} its slopes are "
                    "fitted on (held apart from the deal they correct): the raw margin above stands")
        probes, matches = self.luck_decisions
        cost = f"; {self.luck_reused} of the probe deals read from the probes file" if self.luck_reused else ""
        if probes and matches and adjusted.raw.no_spread is None:  # deals all alike: no variance to price
            per = adjusted.variance_ratio * (1 + probes / matches)
            cost += (f"; counting the probes' {probes:,} decisions ({probes / matches:.2f}x these matches' {matches:,}), "
                     f"the variance per decision is {per:.2f}x the raw margin's ({'it pays' if per < 1 else 'it does not pay'}"
                     f": below 1 it pays; probes kept with --probes-file are not played again)")
        return adjusted.describe() + cost

    def forfeit_summary(self) -> str | None:
        """The matches a side forfeited (a timeout, an illegal action, a crash, a disconnect), by
        bot and reason, or None if none was: each counts as a loss by the widest margin the rules
        allow for the side that failed (``ratings.forfeit_stake``, ``margin_of``), which the margin
        alone does not tell from play."""
        lost = [m for m in self.matches if m.reason.startswith("forfeit")]
        if not lost:
            return None
        if self.bot_a == self.bot_b:  # a bot against itself: which copy
            a, b = f"{self.bot_a} (bot A)", f"{self.bot_b} (bot B)"
        else:
            a, b = self.bot_a, self.bot_b
        by: dict[str, int] = {}
        reasons: dict[str, int] = {}
        for m in lost:  # the side that failed lost the match: A's when A's margin is below 0
            who = a if m.margin < 0 else b
            by[who] = by.get(who, 0) + 1
            kind = m.reason.removeprefix("forfeit_")
            reasons[kind] = reasons.get(kind, 0) + 1
        first = lost[0]
        said = f"; the first in deal {first.deal}, seating {first.rotation}: {first.detail}" if first.detail else ""
        stake = forfeit_stake(get_game(self.game, self.options, self.preset))
        return forfeits_line(by, reasons, f"{len(self.matches)} matches", stake, said, "the margin above")

    def deal_margins(self) -> list[float]:
        by_deal: dict[int, list[float]] = {}
        for m in self.matches:
            by_deal.setdefault(m.deal, []).append(m.margin)
        return [sum(v) / len(v) for _, v in sorted(by_deal.items())]

    @property
    def margin(self) -> MeanSE:
        return mean_se(self.deal_margins())

    @property
    def mean_margin(self) -> float:
        return self.margin.mean

    @property
    def stderr(self) -> float:
        """Standard error of the mean deal margin (0 with fewer than two deals)."""
        return self.margin.se or 0.0

    @property
    def wins(self) -> int:
        return sum(1 for m in self.matches if m.margin > 0)

    @property
    def draws(self) -> int:
        return sum(1 for m in self.matches if m.margin == 0)

    @property
    def losses(self) -> int:
        return sum(1 for m in self.matches if m.margin < 0)

    @property
    def win_rate(self) -> float:
        """Bot A's share of the matches won (draws count half)."""
        n = len(self.matches)
        return (self.wins + 0.5 * self.draws) / n if n else 0.0

    def summary(self) -> str:
        return (
            f"{self.game}: {self.bot_a} vs {self.bot_b}, {self.deals} deal{'' if self.deals == 1 else 's'} x 2 seatings (seed {self.seed}): "
            + (f"margin {self.margin.text()} (s.e.{self._few()}), " if self.margin.no_spread is None else
               f"margin {self.mean_margin:+.2f} ({self.margin.no_spread}{self._few()}), ") +
            f"win rate {100 * self.win_rate:.1f}% ({self.wins}-{self.draws}-{self.losses}"
            + (", a draw counting half)" if self.draws else ")")
        )

    def _few(self) -> str:
        """What the standings say below ``MIN_INTERVAL_DEALS`` deals: no interval (docs/strength.md)."""
        from arbiter.rating.ratings import MIN_INTERVAL_DEALS, TOO_FEW_DEALS

        return f"; {TOO_FEW_DEALS}" if self.margin.n < MIN_INTERVAL_DEALS else ""

    def sprt_summary(self, so_far: bool = False) -> str | None:
        """The sequential test's line: which test, verdict, deals, evidence against its bounds,
        and the length of a fixed test for comparison (None without a test). The one wording
        of the verdict: ``arbiter evaluate`` prints it, its ``--json`` and the store keep it
        (``verdict``), and every display of a stored evaluation shows it. ``so_far``: the run is
        still going, or was interrupted, before its test decided ("undecided so far", not "no
        decision" at a cap it never reached)."""
        t, s = self.sprt, self.sprt_state
        if t is None or s is None:
            return None
        after = f"after {s.deals} deal{'' if s.deals == 1 else 's'}"
        verdict = s.verdict
        if s.stopped:
            how = after
        elif so_far:  # (still running, or interrupted: the evaluation's state says which)
            verdict, how = "undecided so far", f"{after} (its cap: --deals {self.max_deals})"
        else:
            how = f"{after} (the cap, --deals {self.max_deals})"
        fixed = self.fixed_deals()
        if fixed is not None:
            compare = f"a fixed-length test would need about {fixed} deals"
        elif s.deals < 2:
            compare = "too few deals to size a fixed-length test"
        else:
            compare = "every deal alike: no spread to size a fixed-length test"
        on = ""
        if self.luck_test and self.luck_expected is not None:
            fitted = (f"{self.luck_prior} deals of earlier evaluations (the probes file) and the deals before it"
                      if self.luck_prior else f"the deals before it, none for the first {LUCK_MIN_DEALS}")
            centre = ("the draws' expectations, exact" if self.luck_expected.exact
                      else f"{self.luck_expected.probes} probe deals")
            on = f"on the luck-adjusted margin (each deal corrected with slopes fitted on {fitted}; centred on {centre}), "
        source = ""
        if self.sd_source is not None:
            source = (f" (the default where the store holds this pair's own deals: {self.sd_source.describe()}; "
                      f"--sequential betting: the test that assumes no s.d. bound)" if self.default_why is not None
                      else f" (--sd-bound auto: {self.sd_source.describe()})")
        return (f"{on}{t.describe()}{source}: {verdict} {how}; {s.evidence()}; {compare}{self._bounds_price()}"
                f"{self._sd_bound_price()}{self._default_note()}")

    def _default_note(self) -> str:
        """Why the default test with a store was the betting one: no 100 deals of this pair by
        today's files there to read an s.d. bound from ("" for any other test)."""
        if self.default_why and isinstance(self.sprt, BettingThenVariance):
            return (f"; the default until the store holds {AUTO_HISTORY} deals of this pair played by today's bot files "
                    f"({self.default_why}): this run's own first {self.sprt.after} deals give the s.d. bound")
        if not self.default_why or not isinstance(self.sprt, BettingTest):
            return ""
        return (f"; the betting test, the default until the store holds {AUTO_HISTORY} deals of this pair played by "
                f"today's bot files ({self.default_why}); with them the default is the variance-bounded test at "
                f"{auto_room(AUTO_HISTORY):g}x their s.d. (less with more), about as short as a fixed-length test")

    def verdict(self, final: bool = True) -> Verdict | None:
        """What the store keeps of the test's verdict (``Store.verdict``; None without a test
        or before its first deal): ``final`` False for a run still going or interrupted before
        it decided."""
        s = self.sprt_state
        text = self.sprt_summary(so_far=not final)
        if s is None or text is None:
            return None
        return Verdict(s.decision, s.deals, final or s.stopped, text, s.to_json())

    def _bounds_price(self) -> str:
        """Why a betting test on the margin took longer than a fixed test: the least any test
        valid on every distribution within its bounds can expect to need (``least_deals``),
        said only where it exceeds the fixed test's deals at the s.d. seen (or there is no s.d.
        to size one): bounds close to the deals (Spite and Malice's -1..1) cost nothing, and
        the line blamed them all the same."""
        t = self.sprt
        least = getattr(t, "least_deals", None)
        if least is None or getattr(t, "kind", "margin") != "margin":
            return ""
        at_m0, at_m1 = least()
        fixed = self.fixed_deals()
        if fixed is not None and max(at_m0, at_m1) <= fixed:
            return ""
        line = (f"; any test whose error rates hold on every distribution within {t.lo:g}..{t.hi:g} needs at least "
                f"about {math.ceil(at_m0)} deals at M0 and {math.ceil(at_m1)} at M1: those bounds, not the deals, set "
                f"the length (a narrower --bounds LO,HI tests the margin clipped to it")
        sd = self.sprt_state.margin.sd if self.sprt_state is not None else None
        if sd:
            from arbiter.rating.catoni import VarianceTest

            s = float(f"{1.2 * sd:.3g}")
            n = VarianceTest(t.m0, t.m1, s, t.alpha, t.beta).expected_deals(sd)
            if math.isfinite(n):
                line += (f"; if a deal margin's s.d. is at most S, --sd-bound S tests it on any shape: at S = {s:g}, "
                         f"1.2x the s.d. seen here, about {math.ceil(n)} deals at M1, on fresh deals; --sd-bound auto "
                         f"--db FILE takes S from the evaluations stored there")
        return line + ")"

    def _sd_bound_price(self) -> str:
        """Why a variance-bounded test took longer than a fixed test: its s.d. bound far above the s.d.
        seen (the kin's read by --sd-bound auto, or a guess with much room). Its length is set by the
        bound, not by the deals, and the line said only that a fixed test would need 5 deals beside
        "no decision after 50" (Spades heuristic vs greedy at S = 128, s.d. 31). Said where the
        bound's expected deals exceed the fixed test's and half as many again those at 1.2x the s.d.
        seen, when it took more deals than the fixed test or decided nothing (the betting test's note on
        its bounds, for this test's)."""
        from arbiter.rating.catoni import VarianceTest

        t, state = self.sprt, self.sprt_state
        if not isinstance(t, VarianceTest) or state is None:
            return ""
        sd, fixed = state.margin.sd, self.fixed_deals()
        if not sd or fixed is None or (state.decision and state.deals <= fixed):  # decided as soon: nothing to explain
            return ""
        tight = float(f"{1.2 * sd:.3g}")
        if tight >= t.sd_bound:
            return ""
        at_bound = t.expected_deals(sd)
        at_tight = VarianceTest(t.m0, t.m1, tight, t.alpha, t.beta).expected_deals(sd)
        if not (at_bound > fixed and at_bound > 1.5 * at_tight):
            return ""
        many = "many" if not math.isfinite(at_bound) else f"about {math.ceil(at_bound)}"
        return (f"; the s.d. bound {t.sd_bound:g} is {t.sd_bound / sd:.1f}x the s.d. seen here ({sd:.4g}): the bound, "
                f"not the deals, sets the length ({many} deals at M1 at S = {t.sd_bound:g}; if a deal margin's s.d. is "
                f"at most {tight:g}, 1.2x the s.d. seen here, --sd-bound {tight:g} needs about {math.ceil(at_tight)}, "
                f"on fresh deals)")

    def fixed_deals(self) -> int | None:
        """Deals a fixed-length test with the test's α and β would need, at the observed s.d.
        of the test's deal values (None without a test, with fewer than two deals or no spread)."""
        if self.sprt is None or self.sprt_state is None:
            return None
        sd = self.sprt_state.margin.sd
        return self.sprt.fixed_deals(sd) if sd else None

    def to_json(self, command: str = "") -> dict[str, Any]:
        """Everything measured, every match (the format of arbiter/tools/data/*.json)."""
        return {
            "format": JSON_FORMAT, "command": command, "game": self.game, "bot_a": self.bot_a, "bot_b": self.bot_b,
            "seed": self.seed,
            # fixed (--seed, or the default for bots installed here), drawn (a new secret seed: the bots
            # could not know it) or resumed (an unfinished evaluation's secret seed)
            "seed_source": self.seed_source or "fixed", "options": self.options, "preset": self.preset, "deals": self.deals,
            "max_deals": self.max_deals,  # the --deals asked for: more than "deals" when a test stopped it early
            "summary": self.summary(), "mean": self.mean_margin,
            "se": self.margin.se,  # null with one deal, as the test's state and the terminal's "s.e. -": not 0
            "sprt": None if self.sprt is None else self.sprt.to_json(),
            "sprt_state": None if self.sprt_state is None else self.sprt_state.to_json(),
            "verdict": self.sprt_summary(),  # the test's line, as printed and stored (null without a test)
            "luck": None if self.luck is None else self.luck.to_json(),
            "sd_auto": None if self.sd_source is None else self.sd_source.to_json(),
            # the test run by default with --db (null: a test named): "variance" on the pair's own stored
            # deals, or "betting" and why not
            "default_test": None if self.default_why is None else {
                "ran": "betting" if isinstance(self.sprt, BettingTest) else "switch" if isinstance(
                    self.sprt, BettingThenVariance) else "variance", "why": self.default_why},
            # where its matches came from (--db): played by this run, or read from the store (``stored_as``:
            # its own, resumed or extended; or, with ``read_of``, the first deals of a longer one)
            "played": self.played, "read": self.resumed, "stored_as": self.stored_as, "read_of": self.read_of,
            "matches": [m.to_json() for m in self.matches],
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "EvalResult":
        matches = [MatchMargin.from_json(m) for m in d["matches"]]
        return cls(d["game"], d["bot_a"], d["bot_b"], int(d["deals"]), int(d["seed"]), dict(d["options"]), matches,
                   preset=d.get("preset"), max_deals=int(d.get("max_deals", d["deals"])))


def who_of(seats: Sequence[str], bot_a: str) -> list[int]:
    """Per seat 0 (bot A, named ``bot_a``) or 1 (bot B), from a seating's bot names."""
    return [0 if n == bot_a else 1 for n in seats]


def seating_who(game: Game, rotation: int) -> list[int]:
    """Per seat 0 (bot A) or 1 (bot B) in seating ``rotation`` of an evaluation's deal
    (``arbiter.batch.plan.pair_seatings``: A on the even-numbered sides in seating 0)."""
    return who_of(pair_seatings(game, "A", "B")[rotation], "A")


def _config(game_name: str, seed: int, options: Mapping[str, Any], preset: str | None, clock_ms: tuple[int, int]) -> MatchConfig:
    return MatchConfig(game=game_name, seed=seed, options=dict(options), preset=preset, clock=Clock(*clock_ms),
                       policy=FailurePolicy())


def _margin(deal: int, rotation: int, seed: int, who: Sequence[int], record: MatchRecord, stake: float) -> MatchMargin:
    out = record.outcome
    assert out is not None
    return MatchMargin(deal, rotation, seed, margin_of(out, who, stake), out.reason.value, tuple(out.scores), tuple(out.ranks),
                       _forfeit_detail(out))


def _forfeit_detail(outcome: Outcome) -> str:
    """A forfeit's detail (which seat failed and how: "seat 2 (crash): the bot failed: choose raised
    ..."), kept with its margin so the result can say why; "" for any other end."""
    return outcome.detail if outcome.reason.is_forfeit else ""


def evaluation_plan(game_name: str, bot_a: str, bot_b: str, deals: int, seed: int, options: Mapping[str, Any],
                    preset: str | None, clock_ms: tuple[int, int] = (0, 0),
                    names: tuple[str, ...] | None = None) -> Iterator[PlannedMatch]:
    """The matches of an evaluation, in order: deal ``d`` in seating ``r`` is match ``2d + r``
    (its ``item`` is ``(d, r)``), seats named ``names`` (default ``bot_names((bot_a, bot_b))``)."""
    game = get_game(game_name, options, preset)
    a, b = names or bot_names((bot_a, bot_b))
    seatings = pair_seatings(game, a, b)
    for d in range(deals):
        for r, seats in enumerate(seatings):
            yield PlannedMatch(2 * d + r, _config(game_name, deal_seed(seed, d), options, preset, clock_ms), seats, (d, r))


def evaluation_spec(
    game: str, bot_a: str, bot_b: str, deals: int, seed: int, options: Mapping[str, Any], preset: str | None,
    decision_ms: int, bank_ms: int, sprt: Sprt | BettingTest | VarianceTest | AutoVarianceTest | OwnDealsOrBetting | None,
    luck_test: bool = False,
) -> dict[str, Any]:
    """What defines a stored evaluation (its resume key). The keys a tournament spec shares
    (game, bots, deals, seed, options, preset, clock) mean the same, so the standings and
    the web page read it as a two-bot duplicate tournament. ``luck_test``: the sequential test
    reads the luck-adjusted margins (``--luck-adjusted --sprt``), another test than on the raw
    ones: without it in the key the same command less --luck-adjusted resumed the evaluation, its
    test rescanning the raw margins to another verdict, and went on playing one its first test had
    stopped. (No key when false: evaluations stored before resume as they were.)"""
    return {
        "evaluate": SPEC_FORMAT, "game": game, "bots": [bot_a, bot_b], "deals": deals, "seed": seed,
        "options": dict(options), "preset": preset, "duplicate": True, "decision_ms": decision_ms, "bank_ms": bank_ms,
        "policy": "forfeit", "max_strikes": FailurePolicy().max_strikes, "sprt": None if sprt is None else sprt.to_json(),
        **({"luck_test": True} if luck_test else {}),
    }


def secret_seed(store: Store | None, name: str | None, fresh: bool, spec: Mapping[str, Any],
                contents: Mapping[str, str]) -> tuple[int, str]:
    """A seed for an evaluation whose bots must not know it (``evaluate``'s ``seed`` None) and
    where it came from: the seed of the evaluation called ``name`` in ``store``, whatever else it
    stores (a run it cannot resume or extend is refused naming what the command changed, never a
    seed it did not give); else of the latest one with ``spec`` but for its seed (and for a cap of
    fewer deals, which it extends), and the bot files' ``contents``, that is unfinished, so that the
    same command resumes it ("resumed"); else a new one ("drawn"; with ``fresh`` always)."""
    if store is not None and not fresh and name is not None:
        stored = store.stored_spec(name)
        if stored is not None and "evaluate" in stored and isinstance(stored.get("seed"), int):
            return stored["seed"], "resumed"
        return secrets.randbits(62), "drawn"
    if store is not None and not fresh:
        for t in reversed(store.tournaments()):
            # a cap of deals no larger (extended)
            fewer = isinstance(t.spec.get("deals"), int) and t.spec["deals"] <= spec["deals"]
            if t.finished is None and fewer and _alike(t.spec, spec, ("seed", "deals", CONTENT_KEY)) \
                    and t.spec.get(CONTENT_KEY, {}) == dict(contents) and isinstance(t.spec.get("seed"), int):
                return t.spec["seed"], "resumed"
    return secrets.randbits(62), "drawn"


def continued(store: Store, spec: dict[str, Any], contents: Mapping[str, str], name: str | None, fresh: bool,
              spelt: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None, dict[str, Any]]:
    """The stored evaluation a run of ``spec`` (its bots' file ``contents``) continues: its name,
    its stored spec (None: a new one) and ``spec`` as it is stored there. ``name``: that one
    (None: the default name). Else the one of the default name; one stored before options were
    typed, under the name of its options as ``spelt`` (``-o deals=1``'s text "1"); else the one
    stored under the default name of the same evaluation to more deals that holds every deal this
    run counts (``_holds``): its first deals are this run's (the same seed), read, none played and
    nothing of it written (``evaluate`` reads it: ``stored["deals"]`` is more than ``spec``'s);
    else the one to the most deals fewer, which the run extends: its deals are read from the
    store, and only those added are played."""
    keyed = {**spec, CONTENT_KEY: dict(contents)} if contents else spec
    if name is not None:
        stored = None if fresh else store.stored_spec(name)
        return name, stored, in_stored_form(spec, stored)
    names = [default_name(keyed)]
    if dict(spelt) != spec["options"]:  # as an arbiter that stored the options as given named it
        names.append(default_name({**keyed, "options": dict(spelt)}))
    if (old := without_form(spec.get("sprt"))) is not None:  # as one stored before the test's forms named it
        names.append(default_name({**keyed, "sprt": old}))
    if fresh:
        return names[0], None, spec
    for candidate in names:
        if (stored := store.stored_spec(candidate)) is not None:
            return candidate, stored, in_stored_form(spec, stored)
    prefix, deals = _name_prefix(spec), spec["deals"]
    shorter = longer = None
    for t in store.tournaments([]):  # (one unreadable is no evaluation to extend)
        if not t.name.startswith(prefix) or not isinstance(t.spec.get("deals"), int) or t.spec["deals"] == deals:
            continue
        if not _alike(t.spec, keyed, ("deals",)):
            continue
        if t.spec["deals"] < deals and (shorter is None or t.spec["deals"] >= shorter.spec["deals"]):
            shorter = t  # the most deals to read
        elif t.spec["deals"] > deals and longer is None and _holds(store, t, deals):
            longer = t
    if (found := longer or shorter) is not None:
        return found.name, found.spec, in_stored_form(spec, found.spec)
    return names[0], None, spec


def edited_since(store: Store, spec: Mapping[str, Any], contents: Mapping[str, str],
                 secret: bool = False) -> tuple[str, tuple[str, ...]] | None:
    """The latest stored evaluation of the same command (``spec``, its seed given) played with
    other contents of the bot files, and which files differ: a run begun anew under the default
    name because a file was edited says so, where it began a new evaluation in silence and the old
    one's note still said the same command resumes it (None: no such one). ``secret``: the run's
    seed was drawn (no ``--seed``, ``secret_seed``): the one the same command would have resumed
    had the files been as they were, an unfinished one of any seed and no more deals."""
    prefix = _name_prefix(spec, seed=not secret)
    for t in reversed(store.tournaments([])):
        held = t.spec.get(CONTENT_KEY)
        if not t.name.startswith(prefix) or not isinstance(held, Mapping) or dict(held) == dict(contents):
            continue
        if secret and (t.finished is not None or not isinstance(t.spec.get("deals"), int)
                       or t.spec["deals"] > spec["deals"] or not isinstance(t.spec.get("seed"), int)):
            continue  # (one the same command would not resume, edited or not)
        if _alike(t.spec, spec, ("deals", CONTENT_KEY, *(("seed",) if secret else ()))):
            return t.name, tuple(sorted(f for f in set(held) | set(contents) if held.get(f) != contents.get(f)))
    return None


def finished_alike(store: Store, spec: Mapping[str, Any], contents: Mapping[str, str]) -> tuple[str, bool] | None:
    """The latest finished evaluation of the same command as ``spec`` (but for its secret seed
    and its cap of deals) with the same bot files, and whether its sequential test stopped it
    (decided: more deals would not be played), or None. On a secret seed the same command
    resumes or extends only an unfinished one, so after a finished one it begins anew: `--deals
    60` after a run of 30 that reached its cap played 60 new deals, and said nothing of the 30."""
    prefix = _name_prefix(spec, seed=False)
    for t in reversed(store.tournaments([])):
        held = t.spec.get(CONTENT_KEY)
        if (t.name.startswith(prefix) and t.finished is not None and isinstance(held, Mapping)
                and dict(held) == dict(contents) and _alike(t.spec, spec, ("seed", "deals", CONTENT_KEY))):
            return t.name, t.stopped_early
    return None


def _holds(store: Store, tour: TournamentRow, deals: int) -> bool:
    """Whether the stored evaluation ``tour`` (of more deals) holds every match a run of its
    first ``deals`` deals counts: both seatings of each, or of each up to the deal where its
    sequential test decided (the same test on the same deals decides there again; not on the
    luck-adjusted margins, whose correction is fitted on other deals for another cap)."""
    need = deals
    if not tour.spec.get("luck_test") and (v := store.verdict(tour.id)) is not None and v.final and v.decision:
        need = min(deals, v.deals)
    have = {(row.deal, row.rotation) for row in store.matches(tour.id, records=False)}
    return all((d, r) in have for d in range(need) for r in (0, 1))


def default_name(spec: Mapping[str, Any]) -> str:
    """``evaluate-GAME-A-B-SEED-<hash of the spec>``: the same command resumes, another starts anew."""
    digest = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:6]
    return _name_prefix(spec) + digest


def default_named(name: str, spec: Mapping[str, Any]) -> bool:
    """Whether the stored evaluation ``name`` (of ``spec``) has the default name of its command
    (``default_name``; not a ``--name``): the same command finds it by its spec, and with a bot
    file edited since begins a new one beside it, where one named is refused (``keyed_spec``)."""
    try:
        return name.startswith(_name_prefix(spec))
    except (KeyError, TypeError, ValueError):
        return False


def _name_prefix(spec: Mapping[str, Any], seed: bool = True) -> str:
    """``evaluate-GAME-A-B-SEED-``: what the default names of one command's evaluations share
    (``default_name``), whatever else their specs hold (``seed`` False: ``evaluate-GAME-A-B-``,
    on any seed)."""
    a, b = bot_names(tuple(spec["bots"]))
    return f"evaluate-{spec['game']}-{a}-{b}-" + (f"{spec['seed']}-" if seed else "")


def _alike(stored: Mapping[str, Any], spec: Mapping[str, Any], but: Sequence[str]) -> bool:
    """Whether a stored evaluation's spec is ``spec`` (as it is stored there: ``in_stored_form``)
    but for the keys ``but`` and the s.d. bound ``--sd-bound auto`` read (kept in the stored spec)."""
    skip = {*but, "sd_auto"}
    mine = in_stored_form(dict(spec), stored)
    return {k: v for k, v in stored.items() if k not in skip} == {k: v for k, v in mine.items() if k not in skip}


#: ``jobs`` at most: worker processes (or a cluster's matches at once); past a C int the
#: process pool itself fails (OverflowError), and far below it the machine does.
MAX_JOBS = 1024


def check_evaluation(game: str, bots: Sequence[str], options: Mapping[str, Any] | None = None,
                     preset: str | None = None) -> None:
    """What ``evaluate`` would refuse on starting, said before anything is made for it: the
    game, its options and preset (ConfigError), and each bot given by name, file or folder
    (BotLoadError; a bundled one that does not play the game, BotsDoNotPlay). A typo in a bot's
    path or an option made ``arbiter evaluate --db NEW`` create the store and say so, then
    refuse the run, leaving an empty store behind (``arbiter play`` and ``tournament run``
    check first). A registered ``name@version`` is looked up in the store when the run starts."""
    get_game(game, dict(options or {}), preset)
    for spec in bots:
        if is_registered_ref(spec):
            continue
        check_named(spec)
        if spec in BUNDLED and not (bot := load_bot(spec)).plays(game):
            raise BotsDoNotPlay(spec, game, game_names(bot.games))


def evaluate(
    game: str,
    bot_a: str,
    bot_b: str,
    deals: int = 10,
    seed: int | None = 0,
    options: Mapping[str, Any] | None = None,
    preset: str | None = None,
    jobs: int = 1,
    decision_ms: int = 0,
    bank_ms: int = 0,
    progress: Callable[[MatchMargin], None] | None = None,
    sprt: Sprt | BettingTest | VarianceTest | AutoVarianceTest | OwnDealsOrBetting | None = None,
    store: Store | None = None,
    name: str | None = None,
    fresh: bool = False,
    on_deal: Callable[[EvalResult], None] | None = None,
    cluster: str | None = None,
    transport: str | Where = AUTO,
    luck: LuckProbes | None = None,
    on_start: Callable[[EvalResult], None] | None = None,
) -> EvalResult:
    """Play up to ``deals`` duplicate deals of ``game`` between two bot specs; see the module docstring.

    ``progress`` is called after every match played, ``on_deal`` after every deal counted
    (stored ones included), with the result so far (``sprt_state`` up to date); ``on_start``
    once, before any deal is counted, with what the run continues or begins known
    (``stored_as``, ``resumed``, ``edited``, ``seed``).
    ``transport`` is ``"inproc"`` (the bots in this process, or ``jobs`` processes),
    ``"grpc"`` or ``"local"`` (each bot as sandboxed processes over a private arbiter, as
    tournaments play them, ``jobs`` matches at once) or ``"auto"`` (the default: in process
    for bundled bots, hosted (``HOSTED``) when either is a file or a registered bot, so a new
    version is measured under the limits of the tournament that follows).
    ``luck`` (``arbiter.tournament.probes.luck_probes`` of the same game and bots): every deal's
    features are read from its matches, and the result gives the luck-adjusted margin beside the
    raw one (``EvalResult.luck``); a sequential test (``Sprt`` or ``VarianceTest``, whose
    assumptions hold for the corrected values) then reads the corrected margins
    (``arbiter.rating.luck.OnlineCorrection``).
    ``seed`` None: a seed no bot can know (README, "Seeds are secrets": the deals follow from
    it by a public scheme): that of the same evaluation, but for its seed, left unfinished in
    ``store`` (or stored under ``name``), which the run resumes, else one drawn at random
    (``EvalResult.seed_source`` says which; ``EvalResult.seed`` is the seed).

    Raises ConfigError for a bad game, option, count or transport, BotLoadError for an unknown bot,
    StoreError when the store is locked by another run or holds another evaluation of that name,
    ClusterError (a ConfigError) when the cluster cannot play the matches.
    """
    if not 1 <= deals <= MAX_DEALS:
        raise ConfigError(f"deals: must be from 1 to {MAX_DEALS}, got {deals}")
    # named by their flags, as `arbiter play` names them (tournament.play._config)
    if seed is not None and not 0 <= seed <= MAX_SEED:  # refused before the deals are played, not once stored
        raise ConfigError(f"--seed must be a whole number from 0 to {MAX_SEED}, got {seed}")
    for what, value in (("decision-ms", decision_ms), ("bank-ms", bank_ms)):
        if not 0 <= value <= MAX_CLOCK_MS:
            raise ConfigError(f"--{what} must be a whole number from 0 to {MAX_CLOCK_MS}, got {value}")
    if not 1 <= jobs <= MAX_JOBS:
        raise ConfigError(f"--jobs must be a whole number from 1 to {MAX_JOBS}, got {jobs}")
    where = parse_where(transport, cluster=cluster, bots=(bot_a, bot_b),
                        allowed=(Kind.INPROC, Kind.GRPC, Kind.LOCAL, Kind.CLUSTER), field="--transport")
    spelt = dict(options or {})
    game_rules = get_game(game, spelt, preset)  # validate before starting anything
    stake = forfeit_stake(game_rules)  # what a forfeit costs in a margin: the widest the rules allow
    # stored, played and reported as the game reads them: -o deals=1 (the text "1") and {"deals": 1} alike
    opts = typed_options(game, spelt, preset)
    if isinstance(sprt, AutoVarianceTest) and store is None:
        raise ConfigError("sd-bound auto: the s.d. bound is read from the evaluations stored before this one: "
                          "give --db FILE (or --sd-bound S)")
    if isinstance(sprt, OwnDealsOrBetting) and store is None:  # (the CLI makes it only with --db)
        raise ConfigError("sprt: the test chosen by the stored deals reads them from a store: give one, or the "
                          "betting test itself")
    if luck is not None:
        if (luck.game_name, luck.preset) != (game, preset) or typed_options(game, luck.options, preset) != opts:
            raise ConfigError("luck: its probes were played for another game or options than this evaluation's")
        if isinstance(sprt, (BettingTest, BettingThenVariance, OwnDealsOrBetting)):  # each bets within those bounds
            raise ConfigError("--luck-adjusted with --sprt: the betting test's bounds are the raw margin's, which a "
                              "correction widens; give --sd-bound S (the variance-bounded test, S a bound on the "
                              "adjusted margin's s.d.) or --sequential normal")
    contents = bot_contents((bot_a, bot_b)) if store is not None else {}  # a file bot edited since is another evaluation
    seed_source = ""
    if seed is None:
        seed, seed_source = secret_seed(
            store, name, fresh, evaluation_spec(game, bot_a, bot_b, deals, 0, opts, preset, decision_ms, bank_ms, sprt,
                                         luck is not None and sprt is not None),
            contents)
    result = EvalResult(game, bot_a, bot_b, 0, seed, opts, sprt=sprt, max_deals=deals, preset=preset,
                        seed_source=seed_source,
                        venue=describe(where, (bot_a, bot_b)),
                        luck_expected=None if luck is None else luck.expected,
                        luck_reused=0 if luck is None else luck.reused,
                        luck_test=luck is not None and sprt is not None)
    names = bot_names((bot_a, bot_b))

    stored: dict[tuple[int, int], MatchMargin] = {}
    stored_records: dict[tuple[int, int], MatchRecord] = {}
    tid = None
    if store is not None:
        spec = evaluation_spec(game, bot_a, bot_b, deals, seed, opts, preset, decision_ms, bank_ms, sprt,
                               result.luck_test)
        if name is not None and (taken := name_taken(name)):  # "" is a blank name, refused, not the default name
            raise ConfigError(f"--name {name[:80]!r}: {taken}")
        result.stored_as, stored, spec = continued(store, spec, contents, name, fresh, spelt)
        sprt = result.sprt = as_stored(sprt, spec.get("sprt"))  # one begun in an earlier form goes on in it
        if stored is None and name is None and not fresh and contents:
            result.edited = edited_since(store, spec, contents, secret=seed_source == "drawn")
        if stored is None and name is None and not fresh and seed_source == "drawn" and result.edited is None:
            result.after_finished = finished_alike(store, spec, contents)
        if name is None and stored is not None and stored["deals"] > deals:  # its first deals are these: read
            result.read_of = stored["deals"]
            tid = store.tournament(result.stored_as).id
        if isinstance(sprt, AutoVarianceTest):
            # read once, kept in the spec: a resumed run tests at the bound it started with
            source = _kept_source(stored, result.stored_as, store.path) or sd_from_store(
                store, game, (bot_a, bot_b), opts, preset, exclude=result.stored_as, room=sprt.room,
                min_deals=sprt.history, contents=contents)
            spec["sd_auto"] = source.to_json()
            sprt = result.sprt = sprt.resolve(source.largest, source.room)
            result.sd_source = source
        elif isinstance(sprt, OwnDealsOrBetting):
            chosen, source, why = default_choice(sprt, store, stored, result.stored_as, game, (bot_a, bot_b), opts,
                                                 preset, contents)
            spec["sd_auto"] = {"switch": why, "after": chosen.after, "room_z": chosen.room_z} \
                if isinstance(chosen, BettingThenVariance) else {"betting": why} if source is None else source.to_json()
            sprt = result.sprt = chosen
            result.sd_source, result.default_why = source, why
        if result.read_of is None:
            spec = keyed_spec(spec, contents, stored, result.stored_as, str(store.path))
            store.lock(result.stored_as)
            # Nothing is written until the run is known to start (its bots up, its cluster reached: ``begin``), as a
            # tournament's run (``run_tournament``): one that never starts left a "0/N interrupted" evaluation whose
            # resume failed alike, and with --fresh, the one it was to replace deleted. Asked only, here: the
            # evaluation it resumes or (a stored one of fewer deals) extends, its deals read, the new ones played.
            resumed = store.open_tournament(result.stored_as, game, spec, fresh=fresh, planned=2 * deals,
                                            extend="deals", check=True)
            tid = resumed.id if resumed is not None else None
        if tid is not None:
            names = _played_names(store, tid, get_game(game, opts, preset), names)  # its records' names, not a second pair
            stored = _stored_margins(store, tid, stake, names[0])
            stored_records = {(row.deal, row.rotation): row.record() for row in store.matches(tid)} if luck is not None else {}
        else:
            stored = {}
        result.resumed = sum(1 for (d, _) in stored if d < deals)
        if result.read_of is not None:
            result.read_held = sum(1 for (d, r) in stored if r == 0 and (d, 1) in stored)

    begun = False  # the evaluation written (``begin``): a run that never started wrote nothing

    def begin() -> None:
        """The run starts (``play_batch``'s ``on_open``; with every match it counts stored, before it
        finishes): its evaluation written, created (with ``fresh`` the old one replaced in the same
        transaction), extended or resumed as it was; an extension's verdict is where its stored deals
        leave the test, not its earlier run's, final at its cap."""
        nonlocal tid, begun
        if store is None or result.read_of is not None or begun:
            return
        result.begun = True  # (first: a Ctrl-C inside the writing below may have left them written)
        was = tid  # the stored one it resumes or extends (None: a new one)
        tid = store.open_tournament(result.stored_as, game, spec, fresh=fresh, planned=2 * deals, extend="deals").id
        begun = True
        if was is not None and (so_far := result.verdict(final=False)) is not None:
            store.set_verdict(tid, so_far)

    def save(m: PlannedMatch, record: MatchRecord) -> None:
        # called in plan order, for a match the test still counts: one past its decision is never saved
        if store is not None and result.read_of is None:
            d, r = m.item
            store.save_match(tid, m.key, d, r, record, sides=_sides(game, opts, preset, record))

    plan = evaluation_plan(game, bot_a, bot_b, deals, seed, opts, preset, (decision_ms, bank_ms), names)
    skip = {2 * d + r for d, r in stored}

    async def start(stack: contextlib.AsyncExitStack) -> Any:
        """The matches still to play, in plan order, at a venue opened (in ``stack``) when the
        first is needed: once the stored deals are counted (none, when they are all it needs)."""
        if result.read_of is not None:  # (``_holds`` said the stored evaluation has every one)
            raise StoreError(f"{result.stored_as} in {store.path if store else ''}: a deal this run counts is not stored")
        # the seats one bot holds in a match (a bot and its copy per team)
        seatings = pair_seatings(get_game(game, opts, preset), *names)
        copies = max(s.count(n) for s in seatings for n in set(s))
        # hosted with isolation "match": a fresh process per seat per match, as a cluster worker plays
        # db_path: a registered bot (name@version) is looked up in the store the run keeps its matches in
        venue = await stack.enter_async_context(open_venue(
            where, dict(zip(names, (bot_a, bot_b))), game, isolation="match", copies=copies,
            db_path=None if store is None else store.path, warm=jobs, concurrency=jobs, workers=jobs,
            batch=f"evaluate-{batch_key()}"))
        at_once = (jobs if jobs > 1 else CLUSTER_BATCH) if where.kind is Kind.CLUSTER else jobs
        return await stack.enter_async_context(contextlib.aclosing(
            play_batch(plan, venue, concurrency=at_once, skip=skip, save=save, ordered=True, on_open=begin)))

    async def count() -> None:
        test = sprt.start() if sprt is not None else None
        online = None
        if luck is not None:
            own = {deal_seed(seed, d) for d in range(deals)}
            online = OnlineCorrection(luck.expected.subset(luck.test_names),
                                      prior=[(m, f) for s, m, f in luck.fit if s not in own])
            result.luck_prior = online.prior if sprt is not None else 0
        who = [seating_who(game_rules, r) for r in (0, 1)]
        async with contextlib.AsyncExitStack() as stack:
            played = None
            for d in range(deals):
                pair, records, new = [], [], False
                for r in (0, 1):
                    m = stored.get((d, r))
                    if m is None and played is None:  # the first match to play: the stored deals are counted
                        played = await start(stack)  # (written once its venue is open: ``begin``)
                    if m is None:
                        new = True
                        result.played += 1
                        p = await anext(played)
                        assert p.match.item == (d, r)
                        m = _margin(d, r, p.match.config.seed, who_of(p.match.seats, names[0]), p.record, stake)
                        records.append((p.record, r, who[r]))
                        if progress:
                            progress(m)
                    elif luck is not None:
                        records.append((stored_records[(d, r)], r, who[r]))
                    pair.append(m)
                result.matches += pair
                result.deals += 1
                value = None
                if luck is not None and online is not None:
                    features = luck.features(records)
                    if not luck.draws and d < LUCK_CHECKED and await luck.probe(deal_seed(seed, d)) != features:
                        raise ConfigError(
                            f"--luck-adjusted: deal {d} bid otherwise in its matches than in a probe of the same deal "
                            "(a bot whose bids depend on the clock, the load or the match, not only on what it is shown "
                            "and its seed?): the probes would centre the correction wrongly; run without --luck-adjusted")
                    result.luck_decisions = (luck.decisions,
                                             result.luck_decisions[1] + sum(len(rec.actions) for rec, _, _ in records))
                    result.luck_features.append(features)
                    value = online.add(sum(m.margin for m in pair) / len(pair), features)
                if sprt is not None and test is not None:
                    test.add(sprt.deal_value([m.margin for m in pair]) if value is None else value)
                    result.sprt_state = test.state()
                    if begun and new and not result.sprt_state.stopped:
                        # where the test stands, kept as each deal is played: a run killed outright (no
                        # word, no finish) leaves it too (its decision is written with its finish)
                        store.set_verdict(tid, result.verdict(final=False))
                if on_deal:
                    on_deal(result)
                if result.sprt_state is not None and result.sprt_state.stopped:
                    break

    if on_start:
        on_start(result)
    try:
        asyncio.run(count())
        if store is not None and result.read_of is None:  # its plan kept: finished with fewer, stopped early
            begin()  # (none played: every match it counts was stored)
            store.mark_finished(tid, result.verdict())  # and its verdict, replacing an earlier run's
    except BaseException:
        if begun and (so_far := result.verdict(final=False)) is not None:
            with contextlib.suppress(StoreError):  # (what stopped the run is the error to tell)
                store.set_verdict(tid, so_far)
        raise
    finally:
        if store is not None and result.read_of is None:
            store.unlock()
    log.info("%s", result.summary())
    return result


#: With ``luck``: the first deals whose matches' bids are checked against a probe of the same deal.
LUCK_CHECKED = 5


#: ``SdSource.own``, ``DealsPlan.own`` when the pair has no stored deals at all.
NONE_OF_THE_PAIR = "none of this pair"


@dataclass(frozen=True)
class SdSource:
    """Where ``--sd-bound auto`` read its bound: ``room`` x ``largest``, the largest s.d. of the
    deal margins of the pairs in ``pairs`` ((the pair, its deals, their s.d. pooled over its
    evaluations, those evaluations' names), largest first), the stored evaluations of the same
    game and options: the pair's own if there are (``among`` empty), else ``among`` its kin."""

    largest: float
    room: float
    among: str
    pairs: tuple[tuple[str, int, float, tuple[str, ...]], ...]
    #: the pair's own deals played by another version of a bot file than the one run (file, deals)
    edited: tuple[tuple[str, int], ...] = ()
    #: with ``among``: why not the pair's own deals (``own_pair_note``)
    own: str = NONE_OF_THE_PAIR

    def describe(self) -> str:
        pair, deals, sd, names = self.pairs[0]
        shown = ", ".join(names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
        shown += edited_text(dict(self.edited))
        whose = "this pair's" if not self.among else f"{pair}'s"
        line = f"{self.room:.3g}x {sd:.4g}, the s.d. of the deal margins of {whose} {deals} stored deals ({shown})"
        if self.among:
            line += f", the largest among the stored evaluations {self.among} ({self.own})"
        return line

    def to_json(self) -> dict[str, Any]:
        return {"largest": self.largest, "room": self.room, "among": self.among,
                "pairs": [[p, k, sd, list(names)] for p, k, sd, names in self.pairs],
                **({"edited": [list(e) for e in self.edited]} if self.edited else {}),
                **({"own": self.own} if self.own != NONE_OF_THE_PAIR else {})}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "SdSource":
        return cls(float(d["largest"]), float(d["room"]), str(d["among"]),
                   tuple((str(p), int(k), float(sd), tuple(str(n) for n in names)) for p, k, sd, names in d["pairs"]),
                   tuple((str(f), int(n)) for f, n in d.get("edited", ())), str(d.get("own", NONE_OF_THE_PAIR)))


def edited_text(edited: Mapping[str, int]) -> str:
    """``, N of them by another version of FILE than today's`` per bot file (``StoredPair.edited_deals``)."""
    return "".join(f", {n} of them by another version of {source} than today's" for source, n in edited.items())


@dataclass(frozen=True)
class StoredPair:
    """One pair's deal margins over its evaluations in a store (``stored_pairs``): per evaluation,
    its name and the margins (A's minus B's, ``pair`` in the order first stored) of the deals not
    already counted for an earlier one."""

    pair: tuple[str, str]
    evaluations: tuple[tuple[str, tuple[float, ...]], ...]
    contents: tuple[Mapping[str, str], ...] = ()  # per evaluation, its file bots' content hashes as stored

    @property
    def deals(self) -> int:
        return sum(len(xs) for _, xs in self.evaluations)

    @property
    def sd(self) -> float | None:
        """The s.d. pooled about each evaluation's own mean (None: fewer than two deals in one, or all alike)."""
        return pooled_sd(xs for _, xs in self.evaluations)

    def margins(self, bots: tuple[str, str] | None = None) -> list[float]:
        """Every deal's margin, A's minus B's as ``bots`` order them (default: as ``pair`` does)."""
        sign = -1.0 if bots is not None and bots[0] != self.pair[0] else 1.0
        return [sign * x for _, xs in self.evaluations for x in xs]

    def centred(self) -> list[float]:
        """Every deal's margin less its evaluation's mean (the spread ``sd`` pools, no evaluation's margin)."""
        return [x - sum(xs) / len(xs) for _, xs in self.evaluations for x in xs]

    def edited_deals(self, now: Mapping[str, str]) -> dict[str, int]:
        """Per bot file in ``now`` (``bot_contents`` of the bots as they are), the deals here played
        by another version of it (none for a file the evaluations did not play)."""
        out: dict[str, int] = {}
        for (_, xs), stored in zip(self.evaluations, self.contents):
            for source, digest in now.items():
                if source in stored and stored[source] != digest:
                    out[source] = out.get(source, 0) + len(xs)
        return out


def stored_pairs(store: Store, game: str, options: Mapping[str, Any], preset: str | None,
                 exclude: str | None = None) -> list[StoredPair]:
    """The pairs of bots evaluated in ``store`` (by ``arbiter evaluate``, or at a table of two in a
    duplicate round robin, which plays an evaluation's matches) at ``game`` under the same options in force (as
    ``options`` and ``preset`` set them, however spelt: ``"1"`` or ``1``, a preset or its options;
    ``exclude``: an evaluation left out, the one being run), each with the deal
    margins of all its evaluations, each deal once (two evaluations on one seed of the same bot
    files play the same deals alike; a file edited between them does not)."""
    # the pair (in the order first stored) -> its evaluations' (name, margins of deals not seen before)
    # and the pair's own file hashes each was played with
    pairs: dict[frozenset[str], tuple[tuple[str, ...], set[tuple[str, int]], list[tuple[str, tuple[float, ...]]],
                                      list[Mapping[str, str]]]] = {}
    rules = get_game(game, options, preset)
    in_force, stake = rules.describe_options(), forfeit_stake(rules)
    same: dict[str, bool] = {}  # the options as stored -> whether they are those in force here

    def alike(spec: Mapping[str, Any]) -> bool:
        key = json.dumps([spec.get("options"), spec.get("preset")], sort_keys=True, default=str)
        if key not in same:
            try:  # -o deals=1 from the command line, {"deals": 1} from the library, a preset spelt out: alike
                same[key] = get_game(game, spec.get("options") or {}, spec.get("preset")).describe_options() == in_force
            except (ConfigError, TypeError, ValueError):
                same[key] = False
        return same[key]

    for tour in store.tournaments():
        spec = tour.spec
        if not _pair_spec(spec) or tour.name == exclude or spec.get("game") != game or not alike(spec):
            continue
        try:
            deals = _table_deals(store, tour, tuple(str(b) for b in spec["bots"]), stake)
        except (StoreError, KeyError, TypeError, ValueError, ConfigError):
            continue  # not readable as a batch of pairs: not evidence of the deals
        stored = spec.get(CONTENT_KEY) if isinstance(spec.get(CONTENT_KEY), Mapping) else {}
        for pair, played in deals.items():
            first, seen, evaluations, contents = pairs.setdefault(frozenset(pair), (pair, set(), [], []))
            mine = {src: stored[src] for src in pair if src in stored}
            version = json.dumps(mine, sort_keys=True)  # a file bot edited since plays other matches
            sign = 1.0 if pair[0] == first[0] else -1.0  # each pair's margins one way round
            new = []
            for seed, margin in played:
                if (version, seed) not in seen:
                    seen.add((version, seed))  # a deal is its seed: the same bots on one seed played it alike
                    new.append(sign * margin)
            if new:
                evaluations.append((tour.name, tuple(new)))
                contents.append(mine)
    return [StoredPair((first[0], first[1]), tuple(evaluations), tuple(contents))
            for first, _, evaluations, contents in pairs.values()]


def _table_deals(store: Store, tour: Any, sources: tuple[str, ...], stake: float) -> dict[tuple[str, str], list[tuple[int, float]]]:
    """Per pair of bots that shared a table in tournament ``tour`` (``sources``: its bots as its spec
    gives them; a pair in that order), the (seed, deal margin) of each deal both of whose seatings
    are stored: the first bot's margin in each, averaged. A table of other than two bots, or not in
    two seatings, is left out; so is, while the tournament runs with duplicate deals, a deal not yet
    played at every table of it (``counted_matches``: its margin here is a result of a deal that
    comes back)."""
    names = entrant_names(store, tour.id, sources)  # its records' names
    source_of, order = dict(zip(names, sources)), {n: i for i, n in enumerate(names)}
    tables: dict[tuple[int, int], dict[int, MatchRow]] = {}
    for row in counted_matches(store, tour).rows:
        tables.setdefault((row.deal, row.table), {})[row.rotation] = row
    out: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for _, rows in sorted(tables.items()):
        bots = set(rows[0].seats) if 0 in rows else set()
        if set(rows) != {0, 1} or len(bots) != 2 or set(rows[1].seats) != bots or not bots <= set(order) \
                or rows[0].seed != rows[1].seed:
            continue
        a, b = sorted(bots, key=order.__getitem__)
        margin = sum(margin_of(r.outcome, who_of(r.seats, a), stake) for r in rows.values()) / 2
        out.setdefault((source_of[a], source_of[b]), []).append((rows[0].seed, margin))
    return out


def _pair_spec(spec: Mapping[str, Any]) -> bool:
    """An evaluation's spec, or a tournament's whose tables play evaluations' matches: duplicate,
    round robin in rotations, no teams or challenger (``arbiter evaluate A B --seed S`` and
    ``arbiter tournament run --bots A,B --seed S`` play the same matches; with more bots, each
    table of two plays that pair's)."""
    if spec.get("evaluate") == SPEC_FORMAT:
        return True
    bots = spec.get("bots")
    return (isinstance(bots, list) and len(bots) >= 2 and spec.get("duplicate") is True
            and spec.get("format") == "round-robin" and spec.get("seatings") == "rotations"
            and not spec.get("teams") and not spec.get("challenger"))


def own_pair_note(pairs: Sequence[StoredPair], bots: tuple[str, str], min_deals: int = AUTO_HISTORY) -> str:
    """Why ``closest_pairs`` read the kin of ``bots``, not the pair itself: it has no stored deals,
    fewer than ``min_deals``, or none with a spread. "none of this pair" was said of all three: of a
    pair with 50 deals stored, which the user had just played."""
    own = [p for p in pairs if len(set(p.pair) & set(bots)) == len(set(bots)) == len(set(p.pair))]
    if not own:
        return NONE_OF_THE_PAIR
    p = own[0]
    deals = f"this pair's {p.deals} stored deal{'' if p.deals == 1 else 's'}"
    if p.deals < min_deals:
        return f"{deals} {'is' if p.deals == 1 else 'are'} fewer than the {min_deals} read"
    return f"{deals} have no spread"


def closest_pairs(pairs: Sequence[StoredPair], bots: tuple[str, str], game: str,
                  min_deals: int = AUTO_HISTORY) -> tuple[str, list[StoredPair]]:
    """The closest kin of ``bots`` among ``pairs`` holding ``min_deals`` deals with a spread: the
    same two bots (either order; ``among`` empty), else pairs with either of them, else any;
    largest s.d. first. ``among`` says which, ``(.., [])`` when none."""
    kin: dict[int, list[StoredPair]] = {0: [], 1: [], 2: []}
    for p in pairs:
        if p.deals < min_deals or p.sd is None:
            continue
        shared = len(set(p.pair) & set(bots))
        kin[0 if shared == len(set(bots)) == len(set(p.pair)) else 1 if shared else 2].append(p)
    a, b = bots
    for level, among in ((0, ""), (1, f"with {a} or {b} at {game} with these options"),
                         (2, f"of any bots at {game} with these options")):
        if kin[level]:
            return among, sorted(kin[level], key=lambda p: -(p.sd or 0.0))
    return "", []


def sd_from_store(store: Store, game: str, bots: tuple[str, str], options: Mapping[str, Any], preset: str | None,
                  exclude: str | None = None, room: float | None = None, min_deals: int = AUTO_HISTORY,
                  contents: Mapping[str, str] | None = None, pairs: Sequence[StoredPair] | None = None) -> SdSource:
    """The s.d. bound ``--sd-bound auto`` tests at: ``room`` (None: ``auto_room`` of that pair's
    deals) x the largest s.d. of a pair's deal margins in the evaluations stored in ``store`` of
    ``game`` under the options ``options`` and
    ``preset`` set (``exclude``: the evaluation being run), among the closest kin of ``bots`` there
    are (``closest_pairs``: the same two bots, else pairs with either of them, else any). A pair's
    deals are those of all its evaluations, each deal once (``stored_pairs``), their s.d. pooled
    about each evaluation's own mean; a pair is read once it has ``min_deals`` of them. ``contents``
    (``bot_contents`` of ``bots``, read if not given): the pair's own deals that another version of a
    bot file played are counted in ``SdSource.edited``; ``pairs``: ``stored_pairs`` if the caller has
    read them. ConfigError, saying what was looked for, when there is none."""
    if pairs is None:
        pairs = stored_pairs(store, game, options, preset, exclude)
    among, found = closest_pairs(pairs, bots, game, min_deals)
    if not found:
        raise ConfigError(no_pair_deals(store, game, min_deals, "sd-bound auto", "read a deal margin's s.d. from", pairs)
                          + ", or give --sd-bound S")
    edited = {} if among else found[0].edited_deals(bot_contents(bots) if contents is None else contents)
    return SdSource(found[0].sd or 0.0, auto_room(found[0].deals) if room is None else room, among,
                    tuple((" and ".join(p.pair), p.deals, p.sd or 0.0, tuple(n for n, _ in p.evaluations)) for p in found),
                    tuple(edited.items()), own_pair_note(pairs, bots, min_deals) if among else NONE_OF_THE_PAIR)


def default_choice(test: OwnDealsOrBetting, store: Store, stored: Mapping[str, Any] | None, name: str, game: str,
                   bots: tuple[str, str], options: Mapping[str, Any], preset: str | None,
                   contents: Mapping[str, str]) -> tuple[BettingTest | VarianceTest | BettingThenVariance, SdSource | None, str]:
    """The test ``test`` (``--sprt`` with ``--db`` and no test named) runs for the evaluation
    ``name``: the variance-bounded one at ``--sd-bound auto``'s bound where ``store`` holds
    ``test.history`` deals of this very pair (either order) over its other evaluations, none played
    by another version of a bot file than ``contents``; else the betting test until the run itself
    has played ``test.switch_after`` deals, then the variance-bounded test at 1 + 3/√50 = 1.42x their
    s.d. (``test.switching()``, ``BettingThenVariance``), and why (``""`` with the bound). The choice is
    kept in the evaluation's ``stored`` spec (``"sd_auto"``: the bound's source, or ``{"switch": why,
    "after": ..., "room_z": ...}``; an
    evaluation begun before the switch kept ``{"betting": why}`` and runs the betting test
    throughout): a resumed run tests as it began, though its own deals may have made the pair's
    100 since."""
    if stored is not None and isinstance(kept := stored.get("sd_auto"), Mapping) and "betting" in kept:
        return test.betting, None, str(kept["betting"])  # begun before the switch was the default: betting throughout
    if stored is not None and isinstance(kept, Mapping) and "switch" in kept:  # as it began (100 and 2: its first form)
        return test.switching(int(kept.get("after", AUTO_HISTORY)), float(kept.get("room_z", 2.0))), None, str(kept["switch"])
    if (source := _kept_source(stored, name, store.path)) is not None:
        return test.auto().resolve(source.largest, source.room), source, ""
    pairs = stored_pairs(store, game, options, preset, exclude=name)
    among, found = closest_pairs(pairs, bots, game, test.history)
    if found and not among:
        edited = found[0].edited_deals(contents)
        if default_is_bounded(among, edited):
            source = sd_from_store(store, game, bots, options, preset, exclude=name, room=test.room,
                                   min_deals=test.history, contents=contents, pairs=pairs)
            return test.auto().resolve(source.largest, source.room), source, ""
        return test.switching(), None, (f"this pair's {found[0].deals} stored deals{edited_text(edited)}: a new version "
                                        "may vary otherwise")
    own = own_pair_note(pairs, bots, test.history)
    return test.switching(), None, "it holds no deal of this pair" if own == NONE_OF_THE_PAIR else own


def default_is_bounded(among: str, edited: Mapping[str, int]) -> bool:
    """The rule of ``default_choice`` (and of ``--plan``'s mark): the variance-bounded test where the
    deals read are the pair's own (``among`` empty, ``closest_pairs``) and none was played by
    another version of a bot file (``edited``, ``StoredPair.edited_deals``)."""
    return not among and not edited


def no_pair_deals(store: Store, game: str, min_deals: int, who: str, what: str,
                  pairs: Sequence[StoredPair] = ()) -> str:
    """Why ``who`` found nothing to ``what`` in ``store``: no pair with ``min_deals`` deals there, or
    (``pairs``: those stored) only pairs whose deals are all alike (no spread: two bots that play
    alike, a bot that forfeits every match), named; and the way on."""
    flat = [p for p in pairs if p.deals >= min_deals and p.sd is None]
    if flat:
        named = ", ".join(f"{' and '.join(p.pair)} ({p.deals} deals)" for p in flat[:3]) + (
            f" and {len(flat) - 3} more" if len(flat) > 3 else "")
        return (f"{who}: {store.path} holds {min_deals} deals or more at {game} with these options only of pairs "
                f"of bots with no spread in them (every deal of an evaluation the same margin): {named}; nothing to "
                f"{what}: run an evaluation of bots whose deals differ first")
    return (f"{who}: {store.path} holds no {min_deals} deals of one pair of bots at {game} with these "
            f"options (over its evaluations) to {what}: run an evaluation first (a "
            f"fixed number of deals, or the default betting test)")


def _kept_source(stored: Mapping[str, Any] | None, name: str, where: Any) -> SdSource | None:
    """The bound an earlier run of this ``--sd-bound auto`` evaluation read, from its ``stored``
    spec (None: a new one, or ``--fresh``)."""
    kept = None if stored is None else stored.get("sd_auto")
    try:
        return SdSource.from_json(kept) if kept else None
    except (KeyError, TypeError, ValueError):
        raise StoreError(f"evaluation {name!r} in {where}: its kept s.d. bound cannot be read ({kept!r}); "
                         "run it with --fresh") from None


#: Matches sent to a cluster at a time when ``jobs`` does not say (``jobs`` = 1).
CLUSTER_BATCH = 16


def _sides(game_name: str, options: Mapping[str, Any], preset: str | None, record: MatchRecord) -> list[str]:
    """The bot on each side, in ``Game.teams`` order (a side is one bot and its copies)."""
    game = get_game(game_name, options, preset)
    return [record.seat_names[team[0]] for team in game.teams]


@dataclass(frozen=True)
class WorstMatch:
    """The stored match of an evaluation that bot A lost by most (``worst_match``)."""

    match_id: str
    deal: int
    rotation: int
    margin: float
    seat: int  # bot A's first seat in it; in a match A forfeited, the seat of A's that failed
    #: a match A forfeited: the failure's kind ("crash", "timeout", ...); "" for a match played out
    failure: str = ""


def worst_match(store: Store, result: EvalResult) -> WorstMatch | None:
    """The match of ``result`` (stored in ``store`` as ``result.stored_as``) that bot A lost by
    most, counted among those ``result`` counts, with its match id and A's first seat: where
    ``arbiter analyse`` can say why. None if A lost none (or it is not stored)."""
    if result.stored_as is None or not result.matches:
        return None
    worst = min(result.matches, key=lambda m: (m.margin, m.deal, m.rotation))
    if worst.margin >= 0:
        return None
    try:
        tid = store.tournament(result.stored_as).id
    except StoreError:
        return None
    names = _played_names(store, tid, get_game(result.game, result.options, result.preset),
                          bot_names((result.bot_a, result.bot_b)))
    for row in store.matches(tid, records=False):
        if (row.deal, row.rotation) == (worst.deal, worst.rotation):
            mine = [i for i, w in enumerate(who_of(row.seats, names[0])) if w == 0]
            if worst.reason.startswith("forfeit") and (failed := [i for i in row.incidents if i.seat in mine]):
                # lost by a failure, not by its decisions: the seat that failed, and how (the last of its
                # seats' incidents: the one that ended the match, after any strikes it survived)
                return WorstMatch(row.match_id, worst.deal, worst.rotation, worst.margin, failed[-1].seat,
                                  failed[-1].kind)
            return WorstMatch(row.match_id, worst.deal, worst.rotation, worst.margin, mine[0])
    return None


def _played_names(store: Store, tid: int, game: Game, names: tuple[str, ...]) -> tuple[str, ...]:
    """The names bot A and bot B play under in the stored evaluation ``tid`` (``names`` if it
    has no match yet): its records', which an older arbiter gave a ``module:Class`` bot by its
    module's stem (``bot_names``). Read otherwise, bot A sat at no seat of its matches."""
    for row in store.matches(tid, records=False):
        who = seating_who(game, row.rotation) if row.rotation in (0, 1) else []
        a = {n for n, w in zip(row.seats, who) if w == 0}
        b = {n for n, w in zip(row.seats, who) if w == 1}
        if len(a) == 1 and len(b) == 1 and a != b:
            return (a.pop(), b.pop())
        break
    return names


def _stored_margins(store: Store, tid: int, stake: float, bot_a: str,
                    records: bool = True) -> dict[tuple[int, int], MatchMargin]:
    """The matches of a stored evaluation, by (deal, rotation), margins recomputed from the
    outcomes (a forfeit at ``stake``: ``ratings.forfeit_stake``)."""
    out = {}
    for row in store.matches(tid, records=records):
        if row.idx != 2 * row.deal + row.rotation or row.rotation not in (0, 1):
            raise StoreError(f"tournament {tid} in {store.path} is not an evaluation (match {row.idx} is deal {row.deal}, seating {row.rotation})")
        who = who_of(row.seats, bot_a)
        o = row.outcome
        out[(row.deal, row.rotation)] = MatchMargin(row.deal, row.rotation, row.seed, margin_of(o, who, stake), o.reason.value,
                                                    tuple(o.scores), tuple(o.ranks), _forfeit_detail(o))
    return out
