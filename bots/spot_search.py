"""Spot turn plans for the ``search`` bot (bots/search.py).

After the draw (or on the hand's first turn) the rest of a Spot turn reveals nothing:
the melds, lay-offs and the discard depend only on the seat's own hand and the table.
So the search decides them jointly, as one *plan* (the drops in order, then the
discard), instead of one action at a time:

* every distinct end-of-turn position reachable with legal melds and lay-offs is
  enumerated on one sampled world (the legal drops are the same in every world: they
  depend only on visible cards), each with every legal discard;
* the plans are ranked by a static score (spots kept in hand, the heuristic's keep
  bonus for pairs and near-runs, its penalty for feeding the next player) and only the
  best few, plus the heuristic's own plan, are searched by rollouts.

At the draw the two draws are the candidates. The value of a rollout is the seat's
money at the end of the hand (``hands=1``: the match's result).

Where the budget goes (``budget``): with the default budget only decisions with at
most ``LATE_STOCK`` cards left in the stock are searched, each with the whole budget
(400 rollouts over 100 worlds); earlier decisions are the heuristic's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sdk.forward import Action, State
from sdk.spot import Discard, Draw, LayOff, Meld, Phase, SpotView
from bots import spot_heuristic as H

#: Drop positions explored per decision (distinct hands after melds and lay-offs).
MAX_NODES = 200


def _static(view: SpotView, hand: Sequence[Any], discard: Any, gone: set) -> float:
    """Higher is better: few spots left, cards that still make melds, no gift to the next seat."""
    rest = list(hand)
    rest.remove(discard)
    if not rest:
        return 1000.0  # going out
    spots = sum(H._value(c) for c in rest)
    bonus = H._keep_bonuses(rest, gone)
    keep = sum(bonus(c) for c in rest)
    return -spots + 0.5 * keep - H._feeds_next(discard, view)


def plans(view: SpotView, legal: Sequence[Action], world: State, policy, rng, keep: int) -> list[tuple[Action, ...]]:
    """Candidate turn plans for the seat to act (the heuristic's plan first)."""
    if view.phase is Phase.DRAW:
        draws = [a for a in legal if isinstance(a, Draw)]
        base = policy(view, legal, rng)
        return [(base,)] + [(a,) for a in draws if a != base]
    seat = view.seat
    # The heuristic's own plan: play it out on a copy (no hidden card is revealed).
    st = world.clone()
    base_plan: list[Action] = []
    while st.current_seat == seat and not st.is_terminal:
        v = st.view(seat)
        if v.turn_number != view.turn_number:
            break
        a = policy(v, st.legal_actions(), rng)
        base_plan.append(a)
        st.apply(a)
        if isinstance(a, Discard):
            break
    scored: dict[tuple, tuple[float, tuple[Action, ...]]] = {}
    seen: set = set()
    nodes = [0]

    def visit(state: State, path: tuple[Action, ...]) -> None:
        v = state.view(seat)
        key = (v.hand, tuple(m.cards for m in v.melds))
        if key in seen or nodes[0] >= MAX_NODES:
            return
        seen.add(key)
        nodes[0] += 1
        acts = state.legal_actions()
        gone = H._visible_cards(v)
        for a in acts:
            if isinstance(a, Discard):
                plan = path + (a,)
                rest = tuple(sorted(c for c in v.hand if c != a.card))
                pkey = (rest, key[1], a.card)
                score = _static(v, v.hand, a.card, gone)
                if pkey not in scored or scored[pkey][0] < score:
                    scored[pkey] = (score, plan)
        for a in acts:
            if isinstance(a, (Meld, LayOff)):
                nxt = state.clone()
                nxt.apply(a)
                visit(nxt, path + (a,))

    visit(world.clone(), ())
    ranked = sorted(scored.values(), key=lambda sp: (-sp[0], [str(x) for x in sp[1]]))
    out = [tuple(base_plan)]
    for _, plan in ranked:
        if len(out) > keep:
            break
        if plan != out[0]:
            out.append(plan)
    return out


def at_horizon(view: SpotView, seat: int, start: SpotView) -> float | None:
    """The seat's money once the hand is over, from any seat's ``view`` (None while it goes on)."""
    if view.hand_number != start.hand_number:
        return float(view.balances[seat])
    return None


def terminal_value(state: State, seat: int) -> float:
    return float(state.outcome().scores[seat])


#: Decisions are searched only once the stock has at most this many cards; earlier the
#: heuristic plays (see ``budget``).
LATE_STOCK = 10


def budget(view: SpotView, sims: int, worlds: int) -> tuple[int, int]:
    """The default search budget of a decision: all of it late in the hand, none before.

    Measured on heuristic play (rollouts over 300 sampled worlds per decision): early in
    the hand the best alternative to the heuristic's choice rarely gains more than its
    own sampling noise, while with few stock cards left (who ends lowest or goes out is
    then near) single draws and discards are worth 5-15 units and rollouts, being
    short, are cheap and far less noisy. So the budget goes where it pays.
    """
    if view.stock_count > LATE_STOCK:
        return 0, 0
    return sims, worlds


# --------------------------------------------------------------------------------------
# The search bot's interface (bots/search.py).

#: (rollouts per decision, worlds sampled per decision).
BUDGET = (400, 100)
#: Plans searched besides the heuristic's own.
PLANS = 3
#: The best plan replaces the heuristic's only when its paired gain over it is this many
#: standard errors above zero.
CONFIDENCE = 1.0


def turn_key(view: SpotView) -> tuple:
    """The turn in progress (a plan is only followed within its turn)."""
    return (view.hand_number, view.turn_number, view.current_seat)


def horizon(seat: int, start: SpotView, bot: Any):
    """Stops a rollout once the hand of ``start`` is over (``at_horizon``)."""
    return lambda view, actor: at_horizon(view, seat, start)
