"""Spite and Malice's legal actions in each phase (§3, §8), and why an action is not one (from the actor's information only)."""

from __future__ import annotations

from ..base import Action
from ..cards import JOKER, RANK_TOKENS, Card
from .actions import (
    _CENTER,
    _END,
    _FILLING,
    _GAME_OVER,
    _HAND,
    _HAND_DISCARDS,
    _HAND_SOURCES,
    _MAIN,
    _PARTNER_PAYOFF,
    _PARTNER_PAYOFF_SOURCE,
    _PARTNER_SIDE,
    _PARTNER_SIDE_SOURCES,
    _PAYOFF,
    _PAYOFF_SOURCE,
    _PLAYS,
    _SIDE,
    _SIDE_KEYS,
    _SIDE_SOURCES,
    _TO_SIDE,
    FIT_MEMO_SIZE,
    NUM_SIDE_STACKS,
    End,
    Load,
    Play,
    Source,
    _play,
    _source,
)
from .options import SideStackOrder


class SpiteAndMaliceLegal:
    """Legal actions and illegal-action reasons (mixed into ``SpiteAndMaliceState``)."""

    # -- legal actions -----------------------------------------------------------------

    #: The legal actions of the current position, computed once; reset by ``apply``.
    _legal: list[Action] | None = None

    def legal_actions(self) -> list[Action]:
        legal = self._legal
        if legal is None:
            if self.phase is _MAIN and not (self.game.compulsions or self.hand_compel):
                legal = self._legal = self._main_actions()  # _compute_legal_actions() without a compulsion
            else:
                legal = self._legal = self._compute_legal_actions()
        return legal.copy()

    def _compute_legal_actions(self) -> list[Action]:
        if self.phase is _GAME_OVER:
            return []
        if self.game.compulsions or self.hand_compel:
            compelled = self._compelled()
            if compelled:
                return compelled
        if self.phase is _FILLING:
            return self._discards()
        return self._main_actions()

    def _centre_targets(self, card: Card) -> tuple[int | None, ...]:
        """The centre piles ``card`` fits (index order), then None for a new pile (§3.2);
        memoised in _fit by fit class (cards of one class fit the same piles)."""
        g = self.game
        memo = (self._fit or self._new_fit())[1]
        key = -1 - g.fit_class[card]
        targets = memo.get(key)
        if targets is None:
            fv = g.fit_values[card]
            out: list[int | None] = [i for i, pile in enumerate(self.center) if len(pile) in fv] if fv else []
            if fv and (g.limit is None or len(self.center) < g.limit) and 0 in fv:
                out.append(None)
            targets = memo[key] = tuple(out)
        return targets

    def _centre_plays(self, source: Source, card: Card) -> tuple[Action, ...]:
        """Centre plays of one card: every active pile it fits, then a new pile (§3.2).
        ``source`` must be interned."""
        targets = self._centre_targets(card)
        if not targets:
            return ()
        try:
            return tuple(map(_PLAYS[id(source)].__getitem__, targets))
        except KeyError:  # a pile index beyond the ones made at import
            return tuple(_play(source, _CENTER, i) for i in targets)

    def _compelled(self) -> list[Action]:
        """Forced aces (§8.3), ace-and-two compulsion (§8.12.4), hand A/2 after a pass (§8.12.6)."""
        g, o, p = self.game, self.game.options, self.to_act
        if not (o.forced_aces or o.ace_two_compulsion or self.hand_compel):
            return []
        out: list[Action] = []
        if o.forced_aces:
            for c in sorted(set(self.hands[p])):
                if c // 4 == 0 and not g.wild[c]:
                    out.extend(self._centre_plays(_HAND_SOURCES[c], c))
            for kind, owner in ((_PAYOFF, p), (_PARTNER_PAYOFF, g.partner_of[p])):
                if owner is not None and self.payoff[owner] and self.payoff[owner][-1] // 4 == 0:
                    out.extend(self._centre_plays(_source(kind), self.payoff[owner][-1]))
        if o.ace_two_compulsion:
            tops: list[tuple[Source, Card]] = []
            if self.payoff[p]:
                tops.append((_source(_PAYOFF), self.payoff[p][-1]))
            for j, stack in enumerate(self.side[p]):
                if stack:
                    tops.append((_source(_SIDE, j), stack[-1]))
            for src, c in tops:
                if c // 4 in (0, 1) and not g.wild[c]:
                    out.extend(self._centre_plays(src, c))
        if self.hand_compel:
            for c in sorted(set(self.hands[p])):
                if c // 4 in (0, 1) and not g.wild[c]:
                    out.extend(self._centre_plays(_HAND_SOURCES[c], c))
        if len(out) > 1:
            out = list(dict.fromkeys(out))
        return out

    def _discards(self) -> list[Action]:
        """Hand card -> own side stack, subject to the side order and the filling rule."""
        g, p = self.game, self.to_act
        slots = self.side[p]
        fill = g.options.fill_empty_side_stacks
        any_empty = any(not s for s in slots)
        out: list[Action] = []
        # §8.11: with the filling rule, the ending discard waits until every slot is filled.
        open_slots = [(j, stack) for j, stack in enumerate(slots) if not (fill and stack and any_empty)]
        if g.options.side_stack_order is SideStackOrder.FREE:
            for c in sorted(set(self.hands[p])):
                src = _HAND_SOURCES[c]
                out += [_play(src, _TO_SIDE, j) for j, _ in open_slots]
            return out
        for c in sorted(set(self.hands[p])):
            src = _HAND_SOURCES[c]
            for j, stack in open_slots:
                if g.side_accepts(stack, c):
                    out.append(_play(src, _TO_SIDE, j))
        return out

    def _loads(self) -> list[Action]:
        """§8.4: same suit, natural rank one apart, from hand or own pay-off top."""
        g, p = self.game, self.to_act
        cands = [(_HAND_SOURCES[c], c) for c in sorted(set(self.hands[p]))]
        if self.payoff[p]:
            cands.append((_source(_PAYOFF), self.payoff[p][-1]))
        out: list[Action] = []
        for src, c in cands:
            if c == JOKER:
                continue
            for t in range(g.n):
                if g.team_of[t] == g.team_of[p] or not self.payoff[t]:
                    continue
                top = self.payoff[t][-1]
                if top != JOKER and top % 4 == c % 4 and abs(top // 4 - c // 4) == 1:
                    out.append(Load(src, t))
        return out

    def _new_fit(self) -> tuple[list[bool], dict[int, tuple[Action, ...]]]:
        """The _fit cache of the current centre piles: per card, whether it may fit
        anywhere (a superset, by fit class: see SpiteAndMalice.fit_class), and the memo of
        centre plays. Both depend only on the piles' values in order and the game's fitting
        rules, so they are kept by those values for every game of the same rules in this
        process (SpiteAndMalice.fit_memo, actions.FIT_MEMOS) instead of being built afresh
        whenever a centre play changes the piles.

        A layout's memo is filled whole when the layout is first met: the plays of every
        card that may fit, from a hand, a pay-off pile and each side stack, and the piles
        of every fit class. Filled as hands asked, what it held (and so how long a later
        position's legal actions took) would depend on which cards the seats had held at
        that layout: a timing channel to hidden hands. Filled whole, it depends on the
        layouts met alone, which are public."""
        g = self.game
        key = tuple([len(pile) for pile in self.center])
        fit = g.fit_memo.get(key)
        if fit is None:
            want = [False] * 14
            for v in key:
                if v < 13:
                    want[v] = True  # a natural card of rank index v (rank v + 1)
            can_new = g.limit is None or len(key) < g.limit
            if can_new:
                want[0] = True
            want[13] = bool(key) or can_new  # a wild card
            table = [want[k] for k in g.fit_class]
            fit = self._fit = (table, {})
            memo = fit[1]
            for c in g.fit_class_cards:  # the piles of every class (_centre_targets)
                self._centre_targets(c)
            for c in range(len(table)):
                if table[c]:
                    memo[c] = self._centre_plays(_HAND_SOURCES[c], c)
            for c in g.fit_class_cards:
                if table[c]:
                    k = g.fit_class[c]
                    memo[64 + k] = self._centre_plays(_PAYOFF_SOURCE, c)
                    for j in range(NUM_SIDE_STACKS):
                        memo[_SIDE_KEYS[j] + k] = self._centre_plays(_SIDE_SOURCES[j], c)
            if len(g.fit_memo) >= FIT_MEMO_SIZE:  # bounded (unlimited piles have many values)
                g.fit_memo.clear()
            g.fit_memo[key] = fit
        self._fit = fit
        return fit

    def _main_actions(self) -> list[Action]:
        # Every card the actor may move to the centre (§3.3 (a), §8.10), in this order:
        # the hand's (sorted), the pay-off top, the side tops, the partner's pay-off and
        # side tops; each with its _centre_plays, from the memo of the current centre
        # piles (_new_fit fills it whole: a hand card by card, another source by fit class,
        # as the plays of a card from there depend only on its class). Then the discards,
        # loads and end.
        g = self.game
        p = self.to_act
        want, memo = self._fit or self._new_fit()
        fit_class = g.fit_class
        out: list[Action] = []
        hand = sorted(set(self.hands[p]))
        for c in hand:
            if want[c]:
                out += memo[c]
        pile = self.payoff[p]
        if pile:
            c = pile[-1]
            if want[c]:
                out += memo[64 + fit_class[c]]
        for j, stack in enumerate(self.side[p]):
            if stack:
                c = stack[-1]
                if want[c]:
                    out += memo[_SIDE_KEYS[j] + fit_class[c]]
        q = g.partner_of[p]
        if q is not None:
            pile = self.payoff[q]
            if pile:
                out += self._centre_plays(_PARTNER_PAYOFF_SOURCE, pile[-1])
            for j, stack in enumerate(self.side[q]):
                if stack:
                    out += self._centre_plays(_PARTNER_SIDE_SOURCES[j], stack[-1])
        if g.plain_discards and self.phase is _MAIN:
            # _discards() without the filling rule: every hand card to every side stack.
            for c in hand:
                out += _HAND_DISCARDS[c]
        else:
            out += self._discards()
        if g.options.loading:
            out += self._loads()
        if g.options.may_end_without_discard:
            out.append(_END)
        return out


    # -- illegal-action reasons (from the actor's information only) --------------------

    def _why_illegal(self, action: Action, legal: list[Action]) -> str:
        o = self.game.options
        why = self._source_problem(action)
        if why is None:
            if isinstance(action, End):
                why = None if o.may_end_without_discard else (
                    "a discard to a side stack ends the turn here; 'end' is played only with may_end_without_discard "
                    "(the book rules)")
            elif isinstance(action, Load):
                why = self._load_problem(action)
            elif isinstance(action, Play) and action.target is _TO_SIDE:
                why = self._discard_problem(action)
            elif isinstance(action, Play):
                why = self._centre_problem(action)
        if why is None:
            compelled = self._compelled()
            if compelled:
                why = "a compulsory play is pending: " + ", ".join(map(str, compelled))
            elif self.phase is _FILLING:
                why = "you are filling your empty side stacks: only a fill or, once all are filled, the final discard"
            else:
                why = "not a legal action now"
        return f"{action}: {why}"

    def _source_problem(self, action: Action) -> str | None:
        if isinstance(action, End):
            return None
        g, p = self.game, self.to_act
        src: Source = action.source  # type: ignore[attr-defined]
        k = src.kind
        if k is _HAND:
            if src.card is None:
                return "a hand source must name the card"
            if src.card not in self.hands[p]:
                return f"no {src.card} in your hand"
        elif k in (_PARTNER_PAYOFF, _PARTNER_SIDE) and g.partner_of[p] is None:
            return "there are no partnerships in this game"
        elif k in (_PAYOFF, _PARTNER_PAYOFF):
            owner = p if k is _PAYOFF else g.partner_of[p]
            if not self.payoff[owner]:  # type: ignore[index]
                return "that pay-off pile is empty"
        else:
            owner = p if k is _SIDE else g.partner_of[p]
            if not 0 <= src.index < NUM_SIDE_STACKS:
                return f"side stacks are numbered 0..{NUM_SIDE_STACKS - 1}"
            if not self.side[owner][src.index]:  # type: ignore[index]
                return f"{src} is empty"
        return None

    def _source_card(self, src: Source) -> Card:
        g, p = self.game, self.to_act
        if src.kind is _HAND:
            return src.card  # type: ignore[return-value]
        if src.kind is _PAYOFF:
            return self.payoff[p][-1]
        if src.kind is _PARTNER_PAYOFF:
            return self.payoff[g.partner_of[p]][-1]  # type: ignore[index]
        owner = p if src.kind is _SIDE else g.partner_of[p]
        return self.side[owner][src.index][-1]  # type: ignore[index]

    def _centre_problem(self, action: Play) -> str | None:
        g = self.game
        card = self._source_card(action.source)
        if action.index is None:
            if g.limit is not None and len(self.center) >= g.limit:
                return f"the centre limit of {g.limit} active piles is reached"
            if not g.fits(card, 0):
                return f"a new centre pile must start with an ace (or a wild card allowed to represent one); {card} cannot"
            return None
        if not 0 <= action.index < len(self.center):
            return f"there is no center:{action.index} ({len(self.center)} active piles)"
        v = len(self.center[action.index])
        if not g.fits(card, v):
            return f"{card} does not fit on center:{action.index} (value {v})"
        return None

    def _discard_problem(self, action: Play) -> str | None:
        g, p = self.game, self.to_act
        if action.source.kind is not _HAND:
            return "only a card from your hand may go to a side stack (pay-off and side cards go to the centre)"
        if action.index is None or not 0 <= action.index < NUM_SIDE_STACKS:
            return f"side stacks are numbered 0..{NUM_SIDE_STACKS - 1}"
        stack = self.side[p][action.index]
        card = action.source.card
        if not g.side_accepts(stack, card):  # type: ignore[arg-type]
            return self._descending_problem(action.index, stack, card)  # type: ignore[arg-type]
        if g.options.fill_empty_side_stacks and stack and any(not s for s in self.side[p]):
            return "fill every empty side stack before the discard that ends the turn"
        return None

    def _descending_problem(self, j: int, stack: list[Card], card: Card) -> str:
        """Why ``card`` may not go on the descending side stack ``j`` (§8.12.2): the ranks it
        takes, read from its top's interval, so a wild top (which stands for a range) and a
        wild card that would have to stand for an excluded ace are both told as they are."""
        g = self.game
        lo, hi = g.side_interval(stack)  # type: ignore[misc]
        top = stack[-1]
        name = lambda v: RANK_TOKENS[v - 1]  # noqa: E731
        if g.wild[card]:
            return (f"{card} on side:{j} would stand for an A (equal to or one lower than its top {top}), "
                    "and a wild card may not stand for an A here (wild_excluded_ranks)")
        low = max(1, lo - 1)
        takes = name(hi) if low == hi else (f"{name(low)} or {name(hi)}" if hi - low == 1 else f"{name(low)} to {name(hi)}")
        stands = f"its top, {top}, which stands for {name(lo)} to {name(hi)}" if g.wild[top] and lo < hi else f"its top {top}"
        article = "an" if takes[0] in "A8" else "a"
        return f"side:{j} takes {article} {takes} now (equal to or one lower than {stands}; descending order)"

    def _load_problem(self, action: Load) -> str | None:
        g, p = self.game, self.to_act
        if not g.options.loading:
            return "loading is not played in this game"
        if action.source.kind not in (_HAND, _PAYOFF):
            return "only a hand card or your pay-off top may be loaded"
        if not 0 <= action.seat < g.n:
            return f"there is no seat {action.seat} (seats 0 to {g.n - 1})"
        if g.team_of[action.seat] == g.team_of[p]:
            whose = "your own pay-off pile" if action.seat == p else "your partner's pay-off pile"
            return f"{whose}: you may load only an opponent's pay-off pile"
        if not self.payoff[action.seat]:
            return f"seat {action.seat}'s pay-off pile is empty"
        card, top = self._source_card(action.source), self.payoff[action.seat][-1]
        if card == JOKER or top == JOKER or card % 4 != top % 4 or abs(card // 4 - top // 4) != 1:
            return f"{card} is not of the same suit and one rank from {top}"
        return None
