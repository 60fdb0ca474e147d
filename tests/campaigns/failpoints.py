"""`python -m tests.campaigns.failpoints ARBITER-ARGS...`: the `arbiter` command with one
seeded stop point, for the chaos campaign (scripts/chaos_campaign.py).

``CHAOS_FAILPOINT=KIND:N`` stops the process (SIGSTOP, after writing ``CHAOS_MARKER``: the
kind, N, its pid and the schedule index of the match being stored) at the N-th time it
reaches KIND, so that the campaign can SIGKILL it at that very moment:

* ``commit``: inside the transaction that stores a finished match, its row inserted but
  not committed (``arbiter.store.db.Store.save_match``);
* ``committed``: just after that transaction committed, before the run has counted it;
* ``bot-start``: just after a bot process was started, before it has connected: at the
  return of ``arbiter.hosting.botproc.BotPool.launch``, the one call every path that
  starts a bot goes through (a child of the bot's fork server, or a fresh sandboxed
  process); the marker names the path ("fork" or "fresh").

Nothing else changes: the same CLI, store, runner and bot processes as `arbiter`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Iterator

_SPEC = os.environ.get("CHAOS_FAILPOINT", "")
_KIND, _, _N = _SPEC.partition(":")
_COUNT = {"n": 0}
_SAVING = {"on": False, "idx": -1}


def _hit(kind: str, where: str = "-") -> None:
    if kind != _KIND:
        return
    _COUNT["n"] += 1
    if _COUNT["n"] != int(_N or 1):
        return
    marker = os.environ.get("CHAOS_MARKER")
    if marker:
        tmp = Path(marker + ".tmp")
        tmp.write_text(f"{kind} {_COUNT['n']} {os.getpid()} {_SAVING['idx']} {where}\n")
        os.replace(tmp, marker)
    os.kill(os.getpid(), signal.SIGSTOP)  # every thread stops here; the campaign SIGKILLs us


def install() -> None:
    from arbiter.hosting import botproc
    from arbiter.store import db

    @contextlib.contextmanager
    def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:  # db.transaction, with the stops
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        if _SAVING["on"]:
            _hit("commit")
        conn.execute("COMMIT")
        if _SAVING["on"]:
            _hit("committed")

    db.transaction = transaction
    save = db.Store.save_match

    def save_match(self, tournament_id, idx, *args, **kwargs):
        _SAVING["on"], _SAVING["idx"] = True, idx
        try:
            return save(self, tournament_id, idx, *args, **kwargs)
        finally:
            _SAVING["on"] = False

    db.Store.save_match = save_match
    launch = botproc.BotPool.launch

    def launch_bot(self, *args, **kwargs):
        bp = launch(self, *args, **kwargs)
        _hit("bot-start", "fork" if bp.forked else "fresh")
        return bp

    botproc.BotPool.launch = launch_bot


if __name__ == "__main__":
    install()
    from arbiter.cli import main

    sys.argv = ["arbiter", *sys.argv[1:]]
    main()
