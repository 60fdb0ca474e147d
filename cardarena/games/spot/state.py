"""A Spot match in progress: the draw and drop phases of a turn, the forced events of a hand and the match."""

from __future__ import annotations

import copy
import dataclasses
import random
from collections import Counter
from typing import TYPE_CHECKING, Sequence

from ..base import Action, EndReason, Event, IllegalActionError, Outcome, State, new_event, ranks_from_scores
from ..cards import STANDARD_DECK, Card, format_cards
from .actions import (
    _CARD_TEXT,
    _DISCARDS,
    _DRAW,
    _DROP,
    _GAME_OVER,
    _MELDS,
    _ONE_CARD,
    _SEAT_SETS,
    _STOCK,
    DRAW_DISCARD,
    DRAW_STOCK,
    HAND_SIZE,
    MAX_DROP_PER_TURN,
    MIN_MELD,
    SIXTIETHS,
    Discard,
    Draw,
    DrawSource,
    HandEnd,
    LayOff,
    Meld,
    Phase,
    _layoff,
    named_twice,
    spots,
)
from .melds import _candidate_melds_sorted, fits, fitting_cards, meld_kind
from .options import EndPot, SpotOptions
from .scoring import settle_hand
from .views import SpotHandSummary, SpotLayoff, SpotPickup, SpotRevealedHand, SpotTableMeld, SpotViews

if TYPE_CHECKING:
    from .game import Spot


# --------------------------------------------------------------------------------------
# State


class SpotState(SpotViews, State):
    """A Spot match in progress: the current hand plus the money ledger."""

    def __init__(self, game: Spot, seed: int, deal: bool = True):
        """Only ``Spot.new_initial_state`` / ``state_from_deal`` should call this."""
        self.game = game
        self._o: SpotOptions = game.options
        self._n = game.num_seats
        self._seed = seed
        self._hand_index = 0
        self._extra_hands = 0
        n = self._n
        if self._o.first_dealer == "random":
            self._dealer = random.Random(f"{seed}:first_dealer").randrange(n)
        else:
            self._dealer = int(self._o.first_dealer)
        self._first_player = (self._dealer + 1) % n
        self._balances60 = [0] * n
        self._pot60 = 0
        self._hands: list[list[Card]] = [[] for _ in range(n)]
        self._stock: list[Card] = []  # top is the last element
        self._discard: list[Card] = []  # top is the last element
        self._melds: list[SpotTableMeld] = []
        self._pickups: list[SpotPickup] = []
        # Every layoff of the hand, in order: a tuple, replaced at each layoff (rare), so a
        # clone shares it and a view takes it as it is.
        self._layoffs: tuple[SpotLayoff, ...] = ()
        self.to_act: int | None = self._first_player
        self.phase = Phase.DROP
        self._first_turn = True
        self._turns = 0
        self._dropped = 0
        self._new_meld = False
        self._taken: Card | None = None
        self._last_hand: SpotHandSummary | None = None
        self._outcome: Outcome | None = None
        self._log: list[Event] = []
        self._hands_in_match = game.num_hands
        # View parts cached until their source changes (reset where it is changed): the
        # discard pile as a tuple, and (pot, balances) in units.
        self._v_discard: tuple[Card, ...] | None = None
        self._v_money: tuple[float, tuple[float, ...]] | None = None
        if deal:
            self._log.extend(self._start_hand())

    GAME_OVER = _GAME_OVER  # the generic surface (current_seat, is_terminal, log, outcome) is State's

    def clone(self) -> "SpotState":
        new = copy.copy(self)
        new._hands = [list(h) for h in self._hands]
        new._stock = list(self._stock)
        new._discard = list(self._discard)
        new._melds = list(self._melds)
        new._pickups = list(self._pickups)
        new._balances60 = list(self._balances60)
        new._log = list(self._log)
        return new

    #: The legal actions of the current position, once computed; reset by ``apply``.
    _legal: list[Action] | None = None

    def legal_actions(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            if self.phase is _DRAW:
                legal = self._draw_legal_actions()
            elif self.phase is _DROP:
                legal = self._drop_legal_actions()
            else:
                return []
            self._legal = legal
        return legal.copy()

    def apply(self, action: Action) -> list[Event]:
        if self.phase is _GAME_OVER:
            raise IllegalActionError(f"{action}: the match is over")
        # One of the listed legal actions itself (identity: the dataclass __eq__ is slow)
        # passes the _why_* checks by construction; anything else is checked.
        legal = self._legal
        if legal is not None:
            for a in legal:
                if a is action:
                    break
            else:
                legal = None
        if legal is None:
            reason = self._why_illegal(action)
            if reason is not None:
                raise IllegalActionError(f"{action}: {reason}")
            action = self._canonical(action)
        self._legal = None
        cls = action.__class__
        if cls is Discard:
            events = self._apply_discard(action)
        elif cls is Draw:
            events = self._apply_draw(action)
        elif cls is Meld:
            events = self._apply_meld(action)
        elif cls is LayOff:
            events = self._apply_layoff(action)
        # Accepted by the checks, so an instance of an action type: a subclass of one.
        elif isinstance(action, Draw):
            events = self._apply_draw(action)
        elif isinstance(action, Meld):
            events = self._apply_meld(action)
        elif isinstance(action, LayOff):
            events = self._apply_layoff(action)
        else:
            events = self._apply_discard(action)
        self._log.extend(events)
        return events

    # -- legality ---------------------------------------------------------------------

    def _why_illegal(self, action: Action) -> str | None:
        if isinstance(action, Draw):
            return self._why_draw(action)
        if isinstance(action, Meld):
            return self._why_meld(action.cards)
        if isinstance(action, LayOff):
            return self._why_layoff(action.card, action.meld)
        if isinstance(action, Discard):
            return self._why_discard(action.card)
        return "not a Spot action"

    def _canonical(self, action: Action) -> Action:
        """The interned action equal to ``action``, which the checks accepted: a typed
        action built by a bot may hold a plain int for a card (``Discard(11)`` equals
        ``Discard(Card('3C'))``), which would otherwise lie on the table and in every view."""
        cls = action.__class__
        if cls is Discard:
            return _DISCARDS[action.card]
        if cls is LayOff:
            return _layoff(action.card, action.meld)
        return action  # Draw's source is a DrawSource (checked); Meld makes its cards Cards

    @staticmethod
    def _not_a_card(card: object) -> str | None:
        """Why ``card`` (a field of a typed action) is not a card, or None."""
        if isinstance(card, int) and not isinstance(card, bool) and 0 <= card < len(STANDARD_DECK):
            return None
        return f"{card!r} is not a card (a Card, e.g. Card('QC'))"

    def _why_draw(self, action: Draw) -> str | None:
        if action.source is not DrawSource.STOCK and action.source is not DrawSource.DISCARD:
            return f"draw from the stock or the discard pile (DrawSource.STOCK or DrawSource.DISCARD), not {action.source!r}"
        if self.phase is not Phase.DRAW:
            if self._first_turn:
                return "no draw on the first turn of a hand"
            return "already drew this turn"
        if action.source is DrawSource.STOCK and not self._stock:
            return "the stock is empty"
        if action.source is DrawSource.DISCARD and not self._discard:
            return "the discard pile is empty"
        return None

    def _keeps_discardable(self, removed: Sequence[Card]) -> bool:
        """Whether the hand keeps a card that may legally be discarded (§7.4)."""
        rest = [c for c in self._hands[self.to_act] if c not in removed]
        if self._o.allow_discard_of_taken_card or self._taken is None:
            return bool(rest)
        return any(c != self._taken for c in rest)

    def _why_meld(self, cards: tuple[Card, ...]) -> str | None:
        if self.phase is not Phase.DROP:
            return "draw first"
        hand = self._hands[self.to_act]
        if len(set(cards)) != len(cards):
            return f"{named_twice(cards)} is named twice"
        if any(c not in hand for c in cards):
            return "those cards are not all in your hand"
        if len(cards) < MIN_MELD:
            return "a meld has at least 3 cards"
        if self._new_meld:
            return "only one new meld per turn"
        if self._dropped + len(cards) > MAX_DROP_PER_TURN:
            return f"at most {MAX_DROP_PER_TURN} cards may be dropped per turn ({self._dropped} already)"
        if meld_kind(cards) is None:
            return "not a group (3-4 of a rank) nor a sequence (3+ of a suit in a row, ace low)"
        if not self._keeps_discardable(cards):
            return "you must keep a card you may discard"
        return None

    def _why_layoff(self, card: Card, meld_id: int) -> str | None:
        if self.phase is not Phase.DROP:
            return "draw first"
        if (why := self._not_a_card(card)) is not None:
            return why
        if not isinstance(meld_id, int) or isinstance(meld_id, bool):
            return f"a meld is named by its number (k of m<k>), not {meld_id!r}"
        if card not in self._hands[self.to_act]:
            return f"{card} is not in your hand"
        if not 0 <= meld_id < len(self._melds):
            return f"there is no meld m{meld_id}"
        if self._dropped + 1 > MAX_DROP_PER_TURN:
            return f"at most {MAX_DROP_PER_TURN} cards may be dropped per turn"
        if not fits(card, self._melds[meld_id]):
            return f"{card} does not fit m{meld_id}"
        if not self._keeps_discardable((card,)):
            return "you must keep a card you may discard"
        return None

    def _why_discard(self, card: Card) -> str | None:
        if self.phase is not Phase.DROP:
            return "draw first"
        if (why := self._not_a_card(card)) is not None:
            return why
        if card not in self._hands[self.to_act]:
            return f"{card} is not in your hand"
        if card == self._taken and not self._o.allow_discard_of_taken_card:
            return "you may not discard the card you just took from the discard pile"
        return None

    # -- DRAW phase -------------------------------------------------------------------

    def _draw_legal_actions(self) -> list[Action]:
        # The draws _why_draw accepts in the DRAW phase: from a non-empty pile.
        out: list[Action] = []
        if self._stock:
            out.append(DRAW_STOCK)
        if self._discard:
            out.append(DRAW_DISCARD)
        return out

    def _apply_draw(self, action: Draw) -> list[Event]:
        p = self.to_act
        self.phase = _DROP
        if action.source is _STOCK:
            card = self._stock.pop()
            self._hands[p].append(card)
            # The card is seen by the drawer only.
            return [
                new_event("draw", p, f"seat {p} draws from the stock ({len(self._stock)} left)"),
                new_event("draw", p, f"seat {p} draws {_CARD_TEXT[card]} from the stock", _ONE_CARD[card], _SEAT_SETS[p]),
            ]
        card = self._discard.pop()
        self._v_discard = None
        self._hands[p].append(card)
        self._taken = card
        self._pickups.append(SpotPickup(p, card, self._turns + 1))
        return [new_event("draw", p, f"seat {p} draws {_CARD_TEXT[card]} from the discard pile", _ONE_CARD[card])]

    # -- DROP phase -------------------------------------------------------------------

    def _drop_legal_actions(self) -> list[Action]:
        # The candidates that the _why_* checks accept, with the checks that hold by
        # construction (cards in hand, a valid meld, the phase) left out; interned actions.
        hand = sorted(self._hands[self.to_act])
        out: list[Action] = []
        taken = self._taken
        free = self._o.allow_discard_of_taken_card or taken is None
        # _keeps_discardable: the hand keeps a card that may be discarded.
        others = len(hand) - (0 if free or taken not in hand else 1)  # discardable cards

        def keeps(removed: Sequence[Card]) -> bool:
            if free:
                return len(hand) > len(removed)
            return others - sum(1 for c in removed if c != taken) > 0

        dropped = self._dropped
        if not self._new_meld and dropped + MIN_MELD <= MAX_DROP_PER_TURN:
            for m in _candidate_melds_sorted(hand):
                if dropped + len(m) <= MAX_DROP_PER_TURN and keeps(m):
                    meld = _MELDS.get(m)
                    if meld is None:
                        meld = _MELDS[m] = Meld(m)
                    out.append(meld)
        if dropped < MAX_DROP_PER_TURN and self._melds:
            for mid, meld in enumerate(self._melds):
                fitting = fitting_cards(meld)
                for c in hand:
                    if c in fitting and keeps((c,)):
                        out.append(_layoff(c, mid))
        if free:
            out.extend([_DISCARDS[c] for c in hand])
        else:
            out.extend([_DISCARDS[c] for c in hand if c != taken])
        return out

    def _remove(self, cards: Sequence[Card]) -> None:
        hand = self._hands[self.to_act]
        for c in cards:
            hand.remove(c)

    def _apply_meld(self, action: Meld) -> list[Event]:
        p = self.to_act
        self._remove(action.cards)
        mid = len(self._melds)
        self._melds.append(SpotTableMeld(mid, p, meld_kind(action.cards), action.cards))
        self._dropped += len(action.cards)
        self._new_meld = True
        return [Event("meld", p, f"seat {p} melds m{mid} [{format_cards(action.cards)}]", action.cards)]

    def _apply_layoff(self, action: LayOff) -> list[Event]:
        p = self.to_act
        self._remove((action.card,))
        m = self._melds[action.meld]
        self._melds[action.meld] = dataclasses.replace(m, cards=tuple(sorted(m.cards + (action.card,))))
        self._dropped += 1
        self._layoffs += (SpotLayoff(p, action.card, action.meld, self._turns + 1),)
        return [Event("layoff", p, f"seat {p} lays off {action.card} -> m{action.meld}", (action.card,))]

    def _apply_discard(self, action: Discard) -> list[Event]:
        p = self.to_act
        card = action.card
        self._hands[p].remove(card)
        self._discard.append(card)
        self._v_discard = None
        self._turns += 1
        self._first_turn = False
        events = [new_event("discard", p, f"seat {p} discards {_CARD_TEXT[card]}", _ONE_CARD[card])]
        # END_TURN (§3.3)
        if not self._hands[p]:
            events.extend(self._end_hand(HandEnd.WENT_OUT, p))
        elif not self._stock:
            events.extend(self._end_hand(HandEnd.STOCK_EXHAUSTED, None))
        elif self._turns >= self._o.max_turns_per_hand:
            events.extend(self._end_hand(HandEnd.TURN_LIMIT, None))
        else:
            self.to_act = (p + 1) % self._n
            self.phase = _DRAW
            self._dropped = 0
            self._new_meld = False
            self._taken = None
        return events

    # -- forced events: deal, hand end, match end ----------------------------------------

    def _start_hand(self) -> list[Event]:
        """HAND_START (§2.2): antes, shuffle, deal; the first player acts without drawing."""
        n, o = self._n, self._o
        ante60 = o.ante * SIXTIETHS
        for s in range(n):
            self._balances60[s] -= ante60
        self._pot60 += ante60 * n
        self._v_discard = self._v_money = None
        deck = list(STANDARD_DECK)
        random.Random(f"{self._seed}:deal:{self._hand_index}").shuffle(deck)
        d = self._dealer
        fp = (d + 1) % n
        self._first_player = fp
        self._hands = [[] for _ in range(n)]
        for i in range(HAND_SIZE * n):
            self._hands[(fp + i) % n].append(deck[i])
        self._hands[fp].append(deck[HAND_SIZE * n])
        self._stock = list(reversed(deck[HAND_SIZE * n + 1 :]))
        self._discard = []
        self._melds = []
        self._pickups = []
        self._layoffs = ()
        self.to_act = fp
        self.phase = Phase.DROP
        self._first_turn = True
        self._turns = 0
        self._dropped = 0
        self._new_meld = False
        self._taken = None
        hn = self._hand_index + 1
        events = [
            Event(
                "hand_start",
                None,
                f"hand {hn}: dealer seat {d}, first player seat {fp}; antes {o.ante} each, pot {self._pot60 / SIXTIETHS:g}",
            ),
            Event("deal", None, f"dealt {HAND_SIZE} cards each, {HAND_SIZE + 1} to seat {fp}; stock {len(self._stock)}"),
        ]
        for s in range(n):
            cards = tuple(sorted(self._hands[s]))
            events.append(Event("deal", s, f"seat {s} is dealt {format_cards(cards)}", cards, frozenset((s,))))
        return events

    def _end_hand(self, end: HandEnd, went_out: int | None) -> list[Event]:
        """HAND_END (§4.1-4.2): reveal, pay, then the next hand or the end of the match."""
        n, o = self._n, self._o
        hand_spots = [spots(h) for h in self._hands]
        delta, pot_after, winners = settle_hand(
            hand_spots, went_out, self._pot60, self.game._unit60, o.pot_carry_over
        )
        ante60 = o.ante * SIXTIETHS
        for s in range(n):
            self._balances60[s] += delta[s]
        self._pot60 = pot_after
        self._v_money = None
        revealed = tuple(SpotRevealedHand(s, tuple(sorted(self._hands[s])), hand_spots[s]) for s in range(n))
        self._last_hand = SpotHandSummary(
            hand_number=self._hand_index + 1,
            end=end,
            went_out=went_out,
            hands=revealed,
            winners=winners,
            net=tuple((delta[s] - ante60) / SIXTIETHS for s in range(n)),
            pot_after=pot_after / SIXTIETHS,
        )
        events = [Event("reveal", r.seat, f"seat {r.seat} shows {format_cards(r.cards)} ({r.spots} spots)" if r.cards
                        else f"seat {r.seat} shows no cards (went out)", r.cards) for r in revealed]
        how = f"seat {went_out} went out" if went_out is not None else (
            "stock exhausted" if end is HandEnd.STOCK_EXHAUSTED else "turn limit reached (scored as stock exhausted)"
        )
        moves = ", ".join(f"seat {s} {delta[s] / SIXTIETHS:+g}" for s in range(n))
        events.append(
            Event("score", None, f"hand {self._hand_index + 1}: {how}; winners {list(winners)}; {moves}; pot {pot_after / SIXTIETHS:g}")
        )
        # Next hand, or the end of the match (§4.3).
        played = self._hand_index + 1
        regular = self.game.num_hands
        more = played < regular
        guard_hit = False
        if not more and self._pot60 > 0 and o.end_pot is EndPot.PLAY_UNTIL_WON:
            if self._extra_hands < o.max_extra_hands:
                more = True
                self._extra_hands += 1
            else:
                guard_hit = True
        if more:
            self._hand_index += 1
            self._dealer = (self._dealer - 1) % n  # the deal passes to the right
            events.extend(self._start_hand())
            return events
        if self._pot60:
            share = self._pot60 // n
            for s in range(n):
                self._balances60[s] += share
            self._v_money = None
            events.append(Event("pot", None, f"the pot of {self._pot60 / SIXTIETHS:g} is split equally: {share / SIXTIETHS:g} each"))
            self._pot60 = 0
        self.phase = Phase.GAME_OVER
        self.to_act = None
        scores = tuple(b / SIXTIETHS for b in self._balances60)
        ranks = ranks_from_scores(self._balances60)
        reason = EndReason.TURN_LIMIT if guard_hit else EndReason.COMPLETED
        detail = f"{played} hand{'' if played == 1 else 's'}" + (" (max_extra_hands reached; pot split equally)" if guard_hit else "")
        self._outcome = Outcome(scores, ranks, reason, detail)
        events.append(
            Event("game_over", None, "match over: " + ", ".join(f"seat {s} {scores[s]:+g}" for s in range(n)))
        )
        return events

    # Referee-side reads: what a replay of a record needs beside the views (the draws' luck,
    # arbiter.rating.draws), as immutable copies. They show cards no seat may see (the stock, every
    # hand), so they are never part of a view: a bot is sent views, never an engine state, and a state
    # it builds with the forward model holds its own sampled cards, not the true ones.

    def standing(self) -> tuple[tuple[float, ...], ...]:
        """Per seat its money so far (its balance: what it has won and paid, its antes in this
        hand's pot among them), which every seat sees (``State.standing``)."""
        return tuple((b / SIXTIETHS,) for b in self._balances60)

    def stock_cards(self) -> tuple[Card, ...]:
        """The stock in draw order: the next card drawn from it first."""
        return tuple(reversed(self._stock))

    def hand_cards(self, seat: int) -> tuple[Card, ...]:
        """``seat``'s hand, in the order the engine holds it (its view shows it sorted)."""
        return tuple(self._hands[seat])

    def table_melds(self) -> tuple[SpotTableMeld, ...]:
        """The melds on the table this hand, in id order (public: every view shows them)."""
        return tuple(self._melds)

    def all_cards(self) -> Counter:
        """The 52 cards of the current hand: hands, stock, discard pile and melds (for
        conservation checks)."""
        out = Counter(c for h in self._hands for c in h)
        out.update(self._stock)
        out.update(self._discard)
        out.update(c for m in self._melds for c in m.cards)
        return out
