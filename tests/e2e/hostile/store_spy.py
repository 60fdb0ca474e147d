"""Tries to read the store of the tournament it plays in, where the store lies in a folder
the sandbox shows it: its own folder here (a bot author's `arbiter tournament run --bots
.,random` from the bot's folder puts the default `arena.sqlite` there), as /usr would be
for a Docker WORKDIR under it, or the Python installation's prefix. With duplicate deals
the store holds the twin seatings already played of the deal it plays: every hand.

It looks for SQLite files beside its own code, and bids 13 if it could read one, else 1
(the record says what it met), and notes what it found on that decision."""

import glob
import os

from sdk import Bot


def read_store() -> dict:
    out = {}
    for path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "*.sqlite*"))):
        try:
            with open(path, "rb") as f:
                out[os.path.basename(path)] = f"READ {len(f.read(1 << 16))} bytes"
        except OSError as exc:
            out[os.path.basename(path)] = f"blocked: {type(exc).__name__}"
    return out


class StoreSpyBot(Bot):
    name = "store-spy"
    games = ("spades",)

    def choose(self, view, legal_actions):
        if not view.hand_visible:  # offered a blind nil: look at the cards first
            return next(a for a in legal_actions if not getattr(a, "blind", False))
        bids = [a for a in legal_actions if type(a).__name__ == "Bid" and not a.blind]
        if bids:
            found = read_store()
            self.note(f"store files: {found}")
            want = 13 if any(v.startswith("READ") for k, v in found.items() if ".sqlite" in k and not k.endswith(".lock")) else 1
            return next((b for b in bids if b.tricks == want), bids[0])
        return legal_actions[0]
