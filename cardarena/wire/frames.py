"""Spectator frames <-> protobuf (the Spectate service's WatchFrame)."""

from __future__ import annotations

from cardarena.frames import Frame, Hands, HeaderFrame, OverFrame, StepFrame
from cardarena.games import Card
from cardarena.v1 import spectate_pb2 as spb
from cardarena.wire import codec as convert



def _hands_to_proto(hands: Hands | None) -> list[spb.SeatHand]:
    if hands is None:
        return []
    return [spb.SeatHand(seat=s, cards=[str(c) for c in sorted(h)]) for s, h in enumerate(hands)]


def frame_to_proto(game: str, frame: Frame) -> spb.WatchFrame:
    """Encode a frame; hands are sent only if the frame still carries them."""
    if isinstance(frame, HeaderFrame):
        return spb.WatchFrame(header=spb.MatchHeader(
            match_id=frame.match_id, game=frame.game, seat_names=list(frame.seat_names), started=frame.started,
            view=convert.view_to_proto(game, frame.view), hands=_hands_to_proto(frame.hands), delay_ms=frame.delay_ms,
        ))
    if isinstance(frame, StepFrame):
        return spb.WatchFrame(step=spb.Step(
            index=frame.index, seat=frame.seat, action=frame.action,
            events=[convert.event_to_proto(e) for e in frame.events],
            view=convert.view_to_proto(game, frame.view), hands=_hands_to_proto(frame.hands), at=frame.at,
        ))
    over = spb.MatchOver(
        outcome=convert.outcome_to_proto(frame.outcome), seed=frame.seed, actions=list(frame.actions),
        action_seats=list(frame.action_seats), options=frame.options,
    )
    if frame.final_view is not None:
        over.final_view.CopyFrom(convert.view_to_proto(game, frame.final_view))
    return spb.WatchFrame(over=over)


def frame_from_proto(game: str, msg: spb.WatchFrame) -> Frame:
    """Decode a frame (client side); convert.WireError on malformed data."""
    which = msg.WhichOneof("frame")
    hands = lambda hs: tuple(tuple(Card.parse(c) for c in h.cards) for h in hs) if hs else None  # noqa: E731
    if which == "header":
        h = msg.header
        return HeaderFrame(h.match_id, h.game, tuple(h.seat_names), h.started, convert.view_from_proto(h.game, h.view),
                           hands(h.hands), h.delay_ms)
    if which == "step":
        s = msg.step
        return StepFrame(s.index, s.seat, s.action, tuple(convert.event_from_proto(e) for e in s.events),
                         convert.view_from_proto(game, s.view), hands(s.hands), s.at)
    if which == "over":
        o = msg.over
        final = convert.view_from_proto(game, o.final_view) if o.HasField("final_view") else None
        return OverFrame(convert.outcome_from_proto(o.outcome), final, o.seed, tuple(o.actions), tuple(o.action_seats),
                         dict(o.options))
    raise convert.WireError("empty watch frame")
