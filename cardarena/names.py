"""The one rule for bot names and versions, used wherever a name is checked: a bot's own
declaration (the self-test), the registry, tournament specs, and the Hello of a
connecting bot.

- A bot name: a letter or digit, then letters, digits, ``_``, ``.``, ``-``; at most 64.
- A version: a letter or digit, then letters, digits, ``_``, ``.``, ``+``, ``-``; at most 32.
- A registered bot is referred to as ``name@version``; that reference (what a hosted bot
  process connects as) is a valid seat name too, as is a plain name.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from cardarena.games import GAMES

NAME_MAX = 64
VERSION_MAX = 32
_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,%d}" % (NAME_MAX - 1)
_VERSION = r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,%d}" % (VERSION_MAX - 1)
NAME_RE = re.compile(rf"^{_NAME}$")
VERSION_RE = re.compile(rf"^{_VERSION}$")
REF_RE = re.compile(rf"^({_NAME})@({_VERSION})$")

NAME_RULE = f"letters, digits, '-', '_', '.' (at most {NAME_MAX}, starting with a letter or digit)"
VERSION_RULE = f"letters, digits, '.', '_', '+', '-' (at most {VERSION_MAX}, starting with a letter or digit)"


class NameError_(ValueError):
    """A name or version that breaks the rule; the message says which and why."""


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``: did you mean 'heuristic'?`` for the known name closest to ``name``, or ``""``:
    the one wording of the hint after a name that is none of ``known`` (a bot, a game, a
    registered bot, one of the caller's own)."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f": did you mean {close[0]!r}?" if close else ""


def does_not_play(bot: str, game: str, plays: Iterable[str]) -> str:
    """The one wording of a bot refused for a game it does not play, wherever it is refused
    (a venue, a tournament's or ladder's spec, a person's table, a match started over gRPC,
    a re-ask): the bot as it was named, the game, and the games it plays instead, as its
    ``games`` wrote them; after a name that is no game, the game it was likely meant to be
    (``spite_and_malice``, the module's spelling, for ``spite-and-malice``: one character
    apart, and easy to read past); "no game" for none."""
    words = []
    for name in plays:
        if name == "*" or name in GAMES:
            words.append(name)
        else:
            words.append(f"{name}, no game" + (did_you_mean(name, GAMES) or f" (known: {', '.join(GAMES)})"))
    return f"bot {bot!r} does not play {game} (it plays {', '.join(words) or 'no game'})"


def _shown(text: str, limit: int = 80) -> str:
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


def is_name(text: str) -> bool:
    return NAME_RE.match(text) is not None


def is_ref(text: str) -> bool:
    """``name@version``."""
    return REF_RE.match(text) is not None


def is_seat_name(text: str) -> bool:
    """What a bot may be called at a table: a name, or a registered ``name@version``."""
    return is_name(text) or is_ref(text)


def check_name(name: str) -> str:
    if not is_name(name):
        raise NameError_(f"bad bot name {_shown(name)}: {NAME_RULE}")
    return name


def check_version(version: str) -> str:
    if not VERSION_RE.match(version):
        raise NameError_(f"bad version {_shown(version, 40)}: {VERSION_RULE}")
    return version


def check_seat_name(name: str) -> str:
    if not is_seat_name(name):
        raise NameError_(f"bad bot name {_shown(name)}: {NAME_RULE}, or name@version")
    return name


def split_ref(ref: str) -> tuple[str, str]:
    """``name@version`` -> (name, version); NameError_ if it is not one."""
    m = REF_RE.match(ref)
    if m is None:
        raise NameError_(f"not a name@version: {_shown(ref)}")
    return m.group(1), m.group(2)
