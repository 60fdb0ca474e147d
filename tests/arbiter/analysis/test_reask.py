"""Re-asking a recorded decision: the rebuilt view, legal actions and events are the ones
the seat had (checked against the engine stepped independently), a bot re-asked every
decision of a real match answers what it played there (its seed and its own state are
restored), and a bot that crashed or hung at a known decision shows its traceback / stack.

The matches are real: played with ``play_local`` (in process), kept with ``store_play``
in a real SQLite store and read back from it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arbiter.analysis.reask import decision_at, decisions, match_info, reask
from arbiter.store.db import Store
from arbiter.tournament.play import play_local, store_play
from cardarena.games import events_for, get_game
from cardarena.records import bot_seed_for

ZOO = Path(__file__).resolve().parents[2] / "e2e" / "zoo.py"

#: Every game, and variants that change who sees what (partnerships, blind nil off, three
#: players, a joker deck): each played briefly with random bots.
MATCHES = [
    ("spades", {"deals": 1}, 4),
    ("spades", {"deals": 1, "blind_nil": False, "nil": False}, 4),
    ("spite-and-malice", {"max_turns": 30}, 2),
    ("spite-and-malice", {"players": 4, "partnerships": True, "jokers": 2, "max_turns": 30}, 4),
    ("spot", {"players": 3, "hands": 1}, 3),
]


def stored(tmp_path, game, options, bots, seed=7, **kw):
    """A real match, kept in a real store, and its record as read back from it."""
    record = play_local(game, bots, seed=seed, options=options, transport="inproc", **kw)
    db = tmp_path / "arena.sqlite"
    store_play(db, record)
    with Store(db, read_only=True) as store:
        return store.match(record.match_id).record()


def engine_decisions(record, seat):
    """What the seat had at each of its decisions, from the engine stepped here: view,
    legal actions and the events it may see since its previous decision."""
    game = get_game(record.game, record.options)
    state = game.new_initial_state(record.seed)
    held = list(events_for(state.log, seat))
    out = []
    for ra in record.actions + [None]:
        if state.current_seat == seat and not state.is_terminal:
            out.append((state.view(seat), tuple(state.legal_actions()), tuple(held)))
            held = []
        if ra is None:
            break
        held.extend(events_for(state.apply(game.parse_action(ra.action)), seat))
    return out


@pytest.mark.parametrize("game,options,n", MATCHES, ids=[f"{g}-{i}" for i, (g, _, _) in enumerate(MATCHES)])
def test_rebuilt_decisions_are_what_the_seat_had(tmp_path, game, options, n):
    record = stored(tmp_path, game, options, ["random"] * n)
    for seat in range(n):
        rebuilt = list(decisions(record, seat))
        expected = engine_decisions(record, seat)
        assert len(rebuilt) == len(expected) > 0
        for point, (view, legal, events) in zip(rebuilt, expected):
            assert point.view == view
            assert point.legal == legal
            assert point.events == events
            assert point.played == record.actions[point.step].action
            assert record.actions[point.step].seat == seat
    info = match_info(record, 1)
    assert (info.match_id, info.seat, info.seed, info.seat_names) == (
        record.match_id, 1, bot_seed_for(record.seed, 1), record.seat_names)


@pytest.mark.parametrize("game,options,n", MATCHES[::2], ids=["spades", "spite-and-malice", "spot"])
def test_random_reasked_chooses_what_it_played(tmp_path, game, options, n):
    """``random`` draws from its own seeded rng: re-asked decision K, it chooses what it
    played only if the bot seed, the view, the legal actions and every earlier draw (its
    earlier decisions, replayed) are what they were."""
    record = stored(tmp_path, game, options, ["random"] * n)
    points = list(decisions(record, 0))
    for k in sorted({1, 2, len(points) // 2, len(points)}):
        answer = reask(record, 0, k, "random")
        assert answer.legal and answer.same, (k, answer.chosen, answer.point.played)


def test_a_crash_at_a_known_decision_shows_the_traceback_in_full(tmp_path):
    """RaiseInChoose raises at its 3rd decision (tests/e2e/zoo.py BAD); under the forfeit
    policy the match ends there, with no action played."""
    bot = f"{ZOO}:RaiseInChoose"
    record = stored(tmp_path, "spite-and-malice", {"max_turns": 30}, [bot, "random"])
    assert record.outcome.reason.value == "forfeit_crash"
    points = list(decisions(record, 0))
    assert [p.number for p in points] == [1, 2, 3] and points[-1].played is None
    answer = reask(record, 0, 3, bot)
    assert answer.decision is not None and not answer.chosen
    assert answer.decision.failure.startswith("choose raised RuntimeError: boom in choose")
    assert answer.stderr.startswith("Traceback (most recent call last):")
    assert 'raise RuntimeError("boom in choose")' in answer.stderr and "zoo.py" in answer.stderr
    before = reask(record, 0, 2, bot)  # the decision before: it answers what it played
    assert before.same and not before.stderr


def test_events_are_delivered_as_the_driver_delivered_them(tmp_path):
    """RaiseInEvents raises in its 3rd ``on_events`` delivery: re-asked, the failure
    comes at the same decision only if the events are held and delivered as in the match
    (one delivery per decision)."""
    bot = f"{ZOO}:RaiseInEvents"
    record = stored(tmp_path, "spades", {"deals": 1}, [bot, "random", "random", "random"])
    assert record.incidents and record.incidents[0].seat == 0
    last, _ = decision_at(record, 0, len(list(decisions(record, 0))))
    assert last.played is None  # the match ended at this decision
    answer = reask(record, 0, last.number, bot)
    assert answer.decision is not None and answer.decision.failure.startswith("on_events raised ValueError")
    assert "boom in on_events" in answer.stderr


def test_a_bot_that_hangs_is_reported_with_where_it_was(tmp_path):
    """SleepPastClock sleeps 2.7 s at its 3rd decision: with a 0.3 s limit the re-ask
    reports a timeout and the stack of the sleep, instead of waiting."""
    bot = f"{ZOO}:SleepPastClock"
    record = stored(tmp_path, "spite-and-malice", {"max_turns": 30}, ["random", "random"])
    answer = reask(record, 0, 3, bot, timeout=0.3)
    assert answer.timed_out and answer.decision is None
    assert "time.sleep" in answer.stack and "zoo.py" in answer.stack


def test_a_decision_the_seat_did_not_have_is_named(tmp_path):
    record = stored(tmp_path, "spot", {"players": 3, "hands": 1}, ["random"] * 3)
    n = len(list(decisions(record, 2)))
    with pytest.raises(ValueError, match=f"seat 2 had {n} decisions"):
        decision_at(record, 2, n + 1)
    with pytest.raises(ValueError, match="counted from 1"):
        decision_at(record, 2, 0)
    with pytest.raises(ValueError, match="seats 0 to 2"):
        list(decisions(record, 3))


def test_an_illegal_answer_says_why_as_the_harness_does(tmp_path):
    """Re-asked, an illegal answer was "NOT a legal action here" and no more, where the
    harness and the self-test give the engine's reason: ``arbiter replay --bot`` is the
    author's own tool too. The line "it answered the text ..." showed for an action
    object as well (its notation, as chosen): it shows only a text read otherwise."""
    from arbiter.cli.replay import render_answer
    from rich.console import Console

    bot = f"{ZOO}:ReturnIllegal"
    record = stored(tmp_path, "spades", {"deals": 1}, [bot, "random", "random", "random"])
    last = len(list(decisions(record, 0)))
    answer = reask(record, 0, last, bot)
    assert answer.chosen and not answer.legal
    game = get_game(record.game, record.options)
    state = game.new_initial_state(record.seed)
    for ra in record.actions[:answer.point.step]:
        state.apply(game.parse_action(ra.action))
    assert answer.why and answer.why == state.illegal_reason(game.parse_action(answer.chosen))
    console = Console(width=200, record=True)
    console.print(render_answer(answer))
    text = console.export_text()
    assert f"NOT a legal action here ({answer.why.removeprefix(answer.chosen + ': ')})" in text, text
    assert "answered the text" not in text, text
