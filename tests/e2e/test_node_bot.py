"""The JavaScript bot (examples/node-bot, written from the .proto alone) plays the bundled
Python bots: connected to a standing `arbiter serve` with its token (remote), and
submitted and hosted by the arbiter in its sandbox (hosted). Skipped only without Node.js
(tests/e2e/nodejs.py installs its packages once, from the lock file)."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arbiter.hosting.botproc import BotHost
from arbiter.match import run_match
from arbiter.server import auth
from arbiter.server.app import start_private_server
from arbiter.server.botstream import RemoteSeat
from arbiter.tournament.play import play_remote
from arbiter.tournament.run import load_standings, schedule, standings
from arbiter.store.db import Store
from arbiter.store.registry import Registry
from cardarena.games import EndReason, get_game
from cardarena.records import MatchConfig
from cardarena.replay import verify_record
from tests.cli.badinput import run_in_process
from tests.conftest import start_serve, stop_bots, stop_serve
from tests.e2e.nodejs import EXAMPLE, ROOT, need_node, node_env, node_folder

#: (game, its bots, options that keep a match short, deals): greedy plays Spades only
TOURNAMENTS = [
    ("spades", ["node", "random", "greedy"], {"deals": "1"}, 1),  # 6 matches (3 tables, 2 seatings)
    ("spite-and-malice", ["node", "random"], {"payoff_size": "5"}, 3),  # 6
    ("spot", ["node", "random"], {"hands": "1", "players": "2"}, 1),  # 2 (for four, 12)
]
FAILED = {EndReason.FORFEIT_TIMEOUT, EndReason.FORFEIT_ILLEGAL, EndReason.FORFEIT_DISCONNECT,
          EndReason.FORFEIT_CRASH, EndReason.ABORTED}


#: The tests on the module's arbiter (``module_serve``, tests/conftest.py: a plain `arbiter
#: serve`): one xdist group (--dist loadgroup), so it starts once a run, not once a test
#: (~0.35 CPU-s each). Each test's bots have names of their own.
SHARED = pytest.mark.xdist_group("node_bot")


@pytest.fixture
def serve(module_serve):
    """The module's arbiter; the bot processes a test starts on it (``serve.bots``) are
    stopped at its end."""
    assert not module_serve.bots and module_serve.alive()
    try:
        yield module_serve
    finally:
        stop_bots(module_serve.bots)
        module_serve.bots.clear()


def _start_node(serve, name: str, log: Path) -> subprocess.Popen:
    """The example bot as its author runs it: `node bot.js`, the token in ARENA_TOKEN."""
    with open(log, "wb") as err:
        p = subprocess.Popen([need_node(), str(EXAMPLE / "bot.js"), "--address", serve.address, "--name", name],
                             env=node_env(ARENA_TOKEN=serve.bot_token(name)), stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=err)
    serve.bots.append(p)  # stopped with the server
    return p


@SHARED
def test_the_node_bot_plays_a_tournament_on_a_standing_arbiter(serve, tmp_path):
    need_node()
    try:
        plans = {}
        for game, bots, options, deals in TOURNAMENTS:
            plans[game] = schedule(get_game(game, options), bots, deals=deals, seed=11)
        # a stream holds one seat of a match: as many connections of a bot as its most seats at one table
        copies = {b: max(m.seats.count(b) for p in plans.values() for m in p) for b in ("node", "random", "greedy")}
        for k in range(copies["node"]):
            _start_node(serve, "node", tmp_path / f"node{k}.log")
        for b in ("random", "greedy"):
            for _ in range(copies[b]):
                serve.start_bot(b, b)
        serve.wait_sessions([b for b, n in copies.items() for _ in range(n)])
        store = Store(tmp_path / "arena.sqlite")
        for game, bots, options, _ in TOURNAMENTS:
            tour = store.open_tournament(f"node-{game}", game, {"bots": bots, "options": options})
            # four matches at once: one connection plays many matches, each keyed by its match_id
            with ThreadPoolExecutor(4) as pool:
                records = list(pool.map(lambda m: play_remote(serve.address, game, m.seats, admin_token=serve.admin_token,
                                                              seed=m.seed, options=options, decision_ms=5000,
                                                              bank_ms=20_000), plans[game]))
            for m, record in zip(plans[game], records):
                mine = [i for i in record.incidents if m.seats[i.seat] == "node"]
                assert mine == [] and record.outcome.reason not in FAILED, (game, m.seats, record.incidents,
                                                                            record.outcome)
                verify_record(record)  # the arbiter's actions replay to its outcome
                store.save_match(tour.id, m.idx, m.deal, m.seating, record, round=m.round, table=m.table, sides=m.sides)
            table = standings(store.matches(tour.id), get_game(game, options), True, bots)
            row = next(r for r in table.rows if r.name == "node")
            assert row.matches == sum(1 for m in plans[game] if "node" in m.seats) > 0, (game, row)
            assert row.forfeits == 0 and row.incidents == {}, (game, row)
            assert {r.name for r in table.rows} == set(bots)
        store.close()
        assert all(p.poll() is None for p in serve.bots), "a bot process died during the tournament"
    finally:
        stop_bots(serve.bots)  # the Node bots' logs are whole
    # the Node bots' own account: each session opened, and the arbiter refused nothing they sent
    logs = [(tmp_path / f"node{k}.log").read_text() for k in range(copies["node"])]
    assert all("session" in log and "arbiter says" not in log and "choose failed" not in log for log in logs), logs


def _arbiter(*args: str, env: dict[str, str] | None = None):
    """``arbiter ARGS`` run in this process (tests/cli/badinput.py): what it prints and its exit
    code, as from a process of its own, which was ~0.6 CPU-s of imports a command (the
    checks' bots and sandboxes are processes still)."""
    return run_in_process(*args, timeout=180, env={"COLUMNS": "200", **(env or {})})


def test_the_node_bot_is_submitted_and_passes_the_self_test(tmp_path):
    need_node()
    folder = node_folder(tmp_path, "nodebot", EXAMPLE / "bot.js")
    db = tmp_path / "arena.sqlite"
    # the self-test (the bot at every seat of random games, refereed here), then a match per game vs random
    sub = _arbiter("bots", "submit", str(folder), "--name", "nodebot", "--version", "1.0", "--db", str(db))
    assert sub.returncode == 0, sub.stdout + sub.stderr
    with Registry(db) as registry:
        (version,) = registry.versions("nodebot")
        checks = {c["name"]: c["ok"] for c in version.report["checks"]}
    expected = {"import", "contract", "deterministic", *(f"{k}:{g}" for g in ("spades", "spite-and-malice", "spot")
                                                        for k in ("legal", "time", "verify"))}
    assert expected <= set(checks) and all(checks.values()), version.report
    assert version.report["bot"]["name"] == "node-example"  # as its Hello said
    assert (version.path / "bot.toml").is_file() and (version.path / "node_modules" / "@grpc" / "grpc-js").is_dir()
    # without --name: the name its Hello says (the CLI said "the name its class declares, name = ...": a
    # JavaScript bot has no class)
    own = _arbiter("bots", "submit", str(folder), "--db", str(db))
    assert own.returncode == 0, own.stdout + own.stderr
    said = " ".join(own.stdout.split())
    assert 'registered node-example 1.0' in said and '(the name its Hello says, bot_name "node-example";' in said, said


def test_the_node_bot_is_hosted_in_tournaments_against_python_bots(tmp_path):
    need_node()
    folder = node_folder(tmp_path, "nodebot", EXAMPLE / "bot.js")
    # the arbiter starts it in its sandbox, as any hosted bot; long-lived processes (shared
    # isolation, so no duplicate deals) keep the test short: a fresh process per seat of every
    # match is the same launch, many more times (the self-test above starts several). The
    # three games' tournaments run at once, each with its store, bots and arbiter, in this
    # process (`arbiter tournament run` is this run_tournament: three processes of their own
    # were 3 starts and their Python bots' fork servers, about 2 CPU-s, README "The test budget").
    # (Spot for two: two matches, where four seats of two bots were twelve)
    from arbiter.tournament.run import TournamentSpec, run_tournament

    games = (("spades", (str(folder), "random", "greedy"), {"deals": 1}),
             ("spite-and-malice", (str(folder), "random"), {"payoff_size": 5}),
             ("spot", (str(folder), "random"), {"hands": 1, "players": 2}))

    def run(game: str, bots: tuple[str, ...], options: dict) -> None:
        spec = TournamentSpec(game=game, bots=bots, options=options, deals=1, name=f"hosted-{game}", seed=3,
                              isolation="shared", duplicate=False)
        with Store(tmp_path / f"{game}.sqlite") as store:
            asyncio.run(run_tournament(spec, store))

    with ThreadPoolExecutor(len(games)) as pool:
        for done in [pool.submit(run, *g) for g in games]:
            done.result()
    for game, _, _ in games:
        with Store(tmp_path / f"{game}.sqlite") as store:
            table, _ = load_standings(store, f"hosted-{game}")
            times = store.think_times(store.tournament(f"hosted-{game}").id)
        row = next(r for r in table.rows if r.name == "nodebot")  # a folder bot is named by its folder
        assert row.matches > 0 and row.forfeits == 0 and row.incidents == {}, (game, row)
        # it says its own time (Act.think_us) as the Python SDK does: its author sees the transport's share
        assert times["nodebot"].reported == times["nodebot"].decisions > 0, times["nodebot"]


def test_a_node_bot_without_its_packages_is_refused_and_says_why(tmp_path):
    need_node()
    folder = node_folder(tmp_path, "bare", EXAMPLE / "bot.js")
    shutil.rmtree(folder / "node_modules")  # installed on the author's machine only: the sandbox has no network
    db = tmp_path / "arena.sqlite"
    sub = _arbiter("bots", "submit", str(folder), "--name", "bare", "--db", str(db))
    assert sub.returncode == 2, sub.stdout + sub.stderr  # a rejected submission, as for a Python bot
    assert "failed import" in sub.stderr and "Cannot find module '@grpc/grpc-js'" in sub.stderr, sub.stderr
    assert "node_modules too" in sub.stderr and "Traceback" not in sub.stderr + sub.stdout
    with Registry(db) as registry:
        assert registry.versions("bare") == []


def test_a_remote_author_submits_a_node_bot_over_the_bots_service(tmp_path):
    need_node()
    folder = node_folder(tmp_path, "nodebot", EXAMPLE / "bot.js")
    db = tmp_path / "arena.sqlite"
    serve = start_serve("--bots-db", str(db), "--author", "alice")
    try:
        token = auth.read(serve.credentials).authors["alice"]
        # ~1200 files of node_modules: past a Python bot's 200, within a Node bot's limits
        sub = _arbiter("bots", "submit", str(folder), "--name", "nodebot", "--version", "2.0", "--server", serve.address,
                       env={"ARENA_AUTHOR_TOKEN": token})
        assert sub.returncode == 0, sub.stdout + sub.stderr
        assert "registered nodebot 2.0" in sub.stdout, sub.stdout
    finally:
        stop_serve(serve)
    with Registry(db) as registry:
        (version,) = registry.versions("nodebot")
    assert version.author == "alice" and version.entry == "bot.toml"
    assert all(c["ok"] for c in version.report["checks"]) and len(version.report["checks"]) >= 11


def test_fresh_node_processes_per_match_beside_forked_python_ones(tmp_path):
    """Match isolation (a fresh process per seat of every match): where Python bots come
    from a fork server (bwrap as root), a Node bot still gets a fresh sandboxed process
    each, from the same launcher, and the host says so."""
    need_node()
    folder = node_folder(tmp_path, "nodebot", EXAMPLE / "bot.js")

    async def main():
        server = await start_private_server()
        host = BotHost(server.hub, server.address, {"nodebot": str(folder), "random": "random"}, isolation="match",
                       copies=2, log_dir=tmp_path)
        try:
            await host.start()
            seen = []
            for i in range(2):
                lease, sessions = await host.lease(["nodebot", "random", "nodebot", "random"])
                procs = list(host._leased[lease])
                record = await asyncio.wait_for(run_match(
                    MatchConfig("spot", 20 + i, {"hands": "1"}, match_id=f"fresh-{i}"),
                    [RemoteSeat(s, "spot") for s in sessions]), 60)
                assert record.outcome.reason is EndReason.COMPLETED and record.incidents == [], record.incidents
                seen.append(procs)
                host.release(lease)
            return host.process_start, host.pool.forks, seen
        finally:
            await host.stop()
            await server.stop(0.2)

    how, forks, seen = asyncio.run(main())
    node = [bp for procs in seen for bp in procs if bp.name == "nodebot"]
    assert len({id(bp) for bp in node}) == 4 and not any(bp.forked for bp in node)  # 2 seats x 2 matches, all fresh
    if forks:
        assert all(bp.forked for procs in seen for bp in procs if bp.name == "random")
        assert "a fresh sandboxed process each for nodebot (another runtime: no fork server)" in how, how


@SHARED
def test_a_copy_of_the_example_outside_the_repository_finds_or_is_told_its_protos(serve, tmp_path):
    """Issue 44: a copy outside the repository failed with a stack trace until ARENA_PROTOS
    was set. Without the .proto files it says so in one line; with --protos it plays."""
    copy = tmp_path / "mybot"
    copy.mkdir()
    for f in ("arena.js", "bot.js", "package.json"):
        shutil.copy(EXAMPLE / f, copy / f)
    env = node_env()
    env.pop("ARENA_PROTOS", None)
    lost = subprocess.run([need_node(), "bot.js", "--address", "127.0.0.1:1"], cwd=copy, env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert lost.returncode == 2 and len(lost.stderr.strip().splitlines()) == 1, lost.stderr
    assert "cannot find the .proto files" in lost.stderr and "--protos DIR" in lost.stderr and "    at " not in lost.stderr
    wrong = subprocess.run([need_node(), "bot.js", "--protos", str(tmp_path)], cwd=copy, env=env, capture_output=True,
                           text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert wrong.returncode == 2 and "no cardarena/v1/arena.proto in it" in wrong.stderr, wrong.stderr
    try:
        log = tmp_path / "north.log"
        with open(log, "wb") as err:
            p = subprocess.Popen([need_node(), "bot.js", "--address", serve.address, "--name", "copied",
                                  "--protos", str(ROOT / "protos")], cwd=copy, env=dict(env, ARENA_TOKEN=serve.bot_token("copied")),
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        serve.bots.append(p)
        serve.wait_sessions(["copied"])  # it connected: the protocol loaded from the given folder
    finally:
        stop_bots(serve.bots)
    assert "Error" not in log.read_text()


def test_the_node_bot_that_cannot_reach_its_arbiter_says_so_and_fails():
    """Nothing listening at --address: the example said 'stream ended: 14 ...' and 'the
    arbiter closed the stream after 0 matches' (it never connected) and exited 0, so a
    script starting it saw success. It says it cannot reach the arbiter there, and exits 1
    (as `python -m sdk` does)."""
    with socket.socket() as s:  # a port nothing listens on: bound, never listened
        s.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{s.getsockname()[1]}"
        p = subprocess.run([need_node(), str(EXAMPLE / "bot.js"), "--address", address, "--name", "north"],
                           env=node_env(ARENA_TOKEN="x"), capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL)
    assert p.returncode == 1, p.stderr
    assert f"north: cannot reach the arbiter at {address}: " in p.stderr and "closed the stream" not in p.stderr, p.stderr


@SHARED
def test_the_node_bot_forgets_the_seat_of_a_match_stopped_before_its_end(serve, tmp_path):
    """Error "stopped" ends a match with no MatchEnd (arena.proto: forget its seats): the
    example kept the seat's state for good, so a long-running bot grew with each match its
    organiser abandoned. It drops it, and says so."""
    import time

    import grpc

    from cardarena.v1 import arena_pb2 as pb, arena_pb2_grpc as pb_grpc
    from tests.e2e.rawbot import RawBot

    try:
        log = tmp_path / "node.log"
        _start_node(serve, "forgets", log)
        mute = RawBot(serve, "mute", respond=lambda turn: []).start()  # never answers: the match waits on it
        serve.wait_sessions(["forgets", "mute"])
        with grpc.insecure_channel(serve.address) as ch:
            call = pb_grpc.MatchesStub(ch).RunMatch.future(pb.RunMatchRequest(
                game="spite-and-malice", seats=["mute", "forgets"], seed=3, admin_token=serve.admin_token,
                clock=pb.Clock(decision_ms=600_000, bank_ms=0)))
            mute.wait_for("turn")
            call.cancel()  # the organiser hangs up: the match stops, each seat told "stopped"
        deadline = time.monotonic() + 20
        while "stopped: 1 seat(s) forgotten" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        mute.close()
    finally:
        stop_bots(serve.bots)
    text = log.read_text()
    assert "arbiter says stopped: the match was stopped before its end" in text, text
    assert "stopped: 1 seat(s) forgotten" in text, text


@SHARED
def test_a_node_bot_whose_choose_returns_nothing_says_so_as_a_failure(serve, tmp_path):
    """arena.proto: Act.failure is set when the bot's code "raised, or returned nothing or
    no action". The example sent an Act with no action when choose returned undefined:
    the arbiter answered 'action is empty' (malformed) and the record named no cause. It
    reports a failure, as for a throw: the record says choose returned undefined."""
    import grpc

    from cardarena.v1 import arena_pb2 as pb, arena_pb2_grpc as pb_grpc
    from tests.e2e.rawbot import RawBot

    entry = tmp_path / "nothing.js"
    entry.write_text(f"require({str(EXAMPLE / 'arena.js')!r}).play({{ name: 'nothing', version: '1', games: [], "
                     "choose() { return undefined; } });\n")
    try:
        with open(tmp_path / "node.log", "wb") as err:
            p = subprocess.Popen([need_node(), str(entry), "--address", serve.address, "--name", "nothing"],
                                 env=node_env(ARENA_TOKEN=serve.bot_token("nothing")), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=err)
        serve.bots.append(p)
        other = RawBot(serve, "other").start()
        serve.wait_sessions(["nothing", "other"])
        with grpc.insecure_channel(serve.address) as ch:
            summary = pb_grpc.MatchesStub(ch).RunMatch(pb.RunMatchRequest(
                game="spite-and-malice", seats=["nothing", "other"], seed=5, admin_token=serve.admin_token), timeout=60)
        other.close()
    finally:
        stop_bots(serve.bots)
    assert summary.outcome.reason == pb.END_REASON_FORFEIT_CRASH, summary
    [incident] = summary.incidents
    assert "crash: the bot failed: Error: choose returned undefined, not one of turn.legal_actions" in incident, incident
