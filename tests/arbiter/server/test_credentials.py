"""The credentials file: what `arbiter serve` makes and reads, and the clear refusals of a bad one."""

from __future__ import annotations

import json
import stat

import pytest

from arbiter.server import auth
from arbiter.server.auth import CredentialsError


def test_ensure_makes_a_private_file_with_a_distinct_token_per_role(tmp_path):
    path = tmp_path / "creds.json"
    creds = auth.ensure(path, ("alpha",), ("ann",))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    tokens = [creds.admin, creds.spectator, creds.bots["alpha"], creds.authors["ann"]]
    assert len(set(tokens)) == 4 and all(len(t) >= 16 for t in tokens)
    again = auth.ensure(path, ("alpha", "beta"))
    assert again.bots["alpha"] == creds.bots["alpha"] and again.admin == creds.admin  # kept, not regenerated
    assert "beta" in auth.read(path).bots


@pytest.mark.parametrize("content, says", [
    (b"\xff\xfe\x00garbage", "not UTF-8"),
    (b"{not json", "not a credentials file"),
    (b'{"admin": "short", "spectator": "also-short-token"}', "at least 16"),
    (json.dumps({"admin": "a" * 20, "spectator": "a" * 20}).encode(), "share a token"),
    (json.dumps({"admin": "a" * 20, "spectator": "b" * 20, "bots": {"bad name!": "c" * 20}}).encode(), "bad bot name"),
    (json.dumps({"admin": "a" * 20, "spectator": "b" * 20, "authors": {"../x": "c" * 20}}).encode(), "bad author name"),
])
def test_a_bad_file_is_refused_naming_what_is_wrong(tmp_path, content, says):
    path = tmp_path / "creds.json"
    path.write_bytes(content)
    with pytest.raises(CredentialsError, match=says) as info:
        auth.read(path)
    assert str(path) in str(info.value)
    with pytest.raises(CredentialsError, match=says):  # ensure() reads it first and changes nothing
        auth.ensure(path, ("alpha",))
    assert path.read_bytes() == content


@pytest.mark.parametrize("kind, args", [("bot", (("no spaces",), ())), ("author", ((), ("no/slash",)))])
def test_a_bad_name_is_refused_before_anything_is_written(tmp_path, kind, args):
    path = tmp_path / "creds.json"
    with pytest.raises(CredentialsError, match=f"bad {kind} name"):
        auth.ensure(path, *args)
    assert not path.exists()


def test_no_token_reads_as_a_command_line_option():
    # a token is given to bots as `--token TOKEN`: one starting with "-" is refused by
    # argparse (one in 64 did, and a bot launched with it never connected)
    import argparse

    tokens = [auth.new_token() for _ in range(3000)] + [auth.new_token(16) for _ in range(3000)]
    assert not [t for t in tokens if t.startswith("-")]
    assert len(set(tokens)) == len(tokens) and {len(t) for t in tokens} == {32, 22}
    parser = argparse.ArgumentParser()
    parser.add_argument("--token")
    assert all(parser.parse_args(["--token", t]).token == t for t in tokens[:500])
