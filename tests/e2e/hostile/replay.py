"""Replays old request ids: with each new answer it sends its earlier answers again
(their request ids are answered already; same seat tokens)."""

import json
import sys

import sdk.runner as runner
from sdk import Bot

SENT: list = []
ERRORS: list[str] = []
_orig_handle = runner._Session.handle
_orig_act = runner.convert.act_to_proto


def act_to_proto(*args, **kwargs):
    msg = _orig_act(*args, **kwargs)
    SENT.append(msg)
    return msg


def handle(self, msg):
    which = msg.WhichOneof("msg")
    if which == "error":
        ERRORS.append(msg.error.code)
        print("HOSTILE " + json.dumps({"kind": "errors", "codes": sorted(set(ERRORS)), "count": len(ERRORS)}), file=sys.stderr, flush=True)
        return None
    old = list(SENT[-3:])
    out = _orig_handle(self, msg)
    if which == "turn":
        for m in old:  # old request ids, after the real answer
            self.outbox.put(m)
    return out


runner.convert.act_to_proto = act_to_proto
runner._Session.handle = handle


class ReplayBot(Bot):
    name = "replay"
    games = ("spades",)

    def choose(self, view, legal_actions):
        return legal_actions[0]
