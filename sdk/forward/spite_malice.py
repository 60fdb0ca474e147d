"""Spite and Malice forward model: fill in a ``SpiteAndMaliceView``'s unseen cards.

What the seat knows (all from the view): the pack (``decks`` standard decks plus
``jokers``), its own hand, every face-up card (side stacks, centre and completed piles,
the turned-up part of each pay-off pile), each seat's hand count, each pay-off pile's
face-down count and the stock count. The unseen multiset (the pack minus everything
seen) is dealt over the other hands, the face-down pay-off cards and the stock.

Inference: with ``forced_aces`` a seat must play a natural ace from its hand whenever it
can, and an ace can always start a new pile (forced aces implies unlimited piles), so a
seat that has ended a turn in this game since its hand was last drawn holds no natural
ace (not applied under ``deadlock_rule = reshuffle``, whose redeals the view does not
show). With ``deck_split`` the face-down pay-off cards come from deck A: no jokers and
no card twice among them (the sampler draws them as distinct cards; it does not weigh
how many copies of each remain, an approximation). The first player's choice (§2.3): a seat
tied in a round reshuffled its pay-off pile with the card it had turned up, so a copy of each
card it turned up before its last turn-up (but the top it turned up last) is in its face-down
pay-off cards while none of them has come up yet (its face-down count still the
deal's ``payoff_size`` - 1); after that a turned-up card may have been played, unseen which
copy, and the constraint is dropped (sound, not complete).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from cardarena.games.cards import JOKER, STANDARD_DECK, Card
from cardarena.games.spite_malice import DeadlockRule, Phase, SpiteAndMalice, SpiteAndMaliceState, SpiteAndMaliceView
from sdk.forward._common import ConsistencyError, SamplingOptions


@dataclass(frozen=True)
class Knowledge:
    seat: int
    unseen: tuple[Card, ...]  # the unseen multiset, sorted
    hand_counts: tuple[int, ...]
    hidden_counts: tuple[int, ...]  # face-down pay-off cards per seat
    stock_count: int
    no_ace: frozenset[int]  # seats known to hold no natural ace
    deck_split: bool
    payoff_known: tuple[tuple[Card, ...], ...] = ()  # per seat, cards known to be face down in its pay-off pile


def is_natural_ace(game: SpiteAndMalice, card: int) -> bool:
    return card // 4 == 0 and card != JOKER and not game.wild[card]


def seats_without_aces(game: SpiteAndMalice, view: SpiteAndMaliceView) -> frozenset[int]:
    """Seats that ended a turn under forced aces since their hand was last drawn."""
    o = game.options
    if not o.forced_aces or o.deadlock_rule is DeadlockRule.RESHUFFLE or view.current_seat is None:
        return frozenset()
    n = game.num_seats
    # Turns pass in seat order: the last ``turn_number`` turns were played by the seats
    # before the current one; a seat draws only at the start of its own turn.
    done = min(view.turn_number, n - 1)
    return frozenset((view.current_seat - k) % n for k in range(1, done + 1)) - {view.seat}


def turned_up_below(game: SpiteAndMalice, view: SpiteAndMaliceView) -> tuple[tuple[Card, ...], ...]:
    """Per seat, the cards known to lie face down in its pay-off pile from the first player's
    choice: one copy of each card it turned up in a round it then reshuffled (a tie; with several
    decks a card turned up twice may be one card come back up), but the card it turned up last
    (its pile's top then), while no face-down card of its pile has come up since the deal (so
    none of them can have left)."""
    n, size = game.num_seats, game.options.payoff_size
    out: list[tuple[Card, ...]] = []
    for s in range(n):
        mine = [t for t in view.first_player_turn_ups if t.seat == s]
        p = view.players[s]
        if len(mine) < 2 or p.payoff_count - len(p.payoff_face_up) != size - 1:
            out.append(())
            continue
        last = max(t.round for t in mine)
        top = next(t.card for t in mine if t.round == last)
        # one copy of each: with several decks a card turned up again may be the same one, come back up
        out.append(tuple(sorted({t.card for t in mine if t.round != last} - {top})))
    return tuple(out)


def knowledge(game: SpiteAndMalice, view: SpiteAndMaliceView, opts: SamplingOptions) -> Knowledge:
    if view.phase is Phase.GAME_OVER:
        raise ConsistencyError("the game is over: nothing to sample")
    o = game.options
    pack: Counter = Counter()
    for _ in range(o.decks):
        pack.update(STANDARD_DECK)
    pack[JOKER] += o.jokers
    seen: Counter = Counter(view.hand)
    for p in view.players:
        seen.update(p.payoff_face_up)
        for st in p.side_stacks:
            seen.update(st.cards)
    for pile in view.center + view.completed:
        seen.update(pile.cards)
    if seen - pack:
        raise ConsistencyError(f"the view shows more copies than the pack holds: {sorted(map(str, (seen - pack).elements()))}")
    unseen = tuple(sorted((pack - seen).elements()))
    hand_counts = tuple(p.hand_count for p in view.players)
    hidden_counts = tuple(p.payoff_count - len(p.payoff_face_up) for p in view.players)
    need = sum(hand_counts) - hand_counts[view.seat] + sum(hidden_counts) + view.stock_count
    if need != len(unseen):
        raise ConsistencyError(f"{len(unseen)} unseen cards for {need} hidden places")
    no_ace = seats_without_aces(game, view) if opts.infer else frozenset()
    known = turned_up_below(game, view) if opts.infer else ()
    if known and Counter(c for k in known for c in k) - Counter(unseen):
        raise ConsistencyError("a card turned up for the first player is seen elsewhere, though its pay-off pile "
                               "has turned no face-down card up since")
    return Knowledge(view.seat, unseen, hand_counts, hidden_counts, view.stock_count, no_ace, o.deck_split,
                     known if any(known) else ())


def build(game: SpiteAndMalice, view: SpiteAndMaliceView, know: Knowledge, rng: random.Random) -> SpiteAndMaliceState:
    n = game.num_seats
    pool = list(know.unseen)
    rng.shuffle(pool)
    hidden: list[list[Card]] = [[] for _ in range(n)]
    # cards known to lie face down in a pay-off pile (the first player's choice): placed first, the
    # rest of the pile drawn as before, then the pile shuffled (where in it they lie, nobody knows)
    known = know.payoff_known or ((),) * n
    for s in range(n):
        for c in known[s]:
            pool.remove(c)
    if know.deck_split:
        # Deck A: distinct, joker-free; not a copy of a face-up pay-off card.
        face_up = {c for p in view.players for c in p.payoff_face_up}
        taken = {c for k in known for c in k}
        distinct = [c for c in dict.fromkeys(pool) if c != JOKER and c not in face_up and c not in taken]
        want = sum(know.hidden_counts) - len(taken)
        if len(distinct) < want:
            raise ConsistencyError("too few distinct unseen cards for the deck-A pay-off piles")
        chosen = distinct[:want]  # pool is shuffled, so this is a uniform choice of values
        i = 0
        for s in range(n):
            k = know.hidden_counts[s] - len(known[s])
            hidden[s] = list(known[s]) + chosen[i:i + k]
            i += k
        for c in chosen:
            pool.remove(c)
    hands: list[list[Card]] = [[] for _ in range(n)]
    hands[view.seat] = list(view.hand)
    # Seats known to hold no natural ace take their cards from the non-aces first; the
    # rest of the (shuffled) pool is then dealt in order: uniform given the constraint.
    for s in sorted(know.no_ace):
        k = know.hand_counts[s]
        picks = [i for i, c in enumerate(pool) if not is_natural_ace(game, c)][:k]
        if len(picks) < k:
            raise ConsistencyError(f"too few non-aces for seat {s}'s hand")
        hands[s] = [pool[i] for i in picks]
        for i in reversed(picks):
            del pool[i]
    for s in range(n):
        if s != view.seat and s not in know.no_ace:
            k = know.hand_counts[s]
            hands[s], pool = pool[:k], pool[k:]
    if not know.deck_split:
        for s in range(n):
            k = know.hidden_counts[s] - len(known[s])
            hidden[s], pool = list(known[s]) + pool[:k], pool[k:]
    for s in range(n):
        if known[s]:
            rng.shuffle(hidden[s])
    stock = pool
    if len(stock) != know.stock_count:
        raise ConsistencyError(f"{len(stock)} cards left for a stock of {know.stock_count}")
    return game.state_from_view(view, hands, hidden, stock, rng.getrandbits(48))
