"""Spite and Malice's options: the variant table of §8.0 (``arbiter rules spite-and-malice`` prints it)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Literal

from ..base import option
from ..cards import RANK_TOKENS


class Recycle(enum.Enum):
    IMMEDIATE = "immediate"
    DEFERRED = "deferred"


class StalemateRule(enum.Enum):
    DRAW = "draw"
    FEWER_PAYOFF_WINS = "fewer_payoff_wins"


class SideStackOrder(enum.Enum):
    FREE = "free"
    DESCENDING = "descending"


class DeadlockRule(enum.Enum):
    END_GAME = "end_game"
    HAND_ACE_TWO_THEN_END = "hand_ace_two_then_end"
    RESHUFFLE = "reshuffle"


# --------------------------------------------------------------------------------------
# Options (field names and defaults = the variant table of §8.0).


@dataclass(frozen=True)
class SpiteAndMaliceOptions:
    """The variant table of §8.0; field names are the option names.

    Attributes:
        players: the number of players, 2-6 (§8.9).
        partnerships: teams of two partners sitting opposite (4 or 6 players, §8.10).
        decks: the number of 52-card decks shuffled together (default: one per player,
            at least 2).
        jokers: jokers added to the pack; they are always wild (§8.7).
        kings_wild: whether kings are wild (centre piles then run A to Q); false: kings
            are natural rank 13 and piles run A to K.
        wild_excluded_ranks: ranks a wild card may not represent on a centre pile, e.g.
            A or A,7 (§8.8).
        payoff_size: cards dealt to each pay-off pile.
        center_limit: the most active centre piles at once, or ``unlimited``.
        recycle: what happens to a completed centre pile: ``immediate`` (shuffled into
            the stock at once) or ``deferred`` (set aside until the stock runs out; needs
            unlimited piles, §8.6).
        forced_aces: an ace in hand or on top of the pay-off pile must be played at once
            (implies unlimited piles, §8.3).
        loading: cards may be put on an opponent's pay-off pile: same suit, one rank up
            or down (implies forced_aces, §8.4).
        side_stacks_spread: side stacks are spread so every card shows (no effect on
            play: views always carry whole side stacks, §8.5).
        stalemate_rule: the single-game result when the stock runs out, play is
            deadlocked or the turn limit (``max_turns``) is reached: ``draw``, or
            ``fewer_payoff_wins`` (fewer pay-off cards left wins).
        series_scoring: play a series of games scored in points (5 for going out plus 1
            per card left in the other pay-off piles; a stalemate gives the difference),
            up to ``match_target`` (§4.4). Without it a game scores 1 / 0.5 / 0.
        match_target: the points that win a series (with ``series_scoring``).
        initial_side_cards: 1: each side stack starts with one face-up card from the
            stock (Massachusetts); 0: empty.
        fill_empty_side_stacks: before the discard that ends the turn, fill every empty
            side stack from the hand (Massachusetts, §8.11).
        side_stack_order: ``free`` (any card on any side stack) or ``descending`` (a card
            equal to or one lower than the top, book rule §8.12.2).
        may_end_without_discard: the ``end`` action: end the turn without a discard (a
            turn with no card moved is a pass; book rule §8.12.5).
        ace_two_compulsion: an ace or natural 2 on top of the own pay-off pile or a side
            stack must be played to the centre first when it can (book rule §8.12.4).
        deadlock_rule: what a full round of passes does: ``end_game``,
            ``hand_ace_two_then_end`` (a player holding a playable A or 2 in hand must play it;
            only if nobody does, the game ends) or ``reshuffle`` (everything but the
            pay-off piles is reshuffled and dealt again) (book rule §8.12.6).
        deck_split: pay-off piles from one deck, hands and stock from the other (2
            players and 2 decks; book rule §8.12.1).
        max_turns: termination guard: a game ends as a stalemate after this many turns.
        max_deadlock_reshuffles: with ``deadlock_rule = reshuffle``, the most
            reshuffles in a game; the next deadlock ends it.
    """

    players: int = option(2, min=2, max=6)
    partnerships: bool = False
    decks: int | None = option(None, min=1, max=100)  # None: max(2, players), resolved on construction
    jokers: int = option(0, min=0, max=1_000)
    kings_wild: bool = True
    wild_excluded_ranks: frozenset[str] = frozenset()  # rank tokens, e.g. {"A", "7"}
    payoff_size: int = option(20, min=1, max=1_000)
    center_limit: int | Literal["unlimited"] = 3
    recycle: Recycle = Recycle.IMMEDIATE
    forced_aces: bool = False
    loading: bool = False
    side_stacks_spread: bool = False
    stalemate_rule: StalemateRule = StalemateRule.DRAW
    series_scoring: bool = False
    match_target: int = option(50, min=1, max=100_000)  # its points are 32-bit on the wire
    initial_side_cards: int = option(0, min=0, max=1)
    fill_empty_side_stacks: bool = False
    side_stack_order: SideStackOrder = SideStackOrder.FREE
    may_end_without_discard: bool = False
    ace_two_compulsion: bool = False
    deadlock_rule: DeadlockRule = DeadlockRule.END_GAME
    deck_split: bool = False
    max_turns: int = option(2000, min=1, max=1_000_000)
    max_deadlock_reshuffles: int = option(10, min=0, max=10_000)

    def __post_init__(self) -> None:
        if self.decks is None:
            object.__setattr__(self, "decks", max(2, self.players))
        ranks = set()
        for token in self.wild_excluded_ranks:
            t = str(token).strip().upper()
            t = {"1": "A", "T": "10", "11": "J", "12": "Q", "13": "K"}.get(t, t)
            if t not in RANK_TOKENS:
                raise ValueError(f"option 'wild_excluded_ranks': unknown rank {token!r} (use A,2-10,J,Q,K)")
            ranks.add(t)
        object.__setattr__(self, "wild_excluded_ranks", frozenset(ranks))
