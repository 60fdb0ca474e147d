"""What of a match may be shown, to whom, and when: the one rule that every reader asks
(the web pages, the arena's pages, every export format, ``tournament show``, ``replay``,
the spectators of a run, a running tournament's page: ``live_tables``) and that decides
what a seat receives when its match ends.

Two facts decide it:

- **A known seed gives away every deal still to be played**, duplicate or not (deals are
  computed from it with a public scheme). So a tournament's seed, given or drawn, is shown
  only once the tournament is over.
- **A deal can come back.** A duplicate tournament plays every deal again in other
  seatings and pairings; an arena encounter plays each of its deals in every seating.
  While such a batch is being played it is *closed*: no match's deal seed, replay,
  actions or per-seating result may be shown to anyone who could tell a bot (its
  standings may, counting only the deals whose every match is stored: below). A
  tournament opens once it is over; an encounter once it is stored whole (``done``); one
  ``abandoned`` never opens (its deals were partly seen and the ladder never counts it).

**What adds matches up** (``Disclosure.counted``): a closed batch's standings may be shown,
but they change as each match is stored, and two reads a match apart would tell that match's
result (its points, W/D/L, margin, the ratings moved), one seating of a deal still to be
played in another seating or at another table. So while a batch is closed every number
made from its matches (the standings, the cross-table, the exports, the think times, the
s.d. a sequential test reads from the store, ``tournament run``'s progress line) counts only the deals *all* of whose planned
matches are stored: every seating at every table that plays the deal, as the batch's plan
says (a round robin plays each deal at every table of its round), never as the rows stored
so far suggest. The tables say so: "N deals of M counted; a deal counts once all its matches
are in". Two reads around storing one match then differ only where that match completed a
deal, and a deal complete is one no bot will see again. Once the batch is open (or for a
batch whose deals do not come back) every stored match counts. The lists of a closed batch's
matches (``tournament show`` and its ``--failures``, the web page's) list only the matches
counted (``Counted.rows``, ``Counted.counts``): a match of a deal not yet counted is not
listed at all, since its row appearing as it is stored would time it (a match cut short by a
forfeit ends sooner than a whole deal: one seating's result, told by the clock), and its end
and incidents by seat would tell that result outright (a forfeit's seat is its result). The
lists say only how many matches they leave out (``Counted.unlisted_note``: "N matches of deals
not yet played through are listed once their deals are whole": true of an interrupted batch
too, which nothing plays), a count the progress line
("7/12 matches") shows anyway.

A match of no batch (``arbiter play``, a person's match at ``/play``, a match started on
``arbiter serve``) or of a tournament without duplicate deals is open as soon as it is
stored.

**The end of a match** (``final_view``): the engine's spectator view of an ended game is
the whole deal (Spite and Malice: every hand, pay-off pile and the stock; Spot: the unused
stock; Spades, whose cards are all played by then: every hand as dealt and the cards each
side exchanged for a blind nil). A seat receives it only if the match is
open. In a closed one each seat receives its own view of the ended game
(``State.view(seat)``), which shows nothing it could not see anyway, and a spectator none:
the same cards come back in a twin seating still to be played. A match cut short (a
forfeit) has no final view. The match runner asks ``final_view`` of the disclosure its
``MatchConfig`` carries; the batch that builds the config chooses the disclosure.

This module is pure (no store, no I/O): the store turns its rows into a ``Disclosure``
(``TournamentRow.disclosure``, ``Store.disclosure_of``, ``EncounterRow.disclosure``), and a
tournament's readers ask ``arbiter.tournament.run.counted_matches`` (the plan's deals, then
``Disclosure.counted``) what its numbers may add up. An arena encounter is stored whole, with
its ratings, in one transaction: its ladder never counts a part of one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Mapping, Sequence

CLOSED_REASON = "its deals come back in matches still to be played"


class Withheld(PermissionError):
    """Something the rule does not let be shown yet; the message says what and until when."""


@dataclass(frozen=True)
class Disclosure:
    """What may be shown of one batch of matches (a tournament, an arena encounter) now.

    Attributes:
        name: what the batch is called in messages ("tournament 'club'", "encounter 3 of
            arena 'ladder'"); "" for a match of no batch.
        running: the batch is still being played (its matches may be shown only if no
            deal of it comes back).
        duplicate: its deals come back in other matches of it (duplicate deals).
        until: when a closed batch opens, for messages.
        abandoned: cut off and never to open (an arena encounter a stop or a crash cut
            short): messages say so, not "still running".
        resume: not finished, and nothing runs it now (interrupted: a Ctrl-C, a signal, a
            crash): how to resume it, which messages say instead of "still running" (the
            store, which knows whether a run holds it, sets it: ``Store.tournament_disclosure``).
    """

    name: str
    running: bool
    duplicate: bool
    until: str = "when the tournament ends"
    abandoned: bool = False
    resume: str = ""

    def _withheld(self) -> tuple[str, str]:
        """Why the batch is closed and when what it withholds opens, for messages."""
        if self.abandoned:
            return ("was abandoned (cut off by a stop or a crash after some of its deals were played, and never "
                    "counted)", "are never shown")
        if self.resume:
            return ("was interrupted with duplicate deals, and nothing runs it (its deals come back in matches still "
                    "to be played)", f"are withheld until it finishes; {self.resume}")
        return f"is still running with duplicate deals ({CLOSED_REASON})", f"open {self.until}"

    def closed_text(self) -> str:
        """Why a closed batch's matches are not shown, said of the batch ("is still running with
        duplicate deals ...", "was interrupted ...; resume it: ..."), for a line of its own."""
        why, when = self._withheld()
        return f"{why}: its matches' replays, seeds and results {when}"

    @property
    def closed(self) -> bool:
        """Being played, with deals that come back: nothing deal-specific may be shown."""
        return self.running and self.duplicate

    @property
    def seed(self) -> bool:
        """The batch's seed (given or drawn) may be shown."""
        return not self.running

    @property
    def matches(self) -> bool:
        """Each match's deal seed, replay, actions and per-seating result may be shown."""
        return not self.closed

    @property
    def live_tables(self) -> bool:
        """A match being played may be shown on a public page as its public table (what a
        spectator sees, no hidden card), ``LIVE_DELAY_S`` late. Not while the batch is
        closed: its public plays show the hands of a deal that comes back, and no delay
        helps when the deal's twin is played later (only who plays is shown, not how far: a count
        of decisions read live tells each seat's think times and a match cut short)."""
        return self.matches

    def counted(self, rows: Sequence[Any], deal_of: Callable[[Any], Hashable],
                planned: Mapping[Hashable, int]) -> "Counted":
        """The stored matches (``rows``) whose numbers may be added up now: all of them if
        the batch is not closed; while it is, only those of deals all of whose ``planned``
        matches (deal -> how many matches the batch's plan plays it in, every seating at
        every table) are stored. ``deal_of`` gives a row's deal. A deal the plan does not
        name never counts while the batch is closed."""
        if not self.closed:
            return Counted(tuple(rows), len({deal_of(r) for r in rows}), len(planned) if planned else None, closed=False)
        stored = Counter(deal_of(r) for r in rows)
        whole = frozenset(d for d, n in stored.items() if planned.get(d, 0) > 0 and n >= planned[d])
        counted = tuple(r for r in rows if deal_of(r) in whole)
        return Counted(counted, len(whole), len(planned), closed=True, whole=whole, deal_of=deal_of,
                       held=len(rows) - len(counted))

    def require_match(self, match_id: str) -> None:
        """Withheld unless a match of this batch may be shown."""
        if not self.matches:
            why, when = self._withheld()
            raise Withheld(f"match {match_id[:40]!r} is part of {self.name}, which {why}: its replay, seed and result {when}")

    def require_matches(self) -> None:
        """Withheld unless the matches of this batch may be shown: for a reader asked for the
        whole batch (an export of a tournament), said of the batch, not of one match."""
        if not self.matches:
            raise Withheld(f"{self.name} {self.closed_text()}")

    def seed_text(self, seed: int | None, drawn: int | None) -> str:
        """How to show the seed: the given one, the drawn one (once over), or why not."""
        if not self.seed:
            return "withheld until the tournament ends"
        if seed is not None:
            return str(seed)
        return f"{drawn} (drawn)" if drawn is not None else "secret (drawn by the arbiter)"

    def final_view(self, state: Any, viewer: int | None) -> Any:
        """What ``viewer`` (a seat, or None for a spectator) receives of ``state`` when the
        match ends: the whole deal if the match is open, else the seat's own view (and a
        spectator nothing); None if the game did not end (a forfeit)."""
        if not state.is_terminal:
            return None
        if self.matches:
            return state.spectator_view()
        return None if viewer is None else state.view(viewer)


def counted_note(deals: int, planned: int) -> str:
    """What a closed batch's standings say under them (``Counted.note``; an export's ``counted``)."""
    return (f"{deals} deal{'' if deals == 1 else 's'} of {planned} counted; a deal counts once all its matches are in "
            f"(while the tournament runs, {CLOSED_REASON})")


@dataclass(frozen=True)
class Counted:
    """What a batch's numbers add up now (``Disclosure.counted``).

    Attributes:
        rows: the stored matches counted, in the order given.
        deals: the deals they play (while closed: the deals whole).
        planned: the deals of the batch's plan (None where it was not needed: nothing held back).
        closed: the batch is closed, so a deal counts only once all its matches are stored.
        whole: while closed, the deals counted (``counts`` asks it of a match).
        deal_of: while closed, a match's deal, as ``Disclosure.counted`` was given it.
        held: while closed, the stored matches not counted (of deals not whole yet): the
            lists of matches leave them out and say how many (``unlisted_note``).
    """

    rows: tuple[Any, ...]
    deals: int
    planned: int | None
    closed: bool
    whole: frozenset = field(default=frozenset(), repr=False)
    deal_of: Callable[[Any], Hashable] | None = field(default=None, repr=False, compare=False)
    held: int = 0

    def counts(self, row: Any) -> bool:
        """Whether the stored match ``row`` is counted: every match of an open batch; while
        the batch is closed, one of a deal all of whose matches are in. A list of a closed
        batch's matches lists a match (how it ended, a forfeit, its incidents by seat) once it
        counts, as the standings' forfeits count it; before, its row appearing would time it
        and its end would tell one seating's result while its deal is still to be played."""
        return not self.closed or (self.deal_of is not None and self.deal_of(row) in self.whole)

    @property
    def unlisted_note(self) -> str:
        """What a list of these matches says of those it leaves out: while closed, how many
        stored matches wait for their deals ("" when none does)."""
        if not self.closed or not self.held:
            return ""
        if self.held == 1:
            return "1 match of a deal not yet played through is listed once its deal is whole"
        return f"{self.held} matches of deals not yet played through are listed once their deals are whole"

    @property
    def note(self) -> str:
        """What a table of these numbers says of them: while closed, how many deals it counts
        and why ("" once every stored match counts)."""
        return counted_note(self.deals, self.planned or 0) if self.closed else ""

    def to_json(self) -> dict[str, Any]:
        """For an export: the deals and matches counted, of the deals planned (None when every
        stored match counts), and whether the batch is closed (only whole deals counted)."""
        return {"deals": self.deals, "of": self.planned, "matches": len(self.rows), "closed": self.closed}


#: How late a public page (a running tournament's web page) shows a match being played:
#: each table as it stood this many seconds ago, so that what a visitor sees is stale by
#: the time anyone could relay it to a seat (``Disclosure.live_tables`` says whether at all).
LIVE_DELAY_S = 30.0


def notes_visible(note_seat: int, viewer: int | None, full: bool) -> bool:
    """Whether a bot's note on a decision of ``note_seat`` may be shown to a reader who sees
    the match as seat ``viewer`` (None: a spectator), or every hand (``full``). A note is
    disclosed like that seat's view (it may name the seat's cards): to the reader of every
    hand, and to one stepping as that seat; never to a spectator or another seat."""
    return full or (viewer is not None and viewer == note_seat)


#: A match of no batch: open as soon as it is stored.
OPEN = Disclosure("", running=False, duplicate=False)

#: What a match config says when its maker said nothing: closed (each seat gets its own
#: view at the end). Batches say what they are; open matches say ``OPEN``.
UNSAID = Disclosure("an unnamed batch", running=True, duplicate=True, until="when its batch ends")


def of_tournament(name: str, finished: bool, duplicate: bool) -> Disclosure:
    """A tournament's disclosure: closed while it runs with duplicate deals."""
    return Disclosure(f"tournament {name!r}", running=not finished, duplicate=duplicate)


def of_encounter(arena: str, idx: int | None, status: str) -> Disclosure:
    """An arena encounter's (``idx`` None: one being played, not yet numbered for messages):
    it plays each deal in every seating, so it is closed until it is stored whole
    (``done``); an ``abandoned`` one stays closed."""
    what = f"encounter {idx} of arena {arena!r}" if idx is not None else f"an encounter of arena {arena!r}"
    return Disclosure(what, running=status != "done", duplicate=True,
                      until="when the encounter is stored whole (an abandoned one never)", abandoned=status == "abandoned")
