"""The form that starts a match at /play (``arbiter.present.play_page``): what it shows is
what the match is played with."""

from __future__ import annotations

import re
import urllib.parse

import pytest

from arbiter.person.tables import Tables
from arbiter.present import web
from arbiter.present.play_page import _given_options, new_page
from arbiter.store.db import Store


@pytest.fixture
def tables(tmp_path):
    Store(tmp_path / "a.sqlite").close()
    t = Tables(tmp_path / "a.sqlite")
    yield t
    t.close()


def _fields(page: str) -> dict[str, list[str]]:
    """The form as a browser would send it unchanged (each field's value as drawn)."""
    form: dict[str, list[str]] = {}
    for tag in re.findall(r"<input [^>]*>|<select [^>]*>.*?</select>", page, re.S):
        name = re.search(r'name="([^"]+)"', tag)
        if name is None or name.group(1) in ("seat",) or "disabled" in tag.split(">")[0]:
            continue
        if tag.startswith("<select"):
            chosen = re.search(r'<option value="([^"]*)" selected', tag)
            value = chosen.group(1) if chosen else re.search(r'<option value="([^"]*)"', tag).group(1)
        elif 'type="checkbox"' in tag:
            if " checked" not in tag:
                continue
            value = re.search(r'value="([^"]*)"', tag).group(1)
        else:
            value = re.search(r'value="([^"]*)"', tag).group(1)
        form.setdefault(name.group(1), []).append(value)
    return form


def _query(**given: str) -> dict[str, list[str]]:
    return urllib.parse.parse_qs(urllib.parse.urlencode(given), keep_blank_values=True)


def test_a_preset_chosen_on_the_form_shows_its_values_and_a_field_changed_overrides_it(tables):
    """With the preset massachusetts chosen (Update), the form showed every option at its
    default (pay-off piles of 20, side stacks neither dealt nor filled) while the match was
    played with the preset's 14 cards; and changing payoff_size to 20, the default, was
    dropped as "left at its default", so the preset's 14 was played anyway."""
    page = new_page(web._env, tables, _query(game="spite-and-malice", preset="massachusetts"))
    drawn = _fields(page)
    assert drawn["o.payoff_size"] == ["14"] and drawn["o.initial_side_cards"] == ["1"]
    assert drawn["o.fill_empty_side_stacks"] == ["false", "true"]  # checked
    assert _given_options("spite-and-malice", drawn) == {}  # started as drawn: the preset as it is
    drawn["o.payoff_size"] = ["20"]
    assert _given_options("spite-and-malice", drawn) == {"payoff_size": "20"}
    drawn["o.fill_empty_side_stacks"] = ["false"]  # unchecked
    assert _given_options("spite-and-malice", drawn) == {"payoff_size": "20", "fill_empty_side_stacks": "false"}


def test_a_preset_chosen_and_started_at_once_plays_the_preset(tables):
    """The preset picked on a form drawn without one, then Start (no Update): the fields
    the person left alone do not override it."""
    drawn = _fields(new_page(web._env, tables, _query(game="spite-and-malice")))
    assert drawn["base"] == [""] and drawn["o.payoff_size"] == ["20"]
    drawn["preset"] = ["book"]
    assert _given_options("spite-and-malice", drawn) == {}
    drawn["o.payoff_size"] = ["10"]
    assert _given_options("spite-and-malice", drawn) == {"payoff_size": "10"}
    again = _fields(new_page(web._env, tables, drawn))  # Update: the book's values, the change kept
    assert again["base"] == ["book"] and again["o.payoff_size"] == ["10"] and again["o.center_limit"] == ["unlimited"]
    assert "o.kings_wild" in again and again["o.kings_wild"] == ["false"]  # unchecked: kings natural in the book


def test_a_preset_value_cleared_from_a_box_is_the_default_again(tables):
    """The book's excluded wild rank (A) and unlimited centre piles, shown in their text
    boxes: a box cleared (blank means its default, its placeholder says which) was dropped
    as "not given", and the book's value was played."""
    from cardarena.games import get_game

    drawn = _fields(new_page(web._env, tables, _query(game="spite-and-malice", preset="book")))
    assert drawn["o.wild_excluded_ranks"] == ["A"] and drawn["o.center_limit"] == ["unlimited"]
    drawn["o.wild_excluded_ranks"] = [""]
    drawn["o.center_limit"] = [""]
    given = _given_options("spite-and-malice", drawn)
    assert given == {"wild_excluded_ranks": "", "center_limit": "3"}
    played = get_game("spite-and-malice", given, "book").options
    assert played.wild_excluded_ranks == frozenset() and played.center_limit == 3 and played.payoff_size == 26
    # a blank box of a value no preset set is its default, as it always was
    assert _given_options("spades", {"o.first_dealer": [""], "o.lose_at": [""]}) == {}
