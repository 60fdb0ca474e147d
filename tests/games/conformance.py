"""One conformance suite, run on every game (STYLE.md §9).

Seeded random playouts check that a non-terminal state has legal actions, that every
legal action applies, that only legal actions apply (and a rejected one changes
nothing), that the notation round-trips, that the outcome is well formed, that the same
seed gives the same record whatever else uses the global RNG, and that every view and
event passes the wire conversion.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, Callable, Iterable

from cardarena.games import Card, EndReason, Game, IllegalActionError, State, events_for


def walk_cards(value: Any) -> list[Card]:
    """Every Card anywhere inside a view/event/action value (dataclasses, tuples)."""
    out: list[Card] = []
    if isinstance(value, Card):
        out.append(value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            out.extend(walk_cards(getattr(value, f.name)))
    elif isinstance(value, (tuple, list, frozenset, set)):
        for v in value:
            out.extend(walk_cards(v))
    return out


def random_playout(
    state: State, rng: random.Random, max_steps: int = 100_000, on_step: Callable[[State], None] | None = None
) -> list:
    """Play uniformly random legal actions to the end; returns the action list."""
    actions = []
    for _ in range(max_steps):
        if state.is_terminal:
            return actions
        if on_step:
            on_step(state)
        legal = state.legal_actions()
        assert legal, "a non-terminal state must have a legal action"
        action = rng.choice(legal)
        state.apply(action)
        actions.append(action)
    raise AssertionError(f"game did not end within {max_steps} actions")


def check_random_playouts(
    game: Game,
    seeds: Iterable[int],
    illegal_probes: Callable[[State], list] | None = None,
    max_steps: int = 100_000,
    check_every: int = 1,
) -> list:
    """The generic conformance checks over seeded playouts; returns the outcomes."""
    from cardarena.wire import codec as convert

    outcomes = []
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        step = 0
        while not state.is_terminal:
            seat = state.current_seat
            assert seat is not None and 0 <= seat < game.num_seats
            legal = state.legal_actions()
            assert legal, f"seed {seed}: no legal action for seat {seat}"
            assert len(set(map(str, legal))) == len(legal), f"duplicate legal actions: {legal}"
            if step % check_every == 0:
                for action in legal:
                    assert game.parse_action(str(action)) == action, f"notation does not round-trip: {action}"
                    convert.action_to_proto(game.name, action)
                for s in range(game.num_seats):
                    convert.view_to_proto(game.name, state.view(s))
                convert.view_to_proto(game.name, state.spectator_view())
                if illegal_probes is not None:
                    before = [state.view(s) for s in range(game.num_seats)]
                    legal_text = set(map(str, legal))
                    for probe in illegal_probes(state):
                        if str(probe) in legal_text:
                            continue
                        try:
                            state.apply(probe)
                        except IllegalActionError:
                            pass
                        else:
                            raise AssertionError(f"seed {seed}: illegal {probe} was applied")
                        assert [state.view(s) for s in range(game.num_seats)] == before
            action = rng.choice(legal)
            n_before = len(state.log)
            new_events = state.apply(action)
            assert state.log[n_before:] == new_events
            step += 1
            assert step < max_steps, f"seed {seed}: game did not end within {max_steps} actions"
        assert state.legal_actions() == []
        assert state.current_seat is None
        outcome = state.outcome()
        assert len(outcome.scores) == len(outcome.ranks) == game.num_seats
        assert min(outcome.ranks) == 1
        assert outcome.reason in (EndReason.COMPLETED, EndReason.STALEMATE, EndReason.TURN_LIMIT)
        for team in game.teams:
            assert len({outcome.ranks[s] for s in team}) == 1, "partners must share a rank"
        for s in range(game.num_seats):
            assert events_for(state.log, s) == [e for e in state.log if e.visible_to is None or s in e.visible_to]
        outcomes.append(outcome)
    return outcomes


def check_deterministic(game: Game, seed: int) -> None:
    """Same seed, same actions, same views, even with the global RNG disturbed between steps."""
    records = []
    for disturb in (False, True):
        rng = random.Random(seed)
        state = game.new_initial_state(seed)
        trace = []
        while not state.is_terminal:
            if disturb:
                random.random()
                random.shuffle(list(range(10)))
            legal = state.legal_actions()
            action = rng.choice(legal)
            trace.append((state.current_seat, str(action), [state.view(s) for s in range(game.num_seats)]))
            state.apply(action)
        trace.append(state.outcome())
        records.append(trace)
    assert records[0] == records[1]


def replay(game: Game, seed: int, actions: list) -> State:
    """Rebuild a state from its seed and action list."""
    state = game.new_initial_state(seed)
    for a in actions:
        state.apply(a)
    return state
