"""A bot's notes (``Bot.note``): bounded, carried over every transport to the record, shown
in the replay only to those who may see that seat's view, and never part of the match."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from arbiter.tournament.play import play_local
from cardarena.disclosure import notes_visible
from cardarena.records import MATCH_NOTE_LIMIT, NOTE_LIMIT, bound_note

NOTING = f"{Path(__file__).with_name('notes_bot.py')}:NotingBot"


def test_a_note_is_bounded_and_says_it_was_cut():
    assert bound_note("why") == "why"
    cut = bound_note("é" * 2000)
    assert len(cut.encode()) <= NOTE_LIMIT and cut.endswith("[cut: notes over 1 KB]")
    late = bound_note("y" * 500, used=MATCH_NOTE_LIMIT - 100)
    assert len(late.encode()) <= 100 and late.endswith("[cut: the match's notes are over 64 KB]")
    assert bound_note("z", used=MATCH_NOTE_LIMIT) == ""


def test_notes_are_disclosed_like_the_seats_view():
    assert notes_visible(2, 2, False) and notes_visible(2, None, True)
    assert not notes_visible(2, None, False) and not notes_visible(2, 1, False)


@pytest.fixture(scope="module")
def noted():
    bots = [NOTING, "heuristic", "heuristic", "heuristic"]
    return play_local("spades", bots, seed=5, options={"deals": 1}, transport="inproc")


def test_notes_reach_the_record_and_change_nothing(noted):
    plain = play_local("spades", ["heuristic"] * 4, seed=5, options={"deals": 1}, transport="inproc")
    assert [a.action for a in noted.actions] == [a.action for a in plain.actions]
    mine = [a for a in noted.actions if a.seat == 0]
    assert mine[0].note.endswith("[cut: notes over 1 KB]") and len(mine[0].note.encode()) <= NOTE_LIMIT
    assert mine[1].note.startswith("decision 2: I hold ")
    assert all(a.note == "" for a in noted.actions if a.seat != 0)
    assert '"note"' in noted.to_json() and type(noted).from_json(noted.to_json()) == noted


def test_the_replay_shows_a_note_only_to_its_seat_or_every_hand(noted, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(noted.to_json())
    runner = CliRunner()
    as_seat = runner.invoke(app, ["replay", str(path), "--all", "--seat", "0"])
    assert as_seat.exit_code == 0, as_seat.output
    assert "note: decision 2: I hold" in as_seat.output
    for args in (["--all"], ["--all", "--seat", "1"]):
        other = runner.invoke(app, ["replay", str(path), *args])
        assert other.exit_code == 0 and "I hold" not in other.output and "note:" not in other.output
    full = runner.invoke(app, ["replay", str(path), "--all", "--full"])
    assert "note: decision 2: I hold" in full.output
    at = runner.invoke(app, ["replay", str(path), "--seat", "0", "--at", "2"])
    assert "its note: decision 2: I hold" in at.output


@pytest.mark.e2e
@pytest.mark.parametrize("transport", ["grpc", "local"])
def test_notes_travel_over_the_wire(transport):
    record = play_local("spades", [NOTING, "heuristic", "heuristic", "heuristic"], seed=5, options={"deals": 1},
                        transport=transport)
    mine = [a for a in record.actions if a.seat == 0]
    assert mine[1].note.startswith("decision 2: I hold ") and mine[0].note.endswith("[cut: notes over 1 KB]")
