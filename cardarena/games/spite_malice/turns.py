"""A Spite and Malice turn: applying an action, then the forced events (draws, turn-ups, recycling, the end of a turn)."""

from __future__ import annotations

import bisect
import random

from ..base import Action, EndReason, Event, IllegalActionError, new_event
from ..cards import Card
from .actions import (
    _ACTION_TEXT,
    _CARD_TEXT,
    _CENTER,
    _DISCARD_EVENT,
    _DRAW_CARD_EVENT,
    _DRAW_ONE_EVENT,
    _DRAWS_TEXT,
    _FILLING,
    _GAME_OVER,
    _HAND,
    _HAND_SOURCES,
    _MAIN,
    _ONE_CARD,
    _PARTNER_PAYOFF,
    _PARTNER_SIDE,
    _PAYOFF,
    _SEAT_SETS,
    _SIDE,
    _TURN_EVENT,
    HAND_SIZE,
    MAX_TURN_ACTIONS,
    NUM_SIDE_STACKS,
    Load,
    Play,
    Source,
    _action_text,
    _discard_event,
    _draw_one_event,
    _turn_event,
)
from .options import DeadlockRule, Recycle
from .views import SpiteAndMaliceMove, _build, _new, _set


class SpiteAndMaliceTurns:
    """Applying actions and the forced events (mixed into ``SpiteAndMaliceState``)."""

    # -- apply -------------------------------------------------------------------------

    def apply(self, action: Action) -> list[Event]:
        if self.phase is _GAME_OVER:
            raise IllegalActionError(f"{action}: the game is over")
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal_actions()
        for a in legal:  # identity first: the dataclass __eq__ is slow
            if a is action:
                break
        else:
            if action not in legal:
                raise IllegalActionError(self._why_illegal(action, legal))
        self._legal = None
        log = self._log
        start = len(log)  # the events of this action are log[start:]
        p = self.to_act
        self.turn_actions += 1
        # Legal, hence equal to an action built by the generator: exactly one of its classes.
        cls = action.__class__
        if cls is Play:
            if action.target is _CENTER:
                self._apply_centre_play(p, action)
            else:
                self._apply_discard(p, action)
        elif cls is Load:
            self._apply_load(p, action)
        else:
            self._apply_end(p)
        if self.turn_actions >= MAX_TURN_ACTIONS and self.phase is not _GAME_OVER and self.to_act == p:
            self._finish_game(None, EndReason.TURN_LIMIT, f"turn guard: {MAX_TURN_ACTIONS} decisions in one turn")
        # Forget the cached public picture of every seat whose pay-off pile this action can
        # have changed: the actor, its partner (partner sources) and a loaded seat. A new
        # game or a reshuffle cleared them all; hand counts and side stacks are checked
        # by _view (a discard and a draw change nothing else).
        pv = self._pv
        if pv is not None and (cls is not Play or action.target is _CENTER):
            pv[p] = None
            q = self.game.partner_of[p]
            if q is not None:
                pv[q] = None
            if cls is Load:
                pv[action.seat] = None
        return log[start:]

    def _side_changed(self, s: int, j: int) -> None:
        """Forget the cached view of seat ``s``'s side stack ``j``."""
        if self._sv is not None:
            self._sv[s] = None
            self._sc[s][j] = None  # type: ignore[index]

    def _take(self, p: int, src: Source) -> Card:
        """Remove the source card from where it lies (legality already checked)."""
        g = self.game
        kind = src.kind
        if kind is _HAND:
            self.hands[p].remove(src.card)
            return src.card  # type: ignore[return-value]
        if kind is _SIDE:
            self._side_changed(p, src.index)
            return self.side[p][src.index].pop()
        if kind is _PARTNER_SIDE:
            self._side_changed(g.partner_of[p], src.index)  # type: ignore[arg-type]
            return self.side[g.partner_of[p]][src.index].pop()  # type: ignore[index]
        owner = p if kind is _PAYOFF else g.partner_of[p]
        return self.payoff[owner].pop()  # type: ignore[index]

    def _record(self, p: int, action: Action, card: Card, kind: str) -> None:
        self.moved = True
        text = _ACTION_TEXT.get(id(action)) or _action_text(action)
        move = _new(SpiteAndMaliceMove)
        _set(move, "__dict__", {"seat": p, "action": text, "card": card})
        self.turn_moves.append(move)
        self._log.append(new_event(kind, p, f"seat {p}: {text}", (card,)))

    def _apply_centre_play(self, p: int, action: Play) -> None:
        g, src = self.game, action.source
        self._cv = self._fit = None
        card = self._take(p, src)
        if action.index is None:
            self.center.append([])
            pile = self.center[-1]
        else:
            pile = self.center[action.index]
        pile.append(card)
        self._record(p, action, card, "play")
        # The pile completes at top_rank: removed at once, recycled (§3.2, §8.6).
        if len(pile) == g.top_rank:
            self.center.remove(pile)
            if g.options.recycle is Recycle.DEFERRED:
                self.completed.append(pile)
                self._emit("complete", p, f"centre pile complete ({g.top_rank} cards), set aside", tuple(pile))
            else:
                self._shuffle_into_stock(pile, "centre pile complete, shuffled into the stock")
        if self.hand_compel and (
            (src.kind is _HAND and card // 4 in (0, 1) and not g.wild[card]) or not self._compelled_hand_cards()
        ):
            # §8.12.6: the hand A/2 compulsion ends once one is played, and lapses for the rest
            # of the turn once none can be (a pay-off ace took the last place): it does not
            # come back when a completed pile frees one, so a view's moves tell whether it
            # holds (SpiteAndMalice.state_from_view).
            self.hand_compel = False
        if src.kind is _PAYOFF or src.kind is _PARTNER_PAYOFF:
            owner = p if src.kind is _PAYOFF else g.partner_of[p]
            self._turn_up(owner)  # type: ignore[arg-type]
        if self._check_win(p):
            return
        if not self.hands[p]:
            self.phase = _MAIN  # §8.11: a hand emptied while filling starts afresh
            self._draw_to(p, HAND_SIZE)

    def _apply_discard(self, p: int, action: Play) -> None:
        j = action.index
        stack = self.side[p][j]  # type: ignore[index]
        if self._sv is not None:
            self._sv[p] = None
            self._sc[p][j] = None  # type: ignore[index]
        is_fill = self.game.fill_rule and not stack
        card = action.source.card  # a discard comes from the hand (legal)
        self.hands[p].remove(card)
        stack.append(card)
        if not is_fill:
            # _record(p, action, card, "discard"), inline: the most frequent action. Its
            # move is recorded only if this turn's moves outlive _end_turn (the game ended
            # before the next turn began): a new turn starts them afresh.
            self.moved = True
            self._log.append(_DISCARD_EVENT[p].get(id(action)) or _discard_event(p, action))
            moves = self.turn_moves
            self._end_turn(p)
            if self.turn_moves is moves:
                moves.append(_build(SpiteAndMaliceMove, {"seat": p, "action": _action_text(action), "card": card}))
            return
        self._record(p, action, card, "fill")  # type: ignore[arg-type]
        # §8.11: a fill does not end the turn; with an empty hand draw 5 and return to MAIN.
        self.phase = _FILLING
        if not self.hands[p]:
            self.phase = _MAIN
            self._draw_to(p, HAND_SIZE)

    def _apply_load(self, p: int, action: Load) -> None:
        card = self._take(p, action.source)
        self.payoff[action.seat].append(card)
        self._record(p, action, card, "load")
        if action.source.kind is _PAYOFF:
            self._turn_up(p)
            if self._check_win(p):
                return
        if not self.hands[p]:
            self._draw_to(p, HAND_SIZE)

    def _apply_end(self, p: int) -> None:
        self._emit("end" if self.moved else "pass", p, f"seat {p}: end" + ("" if self.moved else " (pass)"))
        self._end_turn(p)

    # -- forced events -----------------------------------------------------------------

    def _emit(self, kind: str, seat: int | None, text: str, cards: tuple = (), visible_to=None) -> None:
        self._log.append(new_event(kind, seat, text, cards, visible_to))

    def _rng(self) -> random.Random:
        self.shuffles += 1
        return random.Random(f"{self.seed}:shuffle:{self.game_index}:{self.shuffles}")

    def _shuffle_into_stock(self, cards: list[Card], text: str) -> None:
        self._rv = None
        self.stock.extend(cards)
        self._rng().shuffle(self.stock)
        for c in cards:
            bisect.insort(self.recycled, c)
        self._emit("recycle", None, f"{text}; stock {len(self.stock)}", tuple(sorted(cards)))

    def _turn_up(self, owner: int) -> None:
        pile = self.payoff[owner]
        if self.hidden[owner] > max(0, len(pile) - 1):
            self.hidden[owner] = max(0, len(pile) - 1)
            if pile:
                self._emit("turn_up", owner, f"seat {owner} turns up pay-off card {pile[-1]}", (pile[-1],))

    def _check_win(self, p: int) -> bool:
        """§4.1 / §8.10: the acting side wins once all its pay-off piles are empty."""
        team = self.game.team_members[self.game.team_of[p]]
        if all(not self.payoff[s] for s in team):
            self._finish_game(team, EndReason.COMPLETED, f"seat {p} emptied the pay-off pile" + ("s" if len(team) > 1 else ""))
            return True
        return False

    def _draw_to(self, p: int, k: int) -> bool:
        """Draw until the hand holds ``k``; False if the game ended by stalemate (§4.2, §8.6)."""
        hand = self.hands[p]
        need = k - len(hand)
        if need <= 0:
            return True
        stock = self.stock
        if len(stock) >= need:
            # The usual case: the top ``need`` cards, the top one first (as popped one by one).
            drawn = stock[-need:]
            drawn.reverse()
            del stock[-need:]
            self._emit_draw(p, drawn)
            hand.extend(drawn)
            return True
        drawn: list[Card] = []
        ok = True
        while len(hand) + len(drawn) < k:
            if not self.stock and self.completed:
                cards = [c for pile in self.completed for c in pile]
                self.completed = []
                self._cv = None
                self._emit_draw(p, drawn)
                hand.extend(drawn)
                drawn = []
                self._shuffle_into_stock(cards, "completed piles shuffled to form a new stock")
            if not self.stock:
                ok = False
                break
            drawn.append(self.stock.pop())
        self._emit_draw(p, drawn)
        hand.extend(drawn)
        if not ok:
            self._finish_game(None, EndReason.STALEMATE, f"seat {p} must draw and the stock is empty")
        return ok

    def _emit_draw(self, p: int, drawn: list[Card]) -> None:
        """The public and the private event of drawing ``drawn`` (none if empty)."""
        if drawn:
            log = self._log
            log.append(new_event("draw", p, f"seat {p} {_DRAWS_TEXT[len(drawn)]}; stock {len(self.stock)}"))
            log.append(new_event("draw", p, f"seat {p} draws {' '.join([_CARD_TEXT[c] for c in drawn])}", tuple(drawn),
                              _SEAT_SETS[p]))

    def _start_turn(self) -> None:
        """TURN_START: draw to 5 (stalemate if impossible), then MAIN (§3.3)."""
        p = self.to_act
        self.phase = _MAIN
        self.moved = False
        self.turn_actions = 0
        self.turn_moves = []
        self.hand_compel = False
        log = self._log
        turn = self.turns_played + 1
        log.append(_TURN_EVENT[p].get(turn) or _turn_event(p, turn))  # interned (see actions)
        hand = self.hands[p]
        need = HAND_SIZE - len(hand)
        stock = self.stock
        if need == 1 and stock:
            # _draw_to(p, HAND_SIZE) for the usual single card (the turn after a discard).
            c = stock.pop()
            n = len(stock)
            log.append(_DRAW_ONE_EVENT[p].get(n) or _draw_one_event(p, n))
            log.append(_DRAW_CARD_EVENT[p][c])
            hand.append(c)
        elif not self._draw_to(p, HAND_SIZE):
            return
        if self.game.hand_ace_two and self.consecutive_passes >= 1:
            self.hand_compel = True
            if not self._compelled_hand_cards():
                self.hand_compel = False

    def _compelled_hand_cards(self) -> bool:
        g, p = self.game, self.to_act
        return any(
            c // 4 in (0, 1) and not g.wild[c] and self._centre_plays(_HAND_SOURCES[c], c)
            for c in self.hands[p]
        )

    def _end_turn(self, p: int) -> None:
        g, o = self.game, self.game.options
        self.turns_played += 1
        self.consecutive_passes = 0 if self.moved else self.consecutive_passes + 1
        nxt = (p + 1) % g.n
        if self.consecutive_passes >= g.n:
            # §8.12.6: everybody passed in succession.
            if o.deadlock_rule is DeadlockRule.RESHUFFLE and self.deadlock_reshuffles < o.max_deadlock_reshuffles:
                self._deadlock_reshuffle(nxt)
            else:
                breaker = self._deadlock_breaker(nxt) if g.hand_ace_two else None
                if breaker is None:
                    self._finish_game(None, EndReason.STALEMATE, "deadlock: every player passed")
                    return
                # The first seat in turn order (from the one due to move) holding a hand A
                # or natural 2 it can play to the centre moves next and must play one.
                self._emit("deadlock", breaker, f"deadlock: every player passed; seat {breaker} holds a playable "
                           "A or 2 and must play it")
                nxt = breaker
        if self.turns_played >= o.max_turns:
            self._finish_game(None, EndReason.TURN_LIMIT, f"turn guard: {o.max_turns} turns played")
            return
        self.to_act = nxt
        self._start_turn()

    def _deadlock_breaker(self, due: int) -> int | None:
        """§8.12.6 ``hand_ace_two_then_end``: the first seat in turn order from ``due``
        holding a natural A or 2 in hand that fits a centre pile; None if nobody does."""
        g = self.game
        for k in range(g.n):
            s = (due + k) % g.n
            if any(c // 4 in (0, 1) and not g.wild[c] and self._centre_targets(c) for c in self.hands[s]):
                return s
        return None

    def _deadlock_reshuffle(self, due: int) -> None:
        """§8.12.6 reshuffle: everything but the pay-off piles, new 5-card hands from ``due``."""
        g = self.game
        self._pv = self._cv = self._rv = self._sv = self._sc = self._fit = None
        self.deadlock_reshuffles += 1
        face_up = [c for slots in self.side for s in slots for c in s]
        face_up += [c for pile in self.center + self.completed for c in pile]
        pool = [c for h in self.hands for c in h] + face_up + self.stock
        for c in face_up:
            bisect.insort(self.recycled, c)
        self.hands = [[] for _ in range(g.n)]
        self.side = [[[] for _ in range(NUM_SIDE_STACKS)] for _ in range(g.n)]
        self.center, self.completed = [], []
        self._rng().shuffle(pool)
        self.stock = pool
        self._emit(
            "reshuffle", None,
            f"deadlock: hands, side stacks, centre and stock reshuffled ({self.deadlock_reshuffles})",
            tuple(sorted(face_up)),
        )
        for k in range(HAND_SIZE * g.n):
            if not self.stock:
                break
            self.hands[(due + k) % g.n].append(self.stock.pop())
        for s in range(g.n):
            self._emit("deal", s, f"seat {s} receives {len(self.hands[s])} cards")
            self._emit("deal", s, f"seat {s} receives {' '.join(map(str, self.hands[s]))}", tuple(self.hands[s]), frozenset({s}))
        self.consecutive_passes = 0
