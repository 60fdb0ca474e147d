"""The SDK documents itself: the harness's example runs as written, and ``Bot`` documents
``rng`` and every hook."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import sdk.bot
import sdk.harness
from tests.conftest import ROOT


def harness_example() -> str:
    doc = sdk.harness.__doc__
    start = doc.index("::\n") + 3
    lines = []
    for line in doc[start:].splitlines():
        if line and not line.startswith("    "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines)).strip() + "\n"


@pytest.mark.e2e
def test_the_harness_example_is_complete_and_runs(tmp_path):
    code = harness_example()
    assert "import" in code and "play_match(" in code and "class MyBot(Bot)" in code
    script = tmp_path / "try_mybot.py"
    script.write_text(code)
    # a fresh interpreter in an empty folder: nothing but what the example imports
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Outcome(" in r.stdout and "decisions" in r.stdout


def test_bot_documents_rng_and_every_hook():
    doc = sdk.bot.Bot.__doc__
    for word in ("rng", "info", "on_match_start", "on_events", "choose", "on_match_end", "name", "version", "games"):
        assert f"{word}:" in doc or f"{word}(" in doc, word
    for hook in ("choose", "on_match_start", "on_events", "on_match_end"):
        assert getattr(sdk.bot.Bot, hook).__doc__, hook


def test_pydoc_says_what_a_first_bot_needs_beyond_the_hooks():
    """What a first bot tripped on with pydoc alone: the template sets ``deterministic``,
    which ``Bot`` did not document; a hosted bot's ``print`` goes nowhere (its stdout is
    thrown away) and pydoc did not say where diagnostics go; ``max(view.hand)`` is the king,
    not the ace (a card's order is its index, not Spades'); and ``trick_winner(view.trick)``
    raised, the helper taking (seat, card) pairs: its documented call runs on a real trick."""
    from sdk import Card
    from sdk.spades import trick_winner
    from cardarena.games import get_game

    doc = sdk.bot.Bot.__doc__
    assert "deterministic:" in doc and "stderr" in doc and "stdout" in doc
    assert "power" in Card.__doc__ and "ace" in Card.__doc__.lower()
    call = "trick_winner([(p.seat, p.card) for p in view.trick])"
    assert call in " ".join(trick_winner.__doc__.split())
    state = get_game("spades", {"blind_nil": False}).new_initial_state(3)
    while not (state.view(state.current_seat).trick and len(state.view(state.current_seat).trick) == 2):
        state.apply(state.legal_actions()[0])
    view = state.view(state.current_seat)
    assert eval(call) in (p.seat for p in view.trick)


def test_sdk_modules_point_to_the_rules_in_the_project():
    import sdk.spades
    import sdk.spite_and_malice
    import sdk.spot

    for mod, game in ((sdk.spades, "spades"), (sdk.spot, "spot"), (sdk.spite_and_malice, "spite-and-malice")):
        assert f"docs/rules/{game}.md" in mod.__doc__ and f"arbiter rules {game}" in mod.__doc__
        assert (ROOT / "docs" / "rules" / f"{game}.md").is_file()


# -- issue #30: what a new user tripped on in the README and pydoc ----------------------

README = (ROOT / "README.md").read_text()


def _section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end > 0 else None]


def _blocks(text: str, lang: str) -> list[str]:
    """The fenced ``lang`` code blocks of ``text``, dedented (a block may sit in a list item)."""
    import re

    return [textwrap.dedent(m.group(1)) for m in re.finditer(rf"```{lang}\n(.*?)\n *```", text, re.S)]


@pytest.mark.e2e  # runs the example in a fresh interpreter
def test_14_the_readme_harness_example_says_where_random_bot_comes_from_and_runs(tmp_path):
    """`from sdk import RandomBot` fails: the README's own lines must run as written."""
    blocks = _blocks(_section("Writing a bot"), "python")
    bot = next(b for b in blocks if b.startswith("# mybot.py"))
    harness = next(b for b in blocks if "play_match(" in b)
    assert "RandomBot" in harness and "import RandomBot" in harness
    (tmp_path / "mybot.py").write_text(bot)
    (tmp_path / "try_it.py").write_text(harness)
    r = subprocess.run([sys.executable, "try_it.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Outcome(" in r.stdout


def test_15_the_readme_says_a_spades_bot_starts_blind_and_it_is_true():
    from sdk import Bot
    from sdk.harness import play_match
    from sdk.spades import Bid, Look

    text = " ".join(_section("Writing a bot").split())
    for words in ("before it has seen its cards", "`view.hand` is empty", "`look` and `bid blind_nil`",
                  "`Look()`", "`Bid(0, blind=True)`", "-o blind_nil=false"):
        assert words in text, words
    first: list = []

    class Recorder(Bot):
        name = "recorder"
        games = ("spades",)

        def choose(self, view, legal_actions):
            if not first:
                first.append((tuple(view.hand), tuple(legal_actions)))
            return next((a for a in legal_actions if isinstance(a, Look)), legal_actions[0])

    play_match("spades", [Recorder(), Recorder(), Recorder(), Recorder()], seed=1, options={"deals": 1})
    hand, legal = first[0]
    assert hand == () and set(legal) == {Look(), Bid(0, blind=True)}, first


def test_16_the_readme_shows_bot_tokens_in_the_environment_not_on_the_command_line():
    import re

    for line in README.splitlines():
        if re.search(r"(python -m sdk|python mybot\.py|arbiter bots submit)[^(]*--token \S", line):  # outside an aside in parentheses
            raise AssertionError(f"a token on a command line, where ps shows it: {line.strip()}")
    section = _section("Writing a bot")
    assert "ARENA_TOKEN" in section and section.index("ARENA_TOKEN") < section.index("--token")
    assert "`ps`" in section


def test_18_each_sdk_module_exports_and_lists_what_it_re_exports():
    """`pydoc sdk.spades` showed only the module docstring: with ``__all__`` pydoc shows
    each re-export, and the docstring names each of them."""
    import pydoc
    import types

    import sdk
    import sdk.spades
    import sdk.spite_and_malice
    import sdk.spot

    for mod in (sdk, sdk.spades, sdk.spot, sdk.spite_and_malice):
        public = {n for n, v in vars(mod).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)
                  and n not in ("annotations",)}
        assert set(mod.__all__) == public, (mod.__name__, public ^ set(mod.__all__))
        page = pydoc.render_doc(mod, renderer=pydoc.plaintext)
        for name in mod.__all__:
            assert f"``{name}``" in mod.__doc__, (mod.__name__, name)
            assert f"class {name}" in page or f"{name}(" in page or f"{name} = " in page, (mod.__name__, name)
    assert "trick_winner(" in pydoc.render_doc(sdk.spades, renderer=pydoc.plaintext)


def test_19_the_readme_names_what_make_test_installs_and_what_happens_without_it():
    import re

    makefile = (ROOT / "Makefile").read_text()
    test_deps = re.search(r"^test: (.*)$", makefile, re.M).group(1).split()
    assert "browser" in test_deps and "sandbox-tools" in test_deps
    packages = set()
    for line in re.findall(r"apt-get install [^;}|]*", makefile):
        packages |= {w for w in line.split()[2:] if re.fullmatch(r"[a-z][a-z0-9.+-]*", w)}
    assert packages >= {"chromium", "chromium-driver", "bubblewrap"}, packages
    text = " ".join(_section("The two commands").split())
    assert "need only Python" not in text
    for word in sorted(packages) + ["apt-get", "sudo", "make browser", "make sandbox-tools", "skipped"]:
        assert word in text, word


def test_bot_says_where_its_name_shows_and_it_is_true(tmp_path):
    """``name`` was "what standings show"; ``arbiter play`` and tournaments show a bot given
    as a file by its file's name (mine.py: mine), whatever its class declares. The doc says
    so, and names where the declared name is used: a standing arbiter, the registry."""
    from typer.testing import CliRunner

    from arbiter.cli import app

    doc = " ".join(sdk.bot.Bot.__doc__.split())
    assert "what standings show" not in doc
    assert "by its file's name" in doc and "arbiter bots submit" in doc and "python -m sdk" in doc
    (tmp_path / "mine.py").write_text("from sdk import Bot\n\nclass Mine(Bot):\n    name = 'declared'\n"
                                      "    def choose(self, view, legal_actions):\n        return legal_actions[0]\n")
    r = CliRunner().invoke(app, ["play", "spot", str(tmp_path / "mine.py"), "random", "--seed", "1",
                                 "--transport", "inproc", "--db", str(tmp_path / "a.sqlite")])
    assert r.exit_code == 0 and "│ mine " in r.stdout and "declared" not in r.stdout, r.stdout


def test_the_sdks_pages_import_only_what_the_sdks_package_has():
    """`pydoc sdk` and `pydoc sdk.harness` told an author to `from bots.random_bot import
    RandomBot`: the bots package is the platform's (card-arena), so with card-arena-sdk alone
    the import fails, while the random bot comes with the SDK (``sdk.random_bot``, and
    ``load_bot("random")``)."""
    import re

    import sdk.loading
    import sdk.random_bot

    for mod in (sdk, sdk.harness, sdk.loading, sdk.bot):
        for top in re.findall(r"from ([\w.]+) import", mod.__doc__):
            assert top.partition(".")[0] in ("sdk", "cardarena"), (mod.__name__, top)
    assert "sdk.random_bot" in sdk.__doc__ and "sdk.random_bot" in sdk.harness.__doc__
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "both are the platform's, so with card-arena-sdk alone" not in readme


def test_bot_says_its_set_up_runs_on_the_first_decisions_clock():
    """A bot that loaded a table in ``__init__`` timed out on its first decision: the
    per-match deep copy of it and ``on_match_start`` run on that clock, which pydoc did not
    say, nor where data shared by every match belongs."""
    doc = " ".join(sdk.bot.Bot.__doc__.split())
    assert "set-up for a match before its first decision" in doc, doc
    assert "deep copy of all ``__init__`` put on ``self``, and ``on_match_start``" in doc and "module global" in doc
    assert "answers their turns one at a time" in doc  # matches at once in one process share its time


_KINDS_IN_SOURCE = r"""(?:Event|_emit|new_event|_event)\(\s*"(\w+)"|_record\([^)]*"(\w+)"\)"""


@pytest.mark.parametrize("game, module, package, matches", [
    ("spades", "sdk.spades", "spades", [(4, {"deals": 2}, None)]),
    ("spot", "sdk.spot", "spot", [(3, {"hands": 2}, None)]),
    ("spite-and-malice", "sdk.spite_and_malice", "spite_malice",
     [(2, {"payoff_size": 3}, None), (3, {"payoff_size": 3}, "massachusetts"),
      (2, {"payoff_size": 3, "loading": True, "center_limit": "unlimited", "recycle": "deferred"}, None)]),
])
def test_every_event_kind_is_told_in_the_games_sdk_module(game, module, package, matches):
    """A bot that tracks the cards played reads ``on_events``, but nothing said which
    ``Event.kind`` values a game has, nor what ``seat`` and ``cards`` hold in each: the
    author had to print events to guess "play" and "trick". Every kind the engine emits
    (in its source, and in matches played) is named in the game's SDK module."""
    import importlib
    import re

    from sdk import Bot
    from sdk.harness import play_match

    assert "Events section of ``pydoc sdk.spades``" in " ".join(Bot.__doc__.split())  # where on_events points
    doc = importlib.import_module(module).__doc__
    told = set(re.findall(r"``(\w+)``", doc[doc.index("Events (``Bot.on_events``)"):]))
    source = "".join(p.read_text() for p in (ROOT / "cardarena" / "games" / package).glob("*.py"))
    kinds = {a or b for a, b in re.findall(_KINDS_IN_SOURCE, source)}
    assert {"deal", "draw" if game == "spot" else "play", "game_over"} <= kinds, kinds  # the pattern finds the engine's events
    seen: set[str] = set()

    class Watcher(Bot):
        def on_events(self, events):
            seen.update(e.kind for e in events)

        def choose(self, view, legal_actions):
            return self.rng.choice(legal_actions)

    for n, options, preset in matches:
        play_match(game, [Watcher() for _ in range(n)], seed=2, options=options, preset=preset)
    assert not (kinds | seen) - told, f"kinds not told in {module}: {sorted((kinds | seen) - told)}"


def test_bot_says_where_an_on_match_end_failure_and_its_stderr_show():
    """A hosted bot whose ``on_match_end`` raised showed nothing in ``arbiter play`` (the
    result is recorded before it runs; its stderr is kept only with an incident), and
    pydoc did not say so, nor that the stderr tail kept is read with the match."""
    doc = " ".join(sdk.bot.Bot.__doc__.split())
    assert "``arbiter play`` does not show for a hosted bot" in doc and "``sdk.harness`` (which raises it)" in doc
    assert "whoever may see the match reads it" in doc


def test_the_spades_module_says_how_to_score_with_the_matchs_options():
    """``score_side`` scores by the default options unless given ``rules``; pydoc said only
    "game.scoring of a configured game", and a bot has a ``MatchInfo``, not a game: the
    documented expression, run on a match's info, gives that match's rules."""
    import sdk.spades
    from cardarena.games import get_game
    from sdk import MatchInfo

    doc = " ".join(sdk.spades.__doc__.split())
    call = "get_game(info.game, info.options).scoring"
    assert call in doc and "from cardarena.games import get_game" in doc
    info = MatchInfo("m", "spades", {"nil_value": 50}, 0, 4, ((0, 2), (1, 3)))
    rules = eval(call)
    assert sdk.spades.score_side([0, 4], [False, False], [0, 4], 0, 0, rules).points == 90  # nil 50 + 40


def test_bot_says_what_a_late_or_failed_decision_costs():
    """Bot's pydoc told the clock but not what passing it does: that the policy forfeits
    or plays for the seat, and that a ``choose`` still running is not interrupted (its
    late answer is thrown away while the next decisions' clocks run: one long think cost
    a bot three strikes under the default policy)."""
    doc = " ".join(sdk.bot.Bot.__doc__.split())
    assert "forfeits its side" in doc and "plays its first legal action for it" in doc
    assert "not interrupted: a late answer is thrown away" in doc and "next decisions run too" in doc


def test_every_public_name_of_bot_is_documented():
    """``pydoc sdk.Bot`` showed ``plays(self, game)`` with no words and ``connection = None``
    with none either."""
    doc = sdk.bot.Bot.__doc__
    for name in dir(sdk.bot.Bot):
        if name.startswith("_"):
            continue
        value = getattr(sdk.bot.Bot, name)
        assert (callable(value) and value.__doc__) or f"{name}:" in doc, name


def test_the_centre_piles_renumber_as_documented():
    """A bot planning several plays a turn names centre piles by index; pydoc said
    "creation order" only, and a plan played ``center:1`` after ``center:0`` completed found
    another pile there. The view's doc says the piles move down, and they do."""
    from cardarena.games import get_game
    from cardarena.games.base import field_docs
    from sdk.spite_and_malice import SpiteAndMaliceView

    assert "move down one" in field_docs(SpiteAndMaliceView)["center"]
    from sdk.spite_and_malice import Play, TargetKind

    game = get_game("spite-and-malice", {"payoff_size": 30})
    for seed in range(50):  # a real game where a pile completes with another after it
        state = game.new_initial_state(seed)
        rng = __import__("random").Random(seed)
        while not state.is_terminal:
            before = [p.value for p in state.view(state.current_seat).center]
            legal = state.legal_actions()
            centre = [a for a in legal if isinstance(a, Play) and a.target is TargetKind.CENTER]
            action = rng.choice(centre or legal)
            state.apply(action)
            if action in centre and action.index is not None and before[action.index] + 1 == game.top_rank \
                    and action.index + 1 < len(before) and not state.is_terminal:
                i, after = action.index, [p.value for p in state.view(state.current_seat).center]
                assert after[i:len(before) - 1] == before[i + 1:], (before, after)
                return
    raise AssertionError("no completing pile with a pile after it in 50 games")


def test_the_harness_says_where_its_clock_comes_from():
    """``play_match(..., clock=Clock(...))``: pydoc showed ``clock: 'Clock'`` and never where
    ``Clock`` is; the named class takes the named arguments."""
    import importlib

    doc = " ".join(sdk.harness.play_match.__doc__.split())
    assert "``cardarena.records.Clock(decision_ms, bank_ms)``" in doc
    clock = importlib.import_module("cardarena.records").Clock(decision_ms=10_000, bank_ms=60_000)
    assert f"Clock({clock.decision_ms:_}, {clock.bank_ms:_})" in doc


def test_the_readme_says_the_set_up_runs_on_the_first_decisions_clock():
    """The README's hooks bullet said each match gets a fresh copy, not that the copy (of a
    table loaded in ``__init__`` too) runs on the first decision's clock."""
    text = " ".join(_section("Writing a bot").split())
    assert "`on_match_start` run on the clock of the seat's first decision" in text
    assert "on the class or in a module global" in text
