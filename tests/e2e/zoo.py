"""A zoo of misbehaving bots, one misbehaviour each, written against the public SDK only.

Each plays like ``random`` (from its own seeded ``self.rng``) and misbehaves at set
decisions of its seat, so a match is deterministic given its seed. The transport-parity
test (tests/e2e/test_driver_parity.py) plays each in process and over gRPC and compares
the records; the same files are what a bot author could write.
"""

from __future__ import annotations

import sys
import time

from sdk import Bot
from sdk.spades import Bid

#: The decisions (1-based, of this seat) at which a bot misbehaves: early, then again, so
#: that the default policy's strikes run out in a long match and the forfeit policy ends
#: it at the first.
BAD = {3, 9, 15, 21, 27}


class _Zoo(Bot):
    games = ("*",)
    bad = BAD

    def __init__(self) -> None:
        super().__init__()
        self.decisions = 0

    def choose(self, view, legal_actions):
        self.decisions += 1
        if self.decisions in self.bad:
            return self.misbehave(legal_actions)
        return self.rng.choice(legal_actions)

    def misbehave(self, legal_actions):
        return self.rng.choice(legal_actions)


class RaiseInChoose(_Zoo):
    name = "raise-choose"

    def misbehave(self, legal_actions):
        raise RuntimeError("boom in choose")


class RaiseInEvents(_Zoo):
    name = "raise-events"

    def __init__(self) -> None:
        super().__init__()
        self.deliveries = 0

    def on_events(self, events):
        self.deliveries += 1
        if self.deliveries in self.bad:
            raise ValueError("boom in on_events")


class RaiseInStart(_Zoo):
    name = "raise-start"

    def on_match_start(self, info):
        raise KeyError("boom in on_match_start")


class RaiseInEnd(_Zoo):
    name = "raise-end"

    def on_match_end(self, result):
        raise RuntimeError("boom in on_match_end")


class ReturnNone(_Zoo):
    name = "return-none"

    def misbehave(self, legal_actions):
        return None


class ReturnGarbage(_Zoo):
    name = "return-garbage"

    def misbehave(self, legal_actions):
        return {"not": "an action"}


class ReturnMalformed(_Zoo):
    name = "return-malformed"

    def misbehave(self, legal_actions):
        return "play 11X and then some"


class ReturnIllegal(_Zoo):
    """Answers an action it was offered at an earlier decision and is not offered now."""

    name = "return-illegal"

    def __init__(self) -> None:
        super().__init__()
        self.offered: list = []

    def choose(self, view, legal_actions):
        self.offered.extend(a for a in legal_actions if a not in self.offered)
        return super().choose(view, legal_actions)

    def misbehave(self, legal_actions):
        stale = [a for a in self.offered if a not in legal_actions]
        return stale[-1] if stale else legal_actions[0]


class OtherGameAction(_Zoo):
    """Answers an action of another game (a Spades bid; in Spades, a bid of 14 tricks)."""

    name = "other-game"

    def misbehave(self, legal_actions):
        return Bid(14)


class SleepPastClock(_Zoo):
    """Sleeps past the decision limit plus the bank (the parity test's clock: 2000 + 500 ms),
    twice. The limit is wide enough that the honest seats beside it never reach it on a
    loaded machine (at 1000 ms a random bot did, once, with a load average of 27)."""

    name = "sleepy"
    bad = {3, 9}

    def misbehave(self, legal_actions):
        time.sleep(2.7)
        return legal_actions[0]


class ExitMidMatch(_Zoo):
    name = "exit-mid"

    def misbehave(self, legal_actions):
        sys.exit(3)


class ExitAtStart(_Zoo):
    name = "exit-start"

    def on_match_start(self, info):
        sys.exit(4)


# -- Reaching past the driver: what a bot in the arbiter's process could do to the referee.


class _OwnBaseException(BaseException):
    """Not an Exception: a bot's own subclass of BaseException."""


class RaiseBaseException(_Zoo):
    name = "raise-base"

    def misbehave(self, legal_actions):
        raise _OwnBaseException("past every `except Exception`")


class RaiseCancelled(_Zoo):
    name = "raise-cancelled"

    def misbehave(self, legal_actions):
        import asyncio

        raise asyncio.CancelledError()


class HardExit(_Zoo):
    """``os._exit(0)``: no cleanup, no exception; over gRPC the process is simply gone."""

    name = "hard-exit"

    def misbehave(self, legal_actions):
        import os

        os._exit(0)


class RewriteOutcome(_Zoo):
    """Rewrites the result it is told (a frozen value: through ``object.__setattr__``),
    hoping the referee stored the same object."""

    name = "rewrite-outcome"

    def on_match_end(self, result):
        outcome = result.outcome
        object.__setattr__(outcome, "scores", tuple(999.0 if s == result.seat else -999.0 for s in range(len(outcome.scores))))
        object.__setattr__(outcome, "ranks", tuple(1 if s == result.seat else 4 for s in range(len(outcome.ranks))))


class RewriteView(_Zoo):
    """Rewrites what it is shown and the legal actions it is offered, hoping the referee
    (or the next seat, or a spectator) reads the same objects."""

    name = "rewrite-view"

    def choose(self, view, legal_actions):
        chosen = super().choose(view, legal_actions)
        for field in getattr(view, "__dataclass_fields__", {}):
            value = getattr(view, field)
            if isinstance(value, list):
                value.clear()
        legal_actions.clear()
        return chosen


class Uncopyable(_Zoo):
    """Holds a lock: it cannot be deep-copied, so it cannot start a match in process
    (each match plays a fresh copy). Hosted, its process copies it the same way."""

    name = "uncopyable"

    def __init__(self) -> None:
        super().__init__()
        import threading

        self.lock = threading.Lock()


class SlowStart(_Zoo):
    """``on_match_start`` sleeps past the decision limit plus the bank (the parity tests'
    clock: 2000 + 500 ms): the time before its first answer is on its clock wherever it
    plays. 3.5 s: a second past the first decision's deadline, and a second before the
    second's (2000 ms more, the bank spent), which a bot process, still asleep when its
    second Turn comes, then answers in time, as the bot in process does."""

    name = "slow-start"

    def on_match_start(self, info):
        time.sleep(3.5)


class DeepRecursion(_Zoo):
    """Recurses far past Python's default limit at its bad decisions, having raised the
    limit itself: the same crash (or the same answer) in process as in its own process."""

    name = "deep-recursion"

    def misbehave(self, legal_actions):
        sys.setrecursionlimit(1_000_000)

        def down(n):
            return 0 if n == 0 else 1 + down(n - 1)

        return legal_actions[down(20_000) % len(legal_actions)]
