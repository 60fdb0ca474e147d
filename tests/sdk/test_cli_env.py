"""``python -m sdk``'s parser is built once (a fork server's parent builds it before it
forks, arbiter/hosting/zygote.py), so nothing in it may come from the environment: each
bot process's ARENA_ADDRESS and ARENA_TOKEN are read when it runs."""

from __future__ import annotations

import sdk.__main__ as cli
import sdk.runner


def test_the_environment_is_read_when_the_bot_runs_not_when_the_parser_is_built(monkeypatch):
    monkeypatch.delenv("ARENA_ADDRESS", raising=False)
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    cli.parser()  # built first, as in the parent
    got = []
    monkeypatch.setattr(sdk.runner, "_play_local", lambda session, path, hello, stop: got.append((path, hello)) or 0)
    for token in ("first", "second"):  # two processes' environments
        monkeypatch.setenv("ARENA_ADDRESS", f"local:/run/arena/{token}.sock")
        monkeypatch.setenv("ARENA_TOKEN", token)
        assert cli.main(["--bot", "random"]) == 0
    assert [(path, hello.hello.token) for path, hello in got] == [
        ("/run/arena/first.sock", "first"), ("/run/arena/second.sock", "second")]
    assert cli.parser() is cli.parser()
