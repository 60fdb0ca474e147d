"""The Spades encoding (``sdk.encoding.encoder("spades", options)``).

Every option set has the same shape (Spades always seats four with one deck); the options
only scale the scores (``target``, ``bag_limit``) and set three flags. Seats are relative:
offset 0 is the view's own seat, 1 its left-hand opponent, 2 its partner, 3 its right.

Observation (``Encoder.layout.table()``; a test checks this table against it)::

            slice  name                   meaning
            [0:4]  phase                  one-hot BIDDING, EXCHANGE, PLAY, GAME_OVER
           [4:56]  hand                   1 per card in the own hand (card index: Card int)
          [56:57]  hand_visible           1 once the own hand may be seen
          [57:61]  to_act                 one-hot relative seat to act
          [61:65]  dealer                 one-hot relative dealer
          [65:69]  leader                 one-hot relative leader of the current trick
          [69:73]  has_bid                per relative seat: 1 once it has bid
          [73:77]  bid                    per relative seat: its bid / 13
          [77:81]  nil                    per relative seat: 1 for a nil bid (blind or not)
          [81:85]  blind_nil              per relative seat: 1 for a blind nil
          [85:89]  looked                 per relative seat: 1 once it has seen its cards
          [89:93]  tricks_won             per relative seat: tricks won this deal / 13
          [93:97]  hand_count             per relative seat: cards held / 13
         [97:305]  trick                  4 x 52: the current trick's card of each relative seat
        [305:357]  played                 1 per card played in this deal (tricks and the trick)
        [357:358]  spades_broken          1 once a spade has been played in this deal
        [358:359]  my_side_score          own side's score / target
        [359:360]  their_side_score       the other side's score / target
        [360:361]  my_side_bags           own side's bags / bag_limit
        [361:362]  their_side_bags        the other side's bags / bag_limit
        [362:363]  deal                   the deal's number / the match's deal limit
        [363:366]  options                1 if nil is allowed, 1 if blind nil is allowed, 1 if blind nil exchanges cards
        [366:418]  gave                   the two cards this seat gave in an exchange
        [418:470]  received               the two cards this seat received in an exchange

Actions (1394 indices): 0 ``look``; 1 ``bid nil``; 2-14 ``bid 1`` .. ``bid 13``;
15 ``bid blind_nil``; 16-67 ``play <card>`` in card order (index 16 + card);
68-1393 ``give <a> <b>`` for every pair of cards a < b, in lexicographic card order.
"""

from __future__ import annotations

from array import array

from cardarena.games.spades import MAX_BID, NUM_SEATS, Phase, SpadesView
from sdk.encoding._base import Encoder, cards_hot

__all__ = ["SpadesEncoder"]

_PHASES = (Phase.BIDDING, Phase.EXCHANGE, Phase.PLAY, Phase.GAME_OVER)
_PHASE_INDEX = {p: i for i, p in enumerate(_PHASES)}
_NO_PLAYED = array("f", bytes(4 * 52))  # 52 float32 zeros


class SpadesEncoder(Encoder):
    """The Spades encoding for one option set (see the module docstring for the layout)."""

    game_name = "spades"

    def _build(self) -> None:
        L = self.layout
        L.add("phase", 4, "one-hot BIDDING, EXCHANGE, PLAY, GAME_OVER")
        L.add("hand", 52, "1 per card in the own hand (card index: Card int)")
        L.add("hand_visible", 1, "1 once the own hand may be seen")
        L.add("to_act", 4, "one-hot relative seat to act")
        L.add("dealer", 4, "one-hot relative dealer")
        L.add("leader", 4, "one-hot relative leader of the current trick")
        L.add("has_bid", 4, "per relative seat: 1 once it has bid")
        L.add("bid", 4, "per relative seat: its bid / 13")
        L.add("nil", 4, "per relative seat: 1 for a nil bid (blind or not)")
        L.add("blind_nil", 4, "per relative seat: 1 for a blind nil")
        L.add("looked", 4, "per relative seat: 1 once it has seen its cards")
        L.add("tricks_won", 4, "per relative seat: tricks won this deal / 13")
        L.add("hand_count", 4, "per relative seat: cards held / 13")
        L.add("trick", 4 * 52, "4 x 52: the current trick's card of each relative seat")
        L.add("played", 52, "1 per card played in this deal (tricks and the trick)")
        L.add("spades_broken", 1, "1 once a spade has been played in this deal")
        L.add("my_side_score", 1, "own side's score / target")
        L.add("their_side_score", 1, "the other side's score / target")
        L.add("my_side_bags", 1, "own side's bags / bag_limit")
        L.add("their_side_bags", 1, "the other side's bags / bag_limit")
        L.add("deal", 1, "the deal's number / the match's deal limit")
        L.add("options", 3, "1 if nil is allowed, 1 if blind nil is allowed, 1 if blind nil exchanges cards")
        L.add("gave", 52, "the two cards this seat gave in an exchange")
        L.add("received", 52, "the two cards this seat received in an exchange")
        o = self.options
        self._deal_limit = o.deals if o.deals is not None else o.max_deals
        self._flags = (float(o.nil), float(o.blind_nil), float(o.blind_nil and o.blind_nil_exchange))
        #: (a view's ``tricks`` tuple, the "played" block of its cards): the last one seen.
        #: The engine hands every view the same tuple until the next trick completes, so
        #: the block is built once per trick, not at every step; the tuple is held (its
        #: identity cannot be reused) and is immutable (frozen tricks), so a hit is exact.
        #: One attribute, replaced whole: encoders are shared (``__deepcopy__``).
        self._played_cache: tuple = ((), _NO_PLAYED)
        #: every slice's start but the phase's (0), in layout order: what _fill unpacks
        self._starts = tuple(seg.start for seg in L.segments[1:])

    def _build_actions(self) -> None:
        # the engine's own list (Spades.every_action): its interned objects, in the order above
        self._add_actions(self.game.every_action())

    def _fill(self, view: SpadesView, out: list[float]) -> None:
        # Written for speed (an environment step encodes a view every time: the bench's
        # "environment" row): the slices' starts unpacked from one tuple, the one-hots
        # inline, the finished tricks' cards as one cached slice.
        (hand, hand_visible, to_act, dealer, leader, has_bid, bid, nil, blind_nil, looked, tricks_won,
         hand_count, trick, played, spades_broken, my_score, their_score, my_bags, their_bags, deal,
         options, gave, received) = self._starts
        me = view.seat
        out[_PHASE_INDEX[view.phase]] = 1.0  # the phase slice starts at 0
        if view.hand_visible:
            for c in view.hand:  # one deck: every card once, so = is +=
                out[hand + c] = 1.0
            out[hand_visible] = 1.0
        if view.to_act is not None:
            out[to_act + (view.to_act - me) % NUM_SEATS] = 1.0
        out[dealer + (view.dealer - me) % NUM_SEATS] = 1.0
        if view.leader is not None:
            out[leader + (view.leader - me) % NUM_SEATS] = 1.0
        for info in view.seats:
            r = (info.seat - me) % NUM_SEATS
            b = info.bid
            if b is not None:
                out[has_bid + r] = 1.0
                out[bid + r] = b / MAX_BID
                if b == 0:
                    out[nil + r] = 1.0
            if info.blind_nil:
                out[blind_nil + r] = 1.0
            if info.looked:
                out[looked + r] = 1.0
            out[tricks_won + r] = info.tricks_won / 13
            out[hand_count + r] = info.hand_count / 13
        tricks = view.tricks
        if tricks:
            key, block = self._played_cache
            if key is not tricks:
                block = array("f", _NO_PLAYED)
                for t in tricks:
                    for pc in t.cards:
                        block[pc.card] = 1.0
                self._played_cache = (tricks, block)
            try:  # one slice for the finished tricks' cards (a list, or a float32 memoryview)
                out[played:played + 52] = block
            except (TypeError, ValueError):  # a memoryview of another format: item by item
                for c, v in enumerate(block):
                    if v:
                        out[played + c] = 1.0
        for pc in view.trick:
            c = pc.card
            out[trick + 52 * ((pc.seat - me) % NUM_SEATS) + c] = 1.0
            out[played + c] = 1.0
        if view.spades_broken:
            out[spades_broken] = 1.0
        target, bag_limit = view.target, self.options.bag_limit
        ours, theirs = view.sides if me in (0, 2) else view.sides[::-1]
        out[my_score] = ours.score / target
        out[their_score] = theirs.score / target
        out[my_bags] = ours.bags / bag_limit
        out[their_bags] = theirs.bags / bag_limit
        out[deal] = min(view.deal, self._deal_limit) / self._deal_limit
        f0, f1, f2 = self._flags
        out[options] = f0
        out[options + 1] = f1
        out[options + 2] = f2
        for x in view.exchanges:
            if x.done and x.cards:
                if x.giver == me:
                    cards_hot(out, gave, x.cards)
                elif x.receiver == me:
                    cards_hot(out, received, x.cards)
