"""Spot forward model: deal the unseen cards consistently with a seat's ``SpotView``.

What the seat knows (all from the view): its own hand, the discard pile, every meld on
the table, each seat's hand count and the stock count, and every card taken from the
discard pile this hand (``pickups``). A card seen taken is in the taker's hand unless
it has been seen since (back on the discard pile, or in a meld); the last pickup of a
card names its holder. Everything else unseen is dealt uniformly over the other hands
and the stock (in a uniformly random order).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from cardarena.games.cards import STANDARD_DECK, Card
from cardarena.games.spot import Spot, SpotState, SpotView
from sdk.forward._common import ConsistencyError, ConstrainedDeal, SamplingOptions


@dataclass(frozen=True)
class Knowledge:
    seat: int
    known: tuple[tuple[Card, ...], ...]  # per seat: cards known to be in its hand
    counts: tuple[int, ...]
    stock_count: int
    unseen: tuple[Card, ...]
    deal: ConstrainedDeal  # over the other seats' unknown cards, then the stock


def held_pickups(view: SpotView) -> dict[Card, int]:
    """Cards taken from the discard pile this hand and not seen since -> the holder."""
    visible = set(view.discard_pile) | {c for m in view.melds for c in m.cards}
    holder: dict[Card, int] = {}
    for p in view.pickups:  # in order: the last taker holds it
        holder[p.card] = p.seat
    return {c: s for c, s in holder.items() if c not in visible}


def knowledge(game: Spot, view: SpotView, opts: SamplingOptions) -> Knowledge:
    if view.game_over:
        raise ConsistencyError("the match is over: nothing to sample")
    n, me = view.num_players, view.seat
    known: list[list[Card]] = [[] for _ in range(n)]
    known[me] = list(view.hand)
    if opts.infer:
        for card, seat in held_pickups(view).items():
            if seat == me:
                if card not in view.hand:
                    raise ConsistencyError(f"{card} was taken by this seat and not seen since, but is not in its hand")
            else:
                known[seat].append(card)
    seen = set(view.discard_pile) | {c for m in view.melds for c in m.cards} | {c for h in known for c in h}
    total_seen = len(view.discard_pile) + sum(len(m.cards) for m in view.melds) + sum(len(h) for h in known)
    if len(seen) != total_seen:
        raise ConsistencyError("a card is seen in two places in the view")
    unseen = tuple(c for c in STANDARD_DECK if c not in seen)
    others = [s for s in range(n) if s != me]
    caps = [view.hand_counts[s] - len(known[s]) for s in others] + [view.stock_count]
    deal = ConstrainedDeal(unseen, caps, [frozenset()] * len(caps), lambda c: 0)
    return Knowledge(me, tuple(tuple(h) for h in known), tuple(view.hand_counts), view.stock_count, unseen, deal)


def build(game: Spot, view: SpotView, know: Knowledge, rng: random.Random) -> SpotState:
    parts = know.deal.draw(rng)
    hands = [list(h) for h in know.known]
    others = [s for s in range(view.num_players) if s != view.seat]
    for s, cards in zip(others, parts):
        hands[s] += [Card(c) for c in cards]
    stock = [Card(c) for c in parts[-1]]  # already in random order
    return game.state_from_view(view, hands, stock, rng.getrandbits(48))
