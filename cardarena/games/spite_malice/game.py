"""The Spite and Malice game: validated options, card rules, new states, the notation parser, forward-model states."""

from __future__ import annotations

import operator
import re
from dataclasses import replace
from typing import Any, Mapping, Sequence

from ..base import Action, ConfigError, Game, InvalidActionError, Platform
from ..cards import JOKER, RANK_TOKENS, Card, parse_cards
from .actions import (
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_SIDE_STACKS,
    UNLIMITED,
    WIN_BONUS,
    End,
    Load,
    Phase,
    Play,
    TargetKind,
    _parse_source,
    shared_fit_memo,
)
from .options import DeadlockRule, Recycle, SideStackOrder, SpiteAndMaliceOptions
from .state import SpiteAndMaliceState
from .views import SpiteAndMaliceView


# --------------------------------------------------------------------------------------
# The same play (the analysis's classes of equivalent actions: ``Platform.same_play``)


def same_play(game: "SpiteAndMalice", view: SpiteAndMaliceView, action: Action) -> object:
    """Spite and Malice's "same play" rule (``Platform.same_play``), from the seat's view
    alone. Two actions are the same play when they move the same card, as the rules see
    it, from the same kind of source to the same kind of destination, where the two
    sources and the two destinations are each alike in every card the rules read:

    * a card is its rank (a king, a joker: each its own, wild or not): no rule reads a
      suit (§1) except loading (§8.4: a loaded card must follow the suit of the pay-off
      top, and any card may reach a hand again through the stock), so with ``loading`` a
      card is itself, rank and suit;
    * two centre piles are alike when they hold the same cards (then the same value): a
      completed pile's cards go to the stock (or the completed area) whichever it was, and
      a pile of wild cards standing for ranks is not a pile of the naturals (a king buried
      there goes to the stock, not the natural);
    * two side stacks (the seat's own, or its partner's) are alike when they hold the same
      cards in the same order (every card of a stack will be its top in turn; with
      ``side_stack_order`` descending the order also says what it accepts); two empty ones
      are alike;
    * ``center:new`` is one destination, the pay-off top one source (the partner's
      another), and an ``end`` or a ``load`` is only the same as itself.

    The key says what the action does to the cards as the rules read them; the piles'
    and stacks' numbers only name them (no rule reads them), so swapping two alike piles
    or stacks is a symmetry of the game and takes one play to the other."""
    if not isinstance(action, Play):
        return action
    card = (lambda c: c) if game.options.loading else (lambda c: c.rank)
    me = view.players[view.seat]
    src, kind = action.source, action.source.kind.value
    if kind == "hand":
        source: object = ("hand", card(src.card))
    elif kind == "side":
        source = ("side", tuple(map(card, me.side_stacks[src.index].cards)))
    elif kind == "partner_side":
        partner = view.players[game.partner_of[view.seat]]
        source = ("partner_side", tuple(map(card, partner.side_stacks[src.index].cards)))
    else:
        source = kind
    if action.target is TargetKind.SIDE:
        target: object = ("to side", tuple(map(card, me.side_stacks[action.index].cards)))
    elif action.index is None:
        target = "center:new"
    else:
        target = ("center", tuple(sorted(map(card, view.center[action.index].cards))))
    return ("play", source, target)


# --------------------------------------------------------------------------------------
# The game.


class SpiteAndMalice(Game):
    """Spite and Malice with every option of §8; create states with ``new_initial_state``.

    Every action is public once taken (§6): a ``play`` or ``load`` moves a card face up
    (to a centre pile, an own side stack, an opponent's pay-off pile) and ``end`` names
    none. So every viewer reads the notation: ``action_text`` is the default of ``Game``.
    """

    name = "spite-and-malice"
    rules_summary = """\
A competitive patience for 2 players (3-6, and partnerships of 4 or 6, as options). Two
decks shuffled together; suits do not matter; kings are wild (they stand for the rank they
are played as); ranks run A (low) to Q.

Each player has a pay-off pile (20 cards, only the top one face up), a hand of 5 and four
side stacks (side:0 to side:3, empty at first); the rest is the stock. Up to 3 centre piles
are shared: each is built upward from an ace, one rank at a time whatever the suits, and is
shuffled back into the stock once it reaches Q.

A turn: draw up to 5 cards, then play any number of cards to the centre from your hand, the
top of your pay-off pile or the tops of your side stacks (a hand emptied this way draws 5
more), and end the turn by discarding a hand card onto one of your side stacks. Side-stack
and pay-off cards only ever go to the centre.

The first player to empty their pay-off pile wins. If a player must draw from an empty
stock, the game is a draw (option stalemate_rule). Presets give the Massachusetts and the
book versions; option series_scoring plays a series of games scored in points."""
    notation = """\
play hand:5C -> center:2  a hand card onto centre pile 2 (active piles are numbered from 0)
play payoff -> center:new  the top of your pay-off pile starts a new centre pile
play side:1 -> center:0  the top of your side stack 1 onto centre pile 0
play hand:9D -> side:2  discard a hand card onto your side stack 2 (ends the turn)
load hand:9H -> payoff:1  (option loading) a card onto seat 1's pay-off pile
end  (book rules) end the turn without a discard; with no card moved, a pass
play partner_payoff -> center:0  (partnerships) the top of your partner's pay-off pile
play partner_side:1 -> center:0  (partnerships) the top of your partner's side stack 1
Cards: rank A 2..10 J Q K then suit S H D C, e.g. QS, 10H; JK is a joker. Side stacks and
centre piles are numbered from 0 (side:0 .. side:3, center:0 ...), seats from 0."""
    preset_docs = {
        "standard": "the standard two-player game: every option at its default",
        "massachusetts": "14 pay-off cards, side stacks start with one card each and must be filled before the discard",
        "book": "two separate decks (jokers wild, kings natural), 26 pay-off cards, descending side stacks, "
                "the end action, the ace-and-two compulsion, unlimited centre piles",
    }
    Options = SpiteAndMaliceOptions
    presets = {
        "standard": {},
        "massachusetts": {"payoff_size": 14, "initial_side_cards": 1, "fill_empty_side_stacks": True},
        "book": {
            "players": 2,
            "deck_split": True,
            "decks": 2,
            "jokers": 4,
            "kings_wild": False,
            "wild_excluded_ranks": frozenset({"A"}),
            "payoff_size": 26,
            "side_stack_order": "descending",
            "may_end_without_discard": True,
            "ace_two_compulsion": True,
            "center_limit": UNLIMITED,
            "deadlock_rule": "end_game",
        },
    }
    action_types = (Play, Load, End)
    view_type = SpiteAndMaliceView

    platform = Platform(
        seats=(MIN_PLAYERS, MAX_PLAYERS),
        smoke_options={"payoff_size": "5"},
        value_units="pay-off cards ahead of the others at the seat's next turn (before it plays)",
        value_margin=0.5,
        value_reference="search",
        value_unit="pay-off cards",
        same_play=same_play,  # alike cards, piles and stacks: docs/analysis.md, method 14
        deal_of=operator.attrgetter("game_number"),  # a series' next game is dealt afresh
    )

    def margin_bounds(self) -> tuple[float, float] | None:
        """Single games: a seat scores 1, 1/2 or 0: -1..1. A series (series points): a side
        ends with 0 up to ``match_target`` - 1 + the most one game can add (the series ends
        once a side reaches the target at a game's end: before its last game every side was
        below it), which is 5 + every other seat's pay-off pile (going out) or the sum of the
        differences from the fewest (a stalemate), either at most ``WIN_BONUS`` + (seats - 1) x
        ``payoff_size``: the margin within +- that sum."""
        o = self.options
        if not o.series_scoring:
            return (-1.0, 1.0)
        span = float(o.match_target - 1 + WIN_BONUS + (self.n - 1) * o.payoff_size)
        return (-span, span)

    def __init__(self, options: Mapping[str, Any] | None = None, preset: str | None = None):
        explicit = set(options or {})
        if preset is not None and preset in self.presets:
            explicit |= set(self.presets[preset])
        self._explicit = explicit
        super().__init__(options, preset)

    # -- validation --------------------------------------------------------------------

    def validate(self) -> None:
        o = self.options
        if o.partnerships and o.players not in (4, 6):
            raise ConfigError(f"option 'partnerships' needs 4 or 6 'players', got {o.players}")
        if o.center_limit != UNLIMITED and o.center_limit < 1:
            raise ConfigError(f"option 'center_limit': must be >= 1 or unlimited, got {o.center_limit}")
        # §8.4: loading is played with forced aces; §8.3: forced aces with unlimited piles.
        if o.loading and not o.forced_aces:
            if "forced_aces" in self._explicit:
                raise ConfigError("option 'loading' requires 'forced_aces' (§8.4); forced_aces=false contradicts it")
            o = replace(o, forced_aces=True)
        if o.forced_aces and o.center_limit != UNLIMITED:
            if "center_limit" in self._explicit:
                raise ConfigError(
                    f"option 'forced_aces' (or 'loading') requires 'center_limit' = unlimited (§8.3), "
                    f"got {o.center_limit}"
                )
            o = replace(o, center_limit=UNLIMITED)
        if o.recycle is Recycle.DEFERRED and o.center_limit != UNLIMITED:
            raise ConfigError("option 'recycle' = deferred requires 'center_limit' = unlimited (§8.6)")
        if o.side_stack_order is SideStackOrder.DESCENDING and not o.may_end_without_discard:
            raise ConfigError(
                "option 'side_stack_order' = descending requires 'may_end_without_discard' "
                "(a player may have no legal discard, §8.12.5)"
            )
        if o.fill_empty_side_stacks and o.may_end_without_discard:
            raise ConfigError(
                "options 'fill_empty_side_stacks' and 'may_end_without_discard' contradict each other "
                "(the filling rule precedes the discard that ends the turn, §8.11)"
            )
        if o.deadlock_rule is not DeadlockRule.END_GAME and not o.may_end_without_discard:
            raise ConfigError(
                f"option 'deadlock_rule' = {o.deadlock_rule.value} needs 'may_end_without_discard' "
                "(without 'end' nobody can pass)"
            )
        # §2.4 card-count check.
        side = NUM_SIDE_STACKS * o.initial_side_cards
        if o.deck_split:
            if o.players != 2 or o.decks != 2:
                raise ConfigError(
                    f"option 'deck_split' needs 'players' = 2 and 'decks' = 2 (got {o.players} and {o.decks})"
                )
            if o.players * o.payoff_size > 52:
                raise ConfigError(
                    f"options 'deck_split'/'payoff_size': {o.players} pay-off piles of {o.payoff_size} "
                    "do not fit in deck A (52 cards)"
                )
            if o.players * (HAND_SIZE + side) >= 52 + o.jokers:
                raise ConfigError("options 'deck_split'/'jokers': deck B leaves no stock (§2.4)")
        else:
            total = 52 * o.decks + o.jokers
            need = o.players * (o.payoff_size + HAND_SIZE + side)
            if need >= total:
                raise ConfigError(
                    f"options 'players'/'payoff_size'/'decks'/'jokers'/'initial_side_cards': "
                    f"{o.players}·({o.payoff_size}+5+{side}) = {need} is not below the {total} cards (§2.4)"
                )
        self.options = o
        self._derive()

    def _derive(self) -> None:
        """Tables used by the states (read only)."""
        o = self.options
        self.n = o.players
        self.top_rank = 12 if o.kings_wild else 13
        self.limit: int | None = None if o.center_limit == UNLIMITED else int(o.center_limit)
        self.excluded = frozenset(RANK_TOKENS.index(t) + 1 for t in o.wild_excluded_ranks)
        self.wmin = 2 if 1 in self.excluded else 1
        self.wild = [c == JOKER or (o.kings_wild and c // 4 == 12) for c in range(53)]
        #: Per card, its class for ``fits``: the rank index (0 = A .. 12 = K) of a natural
        #: card, 13 for a wild one; cards of one class fit the same pile values.
        self.fit_class = tuple(13 if self.wild[c] else c // 4 for c in range(53))
        #: Per card, the centre-pile values (0 = a new pile) it may go on: ``fits`` as a table,
        #: asked once per class (a game is made for every match and replay: 53 cards asked
        #: one by one were most of making one).
        by_class: dict[int, frozenset[int]] = {}
        for c in range(53):
            k = self.fit_class[c]
            if k not in by_class:
                by_class[k] = frozenset(v for v in range(self.top_rank) if self.fits(Card(c), v))
        self.fit_values: tuple[frozenset[int], ...] = tuple(by_class[self.fit_class[c]] for c in range(53))
        #: The centre plays of each layout of centre piles met so far (its piles' values in
        #: order -> the _fit cache of legal._new_fit), shared by every game of the same
        #: fitting rules in this process (actions.FIT_MEMOS): a match makes a game of its
        #: own, and its layouts recur across matches far more than within one.
        self.fit_memo: dict[tuple[int, ...], tuple[list[bool], dict]] = shared_fit_memo(self._fit_rules())
        #: One card of each fit class (its lowest): a class's centre plays from a pay-off pile
        #: or a side stack do not depend on which of its cards is there.
        first: dict[int, int] = {}
        for c in range(53):
            first.setdefault(self.fit_class[c], c)
        self.fit_class_cards: tuple[int, ...] = tuple(first.values())
        self.view_wild_excluded = tuple(sorted(self.excluded))
        self.view_center_limit = self.limit or 0
        self.view_kings_wild = o.kings_wild
        #: Any hand card may be discarded to any side stack (free order, no filling rule).
        self.plain_discards = o.side_stack_order is SideStackOrder.FREE and not o.fill_empty_side_stacks
        self.fill_rule = o.fill_empty_side_stacks
        #: Some compulsory play (forced aces, ace-and-two) may apply whatever the position.
        self.compulsions = o.forced_aces or o.ace_two_compulsion
        self.hand_ace_two = o.deadlock_rule is DeadlockRule.HAND_ACE_TWO_THEN_END
        if o.partnerships:
            half = self.n // 2
            self.team_of = [s % half for s in range(self.n)]
            self.partner_of: list[int | None] = [(s + half) % self.n for s in range(self.n)]
        else:
            self.team_of = list(range(self.n))
            self.partner_of = [None] * self.n
        self.team_members = tuple(
            tuple(s for s in range(self.n) if self.team_of[s] == t) for t in range(max(self.team_of) + 1)
        )

    @property
    def num_seats(self) -> int:
        return self.options.players

    @property
    def teams(self) -> tuple[tuple[int, ...], ...]:
        return self.team_members

    # -- card rules --------------------------------------------------------------------

    def _fit_rules(self) -> tuple:
        """What the centre plays of a layout depend on besides the layout (fit_memo's key)."""
        return (self.fit_class, self.fit_values, self.limit)

    def __getstate__(self) -> dict[str, Any]:
        # A copy or a pickle of the game carries its settings, not the process's shared memo
        # (a cache of up to FIT_MEMO_SIZE layouts): the copy takes its rules' memo where it lands.
        state = self.__dict__.copy()
        del state["fit_memo"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.fit_memo = shared_fit_memo(self._fit_rules())

    def fits(self, card: Card, value: int) -> bool:
        """§3.2: may ``card`` go on a centre pile of value ``value`` (0 = a new pile)?"""
        need = value + 1
        if need > self.top_rank:
            return False
        if self.wild[card]:
            return need not in self.excluded
        return card // 4 + 1 == need

    def side_interval(self, stack: Sequence[Card]) -> tuple[int, int] | None:
        """§8.12.2: the interval of possible effective values of a side stack's top."""
        lo = hi = 0
        empty = True
        for c in stack:
            if self.wild[c]:
                if empty:
                    lo, hi = self.wmin, self.top_rank
                else:
                    lo = max(self.wmin, lo - 1)
            else:
                lo = hi = c // 4 + 1
            empty = False
        return None if empty else (lo, hi)

    def side_accepts(self, stack: Sequence[Card], card: Card) -> bool:
        """Side-stack order rule (§8.12.2); always true with ``side_stack_order = free``."""
        if self.options.side_stack_order is SideStackOrder.FREE or not stack:
            return True
        lo, hi = self.side_interval(stack)  # type: ignore[misc]
        if self.wild[card]:
            return hi >= self.wmin
        return lo - 1 <= card // 4 + 1 <= hi

    # -- states ------------------------------------------------------------------------

    def new_initial_state(self, seed: int) -> "SpiteAndMaliceState":
        state = SpiteAndMaliceState(self, seed)
        state._start_game(0)
        return state

    def state_from_layout(
        self,
        *,
        payoffs: Sequence[str | Sequence[Card]],
        hands: Sequence[str | Sequence[Card]],
        stock: str | Sequence[Card] = (),
        side: Sequence[Sequence[str | Sequence[Card]]] | None = None,
        center: Sequence[str | Sequence[Card]] = (),
        completed: Sequence[str | Sequence[Card]] = (),
        current: int = 0,
        seed: int = 0,
        consecutive_passes: int = 0,
    ) -> "SpiteAndMaliceState":
        """TEST ONLY: a state from an explicit layout, ``current`` to move (its turn starts:
        it draws up to 5). Every pile is given bottom first, top last (the stock's last card
        is drawn first); only the top pay-off card counts as turned up."""

        def cards(x: str | Sequence[Card | str]) -> list[Card]:
            if isinstance(x, str):
                return list(parse_cards(x))
            return [Card.parse(c) if isinstance(c, str) else c for c in x]

        st = SpiteAndMaliceState(self, seed)
        st.payoff = [cards(p) for p in payoffs]
        st.hidden = [max(0, len(p) - 1) for p in st.payoff]
        st.hands = [cards(h) for h in hands]
        st.stock = cards(stock)
        st.side = [[cards(x) for x in slots] for slots in side] if side else [[[] for _ in range(4)] for _ in range(self.n)]
        for slots in st.side:
            while len(slots) < NUM_SIDE_STACKS:
                slots.append([])
        st.center = [cards(c) for c in center]
        st.completed = [cards(c) for c in completed]
        assert len(st.payoff) == len(st.hands) == len(st.side) == self.n
        st.to_act = st.first_seat = current
        st.consecutive_passes = consecutive_passes
        st._start_turn()
        return st

    # -- notation ----------------------------------------------------------------------

    def parse_action(self, text: str) -> Action:
        raw = text
        t = re.sub(r"\s*:\s*", ":", text.strip())  # a card keeps the case it was typed in, for the error
        t = re.sub(r"\s+", " ", t)
        if t.lower() == "end":
            return End()
        m = re.fullmatch(r"(play|load) (\S+) ?-> ?(\S+)", t, re.IGNORECASE)
        if not m:
            raise InvalidActionError(
                f"cannot parse {raw!r}: expected 'play <src> -> center:<i>|center:new|side:<j>', "
                "'load <src> -> payoff:<seat>' or 'end'"
            )
        verb, src_text, dst = m.group(1).lower(), m.group(2), m.group(3).lower()
        source = _parse_source(src_text, raw)
        if verb == "load":
            dm = re.fullmatch(r"payoff:(\d+)", dst)
            if not dm:
                raise InvalidActionError(f"cannot parse {raw!r}: a load goes to 'payoff:<seat>'")
            return Load(source, int(dm.group(1)))
        if dst == "center:new":
            return Play(source, TargetKind.CENTER, None)
        dm = re.fullmatch(r"(center|side):(\d+)", dst)
        if dm:
            return Play(source, TargetKind(dm.group(1)), int(dm.group(2)))
        if dst.startswith("partner_side") or dst.startswith("partner_payoff"):
            raise InvalidActionError(
                f"cannot parse {raw!r}: {dst} is a source only, never a destination "
                "(you may discard only to your own side stacks)"
            )
        if dst.startswith("payoff"):
            raise InvalidActionError(f"cannot parse {raw!r}: a card goes onto a pay-off pile only with 'load'")
        raise InvalidActionError(
            f"cannot parse {raw!r}: unknown destination {dst!r} (center:<i>, center:new or side:<j>)"
        )

    # -- forward model (sdk.forward): a state from a view plus sampled hidden cards -----

    def state_from_view(
        self,
        view: "SpiteAndMaliceView",
        hands: Sequence[Sequence[Card]],
        hidden_payoffs: Sequence[Sequence[Card]],
        stock: Sequence[Card],
        seed: int,
    ) -> "SpiteAndMaliceState":
        """A state that shows ``view`` to ``view.seat``, with the hidden parts filled in.

        ``hands`` per seat, ``hidden_payoffs`` the face-down bottom of each pay-off pile
        (bottom first), ``stock`` bottom first (the last card is drawn first). Every face-up
        pile, the turn in progress and the counters come from the view; later shuffles
        and deals come from ``seed``. For the SDK's forward model.
        """
        if view.phase is Phase.GAME_OVER:
            raise ValueError("state_from_view: the game is over")
        st = SpiteAndMaliceState(self, seed)
        st.game_index = view.game_number
        st.payoff = [list(h) + list(p.payoff_face_up) for h, p in zip(hidden_payoffs, view.players)]
        st.hidden = [len(h) for h in hidden_payoffs]
        st.hands = [list(h) for h in hands]
        st.side = [[list(x.cards) for x in p.side_stacks] for p in view.players]
        st.center = [list(p.cards) for p in view.center]
        st.completed = [list(p.cards) for p in view.completed]
        st.stock = list(stock)
        st.recycled = list(view.recycled)
        st.points = [p.points for p in view.players]
        st.to_act = view.current_seat if view.current_seat is not None else 0
        st.phase = view.phase
        st.turns_played = view.turn_number
        st.turn_moves = list(view.turn_moves)
        st.moved = bool(view.turn_moves)
        st.turn_actions = len(view.turn_moves)
        st.consecutive_passes = view.consecutive_passes
        st.deadlock_reshuffles = view.deadlock_reshuffles
        st.first_seat, st.turn_ups = view.first_player, view.first_player_turn_ups
        st.hand_compel = self._hand_compulsion(view, st.hands[st.to_act])
        return st

    def _hand_compulsion(self, view: "SpiteAndMaliceView", hand: Sequence[Card]) -> bool:
        """Whether the hand A/2 compulsion of §8.12.6 holds in ``view``'s turn, for the actor
        holding ``hand``: as the engine judges it (``_start_turn``, ``_apply_centre_play``),
        from what the actor sees.

        It holds from the start of MAIN, after a pass, if a natural A or 2 in hand could go
        to the centre then, until one is played or none can be. While it holds, every move
        is compelled, and one that is not from the hand is a natural A or 2 from a pay-off
        pile or a side stack (the ace-and-two compulsion, forced aces): an ace starts a
        pile, a 2 lifts a pile of value 1. So any other move this turn means it does not
        hold; and when there is none, the centre at the turn start is the view's, less the
        piles those aces started, with the 2s back to value 1."""
        if not self.hand_ace_two or view.consecutive_passes < 1 or view.phase is not Phase.MAIN:
            return False
        lows = [c for c in hand if c // 4 in (0, 1) and not self.wild[c]]
        moves = view.turn_moves
        if not lows or any(
            m.action.startswith("play hand:") or "-> center" not in m.action or self.wild[m.card] or m.card // 4 > 1
            for m in moves
        ):
            return False
        aces = sum(m.card // 4 == 0 for m in moves)
        piles = len(view.center) - aces
        ones = sum(p.value == 1 for p in view.center) - aces + (len(moves) - aces)

        def playable() -> bool:
            return any(ones > 0 if c // 4 else self.limit is None or piles < self.limit for c in lows)

        if not playable():
            return False
        for m in moves:  # the layout after each move: the compulsion lapses once none can be played
            if m.card // 4 == 0:
                piles += 1
                ones += 1
            else:
                ones -= 1
            if not playable():
                return False
        return True
