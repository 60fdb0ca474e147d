"""Bridge's double-dummy solver for Spades deals, for the arbiter: the one door to
``bots.spades_dds`` (the bundled ``dds`` bot's module) outside a seat.

``opening_tricks``: the tricks the side of seats 0 and 2 takes in a whole deal played with every
card seen, spades trump; the variance tools use it as a feature of the deal (a function of the
cards alone). Needs endplay (installed with the arbiter); ``available`` says whether it is there.
"""

from __future__ import annotations

from bots.spades_dds import DdsUnavailable, available, opening_tricks

__all__ = ["DdsUnavailable", "available", "opening_tricks"]
