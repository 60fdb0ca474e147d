"""The same misbehaving bot, seed and options give the same match on every transport.

A bot's life in a match is the SDK's one driver (``sdk.driver.SeatDriver``) on every
path; this plays each bot of the zoo (tests/e2e/zoo.py: a hook that raises, None,
garbage, malformed or illegal answers, an action of another game, a sleep past the
clock, an exit mid-match or at the start, a BaseException or CancelledError, os._exit, a
result or view rewritten, a slow on_match_start, a deep recursion) under each failure policy three times from one
seed: with one bot process per seat over real gRPC, with the same processes on the
arbiter's local channel (``--transport local``), and in this process (``--transport inproc``). Every action and who took it, what the arbiter played for a
seat and why, every incident with its words, and the outcome must be identical.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.tournament.play import play_local
from cardarena.games import ConfigError, EndReason

ZOO = Path(__file__).with_name("zoo.py")
BOTS = ["RaiseInChoose", "RaiseInEvents", "RaiseInStart", "RaiseInEnd", "ReturnNone", "ReturnGarbage",
        "ReturnMalformed", "ReturnIllegal", "OtherGameAction", "SleepPastClock", "ExitMidMatch", "ExitAtStart",
        # reaching past the driver, at the referee in the same process
        "RaiseBaseException", "RaiseCancelled", "HardExit", "RewriteOutcome", "RewriteView",
        # what differed between a bot process and this one: the clock of a slow start, a deep recursion
        "SlowStart", "DeepRecursion"]
#: what each misbehaviour is recorded as (None: nothing to record, the match is over)
KIND = {"RaiseInChoose": "crash", "RaiseInEvents": "crash", "RaiseInStart": "crash", "RaiseInEnd": None,
        "ReturnNone": "crash", "ReturnGarbage": "crash", "ReturnMalformed": "malformed", "ReturnIllegal": "illegal",
        "OtherGameAction": "malformed", "SleepPastClock": "timeout", "ExitMidMatch": "disconnect",
        "ExitAtStart": "disconnect", "RaiseBaseException": "crash", "RaiseCancelled": "crash", "HardExit": "disconnect",
        "RewriteOutcome": None, "RewriteView": None, "SlowStart": "timeout", "DeepRecursion": None}


def _match(record):
    return {
        "seats": record.seat_names,
        "actions": [(a.seat, a.action, a.forced) for a in record.actions],
        "incidents": [(i.seat, i.kind, i.detail) for i in record.incidents],
        "outcome": record.outcome,
    }


@pytest.mark.e2e
@pytest.mark.parametrize("policy", ["forfeit", "default"])
@pytest.mark.parametrize("bot", BOTS)
def test_a_misbehaving_bot_gets_the_same_match_on_every_transport(bot, policy):
    seats = [f"{ZOO}:{bot}", "random", "random", "random"]
    kwargs = dict(seed=5, policy=policy, max_strikes=3, decision_ms=2000, bank_ms=500)
    records = {t: play_local("spot", seats, transport=t, **kwargs) for t in ("grpc", "local", "inproc")}
    over_grpc, local_channel, in_process = (_match(records[t]) for t in ("grpc", "local", "inproc"))
    assert over_grpc == in_process
    assert local_channel == in_process
    # and the records say so themselves: one content hash (game, options, seed, seats,
    # actions, incidents, result) for the three
    assert len({r.content_hash() for r in records.values()}) == 1, {t: r.content() for t, r in records.items()}
    # and the misbehaviour happened, was seen for what it is and handled by the policy
    kinds = {kind for _, kind, _ in in_process["incidents"]}
    outcome = in_process["outcome"]
    if KIND[bot] is None:
        assert not kinds and outcome.reason is EndReason.COMPLETED
        return
    assert kinds == {KIND[bot]}
    assert all(seat == 0 for seat, _, _ in in_process["incidents"])
    if policy == "forfeit":
        assert outcome.reason.is_forfeit and outcome.ranks[0] == 4 and len(in_process["incidents"]) == 1
    else:  # the arbiter played for the seat and said why
        assert any(forced for seat, _, forced in in_process["actions"] if seat == 0)


@pytest.mark.e2e
def test_a_bot_that_cannot_be_copied_is_refused_in_process_and_its_process_says_why_hosted():
    seats = [f"{ZOO}:Uncopyable", "random", "random", "random"]
    with pytest.raises(ConfigError, match="cannot play in process: it cannot be copied"):
        play_local("spot", seats, transport="inproc", seed=5)
    hosted = play_local("spot", seats, transport="grpc", seed=5)  # its process fails the same copy: a recorded forfeit
    assert hosted.outcome is not None and hosted.outcome.reason.is_forfeit and hosted.outcome.ranks[0] == 4
    assert hosted.incidents and hosted.incidents[0].seat == 0


@pytest.mark.e2e
def test_a_files_bot_plays_hosted_unless_in_process_is_asked_for():
    """``arbiter play``'s and ``evaluate``'s default for a file is a bot process; in process
    only when asked, and then the record says so. Same match either way."""
    seats = [f"{ZOO}:RewriteOutcome", "random", "random", "random"]
    auto = play_local("spot", seats, transport="auto", seed=5)
    asked = play_local("spot", seats, transport="inproc", seed=5)
    assert auto.venue == "" and asked.venue.startswith("inproc (asked for")
    assert auto.content_hash() == asked.content_hash()


@pytest.mark.e2e
def test_evaluate_plays_a_files_bot_hosted_by_default_and_says_where():
    from arbiter.tournament.evaluate import evaluate

    hosted = evaluate("spot", f"{ZOO}:RewriteOutcome", "random", deals=1, seed=2)
    asked = evaluate("spot", f"{ZOO}:RewriteOutcome", "random", deals=1, seed=2, transport="inproc")
    assert hosted.venue.startswith("hosted (bot processes over gRPC) (the default")
    assert asked.venue.startswith("in process as asked") and "without the sandbox's limits" in asked.venue
    assert [m.margin for m in hosted.matches] == [m.margin for m in asked.matches]  # the same matches either way
