"""The Spite and Malice encoding (``sdk.encoding.encoder("spite-and-malice", options)``).

The shape depends on the option set (the number of players N, whether partners exist,
the centre-pile limit), never on the deal: it is fixed for a whole game and every seed.
Cards are indexed 0-52 as ``Card`` ints (52 is the joker); piles of several decks count
copies. Seats are relative: offset 0 is the view's own seat, 1 the next seat, ...

Observation, for the default options (2 players, 3 centre piles; ``Encoder.layout.table()``
prints it for any option set; a test checks this table against it)::

            slice  name                   meaning
            [0:3]  phase                  one-hot MAIN, FILLING, GAME_OVER
            [3:5]  current_seat           one-hot relative seat to act
           [5:58]  hand                   count of each card in the own hand
          [58:59]  p0.payoff_count        relative seat 0: pay-off cards left / payoff_size
         [59:112]  p0.payoff_top          relative seat 0: one-hot top card of its pay-off pile
        [112:165]  p0.payoff_known        relative seat 0: count of the known face-up pay-off cards
        [165:166]  p0.hand_count          relative seat 0: cards in hand / 5
        [166:219]  p0.side0_top           relative seat 0: one-hot top card of side:0
        [219:220]  p0.side0_depth         relative seat 0: cards in side:0 / 20
        [220:273]  p0.side1_top           relative seat 0: one-hot top card of side:1
        [273:274]  p0.side1_depth         relative seat 0: cards in side:1 / 20
        [274:327]  p0.side2_top           relative seat 0: one-hot top card of side:2
        [327:328]  p0.side2_depth         relative seat 0: cards in side:2 / 20
        [328:381]  p0.side3_top           relative seat 0: one-hot top card of side:3
        [381:382]  p0.side3_depth         relative seat 0: cards in side:3 / 20
        [382:435]  p0.side_cards          relative seat 0: count of every card in its side stacks
        [435:436]  p0.points              relative seat 0: series points / match_target
        [436:437]  p0.partner             relative seat 0: 1 if on the own team
        [437:438]  p1.payoff_count        relative seat 1: pay-off cards left / payoff_size
        [438:491]  p1.payoff_top          relative seat 1: one-hot top card of its pay-off pile
        [491:544]  p1.payoff_known        relative seat 1: count of the known face-up pay-off cards
        [544:545]  p1.hand_count          relative seat 1: cards in hand / 5
        [545:598]  p1.side0_top           relative seat 1: one-hot top card of side:0
        [598:599]  p1.side0_depth         relative seat 1: cards in side:0 / 20
        [599:652]  p1.side1_top           relative seat 1: one-hot top card of side:1
        [652:653]  p1.side1_depth         relative seat 1: cards in side:1 / 20
        [653:706]  p1.side2_top           relative seat 1: one-hot top card of side:2
        [706:707]  p1.side2_depth         relative seat 1: cards in side:2 / 20
        [707:760]  p1.side3_top           relative seat 1: one-hot top card of side:3
        [760:761]  p1.side3_depth         relative seat 1: cards in side:3 / 20
        [761:814]  p1.side_cards          relative seat 1: count of every card in its side stacks
        [814:815]  p1.points              relative seat 1: series points / match_target
        [815:816]  p1.partner             relative seat 1: 1 if on the own team
        [816:852]  center                 3 centre slots x 12: one-hot value (A=1 first) of pile i
        [852:905]  center_cards           count of every card in the active centre piles
        [905:906]  completed              completed piles set aside / 10
        [906:907]  stock_count            cards in the stock / all cards
        [907:960]  recycled               count of every card recycled into the stock / decks
        [960:961]  turn                   turns completed / max_turns
        [961:962]  turn_moves             cards moved this turn / 10
        [962:963]  passes                 consecutive passes / players
        [963:964]  reshuffles             deadlock reshuffles / max_deadlock_reshuffles
        [964:965]  game_number            game of the series / 200
        [965:970]  options                flags: kings_wild, forced_aces, loading, descending side stacks, may end without discard

Per-player blocks repeat for each relative seat 0..N-1 (``p<k>.`` names). C, the number
of centre slots, is ``center_limit``, or with ``unlimited`` piles the most piles the pack
can start (its aces, plus its wild cards).

Actions: the sources are ``hand:<card>`` for every card index (53, the joker included
only with jokers), ``payoff``, ``side:0``..``side:3`` and, with partnerships,
``partner_payoff`` and ``partner_side:0``..``3``. Index ``s * (C + 5) + t`` is
``play <source s> -> <target t>`` with targets ``center:0``..``center:C-1``,
``center:new``, ``side:0``..``side:3``; then, with ``loading``, ``load <source s> ->
payoff:<seat>`` for every source and absolute seat; then ``end`` last.
"""

from __future__ import annotations

from cardarena.games.cards import JOKER_INDEX, Card
from cardarena.games.spite_malice import (
    HAND_SIZE, MAX_SERIES_GAMES, NUM_SIDE_STACKS, End, Load, Phase, Play, Source, SourceKind,
    SpiteAndMaliceView, TargetKind,
)
from sdk.encoding._base import Encoder, cards_hot, one_hot

__all__ = ["SpiteAndMaliceEncoder"]

_PHASES = (Phase.MAIN, Phase.FILLING, Phase.GAME_OVER)
_DEPTH = 20  # side-stack depth scale


class SpiteAndMaliceEncoder(Encoder):
    """The Spite and Malice encoding for one option set (layout: the module docstring)."""

    game_name = "spite-and-malice"

    def _build(self) -> None:
        o, g = self.options, self.game
        self.n = n = o.players
        self.decks = o.decks
        self.total_cards = o.decks * 52 + o.jokers
        wild_starters = (4 * o.decks if o.kings_wild else 0) + o.jokers
        self.c = g.limit if g.limit is not None else 4 * o.decks + wild_starters
        self.top = 12 if o.kings_wild else 13
        L = self.layout
        L.add("phase", 3, "one-hot MAIN, FILLING, GAME_OVER")
        L.add("current_seat", n, "one-hot relative seat to act")
        L.add("hand", 53, "count of each card in the own hand")
        for k in range(n):
            p = f"p{k}."
            L.add(p + "payoff_count", 1, f"relative seat {k}: pay-off cards left / payoff_size")
            L.add(p + "payoff_top", 53, f"relative seat {k}: one-hot top card of its pay-off pile")
            L.add(p + "payoff_known", 53, f"relative seat {k}: count of the known face-up pay-off cards")
            L.add(p + "hand_count", 1, f"relative seat {k}: cards in hand / {HAND_SIZE}")
            for j in range(NUM_SIDE_STACKS):
                L.add(p + f"side{j}_top", 53, f"relative seat {k}: one-hot top card of side:{j}")
                L.add(p + f"side{j}_depth", 1, f"relative seat {k}: cards in side:{j} / {_DEPTH}")
            L.add(p + "side_cards", 53, f"relative seat {k}: count of every card in its side stacks")
            L.add(p + "points", 1, f"relative seat {k}: series points / match_target")
            L.add(p + "partner", 1, f"relative seat {k}: 1 if on the own team")
        L.add("center", self.c * self.top, f"{self.c} centre slots x {self.top}: one-hot value (A=1 first) of pile i")
        L.add("center_cards", 53, "count of every card in the active centre piles")
        L.add("completed", 1, "completed piles set aside / 10")
        L.add("stock_count", 1, "cards in the stock / all cards")
        L.add("recycled", 53, "count of every card recycled into the stock / decks")
        L.add("turn", 1, "turns completed / max_turns")
        L.add("turn_moves", 1, "cards moved this turn / 10")
        L.add("passes", 1, "consecutive passes / players")
        L.add("reshuffles", 1, "deadlock reshuffles / max_deadlock_reshuffles")
        L.add("game_number", 1, f"game of the series / {MAX_SERIES_GAMES}")
        L.add("options", 5, "flags: kings_wild, forced_aces, loading, descending side stacks, may end without discard")

    def _build_actions(self) -> None:
        o = self.options
        hand = [Source(SourceKind.HAND, 0, Card(c)) for c in range(JOKER_INDEX + (1 if o.jokers else 0))]
        sources = hand + [Source(SourceKind.PAYOFF)] + [Source(SourceKind.SIDE, j) for j in range(NUM_SIDE_STACKS)]
        if o.partnerships:
            sources += [Source(SourceKind.PARTNER_PAYOFF)]
            sources += [Source(SourceKind.PARTNER_SIDE, j) for j in range(NUM_SIDE_STACKS)]
        targets = [(TargetKind.CENTER, i) for i in range(self.c)] + [(TargetKind.CENTER, None)]
        targets += [(TargetKind.SIDE, j) for j in range(NUM_SIDE_STACKS)]
        self._add_actions(Play(s, t, i) for s in sources for t, i in targets)
        if o.loading:
            self._add_actions(Load(s, seat) for s in sources for seat in range(self.n))
        self._add_actions([End()])

    def _fill(self, view: SpiteAndMaliceView, out: list[float]) -> None:
        at = self.layout.starts
        me, n, o = view.seat, self.n, self.options

        def rel(seat: int | None) -> int | None:
            return None if seat is None else (seat - me) % n

        one_hot(out, at["phase"], _PHASES.index(view.phase), 3)
        one_hot(out, at["current_seat"], rel(view.current_seat), n)
        cards_hot(out, at["hand"], view.hand)
        my_team = view.players[me].team
        for pl in view.players:
            p = f"p{rel(pl.seat)}."
            out[at[p + "payoff_count"]] = pl.payoff_count / o.payoff_size
            if pl.payoff_top is not None:
                out[at[p + "payoff_top"] + pl.payoff_top] = 1.0
            cards_hot(out, at[p + "payoff_known"], pl.payoff_face_up)
            out[at[p + "hand_count"]] = pl.hand_count / HAND_SIZE
            for j, stack in enumerate(pl.side_stacks):
                if stack.cards:
                    out[at[p + f"side{j}_top"] + stack.cards[-1]] = 1.0
                out[at[p + f"side{j}_depth"]] = len(stack.cards) / _DEPTH
                cards_hot(out, at[p + "side_cards"], stack.cards)
            out[at[p + "points"]] = pl.points / o.match_target
            out[at[p + "partner"]] = float(pl.team == my_team)
        center = at["center"]
        for i, pile in enumerate(view.center[: self.c]):
            one_hot(out, center + i * self.top, pile.value - 1, self.top)
            cards_hot(out, at["center_cards"], pile.cards)
        out[at["completed"]] = len(view.completed) / 10
        out[at["stock_count"]] = view.stock_count / self.total_cards
        cards_hot(out, at["recycled"], view.recycled, 1.0 / self.decks)
        out[at["turn"]] = min(view.turn_number, o.max_turns) / o.max_turns
        out[at["turn_moves"]] = len(view.turn_moves) / 10
        out[at["passes"]] = view.consecutive_passes / n
        out[at["reshuffles"]] = view.deadlock_reshuffles / max(1, o.max_deadlock_reshuffles)
        out[at["game_number"]] = view.game_number / MAX_SERIES_GAMES
        for k, flag in enumerate([
            float(o.kings_wild), float(o.forced_aces), float(o.loading),
            float(o.side_stack_order.value == "descending"), float(o.may_end_without_discard),
        ], at["options"]):
            out[k] = flag
