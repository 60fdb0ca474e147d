"""Spite and Malice turn plans for the ``search`` bot (bots/search.py).

A turn is a run of centre plays ending with a discard, and nothing hidden is revealed
until the seat plays its pay-off card (the next one turns up) or empties its hand (it
draws five). So the search decides a whole stretch of the turn at once, as a *plan*:

* when the heuristic plays its pay-off card or a chain of cards leading to it, it is
  followed (that is rarely wrong and the search would only spend time on it);
* otherwise every distinct position reachable with centre plays from hand and side
  stacks is enumerated on one sampled world (legal plays depend only on visible
  cards), each with every distinct discard; a plan that plays the pay-off card or
  empties the hand stops there (the rest of the turn is the heuristic's, after the
  draw);
* the plans are ranked by a static score (no centre pile left where the opponent's
  pay-off card goes next, cards cleared from side stacks and hand, wild cards kept,
  the heuristic's discard cost) and the best few, plus "play as the heuristic would",
  are searched by rollouts.

A rollout plays the plan, then the heuristic for both sides until the seat's next turn
has been dealt (``ROUNDS`` rounds); its value is the opponents' pay-off cards minus
the seat's, plus ``CHAIN_BONUS`` when the seat can then reach its pay-off card, and
±``WIN`` when the game ended.
"""

from __future__ import annotations

from collections.abc import Sequence

from sdk.forward import Action, State
from sdk.spite_and_malice import End, Load, Play, SourceKind, SpiteAndMaliceView, TargetKind
from bots import spite_malice_heuristic as H

#: Positions (after centre plays) explored per plan search.
MAX_NODES = 150
#: Value of a finished game, in pay-off cards.
WIN = 30.0
#: Value of being able to play the own pay-off card at the start of the next turn.
CHAIN_BONUS = 1.0
#: Rounds of play (the seat's turn, then every opponent's) before the evaluation.
ROUNDS = 1


def _payoff_action(a: Action) -> bool:
    return isinstance(a, (Play, Load)) and a.source.kind in (SourceKind.PAYOFF, SourceKind.PARTNER_PAYOFF)


def _static(start: SpiteAndMaliceView, v: SpiteAndMaliceView, discard: Action | None, drew: bool) -> float:
    """Higher is better (a cheap first ranking; the rollouts decide)."""
    rules = H._Rules(v)
    danger = H._danger_values(v, rules)
    me0, me = start.players[start.seat], v.players[v.seat]
    vals = [p.value for p in v.center]
    s = -6.0 * sum(1 for x in vals if x in danger) - 1.5 * sum(1 for x in vals if x + 1 in danger)
    s += 10.0 * (me0.payoff_count - me.payoff_count)
    s += 1.0 * (sum(len(x.cards) for x in me0.side_stacks) - sum(len(x.cards) for x in me.side_stacks))
    wild0 = sum(1 for c in start.hand if rules.wild(c)) + sum(1 for x in me0.side_stacks for c in x.cards if rules.wild(c))
    wild1 = sum(1 for c in v.hand if rules.wild(c)) + sum(1 for x in me.side_stacks for c in x.cards if rules.wild(c))
    s -= 2.0 * max(0, wild0 - wild1)
    if drew:
        return s + 3.0 + 0.5 * len(start.hand)
    s += 0.5 * (len(start.hand) - len(v.hand))
    if isinstance(discard, Play):
        s -= H._discard_cost(v, rules, discard) / 4
    return s


def plans(view: SpiteAndMaliceView, legal: Sequence[Action], world: State, policy, rng, keep: int) -> list[tuple[Action, ...]]:
    """Candidate plans for the seat to act; ``()`` (first) is "play as the heuristic would"."""
    base = policy(view, legal, rng)
    if _payoff_action(base):
        return [(base,)]
    chain = H._chain_to_payoff(view, H._Rules(view))
    if chain and chain[0] == base:
        return [(base,)]
    seat = view.seat
    scored: dict[tuple, tuple[float, tuple[Action, ...]]] = {}
    seen: set = set()
    nodes = [0]

    def signature(v: SpiteAndMaliceView) -> tuple:
        me = v.players[seat]
        return (tuple(sorted(v.hand)), tuple(x.cards for x in me.side_stacks),
                tuple(sorted(p.value for p in v.center)), len(v.completed), me.payoff_count)

    def add(plan: tuple[Action, ...], score: float, key: tuple) -> None:
        if key not in scored or scored[key][0] < score:
            scored[key] = (score, plan)

    def visit(state: State, path: tuple[Action, ...]) -> None:
        v = state.view(seat)
        sig = signature(v)
        if sig in seen or nodes[0] >= MAX_NODES:
            return
        seen.add(sig)
        nodes[0] += 1
        acts = state.legal_actions()
        for a in acts:
            if isinstance(a, Play) and a.target is TargetKind.SIDE:
                stack = v.players[seat].side_stacks[a.index].cards
                add(path + (a,), _static(view, v, a, False), (sig, a.source.card, stack))
            elif isinstance(a, End):
                add(path + (a,), _static(view, v, None, False), (sig, "end"))
        for a in acts:
            if not (isinstance(a, (Play, Load)) and (isinstance(a, Load) or a.target is TargetKind.CENTER)):
                continue
            nxt = state.clone()
            hand_before = len(v.hand)
            nxt.apply(a)
            after = nxt.view(seat)
            expect = hand_before - (1 if a.source.kind is SourceKind.HAND else 0)
            chance = (_payoff_action(a) or nxt.is_terminal or nxt.current_seat != seat
                      or len(after.hand) > expect or after.game_number != view.game_number)
            if chance:
                add(path + (a,), _static(view, after, None, True) if not nxt.is_terminal else 1e6,
                    ("chance", signature(after) if not nxt.is_terminal else None, str(a)))
            else:
                visit(nxt, path + (a,))

    visit(world.clone(), ())
    ranked = sorted(scored.values(), key=lambda sp: (-sp[0], [str(x) for x in sp[1]]))
    out: list[tuple[Action, ...]] = [()]
    for _, plan in ranked[:keep]:
        out.append(plan)
    return out


def _value(v: SpiteAndMaliceView, seat: int) -> float:
    me = v.players[seat]
    opp = [p.payoff_count for p in v.players if p.team != me.team]
    mine = [p.payoff_count for p in v.players if p.team == me.team]
    return sum(opp) / max(1, len(opp)) - sum(mine) / max(1, len(mine))


def blocked(view: SpiteAndMaliceView, seat: int) -> int:
    """The cards of ``seat``'s side stacks that cannot be played before a card out of order
    above them: under each stack's top run (each card one above, or equal to, the card on
    it, or wild: what plays off in a row), the rest."""
    rules = H._Rules(view)
    out = 0
    for stack in view.players[seat].side_stacks:
        cards = stack.cards
        i = len(cards) - 1
        while i > 0 and (rules.wild(cards[i]) or rules.wild(cards[i - 1])
                         or cards[i - 1].rank in (cards[i].rank, cards[i].rank + 1)):
            i -= 1
        out += max(0, i)
    return out


class Horizon:
    """Stops a rollout when the seat's turn comes round ``rounds`` times (or the game changes).

    ``order_cost``: pay-off cards taken off the value for each of the seat's side-stack
    cards ``blocked`` then (0 by default; measured for the analysis, docs/analysis.md)."""

    def __init__(self, seat: int, start: SpiteAndMaliceView, bonus: float = CHAIN_BONUS, rounds: int = ROUNDS,
                 order_cost: float = 0.0) -> None:
        self.seat, self.start, self.bonus, self.limit = seat, start, bonus, rounds
        self.order_cost = order_cost
        self.away = False
        self.rounds = 0

    def check(self, view: SpiteAndMaliceView, actor: int) -> float | None:
        if actor != self.seat:
            self.away = True
            return None
        if view.game_number != self.start.game_number:
            return _value(view, self.seat)
        if self.away:
            self.away = False
            self.rounds += 1
            if self.rounds >= self.limit:
                reach = H._chain_to_payoff(view, H._Rules(view)) if self.bonus else None
                shaped = self.order_cost * blocked(view, self.seat) if self.order_cost else 0.0
                return _value(view, self.seat) + (self.bonus if reach is not None else 0.0) - shaped
        return None


def terminal_value(state: State, seat: int, result_only: bool = False) -> float:
    """A finished game: ``WIN`` won, ``-WIN`` lost, 0 drawn, plus the pay-off cards ahead
    (which order a win by its margin), or the result alone with ``result_only`` (the
    arbiter's analysis: a game that ends drawn at its turn limit is a draw whatever the
    pay-off counts, so cards played before it cost nothing)."""
    out = state.outcome()
    rank = out.ranks[seat]
    best = min(out.ranks)
    bonus = WIN if rank == best and out.ranks.count(best) == 1 else (-WIN if rank != best else 0.0)
    return bonus if result_only else _value(state.view(seat), seat) + bonus


# --------------------------------------------------------------------------------------
# The search bot's interface (bots/search.py).

#: (rollouts per decision, worlds sampled per decision).
BUDGET = (48, 8)
#: Plans searched besides "as the heuristic would".
PLANS = 5
#: The best mean always wins (no confidence margin over the heuristic's plan).
CONFIDENCE = 0.0


def turn_key(view: SpiteAndMaliceView) -> tuple:
    """The turn in progress (a plan is only followed within its turn)."""
    return (view.game_number, view.turn_number, view.current_seat)


def horizon(seat: int, start: SpiteAndMaliceView, bot):
    """Stops a rollout after the bot's ``rounds`` (default ``ROUNDS``: the seat's next turn;
    ``Horizon``, with the bot's ``chain_bonus``)."""
    rounds = getattr(bot, "rounds", None)
    return Horizon(seat, start, CHAIN_BONUS if bot.chain_bonus is None else bot.chain_bonus,
                   ROUNDS if rounds is None else rounds, getattr(bot, "order_cost", 0.0)).check
