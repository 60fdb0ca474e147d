"""Spades: four players in two fixed partnerships, spades always trump.

Rules: docs/rules/spades.md (sections cited as §n; ``arbiter rules spades`` prints a
summary and every option). Scoring lives in the pure module ``spades_scoring``.

Design choices:

* Seats 0 and 2 are side 0 ("A"), seats 1 and 3 side 1 ("B"); ``side(s) = s % 2``.
* Deal ``k`` (1-based) is shuffled by ``random.Random(f"{seed}:deal:{k}")`` and the first
  dealer drawn from ``random.Random(f"{seed}:first_dealer")``; nothing else is random, so
  a seed gives the same hands deal by deal whatever is played (duplicate deals).
* Blind nil is "possible" for a seat in a deal when option ``blind_nil`` is on and its
  side trails by at least ``blind_nil_min_deficit`` at the start of the deal (always,
  with the default 0). Only such a seat starts the deal without seeing its hand; every
  other seat is treated as having looked from the deal on (§3.2: it is offered no
  ``look``). A seat that has not looked sees none of its cards until ``look``, its own
  exchange turn, or the start of play (§6), in its view and in its events alike.
* The exchange (§3.3) is a list of ``give`` steps decided when bidding ends; each giver
  sees its hand when its step comes. Sides exchange in the order their blind-nil bidders
  bid; partners who both bid blind nil do not exchange.
* Option ``deals`` (engine extension for duplicate play): the game ends after exactly
  that many deals, ranked by total (equal totals: a draw), ignoring ``target``,
  ``lose_at`` and ``max_deals``. Otherwise ``max_deals`` is the guard of §4.2.
* Hands in views are sorted by suit (S, H, D, C) then rank high to low; ``Give`` stores
  its two cards in that order, so equal gives compare equal.
* Completed tricks of the current deal are in every view (public history, §6), and one
  result line per finished deal. Once the game is over every view also carries the full
  record of each deal (hands as dealt, exchanged cards).
"""

from __future__ import annotations

import enum
import random
from collections import Counter
from dataclasses import dataclass
from typing import Literal, Sequence

from .base import (
    Action,
    ConfigError,
    EndReason,
    Event,
    Game,
    IllegalActionError,
    InvalidActionError,
    Outcome,
    State,
)
from .cards import STANDARD_DECK, Card, InvalidCardError, Suit, parse_cards
from .spades_scoring import (
    FailedNilTricks,
    ScoringRules,
    SideDealScore,
    SimultaneousTargetRule,
    game_result,
    score_side,
)

# --------------------------------------------------------------------------------------
# Constants

NUM_SEATS = 4
HAND_SIZE = 13
NUM_TRICKS = 13
MAX_BID = 13
EXCHANGE_SIZE = 2
SPADE = int(Suit.S)
SIDE_NAMES = ("A", "B")
SIDES = ((0, 2), (1, 3))


def power(card: int) -> int:
    """Rank for comparison inside a suit: 2..10, J=11, Q=12, K=13, A=14."""
    rank = card // 4 + 1
    return 14 if rank == 1 else rank


#: Sort key of a card in a hand: suit S, H, D, C, then rank high to low.
SORT_KEY: tuple[int, ...] = tuple((c % 4) * 16 + (14 - power(c)) for c in range(52))


def sort_cards(cards) -> list[Card]:
    return sorted(cards, key=SORT_KEY.__getitem__)


def partner(seat: int) -> int:
    return (seat + 2) % NUM_SEATS


def side_of(seat: int) -> int:
    return seat % 2


def trick_winner(plays: Sequence[tuple[int, int]]) -> int:
    """The seat that wins a full trick: highest spade, else highest card of the led suit."""
    led = plays[0][1] % 4
    best_seat, best = plays[0]
    for seat, card in plays[1:]:
        suit, best_suit = card % 4, best % 4
        if suit == best_suit:
            if power(card) > power(best):
                best_seat, best = seat, card
        elif suit == SPADE:
            best_seat, best = seat, card
        # any other off-suit card never wins
    assert best % 4 in (led, SPADE)
    return best_seat


# --------------------------------------------------------------------------------------
# Options (§7)


class ExchangeOrder(enum.Enum):
    """Who gives first in a blind-nil exchange."""

    PARTNER_FIRST = "partner_first"
    BIDDER_FIRST = "bidder_first"


@dataclass(frozen=True)
class SpadesOptions:
    """The variant table of §7 plus the engine option ``deals``.

    Attributes:
        target: the score a side must reach to win (§4.2).
        nil: whether ``bid nil`` (zero tricks, for +/- ``nil_value``) is allowed.
        nil_value: the bonus for a made nil and the penalty for a failed one.
        blind_nil: whether ``bid blind_nil`` (before looking at the hand) is allowed,
            with its two-card exchange between partners.
        blind_nil_value: the bonus for a made blind nil and the penalty for a failed one.
        blind_nil_min_deficit: blind nil only for a side trailing by at least this many
            points at the start of the deal (0: always).
        blind_nil_exchange: whether a blind-nil bidder and its partner exchange two cards.
        blind_nil_exchange_order: who gives first in the exchange: ``partner_first`` or
            ``bidder_first``.
        failed_nil_tricks: what tricks taken by a nil bidder count for: ``bags`` (+1 point
            and +1 bag each), ``ignored``, or ``count_for_partner`` (towards the contract).
        bag_penalty: whether accumulated overtricks (bags) cost points.
        bag_limit: bags per penalty.
        bag_penalty_points: points deducted per ``bag_limit`` bags.
        simultaneous_target_rule: who wins when both sides reach the target in one deal:
            ``higher_total`` or ``higher_deal_score``.
        lose_at: a side at or below this score after a deal loses (off: no such rule).
        first_dealer: the first dealer: ``random`` (drawn from the seed) or a seat 0-3.
        max_deals: termination guard: after this many deals the higher total wins
            (equal totals: a draw).
        deals: play exactly this many deals, then rank by total, ignoring ``target``,
            ``lose_at`` and ``max_deals`` (off: play to the target; for short duplicate
            matches).
    """

    target: int = 500
    nil: bool = True
    nil_value: int = 100
    blind_nil: bool = True
    blind_nil_value: int = 200
    blind_nil_min_deficit: int = 0
    blind_nil_exchange: bool = True
    blind_nil_exchange_order: ExchangeOrder = ExchangeOrder.PARTNER_FIRST
    failed_nil_tricks: FailedNilTricks = FailedNilTricks.BAGS
    bag_penalty: bool = True
    bag_limit: int = 10
    bag_penalty_points: int = 100
    simultaneous_target_rule: SimultaneousTargetRule = SimultaneousTargetRule.HIGHER_TOTAL
    lose_at: int | None = None
    first_dealer: Literal["random"] | int = "random"
    max_deals: int = 200
    deals: int | None = None


# --------------------------------------------------------------------------------------
# Actions (§3.1)


@dataclass(frozen=True)
class Look(Action):
    """Pick up and look at the own hand (only while blind nil is possible)."""

    def __str__(self) -> str:
        return "look"


@dataclass(frozen=True)
class Bid(Action):
    """A bid: ``tricks`` 1..13, or 0 for nil; ``blind`` marks a blind nil (tricks 0)."""

    tricks: int
    blind: bool = False

    def __post_init__(self) -> None:
        if self.blind and self.tricks != 0:
            raise ValueError(f"a blind bid must be nil (tricks 0), got {self.tricks}")
        if self.tricks < 0:
            raise ValueError(f"a bid cannot be negative, got {self.tricks}")

    def __str__(self) -> str:
        if self.blind:
            return "bid blind_nil"
        return "bid nil" if self.tricks == 0 else f"bid {self.tricks}"


@dataclass(frozen=True)
class Give(Action):
    """Hand two cards face down to the partner in a blind-nil exchange (stored sorted)."""

    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sort_cards(Card(int(c)) for c in self.cards)))

    def __str__(self) -> str:
        return "give " + " ".join(map(str, self.cards))


@dataclass(frozen=True)
class Play(Action):
    """Play a card to the current trick."""

    card: Card

    def __str__(self) -> str:
        return f"play {self.card}"


#: A ``give`` as it reads to everyone but the giver and the receiver (Spades.action_text).
PUBLIC_GIVE_TEXT = "give two cards"

_LOOK = Look()
_BLIND_NIL = Bid(0, True)
_BIDS = tuple(Bid(n) for n in range(MAX_BID + 1))  # _BIDS[0] is nil
_PLAYS = tuple(Play(c) for c in STANDARD_DECK)
_BIT = tuple(1 << c for c in range(52))
_CARD_STR = tuple(str(c) for c in STANDARD_DECK)
#: Every give, keyed by its two cards in hand order (hands are kept sorted).
_GIVES = {
    (g.cards[0], g.cards[1]): g
    for g in (Give((a, b)) for i, a in enumerate(STANDARD_DECK) for b in STANDARD_DECK[i + 1 :])
}
#: The same gives as a table: ``_GIVES_BY[a][b]`` for a before b in hand order.
_GIVES_BY: tuple[tuple[Give | None, ...], ...] = tuple(
    tuple(_GIVES.get((a, b)) for b in range(52)) for a in range(52)
)


# --------------------------------------------------------------------------------------
# Views (§6)


class Phase(enum.Enum):
    """Where a deal stands (scoring is a forced step, not a phase anyone acts in)."""

    BIDDING = 1
    EXCHANGE = 2
    PLAY = 3
    GAME_OVER = 4


# Module-level aliases of the phases: an Enum member looked up through its class costs a
# descriptor call on every use (Python 3.11), and the hot paths test the phase constantly.
_BIDDING, _EXCHANGE, _PLAY, _GAME_OVER = Phase.BIDDING, Phase.EXCHANGE, Phase.PLAY, Phase.GAME_OVER


@dataclass(frozen=True)
class SpadesSeat:
    """Public facts about one seat in the current deal.

    Attributes:
        seat: the seat, 0-3 (side A is seats 0 and 2, side B seats 1 and 3).
        hand_count: cards in its hand: 13 minus the cards it has played (15 or 11 for a
            moment during a blind-nil exchange).
        looked: whether it has seen its hand (by ``look``, or because blind nil was
            never possible for it in this deal).
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
        penalties: the points it lost to bag penalties in this deal.
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
            possible) and in the spectator view.
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
        record: every deal's hands as dealt and its exchanges, once the game is over;
            empty while it runs.
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
_SEATS: dict[tuple, SpadesSeat] = {}
_new = object.__new__
_set = object.__setattr__


def _seat_info(seat: int, hand_count: int, looked: bool, bid: int | None, blind: bool, tricks_won: int) -> SpadesSeat:
    key = (seat, hand_count, looked, bid, blind, tricks_won)
    info = _SEATS.get(key)
    if info is None:
        info = _SEATS[key] = SpadesSeat(*key)
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


# --------------------------------------------------------------------------------------
# Game


class Spades(Game):
    """Four-player partnership Spades (§1-§8)."""

    name = "spades"
    rules_summary = """\
Four players in two fixed partnerships: side A is seats 0 and 2, side B seats 1 and 3
(partners sit opposite). One 52-card deck; ace high in every suit; spades are always trumps.

Each deal: 13 cards to each seat, dealt from the dealer's left; the deal passes to the left.
Bidding: each seat bids once, from the dealer's left, the dealer last: a number of tricks
(1-13), nil (no tricks at all) or, before looking at its cards, blind nil. After a blind nil
the partners exchange two cards face down (option blind_nil_exchange).

Play: 13 tricks. The dealer's left leads the first trick, each trick's winner the next. Follow
suit if you can; otherwise play any card. A spade may not be led until a spade has been played
in the deal (spades "broken"), unless the leader holds only spades. The highest spade wins a
trick, else the highest card of the suit led.

Scoring per side: a contract (the sum of its number bids) made scores 10 per trick bid plus 1
per overtrick (a "bag"); a contract missed loses 10 per trick bid. Nil scores +/-100, blind nil
+/-200. Every 10 bags cost 100 points. The first side to reach the target (500) wins; if both
reach it in one deal, the higher total wins (equal totals: play on)."""
    notation = """\
look                 pick up and look at your hand (offered only while blind nil is possible)
bid 4 | bid nil      bid a number of tricks 1-13, or nil (bid 0 is the same as bid nil)
bid blind_nil        bid blind nil, before looking
give 2C 3D           blind-nil exchange: hand two cards face down to your partner
play QS              play a card to the current trick
Cards: rank A 2..10 J Q K then suit S H D C, e.g. QS, 10H, AC."""
    Options = SpadesOptions
    action_types = (Look, Bid, Give, Play)
    view_type = SpadesView

    @property
    def num_seats(self) -> int:
        return NUM_SEATS

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        return SIDES

    def validate(self) -> None:
        o = self.options
        if o.target < 1:
            raise ConfigError(f"option 'target' must be at least 1, got {o.target}")
        for name in ("nil_value", "blind_nil_value", "bag_penalty_points", "blind_nil_min_deficit"):
            if getattr(o, name) < 0:
                raise ConfigError(f"option {name!r} must not be negative, got {getattr(o, name)}")
        if o.bag_limit < 1:
            raise ConfigError(f"option 'bag_limit' must be at least 1, got {o.bag_limit}")
        if o.lose_at is not None and o.lose_at >= o.target:
            raise ConfigError(f"option 'lose_at' ({o.lose_at}) must be below 'target' ({o.target})")
        if o.first_dealer != "random" and not 0 <= o.first_dealer < NUM_SEATS:
            raise ConfigError(f"option 'first_dealer' must be 'random' or a seat 0-3, got {o.first_dealer}")
        if o.max_deals < 1:
            raise ConfigError(f"option 'max_deals' must be at least 1, got {o.max_deals}")
        if o.deals is not None and o.deals < 1:
            raise ConfigError(f"option 'deals' must be at least 1 (or off), got {o.deals}")
        self.scoring = ScoringRules(
            o.nil_value, o.blind_nil_value, o.failed_nil_tricks, o.bag_penalty, o.bag_limit, o.bag_penalty_points
        )

    def new_initial_state(self, seed: int) -> "SpadesState":
        return SpadesState(self, seed)

    def action_text(self, action: Action, actor: int, viewer: int | None) -> str:
        """How ``action`` by seat ``actor`` reads to ``viewer`` (None: a spectator).

        The only private part of a Spades action is the pair of cards of a ``give``
        (§3.3, §6: they pass face down; only the giver and the receiver, the giver's
        partner, learn them, as the engine's private ``give`` event shows). Every other
        viewer, spectators included, reads ``give two cards``, what the public event
        says, whichever cards they were. ``look``, bids and card plays are public:
        everyone reads the notation.
        """
        if action.__class__ is Give and viewer != actor and viewer != partner(actor):
            return PUBLIC_GIVE_TEXT
        return str(action)

    def state_from_deal(
        self,
        hands: Sequence[Sequence[Card] | str],
        dealer: int = 3,
        scores: tuple[int, int] = (0, 0),
        bags: tuple[int, int] = (0, 0),
        seed: int = 0,
    ) -> "SpadesState":
        """Test helper: a state whose first deal has the given hands (13 cards each).

        Later deals come from ``seed`` as usual.
        """
        parsed = [parse_cards(h) if isinstance(h, str) else tuple(h) for h in hands]
        if len(parsed) != NUM_SEATS or any(len(h) != HAND_SIZE for h in parsed):
            raise ValueError("state_from_deal needs 4 hands of 13 cards")
        if sorted(c for h in parsed for c in h) != list(STANDARD_DECK):
            raise ValueError("the hands must hold each of the 52 cards exactly once")
        return SpadesState(self, seed, first_hands=parsed, dealer=dealer, scores=scores, bags=bags)

    def parse_action(self, text: str) -> Action:
        words = text.strip().split()  # cards keep the case they were typed in, for the error
        if not words:
            raise InvalidActionError("empty action: expected look, bid <n|nil|blind_nil>, give <c1> <c2> or play <card>")
        verb, args = words[0].lower(), words[1:]
        try:
            if verb == "look":
                if args:
                    raise InvalidActionError(f"{text!r}: look takes no argument")
                return _LOOK
            if verb == "bid":
                if len(args) != 1:
                    raise InvalidActionError(f"{text!r}: expected bid <n>, bid nil or bid blind_nil")
                arg = args[0].lower()
                if arg in ("nil", "0"):
                    return _BIDS[0]
                if arg in ("blind_nil", "blind-nil", "blindnil"):
                    return _BLIND_NIL
                if not arg.isdigit():
                    raise InvalidActionError(f"{text!r}: the bid must be a number, nil or blind_nil")
                return Bid(int(arg))
            if verb == "give":
                cards = parse_cards(args, jokers=False)
                if len(cards) != EXCHANGE_SIZE or cards[0] == cards[1]:
                    raise InvalidActionError(f"{text!r}: give needs exactly two different cards")
                if any(c.is_joker for c in cards):
                    raise InvalidActionError(f"{text!r}: Spades is played without jokers")
                return Give(cards)
            if verb == "play":
                if len(args) != 1:
                    raise InvalidActionError(f"{text!r}: expected play <card>, e.g. play QS")
                card = Card.parse(args[0], jokers=False)
                if card.is_joker:
                    raise InvalidActionError(f"{text!r}: Spades is played without jokers")
                return _PLAYS[card]
        except InvalidCardError as exc:
            raise InvalidActionError(f"{text!r}: {exc}") from None
        raise InvalidActionError(f"{text!r}: unknown verb {verb!r} (expected look, bid, give or play)")

    # ---- forward model (sdk.forward): a state from a view plus sampled hidden cards ----

    def state_from_view(self, view: "SpadesView", hands: Sequence[Sequence[Card]], seed: int) -> "SpadesState":
        """A state that shows ``view`` to ``view.seat`` and holds ``hands`` (current, per seat).

        For the SDK's forward model: every public fact (phase, bids, tricks, scores, the
        exchanges) comes from the view, the hidden ones (every seat's current hand) from
        ``hands``, and later deals from ``seed``. The caller guarantees consistency
        (hand sizes, no card both held and played); nothing hidden from the view is read.
        Cards exchanged between other seats are unknown to the viewer and recorded as ().
        """
        if view.phase is _GAME_OVER:
            raise ValueError("state_from_view: the game is over")
        st = object.__new__(SpadesState)
        st.game, st.o, st.seed = self, self.options, seed
        st.scores = [view.sides[0].score, view.sides[1].score]
        st.bags = [view.sides[0].bags, view.sides[1].bags]
        st.deal_scores_before = tuple(st.scores)  # scores change only when a deal is scored
        st.history, st.records, st._log = list(view.history), list(view.record), []
        st.winner, st.end_reason = None, None
        st.dealer, st.deal_no, st.phase = view.dealer, view.deal, view.phase
        st.hands = [sort_cards(h) for h in hands]
        played = [[] for _ in range(NUM_SEATS)]
        for t in view.tricks:
            for pc in t.cards:
                played[pc.seat].append(pc.card)
        for pc in view.trick:
            played[pc.seat].append(pc.card)
        st.dealt = tuple(tuple(sort_cards(list(h) + p)) for h, p in zip(hands, played))
        st.bids = [x.bid for x in view.seats]
        st.blind = [x.blind_nil for x in view.seats]
        st.looked = [x.looked for x in view.seats]
        st.tricks_won = [x.tricks_won for x in view.seats]
        st.exchanges = [[x.giver, x.receiver, (tuple(x.cards) if x.done else None)] for x in view.exchanges]
        st.exchange_step = sum(1 for x in view.exchanges if x.done)
        givers = {x.giver for x in view.exchanges[: st.exchange_step + 1]} if view.phase is _EXCHANGE else set()
        st.sees = [
            (s == view.seat and view.hand_visible) or (s != view.seat and (
                st.looked[s] or view.phase is _PLAY or s in givers))
            for s in range(NUM_SEATS)
        ]
        st.trick = [(pc.seat, pc.card) for pc in view.trick]
        st.tricks = list(view.tricks)
        st.spades_broken = view.spades_broken
        st.leader = view.leader
        st.to_act = view.to_act
        st._view_cache = None
        st._exchange_views = None
        return st


# --------------------------------------------------------------------------------------
# State


class SpadesState(State):
    """A Spades game in progress. Built only by ``Spades.new_initial_state``/``state_from_deal``."""

    def __init__(
        self,
        game: Spades,
        seed: int,
        first_hands: Sequence[Sequence[Card]] | None = None,
        dealer: int | None = None,
        scores: tuple[int, int] = (0, 0),
        bags: tuple[int, int] = (0, 0),
    ) -> None:
        self.game = game
        self.o: SpadesOptions = game.options
        self.seed = seed
        self.scores = list(scores)
        self.bags = list(bags)
        self.history: list[SpadesDealResult] = []
        self.records: list[SpadesDealRecord] = []
        self._log: list[Event] = []
        self.winner: int | None = None
        self.end_reason: EndReason | None = None
        if dealer is None:
            if self.o.first_dealer == "random":
                dealer = random.Random(f"{seed}:first_dealer").randrange(NUM_SEATS)
            else:
                dealer = self.o.first_dealer
        self.dealer = dealer
        self.deal_no = 0
        self._start_deal(first_hands)

    # ---- the generic surface ----------------------------------------------------------

    @property
    def current_seat(self) -> int | None:
        return None if self.phase is _GAME_OVER else self.to_act

    @property
    def is_terminal(self) -> bool:
        return self.phase is _GAME_OVER

    @property
    def log(self) -> list[Event]:
        return self._log

    def all_cards(self) -> Counter:
        """The 52 cards of the current deal: in the hands and in its tricks (for
        conservation checks)."""
        out = Counter(c for h in self.hands for c in h)
        out.update(pc.card for t in self.tricks for pc in t.cards)
        out.update(c for _, c in self.trick)
        return out

    #: The legal actions of the current position, computed once; reset by ``apply``.
    _legal: list[Action] | None = None
    #: During PLAY, the cards of ``_legal`` as a bitmask (bit c = card c), for ``apply``.
    _legal_mask: int = 0

    def legal_actions(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            legal = self._legal = self._play_actions() if self.phase is _PLAY else self._compute_legal_actions()
        return list(legal)

    def _compute_legal_actions(self) -> list[Action]:
        if self.phase is _BIDDING:
            return self._bidding_actions()
        if self.phase is _EXCHANGE:
            return self._exchange_actions()
        if self.phase is _PLAY:
            return self._play_actions()
        return []

    def apply(self, action: Action) -> list[Event]:
        # The common case first: a card play, checked against the legal cards' bitmask
        # (the same test as membership in legal_actions(), without comparing dataclasses).
        if self.phase is _PLAY and action.__class__ is Play and action.card.__class__ is Card:
            if self._legal is None:
                self._legal = self._compute_legal_actions()
            if self._legal_mask >> action.card & 1:
                self._legal = None
                log = self._log
                start = len(log)
                self._apply_play(action)
                return log[start:]
        if self.phase is _GAME_OVER:
            raise IllegalActionError(f"{action}: the game is over")
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal_actions()
        # Identity first (legal actions are interned): the dataclass __eq__ is slow, and
        # an exchange has over a hundred gives to compare against.
        for a in legal:
            if a is action:
                break
        else:
            if action not in legal:
                raise IllegalActionError(f"{action}: {self._why_illegal(action)}")
        start = len(self._log)
        self._view_cache = None
        self._exchange_views = None
        self._legal = None
        if self.phase is _BIDDING:
            self._apply_bidding(action)
        elif self.phase is _EXCHANGE:
            self._apply_exchange(action)
        else:
            self._apply_play(action)
        return self._log[start:]

    def outcome(self) -> Outcome:
        if self.phase is not _GAME_OVER:
            raise ValueError("the game is not over")
        scores = tuple(float(self.scores[side_of(s)]) for s in range(NUM_SEATS))
        if self.winner is None:
            ranks = (1, 1, 1, 1)
            detail = f"draw at {self.scores[0]}-{self.scores[1]} after {self.deal_no} deal{'s' * (self.deal_no != 1)}"
        else:
            ranks = tuple(1 if side_of(s) == self.winner else 2 for s in range(NUM_SEATS))
            detail = (
                f"side {SIDE_NAMES[self.winner]} wins {self.scores[self.winner]} to "
                f"{self.scores[1 - self.winner]} after {self.deal_no} deal{'s' * (self.deal_no != 1)}"
            )
        assert self.end_reason is not None
        return Outcome(scores, ranks, self.end_reason, detail)

    def clone(self) -> "SpadesState":
        new = object.__new__(SpadesState)
        new.__dict__.update(self.__dict__)
        new.scores = list(self.scores)
        new.bags = list(self.bags)
        new.history = list(self.history)
        new.records = list(self.records)
        new._log = list(self._log)
        new.hands = [list(h) for h in self.hands]
        new.sees = list(self.sees)
        new.looked = list(self.looked)
        new.bids = list(self.bids)
        new.blind = list(self.blind)
        new.exchanges = [list(x) for x in self.exchanges]
        new.trick = list(self.trick)
        new.tricks = list(self.tricks)
        new.tricks_won = list(self.tricks_won)
        new._view_cache = None  # patched in place by card plays: never shared
        new._exchange_views = None
        return new

    # ---- dealing (§2) -------------------------------------------------------------------

    def _emit(self, kind: str, seat: int | None, text: str, cards: Sequence[Card] = (), to=None) -> None:
        self._log.append(Event(kind, seat, text, tuple(cards), None if to is None else frozenset(to)))

    def _start_deal(self, hands: Sequence[Sequence[Card]] | None = None) -> None:
        """Shuffle (from the seed and deal number only), deal, reveal what may be seen."""
        self.deal_no += 1
        d = self.dealer
        if hands is None:
            deck = list(STANDARD_DECK)
            random.Random(f"{self.seed}:deal:{self.deal_no}").shuffle(deck)
            dealt: list[list[Card]] = [[] for _ in range(NUM_SEATS)]
            for i, card in enumerate(deck):  # one at a time, clockwise from the dealer's left
                dealt[(d + 1 + i) % NUM_SEATS].append(card)
            hands = dealt
        self.hands = [sort_cards(h) for h in hands]
        self.dealt = tuple(tuple(h) for h in self.hands)
        self.phase = _BIDDING
        self.bids: list[int | None] = [None] * NUM_SEATS
        self.blind = [False] * NUM_SEATS
        self.exchanges: list[list] = []  # [giver, receiver, cards or None]
        self.exchange_step = 0
        self.trick: list[tuple[int, Card]] = []
        self.tricks: list[SpadesTrick] = []
        self.tricks_won = [0] * NUM_SEATS
        self.spades_broken = False
        self.leader: int | None = None
        self.deal_scores_before = tuple(self.scores)
        self.looked = [not self._blind_nil_possible(s) for s in range(NUM_SEATS)]
        self.sees = [False] * NUM_SEATS
        self._view_cache = None
        self._emit("deal", d, f"deal {self.deal_no}: seat {d} deals 13 cards to each seat")
        for s in range(NUM_SEATS):
            if self.looked[s]:
                self._reveal(s)
        self.to_act = (d + 1) % NUM_SEATS

    def _blind_nil_possible(self, seat: int) -> bool:
        """Option blind_nil, and the side trails by at least blind_nil_min_deficit (§7)."""
        if not self.o.blind_nil:
            return False
        if self.o.blind_nil_min_deficit == 0:
            return True
        own = self.scores[side_of(seat)]
        other = self.scores[1 - side_of(seat)]
        return other - own >= self.o.blind_nil_min_deficit

    def _reveal(self, seat: int) -> None:
        """From now on ``seat`` sees its hand: a private event with its cards."""
        if self.sees[seat]:
            return
        self.sees[seat] = True
        hand = self.hands[seat]
        self._emit("hand", seat, f"seat {seat} holds {' '.join([_CARD_STR[c] for c in hand])}", hand, {seat})

    # ---- BIDDING (§3.2) -----------------------------------------------------------------

    def _bidding_actions(self) -> list[Action]:
        s = self.to_act
        # A seat that may still bid blind nil has not looked: it may look or bid blind nil.
        if not self.looked[s]:
            return [_LOOK, _BLIND_NIL]
        # After looking: nil (if allowed) or 1..13; no constraint on the total.
        return list(_BIDS) if self.o.nil else list(_BIDS[1:])

    def _apply_bidding(self, action: Action) -> None:
        s = self.to_act
        if isinstance(action, Look):
            self.looked[s] = True
            self._emit("look", s, f"seat {s} looks at its hand")
            self._reveal(s)
            return  # the same seat bids next
        assert isinstance(action, Bid)
        self.bids[s] = action.tricks
        self.blind[s] = action.blind
        self._emit("bid", s, f"seat {s} bids {str(action)[4:]}")
        if s != self.dealer:
            self.to_act = (s + 1) % NUM_SEATS
            return
        # The dealer bid last: exchange if a blind nil was bid, else play.
        self._plan_exchanges()
        if self.exchanges:
            self.phase = _EXCHANGE
            self._start_exchange_step()
        else:
            self._start_play()

    # ---- EXCHANGE (§3.3) ----------------------------------------------------------------

    def _plan_exchanges(self) -> None:
        if not self.o.blind_nil_exchange:
            return
        order = [(self.dealer + 1 + i) % NUM_SEATS for i in range(NUM_SEATS)]
        for b in order:  # sides in the order their blind-nil bidders bid
            p = partner(b)
            if not self.blind[b] or self.blind[p]:
                continue  # no blind nil, or both partners blind: no exchange
            if self.o.blind_nil_exchange_order is ExchangeOrder.PARTNER_FIRST:
                self.exchanges += [[p, b, None], [b, p, None]]
            else:
                self.exchanges += [[b, p, None], [p, b, None]]
        # That an exchange happens, and between whom, is public.
        for giver, receiver, _ in self.exchanges[::2]:
            self._emit("exchange", giver, f"seats {giver} and {receiver} exchange two cards (blind nil)")

    def _start_exchange_step(self) -> None:
        giver = self.exchanges[self.exchange_step][0]
        self.to_act = giver
        self._reveal(giver)  # a blind-nil bidder first sees its cards when it must give

    def _exchange_actions(self) -> list[Action]:
        hand = self.hands[self.to_act]
        gives = _GIVES_BY
        return [g for i, a in enumerate(hand) for g in map(gives[a].__getitem__, hand[i + 1 :])]

    def _apply_exchange(self, action: Action) -> None:
        assert isinstance(action, Give)
        step = self.exchanges[self.exchange_step]
        giver, receiver = step[0], step[1]
        step[2] = action.cards
        for c in action.cards:
            self.hands[giver].remove(c)
        self.hands[receiver] = sort_cards(self.hands[receiver] + list(action.cards))
        self._emit("give", giver, f"seat {giver} gives two cards to seat {receiver}")
        self._emit(
            "give", giver, f"seat {giver} gives {' '.join(map(str, action.cards))} to seat {receiver}",
            action.cards, {giver, receiver},
        )
        self.exchange_step += 1
        if self.exchange_step < len(self.exchanges):
            self._start_exchange_step()
        else:
            self._start_play()

    # ---- PLAY (§3.4) --------------------------------------------------------------------

    def _start_play(self) -> None:
        self.phase = _PLAY
        for s in range(NUM_SEATS):
            self._reveal(s)  # everyone sees its cards at the latest now
        self.leader = self.to_act = (self.dealer + 1) % NUM_SEATS

    def _play_actions(self) -> list[Action]:
        hand = self.hands[self.to_act]
        if not self.trick:
            # Leading: no spade until spades are broken, unless the hand is all spades.
            cards = hand
            if not self.spades_broken:
                cards = [c for c in hand if c & 3] or hand  # c & 3 == c % 4; SPADE is 0
        else:
            # Following: must follow the led suit if possible, else any card.
            led = self.trick[0][1] & 3
            cards = [c for c in hand if c & 3 == led] or hand
        mask = 0
        for c in cards:
            mask |= _BIT[c]
        self._legal_mask = mask
        return [_PLAYS[c] for c in cards]

    def _apply_play(self, action: Play) -> None:
        s, card = self.to_act, action.card
        self.hands[s].remove(card)
        trick = self.trick
        trick.append((s, card))
        if card & 3 == SPADE:
            self.spades_broken = True
        self._log.append(_PLAY_EVENTS[s][card])
        vb = self._view_cache
        if vb is not None:  # patch the shared view fields this play changes
            seats = list(vb["seats"])
            seats[s] = _after_play(seats[s])
            vb["spades_broken"] = self.spades_broken
        if len(trick) < NUM_SEATS:
            self.to_act = (s + 1) % NUM_SEATS
            if vb is not None:
                vb["seats"] = tuple(seats)
                vb["trick"] += (_PLAYED[s][card],)
                vb["to_act"] = self.to_act
            return
        # The trick is complete: highest spade, else highest of the led suit.
        winner = trick_winner(trick)
        self.tricks_won[winner] += 1
        done = SpadesTrick(self.leader, tuple(_PLAYED[p][c] for p, c in trick), winner)
        self.tricks.append(done)
        self.trick = []
        self._log.append(_TRICK_EVENTS[winner][len(self.tricks)])
        if len(self.tricks) < NUM_TRICKS:
            self.leader = self.to_act = winner
            if vb is not None:
                seats[winner] = _after_win(seats[winner])
                vb["seats"] = tuple(seats)
                vb["trick"] = ()
                vb["tricks"] += (done,)
                vb["to_act"] = vb["leader"] = winner
            return
        self._view_cache = None
        self._exchange_views = None
        self._score_deal()

    # ---- SCORING and the end (§4) --------------------------------------------------------

    def _score_deal(self) -> None:
        results: list[SideDealScore] = []
        for side, seats in enumerate(SIDES):
            r = score_side(
                [self.bids[s] for s in seats],
                [self.blind[s] for s in seats],
                [self.tricks_won[s] for s in seats],
                self.scores[side],
                self.bags[side],
                self.game.scoring,
            )
            results.append(r)
            self.scores[side], self.bags[side] = r.score, r.bags
            penalty = f", {r.penalties} bag penalty" if r.penalties else ""
            self._emit(
                "score", None,
                f"side {SIDE_NAMES[side]} (seats {seats[0]},{seats[1]}): contract {r.contract}, "
                f"took {r.contract_tricks}, {r.points:+d} points, {r.bags_added} bags{penalty}; "
                f"total {r.score}, bags {r.bags}",
            )
        self.history.append(
            SpadesDealResult(
                self.deal_no, self.dealer, tuple(self.bids), tuple(self.blind), tuple(self.tricks_won),
                tuple(SpadesSideResult(i, r.contract, r.contract_tricks, r.nil_tricks, r.points,
                                       r.bags_added, r.penalties, r.score, r.bags)
                      for i, r in enumerate(results)),
            )
        )
        self.records.append(
            SpadesDealRecord(
                self.deal_no,
                tuple(SpadesHand(s, h) for s, h in enumerate(self.dealt)),
                tuple(SpadesExchange(g, r, True, c) for g, r, c in self.exchanges),
            )
        )
        self._check_end()

    def _check_end(self) -> None:
        o = self.o
        if o.deals is not None:
            if self.deal_no >= o.deals:
                self._end(_higher_side(self.scores), EndReason.COMPLETED)
                return
        else:
            winner = game_result(self.deal_scores_before, self.scores, o.target, o.simultaneous_target_rule, o.lose_at)
            if winner is not None:
                self._end(winner, EndReason.COMPLETED)
                return
            if self.deal_no >= o.max_deals:
                self._end(_higher_side(self.scores), EndReason.TURN_LIMIT)
                return
        # Play on: the deal passes to the left.
        self.dealer = (self.dealer + 1) % NUM_SEATS
        self._start_deal()

    def _end(self, winner: int | None, reason: EndReason) -> None:
        self.phase = _GAME_OVER
        self.winner = winner
        self.end_reason = reason
        self.to_act = None
        if winner is None:
            text = f"game over: draw at {self.scores[0]}-{self.scores[1]}"
        else:
            text = f"game over: side {SIDE_NAMES[winner]} wins {self.scores[winner]} to {self.scores[1 - winner]}"
        self._emit("game_over", None, text)

    # ---- illegal-action reasons (from the actor's information only) -----------------------

    def _why_illegal(self, action: Action) -> str:
        phase = self.phase.name.lower()
        if isinstance(action, Look):
            if self.phase is not _BIDDING:
                return f"no look during {phase}"
            return "already looked, or blind nil is not possible for this seat"
        if isinstance(action, Bid):
            if self.phase is not _BIDDING:
                return f"no bidding during {phase}"
            if action.blind:
                return "blind nil is only possible before looking at the hand"
            if not self.looked[self.to_act]:
                return "look at the hand first (or bid blind_nil)"
            if action.tricks == 0:
                return "nil bids are not allowed (option nil is off)"
            return f"a bid must be nil or 1 to {MAX_BID}"
        if isinstance(action, Give):
            if self.phase is not _EXCHANGE:
                return f"no exchange during {phase}"
            return "you must give two cards you hold"
        if isinstance(action, Play):
            if self.phase is not _PLAY:
                return f"no card play during {phase}"
            hand = self.hands[self.to_act]
            if action.card not in hand:
                return f"you do not hold {action.card}"
            if self.trick:
                return f"must follow suit ({Suit(self.trick[0][1] % 4).name})"
            return "spades are not broken and you hold another suit"
        return f"not a Spades action ({type(action).__name__})"

    # ---- views (§6): THE seam ------------------------------------------------------------

    def _public(self) -> dict:
        """The fields of a view every seat shares, in field order (the per-seat ones are
        placeholders). Cached until the next ``apply``; a card play patches it in place."""
        vb = self._view_cache
        if vb is None:
            hands, looked, bids, blind, won = self.hands, self.looked, self.bids, self.blind, self.tricks_won
            seats = tuple(
                _seat_info(s, len(hands[s]), looked[s], bids[s], blind[s], won[s]) for s in range(NUM_SEATS)
            )
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
        over = self.phase is _GAME_OVER
        seen = cache[seat] = tuple(
            SpadesExchange(g, r, c is not None, c if c is not None and (over or seat in (g, r)) else ())
            for g, r, c in self.exchanges
        )
        return seen

    def _view(self, seat: int | None) -> SpadesView:
        # Built without the frozen dataclass's __init__ (one object.__setattr__ per
        # field): a copy of the shared fields plus the seat's own, the same values.
        d = (self._view_cache or self._public()).copy()
        d["seat"] = seat
        if seat is not None and self.sees[seat]:
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


def _higher_side(scores: Sequence[int]) -> int | None:
    if scores[0] == scores[1]:
        return None
    return 0 if scores[0] > scores[1] else 1
