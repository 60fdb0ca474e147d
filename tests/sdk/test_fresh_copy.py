"""sdk.bot.fresh_copy: the per-match copy of a bot is exactly a deep copy, only quicker."""

from __future__ import annotations

import copy
import random

from sdk import Bot
from sdk.bot import fresh_copy


class Stateful(Bot):
    name = "stateful"

    def __init__(self) -> None:
        super().__init__()
        self.rng.random()  # the template's generator has moved on from its seed
        self.helper = {"rng": self.rng, "seen": [1, 2]}
        self.table = [[0] * 3]

    def choose(self, view, legal_actions):
        return legal_actions[0]


def test_the_copy_has_the_same_state_as_a_deep_copy_and_shares_nothing():
    bot = Stateful()
    fast, slow = fresh_copy(bot), copy.deepcopy(bot)
    assert fast.rng is not bot.rng
    assert fast.rng.getstate() == slow.rng.getstate() == bot.rng.getstate()
    assert [fast.rng.random() for _ in range(5)] == [slow.rng.random() for _ in range(5)]
    assert bot.rng.getstate() != fast.rng.getstate()  # drawing from the copy leaves the template alone
    # A second reference to the generator follows it, as with deepcopy.
    assert fast.helper["rng"] is fast.rng and slow.helper["rng"] is slow.rng
    fast.helper["seen"].append(3)
    fast.table[0][0] = 9
    assert bot.helper["seen"] == [1, 2] and bot.table == [[0, 0, 0]]


def test_a_bot_without_a_plain_random_generator_is_deep_copied_as_usual():
    class Counting(random.Random):
        pass

    bot = Stateful()
    bot.rng = Counting(7)  # a subclass may carry more state: no shortcut
    copied = fresh_copy(bot).rng
    assert type(copied) is Counting and copied is not bot.rng and copied.getstate() == bot.rng.getstate()
    bot.rng = None
    assert fresh_copy(bot).rng is None
    plain = object()
    assert type(fresh_copy(plain)) is object and fresh_copy(plain) is not plain
