"""Each game's stake (``Platform.value_stake``, method 15 of the analysis): how far apart two
actions' values on one sampled state can lie at a seat's decision, read from the seat's
view alone; the analysis's "fine" bounds a difference it has not seen by it
(docs/analysis.md, "Method 15: what the deal still puts at stake")."""

from __future__ import annotations

import random

from arbiter.analysis.reask import decisions
from arbiter.analysis.values import STAKE, Valuer, stake
from arbiter.hosting.forward import sample_states
from arbiter.tools.analysis_bench import separation_matches
from cardarena.games import get_game
from cardarena.games.spades import Look, Spades

HANDS = ["9H 7H 5H 2H AC KC QC JC 10C 9C 8C 7C 6C",
         "8H 3H AH KH 5C 4C 3C 2C AD KD QD JD 10D",
         "4H QH JH 10H 9D 8D 7D 6D 5D 4D 3D 2D 2S",
         "6H AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S"]


def bid(bids: dict[int, str]):
    """Seat 1 bids first (dealer 0): each seat's bid from ``bids`` (3 by default)."""
    game = Spades({"deals": 1})
    st = game.state_from_deal(HANDS, dealer=0)
    for _ in range(4):
        if Look() in st.legal_actions():
            st.apply(Look())
        st.apply(game.parse_action(f"bid {bids.get(st.current_seat, '3')}"))
    return game, st


def test_spades_stake_is_the_range_of_the_deal_still_possible():
    """Everyone bid 3 (6 a side), no trick played: at best the seat's side takes all 13 (a
    made 6 and 7 bags, 67) against a set 6 (-60): 127; at worst the reverse: 254. With seat
    2's nil alive beside seat 0's 3 (the other side bid 6): at best the nil made, seat 0
    taking 12 (30 and 9 bags, 100: 139; all 13 bring the tenth bag and its 100-point
    penalty) against a set 6 (-60): 199; at worst seat 0 none (a set 3, -30), the nil failed
    on one trick (-100, a bag: -129), the other side the other 12 (66): -195; 394. Without
    a rule (Spot) the stake is 0: the spread seen."""
    game, st = bid({})
    assert stake(game, st.view(st.current_seat)) == 254.0
    game, st = bid({2: "nil"})
    assert stake(game, st.view(1)) == stake(game, st.view(st.current_seat)) == 394.0
    assert STAKE["spot"] is None and STAKE["spades"] is not None
    spot = get_game("spot", {"players": 3, "hands": 1})
    s = spot.new_initial_state(1)
    assert stake(spot, s.view(s.current_seat)) == 0.0


def test_spades_stake_bounds_every_value_on_worlds_of_one_view():
    """At decisions of a bench separation match (a bid, the blind nil's exchange, play with
    the nil alive, the last tricks), worlds drawn from the seat's view give the same stake as the view (read from it
    alone) and the reference evaluator's values of every candidate on them lie within it."""
    record, bots, rnd = next(separation_matches("spades", 1, 8))
    game = get_game(record.game, record.options)
    valuer = Valuer(record.game, record.options, 0, f"seed-{record.seed}", record.seat_names, seed=1)
    seen = set()
    for point in decisions(record, 0):
        if len(point.legal) < 2 or point.number not in (1, 2, 11, 13):
            continue
        at = stake(game, point.view)
        cands = valuer.candidates(point.view, point.legal, None, random.Random(1))
        values = []
        for k, w in enumerate(sample_states(game, point.view, 6, random.Random(point.number))):
            assert stake(game, w.view(0)) == at
            values += valuer.reference.action_values(w, 0, cands, k)
        assert max(values) - min(values) <= at, (point.number, at, values)
        seen.add((point.number, point.view.phase.name, any(s.bid == 0 and s.tricks_won == 0 for s in point.view.seats)))
    assert seen == {(1, "BIDDING", False), (2, "EXCHANGE", True), (11, "PLAY", True), (13, "PLAY", False)}, seen
