"""The wire codec: every view, action, event and outcome survives protobuf unchanged."""

from __future__ import annotations

import dataclasses
import random

import pytest

from cardarena.wire import codec as convert
from cardarena.games import Card, EndReason, Event, Outcome, get_game
from cardarena.v1 import arena_pb2 as pb

GAMES = ["spades", "spite-and-malice", "spot"]


@pytest.mark.parametrize("name", GAMES)
def test_views_and_actions_round_trip_over_random_games(name):
    """200 steps a seed (Spades and Spot end at neither, Spite and Malice ends by 60) run
    the same lines of cardarena/wire as 400 did (a line trace of the body, 3 x 200 and 3 x
    400 steps: 641 lines for Spades, 658 for Spot, 626 for Spite and Malice)."""
    game = get_game(name)
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        steps = 0
        while not state.is_terminal and steps < 200:
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


def test_a_spite_and_malice_source_that_contradicts_its_kind_is_malformed_not_illegal():
    """A typed source (arena.proto SpiteAndMaliceSource) with no card for HAND decoded to
    'hand:None' (a SIDE target with no index to 'side:new'), and a PAYOFF carrying a card
    (or a HAND an index) to an action whose
    notation reads exactly like a legal one yet equals none: the bot was told 'play payoff
    -> center:new is not a legal action now' beside a Turn offering it. Each is a
    WireError (Error malformed) naming the field and what is wrong."""
    def play(kind: int, card: str | None = None, index: int = 0) -> pb.Action:
        a = pb.Action()
        a.spite_and_malice.play.source.kind = kind
        a.spite_and_malice.play.source.index = index
        if card is not None:
            a.spite_and_malice.play.source.card = card
        a.spite_and_malice.play.target = 1  # CENTER, index unset: center:new
        return a

    hand, payoff, side = 1, 2, 3
    cases = [(play(hand), "a hand source names its card"),
             (play(payoff, "5C"), "only a hand source names a card: payoff moves the top of its pile"),
             (play(hand, "5C", index=2), "only a side stack source has an index: hand has none"),
             (play(side, index=-1), "side: a side stack's slot is 0 or more, got -1")]
    for msg, why in cases:
        with pytest.raises(convert.WireError, match=r"^action\.play\.source: " + why):
            convert.action_from_proto("spite-and-malice", msg)
    to_side = play(hand, "5C")
    to_side.spite_and_malice.play.target = 2  # SIDE, index unset: read as "side:new", no such place
    with pytest.raises(convert.WireError, match=r"^action\.play: a side stack target names its slot"):
        convert.action_from_proto("spite-and-malice", to_side)
    to_side.spite_and_malice.play.index = -1
    with pytest.raises(convert.WireError, match=r"^action\.play: side: index is 0 or more, got -1"):
        convert.action_from_proto("spite-and-malice", to_side)
    assert str(convert.action_from_proto("spite-and-malice", play(payoff))) == "play payoff -> center:new"
    assert str(convert.action_from_proto("spite-and-malice", play(side, index=2))) == "play side:2 -> center:new"


def test_options_to_wire_text():
    assert convert.options_to_wire({"a": None, "b": True, "c": [1, 7], "d": 3}) == {"a": "off", "b": "true", "c": "1,7", "d": "3"}
    # and the game's own parser reads them back
    game = get_game("spades", {"lose_at": -200})
    wire = convert.options_to_wire(game.describe_options())
    assert get_game("spades", wire).options == game.options


@pytest.mark.parametrize("name", GAMES)
def test_compiled_codecs_agree_with_the_reference_codec(name):
    """The compiled codecs (the hot path) give exactly the messages and values of the
    reflective reference (to_message / from_message), memos included: views are encoded
    again and again over a game, so remembered items are checked too. 150 steps a seed
    (several Spades deals, several Spot hands) run the same lines of cardarena/wire as 300
    did (a line trace of the test's body at 2 x 150, 1 x 150 and 2 x 300 steps: the same
    740 lines for Spades, 772 for Spot)."""
    game = get_game(name)
    view_msg = type(getattr(pb.View(), convert.game_field(name)))
    for seed in range(2):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        steps = 0
        while not state.is_terminal and steps < 150:
            for seat in range(game.num_seats):
                view = state.view(seat)
                fast = convert.view_to_proto(name, view)
                slow = pb.View()
                convert.to_message(view, getattr(slow, convert.game_field(name)))
                getattr(slow, convert.game_field(name)).SetInParent()
                assert fast.SerializeToString() == slow.SerializeToString()
                inner = view_msg.FromString(getattr(fast, convert.game_field(name)).SerializeToString())
                assert convert.decode(inner, type(view)) == convert.from_message(inner, type(view)) == view
            legal = state.legal_actions()
            turn = pb.Turn()
            turn.MergeFromString(convert.legal_actions_wire(name, legal))
            assert list(turn.legal_actions) == [convert.action_to_proto(name, a) for a in legal]
            assert convert.legal_actions_from_proto(name, turn.legal_actions) == legal
            # an answer's action: the bytes it came in (kept by the decoder), or encoded
            assert [pb.Action.FromString(convert.action_wire(name, a)) for a in legal] == list(turn.legal_actions)
            state.apply(rng.choice(legal))
            steps += 1


def test_an_acts_action_is_the_actions_message_whether_or_not_a_turn_brought_it():
    from sdk.convert import act_to_proto

    game = get_game("spades", {"deals": 1})
    state = game.new_initial_state(9)
    legal = state.legal_actions()
    turn = pb.Turn()
    turn.MergeFromString(convert.legal_actions_wire("spades", legal))
    decoded = convert.legal_actions_from_proto("spades", turn.legal_actions)
    convert._ACTION_BODY.clear()  # as when the kept bytes were dropped (the cache full): encoded again
    for action in [*decoded[:3], *legal[-3:]]:
        want = pb.BotMessage(act=pb.Act(match_id="m1", request_id=7, seat_token="t", action=convert.action_to_proto("spades", action)))
        assert act_to_proto("spades", "m1", 7, action, "t") == want
        assert convert.action_from_proto("spades", act_to_proto("spades", "m1", 7, action).act.action) == action
    with pytest.raises(TypeError, match="not an action of spades"):
        act_to_proto("spades", "m1", 7, "play 2C")


def test_compiled_decoders_fall_back_to_the_reference_on_unusual_input():
    game = get_game("spades", {"deals": 1})
    state = game.new_initial_state(4)
    rng = random.Random(4)
    while not state.view(state.current_seat).tricks:  # into the play, past a finished trick
        state.apply(rng.choice(state.legal_actions()))
    view = state.view(state.current_seat)
    msg = convert.view_to_proto("spades", view)
    assert msg.spades.tricks
    # a card token in another spelling is still the card (the reference parser accepts it)
    lower = pb.View()
    lower.CopyFrom(msg)
    lower.spades.tricks[0].cards[0].card = lower.spades.tricks[0].cards[0].card.lower()
    assert convert.view_from_proto("spades", lower) == view
    # a bad token deep inside: the WireError names the field, as the reference does
    bad = pb.View()
    bad.CopyFrom(msg)
    bad.spades.tricks[0].cards[1].card = "ZZ"
    with pytest.raises(convert.WireError, match=r"view\.tricks\[0\]\.cards\[1\]\.card: unknown card 'ZZ'"):
        convert.view_from_proto("spades", bad)
    bad_phase = pb.View()
    bad_phase.CopyFrom(msg)
    bad_phase.spades.phase = 0
    with pytest.raises(convert.WireError, match=r"view\.phase: unknown or unset value 0"):
        convert.view_from_proto("spades", bad_phase)
    # a malformed legal action is a WireError, and is not remembered as anything
    broken = pb.Action()
    broken.spades.play.card = "11X"
    for _ in range(2):
        with pytest.raises(convert.WireError, match=r"action\.play\.card: unknown card '11X'"):
            convert.legal_actions_from_proto("spades", [broken])


def test_turn_message_carries_the_events_given_and_the_legal_actions_in_order():
    game = get_game("spades", {"deals": 1})
    state = game.new_initial_state(2)
    seat = state.current_seat
    events = [e for e in state.log if e.visible_for(seat)]
    legal = state.legal_actions()
    msg = convert.turn_to_proto("spades", "m1", 7, seat, state.view(seat), legal, 1000, 5000, events)
    back = pb.ArbiterMessage.FromString(msg.SerializeToString()).turn
    assert (back.match_id, back.request_id, back.seat, back.clock.decision_ms, back.clock.bank_ms) == ("m1", 7, seat, 1000, 5000)
    assert [convert.event_from_proto(e) for e in back.events] == [
        type(e)(e.kind, e.seat, e.text, tuple(e.cards)) for e in events
    ]
    assert [convert.action_from_proto("spades", a) for a in back.legal_actions] == legal
    assert convert.view_from_proto("spades", back.view) == state.view(seat)


@pytest.mark.parametrize("name", GAMES)
def test_the_turn_written_as_bytes_is_the_message_built_field_by_field(name):
    """turn_wire (and view_wire) write the bytes without building a message: they parse
    to exactly the message the dict encoder's constructor builds, for every seat's view
    and the spectator's, at every step of random games (negative scores, card 0, unset
    optional fields, empty lists included)."""
    game = get_game(name)
    for seed in range(2):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        unsent = [[e for e in state.log if e.visible_for(s)] for s in range(game.num_seats)]
        steps = 0
        while not state.is_terminal and steps < 300:
            for view in [state.view(s) for s in range(game.num_seats)] + [state.spectator_view()]:
                assert pb.View.FromString(convert.view_wire(name, view)) == convert.view_to_proto(name, view)
            seat, legal = state.current_seat, state.legal_actions()
            built = pb.ArbiterMessage(turn={"match_id": f"m{seed}", "request_id": steps, "seat": seat,
                                            "view": convert.view_fields(name, state.view(seat)),
                                            "clock": {"decision_ms": 10 * steps, "bank_ms": 0},
                                            "events": [convert.event_fields(e) for e in unsent[seat]],
                                            "legal_actions": [convert.action_fields(name, a) for a in legal]})
            wire = convert.turn_wire(name, f"m{seed}", steps, seat, state.view(seat), legal, 10 * steps, 0, unsent[seat])
            assert pb.ArbiterMessage.FromString(wire) == built
            unsent[seat] = []
            new = state.apply(rng.choice(legal))
            for s in range(game.num_seats):
                unsent[s].extend(e for e in new if e.visible_for(s))
            steps += 1


@pytest.mark.parametrize("name", GAMES)
def test_the_spectator_view_has_no_seat_in_every_game(name):
    """One convention: the spectator is None wherever a seat is expected (Spot's view
    used -1); on the wire the optional seat is absent."""
    state = get_game(name).new_initial_state(3)
    view = state.spectator_view()
    assert view.seat is None
    msg = convert.view_to_proto(name, view)
    assert not getattr(msg, convert.game_field(name)).HasField("seat")
    assert convert.view_from_proto(name, pb.View.FromString(msg.SerializeToString())).seat is None
    seat_view = convert.view_from_proto(name, convert.view_to_proto(name, state.view(0)))
    assert seat_view.seat == 0  # seat 0 is present, not mistaken for "unset"


def test_spite_and_malice_deadlock_reshuffles_cross_the_wire():
    from tests.games.test_spite_malice import layout

    g = get_game("spite-and-malice", {"deadlock_rule": "reshuffle"}, preset="book")
    st = layout(g, hands=["9S 9S 9H 9H 9C", "8S 8S 8H 8H 8C"], stock="5H 5H 5D 5D 6D 6D 6H 6H 7D 7D")
    for text in ("end", "end"):
        st.apply(g.parse_action(text))
    view = st.view(1)
    assert view.deadlock_reshuffles == 1
    wire = convert.view_to_proto("spite-and-malice", view).SerializeToString()
    back = convert.view_from_proto("spite-and-malice", pb.View.FromString(wire))
    assert back == view and back.deadlock_reshuffles == 1


@pytest.mark.parametrize("name", GAMES)
def test_the_match_end_written_as_bytes_is_the_message_built_field_by_field(name):
    """match_end_wire splices the final view's bytes in its place: the bytes are exactly
    protobuf's serialization of the message built field by field (so the field order is
    kept), with and without a final view, with and without events, for every seat's final
    view and the spectator's of a random game."""
    game = get_game(name)
    state, rng = game.new_initial_state(4), random.Random(4)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    outcome, events = state.outcome(), list(state.log[-4:])
    for seat, view in [*((s, state.view(s)) for s in range(game.num_seats)), (0, state.spectator_view()), (1, None)]:
        for told in (events, []):
            built = pb.ArbiterMessage()
            end = built.match_end
            end.match_id, end.seat = "m9", seat
            end.outcome.CopyFrom(convert.outcome_to_proto(outcome))
            end.events.extend(convert.event_to_proto(e) for e in told)
            if view is not None:
                end.final_view.CopyFrom(convert.view_to_proto(name, view))
            assert convert.match_end_wire(name, "m9", seat, outcome, told, view) == built.SerializeToString()


@pytest.fixture
def python_encoders(monkeypatch):
    """The codec's compiled Python encoders (as without the C extension), made anew; the
    encoders in use before are back after the test."""
    def fresh():
        for cached in (convert._wire_encoder, convert._view_wire_codec, convert._view_field_encoders, convert._delta_function):
            cached.cache_clear()
    fresh()
    with monkeypatch.context() as m:
        m.setattr(convert, "_wirec", None)
        yield
        fresh()
    fresh()


@pytest.mark.skipif(convert._wirec is None, reason="the C wire encoder is not built here (make venv builds it)")
@pytest.mark.parametrize("name", GAMES)
def test_the_c_wire_encoder_writes_the_python_encoders_bytes(name, python_encoders):
    """cardarena/wire/_wirec.c (built by make venv) writes every view's bytes and every
    Turn's legal actions and events exactly as the compiled Python encoders do (which the
    tests above check against protobuf), for every seat's view and the spectator's at
    every step of random games: one encoder, in two languages."""
    game = get_game(name)
    steps = []
    for seed in range(3):
        state, rng = game.new_initial_state(seed), random.Random(seed)
        while not state.is_terminal and len(steps) < 400:
            legal = state.legal_actions()
            views = [state.view(s) for s in range(game.num_seats)] + [state.spectator_view()]
            steps.append((views, legal, list(state.log[-6:])))
            state.apply(rng.choice(legal))
    python = [([convert.view_wire(name, v) for v in views], convert.legal_actions_wire(name, legal),
               convert.events_wire(events)) for views, legal, events in steps]
    convert._wirec = convert._load_wirec()  # the fixture puts it back to None at the end
    for cached in (convert._wire_encoder, convert._view_wire_codec):
        cached.cache_clear()
    descriptor = pb.View.DESCRIPTOR.fields_by_name[convert.game_field(name)].message_type
    assert convert._wire_encoder(game.view_type, descriptor).func is convert._wirec.encode  # C, this time
    for (views, legal, events), (view_bytes, legal_bytes, event_bytes) in zip(steps, python):
        assert [convert.view_wire(name, v) for v in views] == view_bytes
        assert convert.legal_actions_wire(name, legal) == legal_bytes
        assert convert.events_wire(events) == event_bytes


def _final_view_of_a_reshuffled_deadlock():
    """A Spite and Malice spectator's final view with ``reveal`` (field 18) and
    ``deadlock_reshuffles`` (19) both set: its class declares 19 before 18."""
    game = get_game("spite-and-malice", {"deadlock_rule": "reshuffle", "max_deadlock_reshuffles": 2}, preset="book")
    state = game.new_initial_state(0)
    while not state.is_terminal:  # everybody passes whenever allowed
        legal = state.legal_actions()
        state.apply(legal[-1] if str(legal[-1]) == "end" else legal[0])
    view = state.spectator_view()
    assert view.reveal is not None and view.deadlock_reshuffles
    return view


@pytest.mark.parametrize("encoder", ["c", "python"])
def test_a_view_is_written_in_field_number_order_whatever_the_order_of_its_class(encoder, request):
    """The wire encoders wrote a view's fields in its class's order: Spite and Malice's
    final view of a reshuffled deadlock came out as other bytes than protobuf's (the same
    message, parsed), where the codec promises protobuf's own serialization."""
    if encoder == "python":
        request.getfixturevalue("python_encoders")
    elif convert._wirec is None:
        pytest.skip("the C wire encoder is not built here (make venv builds it)")
    view = _final_view_of_a_reshuffled_deadlock()
    assert convert.view_wire("spite-and-malice", view) == convert.view_to_proto("spite-and-malice", view).SerializeToString()


@pytest.mark.skipif(convert._wirec is None, reason="the C wire encoder is not built here (make venv builds it)")
@pytest.mark.parametrize("name", GAMES)
def test_a_turns_legal_actions_read_from_its_frame_are_the_messages(name):
    """legal_actions_from_frame (the SDK on the local channel) reads a Turn's legal actions
    from the ArbiterMessage's bytes: once seen, the very objects legal_actions_from_proto
    gives, in order; None (the caller decodes) for an unseen one, a count that is not the
    message's, a Turn field given twice, or bytes that are no message."""
    game = get_game(name)
    state, rng = game.new_initial_state(8), random.Random(8)
    for step in range(60):
        if state.is_terminal:
            break
        seat, legal = state.current_seat, state.legal_actions()
        frame = convert.turn_wire(name, "m8", step + 1, seat, state.view(seat), legal, 1000, 0)
        msgs = pb.ArbiterMessage.FromString(frame).turn.legal_actions
        decoded = convert.legal_actions_from_proto(name, msgs)
        got = convert.legal_actions_from_frame(name, frame, len(msgs))
        assert got is not None and len(got) == len(decoded) and all(a is b for a, b in zip(got, decoded))
        assert convert.legal_actions_from_frame(name, frame, len(msgs) + 1) is None
        assert convert.legal_actions_from_frame(name, frame + frame, len(msgs)) is None  # merged: not read here
        assert convert.legal_actions_from_frame(name, frame[:-1], len(msgs)) is None
        state.apply(rng.choice(legal))
    unseen = pb.Action(notation="never offered")
    turn = pb.ArbiterMessage()
    turn.turn.legal_actions.append(unseen)
    assert convert.legal_actions_from_frame(name, turn.SerializeToString(), 1) is None


def test_the_match_end_encodes_each_outcome_of_its_own():
    """match_end_wire keeps an Outcome's bytes by the object (the seats of a match are told
    the same one): another outcome, even one made after the first is gone, is its own."""
    game = get_game("spades")
    state, rng = game.new_initial_state(5), random.Random(5)
    while not state.is_terminal:
        state.apply(rng.choice(state.legal_actions()))
    outcome = state.outcome()
    other = dataclasses.replace(outcome, scores=tuple(s + 1 for s in outcome.scores), detail="another")
    for told in (outcome, other, outcome, dataclasses.replace(other)):
        built = pb.ArbiterMessage()
        built.match_end.match_id, built.match_end.seat = "m1", 2
        built.match_end.outcome.CopyFrom(convert.outcome_to_proto(told))
        assert convert.match_end_wire("spades", "m1", 2, told) == built.SerializeToString()
        assert convert.outcome_from_proto(pb.ArbiterMessage.FromString(convert.match_end_wire(
            "spades", "m1", 2, told)).match_end.outcome) == told


def test_an_answer_echoing_a_turns_action_is_read_as_the_engines_own_object(monkeypatch):
    """action_from_proto keeps an answer's bytes with the equal action a Turn of this
    process offered (the legal actions' cache), so the runner's legality check of the next
    such answer is an identity test; an answer of an action no Turn offered is decoded
    as before, and a malformed one still raises WireError."""
    # the process's caches, empty: an earlier test's engine may have offered equal actions
    # first, and its objects (equal, not these) would then be the ones kept
    monkeypatch.setattr(convert, "_ACTION_WIRE", {})
    monkeypatch.setattr(convert, "_ACTION_OF_WIRE", {})
    game = get_game("spades", {"deals": 1})
    state = game.new_initial_state(11)
    legal = state.legal_actions()
    convert.legal_actions_wire("spades", legal)
    for action in legal:
        msg = pb.Action.FromString(convert.action_to_proto("spades", action).SerializeToString())
        first, again = convert.action_from_proto("spades", msg), convert.action_from_proto("spades", msg)
        assert first == action and first is action and again is action
    with pytest.raises(convert.WireError):
        convert.action_from_proto("spades", pb.Action())


def _match_start_built(info, token: str) -> bytes:
    """A MatchStart as the arbiter built it before it was written as bytes: a message set
    field by field, serialized."""
    msg = pb.ArbiterMessage()
    start = msg.match_start
    start.seat_token, start.match_id, start.game = token, info.match_id, info.game
    start.options.update(convert.options_to_wire(info.options))
    start.seat, start.num_seats, start.bot_seed = info.seat, info.num_seats, info.seed
    for t in info.teams:
        start.teams.add().seats.extend(t)
    start.seat_names.extend(info.seat_names)
    start.clock.decision_ms, start.clock.bank_ms = info.decision_ms, info.bank_ms
    return msg.SerializeToString()


def test_the_match_start_written_as_bytes_is_the_message_built_field_by_field(monkeypatch):
    """match_start_wire writes exactly protobuf's serialization of the MatchStart built
    field by field, for every seat (seat 0 and seed 0 are left out as a serializer leaves
    them), with options of every kind (a list's among them), none, and no teams; and the
    fields every seat of a match is told alike are encoded once for the match's seats
    (and the next match of the same game, options, seats and clock)."""
    from cardarena.records import MatchInfo

    monkeypatch.setattr(convert, "_START_SHARED", {})  # nothing kept from another test
    encoded = []
    real = convert.options_to_wire
    names = ("north", "east", "south", "west")
    for options, teams in [({"deals": 2, "target": 500, "blind_nil": True, "variant": None}, ((0, 2), (1, 3))),
                           ({}, ()), ({"ranks": [1, 2, 3], "name": "x"}, ((0, 1),))]:
        encoded.clear()
        for match_id in ("m1", "a-longer-match-id", ""):
            for seat in range(4):
                for seed in (0, 7, 2**63 + 5):
                    info = MatchInfo(match_id=match_id, game="spades", options=dict(options), seat=seat, num_seats=4,
                                     teams=teams, seat_names=names, decision_ms=1000 * seat, bank_ms=60_000, seed=seed)
                    for token in ("tok-" + "x" * seat, ""):
                        with monkeypatch.context() as m:
                            m.setattr(convert, "options_to_wire", lambda options: encoded.append(1) or real(options))
                            wire = convert.match_start_wire(info, token)
                        assert wire == _match_start_built(info, token)
        # once per clock (decision_ms is the seat's here, so four), and for an option that
        # cannot be a key (a list), at every call
        assert len(encoded) == (4 if "ranks" not in options else 3 * 4 * 3 * 2)


@pytest.mark.parametrize("name", ["spades", "spite-and-malice", "spot"])
def test_the_act_written_as_bytes_is_the_message_built_field_by_field(name):
    """act_wire writes exactly protobuf's serialization of the BotMessage the SDK builds
    (``act_to_proto`` with ``think_us`` set), for each legal action of random positions
    (engine objects, and the same actions decoded from a Turn's bytes), an action no Turn
    brought, ids and numbers empty, zero, small and past the varint table's 16,384."""
    from sdk.convert import act_to_proto

    game = get_game(name)
    rng = random.Random(5)
    state = game.new_initial_state(3)
    actions = []
    for _ in range(40):
        if state.is_terminal:
            break
        legal = state.legal_actions()
        turn = pb.Turn()
        turn.MergeFromString(convert.legal_actions_wire(name, legal))
        actions += [*legal[:4], *convert.legal_actions_from_proto(name, turn.legal_actions)[-2:]]
        state.apply(rng.choice(legal))
    actions.append(game.parse_action(str(actions[0])))  # a value equal to a kept one, another object
    for i, action in enumerate(actions):
        match_id, token = [("m1", "t"), ("", ""), ("a-match-" + "x" * 130, "tok" * 50)][i % 3]
        for request_id, think_us in ((0, 0), (7, 1), (16_383, 16_384), (2**40 + 3, 2**33)):
            msg = act_to_proto(name, match_id, request_id, action, token)
            msg.act.think_us = think_us
            assert convert.act_wire(name, match_id, request_id, action, token, think_us) == msg.SerializeToString()


@pytest.mark.parametrize(("name", "options", "added"), [
    ("spite-and-malice", {"decks": "1", "payoff_size": "8"}, ("first_player", "first_player_turn_ups")),
    ("spot", {}, ("layoffs",)),
])
def test_the_fields_a_view_gained_keep_the_wire_compatible_both_ways(name, options, added):
    """New field numbers only: a bot whose view message predates the fields (the same
    .proto less them) reads today's bytes as it read the fields it knows before; and
    today's SDK reads an older arbiter's bytes (no such fields) as the view with those
    fields at their defaults."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    game, rng = get_game(name, options), random.Random(0)
    state = game.new_initial_state(0)  # seed 0: Spite and Malice's first player chosen after a tie
    while not all(getattr(state.view(0), f) for f in added if f != "first_player"):
        state.apply(rng.choice(state.legal_actions()))
    view = state.view(1)
    gf = convert.game_field(name)
    today = getattr(pb.View.FromString(convert.view_wire(name, view)), gf)
    before = descriptor_pb2.FileDescriptorProto()
    today.DESCRIPTOR.file.CopyToProto(before)
    (message,) = [m for m in before.message_type if m.name == today.DESCRIPTOR.name]
    assert {f.name for f in message.field} >= set(added)
    kept = [f for f in message.field if f.name not in added]
    del message.field[:]
    message.field.extend(kept)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(before)
    old_class = message_factory.GetMessageClass(pool.FindMessageTypeByName(today.DESCRIPTOR.full_name))
    old = old_class.FromString(today.SerializeToString())  # an old bot reads today's view
    older = type(today)()
    older.CopyFrom(today)
    for f in added:
        older.ClearField(f)
    old.DiscardUnknownFields()
    assert old.SerializeToString() == older.SerializeToString() and older != today
    # an old arbiter's view, read by today's SDK
    back = convert.view_from_proto(name, pb.View(**{gf: older}))
    assert back == dataclasses.replace(view, **{f: type(view).__dataclass_fields__[f].default for f in added})
