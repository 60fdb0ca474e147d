"""What each decision of a seat was worth, from what that seat could know.

For one decision (a seat's view and its legal actions) every candidate action is valued
the way a determinizing search values it:

1. ``samples`` full states are drawn consistent with the seat's view alone (the SDK's
   forward model, ``sdk.forward.sample_states``: hidden cards uniform among those the
   rules allow, later shuffles fresh); the true deal is never read;
2. on each sampled state, each action is played and then the reference policy plays every
   seat to a horizon: the bundled ``search`` bot's own rollout (``SearchBot.rollout``), so
   the analysis values actions as that bot does: the game's heuristic
   (``bots/<game>_heuristic.py``) plays on. Horizon and units, from the seat's side:
   Spades: the end of the deal, points of its side minus the other's; Spot: the end of
   the hand, its money; Spite and Malice: its next turn, pay-off cards ahead (with a
   bonus for a reachable pay-off card and a large value for a won game);
3. every action is valued on the same sampled states with the same rollout seeds (common
   random numbers), so the *difference* between two actions has a much smaller error
   than either value.

An action's value is its mean over the samples, with its standard error. The **loss** of
the chosen action is the best action's mean minus the chosen one's, with the standard
error of their paired differences; the decision is a **mistake** when the loss is
significant: larger than ``t * se`` (``t`` the two-sided 95% Student quantile for the
samples taken; with a zero error, any positive loss). Choosing the best of several noisy
means favours the lucky one: with few samples, a small loss is not evidence of a mistake,
which is why the error is shown beside it.

Seeded and bounded: the samples and rollout seeds of a decision are drawn from
``(seed, match id, seat, decision number)``, so the same command gives the same analysis;
at most ``max_actions`` actions of a decision are valued (the chosen one and the
reference policy's first), and a decision with a single legal action is not valued.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from arbiter.analysis.reask import DecisionPoint, decisions, match_info
from arbiter.hosting.forward import sample_states
from arbiter.hosting.loading import load_bot
from arbiter.hosting.local import SeatDriver
from arbiter.rating.stats import mean_se
from cardarena.games import Action, GameError, get_game
from cardarena.records import MatchRecord

__all__ = ["ActionValue", "DecisionValue", "Valuer", "analyse", "UNITS"]

DEFAULT_SAMPLES = 4
DEFAULT_MAX_ACTIONS = 12

#: What a value counts, per game (the reference rollout's horizon and value).
UNITS = {
    "spades": "points of the seat's side minus the other side's, at the end of the deal",
    "spot": "the seat's money at the end of the hand",
    "spite-and-malice": "pay-off cards ahead of the others at the seat's next turn",
}

#: Two-sided 95% quantiles of Student's t, by degrees of freedom (beyond: 1.96 up to 2.0).
_T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23,
        12: 2.18, 15: 2.13, 20: 2.09, 30: 2.04}


def t95(df: int) -> float:
    """The two-sided 95% Student quantile for ``df`` degrees of freedom (conservative between table rows)."""
    if df < 1:
        return math.inf
    for k in sorted(_T95):
        if df <= k:
            return _T95[k] if df == k else _T95[max(d for d in _T95 if d <= df)]
    return 2.0


def _mean_se(xs: Sequence[float]) -> tuple[float, float]:
    """The one mean ± standard error (``arbiter.rating.stats``); inf for one value."""
    r = mean_se(xs)
    return r.mean, math.inf if r.se is None else r.se


@dataclass(frozen=True)
class ActionValue:
    """One action's estimated value (``UNITS`` of the game), its standard error and the
    number of samples."""

    action: str
    mean: float
    se: float
    n: int


@dataclass(frozen=True)
class DecisionValue:
    """One decision valued: its actions best first, the chosen one's loss against the best.

    ``chosen`` is None when the match ended at this decision (nothing was played: then
    nothing is lost or a mistake). ``valued``/``legal_count``: how many of the legal
    actions were valued. ``note`` says why a decision was not valued.
    """

    point: DecisionPoint
    values: tuple[ActionValue, ...]
    chosen: str | None
    loss: float
    loss_se: float
    mistake: bool
    legal_count: int
    note: str = ""

    @property
    def best(self) -> str:
        return self.values[0].action if self.values else ""

    @property
    def chosen_value(self) -> ActionValue | None:
        return next((v for v in self.values if v.action == self.chosen), None)


class Valuer:
    """Values decisions of one seat of one game (its rules and options): the reference
    rollout is the bundled search bot's, started for that seat with no clock."""

    def __init__(self, game: str, options: dict[str, Any], seat: int, match_id: str = "analysis",
                 seat_names: tuple[str, ...] = (), samples: int = DEFAULT_SAMPLES, max_actions: int = DEFAULT_MAX_ACTIONS,
                 seed: int = 0):
        if samples < 1:
            raise ValueError(f"samples {samples}: at least 1 sampled state per decision")
        if max_actions < 2:
            raise ValueError(f"max_actions {max_actions}: at least 2 actions per decision to compare")
        self.game = get_game(game, options)
        self.seat = seat
        self.samples, self.max_actions, self.seed = samples, max_actions, seed
        self.match_id = match_id
        record = MatchRecord(match_id, game, dict(options), 0, seat_names or tuple(f"seat {s}" for s in range(self.game.num_seats)))
        driver = SeatDriver(load_bot("search"), match_info(record, seat, 0, 0))
        self.reference = driver.bot  # started: its game, its heuristic policy

    def candidates(self, view: Any, legal: Sequence[Action], chosen: Action | None, rng: random.Random) -> list[Action]:
        """The actions valued: the chosen one, the reference policy's, then the others in
        their legal order, at most ``max_actions``."""
        first = [a for a in (chosen, self.reference.policy(view, list(legal), rng)) if a is not None and a in legal]
        out = list(dict.fromkeys(first + list(legal)))
        return out[: self.max_actions]

    def value(self, view: Any, legal: Sequence[Action], chosen: Action | None, key: str) -> tuple[ActionValue, ...]:
        """Each candidate action's value at this decision, best first; ``key`` seeds it
        (with the valuer's seed). Reads ``view`` only: never a true state."""
        return self._value(view, legal, chosen, key)[0]

    def _value(self, view: Any, legal: Sequence[Action], chosen: Action | None,
               key: str) -> tuple[tuple[ActionValue, ...], dict[str, list[float]]]:
        rng = random.Random(f"{self.seed}:{key}")
        cands = self.candidates(view, legal, chosen, rng)
        worlds = sample_states(self.game, view, self.samples, rng)
        seeds = [rng.getrandbits(32) for _ in worlds]
        per = {a: [self.reference.rollout(w, self.seat, (a,), s) for w, s in zip(worlds, seeds)] for a in cands}
        vals = [ActionValue(str(a), *_mean_se(xs), len(xs)) for a, xs in per.items()]
        return tuple(sorted(vals, key=lambda v: -v.mean)), {str(a): xs for a, xs in per.items()}

    def decision(self, point: DecisionPoint, chosen_text: str | None) -> DecisionValue:
        """One decision of the seat valued (``chosen_text``: the action played, or None)."""
        legal = point.legal
        chosen = None
        if chosen_text is not None:
            try:
                chosen = self.game.parse_action(chosen_text)
            except GameError:
                chosen = None
        if len(legal) < 2:
            return DecisionValue(point, (), chosen_text, 0.0, 0.0, False, len(legal), "a single legal action")
        values, by_text = self._value(point.view, legal, chosen, f"{self.match_id}:{self.seat}:{point.number}")
        if chosen is None or chosen not in legal:
            return DecisionValue(point, values, chosen_text, 0.0, 0.0, False, len(legal),
                                 "nothing was played: the match ended here" if chosen_text is None else "")
        best = values[0]
        diffs = [b - c for b, c in zip(by_text[best.action], by_text[str(chosen)])]
        loss, loss_se = _mean_se(diffs)
        if len(diffs) < 2:
            loss_se = math.inf
        elif all(d == diffs[0] for d in diffs):
            loss_se = 0.0
        mistake = loss > 0 and loss > t95(len(diffs) - 1) * loss_se
        return DecisionValue(point, values, str(chosen), loss, loss_se, mistake, len(legal))


def analyse(record: MatchRecord, seat: int, *, samples: int = DEFAULT_SAMPLES, seed: int = 0,
            max_actions: int = DEFAULT_MAX_ACTIONS, first: int = 1, last: int | None = None) -> Iterator[DecisionValue]:
    """``seat``'s decisions ``first``..``last`` (from 1; all by default) in ``record``, valued
    from that seat's view only (see the module docstring), in order.

    The record must be one its reader may see (callers load it through the disclosure
    rule). ValueError for a seat the game does not have or a bad budget; ReplayError for a
    record that does not replay."""
    valuer = Valuer(record.game, record.options, seat, record.match_id, record.seat_names, samples, max_actions, seed)
    for point in decisions(record, seat):
        if point.number < first:
            continue
        if last is not None and point.number > last:
            break
        yield valuer.decision(point, point.played)
