"""arbiter.metrics in process: an arena ladder's events (matches, forfeits, a suspension,
entrants by status, store writes) counted in a registry of the test's own; the address
rule of ``--metrics``; bot labels stay bounded. The scrape of a running server over HTTP
is tests/e2e/test_metrics.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arbiter import metrics
from arbiter.arena.ladder import Arena, ArenaSpec

#: Raises in its third decision: under the forfeit policy its side forfeits every match.
CRASHER = f"crasher={Path(__file__).parents[1] / 'e2e' / 'zoo.py'}:RaiseInChoose"


@pytest.fixture
def registry():
    m = metrics.enable(metrics.Metrics(process=False))
    yield m
    metrics.disable()


def test_an_arena_reports_its_matches_forfeits_suspensions_and_queue(tmp_path, registry):
    spec = ArenaSpec(game="spades", name="lab", options={"deals": 1}, house=("random", CRASHER),
                     transport="inproc", seed=11)
    a = Arena(spec, tmp_path / "a.sqlite", poll=0)
    asyncio.run(a.run(max_encounters=3))
    a.close()
    get = registry.registry.get_sample_value
    played = a.matches_played
    assert played > 0
    assert get("arbiter_matches_started_total", {"game": "spades"}) == played
    # the crasher forfeits every match it plays
    assert get("arbiter_matches_finished_total", {"game": "spades", "reason": "forfeit_crash"}) == played
    assert get("arbiter_forfeits_total", {"game": "spades", "bot": "crasher", "kind": "crash"}) == played
    assert get("arbiter_live_matches", {"game": "spades"}) == 0
    assert get("arbiter_arena_suspensions_total", {"arena": "lab"}) == 1
    assert get("arbiter_arena_entrants", {"arena": "lab", "status": "suspended"}) == 1
    assert get("arbiter_arena_entrants", {"arena": "lab", "status": "active"}) == 1
    assert get("arbiter_arena_encounters_playing", {"arena": "lab"}) == 0
    assert get("arbiter_arena_waiting", {"arena": "lab"}) == 1  # random, with nobody left to play
    # each encounter is stored in one write transaction (and the ladder's own rows in more)
    assert get("arbiter_store_write_seconds_count") >= 3


def test_the_address_is_loopback_unless_named():
    assert metrics.parse_address("9100") == ("127.0.0.1", 9100)
    assert metrics.parse_address("0.0.0.0:9100") == ("0.0.0.0", 9100)
    assert metrics.parse_address("[::1]:0") == ("::1", 0)
    for bad in ("", ":9100", "host:", "host:port", "127.0.0.1:70000"):
        with pytest.raises(ValueError, match="HOST:PORT|name the interface"):
            metrics.parse_address(bad)


def test_bot_labels_are_bounded():
    m = metrics.Metrics(process=False)
    names = [f"bot{i}" for i in range(metrics.MAX_BOTS + 5)]
    labels = [m.bot(n) for n in names]
    assert labels[: metrics.MAX_BOTS] == names[: metrics.MAX_BOTS]
    assert set(labels[metrics.MAX_BOTS:]) == {metrics.OTHER}
    assert m.bot("bot0") == "bot0"  # one seen before keeps its own
