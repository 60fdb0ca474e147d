"""The Spot game: validated options, new states, the notation parser, forward-model states."""

from __future__ import annotations

import math
import operator
import re
from fractions import Fraction
from typing import Sequence

from ..base import Action, ConfigError, Game, InvalidActionError, Platform
from ..cards import Card, InvalidCardError, parse_cards
from .actions import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, SIXTIETHS, Discard, Draw, DrawSource, LayOff, Meld, Phase, named_twice
from .melds import _table_kind
from .options import EndPot, SpotOptions
from .state import SpotState
from .views import SpotTableMeld, SpotView


# --------------------------------------------------------------------------------------
# Game


#: The most spots a hand can hold when a hand is scored: HAND_SIZE + 1 cards (the first player's
#: nine; a hand ends after a discard or a going out), at most 10 spots each.
MOST_SPOTS = (HAND_SIZE + 1) * 10

_ACTION_RE = {
    "draw": re.compile(r"^draw\s+(\S+)$", re.IGNORECASE),
    "meld": re.compile(r"^meld\s*\[?([^\]]*)\]?$", re.IGNORECASE),
    "layoff": re.compile(r"^layoff\s+(\S+)\s*->\s*m(\d+)$", re.IGNORECASE),
    "discard": re.compile(r"^discard\s+(\S+)$", re.IGNORECASE),
}

#: Each verb's form, as ``arbiter rules spot`` shows it: what a malformed action is told.
_FORMS = {"draw": "draw stock or draw discard", "meld": "meld [<card> <card> <card>], e.g. meld [7S 7H 7D]",
          "layoff": "layoff <card> -> m<k>, e.g. layoff 8H -> m2", "discard": "discard <card>, e.g. discard 9C"}


def _no_joker(text: str, cards: Sequence[Card]) -> None:
    """The card parser reads ``JK`` for every game (Spite and Malice has jokers); Spot's
    deck has none (§1), so an action naming one is refused as notation, as Spades does."""
    if any(c.is_joker for c in cards):
        raise InvalidActionError(f"{text!r}: Spot is played without jokers")


def _decimal_step(step: Fraction) -> str:
    """The smallest multiple of ``step`` that a decimal number writes exactly, as text: an
    option is given as a number (``-o unit_per_spot=0.1``), so 1/30 cannot be, and 1/10 is
    the smallest multiple of it that can."""
    d = step.denominator
    for prime in (2, 5):
        while d % prime == 0:
            d //= prime
    exact = step * d
    return f"{float(exact):g}"


class Spot(Game):
    """Spot for 2–6 players; a match is ``hands`` deals with antes and a pot.

    Every action is public once taken (§5): ``draw stock`` names no card (the drawer
    learns it from its private event), ``draw discard`` takes a face-up card, melds,
    layoffs and discards are face up. So every viewer reads the notation: ``action_text``
    is the default of ``Game``.
    """

    name = "spot"
    rules_summary = """\
Irish 8-card rummy for 2-6 players (default 4), each for themselves, with antes and a pot.
One 52-card deck, no jokers; aces are low (A 2 3 is a sequence, Q K A is not). Card values
("spots"): A = 1, 2-10 face value, J = Q = K = 10.

Each hand: everyone pays the ante into the pot; 8 cards each, the first player (left of the
dealer) one more; the rest is the face-down stock; the deal passes to the right.

A turn: draw the top card of the stock or of the discard pile (not on the hand's first turn),
then lay down at most 4 cards in all: at most one new meld (a group of 3-4 cards of one rank,
or a sequence of 3 or 4 cards of one suit in a row) and layoffs onto any meld on the table
(the 4th card of a group of 3, or the next card at either end of a sequence, which may so
grow past 4; nothing below an ace or above a king); then discard one card (not the card just
taken from the discard pile). No drop may leave you without a card to discard.

A player who discards their last card goes out: they take the pot and every other player pays
them 1 unit per spot left in hand. If the stock runs out first, the lowest spot total(s)
collect the payments and the pot carries over. A match is 3 x players hands; the player with
the highest balance wins."""
    notation = """\
draw stock           take the top card of the stock (only you see it)
draw discard         take the top card of the discard pile
meld [7S 7H 7D]      lay down a new group or sequence of 3 or 4 cards (one per turn)
layoff 8H -> m2      add a card from your hand to meld m2 (melds are numbered m0, m1, ...)
discard 9C           put a card face up on the discard pile; ends the turn
Cards: rank A 2..10 J Q K then suit S H D C, e.g. QS, 10H, AC."""
    Options = SpotOptions
    action_types = (Draw, Meld, LayOff, Discard)
    view_type = SpotView

    platform = Platform(
        seats=(MIN_PLAYERS, MAX_PLAYERS),
        smoke_options={"hands": "1"},
        value_units="the seat's money at the end of the hand",
        value_margin=5.0,  # one ante (the default): a loss the analysis resolves (docs/analysis.md)
        value_reference="search",
        value_unit="units",
        value_fine=0.0,  # no better play at all: docs/analysis.md, method 12
        deal_of=operator.attrgetter("hand_number"),
    )

    def validate(self) -> None:
        o = self.options
        u60 = Fraction(str(o.unit_per_spot)) * SIXTIETHS
        lcm = math.lcm(*range(1, o.players))
        if u60.denominator != 1 or u60.numerator % lcm:
            raise ConfigError(
                f"option 'unit_per_spot': {o.unit_per_spot} would make tied payments inexact in "
                f"sixtieths of a unit; use a multiple of {_decimal_step(Fraction(lcm, SIXTIETHS))}"
            )
        if o.first_dealer != "random" and not 0 <= o.first_dealer < o.players:
            raise ConfigError(f"option 'first_dealer': seat {o.first_dealer} not in 0..{o.players - 1}")
        self._unit60 = int(u60)

    @property
    def num_seats(self) -> int:
        return self.options.players

    @property
    def num_hands(self) -> int:
        """The regular match length."""
        return self.options.hands if self.options.hands is not None else 3 * self.options.players

    def margin_bounds(self) -> tuple[float, float] | None:
        """Per hand a seat pays at most its ante and the spots of the cards it holds (a hand
        ends holding at most 9 cards, at most 10 spots each: ``MOST_SPOTS``) and receives at
        most the other seats' antes (the pot, over the match) and payments, so over h hands
        (``hands``, and with ``end_pot = play_until_won`` up to ``max_extra_hands`` more) its
        balance lies in [-h c, h (N - 1) c], c = ante + ``MOST_SPOTS`` x unit_per_spot, and a
        margin (one seat or group of seats against another) within +- h N c."""
        o = self.options
        hands = self.num_hands + (o.max_extra_hands if o.end_pot is EndPot.PLAY_UNTIL_WON else 0)
        span = float(hands * o.players * (o.ante + MOST_SPOTS * o.unit_per_spot))
        return (-span, span)

    def new_initial_state(self, seed: int) -> "SpotState":
        return SpotState(self, seed)

    def state_from_deal(
        self,
        hands: Sequence[str | Sequence[Card | str]],
        stock: str | Sequence[Card | str],
        *,
        dealer: int,
        discard_pile: str | Sequence[Card | str] = (),
        melds: Sequence[tuple[int, str | Sequence[Card | str]]] = (),
        current: int | None = None,
        first_turn: bool | None = None,
        pot: int | None = None,
        balances60: Sequence[int] | None = None,
        hand_index: int = 0,
        seed: int = 0,
    ) -> "SpotState":
        """Test helper: a hand in progress built from explicit cards.

        Cards may be given as notation strings (``"7S 7H 7D"``). ``stock`` is listed
        top first, ``discard_pile`` bottom first. ``melds`` are ``(owner, cards)`` on the table
        (ids in order). By default the antes of this hand are paid (pot = N·ante) and
        the first player is to act on the first turn when the discard pile is empty,
        else the seat ``current`` must draw. ``hand_index`` is the 0-based number of this
        hand in the match; the later hands are seeded.
        """
        n = self.num_seats
        state = SpotState(self, seed, deal=False)

        def cardify(cs: str | Sequence[Card | str]) -> list[Card]:
            if isinstance(cs, str):
                return list(parse_cards(cs))
            return [c if isinstance(c, Card) else Card.parse(c) for c in cs]

        state._hand_index = hand_index
        state._dealer = dealer
        state._first_player = (dealer + 1) % n
        state._hands = [cardify(h) for h in hands]
        state._stock = list(reversed(cardify(stock)))
        state._discard = cardify(discard_pile)
        state._melds = []
        for owner, cards in melds:
            cs = tuple(sorted(cardify(cards)))
            kind = _table_kind(cs)
            state._melds.append(SpotTableMeld(len(state._melds), owner, kind, cs))
        all_cards = [c for h in state._hands for c in h] + state._stock + state._discard
        all_cards += [c for m in state._melds for c in m.cards]
        if len(all_cards) != len(set(all_cards)):
            raise ValueError("state_from_deal: a card appears twice")
        ante60 = self.options.ante * SIXTIETHS
        state._balances60 = list(balances60) if balances60 is not None else [-ante60] * n
        state._pot60 = pot * SIXTIETHS if pot is not None else ante60 * n
        if first_turn is None:
            first_turn = not state._discard
        state.to_act = current if current is not None else state._first_player
        state._first_turn = first_turn
        state.phase = Phase.DROP if first_turn else Phase.DRAW
        return state

    def parse_action(self, text: str) -> Action:
        t = " ".join(text.strip().split())  # cards keep the case they were typed in, for the error
        verb = t.split(" ", 1)[0].lower() if t else ""
        pattern = _ACTION_RE.get(verb)
        if pattern is None:
            raise InvalidActionError(
                f"{text!r}: unknown action (expected draw stock|discard, meld [..], layoff <card> -> m<k>, discard <card>)"
            )
        m = pattern.match(t)
        if m is None:
            raise InvalidActionError(f"{text!r}: malformed {verb}: expected {_FORMS[verb]}")
        try:
            if verb == "draw":
                try:
                    return Draw(DrawSource(m.group(1).lower()))
                except ValueError:
                    raise InvalidActionError(f"{text!r}: draw from 'stock' or 'discard'") from None
            if verb == "meld":
                cards = parse_cards(m.group(1), jokers=False)
                if not cards:
                    raise InvalidActionError(f"{text!r}: a meld names its cards, e.g. meld [7S 7H 7D]")
                _no_joker(text, cards)
                twice = named_twice(cards)
                if twice is not None:
                    raise InvalidActionError(f"{text!r}: {twice} is named twice")
                return Meld(cards)
            if verb == "layoff":
                card = Card.parse(m.group(1), jokers=False)
                _no_joker(text, (card,))
                return LayOff(card, int(m.group(2)))
            card = Card.parse(m.group(1), jokers=False)
            _no_joker(text, (card,))
            return Discard(card)
        except InvalidCardError as exc:
            raise InvalidActionError(f"{text!r}: {exc}") from None

    # -- forward model (sdk.forward): a state from a view plus sampled hidden cards -----

    def state_from_view(
        self, view: "SpotView", hands: Sequence[Sequence[Card]], stock: Sequence[Card], seed: int
    ) -> "SpotState":
        """A state that shows ``view`` to ``view.seat``, with ``hands`` (per seat) and the
        ``stock`` (top first) filled in by the caller; later hands are dealt from ``seed``.

        For the SDK's forward model: the public facts (discard pile, melds, pickups,
        layoffs, money, the turn in progress) come from the view only. The caller
        guarantees the cards are consistent with it; ``state_from_deal`` rejects a card
        given twice.
        """
        if view.game_over:
            raise ValueError("state_from_view: the match is over")
        sixty = lambda x: round(x * SIXTIETHS)  # noqa: E731 - view money is in units
        st = self.state_from_deal(
            [list(h) for h in hands], list(stock), dealer=view.dealer, discard_pile=list(view.discard_pile),
            melds=[(m.owner, m.cards) for m in view.melds], current=view.current_seat,
            first_turn=view.first_turn, balances60=[sixty(b) for b in view.balances],
            hand_index=view.hand_number - 1, seed=seed,
        )
        st._pot60 = sixty(view.pot)
        st._melds = list(view.melds)
        st._first_player = view.first_player
        st.phase = view.phase
        st._pickups = list(view.pickups)
        st._layoffs = view.layoffs
        st._turns = view.turn_number
        st._dropped = view.dropped
        st._new_meld = view.new_meld_made
        st._taken = view.taken_discard
        st._extra_hands = max(0, view.hand_number - view.hands_in_match)
        st._last_hand = view.last_hand
        return st
