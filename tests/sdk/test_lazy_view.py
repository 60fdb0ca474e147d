"""The SDK's view is lazy (codec.lazy_view_from_proto): a field is decoded when the bot
first reads it, and the view is otherwise the engine's own value: equal (both ways),
same repr and hash, an instance of the view class, copied and pickled as that class."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import random

import pytest

from cardarena.games import get_game
from cardarena.v1 import arena_pb2 as pb
from cardarena.wire import codec
from sdk import convert

GAMES = ["spades", "spite-and-malice", "spot"]


@pytest.mark.parametrize("name", GAMES)
def test_a_lazy_view_is_the_view(name):
    game = get_game(name)
    state = game.new_initial_state(4)
    rng = random.Random(4)
    for _ in range(80):
        if state.is_terminal:
            break
        seat = state.current_seat
        view = state.view(seat)
        turn = pb.ArbiterMessage.FromString(codec.turn_wire(name, "m", 1, seat, view, state.legal_actions(), 0, 0)).turn
        lazy, legal = convert.turn_from_proto(name, turn)
        assert legal == state.legal_actions()
        assert isinstance(lazy, type(view)) and type(lazy).__name__ == type(view).__name__
        assert lazy == view and view == lazy and not (lazy != view)
        assert hash(lazy) == hash(view) and repr(lazy) == repr(view)
        again, _ = convert.turn_from_proto(name, turn)
        assert {lazy: 1}[again] == 1
        for copied in (copy.copy(lazy), copy.deepcopy(lazy), pickle.loads(pickle.dumps(lazy))):
            assert type(copied) is type(view) and copied == view
        assert dataclasses.replace(lazy, seat=seat) == view and dataclasses.asdict(lazy) == dataclasses.asdict(view)
        state.apply(rng.choice(state.legal_actions()))


def test_only_what_is_read_is_decoded_and_a_bad_field_fails_where_it_is_read():
    state = get_game("spades").new_initial_state(1)
    while not state.view(state.current_seat).hand:  # (a seat that may bid blind nil has not looked yet)
        state.apply(state.legal_actions()[0])
    seat = state.current_seat
    msg = pb.View.FromString(codec.view_wire("spades", state.view(seat)))
    lazy = codec.lazy_view_from_proto("spades", msg)
    assert "hand" not in vars(lazy) and "tricks" not in vars(lazy)
    assert lazy.hand == state.view(seat).hand
    assert "hand" in vars(lazy) and "tricks" not in vars(lazy)
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        lazy.nonsense  # noqa: B018
    msg.spades.hand[0] = "ZZ"
    bad = codec.lazy_view_from_proto("spades", msg)
    assert bad.deal == state.view(seat).deal  # the rest still reads
    with pytest.raises(codec.WireError, match=r"view\.hand\[0\]: unknown card 'ZZ'"):
        bad.hand  # noqa: B018
    with pytest.raises(codec.WireError, match="view is for 'spades', expected 'spot'"):
        codec.lazy_view_from_proto("spot", msg)


@pytest.mark.parametrize(("name", "options", "field"), [
    ("spite-and-malice", {"payoff_size": "5"}, "reveal"),  # the whole deal, once the game is over
    ("spot", {}, "layoffs"),
])
def test_a_field_with_a_default_is_decoded_not_read_from_the_class(name, options, field):
    """A view field with a default (a class attribute of the view class) was found on the
    class before the lazy view's __getattr__ was asked: the lazy final view of Spite and
    Malice said ``reveal`` None while the view sent held every hidden card."""
    game = get_game(name, options)
    state, rng = game.new_initial_state(2), random.Random(2)
    while not state.is_terminal and not getattr(state.view(0), field):
        state.apply(rng.choice(state.legal_actions()))
    view = state.spectator_view() if field == "reveal" else state.view(0)
    default = getattr(type(view), field)
    assert getattr(view, field) != default  # the view sent holds more than the default
    lazy = codec.lazy_view_from_proto(name, pb.View.FromString(codec.view_wire(name, view)))
    assert getattr(lazy, field) == getattr(view, field) and lazy == view
    assert getattr(type(lazy), field) == default  # the class still shows its default
