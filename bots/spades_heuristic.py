"""A simple rule-based Spades bot: counts sure tricks to bid, then plays by the book.

It sees only its ``SpadesView`` and the legal actions (no memory needed: the view
carries every card played this deal).

Bidding: sure tricks from aces, protected kings and queens, top and long spades, and
ruffs from short side suits; nil with a very weak hand (partner not nil); blind nil only
when far behind (``BLIND_NIL_DEFICIT``).
Exchange: a blind-nil bidder passes its two highest cards, its partner the two lowest.
Play: second hand low, third hand high, low when partner already wins the trick, win as
cheaply as possible, trump in when void and the trick is worth winning, duck when it
bid nil (or has made the side's contract: avoid bags), cover a nil-bidding partner,
lead winners and then from the longest side suit. Against an opponent's live nil (its own
side having none) it plays to set it (``defend_nil``): it leads low in a suit the nil
bidder may still hold, follows low before the nil bidder plays, and plays under the nil
bidder when it is winning the trick. The analysis's Spades play-outs use this same policy
(``bots/spades_dds.py``).
"""

from __future__ import annotations

import random
from typing import Sequence

from sdk import Bot, Card
from sdk.bot import Action
from sdk.spades import Bid, Give, Look, Play, SpadesView, power

SPADE = 0
#: Blind nil only when the side trails by at least this much.
BLIND_NIL_DEFICIT = 300


def suit(card: int) -> int:
    return card % 4


# --------------------------------------------------------------------------------------
# Bidding


def estimate_tricks(hand: Sequence[Card]) -> float:
    """Sure-ish tricks of a hand: high cards, long spades, ruffs."""
    by_suit: dict[int, list[int]] = {s: [] for s in range(4)}
    for c in hand:
        by_suit[suit(c)].append(power(c))
    tricks = 0.0
    spades = sorted(by_suit[SPADE], reverse=True)
    # Spades: A always; K with one more; Q with two more; every spade past the third.
    for i, p in enumerate(spades):
        if p == 14 or (p == 13 and len(spades) >= 2) or (p == 12 and len(spades) >= 3):
            tricks += 1
        elif i >= 3:
            tricks += 1
    spare_spades = max(0, len(spades) - 3)
    for s in (1, 2, 3):
        ranks = by_suit[s]
        n = len(ranks)
        if 14 in ranks:
            tricks += 1 if n <= 5 else 0.5
        if 13 in ranks and 2 <= n <= 4:
            tricks += 0.8
        if 12 in ranks and 3 <= n <= 4:
            tricks += 0.3
        # Short side suits let small spades ruff (not already counted as long spades).
        if n <= 1 and len(spades) >= 2 and spare_spades == 0:
            tricks += 1 if n == 0 else 0.5
    return tricks


def choose_bid(view: SpadesView, legal: Sequence[Action]) -> Action:
    me = view.seat
    partner = (me + 2) % 4
    side = me % 2
    if Look() in legal:
        deficit = view.sides[1 - side].score - view.sides[side].score
        partner_bid = view.seats[partner].bid
        if deficit >= BLIND_NIL_DEFICIT and partner_bid != 0 and Bid(0, True) in legal:
            return Bid(0, True)
        return Look()
    hand = view.hand
    est = estimate_tricks(hand)
    high_spades = [c for c in hand if suit(c) == SPADE and power(c) >= 11]
    aces_kings = [c for c in hand if power(c) >= 13]
    partner_bid = view.seats[partner].bid
    if (
        Bid(0) in legal
        and est < 1.0
        and not high_spades
        and not aces_kings
        and sum(1 for c in hand if suit(c) == SPADE) <= 3
        and partner_bid != 0
    ):
        return Bid(0)
    n = max(1, min(13, int(est + 0.5)))
    return Bid(n)


# --------------------------------------------------------------------------------------
# Exchange


def choose_give(view: SpadesView, legal: Sequence[Action]) -> Action:
    me = view.seat
    hand = list(view.hand)
    mine = view.seats[me]
    if mine.bid == 0 and mine.blind_nil:
        # Blind-nil bidder: pass the two most dangerous cards (highest, spades first).
        give = sorted(hand, key=lambda c: (power(c) + (3 if suit(c) == SPADE else 0)), reverse=True)[:2]
    else:
        # Partner of the blind-nil bidder: pass the two lowest non-spades.
        give = sorted(hand, key=lambda c: (suit(c) == SPADE, power(c)))[:2]
    action = Give(tuple(give))
    return action if action in legal else legal[0]


# --------------------------------------------------------------------------------------
# Play


def beats(card: int, best: int, led: int) -> bool:
    """True if ``card`` beats the currently winning ``best`` in a trick led in ``led``."""
    if suit(card) == suit(best):
        return power(card) > power(best)
    return suit(card) == SPADE  # a trump over a non-trump (best is never off-suit)


def current_winner(view: SpadesView) -> tuple[int, int] | None:
    if not view.trick:
        return None
    led = suit(view.trick[0].card)
    seat, best = view.trick[0].seat, view.trick[0].card
    for pc in view.trick[1:]:
        if beats(pc.card, best, led):
            seat, best = pc.seat, pc.card
    return seat, best


def is_master(card: int, view: SpadesView, played: set[int]) -> bool:
    """No higher card of its suit is still out (unplayed and not in my hand)."""
    mine = set(view.hand)
    for c in range(52):
        if suit(c) == suit(card) and power(c) > power(card) and c not in played and c not in mine:
            return False
    return True


def low_key(c: int) -> tuple:
    return (suit(c) == SPADE, power(c))


def shown_void(view: SpadesView, seat: int) -> set[int]:
    """The suits ``seat`` has shown it no longer holds this deal (it did not follow them)."""
    out = set()
    for cards in [t.cards for t in view.tricks] + [view.trick]:
        for p in cards[1:]:
            if p.seat == seat and suit(p.card) != suit(cards[0].card):
                out.add(suit(cards[0].card))
    return out


def live_nils(view: SpadesView) -> list[int]:
    """The seats whose nil (bid nil or blind nil) is still alive: no trick taken yet."""
    return [s.seat for s in view.seats if s.bid == 0 and s.tricks_won == 0]


def defend_nil(view: SpadesView, cards: Sequence[int]) -> Action | None:
    """The play against an opponent's live nil (bid nil or blind nil, no trick taken yet),
    when the seat's own side has none alive: lead the lowest side card of a suit the nil
    bidder has not shown void in; before the nil bidder plays to the trick, follow as low as
    possible (void: shed the highest side card, no trump); with the nil bidder winning the
    trick, play the highest card under it. None where none of these applies (no such nil,
    or the nil bidder has played and is not winning): the rest of ``choose_play`` decides."""
    me = view.seat
    live = live_nils(view)
    if not live or any(s % 2 == me % 2 for s in live):
        return None
    nil = live[0]
    if not view.trick:
        void = shown_void(view, nil)
        side = [c for c in cards if suit(c) != SPADE and suit(c) not in void]
        return Play(min(side or [c for c in cards if suit(c) not in void] or cards, key=power))
    led = suit(view.trick[0].card)
    winner, best = current_winner(view)
    if all(p.seat != nil for p in view.trick):
        follow = [c for c in cards if suit(c) == led]
        if follow:
            return Play(min(follow, key=power))
        shed = [c for c in cards if suit(c) != SPADE]
        return Play(max(shed, key=power) if shed else min(cards, key=power))
    if winner == nil:
        under = [c for c in cards if not beats(c, best, led)]
        if under:
            return Play(max(under, key=lambda c: (suit(c) != SPADE, power(c))))
    return None


def choose_play(view: SpadesView, legal: Sequence[Action]) -> Action:
    me = view.seat
    partner = (me + 2) % 4
    cards = [a.card for a in legal]
    defence = defend_nil(view, cards)
    if defence is not None:
        return defence
    played = {pc.card for t in view.tricks for pc in t.cards} | {pc.card for pc in view.trick}
    seats = view.seats
    i_nil = seats[me].bid == 0
    partner_nil = seats[partner].bid == 0
    contract = sum(seats[s].bid for s in (me, partner) if seats[s].bid)
    taken = sum(seats[s].tricks_won for s in (me, partner) if seats[s].bid)
    made = contract > 0 and taken >= contract

    lowest = min(cards, key=low_key)
    highest = max(cards, key=lambda c: (power(c), suit(c) == SPADE))

    # ---- leading ----
    if not view.trick:
        if i_nil or made:
            return Play(lowest)
        if partner_nil:  # cover: lead winners, then high cards
            masters = [c for c in cards if is_master(c, view, played)]
            return Play(max(masters or cards, key=lambda c: (power(c), suit(c) != SPADE)))
        side_masters = [c for c in cards if suit(c) != SPADE and is_master(c, view, played)]
        if side_masters:
            return Play(max(side_masters, key=power))
        spade_masters = [c for c in cards if suit(c) == SPADE and is_master(c, view, played)]
        if spade_masters:
            return Play(max(spade_masters, key=power))
        # Low from the longest side suit.
        counts = {s: sum(1 for c in cards if suit(c) == s) for s in range(4)}
        side = [c for c in cards if suit(c) != SPADE]
        pool = side or cards
        longest = max(pool, key=lambda c: (counts[suit(c)], -power(c)))
        return Play(min((c for c in pool if suit(c) == suit(longest)), key=power))

    led = suit(view.trick[0].card)
    winner_seat, best = current_winner(view)
    winners = [c for c in cards if beats(c, best, led)]
    losers = [c for c in cards if c not in winners]
    position = len(view.trick) + 1  # 2nd, 3rd or 4th to play

    # ---- I bid nil: never win if avoidable; shed the highest safe card ----
    if i_nil:
        if losers:
            return Play(max(losers, key=lambda c: (power(c), suit(c) == SPADE)))
        return Play(highest)

    # ---- partner bid nil: take the trick over partner when we can ----
    if partner_nil:
        partner_to_play = partner not in {pc.seat for pc in view.trick}
        if (winner_seat == partner or partner_to_play) and winners:
            return Play(max(winners, key=power) if partner_to_play else min(winners, key=power))
        return Play(lowest)

    # ---- partner already winning: follow low ----
    if winner_seat == partner:
        return Play(lowest)

    # ---- contract made: avoid bags ----
    if made:
        if losers:
            return Play(max(losers, key=lambda c: (suit(c) != SPADE, power(c))))
        return Play(min(winners, key=power))

    if not winners:
        return Play(lowest)
    sure = [c for c in winners if is_master(c, view, played) or position == 4]
    if position == 2:
        # Second hand low, unless a sure winner of the led suit is at hand.
        led_sure = [c for c in sure if suit(c) == led]
        return Play(min(led_sure, key=power) if led_sure else lowest)
    if position == 3:
        # Third hand high: the cheapest sure winner, else the highest winner.
        return Play(min(sure, key=power) if sure else max(winners, key=power))
    # Fourth hand: as cheaply as possible (a trump only when void; always worth it here).
    return Play(min(winners, key=low_key))


def choose(view: SpadesView, legal_actions: Sequence[Action], rng: random.Random | None = None) -> Action:
    """The heuristic's action for ``view`` (deterministic; ``rng`` unused)."""
    first = legal_actions[0]
    if isinstance(first, (Look, Bid)):
        return choose_bid(view, legal_actions)
    if isinstance(first, Give):
        return choose_give(view, legal_actions)
    return choose_play(view, legal_actions)


class SpadesHeuristicBot(Bot):
    """Rule-based Spades bot (see the module docstring)."""

    name = "spades-heuristic"
    games = ("spades",)

    def choose(self, view: SpadesView, legal_actions: Sequence[Action]) -> Action:
        return choose(view, legal_actions, self.rng)
