"""Hosted bots with their own packages (arbiter.hosting.botenv): a bot.toml's
``requirements`` become a cached environment the bot runs in, inside the sandbox, only
where the operator allows installs."""

from __future__ import annotations

import pytest

from arbiter.hosting import botenv
from arbiter.hosting.botproc import BotStartError
from arbiter.tournament.play import play_local
from cardarena.runtimes import ManifestError, parse_manifest

pytestmark = pytest.mark.e2e  # makes a virtual environment and plays bot processes

# The bot refuses to load anywhere but in its own environment (botenv marks it with .ok).
BOT = '''
import sys
from pathlib import Path
from sdk import Bot

if not (Path(sys.prefix) / ".ok").is_file():
    raise SystemExit(f"not in my own environment: {sys.prefix}")


class EnvBot(Bot):
    name = "envbot"
    games = ("spades",)

    def choose(self, view, legal_actions):
        return legal_actions[0]
'''


@pytest.fixture
def folder(tmp_path):
    bot = tmp_path / "envbot"
    bot.mkdir()
    (bot / "bot.py").write_text(BOT)
    (bot / "requirements.txt").write_text("# nothing beyond the SDK: no index is needed to test the mechanism\n")
    (bot / "bot.toml").write_text('requirements = "requirements.txt"\n')
    return bot


def test_a_declared_environment_is_made_once_and_the_bot_plays_in_it(folder, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(botenv.CACHE_VAR, str(tmp_path / "cache"))
    monkeypatch.setenv(botenv.ALLOW_VAR, "1")
    monkeypatch.setenv("ARENA_SECRET_FOR_TEST", "x")  # an arbiter variable the install must not see
    # an empty lock file: an environment without pip (botenv makes pip only to install
    # something; pip's own run, about 20 s, is the public submission's test below)
    (folder / "requirements.txt").write_text("")
    record = play_local("spades", [str(folder), "random", str(folder), "random"], seed=2, options={"deals": 1},
                        decision_ms=0, bank_ms=0)
    assert record.outcome is not None and record.outcome.reason.value == "completed"
    envs = [p for p in (tmp_path / "cache").iterdir()]
    assert len(envs) == 1 and (envs[0] / ".ok").is_file()
    assert "ARENA_SECRET_FOR_TEST" not in botenv._clean_env(tmp_path)
    # cached: a second match makes nothing new, even with installs no longer allowed
    monkeypatch.setenv(botenv.ALLOW_VAR, "0")
    play_local("spades", [str(folder), "random", str(folder), "random"], seed=3, options={"deals": 1},
               decision_ms=0, bank_ms=0)
    assert [p for p in (tmp_path / "cache").iterdir()] == envs


def test_installing_is_off_unless_the_operator_allows_it(folder, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(botenv.CACHE_VAR, str(tmp_path / "cache"))
    monkeypatch.delenv(botenv.ALLOW_VAR, raising=False)
    with pytest.raises(BotStartError, match="operator's choice.*ARENA_INSTALL_BOT_ENVS=1"):
        play_local("spades", [str(folder), "random", str(folder), "random"], seed=2, options={"deals": 1})
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_the_manifest_key_is_checked() -> None:
    assert parse_manifest(b'requirements = "locks/req.txt"').requirements == "locks/req.txt"
    with pytest.raises(ManifestError, match="inside the folder"):
        parse_manifest(b'requirements = "../secrets.txt"')
    with pytest.raises(ManifestError, match="for Python bots"):
        parse_manifest(b'runtime = "node"\nrequirements = "r.txt"')


def test_a_public_submission_installs_only_where_the_operator_says_all(folder, tmp_path, monkeypatch) -> None:
    """The arena's Submit, over a real server: a bot that declares packages is refused,
    naming what to do, while ``ARENA_INSTALL_BOT_ENVS`` is off or only ``1`` (the bots the
    operator names); with ``all`` it is installed, self-tested in its own environment (the
    bot refuses to load anywhere else) and registered."""
    import asyncio

    import grpc

    from arbiter.batch.submissions import RegistryCatalog
    from arbiter.server.app import start_server
    from arbiter.server.client import submission_chunks
    from arbiter.store import registry as reg
    from cardarena.v1 import bots_pb2_grpc as bpb_grpc

    monkeypatch.setenv(botenv.CACHE_VAR, str(tmp_path / "cache"))
    db = tmp_path / "arena.sqlite"
    sub = reg.collect(folder)

    async def main():
        server = await start_server(0, admin_token="adm-token-0123456789", bots_catalog=RegistryCatalog(db),
                                    author_tokens={"alice-t": "alice"})
        try:
            async with grpc.aio.insecure_channel(server.address) as ch:
                stub = bpb_grpc.BotsStub(ch)
                for setting in (None, "1"):
                    if setting is None:
                        monkeypatch.delenv(botenv.ALLOW_VAR, raising=False)
                    else:
                        monkeypatch.setenv(botenv.ALLOW_VAR, setting)
                    with pytest.raises(grpc.aio.AioRpcError) as e:
                        await stub.Submit(submission_chunks(sub, "alice-t", "envbot"))
                    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
                    assert "environment: FAILED" in e.value.details() and "ARENA_INSTALL_BOT_ENVS=all" in e.value.details()
                    assert "without `requirements`" in e.value.details()
                    assert not (tmp_path / "cache").exists()  # nothing was installed, nothing of it ran
                monkeypatch.setenv(botenv.ALLOW_VAR, "all")
                info = await stub.Submit(submission_chunks(sub, "alice-t", "envbot"))
                assert info.name == "envbot" and info.author == "alice"
        finally:
            await server.stop(0.2)

    asyncio.run(main())
    assert [v.name for v in reg.Registry(db).versions()] == ["envbot"]
    assert len(list((tmp_path / "cache").iterdir())) == 1
