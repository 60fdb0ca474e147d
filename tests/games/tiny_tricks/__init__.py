"""Tiny Tricks: a small trick-taking game that lives only in the tests, in this one folder.

It proves that a game is one folder and one line in each of the three registries: the
engine's (``cardarena.games.GAMES``), the SDK's (``sdk.games.SDK_GAMES``) and the pages'
(``arbiter.present.games.PAGES``). ``register(monkeypatch)`` adds those three lines for a
test; nothing outside this folder names the game.
"""

from __future__ import annotations

from arbiter.present.games import GamePages
from sdk.games import SdkGame

NAME = "tiny-tricks"
_HERE = __name__

#: The three lines a game adds, one per registry.
ENGINE = f"{_HERE}.engine:TinyTricks"
SDK = SdkGame(f"{_HERE}.encoding:TinyTricksEncoder", f"{_HERE}.forward", f"{_HERE}.bots", f"{_HERE}.bots")
PAGES = GamePages(f"{_HERE}.pages:board", f"{_HERE}.pages:table", f"{_HERE}.pages:entry")


def register(monkeypatch) -> None:
    """Register Tiny Tricks for one test (undone after it)."""
    from arbiter.present import games as pages
    from cardarena import games
    from sdk import games as sdk_games

    monkeypatch.setitem(games.GAMES, NAME, ENGINE)
    monkeypatch.setitem(sdk_games.SDK_GAMES, NAME, SDK)
    monkeypatch.setitem(pages.PAGES, NAME, PAGES)
