"""Shared helpers of the forward-model tests: random views, a chi-square bound."""

from __future__ import annotations

import math
import random

from cardarena.games.base import Game, State


def random_states(game: Game, count: int, seed: int, max_steps: int):
    """``count`` (state, seat) pairs reached by seeded random play, games not over."""
    rng = random.Random(seed)
    out: list[tuple[State, int]] = []
    deal = 0
    while len(out) < count:
        state = game.new_initial_state(deal)
        deal += 1
        for _ in range(rng.randrange(max_steps)):
            if state.is_terminal:
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal:
            out.append((state, rng.randrange(game.num_seats)))
    return out


def chi_square_bound(dof: int, z: float = 3.09) -> float:
    """Upper critical value of chi-square (p ≈ 0.001) by the Wilson–Hilferty approximation."""
    k = dof
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3


def chi_square(observed: dict, expected: dict) -> float:
    return sum((observed.get(k, 0) - e) ** 2 / e for k, e in expected.items())


def play_out(state: State, rng: random.Random, limit: int = 2000) -> None:
    """Random legal play to the end (or ``limit`` steps): a sampled state is playable."""
    for _ in range(limit):
        if state.is_terminal:
            return
        legal = state.legal_actions()
        assert legal, "a running sampled state must have a legal action"
        state.apply(rng.choice(legal))
