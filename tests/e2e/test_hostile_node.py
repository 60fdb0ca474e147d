"""A hostile bot in JavaScript (tests/e2e/hostile/hostile.js), hosted by a real arbiter
as any Node bot: the same checks the Python hostile bots get (tests/e2e/hostile_arena.py:
the arbiter serves on, the honest match beside it is unchanged, the store is intact),
and what happened to it is recorded with its reason. Skipped only without Node.js."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbiter.hosting.sandbox import Limits
from arbiter.batch.submissions import check_bot
from cardarena.games import EndReason
from tests.e2e.hostile_arena import (HOSTILE, canary_listener, check_files_report, check_network_report, file_targets,
                                     run_hostile, table)  # noqa: F401 - table: the module's fixture
from tests.e2e.nodejs import ROOT, node_folder

#: The tests share the module's server and honest pair (``table``, tests/e2e/hostile_arena.py):
#: one xdist group (--dist loadgroup, tests/conftest.py), so it is made once in a run.
pytestmark = pytest.mark.xdist_group("hostile-node")


def hostile_node(tmp: Path, mode: str, **params) -> Path:
    return node_folder(tmp, f"hostile-{mode}", HOSTILE / "hostile.js",
                       {"params.json": json.dumps({"mode": mode, **params})})


def test_an_illegal_action_forfeits_with_the_arbiters_reason(table, tmp_path):
    # the forfeit ends the match as the Error is sent: wait for the bot's report of it (on a
    # warm shared table the run can reach its end before a Node bot has written it)
    r = run_hostile(hostile_node(tmp_path, "illegal"), tmp_path, table=table, wait_stderr='"kind":"errors"')
    assert r.hostile.outcome.reason is EndReason.FORFEIT_ILLEGAL
    assert r.hostile.outcome.ranks == (2, 1, 2, 1)
    [inc] = r.incidents()
    assert inc.kind == "illegal" and inc.seat in (0, 2) and "bid 14" in inc.detail, inc
    assert r.report("errors")["codes"] == ["illegal"]  # and it was told


def test_garbage_acts_are_refused_and_the_match_plays_on(table, tmp_path):
    r = run_hostile(hostile_node(tmp_path, "garbage"), tmp_path, table=table)
    assert r.hostile.outcome.reason is EndReason.COMPLETED and r.hostile.incidents == []
    errors = r.report("errors")
    assert errors["codes"] == ["unknown_request", "wrong_seat"] and errors["count"] >= 10, errors
    assert all(a.forced == "" for a in r.hostile.actions)  # its real answers, every one


def test_a_flooded_stream_is_cut_and_the_seat_forfeits(table, tmp_path):
    r = run_hostile(hostile_node(tmp_path, "flood"), tmp_path, table=table)
    assert r.hostile.outcome.reason is EndReason.FORFEIT_DISCONNECT
    [inc] = r.incidents("disconnect")
    assert inc.seat in (0, 2)
    assert "arbiter says flood" in inc.stderr, inc.stderr[-500:]  # its own stderr, in the record


def test_a_stalled_bot_times_out_and_forfeits(table, tmp_path):
    r = run_hostile(hostile_node(tmp_path, "stall"), tmp_path, table=table, decision_ms=300, bank_ms=200)
    assert r.hostile.outcome.reason is EndReason.FORFEIT_TIMEOUT
    [inc] = r.incidents()
    assert inc.kind == "timeout" and inc.seat in (0, 2) and "no answer within" in inc.detail
    assert r.proc_returncode is None  # still waiting when the match ended; the pool killed it


def test_files_outside_its_folder_are_out_of_reach(table, tmp_path):
    secret, params = file_targets(tmp_path, ROOT / "pyproject.toml")
    r = run_hostile(hostile_node(tmp_path, "files", **params), tmp_path, table=table)
    check_files_report(r, secret)


def test_the_network_outside_is_unreachable(table, tmp_path):
    with canary_listener() as (port, visitors):
        r = run_hostile(hostile_node(tmp_path, "network", canary_port=port), tmp_path, table=table)
    check_network_report(r, visitors)


def test_the_self_test_refuses_it_naming_the_illegal_answer(tmp_path):
    report = check_bot(hostile_node(tmp_path, "illegal"), positions=40)
    checks = {c.name: c for c in report.checks}
    assert not report.ok and checks["import"].ok and checks["contract"].ok, report.to_dict()
    legal = checks["legal:spades"]
    assert not legal.ok and legal.detail.startswith("illegal at decision 1") and "bid 14" in legal.detail, legal
    assert not any(name.startswith("verify:") for name in checks)  # no refereed match after a failed self-test


def test_unbounded_memory_is_stopped_at_the_limit(table, tmp_path):
    # RLIMIT_DATA binds node's heap and its buffers alike, in every sandbox mode
    r = run_hostile(hostile_node(tmp_path, "memory"), tmp_path, table=table, limits=Limits(memory_mb=256, cpu_seconds=30))
    got = r.report("memory")["mb"]
    assert 0 < got <= 256, got  # it could not allocate past its limit
    # the allocation fails and the bot says so (a crash), or V8 gives up and the process dies
    assert r.hostile.outcome.reason in (EndReason.FORFEIT_CRASH, EndReason.FORFEIT_DISCONNECT)
    [inc] = r.incidents()
    assert inc.seat in (0, 2) and inc.kind in ("crash", "disconnect"), inc
    if inc.kind == "crash":  # its own words, through Act.failure
        assert "RangeError: Array buffer allocation failed" in inc.detail, inc.detail
