"""The Spot encoding (``sdk.encoding.encoder("spot", options)``).

The shape depends only on the number of players N (option ``players``), never on the
deal. Cards are indexed 0-51 as ``Card`` ints (one deck, no jokers). Seats are relative:
offset 0 is the view's own seat, 1 the next seat to its left, ... Money (pot, balances)
is scaled by the ante times N.

Observation, for the default options (4 players; ``Encoder.layout.table()`` prints it for
any option set; a test checks this table against it)::

            slice  name                   meaning
            [0:3]  phase                  one-hot DRAW, DROP, GAME_OVER
            [3:7]  current_seat           one-hot relative seat to act
           [7:11]  dealer                 one-hot relative dealer
          [11:15]  first_player           one-hot relative first player of the hand
          [15:67]  hand                   1 per card in the own hand
          [67:71]  hand_counts            per relative seat: cards held / 10
          [71:72]  stock_count            cards in the stock / 52
         [72:124]  discard_top            one-hot top card of the discard pile
        [124:176]  discard_pile           1 per card in the discard pile
        [176:384]  pickups                per relative seat, 52: cards it took from the discard pile this hand
        [384:386]  m0.kind                meld m0: one-hot GROUP, SEQUENCE (0 0: not on the table)
        [386:438]  m0.cards               meld m0: 1 per card in it
        [438:440]  m1.kind                meld m1: one-hot GROUP, SEQUENCE (0 0: not on the table)
        [440:492]  m1.cards               meld m1: 1 per card in it
        [492:494]  m2.kind                meld m2: one-hot GROUP, SEQUENCE (0 0: not on the table)
        [494:546]  m2.cards               meld m2: 1 per card in it
        [546:548]  m3.kind                meld m3: one-hot GROUP, SEQUENCE (0 0: not on the table)
        [548:600]  m3.cards               meld m3: 1 per card in it
        [600:602]  m4.kind                meld m4: one-hot GROUP, SEQUENCE (0 0: not on the table)
        [602:654]  m4.cards               meld m4: 1 per card in it
        [654:656]  m5.kind                meld m5: one-hot GROUP, SEQUENCE (0 0: not on the table)
        [656:708]  m5.cards               meld m5: 1 per card in it
        [708:710]  m6.kind                meld m6: one-hot GROUP, SEQUENCE (0 0: not on the table)
        [710:762]  m6.cards               meld m6: 1 per card in it
        [762:764]  m7.kind                meld m7: one-hot GROUP, SEQUENCE (0 0: not on the table)
        [764:816]  m7.cards               meld m7: 1 per card in it
        [816:818]  m8.kind                meld m8: one-hot GROUP, SEQUENCE (0 0: not on the table)
        [818:870]  m8.cards               meld m8: 1 per card in it
        [870:872]  m9.kind                meld m9: one-hot GROUP, SEQUENCE (0 0: not on the table)
        [872:924]  m9.cards               meld m9: 1 per card in it
        [924:926]  m10.kind               meld m10: one-hot GROUP, SEQUENCE (0 0: not on the table)
        [926:978]  m10.cards              meld m10: 1 per card in it
        [978:980]  m11.kind               meld m11: one-hot GROUP, SEQUENCE (0 0: not on the table)
       [980:1032]  m11.cards              meld m11: 1 per card in it
      [1032:1034]  m12.kind               meld m12: one-hot GROUP, SEQUENCE (0 0: not on the table)
      [1034:1086]  m12.cards              meld m12: 1 per card in it
      [1086:1088]  m13.kind               meld m13: one-hot GROUP, SEQUENCE (0 0: not on the table)
      [1088:1140]  m13.cards              meld m13: 1 per card in it
      [1140:1142]  m14.kind               meld m14: one-hot GROUP, SEQUENCE (0 0: not on the table)
      [1142:1194]  m14.cards              meld m14: 1 per card in it
      [1194:1196]  m15.kind               meld m15: one-hot GROUP, SEQUENCE (0 0: not on the table)
      [1196:1248]  m15.cards              meld m15: 1 per card in it
      [1248:1250]  m16.kind               meld m16: one-hot GROUP, SEQUENCE (0 0: not on the table)
      [1250:1302]  m16.cards              meld m16: 1 per card in it
      [1302:1303]  pot                    units in the pot / (ante x N)
      [1303:1307]  balances               per relative seat: balance / (ante x N)
      [1307:1308]  turn                   turns completed this hand / max_turns_per_hand
      [1308:1309]  first_turn             1 on the hand's first turn (no draw)
      [1309:1310]  dropped                cards laid down this turn / 4
      [1310:1311]  new_meld_made          1 once this turn's new meld is made
      [1311:1363]  taken_discard          one-hot card taken from the discard pile this turn
      [1363:1364]  hand_number            hand number / hands in the match

Per-meld blocks ``m<k>.`` repeat for the 17 meld ids a hand can reach (52 cards / 3).

Actions: 0 ``draw stock``, 1 ``draw discard``; 2-53 ``discard <card>`` (index 2 + card);
then every meld the deck allows: the groups (for each rank A..K, the four-card group
then the three-card groups leaving out S, H, D, C in turn), then the sequences (for each
suit S H D C, each start rank A..J, each length 3 up to K); then ``layoff <card> ->
m<k>`` for k = 0..16 and every card (index ``first_layoff + 52 k + card``).
"""

from __future__ import annotations

from cardarena.games.cards import STANDARD_DECK, Card
from cardarena.games.spot import DRAW_DISCARD, DRAW_STOCK, Discard, LayOff, Meld, MeldKind, Phase, SpotView
from sdk.encoding._base import Encoder, cards_hot, one_hot

__all__ = ["MAX_MELDS", "SpotEncoder", "all_melds"]

_PHASES = (Phase.DRAW, Phase.DROP, Phase.GAME_OVER)
#: The most melds a hand can have on the table: every one holds three cards or more.
MAX_MELDS = 52 // 3


def all_melds() -> list[Meld]:
    """Every meld of one deck, in the order of the action space."""
    out = []
    for rank in range(1, 14):
        suits = [Card.of(rank, s) for s in range(4)]  # type: ignore[arg-type]
        out.append(Meld(tuple(suits)))
        for left_out in range(4):
            out.append(Meld(tuple(c for i, c in enumerate(suits) if i != left_out)))
    for suit in range(4):
        for start in range(1, 12):
            for length in range(3, 15 - start):
                out.append(Meld(tuple(Card.of(r, suit) for r in range(start, start + length))))  # type: ignore[arg-type]
    return out


class SpotEncoder(Encoder):
    """The Spot encoding for one option set (layout: the module docstring)."""

    game_name = "spot"

    def _build(self) -> None:
        n = self.n = self.options.players
        L = self.layout
        L.add("phase", 3, "one-hot DRAW, DROP, GAME_OVER")
        L.add("current_seat", n, "one-hot relative seat to act")
        L.add("dealer", n, "one-hot relative dealer")
        L.add("first_player", n, "one-hot relative first player of the hand")
        L.add("hand", 52, "1 per card in the own hand")
        L.add("hand_counts", n, "per relative seat: cards held / 10")
        L.add("stock_count", 1, "cards in the stock / 52")
        L.add("discard_top", 52, "one-hot top card of the discard pile")
        L.add("discard_pile", 52, "1 per card in the discard pile")
        L.add("pickups", n * 52, "per relative seat, 52: cards it took from the discard pile this hand")
        for k in range(MAX_MELDS):
            L.add(f"m{k}.kind", 2, f"meld m{k}: one-hot GROUP, SEQUENCE (0 0: not on the table)")
            L.add(f"m{k}.cards", 52, f"meld m{k}: 1 per card in it")
        L.add("pot", 1, "units in the pot / (ante x N)")
        L.add("balances", n, "per relative seat: balance / (ante x N)")
        L.add("turn", 1, "turns completed this hand / max_turns_per_hand")
        L.add("first_turn", 1, "1 on the hand's first turn (no draw)")
        L.add("dropped", 1, "cards laid down this turn / 4")
        L.add("new_meld_made", 1, "1 once this turn's new meld is made")
        L.add("taken_discard", 52, "one-hot card taken from the discard pile this turn")
        L.add("hand_number", 1, "hand number / hands in the match")
        self._money = max(1e-9, self.options.ante * n)

    def _build_actions(self) -> None:
        self._add_actions([DRAW_STOCK, DRAW_DISCARD])
        self._add_actions(Discard(c) for c in STANDARD_DECK)
        self._add_actions(all_melds())
        self.first_layoff = self.num_actions
        self._add_actions(LayOff(c, k) for k in range(MAX_MELDS) for c in STANDARD_DECK)

    def _fill(self, view: SpotView, out: list[float]) -> None:
        at = self.layout.starts
        me, n = view.seat, self.n

        def rel(seat: int | None) -> int | None:
            return None if seat is None else (seat - me) % n

        one_hot(out, at["phase"], _PHASES.index(view.phase), 3)
        one_hot(out, at["current_seat"], rel(view.current_seat), n)
        one_hot(out, at["dealer"], rel(view.dealer), n)
        one_hot(out, at["first_player"], rel(view.first_player), n)
        cards_hot(out, at["hand"], view.hand)
        for s, count in enumerate(view.hand_counts):
            out[at["hand_counts"] + rel(s)] = count / 10
        out[at["stock_count"]] = view.stock_count / 52
        if view.discard_pile:
            out[at["discard_top"] + view.discard_pile[-1]] = 1.0
        cards_hot(out, at["discard_pile"], view.discard_pile)
        pickups = at["pickups"]
        for p in view.pickups:
            out[pickups + 52 * rel(p.seat) + p.card] = 1.0
        for m in view.melds:
            if m.id >= MAX_MELDS:
                raise ValueError(f"meld m{m.id}: more than {MAX_MELDS} melds cannot be on the table")
            out[at[f"m{m.id}.kind"] + (0 if m.kind is MeldKind.GROUP else 1)] = 1.0
            cards_hot(out, at[f"m{m.id}.cards"], m.cards)
        out[at["pot"]] = view.pot / self._money
        for s, b in enumerate(view.balances):
            out[at["balances"] + rel(s)] = b / self._money
        limit = self.options.max_turns_per_hand
        out[at["turn"]] = min(view.turn_number, limit) / limit
        out[at["first_turn"]] = float(view.first_turn)
        out[at["dropped"]] = view.dropped / 4
        out[at["new_meld_made"]] = float(view.new_meld_made)
        if view.taken_discard is not None:
            out[at["taken_discard"] + view.taken_discard] = 1.0
        out[at["hand_number"]] = min(view.hand_number, view.hands_in_match) / max(1, view.hands_in_match)
