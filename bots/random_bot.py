"""Plays a uniformly random legal action, in any game. Seeded per match by the arbiter.

The rule is the SDK's own (``sdk.random_bot``: the author's package brings it), so the
author's package and the platform name the same bot ``random``; the class is declared
here too so that this file is a bot file of its own (``arbiter bots check bots/random_bot.py``)."""

from __future__ import annotations

from sdk import random_bot


class RandomBot(random_bot.RandomBot):
    pass
