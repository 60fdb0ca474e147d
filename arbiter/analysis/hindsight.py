"""Hindsight for Spades: with every card known, how many tricks each card a seat could play
would have won for its side (a double-dummy count), beside the card it played.

Unlike ``values`` this reads the whole deal, so it is hindsight, never what the seat could
know: it steps the record in full mode (``step_record(record, full=True)``, every hand),
which a reader may ask only of a match the disclosure rule shows (the CLI reads records
through it).

The count is bridge's: the well-kept DDS solver through endplay's bindings (an optional
dependency: ``pip install 'card-arena[hindsight]'``), spades trump, every seat playing
perfectly with all cards seen, the tricks still to play counted for the seat's side. It is
**approximate** where Spades differs from bridge: bridge has no "spades may not be led
until broken" rule, so a count may assume a spade lead that Spades forbids; and it counts
tricks, not points (nil bids, bags and contracts are not in it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from cardarena.records import MatchRecord
from cardarena.replay import step_record

__all__ = ["APPROXIMATE", "CardCount", "HindsightUnavailable", "double_dummy", "require_solver"]

APPROXIMATE = ("approximate: bridge's double-dummy count (spades trump, all cards seen), without Spades' rule that "
               "spades may not be led until broken; tricks, not points")


class HindsightUnavailable(RuntimeError):
    """The double-dummy solver is not installed, or the game has no hindsight count."""


@dataclass(frozen=True)
class CardCount:
    """One card-play decision of the seat in hindsight: ``tricks[card]`` is how many of the
    deal's remaining tricks (the current one included) the seat's side wins if it plays
    ``card`` and everyone then plays perfectly; ``played`` the card it played ("" if the
    match ended there)."""

    number: int  # the seat's decision number (as in ``reask.decisions``), from 1
    step: int
    played: str
    tricks: dict[str, int]

    @property
    def best(self) -> int:
        return max(self.tricks.values())

    @property
    def lost(self) -> int:
        """Tricks the played card gave away against the best card (0 if none was played)."""
        return self.best - self.tricks[self.played] if self.played in self.tricks else 0


def require_solver() -> None:
    """HindsightUnavailable (saying how to install it) unless the solver can be imported."""
    _solver()


def _solver() -> Any:
    try:
        import endplay.dds as dds
        from endplay.types import Card, Deal, Denom, Player
    except ImportError:
        raise HindsightUnavailable("the double-dummy count needs endplay: pip install 'card-arena[hindsight]'") from None
    return dds, Card, Deal, Denom, Player


def _ours(text: str) -> str:
    """endplay's ``♠T`` as our notation ``10S``."""
    suit = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}[text[0]]
    rank = text[1:]
    return ("10" if rank == "T" else rank) + suit


def _pbn_hand(cards: Any) -> str:
    by_suit: dict[str, list[str]] = {s: [] for s in "SHDC"}
    for c in cards:
        t = str(c)
        by_suit[t[-1]].append("T" if t[:-1] == "10" else t[:-1])
    return ".".join("".join(by_suit[s]) for s in "SHDC")


def double_dummy(record: MatchRecord, seat: int) -> Iterator[CardCount]:
    """The seat's card plays in ``record`` (Spades), each with the double-dummy count of
    every legal card (see the module docstring). HindsightUnavailable without the solver or
    for another game; ReplayError for a record that does not replay."""
    if record.game != "spades":
        raise HindsightUnavailable(f"hindsight counts tricks: Spades only, not {record.game}")
    dds, Card, Deal, Denom, Player = _solver()
    number = 0
    for step in step_record(record, full=True):
        if step.to_act != seat:
            continue
        number += 1
        view = step.view
        if view.phase.name != "PLAY":
            continue
        on_table = list(view.trick)
        hands = [list(step.seat_views[s].hand) for s in range(4)]
        for p in on_table:  # the deal as it stood when the trick began, then the trick's cards played
            hands[p.seat].append(p.card)
        leader = on_table[0].seat if on_table else seat
        pbn = "N:" + " ".join(_pbn_hand(hands[(0 + k) % 4]) for k in range(4))
        deal = Deal(pbn, first=Player(leader), trump=Denom.spades)
        for p in on_table:
            deal.play(Card(_endplay_card(p.card)))
        counts = {_ours(str(c)): int(t) for c, t in dds.solve_board(deal)}
        legal = {str(a.card) for a in step.legal}
        counts = {c: t for c, t in counts.items() if c in legal}
        ra = record.actions[step.index] if step.index < len(record.actions) else None
        played = ra.action.split()[-1] if ra is not None else ""
        yield CardCount(number, step.index, played, counts)


def _endplay_card(card: Any) -> str:
    t = str(card)
    return t[-1] + ("T" if t[:-1] == "10" else t[:-1])
