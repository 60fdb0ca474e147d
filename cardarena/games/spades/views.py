"""What a Spades seat may see (§6): the view dataclasses, and the one place a state builds them."""

from __future__ import annotations

from dataclasses import dataclass

from ..base import Event
from ..cards import STANDARD_DECK, Card
from .actions import _GAME_OVER, _PLAY, MAX_BID, NUM_SEATS, NUM_TRICKS, SIDES, Phase


@dataclass(frozen=True)
class SpadesSeat:
    """Public facts about one seat in the current deal.

    Attributes:
        seat: the seat, 0-3 (side A is seats 0 and 2, side B seats 1 and 3).
        hand_count: cards in its hand: 13 minus the cards it has played (15 or 11 for a
            moment during a blind-nil exchange).
        looked: whether it looked at its hand before bidding (by ``look``, or because
            blind nil was never possible for it in this deal); stays false for a
            blind-nil bidder, which sees its cards later (``hand_visible``).
        bid: its bid: None before it bids, 0 for nil or blind nil, else the number of
            tricks (1-13).
        blind_nil: whether its bid is blind nil.
        tricks_won: tricks it has taken in this deal.
    """

    seat: int
    hand_count: int
    looked: bool
    bid: int | None
    blind_nil: bool
    tricks_won: int


@dataclass(frozen=True)
class SpadesExchange:
    """One planned or made transfer of two cards between partners (blind nil, §3.3).

    Attributes:
        giver: the seat that gives two cards.
        receiver: its partner, who receives them.
        done: whether the cards have been given.
        cards: the two cards given, shown only to the giver and the receiver once done;
            empty otherwise (and always for everyone else).
    """

    giver: int
    receiver: int
    done: bool
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class SpadesPlayedCard:
    """A card played to a trick.

    Attributes:
        seat: the seat that played it.
        card: the card.
    """

    seat: int
    card: Card


@dataclass(frozen=True)
class SpadesTrick:
    """A completed trick of the current deal.

    Attributes:
        leader: the seat that led it.
        cards: its four cards in play order, from the leader's.
        winner: the seat that won it (None only while a trick is in progress).
    """

    leader: int
    cards: tuple[SpadesPlayedCard, ...]
    winner: int | None


@dataclass(frozen=True)
class SpadesSide:
    """A side's running totals.

    Attributes:
        side: 0 for side A (seats 0 and 2), 1 for side B (seats 1 and 3).
        seats: the side's two seats.
        score: its total score so far.
        bags: its bag counter (overtricks not yet penalised).
    """

    side: int
    seats: tuple[int, ...]
    score: int
    bags: int


@dataclass(frozen=True)
class SpadesSideResult:
    """A side's scoring of one finished deal (§4.1).

    Attributes:
        side: 0 for side A, 1 for side B.
        contract: the sum of its number bids (0 if both partners bid nil).
        contract_tricks: the tricks counted towards the contract.
        nil_tricks: the tricks taken by its nil and blind-nil bidders.
        points: its deal points before bag penalties.
        bags_added: the bags it took in this deal.
        penalties: how many bag penalties it took in this deal (each costs
            ``bag_penalty_points``; ``score`` has them deducted).
        score: its total after the deal.
        bags: its bag counter after the deal.
    """

    side: int
    contract: int
    contract_tricks: int
    nil_tricks: int
    points: int
    bags_added: int
    penalties: int
    score: int
    bags: int


@dataclass(frozen=True)
class SpadesDealResult:
    """The public summary of one finished deal.

    Attributes:
        deal: the deal's number, from 1.
        dealer: its dealer.
        bids: each seat's bid, by seat (0 = nil or blind nil).
        blind_nil: whether each seat bid blind nil, by seat.
        tricks_won: the tricks each seat took, by seat.
        sides: each side's scoring of the deal, side A first.
    """

    deal: int
    dealer: int
    bids: tuple[int, ...]
    blind_nil: tuple[bool, ...]
    tricks_won: tuple[int, ...]
    sides: tuple[SpadesSideResult, ...]


@dataclass(frozen=True)
class SpadesHand:
    """One seat's hand as dealt (in the end-of-game record).

    Attributes:
        seat: the seat.
        cards: its 13 cards as dealt, before any exchange, sorted.
    """

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class SpadesDealRecord:
    """The private record of one deal, shown only once the game is over.

    Attributes:
        deal: the deal's number, from 1.
        hands: every seat's hand as dealt, before any exchange.
        exchanges: the deal's blind-nil exchanges, with their cards.
    """

    deal: int
    hands: tuple[SpadesHand, ...]
    exchanges: tuple[SpadesExchange, ...]


@dataclass(frozen=True)
class SpadesView:
    """Everything one seat (or a spectator, ``seat`` None) may see (§6).

    Attributes:
        seat: the seat this view is for, 0-3; None in the spectator view.
        phase: where the deal stands: BIDDING, EXCHANGE, PLAY or GAME_OVER.
        deal: the current deal's number, from 1.
        dealer: the current deal's dealer (the seat after it bids and leads first).
        to_act: the seat that must act now; None once the game is over.
        target: the score that wins the game (option ``target``).
        hand: this seat's own cards, sorted by suit (S H D C) then rank high to low;
            empty while it may not see them (before ``look`` when blind nil is
            possible; after a blind nil bid, until its turn to give in the exchange or
            the start of play) and in the spectator view.
        hand_visible: whether ``hand`` shows the seat's cards.
        seats: every seat's public facts (bid, tricks won, cards held), by seat.
        exchanges: the blind-nil exchanges of this deal, planned or made.
        leader: the seat that leads the current trick (the next to lead while it is
            empty); None outside PLAY.
        trick: the trick in progress: the cards played to it so far, in play order
            (empty between tricks). Completed tricks are in ``tricks``.
        tricks: the completed tricks of this deal, in order, each with its winner.
        spades_broken: whether a spade has been played in this deal (spades may be led).
        sides: each side's running score and bags, side A first.
        history: the summary of every finished deal, in order.
        winner: the winning side (0 = A, 1 = B) once the game is over; None while it
            runs and for a draw.
        record: every deal's hands as dealt and its exchanges, in the spectator's view
            once the game is over (the whole deal); empty while it runs and in a seat's
            view (the hands as dealt would tell the cards another side exchanged).
    """

    seat: int | None
    phase: Phase
    deal: int
    dealer: int
    to_act: int | None
    target: int
    hand: tuple[Card, ...]
    hand_visible: bool
    seats: tuple[SpadesSeat, ...]
    exchanges: tuple[SpadesExchange, ...]
    leader: int | None
    trick: tuple[SpadesPlayedCard, ...]
    tricks: tuple[SpadesTrick, ...]
    spades_broken: bool
    sides: tuple[SpadesSide, ...]
    history: tuple[SpadesDealResult, ...]
    winner: int | None
    record: tuple[SpadesDealRecord, ...]


# Interned immutable values: random play builds the same few hundred small values again
# and again, so the engine looks them up instead (they compare equal to fresh ones).
_PLAYED = tuple(tuple(SpadesPlayedCard(s, c) for c in STANDARD_DECK) for s in range(NUM_SEATS))
_PLAY_EVENTS = tuple(
    tuple(Event("play", s, f"seat {s} plays {c}", (c,), None) for c in STANDARD_DECK) for s in range(NUM_SEATS)
)
_TRICK_EVENTS = tuple(
    tuple(Event("trick", s, f"seat {s} wins trick {n}", (), None) for n in range(NUM_TRICKS + 1)) for s in range(NUM_SEATS)
)
#: The bidding's and the exchange's recurring events, interned as the plays' are (the wire
#: finds an interned event's bytes by its identity: a fresh one is hashed field by field,
#: attempt 98): a look, a bid (by ``_bid_index``), the public exchange and give;
#: the deal's and the private give's below.
_LOOK_EVENTS = tuple(Event("look", s, f"seat {s} looks at its hand") for s in range(NUM_SEATS))
_BID_EVENTS = tuple(
    tuple(Event("bid", s, f"seat {s} bids {'nil' if n == 0 else n}") for n in range(MAX_BID + 1))
    + (Event("bid", s, f"seat {s} bids blind_nil"),)
    for s in range(NUM_SEATS)
)
_EXCHANGE_EVENTS = tuple(
    tuple(Event("exchange", g, f"seats {g} and {r} exchange two cards (blind nil)") for r in range(NUM_SEATS))
    for g in range(NUM_SEATS)
)
_GIVE_EVENTS = tuple(
    tuple(Event("give", g, f"seat {g} gives two cards to seat {r}") for r in range(NUM_SEATS)) for g in range(NUM_SEATS)
)

#: Made on first use (a deal's number, a give's cards): (deal, dealer) -> the deal's event;
#: (giver, receiver, cards) -> the give as the two partners see it.
_DEAL_EVENTS: dict[tuple[int, int], Event] = {}
_GIVE_CARD_EVENTS: dict[tuple, Event] = {}


def _deal_event(deal: int, dealer: int) -> Event:
    event = _DEAL_EVENTS.get((deal, dealer))
    if event is None:
        event = _DEAL_EVENTS[deal, dealer] = Event("deal", dealer, f"deal {deal}: seat {dealer} deals 13 cards to each seat")
    return event


def _give_event(giver: int, receiver: int, cards: tuple[Card, ...]) -> Event:
    event = _GIVE_CARD_EVENTS.get((giver, receiver, cards))
    if event is None:
        event = _GIVE_CARD_EVENTS[giver, receiver, cards] = Event(
            "give", giver, f"seat {giver} gives {' '.join(map(str, cards))} to seat {receiver}", cards,
            frozenset((giver, receiver)))
    return event


def _bid_index(tricks: int, blind: bool) -> int:
    """A bid's place in ``_BID_EVENTS[seat]``: its tricks, MAX_BID + 1 for blind nil."""
    return MAX_BID + 1 if blind else tricks


_SEATS: dict[tuple, SpadesSeat] = {}
_new = object.__new__
_set = object.__setattr__


def _seat_info(seat: int, hand_count: int, looked: bool, bid: int | None, blind: bool, tricks_won: int) -> SpadesSeat:
    key = (seat, hand_count, looked, bid, blind, tricks_won)
    info = _SEATS.get(key)
    if info is None:
        info = _SEATS[key] = SpadesSeat(*key)
    return info


_EXCHANGES: dict[tuple, SpadesExchange] = {}


def _exchange_info(giver: int, receiver: int, done: bool, cards: tuple[Card, ...]) -> SpadesExchange:
    """The interned exchange facts (attempt 99: the wire keeps a view item's bytes by its
    identity, so an exchange's are made once, not at every Turn of the exchange)."""
    key = (giver, receiver, done, cards)
    info = _EXCHANGES.get(key)
    if info is None:
        info = _EXCHANGES[key] = SpadesExchange(*key)
    return info


# The interned seat facts after the seat plays a card / wins a trick, keyed by id() of the
# interned value before (interned values live forever, so their ids are never reused).
_AFTER_PLAY: dict[int, SpadesSeat] = {}
_AFTER_WIN: dict[int, SpadesSeat] = {}


def _after_play(info: SpadesSeat) -> SpadesSeat:
    nxt = _AFTER_PLAY.get(id(info))
    if nxt is None:
        nxt = _AFTER_PLAY[id(info)] = _seat_info(
            info.seat, info.hand_count - 1, info.looked, info.bid, info.blind_nil, info.tricks_won)
    return nxt


def _after_win(info: SpadesSeat) -> SpadesSeat:
    nxt = _AFTER_WIN.get(id(info))
    if nxt is None:
        nxt = _AFTER_WIN[id(info)] = _seat_info(
            info.seat, info.hand_count, info.looked, info.bid, info.blind_nil, info.tricks_won + 1)
    return nxt


class SpadesViews:
    """The views of a ``SpadesState`` (mixed into it): THE seam of §6."""


    # ---- views (§6): THE seam ------------------------------------------------------------

    def _seat_now(self, s: int) -> SpadesSeat:
        """Seat ``s``'s public facts as they are now (interned: ``_seat_info``)."""
        return _seat_info(s, len(self.hands[s]), self.looked[s], self.bids[s], self.blind[s], self.tricks_won[s])

    def _public(self) -> dict:
        """The fields of a view every seat shares, in field order (the per-seat ones are
        placeholders). Cached until the next ``apply``; a card play, a bid or a look patches
        it in place."""
        vb = self._view_cache
        if vb is None:
            seats = tuple(map(self._seat_now, range(NUM_SEATS)))
            sides = self._sides
            if sides is None or sides[0].score != self.scores[0] or sides[1].score != self.scores[1] \
                    or sides[0].bags != self.bags[0] or sides[1].bags != self.bags[1]:
                sides = self._sides = tuple(SpadesSide(i, SIDES[i], self.scores[i], self.bags[i]) for i in range(2))
            phase = self.phase
            over = phase is _GAME_OVER
            vb = self._view_cache = {
                "seat": None,
                "phase": phase,
                "deal": self.deal_no,
                "dealer": self.dealer,
                "to_act": None if over else self.to_act,
                "target": self.o.target,
                "hand": (),
                "hand_visible": False,
                "seats": seats,
                "exchanges": (),
                "leader": self.leader if phase is _PLAY else None,
                "trick": tuple(_PLAYED[s][c] for s, c in self.trick),
                "tricks": tuple(self.tricks),
                "spades_broken": self.spades_broken,
                "sides": sides,
                "history": tuple(self.history),
                "winner": self.winner,
                "record": tuple(self.records) if over else (),
            }
        return vb

    _sides: tuple[SpadesSide, ...] | None = None

    #: ``seat -> exchanges as that seat sees them``, until the next apply outside card play.
    _exchange_views: dict | None = None

    def _exchanges_for(self, seat: int | None) -> tuple[SpadesExchange, ...]:
        cache = self._exchange_views
        if cache is None:
            cache = self._exchange_views = {}
        else:
            seen = cache.get(seat)
            if seen is not None:
                return seen
        # The cards go to the two partners only, even once the game is over: a seat's view
        # of the ended game is all a seat of a closed match is told at its end (a twin
        # seating deals the same cards again: cardarena.disclosure.final_view). Only the
        # spectator's view of the ended game, the whole deal, shows everyone's.
        whole = seat is None and self.phase is _GAME_OVER
        seen = cache[seat] = tuple(
            _exchange_info(g, r, c is not None, c if c is not None and (whole or seat in (g, r)) else ())
            for g, r, c in self.exchanges
        )
        return seen

    def _view(self, seat: int | None) -> SpadesView:
        # Built without the frozen dataclass's __init__ (one object.__setattr__ per
        # field): a copy of the shared fields plus the seat's own, the same values.
        d = (self._view_cache or self._public()).copy()
        d["seat"] = seat
        if seat is not None:
            d["record"] = ()  # every hand as dealt tells the exchanged cards: the spectator's alone
            if self.sees[seat]:
                d["hand"] = tuple(self.hands[seat])
                d["hand_visible"] = True
        if self.exchanges:
            d["exchanges"] = self._exchanges_for(seat)
        view = _new(SpadesView)
        _set(view, "__dict__", d)
        return view

    def view(self, seat: int) -> SpadesView:
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"no seat {seat}")
        return self._view(seat)

    def spectator_view(self) -> SpadesView:
        return self._view(None)

    def revealed_view(self, seat: int) -> SpadesView:
        view = self.view(seat)
        if view.hand_visible:
            return view
        d = view.__dict__.copy()
        d["hand"], d["hand_visible"] = tuple(self.hands[seat]), True
        shown = _new(SpadesView)
        _set(shown, "__dict__", d)
        return shown
