"""The tournaments' default number of matches at once (run.default_concurrency)."""

from __future__ import annotations

from arbiter.tournament.run import BOT_PROCESS_BYTES, MATCHES_PER_CORE, default_concurrency

GB = 2**30


def test_more_matches_than_cores_when_memory_is_plenty():
    assert default_concurrency("shared", 4, cores=2, memory=GB) == MATCHES_PER_CORE * 2 > 2
    assert default_concurrency("deal", 4, cores=2, memory=64 * GB) == MATCHES_PER_CORE * 2
    assert default_concurrency("match", 2, cores=8, memory=64 * GB) == MATCHES_PER_CORE * 8


def test_fresh_processes_per_match_are_bounded_by_half_the_available_memory():
    # each match in flight: 4 seats' processes and 4 warm spares
    memory = 2 * 3 * (2 * 4 * BOT_PROCESS_BYTES)  # half of it holds exactly 3 matches
    assert default_concurrency("deal", 4, cores=16, memory=memory) == 3
    assert default_concurrency("shared", 4, cores=16, memory=memory) == MATCHES_PER_CORE * 16  # fixed processes
    assert default_concurrency("match", 4, cores=16, memory=1) == 1  # never below one
