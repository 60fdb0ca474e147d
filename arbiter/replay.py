"""Replays: step a recorded match through the engine, verifying it, view by view.

A ``MatchRecord`` (game, options, seed, actions, result) is enough to rebuild the match:
the engine deals from the seed and every recorded action is applied in turn. While it
steps, the replay checks that each action was recorded for the seat whose turn it was,
that it parses, that it is among the legal actions, and finally that the actions lead to
the recorded result. Any difference raises ``ReplayError`` naming the step, the seat, the
action and what was wrong, so a changed action or a changed seed is caught and explained.

What a step shows depends on the viewpoint, and comes only from the engine's view seam:

- ``seat=N``: exactly what seat N saw (``state.view(N)``) and the events it was shown;
- ``seat=None``: the spectator's public view (the full deal once the game is over);
- ``full=True``: the public view plus every seat's own view, so every hand is visible
  (cards no seat could see, such as the stock order, stay hidden until the end).

``board()`` turns any game's view into a neutral list of labelled rows of cards, which
the terminal (rich) and the web page render in their own way.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from arbiter.games import Card, Event, Game, GameError, Outcome, State, events_for, get_game
from arbiter.match import MatchRecord, ReplayError

__all__ = ["ReplayError", "ReplayStep", "BoardRow", "step_record", "verify_record", "replay_steps", "board"]


@dataclass(frozen=True)
class ReplayStep:
    """The match after ``index`` actions (0: the deal, before any decision).

    ``view`` is the viewpoint's view; ``seat_views`` holds every seat's view in full mode
    (else it is empty). ``events`` are the events this step caused that the viewpoint may
    see. ``outcome`` is set on the last step of a finished match.
    """

    index: int
    total: int
    seat: int | None  # the seat that acted in this step (None for the deal)
    action: str | None  # its action, in notation
    forced: str  # non-empty when the arbiter chose the action (timeout, ...): why
    ms: int  # wall time the seat took, as recorded
    to_act: int | None  # the seat to act next (None once the game is over)
    events: tuple[Event, ...]
    view: Any
    seat_views: tuple[Any, ...] = ()
    outcome: Outcome | None = None

    @property
    def is_last(self) -> bool:
        return self.index == self.total


def _check_seat(record: MatchRecord, game: Game, seat: int | None) -> None:
    if seat is not None and not 0 <= seat < game.num_seats:
        raise ValueError(f"seat {seat}: {record.game} has seats 0 to {game.num_seats - 1}")


def _walk(record: MatchRecord) -> Iterator[tuple[int, State, list[Event]]]:
    """Yield (actions applied, state, new events) from the deal on; ReplayError on any fault.

    The state is the live one: read it before advancing the iterator.
    """
    try:
        game = get_game(record.game, record.options)
    except GameError as exc:
        raise ReplayError(f"the record's game or options are not valid: {exc}") from None
    state = game.new_initial_state(record.seed)
    yield 0, state, list(state.log)
    n = len(record.actions)
    for i, ra in enumerate(record.actions, 1):
        where = f"step {i} of {n}: seat {ra.seat} {ra.action!r}"
        if state.is_terminal:
            raise ReplayError(f"{where}: the game was already over after step {i - 1}; the record has extra actions")
        if ra.seat != state.current_seat:
            raise ReplayError(f"{where}: recorded for seat {ra.seat}, but it is seat {state.current_seat}'s turn. {_misfit(record)}")
        try:
            action = game.parse_action(ra.action)
        except GameError as exc:
            raise ReplayError(f"{where}: not an action of {record.game}: {exc}") from None
        if action not in state.legal_actions():
            try:
                state.legal_action_for(action)
                reason = "not a legal action now"
            except GameError as exc:
                reason = str(exc)
            raise ReplayError(
                f"{where} is not legal here ({reason}). {_misfit(record)}"
            )
        events = state.apply(action)
        yield i, state, events
    _check_result(record, state)


def _misfit(record: MatchRecord) -> str:
    return (f"The recorded actions do not fit the deal of seed {record.seed}: the record was altered "
            "(an action, a seat or the seed) or is corrupt")


def _check_result(record: MatchRecord, state: State) -> None:
    rec = record.outcome
    if rec is None:
        raise ReplayError("the record has no result")
    if rec.reason.name.startswith("FORFEIT") or rec.reason.name == "ABORTED":
        if state.is_terminal:
            raise ReplayError(f"the record says the match ended by {rec.reason.value}, but its actions finish the game")
        return
    if not state.is_terminal:
        raise ReplayError(
            f"the {len(record.actions)} recorded actions do not finish the game, yet the record gives a result "
            f"({rec.reason.value}); actions are missing"
        )
    got = state.outcome()
    if got != rec:
        raise ReplayError(
            f"the actions lead to scores {list(got.scores)}, ranks {list(got.ranks)} ({got.reason.value}), but the "
            f"record says scores {list(rec.scores)}, ranks {list(rec.ranks)} ({rec.reason.value}): the result or "
            f"the seed ({record.seed}) was altered"
        )


def verify_record(record: MatchRecord) -> Outcome:
    """Replay the record without building views; its outcome, or ReplayError naming the fault."""
    for _ in _walk(record):
        pass
    assert record.outcome is not None  # _check_result raised otherwise
    return record.outcome


def step_record(record: MatchRecord, seat: int | None = None, full: bool = False) -> Iterator[ReplayStep]:
    """Yield the match step by step from ``seat``'s viewpoint (None: a spectator; ``full``:
    every seat's view too), verifying as it goes.

    Raises ValueError for a seat the game does not have, and ReplayError (after the steps
    that did verify) when the record does not replay; the last step carries the outcome.
    """
    try:
        game = get_game(record.game, record.options)
    except GameError as exc:
        raise ReplayError(f"the record's game or options are not valid: {exc}") from None
    _check_seat(record, game, seat)
    total = len(record.actions)
    last: ReplayStep | None = None
    for i, state, events in _walk(record):
        ra = record.actions[i - 1] if i else None
        view = state.spectator_view() if seat is None else state.view(seat)
        seat_views = tuple(state.view(s) for s in range(state.game.num_seats)) if full else ()
        shown = tuple(events) if full else tuple(events_for(events, seat))
        step = ReplayStep(
            index=i, total=total, seat=ra.seat if ra else None, action=ra.action if ra else None,
            forced=ra.forced if ra else "", ms=ra.ms if ra else 0,
            to_act=state.current_seat, events=shown, view=view, seat_views=seat_views,
        )
        if i < total:
            yield step
        else:
            last = step  # held back until the result is checked, then shown with it
    # _walk finished without error: the result matches the record.
    assert last is not None
    yield dataclasses.replace(last, outcome=record.outcome)


def replay_steps(record: MatchRecord, seat: int | None = None, full: bool = False) -> list[ReplayStep]:
    """All steps at once (see ``step_record``)."""
    return list(step_record(record, seat, full))


# --------------------------------------------------------------------------------------
# A neutral picture of a view, for the terminal and the web page.


@dataclass(frozen=True)
class BoardRow:
    """One line of a board: a label, cards face up, a count of face-down cards, a note."""

    label: str
    cards: tuple[Card, ...] = ()
    face_down: int = 0
    note: str = ""
    section: str = ""  # rows of one section are shown together under this title


def _name(names: Sequence[str], seat: int | None) -> str:
    if seat is None or seat < 0:
        return "-"
    return f"seat {seat} ({names[seat]})" if seat < len(names) else f"seat {seat}"


def board(game: str, view: Any, seat_names: Sequence[str] = (), seat_views: Sequence[Any] = ()) -> list[BoardRow]:
    """The view as rows of cards. ``seat_views`` (full mode) supply every seat's hand."""
    fn = {"spades": _spades_board, "spite-and-malice": _spite_board, "spot": _spot_board}.get(game)
    if fn is None:
        raise ValueError(f"no board for game {game!r}")
    return fn(view, tuple(seat_names), tuple(seat_views))


def _hand_for(view: Any, seat_views: Sequence[Any], s: int) -> tuple[Card, ...] | None:
    """Seat ``s``'s cards if the viewpoint may see them, else None."""
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
        hand = _hand_for(v, seat_views, st.seat)
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
        pts = ", ".join(f"side {'AB'[r.side]} {r.points:+d} = {r.score}" for r in h.sides)
        rows.append(BoardRow(f"deal {h.deal} result", note=pts, section="scores"))
    for rec in v.record:
        for hand in rec.hands:
            rows.append(BoardRow(f"deal {rec.deal}: {_name(names, hand.seat)}", tuple(hand.cards), section="the deals (revealed)"))
    if v.winner is not None:
        rows.append(BoardRow("winner", note=f"side {'AB'[v.winner]}", section="table"))
    return rows


def _spite_board(v: Any, names: tuple[str, ...], seat_views: tuple[Any, ...]) -> list[BoardRow]:
    rows = [
        BoardRow("game", note=f"game {v.game_number}, turn {v.turn_number}, {v.phase.name.lower()}"
                 + (f", {_name(names, v.current_seat)} to act" if v.current_seat is not None else "")
                 + f", stock {v.stock_count}", section="table"),
    ]
    for i, pile in enumerate(v.center, 1):
        rows.append(BoardRow(f"centre {i}", pile.cards[-1:], note=f"value {pile.value}, {len(pile.cards)} cards", section="centre"))
    if not v.center:
        rows.append(BoardRow("centre", note="no piles", section="centre"))
    for p in v.players:
        who = _name(names, p.seat)
        rows.append(BoardRow(f"{who} pay-off", p.payoff_face_up, max(0, p.payoff_count - len(p.payoff_face_up)),
                             note=f"{p.payoff_count} left, {p.points} points", section=who))
        for j, stack in enumerate(p.side_stacks, 1):
            rows.append(BoardRow(f"{who} side {j}", stack.cards, section=who))
        hand = _hand_for(v, seat_views, p.seat)
        rows.append(BoardRow(f"{who} hand", hand or (), 0 if hand is not None else p.hand_count, section=who))
    if v.turn_moves:
        rows.append(BoardRow("this turn", tuple(m.card for m in v.turn_moves),
                             note="; ".join(m.action for m in v.turn_moves), section="play"))
    if v.reveal is not None:
        for s, h in enumerate(v.reveal.hands):
            rows.append(BoardRow(f"{_name(names, s)} hand", h.cards, section="revealed"))
        for s, pile in enumerate(v.reveal.payoffs):
            rows.append(BoardRow(f"{_name(names, s)} pay-off", pile.cards, section="revealed"))
        rows.append(BoardRow("stock", v.reveal.stock, section="revealed"))
    return rows


def _spot_board(v: Any, names: tuple[str, ...], seat_views: tuple[Any, ...]) -> list[BoardRow]:
    to_act = f", {_name(names, v.current_seat)} to act" if v.current_seat is not None else ""
    rows = [
        BoardRow("hand", note=f"hand {v.hand_number} of {v.hands_in_match}, dealer {_name(names, v.dealer)}, "
                 f"{v.phase.value}{to_act}, stock {v.stock_count}, pot {v.pot:g}", section="table"),
        BoardRow("discard pile", v.discard_pile[-6:], note=f"{len(v.discard_pile)} cards, top last", section="table"),
    ]
    for m in v.melds:
        rows.append(BoardRow(f"m{m.id} {m.kind.value}", m.cards, note=f"by {_name(names, m.owner)}", section="melds"))
    for s in range(v.num_players):
        hand = _hand_for(v, seat_views, s)
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
