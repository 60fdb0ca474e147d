"""A command loads only its own module (``arbiter.cli.COMMANDS``): the table is checked
against what the modules register, and a started command is checked to import no other
command's module nor the library only those use (``arbiter serve`` without ``--bots-db``: not
the batch engine, whose registry catalog only the Bots service needs)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import arbiter.cli as cli


def _module(callback) -> str:
    return callback.__module__.rsplit(".", 1)[1]


def test_the_table_names_the_module_that_registers_each_command():
    app = cli.load()
    found = {}
    for command in app.registered_commands:
        found[command.name or command.callback.__name__.replace("_", "-")] = _module(command.callback)
    for group in app.registered_groups:
        modules = {_module(c.callback) for c in group.typer_instance.registered_commands}
        assert len(modules) == 1, (group.name, modules)  # a group's commands live in one module
        found[group.name] = modules.pop()
    assert found == cli.COMMANDS


def test_the_first_word_that_is_not_an_option_names_the_command():
    assert cli.command_named(["serve", "--port", "0"]) == "serve"
    assert cli.command_named(["--help"]) is None
    assert cli.command_named(["--", "serve"]) is None
    assert cli.command_named([]) is None



def test_each_command_is_summed_up_in_one_line():
    """A group's --help lists each command by its docstring's first paragraph, and typer (its
    rich mode) keeps that paragraph's line breaks: `arbiter --help` broke replay's summary
    after "step through it," and `arbiter credentials --help` broke revoke's three times,
    each line as if a new one. A summary is one line; what follows a blank line is the
    command's own --help."""
    import inspect

    app = cli.load()
    commands = list(app.registered_commands) + [c for g in app.registered_groups for c in g.typer_instance.registered_commands]
    broken = {c.callback.__name__: summary for c in commands
              if "\n" in (summary := inspect.cleandoc(c.callback.__doc__ or "").split("\n\n")[0])}
    assert not broken, broken

@pytest.mark.e2e
def test_a_command_imports_its_own_module_only_and_help_lists_every_command():
    probe = ("import sys; sys.argv = ['arbiter'] + sys.argv[1:]\n"
             "from arbiter.cli import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith(('arbiter.cli.', 'arbiter.tournament', "
             "'arbiter.analysis', 'arbiter.rating', 'arbiter.batch'))), file=sys.stderr)")
    run = subprocess.run([sys.executable, "-c", probe, "serve", "--help"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "--port" in run.stdout
    loaded = eval(run.stderr.strip().splitlines()[-1])
    assert loaded == ["arbiter.cli._common", "arbiter.cli.serve"], loaded
    everything = subprocess.run([sys.executable, "-m", "arbiter", "--help"], capture_output=True, text=True, timeout=60)
    assert everything.returncode == 0, everything.stderr
    for name in cli.COMMANDS:
        assert name in everything.stdout, name
    unknown = subprocess.run([sys.executable, "-m", "arbiter", "serv"], capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and "No such command" in unknown.stderr, unknown.stderr


#: What a process imports only when it uses it (each start pays its imports; README's
#: performance doc, "Process starts"): each group of modules, imported in a fresh process (a
#: fork of one that imported nothing), loads none of these.
NOT_AT_START = {
    # a bot process on the arbiter's local channel (how the arbiter hosts bots): no gRPC, no
    # event loop (a bot reaching an arbiter over gRPC imports them as it connects)
    "sdk.__main__, sdk.loading, sdk.runner": {"grpc", "asyncio"},
    # `arbiter rules`: no event loop
    "arbiter.cli.rules": {"asyncio"},
    # a tournament's spec (read by `arbiter standings`, `tournament run`, `evaluate`): not the
    # Dask cluster's driver (with it the arbiter's gRPC server), nor the gRPC client (grpc)
    "arbiter.tournament.spec": {"arbiter.batch.cluster", "arbiter.server.client", "grpc"},
    # the commands that take no --option/--preset, and the match runner: not every game's
    # engine (only that help lists all games' options), nor prometheus_client (metrics are
    # off unless --metrics asks)
    "arbiter.cli.serve, arbiter.cli.web, arbiter.cli.rules, arbiter.cli.replay, arbiter.match.runner": {
        "cardarena.games.spades.game", "cardarena.games.spite_malice.game", "cardarena.games.spot.game",
        "prometheus_client"},
    # the web page server's modules (what `arbiter web` imports before it listens, but the
    # games' engines): no gRPC, no protobuf, no batch engine or venue until a page plays a
    # match (/play), watches a run or asks a standing arbiter
    "arbiter.cli.web, arbiter.analysis.jobs, arbiter.present.web, arbiter.present.play_page": {
        "grpc", "google.protobuf", "arbiter.server.app", "arbiter.server.client", "arbiter.batch.engine",
        "arbiter.batch.venue"},
}


@pytest.mark.e2e
def test_a_command_imports_at_its_start_only_what_it_uses():
    probe = ("import os, sys\n"
             "for group in sys.argv[1:]:\n"
             "    if os.fork() == 0:\n"
             "        exec('import ' + group)\n"
             "        print(sorted(sys.modules), flush=True)\n"
             "        os._exit(0)\n"
             "    os.wait()\n")
    run = subprocess.run([sys.executable, "-c", probe, *NOT_AT_START], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert len(lines) == len(NOT_AT_START), run.stderr
    for (group, unused), line in zip(NOT_AT_START.items(), lines):
        loaded = set(eval(line))
        assert not loaded & unused, (group, sorted(loaded & unused))
