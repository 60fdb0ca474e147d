"""What "a registered game is complete" means, for every side: its engine line and
platform facts (``cardarena.games``), its SDK line (``sdk.games``: an encoder and a
forward model), its pages line (``arbiter.present.games``: board, table, entry). Used by
test_registrations.py for every game and by the test-only game's tests."""

from __future__ import annotations

import dataclasses
import random

from arbiter.analysis.values import REFERENCE_METHODS
from arbiter.present.boards import board
from arbiter.present.games import PAGES, page_part
from arbiter.present.table import render_table, table_model
from cardarena.games import Platform, facts, game_class, get_game
from cardarena.records import MatchInfo
from sdk.encoding import encoder_for_game
from sdk.driver import SeatDriver
from sdk.loading import load_bot
from sdk.forward import knowledge, sample_states
from bots.games import part_of
from sdk.games import SDK_GAMES


def check_complete(name: str) -> None:
    """Every registry has ``name``, and each of its parts works on a seeded game."""
    cls = game_class(name)
    assert cls.name == name, (f"registered as {name!r}, but its Game class's name is {cls.name!r}: the registries' "
                              "key and Game.name must be the same (its parts are looked up by the name)")
    assert isinstance(cls.platform, Platform), f"{name}: no platform facts"
    lo, hi = cls.platform.seats
    game = get_game(name, facts("smoke_options")[name])  # the smoke options are valid options
    assert lo <= game.num_seats <= hi, f"{name}: {game.num_seats} seats outside its declared {lo}..{hi}"
    assert facts("value_units")[name] and facts("value_margin")[name] > 0
    assert name in SDK_GAMES, f"{name}: no line in sdk.games"
    assert name in PAGES, f"{name}: no line in arbiter.present.games"
    reference = facts("value_reference")[name]
    evaluator = SeatDriver(load_bot(reference), MatchInfo("m", name, game.describe_options(), 0, game.num_seats,
                                                          game.teams, seed=1)).bot  # started, as the analysis starts it
    assert name in evaluator.games and all(callable(getattr(evaluator, m, None)) for m in REFERENCE_METHODS), (
        f"{name}: its value_reference {reference!r} is no reference evaluator: a bundled bot that plays it and has "
        f"{', '.join(REFERENCE_METHODS)} (arbiter analyse values decisions with it)")
    bounds = game.margin_bounds()
    assert bounds is None or bounds[0] < bounds[1]
    enc = encoder_for_game(game)
    state = game.new_initial_state(3)
    rng = random.Random(3)
    for _ in range(3):  # a few steps in, so the parts see a game under way
        state.apply(rng.choice(state.legal_actions()))
    seat = state.current_seat
    view = state.view(seat)
    assert len(enc.encode(view)) == enc.size and sum(enc.mask(state.legal_actions())) == len(state.legal_actions())
    assert knowledge(game, view).unseen
    for sampled in sample_states(game, view, 2, rng):
        seen = sampled.view(seat)
        differ = [f.name for f in dataclasses.fields(view) if getattr(seen, f.name) != getattr(view, f.name)]
        assert not differ, (f"{name}: a state its forward model built shows the seat another view (fields {differ}): "
                            "state_from_view must rebuild every field of the view")
    if SDK_GAMES[name].heuristic:  # the reference bots' policy for it (sdk.games)
        assert part_of(name, "heuristic").choose(view, state.legal_actions(), rng) in state.legal_actions()
    for part in ("board", "table", "entry"):
        assert page_part(name, part) is not None, f"{name}: no {part} in its pages"
    assert board(name, view, [f"b{s}" for s in range(game.num_seats)])
    model = table_model(name, view, [f"b{s}" for s in range(game.num_seats)], me=seat, legal=state.legal_actions())
    assert model.game == name and str(render_table(model)).startswith("<div id=\"board\"")
