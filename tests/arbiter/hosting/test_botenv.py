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
