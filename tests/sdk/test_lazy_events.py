"""The SDK decodes a Turn's events only for a bot that reads them (its own on_events)."""

from __future__ import annotations

from cardarena.v1 import arena_pb2 as pb
from cardarena.wire import codec
from cardarena.games import get_game
from sdk import Bot
from sdk.driver import wants_events
from sdk.runner import Connection


class Quiet(Bot):
    name = "quiet"

    def choose(self, view, legal_actions):
        return legal_actions[0]


class Listener(Quiet):
    name = "listener"
    seen: list = []

    def on_events(self, events) -> None:
        Listener.seen.extend(events)


def _session_with_turn(bot: Bot, bad_event: bool) -> tuple[Connection, pb.ArbiterMessage]:
    game = get_game("spades", {"deals": 1})
    state = game.new_initial_state(1)
    seat = state.current_seat
    session = Connection(bot, bot.name)
    session.handle(pb.ArbiterMessage(match_start=pb.MatchStart(
        match_id="m", game="spades", seat=seat, num_seats=4, seat_token="tok", options={"deals": "1"})))
    events = [e for e in state.log if e.visible_for(seat)]
    turn = codec.turn_to_proto("spades", "m", 1, seat, state.view(seat), state.legal_actions(), 0, 0, events)
    if bad_event:
        turn.turn.events.add(kind="play", text="?", cards=["11X"])  # no such card: decoding it fails
    return session, turn


def test_a_bot_that_keeps_the_base_on_events_gets_no_events_decoded():
    assert not wants_events(Quiet()) and wants_events(Listener())
    session, turn = _session_with_turn(Quiet(), bad_event=True)
    session.handle(turn)
    answer = session._take()
    assert not answer.act.failure and answer.act.action.notation  # the events were never decoded


def test_a_bot_with_on_events_gets_them_before_choose_and_a_bad_one_is_reported():
    Listener.seen = []
    session, turn = _session_with_turn(Listener(), bad_event=False)
    session.handle(turn)
    assert not session._take().act.failure
    assert Listener.seen and Listener.seen == [codec.event_from_proto(e) for e in turn.turn.events]
    session, turn = _session_with_turn(Listener(), bad_event=True)
    session.handle(turn)
    assert "11X" in session._take().act.failure


def _never(*args, **kwargs):
    raise AssertionError("decoded again")


def test_events_seen_before_are_found_by_their_bytes(monkeypatch):
    """Events recur (a seat's play of a card, a trick won): each is decoded once, then found
    by its bytes, in the message (gRPC) or in the frame it came in (the local channel)."""
    Listener.seen = []
    session, turn = _session_with_turn(Listener(), bad_event=False)
    session.handle(turn)  # each event decoded once here (or seen already in this process)
    assert not session._take().act.failure
    told = Listener.seen
    monkeypatch.setattr(codec, "event_from_proto", _never)
    for local in (False, True):
        Listener.seen = []
        session, turn = _session_with_turn(Listener(), bad_event=False)
        if local:  # read from the frame's bytes: the message's events are not even serialized
            if codec._wirec is not None:  # (the frame is read by the C extension; without it,
                # as on a machine with no compiler, the message's events are serialized and
                # found by those bytes: still none decoded again)
                monkeypatch.setattr(codec, "events_from_proto", _never)
            session.frame = (turn, turn.SerializeToString())
        session.handle(turn)
        assert not session._take().act.failure
        assert told and Listener.seen == told
