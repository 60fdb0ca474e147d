"""A Spite and Malice game (or series) in progress: its fields, copying, and the parts mixed in by concern."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ..base import Action, Event, Outcome, State
from ..cards import Card
from .actions import _GAME_OVER, _MAIN, NUM_SIDE_STACKS
from .deal import SpiteAndMaliceDeal
from .legal import SpiteAndMaliceLegal
from .turns import SpiteAndMaliceTurns
from .views import SpiteAndMaliceCards, SpiteAndMaliceMove, SpiteAndMalicePlayer, SpiteAndMaliceTurnUp, SpiteAndMaliceViews

if TYPE_CHECKING:
    from .game import SpiteAndMalice


# --------------------------------------------------------------------------------------
# The state.


class SpiteAndMaliceState(SpiteAndMaliceLegal, SpiteAndMaliceTurns, SpiteAndMaliceDeal, SpiteAndMaliceViews, State):
    """A game (or a series of games) in progress."""

    def __init__(self, game: SpiteAndMalice, seed: int):
        self.game = game
        self.seed = seed
        n = game.n
        self.game_index = 0
        self.payoff: list[list[Card]] = [[] for _ in range(n)]
        self.hidden: list[int] = [0] * n
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.side: list[list[list[Card]]] = [[[] for _ in range(NUM_SIDE_STACKS)] for _ in range(n)]
        self.center: list[list[Card]] = []
        self.completed: list[list[Card]] = []
        self.stock: list[Card] = []
        self.recycled: list[Card] = []  # sorted multiset of face-up cards shuffled into the stock
        self.points: list[int] = [0] * n
        self.to_act = 0
        # The current game's choice of its first player (§2.3): who it chose and every card
        # turned up for it (public, in every view; set by _first_player, immutable).
        self.first_seat = 0
        self.turn_ups: tuple[SpiteAndMaliceTurnUp, ...] = ()
        self.phase = _MAIN
        self.turns_played = 0
        self.turn_actions = 0
        self.moved = False
        self.turn_moves: list[SpiteAndMaliceMove] = []
        self.consecutive_passes = 0
        self.hand_compel = False
        self.shuffles = 0
        self.deadlock_reshuffles = 0
        self._outcome: Outcome | None = None
        self._log: list[Event] = []
        # View caches (immutable parts, rebuilt when their source changes): the public
        # picture of each seat, (centre piles, completed piles), the recycled cards.
        self._pv: list[SpiteAndMalicePlayer | None] | None = None
        self._cv: tuple | None = None
        self._rv: tuple[Card, ...] | None = None
        self._sv: list[tuple | None] | None = None  # side stacks per seat
        self._sc: list[list[SpiteAndMaliceCards | None]] | None = None  # each side stack (with _sv)
        # Centre plays of the current centre piles (reset when they change), the game's
        # for their layout: see _new_fit. Only ever filled, never cleared, so a clone may
        # share it.
        self._fit: tuple[list[bool], dict[int, tuple[Action, ...]]] | None = None

    def clone(self) -> "SpiteAndMaliceState":
        c = SpiteAndMaliceState.__new__(SpiteAndMaliceState)
        c.__dict__.update(self.__dict__)
        c.payoff = [list(p) for p in self.payoff]
        c.hidden = list(self.hidden)
        c.hands = [list(h) for h in self.hands]
        c.side = [[list(s) for s in slots] for slots in self.side]
        c.center = [list(p) for p in self.center]
        c.completed = [list(p) for p in self.completed]
        c.stock = list(self.stock)
        c.recycled = list(self.recycled)
        c.points = list(self.points)
        c.turn_moves = list(self.turn_moves)
        c._log = list(self._log)
        c._pv = None if self._pv is None else list(self._pv)
        c._sv = None if self._sv is None else list(self._sv)
        c._sc = None if self._sc is None else [list(x) for x in self._sc]
        return c

    GAME_OVER = _GAME_OVER  # the generic surface (current_seat, is_terminal, log, outcome) is State's

    def standing(self) -> tuple[tuple[float, ...], ...]:
        """Per seat: its side's series points so far (a series), then the fewer pay-off cards its
        side has left the better: what every seat sees (``State.standing``)."""
        g = self.game
        left = [sum(len(self.payoff[m]) for m in g.team_members[g.team_of[s]]) for s in range(g.n)]
        if g.options.series_scoring:
            return tuple((float(self.points[s]), float(-left[s])) for s in range(g.n))
        return tuple((float(-left[s]),) for s in range(g.n))

    # Referee-side reads, the same as Spot's (arbiter.rating.draws): immutable copies of cards no
    # seat may see, never part of a view; a bot is sent views, never an engine state.

    def stock_cards(self) -> tuple[Card, ...]:
        """The stock in draw order: the next card drawn from it first."""
        return tuple(reversed(self.stock))

    def hand_cards(self, seat: int) -> tuple[Card, ...]:
        """``seat``'s hand, in the order the engine holds it."""
        return tuple(self.hands[seat])

    def all_cards(self) -> Counter:
        """The multiset of every card on the table (for conservation checks)."""
        out: Counter = Counter()
        for p in self.payoff:
            out.update(p)
        for h in self.hands:
            out.update(h)
        for slots in self.side:
            for s in slots:
                out.update(s)
        for p in self.center:
            out.update(p)
        for p in self.completed:
            out.update(p)
        out.update(self.stock)
        return out
