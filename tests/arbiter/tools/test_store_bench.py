"""The store bench (``python -m arbiter.tools.store_bench``) generates its store through the
store's writer and reads it back through the two indexed readers it times; here on a
thousand matches, the figures reported but not judged (tests do not time things)."""

from __future__ import annotations

import json

from arbiter.tools import store_bench


def test_the_store_bench_runs_small(tmp_path, capsys):
    store_bench.main(["--matches", "1000", "--runs", "1", "--db", str(tmp_path / "small.sqlite")])
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["matches"] == 1000 and set(report["figures"]) == {"bot.last_1000", "standings"}
    assert all(f["median_ms"] > 0 and f["target_ms"] in (200.0, 1000.0) for f in report["figures"].values())
