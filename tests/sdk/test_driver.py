"""The one bot driver (sdk.driver.SeatDriver), and the harness as one of its adapters.

The transports' parity with misbehaving bots is tests/e2e/test_driver_parity.py; here,
the driver's own promises, with no transport at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.tournament.play import play_local
from cardarena.games import Event, events_for, get_game
from cardarena.records import MatchInfo, MatchResult
from sdk import Bot
from sdk.driver import FAILURE_LIMIT, SeatDriver
from sdk.harness import HarnessError, play_match
from sdk.loading import load_bot

ZOO = Path(__file__).parents[1] / "e2e" / "zoo.py"


def _info(game: str = "spades", seat: int = 0) -> MatchInfo:
    g = get_game(game)
    return MatchInfo(match_id="m", game=game, options={}, seat=seat, num_seats=g.num_seats, teams=g.teams,
                     seat_names=("a",) * g.num_seats, decision_ms=0, bank_ms=0, seed=99)


class Recorder(Bot):
    name = "recorder"
    log: list = []

    def on_match_start(self, info):
        Recorder.log.append(("start", info.seat, self.rng.random()))

    def on_events(self, events):
        Recorder.log.append(("events", [e.text for e in events]))

    def choose(self, view, legal_actions):
        Recorder.log.append(("choose", len(legal_actions)))
        return legal_actions[-1]

    def on_match_end(self, result):
        Recorder.log.append(("end", result.seat))


def test_events_are_held_and_delivered_once_in_order_before_each_decision_and_the_end():
    Recorder.log = []
    template = Recorder()
    driver = SeatDriver(template, _info())
    assert driver.bot is not template  # a fresh copy per match
    e = [Event("x", None, f"e{i}") for i in range(3)]
    driver.push(e[:2])
    driver.push(e[2:])
    state = get_game("spades").new_initial_state(1)
    legal = state.legal_actions()
    assert driver.decide(None, legal).action is legal[-1]
    driver.push([Event("x", None, "last")])
    assert driver.end(MatchResult("m", state.outcome() if state.is_terminal else None, 0)) == ""
    assert [entry[0] for entry in Recorder.log] == ["start", "events", "choose", "events", "end"]
    assert Recorder.log[1] == ("events", ["e0", "e1", "e2"]) and Recorder.log[3] == ("events", ["last"])
    # the rng is seeded from the MatchInfo's seed, so a second match with it draws the same
    first = Recorder.log[0][2]
    SeatDriver(template, _info())
    assert Recorder.log[-1][2] == first


def test_a_notation_is_parsed_and_a_hand_made_action_read_through_its_notation():
    class Texts(Bot):
        answers = ["bid 3", "bid 99", "bid x", "no such thing " * 200]

        def choose(self, view, legal_actions):
            return self.answers.pop(0)

    driver = SeatDriver(Texts(), _info())
    bid = driver.decide(None, [])
    assert bid.action is not None and str(bid.action) == "bid 3" and bid.notation == "bid 3"
    illegal = driver.decide(None, [])  # an action all the same: whether it is legal is the arbiter's to say
    assert str(illegal.action) == "bid 99" and not illegal.malformed
    bad = driver.decide(None, [])
    assert bad.action is None and bad.malformed and bad.notation == "bid x"
    long = driver.decide(None, [])
    assert long.malformed and len(long.notation) == FAILURE_LIMIT  # clipped the same on every path


@pytest.mark.parametrize("bot", ["RaiseInChoose", "RaiseInEvents", "RaiseInStart", "ReturnNone", "ReturnGarbage",
                                 "ReturnMalformed", "OtherGameAction", "ExitMidMatch", "ExitAtStart"])
def test_the_harness_fails_with_the_words_the_arbiter_records(bot):
    """The harness is the strict adapter: the first failure raises HarnessError, and its
    words are the driver's, the same the arbiter puts in the record for that bot."""
    spec = f"{ZOO}:{bot}"
    record = play_local("spot", [spec, "random", "random", "random"], seed=5, transport="inproc")
    incident = record.incidents[0]
    with pytest.raises(HarnessError) as caught:
        play_match("spot", [load_bot(spec), load_bot("random"), load_bot("random"), load_bot("random")], seed=5)
    message = str(caught.value)
    assert message.startswith("seat 0 (")
    if incident.kind == "crash":
        assert incident.detail.removeprefix("the bot failed: ") in message
    elif incident.kind == "malformed":
        assert incident.detail in message
    else:  # an exit: a disconnect on the arbiter, said as the exit in the harness
        assert incident.kind == "disconnect" and "exited" in message
    # and at the same decision: the harness got as far as the arbiter did before it (the
    # seat's own decision, as `arbiter replay --at` counts it, and the match's step)
    own = sum(1 for a in record.actions if a.seat == 0) + 1
    assert f"its decision {own} (as arbiter replay --at counts), step {len(record.actions) + 1} of the match" in message \
        or incident.kind == "disconnect"


def test_the_harness_reports_a_failing_on_match_end():
    with pytest.raises(HarnessError, match="at the end: on_match_end raised RuntimeError"):
        play_match("spot", [load_bot(f"{ZOO}:RaiseInEnd")] + [load_bot("random")] * 3, seed=5)


def test_a_failure_names_the_bots_own_line_not_the_library_it_called():
    """A mistake made in a call into the SDK's helpers (its games' code, from the core) or
    into Python's own library raises there: the failure named that file's line
    (``actions.py:50 in trick_winner``, ``random.py:373 in choice``), which the author did not
    write and cannot find in their bot. It names the bot's own line, and the function the
    exception came out of."""
    import inspect

    from sdk.spades import trick_winner

    class Misuses(Bot):
        calls = [lambda view: trick_winner(view), lambda view: self_rng.choice([])]

        def choose(self, view, legal_actions):
            return self.calls.pop(0)(view)

    self_rng = __import__("random").Random(1)
    line = inspect.getsourcelines(Misuses)[1] + 1  # the lambdas' line
    driver = SeatDriver(Misuses(), _info())
    library = driver.decide([object()], []).failure
    assert library.startswith("choose raised TypeError"), library
    assert f"(test_driver.py:{line} in <lambda>, inside trick_winner)" in library, library
    python = driver.decide(None, []).failure
    assert python.startswith("choose raised IndexError"), python
    assert f"(test_driver.py:{line} in <lambda>, inside choice)" in python, python


def test_an_index_returned_for_an_action_is_told_as_an_index():
    """``return 0`` (an index into legal_actions, not the action) was "choose returned a int,
    not an action": the failure says which it is and what to return instead."""

    class Index(Bot):
        def choose(self, view, legal_actions):
            return 0

    state = get_game("spades", {"blind_nil": False}).new_initial_state(1)
    legal = state.legal_actions()
    failure = SeatDriver(Index(), _info()).decide(state.view(state.current_seat), legal).failure
    assert failure == ("choose returned the int 0, not an action: return one of legal_actions itself "
                       f"(legal_actions[0], {legal[0]}), not its index"), failure

    class NoIndex(Bot):  # no index of them: "legal_actions[42]" would be an IndexError
        def choose(self, view, legal_actions):
            return 42

    failure = SeatDriver(NoIndex(), _info()).decide(state.view(state.current_seat), legal).failure
    assert failure == (f"choose returned the int 42, not an action (nor an index of the {len(legal)} legal actions): "
                       "return one of legal_actions"), failure

    class CardOnly(Bot):  # a card is an int too: not an index
        def choose(self, view, legal_actions):
            return view.hand[0]

    state = get_game("spades", {"blind_nil": False}).new_initial_state(1)
    failure = SeatDriver(CardOnly(), _info()).decide(state.view(state.current_seat), []).failure
    assert failure.startswith(f"choose returned the card {state.view(state.current_seat).hand[0]}, not an action"), failure


def test_a_bot_that_cannot_be_copied_fails_its_decisions_in_words_on_every_path(tmp_path):
    """Every match plays a fresh copy of the bot, on every path: one holding a lock failed
    its hosted process in the SDK's traceback (copy.py, "connection closed"), the self-test
    said "TypeError(...) at copy.py:161", and in process the advice was to play it hosted,
    where it failed the same. The driver tells it as the seat's failure, the same words
    everywhere, with what to do instead; no hook of the uncopied bot is called."""
    import threading

    class Locked(Bot):
        name = "locked"

        def __init__(self):
            super().__init__()
            self.lock = threading.Lock()

        def choose(self, view, legal_actions):
            raise AssertionError("never asked")

    driver = SeatDriver(Locked(), _info())
    for _ in range(2):
        failure = driver.decide(None, []).failure
        assert failure.startswith("the bot cannot be copied for a match (TypeError: cannot pickle '_thread.lock' object)")
        assert "on_match_start" in failure, failure
    assert driver.end(MatchResult("m", None, 0)) == ""
    with pytest.raises(HarnessError, match="cannot be copied for a match"):
        play_match("spades", [Locked(), load_bot("random")] * 2, seed=1, options={"deals": 1})
    from arbiter.hosting.inprocess import cannot_play_in_process

    assert cannot_play_in_process(Locked()).startswith("the bot cannot be copied for a match")


def test_a_card_returned_for_an_action_names_the_actions_that_move_it_or_says_none_does():
    """A Spot bot returning ``view.hand[0]`` at its first decision (a draw) was told to
    "return the one of legal_actions that plays it": there is none, so it looked for one."""

    class CardOnly(Bot):
        def choose(self, view, legal_actions):
            return view.hand[0]

    game = get_game("spot", {"players": 2})
    state = game.new_initial_state(3)
    while state.view(state.current_seat).phase.name != "DRAW":  # the dealt 9 cards' first turn: no draw
        state.apply(next(a for a in state.legal_actions() if str(a).startswith("discard")))
    view, legal = state.view(state.current_seat), state.legal_actions()
    failure = SeatDriver(CardOnly(), _info("spot")).decide(view, legal).failure
    assert failure == (f"choose returned the card {view.hand[0]}, not an action: return one of legal_actions (none "
                       f"moves {view.hand[0]} now; they are: draw stock, draw discard)"), failure
    state.apply(legal[0])
    view, legal = state.view(state.current_seat), state.legal_actions()
    failure = SeatDriver(CardOnly(), _info("spot")).decide(view, legal).failure
    assert "return the one of legal_actions that moves it (" in failure, failure
    assert f"discard {view.hand[0]}" in failure, failure


def test_the_harness_takes_the_number_of_players_from_the_bots_as_arbiter_play_does():
    """`play_match("spot", [mine, random])` failed with "spot with these options seats 4
    bots, got 2" where `arbiter play spot mine.py random` plays 2 players."""
    record = play_match("spot", [load_bot("random"), load_bot("random")], seed=1, options={"hands": 1})
    assert record.options["players"] == 2 and len(record.seat_names) == 2
    record = play_match("spite-and-malice", [load_bot("random")] * 3, seed=1, options={"max_turns": 10})
    assert record.options["players"] == 3
    with pytest.raises(ValueError, match="seats 4 bots, got 2"):  # a number asked for is kept
        play_match("spot", [load_bot("random")] * 2, options={"players": 4})


def test_the_number_of_players_comes_from_the_bots_where_the_default_is_not_valid():
    """Four bots with ``partnerships`` (which needs 4 or 6 players) were refused with "needs
    4 or 6 'players', got 2": the default number was validated before the bots' was taken,
    by the harness and by ``arbiter play`` alike (one ``seat_options``)."""
    from cardarena.games import ConfigError

    record = play_match("spite-and-malice", [load_bot("random")] * 4, seed=1,
                        options={"partnerships": True, "max_turns": 10})
    assert record.options["players"] == 4 and record.options["partnerships"] is True
    with pytest.raises(ConfigError, match="needs 4 or 6 'players', got 3"):  # the bots' number, named
        play_match("spite-and-malice", [load_bot("random")] * 3, options={"partnerships": True})


def test_the_harness_refuses_a_bot_for_a_game_it_does_not_play_as_the_arbiter_does():
    """A Spot bot seated in Spades by ``play_match`` played it and crashed at its first
    trick, where ``arbiter play`` refuses it before the match: the harness says the same."""

    class SpotOnly(Bot):
        name = "spotonly"
        games = ("spot",)

        def choose(self, view, legal_actions):
            return legal_actions[0]

    random = load_bot("random")
    with pytest.raises(ValueError, match=r"seat 2: bot 'spotonly' does not play spades \(it plays spot\)"):
        play_match("spades", [random, random, SpotOnly(), random], options={"deals": 1})
    SpotOnly.games = ("spade",)  # a misspelt game is told as the arbiter tells it
    with pytest.raises(ValueError, match="it plays spade, no game: did you mean 'spades'"):
        play_match("spades", [SpotOnly(), random, random, random], options={"deals": 1})


def test_the_harness_names_a_malformed_answer_once():
    """"'play ZZ' is not an action of spades: 'play ZZ': unknown card 'ZZ' ...": the
    harness named the text, then the parser's words named it again."""

    class Typo(Bot):
        def choose(self, view, legal_actions):
            return "play ZZ" if view.hand else legal_actions[0]

    random = load_bot("random")
    with pytest.raises(HarnessError) as err:
        play_match("spades", [Typo(), random, random, random], options={"deals": 1, "blind_nil": False})
    assert str(err.value).count("'play ZZ'") == 1 and "not an action of spades: 'play ZZ': unknown card 'ZZ'" in str(err.value)


def test_a_bot_is_given_events_as_the_wire_carries_them_on_every_path():
    """The wire does not carry ``visible_to`` (the arbiter filters per seat): a hosted bot
    saw its private events (its own deal, its stock draws) with ``visible_to`` None, the
    same bot in the harness or in the arbiter's process with ``frozenset({seat})``, so a
    bot telling public from private by it played differently hosted. Every path now gives
    the events the wire gives."""
    from cardarena.wire import codec

    seen: list = []

    class Watcher(Bot):
        def on_events(self, events):
            seen.extend(events)

        def choose(self, view, legal_actions):
            return self.rng.choice(legal_actions)

    play_match("spot", [Watcher(), Watcher()], seed=3, options={"hands": 1})
    private = [e for e in seen if e.cards and (e.kind == "deal" or "from the stock" in e.text)]
    assert private, "the match dealt no private cards"
    assert all(e.visible_to is None for e in seen)
    assert seen == codec.events_from_proto([codec.event_to_proto(e) for e in seen])


def test_an_answer_of_the_wrong_kind_says_what_to_change():
    """``async def choose`` was "choose returned a coroutine, not an action" beside
    Python's "coroutine ... was never awaited"; a ``yield`` and a list of actions as bare.
    Each says the slip it shows, and the coroutine is closed (no warning of it)."""
    import warnings

    state = get_game("spades", {"blind_nil": False}).new_initial_state(1)
    view, legal = state.view(state.current_seat), state.legal_actions()

    class Async(Bot):
        async def choose(self, view, legal_actions):
            return legal_actions[0]

    class Yields(Bot):
        def choose(self, view, legal_actions):
            yield legal_actions[0]

    class Listed(Bot):
        def choose(self, view, legal_actions):
            return legal_actions[:1]

    import gc

    gc.collect()  # what earlier tests on this worker left (an unclosed loop's socket pair) is not this test's
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "never awaited" would be one
        failures = [SeatDriver(b(), _info()).decide(view, legal).failure for b in (Async, Yields, Listed)]
        gc.collect()
    assert failures == [
        "choose returned a coroutine, not an action: return one of legal_actions (choose is called without await: "
        "define it with def, not async def)",
        "choose returned a generator, not an action: return one of legal_actions (return it: a choose that yields "
        "is a generator)",
        "choose returned a list, not an action: return one of legal_actions (one action, not a sequence of them)"]


def test_a_hook_written_async_is_told_not_skipped():
    """``async def on_events`` (or ``on_match_start``, ``on_match_end``) returned a
    coroutine the driver never awaited: the hook's body never ran, and the bot played on
    without its events, told nothing. The hook's failure now says so, on every path."""
    import warnings

    class AsyncEvents(Bot):
        async def on_events(self, events):
            raise AssertionError("never runs")

        def choose(self, view, legal_actions):
            return legal_actions[0]

    class AsyncStart(AsyncEvents):
        on_events = Bot.on_events

        async def on_match_start(self, info):
            pass

    class AsyncEnd(AsyncStart):
        on_match_start = Bot.on_match_start

        async def on_match_end(self, result):
            pass

    state = get_game("spades", {"blind_nil": False}).new_initial_state(1)
    view, legal = state.view(state.current_seat), state.legal_actions()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "coroutine ... was never awaited" either
        driver = SeatDriver(AsyncEvents(), _info())
        driver.push(events_for(state.log, 0))
        events = driver.decide(view, legal).failure
        start = SeatDriver(AsyncStart(), _info()).decide(view, legal).failure
        end = SeatDriver(AsyncEnd(), _info()).end(None)
        import gc

        gc.collect()
    for failure, hook in ((events, "on_events"), (start, "on_match_start"), (end, "on_match_end")):
        assert failure == (f"{hook} is async def: the SDK calls it without await, so its body never ran; define it "
                           "with def"), failure


def test_the_harness_keeps_a_bots_notes_as_the_arbiter_does():
    """``Bot.note`` is "stored with the decision and shown in the replay"; the harness's
    record dropped every note, so an author testing them locally saw none."""

    class Noter(Bot):
        def choose(self, view, legal_actions):
            self.note(f"{len(legal_actions)} choices")
            return legal_actions[0]

    record = play_match("spot", [Noter(), load_bot("random")], seed=1, options={"hands": 1})
    mine = [a for a in record.actions if a.seat == 0]
    assert mine and all(a.note.endswith(" choices") for a in mine), mine[:3]
    assert all(not a.note for a in record.actions if a.seat == 1)


CRASH_ON_SECOND = """\
from sdk import Bot


class Second(Bot):
    name = "second"
    asked = 0

    def choose(self, view, legal_actions):
        self.asked += 1
        if self.asked == 2:
            raise RuntimeError("my second decision")
        return legal_actions[0]
"""


def test_the_harness_numbers_a_failure_as_the_arbiter_does(tmp_path):
    """The harness said "decision 4" (every seat's decisions counted) where `arbiter play`'s
    hint for the same crash said "--at 2" (the seat's own count, `arbiter replay --at`'s):
    it names the seat's own decision and the match's step, as `arbiter replay --at` shows
    them for the same match."""
    import re
    import shlex

    from tests.cli.badinput import run_in_process
    from tests.cli.test_reask_cli import invoke

    bot = tmp_path / "second.py"
    bot.write_text(CRASH_ON_SECOND)
    db = tmp_path / "arena.sqlite"
    proc = run_in_process("play", "spades", "random", str(bot), "random", "random", "--seed", "3", "-o", "deals=1",
                          "-o", "blind_nil=false", "--transport", "inproc", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if x.startswith("why, and what it answers there now: "))
    command = shlex.split(line.split("now: ", 1)[1])
    at = int(command[command.index("--at") + 1])
    assert at == 2, command
    shown = invoke(*command[1:command.index("--bot")]).output  # the decision as replay shows it: never played
    step = int(re.search(rf"decision {at} \(after step (\d+) of", shown)[1]) + 1  # the step its action was to be
    assert step > at + 1, shown  # other seats played between: the two counts differ
    with pytest.raises(HarnessError) as caught:
        play_match("spades", [load_bot("random"), load_bot(str(bot)), load_bot("random"), load_bot("random")], seed=3,
                   options={"deals": 1, "blind_nil": False})
    e = caught.value
    assert (e.seat, e.decision, e.step) == (1, at, step)
    assert str(e).startswith(f"seat 1 (second), its decision {at} (as arbiter replay --at counts), step {step} of the match: "), e
    assert "my second decision" in str(e)
