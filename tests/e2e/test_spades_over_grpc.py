"""End to end: `arbiter serve` as a subprocess, four bot processes over real gRPC on loopback."""

from __future__ import annotations

import subprocess
import sys

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from cardarena.wire import codec as convert
from cardarena.games import EndReason, get_game
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from tests.conftest import ROOT

#: One `arbiter serve` for the module (one xdist group, so it starts once a run): each
#: test connects bots under names of its own, and every bot stays connected to the end.
pytestmark = pytest.mark.xdist_group("spades_over_grpc")


@pytest.fixture(scope="module")
def serve(module_serve):
    return module_serve  # (tests/conftest.py)


@pytest.fixture(scope="module")
def four(serve) -> list[str]:
    """Four bot processes on the shared server, heuristic and random by turns, started once
    for the module: the Spades games and every other game's case play them (a bot session
    plays any game its bot supports, one match after another). A fresh case's own bots were
    14 more Python starts, about 0.2 CPU-s each."""
    names = ["north", "east", "south", "west"]
    for i, n in enumerate(names):
        serve.start_bot("heuristic" if i % 2 == 0 else "random", n)
    serve.wait_sessions(names)
    return names


def run_match(serve, seats: list[str], seed: int, options: dict | None = None, **kw) -> pb.MatchSummary:
    """Matches.RunMatch on ``serve``, with its admin token unless ``admin_token`` is given."""
    kw.setdefault("admin_token", serve.admin_token)
    with grpc.insecure_channel(serve.address) as ch:
        return pb_grpc.MatchesStub(ch).RunMatch(
            pb.RunMatchRequest(game="spades", seats=seats, seed=seed, options=options or {}, **kw), timeout=120
        )


def replayed(summary: pb.MatchSummary, seats: list[str], seed: int, options: dict):
    game = get_game("spades", options)
    state = game.new_initial_state(seed)
    for text in summary.actions:
        state.apply(game.parse_action(text))
    return state


def test_four_bot_processes_play_complete_games(serve, four):
    names = four
    for seed in (1, 2):
        summary = run_match(serve, names, seed, {"target": "200"})
        outcome = convert.outcome_from_proto(summary.outcome)
        assert outcome.reason in (EndReason.COMPLETED, EndReason.TURN_LIMIT), summary.incidents
        assert not summary.incidents
        # the recorded actions replay, from the seed alone, to the same final score
        state = replayed(summary, names, seed, {"target": "200"})
        assert state.is_terminal and state.outcome() == outcome
        assert summary.decisions == len(summary.actions) >= 52
        # partners share their side's score and rank
        assert outcome.scores[0] == outcome.scores[2] and outcome.scores[1] == outcome.scores[3]
        assert sorted(set(outcome.ranks)) in ([1, 2], [1])
    # the server still answers the standard health check
    with grpc.insecure_channel(serve.address) as ch:
        status = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(service="cardarena.v1.Arena"))
        assert status.status == health_pb2.HealthCheckResponse.SERVING


def test_cli_play_on_a_running_server(serve, four, tmp_path):
    names = four  # the module's bot processes
    proc = subprocess.run(
        [sys.executable, "-m", "arbiter", "play", "spades", *names, "--server", serve.address, "--seed", "5", "-o", "deals=1",
         "--admin-token", serve.admin_token, "--db", str(tmp_path / "arena.sqlite")],  # not the checkout's arena.sqlite
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "completed" in proc.stdout and "north" in proc.stdout


def test_reflection_lists_the_services(serve):
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    with grpc.insecure_channel(serve.address) as ch:
        stub = reflection_pb2_grpc.ServerReflectionStub(ch)
        responses = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
        names = {s.name for r in responses for s in r.list_services_response.service}
    assert {"cardarena.v1.Arena", "cardarena.v1.Matches", "cardarena.v1.Spectate", "grpc.health.v1.Health",
            "grpc.reflection.v1alpha.ServerReflection", "grpc.reflection.v1.ServerReflection"} <= names


def test_run_match_rejects_bad_requests_clearly(serve):
    serve.start_bot("random", "solo")
    serve.wait_sessions(["solo"])
    with pytest.raises(grpc.RpcError) as e:
        run_match(serve, ["solo", "nobody", "solo", "solo"], 1)
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "nobody" in e.value.details()
    with pytest.raises(grpc.RpcError) as e:
        run_match(serve, ["solo"] * 4, 1, {"target": "lots"})
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "target" in e.value.details()
    with pytest.raises(grpc.RpcError) as e:
        run_match(serve, ["solo"] * 3, 1)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "4 seats" in e.value.details()
    # one stream never holds two seats of one match: a bot at four seats needs four connections
    with pytest.raises(grpc.RpcError) as e:
        run_match(serve, ["solo"] * 4, 3, {"deals": "1"})
    assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "2 connections of bot 'solo'" in e.value.details()
    assert "connect it once more (python -m sdk --name solo)" in e.value.details()  # what to do, not only what is missing
    for _ in range(3):
        serve.start_bot("random", "solo")
    serve.wait_sessions(["solo"] * 4)
    summary = run_match(serve, ["solo"] * 4, 3, {"deals": "1"})
    assert convert.outcome_from_proto(summary.outcome).reason is EndReason.COMPLETED


def test_a_server_started_with_no_flags_needs_tokens(serve):
    """`arbiter serve` as started by `start_serve` has no flags but its own credentials
    file: a wrong token, no token, or another bot's token are refused; a bot with its own
    token joins; Matches needs the admin token."""
    from tests.e2e.rawbot import RawBot

    for name, token in (("intruder", "wrong"), ("intruder", ""), ("member", serve.bot_token("other"))):
        bad = RawBot(serve, name, token=token).start()
        assert bad.done.wait(10)
        errors = bad.of_kind("error")
        assert errors and errors[0].code == "auth" and "token" in errors[0].message, errors
        assert not bad.of_kind("welcome")
    serve.start_bot("random", "member")
    serve.wait_sessions(["member"])
    with pytest.raises(grpc.RpcError) as e:
        run_match(serve, ["member"] * 4, 1, {"deals": "1"}, admin_token="nope")
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(grpc.RpcError) as e:
        run_match(serve, ["member"] * 4, 1, {"deals": "1"}, admin_token=serve.bot_token("member"))
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED  # no bot token starts a match
    for _ in range(3):
        serve.start_bot("random", "member")
    serve.wait_sessions(["member"] * 4)
    summary = run_match(serve, ["member"] * 4, 1, {"deals": "1"})
    assert summary.decisions >= 52


@pytest.mark.parametrize(
    "game, options, preset, n",
    [
        ("spite-and-malice", {"stalemate_rule": "fewer_payoff_wins"}, "", 2),
        ("spite-and-malice", {}, "book", 2),
        ("spite-and-malice", {"players": "4", "partnerships": "true", "payoff_size": "8"}, "", 4),
        ("spot", {"hands": "2"}, "", 4),
        ("spot", {"players": "2", "hands": "2"}, "", 2),
    ],
)
def test_other_games_end_to_end_between_bot_processes(serve, four, game, options, preset, n):
    names = four[:n]  # the module's bot processes, heuristic and random by turns
    with grpc.insecure_channel(serve.address) as ch:
        summary = pb_grpc.MatchesStub(ch).RunMatch(
            pb.RunMatchRequest(game=game, seats=names, seed=9, options=options, preset=preset, admin_token=serve.admin_token),
            timeout=120
        )
    outcome = convert.outcome_from_proto(summary.outcome)
    assert outcome.reason in (EndReason.COMPLETED, EndReason.STALEMATE, EndReason.TURN_LIMIT), summary.incidents
    assert not summary.incidents
    g = get_game(game, options, preset or None)
    state = g.new_initial_state(9)
    for text in summary.actions:
        state.apply(g.parse_action(text))
    assert state.is_terminal and state.outcome() == outcome
