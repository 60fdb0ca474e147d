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
from typing import Callable, Sequence

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


def _keep_bonuses(hand: Sequence[Card], gone: set[Card]) -> Callable[[Card], float]:
    """How much each card is worth keeping in ``hand`` for a future meld: a bonus for each
    other card of its rank there (unless none of the rank is left to draw and it has one
    only), for each suited neighbour and for each suited card two ranks away. The hand's and
    the gone cards' ranks and suits are counted once, not again for every card (a discard
    weighs each card of the hand, a Spot search every hand it reaches)."""
    ranks: dict[int, int] = {}
    copies: dict[Card, int] = {}
    suited: dict = {}
    for c in hand:
        r = c.rank
        ranks[r] = ranks.get(r, 0) + 1
        copies[c] = copies.get(c, 0) + 1
        suited.setdefault(c.suit, set()).add(r)
    gone_ranks: dict[int, int] = {}
    for g in gone:
        r = g.rank
        gone_ranks[r] = gone_ranks.get(r, 0) + 1

    def bonus(card: Card) -> float:
        r = card.rank
        value = 0.0
        same = ranks.get(r, 0) - copies.get(card, 0)  # the other cards of its rank
        if same:
            live = 4 - 1 - same - gone_ranks.get(r, 0)
            if same >= 2 or live > 0:
                value += PAIR_BONUS * same
        near = suited.get(card.suit, ())  # its suit's other ranks (a card of another rank is another card)
        for d in (-1, 1):
            if r + d in near:
                value += NEAR_RUN_BONUS
        for d in (-2, 2):
            if r + d in near:
                value += GAP_RUN_BONUS
        return value

    return bonus


def _feeds(view: SpotView) -> Callable[[Card], float]:
    """``_feeds_next`` for any card, what the view shows read once."""
    melds = view.melds
    nxt = (view.seat + 1) % view.num_players
    collected = [p.card for p in view.pickups if p.seat == nxt]
    collected += [c for m in melds if m.owner == nxt for c in m.cards]
    ranks = {c.rank for c in collected}
    suited: dict = {}
    for c in collected:
        suited.setdefault(c.suit, set()).add(c.rank)

    def penalty(card: Card) -> float:
        value = 0.0
        if any(fits(card, m) for m in melds):
            value += FEEDS_TABLE_PENALTY
        r = card.rank
        if r in ranks or any(abs(x - r) <= 2 for x in suited.get(card.suit, ())):
            value += FEEDS_NEXT_PENALTY
        return value

    return penalty


def _feeds_next(card: Card, view: SpotView) -> float:
    """Penalty for discarding ``card`` when others (the next player above all) can use it:
    it fits a table meld; it is of a rank, or suited within two ranks of a card, the next
    player visibly collected (from the discard pile, or in a meld of its own)."""
    return _feeds(view)(card)


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
    keep = _keep_bonuses(view.hand, _visible_cards(view))
    feeds = _feeds(view)

    def deadness(a: Discard) -> tuple[float, int]:
        c = a.card
        return (_value(c) - keep(c) - feeds(c), c)

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
