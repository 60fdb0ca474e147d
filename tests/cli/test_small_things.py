"""Small things authors notice (issue #15, item 8): a run says how to watch it, an
unknown bot name suggests the closest one wherever names are resolved, a folder bot typed
with a trailing slash is named by its folder, and counts read as English."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.cli._common import plural

runner = CliRunner()


@pytest.mark.e2e
def test_a_tournament_run_prints_the_watch_command_and_quiet_prints_only_the_standings(tmp_path):
    """Issue #15 wanted the watch line under -q too; issue #30 (item 8) found -q must mean
    what its help says, only the standings: the watch line is the progress display's."""
    r = runner.invoke(app, ["tournament", "run", "--db", str(tmp_path / "q.sqlite"), "--bots", "random,greedy",
                            "--deals", "1", "-o", "deals=1", "--name", "w"])
    assert r.exit_code == 0, r.output
    assert f"watch live: arbiter watch --db {tmp_path / 'q.sqlite'} (or arbiter watch --server 127.0.0.1:" in r.output
    # the other way keeps the token off the command line (ps shows it) and out of the output: where it is, not what
    assert f"with ARENA_SPECTATOR_TOKEN set to the token in {tmp_path / 'q.sqlite.watch'}, readable by you only)" in r.output
    assert "--token" not in r.output and not re.search(r"(?<![\w-])[\w-]{24}(?![\w-])", r.output.split("watch live:")[1].split("\n")[0])
    assert "bots: hosted (bot processes on the local channel)" in r.output  # the hosted default
    assert not (tmp_path / "q.sqlite.watch").exists()  # the run is over: nothing left saying where to watch it
    # make demo's run: the bots over gRPC, and it says so
    r = runner.invoke(app, ["tournament", "run", "--db", str(tmp_path / "q.sqlite"), "--bots", "random,greedy",
                            "--deals", "1", "-o", "deals=1", "--name", "g", "--transport", "grpc"])
    assert r.exit_code == 0, r.output
    assert "bots: hosted (bot processes over gRPC)" in r.output and "Standings: g" in r.output
    r = runner.invoke(app, ["tournament", "run", "--db", str(tmp_path / "q.sqlite"), "--bots", "random,greedy",
                            "--deals", "1", "-o", "deals=1", "--name", "q", "-q"])
    assert r.exit_code == 0, r.output
    assert "watch live" not in r.output and "bots:" not in r.output and "Standings: q" in r.output


def test_an_unknown_bundled_bot_suggests_the_closest_name():
    from sdk.loading import BotLoadError, load_bot

    with pytest.raises(BotLoadError, match=r"unknown bot 'heuristc': did you mean 'heuristic'\?"):
        load_bot("heuristc")
    with pytest.raises(BotLoadError, match="not a bundled bot"):
        load_bot("zzzzzz")  # nothing close: the list
    with pytest.raises(BotLoadError, match="bot file or folder not found: nope/"):
        load_bot("nope/")  # a path, not a name


def test_a_typo_in_a_bots_path_suggests_the_bot_beside_it(tmp_path, monkeypatch):
    """`arbiter play spades myspade.py ...` beside myspades.py said "bot file or folder not
    found: myspade.py" and no more (a bundled name's typo got "did you mean"): the bot files
    and folders in the folder it names are the candidates, written as it was."""
    from sdk.loading import BotLoadError, load_bot

    (tmp_path / "myspades.py").write_text("")
    (tmp_path / "spotty").mkdir()
    (tmp_path / "spotty" / "bot.py").write_text("")
    (tmp_path / "notes.txt").write_text("")
    monkeypatch.chdir(tmp_path)
    for typed, meant in [("myspade.py", "myspades.py"), ("./myspade.py", "./myspades.py"),
                         (f"{tmp_path}/myspade.py", f"{tmp_path}/myspades.py"), ("spoty", "spotty"), ("spoty/", "spotty/")]:
        with pytest.raises(BotLoadError, match=re.escape(f": did you mean {meant!r}?")):
            load_bot(typed)
    with pytest.raises(BotLoadError, match=r"found: note\.py$"):
        load_bot("note.py")  # not a bot file: no candidate
    r = runner.invoke(app, ["play", "spades", "myspade.py", "random", "random", "random", "--db", "a.sqlite"])
    assert r.exit_code == 2 and "did you mean 'myspades.py'?" in r.output, r.output
    for bots, meant in [("myspade.py,random", "myspades.py"), ("spoty/,random", "spotty/")]:  # a tournament's spec
        r = runner.invoke(app, ["tournament", "run", "--game", "spades", "--bots", bots, "--db", "a.sqlite"])
        assert r.exit_code == 2 and f"did you mean {meant!r}?" in r.output, r.output


def test_a_tournament_spec_suggests_the_closest_bot_and_names_a_slashed_folder_by_it(tmp_path):
    from arbiter.tournament.spec import SpecError, TournamentSpec, bot_names

    spec = TournamentSpec(game="spades", bots=("random", "greddy"))
    with pytest.raises(SpecError, match=r"unknown bot 'greddy': did you mean 'greedy'\?"):
        spec.validate()
    assert bot_names(["mybot/", "bots/x.py", "a/b/", "random"]) == ("mybot", "x", "b", "random")
    # `arbiter play spades . random . random` inside the bot's folder (docs/other-languages.md):
    # the folder's own name, not '.', which no bot may be called
    folder = tmp_path / "node-bot"
    (folder / "sub").mkdir(parents=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        assert bot_names([".", "random", "./", "sub/.."]) == ("node-bot", "random", "node-bot-2", "node-bot-3")


def test_the_registry_suggests_the_closest_registered_name(tmp_path):
    from arbiter.store.registry import Registry, RegistryError, Submission

    class Report:
        bot = {"games": ["spades"], "deterministic": False}

        def to_dict(self) -> dict:
            return {"ok": True, "checks": []}

    db = tmp_path / "arena.sqlite"
    with Registry(db) as reg:
        reg.add("heuristic-plus", "1.0", Submission({"bot.py": b"x = 1\n"}, "bot.py"), Report())
        with pytest.raises(RegistryError, match=r"did you mean 'heuristic-plus'\?"):
            reg.get("heuristic-pls")
        with pytest.raises(RegistryError, match=r"heuristic-plus has version 1.0\)"):
            reg.get("heuristic-plus", "2.0")
    r = runner.invoke(app, ["bots", "show", "heuristicplus", "--db", str(db)])
    assert r.exit_code == 2 and "did you mean 'heuristic-plus'?" in r.output


def test_bots_show_and_remove_take_name_at_version(tmp_path):
    """`bots show mine@1.0` and `bots remove mine@1.0` were refused ("no bot 'mine@1.0' in the
    registry ... did you mean 'mine'?") though name@version is how a tournament names a
    registered bot (README: "use it as mybot@1.0"). show gives that version alone; remove takes
    that version away (the bot's other versions stay, and its number stays taken)."""
    from arbiter.store.registry import Registry, Submission

    class Report:
        def __init__(self, version: str) -> None:
            self.bot = {"name": "mine", "version": version, "games": ["spades"], "deterministic": False}

        def to_dict(self) -> dict:
            return {"ok": True, "bot": self.bot, "checks": [{"name": "import", "ok": True, "detail": "mine.py:Mine"}]}

    db = tmp_path / "arena.sqlite"
    with Registry(db) as reg:
        for version in ("1.0", "1.1"):
            reg.add("mine", version, Submission({"mine.py": f"x = {version!r}\n".encode()}, "mine.py"), Report(version))
    r = runner.invoke(app, ["bots", "show", "mine@1.0", "--db", str(db)], terminal_width=200)
    assert r.exit_code == 0, r.output
    assert "mine@1.0" in r.output and "mine.py: mine 1.0" in r.output and "1.1" not in r.output, r.output
    r = runner.invoke(app, ["bots", "show", "mine@2.0", "--db", str(db)], terminal_width=200)
    assert r.exit_code == 2 and "mine has no version '2.0' (its versions: 1.0, 1.1)" in r.output, r.output
    r = runner.invoke(app, ["bots", "remove", "mine@1.0", "--version", "1.1", "--db", str(db)], terminal_width=200)
    assert r.exit_code == 2 and "give the version once" in r.output, r.output
    r = runner.invoke(app, ["bots", "remove", "mine@2.0", "--db", str(db)], terminal_width=200)
    assert r.exit_code == 2 and "no version '2.0' (its versions: 1.0, 1.1); nothing removed" in r.output, r.output
    r = runner.invoke(app, ["bots", "remove", "mine@1.0", "--db", str(db)], terminal_width=200)
    assert r.exit_code == 0 and "removed 1 version of mine" in r.output, r.output
    with Registry(db, read_only=True) as reg:
        assert [v.version for v in reg.versions("mine")] == ["1.1"]
    for command in ("show", "remove"):
        said = " ".join(runner.invoke(app, ["bots", command, "--help"], terminal_width=200).output.split())
        assert "NAME@VERSION (that version only)" in said, said


def test_counts_read_as_english():
    assert plural(1, "deal") == "1 deal" and plural(2, "deal") == "2 deals" and plural(0, "seat") == "0 seats"
    assert plural(1, "match", "matches") == "1 match" and plural(3, "match", "matches") == "3 matches"


def test_the_preset_help_lists_each_games_presets():
    """``--preset`` said "e.g. book", a preset of Spite and Malice only: Spades answered "unknown
    preset (known: none)". The help lists each game's, read from the games."""
    from cardarena.games import GAMES, game_class

    text = " ".join(CliRunner().invoke(app, ["evaluate", "--help"], env={"COLUMNS": "200"}).output.split())
    for name in GAMES:
        assert f"{name}: {', '.join(sorted(game_class(name).presets)) or 'none'}" in text.replace("│ ", "").replace(" │", "")


def test_a_help_texts_brackets_are_printed():
    """Help is rich markup: an option's "pip install 'card-arena[hindsight]'" printed as "pip
    install 'card-arena'", a command that does not install what it needs. Every bracketed
    word of every option's help is in the printed help (escaped where written: ``\\[``)."""
    import re

    import typer

    def walk(cmd, path):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk(sub, path + [name])

    for path, cmd in walk(typer.main.get_command(app), []):
        words = [w for p in cmd.params for w in re.findall(r"\\?\[([a-z][a-z_-]*)\]", getattr(p, "help", None) or "")]
        if not words:
            continue
        r = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "400"})
        for w in words:
            assert f"[{w}]" in r.output, (path, w)


def test_a_commands_help_breaks_its_lines_only_between_items():
    """A command's --help keeps its text's line breaks (rich markup): a docstring wrapped at the
    source's width came out broken mid-sentence at a terminal's ("...to start, and" / "waits
    ...", in `arbiter replay`, `watch`, `tournament show`, `bots show` and `remove`, `credentials`).
    A paragraph after the first breaks a line only where an item or a sentence ends."""
    import inspect

    import typer

    def walk(cmd, path):
        yield path, cmd
        for name, sub in getattr(cmd, "commands", {}).items():
            yield from walk(sub, path + [name])

    broken = []
    for path, cmd in walk(typer.main.get_command(app), []):
        doc = inspect.cleandoc(getattr(cmd, "help", None) or "")
        for paragraph in doc.split("\n\n")[1:]:
            broken += [(path, line) for line in paragraph.split("\n")[:-1] if not line.rstrip().endswith((";", ":", "."))]
    assert not broken, broken


def test_replays_help_says_at_counts_the_seats_decisions():
    """`arbiter replay --help` said "--at K names the step its decision was played at" beside
    --at's own "that seat's K-th decision (from 1)": it is the decision (analyse's #)."""
    text = " ".join(runner.invoke(app, ["replay", "--help"], env={"COLUMNS": "400"}).output.split())
    assert "names the step" not in text and "--at K is not a step but the seat's own K-th decision" in text, text


@pytest.mark.parametrize("args", [["export", "--decisions", "-o", "x.parquet"], ["analyse", "--bot", "mybot"],
                                  ["standings"], ["tournament", "show"]])
def test_a_store_not_there_is_said_alike_to_one_who_passed_db(tmp_path, args):
    """A typo in --db (evl.sqlite for eval.sqlite): `export` and `analyse --bot` answered "no
    store at evl.sqlite (pass --db)" to one who had passed it; every reader says what makes a
    store and how to read another, in the same words."""
    db = tmp_path / "evl.sqlite"
    r = runner.invoke(app, [*args, "--db", str(db)], env={"COLUMNS": "400"})
    said = " ".join(r.output.split())
    assert r.exit_code == 2 and "(pass --db)" not in said and not db.exists(), said
    assert f"error: no store at {db} (arbiter play, arbiter tournament run and arbiter evaluate --db make one; " \
           "another store: --db FILE)" in said, said


def test_the_bundled_names_listed_for_play_and_the_sdk_are_every_one():
    """``arbiter play --help`` and ``pydoc sdk.loading`` listed random, greedy, heuristic and
    search: ``dds``, installed beside them, was missing."""
    import re

    import sdk.loading
    from arbiter.cli import play

    import inspect

    source = inspect.getsource(play)
    listed = re.search(r"bundled name \(([^)]*)\)", source).group(1)
    assert set(listed.split(", ")) == set(sdk.loading.BUNDLED), listed
    doc = " ".join(sdk.loading.__doc__.split())
    assert all(f"``{name}``" in doc for name in sdk.loading.BUNDLED), doc[:200]


def test_bots_show_titles_the_check_report_by_what_is_registered_not_where_it_was_checked(tmp_path):
    """A submission is checked in a temporary folder of the checking machine: its report's
    spec names that folder, which the author never saw and which is gone by then."""
    from arbiter.store.registry import Registry, Submission

    class Report:
        bot = {"name": "mine", "version": "1", "games": ["spades"], "deterministic": False}

        def to_dict(self) -> dict:
            return {"spec": "/tmp/arena-submit-x1y2z3/bot/mine.py", "ok": True, "bot": self.bot,
                    "checks": [{"name": "import", "ok": True, "detail": "mine.py:Mine"}]}

    db = tmp_path / "arena.sqlite"
    with Registry(db) as reg:
        reg.add("mine", "1", Submission({"mine.py": b"x = 1\n"}, "mine.py"), Report())
    r = runner.invoke(app, ["bots", "show", "mine", "--db", str(db)], terminal_width=200)
    assert r.exit_code == 0, r.output
    assert "arena-submit" not in r.output and "mine.py: mine 1, games spades" in r.output, r.output


def test_a_servicer_cancelled_by_a_stop_is_not_logged_and_other_errors_are():
    """grpc.aio's log of a servicer a server's stop cancelled is dropped (``_QuietCancel``,
    which looks asyncio up where it is loaded rather than importing it at every start)."""
    import asyncio
    import logging

    from arbiter.cli._common import _QuietCancel

    def record(exc: BaseException) -> logging.LogRecord:
        return logging.LogRecord("grpc._cython.cygrpc", logging.ERROR, __file__, 1, "servicer", None, (type(exc), exc, None))

    assert _QuietCancel().filter(record(asyncio.CancelledError())) is False
    assert _QuietCancel().filter(record(ValueError("x"))) is True
    assert logging.getLogger("grpc._cython.cygrpc").filters and any(
        isinstance(f, _QuietCancel) for f in logging.getLogger("grpc._cython.cygrpc").filters)
