"""The match runner: records that replay, tampering detected, failure policies, clocks."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from cardarena.games import EndReason
from cardarena.records import Clock, FailurePolicy, MatchConfig, MatchRecord, Policy
from arbiter.hosting.inprocess import InProcessSeat
from cardarena.replay import ReplayError, verify_record
from arbiter.match import BotFailed, MalformedAction, ManualClock, SeatClient, run_match
from bots.random_bot import RandomBot
from sdk import Bot

SPADES_ONE_DEAL = {"deals": 1}


def play(bots, seed=1, options=SPADES_ONE_DEAL, **kw) -> MatchRecord:
    config = MatchConfig(game="spades", seed=seed, options=options, **kw)
    return asyncio.run(run_match(config, [b if isinstance(b, SeatClient) else InProcessSeat(b) for b in bots]))


class Crasher(Bot):
    name = "crasher"

    def choose(self, view, legal_actions):
        raise RuntimeError("boom")


class Cheater(Bot):
    """Always answers with an action that is not among the legal ones."""

    name = "cheater"

    def choose(self, view, legal_actions):
        from cardarena.games.spades import Bid, Play
        from cardarena.games import Card

        for card in ("AS", "2C", "KH", "3D"):
            a = Play(Card.parse(card))
            if a not in legal_actions:
                return a
        return Bid(13) if Bid(13) not in legal_actions else Play(Card.parse("5D"))


class SlowSeat(InProcessSeat):
    """A seat whose bot takes ``ms`` per decision on the match's ManualClock: the runner's
    accounting of the decision limit and the bank is exact, whatever the machine's load."""

    def __init__(self, ms: int, clock: ManualClock):
        super().__init__(RandomBot(), "slow")
        self.ms = ms
        self.clock = clock

    async def decide(self, turn):
        self.clock.advance(self.ms / 1000)
        return await super().decide(turn)


def play_timed(ms: int, **kw) -> MatchRecord:
    """Seat 0 takes ``ms`` per decision on a ManualClock; the others answer at once."""
    clock = ManualClock()
    config = MatchConfig(game="spades", seed=1, options=SPADES_ONE_DEAL, **kw)
    seats = [SlowSeat(ms, clock)] + [InProcessSeat(RandomBot()) for _ in range(3)]
    return asyncio.run(run_match(config, seats, clock=clock))


def test_record_replays_to_the_same_result_and_survives_json():
    record = play([RandomBot(), RandomBot(), RandomBot(), RandomBot()], seed=11)
    assert record.outcome.reason is EndReason.COMPLETED
    again = MatchRecord.from_json(record.to_json())
    assert again == record
    assert verify_record(again) == record.outcome


def test_the_stored_text_is_the_dataclasses_own():
    """``to_json`` writes each field itself (no ``dataclasses.asdict`` copy): the same text as
    the copy gave, for a record with incidents, forced actions, notes, an unset ``bot_us``,
    a venue and none, an outcome and none."""
    import json

    from cardarena.records import Incident, RecordedAction

    def reference(record: MatchRecord) -> str:
        d = dataclasses.asdict(record)
        for a in d["actions"]:
            if not a["note"]:
                del a["note"]
        if record.outcome is not None:
            d["outcome"]["reason"] = record.outcome.reason.value
        if not record.venue:
            del d["venue"]
        return json.dumps(d, sort_keys=True)

    record = play([RandomBot(), RandomBot(), RandomBot(), RandomBot()], seed=11)
    odd = dataclasses.replace(
        record, options={"deals": 1, "nested": {"a": [1, 2.5]}}, venue="in process (a file's bot)",
        actions=[RecordedAction(0, "bid 3", 12, "timeout", 40, 7, "a note"), RecordedAction(1, "bid 1", 0)]
        + record.actions[2:],
        incidents=[Incident(0, "timeout", "over 12 ms", "the tail")])
    for r in (record, odd, dataclasses.replace(record, outcome=None, actions=[])):
        assert r.to_json() == reference(r)
        assert MatchRecord.from_json(r.to_json()) == r


def test_same_seed_same_match():
    a = play([RandomBot()] * 4, seed=5)
    b = play([RandomBot()] * 4, seed=5)
    assert [x.action for x in a.actions] == [x.action for x in b.actions]
    assert a.outcome == b.outcome


def test_tampered_records_are_detected():
    record = play([RandomBot()] * 4, seed=3)
    changed_seed = dataclasses.replace(record, seed=record.seed + 1)
    with pytest.raises(ReplayError):
        verify_record(changed_seed)
    actions = list(record.actions)
    i = next(i for i, a in enumerate(actions) if a.action.startswith("play"))
    swapped = [a for a in actions]
    swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
    with pytest.raises(ReplayError, match="action"):
        verify_record(dataclasses.replace(record, actions=swapped))
    with pytest.raises(ReplayError, match="do not finish"):
        verify_record(dataclasses.replace(record, actions=actions[:-1]))
    fake = dataclasses.replace(record.outcome, scores=tuple(s + 10 for s in record.outcome.scores))
    with pytest.raises(ReplayError, match="the record says"):
        verify_record(dataclasses.replace(record, outcome=fake))


def test_corrupt_record_json_is_a_clear_error():
    with pytest.raises(ValueError, match="corrupt match record"):
        MatchRecord.from_json('{"match_id": "x"}')
    with pytest.raises(ValueError, match="corrupt match record"):
        MatchRecord.from_json("not json")


def test_a_crashing_bot_forfeits_its_side():
    record = play([RandomBot(), Crasher(), RandomBot(), RandomBot()])
    assert record.outcome.reason is EndReason.FORFEIT_CRASH
    assert record.outcome.ranks == (1, 2, 1, 2)
    assert "boom" in record.outcome.detail and "seat 1" in record.outcome.detail


def test_illegal_actions_forfeit_or_are_replaced_per_policy():
    record = play([Cheater(), RandomBot(), RandomBot(), RandomBot()])
    assert record.outcome.reason is EndReason.FORFEIT_ILLEGAL and record.outcome.ranks == (2, 1, 2, 1)
    assert record.incidents[0].kind == "illegal" and "not a legal action" in record.incidents[0].detail
    lenient = FailurePolicy.uniform(Policy.DEFAULT, max_strikes=1000)
    record = play([Cheater(), RandomBot(), RandomBot(), RandomBot()], policy=lenient)
    assert record.outcome.reason is EndReason.COMPLETED
    forced = [a for a in record.actions if a.seat == 0]
    assert forced and all(a.forced == "illegal" for a in forced)
    assert verify_record(record) == record.outcome  # defaulted actions are part of the record
    strict = FailurePolicy.uniform(Policy.DEFAULT, max_strikes=2)
    record = play([Cheater(), RandomBot(), RandomBot(), RandomBot()], policy=strict)
    assert record.outcome.reason is EndReason.FORFEIT_ILLEGAL and len(record.incidents) == 3


class Told(InProcessSeat):
    """A seat that keeps the Errors the runner sends it (``reject``), as a bot reads them."""

    def __init__(self, bot):
        super().__init__(bot)
        self.told: list[tuple[str, str]] = []

    async def reject(self, match_id, request_id, code, message):
        self.told.append((code, message))


def test_the_error_of_each_strike_says_what_follows_and_the_last_says_forfeit():
    """Under the default policy each refused answer is told the action played for it and
    its strike; the one past the last strike is told the forfeit (it said 'was played for
    you' while its side forfeited)."""
    cheater = Told(Cheater())
    record = play([cheater, RandomBot(), RandomBot(), RandomBot()], policy=FailurePolicy.uniform(Policy.DEFAULT, max_strikes=2))
    assert record.outcome.reason is EndReason.FORFEIT_ILLEGAL
    messages = [m for _, m in cheater.told]
    assert len(messages) == 3 and {c for c, _ in cheater.told} == {"illegal"}
    assert "was played for you (strike 1 of 2 allowed)" in messages[0]
    assert "was played for you (strike 2 of 2 allowed)" in messages[1]
    assert messages[2].endswith("; your side forfeits (strike 3 of 2 allowed)")
    none = Told(Cheater())  # max_strikes 0: the first failure forfeits, and is told so
    play([none, RandomBot(), RandomBot(), RandomBot()], policy=FailurePolicy.uniform(Policy.DEFAULT, max_strikes=0))
    assert [m.rsplit("; ", 1)[1] for _, m in none.told] == ["your side forfeits (strike 1 of 0 allowed)"]


def test_a_long_failure_is_cut_once_and_its_count_is_what_the_bot_sent():
    """An Act.failure of 500 characters is kept to 200 (arena.proto) where it arrives; the
    runner's "the bot failed: " before it was cut again, into the first cut's note: the
    bot was told "(41 more characters)" and the record said "(24 more characters)" of the
    300 it sent past the limit. Both now say the same, with the true count."""
    from arbiter.match import BotFailed
    from cardarena.records import clip

    class Failing(Told):
        async def decide(self, turn):
            raise BotFailed(clip("b" * 500))  # as the gRPC edge hands it over (botstream._Asking)

    seat = Failing(RandomBot())
    record = play([seat, RandomBot(), RandomBot(), RandomBot()])
    shown = "the bot failed: " + "b" * 184 + "... (316 more characters)"  # 184 + 316 = the 500 sent
    assert record.outcome.reason is EndReason.FORFEIT_CRASH
    assert record.incidents[0].detail == shown
    assert seat.told == [("crash", shown + "; your side forfeits")]
    assert clip(shown) == shown and clip("x" * 10 + shown, 100) == "x" * 10 + shown[:90] + "... (426 more characters)"


def test_the_time_bank_is_spent_past_the_decision_limit_then_the_seat_times_out():
    # 40 ms per decision against a 10 ms limit: 30 ms of the 100 ms bank per decision, so
    # 100 -> 70 -> 40 -> 10, and the fourth decision (40 ms > 10 + 10) is late
    record = play_timed(40, clock=Clock(decision_ms=10, bank_ms=100))
    assert record.outcome.reason is EndReason.FORFEIT_TIMEOUT
    own = [a for a in record.actions if a.seat == 0]
    assert [a.ms for a in own] == [40, 40, 40]
    assert [i.kind for i in record.incidents] == ["timeout"]
    # the record names the limit (the same on every transport), not the wait (the machine's)
    assert record.incidents[0].detail == "no answer within the decision limit (10 ms) and the 10 ms left in its bank"
    exact = play_timed(40, clock=Clock(decision_ms=40, bank_ms=0))  # on the limit is in time
    assert exact.outcome.reason is EndReason.COMPLETED
    late = play_timed(41, clock=Clock(decision_ms=40, bank_ms=0))
    assert late.outcome.reason is EndReason.FORFEIT_TIMEOUT
    # a clock with no bank (a person's at /play) speaks of none: it said "and the 0 ms left in its bank"
    # (its first decision: the set-up's time counts, said since the SDK review)
    assert late.incidents[0].detail == ("no answer within the decision limit (40 ms) (its first decision: the bot's "
                                        "per-match copy and on_match_start count too)")


class SlowFirstSeat(SlowSeat):
    """Slow on its first decision only, as a bot whose set-up for the match is slow."""

    async def decide(self, turn):
        ms, self.ms = self.ms, 0
        self.clock.advance(ms / 1000)
        return await InProcessSeat.decide(self, turn)


def test_a_first_decision_out_of_time_says_the_set_up_runs_on_its_clock():
    """A bot whose ``__init__`` loaded a large table timed out on its first decision (the
    per-match copy of the bot and ``on_match_start`` run on that clock: the MatchStart is not
    waited for) and was told only "no answer within the decision limit", which sent its
    author to ``choose``. The first decision's timeout says so; a later one does not."""
    clock = ManualClock()
    config = MatchConfig(game="spades", seed=1, options=SPADES_ONE_DEAL, clock=Clock(decision_ms=10, bank_ms=10))
    seats = [SlowFirstSeat(50, clock)] + [InProcessSeat(RandomBot()) for _ in range(3)]
    record = asyncio.run(run_match(config, seats, clock=clock))
    assert record.outcome.reason is EndReason.FORFEIT_TIMEOUT
    assert record.incidents[0].detail == (
        "no answer within the decision limit (10 ms) and the 10 ms left in its bank (its first decision: the "
        "bot's per-match copy and on_match_start count too)")


class SlowFailingSeat(SlowSeat):
    """Hostile: takes ``ms`` per decision on the match's clock and answers its first by failing
    (a malformed answer, then a crash of ``choose``), its later ones with a legal action."""

    def __init__(self, ms: int, clock: ManualClock, failure: str):
        super().__init__(ms, clock)
        self.failure = failure
        self.decisions = 0

    async def decide(self, turn):
        self.decisions += 1
        if self.decisions > 1:
            return await super().decide(turn)
        self.clock.advance(self.ms / 1000)
        if self.failure == "malformed":  # what the seats raise for one (the gRPC seat's, the in-process one's)
            raise MalformedAction("'not an action'")
        raise BotFailed("choose raised RuntimeError: thought long, gave up")


@pytest.mark.parametrize("failure", ["malformed", "crash"])
def test_a_failed_answer_spends_the_bank_as_a_legal_one_does(failure):
    """Under the default policy a seat that thought past the decision limit and then failed (a
    crash, a malformed answer) had the first legal action played for it and its bank untouched:
    the bank was charged only for answers that were actions, so failing on purpose after a long
    think (where the first legal action is the forced one, at no cost) bought time that playing
    on would have paid for. 60 ms against a 10 ms limit and a 60 ms bank: the first (failed)
    answer spends 50 of the bank, so the second, as slow, is late."""
    clock = ManualClock()
    config = MatchConfig(game="spades", seed=1, options=SPADES_ONE_DEAL, clock=Clock(decision_ms=10, bank_ms=60),
                         policy=FailurePolicy.uniform(Policy.DEFAULT, max_strikes=5))
    seats = [SlowFailingSeat(60, clock, failure)] + [InProcessSeat(RandomBot()) for _ in range(3)]
    record = asyncio.run(run_match(config, seats, clock=clock))
    own = [a.forced for a in record.actions if a.seat == 0]
    assert own[:2] == [failure, "timeout"]
    # playing on (a legal first answer as slow) is charged the same: its second answer is late too
    honest = play_timed(60, clock=Clock(decision_ms=10, bank_ms=60), policy=FailurePolicy.uniform(Policy.DEFAULT, max_strikes=5))
    assert [a.forced for a in honest.actions if a.seat == 0][:2] == ["", "timeout"]


def test_timeouts_under_the_default_policy_play_on():
    record = play_timed(30, clock=Clock(decision_ms=5, bank_ms=0),
                        policy=FailurePolicy.uniform(Policy.DEFAULT, max_strikes=100))
    assert record.outcome.reason is EndReason.COMPLETED
    own = [a for a in record.actions if a.seat == 0]
    assert {i.kind for i in record.incidents} == {"timeout"} and len(record.incidents) == len(own) > 13
    assert all(a.forced == "timeout" for a in own)  # every late answer was replaced by the first legal action
    assert verify_record(record) == record.outcome


def test_wrong_number_of_seats_is_rejected():
    with pytest.raises(ValueError, match="4 seats"):
        play([RandomBot()] * 3)
