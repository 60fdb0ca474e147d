"""The conformance suite over the registry of games (machinery: conformance.py).

Every game in ``cardarena.games.GAMES`` is played on its defaults, each of its presets
and a spread of option combinations (``conformance.configs``); a game added to the
registry is picked up here without new test code.
"""

from __future__ import annotations

import pytest

from cardarena.games import GAMES, InvalidActionError, game_class, get_game
from tests.games import conformance as cf

CONFIGS = cf.all_configs()
IDS = [c.id for c in CONFIGS]


@pytest.fixture(params=CONFIGS, ids=IDS)
def config(request) -> cf.Config:
    return request.param


def test_the_registry_is_played():
    assert {c.game for c in CONFIGS} == set(GAMES)
    for name in GAMES:
        ids = [c.name for c in CONFIGS if c.game == name]
        assert "default" in ids and all(f"preset-{p}" in ids for p in game_class(name).presets)
        assert len(ids) == len(set(ids))


@pytest.mark.parametrize("game", list(GAMES))
def test_every_option_is_covered(game):
    """Every option of the game's Options declaration takes a non-default value in at
    least one configuration the suite plays (and every configuration is valid)."""
    for c in cf.configs(game):
        c.make()
    assert cf.uncovered_options(game) == []


def test_generated_variants_are_valid_for_every_game():
    """The option combinations a game without hand-picked variants gets, generated from
    its Options declaration, are valid options of every registered game."""
    for game in GAMES:
        variants = cf.auto_variants(game)
        assert variants
        for _, options, _ in variants:
            get_game(game, {**cf.BOUNDS.get(game, {}), **options})


def test_a_newly_registered_game_gets_the_whole_suite(monkeypatch):
    """A game registered without hand-picked variants is played on its defaults and on
    option combinations generated from its Options declaration, with every check (here
    Spot again, under a second name)."""
    monkeypatch.setitem(GAMES, "spot-again", "cardarena.games.spot:Spot")
    monkeypatch.setitem(cf.BOUNDS, "spot-again", {"hands": 1})
    assert "spot-again" in {c.game for c in cf.all_configs()}
    configs = cf.configs("spot-again")
    assert configs[0].name == "default" and [c.name for c in configs[1:]] == ["auto-0"]
    assert cf.uncovered_options("spot-again") == []
    game = configs[1].make()
    assert game.options != get_game("spot", {"hands": 1}).options
    assert cf.check_deterministic(game, 1) > 0
    assert cf.check_playout(game, 1)[1] > 0
    assert cf.check_conservation(game, 1) is not None
    assert cf.check_redeal_invariance(game, 1, every=6)[1] > 0
    assert cf.check_no_hidden_cards(game, 1, fanout=1) > 0


@pytest.mark.parametrize("game", list(GAMES))
def test_malformed_notation_is_an_invalid_action_error(game):
    g = get_game(game)
    for text in ("", "   ", "frobnicate the cards", "play", "give ZZ 99X ->"):
        with pytest.raises(InvalidActionError):
            g.parse_action(text)


def test_deterministic(config):
    game = config.make()
    assert cf.check_deterministic(game, 11) > 0


def test_random_playouts(config):
    game = config.make()
    refused = 0
    for seed in cf.seeds(2):
        _, n = cf.check_playout(game, seed)
        refused += n
    assert refused > 0


def test_card_conservation(config):
    game = config.make()
    for seed in cf.seeds(2, 100):
        if cf.check_conservation(game, seed) is None:
            pytest.skip(f"{game.name}: the engine does not count its cards (State.all_cards)")


def test_redeal_invariance(config):
    game = config.make()
    for seed in cf.seeds(2, 20):
        views, steps = cf.check_redeal_invariance(game, seed)
        assert views > 0 and steps > 0


def test_no_hidden_card_in_views_events_and_action_texts(config):
    game = config.make()
    for seed in cf.seeds(2, 30):
        assert cf.check_no_hidden_cards(game, seed) > 0


def test_walk_cards_remembers_only_what_cannot_change():
    """``walk_cards`` remembers the cards of an immutable part (the leak playouts walk the
    same finished tricks at every step); a part holding a list is read again each time, so
    a card put in it later is found."""
    from dataclasses import dataclass

    from cardarena.games import Card

    @dataclass(frozen=True)
    class Part:
        a: tuple
        b: object

    ace, king, two = Card.parse("AS"), Card.parse("KH"), Card.parse("2C")
    cards = [ace]
    mutable = Part((cards,), (king,))
    assert cf.walk_cards(mutable) == [ace, king]
    cards.append(two)
    assert cf.walk_cards(mutable) == [ace, two, king]
    fixed = Part(((ace,), (king,)), None)
    assert cf.walk_cards(fixed) == [ace, king] and cf._WALKED[id(fixed)][0] is fixed
    assert cf.walk_cards(Part(fixed, (two,))) == [ace, king, two]


def test_shown_mask_remembers_only_what_cannot_change():
    """``shown_mask`` remembers the cards of an immutable part, and of a tuple by its parts
    (the leak playouts read the same pictures, tricks and events at every step, in new
    tuples); a part holding a list is read again each time, so a card put in it later is
    found, and a tuple of other parts is read afresh."""
    from dataclasses import dataclass

    from cardarena.games import Card

    @dataclass(frozen=True)
    class Part:
        a: tuple
        b: object

    ace, king, two = Card.parse("AS"), Card.parse("KH"), Card.parse("2C")
    bit = {c: 1 << c for c in (ace, king, two)}
    cards = [ace]
    mutable = Part((cards,), (king, "a 2C"))
    assert cf.shown_mask(mutable) == bit[ace] | bit[king] | bit[two]
    cards.append(two)
    cards.remove(ace)
    assert cf.shown_mask(mutable) == bit[king] | bit[two]
    fixed = Part(((ace,), (king,)), None)
    assert cf.shown_mask([fixed]) == bit[ace] | bit[king] and cf._SHOWN[id(fixed)] == bit[ace] | bit[king]
    assert cf.shown_mask((fixed, 7)) == cf.shown_mask(tuple([fixed, 7])) == bit[ace] | bit[king]
    assert cf.shown_mask((fixed, two)) == bit[ace] | bit[king] | bit[two]
    assert cf.shown_mask(Part(fixed, [two])) == bit[ace] | bit[king] | bit[two]
    assert cf.mask_cards(bit[two] | bit[king]) == ["2C", "KH"]


def test_only_a_viewers_own_event_is_excused_by_its_new_deal():
    """A private event is excused from showing cards the viewer's view no longer holds only
    when it is about the viewer and a later private event of the step deals the viewer
    again (a draw just before a series' next game): another seat's hand shown to the viewer
    is a leak whatever follows it (Spite and Malice's series deal, seat 0's hand to seat 1,
    was excused until the seventh session)."""
    from cardarena.games import Card
    from cardarena.games.base import new_event

    c = Card.parse
    own_draw = new_event("draw", 1, "seat 1 draws AD", (c("AD"),), frozenset({1}))
    other_hand = new_event("deal", 0, "seat 0 receives AD", (c("AD"),), frozenset({0, 1}))
    own_deal = new_event("deal", 1, "seat 1 receives 2C", (c("2C"),), frozenset({1}))
    assert cf._superseded([own_draw, own_deal], 0, 1)
    assert not cf._superseded([other_hand, own_deal], 0, 1)
    assert not cf._superseded([own_draw], 0, 1)
