"""Card Arena SDK: what a bot author imports.

    from sdk import Bot, run

    class MyBot(Bot):
        name = "mybot"
        def choose(self, view, legal_actions):
            return legal_actions[0]

    if __name__ == "__main__":
        run(MyBot())

Typed views and actions per game: ``sdk.spades``, ``sdk.spite_and_malice``, ``sdk.spot``
(every view field is described in its class: ``pydoc sdk.spades.SpadesView``). The hooks
and ``self.rng``: ``pydoc sdk.Bot``. Play locally without a server: ``sdk.harness``
(``pydoc sdk.harness`` has a complete example). The rules, every option and the presets:
``arbiter rules GAME`` and docs/rules/. A view as a fixed-shape tensor and actions as
indices with a legal mask, the same for training and play: ``sdk.encoding``.

What it exports (``__all__``): ``Bot`` (the class to subclass) and ``run`` (connect it to
an arbiter); the values a bot meets in every game, from the core: ``Action`` (the base of
every game's actions), ``Card`` and ``parse_cards``, ``Event`` (what a seat is shown
happening, ``on_events``), ``MatchInfo`` (``on_match_start``), ``MatchResult``
(``on_match_end``), ``Outcome`` (scores, ranks, how it ended), ``IllegalActionError``.
The bots to play against are not here: the random bot is ``sdk.random_bot.RandomBot``, and
any bot by name is ``sdk.loading.load_bot("random")`` (the other bundled bots, greedy,
heuristic, search and dds, come with the platform, card-arena).
"""

from sdk.bot import Bot
from cardarena.records import MatchInfo, MatchResult
from cardarena.games import Action, Card, Event, IllegalActionError, Outcome, parse_cards


def run(bot, address=None, token=None, name=None, argv=None, tls_ca=None, report=None):
    """Connect ``bot`` to an arbiter and play until it closes the stream (see sdk.runner).

    What is not passed comes from the command line of the bot's script
    (``--address HOST:PORT --token T --name N --tls-ca CA.pem``), then from
    ``ARENA_ADDRESS`` / ``ARENA_TOKEN`` / ``ARENA_TLS_CA``, then the defaults. Returns the
    number of matches played. Like ``python -m sdk``, it says on stderr when it is
    connected and when the arbiter closes the session (``report``: a function told those
    lines instead; ``lambda text: None`` for silence), and ends as it does: Ctrl-C or a
    TERM stops the session cleanly (exit 130), and an arbiter that cannot be reached or
    refuses the session is one line on stderr (exit 1), not a traceback
    (``sdk.runner.run`` returns or raises ``ArbiterError`` instead).
    """
    import argparse
    import os
    import sys

    from sdk.__main__ import add_session_flags, play

    # flags it does not know are the script's own; --help shows these and exits
    parser = add_session_flags(argparse.ArgumentParser(prog=os.path.basename(sys.argv[0]) or None,
                                                       description=f"Connect {bot.name} to a Card Arena arbiter."))
    flags, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    return play(bot, address=address or flags.address, token=token if token is not None else flags.token,
                name=name or flags.name, tls_ca=tls_ca if tls_ca is not None else flags.tls_ca, report=report)


__all__ = ["Action", "Bot", "MatchInfo", "MatchResult", "Card", "Event", "IllegalActionError", "Outcome", "parse_cards", "run"]
