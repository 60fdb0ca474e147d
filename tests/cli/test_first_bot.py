"""A newcomer's first bot, from `arbiter bots new` on, with the mistakes a first bot makes:
each is told in words naming what is wrong and where, never with the platform's traceback.
In this process (typer's runner, the harness): no bot process is started here."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from sdk.harness import play_match
from sdk.loading import BotLoadError, load_bot
from tests.cli.badinput import run_in_process


def _folder_bot(root: Path, name: str, body: str, **modules: str) -> Path:
    """A folder bot ``root/name`` with ``bot.py`` and its own ``modules`` (name -> source)."""
    folder = root / name
    folder.mkdir()
    (folder / "bot.py").write_text(textwrap.dedent(body))
    for module, source in modules.items():
        (folder / f"{module}.py").write_text(textwrap.dedent(source))
    return folder


_PICKER = """\
    from sdk import Bot
    from helpers import pick

    class Picker(Bot):
        name = "{name}"
        games = ("spades",)

        def choose(self, view, legal_actions):
            return pick(legal_actions)
    """


def test_a_folder_bots_own_modules_import_in_process_each_its_own(tmp_path):
    """The template says a folder bot's ``bot.py`` imports its other modules by plain name:
    hosted, the folder is on the bot process's path; in the arbiter's process
    (``--transport inproc``) and in the harness (``load_bot``) it was not, and a folder bot
    with a ``helpers.py`` failed to load ("No module named 'helpers'"). Two such bots in one
    process each get their own ``helpers``, not the first one's."""
    first = _folder_bot(tmp_path, "first", _PICKER.format(name="first"), helpers="def pick(legal): return legal[0]\n")
    last = _folder_bot(tmp_path, "last", _PICKER.format(name="last"), helpers="def pick(legal): return legal[-1]\n")
    a, b = load_bot(str(first)), load_bot(str(last))
    from cardarena.games import get_game

    legal = get_game("spades").new_initial_state(1).legal_actions()
    assert a.choose(None, legal) == legal[0] and b.choose(None, legal) == legal[-1]
    assert "helpers" not in __import__("sys").modules  # the bots' own, not the process's
    record = play_match("spades", [a, b, a, b], seed=1, options={"deals": 1})
    assert record.outcome is not None
    out = run_in_process("play", "spades", str(first), str(last), str(first), str(last), "--seed", "1",
                         "-o", "deals=1", "--transport", "inproc", "--db", str(tmp_path / "a.sqlite"))
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("module", ["random", "sdk", "json"])
def test_a_folder_bots_module_named_like_one_the_sdk_imports_is_named_not_a_traceback(tmp_path, module):
    """A folder bot's own modules come first on its process's path: a ``random.py`` of its own
    replaced Python's for the SDK too, and the self-test and every match ended in the SDK's
    traceback ("module 'random' has no attribute 'Random'", in sdk/bot.py). It is refused
    before anything starts, naming the file and what to do."""
    folder = _folder_bot(tmp_path, "mine", _PICKER.format(name="mine").replace("from helpers import pick",
                                                                                  f"from {module} import pick"),
                         **{module: "def pick(legal): return legal[0]\n"})
    with pytest.raises(BotLoadError) as caught:
        load_bot(str(folder))
    message = str(caught.value)
    assert f"{module}.py" in message and "rename" in message, message
    for args in (["bots", "check", str(folder), "--no-smoke", "--positions", "5"],
                 ["play", "spades", str(folder), "random", str(folder), "random", "-o", "deals=1",
                  "--db", str(tmp_path / "a.sqlite")],
                 ["play", "spades", str(folder), "random", str(folder), "random", "-o", "deals=1",
                  "--transport", "inproc", "--db", str(tmp_path / "a.sqlite")],
                 ["tournament", "run", "--game", "spades", "--bots", f"{folder},random", "--deals", "1",
                  "--db", str(tmp_path / "t.sqlite")]):
        out = run_in_process(*args)
        text = out.stdout + out.stderr
        assert out.returncode in (1, 2), (args, text)
        assert f"{module}.py" in text and "rename" in text and "Traceback" not in text, (args, text)


def test_a_folder_bots_test_py_is_not_taken_for_pythons_test_package(tmp_path):
    """Python's library has a ``test`` package that nothing imports but its own tests: a
    ``test.py`` beside ``bot.py``, where an author keeps a try-out script, is no clash."""
    folder = _folder_bot(tmp_path, "mine", _PICKER.format(name="mine"), helpers="def pick(legal): return legal[0]\n",
                         test="print('a try-out script')\n")
    assert load_bot(str(folder)).name == "mine"


@pytest.mark.parametrize("games, words", [
    ('("spades")', ['games is the string \'spades\', not a tuple of names: write games = ("spades",)']),
    ('("spite_and_malice",)', ["unknown game 'spite_and_malice': did you mean 'spite-and-malice'?"]),
])
def test_a_wrong_games_tuple_is_told_as_written(tmp_path, games, words):
    """``games = ("spades")`` (no comma: a string) was checked letter by letter ("unknown games
    ['s', 'p', 'a', 'd', 'e', 's']", the report titled "games s, p, a, d, e, s"), and a
    misspelt name got the list of names but not the one meant."""
    from arbiter.hosting.botcheck import run_checks

    bot = tmp_path / "mine.py"
    bot.write_text(textwrap.dedent(f"""\
        from sdk import Bot

        class Mine(Bot):
            name = "mine"
            games = {games}

            def choose(self, view, legal_actions):
                return legal_actions[0]
        """))
    report = run_checks(str(bot), positions=5)
    contract = next(c for c in report.checks if c.name == "contract")
    assert not contract.ok
    for w in words:
        assert w in contract.detail, contract.detail
    assert "'s', 'p'" not in contract.detail and report.bot["games"] != list("spades")


def test_an_illegal_answer_says_why_in_the_self_test_and_the_harness(tmp_path):
    """An illegal answer was only "not legal at decision 8 (seat 1, 9 legal actions)" (the
    self-test) or "not one of the 9 legal actions" (the harness): the engine knows why, from
    the seat's own information ("you do not hold AS", "must follow suit"), and the author's
    own check and harness, which show no one else, now say it."""
    from arbiter.hosting.botcheck import run_checks
    from sdk.harness import HarnessError

    bot = tmp_path / "mine.py"
    bot.write_text(textwrap.dedent("""\
        from sdk import Bot
        from sdk.spades import Card, Play

        class Mine(Bot):
            name = "mine"
            games = ("spades",)

            def choose(self, view, legal_actions):
                if any(isinstance(a, Play) for a in legal_actions):
                    missing = next(c for c in map(Card, range(52)) if c not in view.hand)
                    return Play(missing)
                return legal_actions[0]
        """))
    report = run_checks(str(bot), positions=40)
    legal = next(c for c in report.checks if c.name == "legal:spades")
    assert not legal.ok and "you do not hold" in legal.detail, legal.detail
    with pytest.raises(HarnessError, match="you do not hold"):
        play_match("spades", [load_bot(str(bot)), load_bot("random")] * 2, seed=1, options={"deals": 1})


def test_a_bot_over_the_time_limit_fails_the_self_test_at_once_not_by_its_whole_timeout(tmp_path):
    """A bot 2.5 s a decision (limit 2 s) played the self-test's 200 positions, then 200
    more for determinism, and was refused after 120 s as "did not finish (a decision that
    never returns?)", where every decision returned: the first late one ends the playout and
    the time check says how late it was."""
    import time

    from arbiter.hosting.botcheck import run_checks

    bot = tmp_path / "slow.py"
    bot.write_text(textwrap.dedent("""\
        import time
        from sdk import Bot

        class Slow(Bot):
            name = "slow"
            games = ("spades",)
            deterministic = True

            def choose(self, view, legal_actions):
                time.sleep(0.06)
                return legal_actions[0]
        """))
    t0 = time.monotonic()
    report = run_checks(str(bot), positions=200, decision_ms=20)
    took = time.monotonic() - t0
    checks = {c.name: c for c in report.checks}
    assert not checks["time:spades"].ok and "limit 20 ms" in checks["time:spades"].detail, report.checks
    assert "over the time limit" in checks["legal:spades"].detail and "deterministic:spades" not in checks
    assert took < 3, took  # 400 decisions of 60 ms before


@pytest.mark.e2e
def test_a_self_test_out_of_time_says_how_fast_its_answers_had_to_be(tmp_path):
    """A bot whose every decision returned within the limit, but too slowly for the check's
    positions to fit in its time, was asked "a decision that never returns?": it is told the
    budget, an average a decision, whatever the limit of one."""
    from arbiter.hosting.vetting import self_test

    bot = tmp_path / "steady.py"
    bot.write_text(textwrap.dedent("""\
        import time
        from sdk import Bot

        class Steady(Bot):
            name = "steady"
            games = ("spades",)

            def choose(self, view, legal_actions):
                time.sleep(0.05)
                return legal_actions[0]
        """))
    report = asyncio.run(self_test(bot, positions=200, decision_ms=2000, timeout=2))
    (check,) = report.checks
    assert not check.ok and "answers too slow together" in check.detail and "under 0.005 s a decision" in check.detail, check


def test_a_bot_scripts_help_shows_its_flags_and_connects_to_nothing(capsys):
    """``python mybot.py --help`` (a script ending in ``run(MyBot())``, as the README's) tried
    to connect to 127.0.0.1:50051 and said it could not reach it: ``run`` read its flags with
    no help. It prints them, as ``python -m sdk --help`` does, and exits 0."""
    import sdk
    from sdk import Bot

    class Mine(Bot):
        name = "mine"

        def choose(self, view, legal_actions):
            return legal_actions[0]

    with pytest.raises(SystemExit) as caught:
        sdk.run(Mine(), argv=["--help"])
    assert caught.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--address", "--token", "--name", "--tls-ca", "ARENA_TOKEN", "ARENA_ADDRESS"):
        assert flag in out, out


def test_a_folder_typed_with_its_slash_is_the_folder_even_where_a_bundled_bot_has_its_name(tmp_path, monkeypatch):
    """``arbiter play spades random/ ...`` (the slash a shell completes) took the slash off and
    played the bundled ``random``: a folder bot of that name was never played, silently. The
    folder is played, named ``random``; and ``bots new`` refuses a bundled bot's name, which
    ``arbiter play`` and tournaments would take for the bundled bot when typed without it."""
    from typer.testing import CliRunner

    from arbiter.cli import app

    monkeypatch.chdir(tmp_path)
    refused = CliRunner().invoke(app, ["bots", "new", "random"])
    assert refused.exit_code == 2 and "bundled" in refused.output and not (tmp_path / "random").exists(), refused.output
    _folder_bot(tmp_path, "random", """\
        from sdk import Bot

        class Mine(Bot):
            name = "mine"
            games = ("spades",)

            def choose(self, view, legal_actions):
                raise RuntimeError("the folder's own bot")
        """)
    out = run_in_process("play", "spades", "random/", "greedy", "random/", "greedy", "--seed", "1", "-o", "deals=1",
                         "--transport", "inproc", "--db", str(tmp_path / "a.sqlite"))
    assert "the folder's own bot" in out.stdout + out.stderr, out.stdout + out.stderr


def test_the_self_tests_counts_read_as_english(tmp_path):
    """"20 legal answers over 1 random games"."""
    from arbiter.hosting.botcheck import run_checks

    folder = _folder_bot(tmp_path, "mine", _PICKER.format(name="mine"), helpers="def pick(legal): return legal[0]\n")
    legal = next(c for c in run_checks(str(folder), positions=5).checks if c.name == "legal:spades")
    assert legal.ok and legal.detail == "5 legal answers over 1 random game", legal.detail


@pytest.mark.parametrize("init, words", [
    ("def __init__(self, depth):\n        super().__init__()", "missing 1 required positional argument: 'depth'"),
    ("def __init__(self):\n        super().__init__()\n        open('weights.bin')", "mine.py:8: FileNotFoundError"),
])
def test_a_bot_that_cannot_be_made_is_told_in_words(tmp_path, init, words):
    """A bot whose ``__init__`` takes an argument, or raises (a file it reads is missing), ended
    ``arbiter play --transport inproc`` in the platform's traceback (sdk/loading.py's
    ``found[0]()``), and the self-test said only "TypeError(...) at loading.py:195"."""
    from arbiter.hosting.botcheck import run_checks

    bot = tmp_path / "mine.py"
    bot.write_text(textwrap.dedent("""\
        from sdk import Bot

        class Mine(Bot):
            name = "mine"
            games = ("spades",)
            INIT

            def choose(self, view, legal_actions):
                return legal_actions[0]
        """).replace("INIT", init))
    with pytest.raises(BotLoadError) as caught:
        load_bot(str(bot))
    assert words in str(caught.value) and "Mine()" in str(caught.value), str(caught.value)
    imported = next(c for c in run_checks(str(bot), positions=5).checks if c.name == "import")
    assert not imported.ok and words in imported.detail and "loading.py" not in imported.detail, imported.detail
    out = run_in_process("play", "spades", str(bot), "random", str(bot), "random", "-o", "deals=1",
                         "--transport", "inproc", "--db", str(tmp_path / "a.sqlite"))
    assert out.returncode == 2 and words in out.stderr and "Traceback" not in out.stdout + out.stderr, out


def test_a_missing_package_says_how_a_bot_brings_its_own():
    """``import numpyy`` said "No module named 'numpyy'" and no more: a newcomer whose bot
    needs a package is told how a bot declares its own (a folder's bot.toml)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        folder = _folder_bot(Path(tmp), "mine", "import numpyy\n" + textwrap.dedent(_PICKER.format(name="mine")),
                             helpers="def pick(legal): return legal[0]\n")
        with pytest.raises(BotLoadError) as caught:
            load_bot(str(folder))
    message = str(caught.value)
    assert "bot.py:1: ModuleNotFoundError: No module named 'numpyy'" in message, message
    assert "bot.toml" in message and "requirements" in message, message


def test_a_misspelt_module_of_the_bots_own_gets_the_closest_name(tmp_path):
    folder = _folder_bot(tmp_path, "mine", _PICKER.format(name="mine").replace("from helpers", "from helper"),
                         helpers="def pick(legal): return legal[0]\n")
    with pytest.raises(BotLoadError, match=r"did you mean 'helpers'\?"):
        load_bot(str(folder))


def test_in_the_bots_own_process_its_modules_import_as_any_module(tmp_path, monkeypatch):
    """A hosted bot's process has its folder on the path (PYTHONPATH): there its modules stay
    imported, so a later ``import helpers`` inside ``choose`` gets the same module, state and
    all, as it always did."""
    import sys

    folder = _folder_bot(tmp_path, "mine", _PICKER.format(name="mine"), helpers="def pick(legal): return legal[0]\n")
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "helpers", raising=False)
    bot = load_bot(str(folder))
    assert sys.modules["helpers"].pick is type(bot).choose.__globals__["pick"]
    monkeypatch.delitem(sys.modules, "helpers")


def test_a_base_class_beside_the_bot_is_not_a_second_bot(tmp_path):
    """A file with a base class and the bot derived from it was refused ("expected exactly one
    sdk.Bot subclass, found Base, Mine; name one as FILE:Class"), and bots check and submit
    take no FILE:Class: the bot is the one class no other there derives from. Two unrelated
    bots are still refused, with what to do that every command takes."""
    from arbiter.hosting.botcheck import run_checks

    bot = tmp_path / "two.py"
    bot.write_text(textwrap.dedent("""\
        from sdk import Bot

        class Base(Bot):
            games = ("spades",)

            def choose(self, view, legal_actions):
                return legal_actions[0]

        class Mine(Base):
            name = "mine"
        """))
    assert type(load_bot(str(bot))).__name__ == "Mine"
    assert run_checks(str(bot), positions=5).ok
    bot.write_text(bot.read_text() + "\n\nclass Other(Base):\n    name = 'other'\n")
    with pytest.raises(BotLoadError) as caught:
        load_bot(str(bot))
    assert "found Mine, Other" in str(caught.value) and "module beside it" in str(caught.value), str(caught.value)


def test_a_lone_string_of_games_is_one_game_on_every_path():
    """``games = ("spades")`` played in process (``"spades" in "spades"``, a substring test)
    and was refused hosted, its Hello listing six one-letter games ("it plays s, p, a, d, e,
    s"). Every path reads it as the one name it means (the self-test still says to write the
    tuple); a lone "spades" is no substring test either."""
    import sdk.convert as convert
    from sdk import Bot
    from sdk.bot import game_names

    class Lone(Bot):
        name = "lone"
        games = ("spades")

    bot = Lone()
    assert game_names(bot.games) == ("spades",) and bot.plays("spades") and not bot.plays("spade")
    # the Hello sdk.runner.run sends, from bot.games as it is
    assert list(convert.hello("lone", "0.1", "", bot.games).hello.games) == ["spades"]


def test_the_self_tests_import_line_names_the_file_the_bot_came_from(tmp_path):
    """`bots check smbot.py` said "import: pass bot:Patience", as if from a file bot.py; a
    folder bot's is its bot.py, an installed one's its module."""
    from arbiter.hosting.botcheck import run_checks

    text = "from sdk import Bot\n\nclass Picker(Bot):\n    def choose(self, view, legal_actions):\n" \
           "        return legal_actions[0]\n"
    (tmp_path / "smbot.py").write_text(text)
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "bot.py").write_text(text)
    details = [run_checks(spec, positions=1, games=["spades"]).checks[0].detail
               for spec in (str(tmp_path / "smbot.py"), str(folder), "bots.random_bot:RandomBot")]
    assert details == ["smbot.py:Picker", "bot.py:Picker", "bots.random_bot:RandomBot"], details


def test_a_bot_whose_games_misspell_the_game_is_told_which_game_it_meant(tmp_path):
    """``games = ("spite_and_malice",)`` (the module's spelling) was "does not play
    spite-and-malice (it plays spite_and_malice)": the difference is one character."""
    from cardarena.names import does_not_play  # the words of every path that says what a bot plays

    bot = tmp_path / "under.py"
    bot.write_text("from sdk import Bot\n\nclass Under(Bot):\n    games = ('spite_and_malice',)\n"
                   "    def choose(self, view, legal_actions):\n        return legal_actions[0]\n")
    r = run_in_process("play", "spite-and-malice", str(bot), "random", "--transport", "inproc",
                       "--db", str(tmp_path / "a.sqlite"))
    said = " ".join(r.stderr.split())
    assert r.returncode == 2 and "(it plays spite_and_malice, no game: did you mean 'spite-and-malice'?)" in said, said
    assert does_not_play("b", "spades", ("spot", "*")) == "bot 'b' does not play spades (it plays spot, *)"
    assert does_not_play("b", "spot", ()) == "bot 'b' does not play spot (it plays no game)"


def test_a_bot_declared_deterministic_that_is_not_is_told_how_to_fix_it(tmp_path):
    """``deterministic = True`` with ``random.choice`` failed the self-test as "answers
    differ at decision 0: 'discard JH' vs 'discard 2C'": counted from 0 where every other
    message counts decisions from 1, and nothing said what makes a bot deterministic."""
    from arbiter.hosting.botcheck import NOT_DETERMINISTIC_FIX, run_checks

    path = tmp_path / "globalrand.py"
    path.write_text("import random\nfrom sdk import Bot\n\n\nclass G(Bot):\n    name = 'globalrand'\n"
                    "    games = ('spot',)\n    deterministic = True\n\n    def choose(self, view, legal_actions):\n"
                    "        return random.choice(legal_actions)\n")
    report = run_checks(str(path), positions=20)
    check = next(c for c in report.checks if c.name == "deterministic:spot")
    import re

    assert not check.ok and re.match(r"answers differ at decision [1-9]\d* under the same seed: ", check.detail), check.detail
    assert check.detail.endswith(NOT_DETERMINISTIC_FIX) and "self.rng" in NOT_DETERMINISTIC_FIX


def test_a_bot_that_cannot_be_made_is_told_what_to_look_at(tmp_path, monkeypatch):
    """``__init__`` opening "weights.json" by a relative path failed as "I() could not be
    made (a bot is made with no arguments): ... FileNotFoundError": the words pointed at
    the arguments, when the file is read from the current directory, which is not the
    bot's folder where the arbiter runs it. Arguments are named only when they are it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bots").mkdir()
    weights = tmp_path / "bots" / "weighty.py"
    weights.write_text("from sdk import Bot\n\n\nclass W(Bot):\n    def __init__(self):\n        super().__init__()\n"
                       "        self.table = open('weights.json').read()\n\n    def choose(self, view, legal_actions):\n"
                       "        return legal_actions[0]\n")
    with pytest.raises(BotLoadError) as err:
        load_bot(str(weights))
    text = str(err.value)
    assert "no arguments" not in text and "Path(__file__).parent / 'weights.json'" in text, text
    args = tmp_path / "bots" / "argy.py"
    args.write_text("from sdk import Bot\n\n\nclass A(Bot):\n    def __init__(self, depth):\n        super().__init__()\n\n"
                    "    def choose(self, view, legal_actions):\n        return legal_actions[0]\n")
    with pytest.raises(BotLoadError, match=r"A\(\) could not be made \(a bot is made with no arguments\)"):
        load_bot(str(args))


def test_the_self_tests_clock_counts_a_seats_set_up_as_a_match_does(tmp_path):
    """A bot whose set-up for a match is slow (``on_match_start``, or a large ``__init__``
    table copied for the match) passed ``time:GAME`` (only ``choose`` was timed) and then
    timed out at the first decision of every match, whose clock the set-up runs on."""
    from arbiter.hosting.botcheck import run_checks

    path = tmp_path / "slowstart.py"
    path.write_text("import time\nfrom sdk import Bot\n\n\nclass S(Bot):\n    name = 'slowstart'\n"
                    "    games = ('spite-and-malice',)\n\n    def on_match_start(self, info):\n        time.sleep(0.15)\n\n"
                    "    def choose(self, view, legal_actions):\n        return legal_actions[0]\n")
    report = run_checks(str(path), positions=5, decision_ms=100)
    check = next(c for c in report.checks if c.name == "time:spite-and-malice")
    assert not check.ok, check.detail
    assert "a seat's first decision counts its set-up (the bot's per-match copy, on_match_start)" in check.detail


def test_a_class_the_file_does_not_have_is_said_so_with_the_ones_it_has(tmp_path):
    """`arbiter play spades x.py:C` with no class C in x.py said "'C' is not an sdk.Bot subclass",
    as if C were there and the wrong kind: it says there is no class C in the file and lists the
    Bot classes it has, to name one of them; a name that is there but no Bot says what it is."""
    bot = tmp_path / "x.py"
    bot.write_text(textwrap.dedent("""\
        from sdk import Bot

        HELPER = 3

        class First(Bot):
            name = "first"

            def choose(self, view, legal_actions):
                return legal_actions[0]
    """))
    with pytest.raises(BotLoadError) as caught:
        load_bot(f"{bot}:C")
    assert str(caught.value) == f"{bot}:C: no class 'C' in {bot} (its sdk.Bot classes: First)"
    with pytest.raises(BotLoadError, match=r"'HELPER' in .* is an int, not an sdk.Bot subclass \(its sdk.Bot classes: First\)"):
        load_bot(f"{bot}:HELPER")
    got = run_in_process("play", "spades", f"{bot}:C", "random", "random", "random", "-o", "deals=1", "--transport", "inproc",
                         "--db", str(tmp_path / "a.sqlite"))
    said = " ".join(got.stderr.split())
    assert got.returncode == 2 and f"no class 'C' in {bot} (its sdk.Bot classes: First)" in said, got
    assert "Traceback" not in said
