"""The wire codec: every view, action, event and outcome survives protobuf unchanged."""

from __future__ import annotations

import random

import pytest

from arbiter import convert
from arbiter.games import Card, EndReason, Event, Outcome, get_game
from cardarena.v1 import arena_pb2 as pb

GAMES = ["spades", "spite-and-malice", "spot"]


@pytest.mark.parametrize("name", GAMES)
def test_views_and_actions_round_trip_over_random_games(name):
    game = get_game(name)
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        steps = 0
        while not state.is_terminal and steps < 400:
            for seat in range(game.num_seats):
                view = state.view(seat)
                wire = convert.view_to_proto(name, view).SerializeToString()
                assert convert.view_from_proto(name, pb.View.FromString(wire)) == view
            for action in state.legal_actions():
                wire = convert.action_to_proto(name, action).SerializeToString()
                back = pb.Action.FromString(wire)
                assert convert.action_from_proto(name, back) == action
                assert back.notation == str(action)
            state.apply(rng.choice(state.legal_actions()))
            steps += 1
        spectator = state.spectator_view()
        assert convert.view_from_proto(name, convert.view_to_proto(name, spectator)) == spectator


def test_events_and_outcomes_round_trip():
    e = Event("play", 2, "seat 2 plays QS", (Card.parse("QS"),), frozenset({2}))
    back = convert.event_from_proto(pb.Event.FromString(convert.event_to_proto(e).SerializeToString()))
    assert (back.kind, back.seat, back.text, back.cards) == (e.kind, e.seat, e.text, e.cards)
    assert back.visible_to is None  # visibility is the arbiter's business, never sent
    assert convert.event_from_proto(convert.event_to_proto(Event("deal", None, "dealt"))).seat is None
    for reason in EndReason:
        o = Outcome((1.5, -2.0), (1, 2), reason, "why")
        assert convert.outcome_from_proto(convert.outcome_to_proto(o)) == o


def test_malformed_actions_raise_wire_errors_that_say_what_is_wrong():
    with pytest.raises(convert.WireError, match="empty"):
        convert.action_from_proto("spades", pb.Action())
    other = pb.Action()
    other.spot.SetInParent()
    with pytest.raises(convert.WireError, match="'spot'.*spades"):
        convert.action_from_proto("spades", other)
    bad = pb.Action()
    bad.spades.play.card = "11X"
    with pytest.raises(convert.WireError, match=r"action.play.card: unknown card '11X'"):
        convert.action_from_proto("spades", bad)
    with pytest.raises(convert.WireError, match="view is for"):
        convert.view_from_proto("spades", pb.View())


def test_options_to_wire_text():
    assert convert.options_to_wire({"a": None, "b": True, "c": [1, 7], "d": 3}) == {"a": "off", "b": "true", "c": "1,7", "d": "3"}
    # and the game's own parser reads them back
    game = get_game("spades", {"lose_at": -200})
    wire = convert.options_to_wire(game.describe_options())
    assert get_game("spades", wire).options == game.options
