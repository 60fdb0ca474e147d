"""The generic option parser every game's Options go through."""

import enum
from dataclasses import dataclass

import pytest

from cardarena.games import ConfigError, get_game
from arbiter.present.play_page import option_fields
from cardarena.games.base import option, option_specs, options_to_dict, parse_options


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


@dataclass(frozen=True)
class Opts:
    count: int = 3
    flag: bool = True
    limit: int | None = None
    mode: Mode = Mode.FAST
    ranks: frozenset[int] = frozenset()

    def __post_init__(self):
        if self.count < 1:
            raise ValueError("count must be at least 1")


def test_defaults_presets_and_overrides():
    presets = {"slow": {"mode": "slow", "count": 5}}
    assert parse_options(Opts, {}) == Opts()
    assert parse_options(Opts, {"count": "7"}, presets, "slow") == Opts(count=7, mode=Mode.SLOW)


def test_text_values_from_a_command_line():
    o = parse_options(Opts, {"flag": "off", "limit": "12", "ranks": "1,7", "mode": "SLOW"})
    assert o == Opts(flag=False, limit=12, ranks=frozenset({1, 7}), mode=Mode.SLOW)
    assert parse_options(Opts, {"limit": "off"}).limit is None
    assert options_to_dict(o) == {"count": 3, "flag": False, "limit": 12, "mode": "slow", "ranks": [1, 7]}


@pytest.mark.parametrize(
    "given, message",
    [
        ({"cuont": 1}, "unknown option 'cuont'"),
        ({"count": "three"}, "option 'count': expected an integer"),
        ({"flag": "maybe"}, "option 'flag': expected true or false"),
        ({"mode": "warp"}, "option 'mode': expected one of fast, slow"),
        ({"count": 0}, "count must be at least 1"),
        ({"count": True}, "expected an integer"),
    ],
)
def test_bad_options_name_the_option_and_the_reason(given, message):
    with pytest.raises(ConfigError, match=message):
        parse_options(Opts, given)


def test_a_text_is_coerced_once_per_option_and_a_refused_one_every_time():
    """Options given as text (the wire, a command line) are coerced once per (class,
    option, text) and the value handed out again: the same (immutable) object, equal to a
    fresh coercion; a text refused is refused every time, with its message."""
    first = parse_options(Opts, {"ranks": "2,9", "count": "4"})
    again = parse_options(Opts, {"ranks": "2,9", "count": "4", "flag": "no"})
    assert first.ranks == frozenset({2, 9}) and again.ranks is first.ranks and again.count == 4
    assert parse_options(Opts, {"ranks": [2, 9]}).ranks == first.ranks  # typed: coerced as before
    for _ in range(2):
        with pytest.raises(ConfigError, match="option 'count': expected an integer"):
            parse_options(Opts, {"count": "many"})


def test_unknown_preset_and_game():
    with pytest.raises(ConfigError, match="unknown preset 'x'"):
        parse_options(Opts, {}, {"slow": {}}, "x")
    with pytest.raises(ConfigError, match="unknown game 'poker'.*spades"):
        get_game("poker")


@dataclass(frozen=True)
class Ranged:
    seats: int = option(4, min=2, max=6)
    share: float = option(0.5, min=0)
    cap: int | None = option(None, max=10)


@pytest.mark.parametrize(
    "given, message",
    [
        ({"seats": 7}, r"option 'seats': must be 2\.\.6, got 7"),
        ({"seats": "1"}, r"option 'seats': must be 2\.\.6, got 1"),
        ({"share": -0.25}, "option 'share': must be at least 0, got -0.25"),
        ({"cap": 11}, "option 'cap': must be at most 10, got 11"),
    ],
)
def test_a_declared_range_is_checked_with_a_clear_message(given, message):
    with pytest.raises(ConfigError, match=message):
        parse_options(Ranged, given)


def test_a_declared_range_is_the_one_source_of_rules_form_and_check():
    """The range declared beside an option's type and default is what ``arbiter rules``
    prints, what the play form's number box takes, and what every game checks."""
    assert parse_options(Ranged, {"seats": 6, "cap": None}) == Ranged(seats=6)
    specs = {s.name: s for s in option_specs(Ranged)}
    assert (specs["seats"].min, specs["seats"].max, specs["seats"].range_text) == (2, 6, "2..6")
    assert specs["cap"].range_text == "at most 10" and specs["share"].range_text == "at least 0"
    players = next(f for f in option_fields("spot", {}) if f.name == "players")
    assert (players.min, players.max, players.range) == (2, 6, "from 2 to 6")
    with pytest.raises(ConfigError, match=r"option 'players': must be 2\.\.6, got 9"):
        get_game("spite-and-malice", {"players": 9})


def test_an_empty_set_option_reads_back_as_arbiter_rules_shows_it():
    """`arbiter rules spite-and-malice` shows wild_excluded_ranks' default as "(empty)", and
    `-o wild_excluded_ranks=(empty)` was refused ("expected a rank"): what the help shows
    is read back as written, as is nothing after the =."""
    from cardarena.games import get_game
    from cardarena.games.options import EMPTY, option_specs

    cls = type(get_game("spite-and-malice")).Options
    [spec] = [s for s in option_specs(cls) if s.name == "wild_excluded_ranks"]
    assert spec.default == EMPTY
    for text in (EMPTY, "", " (empty) "):
        game = get_game("spite-and-malice", {"wild_excluded_ranks": text})
        assert game.options.wild_excluded_ranks == frozenset(), text
