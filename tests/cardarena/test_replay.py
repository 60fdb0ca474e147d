"""Replays: every game's records step through the engine and reach their recorded result;
a changed action, seat, seed or result is caught with a message naming what is wrong."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arbiter.cli import app
from cardarena.games import EndReason, get_game
from arbiter.hosting.inprocess import InProcessSeat
from cardarena.records import RECORD_FORMAT, MatchConfig, MatchRecord, NewerRecordFormat, RecordedAction
from cardarena.replay import ReplayError
from arbiter.match import run_match
from arbiter.present.boards import board
from cardarena.replay import replay_steps, step_record, verify_record
from arbiter.store.db import Store
from sdk import Bot
from sdk.loading import load_bot

# (game, seats, options): short but complete matches of each game.
GAMES = [
    ("spades", 4, {"deals": 2}),
    ("spite-and-malice", 2, {}),
    ("spot", 4, {"hands": 2}),
]


def play(game: str, n: int, options: dict, seed: int = 11) -> MatchRecord:
    seats = [InProcessSeat(load_bot("heuristic" if i % 2 == 0 else "random"), f"bot{i}") for i in range(n)]
    return asyncio.run(run_match(MatchConfig(game=game, seed=seed, options=options), seats))


@pytest.fixture(scope="module", params=GAMES, ids=[g[0] for g in GAMES])
def record(request) -> MatchRecord:
    game, n, options = request.param
    rec = play(game, n, options)
    assert rec.outcome is not None and not rec.outcome.reason.name.startswith("FORFEIT")
    return rec


def test_replay_verifies_and_reaches_the_recorded_result(record):
    assert verify_record(record) == record.outcome
    steps = replay_steps(record)
    assert [s.index for s in steps] == list(range(len(record.actions) + 1))
    assert steps[-1].outcome == record.outcome and all(s.outcome is None for s in steps[:-1])
    assert [s.action for s in replay_steps(record, full=True)[1:]] == [a.action for a in record.actions]
    game = get_game(record.game, record.options)  # a spectator reads each action's public text
    assert [s.action for s in steps[1:]] == [game.action_text(game.parse_action(a.action), a.seat, None)
                                             for a in record.actions]
    assert steps[-1].to_act is None and steps[0].to_act == record.actions[0].seat
    # the record survives its JSON form and still verifies
    assert verify_record(MatchRecord.from_json(record.to_json())) == record.outcome


def test_each_viewpoint_sees_only_what_it_may(record):
    game = get_game(record.game, record.options)
    spectator = replay_steps(record)
    for s in spectator[:-1]:
        assert not s.view.hand, f"step {s.index}: a spectator view holds a hand"
        assert not s.seat_views
        assert all(e.visible_to is None for e in s.events)
    seat = game.num_seats - 1
    mine = replay_steps(record, seat=seat)
    assert all(s.view.seat == seat for s in mine)
    assert any(s.view.hand for s in mine), "the seat never saw its own hand"
    for s in mine:
        assert all(e.visible_for(seat) for e in s.events)
    full = replay_steps(record, full=True)
    assert all(len(s.seat_views) == game.num_seats for s in full)
    # full view: every seat's hand, as that seat saw it, and a hand it had not looked at yet
    # (Spades before `look`) shown too (issue 44): the view is the seat's but for that hand
    for s, f in zip(mine, full):
        shown = f.seat_views[seat]
        if getattr(s.view, "hand_visible", True):
            assert shown == s.view
        else:
            assert shown.hand_visible and len(shown.hand) == 13 and not s.view.hand
            assert {k: v for k, v in vars(shown).items() if k not in ("hand", "hand_visible")} == \
                {k: v for k, v in vars(s.view).items() if k not in ("hand", "hand_visible")}
    # the board shows the viewpoint's own hand and counts the others face down
    first = next(s for s in mine if s.view.hand)
    rows = board(record.game, first.view, record.seat_names)
    assert any(r.cards == tuple(first.view.hand) for r in rows)
    assert any(r.face_down for r in rows)


def test_unknown_seat_is_refused(record):
    with pytest.raises(ValueError, match="has seats 0 to"):
        list(step_record(record, seat=9))


def _tampered(record: MatchRecord, **kw) -> MatchRecord:
    return dataclasses.replace(record, actions=list(record.actions), **kw)


def test_changed_action_to_an_illegal_one_is_named(record):
    game = get_game(record.game, record.options)
    state = game.new_initial_state(record.seed)
    # find a step where some action of the game is NOT legal, and record that one instead
    for i, ra in enumerate(record.actions):
        legal = {str(a) for a in state.legal_actions()}
        other = next((str(a) for a in _candidates(game, state, record) if str(a) not in legal), None)
        if other is not None and i > 2:
            break
        state.apply(game.parse_action(ra.action))
    bad = _tampered(record)
    bad.actions[i] = dataclasses.replace(bad.actions[i], action=other)
    with pytest.raises(ReplayError) as e:
        verify_record(bad)
    msg = str(e.value)
    assert f"step {i + 1} of {len(record.actions)}" in msg and repr(other) in msg and "not legal" in msg
    assert "altered" in msg
    # stepping shows the steps that verified before failing
    seen = []
    with pytest.raises(ReplayError):
        for s in step_record(bad):
            seen.append(s.index)
    assert seen == list(range(i + 1))


def _candidates(game, state, record):
    """Well-formed actions of this game: the ones played anywhere in the record."""
    return [game.parse_action(text) for text in dict.fromkeys(a.action for a in record.actions)]


def test_changed_action_to_another_legal_one_is_caught(record):
    """Swap one decision for a different legal one: a later step or the result no longer fits."""
    game = get_game(record.game, record.options)
    state = game.new_initial_state(record.seed)
    for i, ra in enumerate(record.actions):
        alternatives = [str(a) for a in state.legal_actions() if str(a) != ra.action]
        if alternatives and i > len(record.actions) // 3:
            break
        state.apply(game.parse_action(ra.action))
    bad = _tampered(record)
    bad.actions[i] = dataclasses.replace(bad.actions[i], action=alternatives[-1])
    with pytest.raises(ReplayError) as e:
        verify_record(bad)
    assert "altered" in str(e.value) or "missing" in str(e.value) or "extra" in str(e.value) or "turn" in str(e.value)


def test_changed_seed_is_caught(record):
    bad = _tampered(record, seed=record.seed + 1)
    with pytest.raises(ReplayError) as e:
        verify_record(bad)
    msg = str(e.value)
    assert "seed" in msg and str(record.seed + 1) in msg


def test_changed_seat_result_and_length_are_caught(record):
    bad = _tampered(record)
    ra = bad.actions[3]
    bad.actions[3] = RecordedAction((ra.seat + 1) % len(record.seat_names), ra.action, ra.ms)
    with pytest.raises(ReplayError, match=r"step 4 .*recorded for seat .* but it is seat \d's turn"):
        verify_record(bad)
    assert record.outcome is not None
    scores = tuple(s + 1 for s in record.outcome.scores)
    with pytest.raises(ReplayError, match="the record says scores"):
        verify_record(_tampered(record, outcome=dataclasses.replace(record.outcome, scores=scores)))
    with pytest.raises(ReplayError, match="do not finish the game"):
        verify_record(dataclasses.replace(record, actions=record.actions[:-1]))
    extra = _tampered(record)
    extra.actions.append(record.actions[-1])
    with pytest.raises(ReplayError, match="already over"):
        verify_record(extra)


# --------------------------------------------------------------------------------------
# The command line.


#: The command line's matches: one deal (hand) each, and Spite and Malice to a pay-off pile
#: of 4 (37 steps; 95 at 5, 149 at the default: the same kinds of events, a recycled pile
#: and pay-off cards turned up included, and the same kinds of plays). Rendering every step
#: is most of what ``--step`` and ``--all`` cost, and the longer records above add only more
#: steps of the same kinds (the steps themselves are checked on them by the tests above).
CLI_GAMES = [("spades", 4, {"deals": 1}), ("spite-and-malice", 2, {"payoff_size": 4}), ("spot", 4, {"hands": 1})]


@pytest.fixture(params=CLI_GAMES, ids=[g[0] for g in CLI_GAMES])
def cli_record(request) -> MatchRecord:
    game, n, options = request.param
    rec = play(game, n, options)
    assert rec.outcome is not None and not rec.outcome.reason.name.startswith("FORFEIT")
    return rec


def test_cli_steps_a_stored_match_and_rejects_a_tampered_file(cli_record, tmp_path):
    record = cli_record
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        # no duplicate deals: its matches may be replayed while it runs (cardarena.disclosure)
        t = store.open_tournament("t", record.game, {"bots": list(record.seat_names), "duplicate": False})
        store.save_match(t.id, 0, 0, 0, record)
    runner = CliRunner()
    res = runner.invoke(app, ["replay", record.match_id, "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "replay verified" in res.output and f"{len(record.actions)} actions from seed {record.seed}" in res.output
    res = runner.invoke(app, ["replay", record.match_id, "--db", str(db), "--step", "--seat", "1"])  # stdin is no tty
    assert res.exit_code == 0, res.output
    assert f"step {len(record.actions)} of {len(record.actions)}" in res.output and "seen as: seat 1" in res.output
    res = runner.invoke(app, ["replay", record.match_id, "--db", str(db), "--all", "--full"])
    assert res.exit_code == 0 and "every hand" in res.output

    bad = json.loads(record.to_json())
    bad["seed"] += 7
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    res = runner.invoke(app, ["replay", str(path)])
    assert res.exit_code == 1 and "replay failed" in res.output and str(bad["seed"]) in res.output
    res = runner.invoke(app, ["replay", str(path), "--all"])
    assert res.exit_code == 1 and "replay failed" in res.output and "step 0 of" in res.output
    res = runner.invoke(app, ["replay", record.match_id, "--db", str(db), "--seat", "1", "--full"])
    assert res.exit_code == 2 and "pick one" in res.output
    res = runner.invoke(app, ["replay", record.match_id, "--db", str(db), "--seat", "7", "--all"])
    assert res.exit_code == 2 and "seat 7" in res.output
    res = runner.invoke(app, ["replay", "nosuchmatch", "--db", str(db)])
    assert res.exit_code == 2 and "no match 'nosuchmatch'" in res.output


# --------------------------------------------------------------------------------------
# Private parts of actions: a blind-nil give, as each viewpoint reads it.


@pytest.fixture(scope="module")
def blind_nil_record():
    from sdk.harness import play_match
    from tests.e2e.blindnil_bot import BlindNilBot

    bots = [BlindNilBot(), BlindNilBot(), load_bot("random"), load_bot("random")]  # one bidder per side
    rec = play_match("spades", bots, seed=5, options={"deals": 2})
    assert any(a.action.startswith("give ") for a in rec.actions), "no exchange: the tests below prove nothing"
    return rec


def _gives(rec: MatchRecord) -> list[tuple[int, int, str]]:
    return [(i, a.seat, a.action) for i, a in enumerate(rec.actions, 1) if a.action.startswith("give ")]


def test_a_give_names_its_cards_only_to_the_giver_and_its_partner_and_in_full_mode(blind_nil_record):
    rec = blind_nil_record
    for viewer in (None, 0, 1, 2, 3):
        steps = {s.index: s for s in step_record(rec, viewer)}
        for i, giver, full in _gives(rec):
            shown = steps[i].action
            if viewer is not None and viewer in (giver, (giver + 2) % 4):
                assert shown == full
            else:
                assert shown == "give two cards", (viewer, giver, shown)
    full_steps = {s.index: s for s in step_record(rec, None, full=True)}
    assert all(full_steps[i].action == a for i, _, a in _gives(rec))


def test_cli_and_web_replays_from_another_seat_withhold_the_given_cards(blind_nil_record, tmp_path):
    from arbiter.present.web import replay_page

    rec = blind_nil_record
    i, giver, full = _gives(rec)[0]
    other = (giver + 1) % 4  # an opponent of the giver
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        t = store.open_tournament("t", rec.game, {"bots": list(rec.seat_names), "duplicate": False})
        store.save_match(t.id, 0, 0, 0, rec)
    res = CliRunner().invoke(app, ["replay", rec.match_id, "--db", str(db), "--all", "--seat", str(other)])
    assert res.exit_code == 0, res.output
    assert full not in res.output and "give two cards" in res.output
    with Store(db, read_only=True) as store:
        page = replay_page(store, rec.match_id, {"step": [str(i)], "view": [f"seat{other}"]})
        assert full not in page and "give two cards" in page
        page = replay_page(store, rec.match_id, {"step": [str(i)], "view": ["full"]})
        assert full in page


def test_a_one_deal_spades_result_reads_in_english_and_older_wordings_still_verify():
    """Issue 44 item 9: the result said "after 1 deals" (on the tournament page, the replay,
    `arbiter watch`). A record stored with the old sentence still verifies: the result is
    its scores, ranks and reason; a changed score is still caught."""
    rec = play("spades", 4, {"deals": 1}, seed=5)
    assert rec.outcome.detail.endswith("after 1 deal") and "1 deals" not in rec.outcome.detail, rec.outcome.detail
    assert play("spades", 4, {"deals": 2}, seed=5).outcome.detail.endswith("after 2 deals")
    old = dataclasses.replace(rec, outcome=dataclasses.replace(rec.outcome, detail=rec.outcome.detail + "s"))
    assert verify_record(old) == old.outcome
    scores = list(rec.outcome.scores)
    scores[0] += 10
    with pytest.raises(ReplayError, match="altered"):
        verify_record(dataclasses.replace(rec, outcome=dataclasses.replace(rec.outcome, scores=tuple(scores))))


#: Records stored before the views carried Spite and Malice's first-player turn-ups and
#: Spot's layoffs (made at commit f05c8b6b by ``play``: a match whose first player was
#: chosen after a tie; a hand with layoffs).
OLD_RECORDS = Path(__file__).parent / "data"


@pytest.mark.parametrize(("name", "field"), [("spite-and-malice", "first_player_turn_ups"), ("spot", "layoffs")])
def test_a_record_stored_before_the_views_showed_more_still_verifies_and_its_replay_shows_it(name, field):
    rec = MatchRecord.from_json((OLD_RECORDS / f"{name}-f05c8b6b.json").read_text())
    assert verify_record(rec) == rec.outcome
    n = get_game(rec.game, rec.options).num_seats
    viewpoints = [replay_steps(rec, seat=s) for s in range(n)] + [replay_steps(rec), replay_steps(rec, full=True)]
    for steps in zip(*viewpoints):  # public: the same to every viewpoint, at every step
        assert len({getattr(step.view, field) for step in steps}) == 1
    shown = [getattr(step.view, field) for step in viewpoints[-2]]
    if name == "spite-and-malice":
        assert shown[0][-1].round == 1 and len(set(shown)) == 1  # a tie, then the choice; kept all game
    else:
        assert len(shown[-1]) >= 2 and shown[0] == ()


# --------------------------------------------------------------------------------------
# A record file edited by hand: wrong types are named, never a traceback.


@pytest.fixture(scope="module")
def record_json() -> str:
    return play("spades", 4, {"deals": 1}).to_json()


@pytest.mark.parametrize("field,value", [
    ("match_id", None), ("match_id", 7), ("game", ["spades"]), ("game", {}), ("seat_names", [1, 2, 3, 4]),
    ("seat_names", "abcd"), ("seed", 5.7), ("seed", True), ("seed", "12"), ("started", "x"), ("venue", 3),
])
def test_a_record_field_of_the_wrong_type_is_named(record_json, field, value):
    data = json.loads(record_json)
    data[field] = value
    with pytest.raises(ValueError, match=f"corrupt match record: {field}: expected"):
        MatchRecord.from_json(json.dumps(data))


@pytest.mark.parametrize("where,value", [
    (("actions", 0, "ms"), "x"), (("actions", 0, "forced"), 1), (("actions", 0, "note"), []),
    (("actions", 0, "bot_us"), "1"), (("incidents",), [{"seat": "0", "kind": "crash", "detail": "x"}]),
    (("outcome", "scores"), "12"), (("outcome", "ranks"), [1.5, 1, 2, 2]), (("outcome", "detail"), None),
])
def test_a_nested_field_of_the_wrong_type_is_named(record_json, where, value):
    data = json.loads(record_json)
    *path, last = where
    target = data
    for key in path:
        target = target[key]
    target[last] = value
    with pytest.raises(ValueError, match="corrupt match record: .*expected"):
        MatchRecord.from_json(json.dumps(data))


@pytest.mark.parametrize("where,said", [
    (("seed",), "seed: missing"), (("actions",), "actions: missing"), (("seat_names",), "seat_names: missing"),
    (("actions", 0, "ms"), "action 1: ms: missing"), (("actions", 0, "seat"), "action 1: seat: missing"),
    (("outcome", "reason"), "outcome.reason: missing"), (("outcome", "detail"), "outcome.detail: missing"),
])
def test_a_missing_field_is_named(record_json, where, said):
    """A field left out read 'corrupt match record: KeyError('seed')', or for an action a
    dataclass's "RecordedAction.__init__() missing 1 required positional argument"."""
    data = json.loads(record_json)
    *path, last = where
    target = data
    for key in path:
        target = target[key]
    del target[last]
    with pytest.raises(ValueError) as e:
        MatchRecord.from_json(json.dumps(data))
    assert str(e.value) == f"corrupt match record: {said}"


def test_a_record_says_its_format_and_one_of_a_later_format_is_refused_as_such(record_json):
    """Records had no format version: a later arbiter's record whose fields changed meaning would
    have been misread, or called corrupt. A record says its format; one without it (stored before
    7 December 2026) is format 1; one of a later format is refused saying so, not as corrupt."""
    data = json.loads(record_json)
    assert data["format"] == RECORD_FORMAT == 2
    old = dict(data)
    del old["format"]
    read = MatchRecord.from_json(json.dumps(old))
    assert read.format == 1 and dataclasses.replace(read, format=2) == MatchRecord.from_json(record_json)
    assert json.loads(read.to_json())["format"] == 1  # written again, it keeps its format (and its rules)
    with pytest.raises(NewerRecordFormat, match=r"^match record of format 3: this arbiter reads formats 1 to 2; a newer "
                                                r"arbiter wrote it \(upgrade card-arena to read it\)$"):
        MatchRecord.from_json(json.dumps({**data, "format": 3}))
    for bad, said in ((0, "format: expected a record format from 1, got 0"), ("1", 'format: expected a whole number'),
                      (True, "format: expected a whole number")):
        with pytest.raises(ValueError, match=f"^corrupt match record: {said}"):
            MatchRecord.from_json(json.dumps({**data, "format": bad}))


def test_the_readme_says_the_format_records_are_written_in():
    """The README said a record's `format` is 1 while records were written with format 2
    (``RECORD_FORMAT``): it says the format written now."""
    from tests.conftest import ROOT

    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"A record says its `format` ({RECORD_FORMAT}, `cardarena.records.RECORD_FORMAT`" in readme


def test_a_record_that_is_not_json_or_nested_deep_or_of_no_end_reason_is_said_so(record_json):
    """Text past the JSON parser's recursion ('[[[[...', 100,000 deep) ended in a RecursionError
    traceback; what is not JSON was shown as the exception's repr; an unknown end reason as
    "'bogus' is not a valid EndReason"."""
    for text in ("[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000):
        with pytest.raises(ValueError, match="^corrupt match record: its JSON is nested too deeply to be one$"):
            MatchRecord.from_json(text)
    with pytest.raises(ValueError, match=r"^corrupt match record: not JSON: Expecting value: line 1 column 1 \(char 0\)$"):
        MatchRecord.from_json("")
    data = json.loads(record_json)
    data["outcome"]["reason"] = "bogus"
    with pytest.raises(ValueError, match=r'^corrupt match record: outcome.reason: "bogus" is no end reason \(they are completed, '):
        MatchRecord.from_json(json.dumps(data))


def test_a_deeply_nested_record_file_is_refused_in_one_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    res = CliRunner().invoke(app, ["replay", str(path)])
    assert res.exit_code == 2, res.exception
    assert f"{path} is not a match record (corrupt match record: its JSON is nested too deeply to be one)" in " ".join(res.output.split())


def test_a_record_naming_fewer_seats_than_its_game_has_does_not_verify(cli_record):
    bad = dataclasses.replace(cli_record, seat_names=cli_record.seat_names[:-1])
    with pytest.raises(ReplayError, match=r"names \d seats, but .* has \d"):
        verify_record(bad)
    with pytest.raises(ReplayError, match=r"names \d seats"):
        list(step_record(bad, None, True))


def test_the_record_is_not_written_over_a_store(cli_record, tmp_path):
    """``--json -o`` naming the store itself (or another) would replace every match in it
    with one record: refused, the store left as it was."""
    db = tmp_path / "arena.sqlite"
    with Store(db) as store:
        t = store.open_tournament("t", cli_record.game, {"bots": list(cli_record.seat_names), "duplicate": False})
        store.save_match(t.id, 0, 0, 0, cli_record)
    before = db.read_bytes()
    res = CliRunner().invoke(app, ["replay", cli_record.match_id, "--db", str(db), "--json", "-o", str(db)])
    assert res.exit_code == 2 and "is a store (SQLite)" in res.output, res.output
    assert db.read_bytes() == before


def test_a_record_file_with_markup_for_its_game_is_stepped_as_text(tmp_path):
    """The heading of ``--all`` names the game before the engine has read it: a game of
    '[/]' (rich's closing tag) crashed the heading with a MarkupError; it is text, and the
    replay says the game is unknown."""
    data = json.loads(play("spades", 4, {"deals": 1}).to_json())
    data["game"] = "[/]"
    path = tmp_path / "markup.json"
    path.write_text(json.dumps(data))
    res = CliRunner().invoke(app, ["replay", str(path), "--all"])
    assert res.exit_code == 1 and "unknown game '[/]'" in res.output, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception


# --------------------------------------------------------------------------------------
# Forfeits: the result is the arbiter's, not the engine's, and is checked all the same.


class _IllegalAtThird(Bot):
    """Plays its first legal action, but answers its third decision with nonsense: a forfeit."""

    name = "illegal"

    def on_match_start(self, info):
        self.asked = 0

    def choose(self, view, legal_actions):
        self.asked += 1
        return "nonsense" if self.asked == 3 else legal_actions[0]


@pytest.fixture(scope="module", params=CLI_GAMES, ids=[g[0] for g in CLI_GAMES])
def forfeit_record(request) -> MatchRecord:
    game, n, options = request.param
    seats = [InProcessSeat(_IllegalAtThird() if i == 1 else load_bot("random"), f"bot{i}") for i in range(n)]
    rec = asyncio.run(run_match(MatchConfig(game=game, seed=5, options=options), seats))
    assert rec.outcome is not None and rec.outcome.reason is EndReason.FORFEIT_ILLEGAL
    return rec


def test_a_forfeits_result_is_checked_against_the_failure_that_ended_it(forfeit_record):
    """The forfeit's ranks, scores and reason were never checked: a record whose ranks were
    swapped (the forfeiting side first) 'reproduced the recorded result'."""
    rec = forfeit_record
    assert verify_record(rec) == rec.outcome
    assert verify_record(MatchRecord.from_json(rec.to_json())) == rec.outcome
    o = rec.outcome
    winner = min(o.ranks)
    swapped = tuple(winner if r != winner else max(o.ranks) for r in o.ranks)
    with pytest.raises(ReplayError, match=r"seat 1's forfeit \(forfeit_illegal\) gives .* ranks .*: the result was altered"):
        verify_record(dataclasses.replace(rec, outcome=dataclasses.replace(o, ranks=swapped)))
    with pytest.raises(ReplayError, match="the result was altered"):
        verify_record(dataclasses.replace(rec, outcome=dataclasses.replace(o, ranks=tuple(1 for _ in o.ranks))))
    with pytest.raises(ReplayError, match="the result was altered"):
        verify_record(dataclasses.replace(rec, outcome=dataclasses.replace(o, scores=(50.0,) + o.scores[1:])))
    with pytest.raises(ReplayError, match=r"ended by forfeit_timeout, but its last incident, seat 1's 'malformed', "
                                          r"forfeits by forfeit_illegal"):
        verify_record(dataclasses.replace(rec, outcome=dataclasses.replace(o, reason=EndReason.FORFEIT_TIMEOUT)))
    with pytest.raises(ReplayError, match="records no incident"):
        verify_record(dataclasses.replace(rec, incidents=[]))
    blamed = [dataclasses.replace(rec.incidents[-1], seat=0)]  # the other side blamed, the ranks left
    with pytest.raises(ReplayError, match="seat 0's malformed answer ended the match, but .* it is seat 1's turn"):
        verify_record(dataclasses.replace(rec, incidents=blamed))
    # the forfeit moved to before another seat's action: cut where the seat to act is not seat 1
    k = max(i for i, a in enumerate(rec.actions) if a.seat != 1)
    with pytest.raises(ReplayError, match=rf"seat 1's malformed answer ended the match, but after its "
                                          rf"{k} actions it is seat {rec.actions[k].seat}'s turn: actions were cut"):
        verify_record(dataclasses.replace(rec, actions=rec.actions[:k]))
    nobody = [dataclasses.replace(rec.incidents[-1], seat=9)]
    with pytest.raises(ReplayError, match=r"incident \d+ of \d+ names seat 9, but"):
        verify_record(dataclasses.replace(rec, incidents=nobody))


def test_a_huge_recorded_action_is_cut_where_the_replay_names_it(cli_record):
    """A hand-edited action of 100,000 characters was echoed whole, three times over, in the
    one line that says the replay failed."""
    bad = _tampered(cli_record)
    bad.actions[0] = dataclasses.replace(bad.actions[0], action="x" * 100_000)
    with pytest.raises(ReplayError) as e:
        verify_record(bad)
    msg = str(e.value)
    assert msg.startswith(f"step 1 of {len(bad.actions)}: seat {bad.actions[0].seat} 'xxx") and len(msg) < 600, msg[:700]
    assert "more characters" in msg


def test_steps_shown_before_a_failure_keep_the_viewpoint_asked_for(cli_record):
    """--step on a record that fails printed the steps that verified as a spectator's: a
    seat's own notes, shown to --seat N and --full, were left out of them."""
    from arbiter.cli import replay as replay_cli

    bad = _tampered(cli_record)
    seat = bad.actions[0].seat
    bad.actions[0] = dataclasses.replace(bad.actions[0], note="my own plan")
    bad.actions[2] = dataclasses.replace(bad.actions[2], action="x")
    for viewer, full in ((seat, False), (None, True)):
        with replay_cli.out.capture() as shown, pytest.raises(ReplayError):
            replay_cli.list_until_error(step_record(bad, viewer, full), bad, viewer, full)
        assert "note: my own plan" in shown.get()
    with replay_cli.out.capture() as shown, pytest.raises(ReplayError):  # a spectator does not read it
        replay_cli.list_until_error(step_record(bad, None), bad)
    assert "my own plan" not in shown.get()


def test_an_incident_of_no_seat_or_no_failure_does_not_verify(cli_record):
    """An incident is part of what the match was (``content``), shown by the web page and
    counted by the standings, yet one naming seat 9 of a four-seat game, or a kind the arbiter
    never records, verified."""
    from cardarena.records import Incident

    with pytest.raises(ReplayError, match=r"^incident 1 of 1 names seat 9, but .* has seats 0 to \d: the record was altered"):
        verify_record(dataclasses.replace(cli_record, incidents=[Incident(9, "crash", "x")]))
    with pytest.raises(ReplayError, match=r"^incident 2 of 2 names 'cheat', which is no failure \(they are timeout, "):
        verify_record(dataclasses.replace(cli_record, incidents=[Incident(0, "timeout", "x"), Incident(1, "cheat", "x")]))
    ok = dataclasses.replace(cli_record, incidents=[Incident(1, "timeout", "x (strike 1 of 3 allowed)")])
    assert verify_record(ok) == cli_record.outcome  # a tolerated failure, in a match played to its end
