"""The store bench (``python -m arbiter.tools.store_bench``) generates its store (the first
tournament through the store's writer, the others copied from it in SQL) and reads it back
through the two indexed readers it times; here on three thousand matches, the figures
reported but not judged (tests do not time things)."""

from __future__ import annotations

import json

from arbiter.store.db import Store
from arbiter.tools import store_bench


def test_the_store_bench_runs_small(tmp_path, capsys):
    db = tmp_path / "small.sqlite"
    store_bench.main(["--matches", "3000", "--runs", "1", "--db", str(db)])
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["matches"] == 3000 and set(report["figures"]) == {"bot.last_1000", "standings"}
    assert all(f["median_ms"] > 0 and f["target_ms"] in (200.0, 1000.0) for f in report["figures"].values())
    # the copied tournaments hold the rows the writer would have written: each record
    # reads back with its own match id and bots, the same play as the first tournament's
    with Store(db, read_only=True) as store:
        first, copied = (store.matches(store.tournament(name).id) for name in ("t0000", "t0002"))
        assert len(first) == len(copied) == 1000
        for a, b in zip(first, copied):
            ra, rb = a.record(), b.record()
            assert rb.match_id == b.match_id != a.match_id and rb.seat_names == b.seats
            assert set(b.seats) == set(store_bench._bots(2)) and b.sides == b.seats[:2]
            assert [x.action for x in ra.actions] == [x.action for x in rb.actions] and ra.outcome == rb.outcome
        newest = store.bot_matches(store_bench._bots(2)[0], limit=1000)
        assert [m.match_id for m in newest] == [m.match_id for m in reversed(copied)]
