"""The generic option parser every game's Options go through."""

import enum
from dataclasses import dataclass

import pytest

from cardarena.games import ConfigError, get_game
from cardarena.games.base import options_to_dict, parse_options


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


def test_unknown_preset_and_game():
    with pytest.raises(ConfigError, match="unknown preset 'x'"):
        parse_options(Opts, {}, {"slow": {}}, "x")
    with pytest.raises(ConfigError, match="unknown game 'poker'.*spades"):
        get_game("poker")
