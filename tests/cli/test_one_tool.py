"""The ``arbiter`` commands as one tool: what a person who uses several of them expects to
hold in each (every option explained in its --help, Ctrl-C said in one line, ``-`` for
stdout wherever an output file is named)."""

from __future__ import annotations

from tests.cli.badinput import command_tree


def test_every_option_of_every_command_says_what_it_does() -> None:
    """`arbiter serve --help` and `arbiter arena --help` listed ``--verbose -v`` with no word
    on what it logs, beside `arbiter web`'s, which says."""
    silent = [f"arbiter {' '.join(path)} {p.opts[0]}" for path, cmd in command_tree().items()
              for p in cmd.params if p.param_type_name == "option" and not (p.help or "").strip()]
    assert not silent, silent


class _CtrlCAt:
    """An import finder that raises KeyboardInterrupt when ``name`` is imported: a Ctrl-C
    landing in a command's own work, at a fixed place, as the signal's would."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, name, path=None, target=None):
        if name == self.name:
            raise KeyboardInterrupt
        return None


def test_a_ctrl_c_anywhere_in_a_command_is_one_line_and_130(monkeypatch, tmp_path) -> None:
    """A Ctrl-C outside the library calls a command wraps (``_run``), such as `arbiter web`'s
    seconds of start-up on a busy machine, ended the command with exit 130 and not a word:
    typer turns any KeyboardInterrupt into a silent exit 130."""
    import sys

    from typer.testing import CliRunner

    from arbiter.cli import app

    monkeypatch.delitem(sys.modules, "arbiter.present.web", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_CtrlCAt("arbiter.present.web"), *sys.meta_path])
    r = CliRunner().invoke(app, ["web", "--db", str(tmp_path / "a.sqlite"), "--port", "0"])
    assert (r.exit_code, r.stdout, r.stderr.strip()) == (130, "", "interrupted"), (r.exit_code, r.output)


def _played(tmp_path):
    """A store holding one small tournament, played in process."""
    from typer.testing import CliRunner

    from arbiter.cli import app

    db = tmp_path / "a.sqlite"
    r = CliRunner().invoke(app, ["tournament", "run", "--db", str(db), "--transport", "inproc", "--game", "spades",
                                 "--bots", "random,greedy", "--deals", "1", "-o", "deals=1", "--name", "t", "--seed", "1",
                                 "-q"])
    assert r.exit_code == 0, r.output
    return db


def test_dash_as_an_output_file_is_stdout(tmp_path, monkeypatch) -> None:
    """`-o -` (standings, replay --json) and `evaluate --json -` wrote a file named `-` (and
    said "wrote -"), so `| jq` read nothing: `-` is stdout, and evaluate's report then goes to
    stderr, leaving stdout the JSON alone."""
    import json

    from typer.testing import CliRunner

    from arbiter.cli import app

    monkeypatch.chdir(tmp_path)
    db = _played(tmp_path)
    runner = CliRunner()
    r = runner.invoke(app, ["standings", "t", "--db", str(db), "-f", "json", "-o", "-"])
    assert r.exit_code == 0 and r.stderr == "", r.output
    assert json.loads(r.stdout)
    r = runner.invoke(app, ["evaluate", "spades", "random", "greedy", "--deals", "1", "-o", "deals=1",
                            "--transport", "inproc", "--json", "-"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["bot_a"] == "random", r.stdout
    assert "margin" in r.stderr, r.stderr
    assert not (tmp_path / "-").exists()


def test_dash_as_the_parquet_export_is_refused(tmp_path, monkeypatch) -> None:
    """`arbiter export --decisions -o -` wrote a Parquet file named `-`: Parquet is written
    to a file in place, never to stdout, so `-` is refused in one line."""
    from typer.testing import CliRunner

    from arbiter.cli import app

    monkeypatch.chdir(tmp_path)
    db = _played(tmp_path)
    r = CliRunner().invoke(app, ["export", "--decisions", "-o", "-", "--db", str(db)])
    assert r.exit_code == 2 and r.stdout == "", r.output
    assert r.stderr.startswith("error: --output -: Parquet") and len(r.stderr.splitlines()) == 1, r.stderr
    assert not (tmp_path / "-").exists()


def test_arena_tls_ca_is_the_ca_of_every_command_that_reaches_a_server(tmp_path) -> None:
    """README (TLS): bots pass `--tls-ca CA.pem` or ARENA_TLS_CA, "and so do `arbiter play
    --server`, `arbiter bots ... --server` and `arbiter watch`"; those commands read only the
    flag. The variable is read now (a file that is no certificate is named before anything
    connects), and a command run without --server is not broken by it."""
    from typer.testing import CliRunner

    from arbiter.cli import app

    bad = tmp_path / "ca.pem"
    bad.write_text("not a certificate\n")
    env = {"ARENA_TLS_CA": str(bad)}
    runner = CliRunner()
    for args in (["bots", "list", "--server", "127.0.0.1:1"], ["watch", "--list", "--server", "127.0.0.1:1"],
                 ["play", "spades", "a", "b", "c", "d", "--server", "127.0.0.1:1"]):
        r = runner.invoke(app, args, env=env)
        assert r.exit_code == 2 and f"{bad}: not a PEM certificate" in r.stderr, (args, r.output)
    r = runner.invoke(app, ["bots", "list", "--db", str(_played(tmp_path))], env=env)  # local: the CA is not its
    assert r.exit_code == 0, r.output
    assert "ARENA_TLS_CA" in " ".join(runner.invoke(app, ["watch", "--help"], env={"COLUMNS": "200"}).output.split())


def test_the_environment_readme_documents_is_in_each_commands_help() -> None:
    """README documents ARENA_STOP_GRACE_S (the bounded stop of a long run) and
    ARENA_INSTALL_BOT_ENVS (a bot folder's packages installed); no --help said either, so a
    person reading `arbiter tournament run --help` could not learn that a run's stop or a
    refused bot depends on them."""
    from typer.testing import CliRunner

    from arbiter.cli import app

    wanted = {("tournament", "run"): ("ARENA_STOP_GRACE_S", "ARENA_INSTALL_BOT_ENVS"),
              ("evaluate",): ("ARENA_STOP_GRACE_S", "ARENA_INSTALL_BOT_ENVS"),
              ("arena",): ("ARENA_STOP_GRACE_S", "ARENA_INSTALL_BOT_ENVS"),
              ("serve",): ("ARENA_STOP_GRACE_S",),
              ("play",): ("ARENA_INSTALL_BOT_ENVS",),
              ("bots", "check"): ("ARENA_INSTALL_BOT_ENVS",)}
    runner = CliRunner()
    missing = [(path, var) for path, names in wanted.items()
               for text in [runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).output] for var in names
               if var not in text]
    assert not missing, missing


def test_the_drawn_seed_of_a_play_is_printed_on_one_line(tmp_path) -> None:
    """`arbiter play` without --seed prints the seed it drew (its help says so) in the result
    table's title, which was wrapped to the table's four narrow columns: "spades (seed" on one
    line, the number on the next, a seed that cannot be copied whole."""
    import re

    from typer.testing import CliRunner

    from arbiter.cli import app

    r = CliRunner().invoke(app, ["play", "spades", "random", "random", "random", "random", "-o", "deals=1",
                                 "--transport", "inproc", "--db", str(tmp_path / "a.sqlite")])
    assert r.exit_code == 0, r.output
    assert re.search(r"spades \(seed \d{6,}\): completed", r.stdout), r.stdout
