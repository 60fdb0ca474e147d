"""The bundled ``search`` bot: determinized Monte Carlo search on the SDK forward model.

One bot for every game whose line in ``sdk.games`` names a heuristic and a search part
(``bots/<game>_search.py``). A game's search part is a module with:

* ``BUDGET``: (rollouts, worlds sampled) per decision; optionally ``budget(view, sims,
  worlds)`` to spend it where it matters, and ``CONFIDENCE`` (see below);
* either ``candidates(view, legal, base)``: single actions searched (the heuristic's
  ``base`` first), or ``plans(view, legal, world, policy, rng, keep)`` with ``PLANS``
  (``keep``) and ``turn_key(view)``: whole stretches of a turn searched as plans;
* ``horizon(seat, start_view, bot)``: a function ``(view, actor) -> value or None`` that
  ends a rollout with the seat's value, and ``terminal_value(state, seat)``.

At each decision with a real choice it:

1. draws ``worlds`` full states consistent with its view (``sdk.forward.sample_states``:
   only what the seat may know, with the rules' inferences from public history);
2. for each world, plays every candidate and then the game's heuristic
   (``bots/<game>_heuristic.py``) for every seat up to a horizon, every candidate of a
   world on the same world (common random numbers: the comparison between candidates
   is not drowned by the luck of the world; the heuristics are deterministic);
3. plays the candidate with the best mean value (ties: the heuristic's own choice).

This is "perfect-information Monte Carlo" with a policy rollout: it can only improve on
the heuristic where looking ahead in plausible worlds pays.

Candidates, horizon and value per game (from the acting seat's side):

* Spades: single actions, card play and the bid (the heuristic's bid ± 1, and nil when
  legal; the look/blind-nil choice and the exchange are the heuristic's). Horizon: the
  end of the current deal; value: the side's score minus the other side's.
* Spot: at the draw, the two draws; after it, whole turn *plans* (melds, lay-offs and
  the discard together, nothing hidden is revealed in between), the best few by a
  static score plus the heuristic's own plan (``bots/spot_search.py``). Horizon: the
  end of the hand; value: the seat's money. With the default budget only decisions
  late in the hand (at most ``spot_search.LATE_STOCK`` stock cards) are searched, with
  the whole budget; earlier ones are the heuristic's (``spot_search.budget``).
* Spite and Malice: whole stretches of a turn as plans (centre plays up to a discard,
  or up to the pay-off card / an emptied hand, where new cards are revealed), the best
  few by a static score plus "as the heuristic would" (``bots/spite_malice_search.py``).
  Horizon: the seat's next turn (after every opponent's); value: pay-off cards ahead,
  a bonus when the pay-off card is then reachable, ±``WIN`` for a finished game.

A chosen plan is played out over the following decisions of the same turn without
searching again (nothing new is seen until it ends).

Budget per decision: ``simulations`` rollouts (deterministic), stopped early (after at
least one world) at ``CLOCK_SHARE`` of the match's per-decision limit
(``MatchInfo.decision_ms``) and at ``max_ms`` if given; it never counts on the time bank,
so the bot respects the arbiter's clock. Without a wall-clock limit (an unclocked match,
as in ``arbiter evaluate``) it is fully reproducible from its seed, whatever the load.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sdk.bot import Bot, MatchInfo
from sdk.forward import Action, Game, State, get_game, sample_states
from bots.games import part_of, played_by


class _Budgets(dict):
    """Per-game budgets, (rollouts per decision, worlds sampled per decision): the game's
    search module's ``BUDGET`` unless set here (a test's, a study's)."""

    def __missing__(self, game: str) -> tuple[int, int]:
        return part_of(game, "search").BUDGET


#: (rollouts, worlds) per game; an entry set here overrides the game's ``BUDGET``.
DEFAULT_BUDGET: dict[str, tuple[int, int]] = _Budgets()
#: Share of the per-decision clock the search may use (the rest is margin for the wire).
CLOCK_SHARE = 0.5

Policy = Callable[[Any, Sequence[Action], Any], Action]
Plan = tuple  # of Actions; () means "as the heuristic would"


@dataclass
class SearchStats:
    """What the last decision did (for tests and curious authors)."""

    candidates: int = 0
    rollouts: int = 0
    worlds: int = 0
    ms: float = 0.0
    values: dict[str, float] | None = None


class SearchBot(Bot):
    """Determinized Monte Carlo over the forward model (see the module docstring)."""

    name = "search"
    version = "2.0"

    @property
    def games(self) -> tuple[str, ...]:  # type: ignore[override]
        """Every registered game with a heuristic and a search part (``sdk.games``)."""
        return tuple(g for g in played_by("search") if g in played_by("heuristic"))

    def __init__(self, simulations: int | None = None, worlds: int | None = None, max_ms: int | None = None) -> None:
        super().__init__()
        self.simulations = simulations
        self.worlds = worlds
        self.max_ms = max_ms
        #: Spite and Malice: the value of a pay-off card reachable at the horizon (None:
        #: ``spite_malice_search.CHAIN_BONUS``; the arbiter's analysis values it lower).
        self.chain_bonus: float | None = None
        #: Spite and Malice: rounds of play before the evaluation (None:
        #: ``spite_malice_search.ROUNDS``; the arbiter's analysis measured longer ones).
        self.rounds: int | None = None
        #: Spite and Malice: a rollout that finishes the game is worth its result alone
        #: (``spite_malice_search.terminal_value``; the arbiter's analysis sets it).
        self.result_only = False
        self.last = SearchStats()

    def on_match_start(self, info: MatchInfo) -> None:
        self.game: Game = get_game(info.game, info.options)
        self.policy: Policy = part_of(info.game, "heuristic").choose
        #: The game's part of the search (its line's ``search`` in ``sdk.games``).
        self.kit = part_of(info.game, "search")
        sims, worlds = DEFAULT_BUDGET[info.game]
        self.sims = self.simulations if self.simulations is not None else sims
        self.n_worlds = max(1, self.worlds if self.worlds is not None else worlds)
        # Wall-clock cap: the match's per-decision clock (a share of it), and ``max_ms`` if
        # given; 0 = none, so an unclocked match replays exactly (the budget is simulations).
        caps = [c for c in (self.max_ms, int(info.decision_ms * CLOCK_SHARE) if info.decision_ms else None) if c]
        self.limit_ms = min(caps) if caps else 0
        self._plan: list[Action] = []  # the rest of a chosen plan
        self._plan_turn: tuple | None = None  # the turn it belongs to
        self._follow_turn: tuple | None = None  # a turn left to the heuristic

    # -- the decision ------------------------------------------------------------------

    def choose(self, view: Any, legal_actions: Sequence[Action]) -> Action:
        legal = list(legal_actions)
        if hasattr(self.kit, "candidates"):
            return self._choose_actions(view, legal)
        turn = self.kit.turn_key(view)
        if self._plan and self._plan_turn == turn and self._plan[0] in legal:
            self.last = SearchStats(candidates=1)
            return self._plan.pop(0)
        self._plan = []
        if self._follow_turn == turn:
            self.last = SearchStats(candidates=1)
            return self.policy(view, legal, self.rng)
        if len(legal) == 1:
            self.last = SearchStats(candidates=1)
            return legal[0]
        sims, n_worlds = self._budget(view)
        if sims <= 0:  # not worth searching (the game's schedule): the heuristic's action
            self.last = SearchStats(candidates=1)
            return self.policy(view, legal, self.rng)
        t0 = time.monotonic()
        plans = self.plans(view, legal)
        if len(plans) <= 1:
            self.last = SearchStats(candidates=len(plans))
            return plans[0][0] if plans and plans[0] else self.policy(view, legal, self.rng)
        best, stats = self._search(view, plans, t0, sims, n_worlds)
        self.last = stats
        if not best:  # the heuristic's way, for the rest of this turn
            self._follow_turn = turn
            return self.policy(view, legal, self.rng)
        self._plan, self._plan_turn = list(best[1:]), turn
        return best[0]

    def plans(self, view: Any, legal: list[Action]) -> list[Plan]:
        """Candidate plans for a decision of a game searched by plans (the heuristic's first)."""
        world = sample_states(self.game, view, 1, random.Random(self.rng.getrandbits(32)))[0]
        return self.kit.plans(view, legal, world, self.policy, self.rng, self.kit.PLANS)

    def _budget(self, view: Any) -> tuple[int, int]:
        """(rollouts, worlds) for this decision: the bot's budget, or the game's schedule.

        A game's plan module may define ``budget(view, sims, worlds)`` to spend the default
        budget where it matters (Spot: late in the hand); a budget given to the
        constructor is used as given at every decision."""
        schedule = getattr(self.kit, "budget", None)
        if schedule is None or self.simulations is not None:
            return self.sims, self.n_worlds
        sims, worlds = schedule(view, self.sims, self.n_worlds)
        return sims, max(1, worlds)

    def _search(self, view: Any, cands: list, t0: float, sims: int | None = None,
                n_worlds: int | None = None) -> tuple[Any, SearchStats]:
        """The best candidate by mean rollout value; ties go to the first (the heuristic's).

        ``sims`` and ``n_worlds`` default to the bot's budget."""
        sims = self.sims if sims is None else sims
        n_worlds = self.n_worlds if n_worlds is None else n_worlds
        deadline = t0 + self.limit_ms / 1000 if self.limit_ms > 0 else None
        n_worlds = min(n_worlds, max(1, sims // len(cands)))
        worlds = sample_states(self.game, view, n_worlds, self.rng)
        values: list[list[float]] = [[] for _ in cands]
        rollouts = w = 0
        # One pass = one world, every candidate; stop at the budget or the deadline.
        while rollouts + len(cands) <= max(sims, len(cands)):
            if deadline is not None and w > 0 and time.monotonic() >= deadline:
                break
            world = worlds[w % len(worlds)]
            seed = self.rng.getrandbits(32)
            for i, c in enumerate(cands):
                values[i].append(self.rollout(world, view.seat, c, seed))
                rollouts += 1
            w += 1
        means = [sum(v) / w for v in values]
        top = max(means)
        best = next(c for c, m in zip(cands, means) if m == top)
        z = getattr(self.kit, "CONFIDENCE", 0.0)
        if z > 0 and best is not cands[0] and w > 1:
            # Leave the heuristic's choice only for a gain clear of the sampling noise: the
            # paired (same world) differences must be ``z`` standard errors above zero.
            i = cands.index(best)
            d = [a - b for a, b in zip(values[i], values[0])]
            mean = sum(d) / w
            se = (sum((x - mean) ** 2 for x in d) / (w - 1) / w) ** 0.5
            if mean <= z * se:
                best = cands[0]
        return best, SearchStats(len(cands), rollouts, len(worlds), (time.monotonic() - t0) * 1000,
                                 {_label(c): m for c, m in zip(cands, means)})

    def _choose_actions(self, view: Any, legal: list[Action]) -> Action:
        """A game searched by single actions (Spades): its candidates, searched."""
        base = self.policy(view, legal, self.rng)
        cands = self.candidates(view, legal, base)
        self.last = SearchStats(candidates=len(cands))
        if len(cands) <= 1 or self.sims <= 0:
            return base
        best, self.last = self._search(view, [(a,) for a in cands], time.monotonic())
        return best[0]

    def candidates(self, view: Any, legal: list[Action], base: Action) -> list[Action]:
        """The actions worth searching (the heuristic's choice first): the game's ``candidates``."""
        return self.kit.candidates(view, legal, base)

    # -- rollouts ----------------------------------------------------------------------

    def action_values(self, world: State, seat: int, cands: Sequence[Action], seed: int) -> list[float]:
        """Each candidate's rollout value on ``world`` (the same seed for each: common random
        numbers); the evaluator the arbiter's analysis uses (``arbiter.analysis.values``)."""
        return [self.rollout(world, seat, (a,), seed) for a in cands]

    def state_value(self, world: State, seat: int, seed: int) -> float:
        """``world`` as it stands, played on by the heuristic to the horizon, for ``seat``."""
        return self.rollout(world, seat, (), seed)

    def rollout(self, world: State, seat: int, plan: Plan, seed: int) -> float:
        """Value for ``seat`` of playing ``plan`` in ``world`` then the heuristic to the horizon."""
        rng = random.Random(seed)
        st = world.clone()
        start = world.view(seat)
        for a in plan:
            st.apply(a)
            if st.is_terminal:
                break
        horizon = self.kit.horizon(seat, start, self)
        while not st.is_terminal:
            actor = st.current_seat
            v = st.view(actor)
            h = horizon(v, actor)
            if h is not None:
                return h
            st.apply(self.policy(v, st.legal_actions(), rng))
        if self.result_only:
            return self.kit.terminal_value(st, seat, result_only=True)
        return self.kit.terminal_value(st, seat)


def _label(plan: Plan) -> str:
    return " ; ".join(map(str, plan)) if plan else "(heuristic)"
