"""A stream closed as a flood is told which limit it passed (arena.proto Error "flood")."""

from __future__ import annotations

from arbiter.server.botstream import FLOOD_BURST, MAX_OUTBOX, BotStreamServicer, Session
from cardarena.v1 import arena_pb2 as pb


def _told(session: Session) -> list[pb.ArbiterMessage]:
    out = []
    while not session.outbox.empty():
        m = session.outbox.get_nowait()
        if isinstance(m, pb.ArbiterMessage):
            out.append(m)
    return out


def test_a_bot_that_stopped_reading_is_not_told_it_sent_too_many():
    """A session whose outbox holds MAX_OUTBOX unread messages is closed at its next
    message that answers nothing: it was told 'more than 200 messages that answer no
    request', though it had sent one. It is told the arbiter's messages went unread (on
    the local channel the bound is in bytes: the words name no number)."""
    stalled = Session("s1", "bot", "1", ())
    for _ in range(MAX_OUTBOX):
        stalled.outbox.put_nowait(b"turn")
    assert BotStreamServicer._junk(stalled) is False and stalled.closed
    [err] = _told(stalled)
    assert err.error.code == "flood" and "the arbiter's to it pile up unread" in err.error.message
    flooding = Session("s2", "bot", "1", ())
    refused = next(i for i in range(FLOOD_BURST * 2) if not BotStreamServicer._junk(flooding))
    assert refused >= FLOOD_BURST  # the burst, and whatever the rate refilled meanwhile
    [err] = _told(flooding)
    assert err.error.code == "flood" and f"more than {FLOOD_BURST} messages that answer no request" in err.error.message
