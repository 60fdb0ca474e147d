"""Per-bot interval coverage (issue 39): each bot's own count adds up to the whole, and the
worst bot is what the bench checks (the mean over bots hides the extremes). Small and
seeded; the tables are ``python -m arbiter.tools.statreport perbot``."""

from __future__ import annotations

import random

from arbiter.tools.calibration import strength_calibration
from arbiter.tools.statreport import BENCH_LABELS, STRENGTH_CASES


def test_each_bot_is_counted_and_the_worst_is_the_minimum() -> None:
    game, options, strength, teams = STRENGTH_CASES["spot 4 seats, 4 bots"]
    c = strength_calibration(game, options, strength, 8, 30, random.Random(0), teams)
    per = c.bot_coverage
    assert set(per) == set(strength)
    assert sum(n for _, n in c.per_bot) == c.covered and c.intervals == 4 * c.runs
    assert c.min_coverage == min(per.values()) <= c.coverage <= max(per.values())
    assert "coverage.ffa.worst" in BENCH_LABELS and "coverage.teams.worst" in BENCH_LABELS


def test_partnerships_get_no_interval_where_their_coverage_fell_short() -> None:
    """The bench's withheld cells (four partnerships on 4 and 6 deals, strong shared luck) show
    no interval; at the least deals with partnerships (8) every rating has one."""
    from arbiter.rating.ratings import MIN_PARTNERSHIP_INTERVAL_DEALS
    from arbiter.tools.statreport import PER_BOT_BENCH, PER_BOT_WITHHELD, per_bot

    for name, deals, shared, key in PER_BOT_WITHHELD:
        assert deals < MIN_PARTNERSHIP_INTERVAL_DEALS
        assert per_bot(name, deals, shared, 3, "test").shown_share == 0.0, key
    c = per_bot("spades, 3 partnerships", MIN_PARTNERSHIP_INTERVAL_DEALS, 0.9, 3, "test")
    assert c.shown_share == 1.0
    assert ("spades, 3 partnerships", MIN_PARTNERSHIP_INTERVAL_DEALS, 0.9, "shared3.8") in PER_BOT_BENCH
