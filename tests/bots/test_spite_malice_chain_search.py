"""The Spite and Malice heuristic's chain search (``_search_chain``) decides exactly as the
search it replaced: the same chain and the same nodes visited, on seeded positions of real
games under several variants.

The reference below is the search as it was before it was made faster (commit 3c46164,
``_chain_to_payoff``), with a node count added; it reads the card rules only through
``_Rules.fits``, so the table of fit values the fast search uses is checked too. The fast
search stops at ``MAX_NODES + 1`` nodes, where the reference goes on calling children that
return at once: the counts are compared up to that cap.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from bots import spite_malice_heuristic as H
from bots.spite_malice_heuristic import MAX_CHAIN, MAX_NODES
from cardarena.games.cards import Suit
from cardarena.games.spite_malice import Play, Source, SourceKind, SpiteAndMalice, TargetKind
from tests.games.test_spite_malice import layout, pile


def reference_chain(view, rules) -> tuple[list[Play] | None, int]:
    """The search before it was made faster; returns the chain and the nodes visited."""
    me = view.players[view.seat]
    target = me.payoff_top
    if target is None:
        return None, 0
    hand = list(view.hand)
    sides = [list(s.cards) for s in me.side_stacks]
    partner = None
    for p in view.players:
        if p.team == me.team and p.seat != me.seat:
            partner = p
    psides = [list(s.cards) for s in partner.side_stacks] if partner else [[] for _ in range(4)]
    best: list[Any] = [None, 10**9]
    nodes = [0]

    def fit_values(c):
        return frozenset(v for v in range(rules.top) if rules.fits(c, v))

    target_fits = fit_values(target)
    sources: dict[Any, Source] = {}

    def source(kind, j, c):
        key = c if kind is SourceKind.HAND else (kind, j)
        src = sources.get(key)
        if src is None:
            src = sources[key] = Source(kind, 0, c) if kind is SourceKind.HAND else Source(kind, j)
        return src

    def payoff_fits(values):
        if any(v in target_fits for v in values):
            return True
        return len(values) < rules.limit and 0 in target_fits

    def dfs(values, path, cost):
        nodes[0] += 1
        if cost >= best[1] or nodes[0] > MAX_NODES:
            return
        if path and payoff_fits(values):
            best[0], best[1] = list(path), cost
            return
        if len(path) >= MAX_CHAIN:
            return
        moves = []
        for c in sorted(set(hand)):
            moves.append((SourceKind.HAND, 0, c, hand))
        for j, st in enumerate(sides):
            if st:
                moves.append((SourceKind.SIDE, j, st[-1], st))
        for j, st in enumerate(psides):
            if st:
                moves.append((SourceKind.PARTNER_SIDE, j, st[-1], st))
        room = len(values) < rules.limit
        for kind, j, c, where in moves:
            fv = fit_values(c)
            targets = [i for i, v in enumerate(values) if v in fv]
            if room and 0 in fv:
                targets.append(None)
            if not targets:
                continue
            step = 1 + (3 if rules.wild(c) else 0)
            src = source(kind, j, c)
            for i in targets:
                if kind is SourceKind.HAND:
                    where.remove(c)
                else:
                    where.pop()
                nv = list(values)
                if i is None:
                    nv.append(1)
                else:
                    nv[i] += 1
                nv = [v for v in nv if v < rules.top]
                path.append(Play(src, TargetKind.CENTER, i))
                dfs(nv, path, cost + step)
                path.pop()
                where.append(c)

    if payoff_fits([p.value for p in view.center]):
        return [], 0
    dfs([p.value for p in view.center], [], 0)
    return best[0], nodes[0]


# (options, preset): two and four players with partners (partner side stacks), small and
# large pay-off piles, kings wild or natural with jokers and excluded ranks, unlimited piles.
VARIANTS = [
    ({}, None),
    ({"players": 4, "partnerships": True, "payoff_size": 8}, None),
    ({"jokers": 4, "kings_wild": False, "wild_excluded_ranks": "A,7"}, None),
    ({}, "book"),
    ({"payoff_size": 5, "decks": 1, "jokers": 2}, None),
    ({"players": 3, "center_limit": 4}, None),
]
PER_VARIANT = 60


def positions():
    """PER_VARIANT seeded positions per variant, a sample of the views the heuristic
    (the even seats: partners sit opposite) decides from; the others play at random."""
    for v, (options, preset) in enumerate(VARIANTS):
        game = SpiteAndMalice(options, preset)
        found, seed = 0, 0
        while found < PER_VARIANT and seed < 20:
            st = game.new_initial_state(1000 * v + seed)
            rng = random.Random(seed)
            seed += 1
            while not st.is_terminal and found < PER_VARIANT:
                seat = st.current_seat
                legal = st.legal_actions()
                if seat % 2 == 0:
                    view = st.view(seat)
                    if view.players[seat].payoff_top is not None and rng.random() < 0.3:
                        found += 1
                        yield f"variant {v} seed {seed - 1}", view
                    action = H.choose(view, legal, rng)
                else:
                    action = rng.choice(legal)
                st.apply(action)


def test_fast_search_visits_the_same_nodes_and_finds_the_same_chain():
    checked = searched = found = capped = 0
    for where, view in positions():
        expected, ref_nodes = reference_chain(view, H._Rules(view))
        got, nodes = H._search_chain(view, H._Rules(view))
        assert (got, nodes) == (expected, min(ref_nodes, MAX_NODES + 1)), where
        checked += 1
        searched += ref_nodes > 0
        found += bool(expected) and ref_nodes > 0
        capped += ref_nodes > MAX_NODES
    # The positions exercise the search: searches run, chains found, the node cap reached.
    assert checked == PER_VARIANT * len(VARIANTS)
    assert searched > checked // 2 and found > checked // 10 and capped > 0, (searched, found, capped)


@pytest.mark.parametrize("center, expected", [([pile(4)], "play hand:KH -> center:0"),
                                              ([pile(11), pile(4)], "play hand:KH -> center:1"),
                                              ([pile(12), pile(4)], "play hand:KH -> center:1")])
def test_a_completed_pile_leaves_the_centre(center, expected):
    # Kings are wild and piles run to 12: a wild on 11 completes that pile, and a layout
    # may even start with a complete one; the search drops it as the reference does.
    st = layout(payoffs=["4D 4D 6C", "4D 4D 10C"], hands=["KH QS QS QH QC", "9S 9S 9H 9H 9C"], center=center)
    view = st.view(0)
    got, nodes = H._search_chain(view, H._Rules(view))
    assert (got, nodes) == reference_chain(view, H._Rules(view))
    assert str(got[0]) == expected


def test_a_search_without_a_chain_stops_at_the_node_cap():
    # Four piles at 1 and eight cards that fit them: a pay-off queen is out of reach in six
    # plays, so the search runs into MAX_NODES; the reference goes on counting refused calls.
    st = layout(payoffs=["4D 4D QC", "4D 4D 10C"], hands=["2S 2H 2D 2C 3S", "9S 9S 9H 9H 9C"],
                center=[pile(1, Suit.S), pile(1, Suit.H), pile(1, Suit.D), pile(1, Suit.C)],
                side=[[["3H"], ["3D"], ["3C"], ["4S"]], [[], [], [], []]])
    view = st.view(0)
    expected, ref_nodes = reference_chain(view, H._Rules(view))
    assert expected is None and ref_nodes > MAX_NODES
    assert H._search_chain(view, H._Rules(view)) == (None, MAX_NODES + 1)
