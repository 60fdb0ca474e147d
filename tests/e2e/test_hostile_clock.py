"""Hostile bots that attack the clock or die, each hosted as a sandboxed process by a
real arbiter with a real store (see tests/e2e/hostile_arena.py for what every test also
checks: the arbiter serves on, the honest match is unchanged, the store is intact)."""

from __future__ import annotations

import pytest

from cardarena.games import EndReason
from tests.e2e.hostile_arena import HOSTILE, run_hostile, table  # noqa: F401 - table: the module's fixture

#: The tests share the module's server and honest pair (``table``, tests/e2e/hostile_arena.py):
#: one xdist group (--dist loadgroup, tests/conftest.py), so it is made once in a run.
pytestmark = pytest.mark.xdist_group("hostile-clock")


def test_a_bot_that_hangs_forever_times_out_and_forfeits(table, tmp_path):
    r = run_hostile(HOSTILE / "hang.py", tmp_path, table=table, decision_ms=300, bank_ms=200)
    assert r.hostile.outcome.reason is EndReason.FORFEIT_TIMEOUT
    assert r.hostile.outcome.ranks == (2, 1, 2, 1)
    [inc] = r.incidents()
    assert inc.kind == "timeout" and inc.seat in (0, 2) and "no answer within" in inc.detail
    assert r.proc_returncode is None  # it was still hanging when the match ended; the pool killed it


def test_answers_after_the_deadline_cost_strikes_then_the_match(table, tmp_path):
    r = run_hostile(HOSTILE / "late.py", tmp_path, table=table, policy="default", max_strikes=2, decision_ms=300, bank_ms=0,
                    wait_stderr="was played for you")
    assert r.hostile.outcome.reason is EndReason.FORFEIT_TIMEOUT and "strike 3 of 2" in r.hostile.outcome.detail
    # strikes count per seat: it holds seats 0 and 2, so 2 + 2 strikes, then the forfeit
    assert [i.kind for i in r.hostile.incidents] == ["timeout"] * 5
    loser = r.hostile.incidents[-1].seat
    assert [i.seat for i in r.hostile.incidents].count(loser) == 3
    # the arbiter played the default action for each strike, and said so in the record
    assert [a.forced for a in r.hostile.actions if a.seat in (0, 2)] == ["timeout"] * 4
    # the bot was told each time (the SDK logs the arbiter's Error "late" to its stderr)
    assert "arbiter says late: request 1 timed out" in r.stderr and "was played for you" in r.stderr


def test_a_crash_mid_match_is_recorded_with_the_traceback(table, tmp_path):
    """A bot whose choose raises does not die: the SDK tells the arbiter what happened
    (Act.failure: the exception and the bot's own line), the arbiter applies the policy
    (forfeit here) and records it with the traceback from the bot's stderr."""
    r = run_hostile(HOSTILE / "crash.py", tmp_path, table=table)
    assert r.hostile.outcome.reason is EndReason.FORFEIT_CRASH
    [inc] = r.incidents()
    assert inc.kind == "crash" and inc.seat in (0, 2)
    assert len([a for a in r.hostile.actions if a.seat in (0, 2)]) == 4  # it failed on its fifth decision
    assert "choose raised RuntimeError: hostile crash in the middle of the match (crash.py:" in inc.detail
    assert "hostile crash in the middle of the match" in r.hostile.outcome.detail
    assert "Traceback" in inc.stderr and "RuntimeError: hostile crash in the middle of the match" in inc.stderr


def test_a_bot_that_exits_at_the_start_forfeits_before_any_decision(table, tmp_path):
    r = run_hostile(HOSTILE / "exit_start.py", tmp_path, table=table)
    assert r.hostile.outcome.reason is EndReason.FORFEIT_DISCONNECT
    assert [a for a in r.hostile.actions if a.seat in (0, 2)] == []
    inc = r.incidents()[0]
    assert "exit-start: leaving now" in inc.stderr and "[bot process ended: exit code 7]" in inc.stderr
    assert r.proc_returncode == 7
