"""One name per meaning (issue #45 item 5): a reserved word names modules and classes only
in its owners, so a second meaning cannot creep in under the same name. Wire names (the
generated stubs, ``cardarena/v1/``, e.g. the bot stream's ``Arena`` service) keep theirs
until a ``v2``; "Card Arena", the project's name, is not the ladder."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

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
}

#: Words no module or class of the product may be named with at all.
RETIRED = {"local": "ambiguous: say localchannel (the local channel) or inprocess (a seat in the arbiter's process)"}


def _words(name: str) -> list[str]:
    """``BotStreamServicer`` -> bot, stream, servicer; ``arena_bench`` -> arena, bench."""
    return [w for w in re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().split("_") if w]


def _names() -> list[tuple[str, str]]:
    """(path, name) of every module and top-level class of the product (stubs aside)."""
    out = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("cardarena/v1/"):
                continue
            out.append((rel, path.stem))
            out += [(rel, n.name) for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef)]
    return out


def _uses(word: str, names: list[tuple[str, str]]) -> list[tuple[str, str]]:
    hits = []
    for path, name in names:
        words = _words(name)
        if any(w == word and not (i and words[i - 1] == "card") for i, w in enumerate(words)):
            hits.append((path, name))
    return hits


@pytest.mark.parametrize("word", sorted(RESERVED))
def test_a_reserved_word_names_things_only_in_its_owners(word):
    meaning, owners = RESERVED[word]
    names = _names()
    strays = [f"{path}: {name}" for path, name in _uses(word, names) if not path.startswith(owners)]
    assert not strays, f"{word!r} means {meaning}; only {', '.join(owners)} may name a module or class with it: {strays}"
    assert _uses(word, names), f"no owner uses {word!r} any more: drop it from RESERVED"


@pytest.mark.parametrize("word", sorted(RETIRED))
def test_a_retired_word_names_nothing(word):
    assert not _uses(word, _names()), f"{word!r} is {RETIRED[word]}"


def test_the_guard_catches_a_stray():
    """A bench arbiter called ``_Arena`` (as it was) is a stray; the project's name is not."""
    names = [("arbiter/tools/bench.py", "_Arena"), ("cardarena_envs/aec.py", "CardArenaEnv")]
    assert _uses("arena", names) == [("arbiter/tools/bench.py", "_Arena")]
