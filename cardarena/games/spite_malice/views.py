"""What a Spite and Malice seat may see: the view dataclasses, and the one place a state builds them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..base import twin_class
from ..cards import Card
from .actions import _GAME_OVER, NUM_SIDE_STACKS, Phase


# --------------------------------------------------------------------------------------
# Views.


@dataclass(frozen=True)
class SpiteAndMaliceCards:
    """An ordered run of face-up cards (a side stack, a hand in the final reveal).

    Attributes:
        cards: the cards, bottom first, top (the playable one) last.
    """

    cards: tuple[Card, ...]


@dataclass(frozen=True)
class SpiteAndMalicePile:
    """A centre pile (or a completed one).

    Attributes:
        cards: all its cards, bottom (the ace, or a wild card acting as one) first, top
            last.
        value: the rank its top card represents (= its number of cards): A = 1 .. Q = 12
            (K = 13 with natural kings). The next card must represent value + 1.
    """

    cards: tuple[Card, ...]
    value: int


@dataclass(frozen=True)
class SpiteAndMalicePlayer:
    """The public picture of one seat.

    Attributes:
        seat: the seat.
        team: its team (partners share it; without partnerships, team = seat).
        payoff_count: cards left in its pay-off pile.
        payoff_top: the face-up top card of its pay-off pile; None once it is empty.
        payoff_face_up: the publicly known top part of its pay-off pile, bottom first,
            ending with the top card (with ``loading``, loaded cards stay known once
            covered); the other ``payoff_count - len(payoff_face_up)`` cards are face
            down, seen by nobody, not even the owner.
        hand_count: the number of cards in its hand.
        side_stacks: its 4 side stacks, ``side:0`` to ``side:3``, each whole (every
            card in them was placed face up).
        points: its series points (option ``series_scoring``; partners show their
            team's points); 0 otherwise.
    """

    seat: int
    team: int
    payoff_count: int
    payoff_top: Card | None
    payoff_face_up: tuple[Card, ...]
    hand_count: int
    side_stacks: tuple[SpiteAndMaliceCards, ...]
    points: int


@dataclass(frozen=True)
class SpiteAndMaliceMove:
    """One card moved during the current turn (public).

    Attributes:
        seat: the seat that moved it.
        action: the action in notation, e.g. ``play hand:5C -> center:0``.
        card: the card moved.
    """

    seat: int
    action: str
    card: Card


@dataclass(frozen=True)
class SpiteAndMaliceTurnUp:
    """A pay-off card turned up to choose the first player of a game (§2.3; public).

    Attributes:
        round: the round of the choice, from 0. Round 0 turns up every seat's pay-off
            top; each later round the new tops of the seats tied in the round before,
            once they have reshuffled their whole pay-off piles (so a card turned up in
            an earlier round by a seat that reshuffled is somewhere in its pile, where
            nobody knows).
        seat: the seat whose pay-off top it was.
        card: the card turned up.
    """

    round: int
    seat: int
    card: Card


@dataclass(frozen=True)
class SpiteAndMaliceReveal:
    """Everything, published in the spectator view once the game is over.

    Attributes:
        hands: every seat's hand, by seat.
        payoffs: every seat's whole pay-off pile, bottom first, by seat.
        stock: the stock, bottom first (the last card would have been drawn next).
    """

    hands: tuple[SpiteAndMaliceCards, ...]
    payoffs: tuple[SpiteAndMaliceCards, ...]
    stock: tuple[Card, ...]


@dataclass(frozen=True)
class SpiteAndMaliceView:
    """What one seat (or a spectator, ``seat`` None) may see (§6): its own hand, every
    face-up card, counts of the rest, and the public history the rules keep (the cards
    turned up to choose the first player, recycled cards, this turn's moves).

    Attributes:
        seat: the seat this view is for; None in the spectator view.
        phase: the phase of the current turn: MAIN, FILLING (Massachusetts filling, after
            a fill) or GAME_OVER.
        current_seat: the seat to act; None once the game is over.
        hand: this seat's own hand, sorted; empty in the spectator view.
        players: every seat's public picture, by seat.
        center: the active centre piles; index i is ``center:i`` (creation order). A pile
            that completes leaves at once, and the piles after it move down one: a plan
            of several plays names each pile by its index at the time of that play.
        completed: completed piles set aside for recycling (``recycle = deferred``).
        center_limit: the most active centre piles at once; 0 = unlimited.
        top_rank: the value at which a centre pile completes: 12 (Q) with wild kings,
            13 (K) otherwise.
        kings_wild: whether kings are wild (jokers always are).
        wild_excluded_ranks: ranks (1 = A .. 13 = K) a wild card may not represent on a
            centre pile.
        stock_count: the number of cards in the face-down stock.
        recycled: the sorted face-up cards shuffled into the stock during this game
            (recycled centre piles, deadlock reshuffles); where they lie is unknown and
            some may since have been drawn.
        game_number: the current game of a series, from 0 (always 0 without
            ``series_scoring``).
        turn_number: turns completed in the current game.
        turn_moves: the cards moved so far in the current turn, in order.
        consecutive_passes: turns in a row that ended with ``end`` and no card moved
            (book rules); a deadlock is when it reaches the number of players.
        deadlock_reshuffles: deadlock reshuffles so far in the current game
            (``deadlock_rule = reshuffle``; the next deadlock after
            ``max_deadlock_reshuffles`` of them ends the game).
        reveal: in the spectator view once the game is over, every hidden card; None
            otherwise.
        first_player: the seat that played the current game's first turn (§2.3: the
            owner of the highest card turned up in the last round of
            ``first_player_turn_ups``; after 100 rounds of ties, one of the last tied
            seats drawn at random).
        first_player_turn_ups: every pay-off card turned up to choose the current game's
            first player (§2.3), in the order turned up, round by round: public, seen by
            every seat. Empty for a game not started by a deal (a test's layout).
    """

    seat: int | None
    phase: Phase
    current_seat: int | None
    hand: tuple[Card, ...]
    players: tuple[SpiteAndMalicePlayer, ...]
    center: tuple[SpiteAndMalicePile, ...]
    completed: tuple[SpiteAndMalicePile, ...]
    center_limit: int
    top_rank: int
    kings_wild: bool
    wild_excluded_ranks: tuple[int, ...]
    stock_count: int
    recycled: tuple[Card, ...]
    game_number: int
    turn_number: int
    turn_moves: tuple[SpiteAndMaliceMove, ...]
    consecutive_passes: int
    deadlock_reshuffles: int
    reveal: SpiteAndMaliceReveal | None = None
    # Added later: after ``reveal``, the fields with a default (a view always sets them).
    first_player: int = 0
    first_player_turn_ups: tuple[SpiteAndMaliceTurnUp, ...] = ()


_new = object.__new__
_set = object.__setattr__


def _build(cls: type, fields: dict) -> Any:
    """A frozen dataclass instance from its complete field dict (in field order), without
    running ``__init__`` (one object.__setattr__ per field): equal to ``cls(**fields)``."""
    obj = _new(cls)
    _set(obj, "__dict__", fields)
    return obj


_EMPTY_CARDS = SpiteAndMaliceCards(())
_CardsTwin = twin_class(SpiteAndMaliceCards)
_PlayerTwin = twin_class(SpiteAndMalicePlayer)
_ViewTwin = twin_class(SpiteAndMaliceView)


def _pile_view(pile: list[Card]) -> SpiteAndMalicePile:
    return _build(SpiteAndMalicePile, {"cards": tuple(pile), "value": len(pile)})


class SpiteAndMaliceViews:
    """The views of a ``SpiteAndMaliceState`` (mixed into it): THE seam."""

    # -- views -------------------------------------------------------------------------

    def _side_view(self, s: int) -> tuple[SpiteAndMaliceCards, ...]:
        """Seat ``s``'s side stacks as views, cached until one of them changes (_sv, and
        each stack in _sc: a discard rebuilds one stack's view, not four)."""
        sv = self._sv
        if sv is None:
            n = self.game.n
            sv = self._sv = [None] * n
            self._sc = [[None] * NUM_SIDE_STACKS for _ in range(n)]
        x = sv[s]
        if x is None:
            sc = self._sc[s]  # type: ignore[index]
            stacks = self.side[s]
            for j in range(NUM_SIDE_STACKS):
                if sc[j] is None:
                    stack = stacks[j]
                    if stack:
                        cards = sc[j] = _CardsTwin()  # SpiteAndMaliceCards(tuple(stack)) (see base.twin_class)
                        cards.cards = tuple(stack)
                        cards.__class__ = SpiteAndMaliceCards
                    else:
                        sc[j] = _EMPTY_CARDS
            x = sv[s] = tuple(sc)
        return x

    def _player(self, s: int) -> SpiteAndMalicePlayer:
        pile = self.payoff[s]
        player = _PlayerTwin()  # SpiteAndMalicePlayer(...), field by field (see base.twin_class)
        player.seat = s
        player.team = self.game.team_of[s]
        player.payoff_count = len(pile)
        player.payoff_top = pile[-1] if pile else None
        player.payoff_face_up = tuple(pile[self.hidden[s]:])
        player.hand_count = len(self.hands[s])
        player.side_stacks = self._side_view(s)
        player.points = self.points[s]
        player.__class__ = SpiteAndMalicePlayer
        return player

    def _view(self, seat: int | None, reveal: SpiteAndMaliceReveal | None) -> SpiteAndMaliceView:
        # Built from cached immutable parts (see _pv, _cv, _rv) and without the frozen
        # dataclass's __init__: the same fields and values as SpiteAndMaliceView(...).
        # Every seat's picture is patched here, not in apply: apply stays lean for
        # searches that never look at a view.
        g = self.game
        pv = self._pv
        if pv is None:
            pv = self._pv = [None] * g.n
        # A cached picture is kept unless its hand count or side stacks are stale (see apply).
        hands = self.hands
        sv = self._sv
        for s in range(g.n):
            x = pv[s]
            if x is None:
                pv[s] = self._player(s)
                continue
            side = sv[s] if sv is not None else None
            if side is None:
                side = self._side_view(s)
                sv = self._sv
            if x.hand_count != len(hands[s]) or x.side_stacks is not side:
                # The same picture with this hand count and these side stacks (a twin, as
                # in _player: no instance dict is made, copied or freed).
                y = pv[s] = _PlayerTwin()
                y.seat = x.seat
                y.team = x.team
                y.payoff_count = x.payoff_count
                y.payoff_top = x.payoff_top
                y.payoff_face_up = x.payoff_face_up
                y.hand_count = len(hands[s])
                y.side_stacks = side
                y.points = x.points
                y.__class__ = SpiteAndMalicePlayer
        cv = self._cv
        if cv is None:
            cv = self._cv = (tuple([_pile_view(p) for p in self.center]), tuple([_pile_view(p) for p in self.completed]))
        rv = self._rv
        if rv is None:
            rv = self._rv = tuple(self.recycled)
        view = _ViewTwin()  # SpiteAndMaliceView(...), field by field (see base.twin_class)
        view.seat = seat
        view.phase = self.phase
        view.current_seat = None if self.phase is _GAME_OVER else self.to_act
        view.hand = tuple(sorted(self.hands[seat])) if seat is not None else ()
        view.players = tuple(pv)
        view.center = cv[0]
        view.completed = cv[1]
        view.center_limit = g.view_center_limit
        view.top_rank = g.top_rank
        view.kings_wild = g.view_kings_wild
        view.wild_excluded_ranks = g.view_wild_excluded
        view.stock_count = len(self.stock)
        view.recycled = rv
        view.game_number = self.game_index
        view.turn_number = self.turns_played
        view.turn_moves = tuple(self.turn_moves)
        view.consecutive_passes = self.consecutive_passes
        view.deadlock_reshuffles = self.deadlock_reshuffles
        view.reveal = reveal
        view.first_player = self.first_seat
        view.first_player_turn_ups = self.turn_ups
        view.__class__ = SpiteAndMaliceView
        return view

    def view(self, seat: int) -> SpiteAndMaliceView:
        if not 0 <= seat < self.game.n:
            raise ValueError(f"no seat {seat}")
        return self._view(seat, None)

    def spectator_view(self) -> SpiteAndMaliceView:
        reveal = None
        if self.phase is _GAME_OVER:
            reveal = SpiteAndMaliceReveal(
                hands=tuple(SpiteAndMaliceCards(tuple(h)) for h in self.hands),
                payoffs=tuple(SpiteAndMaliceCards(tuple(p)) for p in self.payoff),
                stock=tuple(self.stock),
            )
        return self._view(None, reveal)
