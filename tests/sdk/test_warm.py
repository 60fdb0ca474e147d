"""``sdk.convert.warm``: a fork server's parent compiles every game's codecs before it forks,
so a forked bot process's first MatchStart and Turn compile nothing (each child paid ~5 ms
of CPU for it: docs/performance.md, "Isolation")."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from cardarena.games import GAMES
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e  # a fresh interpreter each: the codec's caches are the process's

# In a fresh interpreter (the codec's caches are the process's: another test may have
# filled them here): warm the game, then take a Turn of another deal, later in the game,
# through the SDK's paths as a bot process does, and count what was compiled meanwhile
# (the misses of the codec's and the options' caches, the lazy view classes made).
PROBE = textwrap.dedent("""
    import json, sys
    from cardarena.games import get_game
    from cardarena.games import options as options_module
    from cardarena.games.options import options_to_dict
    from cardarena.wire import codec
    from cardarena.v1 import arena_pb2 as pb
    from sdk import convert

    warm = sys.argv[1] == "1"

    def compiled():
        caches = [f for f in vars(codec).values() if hasattr(f, "cache_info")] + [options_module.type_hints]
        return sum(f.cache_info().misses for f in caches) + len(codec._LAZY_BY_GAME)

    def first_turn(game):
        engine = get_game(game, {"deals": 1} if game == "spades" else None)
        state = engine.new_initial_state(12345)
        for _ in range(3):
            state.apply(state.legal_actions()[-1])
        seat = state.current_seat
        view, legal = state.view(seat), state.legal_actions()
        convert.match_info_from_proto(pb.MatchStart(match_id="m", game=game, seat=seat, num_seats=engine.num_seats,
                                                    options=codec.options_to_wire(options_to_dict(engine.options))))
        for delta in (None, codec.ViewDeltaWriter(game).delta(view)):
            data = codec.turn_wire(game, "m", 7, seat, view, legal, 500, 500, (), delta)
            turn = pb.ArbiterMessage.FromString(data).turn
            got = (convert.turn_from_proto(game, turn, data) if delta is None
                   else convert.turn_delta_from_proto(game, turn, convert.ViewDeltaReader(game)))
            read, actions = got
            for name in read.__dataclass_fields__:
                getattr(read, name)
            convert.act_to_proto(game, "m", 7, actions[-1])

    counts = {}
    for game in sys.argv[2:]:
        if warm:
            convert.warm(game)
        before = compiled()
        first_turn(game)
        counts[game] = compiled() - before
    print(json.dumps(counts))
""")


def compiled_by_a_first_turn(games: list[str], warm: bool) -> dict[str, int]:
    out = subprocess.run([sys.executable, "-c", PROBE, "1" if warm else "0", *games], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_after_warm_a_first_turn_compiles_nothing():
    assert compiled_by_a_first_turn(list(GAMES), warm=True) == {game: 0 for game in GAMES}


def test_without_warm_a_first_turn_compiles_so_the_check_can_fail():
    assert compiled_by_a_first_turn(["spades"], warm=False)["spades"] > 0


# In a fresh interpreter: warm Spades (or not), then take a give turn of a deal warm never
# saw (seat 0 bids blind nil: the exchange) through the SDK's paths, and count the legal
# actions decoded anew (not found by their bytes among those seen before).
GIVE_PROBE = textwrap.dedent("""
    import sys
    from cardarena.games import get_game
    from cardarena.games.spades import Bid, Give, Look
    from cardarena.wire import codec
    from cardarena.v1 import arena_pb2 as pb
    from sdk import convert

    if sys.argv[1] == "1":
        convert.warm("spades")
    state = get_game("spades", {"deals": 1}).new_initial_state(4242)
    blind = True
    while True:
        legal = state.legal_actions()
        if any(isinstance(a, Give) for a in legal):
            break
        if blind:
            state.apply(Bid(0, blind=True))
            blind = False
        else:
            state.apply(Look() if Look() in legal else max((a for a in legal if isinstance(a, Bid)), key=lambda b: b.tricks))
    seat = state.current_seat
    data = codec.turn_wire("spades", "m", 7, seat, state.view(seat), legal, 500, 500, (), None)
    decoded = []
    decode = codec._action_decoded
    codec._action_decoded = lambda game, msg: decoded.append(msg) or decode(game, msg)
    view, actions = convert.turn_from_proto("spades", pb.ArbiterMessage.FromString(data).turn, data)
    assert actions == legal, (actions, legal)
    print(len(legal), len(decoded))
""")


def gives_decoded(warm: bool) -> tuple[int, int]:
    out = subprocess.run([sys.executable, "-c", GIVE_PROBE, "1" if warm else "0"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    offered, decoded = map(int, out.stdout.split())
    return offered, decoded


def test_after_warm_a_give_turn_decodes_no_action():
    """A Spades give turn offers 78 gives of a hand: after ``warm`` every one is found by
    its bytes (each decoded anew cost ~5 µs, ~0.4 ms of the decision's critical path)."""
    assert gives_decoded(warm=True) == (78, 0)
    assert gives_decoded(warm=False) == (78, 78)  # the probe sees decodes where there are
