"""Where a hosted decision's time goes: ``python -m arbiter.tools.breakdown``.

The bench's ``hosted`` figure is one number: the wall time of a Spades decision with the
arbiter in this process and four random-bot processes (``bench._BenchArbiter``: sandboxed, over
the same transport as the bench) talking real gRPC. This module takes it apart, on both
sides of the wire, and sets it beside the floors (``bench._floor_seats_round``: one
server and 1 or 4 client processes, no game logic) measured the same way.

Three measurements, in rounds that alternate the floors and the hosted matches:

1. **CPU per thread, exact.** Before and after the matches, every thread's time on a
   CPU and its time runnable without one (the machine's load) are read from
   ``/proc/PID/task/TID/schedstat`` (nanoseconds) for the arbiter and each bot process;
   no profiler is attached. Per decision: the arbiter's event-loop thread, its gRPC core
   threads (poller, event engine), the same for the bots (the four summed), and the wall
   time less all of that CPU (negative when the two cores overlap).
2. **The work of a decision, step by step, exact** (``step_costs``): every call a hosted
   decision makes on either side (engine, Turn encoding, protobuf, the SDK's decoding, the
   bot's choice, the Act, its decoding, apply), made here one after another without a
   transport, each timed on the thread's CPU clock. Warm caches: a lower bound of what the
   same code costs in the processes, whose caches the others cool between decisions.
3. **Shares of the event-loop threads, sampled.** py-spy (a sampling profiler; ``pip
   install py-spy``, found on PATH, or ``--py-spy``) is attached to the arbiter and to
   each bot process while more matches are played, and each sample of a main thread is
   put in one phase by the innermost frame that belongs to a known part (the engine's
   view / legal actions / apply, the wire codec, the runner, the seat and session, the
   stream servicer, grpc.aio, asyncio; on the bot side the SDK's decoding, the bot's
   ``choose``, the Act's encoding, the SDK runner). A phase's µs per decision is its
   share of the samples times the thread's CPU per decision from (1). py-spy does not
   weigh Python calls more than C ones, as cProfile does (cProfile's per-call cost
   inflates small pure-Python functions: the codec, the runner, asyncio's handles,
   several times over), but it counts a thread's time while it is runnable, not only
   running: on a contended CPU, long Python stretches weigh more than their CPU.

Three more, each alone and in a few seconds to a minute: ``--loop`` (the event loop's own
CPU per round trip over a Unix socket to an echo process, for each way the arbiter has
written its next message: from a task awaiting a future, or from the answer's callback),
``--bot`` (one SDK bot process's CPU per decision, fed the frames a bot was sent in
hosted matches by a minimal peer, beside a bare client that only parses and answers) and
``--arbiter`` (the arbiter's side of whole hosted matches in this process, warm: its hub,
seats, servicer and runner, the socket and the bots replaced; CPU per decision, the Turn's
bytes apart, and per match), and ``--timeline`` (where a hosted local decision's wall time
goes, one match at a time: the arbiter's Turn write and Act read and the bot's ``choose``
stamped on the machine's one monotonic clock).

The floor's rows are the same CPU measurement of ``_floor_seats_round`` with 1 client
(the 2-process floor's shape) and with 4 clients taking turns. ``--json FILE`` keeps
everything; docs/performance.md "Where a hosted decision's time goes" reads the table.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arbiter.hosting.stop import stop_processes
from arbiter.tools import bench

#: Spades matches of one CPU round (2 deals, ~120 decisions each).
MATCHES = 8
#: Spades matches played with the sampler attached.
PROFILED_MATCHES = 16
#: Exchanges of one floor round.
FLOOR_EXCHANGES = 2000
#: py-spy's samples per second per process.
SAMPLE_RATE = 250


# --------------------------------------------------------------------------------------
# CPU per thread, from the kernel's scheduler statistics.


def thread_times(pid: int) -> dict[int, tuple[int, int]]:
    """tid -> (ns on a CPU, ns runnable waiting for one) of every thread of ``pid``."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                run, wait, _ = f.read().split()
        except (OSError, ValueError):
            continue
        out[int(tid)] = (int(run), int(wait))
    return out


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = collections.defaultdict(list)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    kids[int(f.read().rsplit(")", 1)[1].split()[1])].append(int(entry))
            except (OSError, IndexError):
                continue
    return kids


def bot_pids(pool: Any) -> list[int]:
    """The pid (in this namespace) of the Python process of each bot of ``pool``: the
    ``-m sdk`` process under its sandbox (bwrap's own processes are not counted), or a
    forked bot's own process (``bench.host_pid``: the pid 1 of the bot's PID namespace)."""
    kids = _children()
    parent = {c: p for p, cs in kids.items() for c in cs}
    pids = []
    for bp in pool.procs.values():
        if getattr(bp.proc, "server", None) is not None:  # forked: the bot is the fork itself
            found = bench.host_pid(bp.proc, parent)
            if found < 0:
                raise RuntimeError(f"no forked bot process for {bp.proc.pid} (its sandbox's pid)")
            pids.append(found)
            continue
        todo, found = [bp.proc.pid], None
        while todo:
            p = todo.pop()
            try:
                with open(f"/proc/{p}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                argv = []
            if b"-m" in argv and b"sdk" in argv and b"python" in Path(argv[0].decode(errors="replace")).name.encode():
                found = p
            todo.extend(kids.get(p, ()))
        if found is None:
            raise RuntimeError(f"no bot process under pid {bp.proc.pid}")
        pids.append(found)
    return pids


@dataclass
class Cpu:
    """CPU of a set of processes over a window, in ns: the main (event-loop) threads and
    the others (gRPC core's poller and event-engine threads), and their runqueue waits."""

    main: int = 0
    other: int = 0
    main_wait: int = 0
    other_wait: int = 0

    def add(self, pid: int, before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]]) -> None:
        for tid, (run, wait) in after.items():
            run0, wait0 = before.get(tid, (0, 0))
            if tid == pid:
                self.main += run - run0
                self.main_wait += wait - wait0
            else:
                self.other += run - run0
                self.other_wait += wait - wait0


class Window:
    """Snapshots of the threads of some processes, taken at ``start`` and ``end``."""

    def __init__(self) -> None:
        self.before: dict[int, dict[int, tuple[int, int]]] = {}
        self.after: dict[int, dict[int, tuple[int, int]]] = {}

    def start(self, pids: list[int]) -> None:
        self.before = {p: thread_times(p) for p in pids}

    def end(self, pids: list[int]) -> None:
        self.after = {p: thread_times(p) for p in pids}

    def cpu(self, pids: list[int]) -> Cpu:
        c = Cpu()
        for p in pids:
            c.add(p, self.before.get(p, {}), self.after.get(p, {}))
        return c


@dataclass
class Round:
    """One measured window: wall seconds, decisions, and the CPU of each side."""

    wall: float
    decisions: int
    server: Cpu
    clients: Cpu
    iterations: int = 0  # of the arbiter's event loop (hosted rounds only)

    def per(self, ns: int) -> float:
        """µs per decision of ``ns`` over the window."""
        return ns / 1000 / self.decisions

    def row(self) -> dict[str, float]:
        s, c = self.server, self.clients
        cpu = s.main + s.other + c.main + c.other
        return {
            "wall": self.wall * 1e6 / self.decisions,
            "server.loop": self.per(s.main), "server.grpc": self.per(s.other),
            "clients.loop": self.per(c.main), "clients.grpc": self.per(c.other),
            "cpu": self.per(cpu),
            "rest": self.wall * 1e6 / self.decisions - self.per(cpu),
            "runqueue": self.per(s.main_wait + s.other_wait + c.main_wait + c.other_wait),
            "server.runqueue": self.per(s.main_wait + s.other_wait), "clients.runqueue": self.per(c.main_wait + c.other_wait),
            "server.iterations": self.iterations / self.decisions,
        }


async def hosted_round(arena: Any, pids: list[int], matches: int, seed: int) -> Round:
    """CPU and wall of ``matches`` hosted Spades matches (2 deals), one after another."""
    me = os.getpid()
    loop = asyncio.get_running_loop()
    iterations = [0]
    run_once = loop._run_once  # type: ignore[attr-defined]

    def counted() -> None:  # the loop's iterations in this window (run_forever calls self._run_once)
        iterations[0] += 1
        run_once()

    w = Window()
    w.start([me, *pids])
    t0 = time.perf_counter()
    decisions = 0
    loop._run_once = counted  # type: ignore[attr-defined]
    try:
        for i in range(matches):
            record = await arena.match(seed + i, {"deals": 2})
            if record.incidents:
                raise RuntimeError(f"breakdown match had incidents: {record.incidents}")
            decisions += len(record.actions)
    finally:
        del loop._run_once  # type: ignore[attr-defined]
    wall = time.perf_counter() - t0
    w.end([me, *pids])
    return Round(wall, decisions, w.cpu([me]), w.cpu(pids), iterations[0])


def view_deltas(arena: Any, revision: int | None) -> None:
    """Make the arena's live bot sessions take view deltas of ``revision`` (0: whole views;
    None: what each asked for in its Hello, as the arbiter grants it)."""
    from cardarena.wire import codec

    for session in arena.pool.hub.sessions.values():
        session.view_deltas = codec.VIEW_DELTAS if revision is None else revision


async def floor_round(turn_bytes: int, act_bytes: int, seats: int, transport: str, exchanges: int = FLOOR_EXCHANGES) -> Round:
    """CPU and wall of the ``seats``-seat floor (bench._floor_seats_round)."""
    me = os.getpid()
    w = Window()
    clients: list[int] = []

    def window(phase: str, pids: list[int]) -> None:
        clients[:] = pids
        (w.start if phase == "start" else w.end)([me, *pids])

    per = await bench._floor_seats_round(turn_bytes, act_bytes, exchanges, seats=seats, transport=transport, window=window)
    return Round(per * exchanges, exchanges, w.cpu([me]), w.cpu(clients))


# --------------------------------------------------------------------------------------
# The work of a decision in this process, step by step (a per-phase timer).

#: The steps of ``step_costs``: (key, side, label), in the order a decision does them.
STEPS: tuple[tuple[str, str, str], ...] = (
    ("legal", "arbiter", "engine: legal actions"),
    ("view", "arbiter", "engine: the seat's view"),
    ("turn", "arbiter", "wire: the Turn's bytes (view, legal actions, events: turn_wire)"),
    ("turn.parse", "bot", "protobuf: parse the Turn (the SDK's, from the bytes either transport hands it)"),
    ("sdk.view", "bot", "SDK: the view (lazy: what the random bot reads of it, nothing)"),
    ("sdk.legal", "bot", "SDK: the legal actions (found by their bytes in the frame)"),
    ("sdk.events", "bot", "SDK: decode the events"),
    ("choose", "bot", "random bot: choose"),
    ("act", "bot", "SDK: build and serialize the Act"),
    ("act.parse", "arbiter", "protobuf: parse the Act"),
    ("act.decode", "arbiter", "wire: decode the Act's action"),
    ("apply", "arbiter", "engine: apply"),
    ("events", "arbiter", "runner: each seat's events (events_for)"),
)


def step_costs(decisions: int = 3000, seed: int = 0) -> dict[str, float]:
    """µs of CPU per decision of each step a hosted Spades decision takes on either side,
    run here one after another without any transport: the arbiter's calls (engine, wire
    codec) and the SDK's (the same codec functions ``sdk.convert`` calls), each timed with
    the thread's CPU clock (``time.thread_time_ns``; the clock's own cost is taken off)."""
    import random

    from cardarena.games import events_for, get_game
    from cardarena.v1 import arena_pb2 as pb
    from cardarena.wire import codec

    clock = time.thread_time_ns
    t0 = clock()
    for _ in range(1000):
        clock()
    tick = (clock() - t0) / 1000  # one reading of the clock
    total: collections.Counter = collections.Counter()
    game = get_game("spades", {"deals": 2})
    done = games = 0
    while done < decisions:
        state = game.new_initial_state(seed + games)
        rng = random.Random(seed + games)
        unsent: list[list[Any]] = [list(events_for(state.log, s)) for s in range(game.num_seats)]
        rid = 0
        while not state.is_terminal and done < decisions:
            seat = state.current_seat
            rid += 1
            marks = [clock()]
            legal = state.legal_actions()
            marks.append(clock())
            view = state.view(seat)
            marks.append(clock())
            wire = codec.turn_wire("spades", "0123456789ab", rid, seat, view, legal, 10_000, 60_000, unsent[seat])
            marks.append(clock())
            got = pb.ArbiterMessage.FromString(wire).turn  # (gRPC writes the bytes as they are since attempt 104)
            marks.append(clock())
            codec.lazy_view_from_proto("spades", got.view)
            marks.append(clock())
            their_legal = (codec.legal_actions_from_frame("spades", wire, len(got.legal_actions))
                           or codec.legal_actions_from_proto("spades", got.legal_actions))
            marks.append(clock())
            [codec.event_from_proto(e) for e in got.events]
            marks.append(clock())
            choice = rng.choice(their_legal)
            marks.append(clock())
            msg = pb.BotMessage()  # as sdk.convert.act_to_proto makes it (the tools may not import the SDK)
            msg.act.match_id, msg.act.request_id, msg.act.seat_token = got.match_id, got.request_id, "t" * 22
            msg.act.action.MergeFromString(codec.action_wire("spades", choice))
            act = msg.SerializeToString()
            marks.append(clock())
            raw = pb.BotMessage.FromString(act).act
            marks.append(clock())
            action = codec.action_from_proto("spades", raw.action)
            marks.append(clock())
            new_events = state.apply(action)
            marks.append(clock())
            unsent[seat] = []
            for s in range(game.num_seats):
                unsent[s].extend(events_for(new_events, s))
            marks.append(clock())
            for (key, _, _), a, b in zip(STEPS, marks, marks[1:]):
                total[key] += b - a - tick
            done += 1
        games += 1
    return {key: total[key] / 1000 / done for key, _, _ in STEPS}


#: The codec's alternatives measured side by side (``codec_costs``): (key, label).
CODEC_PAIRS: tuple[tuple[str, str], ...] = (
    ("turn.message", "arbiter: the Turn built as a message from the view's dicts, serialized (before issue 42)"),
    ("turn.wire", "arbiter: the Turn written as bytes (codec.turn_wire)"),
    ("turn.wire.python", "arbiter: the same by the Python encoders alone (without the C extension, _wirec)"),
    ("legal.proto", "bot: the legal actions from the parsed message (gRPC: codec.legal_actions_from_proto)"),
    ("legal.frame", "bot: the legal actions read from the frame's bytes (local: codec.legal_actions_from_frame)"),
    ("view.eager", "bot: the whole view decoded (codec.view_from_proto, before issue 42)"),
    ("view.lazy", "bot: the lazy view, nothing read (codec.lazy_view_from_proto)"),
    ("view.lazy.read", "bot: the lazy view, hand, trick and seats read (a bot that reads them)"),
    ("turn.delta", "arbiter: the Turn with a view delta (ViewDeltaWriter.delta, turn_wire)"),
    ("view.delta", "bot: the delta applied, the lazy view, nothing read (ViewDeltaReader.apply)"),
    ("view.delta.read", "bot: the delta applied, hand, trick and seats read (unchanged ones carried over)"),
    ("turn.bytes.whole", "bytes of the Turn with the whole view (mean)"),
    ("turn.bytes.delta", "bytes of the Turn with a view delta (mean)"),
)


def _python_codec() -> Any:
    """A second copy of ``cardarena.wire.codec`` loaded without the C extension (its own
    encoders and caches, all Python), to measure the extension against in one process."""
    import importlib.util

    from cardarena.wire import codec

    spec = importlib.util.spec_from_file_location("cardarena.wire._codec_python", codec.__file__)
    module = importlib.util.module_from_spec(spec)
    before = os.environ.get("ARENA_NO_WIREC")
    os.environ["ARENA_NO_WIREC"] = "1"
    try:
        spec.loader.exec_module(module)
    finally:
        if before is None:
            os.environ.pop("ARENA_NO_WIREC", None)
        else:
            os.environ["ARENA_NO_WIREC"] = before
    return module


def codec_costs(seed: int = 0, passes: int = 3) -> dict[str, float]:
    """µs of CPU per decision of each of ``CODEC_PAIRS`` on the same Spades decisions (random
    play, 2 deals per game), alternated pass by pass in this process; the best pass of each."""
    import random

    from cardarena.games import events_for, get_game
    from cardarena.v1 import arena_pb2 as pb
    from cardarena.wire import codec

    game = get_game("spades", {"deals": 2})
    cases = []
    owners = []  # (game, seat) of each case: a seat's deltas follow its own previous Turn
    for g in range(4):
        state, rng = game.new_initial_state(seed + g), random.Random(seed + g)
        unsent: list[list[Any]] = [list(events_for(state.log, s)) for s in range(game.num_seats)]
        while not state.is_terminal:
            seat, legal = state.current_seat, state.legal_actions()
            owners.append((g, seat))
            cases.append((seat, state.view(seat), legal, unsent[seat]))
            unsent[seat] = []
            new = state.apply(rng.choice(legal))
            for s in range(game.num_seats):
                unsent[s].extend(events_for(new, s))
    views = [pb.ArbiterMessage.FromString(codec.turn_wire("spades", "m", 1, s, v, l, 1, 1, e)).turn.view
             for s, v, l, e in cases]
    frames = [codec.turn_wire("spades", "m", 1, s, v, l, 1, 1, e) for s, v, l, e in cases]
    turns = [pb.ArbiterMessage.FromString(f).turn for f in frames]
    python = _python_codec()

    def from_frames() -> None:
        for f, t in zip(frames, turns):
            n = len(t.legal_actions)
            if codec.legal_actions_from_frame("spades", f, n) is None:  # (without the extension: the message's)
                codec.legal_actions_from_proto("spades", t.legal_actions)

    def message(s: int, v: Any, l: Any, e: Any) -> bytes:
        msg = pb.ArbiterMessage(turn={"match_id": "0123456789ab", "request_id": 7, "seat": s,
                                      "view": codec.view_fields("spades", v), "clock": {"decision_ms": 1000, "bank_ms": 60000}})
        msg.turn.MergeFromString(codec.events_wire(e) + codec.legal_actions_wire("spades", l))
        return msg.SerializeToString()

    def read(m: Any) -> None:
        view = codec.lazy_view_from_proto("spades", m)
        view.hand, view.trick, view.seats  # noqa: B018

    def deltas() -> list[bytes]:
        writers: dict[tuple[int, int], Any] = {}
        out = []
        for (s, v, l, e), owner in zip(cases, owners):
            w = writers.get(owner)
            if w is None:
                w = writers[owner] = codec.ViewDeltaWriter("spades")
            out.append(codec.turn_wire("spades", "0123456789ab", 7, s, v, l, 1000, 60000, e, w.delta(v)))
        return out

    delta_turns = deltas()
    delta_msgs = [pb.ArbiterMessage.FromString(t).turn.view_delta for t in delta_turns]

    def apply(read_fields: bool) -> None:
        readers: dict[tuple[int, int], Any] = {}
        for d, owner in zip(delta_msgs, owners):
            r = readers.get(owner)
            if r is None:
                r = readers[owner] = codec.ViewDeltaReader("spades")
            view = r.apply(d)
            if read_fields:
                view.hand, view.trick, view.seats  # noqa: B018

    runs: dict[str, Any] = {
        "turn.message": lambda: [message(*c) for c in cases],
        "turn.wire": lambda: [codec.turn_wire("spades", "0123456789ab", 7, s, v, l, 1000, 60000, e) for s, v, l, e in cases],
        "turn.wire.python": lambda: [python.turn_wire("spades", "0123456789ab", 7, s, v, l, 1000, 60000, e)
                                     for s, v, l, e in cases],
        "legal.proto": lambda: [codec.legal_actions_from_proto("spades", t.legal_actions) for t in turns],
        "legal.frame": from_frames,
        "view.eager": lambda: [codec.view_from_proto("spades", m) for m in views],
        "view.lazy": lambda: [codec.lazy_view_from_proto("spades", m) for m in views],
        "view.lazy.read": lambda: [read(m) for m in views],
        "turn.delta": deltas,
        "view.delta": lambda: apply(False),
        "view.delta.read": lambda: apply(True),
    }
    best: dict[str, float] = {}
    for _ in range(passes):
        for key, run in runs.items():
            t0 = time.thread_time_ns()
            run()
            us = (time.thread_time_ns() - t0) / 1000 / len(cases)
            best[key] = min(us, best.get(key, us))
    whole_turns = [codec.turn_wire("spades", "0123456789ab", 7, s, v, l, 1000, 60000, e) for s, v, l, e in cases]
    best["turn.bytes.whole"] = sum(map(len, whole_turns)) / len(cases)
    best["turn.bytes.delta"] = sum(map(len, delta_turns)) / len(cases)
    return best


# --------------------------------------------------------------------------------------
# Phases of the event-loop threads, from py-spy's samples.

#: Phases in print order: (key, side, label).
PHASES: tuple[tuple[str, str, str], ...] = (
    ("engine.view", "arbiter", "engine: the seat's view (State.view)"),
    ("engine.legal", "arbiter", "engine: legal actions"),
    ("engine.apply", "arbiter", "engine: apply (and its events)"),
    ("engine.other", "arbiter", "engine: other (new state, outcome, spectator view)"),
    ("wire.turn", "arbiter", "wire: encode the Turn (view, legal actions, events)"),
    ("wire.act", "arbiter", "wire: decode the Act"),
    ("wire.other", "arbiter", "wire: MatchStart, MatchEnd"),
    ("runner", "arbiter", "match runner: ask, validate, record, clocks, notify"),
    ("seat", "arbiter", "RemoteSeat and Session: pending future, timer, outbox"),
    ("servicer", "arbiter", "stream servicer: Play (outbox -> stream), _read (stream -> future)"),
    ("grpc", "both", "grpc.aio (Python and Cython: read, write, (de)serialize)"),
    ("asyncio", "both", "asyncio in Python: the loop's iterations, futures, queues, timers"),
    ("callback.c", "both", "loop callbacks in C: grpc's Cython completions, C task steps (hand-offs)"),
    ("sdk.turn", "bot", "SDK: decode the Turn (view, legal actions, events)"),
    ("sdk.choose", "bot", "the bot's choose (random)"),
    ("sdk.act", "bot", "SDK: encode the Act"),
    ("sdk.match", "bot", "SDK: MatchStart, MatchEnd (a fresh bot, options, result)"),
    ("sdk.runner", "bot", "SDK runner: handle, answer, write loop"),
    ("floor", "both", "the floor's own code (its write/read loop)"),
    ("other", "both", "other (unclassified frames)"),
)

_ENGINE_PHASE = {"view": "engine.view", "_view": "engine.view", "legal_actions": "engine.legal", "apply": "engine.apply"}


def _frame(text: str) -> tuple[str, str]:
    """(function, file) of a py-spy frame ``func (file:line)``."""
    func, _, rest = text.rpartition(" (")
    return func, rest.rsplit(":", 1)[0].rstrip(")")


def _func_name(func: str) -> str:
    return func.rsplit(".", 1)[-1]


def classify(frames: list[str]) -> str:
    """The phase of one sample, ``frames`` root first: the innermost frame in a known part
    decides; for the engine and the codec, the outermost frame of that part names the step."""
    parsed = [_frame(f) for f in frames]
    for i in range(len(parsed) - 1, -1, -1):
        func, path = parsed[i]
        if "cardarena/games/" in path:
            j = i
            while j > 0 and "cardarena/games/" in parsed[j - 1][1]:
                j -= 1
            return _ENGINE_PHASE.get(_func_name(parsed[j][0]), "engine.other")
        if "cardarena/wire/" in path or "sdk/convert.py" in path or path.startswith(
                ("<encoder", "<decoder", "<wire encoder", "<wire field", "<view delta")):
            # the outermost frame of the conversion code names the step
            names = [_func_name(f) for f, p in parsed[:i + 1]
                     if "cardarena/wire/" in p or "sdk/convert.py" in p
                     or p.startswith(("<encoder", "<decoder", "<wire encoder", "<wire field", "<view delta"))]
            outer = names[0] if names else ""
            if outer in ("turn_to_proto", "turn_wire", "legal_actions_wire", "event_fields", "delta"):
                return "wire.turn"
            if outer == "action_from_proto":
                return "wire.act"
            if outer in ("turn_from_proto", "events_from_proto", "view_from_proto", "legal_actions_from_proto",
                         "event_from_proto", "lazy_view_from_proto", "__getattr__", "turn_delta_from_proto", "apply"):
                return "sdk.turn"
            if outer in ("act_to_proto", "action_fields"):
                return "sdk.act"
            if outer in ("match_info_from_proto", "result_from_proto", "options_from_wire", "_parsed_options", "outcome_from_proto"):
                return "sdk.match"
            return "wire.other" if any("arbiter/" in p for _, p in parsed) else "sdk.match"
        if "arbiter/tools/bench.py" in path or (path == "<string>" and func == "main"):  # the floor's client is a -c script
            return "floor"
        if path.startswith("bots/") or "/bots/" in path:
            return "sdk.choose"
        if "sdk/bot.py" in path:
            return "sdk.match" if _func_name(func) in ("fresh_copy", "_start", "on_match_start", "on_match_end") else "sdk.choose"
        if "sdk/runner.py" in path or "sdk/driver.py" in path:  # the connection and the one bot driver
            return "sdk.runner"
        if "arbiter/match/" in path:
            return "runner"
        if "arbiter/server/botstream.py" in path:
            return "servicer" if func.startswith("BotStreamServicer.") else "seat"
        if "grpc/" in path or "grpc_" in path or "_cython" in path:
            return "grpc"
        if "asyncio/" in path or path.endswith("selectors.py"):
            if i == len(parsed) - 1 and func == "Handle._run":
                return "callback.c"  # a callback in C: grpc's Cython completion handling, C tasks
            return "asyncio"
    return "other"


#: Leaf frames of an event-loop thread waiting for something to do.
IDLE_LEAVES = ("EpollSelector.select (selectors.py", "epoll_wait (", "_FrameSocket.read (sdk/runner.py")  # waiting for the next message


def read_samples(path: Path) -> collections.Counter:
    """phase -> samples of the main thread in a py-spy ``--format raw --threads`` file."""
    counts: collections.Counter = collections.Counter()
    if not path.exists():
        return counts
    for line in path.read_text(errors="replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        frames = stack.split(";")
        if not frames[0].startswith("thread") or not frames[0].endswith("MainThread"):
            continue  # the gRPC poller thread: native code, measured as CPU in part 1
        if frames[-1].startswith(IDLE_LEAVES):
            # waiting in epoll: py-spy cannot tell idle threads of a sandbox's processes
            # (and misses some in this one), so the wait is recognised by its frame
            continue
        counts[classify(frames[1:])] += int(n)
    return counts


class Sampler:
    """py-spy recording some processes until ``stop``."""

    def __init__(self, py_spy: str, pids: list[int], rate: int, out_dir: Path, native: bool = False):
        self.files = [out_dir / f"spy-{i}-{pid}.txt" for i, pid in enumerate(pids)]
        self.procs = [
            subprocess.Popen([py_spy, "record", "--pid", str(pid), "--rate", str(rate), "--threads", "--format", "raw",
                              *(["--native"] if native else []), "-o", str(f)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=open(f.with_suffix(".err"), "w"))
            for pid, f in zip(pids, self.files)
        ]

    def stop(self) -> None:
        # SIGINT: py-spy's stop that writes its samples; 30 s for them all, not each
        stop_processes(self.procs, 30, first=signal.SIGINT)


async def profile_hosted(arena: Any, pids: list[int], py_spy: str, matches: int, seed: int, rate: int,
                         out_dir: Path) -> tuple[collections.Counter, collections.Counter]:
    """(arbiter, bots) phase -> samples of the main threads over ``matches`` matches."""
    sampler = Sampler(py_spy, [os.getpid(), *pids], rate, out_dir)
    await asyncio.sleep(1.0)  # attached
    try:
        for i in range(matches):
            await arena.match(seed + i, {"deals": 2})
    finally:
        await asyncio.to_thread(sampler.stop)
    arbiter = read_samples(sampler.files[0])
    bots: collections.Counter = collections.Counter()
    for f in sampler.files[1:]:
        bots.update(read_samples(f))
    return arbiter, bots


async def profile_floor(turn_bytes: int, act_bytes: int, seats: int, transport: str, py_spy: str, rate: int,
                        out_dir: Path, exchanges: int = 4 * FLOOR_EXCHANGES) -> tuple[collections.Counter, collections.Counter]:
    """(server, clients) phase -> samples of the main threads over one floor round."""
    me = os.getpid()
    held: dict[str, Sampler] = {}

    def window(phase: str, pids: list[int]) -> None:
        if phase == "start":
            held["s"] = Sampler(py_spy, [me, *pids], rate, out_dir)
        else:
            held["s"].stop()

    await bench._floor_seats_round(turn_bytes, act_bytes, exchanges, seats=seats, transport=transport, window=window)
    files = held["s"].files
    clients: collections.Counter = collections.Counter()
    for f in files[1:]:
        clients.update(read_samples(f))
    return read_samples(files[0]), clients


# --------------------------------------------------------------------------------------
# What the arbiter's event loop costs per decision, alone (``--loop``).

#: Round trips of one ``loop_costs`` pass.
LOOP_TRIPS = 10_000

#: (key, label) of ``loop_costs``' rows, in the order they are measured.
LOOP_ROWS: tuple[tuple[str, str], ...] = (
    ("task", "the answer resolves a future a task awaits, which writes the next (and a timer per round trip)"),
    ("callback.timer", "the answer's callback writes the next, with a timer made and cancelled per round trip"),
    ("callback", "the answer's callback writes the next (issue 42: runner._relayed, one lazy timer a seat)"),
    ("thread", "no event loop: a thread of its own polls the socket, reads, writes the next (attempt 40, not kept)"),
)


def _echo(sock: Any) -> None:
    """The peer of ``loop_costs``: answers every message with a short one, blocking."""
    while True:
        data = sock.recv(65536)
        if not data:
            return
        sock.sendall(b"a" * 60)


async def _loop_trips(mode: str, trips: int) -> float:
    """µs of this thread's CPU per round trip over a Unix socket to a blocking echo process
    (a 600-byte message out, 60 bytes back), the next message written as ``mode`` says."""
    import multiprocessing
    import socket

    loop = asyncio.get_running_loop()
    ours, theirs = socket.socketpair()
    peer = multiprocessing.get_context("fork").Process(target=_echo, args=(theirs,), daemon=True)
    peer.start()
    theirs.close()
    done = loop.create_future()
    message = b"t" * 600

    class Side(asyncio.Protocol):
        def __init__(self) -> None:
            self.n, self.waiter, self.timer = 0, None, None

        def connection_made(self, transport: Any) -> None:
            self.transport = transport

        def data_received(self, data: bytes) -> None:
            if mode == "task":
                waiter, self.waiter = self.waiter, None
                waiter.set_result(data)
                return
            self.n += 1
            if self.n >= trips:
                done.set_result(None)
                return
            if mode == "callback.timer":
                self.timer.cancel()
                self.timer = loop.call_at(loop.time() + 60, lambda: None)
            self.transport.write(message)

    if mode == "thread":
        cpu = await asyncio.to_thread(_polled_trips, ours, message, trips)
        ours.close()
        peer.join(5)
        return cpu
    transport, side = await loop.create_connection(Side, sock=ours)
    t0 = time.thread_time()
    if mode == "task":
        for _ in range(trips):
            side.waiter = loop.create_future()
            timer = loop.call_at(loop.time() + 60, lambda: None)
            transport.write(message)
            await side.waiter
            timer.cancel()
    else:
        side.timer = loop.call_at(loop.time() + 60, lambda: None)
        transport.write(message)
        await done
        side.timer.cancel()
    cpu = time.thread_time() - t0
    transport.close()
    await asyncio.sleep(0)
    peer.join(5)
    return 1e6 * cpu / trips


def _polled_trips(sock: Any, message: bytes, trips: int) -> float:
    """``_loop_trips``' "thread" way: µs of this thread's CPU per round trip, the socket
    polled (with a deadline, as a decision's clock would be) and read and written with plain
    system calls. Attempt 40 (docs/performance.md) played a match's seats this way: half the
    event loop's CPU here, none of it gained in whole hosted matches."""
    import select

    sock.setblocking(False)
    fd = sock.fileno()
    poll = select.epoll()
    poll.register(fd, select.EPOLLIN)
    t0 = time.thread_time()
    for _ in range(trips):
        os.write(fd, message)
        while not poll.poll(60.0):
            pass
        os.read(fd, 262144)
    cpu = time.thread_time() - t0
    poll.close()
    return 1e6 * cpu / trips


def loop_costs(trips: int = LOOP_TRIPS) -> dict[str, float]:
    """µs of the loop thread's CPU per round trip for each way of ``LOOP_ROWS`` (one pass
    each, in this process: the event loop's part of a hosted decision, without the game)."""
    return {key: asyncio.run(_loop_trips(key, trips)) for key, _ in LOOP_ROWS}


# --------------------------------------------------------------------------------------
# The arbiter's side alone, in this process (``--arbiter``).

#: The rows of ``arbiter_costs``: (key, label).
ARBITER_ROWS: tuple[tuple[str, str], ...] = (
    ("decision", "per decision: the servicer's receive of the Act, the whole decision played from it, the next Turn written"),
    ("decision.critical", "  of which before the next Turn is written (the critical path: that bot waits for it)"),
    ("decision.turn", "  of which the Turn's bytes (codec.turn_wire)"),
    ("match", "per match, outside the decisions' receive: game, MatchStart/End, first Turn, loop turns between (ms)"),
)


class _RecordingWire:
    """``Session.wire`` in place of the local channel's socket: what the arbiter sends is
    answered from the event loop's next iteration (as a bot's Act is read), by ``answer``."""

    def __init__(self, loop: asyncio.AbstractEventLoop, answer: Any, written: Callable[[], None] = lambda: None):
        self.loop, self.answer, self.session, self.written = loop, answer, None, written

    def send(self, msg: Any) -> None:
        self.written()
        self.loop.call_soon(self.answer, self, msg if isinstance(msg, bytes) else msg.SerializeToString())

    def stalled(self) -> bool:
        return False

    def close(self) -> None:
        pass


async def _arbiter_matches(matches: int, deals: int, seed: int) -> dict[str, float]:
    """CPU of the arbiter's side of ``matches`` hosted Spades matches (after 2 to warm up):
    the real hub, sessions, ``RemoteSeat``s, ``BotStreamServicer.receive`` and runner, the
    socket replaced by ``_RecordingWire`` and the four bots by an answer of a random legal
    action built here (its time not counted)."""
    import random

    from arbiter.match import run_match
    from arbiter.server import botstream
    from cardarena.records import Clock, MatchConfig
    from cardarena.v1 import arena_pb2 as pb
    from cardarena.wire import codec

    clock = time.thread_time
    loop = asyncio.get_running_loop()
    hub = botstream.Hub(open_join=True)
    servicer = botstream.BotStreamServicer(hub)
    rng = random.Random(seed)
    tokens: dict[tuple[str, int], str] = {}
    spent = {"receive": 0.0, "critical": 0.0, "answer": 0.0, "turn": 0.0, "decisions": 0}
    receiving = [0.0]  # when the receive at hand began; 0: none, or its Turn is written

    def written() -> None:  # the wire's send: the first message of a receive is its Turn
        if receiving[0]:
            spent["critical"] += clock() - receiving[0]
            receiving[0] = 0.0
    turn_wire = botstream.convert.turn_wire

    def timed_turn(*args: Any, **kw: Any) -> bytes:
        t0 = clock()
        try:
            return turn_wire(*args, **kw)
        finally:
            spent["turn"] += clock() - t0

    def answer(wire: _RecordingWire, data: bytes) -> None:
        t0 = clock()
        msg = pb.ArbiterMessage.FromString(data)
        which = msg.WhichOneof("msg")
        if which == "match_start":
            tokens[(msg.match_start.match_id, msg.match_start.seat)] = msg.match_start.seat_token
        elif which == "turn":
            turn = msg.turn
            act = pb.BotMessage()
            act.act.match_id, act.act.request_id = turn.match_id, turn.request_id
            act.act.seat_token = tokens[(turn.match_id, turn.seat)]
            act.act.action.CopyFrom(rng.choice(turn.legal_actions))
            payload = act.SerializeToString()
            t1 = receiving[0] = clock()
            servicer.receive(wire.session, pb.BotMessage.FromString(payload))  # as the local channel's _handle
            t2 = clock()
            spent["receive"] += t2 - t1
            if receiving[0]:  # no Turn written (the match's last decision): all of it
                spent["critical"] += t2 - t1
                receiving[0] = 0.0
            spent["decisions"] += 1
        spent["answer"] += clock() - t0

    for i in range(4):
        session = hub.add(pb.Hello(bot_name=f"bot{i}", protocol_version=codec.PROTOCOL_VERSION, games=["spades"]))
        session.wire = _RecordingWire(loop, answer, written)
        session.wire.session = session
    total = 0.0
    botstream.convert.turn_wire = timed_turn
    try:
        for k in range(matches + 2):
            if k == 2:  # warm: every cache of the codec and the engine filled as in a long-lived arbiter
                total, spent.update(receive=0.0, critical=0.0, answer=0.0, turn=0.0, decisions=0)
            config = MatchConfig(game="spades", seed=seed + k, options={"deals": deals}, clock=Clock(60_000, 600_000))
            seats = [botstream.RemoteSeat(s, "spades") for s in hub.sessions.values()]
            t0 = clock()
            record = await run_match(config, seats)
            total += clock() - t0
            if record.incidents:
                raise RuntimeError(f"--arbiter match had incidents: {record.incidents}")
    finally:
        botstream.convert.turn_wire = turn_wire
    n = spent["decisions"]
    return {"decision": spent["receive"] / n * 1e6, "decision.critical": spent["critical"] / n * 1e6,
            "decision.turn": spent["turn"] / n * 1e6,
            "match": (total - spent["answer"]) / matches * 1e3, "decisions": n / matches}


def arbiter_costs(matches: int = 40, deals: int = 1, seed: int = 0) -> dict[str, float]:
    """µs of CPU per decision (and ms per match) of the arbiter's side of hosted Spades
    matches, in this process with warm caches (``_arbiter_matches``): what a change to the
    runner, the seat or the codec saves, without the bots' processes, the socket or the
    event loop's waking (which ``--transport local`` measures whole)."""
    return asyncio.run(_arbiter_matches(matches, deals, seed))


# --------------------------------------------------------------------------------------
# A timeline of hosted local decisions (``--timeline``).

#: The random bot, noting when its ``choose`` began and ended (``time.perf_counter_ns``:
#: CLOCK_MONOTONIC, one clock for every process of the machine), for ``timeline``.
_STAMP_BOT = """
import time
from sdk.random_bot import RandomBot


class StampBot(RandomBot):
    def choose(self, view, legal_actions):
        t0 = time.perf_counter_ns()
        action = super().choose(view, legal_actions)
        self.note(f"{t0} {time.perf_counter_ns()}")
        return action
"""

#: The rows of ``timeline``: (key, label); medians over a round's decisions, in µs.
TIMELINE_ROWS: tuple[tuple[str, str], ...] = (
    ("decision", "a decision, from a Turn's write to the next's"),
    ("arbiter", "  the arbiter: an Act's data_received to the next Turn's write"),
    ("send", "  the arbiter's send of a Turn, to its return"),
    ("turn", "  the bot: the Turn's write to its choose (its wake-up, read, parse, the SDK)"),
    ("choose", "  the bot's choose"),
    ("act", "  the choose's end to the Act's data_received (the SDK's Act, its write, the arbiter's read)"),
    ("decision.mean", "a decision, mean (what the bench's row averages: the costly decisions count)"),
    ("decision.bid", "  mean of a bid's (or look's), its Turn's write to the next's"),
    ("decision.give", "  mean of a give's (Spades' exchange: ~91 legal actions)"),
    ("decision.play", "  mean of a card play's"),
    ("sends.long", "sends of a Turn over 20 µs: the woken bot ran first on the arbiter's CPU (%)"),
    ("watched", "Turns whose Act the arbiter watched for, awake (%)"),
)


async def _timeline_round(venue: Any, names: list[str], matches: int, seed: int) -> dict[str, float]:
    """One round of ``timeline``: ``matches`` 2-deal matches one at a time at ``venue``."""
    from arbiter.batch.engine import play_batch
    from arbiter.server import localchannel

    writes: list[int] = []
    sends: list[int] = []
    reads: list[int] = []
    send, data_received = localchannel._Connection.send, localchannel._Connection.data_received

    def stamped_send(conn: Any, msg: Any) -> None:
        t = time.perf_counter_ns()
        send(conn, msg)
        if conn.session is not None and conn.session.pending:  # a Turn: its Act is awaited
            writes.append(t)
            sends.append(time.perf_counter_ns() - t)

    def stamped_read(conn: Any, data: bytes) -> None:
        reads.append(time.perf_counter_ns())
        data_received(conn, data)

    rows: dict[str, list[float]] = collections.defaultdict(list)
    kinds: dict[str, list[float]] = collections.defaultdict(list)  # the decisions by the kind of action
    watched = localchannel._Awaited.watched
    decisions = 0
    localchannel._Connection.send = stamped_send  # type: ignore[method-assign]
    localchannel._Connection.data_received = stamped_read  # type: ignore[method-assign]
    try:
        for i in range(matches):
            writes.clear(), sends.clear(), reads.clear()
            plan = bench._bench_plan(names, 1, seed + i, {"deals": 2})
            record = [p.record async for p in play_batch(plan, venue, concurrency=1)][0]
            decisions += len(record.actions)
            rows["send"] += sends
            for k, recorded in enumerate(record.actions[:min(len(writes), len(reads))]):
                c0, c1 = map(int, recorded.note.split())
                rows["turn"].append(c0 - writes[k])
                rows["choose"].append(c1 - c0)
                rows["act"].append(reads[k] - c1)
                if k + 1 < len(writes):
                    rows["arbiter"].append(writes[k + 1] - reads[k])
                    rows["decision"].append(writes[k + 1] - writes[k])
                    kind = str(recorded.action).split(" ", 1)[0]  # the record's text: "bid 3", "give 2C 3D", ...
                    kinds["bid" if kind == "look" else kind].append(writes[k + 1] - writes[k])
    finally:
        localchannel._Connection.send = send  # type: ignore[method-assign]
        localchannel._Connection.data_received = data_received  # type: ignore[method-assign]
    out = {key: statistics.median(vals) / 1e3 for key, vals in rows.items()}
    out["decision.mean"] = statistics.fmean(rows["decision"]) / 1e3
    for kind in ("bid", "give", "play"):  # nan: none of that kind in this round (a deal without an exchange)
        out[f"decision.{kind}"] = statistics.fmean(kinds[kind]) / 1e3 if kinds[kind] else math.nan
    out["sends.long"] = 100 * sum(1 for d in rows["send"] if d > 20_000) / len(rows["send"])
    out["watched"] = 100 * (localchannel._Awaited.watched - watched) / decisions
    return out


async def _timeline(rounds: int, matches: int) -> list[dict[str, float]]:
    from arbiter.batch.venue import open_venue, parse_where

    with tempfile.TemporaryDirectory() as folder:
        bot = Path(folder) / "stamp_bot.py"
        bot.write_text(_STAMP_BOT)
        names = [f"stamp{i}" for i in range(4)]
        async with open_venue(parse_where("local"), {n: str(bot) for n in names}, "spades",
                              isolation="shared", warm=1) as venue:
            await _timeline_round(venue, names, 1, 9_999)  # warm
            return [await _timeline_round(venue, names, matches, 10_000 + 100 * r) for r in range(rounds)]


def timeline(rounds: int = 3, matches: int = 4) -> list[dict[str, float]]:
    """Where the wall time of a hosted local decision goes, one match at a time (the bench's
    ``hosted`` shape: the arbiter in this process, four random-bot processes): the Turn's
    write and the Act's ``data_received`` stamped in the arbiter, the bot's ``choose``
    stamped by the bot (its note), all on the machine's monotonic clock. Medians over each
    round's decisions, in µs (the shares in %)."""
    return asyncio.run(_timeline(rounds, matches))


# --------------------------------------------------------------------------------------
# One bot process alone, fed recorded Turns (``--bot``).

#: How many times ``bot_alone`` plays the recorded frames to a bot (the first 2 warm it up).
BOT_REPS = 12

#: A bare client on the local channel: parse each frame, answer a Turn with its first legal
#: action (the SDK's floor: what no SDK can do with less Python).
_BARE_CLIENT = """
import socket, sys
from cardarena.v1 import arena_pb2 as pb
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
hello = pb.BotMessage(hello=pb.Hello(bot_name="bare", token="x")).SerializeToString()
s.sendall(len(hello).to_bytes(4, "big") + hello)
buf = b""
while True:
    while len(buf) < 4 or len(buf) < 4 + int.from_bytes(buf[:4], "big"):
        chunk = s.recv(65536)
        if not chunk:
            sys.exit(0)
        buf += chunk
    n = int.from_bytes(buf[:4], "big")
    msg, buf = pb.ArbiterMessage.FromString(buf[4:4 + n]), buf[4 + n:]
    if msg.WhichOneof("msg") == "turn":
        t = msg.turn
        out = pb.BotMessage(act=pb.Act(match_id=t.match_id, request_id=t.request_id, action=t.legal_actions[0])).SerializeToString()
        s.sendall(len(out).to_bytes(4, "big") + out)
"""
#: The SDK's own loop on the local channel with the random bot.
_SDK_CLIENT = """
import sys
from cardarena.wire import framing
from sdk import runner
from sdk.random_bot import RandomBot
runner.run(RandomBot(), address=framing.SCHEME + sys.argv[1], token="x")
"""


async def recorded_frames(matches: int = 3, seed: int = 77) -> list[bytes]:
    """The frames the arbiter wrote to one bot over the local channel in ``matches`` hosted
    Spades matches (2 deals), in order (MatchStart, Turns, MatchEnd)."""
    from arbiter.server import localchannel

    sent: dict[int, list[bytes]] = collections.defaultdict(list)
    write = localchannel._Connection.send

    def recording(conn: Any, msg: Any) -> None:
        sent[id(conn)].append(msg if isinstance(msg, bytes) else msg.SerializeToString())
        write(conn, msg)

    async with bench._BenchArbiter(transport="local") as arena:
        localchannel._Connection.send = recording  # type: ignore[method-assign]
        try:
            for i in range(matches):
                await arena.match(seed + i, {"deals": 2})
        finally:
            localchannel._Connection.send = write  # type: ignore[method-assign]
    return max(sent.values(), key=len)


def bot_cpu(client: str, frames: list[bytes], reps: int = BOT_REPS) -> float:
    """µs of CPU per decision of a bot process (``client``: a ``-c`` script given the socket's
    path) that this process feeds ``frames`` ``reps`` times over a blocking Unix socket,
    reading one answer after each Turn; the first 2 passes warm it up and are not counted."""
    import socket

    from cardarena.v1 import arena_pb2 as pb
    from cardarena.wire import framing

    turns = [pb.ArbiterMessage.FromString(f).WhichOneof("msg") == "turn" for f in frames]
    with tempfile.TemporaryDirectory(prefix="arena-bot-") as tmp:
        path = os.path.join(tmp, "bot.sock")
        server = socket.socket(socket.AF_UNIX)
        server.bind(path)
        server.listen(1)
        proc = subprocess.Popen([sys.executable, "-c", client, path], stderr=subprocess.DEVNULL)
        conn, _ = server.accept()
        reader = framing.FrameReader(1 << 20)

        def read() -> bytes:
            while (payload := reader.next()) is None:
                chunk = conn.recv(65536)
                if not chunk:
                    raise RuntimeError("the bot closed its connection")
                reader.feed(chunk)
            return payload

        read()  # its Hello
        conn.sendall(framing.frame(pb.ArbiterMessage(welcome=pb.Welcome(session_id="alone", protocol_version=1)).SerializeToString()))
        start, decisions = 0, 0
        for rep in range(reps):
            if rep == 2:
                start, decisions = sum(t[0] for t in thread_times(proc.pid).values()), 0
            for data, turn in zip(frames, turns):
                conn.sendall(framing.frame(data))
                if turn:
                    read()
                    decisions += 1
        cpu = sum(t[0] for t in thread_times(proc.pid).values()) - start
        conn.close()
        server.close()
        proc.wait(30)
    return cpu / 1000 / decisions


#: (key, label, client) of ``bot_alone``'s rows.
BOT_ROWS: tuple[tuple[str, str, str], ...] = (
    ("sdk", "the SDK (sdk.runner._play_local, the random bot)", _SDK_CLIENT),
    ("bare", "a bare client: parse the Turn, answer its first legal action", _BARE_CLIENT),
)


def bot_alone(rounds: int = 3) -> dict[str, list[float]]:
    """Each row's bot CPU per decision, ``rounds`` times, the rows alternated."""
    frames = asyncio.run(recorded_frames())
    out: dict[str, list[float]] = {key: [] for key, _, _ in BOT_ROWS}
    for _ in range(rounds):
        for key, _, client in BOT_ROWS:
            out[key].append(bot_cpu(client, frames))
    return out


# --------------------------------------------------------------------------------------
# The run and its table.


@dataclass
class Breakdown:
    hosted: list[dict[str, float]] = field(default_factory=list)
    #: the same hosted matches another way, alternated round by round: with whole views in
    #: every Turn (``--whole-views``), or with the arbiter and its bots on one CPU (``--one-cpu``)
    hosted_other: list[dict[str, float]] = field(default_factory=list)
    other: str = ""  # "whole views" or "one CPU"
    floor1: list[dict[str, float]] = field(default_factory=list)
    floor4: list[dict[str, float]] = field(default_factory=list)
    arbiter_samples: dict[str, int] = field(default_factory=dict)
    bot_samples: dict[str, int] = field(default_factory=dict)
    steps: list[dict[str, float]] = field(default_factory=list)  # step_costs, one per round
    codec: list[dict[str, float]] = field(default_factory=list)  # codec_costs, one per round
    server_samples: dict[str, int] = field(default_factory=dict)  # the 4-seat floor's
    client_samples: dict[str, int] = field(default_factory=dict)
    machine: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def median(rows: list[dict[str, float]]) -> dict[str, float]:
        return {k: statistics.median(r[k] for r in rows) for k in rows[0]} if rows else {}

    def ratio(self, key: str = "wall") -> float | None:
        """hosted / 4-seat floor of ``key``, round by round, median."""
        pairs = [h[key] / f[key] for h, f in zip(self.hosted, self.floor4) if f[key]]
        return statistics.median(pairs) if pairs else None

    def phase_table(self) -> list[tuple[str, float, float, float, float]]:
        """(phase, arbiter µs, 4-seat floor server µs, bots µs, floor clients µs) per decision:
        each main thread's CPU per decision split by its samples, and the gRPC threads' CPU."""
        h, f = self.median(self.hosted), self.median(self.floor4)

        def split(samples: dict[str, int], loop_us: float) -> dict[str, float]:
            total = sum(samples.values())
            return {k: loop_us * n / total for k, n in samples.items()} if total else {}

        cols = (split(self.arbiter_samples, h["server.loop"]), split(self.server_samples, f.get("server.loop", 0)),
                split(self.bot_samples, h["clients.loop"]), split(self.client_samples, f.get("clients.loop", 0)))
        rows = []
        for key, _, label in PHASES:
            vals = [c.get(key, 0.0) for c in cols]
            if any(v >= 0.05 for v in vals):
                rows.append((label, *vals))
        rows.append(("gRPC core threads (poller, event engine; C)", h["server.grpc"], f.get("server.grpc", 0),
                     h["clients.grpc"], f.get("clients.grpc", 0)))
        return rows

    def phases(self) -> list[tuple[str, str, float, float]]:
        """(side, label, µs per decision, % of the hosted decision's wall) of every phase."""
        h = self.median(self.hosted)
        wall = h["wall"]
        rows = []
        for side, samples, loop_us in (("arbiter", self.arbiter_samples, h["server.loop"]),
                                       ("bots", self.bot_samples, h["clients.loop"])):
            total = sum(samples.values())
            for key, _, label in PHASES:
                n = samples.get(key, 0)
                if n and total:
                    us = loop_us * n / total
                    rows.append((side, label, us, 100 * us / wall))
            grpc = h["server.grpc" if side == "arbiter" else "clients.grpc"]
            rows.append((side, "gRPC core threads (poller, event engine; C)", grpc, 100 * grpc / wall))
        rows.append(("-", "no CPU of ours: wire in the kernel, wake-ups, other tenants", h["rest"], 100 * h["rest"] / wall))
        return rows

    def to_json(self) -> str:
        return json.dumps({
            "machine": self.machine, "hosted": self.hosted, "floor1": self.floor1, "floor4": self.floor4,
            "steps": self.steps, "codec": self.codec, "arbiter_samples": self.arbiter_samples, "bot_samples": self.bot_samples,
            "floor4_server_samples": self.server_samples, "floor4_client_samples": self.client_samples,
            "phases": [{"side": s, "phase": p, "us": round(u, 1), "share": round(x, 1)} for s, p, u, x in self.phases()],
        }, indent=2)


async def run_breakdown(rounds: int = 3, matches: int = MATCHES, profiled: int = PROFILED_MATCHES, rate: int = SAMPLE_RATE,
                        py_spy: str | None = None, progress=lambda msg: None, hosted_over: str = "grpc",
                        whole_views: bool = False, one_cpu: bool = False) -> Breakdown:
    turn_bytes, act_bytes = bench.typical_turn_sizes()
    transport = bench.hosted_transport()
    out = Breakdown(machine={"cores": os.cpu_count(), "python": sys.version.split()[0], "transport": transport,
                             "turn_bytes": turn_bytes, "act_bytes": act_bytes, "matches": matches, "rounds": rounds,
                             "load": os.getloadavg()[0], "hosted_over": hosted_over})
    async with bench._BenchArbiter(transport=hosted_over) as arena:
        await arena.match(0, {"deals": 1})  # warm up every bot process
        pids = bot_pids(arena.pool)
        for r in range(rounds):
            progress(f"round {r + 1} of {rounds}: 1-seat floor, 4-seat floor, {matches} hosted matches")
            out.floor1.append((await floor_round(turn_bytes, act_bytes, 1, transport)).row())
            out.floor4.append((await floor_round(turn_bytes, act_bytes, bench.FLOOR_SEATS, transport)).row())
            if whole_views or one_cpu:  # the same matches the other way too, alternating which goes first
                out.other = "whole views" if whole_views else "one CPU"
                order = (True, False) if r % 2 else (False, True)
                for other in order:
                    if whole_views:
                        view_deltas(arena, 0 if other else None)
                    else:
                        bench.on_one_cpu([os.getpid(), *pids], other)
                    row = (await hosted_round(arena, pids, matches, 50_000 + 1000 * r)).row()
                    (out.hosted_other if other else out.hosted).append(row)
                if whole_views:  # back as they were
                    view_deltas(arena, None)
                else:
                    bench.on_one_cpu([os.getpid(), *pids], False)
            else:
                out.hosted.append((await hosted_round(arena, pids, matches, 50_000 + 1000 * r)).row())
            out.steps.append(step_costs(seed=r))
            out.codec.append(codec_costs(seed=r))
        if py_spy:
            progress(f"sampling: {profiled} hosted matches with py-spy at {rate}/s on 5 processes")
            with tempfile.TemporaryDirectory(prefix="arena-breakdown-") as tmp:
                a, b = await profile_hosted(arena, pids, py_spy, profiled, 90_000, rate, Path(tmp))
                out.arbiter_samples, out.bot_samples = dict(a), dict(b)
                progress(f"sampling: the {bench.FLOOR_SEATS}-seat floor with py-spy")
                a, b = await profile_floor(turn_bytes, act_bytes, bench.FLOOR_SEATS, transport, py_spy, rate, Path(tmp))
                out.server_samples, out.client_samples = dict(a), dict(b)
    return out


def render(b: Breakdown) -> str:
    h, f1, f4 = (Breakdown.median(x) for x in (b.hosted, b.floor1, b.floor4))
    lines = []
    lines.append(f"machine: {b.machine}")
    if b.hosted:
        lines.append("")
        lines.append("CPU per decision (µs; medians of rounds; loop = the event-loop thread, grpc = gRPC core's threads)")
        lines.append(f"{'':34} {'1-seat floor':>13} {'4-seat floor':>13} {'hosted':>9}")
    for key, label in (("wall", "wall time"), ("server.loop", "arbiter/server: loop thread"),
                       ("server.grpc", "arbiter/server: grpc threads"), ("clients.loop", "bots/clients: loop threads"),
                       ("clients.grpc", "bots/clients: grpc threads"), ("cpu", "CPU, all of it"),
                       ("rest", "wall - CPU"), ("server.runqueue", "arbiter/server: runnable, no CPU"),
                       ("clients.runqueue", "bots/clients: runnable, no CPU")) if b.hosted else ():
        lines.append(f"{label:34} {f1.get(key, 0):13.0f} {f4.get(key, 0):13.0f} {h.get(key, 0):9.0f}")
    if b.hosted:
        lines.append(f"{'arbiter: event-loop iterations':34} {'':13} {'':13} {h.get('server.iterations', 0):9.2f}")
    r = b.ratio()
    if r is not None:
        lines.append(f"hosted / 4-seat floor, wall: {r:.2f}x; CPU: {b.ratio('cpu'):.2f}x (round by round, median)")
    if b.hosted_other:
        w = Breakdown.median(b.hosted_other)
        lines.append("")
        if b.other == "one CPU":
            lines.append("The same hosted matches with the arbiter and its bots on one CPU, alternated round by round "
                         "(µs per decision)")
            lines.append(f"{'':34} {'free':>13} {'one CPU':>13} {'free/one':>9}")
        else:
            lines.append("The same hosted matches with whole views in every Turn, alternated round by round (µs per decision)")
            lines.append(f"{'':34} {'view deltas':>13} {'whole views':>13} {'ratio':>9}")
        for key, label in (("wall", "wall time"), ("server.loop", "arbiter: loop thread"),
                           ("clients.loop", "bots: loop threads"), ("cpu", "CPU, all of it"),
                           ("runqueue", "runnable, no CPU (all)")):
            pairs = [d[key] / x[key] for d, x in zip(b.hosted, b.hosted_other) if x[key]]
            ratio = statistics.median(pairs) if pairs else 0.0
            lines.append(f"{label:34} {h.get(key, 0):13.0f} {w.get(key, 0):13.0f} {ratio:8.2f}x")
    if b.steps:
        st = Breakdown.median(b.steps)
        lines.append("")
        lines.append("The work of a decision, step by step, in this process (µs of CPU per decision; medians of rounds)")
        for key, side, label in STEPS:
            lines.append(f"  {side:8} {label:60} {st[key]:7.1f}")
        for side in ("arbiter", "bot"):
            lines.append(f"  {side:8} {'all of the above':60} {sum(st[k] for k, sd, _ in STEPS if sd == side):7.1f}")
    if b.codec:
        cc = Breakdown.median(b.codec)
        lines.append("")
        lines.append("The codec, before and after issue 42, on the same decisions (µs of CPU per decision; medians of rounds)")
        for key, label in CODEC_PAIRS:
            lines.append(f"  {label:90} {cc[key]:7.1f}")
    if b.arbiter_samples or b.bot_samples:
        lines.append("")
        lines.append(f"Phases of a hosted decision (µs per decision; % of its wall time {h['wall']:.0f} µs); "
                     f"samples: arbiter {sum(b.arbiter_samples.values())}, bots {sum(b.bot_samples.values())}")
        for side, label, us, share in b.phases():
            lines.append(f"  {side:8} {label:72} {us:7.1f} {share:5.1f}%")
    if b.server_samples:
        lines.append("")
        lines.append(f"Side by side with the {bench.FLOOR_SEATS}-seat floor (µs per decision)")
        lines.append(f"  {'':72} {'arbiter':>8} {'server':>8} {'bots':>8} {'clients':>8}")
        for label, *vals in b.phase_table():
            lines.append(f"  {label:72} " + " ".join(f"{v:8.1f}" for v in vals))
    return "\n".join(lines)



def _print_medians(rows: Sequence[tuple[str, str]], passes: list[dict[str, float]], width: int, digits: int) -> None:
    """One line per row: its label, the median over the passes, then every pass's value."""
    for key, label in rows:
        vals = [p[key] for p in passes]
        seen = [v for v in vals if not math.isnan(v)]  # (nan: not measured in that pass)
        median = f"{statistics.median(seen):{digits + 5}.{digits}f}" if seen else f"{'-':>{digits + 5}}"
        print(f"  {label:{width}} {median}  ({', '.join('-' if math.isnan(v) else f'{v:.{digits}f}' for v in vals)})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arbiter.tools.breakdown", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="CPU rounds (each: both floors, then the hosted matches)")
    parser.add_argument("--matches", type=int, default=MATCHES, help="hosted Spades matches (2 deals) per round")
    parser.add_argument("--profiled", type=int, default=PROFILED_MATCHES, help="matches played with py-spy attached")
    parser.add_argument("--rate", type=int, default=SAMPLE_RATE, help="py-spy samples per second per process")
    parser.add_argument("--py-spy", default=os.environ.get("ARENA_PY_SPY") or shutil.which("py-spy"),
                        help="the py-spy binary (default: $ARENA_PY_SPY, else on PATH); without it, CPU only")
    parser.add_argument("--no-sampling", action="store_true", help="CPU per thread only")
    parser.add_argument("--json", type=Path, help="write everything measured here")
    parser.add_argument("--transport", choices=("grpc", "local"), default="grpc",
                        help="how the hosted bots reach the arbiter: gRPC (default) or the local channel")
    parser.add_argument("--codec", action="store_true",
                        help="only the codec's rows (in this process, no bot process: a few seconds)")
    parser.add_argument("--loop", action="store_true",
                        help="only the event loop's cost per round trip, each way the arbiter has written its next "
                             "message (in this process and an echo process: a few seconds)")
    parser.add_argument("--bot", action="store_true",
                        help="only one bot process's CPU per decision, fed the Turns recorded from hosted matches by "
                             "a minimal peer: the SDK beside a bare client (a minute)")
    parser.add_argument("--arbiter", action="store_true",
                        help="only the arbiter's side of hosted decisions, in this process (its runner, seat, servicer "
                             "and codec; the socket and the bots replaced: seconds)")
    parser.add_argument("--timeline", action="store_true",
                        help="only where a hosted local decision's wall time goes, one match at a time: the arbiter's "
                             "Turn write and Act read and the bot's choose stamped on one clock (seconds)")
    parser.add_argument("--whole-views", action="store_true",
                        help="each round, play the hosted matches also with whole views in every Turn (no view deltas)")
    parser.add_argument("--one-cpu", action="store_true",
                        help="each round, play the hosted matches also with the arbiter's threads and its bot processes "
                             "all on one CPU (sched_setaffinity; put back after), against the scheduler's own placement")
    args = parser.parse_args(argv)
    if args.arbiter:
        print(f"The arbiter's side of hosted Spades matches (1 deal, 40 a pass, warm) in this process: µs of CPU "
              f"(median of {args.rounds} passes; load {os.getloadavg()[0]:.1f})")
        _print_medians(ARBITER_ROWS, [arbiter_costs(seed=1000 * r) for r in range(args.rounds)], 110, 2)
        return 0
    if args.timeline:
        print(f"A hosted local decision's wall time, one match at a time (four random-bot processes, 2-deal matches, "
              f"{args.matches} a round): medians of each round's decisions, µs (median of {args.rounds} rounds; load "
              f"{os.getloadavg()[0]:.1f})")
        _print_medians(TIMELINE_ROWS, timeline(args.rounds, args.matches), 100, 1)
        return 0
    if args.bot:
        rows = bot_alone(args.rounds)
        print(f"One bot process alone on the local channel, fed the frames one bot was sent in 3 hosted Spades matches: "
              f"µs of its CPU per decision (median of {args.rounds} rounds; load {os.getloadavg()[0]:.1f})")
        for key, label, _ in BOT_ROWS:
            print(f"  {label:70} {statistics.median(rows[key]):6.1f}  ({', '.join(f'{v:.1f}' for v in rows[key])})")
        return 0
    if args.loop:
        print(f"The arbiter's event loop alone: µs of its thread's CPU per round trip over a Unix socket to an echo "
              f"process ({LOOP_TRIPS} round trips a pass; median of {args.rounds} passes; load {os.getloadavg()[0]:.1f})")
        _print_medians(LOOP_ROWS, [loop_costs() for _ in range(args.rounds)], 100, 1)
        return 0
    if args.codec:
        rows = [codec_costs(seed=r) for r in range(args.rounds)]
        print(render(Breakdown(codec=rows, machine={"load": os.getloadavg()[0], "rounds": args.rounds})))
        return 0
    spy = None if args.no_sampling else args.py_spy
    if spy is None and not args.no_sampling:
        print("py-spy not found (pip install py-spy, or --py-spy PATH): CPU per thread only", file=sys.stderr)
    b = asyncio.run(run_breakdown(args.rounds, args.matches, args.profiled, args.rate, spy,
                                  progress=lambda msg: print(msg, file=sys.stderr, flush=True),
                                  hosted_over=args.transport, whole_views=args.whole_views,
                                  one_cpu=args.one_cpu))
    print(render(b))
    if args.json:
        args.json.write_text(b.to_json())
    return 0


if __name__ == "__main__":
    sys.exit(main())
