"""The forward model: sample full game states consistent with one seat's view, then simulate.

Strong imperfect-information bots (determinized Monte Carlo, information-set MCTS) need
two things: plausible complete states ("determinizations") and the rules to play them
forward. This package gives both, with one API for the three games:

    from sdk.forward import sample_states
    states = sample_states(game, view, n=32, rng=random.Random(7))
    for state in states:                      # ordinary engine states (cardarena.games)
        state.apply(some_legal_action)        # the arbiter's own rules engine
        ...

``game`` is the configured engine ``Game`` (``sdk.forward.get_game(info.game,
info.options)`` inside a bot), ``view`` the seat's view as the bot received it, ``rng``
a ``random.Random`` (seed it for reproducible samples). Each returned state:

* shows exactly ``view`` to ``view.seat``: ``state.view(view.seat) == view`` for every
  field of the current deal / hand / game (a test checks this for many random views);
* agrees with every inference the rules force from the public history in the view
  (Spades: a seat that failed to follow suit holds none of it, a seat that led a spade
  before spades were broken held only spades, cards this seat gave in a blind-nil
  exchange are in the partner's hand until played; Spot: a card seen taken from the
  discard pile is in the taker's hand unless it has been seen since; Spite and Malice
  with forced aces: a seat that ended a turn holds no natural ace, and a card a seat turned
  up in a tie for the first player lies face down in its pay-off pile until that pile turns
  a face-down card up);
* is otherwise uniform: every assignment of the unseen cards that satisfies the above
  is equally likely (the stock order too), so no opponent model is assumed;
* continues the match from a seed drawn from ``rng``: later deals, shuffles and
  recycled stocks are fresh random draws, never the real ones.

It is computed from the view alone: the functions never see the true state, so two
true states with the same view give the same samples for the same ``rng`` seed.
``ConsistencyError`` is raised for a view no deal could produce.

Options (``options`` mapping or ``SamplingOptions``): ``infer`` (default True) turns the
rule inferences off when False (samples then respect only counts and seen cards).
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from cardarena.games import Action, Game, State, get_game
from sdk.forward._common import ConsistencyError, SamplingOptions, parse_sampling_options
from sdk.games import SDK_GAMES

__all__ = ["Action", "ConsistencyError", "Game", "SamplingOptions", "State", "get_game", "knowledge", "sample_states"]

_MODULES = SDK_GAMES  # the forward model of each game: sdk.games


def _module(game: Game):
    import importlib

    if not isinstance(game, Game):
        raise TypeError(f"sample_states needs a configured engine Game (sdk.forward.get_game), got {type(game).__name__}")
    try:
        return importlib.import_module(_MODULES[game.name].forward)
    except KeyError:
        raise ValueError(f"no forward model for game {game.name!r} (known: {', '.join(_MODULES)})") from None


def _check_view(game: Game, view: Any) -> None:
    if isinstance(view, State):
        raise TypeError("sample_states takes a seat's view, never a state (that would use hidden information)")
    if not isinstance(view, game.view_type):
        raise TypeError(f"expected a {game.view_type.__name__}, got {type(view).__name__}")
    seat = view.seat
    if seat is None or not 0 <= seat < game.num_seats:
        raise ValueError(f"the view must be a seat's view (seat 0..{game.num_seats - 1}), got seat {seat!r}")


def knowledge(game: Game, view: Any, options: SamplingOptions | Mapping[str, Any] | None = None) -> Any:
    """What the seat knows about the hidden cards, as the game module's ``Knowledge``."""
    _check_view(game, view)
    return _module(game).knowledge(game, view, parse_sampling_options(options))


def sample_states(
    game: Game,
    view: Any,
    n: int,
    rng: random.Random,
    options: SamplingOptions | Mapping[str, Any] | None = None,
    known: Any = None,
) -> list[State]:
    """``n`` full states consistent with ``view`` (see the module docstring), drawn with ``rng``.

    ``known``: ``knowledge(game, view, options)`` if the caller has it already (it depends on
    the view and the options alone, and is most of the cost of a few samples), else it is
    worked out here."""
    if n < 0:
        raise ValueError(f"n must not be negative, got {n}")
    _check_view(game, view)
    mod = _module(game)
    know = mod.knowledge(game, view, parse_sampling_options(options)) if known is None else known
    return [mod.build(game, view, know, rng) for _ in range(n)]
