"""Remembers every hand it sees played, across matches, and tries to recognise a deal it
has already played: with duplicate deals the same cards come back in later matches, the
seats rotated, and a bot that recognises its hand knows every other hand of the deal.
It says so in the record: when it holds a hand it has seen played before (but for a
blind nil's exchange) it bids 13, otherwise 1. The memory lives at module level, i.e. as long as its process."""

from sdk import Bot

SEEN: set[frozenset] = set()  # every 13-card hand this process has seen played


class MemoryBot(Bot):
    name = "memory"
    games = ("spades",)

    def on_match_start(self, info):
        self.played = {}

    def on_events(self, events):
        for e in events:
            if e.kind == "play" and e.seat is not None:
                self.played.setdefault(e.seat, set()).update(e.cards)
                if len(self.played[e.seat]) == 13:
                    SEEN.add(frozenset(self.played[e.seat]))

    def choose(self, view, legal_actions):
        if not view.hand_visible:  # offered a blind nil: look at the cards first
            return next(a for a in legal_actions if not getattr(a, "blind", False))
        bids = [a for a in legal_actions if type(a).__name__ == "Bid" and not a.blind]
        if bids:
            # (at least 11 of 13 cards: a blind nil's exchange moves two cards between partners)
            hand = frozenset(view.hand)
            want = 13 if any(len(hand & seen) >= 11 for seen in SEEN) else 1
            return next((b for b in bids if b.tricks == want), bids[0])
        return legal_actions[0]
