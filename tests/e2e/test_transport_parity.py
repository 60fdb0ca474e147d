"""Every transport plays exactly what gRPC plays, for every game.

Each match runs three times from the same seed: with one bot process per seat name over
real gRPC, with the same processes on the arbiter's local channel (``--transport local``),
and with the same bots in this process (``--transport inproc``). The records (every
action, the seat that took it, the outcome) must be identical. Over gRPC and the local
channel the SDK's bots take view deltas (arena.proto ViewDelta; granted on the local
channel for this test); each is played again with the arbiter granting none (whole views
in every Turn), and records the same.
(Misbehaving bots: tests/e2e/test_driver_parity.py; a seat that drops a delta:
test_hostile_protocol.py.)
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from arbiter.server.botstream import Hub
from arbiter.tournament.play import play_local
from cardarena.wire import codec

CASES = [
    ("spades", ["random", "greedy", "random", "greedy"], {"deals": 1}, 11),
    ("spite-and-malice", ["random", "heuristic"], {}, 12),
    ("spot", ["random", "heuristic", "random", "heuristic"], {"hands": 2}, 13),
]


@pytest.mark.parametrize("game,bots,options,seed", CASES, ids=[c[0] for c in CASES])
def test_every_transport_gives_identical_records(game, bots, options, seed, monkeypatch):
    monkeypatch.setattr(Hub, "local_view_deltas", codec.VIEW_DELTAS)  # (whole views by default there)
    deltas = []
    delta = codec.ViewDeltaWriter.delta
    monkeypatch.setattr(codec.ViewDeltaWriter, "delta", lambda self, view: deltas.append(1) or delta(self, view))

    def play(*transports: str) -> list:
        """The matches at once (each its own loop, venue and bot processes; they share
        nothing but this process): their bots start and wait together, not in turn."""
        with ThreadPoolExecutor(len(transports)) as pool:
            return list(pool.map(lambda t: play_local(game, bots, seed=seed, options=options, transport=t), transports))

    over_grpc, local_channel = play("grpc", "local")
    assert len(deltas) >= len(over_grpc.actions) + len(local_channel.actions)  # every Turn a delta
    monkeypatch.setattr(Hub, "view_deltas", 0)
    monkeypatch.setattr(Hub, "local_view_deltas", 0)
    sent = len(deltas)
    grpc_whole, local_whole, in_process = play("grpc", "local", "inproc")
    assert len(deltas) == sent  # whole views only
    assert not over_grpc.incidents and not in_process.incidents and not local_channel.incidents
    for record in (local_channel, in_process, grpc_whole, local_whole):
        assert [(a.seat, a.action, a.forced) for a in record.actions] == [
            (a.seat, a.action, a.forced) for a in over_grpc.actions]
        assert record.outcome == over_grpc.outcome
    assert len(over_grpc.actions) > 0
    assert [(a.seat, a.action, a.forced) for a in over_grpc.actions] == [
        (a.seat, a.action, a.forced) for a in in_process.actions
    ]
    assert over_grpc.outcome == in_process.outcome
    assert over_grpc.seat_names == in_process.seat_names
