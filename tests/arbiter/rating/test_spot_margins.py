"""Spot with more than two seats: ``arbiter evaluate``'s margin and the standings' of the same
stored evaluation, as docs/strength.md ("Spot's margins for more than two seats") gives them.
Three seats, the odd case where neither is a multiple of the other: with m₀, m₁ a deal's two
seatings' margins as ``evaluate`` counts them (A's mean score minus B's), A sitting twice in the
first and once in the second, the deal's margin is (m₀ + m₁)/2 for ``evaluate``, and in the
standings A's is (m₀/2 + m₁)/2 and B's −(m₀ + m₁/2)/2."""

from __future__ import annotations

import pytest

from arbiter.store.db import Store
from arbiter.tournament.evaluate import evaluate
from arbiter.tournament.run import load_standings


def test_three_seats_evaluate_and_the_standings_margins_are_the_documented_formulas(tmp_path) -> None:
    with Store(tmp_path / "e.sqlite") as store:
        result = evaluate("spot", "heuristic", "random", deals=3, seed=1, options={"players": 3, "hands": 1},
                          store=store)
        standings, _ = load_standings(store, result.stored_as)
        seats = {(row.deal, row.rotation): row.seats for row in store.matches(store.tournament(result.stored_as).id)}
    assert {r: seats[(0, r)].count("heuristic") for r in (0, 1)} == {0: 2, 1: 1}  # A twice, then once
    m = {(x.deal, x.rotation): x.margin for x in result.matches}
    deals = range(3)
    assert result.deal_margins() == pytest.approx([(m[d, 0] + m[d, 1]) / 2 for d in deals])
    a, b = (next(row for row in standings.rows if row.name == n) for n in ("heuristic", "random"))
    a_deals = [(m[d, 0] / 2 + m[d, 1]) / 2 for d in deals]
    b_deals = [-(m[d, 0] + m[d, 1] / 2) / 2 for d in deals]
    assert a.dup_values == pytest.approx(a_deals) and b.dup_values == pytest.approx(b_deals)
    assert a.mean_margin == pytest.approx(sum(a_deals) / 3) and b.mean_margin == pytest.approx(sum(b_deals) / 3)
    assert a.mean_margin != pytest.approx(-b.mean_margin)  # not one margin seen from both sides
    assert a.mean_margin != pytest.approx(result.mean_margin)
