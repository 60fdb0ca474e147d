"""The SDK's Connection: the arbiter's messages in, the bot's answers out (no transport)."""

from __future__ import annotations

from cardarena.games import get_game
from cardarena.v1 import arena_pb2 as pb
from cardarena.wire import codec
from sdk.random_bot import RandomBot
from sdk.runner import Connection


def _start(match_id: str) -> pb.ArbiterMessage:
    game = get_game("spades", {"deals": 1})
    return pb.ArbiterMessage(match_start=pb.MatchStart(match_id=match_id, game="spades", seat=0, num_seats=4, seat_token="tok",
                                                       options=codec.options_to_wire(game.describe_options())))


def test_a_match_end_it_cannot_read_is_said_and_the_connection_plays_on():
    conn = Connection(RandomBot(), "r")
    conn.handle(_start("m1"))
    conn.handle(pb.ArbiterMessage(match_end=pb.MatchEnd(match_id="m1", seat=0)))  # no outcome: reason 0 is no reason
    assert conn.errors == ["unreadable MatchEnd: outcome.reason: unknown value 0"]
    assert not conn.drivers and not conn.seat_tokens and conn.matches_played == 1
    # the next match is played as usual: its Turn is answered with one of its legal actions
    state = get_game("spades", {"deals": 1}).new_initial_state(1)
    conn.handle(_start("m2"))
    legal = state.legal_actions()
    conn.handle(pb.ArbiterMessage.FromString(codec.turn_wire("spades", "m2", 1, 0, state.view(0), legal, 0, 0, [])))
    act = conn._take().act
    assert (act.match_id, act.request_id, act.seat_token) == ("m2", 1, "tok")
    assert codec.action_from_proto("spades", act.action) in legal


def test_each_match_start_hands_the_bot_options_of_its_own():
    """The options a MatchStart carries are parsed once per text and handed out as a deep
    copy would be (a list option is a fresh list each time, scalars are the values): a bot
    that changes its ``info.options`` changes no other match's."""
    import copy

    from sdk.convert import options_from_wire

    for game, options in (("spite-and-malice", {}), ("spades", {"deals": 1})):
        wire = dict(codec.options_to_wire(options))
        first = options_from_wire(game, wire)
        lists = [k for k, v in first.items() if isinstance(v, list)]
        assert lists or game == "spades", first
        expected = copy.deepcopy(first)
        for k in lists:
            first[k].append("changed")
        first["deals" if game == "spades" else lists[0]] = "changed"
        second = options_from_wire(game, wire)
        assert second == expected and all(second[k] is not first[k] for k in lists)
