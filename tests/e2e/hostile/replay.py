"""Replays old request ids: with each new answer it sends its earlier answers again
(their request ids are answered already; same seat tokens)."""

import json
import sys

from sdk import Bot
from sdk.runner import Connection

ERRORS: list[str] = []


class Replay(Connection):
    def __init__(self, bot, name):
        super().__init__(bot, name)
        self.acts: list = []  # every Act sent, in order

    def send(self, msg):
        if msg.WhichOneof("msg") == "act":
            self.acts.append(msg)
        super().send(msg)

    def handle(self, msg):
        which = msg.WhichOneof("msg")
        if which == "error":
            ERRORS.append(msg.error.code)
            print("HOSTILE " + json.dumps({"kind": "errors", "codes": sorted(set(ERRORS)), "count": len(ERRORS)}),
                  file=sys.stderr, flush=True)
            return None
        old = list(self.acts[-3:])
        out = super().handle(msg)
        if which == "turn":
            for m in old:  # old request ids, after the real answer
                super().send(m)
        return out


class ReplayBot(Bot):
    name = "replay"
    games = ("spades",)
    connection = Replay

    def choose(self, view, legal_actions):
        return legal_actions[0]
