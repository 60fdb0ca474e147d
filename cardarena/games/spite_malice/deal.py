"""Dealing a Spite and Malice game (§2.2), the first player (§2.3) and the end of a game or a series."""

from __future__ import annotations

import random

from ..base import EndReason, Outcome, ranks_from_scores
from ..cards import JOKER, STANDARD_DECK, Card
from .actions import (
    _GAME_OVER,
    FIRST_PLAYER_TIE_GUARD,
    HAND_SIZE,
    JOKER_FIRST_PLAYER_RANK,
    MAX_SERIES_GAMES,
    NUM_SIDE_STACKS,
)
from .scoring import game_points, game_result, series_over
from .views import SpiteAndMaliceTurnUp


_BIT_LENGTHS = tuple(n.bit_length() for n in range(512))


def _shuffle(rng: random.Random, x: list) -> None:
    """``rng.shuffle(x)``: the same permutation from the same generator state, in about
    half the time (CPython's ``Random.shuffle`` with ``_randbelow_with_getrandbits``
    inlined). Checked against ``Random.shuffle`` at import; if this Python shuffles
    differently, ``_shuffle`` is ``Random.shuffle`` itself."""
    getrandbits = rng.getrandbits
    bits = _BIT_LENGTHS
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = bits[n] if n < 512 else n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        x[i], x[r] = x[r], x[i]


def _check_shuffle() -> bool:
    for size in (0, 1, 2, 53, 104, 600):
        a, b = list(range(size)), list(range(size))
        r1, r2 = random.Random(f"check:{size}"), random.Random(f"check:{size}")
        r1.shuffle(a)
        _shuffle(r2, b)
        if a != b or r1.random() != r2.random():
            return False
    return True


if not _check_shuffle():  # pragma: no cover - another Python's random module
    _shuffle = random.Random.shuffle


class SpiteAndMaliceDeal:
    """Dealing, the first player and the end (mixed into ``SpiteAndMaliceState``)."""

    # -- deal, first player, end of game -----------------------------------------------

    def _start_game(self, k: int) -> None:
        """Deal game ``k`` from the seed and the game index only (§2.2), then §2.3."""
        g, o = self.game, self.game.options
        n, size = g.n, o.payoff_size
        rng = random.Random(f"{self.seed}:deal:{k}")
        self._pv = self._cv = self._rv = self._sv = self._sc = self._fit = None
        self.game_index = k
        self.shuffles = 0
        self.deadlock_reshuffles = 0
        self.turns_played = 0
        self.consecutive_passes = 0
        self.center, self.completed, self.recycled = [], [], []
        self.side = [[[] for _ in range(NUM_SIDE_STACKS)] for _ in range(n)]
        if o.deck_split:
            deck_a = list(STANDARD_DECK)
            _shuffle(rng, deck_a)
            deck_b = list(STANDARD_DECK) + [JOKER] * o.jokers
            _shuffle(rng, deck_b)
            self.payoff = [deck_a[s * size:(s + 1) * size] for s in range(n)]
            self.hands = [deck_b[s * HAND_SIZE:(s + 1) * HAND_SIZE] for s in range(n)]
            self.stock = deck_b[n * HAND_SIZE:] + deck_a[n * size:]
            if len(deck_a) > n * size:
                _shuffle(rng, self.stock)
        else:
            deck = list(STANDARD_DECK) * o.decks + [JOKER] * o.jokers
            _shuffle(rng, deck)
            self.payoff = [deck[s * size:(s + 1) * size] for s in range(n)]
            base = n * size
            self.hands = [deck[base + s * HAND_SIZE: base + (s + 1) * HAND_SIZE] for s in range(n)]
            self.stock = deck[base + n * HAND_SIZE:]
        self.hidden = [size - 1] * n
        self._emit("deal", None, f"game {k + 1}: {size} pay-off cards and {HAND_SIZE} cards to each seat; stock {len(self.stock)}")
        for s in range(n):
            self._emit("deal", s, f"seat {s} receives {' '.join(map(str, self.hands[s]))}", tuple(self.hands[s]), frozenset({s}))
        if o.initial_side_cards:
            for s in range(n):
                for j in range(NUM_SIDE_STACKS):
                    self.side[s][j].append(self.stock.pop())
                self._emit("side_deal", s, f"seat {s} side stacks start with {' '.join(str(x[-1]) for x in self.side[s])}",
                           tuple(x[-1] for x in self.side[s]))
        self.to_act = self._first_player(rng)
        self._start_turn()

    def _first_player(self, rng: random.Random) -> int:
        """§2.3 / §8.9: highest turned-up pay-off card; tied seats reshuffle and turn again.
        Every card turned up, and the seat chosen, are public: kept for the views
        (``turn_ups``, ``first_seat``)."""

        def value(c: Card) -> int:
            return JOKER_FIRST_PLAYER_RANK if c == JOKER else c // 4 + 1

        cands = list(range(self.game.n))
        turn_ups: list[SpiteAndMaliceTurnUp] = []
        for round_ in range(FIRST_PLAYER_TIE_GUARD):
            tops = {s: self.payoff[s][-1] for s in cands}
            turn_ups.extend(SpiteAndMaliceTurnUp(round_, s, tops[s]) for s in cands)
            self._emit("turn_up", None, "pay-off tops: " + ", ".join(f"seat {s} {tops[s]}" for s in cands),
                       tuple(tops[s] for s in cands))
            best = max(value(c) for c in tops.values())
            tied = [s for s in cands if value(tops[s]) == best]
            if len(tied) == 1:
                first = tied[0]
                break
            for s in tied:
                rng.shuffle(self.payoff[s])
            self._emit("first_player_tie", None, f"tie between seats {tied}: their pay-off piles are reshuffled")
            cands = tied
        else:
            first = rng.choice(cands)
        self._emit("first_player", first, f"seat {first} plays first")
        self.first_seat, self.turn_ups = first, tuple(turn_ups)
        return first

    def _finish_game(self, winners: tuple[int, ...] | None, reason: EndReason, detail: str) -> None:
        """Score the game (§4), then end or (series) deal the next one (§4.4)."""
        g, o = self.game, self.game.options
        self._pv = None
        counts = [sum(len(self.payoff[s]) for s in team) for team in g.team_members]
        winner = None if winners is None else g.team_of[winners[0]]
        gained = game_points(counts, winner)
        result = game_result(counts, winner, o.stalemate_rule)
        text = f"game {self.game_index + 1} over ({reason.value}): {detail}; pay-off cards left {counts}"
        if o.series_scoring:
            for s in range(g.n):
                self.points[s] += gained[g.team_of[s]]
            text += f"; points {self.points}"
        self._emit("game_over", None, text)
        if o.series_scoring:
            if series_over(self.points, o.match_target):
                self._end(tuple(float(x) for x in self.points), EndReason.COMPLETED, f"series won; {detail}")
            elif self.game_index + 1 >= MAX_SERIES_GAMES:
                self._end(tuple(float(x) for x in self.points), EndReason.TURN_LIMIT, f"series guard: {MAX_SERIES_GAMES} games")
            else:
                self._start_game(self.game_index + 1)
            return
        self._end(tuple(result[g.team_of[s]] for s in range(g.n)), reason, detail)

    def _end(self, scores: tuple[float, ...], reason: EndReason, detail: str) -> None:
        self.phase = _GAME_OVER
        self._outcome = Outcome(scores, ranks_from_scores(scores), reason, detail)
