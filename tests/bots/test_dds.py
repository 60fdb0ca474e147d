"""The determinized double-dummy Spades evaluator (``bots/spades_dds.py``) and the ``dds``
bot that plays by it."""

from __future__ import annotations

import importlib.util

import pytest

from arbiter.tournament.play import play_local
from bots.dds import DdsBot
from cardarena.games import get_game

# Skipped without endplay, looked up without importing it: its package pulls in matplotlib,
# a second of collection in every worker for the few tests that call it.
pytestmark = pytest.mark.skipif(importlib.util.find_spec("endplay") is None, reason="needs endplay")

ALL_SPADES = "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"
OTHERS = ["AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H", "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D",
          "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C"]


def test_dds_scores_tricks_by_the_rules():
    """Seat 0 holds every spade: it takes all 13 tricks whatever it plays, so every card is
    worth the same. The heuristic bids 1 for each other seat, so (side A minus side B, whose
    contract of 2 is set: -20): bid 12 makes 13 exactly, +130; bid 13 is set, -140; bid 1
    makes 2 with 11 bags, 31 - 100 for ten bags; nil fails."""
    from bots import spades_dds

    game = get_game("spades", {"blind_nil": False, "deals": 1})
    state = game.state_from_deal([ALL_SPADES] + OTHERS, dealer=3, seed=1)
    bids = [a for a in state.legal_actions() if str(a) in ("bid 12", "bid 13", "bid nil", "bid 1")]
    by = dict(zip(map(str, bids), spades_dds.action_values(game, state, 0, bids, seed=1)))
    assert (by["bid 12"], by["bid 13"], by["bid 1"]) == (130 + 20, -140 + 20, 31 - 100 + 20)
    assert by["bid nil"] < by["bid 13"]
    while state.view(0).phase.name != "PLAY":
        state.apply(next(a for a in state.legal_actions() if str(a) in ("bid 13", "look") or state.current_seat != 0))
    while state.current_seat != 0:
        state.apply(state.legal_actions()[0])
    cards = state.legal_actions()
    values = spades_dds.action_values(game, state, 0, cards, seed=1)
    assert len(set(values)) == 1


class FewWorlds(DdsBot):
    """The ``dds`` bot on 2 sampled deals a decision (its default, 24, is a strength
    setting: what this test checks, a whole deal played legally by the bot, needs none;
    two still sum values over worlds. 4 took 3.36 CPU-s, 2 take 1.35)."""

    def __init__(self) -> None:
        super().__init__(worlds=2)


@pytest.mark.parametrize("seed", [1])
def test_the_dds_bot_plays_a_deal(seed):
    dds = f"{__file__}:FewWorlds"
    record = play_local("spades", [dds, "heuristic", dds, "heuristic"], seed=seed, options={"deals": 1},
                        transport="inproc")
    assert record.outcome is not None and not record.incidents
    assert sum(a.action.startswith("play") for a in record.actions) == 52


@pytest.mark.parametrize("nils", ["double dummy", "at the table"])
def test_a_live_nil_is_valued_by_the_nil_search(nils):
    """Seat 1 holds the lowest cards of every side suit and no spade, and never leads: a nil
    that cannot fail (the double-dummy nil search sees it at once), worth its 100 points
    against a bid of 1 that its partner's tricks make a bag or more of; played out at the
    table (the analysis's ``AT_TABLE``: single dummy, the opponents defending) it survives too."""
    from bots import spades_dds
    from bots.spades_nil import NilSolver

    low = "2H 3H 4H 5H 2D 3D 4D 5D 2C 3C 4C 5C 6C"
    rest = [c for c in ALL_SPADES.split() + " ".join(OTHERS).split() if c not in low.split()]
    hands = [" ".join(rest[0:13]), low, " ".join(rest[13:26]), " ".join(rest[26:39])]
    game = get_game("spades", {"blind_nil": False, "deals": 1})
    state = game.state_from_deal(hands, dealer=3, seed=1)
    state.apply(next(a for a in state.legal_actions() if str(a) == "bid 3"))
    assert state.current_seat == 1
    bids = [a for a in state.legal_actions() if str(a) in ("bid nil", "bid 1")]
    by = dict(zip(map(str, bids), spades_dds.action_values(game, state, 1, bids, seed=1, nils=nils)))
    assert by["bid nil"] - by["bid 1"] >= 90, by
    assert NilSolver(1).taken([state.view(s).hand for s in range(4)], 0, [], False) is False
