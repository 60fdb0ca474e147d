"""The one class a bot author subclasses.

    from sdk import Bot

    class MyBot(Bot):
        name = "mybot"
        def choose(self, view, legal_actions):
            return legal_actions[0]

``choose`` gets the seat's typed view (e.g. ``sdk.spades.SpadesView``) and the legal
actions (typed actions, e.g. ``Bid``, ``Play``) and returns one of them. The hooks are
optional. The runner makes a fresh copy of the bot for every match it plays, so
per-match state can live on ``self``.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Sequence

from cardarena.games.base import Action, Event
from cardarena.records import MatchInfo, MatchResult  # noqa: F401  (what the hooks receive)


class Bot:
    """Base class of every bot. Implement ``choose``; override the hooks as needed.

    Class attributes:
        name: the bot's name (letters, digits, ``-``, ``_``, ``.``): the name it connects
            to an arbiter as (``python -m sdk``, ``run``) and is registered under
            (``arbiter bots submit`` without ``--name``), so what those standings show.
            ``arbiter play`` and tournaments show a bot given as a file by its file's name
            (``mybot.py``: mybot), a registered one as ``name@version``.
        version: its version (``name@version`` in a tournament once registered).
        games: the games it plays (``"spades"``, ``"spite-and-malice"``, ``"spot"``), or
            ``("*",)`` for any: a tuple, so one game is ``("spades",)`` (with its comma).
        deterministic: optional; True if ``choose`` depends only on the view, the legal
            actions, ``self.rng`` and what the hooks told it: ``arbiter bots check`` then
            verifies that two copies given the same seed answer alike, and the registry
            shows it.
        connection: None (the SDK's own); only for experiments with the protocol itself:
            the ``sdk.runner.Connection`` subclass ``run`` plays through.

    Instance attributes (set by the SDK before a match starts):
        rng: a ``random.Random`` seeded per match and seat by the arbiter
            (``MatchInfo.seed``, never the deal seed): draw every random choice from it
            and a seeded match replays exactly. Do not reseed it.
        info: the match's ``MatchInfo`` (game, options in force, seat, teams, seat names,
            clock), or None before a match.

    Hooks, called in this order for each match, on a fresh copy of the bot (state kept
    on ``self`` belongs to that one match):
        on_match_start(info): once, before the first decision; ``self.info`` and
            ``self.rng`` are already set.
        on_events(events): the events this seat may see (``Event``: kind, seat, text,
            cards), each exactly once and in order: before every ``choose``, everything
            since the previous call, and the last ones before ``on_match_end``. Each
            game's kinds: the Events section of ``pydoc sdk.spades`` (and the others).
        choose(view, legal_actions): required; called for every decision of the seat.
            ``view`` is the seat's typed view (``sdk.spades.SpadesView``,
            ``sdk.spite_and_malice.SpiteAndMaliceView``, ``sdk.spot.SpotView``) and
            ``legal_actions`` every legal action, typed (``Bid``, ``Play``, ...). Return
            one of them, or its notation as a string (``"bid 3"``, ``"play QS"``).
        on_match_end(result): once, when the match is over (``MatchResult``: the outcome
            with every seat's score and rank, and this seat). What it raises changes
            nothing and is only written on the bot's stderr, which ``arbiter play`` does
            not show for a hosted bot (no incident is recorded after the result): test
            it with ``sdk.harness`` (which raises it) or ``--transport inproc``.

    A decision's clock (``info.decision_ms``, then ``info.bank_ms``) runs from the moment
    the arbiter sends the turn until the answer arrives: the ``on_events`` call before a
    ``choose`` counts against it too, and so does the bot's set-up for a match before its
    first decision (the arbiter does not wait for it): the fresh copy, a deep copy of all
    ``__init__`` put on ``self``, and ``on_match_start``. Keep large read-only data
    (tables, weights) on the class or in a module global, loaded once: every copy shares
    it and the process keeps it from match to match (one process may play many matches,
    one after another or at once, so per-match state never belongs there; at once, it
    answers their turns one at a time: a long ``choose`` in one holds the others' turns,
    whose clocks run).
    A decision with no answer by then, or whose answer fails (a hook that raised, no
    action, an illegal one), is the seat's failure: the match's policy forfeits its side
    (``arbiter play``'s default) or plays its first legal action for it, up to a number of
    strikes. The bot's code is not interrupted: a late answer is thrown away, and while
    ``choose`` still runs the clocks of the seat's next decisions run too.

    Diagnostics go to stderr (``print(..., file=sys.stderr)``): the arbiter keeps its tail in
    the match record when something goes wrong, where whoever may see the match reads it
    (print nothing there an opponent should not learn) (a bot in the arbiter's own process,
    ``--transport inproc``, writes it on the command's stderr instead, where the traceback
    of a bot that raised shows too; the record keeps none). A bot the arbiter plays has its
    stdout thrown away, as a process of its own and in the arbiter's process alike, so a
    plain ``print`` shows nowhere (in ``sdk.harness``, your own script, it prints as
    usual). ``note(text)`` attaches words to a decision that the replay shows.
    """

    #: Registered name and version.
    name: str = "bot"
    version: str = "0.1"
    #: Games this bot plays ("*" for any).
    games: tuple[str, ...] = ("*",)
    #: The ``sdk.runner.Connection`` subclass ``run`` plays through; None: the SDK's own.
    #: Only for experiments with the protocol itself (see ``sdk.runner.Connection``).
    connection: Any = None

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.info: MatchInfo | None = None

    def choose(self, view: Any, legal_actions: Sequence[Action]) -> Action | str:
        """Return one of ``legal_actions`` (or its notation) for the seat's ``view``."""
        raise NotImplementedError("a Bot must implement choose(view, legal_actions)")

    def on_match_start(self, info: MatchInfo) -> None:
        """Called once before the first decision of a match (``self.info`` and
        ``self.rng`` are set already)."""

    def on_events(self, events: list[Event]) -> None:
        """Called with the events this seat may see, in order, each once: before each
        ``choose``, everything since the previous call (the arbiter sends a seat's events
        with its next Turn), and the last ones before ``on_match_end``."""

    def on_match_end(self, result: MatchResult) -> None:
        """Called once when the match is over, with its outcome and this seat."""

    def note(self, text: str) -> None:
        """Attach a note to the decision being made (call it from ``choose``): why you chose
        what you did, what you believed. It is stored with the decision and shown in the
        replay to those who may see this seat's view; it never changes the match. At most
        1 KB a decision and 64 KB a match: more is cut, and the note says so."""
        notes = self.__dict__.setdefault("_notes", [])
        notes.append(str(text))

    # The runner calls this; bots normally don't.
    def _start(self, info: MatchInfo) -> Any:
        """Set ``info`` and ``rng``, then ``on_match_start``; what it returned (the driver
        refuses a coroutine: an ``async def`` hook whose body never ran)."""
        self.info = info
        self.rng = random.Random(info.seed)
        return self.on_match_start(info)

    def plays(self, game: str) -> bool:
        """Whether this bot plays ``game``: it is in ``games``, or ``games`` has ``"*"``.
        A match (and ``sdk.harness``) refuses a bot for a game it does not play."""
        games = game_names(self.games)
        return "*" in games or game in games


def game_names(games: "Sequence[str] | str") -> tuple[str, ...]:
    """A bot's ``games`` as names: a lone string is one name. ``games = ("spades")``, the
    comma of a one-name tuple forgotten, is the string "spades", which read as a sequence is
    six one-letter games (and ``game in games`` a substring test)."""
    return (games,) if isinstance(games, str) else tuple(games or ())


_new_random = random.Random.__new__


def fresh_copy(bot: Any) -> Any:
    """A deep copy of ``bot`` for one match: exactly ``copy.deepcopy(bot)``, but quicker.

    Its ``rng`` (a ``random.Random``, reseeded by ``_start`` before the match anyway) is
    copied through getstate/setstate; deepcopy copies the generator's 625-number state one
    element at a time in Python, about half a millisecond per copy, paid by every seat of
    every match. Anything else on the bot is deep-copied as usual, and a reference to the
    same generator elsewhere on the bot still points to the copy's generator.
    """
    memo: dict[int, Any] = {}
    rng = getattr(bot, "rng", None)
    if type(rng) is random.Random:
        # Made without Random.__init__, which seeds from the OS (a urandom read, ~13 µs)
        # only for setstate to replace it; setstate sets every field a generator has.
        clone = _new_random(random.Random, 0)
        clone.setstate(rng.getstate())
        memo[id(rng)] = clone
    return copy.deepcopy(bot, memo)
