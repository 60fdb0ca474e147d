"""The luck of the draws at Spot and Spite and Malice (issue 39; docs/strength.md, "The draws"):
``arbiter evaluate --luck-adjusted`` on those games.

Their luck is mostly in the cards drawn from the stock during play, a chance event the arbiter
controls and whose odds it knows exactly: given everything that happened before a draw (every
hand, every decision), the stock's order is uniform, because no one has seen it and the bots
decide only on what they are shown and their seeds. So for any number f(c) a drawn card c has
for its drawer, computed from the position just before the draw,

    term = f(drawn) - mean over the cards c of the stock of f(c)

has expectation exactly 0 given the past, whatever the bots do (AIVAT's construction for a
chance node, with the expectation computed, not estimated: no probes). A draw of k cards at
once (Spite and Malice filling its hand) is k draws without replacement: sum f(drawn) - k x the
stock's mean. Summed per seat over a match, then per bot over its seats and the deal's two
seatings (``deal_features``), the features have expectation 0, and a deal margin corrected by
b x (features), b fitted on other deals (``arbiter.rating.luck.regression_adjusted``), keeps
its expectation: the mean is unbiased by construction and only the variance changes.

The terms are computed from the match's record replayed by the referee's engine (``draw_luck``):
the stock at each draw is read from the engine's state, never from anything a bot said, through the
engines' referee-side reads (``stock_cards``, ``hand_cards``, Spot's ``table_melds``: immutable
copies, never part of a view; a bot is sent views only). A draw
is scored only when the stock just before it is known from the state after the action (the
last draw of an action, with no shuffle or deal after it); a draw skipped so is decided before
its cards are (the stock ran short, a new game was dealt), so skipping it keeps the sum
unbiased.

The features (per drawn card, for the drawing seat, from the position just before the draw;
``DRAW_FEATURES`` the ones corrected by, chosen by measurement, docs/strength.md):

* Spot: ``late_deadwood``, the card's ``deadwood`` (minus the spots left out of melds once the
  hand with the card has made its best discard: what the card does for going out and for the
  payment if another goes out) times the rounds of the hand played before the draw (a weight
  settled before the card is drawn, so the term keeps its expectation 0: a late card decides
  more); recorded too: ``deadwood`` itself, ``meld`` (the card makes a meld with two of the hand,
  or lays off on a table meld), ``links``, ``spots``, ``loose``.
* Spite and Malice: ``reach`` (with the card, the hand and the side stacks' tops can carry a
  centre pile up to the drawer's pay-off card, wild cards filling gaps) and ``wild``; recorded
  too: ``playable``, ``bridge``, ``payoff_rank``, ``run``.

Pure functions over the engine: the tournament layer reads the records and wires it in.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from arbiter.rating.stats import MeanSE, mean_se
from cardarena.games import get_game
from cardarena.games.spot import candidate_melds, fitting_cards

#: The games whose draws are corrected.
DRAW_GAMES = ("spot", "spite-and-malice")


def _spot_deadwood(hand: Sequence[Any], fitting: frozenset, memo: dict) -> tuple[int, int]:
    """(spots, cards) left out of melds in the best arrangement of ``hand`` into disjoint melds,
    a card that lays off on a table meld (``fitting``) counted as melded."""
    key = tuple(sorted(hand))
    got = memo.get(key)
    if got is not None:
        return got
    loose = [c for c in key if c not in fitting]
    best = (sum(min(c // 4 + 1, 10) for c in loose), len(loose))
    melds = candidate_melds(loose)
    if melds:
        first = loose[0]
        rest = tuple(c for c in loose if c != first)
        best = min(best, tuple(a + b for a, b in zip(_spot_deadwood(rest, fitting, memo), (min(first // 4 + 1, 10), 1))))
        for m in melds:
            if first in m:
                best = min(best, _spot_deadwood(tuple(c for c in loose if c not in m), fitting, memo))
    memo[key] = best
    return best


#: ``_spot_arrangements``' results and the best leave over them, by the sorted cards alone (pure
#: functions of them): kept across the draws of a match and the matches of a run, whose hands
#: share most of their cards from one draw to the next; emptied past ``_KEPT`` entries.
_ARRANGEMENTS: dict = {}
_LEAVES: dict = {}
_KEPT = 50_000


def _spot_arrangements(cards: tuple, memo: dict) -> frozenset:
    """Every set of ``cards`` (sorted) left out when some of them are laid out in disjoint melds."""
    got = memo.get(cards)
    if got is None:
        if not cards:
            got = frozenset({()})
        else:
            first, rest = cards[0], cards[1:]
            out = {(first, *x) for x in _spot_arrangements(rest, memo)}
            for m in candidate_melds(cards):
                if first in m:
                    out |= _spot_arrangements(tuple(x for x in rest if x not in m), memo)
            got = frozenset(out)
        memo[cards] = got
    return got


def _best_leave(outs: frozenset, extra: int | None = None) -> tuple[int, int] | None:
    """Over ``outs`` (each a set of cards left out of melds, ``_spot_arrangements``) with the spots
    ``extra`` of one more card left out, the least (spots, cards) left once the highest of them is
    discarded; None if every set is empty (no card to discard among the left out)."""
    best = None
    for out in outs:
        values = [min(x // 4 + 1, 10) for x in out]
        if extra is not None:
            values.append(extra)
        if values:
            v = (sum(values) - max(values), len(values) - 1)
            best = v if best is None else min(best, v)
    return best


def _spot_features(state: Any, seat: int, hand: Sequence[Any]) -> Callable[[Any], tuple[float, ...]]:
    """Per card c, (meld, links, spots, deadwood, loose, late_deadwood) for ``seat`` holding ``hand``
    (before the draw): deadwood and loose, minus the spots and the cards left out of melds once the
    best discard is made from the hand with c (higher: a better card); late_deadwood, deadwood times
    the rounds of the hand completed (public, and the same before the draw as after it)."""
    late = state.spectator_view().turn_number / state.game.num_seats
    ranks = Counter(c // 4 for c in hand)
    by_suit: dict[int, set[int]] = {}
    for c in hand:
        by_suit.setdefault(c % 4, set()).add(c // 4)
    fitting = frozenset(c for m in state.table_melds() for c in fitting_cards(m))
    memo: dict = {}
    if len(_ARRANGEMENTS) > _KEPT:
        _ARRANGEMENTS.clear()
        _LEAVES.clear()
    arrangements = _ARRANGEMENTS
    own: list = []

    loose_leaves: dict[int, tuple[int, int] | None] = {}

    def loose_leave(spots: int) -> tuple[int, int] | None:
        """The hand's best leave with one more card of ``spots`` left out (the arrangements read once
        a draw, the leave once per spot value: the stock's unmelding cards share ten)."""
        if spots not in loose_leaves:
            if not own:
                own.append(_spot_arrangements(tuple(sorted(x for x in hand if x not in fitting)), arrangements))
            loose_leaves[spots] = _best_leave(own[0], spots)
        return loose_leaves[spots]

    def f(c: Any) -> tuple[float, ...]:
        r, s = c // 4, c % 4
        same = by_suit.get(s, set())
        seq = (r - 1 in same and r - 2 in same) or (r - 1 in same and r + 1 in same) or (r + 1 in same and r + 2 in same)
        meld = ranks[r] >= 2 or seq or c in fitting
        links = ranks[r] + sum(1 for d in (-2, -1, 1, 2) if r + d in same)
        # The best discard is a card left out of melds (a card of a 4-meld or a lay-off is one too: the
        # rest still melds), so over the arrangements of the hand into melds, the spots left out less
        # the most one of them has; with every card melded, the discards are tried one by one.
        if not meld:  # c melds with nothing in the hand: it is left out of every arrangement of the hand's
            dw = loose_leave(min(r + 1, 10))  # the rest as the hand's own
        else:
            full = list(hand) + [c]
            loose = tuple(sorted(x for x in full if x not in fitting))
            if loose in _LEAVES:
                best = _LEAVES[loose]
            else:
                best = _LEAVES[loose] = _best_leave(_spot_arrangements(loose, arrangements))
            dw = best if best is not None else min(_spot_deadwood(full[:i] + full[i + 1:], fitting, memo)
                                                    for i in range(len(full)))
        return (float(meld), float(links), float(min(r + 1, 10)), -float(dw[0]), -float(dw[1]), -late * dw[0])

    return f


def _sm_features(state: Any, seat: int, hand: Sequence[Any]) -> Callable[[Any], tuple[float, ...]]:
    """Per card c, (playable, wild, bridge, payoff_rank, reach, run) for ``seat`` holding ``hand``
    (before the draw): reach, whether the hand with c and the side stacks' tops can carry a centre
    pile up to the pay-off card (wild cards filling gaps, each only for a rank the rules let it
    stand for: wild_excluded_ranks); run, the most cards they can play in a
    row onto one pile."""
    g = state.game
    values = [len(p) for p in state.center]
    room = g.limit is None or len(values) < g.limit
    starts = values + ([0] if room else [])
    pile = state.payoff[seat]
    top = pile[-1] if pile else None
    target = top // 4 + 1 if top is not None and not g.wild[top] else None
    low = min(starts) if starts else None
    tops = [st[-1] for st in state.side[seat] if st]
    base = list(hand) + tops

    def run_and_reach(cards: Sequence[Any]) -> tuple[int, bool]:
        wilds = sum(1 for x in cards if g.wild[x])
        ranks = {x // 4 + 1 for x in cards if not g.wild[x]}
        best, reach = 0, top is not None and g.wild[top] and any(g.fits(top, v) for v in starts)
        for v in starts:
            w, need, n = wilds, v + 1, 0
            while need <= g.top_rank:
                if target is not None and need == target and not reach:
                    reach = True
                if need in ranks:
                    pass
                elif w > 0 and need not in g.excluded:  # a wild card stands for no excluded rank (book: no A)
                    w -= 1
                else:
                    break
                n += 1
                need += 1
            best = max(best, n)
        return best, reach

    def features(c: Any) -> tuple[float, ...]:
        wild = g.wild[c]
        playable = any(g.fits(c, v) for v in starts)
        r = c // 4 + 1
        bridge = (not wild and target is not None and low is not None and low < r < target
                  and any(v < r for v in starts))
        run, reach = run_and_reach(base + [c])
        return (float(playable), float(wild), float(bridge), float(not wild and r == target), float(reach), float(run))

    # A card's features depend on its rank and whether it is wild, never on its suit (the game's
    # ``fits`` reads no more): worked out once per rank in a draw, not once per card of the
    # stock (about 100 cards, 14 ranks; the same values).
    known: dict[tuple[int, bool], tuple[float, ...]] = {}

    def f(c: Any) -> tuple[float, ...]:
        key = (c // 4, g.wild[c])
        got = known.get(key)
        if got is None:
            got = known[key] = features(c)
        return got

    return f


#: Per game: every feature's name (all recorded per deal, for measurements) and the feature function.
#: The stock and a seat's hand are read through the engines' referee-side accessors (``stock_cards``,
#: ``hand_cards``: immutable copies, never part of a view).
_GAMES: dict[str, tuple[tuple[str, ...], Callable]] = {
    "spot": (("meld", "links", "spots", "deadwood", "loose", "late_deadwood"), _spot_features),
    "spite-and-malice": (("playable", "wild", "bridge", "payoff_rank", "reach", "run"), _sm_features),
}

#: The features ``--luck-adjusted`` corrects by, per game: chosen on 300 deals of a close pair (the
#: most cut in blocks of 40 to 300 deals; more features cost more than they explain on few deals)
#: and checked on deals of another seed and pair (docs/strength.md, "The draws").
DRAW_FEATURES = {"spot": ("late_deadwood",), "spite-and-malice": ("reach", "wild")}

#: Event kinds after which, in the same action, the stock is no longer the one a draw came from.
_RESHUFFLES = frozenset({"deal", "recycle", "deadlock", "side_deal"})


def draw_names(game_name: str, every: bool = False) -> tuple[str, ...]:
    """The features ``game_name``'s draws are corrected by (``DRAW_FEATURES``), or ``every`` one
    recorded; KeyError for a game whose draws are not corrected."""
    return _GAMES[game_name][0] if every else DRAW_FEATURES[game_name]


def _minus(cards: Sequence[Any], removed: Sequence[Any]) -> list[Any]:
    out = list(cards)
    for c in removed:
        out.remove(c)
    return out


def draw_luck(game_name: str, options: Mapping[str, Any] | None, seed: int, actions: Sequence[str],
              preset: str | None = None) -> list[dict[str, float]]:
    """Per seat, the sum over its scored draws of f(drawn) - E f (module doc), each feature by name,
    and ``draws``: how many draws were scored. The match replayed from its seed and actions (the
    record's notation) by the engine; ValueError for an action the engine does not accept."""
    game = get_game(game_name, dict(options or {}), preset)
    names, feats = _GAMES[game_name]
    state = game.new_initial_state(seed)
    out = [dict.fromkeys(names, 0.0) | {"draws": 0.0} for _ in range(game.num_seats)]
    for text in actions:
        events = state.apply(game.parse_action(text))
        # the last private draw of the action, if no reshuffle or deal follows it
        last = None
        for i, e in enumerate(events):
            if e.kind == "draw" and e.cards and e.visible_to is not None:
                last = i
        if last is None or any(e.kind in _RESHUFFLES for e in events[last + 1:]):
            continue
        e = events[last]
        seat, drawn = e.seat, list(e.cards)
        stock = list(state.stock_cards()) + drawn
        hand = _minus(state.hand_cards(seat), drawn)
        f = feats(state, seat, hand)
        rows = [f(c) for c in stock]
        k = len(drawn)
        # per feature, the drawn cards' sum (the stock's last rows: the stock ends with them)
        # and the stock's, each added up in the rows' order
        got = [sum(col) for col in zip(*rows[len(rows) - k:])]
        every = [sum(col) for col in zip(*rows)]
        acc = out[seat]
        for j, name in enumerate(names):
            acc[name] += got[j] - k * every[j] / len(rows)
        acc["draws"] += 1
    return out


def deal_features(seatings: Sequence[tuple[Sequence[Mapping[str, float]], Sequence[int]]]) -> dict[str, float]:
    """A deal's features from its seatings (per seating: ``draw_luck``'s per-seat sums, and per seat 0
    for bot A or 1 for B): per feature, bot A's draws' luck minus bot B's, each bot's the mean over its
    seats (as the margin is a mean over seats), summed over the seatings. Expectation 0 exactly."""
    out: dict[str, float] = {}
    for per_seat, who in seatings:
        for bot, sign in ((0, 1.0), (1, -1.0)):
            seats = [s for s, w in enumerate(who) if w == bot]
            for name in per_seat[0]:
                if name == "draws":
                    continue
                out[name] = out.get(name, 0.0) + sign * sum(per_seat[s][name] for s in seats) / len(seats)
    return out


def zero_check(deals: Sequence[Sequence[Sequence[Mapping[str, float]]]], names: Sequence[str]) -> dict[str, MeanSE]:
    """The check of the construction: every feature has expectation exactly 0, so over matches its
    mean is within a few s.e. of 0. ``deals``: per deal, per seating, ``draw_luck``'s per-seat sums.
    Per feature, the mean over the deals of each deal's sum over its seatings and seats, and its
    s.e.: clustered by deal. Within a match the seats' sums are uncorrelated (each term has mean 0
    given everything before it), but the seatings of one deal share its cards, and bots that play
    alike (random against random, seeded alike) play the very same match in both: an s.e. over
    the seat sums as if independent is then too small by a factor up to sqrt(2), and the check
    raises false alarms (docs/strength.md, "The draws: the mean-zero check")."""
    return {k: mean_se([sum(seat[k] for seating in deal for seat in seating) for deal in deals]) for k in names}
