"""The Spades game: validated options, new states, the notation parser, forward-model states."""

from __future__ import annotations

import functools
import operator
from typing import Sequence

from ..base import Action, ConfigError, Game, InvalidActionError, Platform
from ..cards import STANDARD_DECK, Card, InvalidCardError, parse_cards
from .actions import (
    _BIDS,
    _BLIND_NIL,
    _EVERY_ACTION,
    _EXCHANGE,
    _GAME_OVER,
    _LOOK,
    _PLAY,
    _PLAYS,
    EXCHANGE_SIZE,
    HAND_SIZE,
    MAX_BID,
    NUM_SEATS,
    PUBLIC_GIVE_TEXT,
    SIDES,
    Bid,
    Give,
    Look,
    Play,
    partner,
    power,
    sort_cards,
    trick_winner,
)
from .options import SpadesOptions
from .scoring import ScoringRules, score_side
from .state import SpadesState
from .views import SpadesSeat, SpadesView


# --------------------------------------------------------------------------------------
# The same play (the analysis's classes of equivalent actions: ``Platform.same_play``)


def same_play(game: "Spades", view: SpadesView, action: Action) -> object:
    """Spades' "same play" rule (``Platform.same_play``): two cards of one suit in the
    seat's hand are the same play when every rank between them is in that hand or already
    out of play: played to a completed trick of the deal, or to the current trick where
    it does not lead it (the card now winning the current trick is not out of play: a card
    above it would take the lead, one below it not). Then no card any other seat can
    still hold lies between them, and no card of the trick under way tells them apart, so
    every trick either could take part in goes the same way with the other (no rule of any
    option reads a card but by its suit and its rank against the others'), and any play
    with one maps to a play with the other with the same tricks and score. The key: the
    suit and the lowest rank (ace high) of the run of such ranks the card is in. Read from
    the view alone (its hand, the tricks of the deal). Bids, looks and the exchange's
    gives are never the same play: the action itself."""
    if not isinstance(action, Play):
        return action
    card = action.card
    suit = card.suit
    known = {power(int(c)) for c in view.hand if c.suit == suit}  # ranks in trick order, the ace 14
    known.update(power(int(p.card)) for t in view.tricks for p in t.cards if p.card.suit == suit)
    if view.trick:
        lead = trick_winner([(p.seat, int(p.card)) for p in view.trick])
        known.update(power(int(p.card)) for p in view.trick if p.card.suit == suit and p.seat != lead)
    low = power(int(card))
    while low > 2 and low - 1 in known:
        low -= 1
    return ("play", suit, low)


# --------------------------------------------------------------------------------------
# What the deal still puts at stake (the analysis's bound on a difference not yet seen:
# ``Platform.value_stake``)


@functools.lru_cache(maxsize=4096)
def _side_totals(rules: ScoringRules, score: int, bags: int, first: tuple[int, bool], second: tuple[int, bool],
                 won: tuple[int, int], left: int) -> tuple[tuple[int, ...], ...]:
    """A side's totals after the deal, its seats having bid ``first`` and ``second`` ((bid, blind)
    each) and won ``won`` tricks so far, with ``score`` and ``bags`` before it: ``[a][b]`` when its
    seats take ``a`` and ``b`` of the ``left`` tricks still to play (``a + b <= left``). A pure
    function of its arguments, kept across calls: the analysis asks ``stake`` at every decision
    of a deal, whose sides' scores, bags and bids repeat (each total was scored 2 to 4 times per
    call before, 23,000 per call while bids were to come)."""
    bids, blind = (first[0], second[0]), (first[1], second[1])
    return tuple(tuple(score_side(bids, blind, (won[0] + a, won[1] + b), score, bags, rules).score
                       for b in range(left - a + 1)) for a in range(left + 1))


def _bid_choices(game: "Spades", seat: SpadesSeat) -> tuple[tuple[int, bool], ...]:
    """A seat's bid as (number, blind): its own once made, else every one the options allow."""
    if seat.bid is not None:
        return ((seat.bid, seat.blind_nil),)
    o = game.options
    out = [(b, False) for b in range(1, 14)]
    if o.nil:
        out.append((0, False))
    if o.blind_nil and not seat.looked:
        out.append((0, True))
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def _side_range(rules: ScoringRules, score: int, bags: int, firsts: tuple[tuple[int, bool], ...],
                seconds: tuple[tuple[int, bool], ...], won: tuple[int, int], left: int) -> int:
    """The range of a side's total over every bid its two seats may still make (``firsts``,
    ``seconds``) and every way they may take the ``left`` tricks (``_side_totals``)."""
    totals = [t for x in firsts for y in seconds for row in _side_totals(rules, score, bags, x, y, won, left)
              for t in row]
    return max(totals) - min(totals)


def stake(game: "Spades", view: SpadesView) -> float:
    """Spades' stake (``Platform.value_stake``): the range of the deal's outcome still
    possible from the seat's view, in the analysis's units (the seat's side's total minus
    the other side's at the deal's end): over every way the tricks still to play may fall
    to the four seats (and, while bids are still to come, every bid the options allow),
    each side scored by the rules (contracts, nils and blind nils, bags and their penalty).
    Two actions' values on one sampled deal both lie in that range, so their difference
    never exceeds it. Read from the view alone (bids, tricks won, totals and bags); the
    cards are not read: a way the tricks cannot fall with the cards held still counts, so
    the range may be wider than the deal allows, never narrower. Method 15
    (docs/analysis.md): the spread of values seen, which the analysis bounded by before,
    misses the rare deal where a nil fails or a contract is set."""
    seats = view.seats
    left = 13 - sum(s.tricks_won for s in seats)
    won = [s.tricks_won for s in seats]
    choices = [_bid_choices(game, s) for s in seats]
    rules = game.scoring
    if all(len(c) == 1 for c in choices):
        # side 0's seats (0, 2) take a and c of the tricks left, side 1's (1, 3) b and d
        tables = [_side_totals(rules, view.sides[side].score, view.sides[side].bags, choices[side][0],
                               choices[side + 2][0], (won[side], won[side + 2]), left) for side in (0, 1)]
        diffs = {tables[0][a][c] - tables[1][b][left - a - b - c]
                 for a in range(left + 1) for b in range(left - a + 1) for c in range(left - a - b + 1)}
        return float(max(diffs) - min(diffs))  # the seat's side's minus the other's: the same range
    # Bids still to come: each side's range on its own (its bids, its seats' tricks), summed:
    # the difference of two totals ranges over at most the sum of their ranges.
    return float(sum(_side_range(rules, view.sides[side].score, view.sides[side].bags, choices[side],
                                 choices[side + 2], (won[side], won[side + 2]), left) for side in (0, 1)))


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
the partners exchange two cards face down (option blind_nil_exchange), unless both partners
bid blind nil.

Play: 13 tricks. The dealer's left leads the first trick, each trick's winner the next. Follow
suit if you can; otherwise play any card. A spade may not be led until a spade has been played
in the deal (spades "broken"), unless the leader holds only spades. The highest spade wins a
trick, else the highest card of the suit led.

Scoring per side: a contract (the sum of its number bids) made scores 10 per trick bid plus 1
per overtrick (a "bag"); a contract missed loses 10 per trick bid. Nil scores +/-100, blind nil
+/-200. A nil bidder's tricks do not count towards its partner's contract: each is a bag, +1
point (option failed_nil_tricks). Every 10 bags cost 100 points. The first side to reach the target (500) wins; if both
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

    platform = Platform(
        seats=(NUM_SEATS, NUM_SEATS),
        smoke_options={"deals": "1"},
        value_units="points of the seat's side minus the other side's, at the end of the deal",
        value_margin=10.0,  # a trick of a contract (a set contract costs 10 a trick bid): docs/analysis.md, method 13
        value_reference="dds",
        value_unit="points",
        value_fine=1.0,  # nothing better by a point, a bag: docs/analysis.md, method 13
        same_play=same_play,  # touching cards: docs/analysis.md, method 14
        value_stake=stake,
        deal_of=operator.attrgetter("deal"),
    )

    def margin_bounds(self) -> tuple[float, float] | None:
        """With a fixed number of hands (option ``deals``; else ``max_deals``, 200, which
        gives bounds too wide to be of use): per hand a side scores at most M = max(130,
        v + 130, 2v) (a made contract is at most 10 x 13; v the largest nil bonus allowed,
        blind or not: a made nil beside a made 13, or two made nils) and at least -L, L =
        max(260, v + 130, 2v) (a set contract is at most 10 x 26, both seats bidding 13; a
        failed nil beside a set 13, or two failed nils), less a bag penalty for every
        ``bag_limit`` of the at most 13 bags a hand can bring (the tricks of failed nils
        score +1 each, left out: the bound is conservative). Over h hands a side's total
        lies in [-hL - floor(13h / bag_limit) * penalty, hM], and the margin within
        +- (h(M + L) + the penalties)."""
        o = self.options
        hands = o.deals if o.deals is not None else o.max_deals
        v = max([0] + ([o.nil_value] if o.nil else []) + ([o.blind_nil_value] if o.blind_nil else []))
        most = max(130, v + 130, 2 * v)
        least = max(260, v + 130, 2 * v)
        penalties = (13 * hands) // o.bag_limit * o.bag_penalty_points if o.bag_penalty else 0
        span = float(hands * (most + least) + penalties)
        return (-span, span)

    def every_action(self) -> Sequence[Action]:
        return _EVERY_ACTION

    def validate(self) -> None:
        o = self.options
        if o.lose_at is not None and o.lose_at >= o.target:
            raise ConfigError(f"option 'lose_at' ({o.lose_at}) must be below 'target' ({o.target})")
        if o.first_dealer != "random" and not 0 <= o.first_dealer < NUM_SEATS:
            raise ConfigError(f"option 'first_dealer' must be 'random' or a seat 0-3, got {o.first_dealer}")
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
        if dealer.__class__ is not int or not 0 <= dealer < NUM_SEATS:  # (the bidding ends at the dealer's bid)
            raise ValueError(f"state_from_deal: the dealer must be a seat 0-3, got {dealer!r}")
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
                # ASCII digits only, and not thousands of them: ``isdigit`` alone also passes
                # '²' (which ``int`` refuses with a bare ValueError) and other scripts' digits.
                if not (arg.isascii() and arg.isdigit() and len(arg) <= 18):
                    raise InvalidActionError(f"{text!r}: the bid must be a number (1-{MAX_BID}), nil or blind_nil")
                return Bid(int(arg))
            if verb == "give":
                # one text, so that a list in brackets or with commas reads too (rules README §2)
                cards = parse_cards(" ".join(args), jokers=False)
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
