"""Spades hindsight: the double-dummy count of every legal card, checked against a
brute-force search of the engine itself where few cards are left (spades broken, so the
only rule bridge lacks cannot matter)."""

from __future__ import annotations

import importlib.util

import pytest

from arbiter.analysis.hindsight import HindsightUnavailable, double_dummy
from arbiter.analysis.reask import decisions
from arbiter.tournament.play import play_local
from cardarena.games import get_game

# Skipped without endplay, looked up without importing it: its package pulls in matplotlib,
# a second of collection in every worker for the few tests that call it.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("endplay") is None, reason="needs endplay")


def _won(state, side: int) -> int:
    """Tricks of the deal ``side`` has won so far (a one-deal match: the game's last view keeps them)."""
    return sum(t.winner % 2 == side for t in state.view(0).tricks)


def _best(state, side: int) -> int:
    """Tricks ``side`` wins in the end, everyone playing perfectly from here (``side``
    maximising, the other side minimising), by searching the engine's own states."""
    if state.is_terminal:
        return _won(state, side)
    results = []
    for action in state.legal_actions():
        st = state.clone()
        st.apply(action)
        results.append(_best(st, side))
    return max(results) if state.current_seat % 2 == side else min(results)


def test_the_count_matches_a_brute_force_search_near_the_end():
    record = play_local("spades", ["random", "heuristic", "random", "heuristic"], seed=4,
                        options={"deals": 1}, transport="inproc")
    game = get_game(record.game, record.options)
    points = {p.number: p for p in decisions(record, 1)}
    checked = 0
    for count in double_dummy(record, 1):
        point = points[count.number]
        assert set(count.tricks) == {str(a.card) for a in point.legal}
        assert count.played in count.tricks and count.lost >= 0
        if len(point.view.hand) > 3 or not point.view.spades_broken:
            continue
        state = game.new_initial_state(record.seed)
        for ra in record.actions[:count.step]:
            state.apply(game.parse_action(ra.action))
        now = _won(state, 1)
        for action in state.legal_actions():
            st = state.clone()
            st.apply(action)
            assert count.tricks[str(action.card)] == _best(st, 1) - now, (count, str(action))
        checked += 1
    assert checked >= 2


def test_hindsight_is_for_spades():
    record = play_local("spot", ["random"] * 3, seed=1, options={"players": 3, "hands": 1}, transport="inproc")
    with pytest.raises(HindsightUnavailable, match="Spades only"):
        list(double_dummy(record, 0))
