"""What a batch is made of: planned matches, the one seed derivation, the one seating rule.

Every plan builder (tournaments, ``evaluate`` and its sequential test, the arena's
encounters, the statistics tools, the bench) describes its matches as ``PlannedMatch``es
and hands them to ``arbiter.batch.engine.play_batch``. The seeds come from ``derive_seed``
(a deal's from ``deal_seed``) and the seatings from ``seatings_of``, so two builders that
mean the same deals and seatings (a two-bot tournament and ``arbiter evaluate`` on one
seed) plan the same matches.
"""

from __future__ import annotations

import enum
import hashlib
import itertools
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

from cardarena.games import Game
from cardarena.records import MatchConfig


def derive_seed(seed: int, *parts: Any) -> int:
    """A 48-bit seed from a batch's seed and a path; stable across Python versions."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:6], "big")


def deal_seed(seed: int, deal: int, round: int = 0, table: int | None = None) -> int:
    """The seed of deal ``deal`` of round ``round``: every table's with duplicate deals
    (``table`` None), one table's own without."""
    if table is None:
        return derive_seed(seed, "deal", round, deal)
    return derive_seed(seed, "deal", round, deal, "table", table)


class Seatings(enum.Enum):
    """Which seatings of a table a duplicate deal is played in."""

    ROTATIONS = "rotations"  # each entry at each side once (k seatings for k sides)
    PERMUTATIONS = "permutations"  # every order of the entries over the sides (k! seatings)


@dataclass(frozen=True)
class Entry:
    """What occupies one side: ``members[i]`` is the bot at the side's i-th seat."""

    label: str
    members: tuple[str, ...]


def _dedupe(seq: Iterator[tuple]) -> list[tuple]:
    return list(dict.fromkeys(seq))


def seatings_of(table: Sequence[Entry], game: Game, mode: Seatings = Seatings.ROTATIONS) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every seating of a table: (bot per seat, entry label per side), each distinct once.

    Side orders are the rotations (or permutations) of the table; when a team has distinct
    members, their order over the side's seats rotates too (all teams at once), so each
    bot holds each seat's cards equally often.
    """
    teams = game.teams
    k, m = len(teams), len(teams[0])
    if mode is Seatings.PERMUTATIONS:
        orders = _dedupe(itertools.permutations(table))
    else:
        orders = _dedupe(tuple(table[(j - r) % k] for j in range(k)) for r in range(k))
    shifts = range(m) if any(len(set(e.members)) > 1 for e in table) else range(1)
    out = []
    for q in shifts:
        for order in orders:
            seats = [""] * game.num_seats
            for side, entry in zip(teams, order):
                for i, s in enumerate(side):
                    seats[s] = entry.members[(i + q) % m]
            out.append((tuple(seats), tuple(e.label for e in order)))
    return _dedupe(iter(out))


def pair_seatings(game: Game, a: str, b: str) -> list[tuple[str, ...]]:
    """The two seatings of a deal played by two bots (each with its copies), bot per seat:
    ``a`` on the even-numbered sides, then ``b`` there.

    It is ``seatings_of`` the table ``(a, b, a, b, ...)``: with two sides (or any even
    number) its rotations are exactly these two, so a two-bot tournament plays the same
    seatings in the same order. With an odd number of sides the rotations would leave one
    bot a side ahead in every seating; there the second seating is the first with the two
    bots exchanged.
    """
    per_side = len(game.teams[0])
    entries = (Entry(a, (a,) * per_side), Entry(b, (b,) * per_side))
    table = [entries[t % 2] for t in range(len(game.teams))]
    first, *rest = [seats for seats, _ in seatings_of(table, game)]
    swapped = tuple(b if n == a else a for n in first)
    return [first, rest[0] if len(rest) == 1 else swapped]


@dataclass(frozen=True)
class PlannedMatch:
    """One match of a batch.

    ``key`` is unique in the batch and is what resume skips by (a tournament's schedule
    index); ``seats`` names the bot of each seat (the venue's names); ``item`` is the plan
    builder's own description of the match, handed back with its record. ``guests`` are
    seats the caller plays itself (a person's: seat -> a ``SeatClient``), which the venue
    does not fill; ``observers`` watch this match (``MatchObserver``s: a page's progress).
    """

    key: int
    config: MatchConfig
    seats: tuple[str, ...]
    item: Any = field(default=None, compare=False)
    guests: Mapping[int, Any] = field(default_factory=dict, compare=False)
    observers: tuple[Any, ...] = field(default=(), compare=False)

    @property
    def deal(self) -> int:
        """The deal this match plays (its seed): no bot plays two matches of one deal at once."""
        return self.config.seed
