"""A Spades game in progress: dealing, bidding, the exchange and play by phase, scoring a deal and the end."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations
from typing import TYPE_CHECKING, Sequence

from ..base import Action, EndReason, Event, IllegalActionError, Outcome, State
from ..cards import STANDARD_DECK, Card, Suit
from .actions import (
    _BIDDING,
    _BIDS,
    _BIT,
    _BLIND_NIL,
    _CARD_STR,
    _EXCHANGE,
    _GAME_OVER,
    _GIVES,
    _LOOK,
    _PLAY,
    _PLAYS,
    MAX_BID,
    NUM_SEATS,
    NUM_TRICKS,
    SIDE_NAMES,
    SIDES,
    SPADE,
    Bid,
    Give,
    Look,
    Play,
    partner,
    side_of,
    sort_cards,
    trick_winner,
)
from .options import ExchangeOrder, SpadesOptions
from .scoring import FailedNilTricks, SideDealScore, game_result, score_side
from .views import (
    _BID_EVENTS,
    _EXCHANGE_EVENTS,
    _GIVE_EVENTS,
    _LOOK_EVENTS,
    _PLAY_EVENTS,
    _PLAYED,
    _TRICK_EVENTS,
    SpadesDealRecord,
    SpadesDealResult,
    SpadesHand,
    SpadesSideResult,
    SpadesTrick,
    SpadesViews,
    _after_play,
    _after_win,
    _bid_index,
    _deal_event,
    _exchange_info,
    _give_event,
)

if TYPE_CHECKING:
    from .game import Spades


# --------------------------------------------------------------------------------------
# State


class SpadesState(SpadesViews, State):
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

    GAME_OVER = _GAME_OVER  # the generic surface (current_seat, is_terminal, log) is State's

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
        self._exchange_views = None
        self._legal = None
        if self.phase is _BIDDING:
            self._apply_bidding(action)  # patches the shared view's fields, as a card play
        elif self.phase is _EXCHANGE:
            self._view_cache = None
            self._apply_exchange(action)
        else:
            self._view_cache = None
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
        self._log.append(_deal_event(self.deal_no, d))
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
        vb = self._view_cache
        if isinstance(action, Look):
            self.looked[s] = True
            self._log.append(_LOOK_EVENTS[s])
            self._reveal(s)
            if vb is not None:  # patch the shared view: the seat's facts (it has looked)
                self._patch_seat(vb, s)
            return  # the same seat bids next
        assert isinstance(action, Bid)
        self.bids[s] = action.tricks
        self.blind[s] = action.blind
        self._log.append(_BID_EVENTS[s][_bid_index(action.tricks, action.blind)])
        if s != self.dealer:
            self.to_act = (s + 1) % NUM_SEATS
            if vb is not None:  # patch the shared view: the seat's bid, the next to act
                self._patch_seat(vb, s)
                vb["to_act"] = self.to_act
            return
        # The dealer bid last: exchange if a blind nil was bid, else play.
        self._view_cache = None
        self._plan_exchanges()
        if self.exchanges:
            self.phase = _EXCHANGE
            self._start_exchange_step()
        else:
            self._start_play()

    def _patch_seat(self, vb: dict, s: int) -> None:
        """The shared view's facts of seat ``s`` as they are now (what ``_public`` builds)."""
        seats = list(vb["seats"])
        seats[s] = self._seat_now(s)
        vb["seats"] = tuple(seats)

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
            self._log.append(_EXCHANGE_EVENTS[giver][receiver])

    def _start_exchange_step(self) -> None:
        giver = self.exchanges[self.exchange_step][0]
        self.to_act = giver
        self._reveal(giver)  # a blind-nil bidder first sees its cards when it must give

    def _exchange_actions(self) -> list[Action]:
        hand = self.hands[self.to_act]
        # Every pair in hand order (combinations keeps it), looked up by its two cards.
        return list(map(_GIVES.__getitem__, combinations(hand, 2)))

    def _apply_exchange(self, action: Action) -> None:
        assert isinstance(action, Give)
        step = self.exchanges[self.exchange_step]
        giver, receiver = step[0], step[1]
        step[2] = action.cards
        for c in action.cards:
            self.hands[giver].remove(c)
        self.hands[receiver] = sort_cards(self.hands[receiver] + list(action.cards))
        self._log.append(_GIVE_EVENTS[giver][receiver])
        self._log.append(_give_event(giver, receiver, action.cards))
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
            self._emit("score", None, _score_text(side, [self.bids[s] for s in seats], r, self.o))
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
                tuple(_exchange_info(g, r, True, c) for g, r, c in self.exchanges),
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
            no_blind = self._no_blind_nil(self.to_act)
            if no_blind is not None:
                return f"look is offered only while blind nil is possible: {no_blind}"
            return f"seat {self.to_act} has already looked at its hand"
        if isinstance(action, Bid):
            if self.phase is not _BIDDING:
                return f"no bidding during {phase}"
            if action.blind:
                no_blind = self._no_blind_nil(self.to_act)
                if no_blind is not None:
                    return no_blind
                return f"blind nil is only possible before looking at the hand, and seat {self.to_act} has looked"
            if not self.looked[self.to_act]:
                return "look at the hand first (or bid blind_nil)"
            if action.tricks == 0:
                return "nil bids are not allowed (option nil is off)"
            return f"a bid must be nil or 1 to {MAX_BID}"
        if isinstance(action, Give):
            if self.phase is not _EXCHANGE:
                return f"no exchange during {phase}"
            hand = self.hands[self.to_act]
            missing = [str(c) for c in action.cards if c not in hand]
            if len(action.cards) != 2 or not missing:  # (a bot's own Give of one card twice, or of three)
                return "you must give two cards you hold, two different ones"
            if len(missing) == 2:
                return f"you must give two cards you hold: seat {self.to_act} holds neither {missing[0]} nor {missing[1]}"
            return f"you must give two cards you hold: seat {self.to_act} does not hold {missing[0]}"
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


    def _no_blind_nil(self, seat: int) -> str | None:
        """Why blind nil is not possible for ``seat`` in this deal (``_blind_nil_possible``),
        from public facts only (the option, the scores at the start of the deal); None if
        it is. A seat told only "not before looking" never chose to look: it was shown its
        cards because of this."""
        if self._blind_nil_possible(seat):
            return None
        if not self.o.blind_nil:
            return "blind nil is not played in this match (option blind_nil is off)"
        side = side_of(seat)
        lead = self.scores[side] - self.scores[1 - side]
        stands = f"trails by {-lead}" if lead < 0 else f"leads by {lead}" if lead > 0 else "is level"
        return (f"blind nil needs the side to trail by at least {self.o.blind_nil_min_deficit} points at the "
                f"start of the deal (option blind_nil_min_deficit), and side {SIDE_NAMES[side]} {stands}")


def _score_text(side: int, bids: Sequence[int | None], r: SideDealScore, o: SpadesOptions) -> str:
    """A side's deal scored, as its public event reads: the contract and the tricks counted
    for it, what its nil bidders took (their tricks are bags, or count for the contract,
    by option ``failed_nil_tricks``: without them a side that took every trick read 'took
    0'), the points, bags and penalties, the totals."""
    nils = sum(1 for b in bids if b == 0)
    nil_bidder = "its nil bidders" if nils == 2 else "its nil bidder"
    if r.contract == 0:
        text = "no contract"
    else:
        text = f"contract {r.contract}, took {r.contract_tricks}"
    if nils:
        if r.contract and o.failed_nil_tricks is FailedNilTricks.COUNT_FOR_PARTNER:  # (one nil: the other bid)
            text += f" (its nil bidder's {r.nil_tricks} counted)"
        else:
            text += f"; {nil_bidder} took {r.nil_tricks}"
    bags = f"{r.bags_added} bag" + ("" if r.bags_added == 1 else "s")
    penalty = f", {r.penalties} bag penalt{'y' if r.penalties == 1 else 'ies'}" if r.penalties else ""
    sides = SIDES[side]
    return (f"side {SIDE_NAMES[side]} (seats {sides[0]},{sides[1]}): {text}; {r.points:+d} points, {bags}{penalty}; "
            f"total {r.score}, bags {r.bags}")


def _higher_side(scores: Sequence[int]) -> int | None:
    if scores[0] == scores[1]:
        return None
    return 0 if scores[0] > scores[1] else 1
