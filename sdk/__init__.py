"""Card Arena SDK: what a bot author imports.

    from sdk import Bot, run

    class MyBot(Bot):
        name = "mybot"
        def choose(self, view, legal_actions):
            return legal_actions[0]

    if __name__ == "__main__":
        run(MyBot())

Typed views and actions per game: ``sdk.spades``, ``sdk.spite_and_malice``, ``sdk.spot``.
Play locally without a server: ``sdk.harness.play_match``.
"""

from sdk.bot import Bot, MatchInfo, MatchResult
from arbiter.games import Action, Card, Event, IllegalActionError, Outcome, parse_cards


def run(bot, address=None, token=None, name=None):
    """Connect ``bot`` to an arbiter and play until it closes the stream (see sdk.runner)."""
    from sdk.runner import run as _run

    return _run(bot, address=address, token=token, name=name)


__all__ = ["Action", "Bot", "MatchInfo", "MatchResult", "Card", "Event", "IllegalActionError", "Outcome", "parse_cards", "run"]
