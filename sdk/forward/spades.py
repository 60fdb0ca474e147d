"""Spades forward model: deal the unseen cards consistently with a seat's ``SpadesView``.

What the seat knows (all from the view):

* its own hand (unless it has not looked yet: blind nil still possible; then its own hand
  is unseen too), every card played this deal (completed tricks and the current trick);
* hand counts per seat;
* voids: a seat that did not follow the led suit holds none of it; a seat that led a
  spade before spades were broken held only spades (§3.4), so it holds no other suit;
* a blind-nil exchange it took part in: the two cards it gave are in the partner's hand
  until the partner plays them (the cards it received are in its own hand).

The unseen cards are dealt uniformly among the deals that respect all of this
(``ConstrainedDeal``: exact, not rejection sampling).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from cardarena.games.cards import STANDARD_DECK, Card
from cardarena.games.spades import NUM_SEATS, SPADE, Phase, Spades, SpadesState, SpadesView
from sdk.forward._common import ConsistencyError, ConstrainedDeal, SamplingOptions


@dataclass(frozen=True)
class Knowledge:
    """The seat's knowledge of the hidden cards."""

    seat: int
    known: tuple[tuple[Card, ...], ...]  # per seat: cards known to be in its hand now
    counts: tuple[int, ...]  # per seat: cards in hand
    voids: tuple[frozenset[int], ...]  # per seat: suits it cannot hold
    unseen: tuple[Card, ...]  # cards whose place is unknown
    deal: ConstrainedDeal  # deals ``unseen`` over the unknown places


def inferred_voids(view: SpadesView) -> list[set[int]]:
    """Suits each seat is known not to hold, from this deal's public play."""
    voids: list[set[int]] = [set() for _ in range(NUM_SEATS)]
    broken = False
    tricks = [t.cards for t in view.tricks] + ([view.trick] if view.trick else [])
    for cards in tricks:
        led = cards[0].card % 4
        if led == SPADE and not broken:
            voids[cards[0].seat] |= {1, 2, 3}  # led trumps unbroken: it held only spades
        for pc in cards[1:]:
            if pc.card % 4 != led:
                voids[pc.seat].add(led)
        if any(pc.card % 4 == SPADE for pc in cards):
            broken = True
    return voids


def knowledge(game: Spades, view: SpadesView, opts: SamplingOptions) -> Knowledge:
    if view.phase is Phase.GAME_OVER:
        raise ConsistencyError("the game is over: nothing to sample")
    me = view.seat
    played = {pc.card for t in view.tricks for pc in t.cards} | {pc.card for pc in view.trick}
    known: list[list[Card]] = [[] for _ in range(NUM_SEATS)]
    if view.hand_visible:
        known[me] = list(view.hand)
    for x in view.exchanges:
        # Cards it gave stay with the partner until played (or handed back in the exchange).
        if x.done and x.giver == me and x.cards:
            known[x.receiver] += [c for c in x.cards if c not in played and c not in known[me]]
    counts = tuple(s.hand_count for s in view.seats)
    placed = played | {c for h in known for c in h}
    if len(placed) != len(played) + sum(len(h) for h in known):
        raise ConsistencyError("a card is both played and held in the view")
    unseen = tuple(c for c in STANDARD_DECK if c not in placed)
    voids = inferred_voids(view) if opts.infer else [set() for _ in range(NUM_SEATS)]
    hidden_seats = [s for s in range(NUM_SEATS) if not (s == me and view.hand_visible)]
    caps = [counts[s] - len(known[s]) for s in hidden_seats]
    banned = [frozenset(voids[s]) for s in hidden_seats]
    deal = ConstrainedDeal(unseen, caps, banned, lambda c: c % 4)
    for s in range(NUM_SEATS):
        if voids[s] & {c % 4 for c in known[s]}:
            raise ConsistencyError(f"seat {s} is known to hold a card of a suit it showed void in")
    return Knowledge(me, tuple(tuple(h) for h in known), counts, tuple(frozenset(v) for v in voids), unseen, deal)


def build(game: Spades, view: SpadesView, know: Knowledge, rng: random.Random) -> SpadesState:
    """One sampled state."""
    dealt = know.deal.draw(rng)
    hands = [list(h) for h in know.known]
    hidden_seats = [s for s in range(NUM_SEATS) if not (s == know.seat and view.hand_visible)]
    for s, cards in zip(hidden_seats, dealt):
        hands[s] += [Card(c) for c in cards]
    return game.state_from_view(view, hands, rng.getrandbits(48))
