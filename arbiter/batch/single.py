"""One match, a batch of one: what ``arbiter play``, the web's /play and a person's table
share besides the engine and the venue.

A single match is played like any other (``play_batch`` over ``open_venue``); it is kept
in the store under a batch of single matches per game and changed options, ``play:GAME``
(``store_play``), and a match a running arbiter played is turned into a record that
replays (``record_of``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from arbiter.store.db import Store
from cardarena.games import game_class
from cardarena.games.base import options_to_dict
from cardarena.games.options import value_text
from cardarena.records import Incident, MatchConfig, MatchRecord, RecordedAction, visible

# The gRPC client (with grpc, the protobuf messages and the wire codec: ~100 ms of import
# time) for a type only: a tournament spec imports this module for ``name_taken``.
if TYPE_CHECKING:
    from arbiter.server import client

#: The name of the store's batch of single matches (``arbiter play``, the web's /play):
#: ``play:GAME`` (with its changed options in brackets, as the command line writes them:
#: ``play:spite-and-malice(ace_two_compulsion=true,wild_excluded_ranks=A)``). Lists of
#: tournaments keep them apart.
PLAY_PREFIX = "play:"


def is_play_name(name: str) -> bool:
    """A batch that only keeps single played matches (``store_play``), not a tournament."""
    return name.startswith(PLAY_PREFIX)


def name_taken(name: str) -> str:
    """Why a tournament or an evaluation may not be called ``name`` ("" if it may): a name
    starting with ``play:`` is the store's batch of single matches (readers take it for one,
    open, and /play would store its matches into it); a name of digits alone reads as another
    one's id (``arbiter standings N``, the web page's ``/t/N``), and one starting with ``-`` as an
    option; a name with a control
    character is not one line (every output shows it escaped, ``visible``, but a spec is
    anyone's text); a blank one (or none) shows as nothing in every listing."""
    if not name.strip():
        return "a name is blank: give one with a letter or digit (or leave it out for the default)"
    if is_play_name(name):
        return (f"names starting with {PLAY_PREFIX!r} are the store's batches of single matches (arbiter play, "
                "/play); choose another name")
    if name.isdigit():
        return "a name of digits alone reads as another tournament's id (arbiter standings N, /t/N): add a letter"
    if name.startswith("-"):
        return "a name starting with '-' reads as an option on every command line (arbiter standings -x): start it otherwise"
    if visible(name) != name or "\n" in name or "\t" in name:
        return ("a name is one line of text: no newline, tab or other control character (ESC, CR...), which every "
                "listing, page and log line would show as an escape")
    return ""


def play_batch_name(game: str, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The batch a single match of ``game`` with ``options`` is kept in, and the options
    it changes from the game's defaults: each written as ``-o KEY=VALUE`` takes it
    (``value_text``: ``true``, ``A,7``), as every listing shows the name and a reader types it
    back (``arbiter tournament show NAME``)."""
    defaults = options_to_dict(game_class(game)().options)
    changed = {k: v for k, v in options.items() if defaults.get(k) != v}
    return _batch_name(game, changed, value_text), changed


def former_play_batch_name(game: str, changed: Mapping[str, Any]) -> str:
    """The name an older arbiter gave the batch of ``changed`` options: its values as Python
    writes them (``ace_two_compulsion=True``, ``wild_excluded_ranks=['A']``). A store that
    holds a batch so named keeps adding its matches there (``store_play``), under the name
    its listings have always shown; numbers alone were written alike."""
    return _batch_name(game, changed, str)


def _batch_name(game: str, changed: Mapping[str, Any], text: Any) -> str:
    return f"{PLAY_PREFIX}{game}" + ("(" + ",".join(f"{k}={text(v)}" for k, v in sorted(changed.items())) + ")"
                                     if changed else "")


def store_play(db_path: str | os.PathLike, record: MatchRecord, preset: str | None = None) -> str:
    """Keep a played match in the store (for ``arbiter replay ID`` and the web page), in the
    batch of single matches of its game and options, ``play:GAME``; its name (an older
    store's batch of them keeps the name it was given then: ``former_play_batch_name``)."""
    name, changed = play_batch_name(record.game, record.options)
    # what a tournament spec of it reads as (TournamentSpec.from_json fills the rest)
    spec = {"game": record.game, "bots": [], "options": changed, "duplicate": False, "name": name, "deals": 1}
    with Store(db_path) as store:  # an older store's batch of these options, named as it was then, is added to
        tour = store.single_batch(name, record.game, spec, formerly=former_play_batch_name(record.game, changed))
        store.append_match(tour.id, record)  # its index taken as it is written: another writer may keep one at once
        store.mark_finished(tour.id)
    return tour.name


def record_of(config: MatchConfig, seat_names: Sequence[str], summary: client.RemoteMatch) -> MatchRecord:
    """The record of a match a running arbiter played (``config``: what it was asked to
    play; ``summary``: what Matches.RunMatch answered), one that replays: the seats of the
    actions come from the engine (whose turn each was), the options as the engine applied
    them. No timings: the arbiter keeps those."""
    engine = config.make_game()
    state = engine.new_initial_state(config.seed)
    actions = []
    for text in summary.actions:
        actions.append(RecordedAction(state.current_seat, text, 0))
        state.apply(engine.parse_action(text))
    incidents = []
    for text in summary.incidents:  # "seat N: kind: detail", as the arbiter words them
        seat, kind, detail = (text.split(": ", 2) + ["", ""])[:3]
        incidents.append(Incident(int(seat[5:]) if seat[5:].isdigit() else -1, kind, detail))
    return MatchRecord(summary.match_id, config.game, options_to_dict(engine.options), config.seed, tuple(seat_names),
                       actions, incidents, summary.outcome)
