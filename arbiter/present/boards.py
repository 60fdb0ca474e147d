"""A neutral picture of a view, for the terminal and the web page.

``board()`` turns any game's view into a list of labelled rows of cards, which the
terminal (rich) and the web page render in their own way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from cardarena.games import Card



@dataclass(frozen=True)
class BoardRow:
    """One line of a board: a label, cards face up, a count of face-down cards, a note."""

    label: str
    cards: tuple[Card, ...] = ()
    face_down: int = 0
    note: str = ""
    section: str = ""  # rows of one section are shown together under this title


def _name(names: Sequence[str], seat: int | None) -> str:
    if seat is None:
        return "-"
    return f"seat {seat} ({names[seat]})" if seat < len(names) else f"seat {seat}"


def _cards(n: int) -> str:
    return f"{n} card" + ("" if n == 1 else "s")


def board(game: str, view: Any, seat_names: Sequence[str] = (), seat_views: Sequence[Any] = ()) -> list[BoardRow]:
    """The view as rows of cards. ``seat_views`` (full mode) supply every seat's hand."""
    from arbiter.present.games import page_part  # the registry names this module's boards

    fn = page_part(game, "board")
    return fn(view, tuple(seat_names), tuple(seat_views))


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 card``, ``2 cards`` (``words``: an irregular plural, ``plural(n, "match", "matches")``):
    the counts of the pages and of the commands (``arbiter.cli._common`` takes it from here)."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def hand_for(view: Any, seat_views: Sequence[Any], s: int) -> tuple[Card, ...] | None:
    """Seat ``s``'s cards if the viewpoint may see them, else None (the board and the
    card table, ``arbiter.present.table``, ask the same)."""
    if seat_views:
        v = seat_views[s]
        return tuple(v.hand) if getattr(v, "hand_visible", True) else None
    if view.seat == s and getattr(view, "hand_visible", True):
        return tuple(view.hand)
    return None


def _spades_board(v: Any, names: tuple[str, ...], seat_views: tuple[Any, ...]) -> list[BoardRow]:
    rows = [
        BoardRow("deal", note=f"deal {v.deal}, dealer {_name(names, v.dealer)}, {v.phase.name.lower()}"
                 + (f", {_name(names, v.to_act)} to act" if v.to_act is not None else ""), section="table"),
    ]
    for side in v.sides:
        seats = " & ".join(str(s) for s in side.seats)
        rows.append(BoardRow(f"side {'AB'[side.side]} (seats {seats})", note=f"score {side.score}, bags {side.bags}", section="table"))
    for st in v.seats:
        bid = "-" if st.bid is None else ("blind nil" if st.blind_nil else ("nil" if st.bid == 0 else str(st.bid)))
        hand = hand_for(v, seat_views, st.seat)
        rows.append(BoardRow(_name(names, st.seat), hand or (), 0 if hand is not None else st.hand_count,
                             f"bid {bid}, tricks {st.tricks_won}", section="hands"))
    if v.trick:
        rows.append(BoardRow("trick", tuple(p.card for p in v.trick),
                             note="played by seats " + " ".join(str(p.seat) for p in v.trick), section="play"))
    if v.tricks:
        last = v.tricks[-1]
        rows.append(BoardRow(f"trick {len(v.tricks)}", tuple(p.card for p in last.cards),
                             note=f"led by seat {last.leader}, won by {_name(names, last.winner)}", section="play"))
    for h in v.history[-3:]:
        # the deal's points, then its bag penalties (counted: their points are an option),
        # then the total: "+158 = 395" from 337 hid the 100 a penalty took
        pts = ", ".join(f"side {'AB'[r.side]} {r.points:+d}"
                        + (f", {plural(r.penalties, 'bag penalty', 'bag penalties')}" if r.penalties else "")
                        + f" = {r.score}" for r in h.sides)
        rows.append(BoardRow(f"deal {h.deal} result", note=pts, section="scores"))
    for rec in v.record:
        for hand in rec.hands:
            rows.append(BoardRow(f"deal {rec.deal}: {_name(names, hand.seat)}", tuple(hand.cards), section="the deals (revealed)"))
    if v.winner is not None:
        rows.append(BoardRow("winner", note=f"side {'AB'[v.winner]}", section="table"))
    return rows


def _spite_board(v: Any, names: tuple[str, ...], seat_views: tuple[Any, ...]) -> list[BoardRow]:
    # Piles are labelled as the notation names them, from 0: center:0, side:3 (what a
    # bot plays and the replay's actions show), never "centre 1" / "side 4".
    rows = [
        BoardRow("game", note=f"game {v.game_number + 1}, "
                 + (f"turn {v.turn_number + 1}, {v.phase.name.lower()}, {_name(names, v.current_seat)} to act"
                    if v.current_seat is not None else f"over after {plural(v.turn_number, 'turn')}")
                 + f", stock {v.stock_count}"
                 + (f", deadlock reshuffles {v.deadlock_reshuffles}" if v.deadlock_reshuffles else ""), section="table"),
    ]
    if v.first_player_turn_ups:  # the game's choice of its first player (§2.3), round by round
        rounds = [[t for t in v.first_player_turn_ups if t.round == r] for r in range(v.first_player_turn_ups[-1].round + 1)]
        rows.append(BoardRow("first player", tuple(t.card for t in v.first_player_turn_ups),
                             note=f"{_name(names, v.first_player)} plays first; turned up by seats "
                             + ", then ".join(" ".join(str(t.seat) for t in r) for r in rounds)
                             + (f" ({plural(len(rounds) - 1, 'tie')}: the tied reshuffled)" if len(rounds) > 1 else ""),
                             section="table"))
    for i, pile in enumerate(v.center):
        rows.append(BoardRow(f"center:{i}", pile.cards[-1:], note=f"value {pile.value}, {_cards(len(pile.cards))}", section="centre"))
    if not v.center:
        rows.append(BoardRow("center", note="no piles (center:new starts one)", section="centre"))
    for i, pile in enumerate(v.completed):
        rows.append(BoardRow(f"completed {i}", pile.cards[-1:], note=f"{_cards(len(pile.cards))}, set aside", section="centre"))
    series = any(p.points for p in v.players)
    for p in v.players:
        who = _name(names, p.seat)
        rows.append(BoardRow(f"{who} payoff", p.payoff_face_up, max(0, p.payoff_count - len(p.payoff_face_up)),
                             note=f"{p.payoff_count} left" + (f", {plural(p.points, 'point')}" if series else ""), section=who))
        for j, stack in enumerate(p.side_stacks):
            rows.append(BoardRow(f"{who} side:{j}", stack.cards, section=who))
        hand = hand_for(v, seat_views, p.seat)
        rows.append(BoardRow(f"{who} hand", hand or (), 0 if hand is not None else p.hand_count, section=who))
    if v.turn_moves:
        rows.append(BoardRow("this turn", tuple(m.card for m in v.turn_moves),
                             note="; ".join(m.action for m in v.turn_moves), section="play"))
    if v.reveal is not None:
        for s, h in enumerate(v.reveal.hands):
            rows.append(BoardRow(f"{_name(names, s)} hand", h.cards, section="revealed"))
        for s, pile in enumerate(v.reveal.payoffs):
            rows.append(BoardRow(f"{_name(names, s)} payoff", pile.cards, section="revealed"))
        rows.append(BoardRow("stock", v.reveal.stock, section="revealed"))
    return rows


def spot_hand_text(v: Any) -> str:
    """Which hand of a Spot match ``v`` shows: "hand 3 of 12", or past the match's length
    (option end_pot=play_until_won) "hand 14, extra hand 2 after 12 (until the pot is won)",
    not "hand 14 of 12"."""
    n, of = v.hand_number, v.hands_in_match
    if n <= of:
        return f"hand {n} of {of}"
    return f"hand {n}, extra hand {n - of} after {of} (until the pot is won)"


def _spot_board(v: Any, names: tuple[str, ...], seat_views: tuple[Any, ...]) -> list[BoardRow]:
    to_act = f", {_name(names, v.current_seat)} to act" if v.current_seat is not None else ""
    rows = [
        BoardRow("hand", note=f"{spot_hand_text(v)}, dealer {_name(names, v.dealer)}, "
                 f"{v.phase.value}{to_act}, stock {v.stock_count}, pot {v.pot:g}", section="table"),
        BoardRow("discard pile", v.discard_pile[-6:], note=f"{plural(len(v.discard_pile), 'card')}, top last", section="table"),
    ]
    for m in v.melds:
        laid = [f"{x.card} by {_name(names, x.seat)}" for x in v.layoffs if x.meld == m.id]
        rows.append(BoardRow(f"m{m.id} {m.kind.value}", m.cards, section="melds",
                             note=f"by {_name(names, m.owner)}" + (f"; laid off {', '.join(laid)}" if laid else "")))
    for s in range(v.num_players):
        hand = hand_for(v, seat_views, s)
        rows.append(BoardRow(_name(names, s), hand or (), 0 if hand is not None else v.hand_counts[s],
                             note=f"balance {v.balances[s]:+g}", section="seats"))
    if v.last_hand is not None:
        lh = v.last_hand
        for h in lh.hands:
            rows.append(BoardRow(f"hand {lh.hand_number}: {_name(names, h.seat)}", h.cards,
                                 note=f"{h.spots} spots, net {lh.net[h.seat]:+g}", section="last hand (shown)"))
    if v.unused_stock:
        rows.append(BoardRow("unused stock", v.unused_stock, section="revealed"))
    return rows
