"""Connects a Bot to an arbiter over gRPC and plays until the arbiter closes the stream.

    import sdk
    sdk.run(MyBot(), address="127.0.0.1:50051", token="...")

or from a shell: ``python -m sdk --bot path/to/mybot.py --address HOST:PORT --token T``
(address and token also from ``ARENA_ADDRESS`` / ``ARENA_TOKEN``). One connection plays
any number of matches, even several at once: each (match, seat) gets a fresh copy of
the bot, so state kept on ``self`` belongs to one match.
"""

from __future__ import annotations

import copy
import logging
import os
import queue
import threading
from typing import Any, Iterator

import grpc

from arbiter.games import game_class
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from sdk import convert
from sdk.bot import Bot

log = logging.getLogger("sdk")


class ArbiterError(Exception):
    """The arbiter refused the session (bad token, protocol) or the stream failed."""


class _Session:
    def __init__(self, bot: Bot, name: str):
        self.template = bot
        self.name = name
        self.outbox: queue.Queue[pb.BotMessage | None] = queue.Queue()
        self.bots: dict[tuple[str, int], Bot] = {}
        self.games: dict[str, str] = {}  # match_id -> game
        self.seat_tokens: dict[tuple[str, int], str] = {}  # (match_id, seat) -> MatchStart.seat_token
        self.matches_played = 0
        self.errors: list[str] = []

    def requests(self, hello: pb.BotMessage) -> Iterator[pb.BotMessage]:
        yield hello
        while True:
            msg = self.outbox.get()
            if msg is None:
                return
            yield msg

    def handle(self, msg: pb.ArbiterMessage) -> None:
        which = msg.WhichOneof("msg")
        if which == "match_start":
            info = convert.match_info_from_proto(msg.match_start)
            bot = copy.deepcopy(self.template)
            self.bots[(info.match_id, info.seat)] = bot
            self.games[info.match_id] = info.game
            self.seat_tokens[(info.match_id, info.seat)] = msg.match_start.seat_token
            bot._start(info)
        elif which == "turn":
            turn = msg.turn
            game = self.games[turn.match_id]
            bot = self.bots[(turn.match_id, turn.seat)]
            view, legal = convert.turn_from_proto(game, turn)
            if turn.events:  # what happened since this seat's last message: before deciding
                bot.on_events(convert.events_from_proto(turn))
            action = bot.choose(view, legal)
            if isinstance(action, str):
                action = _parse(game, action)
            token = self.seat_tokens.get((turn.match_id, turn.seat), "")
            self.outbox.put(convert.act_to_proto(game, turn.match_id, turn.request_id, action, token))
        elif which == "update":  # not sent by this arbiter (events come in Turn/MatchEnd); accepted
            bot = self.bots.get((msg.update.match_id, msg.update.seat))
            if bot is not None:
                bot.on_events(convert.events_from_proto(msg.update))
        elif which == "match_end":
            key = (msg.match_end.match_id, msg.match_end.seat)
            bot = self.bots.pop(key, None)
            self.seat_tokens.pop(key, None)
            if bot is not None:
                if msg.match_end.events:  # the last events (final trick, scoring) come first
                    bot.on_events(convert.events_from_proto(msg.match_end))
                bot.on_match_end(convert.result_from_proto(msg.match_end))
            self.matches_played += 1
            if not any(k[0] == key[0] for k in self.bots):
                self.games.pop(key[0], None)
        elif which == "error":
            err = msg.error
            if err.code in ("auth", "protocol"):
                raise ArbiterError(f"arbiter refused the session: {err.code}: {err.message}")
            self.errors.append(f"{err.code}: {err.message}")
            log.warning("%s: arbiter says %s: %s", self.name, err.code, err.message)


_PARSERS: dict[str, Any] = {}


def _parse(game: str, text: str) -> Any:
    """Parse a notation string a bot returned instead of a typed action."""
    if game not in _PARSERS:
        _PARSERS[game] = game_class(game)()
    return _PARSERS[game].parse_action(text)


def run(
    bot: Bot,
    address: str | None = None,
    token: str | None = None,
    name: str | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Play on the arbiter at ``address`` until it closes the stream; returns matches played.

    Raises ArbiterError if the arbiter refuses the session. A bot whose ``choose`` raises
    ends the connection (the arbiter records a disconnect for its seats).
    """
    address = address or os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051")
    token = token if token is not None else os.environ.get("ARENA_TOKEN", "")
    name = name or bot.name
    session = _Session(bot, name)
    channel = grpc.insecure_channel(address)
    try:
        stub = pb_grpc.ArenaStub(channel)
        responses = stub.Play(session.requests(convert.hello(name, bot.version, token, bot.games)))
        if stop is not None:
            threading.Thread(target=lambda: (stop.wait(), responses.cancel()), daemon=True).start()
        first = True
        for msg in responses:
            if first:
                first = False
                if msg.WhichOneof("msg") != "welcome":
                    session.handle(msg)  # an auth/protocol error raises here
                    raise ArbiterError(f"expected Welcome, got {msg.WhichOneof('msg')}")
                log.info("%s connected to %s as %s", name, address, msg.welcome.session_id)
                continue
            session.handle(msg)
    except grpc.RpcError as exc:
        if exc.code() == grpc.StatusCode.CANCELLED and stop is not None and stop.is_set():
            return session.matches_played
        if exc.code() == grpc.StatusCode.UNAVAILABLE:
            raise ArbiterError(f"cannot reach the arbiter at {address}: {exc.details()}") from None
        raise ArbiterError(f"stream failed: {exc.code().name}: {exc.details()}") from None
    finally:
        session.outbox.put(None)
        channel.close()
    return session.matches_played
