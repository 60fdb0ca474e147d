"""Hostile bots that attack the protocol, each hosted as a sandboxed process by a real
arbiter with a real store (tests/e2e/hostile_arena.py). Each test checks, through
run_hostile, that the arbiter still serves, that the honest match played at the same
time is exactly what it is without the hostile bot, and that the store is intact; then
what happened to the hostile bot, and that the record says so. Each runs over both ways
a hosted bot reaches the arbiter: gRPC, and the local channel (the same stream in plain
frames): the same attacks get the same answers. The server and the honest match's two bots
are the module's, one of each per transport (``HonestTable``); each test's hostile bot and
the random bot of its table start fresh."""

from __future__ import annotations

import pytest

from cardarena.games import EndReason
from arbiter.server.botstream import Hub
from cardarena.wire.codec import VIEW_DELTAS
from tests.e2e.hostile_arena import HOSTILE, run_hostile, tables  # noqa: F401 - tables: the module's fixture

TRANSPORTS = ["grpc", "local"]
#: The tests share the module's tables (``tables``, an ``HonestTable`` per transport: starting
#: the server and the two honest bot processes was about two thirds of each test's CPU): one
#: xdist group (--dist loadgroup, tests/conftest.py), so they are made once in a run.
pytestmark = [pytest.mark.parametrize("transport", TRANSPORTS), pytest.mark.xdist_group("hostile-protocol")]


@pytest.fixture
def hostile(tables, tmp_path, transport):
    """``run_hostile`` on the module's table of ``transport``."""
    return lambda spec, **kw: run_hostile(spec, tmp_path, transport=transport, table=tables(transport), **kw)


def test_acting_for_another_seat_is_refused_and_the_match_plays_on(hostile):
    r = hostile(HOSTILE / "other_seat.py")
    assert r.hostile.outcome.reason is EndReason.COMPLETED and r.hostile.incidents == []
    errors = r.report("errors")
    # its partner's token on its own request, and requests of other seats / matches
    assert set(errors["codes"]) == {"wrong_seat", "unknown_request"}
    # every action recorded for seats 0 and 2 is the bot's real answer: legal, replayed
    assert all(a.forced == "" for a in r.hostile.actions)


def test_replayed_request_ids_are_refused(hostile):
    r = hostile(HOSTILE / "replay.py")
    assert r.hostile.outcome.reason is EndReason.COMPLETED and r.hostile.incidents == []
    errors = r.report("errors")
    assert errors["codes"] == ["unknown_request"] and errors["count"] >= 10


def test_forged_tokens_are_refused(hostile):
    r = hostile(HOSTILE / "forged_token.py")
    assert r.hostile.outcome.reason is EndReason.COMPLETED and r.hostile.incidents == []
    assert "wrong_seat" in r.report("errors")["codes"]
    hello = r.report("hello")
    assert hello["forged"].startswith("error:auth:token not accepted")
    assert hello["reused"].startswith("error:auth:") and "already in use" in hello["reused"]


def test_asking_for_other_seats_views_gets_nothing(hostile):
    r = hostile(HOSTILE / "peek.py", wait_stderr='"kind": "errors"')  # its stream closes as the Error is sent
    # its second Hello is a protocol error: the stream is closed and its seats forfeit
    assert r.hostile.outcome.reason is EndReason.FORFEIT_DISCONNECT
    management = r.report("management")
    assert management["list_sessions"] == "PERMISSION_DENIED" and management["run_match"] == "PERMISSION_DENIED"
    seen = r.report("seen")
    shown = {tuple(x) for kind in ("match_start", "turn", "update", "match_end") for x in seen[kind]}
    assert shown == {("hostile-match", 0), ("hostile-match", 2)}  # only its own seats, only its match
    assert any(e.startswith("protocol: a second Hello on one stream; the stream is closed") for e in r.report("errors")["errors"])


def test_a_flooded_stream_is_cut_and_the_seat_forfeits(hostile):
    r = hostile(HOSTILE / "flood.py")
    assert r.hostile.outcome.reason is EndReason.FORFEIT_DISCONNECT
    assert r.hostile.outcome.ranks == (2, 1, 2, 1)
    [inc] = r.incidents("disconnect")
    assert inc.seat in (0, 2)
    # its own stderr, captured into the record, ends with the arbiter's Error(flood)
    assert "arbiter says flood" in inc.stderr or "arbiter refused the session: flood" in inc.stderr, inc.stderr[-500:]
    assert inc.stderr.count("unknown_request") <= 200  # answered until the limit, then cut


def test_oversized_and_malformed_messages(hostile):
    r = hostile(HOSTILE / "oversized.py")
    # garbage on side connections: each refused, none took the arbiter down
    results = r.report("malformed")["results"]
    # (an RPC error, or one protocol Error reply for bytes that happen to parse; never a hang)
    assert len(results) == 5 and all(x in ("INTERNAL", "UNKNOWN", "INVALID_ARGUMENT") or x.startswith("[")
                                         for x in results), results
    # the 1 MiB Act broke its own stream only (over gRPC past the message limit, on the
    # local channel past the frame limit): a disconnect, recorded against its side
    assert r.hostile.outcome.reason is EndReason.FORFEIT_DISCONNECT
    assert {i.seat for i in r.hostile.incidents} <= {0, 2}


def test_a_seat_that_drops_or_spoils_view_deltas_resyncs_and_plays_the_same_match(hostile, monkeypatch):
    """arena.proto ViewDelta: a seat that lost the view it held (a dropped delta) or holds a
    spoiled one answers Act.resync, gets the whole view within the same decision's clock,
    and plays on. Its choices read its view, and the match is move for move the one the
    same bots play in the arbiter's process (no wire, no deltas)."""
    import asyncio

    from arbiter.hosting.inprocess import InProcessSeat
    from arbiter.match import run_match
    from cardarena.records import MatchConfig
    from sdk.loading import load_bot
    from tests.e2e.hostile_arena import OPTIONS

    monkeypatch.setattr(Hub, "local_view_deltas", VIEW_DELTAS)  # (whole views by default there)
    r = hostile(HOSTILE / "drop_delta.py")
    assert r.hostile.outcome.reason is EndReason.COMPLETED and r.hostile.incidents == []
    deltas = r.report("deltas")
    assert deltas["dropped"] >= 3 and deltas["spoiled"] >= 1, deltas
    # every dropped or spoiled view was asked for again, and came whole
    assert deltas["resyncs"] >= deltas["dropped"] + deltas["spoiled"] - 1, deltas
    assert deltas["whole"] >= deltas["resyncs"] + 1, deltas  # and the first Turn of each seat
    quiet = asyncio.run(run_match(
        MatchConfig("spades", 5, OPTIONS, match_id="hostile-match"),
        [InProcessSeat(load_bot(str(HOSTILE / "drop_delta.py")), "hostile"), InProcessSeat(load_bot("random"), "table-random")] * 2,
    ))
    assert [(a.seat, a.action, a.forced) for a in r.hostile.actions] == [(a.seat, a.action, a.forced) for a in quiet.actions]
    assert r.hostile.outcome == quiet.outcome


def test_a_seat_that_keeps_asking_for_its_whole_view_is_cut_off(hostile, monkeypatch):
    """Act.resync again and again gets the whole view MAX_RESYNCS times; the next one is a
    malformed answer, and the match's policy (forfeit) follows."""
    monkeypatch.setattr(Hub, "local_view_deltas", VIEW_DELTAS)
    r = hostile(HOSTILE / "always_resync.py")
    assert r.hostile.outcome.reason is EndReason.FORFEIT_ILLEGAL
    [inc] = r.hostile.incidents
    assert inc.seat in (0, 2) and "Act.resync more than 3 times" in inc.detail, inc


def test_asking_for_the_whole_view_without_view_deltas_is_a_malformed_answer(hostile, monkeypatch):
    """A session that takes whole views (the arbiter granted no deltas) has nothing to
    resync: Act.resync is a malformed answer at once."""
    monkeypatch.setattr(Hub, "view_deltas", 0)
    monkeypatch.setattr(Hub, "local_view_deltas", 0)
    r = hostile(HOSTILE / "always_resync.py")
    assert r.hostile.outcome.reason is EndReason.FORFEIT_ILLEGAL
    [inc] = r.hostile.incidents
    assert "this session takes whole views" in inc.detail, inc
