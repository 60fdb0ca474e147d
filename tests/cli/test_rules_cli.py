"""`arbiter rules GAME`: every option of the engine's declaration, and every preset."""

from __future__ import annotations

import dataclasses
import re

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from cardarena.games import GAMES, game_class
from cardarena.games.base import field_docs, option_specs, value_text
from tests.conftest import ROOT

runner = CliRunner()


def rules(game: str, columns: int = 120):
    return runner.invoke(app, ["rules", game], catch_exceptions=False, env={"COLUMNS": str(columns)})


def words(text: str) -> str:
    """The output with its wrapping undone (runs of white space as one space)."""
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("game", list(GAMES))
def test_rules_lists_every_option_with_type_default_and_meaning(game):
    r = rules(game)
    assert r.exit_code == 0, r.output
    text = words(r.stdout)
    cls = game_class(game)
    fields = [f.name for f in dataclasses.fields(cls.Options)]
    for spec in option_specs(cls.Options):
        bounds = f", {spec.range_text}" if spec.range_text else ""  # the range the Options declare
        assert f"{spec.name} {spec.type}{bounds}; default {spec.default}" in text, spec.name
        assert words(spec.meaning.replace("``", "")) in text, spec.name
    assert [s.name for s in option_specs(cls.Options)] == fields  # the declaration, all of it
    assert words(cls.rules_summary.splitlines()[0]) in text and "Notation" in text
    for name, settings in cls.presets.items():
        assert f" {name}" in text
        for key, value in settings.items():
            assert f"{key}={value_text(value)}" in text, (name, key)


def test_rules_spades_names_each_option_of_the_declaration():
    """The issue's check, literally: every option of SpadesOptions, and (none) presets."""
    r = rules("spades", 80)
    assert r.exit_code == 0
    from cardarena.games.spades import SpadesOptions

    for f in dataclasses.fields(SpadesOptions):
        assert re.search(rf"^\s+{f.name}\s", r.stdout, re.M), f.name
        assert field_docs(SpadesOptions)[f.name]
    assert "Presets: none" in words(r.stdout)


def test_rules_spite_and_malice_shows_the_presets():
    text = words(rules("spite-and-malice", 80).stdout)
    for preset in ("standard", "massachusetts", "book"):
        assert f" {preset}:" in text
    assert "deck_split=true" in text and "center_limit=unlimited" in text


def test_an_unknown_game_is_one_error_line():
    r = runner.invoke(app, ["rules", "chess"])
    assert r.exit_code == 2
    assert "unknown game 'chess'" in r.output and "spades" in r.output and "Traceback" not in r.output
    assert "did you mean" not in r.output, r.output


@pytest.mark.parametrize("typed, meant", [("spite_and_malice", "spite-and-malice"), ("Spades", "spades"),
                                          ("spite and malice", "spite-and-malice"), ("SPOT", "spot")])
def test_a_game_name_spelt_as_the_sdk_module_is_told_the_games(typed, meant):
    """The SDK's module is ``sdk.spite_and_malice``, the game ``spite-and-malice``: `arbiter
    rules spite_and_malice` (and play, evaluate, tournament run) said "unknown game" and listed
    the names, where a bot's ``games`` with the same spelling is told the one it meant."""
    for args in (["rules", typed], ["play", typed, "random", "random"], ["evaluate", typed, "random", "random"]):
        r = runner.invoke(app, args)
        assert r.exit_code == 2 and f"unknown game {typed!r}: did you mean {meant!r}?" in r.output, (args, r.output)


@pytest.mark.parametrize("game", list(GAMES))
def test_the_rules_documents_name_every_option_and_preset(game):
    """docs/rules/GAME.md, written by hand, cannot silently miss an option either."""
    doc = (ROOT / "docs" / "rules" / f"{game}.md").read_text()
    cls = game_class(game)
    for f in dataclasses.fields(cls.Options):
        assert f"`{f.name}`" in doc, f"docs/rules/{game}.md does not mention option {f.name}"
    for preset in cls.presets:
        assert f"`{preset}`" in doc


@pytest.mark.parametrize("game", list(GAMES))
def test_rules_tell_a_bot_author_where_the_view_and_the_actions_are_documented(game):
    """`arbiter rules GAME` showed the notation but not how a bot reads the game: the view's
    class and the SDK module of its actions, each a pydoc page that exists, are named."""
    import importlib
    import pydoc

    text = words(rules(game).stdout)
    found = re.search(r"pydoc (sdk\.\w+)\.(\w+View)\b", text)
    assert found, text[-600:]
    module = importlib.import_module(found.group(1))
    assert getattr(module, found.group(2)) is game_class(game).view_type
    assert f"pydoc {found.group(1)} " in text or f"pydoc {found.group(1)})" in text
    assert pydoc.render_doc(module.__name__)


def test_the_presets_wrap_under_their_indent_and_say_a_thing_once():
    """At 80 columns the book preset's line wrapped to column 0, under the option list's
    margin; and standard said "every option at its default" twice, its doc then its settings."""
    lines = rules("spite-and-malice", 80).stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  book:"))
    assert lines[at + 1].startswith("  ") and not lines[at + 1].startswith("      players"), lines[at:at + 3]
    assert sum("every option at its default" in line for line in lines) == 1
