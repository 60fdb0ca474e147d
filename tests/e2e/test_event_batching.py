"""Events travel with the next message to the seat (arena.proto: Turn.events, MatchEnd.events).

Over a real `arbiter serve` process: every event a seat may see reaches it exactly once, in
order, no later than its next Turn and never one it may not see (exactly ``events_for``),
and no Update is sent. Then the same through the SDK: ``on_events`` has been called with
everything that happened before each ``choose``.
"""

from __future__ import annotations

import threading

import grpc
import pytest

import sdk.runner
from cardarena.wire import codec as convert
from cardarena.games import events_for, get_game
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from tests.e2e.rawbot import RawBot

CASES = [("spades", {"deals": "1"}, 4), ("spot", {"hands": "1", "players": "3"}, 3)]


def _key(e) -> tuple:
    return (e.kind, e.seat, e.text, tuple(str(c) for c in e.cards))


def _replay_events(game_name: str, options: dict, seed: int, actions) -> tuple[list[list], list[int]]:
    """(events_so_far, movers): events_so_far[i] is every event of the match once ``i``
    actions are applied, as the match runner hands them out (the deal's log, then what
    each action returns); movers[i] the seat that took action ``i``."""
    game = get_game(game_name, options)
    state = game.new_initial_state(seed)
    so_far = list(state.log)
    out, movers = [list(so_far)], []
    for text in actions:
        movers.append(state.current_seat)
        so_far.extend(state.apply(game.parse_action(text)))
        out.append(list(so_far))
    return out, movers


def _run(serve, game: str, names: list[str], seed: int, options: dict) -> pb.MatchSummary:
    with grpc.insecure_channel(serve.address) as ch:
        return pb_grpc.MatchesStub(ch).RunMatch(
            pb.RunMatchRequest(game=game, seats=names, seed=seed, options=options, admin_token=serve.admin_token), timeout=120
        )


@pytest.mark.parametrize("game_name,options,n", CASES, ids=[c[0] for c in CASES])
def test_each_seat_gets_exactly_its_events_in_its_turns_and_match_end(serve, game_name, options, n):
    names = [f"ev{i}" for i in range(n)]
    bots = [RawBot(serve, name, seed=i).start() for i, name in enumerate(names)]
    serve.wait_sessions(names)
    summary = _run(serve, game_name, names, 3, options)
    assert not summary.incidents
    so_far, movers = _replay_events(game_name, options, 3, summary.actions)
    turns_seen = 0
    for seat, bot in enumerate(bots):
        bot.wait_for("match_end")
        msgs = [m for m in bot.received if m.WhichOneof("msg") in ("turn", "match_end", "update")]
        assert all(m.WhichOneof("msg") != "update" for m in msgs)  # no Update any more
        # request ids are the session's own (arena.proto): the k-th Turn of this seat is
        # the k-th decision the record gives it
        decisions = iter([i for i, mover in enumerate(movers) if mover == seat])
        got: list[tuple] = []
        for m in msgs:
            kind = m.WhichOneof("msg")
            got.extend(_key(convert.event_from_proto(e)) for e in getattr(m, kind).events)
            # everything up to this decision (or the end), filtered for this seat, in order
            upto = next(decisions) if kind == "turn" else len(summary.actions)
            assert got == [_key(e) for e in events_for(so_far[upto], seat)], (game_name, seat, kind, upto)
            turns_seen += kind == "turn"
        assert got, "a seat saw no events at all"
    assert turns_seen == len(summary.actions)
    for b in bots:
        b.close()


# The SDK side: a bot that, at every decision, notes how many events on_events gave it.
_SEEN: dict[tuple[str, int], dict] = {}
_LOCK = threading.Lock()
_ENDED = threading.Condition(_LOCK)  # notified as each seat's on_match_end has run


class RecordingBot(sdk.Bot):
    """Random play; records in _SEEN what on_events had delivered at each choose."""

    name = "recorder"

    def on_match_start(self, info) -> None:
        with _LOCK:
            _SEEN[(info.match_id, info.seat)] = {"events": [], "at_choose": [], "at_end": None}

    def on_events(self, events) -> None:
        _SEEN[(self.info.match_id, self.info.seat)]["events"].extend(_key(e) for e in events)

    def choose(self, view, legal_actions):
        rec = _SEEN[(self.info.match_id, self.info.seat)]
        rec["at_choose"].append(list(rec["events"]))
        return legal_actions[self.rng.randrange(len(legal_actions))]

    def on_match_end(self, result) -> None:
        with _ENDED:
            rec = _SEEN[(self.info.match_id, self.info.seat)]
            rec["at_end"] = list(rec["events"])
            _ENDED.notify_all()


def test_sdk_calls_on_events_with_everything_before_choose(serve):
    names = [f"rec{i}" for i in range(4)]
    stop = threading.Event()
    threads = [threading.Thread(target=sdk.runner.run, args=(RecordingBot(),),
                                kwargs={"address": serve.address, "name": name, "stop": stop,
                                        "token": serve.bot_token(name)}, daemon=True)
               for name in names]
    for t in threads:
        t.start()
    try:
        serve.wait_sessions(names)
        options = {"deals": "1"}
        summary = _run(serve, "spades", names, 5, options)
        assert not summary.incidents
        so_far, movers = _replay_events("spades", options, 5, summary.actions)
        # RunMatch returns once the MatchEnds are sent; the bots may still be reading them
        with _ENDED:
            _ENDED.wait_for(lambda: all(_SEEN[(summary.match_id, s)]["at_end"] is not None for s in range(4)), 10)
        for seat in range(4):
            rec = _SEEN[(summary.match_id, seat)]
            decisions = [i for i, mover in enumerate(movers) if mover == seat]
            assert len(rec["at_choose"]) == len(decisions) > 0
            for i, seen in zip(decisions, rec["at_choose"]):
                assert seen == [_key(e) for e in events_for(so_far[i], seat)]
            assert rec["at_end"] == [_key(e) for e in events_for(so_far[-1], seat)]
    finally:
        stop.set()
        for t in threads:
            t.join(10)
