"""One name per meaning (issue #45 item 5): a reserved word names modules and classes only
in its owners, so a second meaning cannot creep in under the same name. Wire names (the
generated stubs, ``cardarena/v1/``, e.g. the bot stream's ``Arena`` service) keep theirs
until a ``v2``; "Card Arena", the project's name, is not the ladder."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import Sequence

import pytest

#: One worker runs the file, so the tree is parsed once a run (``_names``, 0.7 CPU-s), not
#: once on each worker that is handed a run of its tests (tests/conftest.py, MODULE_RUN).
pytestmark = pytest.mark.xdist_group("reserved_names")

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arbiter", "sdk", "bots", "cardarena", "cardarena_envs")

#: word -> (its meaning, the paths that may use it in a module's or a class's name).
RESERVED = {
    "arena": ("the rated ladder (`arbiter arena`)",
              ("arbiter/arena/", "arbiter/store/arenas.py", "arbiter/cli/arena.py", "arbiter/tools/arena_bench.py")),
    "ladder": ("the rated ladder", ("arbiter/arena/", "arbiter/tools/arena_bench.py")),
    "servicer": ("a gRPC service's implementation", ("arbiter/server/",)),
    # "local" is the local channel (``--transport local``: ``arbiter/server/localchannel.py``,
    # one word); a seat in the arbiter's process is "in process" (``hosting/inprocess.py``).
    "inprocess": ("a seat in the arbiter's own process", ("arbiter/hosting/inprocess.py",)),
    # "table" is the card table: where a game is laid out and drawn, and where a person sits
    # to play one from the browser (`arbiter/person/tables.py`, the picture of it in
    # `present/table.py`); Spot lays melds on it. A ladder's standings are rows, not a table.
    "table": ("the card table a person plays at, and its picture",
              ("arbiter/person/", "arbiter/present/table.py", "cardarena/games/spot/")),
    "tables": ("the live tables of people playing from the browser", ("arbiter/person/tables.py",)),
    # "seat" is a place at a game's table (an index) and what acts for it: a seat client
    # (match/runner.py's SeatClient and its kinds), the SDK's driver, a seat's picture.
    "seat": ("a place at the table, and the client that acts for it",
             ("arbiter/hosting/", "arbiter/match/runner.py", "arbiter/person/tables.py", "arbiter/server/botstream.py",
              "arbiter/present/table.py", "sdk/driver.py", "cardarena/games/")),
    # "play" is playing a match (`arbiter play`: cli/play.py over tournament/play.py; a
    # person's /play page), and a game's card-play action (wire name ``Play``).
    "play": ("playing a match, and a game's play action",
             ("arbiter/cli/play.py", "arbiter/tournament/play.py", "arbiter/present/play_page.py",
              "arbiter/batch/engine.py", "cardarena/games/")),
}

#: Words no module may be named by alone: a module says what it holds, and a bare
#: ``seat.py`` held the tables of people playing (now ``person/tables.py``).
NOT_A_MODULE = ("seat",)

#: Words no module or class of the product may be named with at all.
RETIRED = {"local": "ambiguous: say localchannel (the local channel) or inprocess (a seat in the arbiter's process)"}


def _words(name: str) -> list[str]:
    """``BotStreamServicer`` -> bot, stream, servicer; ``arena_bench`` -> arena, bench."""
    return [w for w in re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().split("_") if w]


@functools.cache
def _names() -> tuple[tuple[str, str], ...]:
    """(path, name) of every module and top-level class of the product (stubs aside).
    Parsed once per process: the tests below read the same tree (parsing it for each
    test made the file 7.2 CPU-s; once, 1.6)."""
    out = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("cardarena/v1/"):
                continue
            out.append((rel, path.stem))
            out += [(rel, n.name) for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef)]
    return tuple(out)


def _uses(word: str, names: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    hits = []
    for path, name in names:
        words = _words(name)
        if any(w == word and not (i and words[i - 1] == "card") for i, w in enumerate(words)):
            hits.append((path, name))
    return hits


def _strays(word: str, names: Sequence[tuple[str, str]]) -> list[str]:
    """The names using a reserved ``word`` outside its owners."""
    return [f"{path}: {name}" for path, name in _uses(word, names) if not path.startswith(RESERVED[word][1])]


@pytest.mark.parametrize("word", sorted(RESERVED))
def test_a_reserved_word_names_things_only_in_its_owners(word):
    meaning, owners = RESERVED[word]
    names = _names()
    strays = _strays(word, names)
    assert not strays, f"{word!r} means {meaning}; only {', '.join(owners)} may name a module or class with it: {strays}"
    assert _uses(word, names), f"no owner uses {word!r} any more: drop it from RESERVED"


@pytest.mark.parametrize("word", sorted(RETIRED))
def test_a_retired_word_names_nothing(word):
    assert not _uses(word, _names()), f"{word!r} is {RETIRED[word]}"


def _bare_modules(names: Sequence[tuple[str, str]]) -> list[str]:
    return [path for path, name in names if path.endswith(f"/{name}.py") and name in NOT_A_MODULE]


def test_no_module_is_named_by_a_bare_seat():
    assert not _bare_modules(_names()), f"a module named one of {NOT_A_MODULE}: name it for what it holds"


def test_a_stray_table_or_seat_is_caught():
    """The ladder's standings row was a ``TableRow``, and the tables lived in ``person/seat.py``."""
    assert _strays("table", [("arbiter/arena/matchmaking.py", "TableRow"), ("arbiter/person/tables.py", "Tables")]) == [
        "arbiter/arena/matchmaking.py: TableRow"]
    old = [("arbiter/person/seat.py", "seat"), ("arbiter/person/seat.py", "BrowserSeat")]
    assert _strays("seat", old) == ["arbiter/person/seat.py: seat", "arbiter/person/seat.py: BrowserSeat"]
    assert _bare_modules(old) == ["arbiter/person/seat.py"]


def test_the_guard_catches_a_stray():
    """A bench arbiter called ``_Arena`` (as it was) is a stray; the project's name is not."""
    names = [("arbiter/tools/bench.py", "_Arena"), ("cardarena_envs/aec.py", "CardArenaEnv")]
    assert _uses("arena", names) == [("arbiter/tools/bench.py", "_Arena")]
