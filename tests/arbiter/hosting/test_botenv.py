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
    # an empty lock file: nothing to install, pip does not run (the arbiter's pip installs
    # into an environment in the public submission's test and the wheels-only test below)
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


def _sdist_that_runs_code(where, marker) -> None:
    """``evil-1.0.tar.gz`` in ``where``: a source distribution whose in-tree build backend
    (no build requirement to fetch) writes ``marker`` as soon as pip asks it anything."""
    import io
    import tarfile

    files = {
        "evil-1.0/pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n',
        "evil-1.0/backend.py": f"open({str(marker)!r}, 'w').write('ran as the arbiter')\n",
        "evil-1.0/PKG-INFO": "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n",
    }
    with tarfile.open(where / "evil-1.0.tar.gz", "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def _wheel(where, name: str, text: str, scripts: str = "") -> None:
    """``NAME-1.0-py3-none-any.whl`` in ``where``: one module, ``NAME/__init__.py`` = ``text``;
    ``scripts``: its console scripts (``[console_scripts]`` lines of entry_points.txt)."""
    import base64
    import hashlib
    import zipfile

    files = {f"{name}/__init__.py": text,
             f"{name}-1.0.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
             f"{name}-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    if scripts:
        files[f"{name}-1.0.dist-info/entry_points.txt"] = f"[console_scripts]\n{scripts}\n"
    digest = lambda d: base64.urlsafe_b64encode(hashlib.sha256(d.encode()).digest()).rstrip(b"=").decode()  # noqa: E731
    record = [f"{n},sha256={digest(d)},{len(d.encode())}" for n, d in files.items()]
    files[f"{name}-1.0.dist-info/RECORD"] = "\n".join([*record, f"{name}-1.0.dist-info/RECORD,,"]) + "\n"
    with zipfile.ZipFile(where / f"{name}-1.0-py3-none-any.whl", "w") as z:
        for n, d in files.items():
            z.writestr(n, d)


def test_what_a_bot_declares_installs_from_wheels_only_and_runs_no_code_of_it(folder, tmp_path, monkeypatch) -> None:
    """The install runs as the arbiter's user, outside the sandbox: a package built from
    source runs its author's code there (a bot author may publish one, and the arena's
    ``ARENA_INSTALL_BOT_ENVS=all`` installs what any author declares). Only wheels are
    installed (installing one runs nothing), the lock file may hold pinned packages and
    nothing else (no option line, no URL or path), and the environment's own Python, where
    a wheel's .pth file would run, is not started outside the sandbox."""
    monkeypatch.setenv(botenv.CACHE_VAR, str(tmp_path / "cache"))
    links = tmp_path / "links"
    links.mkdir()
    marker = tmp_path / "pwned"
    _sdist_that_runs_code(links, marker)
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # the operator's pip settings: this folder is the only index
    monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    (folder / "requirements.txt").write_text("evil==1.0\n")
    with pytest.raises(botenv.BotEnvError, match="installing its packages"):
        botenv.ensure(folder, "requirements.txt", allow=True)
    assert not marker.exists(), "the source distribution's code ran on the host"
    for text, why in (("--index-url http://example.invalid/simple\nevil==1.0\n", "option"),
                      ("--no-binary :all:\nevil==1.0\n", "option"),
                      ("evil @ file:///tmp/evil-1.0.tar.gz\n", "name==version"),
                      ("./evil\n", "name==version"), ("evil>=1.0\n", "name==version")):
        (folder / "requirements.txt").write_text(text)
        with pytest.raises(botenv.BotEnvError, match=why):
            botenv.ensure(folder, "requirements.txt", allow=True)
    assert not marker.exists()
    # a lock file as pip-compile writes one reads as pinned
    (folder / "requirements.txt").write_text(
        "# a comment\nnumpy==2.1.0 ; python_version >= \"3.11\" \\\n    --hash=sha256:" + "ab" * 32 + "\n"
        "requests[socks]==2.32.3  # via something\n\n")
    assert botenv.lock_fault((folder / "requirements.txt").read_bytes()) == ""
    # a wheel is installed: into the environment, where its Python finds it (the arbiter's
    # pip puts it there; the environment has no pip of its own)
    import subprocess

    _wheel(links, "tinypkg", "VALUE = 42\n\ndef main():\n    import sys\n    print(VALUE, sys.prefix)\n",
           scripts="tinycli = tinypkg:main")
    (folder / "requirements.txt").write_text("tinypkg==1.0\n")
    env = botenv.ensure(folder, "requirements.txt", allow=True)
    assert (env / ".ok").is_file() and not list(env.glob("lib/python*/site-packages/pip"))
    found = subprocess.run([str(botenv.python_of(env)), "-c", "import tinypkg, sdk; print(tinypkg.VALUE, tinypkg.__file__)"],
                           capture_output=True, text=True, timeout=60)
    assert found.returncode == 0, found.stderr
    value, where = found.stdout.split()
    assert value == "42" and where.startswith(str(env)), found.stdout
    # its console script runs with the environment's Python, where the environment now is: pip
    # wrote it for the arbiter's Python at the folder the environment was made in, then renamed
    cli = subprocess.run([str(env / "bin" / "tinycli")], capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0 and cli.stdout.split() == ["42", str(env)], (cli.stdout, cli.stderr)


def test_an_arbiter_without_pip_says_so_and_how_to_get_it(folder, tmp_path, monkeypatch) -> None:
    """A bot's packages are installed by the arbiter's own pip (its environment has none): an
    arbiter installed where pip is not (a venv made without it) says so in one line, naming its
    Python and the command that installs pip, and leaves no environment half made."""
    import importlib.util

    monkeypatch.setenv(botenv.CACHE_VAR, str(tmp_path / "cache"))
    (folder / "requirements.txt").write_text("tinypkg==1.0\n")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pip" else real(name, *a))
    with pytest.raises(botenv.BotEnvError, match=r"needs pip in the arbiter's own Python environment \(.*python.*\), "
                                                 r"which has none: python -m ensurepip installs it"):
        botenv.ensure(folder, "requirements.txt", allow=True)
    assert [p.name for p in (tmp_path / "cache").iterdir()] == []  # nothing half made


def test_the_scripts_an_install_wrote_start_the_environments_python_where_it_will_be(tmp_path) -> None:
    """``botenv._point_scripts``: pip's two forms of a console script's first line (a direct
    ``#!``, and the /bin/sh trampoline it writes for a path too long for the kernel) both start
    the environment's Python at its final path, a long one through the trampoline; the activate
    scripts name that path; a file that starts no Python keeps its first line."""
    made = tmp_path / "arena-botenv-x"
    (made / "bin").mkdir(parents=True)
    ours = "/opt/arbiter/.venv/bin/python3"
    written = {"direct": f"#!{ours}\nimport sys\n",
               "long": f"#!/bin/sh\n'''exec' \"{ours}\" \"$0\" \"$@\"\n' '''\nimport sys\n",
               "activate": f'VIRTUAL_ENV="{made}"\n', "tool": "#!/bin/sh\necho hi\n"}
    for env in (tmp_path / "cache" / "e1", tmp_path / ("c" * 140) / "e2"):
        for f, text in written.items():
            (made / "bin" / f).write_text(text)
        botenv._point_scripts(made, env)
        python = str(botenv.python_of(env))
        first = f"#!{python}\n" if len(python) + 2 <= 127 else f"#!/bin/sh\n'''exec' \"{python}\" \"$0\" \"$@\"\n' '''\n"
        assert (made / "bin" / "direct").read_text() == (made / "bin" / "long").read_text() == first + "import sys\n"
        assert (made / "bin" / "activate").read_text() == f'VIRTUAL_ENV="{env}"\n'
        assert (made / "bin" / "tool").read_text() == "#!/bin/sh\necho hi\n"
    assert len(python) > 127 and first.startswith("#!/bin/sh\n")  # the second, long path: the trampoline
