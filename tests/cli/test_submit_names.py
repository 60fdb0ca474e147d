"""The name a bot is registered under (`arbiter bots submit`): never a bundled bot's (where a
bot is named, `arbiter play`, a tournament's bots, an arena's house bots, that name is the
bundled bot, so a registered `random` would be a second `random` reached only as
`random@VERSION`), and, without `--name`, the name the bot's class declares."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arbiter.batch.submissions import RegistryCatalog, submit
from arbiter.cli import app
from arbiter.server.bots import CatalogError
from arbiter.store import registry as reg

runner = CliRunner()

NAMED = """\
from sdk import Bot

class Meldy(Bot):
    name = "meldy"
    games = ("spot",)

    def choose(self, view, legal_actions):
        return legal_actions[0]
"""
NAMELESS = NAMED.replace('    name = "meldy"\n', "")


def _bot(tmp_path: Path, text: str, file: str = "mine.py") -> Path:
    path = tmp_path / file
    path.write_text(textwrap.dedent(text))
    return path


def _never(path: Path, abandoned=None):
    raise AssertionError("the self-test ran for a name that is refused anyway")


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_submit_refuses_a_bundled_bots_name_before_the_self_test(tmp_path, name):
    bot = _bot(tmp_path, NAMED)
    db = tmp_path / "r.sqlite"
    r = runner.invoke(app, ["bots", "submit", str(bot), "--name", name, "--db", str(db)])
    assert r.exit_code == 2, r.output
    errors = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "bundled bot" in r.output and f"{name}@" in " ".join(r.output.split()), r.output
    assert "┏" not in r.output  # no self-test report: refused before it ran
    with reg.Registry(db) as registry, pytest.raises(reg.RegistryError, match="bundled bot"):
        submit(registry, bot, name, check=_never)  # the library's submit, every caller's


def test_the_bots_service_refuses_a_bundled_bots_name(tmp_path):
    catalog = RegistryCatalog(tmp_path / "r.sqlite", check=_never)
    with pytest.raises(CatalogError, match="bundled bot") as caught:
        catalog.submit({"mine.py": NAMED.encode()}, "mine.py", "greedy", "", "alice")
    assert caught.value.kind == "invalid"


def test_bots_new_and_submit_say_the_same_of_a_bundled_name(tmp_path):
    made = runner.invoke(app, ["bots", "new", "search", "--dir", str(tmp_path)])
    sent = runner.invoke(app, ["bots", "submit", str(_bot(tmp_path, NAMED)), "--name", "search",
                               "--db", str(tmp_path / "r.sqlite")])
    assert made.exit_code == sent.exit_code == 2
    assert " ".join(made.output.split()) == " ".join(sent.output.split()), (made.output, sent.output)


@pytest.mark.e2e
def test_submit_without_name_takes_the_declared_one_and_says_so(tmp_path):
    db = tmp_path / "r.sqlite"
    r = runner.invoke(app, ["bots", "submit", str(_bot(tmp_path, NAMED)), "--db", str(db)])
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert "registered meldy 0.1" in text and "the name its class declares" in text, text
    nameless = _bot(tmp_path, NAMELESS, "nameless.py")
    r = runner.invoke(app, ["bots", "check", str(nameless), "--no-smoke", "--positions", "2"])
    text = " ".join(r.output.split())
    assert r.exit_code == 0 and "declares none of its own" in text and "--name NAME" in text, text  # before submit
    r = runner.invoke(app, ["bots", "submit", str(nameless), "--db", str(db)])
    assert r.exit_code == 2, r.output
    text = " ".join(r.output.split())
    assert "--name NAME" in text and 'name = "' in text, text  # both ways, in one error
    with reg.Registry(db, read_only=True) as registry:
        assert [v.name for v in registry.versions()] == ["meldy"]
    r = runner.invoke(app, ["bots", "submit", str(_bot(tmp_path, NAMED.replace('"meldy"', '"random"'), "r.py")),
                            "--db", str(db)])
    text = " ".join(r.output.split())
    assert r.exit_code == 2 and "bundled bot's name" in text and "the name the bot's class declares" in text, text
    # over the Bots service (`bots submit --server`), an empty name is the declared one too
    with pytest.raises(CatalogError, match="--name NAME") as caught:
        RegistryCatalog(db).submit({"nameless.py": nameless.read_bytes()}, "nameless.py", "", "", "local")
    assert caught.value.kind == "invalid"


def test_a_registered_bot_named_without_its_version_is_told_its_versions(tmp_path):
    """Just registered as meldy (the name its class declares), `arbiter play spot meldy
    random` said "unknown bot 'meldy': not a bundled bot ... nor a .py file or folder"."""
    from arbiter.hosting.botcheck import Report

    db = tmp_path / "r.sqlite"
    report = Report("meldy")
    report.add("import", True)
    report.bot = {"name": "meldy", "version": "0.1", "games": ["spot"], "deterministic": False}
    with reg.Registry(db) as registry:
        registry.add("meldy", "0.1", reg.collect(_bot(tmp_path, NAMED)), report)
    for transport in ("inproc", "local"):
        r = runner.invoke(app, ["play", "spot", "meldy", "random", "--transport", transport, "--db", str(db)])
        text = " ".join(r.output.split())
        assert r.exit_code == 2 and "'meldy' is a registered bot: name it with its version, meldy@0.1" in text, text


def test_a_folder_holding_an_arbiters_credentials_file_is_not_submitted(tmp_path):
    """docs/other-languages.md had a bot author start `arbiter serve` in the bot's folder
    (its credentials file, arbiter-credentials.json, is made where it runs) and then
    submit that folder: the registry's copy held the arbiter's admin and bot tokens,
    readable by all (a remote submission sends them to another operator). The submission
    is refused before anything is copied or sent, naming the file and how to move it."""
    from arbiter.server.auth import Credentials, new_token

    bot = tmp_path / "meldy"
    (bot / "conf").mkdir(parents=True)
    (bot / "bot.py").write_text(NAMED)
    (bot / "conf" / "package.json").write_text('{"name": "x", "admin": "not a token file"}')  # any other JSON is fine
    (bot / "conf" / "arbiter-credentials.json").write_text(
        Credentials(new_token(), new_token(), {"meldy": new_token()}).to_json())
    db = tmp_path / "r.sqlite"
    r = runner.invoke(app, ["bots", "submit", str(bot), "--name", "meldy", "--db", str(db)])
    assert r.exit_code == 2, r.output
    said = " ".join(r.output.split())
    assert f"{bot}/conf/arbiter-credentials.json: a standing arbiter's credentials file" in said, said
    assert "move it out" in said and "--credentials PATH" in said
    assert not db.exists() and not list(tmp_path.glob("*.bots"))  # nothing registered, nothing copied
