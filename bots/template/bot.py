"""A Card Arena bot: the template `arbiter bots new NAME` copies.

Layout of a folder bot (what `arbiter bots submit FOLDER` accepts):

    NAME/
      bot.py        the entry point: exactly one sdk.Bot subclass (this file)
      *.py          any other modules of yours; bot.py imports them by plain name (not
                    named like one of Python's or the SDK's: a random.py would replace
                    Python's random, and the bot is refused)
      bot.toml      optional: packages of its own (requirements = "requirements.txt"),
                    installed where the arbiter's operator allows it
      README.md     optional

Try it before submitting:

    arbiter bots check NAME/          # legal answers, determinism, time per decision, smoke match
    arbiter play spades NAME/ random NAME/ random

The bot runs in a sandbox: no network but the arbiter, no files outside its own folder
(read-only) and a private working directory (its current directory, writable), limited
memory, CPU time and processes. So a file of its own is read beside this one,
Path(__file__).parent / "weights.json", not as open("weights.json") (the current directory
is the private one). Print diagnostics to stderr: the arbiter keeps the tail of it in the
match record when something goes wrong (a bot's stdout is thrown away, whichever way it plays).
"""

from __future__ import annotations

from sdk import Bot


class TemplateBot(Bot):
    name = "template"
    version = "0.1"
    #: Games this bot plays: "spades", "spite-and-malice", "spot", or "*" for all.
    games = ("*",)
    #: True if choose() depends only on the view, the legal actions and self.rng (seeded
    #: per match by the arbiter): `arbiter bots check` then verifies it.
    deterministic = True

    def choose(self, view, legal_actions):
        # view: the seat's typed view; legal_actions: every legal action, typed.
        # Return one of legal_actions (or its notation, e.g. "play QS").
        return self.rng.choice(legal_actions)
