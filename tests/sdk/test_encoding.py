"""The observation encodings (sdk.encoding): a function of the seat's view alone, one
fixed shape per option set, and an action index space whose mask marks exactly the legal
actions, for the three games and several option sets each."""

from __future__ import annotations

import math
import random

import pytest

from cardarena.games import get_game
from sdk.encoding import encoder, encoder_for_game
from sdk.forward import sample_states

OPTION_SETS = [
    ("spades", {"deals": 2}),
    ("spades", {"nil": False, "blind_nil": False, "target": 200, "deals": 1, "bag_limit": 5}),
    ("spades", {"blind_nil_min_deficit": 0, "blind_nil_exchange": False, "deals": 1}),
    ("spite-and-malice", {"payoff_size": 5}),
    ("spite-and-malice", {"players": 4, "partnerships": True, "payoff_size": 5}),
    ("spite-and-malice", {"players": 3, "loading": True, "jokers": 2, "kings_wild": False, "payoff_size": 5}),
    ("spite-and-malice", {"center_limit": "unlimited", "recycle": "deferred", "payoff_size": 6, "decks": 3}),
    ("spot", {"players": 2, "hands": 2}),
    ("spot", {"players": 4, "hands": 1}),
    ("spot", {"players": 6, "hands": 1, "ante": 2}),
]
IDS = [f"{g}-{i}" for i, (g, _) in enumerate(OPTION_SETS)]


def _walk(game, seed: int, max_steps: int):
    """(state, seat-to-act) at every decision of one seeded random game, up to ``max_steps``."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    for _ in range(max_steps):
        if state.is_terminal:
            return
        yield state, state.current_seat
        state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
def test_shape_is_fixed_and_the_mask_marks_exactly_the_legal_actions(name, options) -> None:
    game = get_game(name, options)
    enc = encoder_for_game(game)
    assert encoder(name, options).size == enc.size and encoder(name, options).num_actions == enc.num_actions
    decisions = 0
    seen_distinct = set()
    for seed in range(3):
        for state, seat in _walk(game, seed, 250):
            legal = state.legal_actions()
            for s in range(game.num_seats):
                x = enc.encode(state.view(s))
                assert len(x) == enc.size and all(map(math.isfinite, x))  # (a generator here was a third of the test)
                seen_distinct.add(tuple(x))
            mask = enc.mask(legal)
            assert len(mask) == enc.num_actions
            indices = enc.legal_indices(legal)
            assert len(set(indices)) == len(legal)  # one index per legal action
            assert [i for i, m in enumerate(mask) if m] == sorted(indices)  # exactly the legal ones
            for a, i in zip(legal, indices):
                assert enc.action_of(i) == a
            decisions += 1
    assert decisions > 30
    assert len(seen_distinct) > decisions // 2  # the tensor moves with the game


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
def test_every_index_maps_to_one_action_and_back(name, options) -> None:
    enc = encoder(name, options)
    actions = [enc.action_of(i) for i in range(enc.num_actions)]
    assert len(set(actions)) == enc.num_actions
    assert all(enc.action_index(a) == i for i, a in enumerate(actions))
    game = get_game(name, options)
    assert all(enc.action_of(i) == game.parse_action(str(a)) for i, a in enumerate(actions[:400]))


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
def test_the_tensor_is_a_function_of_the_view_alone(name, options) -> None:
    """States that differ only in what the seat cannot see (the forward model resamples
    every hidden card, the stock order too) give the same tensor."""
    game = get_game(name, options)
    enc = encoder_for_game(game)
    rng = random.Random(11)
    checked = differs = 0
    for seed in range(3):
        for step, (state, _) in enumerate(_walk(game, 100 + seed, 200)):
            if step % 5:
                continue
            seat = rng.randrange(game.num_seats)
            view = state.view(seat)
            x = enc.encode(view)
            for sample in sample_states(game, view, 2, random.Random(step)):
                assert enc.encode(sample.view(seat)) == x
                checked += 1
                other = (seat + 1) % game.num_seats
                differs += sample.view(other).__dict__.get("hand") != state.view(other).__dict__.get("hand")
    assert checked > 10
    assert differs > 0  # the samples really moved hidden cards


@pytest.mark.parametrize("name", ["spades", "spite-and-malice", "spot"])
def test_the_module_docstring_shows_the_default_layout(name) -> None:
    import importlib

    enc = encoder(name)
    doc = importlib.import_module(type(enc).__module__).__doc__
    table = "\n".join("    " + line for line in enc.layout.table().splitlines())
    assert table in doc
    assert enc.layout.segments[-1].stop == enc.size
    assert all(a.stop == b.start for a, b in zip(enc.layout.segments, enc.layout.segments[1:]))


def test_bad_input_is_a_clear_error() -> None:
    enc = encoder("spades")
    state = get_game("spades").new_initial_state(1)
    with pytest.raises(ValueError, match="spectator"):
        enc.encode(state.spectator_view())
    with pytest.raises(TypeError, match="SpadesView"):
        enc.encode(get_game("spot").new_initial_state(1).view(0))
    spot_action = get_game("spot").parse_action("draw stock")
    with pytest.raises(ValueError, match="not an action of spades"):
        enc.action_index(spot_action)
    with pytest.raises(ValueError, match="out of range"):
        enc.action_of(enc.num_actions)
    with pytest.raises(ValueError, match="no encoding"):
        encoder_for_game(object())


def test_shapes_follow_the_options_not_the_deal() -> None:
    assert encoder("spot", {"players": 2}).size < encoder("spot", {"players": 6}).size
    assert encoder("spades", {"nil": False}).size == encoder("spades").size
    small = encoder("spite-and-malice", {"loading": False})
    loading = encoder("spite-and-malice", {"loading": True})
    assert loading.num_actions > small.num_actions


def test_spades_played_block_is_exact_with_its_cache_shared_between_matches() -> None:
    """The encoder caches the finished tricks' block by the view's ``tricks`` tuple: two
    matches encoded in turn by one encoder (the cache switching at every view) still give
    exactly the cards played in each deal, as a list and through a float32 memoryview."""
    np = pytest.importorskip("numpy")
    game = get_game("spades", {"deals": 2})
    enc = encoder_for_game(game)
    start = enc.layout["played"].start
    walks = [_walk(game, seed, 400) for seed in (5, 6)]
    checked = with_tricks = 0
    for pair in zip(*walks):
        for state, seat in pair:
            view = state.view(seat)
            want = [0.0] * 52
            for pc in [pc for t in view.tricks for pc in t.cards] + list(view.trick):
                want[pc.card] = 1.0
            assert enc.encode(view)[start:start + 52] == want
            x = np.zeros(enc.size, np.float32)
            enc.encode_into(view, memoryview(x))
            assert x[start:start + 52].tolist() == want
            checked += 1
            with_tricks += bool(view.tricks)
    assert checked > 200 and with_tricks > 100


def test_spades_numbers_the_engines_own_actions_in_the_documented_order():
    """The encoder's action space is ``Spades.every_action`` (the engine's interned objects,
    which an arbiter also warms its wire caches with): look, nil, bids 1..13, blind nil, the
    52 plays by card, the 1,326 gives in lexicographic card order (the module's docstring)."""
    from cardarena.games.cards import STANDARD_DECK
    from cardarena.games.spades import Bid, Give, Look, Play
    from cardarena.games.spades.actions import _GIVES, _PLAYS

    enc = encoder("spades", {})
    actions = [enc.action_of(i) for i in range(enc.num_actions)]
    assert actions == [Look(), Bid(0), *(Bid(n) for n in range(1, 14)), Bid(0, blind=True), *(Play(c) for c in STANDARD_DECK),
                       *(Give((a, b)) for i, a in enumerate(STANDARD_DECK) for b in STANDARD_DECK[i + 1:])]
    assert all(enc.action_of(16 + c) is _PLAYS[c] for c in range(52))
    assert all(a is _GIVES[a.cards] for a in actions[68:])
    assert list(get_game("spades").every_action()) == actions
