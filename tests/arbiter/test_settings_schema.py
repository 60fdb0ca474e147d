"""Settings declared once (issue #45 item 2): a tournament's spec and a ladder's settings
are validated, read from their files and described on the command line from the one
declaration of each setting (``cardarena.games.options``)."""

from __future__ import annotations

import dataclasses

import pytest
from typer.testing import CliRunner

from arbiter.arena.ladder import TABLES as ARENA_TABLES
from arbiter.arena.ladder import ArenaSpec, ServiceConfig, arena_from_dict
from arbiter.cli import app
from arbiter.tournament.spec import TABLES as TOURNAMENT_TABLES
from arbiter.tournament.spec import SpecError, TournamentSpec, spec_from_dict
from cardarena.games.options import field_docs, flag_help, setting_label, with_attributes
from cardarena.records import MATCH_SETTINGS

BASE = {TournamentSpec: dict(game="spot", bots=("random", "heuristic")), ArenaSpec: dict(game="spades")}


def _declared(cls):
    """(field, a value outside its declaration) for every setting with a range or choices."""
    for f in dataclasses.fields(cls):
        if f.metadata.get("choices"):
            yield f, "no-such-choice"
        elif f.metadata.get("min") is not None:
            yield f, int(f.metadata["min"]) - 1


CASES = [(cls, f, bad) for cls in BASE for f, bad in _declared(cls)]


@pytest.mark.parametrize("cls, f, bad", CASES, ids=[f"{c.__name__}.{f.name}" for c, f, _ in CASES])
def test_every_declared_range_and_choice_is_enforced_naming_the_setting(cls, f, bad):
    with pytest.raises(SpecError) as refused:
        cls(**BASE[cls], **{f.name: bad}).validate()
    said = str(refused.value)
    assert said.startswith(f"{setting_label(f)}: ") and repr(bad) in said, said
    for choice in f.metadata.get("choices") or ():
        assert choice in said  # what it may be, from the declaration


def test_a_setting_of_the_wrong_type_is_refused_as_such():
    with pytest.raises(SpecError, match=r"^deals: must be a whole number from 1 to 100000, got '3'$"):
        TournamentSpec(game="spot", bots=("random", "heuristic"), deals="3").validate()
    with pytest.raises(SpecError, match=r"^concurrency: must be a whole number from 1 to 64, got True$"):
        ArenaSpec(game="spades", concurrency=True).validate()


@pytest.mark.parametrize("cls", [TournamentSpec, ArenaSpec, ServiceConfig])
def test_every_setting_has_its_meaning_and_so_its_help(cls):
    docs = field_docs(cls)
    assert [f.name for f in dataclasses.fields(cls) if f.name not in docs] == []
    for f in dataclasses.fields(cls):
        assert flag_help(cls, f.name).startswith(docs[f.name].replace("``", "").rstrip("."))


def test_the_match_settings_meanings_are_written_once_and_read_as_the_classes_own():
    """The clock and failure settings mean the same in a tournament and a ladder: written
    once (``MATCH_SETTINGS``), added to each class's ``Attributes:`` (pydoc shows them)."""
    for cls in (TournamentSpec, ArenaSpec):
        docs = field_docs(cls)
        assert {name: docs[name] for name in MATCH_SETTINGS} == MATCH_SETTINGS
        assert "max_strikes: Failures tolerated per seat" in cls.__doc__
    assert field_docs(TournamentSpec)["cluster"].startswith("Run the matches on the Dask scheduler")  # the rest kept

    class NoSection:
        """A class without an Attributes section."""

    with pytest.raises(TypeError, match="NoSection: its docstring has no Attributes: section"):
        with_attributes({"x": "meaning"})(NoSection)


def test_the_files_tables_are_the_declarations():
    assert TOURNAMENT_TABLES["clock"] == {"decision_ms": int, "bank_ms": int}
    assert TOURNAMENT_TABLES["failure"] == {"policy": str, "max_strikes": int}
    assert set(TOURNAMENT_TABLES[""]) == {f.name for f in dataclasses.fields(TournamentSpec)} - {
        "decision_ms", "bank_ms", "policy", "max_strikes"} | {"clock", "failure"}
    assert ARENA_TABLES["gate"] == {"sprt": str, "alpha": float, "beta": float, "min_deals": int, "max_deals": int,
                                    "sd_bound": object, "test": str, "bounds": str}  # sd_bound: a number or "auto"
    assert set(ARENA_TABLES["server"]) == {f.name for f in dataclasses.fields(ServiceConfig)}
    assert "transport" not in ARENA_TABLES[""] and "suspend_after" in ARENA_TABLES["failure"]
    spec = spec_from_dict({"game": "spades", "bots": ["random", "greedy"], "clock": {"bank_ms": 7},
                           "failure": {"max_strikes": 0}, "deals": 5})
    assert (spec.bank_ms, spec.max_strikes, spec.deals) == (7, 0, 5)
    arena, service = arena_from_dict({"game": "spades", "gate": {"sprt": "0,1", "max_deals": 90},
                                      "failure": {"suspend_after": 2}, "server": {"port": 9}})
    assert (arena.gate, arena.gate_max_deals, arena.suspend_after, service.port) == ("0,1", 90, 2, 9)
    bounded, _ = arena_from_dict({"game": "spades", "gate": {"sprt": "0,1", "sd_bound": 40}})  # a TOML integer
    assert bounded.gate_test().sd_bound == 40.0 and "sd_bound" not in arena.gate_test().to_json()
    auto, _ = arena_from_dict({"game": "spades", "gate": {"sprt": "0,1", "sd_bound": "auto"}})
    assert auto.gate_test().to_json()["sd_bound"] == "auto"
    for bad in ("wide", True, [40]):
        with pytest.raises(SpecError, match=r"gate.sd_bound: must be a number or 'auto' \(or absent\)"):
            arena_from_dict({"game": "spades", "gate": {"sprt": "0,1", "sd_bound": bad}})[0].validate()
    with pytest.raises(SpecError, match=r"unknown field gate\.'alpah'"):
        arena_from_dict({"game": "spades", "gate": {"alpah": 0.1}})


def test_the_command_lines_help_is_the_declaration():
    runner = CliRunner()
    for command, cls in ((["tournament", "run"], TournamentSpec), (["arena"], ArenaSpec)):
        r = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "400", "TERM": "dumb"})
        assert r.exit_code == 0, r.output
        text = " ".join(r.output.replace("│", " ").split())
        for name in ("deals", "seed", "policy", "isolation"):
            assert flag_help(cls, name) in text, (command, name)
    assert "1..100000; default 2." in flag_help(TournamentSpec, "deals")
    assert "Forfeit or default; default forfeit." in flag_help(ArenaSpec, "policy")
