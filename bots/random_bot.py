"""Plays a uniformly random legal action, in any game. Seeded per match by the arbiter.

The class is the SDK's own (``sdk.random_bot``), so the author's package and the platform
name the same bot ``random``."""

from __future__ import annotations

from sdk.random_bot import RandomBot

__all__ = ["RandomBot"]
