"""Tiny Tricks: the engine of a small trick-taking game that exists only in the tests.

2-4 players each get ``hand_size`` cards of a shuffled pack (the rest stay out of play).
The player after the dealer (seat 0 deals) leads; each player in turn plays a card and
must follow the suit led if able; the highest card of the suit led wins the trick (ace
high) and leads the next. When the hands are empty, the most tricks wins.
"""

from __future__ import annotations

import enum
import random
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from cardarena.games.base import (
    Action,
    EndReason,
    Event,
    Game,
    IllegalActionError,
    InvalidActionError,
    Outcome,
    Platform,
    State,
    option,
    ranks_from_scores,
)
from cardarena.games.cards import STANDARD_DECK, Card, InvalidCardError


@dataclass(frozen=True)
class TinyTricksOptions:
    """The options of Tiny Tricks.

    Attributes:
        players: How many play, 2 to 4.
        hand_size: Cards dealt to each player (and tricks played), 1 to 8.
    """

    players: int = option(3, min=2, max=4)
    hand_size: int = option(4, min=1, max=8)


class Phase(enum.Enum):
    PLAY = "play"
    GAME_OVER = "game_over"


@dataclass(frozen=True)
class Play(Action):
    """``play <card>``."""

    card: Card

    def __str__(self) -> str:
        return f"play {self.card}"


@dataclass(frozen=True)
class TinyPlayed:
    """A card in a trick.

    Attributes:
        seat: Who played it.
        card: The card.
    """

    seat: int
    card: Card


@dataclass(frozen=True)
class TinyTricksView:
    """What a seat sees (seat None: a spectator).

    Attributes:
        seat: The viewer, None for a spectator.
        phase: Play, or game over.
        current_seat: The seat to play, None once over.
        num_players: How many play.
        hand: The viewer's cards, sorted (empty for a spectator).
        hand_counts: Cards left in each hand.
        trick: The cards of the trick being played, in order.
        played: The cards of the finished tricks, in order of play.
        tricks_won: Tricks won by each seat.
        trick_number: The trick being played (1-based).
        dealt: Every hand as dealt, once the game is over (empty before).
    """

    seat: int | None
    phase: Phase
    current_seat: int | None
    num_players: int
    hand: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    trick: tuple[TinyPlayed, ...]
    played: tuple[Card, ...]
    tricks_won: tuple[int, ...]
    trick_number: int
    dealt: tuple[tuple[Card, ...], ...] = ()


def high(card: Card) -> int:
    """Rank within a suit, ace high."""
    return 14 if card.rank == 1 else card.rank


#: The rules in brief, for ``arbiter rules``: the module's docstring, taken here (inside
#: the class body ``__doc__`` is the class's own docstring, not the module's).
RULES = __doc__ or ""


class TinyTricks(Game):
    """Tiny Tricks (module docstring)."""

    name = "tiny-tricks"
    Options = TinyTricksOptions
    rules_summary = RULES
    notation = "play <card>, e.g. play QS"
    action_types = (Play,)
    view_type = TinyTricksView
    platform = Platform(seats=(2, 4), smoke_options={"hand_size": "2"}, value_units="tricks",
                        value_margin=0.5, value_reference="search")

    @property
    def num_seats(self) -> int:
        return self.options.players

    def new_initial_state(self, seed: int) -> "TinyTricksState":
        deck = list(STANDARD_DECK)
        random.Random(f"{seed}:deal").shuffle(deck)
        k = self.options.hand_size
        return TinyTricksState(self, [deck[s * k:(s + 1) * k] for s in range(self.num_seats)])

    def parse_action(self, text: str) -> Action:
        words = text.split()
        if len(words) != 2 or words[0].lower() != "play":
            raise InvalidActionError(f"{text!r}: expected play <card>, e.g. play QS")
        try:
            return Play(Card.parse(words[1], jokers=False))
        except InvalidCardError as exc:
            raise InvalidActionError(f"{text!r}: {exc}") from None

    def state_from_view(self, view: TinyTricksView, hands: Sequence[Sequence[Card]], seed: int) -> "TinyTricksState":
        """A state showing ``view`` to its seat, with ``hands`` (every seat's, the
        caller's sample) in place of the unseen ones (the forward model)."""
        st = TinyTricksState(self, hands, deal=False)
        st.trick = [(p.seat, p.card) for p in view.trick]
        st.played = list(view.played)
        st.tricks_won = list(view.tricks_won)
        st.to_act = view.current_seat
        return st


class TinyTricksState(State):
    GAME_OVER = Phase.GAME_OVER

    def __init__(self, game: TinyTricks, hands: Sequence[Sequence[Card]], deal: bool = True) -> None:
        self.game = game
        n = game.num_seats
        self.hands = [sorted(h) for h in hands]
        self.dealt = tuple(tuple(h) for h in self.hands)
        self.trick: list[tuple[int, Card]] = []
        self.played: list[Card] = []
        self.tricks_won = [0] * n
        self.phase = Phase.PLAY
        self.to_act = 1 % n
        self._log: list[Event] = []
        if deal:
            for s in range(n):
                self._log.append(Event("deal", s, f"seat {s} receives {len(self.hands[s])} cards"))
                self._log.append(Event("deal", s, f"seat {s} receives " + " ".join(map(str, self.hands[s])),
                                       tuple(self.hands[s]), frozenset({s})))

    def legal_actions(self) -> list[Action]:
        if self.phase is Phase.GAME_OVER:
            return []
        hand = self.hands[self.to_act]
        if self.trick:
            led = [c for c in hand if c.suit == self.trick[0][1].suit]
            if led:
                return [Play(c) for c in led]
        return [Play(c) for c in hand]

    def apply(self, action: Action) -> list[Event]:
        if self.phase is Phase.GAME_OVER:
            raise IllegalActionError(f"{action}: the game is over")
        if action not in self.legal_actions():
            why = "you do not hold it" if not isinstance(action, Play) or action.card not in self.hands[self.to_act] else "follow suit"
            raise IllegalActionError(f"{action}: {why}")
        start = len(self._log)
        p, card = self.to_act, action.card
        self.hands[p].remove(card)
        self.trick.append((p, card))
        self._log.append(Event("play", p, f"seat {p} plays {card}", (card,)))
        n = self.game.num_seats
        if len(self.trick) < n:
            self.to_act = (p + 1) % n
            return self._log[start:]
        suit = self.trick[0][1].suit
        winner = max((c for c in self.trick if c[1].suit == suit), key=lambda c: high(c[1]))[0]
        self.tricks_won[winner] += 1
        self.played += [c for _, c in self.trick]
        self.trick = []
        self._log.append(Event("trick", winner, f"seat {winner} wins trick {len(self.played) // n}"))
        self.to_act = winner
        if not self.hands[winner]:
            scores = tuple(float(t) for t in self.tricks_won)
            self.phase = Phase.GAME_OVER
            self._outcome = Outcome(scores, ranks_from_scores(scores), EndReason.COMPLETED,
                                    "tricks " + "-".join(map(str, self.tricks_won)))
            self._log.append(Event("game_over", None, f"game over: tricks {self.tricks_won}"))
        return self._log[start:]

    def all_cards(self) -> Counter:
        return Counter([c for h in self.hands for c in h] + [c for _, c in self.trick] + self.played)

    def standing(self) -> tuple[tuple[float, ...], ...]:
        """Tricks won so far (public): a forfeit ranks the seats that did not fail by them."""
        return tuple((float(t),) for t in self.tricks_won)

    def clone(self) -> "TinyTricksState":
        new = object.__new__(TinyTricksState)
        new.__dict__.update(self.__dict__)
        new.hands = [list(h) for h in self.hands]
        new.trick, new.played, new.tricks_won, new._log = list(self.trick), list(self.played), list(self.tricks_won), list(self._log)
        return new

    def _view(self, seat: int | None) -> TinyTricksView:
        over = self.phase is Phase.GAME_OVER
        n = self.game.num_seats
        return TinyTricksView(
            seat, self.phase, self.current_seat, n, tuple(self.hands[seat]) if seat is not None else (),
            tuple(len(h) for h in self.hands), tuple(TinyPlayed(s, c) for s, c in self.trick), tuple(self.played),
            tuple(self.tricks_won), len(self.played) // n + 1, self.dealt if over else ())

    def view(self, seat: int) -> TinyTricksView:
        if not 0 <= seat < self.game.num_seats:
            raise ValueError(f"no seat {seat}")
        return self._view(seat)

    def spectator_view(self) -> TinyTricksView:
        return self._view(None)
