"""An analysis asked for from the web: computed by a writer thread with its own store, its
progress counted, the result stored for the read-only pages; one at a time; off at 0."""

from __future__ import annotations

import pytest

from arbiter.analysis.jobs import Busy, Job, Jobs, Off
from arbiter.analysis.reask import decisions
from arbiter.analysis.stored import stored_analysis
from arbiter.store.db import Store
from arbiter.tournament.play import play_local, store_play


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    record = play_local("spot", ["random", "heuristic", "heuristic"], seed=2, options={"players": 3, "hands": 1},
                        transport="inproc")
    db = tmp_path_factory.mktemp("jobs") / "arena.sqlite"
    store_play(db, record)
    return db, record


def test_a_job_stores_the_analysis_and_counts_its_progress(stored):
    db, record = stored
    jobs = Jobs(samples=2)
    total = len(list(decisions(record, 1)))
    job = jobs.start(db, record.match_id, 1, total)
    assert jobs.start(db, record.match_id, 1, total) is job  # the same job, not a second
    job.thread.join(120)
    assert job.finished and not job.error and job.done == total
    with Store(db, read_only=True) as store:
        rows, saved = stored_analysis(store, record.match_id, 1, samples=2, compute=False)
    assert saved and len(rows) == total
    jobs.forget(db, record.match_id, 1)
    assert jobs.get(db, record.match_id, 1) is None


def test_one_job_at_a_time_and_none_when_off(stored):
    db, record = stored
    jobs = Jobs(samples=2)
    jobs._jobs[(str(db), record.match_id, 0)] = Job(str(db), record.match_id, 0, 10, done=3)  # one running
    with pytest.raises(Busy, match=f"match {record.match_id} seat 0 \\(3 of 10 decisions\\)"):
        jobs.start(db, record.match_id, 2, 10)
    with pytest.raises(Off, match="--analysis-samples 0"):
        Jobs(samples=0).start(db, record.match_id, 2, 10)


def test_a_job_that_fails_says_why(stored, tmp_path):
    _, record = stored
    jobs = Jobs(samples=2)
    job = jobs.start(tmp_path / "empty.sqlite", record.match_id, 0, 5)
    job.thread.join(60)
    assert job.finished and "StoreError" in job.error and record.match_id in job.error
