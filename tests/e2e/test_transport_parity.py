"""Every transport plays exactly what gRPC plays, for every game.

Each match runs three times from the same seed: with one bot process per seat name over
real gRPC, with the same processes on the arbiter's local channel (``--transport local``),
and with the same bots in this process (``--transport inproc``). The records (every
action, the seat that took it, the outcome) must be identical. (Misbehaving bots:
tests/e2e/test_driver_parity.py.)
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
def test_every_transport_gives_identical_records(game, bots, options, seed):
    over_grpc = play_local(game, bots, seed=seed, options=options, transport="grpc")
    local_channel = play_local(game, bots, seed=seed, options=options, transport="local")
    in_process = play_local(game, bots, seed=seed, options=options, transport="inproc")
    assert not over_grpc.incidents and not in_process.incidents and not local_channel.incidents
    for record in (local_channel, in_process):
        assert [(a.seat, a.action, a.forced) for a in record.actions] == [
            (a.seat, a.action, a.forced) for a in over_grpc.actions]
        assert record.outcome == over_grpc.outcome
    assert len(over_grpc.actions) > 0
    assert [(a.seat, a.action, a.forced) for a in over_grpc.actions] == [
        (a.seat, a.action, a.forced) for a in in_process.actions
    ]
    assert over_grpc.outcome == in_process.outcome
    assert over_grpc.seat_names == in_process.seat_names
