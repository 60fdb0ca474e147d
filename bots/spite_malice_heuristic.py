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

#: Per rule set (top rank, kings wild, excluded ranks): per card index, what the chain
#: search needs of the card (``_Rules.card_table``).
_CARD_TABLES: dict[tuple[int, bool, frozenset[int]], tuple[tuple[frozenset[int], bool, int], ...]] = {}


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
        chain search asks for every card it may move."""
        fv = self._fit.get(c)
        if fv is None:
            if self.wild(c):  # any value whose next rank a wild may stand for
                fv = frozenset(v for v in range(self.top) if v + 1 not in self.excluded)
            else:  # a natural card goes on the value one below its rank
                fv = frozenset((c.rank - 1,)) if 1 <= c.rank <= self.top else frozenset()
            self._fit[c] = fv
        return fv

    def card_table(self) -> tuple[tuple[frozenset[int], bool, int], ...]:
        """Per card index (Card 0..52): its ``fit_values``, whether it may start a new pile
        (value 0), and its cost in a chain (a wild 4, else 1). Built once per rule set."""
        key = (self.top, self.kings_wild, frozenset(self.excluded))
        table = _CARD_TABLES.get(key)
        if table is None:
            cards = [Card(i) for i in range(53)]
            table = _CARD_TABLES[key] = tuple(
                (self.fit_values(c), 0 in self.fit_values(c), 4 if self.wild(c) else 1) for c in cards)
        return table

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
    return _search_chain(view, rules)[0]


def _search_chain(view: SpiteAndMaliceView, rules: _Rules) -> tuple[list[Play] | None, int]:
    """``_chain_to_payoff``'s depth-first search, and the number of nodes it visited
    (capped at ``MAX_NODES + 1``, where it stops).

    Moves at a node, in order: each distinct hand card (by card order), the own side-stack
    tops, the partner's side-stack tops; each onto every centre pile it fits, then onto a
    new pile. A move costs 1, a wild card 4; the first cheapest chain found wins. The
    search is the bot's hot loop (every decision without a direct pay-off play), so a
    source is a stack whose last card is the card it offers (a hand card's stack holds
    its copies), a chain is kept as plain tuples until it is the best, and a node is
    visited (counted, checked) by its parent: only nodes that have children to try are
    entered."""
    me = view.players[view.seat]
    target = me.payoff_top
    if target is None:
        return None, 0
    partner = None
    for p in view.players:
        if p.team == me.team and p.seat != me.seat:
            partner = p
    hand_copies: dict[Card, list[Card]] = {}
    for c in view.hand:
        hand_copies.setdefault(c, []).append(c)
    slots: list[tuple[SourceKind, int, list[Card]]] = [(SourceKind.HAND, 0, hand_copies[c]) for c in sorted(hand_copies)]
    # A chain takes at most MAX_CHAIN cards from a stack: the cards below cannot be reached.
    slots += [(SourceKind.SIDE, j, list(s.cards[-MAX_CHAIN:])) for j, s in enumerate(me.side_stacks)]
    if partner is not None:
        slots += [(SourceKind.PARTNER_SIDE, j, list(s.cards[-MAX_CHAIN:])) for j, s in enumerate(partner.side_stacks)]
    info = rules.card_table()  # per card: the values it fits, whether it starts a pile, its cost
    top, limit = rules.top, rules.limit
    target_fits = rules.fit_values(target)
    target_new = 0 in target_fits
    centre = [p.value for p in view.center]
    # Completed piles leave the centre. A view holds none (the game removes one at once),
    # but a layout may: the root's children drop it, as they always did.
    dirty_root = any(v >= top for v in centre)
    path: list[tuple[SourceKind, int, Card, int | None]] = []
    best: list[tuple[SourceKind, int, Card, int | None]] | None = None
    best_cost = 10**9
    nodes = 0

    def expand(values: list[int], depth: int, cost: int) -> None:
        """Visit each child of a node (count it, prune it on cost, end the chain there if
        the pay-off top fits, else expand it below the depth limit)."""
        nonlocal best, best_cost, nodes
        room = len(values) < limit
        for kind, j, st in slots:
            if not st:
                continue
            c = st[-1]
            fv, new_ok, step = info[c]
            if fv.isdisjoint(values):
                if not (room and new_ok):
                    continue
                targets: list[int | None] = [None]
            else:
                targets = [i for i, v in enumerate(values) if v in fv]
                if room and new_ok:
                    targets.append(None)
            child_cost = cost + step
            for i in targets:
                nodes += 1
                if nodes > MAX_NODES:
                    return
                if child_cost >= best_cost:
                    continue
                if i is None:
                    nv = values + [1]  # a new pile: 1 < top (12 or 13)
                else:
                    nv = values[:]
                    nv[i] += 1
                    if nv[i] >= top:
                        del nv[i]
                if dirty_root and not depth:
                    nv = [v for v in nv if v < top]
                if not target_fits.isdisjoint(nv) or (len(nv) < limit and target_new):
                    best, best_cost = path + [(kind, j, c, i)], child_cost
                elif depth + 1 < MAX_CHAIN:
                    st.pop()
                    path.append((kind, j, c, i))
                    expand(nv, depth + 1, child_cost)
                    path.pop()
                    st.append(c)
                    if nodes > MAX_NODES:
                        return

    if not target_fits.isdisjoint(centre) or (len(centre) < limit and target_new):
        return [], 0
    nodes = 1  # the root
    expand(centre, 0, 0)
    if best is None:
        return None, nodes
    plays = [Play(Source(kind, 0, c) if kind is SourceKind.HAND else Source(kind, j), TargetKind.CENTER, i)
             for kind, j, c, i in best]
    return plays, nodes


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
    if chain and chain[0] in legal:
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
    may_end = End() in legal
    discards = [a for a in legal if isinstance(a, Play) and a.target is TargetKind.SIDE]
    if discards:
        pick_cost, _, k = min((_discard_cost(view, rules, a), str(a), k) for k, a in enumerate(discards))
        if pick_cost < 50 or not may_end:
            return discards[k]
    if may_end:
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
