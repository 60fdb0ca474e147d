"""Double-dummy nil: can a nil bidder be forced to take a trick, every card seen, perfect play?

Bridge's double-dummy solver (DDS) counts a side's tricks; Spades' nil asks another question:
does one seat take *no* trick? This module answers it exactly by its own search, the Spades
rules included (follow suit; spades trump; no spade lead before spades are broken unless
the leader holds nothing else):

* the nil bidder and its partner play to keep the nil bidder from winning a trick (the
  partner covers), the two opponents play to force it to win one;
* a boolean minimax over the cards still in the hands, with the trick in progress;
  equivalent cards (adjacent in their suit among the cards still in play, in one hand)
  are tried once; positions at the start of a trick are remembered;
* a certain end is seen at once: a nil bidder holding the highest spade left must win
  the trick it plays it to; a nil bidder with no card left has made its nil.

``nil_taken`` returns True (the nil fails under perfect play), False (it survives
whatever the opponents do) or None when the search would take more than ``budget``
positions (the caller then falls back to another estimate). Pure Python, no dependency:
used by ``bots/spades_dds.py`` to value a deal while a nil is alive.
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["BUDGET", "NilSolver", "nil_taken"]

#: Positions a search may visit before it gives up (returns None).
BUDGET = 1500
#: The full ``BUDGET`` is spent only when the nil bidder holds at most this many cards:
#: earlier, a search rarely ends within it (most 13-card deals ran out of it), so a longer
#: hand gets ``QUICK`` positions (enough for a certain end: the highest spade held, ...).
MAX_CARDS = 8
QUICK = 150

_SPADE = 0


def _power(card: int) -> int:
    rank = card // 4 + 1
    return 14 if rank == 1 else rank


#: Per suit: its cards' ids from low to high.
_BY_POWER = [sorted((c for c in range(52) if c % 4 == s), key=_power) for s in range(4)]
_SUIT_MASK = [sum(1 << c for c in range(52) if c % 4 == s) for s in range(4)]
_POWER = [_power(c) for c in range(52)]


class _OutOfBudget(Exception):
    pass


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _wins(plays: Sequence[tuple[int, int]]) -> int:
    led = plays[0][1] % 4
    seat, best = plays[0]
    for s, c in plays[1:]:
        if c % 4 == best % 4:
            if _POWER[c] > _POWER[best]:
                seat, best = s, c
        elif c % 4 == _SPADE:
            seat, best = s, c
    assert best % 4 in (led, _SPADE)
    return seat


def _current_best(plays: Sequence[tuple[int, int]]) -> int:
    best = plays[0][1]
    for _, c in plays[1:]:
        if (c % 4 == best % 4 and _POWER[c] > _POWER[best]) or (c % 4 == _SPADE and best % 4 != _SPADE):
            best = c
    return best


def _beats(card: int, best: int) -> bool:
    if card % 4 == best % 4:
        return _POWER[card] > _POWER[best]
    return card % 4 == _SPADE


class _Search:
    def __init__(self, nil: int, budget: int):
        self.nil = nil
        self.team = {nil, (nil + 2) % 4}
        self.budget = budget
        self.nodes = 0
        self.memo: dict[tuple, bool] = {}

    def moves(self, hands: list[int], seat: int, trick: list[tuple[int, int]], broken: bool) -> list[int]:
        self.hands_now = hands
        hand = hands[seat]
        if trick:
            follow = hand & _SUIT_MASK[trick[0][1] % 4]
            legal = follow or hand
        elif not broken and hand & ~_SUIT_MASK[_SPADE]:
            legal = hand & ~_SUIT_MASK[_SPADE]
        else:
            legal = hand
        # One card of each run of cards adjacent in their suit among those still in play.
        live = hands[0] | hands[1] | hands[2] | hands[3]
        for _, c in trick:
            live |= 1 << c
        reps = []
        for s in range(4):
            if not legal & _SUIT_MASK[s]:
                continue
            prev_mine = False
            for c in _BY_POWER[s]:
                bit = 1 << c
                if not live & bit:
                    continue
                if legal & bit:
                    if not prev_mine:
                        reps.append(c)
                    else:
                        reps[-1] = c  # the run's highest stands for it
                    prev_mine = True
                else:
                    prev_mine = False
        return self.order(reps, seat, trick)

    def order(self, cards: list[int], seat: int, trick: list[tuple[int, int]]) -> list[int]:
        nil_played = any(s == self.nil for s, _ in trick)
        best = _current_best(trick) if trick else None
        nil_winning = nil_played and _wins(trick) == self.nil
        if seat == self.nil:
            if trick:
                # Duck as high as possible; a winning card last, the lowest first.
                return sorted(cards, key=lambda c: (_beats(c, best), -_POWER[c] if not _beats(c, best) else _POWER[c]))
            return sorted(cards, key=lambda c: _POWER[c])
        if seat in self.team:
            if nil_winning:  # overtake the nil bidder as cheaply as possible
                return sorted(cards, key=lambda c: (not _beats(c, best), _POWER[c] + (20 if c % 4 == _SPADE else 0)))
            return sorted(cards, key=lambda c: -_POWER[c] - (20 if c % 4 == _SPADE else 0))
        if not trick:  # lead low in the nil bidder's suits, its longest first
            held = self.hands_now[self.nil]
            return sorted(cards, key=lambda c: (not held & _SUIT_MASK[c % 4], _POWER[c] + (20 if c % 4 == _SPADE else 0)))
        if nil_winning:  # do not overtake
            return sorted(cards, key=lambda c: (_beats(c, best), _POWER[c]))
        return sorted(cards, key=lambda c: _POWER[c] + (20 if c % 4 == _SPADE else 0))

    def certain(self, hands: list[int]) -> bool | None:
        mine = hands[self.nil]
        if not mine:
            return False
        spades = mine & _SUIT_MASK[_SPADE]
        if spades:
            others = (hands[0] | hands[1] | hands[2] | hands[3]) & ~mine & _SUIT_MASK[_SPADE]
            if not others or max(_POWER[c] for c in _cards(spades)) > max(_POWER[c] for c in _cards(others)):
                return True
            return None
        # No spade, never to lead: every card below all the others' cards of its suit ducks.
        if self.nil_leads:
            return None
        rest = (hands[0] | hands[1] | hands[2] | hands[3]) & ~mine
        for s in range(1, 4):
            held = _cards(mine & _SUIT_MASK[s])
            if not held:
                continue
            others = _cards(rest & _SUIT_MASK[s])
            if others and max(_POWER[c] for c in held) > min(_POWER[c] for c in others):
                return None
        return False

    def trick_start(self, hands: list[int], leader: int, broken: bool) -> bool:
        self.nil_leads = leader == self.nil
        sure = self.certain(hands)
        if sure is not None:
            return sure
        key = (tuple(hands), leader, broken)
        got = self.memo.get(key)
        if got is None:
            got = self.play(hands, leader, [], broken)
            self.memo[key] = got
        return got

    def play(self, hands: list[int], seat: int, trick: list[tuple[int, int]], broken: bool) -> bool:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        maximise = seat not in self.team  # the opponents: force a trick on the nil bidder
        for c in self.moves(hands, seat, trick, broken):
            nh = list(hands)
            nh[seat] &= ~(1 << c)
            plays = trick + [(seat, c)]
            nb = broken or c % 4 == _SPADE
            if len(plays) == 4:
                winner = _wins(plays)
                r = True if winner == self.nil else self.trick_start(nh, winner, nb)
            else:
                r = self.play(nh, (seat + 1) % 4, plays, nb)
            if r == maximise:
                return r
        return not maximise


class NilSolver:
    """``nil_taken`` for one nil bidder, remembering positions across calls (the candidates
    of one decision on one deal share most of their positions); ``budget`` per call."""

    def __init__(self, nil: int, budget: int = BUDGET):
        self.budget = budget
        self.search = _Search(nil, budget)

    def taken(self, hands: Sequence[Sequence[int]], to_play: int, trick: Sequence[tuple[int, int]],
              broken: bool) -> bool | None:
        """``nil_taken`` of this position (``QUICK`` positions while the nil bidder holds more
        than ``MAX_CARDS`` cards)."""
        self.search.budget = self.budget if len(hands[self.search.nil]) <= MAX_CARDS else QUICK
        return self.solve(hands, to_play, trick, broken)

    def solve(self, hands: Sequence[Sequence[int]], to_play: int, trick: Sequence[tuple[int, int]],
              broken: bool) -> bool | None:
        """``nil_taken`` of this position, whatever the hand sizes."""
        s = self.search
        s.nodes = 0
        s.nil_leads = False
        masks = [sum(1 << int(c) for c in h) for h in hands]
        try:
            if trick:
                return s.play(masks, to_play, [(int(a), int(b)) for a, b in trick], broken)
            return s.trick_start(masks, to_play, broken)
        except _OutOfBudget:
            return None


def nil_taken(hands: Sequence[Sequence[int]], to_play: int, trick: Sequence[tuple[int, int]], broken: bool,
              nil: int, budget: int = BUDGET) -> bool | None:
    """Whether ``nil`` is forced to win a trick from this position with every card seen and
    perfect play (module docstring): ``hands`` the cards still held by each seat, ``trick``
    the (seat, card) plays of the trick in progress, ``to_play`` the seat to play next,
    ``broken`` whether spades are broken. None when the search exceeds ``budget`` positions."""
    return NilSolver(nil, budget).solve(hands, to_play, trick, broken)
