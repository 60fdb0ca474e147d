"""arbiter.tools.breakdown's attribution rules and its harnesses (no timing is judged here:
only how samples and counters are turned into the table, and that a harness runs)."""

from __future__ import annotations

import math
import os

import pytest

from arbiter.tools import bench
from arbiter.tools import breakdown as bd


def _stack(*frames: str) -> list[str]:
    return list(frames)


LOOP = ("BaseEventLoop.run_forever (asyncio/base_events.py:607)", "BaseEventLoop._run_once (asyncio/base_events.py:1922)",
        "Handle._run (asyncio/events.py:80)")


def test_the_innermost_known_part_decides_and_the_outermost_frame_of_the_engine_names_the_step():
    ask = (*LOOP, "run_match (arbiter/match/runner.py:211)", "_Runner._ask (arbiter/match/runner.py:348)")
    assert bd.classify(_stack(*ask, "SpadesState.view (cardarena/games/spades.py:1243)",
                              "SpadesState._play_actions (cardarena/games/spades.py:1022)")) == "engine.view"
    # a frame of no known part (a dataclass __init__) is skipped
    assert bd.classify(_stack(*ask, "SpadesState.apply (cardarena/games/spades.py:802)",
                              "__create_fn__.<locals>.__init__ (<string>:3)")) == "engine.apply"
    assert bd.classify(_stack(*ask, "RemoteSeat.decide_within (arbiter/server/botstream.py:268)",
                              "turn_to_proto (cardarena/wire/codec.py:495)", "view_fields (cardarena/wire/codec.py:398)",
                              "encode (<encoder SpadesView>:2)")) == "wire.turn"
    # the view is built lazily inside the encoding: the engine's time is the engine's
    assert bd.classify(_stack(*ask, "RemoteSeat.decide_within (arbiter/server/botstream.py:268)",
                              "turn_to_proto (cardarena/wire/codec.py:499)",
                              "SpadesState._view (cardarena/games/spades.py:1237)")) == "engine.view"
    assert bd.classify(_stack(*ask, "RemoteSeat.decide_within (arbiter/server/botstream.py:278)")) == "seat"
    assert bd.classify(_stack(*LOOP, "BotStreamServicer._read (arbiter/server/botstream.py:389)")) == "servicer"
    assert bd.classify(_stack(*ask, "BaseEventLoop.call_later (asyncio/base_events.py:727)")) == "asyncio"
    assert bd.classify(_stack(*LOOP)) == "callback.c"


def test_the_bot_side_phases():
    answer = ("_play (sdk/runner.py:244)", "Connection.handle (sdk/runner.py:72)", "Connection._answer (sdk/runner.py:120)")
    assert bd.classify(_stack(*answer, "turn_from_proto (sdk/convert.py:61)", "view_from_proto (cardarena/wire/codec.py:405)",
                              "decode (<decoder SpadesView>:2)")) == "sdk.turn"
    assert bd.classify(_stack(*answer, "RandomBot.choose (bots/random_bot.py:14)", "Random.choice (random.py:378)")) == "sdk.choose"
    assert bd.classify(_stack(*answer, "act_to_proto (sdk/convert.py:68)")) == "sdk.act"
    assert bd.classify(_stack(*answer)) == "sdk.runner"
    assert bd.classify(_stack(*answer, "SeatDriver.decide (sdk/driver.py:150)")) == "sdk.runner"
    assert bd.classify(_stack("_play (sdk/runner.py:244)", "_StreamRequestMixin._write (grpc/aio/_call.py:500)")) == "grpc"


def test_samples_of_other_threads_and_of_a_waiting_loop_are_not_counted(tmp_path):
    raw = tmp_path / "spy.txt"
    raw.write_text("\n".join([
        "thread (1): MainThread;" + ";".join(LOOP[:2]) + ";EpollSelector.select (selectors.py:468) 50",
        "thread (7): Thread-1 (_poll_wrapper);Thread.run (threading.py:982) 70",
        "thread (1): MainThread;" + ";".join(LOOP) + ";BotStreamServicer._read (arbiter/server/botstream.py:389) 3",
        "thread (1): MainThread;" + ";".join(LOOP) + " 2",
    ]) + "\n")
    assert bd.read_samples(raw) == {"servicer": 3, "callback.c": 2}


def test_a_round_is_reported_per_decision_and_what_no_cpu_accounts_for_is_the_rest():
    r = bd.Round(wall=0.010, decisions=10, server=bd.Cpu(main=2_000_000, other=1_000_000, main_wait=500_000),
                 clients=bd.Cpu(main=3_000_000, other=1_000_000), iterations=13)
    row = r.row()
    assert row["wall"] == 1000 and row["server.loop"] == 200 and row["clients.loop"] == 300
    assert row["server.iterations"] == 1.3  # the arbiter's event-loop iterations per decision
    assert row["cpu"] == 700 and row["rest"] == 300 and row["runqueue"] == row["server.runqueue"] == 50


def test_the_phase_table_splits_each_loop_thread_by_its_samples():
    b = bd.Breakdown(hosted=[{"wall": 1000, "server.loop": 300, "server.grpc": 100, "clients.loop": 200, "clients.grpc": 50,
                              "cpu": 650, "rest": 350, "runqueue": 0}],
                     arbiter_samples={"wire.turn": 1, "runner": 2}, bot_samples={"sdk.turn": 4})
    rows = {(side, label): us for side, label, us, _ in b.phases()}
    assert rows[("arbiter", "wire: encode the Turn (view, legal actions, events)")] == 100
    assert rows[("arbiter", "match runner: ask, validate, record, clocks, notify")] == 200
    assert rows[("bots", "SDK: decode the Turn (view, legal actions, events)")] == 200
    assert sum(rows.values()) == 1000  # the loop threads, the gRPC threads and the rest: the wall time


def test_the_codec_rows_alone_compare_view_deltas_with_whole_views(capsys):
    """``--codec``: the codec's rows without any bot process, view deltas beside whole
    views on the same decisions (a delta Turn carries fewer bytes)."""
    assert bd.main(["--codec", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "1-seat floor" not in out  # no hosted matches were played
    rows = {label.strip(): float(value) for label, value in
            (line.rsplit(None, 1) for line in out.splitlines() if line.startswith("  "))}
    whole = rows["bytes of the Turn with the whole view (mean)"]
    delta = rows["bytes of the Turn with a view delta (mean)"]
    assert 0 < delta < whole
    assert rows["arbiter: the Turn with a view delta (ViewDeltaWriter.delta, turn_wire)"] > 0


@pytest.mark.e2e
def test_a_bot_alone_is_fed_its_frames_and_answers_every_turn():
    """``--bot``'s harness: a MatchStart, the Turns of a seat, a MatchEnd, played to the SDK
    and to the bare client; each answers every Turn (``bot_cpu`` raises if one closes its
    connection instead) and its CPU per decision is read from the kernel."""
    import random

    from cardarena.games import get_game
    from cardarena.v1 import arena_pb2 as pb
    from cardarena.wire import codec

    game = get_game("spades", {"deals": 1})
    state, rng = game.new_initial_state(5), random.Random(5)
    start = pb.ArbiterMessage(match_start=pb.MatchStart(match_id="m1", game="spades", seat=0, num_seats=4,
                                                        options=codec.options_to_wire(game.describe_options())))
    frames, rid = [start.SerializeToString()], 0
    while not state.is_terminal:
        if state.current_seat == 0:
            rid += 1
            frames.append(codec.turn_wire("spades", "m1", rid, 0, state.view(0), state.legal_actions(), 0, 0, []))
        state.apply(rng.choice(state.legal_actions()))
    end = pb.MatchEnd(match_id="m1", seat=0, outcome=codec.outcome_to_proto(state.outcome()))
    frames.append(pb.ArbiterMessage(match_end=end).SerializeToString())
    for _, _, client in bd.BOT_ROWS:
        assert bd.bot_cpu(client, frames, reps=3) > 0


def test_the_arbiters_side_alone_plays_whole_matches_and_splits_their_cpu():
    """``--arbiter``'s harness: the real hub, sessions, RemoteSeats, servicer and runner
    play whole 1-deal Spades matches (no incident: ``_arbiter_matches`` raises on one) with
    the socket replaced; the Turn's bytes are part of a decision, and a match costs more
    than a decision; the next Turn is written before the decision's receive ends (its
    record and the other seats' events follow, attempt 72)."""
    row = bd.arbiter_costs(matches=2, deals=1, seed=3)
    assert row["decisions"] >= 56  # 52 cards played and 4 bids, at least
    assert 0 < row["decision.turn"] < row["decision.critical"] < row["decision"]
    assert row["match"] > 0


def test_bench_one_cpu_puts_every_thread_of_a_process_on_one_cpu_and_back():
    cpus = set(os.sched_getaffinity(0))
    bench.on_one_cpu([os.getpid()], True)
    try:
        assert os.sched_getaffinity(0) == {max(cpus)}
    finally:
        bench.on_one_cpu([os.getpid()], False)
    assert os.sched_getaffinity(0) == cpus


@pytest.mark.e2e  # four bot processes (forked where the fork server runs) and their arbiter
def test_the_bots_cpu_is_found_for_forked_and_fresh_bots():
    """The bench and the breakdown find each bot's own process: a forked bot reports its pid in
    its sandbox's namespace, where the bench counted no CPU for it and the breakdown raised."""
    import asyncio

    async def run() -> tuple[list[int], float, float, float]:
        async with bench._BenchArbiter(transport="local") as arena:
            pids = bd.bot_pids(arena.pool)
            before, own = arena.bot_cpu_seconds(), [bd.thread_times(p) for p in pids]
            # the kernel counts CPU in ticks (10 ms): enough play that the four bots' share
            # cannot round to none (a forked bot's import is its parent's; a 2-deal match
            # was ~3 ms of each bot's CPU and read 0.0 once on a loaded machine)
            await arena.match(3, {"deals": 12})
            ran = sum(t[0] - o.get(tid, (0, 0))[0] for p, o in zip(pids, own) for tid, t in bd.thread_times(p).items())
            return pids, before, arena.bot_cpu_seconds(), ran / 1e9

    pids, before, after, own = asyncio.run(run())
    assert len(set(pids)) == 4 and all(p > 1 for p in pids), pids
    assert after > before, (before, after)  # the bots' play is counted
    # by the breakdown too: the processes it found are the ones that played
    assert own >= 0.3 * (after - before), (own, before, after)


@pytest.mark.e2e  # an arbiter's servers and four hosted bot processes
def test_the_timeline_stamps_both_sides_of_hosted_local_decisions_on_one_clock():
    """``--timeline``: the arbiter's Turn write and Act read and the bot's choose (its note)
    line up, decision by decision, on the machine's monotonic clock: every part is a
    positive time and a decision holds the arbiter's part and the bot's choose."""
    (row,) = bd.timeline(rounds=1, matches=1)
    assert {key for key, _ in bd.TIMELINE_ROWS} <= set(row)
    assert all(row[key] > 0 for key in ("decision", "arbiter", "send", "turn", "choose", "act"))
    assert row["decision"] > row["arbiter"] and row["decision"] > row["choose"]
    assert 0 <= row["sends.long"] <= 100 and 0 <= row["watched"] <= 100
    # the mean (the bench's row) beside the median, and by the kind of decision: every match
    # bids and plays cards; an exchange only follows a blind nil (nan: none this round)
    assert row["decision.mean"] > 0 and row["decision.bid"] > 0 and row["decision.play"] > 0
    assert math.isnan(row["decision.give"]) or row["decision.give"] > 0


def test_rows_not_measured_in_a_pass_print_as_a_dash(capsys):
    """``_print_medians``: a row measured in some passes only (a timeline round without a give
    turn) takes the median of those, and shows the others as "-"; none at all, a "-"."""
    rows = [("a", "A"), ("b", "B")]
    bd._print_medians(rows, [{"a": 1.0, "b": math.nan}, {"a": 3.0, "b": math.nan}, {"a": 2.0, "b": 7.0}], 4, 1)
    bd._print_medians(rows[1:], [{"b": math.nan}], 4, 1)
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["A", "2.0", "(1.0,", "3.0,", "2.0)"]
    assert out[1].split() == ["B", "7.0", "(-,", "-,", "7.0)"]
    assert out[2].split() == ["B", "-", "(-)"]
