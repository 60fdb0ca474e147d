"""What a Spot seat may see: the view dataclasses, and the one place a state builds them."""

from __future__ import annotations

from dataclasses import dataclass

from ..base import twin_class
from ..cards import Card
from .actions import _GAME_OVER, SIXTIETHS, HandEnd, MeldKind, Phase


@dataclass(frozen=True)
class SpotTableMeld:
    """A meld on the table (public).

    Attributes:
        id: the meld's id k, written ``m<k>`` in actions: its creation order in the hand,
            from 0.
        owner: the seat that made it (no effect on scoring or on who may lay off onto it).
        kind: GROUP (3 or 4 cards of one rank) or SEQUENCE (3 or more consecutive cards
            of one suit, ace low).
        cards: its cards: ascending rank for a sequence, suit order S H D C for a group.
    """

    id: int
    owner: int
    kind: MeldKind
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class SpotPickup:
    """A card taken from the discard pile this hand (public: it was face up).

    Attributes:
        seat: the seat that took it.
        card: the card taken.
        turn: the hand's turn number (from 1) in which it was taken.
    """

    seat: int
    card: Card
    turn: int


@dataclass(frozen=True)
class SpotLayoff:
    """A card laid off onto a meld this hand (public: it went face up onto the table).

    Attributes:
        seat: the seat that laid it off.
        card: the card laid off.
        meld: the id k of the meld it went onto (``m<k>``, ``SpotTableMeld.id``).
        turn: the hand's turn number (from 1) in which it was laid off.
    """

    seat: int
    card: Card
    meld: int
    turn: int


@dataclass(frozen=True)
class SpotRevealedHand:
    """One seat's cards shown at the end of a hand.

    Attributes:
        seat: the seat.
        cards: its remaining cards, sorted (empty for the seat that went out).
        spots: their spot total (A = 1, 2-10 face value, J = Q = K = 10).
    """

    seat: int
    cards: tuple[Card, ...]
    spots: int


@dataclass(frozen=True)
class SpotHandSummary:
    """The result of a finished hand (public).

    Attributes:
        hand_number: the hand's number in the match, from 1.
        end: how it ended: WENT_OUT, STOCK_EXHAUSTED or TURN_LIMIT (scored as stock
            exhausted).
        went_out: the seat that went out; None if nobody did.
        hands: every seat's remaining cards and spot total, by seat.
        winners: the seats that collected the payments (who went out, or the lowest
            totals).
        net: units won (+) or lost (-) by each seat in this hand, the ante included.
        pot_after: units left in the pot after the hand (carried over).
    """

    hand_number: int
    end: HandEnd
    went_out: int | None
    hands: tuple[SpotRevealedHand, ...]
    winners: tuple[int, ...]
    net: tuple[float, ...]
    pot_after: float


@dataclass(frozen=True)
class SpotView:
    """Everything one seat may see (§5); ``seat`` is None in the spectator view.

    Attributes:
        seat: the seat this view is for; None in the spectator view.
        num_players: the number of players N (2-6).
        phase: where the seat to act is in its turn: DRAW (it must draw first), DROP
            (it may meld and lay off, and must finally discard) or GAME_OVER.
        current_seat: the seat to act; None once the match is over.
        hand_number: the current hand's number, from 1 (extra hands count on).
        hands_in_match: the regular match length in hands (option ``hands``).
        dealer: the current hand's dealer.
        first_player: the current hand's first player (left of the dealer; dealt 9
            cards, no draw on the first turn).
        hand: this seat's own cards, sorted; empty in the spectator view.
        hand_counts: the number of cards each seat holds, by seat.
        stock_count: the number of cards left in the face-down stock.
        discard_pile: the whole face-up discard pile of this hand, bottom first, top
            (the last discard, the one ``draw discard`` takes) last.
        melds: every meld on the table this hand, in id order.
        pickups: every card taken from the discard pile this hand, in order (who took
            which card).
        pot: units in the pot.
        balances: each seat's balance in units (antes paid, payments received), by seat.
        turn_number: turns completed in this hand (a turn ends with a discard).
        first_turn: whether the current turn is the hand's first (no draw).
        dropped: how many cards the seat to act has laid down (melded or laid off)
            this turn; at most 4 per turn.
        new_meld_made: whether the seat to act has already made its one new meld this
            turn (a second ``meld`` is illegal; layoffs still are not).
        taken_discard: the card the seat to act took from the discard pile this turn,
            if any; it may not be discarded again this turn (unless option
            ``allow_discard_of_taken_card``).
        last_hand: the previous finished hand (revealed hands, payments); the last one
            once the match is over; None before the first hand ends.
        game_over: whether the match is over.
        unused_stock: the last hand's unused stock, top first: only in the spectator
            view once the match is over; empty otherwise.
        layoffs: every card laid off onto a meld this hand, in order (who laid off
            which card onto which meld); a meld's other cards are the ones its owner
            melded.
    """

    seat: int | None
    num_players: int
    phase: Phase
    current_seat: int | None
    hand_number: int
    hands_in_match: int
    dealer: int
    first_player: int
    hand: tuple[Card, ...]
    hand_counts: tuple[int, ...]
    stock_count: int
    discard_pile: tuple[Card, ...]
    melds: tuple[SpotTableMeld, ...]
    pickups: tuple[SpotPickup, ...]
    pot: float
    balances: tuple[float, ...]
    turn_number: int
    first_turn: bool
    dropped: int
    new_meld_made: bool
    taken_discard: Card | None
    last_hand: SpotHandSummary | None
    game_over: bool
    unused_stock: tuple[Card, ...] = ()
    # Added later: after ``unused_stock``, the fields with a default (a view always sets them).
    layoffs: tuple[SpotLayoff, ...] = ()


_ViewTwin = twin_class(SpotView)


class SpotViews:
    """The views of a ``SpotState`` (mixed into it): THE seam."""

    # -- views --------------------------------------------------------------------------

    def view(self, seat: int) -> SpotView:
        if not 0 <= seat < self._n:
            raise ValueError(f"no seat {seat}")
        return self._make_view(seat, tuple(sorted(self._hands[seat])))

    def spectator_view(self) -> SpotView:
        over = self.phase is Phase.GAME_OVER
        return self._make_view(None, (), tuple(reversed(self._stock)) if over else ())

    def _make_view(self, seat: int | None, hand: tuple[Card, ...], unused_stock: tuple[Card, ...] = ()) -> SpotView:
        over = self.phase is _GAME_OVER
        discard = self._v_discard
        if discard is None:
            discard = self._v_discard = tuple(self._discard)
        money = self._v_money
        if money is None:
            money = self._v_money = (self._pot60 / SIXTIETHS, tuple([b / SIXTIETHS for b in self._balances60]))
        # Built without the frozen dataclass's __init__, field by field (see base.twin_class): the
        # same fields, in field order, and the same values as SpotView(...).
        view = _ViewTwin()
        view.seat = seat
        view.num_players = self._n
        view.phase = self.phase
        view.current_seat = None if over else self.to_act
        view.hand_number = self._hand_index + 1
        view.hands_in_match = self._hands_in_match
        view.dealer = self._dealer
        view.first_player = self._first_player
        view.hand = hand
        view.hand_counts = tuple(map(len, self._hands))
        view.stock_count = len(self._stock)
        view.discard_pile = discard
        view.melds = tuple(self._melds)
        view.pickups = tuple(self._pickups)
        view.pot = money[0]
        view.balances = money[1]
        view.turn_number = self._turns
        view.first_turn = self._first_turn and not over
        view.dropped = self._dropped
        view.new_meld_made = self._new_meld
        view.taken_discard = self._taken
        view.last_hand = self._last_hand
        view.game_over = over
        view.unused_stock = unused_stock
        view.layoffs = self._layoffs
        view.__class__ = SpotView
        return view
