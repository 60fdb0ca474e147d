"""What the chaos campaign (scripts/chaos_campaign.py, issue #20) found, kept as tests.

A bot process the runner had started ahead of need (a spare, waiting for the next match)
that died before its match began used to cost its bot a forfeit ("is not connected") of a
match it never started; the runner now replaces it (up to ``max_restarts`` per bot).
"""

from __future__ import annotations

import asyncio
import textwrap

import pytest

from arbiter.store.db import Store
from arbiter.tournament.run import TournamentSpec, run_tournament

pytestmark = pytest.mark.e2e  # a tournament of bot processes

# Dies unless a match starts within 2 s of its start: the spare started during the first
# match (which this bot makes last ~4 s: it is slow at seats 0 and 2, its seats in the
# first seating) is gone when the second match needs it. The second match (seats 1 and 3),
# played by the spare's replacement, goes at full speed: it was slowed too, 4 s of
# waiting that showed nothing more.
FRAGILE = textwrap.dedent('''
    import os
    import threading
    import time

    from bots.random_bot import RandomBot

    STARTED = []
    threading.Timer(2.0, lambda: STARTED or os._exit(3)).start()


    class Fragile(RandomBot):
        name = "fragile"
        games = ("spades",)

        def on_match_start(self, info):
            STARTED.append(info.seat in (0, 2))

        def choose(self, view, legal_actions):
            if STARTED[0]:
                time.sleep(0.15)
            return super().choose(view, legal_actions)
''')


def test_a_spare_bot_process_that_died_before_its_match_is_replaced_not_forfeited(tmp_path, caplog):
    bot = tmp_path / "fragile.py"
    bot.write_text(FRAGILE)
    spec = TournamentSpec(game="spades", bots=(f"fragile={bot}", "random"), options={"deals": 1}, deals=1, seed=3,
                          isolation="match", name="spare")
    with Store(tmp_path / "t.sqlite") as store:
        rows = asyncio.run(run_tournament(spec, store, concurrency=1))
    assert len(rows) == 2
    # a spare did die before its match and was replaced (else this test showed nothing)
    assert "bot process of fragile gone before its match began; starting another" in caplog.text
    for row in rows:
        assert not row.outcome.reason.is_forfeit, (row.idx, row.outcome.detail, row.incidents)
