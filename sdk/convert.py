"""The SDK's side of the wire: protobuf envelopes <-> the typed values a Bot sees.

Views and actions use the same generic codec as the arbiter (arbiter.convert), so a
bot gets exactly the engine's view dataclasses and action types.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from cardarena.wire import codec as convert
from cardarena.v1 import arena_pb2 as pb
from cardarena.records import MatchInfo, MatchResult
from sdk.bot import game_names

WireError = convert.WireError
#: The revision of view deltas this SDK applies (arena.proto ViewDelta).
VIEW_DELTAS = convert.VIEW_DELTAS
ViewDeltaReader = convert.ViewDeltaReader


#: Values ``copy.deepcopy`` returns as they are: an option of one of these types is handed
#: out without the copier's per-value dispatch (most options; a MatchStart per seat per match).
_ATOMIC = frozenset({int, float, bool, str, bytes, type(None)})


def options_from_wire(game: str, options: dict[str, str]) -> dict[str, Any]:
    """Typed options from their text form (via the game's own option parser); a fresh copy,
    as ``copy.deepcopy`` makes it (one memo for all values: shared lists stay shared)."""
    memo: dict[int, Any] = {}
    return {k: v if type(v) in _ATOMIC else copy.deepcopy(v, memo)
            for k, v in _parsed_options(game, tuple(sorted(options.items()))).items()}


@functools.lru_cache(maxsize=256)
def _parsed_options(game: str, options: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    # Every match of a tournament has the same options: parse them once (the parser reads
    # type hints, which is slow), hand out copies.
    from cardarena.games import game_class
    from cardarena.games.base import options_to_dict, parse_options

    try:
        return options_to_dict(parse_options(game_class(game).Options, dict(options)))
    except Exception:  # an unknown game or an option this SDK version does not know: keep the text
        return dict(options)


def match_info_from_proto(msg: pb.MatchStart) -> MatchInfo:
    return MatchInfo(
        match_id=msg.match_id,
        game=msg.game,
        options=options_from_wire(msg.game, dict(msg.options)),
        seat=msg.seat,
        num_seats=msg.num_seats,
        teams=tuple(tuple(t.seats) for t in msg.teams),
        seat_names=tuple(msg.seat_names),
        decision_ms=msg.clock.decision_ms,
        bank_ms=msg.clock.bank_ms,
        seed=msg.bot_seed,
    )


def turn_from_proto(game: str, msg: pb.Turn, frame: bytes | None = None) -> tuple[Any, list[Any]]:
    """(view, legal_actions) of a Turn. The view is lazy (``codec.lazy_view_from_proto``):
    each of its fields is decoded when the bot first reads it, so a bot pays only for what
    it reads; the legal actions are decoded (every bot reads them). ``frame``: the bytes
    of the ArbiterMessage ``msg`` came in (both transports hand them over): legal
    actions seen before are then found by their bytes there."""
    return convert.lazy_view_from_proto(game, msg.view), _legal_actions(game, msg.legal_actions, frame)


def turn_delta_from_proto(game: str, msg: pb.Turn, views: convert.ViewDeltaReader,
                          frame: bytes | None = None) -> tuple[Any, list[Any]] | None:
    """``turn_from_proto`` for a Turn carrying a ``view_delta``: the seat's view rebuilt by
    ``views`` (the seat's ViewDeltaReader), or None if the delta does not apply to the view
    it holds (the bot then answers Act.resync and the arbiter sends the whole view).
    ``frame`` as for ``turn_from_proto``."""
    view = views.apply(msg.view_delta)
    if view is None:
        return None
    return view, _legal_actions(game, msg.legal_actions, frame)


def _legal_actions(game: str, legals: Any, frame: bytes | None) -> list[Any]:
    """A Turn's legal actions: found by their bytes in ``frame`` where all were seen before,
    else decoded from the message's."""
    legal = convert.legal_actions_from_frame(game, frame, len(legals)) if frame is not None else None
    return convert.legal_actions_from_proto(game, legals) if legal is None else legal


def act_to_proto(game: str, match_id: str, request_id: int, action: Any, seat_token: str = "") -> pb.BotMessage:
    """An Act; ``seat_token`` is MatchStart.seat_token of the seat that was asked. The
    action goes as its kept bytes (``codec.action_wire``: one of the Turn's legal actions
    as it came), merged into a message set field by field (a constructor taking nested
    dicts cost twice as much: docs/performance.md, issue 42)."""
    msg = pb.BotMessage()
    act = msg.act
    act.match_id = match_id
    act.request_id = request_id
    act.seat_token = seat_token
    act.action.MergeFromString(convert.action_wire(game, action))
    return msg


#: ``act_to_proto``'s message with ``think_us`` set, serialized, made as bytes: ``act_wire(game,
#: match_id, request_id, action, seat_token, think_us)`` (the SDK's every answer).
act_wire = convert.act_wire


def events_from_proto(msg: pb.Turn | pb.MatchEnd | pb.Update, frame: bytes | None = None) -> list[Any]:
    """The events a Turn, MatchEnd (or Update) carries, in order; each found by its bytes
    where seen before (most events recur: a seat's play of a card, a trick won). ``frame``:
    the bytes of the ArbiterMessage a Turn ``msg`` came in (both transports hand them
    over), read for its events as ``turn_from_proto`` reads it for the legal actions."""
    events = msg.events
    got = convert.events_from_frame(frame, len(events)) if frame is not None else None
    return got if got is not None else convert.events_from_proto(events)


def result_from_proto(msg: pb.MatchEnd) -> MatchResult:
    return MatchResult(msg.match_id, convert.outcome_from_proto(msg.outcome), msg.seat)


def hello(name: str, version: str, token: str, games: tuple[str, ...] | str, view_deltas: int = 0) -> pb.BotMessage:
    """The Hello; ``games`` the bot's (a lone string is one name: ``game_names``);
    ``view_deltas``: the revision of view deltas to ask for (0: whole views)."""
    return pb.BotMessage(
        hello=pb.Hello(
            bot_name=name,
            bot_version=version,
            token=token,
            games=[g for g in game_names(games) if g != "*"],
            protocol_version=convert.PROTOCOL_VERSION,
            view_deltas=view_deltas,
        )
    )


def warm(game: str) -> None:
    """Compile now what a bot process's first match of ``game`` compiles: the codec's
    encoders and decoders of the game's views (whole and as view deltas), actions and
    events, and its options' type hints, by taking one Turn of a seeded deal (seed 0; no
    bot is asked anything) through the SDK's own paths, as a MatchStart and a Turn.

    Then every action the game can offer under its default options (its encoder's table,
    ``sdk.encoding``) is decoded once, as a Turn's legal actions are, so that a Turn's
    legal actions are found by their bytes and none is decoded anew: a Spades give turn
    offers 78 gives (pairs of the hand's cards, 1,326 in all), each ~5 µs to decode the
    first time a process sees it, ~0.4 ms on the critical path of that decision.

    A fork server's parent calls it for every game before it forks (zygote.py), so each of
    its children finds them compiled and decoded (a forked child's first Turn cost ~5 ms
    of CPU more than its next ones: docs/performance.md, "Isolation"). It keeps nothing of
    any match: only the compiled codecs and their caches of this fixed deal's items and of
    the game's actions, the same in every parent."""
    from dataclasses import fields

    from cardarena.games import get_game
    from cardarena.games.options import options_to_dict

    engine = get_game(game)
    state = engine.new_initial_state(0)
    seat = state.current_seat if state.current_seat is not None else 0
    view, legal = state.view(seat), state.legal_actions()
    events = state.apply(legal[0]) if legal else []
    start = pb.MatchStart(match_id="warm", game=game, seat=seat, num_seats=engine.num_seats,
                          options=convert.options_to_wire(options_to_dict(engine.options)))
    match_info_from_proto(start)
    for delta in (None, convert.ViewDeltaWriter(game).delta(view)):
        data = convert.turn_wire(game, "warm", 1, seat, view, legal, 1000, 1000, events, delta)
        turn = pb.ArbiterMessage.FromString(data).turn
        if delta is None:
            got = turn_from_proto(game, turn, data)
        else:
            got = turn_delta_from_proto(game, turn, ViewDeltaReader(game))
        if got is None:
            continue
        read, actions = got
        for f in fields(read):
            getattr(read, f.name)
        events_from_proto(turn)
        if actions:
            act_to_proto(game, "warm", 1, actions[0])
    from sdk.encoding import encoder

    table = encoder(game)
    convert.legal_actions_from_proto(game, [convert.action_to_proto(game, table.action_of(i))
                                            for i in range(table.num_actions)])
