"""A simple Spite and Malice heuristic (rules: docs/rules/spite-and-malice.md).

It sees only its view and the legal actions. In order of preference:

1. Play the own pay-off top to the centre (or load it onto an opponent's pile).
2. Play a chain of hand / side-stack / partner side cards (wild cards last) that lets the
   pay-off top be played this turn: searched depth-first, fewest cards and wilds first.
3. Help the partner: play the partner's pay-off top.
4. Load hand cards onto an opponent's pay-off pile.
5. Safe plays: natural side-stack tops and hand cards onto centre piles, never leaving a
   pile at (an opponent's pay-off top - 1) when avoidable, and moving piles off that value.
6. Discard: build descending side stacks (a card one lower than or equal to a top), keep
   wild cards, avoid burying useful tops; with the book rule ``end`` if nothing is good.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from sdk import Bot, Card
from sdk.bot import Action
from sdk.spite_and_malice import End, Load, Play, Source, SourceKind, SpiteAndMaliceView, TargetKind

MAX_CHAIN = 6
MAX_NODES = 4000


class _Rules:
    """The card rules a bot needs, from the view."""

    def __init__(self, view: SpiteAndMaliceView):
        self.top = view.top_rank
        self.kings_wild = view.kings_wild
        self.excluded = set(view.wild_excluded_ranks)
        self.limit = view.center_limit or 10**6
        self._wild: dict[int, bool] = {}
        self._fit: dict[int, frozenset[int]] = {}

    def wild(self, c: Card) -> bool:
        w = self._wild.get(c)
        if w is None:
            w = self._wild[c] = c.is_joker or (self.kings_wild and c.rank == 13)
        return w

    def fit_values(self, c: Card) -> frozenset[int]:
        """The pile values ``c`` may be played on (``fits``), found once per card: the
        chain search asks for every card at every node."""
        fv = self._fit.get(c)
        if fv is None:
            fv = self._fit[c] = frozenset(v for v in range(self.top) if self.fits(c, v))
        return fv

    def fits(self, c: Card, value: int) -> bool:
        need = value + 1
        if need > self.top:
            return False
        if self.wild(c):
            return need not in self.excluded
        return c.rank == need


def _danger_values(view: SpiteAndMaliceView, rules: _Rules) -> set[int]:
    """Pile values that would let an opponent play its pay-off top next."""
    me = view.players[view.seat]
    out = set()
    for p in view.players:
        if p.team == me.team or p.payoff_top is None or rules.wild(p.payoff_top):
            continue
        out.add(p.payoff_top.rank - 1)
    return out


def _chain_to_payoff(view: SpiteAndMaliceView, rules: _Rules) -> list[Play] | None:
    """The cheapest sequence of centre plays after which the pay-off top can be played."""
    me = view.players[view.seat]
    target = me.payoff_top
    if target is None:
        return None
    hand = list(view.hand)
    sides = [list(s.cards) for s in me.side_stacks]
    partner = None
    for p in view.players:
        if p.team == me.team and p.seat != me.seat:
            partner = p
    psides = [list(s.cards) for s in partner.side_stacks] if partner else [[] for _ in range(4)]
    best: list[Any] = [None, 10**9]
    nodes = [0]
    # A card fits a pile value (``fits``) iff the value is in its ``fit_values``; a new pile
    # is value 0, where there is room for one.
    target_fits = rules.fit_values(target)
    sources: dict[Any, Source] = {}

    def source(kind: SourceKind, j: int, c: Card | None) -> Source:
        key = c if kind is SourceKind.HAND else (kind, j)
        src = sources.get(key)
        if src is None:
            src = sources[key] = Source(kind, 0, c) if kind is SourceKind.HAND else Source(kind, j)
        return src

    def payoff_fits(values: list[int]) -> bool:
        if any(v in target_fits for v in values):
            return True
        return len(values) < rules.limit and 0 in target_fits

    def dfs(values: list[int], path: list[Play], cost: int) -> None:
        nodes[0] += 1
        if cost >= best[1] or nodes[0] > MAX_NODES:
            return
        if path and payoff_fits(values):
            best[0], best[1] = list(path), cost
            return
        if len(path) >= MAX_CHAIN:
            return
        moves: list[tuple[SourceKind, int, Card, list]] = []
        for c in sorted(set(hand)):
            moves.append((SourceKind.HAND, 0, c, hand))
        for j, st in enumerate(sides):
            if st:
                moves.append((SourceKind.SIDE, j, st[-1], st))
        for j, st in enumerate(psides):
            if st:
                moves.append((SourceKind.PARTNER_SIDE, j, st[-1], st))
        room = len(values) < rules.limit
        for kind, j, c, where in moves:
            fv = rules.fit_values(c)
            targets: list[int | None] = [i for i, v in enumerate(values) if v in fv]
            if room and 0 in fv:
                targets.append(None)
            if not targets:
                continue
            step = 1 + (3 if rules.wild(c) else 0)
            src = source(kind, j, c)
            for i in targets:
                if kind is SourceKind.HAND:
                    where.remove(c)
                else:
                    where.pop()
                nv = list(values)
                if i is None:
                    nv.append(1)
                else:
                    nv[i] += 1
                nv = [v for v in nv if v < rules.top]  # completed piles leave
                path.append(Play(src, TargetKind.CENTER, i))
                dfs(nv, path, cost + step)
                path.pop()
                where.append(c)

    if payoff_fits([p.value for p in view.center]):
        return []
    dfs([p.value for p in view.center], [], 0)
    return best[0]


def _discard_cost(view: SpiteAndMaliceView, rules: _Rules, action: Play) -> float:
    c = action.source.card
    stack = view.players[view.seat].side_stacks[action.index].cards
    cost = 0.0
    if rules.wild(c):
        cost += 100
    # Prefer discarding cards far from being playable.
    needs = [p.value + 1 for p in view.center] + [1]
    if not rules.wild(c):
        gap = min((c.rank - n for n in needs if c.rank >= n), default=13)
        cost -= min(gap, 8) * 0.5
    if not stack:
        cost += 4
    else:
        top = stack[-1]
        if rules.wild(top):
            cost += 6
        elif top.rank == c.rank + 1:
            cost -= 10
        elif top.rank == c.rank:
            cost -= 6
        else:
            cost += 8 - 0.2 * abs(top.rank - c.rank)
    return cost


def choose(view: SpiteAndMaliceView, legal_actions: Sequence[Action], rng: random.Random) -> Action:
    """The heuristic's action for ``view`` (one of ``legal_actions``)."""
    legal = list(legal_actions)
    if len(legal) == 1:
        return legal[0]
    legal_set = set(legal)
    rules = _Rules(view)
    danger = _danger_values(view, rules)
    centre = [p.value for p in view.center]
    plays = [a for a in legal if isinstance(a, Play) and a.target is TargetKind.CENTER]

    def result_value(a: Play) -> int:
        return 1 if a.index is None else centre[a.index] + 1

    def safe(a: Play) -> bool:
        v = result_value(a)
        return v >= rules.top or v not in danger

    # 1. The own pay-off card, preferring a pile it does not leave dangerous.
    own = [a for a in plays if a.source.kind is SourceKind.PAYOFF]
    own += [a for a in legal if isinstance(a, Load) and a.source.kind is SourceKind.PAYOFF]
    if own:
        return min(own, key=lambda a: (isinstance(a, Play) and not safe(a), str(a)))
    # 2. A chain that reaches the pay-off card.
    chain = _chain_to_payoff(view, rules)
    if chain and chain[0] in legal_set:
        return chain[0]
    # 3. The partner's pay-off card.
    partner = [a for a in plays if a.source.kind is SourceKind.PARTNER_PAYOFF]
    if partner:
        return partner[0]
    # 4. Loads from hand.
    loads = [a for a in legal if isinstance(a, Load)]
    if loads:
        return loads[0]
    # 5. Safe natural plays: side tops first, then hand cards; moving piles off danger.
    best, best_score = None, 0.0
    for a in plays:
        card = _card_of(view, a)
        if card is None or rules.wild(card):
            continue
        score = 0.0
        here = None if a.index is None else centre[a.index]
        if here is not None and here in danger:
            score += 5
        if not safe(a):
            continue
        score += 3 if a.source.kind is SourceKind.SIDE else 2 if a.source.kind is SourceKind.HAND else 1
        if score > best_score:
            best, best_score = a, score
    if best is not None:
        return best
    # 6. End of turn: discard (or end).
    discards = [a for a in legal if isinstance(a, Play) and a.target is TargetKind.SIDE]
    if discards:
        pick = min(discards, key=lambda a: (_discard_cost(view, rules, a), str(a)))
        if _discard_cost(view, rules, pick) < 50 or End() not in legal_set:
            return pick
    if End() in legal_set:
        return End()
    return rng.choice(legal)


def _card_of(view: SpiteAndMaliceView, a: Play) -> Card | None:
    src = a.source
    me = view.players[view.seat]
    if src.kind is SourceKind.HAND:
        return src.card
    if src.kind is SourceKind.SIDE:
        st = me.side_stacks[src.index].cards
        return st[-1] if st else None
    if src.kind is SourceKind.PARTNER_SIDE:
        for p in view.players:
            if p.team == me.team and p.seat != me.seat:
                st = p.side_stacks[src.index].cards
                return st[-1] if st else None
    return None


class SpiteAndMaliceHeuristicBot(Bot):
    """Plays its pay-off card first, keeps wilds, avoids feeding the opponent's pay-off."""

    name = "spite-malice-heuristic"
    version = "0.1"
    games = ("spite-and-malice",)

    def choose(self, view: SpiteAndMaliceView, legal_actions: Sequence[Action]) -> Action:
        return choose(view, legal_actions, self.rng)
