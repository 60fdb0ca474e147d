"""Planted blunders: the bundled heuristic, except for one known bad move per match.

Each plays as ``heuristic`` but, the first time its situation arises, makes one move that
loses for certain or nearly so; ``blundered`` is the number of its decision (from 1) where
it did (0: the situation never came). The analysis must mark that decision a mistake
(the bench's ``analysis`` section; ``arbiter.analysis.values``). Launch by
``module:Class``: ``bots.blunders:SpadesBidThirteen``.

* ``SpadesBidThirteen``: its first bid is 13 tricks, whatever its hand: a contract it all
  but never makes (-130, and its partner's bid with it).
* ``SpiteMaliceHoldPayoff``: the first time its pay-off card can go to a centre pile, it
  discards a hand card to a side stack instead (its turn ends; the pay-off card waits).
* ``SpotStayIn``: the first time the heuristic would meld or lay off its way to a single
  card (then to discard it and go out, taking the pot), it discards instead and stays in.
"""

from __future__ import annotations

from bots.heuristic import HeuristicBot
from sdk.spades import Bid
from sdk.spite_and_malice import Play as SMPlay, SourceKind, TargetKind
from sdk.spot import Discard, LayOff, Meld


class _Blunder(HeuristicBot):
    name = "blunder"

    def on_match_start(self, info):
        super().on_match_start(info)
        self.blundered = 0
        self.decisions = 0

    def choose(self, view, legal_actions):
        self.decisions += 1
        base = super().choose(view, legal_actions)
        if not self.blundered:
            bad = self.blunder(view, list(legal_actions), base)
            if bad is not None:
                self.blundered = self.decisions
                return bad
        return base

    def blunder(self, view, legal, base):  # pragma: no cover - each subclass's own
        raise NotImplementedError


class SpadesBidThirteen(_Blunder):
    def blunder(self, view, legal, base):
        return Bid(13) if Bid(13) in legal and base != Bid(13) else None


class SpiteMaliceHoldPayoff(_Blunder):
    def blunder(self, view, legal, base):
        if not any(isinstance(a, SMPlay) and a.source.kind is SourceKind.PAYOFF and a.target is TargetKind.CENTER
                   for a in legal):
            return None
        discards = [a for a in legal if isinstance(a, SMPlay) and a.source.kind is SourceKind.HAND
                    and a.target is TargetKind.SIDE]
        return discards[0] if discards else None


class SpotStayIn(_Blunder):
    def blunder(self, view, legal, base):
        dropped = len(base.cards) if isinstance(base, Meld) else 1 if isinstance(base, LayOff) else 0
        if not dropped or len(view.hand) - dropped != 1:
            return None
        discards = [a for a in legal if isinstance(a, Discard)]
        return discards[0] if discards else None
