"""The trusted in-process transport plays exactly what gRPC plays, for every game.

Each match runs twice from the same seed: once with one bot process per seat name over
real gRPC, once with the same bots in this process (``--transport inproc``). The records
(every action, the seat that took it, the outcome) must be identical.
"""

from __future__ import annotations

import pytest

from arbiter.tournament.play import play_local

CASES = [
    ("spades", ["random", "greedy", "random", "greedy"], {"deals": 1}, 11),
    ("spite-and-malice", ["random", "heuristic"], {}, 12),
    ("spot", ["random", "heuristic", "random", "heuristic"], {}, 13),
]


@pytest.mark.parametrize("game,bots,options,seed", CASES, ids=[c[0] for c in CASES])
def test_grpc_and_inproc_give_identical_records(game, bots, options, seed):
    over_grpc = play_local(game, bots, seed=seed, options=options, transport="grpc")
    in_process = play_local(game, bots, seed=seed, options=options, transport="inproc")
    assert not over_grpc.incidents and not in_process.incidents
    assert len(over_grpc.actions) > 0
    assert [(a.seat, a.action, a.forced) for a in over_grpc.actions] == [
        (a.seat, a.action, a.forced) for a in in_process.actions
    ]
    assert over_grpc.outcome == in_process.outcome
    assert over_grpc.seat_names == in_process.seat_names
