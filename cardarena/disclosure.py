"""What of a stored tournament or match may be shown, and when: the one policy that every
reader asks (the web page, every export format, ``tournament show``, ``replay``, the
spectators of a run).

Two facts decide it:

- **A known seed gives away every deal still to be played**, duplicate or not (deals are
  computed from it with a public scheme). So a tournament's seed, given or drawn, is shown
  only once the tournament is over.
- **With duplicate deals, a deal comes back** in other seatings and pairings still to be
  played. While such a tournament runs it is *closed*: no match's deal seed, replay,
  actions or per-seating result may be shown to anyone who could tell a bot (its
  standings, which add up every seating, may). Once it is over, everything opens.

A match outside any tournament (``arbiter play``) or of a tournament without duplicate
deals is open as soon as it is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arbiter.store.db import MatchRow, Store, StoreError, TournamentRow

CLOSED_REASON = "its deals come back in matches still to be played"


class Withheld(PermissionError):
    """Something the policy does not let be shown yet; the message says what and until when."""


@dataclass(frozen=True)
class Disclosure:
    """What may be shown of one tournament now."""

    name: str
    running: bool
    duplicate: bool

    @property
    def closed(self) -> bool:
        """Running with duplicate deals: nothing deal-specific may be shown."""
        return self.running and self.duplicate

    @property
    def seed(self) -> bool:
        """The tournament's seed (given or drawn) may be shown."""
        return not self.running

    @property
    def matches(self) -> bool:
        """Each match's deal seed, replay, actions and per-seating result may be shown."""
        return not self.closed

    def require_match(self, match_id: str) -> None:
        """Withheld unless a match of this tournament may be shown."""
        if not self.matches:
            raise Withheld(f"match {match_id[:40]!r} is part of tournament {self.name!r}, which is still running with "
                           f"duplicate deals ({CLOSED_REASON}): its replay, seed and result open when the tournament ends")

    def seed_text(self, seed: int | None, drawn: int | None) -> str:
        """How to show the seed: the given one, the drawn one (once over), or why not."""
        if not self.seed:
            return "withheld until the tournament ends"
        if seed is not None:
            return str(seed)
        return f"{drawn} (drawn)" if drawn is not None else "secret (drawn by the arbiter)"


def of_tournament(tour: TournamentRow) -> Disclosure:
    return Disclosure(tour.name, running=tour.finished is None, duplicate=bool(tour.spec.get("duplicate", True)))


OPEN = Disclosure("", running=False, duplicate=False)


def of_match(store: Store, row: MatchRow) -> Disclosure:
    """The disclosure of ``row``'s tournament (a match of none is open)."""
    try:
        return of_tournament(store.tournament(row.tournament_id))
    except StoreError:
        return OPEN


def shown_seed(store: Store, tour: TournamentRow) -> int | None:
    """The seed that reproduces ``tour``, if it may be shown now; else None."""
    if not of_tournament(tour).seed:
        return None
    given: Any = tour.spec.get("seed")
    return int(given) if given is not None else store.drawn_seed(tour.id)
