"""The watch file of a tournament running from a store (arbiter.spectating.runs)."""

from __future__ import annotations

from arbiter.spectating.runs import announce_run, forget_run, running_from


def test_the_watch_file_is_put_in_place_whole_and_private(tmp_path) -> None:
    """Written beside its place and moved there (a reader never meets it half written, as when it
    was truncated and written in place), readable by the store's user only, nothing left beside."""
    db = tmp_path / "a.sqlite"
    path = announce_run(db, "127.0.0.1:1", "secret", "t1")
    path = announce_run(db, "127.0.0.1:2", "secret2", "t1")  # a second run's replaces it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.sqlite.watch"]
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert running_from(db) == ("127.0.0.1:2", "secret2", "t1")
    forget_run(path)
    assert not path.exists()
