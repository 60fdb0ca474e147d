"""Replays: step a recorded match through the engine, verifying it, view by view.

A ``MatchRecord`` (game, options, seed, actions, result) is enough to rebuild the match:
the engine deals from the seed and every recorded action is applied in turn. While it
steps, the replay checks that each action was recorded for the seat whose turn it was,
that it parses, that it is among the legal actions, and finally that the actions lead to
the recorded result. Any difference raises ``ReplayError`` naming the step, the seat, the
action and what was wrong, so a changed action or a changed seed is caught and explained.

What a step shows depends on the viewpoint, and comes only from the engine's view seam:

- ``seat=N``: exactly what seat N saw (``state.view(N)``), the events it was shown, and
  each action as it read to N (``Game.action_text``: another seat's blind-nil give
  names no card);
- ``seat=None``: the spectator's public view (the full deal once the game is over) and
  the actions as a spectator reads them;
- ``full=True``: the public view plus every seat's own view, so every hand is visible
  (``State.revealed_view``: a Spades hand not yet looked at too; cards no seat could
  see, such as the stock order, stay hidden until the end), and
  every action in full notation.

This is the one verifier: the store, the web page, the CLI and the tests all call it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterator

from cardarena.games import Action, Event, Game, GameError, Outcome, State, events_for, get_game
from cardarena.records import FORFEIT_REASON, MatchRecord, clip, forfeit_outcome

__all__ = ["ReplayError", "ReplayStep", "illegal_reason_at", "step_number", "step_record", "verify_record", "replay_steps"]


def step_number(actions_before: int) -> int:
    """The step at which the action played after ``actions_before`` actions of a record shows.

    The one numbering of a match's steps that every reader shows (``arbiter replay``, its
    ``--at``, ``arbiter analyse``, the web replay and the inspector): step 0 is the deal,
    step K the record's K-th action (counted from 1; ``ReplayStep.index`` is the match after
    it). A decision's step is thus the actions played before it, plus one: analyse's "step 9"
    is replay's "step 9 of N", the same action."""
    return actions_before + 1


class ReplayError(Exception):
    """A record that does not replay to its recorded result; the message names the step and the fault."""


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
    action: str | None  # its action, as it reads to the viewpoint (full notation in full mode)
    forced: str  # non-empty when the arbiter chose the action (timeout, ...): why
    ms: int  # wall time the seat took, as recorded
    to_act: int | None  # the seat to act next (None once the game is over)
    events: tuple[Event, ...]
    view: Any
    seat_views: tuple[Any, ...] = ()
    outcome: Outcome | None = None
    #: the legal actions of ``to_act``, when the viewpoint may know them: the viewpoint is
    #: that seat (its decision, as it was asked), or full mode; else empty
    legal: tuple[Action, ...] = ()

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
    if len(record.seat_names) != game.num_seats:  # every reader names each seat from this list
        raise ReplayError(f"the record names {len(record.seat_names)} seats, but {record.game} with its options "
                          f"has {game.num_seats}: the record was altered or is corrupt")
    for k, inc in enumerate(record.incidents, 1):  # each names a seat, and a failure the arbiter records
        if not 0 <= inc.seat < game.num_seats or inc.kind not in FORFEIT_REASON:
            fault = (f"seat {inc.seat}, but {record.game} has seats 0 to {game.num_seats - 1}"
                     if not 0 <= inc.seat < game.num_seats else
                     f"{clip(repr(inc.kind), 40)}, which is no failure (they are {', '.join(FORFEIT_REASON)})")
            raise ReplayError(f"incident {k} of {len(record.incidents)} names {fault}: the record was altered or is corrupt")
    state = game.new_initial_state(record.seed)
    yield 0, state, list(state.log)
    n = len(record.actions)
    for i, ra in enumerate(record.actions, 1):
        # the action as recorded, cut (``clip``): a hand-edited record's 100,000-character action
        # was printed whole, three times (here, in the engine's parse error, in its reason)
        where = f"step {i} of {n}: seat {ra.seat} {clip(repr(ra.action), 80)}"
        if state.is_terminal:
            raise ReplayError(f"{where}: the game was already over after step {i - 1}; the record has extra actions")
        if ra.seat != state.current_seat:
            raise ReplayError(f"{where}: recorded for seat {ra.seat}, but it is seat {state.current_seat}'s turn. {_misfit(record)}")
        try:
            action = game.parse_action(ra.action)
        except GameError as exc:
            raise ReplayError(f"{where}: not an action of {record.game}: {clip(str(exc))}") from None
        if action not in state.legal_actions():
            reason = clip(state.illegal_reason(action) or "not a legal action now")
            raise ReplayError(
                f"{where} is not legal here ({reason}). {_misfit(record)}"
            )
        events = state.apply(action)
        yield i, state, events
    _check_result(record, game, state)


def _misfit(record: MatchRecord) -> str:
    return (f"The recorded actions do not fit the deal of seed {record.seed}: the record was altered "
            "(an action, a seat or the seed) or is corrupt")


def _check_result(record: MatchRecord, game: Game, state: State) -> None:
    rec = record.outcome
    if rec is None:
        raise ReplayError("the record has no result")
    if not rec.reason.finishes_the_game:
        if state.is_terminal:
            raise ReplayError(f"the record says the match ended by {rec.reason.value}, but its actions finish the game")
        if rec.reason.is_forfeit:
            _check_forfeit(record, game, state)
        return
    if not state.is_terminal:
        raise ReplayError(
            f"the {len(record.actions)} recorded actions do not finish the game, yet the record gives a result "
            f"({rec.reason.value}); actions are missing"
        )
    got = state.outcome()
    # The result is its scores, ranks and reason; the detail is the engine's sentence about
    # them, whose wording may change (Spades said "after 1 deals" before issue 44): a record
    # stored under an older wording still verifies, as its seat names do, unchecked.
    if (got.scores, got.ranks, got.reason) != (rec.scores, rec.ranks, rec.reason):
        raise ReplayError(
            f"the actions lead to scores {list(got.scores)}, ranks {list(got.ranks)} ({got.reason.value}), but the "
            f"record says scores {list(rec.scores)}, ranks {list(rec.ranks)} ({rec.reason.value}): the result or "
            f"the seed ({record.seed}) was altered"
        )


#: The failures that only an answer can be: its seat was the one asked, the seat to act when
#: the match ended (a crash or a disconnection may also come at the start, from any seat).
_ANSWERS = frozenset({"illegal", "malformed", "timeout"})


def _check_forfeit(record: MatchRecord, game: Game, state: State) -> None:
    """A forfeit's result is the runner's (``forfeit_outcome``) for the failure that ended the
    match, the record's last incident: the engine has no say in it, so without this check a
    record whose ranks were swapped (the forfeiting side first) or whose scores were changed
    verified as "reproduces the recorded result"."""
    rec = record.outcome
    assert rec is not None
    if not record.incidents:
        raise ReplayError(f"the record says the match ended by {rec.reason.value}, but it records no incident "
                          "(the failure that ended it): the record was altered or is corrupt")
    last = record.incidents[-1]
    due_reason = FORFEIT_REASON[last.kind]  # _walk checked each incident's seat and kind
    if due_reason is not rec.reason:
        raise ReplayError(f"the record says the match ended by {rec.reason.value}, but its last incident, seat {last.seat}'s "
                          f"{last.kind!r}, forfeits by {due_reason.value}: the record was altered or is corrupt")
    if last.kind in _ANSWERS and last.seat != state.current_seat:
        raise ReplayError(f"the record says seat {last.seat}'s {last.kind} answer ended the match, but after its "
                          f"{len(record.actions)} actions it is seat {state.current_seat}'s turn: actions were cut or "
                          "added, or the incident was altered")
    # (format 1: the sides that did not fail all shared first; since, ranked by their standing)
    due = forfeit_outcome(game, last.seat, rec.reason, rec.detail, state.standing() if record.format >= 2 else None)
    if (due.scores, due.ranks) != (rec.scores, rec.ranks):
        raise ReplayError(
            f"seat {last.seat}'s forfeit ({rec.reason.value}) gives scores {list(due.scores)}, ranks {list(due.ranks)} "
            f"(its side last, the others by where they stood), but the record says scores {list(rec.scores)}, ranks {list(rec.ranks)}: the result was altered"
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
        seat_views = tuple(state.revealed_view(s) for s in range(state.game.num_seats)) if full else ()
        shown = tuple(events) if full else tuple(events_for(events, seat))
        to_act = state.current_seat
        legal = tuple(state.legal_actions()) if to_act is not None and (full or to_act == seat) else ()
        step = ReplayStep(
            index=i, total=total, seat=ra.seat if ra else None,
            action=(ra.action if full else game.action_text(game.parse_action(ra.action), ra.seat, seat)) if ra else None,
            forced=ra.forced if ra else "", ms=ra.ms if ra else 0,
            to_act=to_act, events=shown, view=view, seat_views=seat_views, legal=legal,
        )
        if i < total:
            yield step
        else:
            last = step  # held back until the result is checked, then shown with it
    # _walk finished without error: the result matches the record.
    assert last is not None
    yield dataclasses.replace(last, outcome=record.outcome)


def illegal_reason_at(record: MatchRecord, step: int, action: Action) -> str:
    """Why ``action`` is not legal after the first ``step`` actions of ``record``, in the
    engine's words (``State.illegal_reason``: "play 9S: must follow suit (C)"); "" if it
    is. For an author's own tools, as ``illegal_reason``: ``arbiter replay --bot`` said
    only "NOT a legal action here" where the harness and the self-test say why."""
    for i, state, _ in _walk(record):
        if i == step:
            return state.illegal_reason(action)
    return ""


def replay_steps(record: MatchRecord, seat: int | None = None, full: bool = False) -> list[ReplayStep]:
    """All steps at once (see ``step_record``)."""
    return list(step_record(record, seat, full))
