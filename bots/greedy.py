"""A deliberately simple Spades bot: bids its aces, kings and high spades, then plays the
highest card that wins the trick so far, else its lowest card. Any other game: random."""

from __future__ import annotations

from sdk import Bot
from sdk.spades import Bid, Look, Play, Suit, power, trick_winner


class GreedyBot(Bot):
    name = "greedy"
    version = "1.0"
    games = ("spades",)

    def choose(self, view, legal_actions):
        if Look() in legal_actions:
            return Look()
        bids = [a for a in legal_actions if isinstance(a, Bid) and not a.blind]
        if bids:
            sure = sum(1 for c in view.hand if c.rank in (1, 13) or (c.suit is Suit.S and c.rank >= 11))
            want = Bid(max(1, min(13, sure)))
            return want if want in bids else bids[-1]
        plays = [a for a in legal_actions if isinstance(a, Play)]
        if not plays:
            return legal_actions[0]
        by_power = sorted(plays, key=lambda p: (p.card.suit is Suit.S, power(p.card)))
        if view.trick:
            so_far = [(pc.seat, pc.card) for pc in view.trick]
            winners = [p for p in by_power if trick_winner(so_far + [(view.seat, p.card)]) == view.seat]
            if winners:
                return winners[-1]
            return by_power[0]
        return by_power[-1]
