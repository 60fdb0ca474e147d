"""Every registered game is complete in each of the three registries (the engine's with its
platform facts, the SDK's, the pages'), and no registry names a game the engines lack."""

from __future__ import annotations

import pytest

from arbiter.present.games import PAGES
from cardarena.games import GAMES
from sdk.games import SDK_GAMES
from tests.games.conformance import on_the_wire
from tests.games.registrations import check_complete


@pytest.mark.parametrize("game", list(GAMES))
def test_every_registered_game_is_complete(game):
    check_complete(game)


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_of_the_product_is_on_the_wire(game):
    """The protocol carries every game of the product (a test-only game, played in
    process, need not be: tests/games/tiny_tricks)."""
    assert on_the_wire(game)


def test_no_registry_names_a_game_the_engines_lack():
    assert set(SDK_GAMES) == set(GAMES) and set(PAGES) == set(GAMES)
