"""Analyses asked for from the web: computed in a writer thread, stored, then read like any.

The web server reads its store read-only; a page whose seat has no stored analysis offers
to compute one. ``Jobs.start`` runs ``stored.stored_analysis`` in a background thread with
its own writable ``Store`` (the one writer of the job; SQLite's WAL lets the pages keep
reading), at the default settings (``arbiter web --analysis-samples`` changes the budget), so the
result is the same row ``arbiter analyse MATCH --seat S`` stores. ``Jobs.get`` says how far a job is (decisions valued of the seat's
total) or why it failed; once stored, the page reads the analysis like any other.

Bounded: one job runs at a time per server (``MAX_RUNNING``); another request is told
which one runs. A finished job is forgotten when its analysis is read back (its row is in
the store) or after ``KEEP`` finished jobs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from arbiter.analysis.stored import stored_analysis
from arbiter.analysis.values import DEFAULT_SAMPLES
from arbiter.store.db import Store

__all__ = ["Job", "Jobs", "JOBS"]

MAX_RUNNING = 1
KEEP = 32


@dataclass
class Job:
    """One analysis being computed: ``done`` of ``total`` decisions of the seat valued;
    ``error`` says why it stopped (then ``finished``)."""

    db: str
    match_id: str
    seat: int
    total: int
    done: int = 0
    finished: bool = False
    error: str = ""
    thread: threading.Thread | None = field(default=None, repr=False)


class Busy(Exception):
    """Another analysis is running (``job``)."""

    def __init__(self, job: Job):
        super().__init__(f"another analysis is running: match {job.match_id} seat {job.seat} "
                         f"({job.done} of {job.total} decisions)")
        self.job = job


class Off(Exception):
    """The server was started with no analysis budget."""


class Jobs:
    """The web server's analysis jobs (module docstring)."""

    def __init__(self, samples: int = DEFAULT_SAMPLES) -> None:
        #: The budget of a job's decisions (``arbiter web --analysis-samples``); 0: no job starts.
        self.samples = samples
        self._lock = threading.Lock()
        self._jobs: dict[tuple[str, str, int], Job] = {}

    def get(self, db: Path | str, match_id: str, seat: int) -> Job | None:
        with self._lock:
            return self._jobs.get((str(db), match_id, seat))

    def forget(self, db: Path | str, match_id: str, seat: int) -> None:
        with self._lock:
            job = self._jobs.get((str(db), match_id, seat))
            if job is not None and job.finished:
                del self._jobs[(str(db), match_id, seat)]

    def start(self, db: Path | str, match_id: str, seat: int, total: int) -> Job:
        """The job of ``seat`` in ``match_id`` (started now unless one runs or ran for it);
        Busy when ``MAX_RUNNING`` others run."""
        if self.samples < 1:
            raise Off("this server computes no analysis (arbiter web --analysis-samples 0)")
        key = (str(db), match_id, seat)
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and not job.error:
                return job
            running = [j for j in self._jobs.values() if not j.finished]
            if len(running) >= MAX_RUNNING:
                raise Busy(running[0])
            finished = [k for k, j in self._jobs.items() if j.finished]
            for k in finished[: max(0, len(finished) - KEEP + 1)]:
                del self._jobs[k]
            job = Job(str(db), match_id, seat, total)
            job.thread = threading.Thread(target=self._run, args=(job, self.samples), name=f"analyse {match_id}:{seat}", daemon=True)
            self._jobs[key] = job
        job.thread.start()
        return job

    @staticmethod
    def _run(job: Job, samples: int) -> None:
        def progress(_row) -> None:
            job.done += 1

        try:
            store = Store(Path(job.db))
            try:
                _, saved = stored_analysis(store, job.match_id, job.seat, samples=samples, progress=progress)
            finally:
                store.close()
            if not saved:
                job.error = "the store could not be written"
        except Exception as exc:  # noqa: BLE001 - the page shows why; the server goes on
            job.error = f"{type(exc).__name__}: {str(exc)[:200]}"
        finally:
            job.finished = True


#: The web server's jobs (one per process).
JOBS = Jobs()
