"""The bundled ``search`` bot: determinized Monte Carlo search on the SDK forward model.

One bot for the three games. At each decision with a real choice it:

1. draws ``worlds`` full states consistent with its view (``sdk.forward.sample_states``:
   only what the seat may know, with the rules' inferences from public history);
2. for each world, applies every candidate action and plays on with the game's
   heuristic (``bots/<game>_heuristic.py``) for every seat up to a horizon, using the
   same rollout seed for every candidate of a world (common random numbers, so the
   comparison between actions is not drowned by the luck of the world);
3. plays the candidate with the best mean value (ties: the heuristic's own choice).

This is "perfect-information Monte Carlo" with a policy rollout: it can only improve on
the heuristic where looking ahead in plausible worlds pays.

Horizon and value per game (from the acting seat's side):

* Spades: to the end of the current deal; the side's score minus the other side's.
  Searched: card play and the bid (the heuristic's bid ± 1, and nil when legal); the
  look/blind-nil choice and the exchange are left to the heuristic.
* Spot: to the end of the current hand; the seat's money balance. Searched: the draw
  and the discard (melds and lay-offs are the heuristic's).
* Spite and Malice: until the seat's next turn starts (its turn, then every opponent's)
  or the game ends; opponents' pay-off cards minus its own, ±``SM_WIN`` for a finished game.
  Searched: which card goes to which side stack (centre plays are the heuristic's).

Budget per decision: ``simulations`` rollouts (deterministic) and at most ``max_ms``
milliseconds, further capped at ``CLOCK_SHARE`` of the match's per-decision limit
(``MatchInfo.decision_ms``) and never touching the time bank, so the bot respects the
arbiter's clock. Without a time limit it is fully reproducible from its seed.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from arbiter.games import Action, get_game
from arbiter.games.base import Game, State
from sdk.bot import Bot, MatchInfo
from sdk.forward import sample_states

#: Per-game defaults: (rollouts per decision, worlds sampled per decision).
DEFAULT_BUDGET = {"spades": (240, 24), "spot": (240, 30), "spite-and-malice": (80, 10)}
#: Share of the per-decision clock the search may use (the rest is margin for the wire).
CLOCK_SHARE = 0.5
#: Spite and Malice: value of a won (lost) game, in pay-off cards.
SM_WIN = 30.0

_HEURISTIC = {
    "spades": "bots.spades_heuristic",
    "spite-and-malice": "bots.spite_malice_heuristic",
    "spot": "bots.spot_heuristic",
}

Policy = Callable[[Any, Sequence[Action], Any], Action]


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
    version = "1.0"
    games = tuple(_HEURISTIC)

    def __init__(self, simulations: int | None = None, worlds: int | None = None, max_ms: int = 2000) -> None:
        super().__init__()
        self.simulations = simulations
        self.worlds = worlds
        self.max_ms = max_ms
        self.last = SearchStats()

    def on_match_start(self, info: MatchInfo) -> None:
        self.game: Game = get_game(info.game, info.options)
        self.policy: Policy = importlib.import_module(_HEURISTIC[info.game]).choose
        sims, worlds = DEFAULT_BUDGET[info.game]
        self.sims = self.simulations if self.simulations is not None else sims
        self.n_worlds = max(1, self.worlds if self.worlds is not None else worlds)
        limit = self.max_ms
        if info.decision_ms:
            limit = min(limit, int(info.decision_ms * CLOCK_SHARE))
        self.limit_ms = limit

    # -- the decision ------------------------------------------------------------------

    def choose(self, view: Any, legal_actions: Sequence[Action]) -> Action:
        legal = list(legal_actions)
        base = self.policy(view, legal, self.rng)
        cands = self.candidates(view, legal, base)
        self.last = SearchStats(candidates=len(cands))
        if len(cands) <= 1 or self.sims <= 0:
            return base
        t0 = time.monotonic()
        deadline = t0 + self.limit_ms / 1000 if self.limit_ms > 0 else None
        worlds = sample_states(self.game, view, min(self.n_worlds, max(1, self.sims // len(cands))), self.rng)
        totals = {a: 0.0 for a in cands}
        counts = {a: 0 for a in cands}
        rollouts = 0
        w = 0
        # One pass = one world, every candidate; stop at the budget or the deadline.
        while rollouts + len(cands) <= max(self.sims, len(cands)):
            if deadline is not None and w > 0 and time.monotonic() >= deadline:
                break
            world = worlds[w % len(worlds)]
            seed = self.rng.getrandbits(32)
            for a in cands:
                totals[a] += self.rollout(world, view.seat, a, seed)
                counts[a] += 1
                rollouts += 1
            w += 1
        means = {a: totals[a] / counts[a] for a in cands if counts[a]}
        best = max(means.values())
        choice = base if means.get(base) == best else next(a for a in cands if means.get(a) == best)
        self.last = SearchStats(len(cands), rollouts, len(worlds), (time.monotonic() - t0) * 1000,
                                {str(a): v for a, v in means.items()})
        return choice

    def candidates(self, view: Any, legal: list[Action], base: Action) -> list[Action]:
        """The actions worth searching (the heuristic's choice always first)."""
        name = self.game.name
        if name == "spades":
            from arbiter.games.spades import Bid, Give, Look, Play

            if isinstance(base, Play):
                others = [a for a in legal if a != base]
            elif isinstance(base, Bid) and not base.blind:
                near = {Bid(t) for t in (base.tricks - 1, base.tricks + 1) if t >= 1}
                if base.tricks != 0:
                    near.add(Bid(0))
                others = [a for a in legal if a in near]
            else:  # Look, blind nil, Give: the heuristic decides
                return [base]
            return [base] + others
        # Spot and Spite and Malice: the heuristic's melds, lay-offs and centre plays
        # are kept (they shed cards); the search decides the draw and which card to
        # discard, the choice the heuristic's rules of thumb are least sure of.
        if name == "spot":
            from arbiter.games.spot import Discard, Draw

            kinds: tuple[type, ...] = (Draw,) if isinstance(base, Draw) else (Discard,)
        else:
            from arbiter.games.spite_malice import Play, TargetKind

            if not (isinstance(base, Play) and base.target is TargetKind.SIDE):
                return [base]
            kinds = (Play,)
        return [base] + [a for a in legal if a != base and isinstance(a, kinds) and isinstance(base, kinds)
                         and getattr(a, "target", None) == getattr(base, "target", None)]

    # -- rollouts ----------------------------------------------------------------------

    def rollout(self, world: State, seat: int, action: Action, seed: int) -> float:
        """Value for ``seat`` of playing ``action`` in ``world`` then the heuristic to the horizon."""
        import random

        rng = random.Random(seed)
        st = world.clone()
        start = world.view(seat)
        st.apply(action)
        name = self.game.name
        left_turn = False
        while not st.is_terminal:
            actor = st.current_seat
            v = st.view(actor)
            if name == "spades" and v.deal != start.deal:
                return _spades_value(v, seat)
            if name == "spot" and v.hand_number != start.hand_number:
                return v.balances[seat]
            if name == "spite-and-malice":
                if actor != seat:
                    left_turn = True
                elif left_turn or v.game_number != start.game_number:
                    return _sm_value(v, seat)
            st.apply(self.policy(v, st.legal_actions(), rng))
        return self._terminal_value(st, seat)

    def _terminal_value(self, st: State, seat: int) -> float:
        name = self.game.name
        out = st.outcome()
        if name == "spades":
            return out.scores[seat] - out.scores[(seat + 1) % 4]
        if name == "spot":
            return out.scores[seat]
        v = st.view(seat)
        rank = out.ranks[seat]
        best = min(out.ranks)
        bonus = SM_WIN if rank == best and out.ranks.count(best) == 1 else (-SM_WIN if rank != best else 0.0)
        return _sm_value(v, seat) + bonus


def _spades_value(view: Any, seat: int) -> float:
    side = seat % 2
    return float(view.sides[side].score - view.sides[1 - side].score)


def _sm_value(view: Any, seat: int) -> float:
    me = view.players[seat]
    opp = [p.payoff_count for p in view.players if p.team != me.team]
    mine = [p.payoff_count for p in view.players if p.team == me.team]
    return (sum(opp) / max(1, len(opp))) - (sum(mine) / max(1, len(mine)))
