"""How the pages draw Tiny Tricks: board rows and the card table."""

from __future__ import annotations

from typing import Any

from arbiter.present.boards import BoardRow, hand_for, plural
from arbiter.present.table import Entry, HandCard, Pile, SeatBox, TableModel, _place, _who


def board(v: Any, names: tuple[str, ...], seat_views: tuple[Any, ...]) -> list[BoardRow]:
    rows = [BoardRow(f"trick {v.trick_number}", tuple(p.card for p in v.trick), section="table")]
    for s in range(v.num_players):
        hand = hand_for(v, seat_views, s)
        rows.append(BoardRow(f"seat {s}", hand or (), 0 if hand is not None else v.hand_counts[s],
                             note=plural(v.tricks_won[s], "trick"), section="hands"))
    return rows


def entry(text: str) -> Entry | None:
    return Entry(text, (text[5:],)) if text.startswith("play ") else None


def table(v: Any, names: tuple[str, ...], me: int | None, cat: list[Entry], seat_views: tuple[Any, ...],
          options: dict[str, Any]) -> TableModel:
    n = v.num_players
    place = _place(n, me if me is not None else (v.seat if v.seat is not None else 0))
    seats = []
    for s in range(n):
        own = me is not None and s == me
        box = SeatBox(s, _who(names, s, me), own, place[s], v.current_seat == s, [plural(v.tricks_won[s], "trick")],
                      where=f"seat {s}")
        hand = hand_for(v, seat_views, s)
        if not own and s != v.seat:
            if hand is not None:
                box.cards = hand
            else:
                box.backs = v.hand_counts[s]
        seats.append(box)
    trick = [Pile(f"seat {p.seat}", (p.card,), pos=place[p.seat]) for p in v.trick]
    hand = [HandCard(c, str(c), False) for c in v.hand] if v.seat is not None else []
    status = f"trick {v.trick_number}" + (f" · seat {v.current_seat} to play" if v.current_seat is not None else " · over")
    return TableModel("tiny-tricks", seats, [], f"trick {v.trick_number}", trick, hand, "your hand",
                      "Play a card (follow suit if you can)." if cat else "", status, cat, [], True,
                      trick_no=v.trick_number, over=v.current_seat is None)
