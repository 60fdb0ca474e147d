"""Tiny Tricks' forward model: the unseen cards dealt anew to the other hands."""

from __future__ import annotations

import random
from dataclasses import dataclass

from cardarena.games.cards import STANDARD_DECK, Card
from sdk.forward._common import ConsistencyError


@dataclass(frozen=True)
class Knowledge:
    seat: int
    unseen: tuple[Card, ...]


def knowledge(game, view, opts) -> Knowledge:
    if view.current_seat is None:
        raise ConsistencyError("the game is over: nothing to sample")
    seen = set(view.hand) | set(view.played) | {p.card for p in view.trick}
    return Knowledge(view.seat, tuple(c for c in STANDARD_DECK if c not in seen))


def build(game, view, know: Knowledge, rng: random.Random):
    pool = list(know.unseen)
    rng.shuffle(pool)
    hands = []
    for s in range(view.num_players):
        if s == view.seat:
            hands.append(list(view.hand))
        else:
            hands.append(pool[:view.hand_counts[s]])
            del pool[:view.hand_counts[s]]
    return game.state_from_view(view, hands, rng.getrandbits(48))
