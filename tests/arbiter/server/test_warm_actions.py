"""``codec.warm_actions``: an arbiter that hosts a game (a ``RemoteSeat`` of it made) has
every action its engine lists encoded and readable by its bytes before its first match, so
a first give turn encodes none of its gives and a give answered is not decoded, each of
which cost the first matches of a process ~10 and ~20 µs on the decision's critical path
(docs/performance.md, attempt 111)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e  # a fresh interpreter each: the codec's caches are the process's

# In a fresh interpreter: host Spades (a RemoteSeat made, as a venue does before a match)
# or not, then make a give turn of a seeded deal and answer it, counting the actions
# encoded for the Turn and decoded from the answer.
PROBE = textwrap.dedent("""
    import sys
    from cardarena.games import get_game
    from cardarena.games.spades import Bid, Give, Look
    from cardarena.games.spades.actions import _GIVES
    from cardarena.wire import codec
    from cardarena.v1 import arena_pb2 as pb

    if sys.argv[1] == "1":
        from arbiter.server import botstream
        hub = botstream.Hub(open_join=True)
        session = hub.add(pb.Hello(bot_name="b", protocol_version=codec.PROTOCOL_VERSION, games=["spades"]))
        botstream.RemoteSeat(session, "spades")
    state = get_game("spades", {"deals": 1, "blind_nil_min_deficit": 0}).new_initial_state(5)
    blind = True
    while True:
        legal = state.legal_actions()
        if any(isinstance(a, Give) for a in legal):
            break
        if blind and Bid(0, blind=True) in legal:
            state.apply(Bid(0, blind=True))
            blind = False
        else:
            state.apply(Look() if Look() in legal else max((a for a in legal if isinstance(a, Bid)), key=lambda b: b.tricks))
    encoded, decoded = [], []
    to_proto, decode = codec.action_to_proto, codec._action_decoded
    codec.action_to_proto = lambda game, a: encoded.append(a) or to_proto(game, a)
    codec._action_decoded = lambda game, msg: decoded.append(msg) or decode(game, msg)
    wire = codec.legal_actions_wire("spades", legal)
    answer = pb.Turn.FromString(wire).legal_actions[-1]
    got = codec.action_from_proto("spades", answer)
    assert got is legal[-1] and got is _GIVES[got.cards]  # the engine's own object
    print(len(legal), len(encoded), len(decoded))
""")


def counts(hosted: bool) -> tuple[int, ...]:
    out = subprocess.run([sys.executable, "-c", PROBE, "1" if hosted else "0"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return tuple(map(int, out.stdout.split()))


def test_a_hosted_games_first_give_turn_encodes_and_decodes_no_action():
    offered, encoded, decoded = counts(hosted=True)
    assert offered >= 78 and (encoded, decoded) == (0, 0)


def test_without_hosting_the_probe_sees_the_gives_encoded_and_decoded():
    offered, encoded, decoded = counts(hosted=False)
    assert encoded == offered >= 78 and decoded == 1
