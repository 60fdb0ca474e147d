"""The events of Spite and Malice's most frequent step (a discard ends the turn, the next
seat draws one card) are interned by the engine (issue #45, item 1): they must still say
exactly what they said, to exactly whom."""

from __future__ import annotations

from cardarena.games import Card, Event, events_for, get_game


def _discard_turn():
    game = get_game("spite-and-malice", {})
    state = game.state_from_layout(payoffs=["KS 9D", "KD 9C"], hands=["2H 3H 4H 5H 6H", "2C 3C 4C 5C"],
                                   stock="7S 8S 9S", current=0)
    wanted = game.parse_action("play hand:6H -> side:0")
    return state, state.apply(next(a for a in state.legal_actions() if a == wanted))  # the engine's own object


def test_a_discard_and_the_next_draw_say_what_they_said_to_whom():
    state, events = _discard_turn()
    assert events == [
        Event("discard", 0, "seat 0: play hand:6H -> side:0", (Card.parse("6H"),)),
        Event("turn", 1, "seat 1 to play (turn 2)"),
        Event("draw", 1, "seat 1 draws 1 card; stock 2"),
        Event("draw", 1, "seat 1 draws 9S", (Card.parse("9S"),), frozenset({1})),
    ]
    assert state.log[-4:] == events
    # The drawn card is the drawer's alone: the other seat and a spectator see the count.
    assert [e.text for e in events_for(events, 0)] == [e.text for e in events_for(events, None)] == [
        "seat 0: play hand:6H -> side:0", "seat 1 to play (turn 2)", "seat 1 draws 1 card; stock 2"]
    assert Card.parse("9S") in [c for e in events_for(events, 1) for c in e.cards]


def test_the_same_step_in_another_game_shares_its_event_objects():
    """Interned: the events are the same objects, whose wire bytes the codec keeps."""
    _, first = _discard_turn()
    _, again = _discard_turn()
    assert all(a is b for a, b in zip(first, again, strict=True))
