"""A simple Spot heuristic (rules: docs/rules/spot.md), written only against the view and the legal actions.

* Draw: take the discard-pile top only if it completes or extends something (a meld
  with two hand cards, or a layoff onto a table meld); otherwise draw from the stock.
* Drop: make the biggest legal meld (most spots), then lay off the highest cards.
* Discard: the card with the highest "deadness": its spot value, minus a bonus for
  pairs and near-runs it belongs to (unless their completing cards are all visibly
  gone), minus a penalty if it would help the next player (fits a table meld, or
  matches/neighbours a card that player visibly collected from the discard pile or a
  meld they own).
"""

from __future__ import annotations

import random
from typing import Sequence

from sdk import Bot, Card
from sdk.bot import Action
from sdk.spot import Discard, Draw, DrawSource, LayOff, Meld, Phase, SpotView, fits

PAIR_BONUS = 9.0
NEAR_RUN_BONUS = 6.0  # suited neighbour (rank ±1)
GAP_RUN_BONUS = 3.0  # suited card two ranks away
FEEDS_TABLE_PENALTY = 12.0  # the card could be laid off by anyone
FEEDS_NEXT_PENALTY = 6.0  # the next player visibly collects such cards


def _value(card: Card) -> int:
    return min(card.rank, 10)


def _forms_meld_with(card: Card, hand: Sequence[Card]) -> bool:
    """Whether ``card`` makes a 3-card group or sequence with two cards of ``hand``."""
    if sum(1 for c in hand if c.rank == card.rank) >= 2:
        return True
    suited = {c.rank for c in hand if c.suit == card.suit}
    r = card.rank
    return any({a, b} <= suited for a, b in ((r - 2, r - 1), (r - 1, r + 1), (r + 1, r + 2)))


def _visible_cards(view: SpotView) -> set[Card]:
    """Cards known to be out of play for collecting: the table and the discard pile."""
    seen = set(view.discard_pile)
    for m in view.melds:
        seen.update(m.cards)
    return seen


def _keep_bonus(card: Card, hand: Sequence[Card], gone: set[Card]) -> float:
    """How much ``card`` is worth keeping for a future meld."""
    bonus = 0.0
    same_rank = [c for c in hand if c != card and c.rank == card.rank]
    if same_rank:
        live = 4 - 1 - len(same_rank) - sum(1 for g in gone if g.rank == card.rank)
        if len(same_rank) >= 2 or live > 0:
            bonus += PAIR_BONUS * len(same_rank)
    suited = {c.rank for c in hand if c.suit == card.suit and c != card}
    for d in (-1, 1):
        if card.rank + d in suited:
            bonus += NEAR_RUN_BONUS
    for d in (-2, 2):
        if card.rank + d in suited:
            bonus += GAP_RUN_BONUS
    return bonus


def _feeds_next(card: Card, view: SpotView) -> float:
    """Penalty for discarding ``card`` when others (the next player above all) can use it."""
    penalty = 0.0
    if any(fits(card, m) for m in view.melds):
        penalty += FEEDS_TABLE_PENALTY
    nxt = (view.seat + 1) % view.num_players
    collected = [p.card for p in view.pickups if p.seat == nxt]
    collected += [c for m in view.melds if m.owner == nxt for c in m.cards]
    for c in collected:
        if c.rank == card.rank or (c.suit == card.suit and abs(c.rank - card.rank) <= 2):
            penalty += FEEDS_NEXT_PENALTY
            break
    return penalty


def _choose_draw(view: SpotView, legal: Sequence[Action]) -> Action:
    stock = Draw(DrawSource.STOCK)
    take = Draw(DrawSource.DISCARD)
    if take in legal and view.discard_pile:
        top = view.discard_pile[-1]
        if _forms_meld_with(top, view.hand) or any(fits(top, m) for m in view.melds):
            return take
    return stock if stock in legal else legal[0]


def _choose_drop(view: SpotView, legal: Sequence[Action]) -> Action:
    melds = [a for a in legal if isinstance(a, Meld)]
    if melds:
        return max(melds, key=lambda a: (sum(_value(c) for c in a.cards), len(a.cards), [-c for c in a.cards]))
    layoffs = [a for a in legal if isinstance(a, LayOff)]
    if layoffs:
        return max(layoffs, key=lambda a: (_value(a.card), -a.card, -a.meld))
    discards = [a for a in legal if isinstance(a, Discard)]
    gone = _visible_cards(view)
    hand = view.hand

    def deadness(a: Discard) -> tuple[float, int]:
        c = a.card
        return (_value(c) - _keep_bonus(c, hand, gone) - _feeds_next(c, view), c)

    return max(discards, key=deadness)


def choose(view: SpotView, legal_actions: Sequence[Action], rng: random.Random) -> Action:
    """The heuristic's action for ``view`` (deterministic; ``rng`` unused but accepted)."""
    if len(legal_actions) == 1:
        return legal_actions[0]
    if view.phase is Phase.DRAW:
        return _choose_draw(view, legal_actions)
    return _choose_drop(view, legal_actions)


class SpotHeuristicBot(Bot):
    """Keeps pairs and near-runs, melds and lays off, discards high dead cards."""

    name = "spot-heuristic"
    version = "0.1"
    games = ("spot",)

    def choose(self, view: SpotView, legal_actions: Sequence[Action]) -> Action:
        return choose(view, legal_actions, self.rng)


__all__ = ["SpotHeuristicBot", "choose"]
