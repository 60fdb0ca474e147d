"""Bad input over a real socket: every bad answer gets a clear error or the configured
policy, the match stays intact, and the arbiter keeps serving."""

from __future__ import annotations

import time

import grpc
import pytest

from cardarena.wire import codec as convert
from cardarena.games import EndReason
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from tests.e2e.rawbot import RawBot, act

#: One `arbiter serve` for the module (one xdist group: it starts once a run), and the three
#: random bots that share a raw bot's table (processes, started by the first test that needs
#: them: they were most of each test's CPU). Each test's raw bot has a name of its own (the
#: earlier tests' bots stay connected); that the server, and the random bots, keep serving
#: after each bad input is then checked by every later test as well.
pytestmark = pytest.mark.xdist_group("bad_input")


@pytest.fixture(scope="module")
def serve(module_serve):
    return module_serve  # (tests/conftest.py)

SPADES_CARDS = [r + s for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K") for s in "SHDC"]


def spades_play(card: str) -> pb.Action:
    a = pb.Action()
    a.spades.play.card = card
    return a


def run(serve, seats, seed=1, policy="forfeit", decision_ms=0, bank_ms=0, max_strikes=0, options=None):
    with grpc.insecure_channel(serve.address) as ch:
        summary = pb_grpc.MatchesStub(ch).RunMatch(
            pb.RunMatchRequest(
                game="spades", seats=seats, seed=seed, options=options or {"deals": "1"}, policy=policy,
                max_strikes=max_strikes, clock=pb.Clock(decision_ms=decision_ms, bank_ms=bank_ms),
                admin_token=serve.admin_token,
            ),
            timeout=120,
        )
    return summary, convert.outcome_from_proto(summary.outcome)


#: The module's random bots, seats 1 to 3 of every table a raw bot sits at.
OTHERS = ["random-1", "random-2", "random-3"]


def with_others(serve, raw: RawBot):
    """``raw`` (a test's own name: the server is shared) and the module's random bots."""
    if not serve.bots:
        for n in OTHERS:
            serve.start_bot("random", n)
    raw.start()
    serve.wait_sessions([raw.name, *OTHERS])
    return [raw.name, *OTHERS]


def illegal_card(turn: pb.Turn) -> str:
    """A card that is a syntactically fine action but not legal now."""
    legal = {a.notation for a in turn.legal_actions}
    return next(c for c in SPADES_CARDS if f"play {c}" not in legal)


def test_first_message_must_be_hello(serve):
    bot = RawBot(serve, "x", hello=pb.BotMessage(act=pb.Act(match_id="m", request_id=1))).start()
    assert bot.done.wait(10)
    assert [e.code for e in bot.of_kind("error")] == ["protocol"]
    assert "Hello" in bot.of_kind("error")[0].message


def test_bad_name_and_protocol_version_are_refused(serve):
    bot = RawBot(serve, "x", hello=pb.BotMessage(hello=pb.Hello(bot_name="bad name!", protocol_version=1))).start()
    assert bot.done.wait(10)
    assert bot.of_kind("error")[0].code == "protocol" and "bad bot name" in bot.of_kind("error")[0].message
    for version in (99, 2, 0):  # only the version the proto names; 0 (unset) is not 1
        token = serve.bot_token("ok")
        bot = RawBot(serve, "x", hello=pb.BotMessage(hello=pb.Hello(bot_name="ok", token=token, protocol_version=version))).start()
        assert bot.done.wait(10)
        error = bot.of_kind("error")[0]
        assert error.code == "version" and f"protocol version {version}" in error.message and not bot.of_kind("welcome")


def test_acts_out_of_turn_and_for_other_requests_are_rejected_and_the_match_completes(serve):
    def respond(turn):
        # guesses at other requests (other seats', future, past), another match, then the real answer
        junk = [act(turn, turn.legal_actions[0], request_id=max(0, turn.request_id + d)) for d in (-3, -1, 1, 2, 1000)]
        junk.append(act(turn, turn.legal_actions[0], match_id="someone-elses-match"))
        return junk + [act(turn, turn.legal_actions[0])]

    raw = RawBot(serve, "out-of-turn", respond=respond)
    seats = with_others(serve, raw)
    summary, outcome = run(serve, seats)
    assert outcome.reason is EndReason.COMPLETED
    assert list(summary.incidents) == []
    raw.wait_for("match_end")
    errors = raw.of_kind("error")
    assert errors and {e.code for e in errors} == {"unknown_request"}
    assert all("no pending request" in e.message for e in errors)
    turns = raw.of_kind("turn")
    assert len(errors) >= 6 * len(turns) - 3  # the last turn's junk may arrive after the match ended
    # the arbiter is still serving: another match on the same sessions
    summary2, outcome2 = run(serve, seats, seed=2)
    assert outcome2.reason is EndReason.COMPLETED


def test_illegal_action_forfeits_with_a_clear_error(serve):
    raw = RawBot(serve, "illegal", respond=lambda turn: [act(turn, spades_play(illegal_card(turn)))])
    seats = with_others(serve, raw)
    summary, outcome = run(serve, seats)
    assert outcome.reason is EndReason.FORFEIT_ILLEGAL
    assert outcome.ranks == (2, 1, 2, 1)  # seat 0's side loses
    [err] = raw.wait_for("error")
    assert err.code == "illegal" and "not a legal action" in err.message and "forfeits" in err.message
    assert raw.wait_for("match_end")[0].outcome.reason == pb.END_REASON_FORFEIT_ILLEGAL
    assert len(summary.incidents) == 1 and "seat 0" in summary.incidents[0]


def test_illegal_actions_under_the_default_policy_play_on_until_the_strikes_run_out(serve):
    raw = RawBot(serve, "strikes", respond=lambda turn: [act(turn, spades_play(illegal_card(turn)))])
    seats = with_others(serve, raw)
    summary, outcome = run(serve, seats, policy="default", max_strikes=100)
    assert outcome.reason is EndReason.COMPLETED  # the arbiter played the default action each time
    raw.wait_for("match_end")
    turns = raw.of_kind("turn")
    assert len(summary.incidents) == len(turns) and all("illegal" in i for i in summary.incidents)
    assert all("was played for you" in e.message for e in raw.of_kind("error"))
    summary, outcome = run(serve, seats, policy="default", max_strikes=2)
    assert outcome.reason is EndReason.FORFEIT_ILLEGAL and "strike 3" in outcome.detail


def test_malformed_actions_get_errors_naming_the_problem(serve):
    wrong_game = pb.Action()
    wrong_game.spot.SetInParent()
    bad_card = spades_play("ZZ")
    empty = pb.Action()
    no_verb = pb.Action()
    no_verb.spades.SetInParent()
    kinds = [empty, wrong_game, bad_card, no_verb]
    state = {"i": 0}

    def respond(turn):
        i = state["i"]
        state["i"] += 1
        return [act(turn, kinds[i % len(kinds)])]

    raw = RawBot(serve, "malformed", respond=respond)
    seats = with_others(serve, raw)
    summary, outcome = run(serve, seats, policy="default", max_strikes=1000)
    assert outcome.reason is EndReason.COMPLETED
    raw.wait_for("match_end")
    messages = [e.message for e in raw.of_kind("error")]
    assert all(e.code == "malformed" for e in raw.of_kind("error"))
    assert any("action is empty" in m for m in messages)
    assert any("'spot'" in m for m in messages)
    assert any("unknown card 'ZZ'" in m for m in messages)
    assert any("no verb" in m for m in messages)


def test_late_answers_time_out_and_are_refused(serve):
    def respond(turn):
        time.sleep(2.0)
        return [act(turn, turn.legal_actions[0])]

    raw = RawBot(serve, "late", respond=respond)
    seats = with_others(serve, raw)
    # a limit the random bots meet easily even on a loaded machine, and the raw bot never
    summary, outcome = run(serve, seats, decision_ms=800, bank_ms=0)
    assert outcome.reason is EndReason.FORFEIT_TIMEOUT
    assert "no answer within" in outcome.detail and "seat 0" in outcome.detail
    # the late Act arrives after the arbiter gave up: refused as an unknown request
    codes = [e.code for e in raw.wait_for("error", 2, timeout=20)]
    assert codes[0] == "late" and "unknown_request" in codes


def test_a_bot_that_disconnects_forfeits_and_the_others_are_told(serve):
    raw = RawBot(serve, "quitter", respond=lambda turn: (raw.close(), [])[1])
    seats = with_others(serve, raw)
    summary, outcome = run(serve, seats)
    assert outcome.reason is EndReason.FORFEIT_DISCONNECT and outcome.ranks == (2, 1, 2, 1)
    assert serve.alive()


def test_a_stream_that_ends_loses_its_seat_for_good_and_the_bot_plays_on_in_new_matches(serve):
    """docs/other-languages.md and arena.proto (MatchEnd): under the default policy the
    arbiter plays for a seat whose stream ended to the match's end, and another stream of
    the same bot, with the same token, is never given the seat back (no MatchStart, Turn
    or MatchEnd of that match); it is seated in the matches that start after."""
    quit = {"done": False}

    def quitter(i):
        def respond(turn):
            if quit["done"]:
                return [act(turn, turn.legal_actions[0])]
            quit["done"] = True
            bots[i].close()
            return []
        return respond

    bots = [RawBot(serve, "rejoin", respond=quitter(0)), RawBot(serve, "rejoin", respond=quitter(1))]
    bots[1].start()
    seats = with_others(serve, bots[0])
    serve.wait_sessions(["rejoin", "rejoin", *OTHERS])
    summary, outcome = run(serve, seats, policy="default", max_strikes=0)
    assert outcome.reason is EndReason.COMPLETED  # played for it to the end, no strike counted
    assert [i.split(": ")[:2] for i in summary.incidents] == [["seat 0", "disconnect"]]
    [gone] = [b for b in bots if b.of_kind("match_start")]
    other = bots[1 - bots.index(gone)]
    assert not gone.of_kind("match_end")
    assert other.received and all(m.WhichOneof("msg") == "welcome" for m in other.received)
    summary2, outcome2 = run(serve, seats, seed=2)  # the bot's live stream plays the next match
    assert outcome2.reason is EndReason.COMPLETED
    assert [s.match_id for s in other.wait_for("match_end")] == [summary2.match_id]


def test_run_match_takes_the_number_of_players_from_its_seats(serve):
    """A client of the Matches service that asked for Spot with three seats was told "spot
    needs 4 seats, got 3": RunMatch took the game's default number of players, where
    `arbiter play --server` and the SDK take it from the bots. It plays three (and a number
    the game refuses is still an error naming it)."""
    names = ["spot-a", "spot-b", "spot-c"]
    raws = [RawBot(serve, n).start() for n in names]
    serve.wait_sessions(names)
    with grpc.insecure_channel(serve.address) as ch:
        summary = pb_grpc.MatchesStub(ch).RunMatch(pb.RunMatchRequest(
            game="spot", seats=names, seed=4, options={"hands": "1"}, admin_token=serve.admin_token), timeout=120)
        assert convert.outcome_from_proto(summary.outcome).reason is EndReason.COMPLETED
        assert len(summary.outcome.scores) == 3
        with pytest.raises(grpc.RpcError) as refused:
            pb_grpc.MatchesStub(ch).RunMatch(pb.RunMatchRequest(
                game="spot", seats=names[:1], options={"hands": "1"}, admin_token=serve.admin_token), timeout=30)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "players" in refused.value.details()
    for raw in raws:
        raw.close()


def test_a_match_asked_without_a_seed_is_dealt_from_a_secret_one(serve):
    """RunMatch with no seed: the arbiter draws a secret one (returned to the admin in the
    summary) instead of playing deal 0, whose hands every connected bot could compute (deals
    follow from a seed by a public scheme); a seed given, 0 included, is played as given."""
    if not serve.bots:
        for n in OTHERS:
            serve.start_bot("random", n)
    serve.start_bot("random", "random-4")
    seats = [*OTHERS, "random-4"]
    serve.wait_sessions(seats)
    drawn = [run(serve, seats, seed=None)[0] for _ in range(2)]
    zero, _ = run(serve, seats, seed=0)
    assert zero.seed == 0 and all(s.seed > 2 ** 32 for s in drawn) and drawn[0].seed != drawn[1].seed
    assert all(s.actions != zero.actions for s in drawn)  # not deal 0's play
