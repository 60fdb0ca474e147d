#!/usr/bin/env python3
"""The fuzz campaign (`make fuzz`, issue #20): hostile bot messages by the hundred thousand
against a real `arbiter serve` and against a running tournament's arbiter, on loopback only.

Phase 1, `arbiter serve` (a subprocess on 127.0.0.1 with a credentials file of its own):
  * honest SDK bot processes (real tokens) play honest matches all along, started with the
    admin token through Matches.RunMatch; every result must replay (cardarena.replay);
  * hostile matches: some seats are fuzz streams that get real Turns and answer them with
    structure-aware mutations of the real Act (tests/campaigns/mutate.py), wrong, stale,
    future, duplicated and extreme request ids, forged seat tokens, other matches, illegal,
    foreign and undecodable actions, byte-level damage, random bytes, giant messages,
    silence, or a dropped stream; every match must end with a recorded, sensible outcome
    (a completion, or a forfeit that blames a fuzz seat, never an honest one) that replays;
  * junk streams: a real Hello, then hundreds of mutated messages that answer nothing;
  * pre-Hello streams: mutated, truncated, giant Hellos, random bytes, Acts before Hello,
    wrong, stolen and near-miss tokens (each refused, never welcomed);
  * raw unary calls to the Matches service with mutated or random requests.
Phase 2, `arbiter tournament run` (a subprocess with its bots as sandboxed processes):
  the same pre-Hello and unary fuzz on its private arbiter's TCP port while it plays (no
  new stream once every match is stored: the arbiter then closes); it must finish, every
  stored match replay, and none be a forfeit. A stream that ends UNAVAILABLE is told apart:
  the arbiter closed (the tournament over, its health check unreachable) is counted as
  such; a refusal by an arbiter still serving (its health check answers) is a failure.

Pass: 0 server crashes (the process alive, nothing logged as an unexpected error), 0 hangs
(every stream answered or closed within its deadline, every match within its deadline), 0
matches without a sensible, replayable outcome, the server's RSS back near its baseline
(and its sessions back to the honest bots), every honest match completed and verified.
It prints the counts and exits 0 on a pass, 1 on a failure. Bounded in messages and time.

    .venv/bin/python scripts/fuzz_campaign.py                   # the default: ~2-4 minutes on 2 cores
    .venv/bin/python scripts/fuzz_campaign.py --big             # 10x the messages, longer limits
    .venv/bin/python scripts/fuzz_campaign.py --messages 20000 --tournament-messages 2000 --seed 3
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import grpc  # noqa: E402

from cardarena.games import GameError, get_game  # noqa: E402
from cardarena.games.base import options_to_dict  # noqa: E402
from arbiter.hosting.stop import stop_processes  # noqa: E402
from cardarena.records import Incident, MatchConfig, MatchRecord, RecordedAction  # noqa: E402
from cardarena.replay import ReplayError, verify_record  # noqa: E402
from cardarena.v1 import arena_pb2 as pb  # noqa: E402
from cardarena.wire import codec  # noqa: E402
from tests.campaigns import mutate as mz  # noqa: E402
from tests.campaigns.procs import Serve, descendants, rss_bytes, start_time, wait_gone  # noqa: E402

PLAY = "/cardarena.v1.Arena/Play"
RUN_MATCH = "/cardarena.v1.Matches/RunMatch"
LIST_SESSIONS = "/cardarena.v1.Matches/ListSessions"
MIB = 1 << 20

GAMES = [  # (game, options as text, seats): short matches
    ("spades", {"deals": "1"}, 4),
    ("spot", {"hands": "2"}, 4),
    ("spite-and-malice", {}, 2),
]
HONEST = ("h0", "h1", "h2", "h3")
#: How a fuzz seat lies (Campaign.fuzz_seat), and how often each is drawn.
PERSONALITIES = ("chatty", "reorder", "illegal", "silent", "late", "polite", "quitter", "garbage", "giant")
PERSONALITY_WEIGHTS = (6, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5)
HONEST_SPECS = ("heuristic", "random", "heuristic", "random")  # bots that play every game


# --------------------------------------------------------------------------------------
# Counting.


@dataclass
class Stats:
    fuzzed: collections.Counter = field(default_factory=collections.Counter)  # hostile messages sent, by kind
    valid: int = 0  # real Hellos and real answers sent alongside
    replies: int = 0  # messages the arbiter sent back
    error_codes: collections.Counter = field(default_factory=collections.Counter)
    statuses: collections.Counter = field(default_factory=collections.Counter)  # how streams ended
    streams: collections.Counter = field(default_factory=collections.Counter)  # by kind
    matches: collections.Counter = field(default_factory=collections.Counter)  # hostile/honest -> count
    reasons: collections.Counter = field(default_factory=collections.Counter)
    verified: int = 0
    failures: list[str] = field(default_factory=list)
    #: phase 2: whether the arbiter has closed (the tournament is over), asked when a call
    #: ends UNAVAILABLE; None: it never closes while fuzzed (phase 1), so UNAVAILABLE fails
    closed_server: Any = None
    max_streams: int = 0
    open_streams: int = 0

    @property
    def fuzzed_total(self) -> int:
        return sum(self.fuzzed.values())

    def fail(self, what: str) -> None:
        if len(self.failures) < 200:
            self.failures.append(what)
        print(f"  FAILURE: {what}", flush=True)

    def opened(self, kind: str) -> None:
        self.streams[kind] += 1
        self.open_streams += 1
        self.max_streams = max(self.max_streams, self.open_streams)

    def closed(self) -> None:
        self.open_streams -= 1


BAD_STATUS = {grpc.StatusCode.DEADLINE_EXCEEDED: "hang", grpc.StatusCode.UNAVAILABLE: "server unavailable"}


async def _arbiter_closed(stats: "Stats", code: grpc.StatusCode) -> bool:
    """Whether a call that ended ``code`` met an arbiter that had closed (counted under
    "UNAVAILABLE (arbiter closed)", no failure) rather than one that refused it."""
    if code != grpc.StatusCode.UNAVAILABLE or stats.closed_server is None or not await stats.closed_server():
        return False
    stats.statuses["UNAVAILABLE (arbiter closed)"] += 1
    return True


async def health_unreachable(address: str) -> bool:
    """True if nothing answers the gRPC health check at ``address`` (the server is gone);
    False if it answers (whatever it says: it is serving, so a refusal was its own)."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    async with grpc.aio.insecure_channel(address) as channel:
        try:
            await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=3)
        except grpc.aio.AioRpcError as exc:
            return exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
        return False


class Stream:
    """One raw Arena.Play stream: bytes out, ArbiterMessages in, a deadline on all of it."""

    def __init__(self, channel: grpc.aio.Channel, stats: Stats, kind: str, deadline: float):
        self.stats, self.kind, self.deadline = stats, kind, deadline
        self.call = channel.stream_stream(PLAY, request_serializer=None, response_deserializer=None)(timeout=deadline)
        self.inbox: asyncio.Queue = asyncio.Queue()
        self.received: list[pb.ArbiterMessage] = []
        self.reader = asyncio.ensure_future(self._read())
        self.code: grpc.StatusCode | None = None
        stats.opened(kind)

    async def _read(self) -> None:
        try:
            while True:
                raw = await self.call.read()
                if raw is grpc.aio.EOF:
                    break
                self.stats.replies += 1
                try:
                    msg = pb.ArbiterMessage.FromString(raw)
                except Exception:  # noqa: BLE001 - the arbiter must only send valid messages
                    self.stats.fail(f"{self.kind}: the arbiter sent bytes that are not an ArbiterMessage")
                    continue
                if msg.WhichOneof("msg") == "error":
                    self.stats.error_codes[msg.error.code] += 1
                self.received.append(msg)
                self.inbox.put_nowait(msg)
        except (grpc.RpcError, asyncio.InvalidStateError):
            pass
        except asyncio.CancelledError:  # grpc.aio's read() of a call we cancelled (a seat that quits)
            if not self.call.cancelled():
                raise
        finally:
            self.inbox.put_nowait(None)

    @property
    def done(self) -> bool:
        return self.call.done()

    async def send(self, data: bytes, kind: str | None) -> bool:
        """Write one message; counted as fuzzed under ``kind`` (None: a valid one). False once
        the stream takes no more (the arbiter closed it)."""
        if self.call.done():
            return False
        try:
            await self.call.write(data)
        except (grpc.RpcError, asyncio.InvalidStateError, RuntimeError):
            return False
        if kind is None:
            self.stats.valid += 1
        else:
            self.stats.fuzzed[kind] += 1
        return True

    async def next(self, timeout: float) -> pb.ArbiterMessage | None:
        """The next message from the arbiter; None at the end of the stream or the timeout."""
        try:
            return await asyncio.wait_for(self.inbox.get(), timeout)
        except asyncio.TimeoutError:
            return None

    async def finish(self) -> grpc.StatusCode:
        """Close our side and wait for the arbiter to end the stream (within the deadline)."""
        try:
            await self.call.done_writing()
        except (grpc.RpcError, asyncio.InvalidStateError, RuntimeError):
            pass
        try:
            await asyncio.wait_for(asyncio.shield(self.reader), self.deadline + 5)
            self.code = await asyncio.wait_for(self.call.code(), 5)
        except asyncio.TimeoutError:
            self.code = grpc.StatusCode.DEADLINE_EXCEEDED
            self.call.cancel()
        if await _arbiter_closed(self.stats, self.code):
            self.stats.closed()
            return self.code
        self.stats.statuses[self.code.name] += 1
        if self.code in BAD_STATUS:
            self.stats.fail(f"{self.kind} stream: {BAD_STATUS[self.code]} ({self.code.name}) "
                            f"after {len(self.received)} replies")
        self.stats.closed()
        return self.code

    def cancel(self) -> None:
        self.call.cancel()


# --------------------------------------------------------------------------------------
# A corpus of real actions (engine + codec, every game and verb) for foreign actions.


def action_corpus(rng: random.Random, per_game: int = 300) -> list[pb.Action]:
    out: list[pb.Action] = []
    for game_name, options, _ in GAMES:
        game = get_game(game_name, options)
        for seed in range(3):
            state = game.new_initial_state(seed)
            steps = 0
            while not state.is_terminal and steps < per_game:
                legal = state.legal_actions()
                a = rng.choice(legal)
                out.append(codec.action_to_proto(game_name, a))
                state.apply(a)
                steps += 1
    rng.shuffle(out)
    return out[:2000]


def real_act(turn: pb.Turn, seat_token: str, action: pb.Action) -> pb.BotMessage:
    return pb.BotMessage(act=pb.Act(match_id=turn.match_id, request_id=turn.request_id, seat_token=seat_token,
                                    action=action))


# --------------------------------------------------------------------------------------
# The fuzz streams.


class Campaign:
    def __init__(self, args, rng: random.Random):
        self.args, self.rng = args, rng
        self.stats = Stats()
        self.mut = mz.Mutator(rng)
        self.corpus = action_corpus(rng)
        self.live_matches: list[str] = ["0-0"]
        self.deadline_hit = False
        #: A hostile match's decision limit and bank (each): 2 s on an idle machine, times
        #: --slack, so that an honest seat's answer is not late for a machine's load (at a
        #: load of 10-20 on 2 cores, one decision of an honest bot serving several matches
        #: took over 4 s); the fuzz seats' silence and lateness are measured on the same clock.
        self.hostile_ms = int(2000 * args.slack)

    def pick_act(self) -> pb.BotMessage:
        a = self.rng.choice(self.corpus)
        return pb.BotMessage(act=pb.Act(match_id=self.rng.choice(self.live_matches), request_id=self.rng.randrange(1, 5000),
                                        seat_token=mz.Mutator(self.rng).string()[:40], action=a))

    # -- before Hello -----------------------------------------------------------------------

    async def preauth(self, channel, name: str, token: str, other_token: str, throttle: asyncio.Semaphore) -> None:
        rng, stats = self.rng, self.stats
        # A well-formed Hello that does not authenticate is answered ever more slowly
        # (auth.GUESSES: in turn, 20 a second): at most a few of those at once, so that the rest of the
        # fuzz keeps its pace; when they are all taken, something else is sent.
        allow_slow = not throttle.locked()
        while True:
            r = rng.random()
            expect_refusal = False
            if r < 0.45:
                kind, msg, throttled = mz.hello_variant(rng, name, token, other_token)
                data, expect_refusal = msg.SerializeToString(), True
                kind = "hello-" + kind
            elif r < 0.85:
                base = mz.hello(name, token if rng.random() < 0.5 else other_token[::-1]) if rng.random() < 0.7 else self.pick_act()
                kind, data = self.mut.any_bytes(base, self.pick_act)
                kind = "pre-" + kind
                try:  # a damaged Hello may still decode as one, with a wrong token
                    throttled = pb.BotMessage.FromString(data).WhichOneof("msg") == "hello"
                except Exception:  # noqa: BLE001
                    throttled = False
            else:
                kind, data, throttled = "pre-random", self.mut.random_bytes(), False
            if allow_slow or not throttled:
                break
        sem = throttle if throttled else None
        if sem is not None:
            await sem.acquire()
        try:
            s = Stream(channel, stats, "pre-hello", (20.0 if throttled else 12.0) * self.args.slack)
            ok = await s.send(data, kind)
            if ok and rng.random() < 0.3:  # something more after it: read by nobody, or refused
                await s.send(self.mut.any_bytes(self.pick_act())[1], "pre-" + "followup")
            await s.finish()
            if expect_refusal and any(m.WhichOneof("msg") == "welcome" for m in s.received):
                stats.fail(f"{kind}: a Hello that must be refused was welcomed")
            if not s.received and s.code == grpc.StatusCode.OK:
                stats.fail(f"{kind}: the stream ended with OK and no answer")
        finally:
            if sem is not None:
                sem.release()

    # -- after a real Hello, junk that answers nothing --------------------------------------

    async def junk(self, channel, name: str, token: str) -> None:
        rng, stats = self.rng, self.stats
        s = Stream(channel, stats, "junk", 60.0 * self.args.slack)
        await s.send(mz.hello(name, token).SerializeToString(), None)
        first = await s.next(s.deadline)  # the Welcome, or the stream's end (its deadline: a hang)
        if first is None or first.WhichOneof("msg") != "welcome":
            stats.fail(f"junk stream {name}: no Welcome for a real Hello ({first and first.WhichOneof('msg')})")
            s.cancel()
            await s.finish()
            return
        n = rng.choice((20, 60, 120, 180, 190)) if rng.random() < 0.9 else rng.randrange(200, 320)  # past the flood limit
        for i in range(n):
            r = rng.random()
            if r < 0.4:
                m = self.pick_act()
                m.act.request_id = rng.choice((0, 2**64 - 1, rng.randrange(2**64), rng.randrange(1, 100)))
                data, kind = m.SerializeToString(), "junk-act"
            elif r < 0.75:
                m = self.pick_act()
                self.mut.fields(m)
                data, kind = m.SerializeToString(), "junk-field"
            elif r < 0.8:
                data, kind = pb.BotMessage().SerializeToString(), "junk-empty"
            else:  # damaged bytes that still decode as a BotMessage (else the stream closes at once)
                data = self.mut.wire(self.pick_act().SerializeToString())
                try:
                    pb.BotMessage.FromString(data)
                    kind = "junk-wire"
                except Exception:  # noqa: BLE001
                    if rng.random() < 0.97:
                        continue
                    kind = "junk-wire-closer"
            if not await s.send(data, kind):
                break
            if kind.endswith("closer"):
                break
        if not s.done and rng.random() < 0.1:  # and a last message that ends it: a second Hello, or too big
            closer = mz.hello(name, token).SerializeToString() if rng.random() < 0.5 else self.mut.giant(self.pick_act())
            await s.send(closer, "junk-closer")
        await s.finish()

    # -- a seat in a real match ---------------------------------------------------------------

    async def fuzz_seat(self, channel, name: str, token: str, personality: str, ready: asyncio.Future,
                        done_event: asyncio.Event) -> dict:
        """Play the one match this stream is seated in, lying as ``personality`` says."""
        rng, stats, mut = self.rng, self.stats, self.mut
        s = Stream(channel, stats, "match-seat", 300.0 * self.args.slack)
        info = {"name": name, "personality": personality, "turns": 0, "ended": False}
        await s.send(mz.hello(name, token).SerializeToString(), None)
        first = await s.next(60.0 * self.args.slack)  # the Welcome (a real Hello's answer), or a hang
        if first is None or first.WhichOneof("msg") != "welcome":
            ready.set_result(False) if not ready.done() else None
            stats.fail(f"match seat {name}: no Welcome for a real Hello")
            s.cancel()
            await s.finish()
            return info
        ready.set_result(True)
        seat_token = ""
        stale_rid = 0
        quit_at = rng.randrange(1, 60) if personality in ("quitter", "garbage", "giant") else -1
        open_ = True
        while open_:
            msg = await s.next(s.deadline + 10)
            if msg is None:
                break
            which = msg.WhichOneof("msg")
            if which == "match_start":
                seat_token = msg.match_start.seat_token
                continue
            if which == "match_end":
                info["ended"] = True
                break
            if which != "turn":
                continue
            turn = msg.turn
            info["turns"] += 1
            legal = list(turn.legal_actions)
            answer = real_act(turn, seat_token, rng.choice(legal))
            sends: list[tuple[bytes, str | None]] = []
            if info["turns"] == quit_at:
                if personality == "quitter":
                    s.cancel() if rng.random() < 0.5 else None
                    break
                if personality == "garbage":
                    sends.append((mut.random_bytes() if rng.random() < 0.5 else mut.wire(answer.SerializeToString()),
                                  "seat-garbage"))
                else:
                    sends.append((mut.giant(answer), "seat-giant"))
            lies = rng.randrange(0, 9) if personality in ("chatty", "reorder") else rng.randrange(0, 3)
            for _ in range((lies + 2) // 3):
                for kind, lie in mz.act_lies(rng, turn, seat_token, answer.act.action, self.corpus,
                                             rng.choice(self.live_matches), stale_rid):
                    sends.append((lie.SerializeToString(), "seat-" + kind))
            if rng.random() < 0.3:  # the real answer damaged at the byte level, if it still decodes
                data = mut.wire(answer.SerializeToString())
                try:
                    pb.BotMessage.FromString(data)
                    sends.append((data, "seat-wire"))  # (a flip in the notation still answers: fine)
                except Exception:  # noqa: BLE001
                    pass
            for _ in range(lies // 2):
                m = pb.BotMessage()
                m.CopyFrom(answer)
                mut.fields(m)
                if m.act.request_id == turn.request_id and m.act.seat_token == seat_token and m.act.match_id == turn.match_id:
                    m.act.request_id = turn.request_id + 1 + rng.randrange(3)  # it must not answer (the stats say so)
                sends.append((m.SerializeToString(), "seat-field"))
            if personality == "reorder":
                rng.shuffle(sends)
            p_wrong = {"illegal": 0.08, "chatty": 0.01}.get(personality, 0.002)
            if rng.random() < p_wrong:
                kind, act = mz.wrong_action(rng, turn, self.corpus, mut)
                wrong = real_act(turn, seat_token, act)
                sends.append((wrong.SerializeToString(), "seat-action-" + kind))
            elif personality == "silent" and rng.random() < 0.05:
                pass  # no answer: the clock decides
            elif personality == "late" and rng.random() < 0.03:
                await asyncio.sleep(turn.clock.decision_ms / 1000 + turn.clock.bank_ms / 1000 + 0.3)
                sends.append((answer.SerializeToString(), "seat-late"))
            else:
                sends.append((answer.SerializeToString(), None))
                if rng.random() < 0.15:  # the same answer twice: a duplicated request id
                    sends.append((answer.SerializeToString(), "seat-duplicate"))
            for data, kind in sends:
                if not await s.send(data, kind):
                    open_ = False
                    break
            stale_rid = turn.request_id
        await done_event.wait()  # the match is over (RunMatch answered): leave
        await s.finish()
        return info

    async def hostile_match(self, channel, admin_token: str, names: asyncio.Queue, tokens: dict[str, str],
                            ) -> None:
        rng, stats = self.rng, self.stats
        game_name, options, n = rng.choice(GAMES)
        fuzz_count = rng.choice(range(1, n + 1)) if rng.random() < 0.9 else n
        positions = sorted(rng.sample(range(n), fuzz_count))
        honest = honest_seats(game_name, n - fuzz_count, rng)
        fuzz_names = [await names.get() for _ in positions]
        personalities = rng.choices(PERSONALITIES, weights=PERSONALITY_WEIGHTS, k=len(positions))
        seats: list[str] = []
        it_f, it_h = iter(fuzz_names), iter(honest)
        for i in range(n):
            seats.append(next(it_f) if i in positions else next(it_h))
        done_event = asyncio.Event()
        readies = [asyncio.get_running_loop().create_future() for _ in positions]
        tasks = [asyncio.ensure_future(self.fuzz_seat(channel, nm, tokens[nm], p, rd, done_event))
                 for nm, p, rd in zip(fuzz_names, personalities, readies)]
        try:
            ok = all(await asyncio.gather(*readies))
            if not ok:
                return
            policy = rng.choice(("forfeit", "default", "default"))
            seed = rng.randrange(2**48)
            req = pb.RunMatchRequest(game=game_name, options=options, seed=seed, seats=seats,
                                     clock=pb.Clock(decision_ms=self.hostile_ms, bank_ms=self.hostile_ms), policy=policy,
                                     max_strikes=rng.randrange(1, 6), admin_token=admin_token)
            summary = await self.run_match(channel, req, "hostile", 600.0 * self.args.slack)
            if summary is not None:
                self.check_summary(req, summary, "hostile", set(positions), personalities)
        finally:
            done_event.set()
            infos = await asyncio.gather(*tasks, return_exceptions=True)
            for nm in fuzz_names:
                names.put_nowait(nm)
            for i in infos:
                if isinstance(i, BaseException):
                    stats.fail(f"fuzz seat task raised {type(i).__name__}: {i}")

    async def run_match(self, channel, req: pb.RunMatchRequest, what: str, deadline: float):
        call = channel.unary_unary(RUN_MATCH, request_serializer=pb.RunMatchRequest.SerializeToString,
                                   response_deserializer=pb.MatchSummary.FromString)
        try:
            summary = await call(req, timeout=deadline)
        except grpc.RpcError as exc:
            self.stats.fail(f"{what} match {req.game} seats {list(req.seats)}: RunMatch failed: {exc.code().name}: "
                            f"{exc.details()}")
            return None
        self.stats.matches[what] += 1
        self.live_matches = (self.live_matches + [summary.match_id])[-20:]
        return summary

    def check_summary(self, req: pb.RunMatchRequest, summary: pb.MatchSummary, what: str, fuzz_seats: set[int],
                      personalities=()) -> None:
        stats = self.stats
        outcome = codec.outcome_from_proto(summary.outcome)
        n = len(req.seats)
        where = f"{what} match {summary.match_id} ({req.game}, policy {req.policy}, seats {list(req.seats)})"
        stats.reasons[outcome.reason.value] += 1
        problems = []
        if outcome.reason.value == "aborted":
            problems.append("aborted")
        if len(outcome.scores) != n or len(outcome.ranks) != n or not all(1 <= r <= n for r in outcome.ranks):
            problems.append(f"scores {outcome.scores} ranks {outcome.ranks}")
        if outcome.reason.is_forfeit:
            m = re.match(r"seat (\d+) \(", outcome.detail)
            if not m or int(m.group(1)) not in fuzz_seats:
                problems.append(f"the forfeit blames no fuzz seat: {outcome.detail!r}")
        for inc in summary.incidents:
            m = re.match(r"seat (\d+):", inc)
            if not m or int(m.group(1)) not in fuzz_seats:
                problems.append(f"an incident of an honest seat: {inc[:200]!r}")
        try:
            verify_summary(req, summary, outcome)
            stats.verified += 1
        except (ReplayError, GameError, ValueError) as exc:
            problems.append(f"does not replay: {exc}")
        if problems:
            stats.fail(f"{where}: " + "; ".join(problems))

    async def honest_loop(self, channel, admin_token: str, stop: asyncio.Event) -> None:
        rng = random.Random(self.rng.randrange(2**32))
        while not stop.is_set():
            game_name, options, n = rng.choice(GAMES)
            req = pb.RunMatchRequest(game=game_name, options=options, seed=rng.randrange(2**48),
                                     seats=honest_seats(game_name, n, rng), clock=pb.Clock(decision_ms=10_000, bank_ms=30_000),
                                     policy="forfeit", admin_token=admin_token)
            summary = await self.run_match(channel, req, "honest", 300.0 * self.args.slack)
            if summary is None:
                await asyncio.sleep(0.5)
                continue
            self.check_summary(req, summary, "honest", set())
            if codec.outcome_from_proto(summary.outcome).reason.is_forfeit:
                self.stats.fail(f"honest match {summary.match_id}: {summary.outcome.detail}")

    async def unary(self, channel, admin_token_like: str) -> None:
        """A raw call to the Matches service: a mutated RunMatch / ListSessions request."""
        rng = self.rng
        if rng.random() < 0.5:
            req = pb.RunMatchRequest(game=rng.choice(("spades", "spot", "chess", "")), seed=rng.randrange(2**64),
                                     seats=list(HONEST), admin_token=admin_token_like)
            method, data = RUN_MATCH, self.mut.any_bytes(pb.BotMessage())[1] if rng.random() < 0.2 else \
                (self.mut.wire(req.SerializeToString()) if rng.random() < 0.5 else self.mut.fields(req).SerializeToString())
        else:
            req = pb.ListSessionsRequest(admin_token=admin_token_like)
            method, data = LIST_SESSIONS, self.mut.wire(req.SerializeToString())
        call = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
        self.stats.opened("unary")
        try:
            await call(data, timeout=15 * self.args.slack)
            code = grpc.StatusCode.OK
        except grpc.RpcError as exc:
            code = exc.code()
        self.stats.fuzzed["unary-" + method.rsplit("/", 1)[1]] += 1
        if await _arbiter_closed(self.stats, code):
            self.stats.closed()
            return
        self.stats.statuses[code.name] += 1
        self.stats.closed()
        if code in BAD_STATUS:
            self.stats.fail(f"unary {method}: {BAD_STATUS[code]}")
        if code == grpc.StatusCode.OK and method == RUN_MATCH:
            self.stats.fail("a mutated RunMatch without the admin token was run")


def honest_seats(game_name: str, k: int, rng: random.Random) -> list[str]:
    return rng.sample(HONEST, k)


def verify_summary(req: pb.RunMatchRequest, summary: pb.MatchSummary, outcome) -> None:
    """Replay what Matches.RunMatch reported (seed, actions) to its outcome (cardarena.replay)."""
    config = MatchConfig(game=req.game, seed=req.seed, options=dict(req.options), preset=req.preset or None)
    game = config.make_game()
    state = game.new_initial_state(req.seed)
    actions = []
    for i, text in enumerate(summary.actions):
        seat = state.current_seat
        if seat is None:
            raise ReplayError(f"action {i + 1} {text!r} after the end of the game")
        actions.append(RecordedAction(seat, text, 0))
        a = game.parse_action(text)
        if a not in state.legal_actions():
            raise ReplayError(f"action {i + 1} {text!r} is not legal for seat {seat}")
        state.apply(a)
    # a forfeit's record must hold the failure that ended it (cardarena.replay checks it, its seat and kind)
    incidents = [Incident(*codec.incident_from_text(text)) for text in summary.incidents]
    record = MatchRecord(summary.match_id, req.game, options_to_dict(game.options), req.seed, tuple(req.seats),
                         actions, incidents=incidents, outcome=outcome)
    verify_record(record)


# --------------------------------------------------------------------------------------
# Phase 1: arbiter serve.


async def gather_bounded(make, count: int, concurrency: int, until: float, stop_when=lambda: False) -> int:
    """Run ``make()`` coroutines, ``concurrency`` at once, until ``count`` ran or the clock says stop."""
    started = 0
    running: set[asyncio.Task] = set()
    while (started < count and time.monotonic() < until and not stop_when()) or running:
        while len(running) < concurrency and started < count and time.monotonic() < until and not stop_when():
            running.add(asyncio.ensure_future(make()))
            started += 1
        done, running = await asyncio.wait(running, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
        for t in done:
            if t.exception() is not None:
                raise t.exception()
    return started


def sample_rss(pid: int, box: dict, stop: asyncio.Event):
    async def run():
        while not stop.is_set():
            box["peak"] = max(box.get("peak", 0), rss_bytes(pid))
            t = time.monotonic()
            await asyncio.sleep(0.25)
            # how late this campaign's own loop woke: on a loaded machine its waits run long
            box["lag"] = max(box.get("lag", 0.0), time.monotonic() - t - 0.25)
    return asyncio.ensure_future(run())


async def list_sessions(channel, admin_token: str) -> list[str]:
    call = channel.unary_unary(LIST_SESSIONS, request_serializer=pb.ListSessionsRequest.SerializeToString,
                               response_deserializer=pb.ListSessionsResponse.FromString)
    resp = await call(pb.ListSessionsRequest(admin_token=admin_token), timeout=10)
    return [s.bot_name for s in resp.sessions]


async def phase_serve(args, rng: random.Random, report: dict) -> Campaign:
    c = Campaign(args, rng)
    stats = c.stats
    junk_names = [f"fj{i}" for i in range(8)]
    match_names = [f"fm{i}" for i in range(4 * args.matches_at_once + 4)]
    serve = Serve(bots=HONEST + tuple(junk_names) + tuple(match_names))
    print(f"phase 1: arbiter serve pid {serve.proc.pid} on {serve.address}", flush=True)
    tokens = {n: serve.token(n) for n in (*HONEST, *junk_names, *match_names)}
    bots = []
    try:
        for name, spec in zip(HONEST, HONEST_SPECS):
            env = dict(os.environ, ARENA_TOKEN=tokens[name])
            bots.append(subprocess.Popen([sys.executable, "-m", "sdk", "--bot", spec, "--address", serve.address,
                                          "--name", name], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        channels = [grpc.aio.insecure_channel(serve.address, options=[("grpc.max_send_message_length", 4 * MIB)])
                    for _ in range(4)]
        ch = channels[0]
        t_end = time.monotonic() + 60
        while time.monotonic() < t_end:
            try:
                if sorted(await list_sessions(ch, serve.admin_token)) == sorted(HONEST):
                    break
            except grpc.RpcError:
                pass
            await asyncio.sleep(0.1)
        else:
            raise RuntimeError("the honest bots did not connect")
        # warm up: a few honest matches, then the baseline
        for game_name, options, n in GAMES:
            req = pb.RunMatchRequest(game=game_name, options=options, seed=rng.randrange(2**48),
                                     seats=honest_seats(game_name, n, rng), clock=pb.Clock(decision_ms=10_000, bank_ms=30_000),
                                     admin_token=serve.admin_token)
            s = await c.run_match(ch, req, "honest", 120 * args.slack)
            if s is not None:
                c.check_summary(req, s, "honest", set())
        await asyncio.sleep(1.0)

        rss_box: dict = {}
        all_done = asyncio.Event()
        sampler = sample_rss(serve.proc.pid, rss_box, all_done)
        until = time.monotonic() + args.seconds * args.slack
        names_q: asyncio.Queue = asyncio.Queue()
        for nm in match_names:
            names_q.put_nowait(nm)
        throttle = asyncio.Semaphore(4)

        def other_stream():
            r = rng.random()
            chn = rng.choice(channels)
            if r < 0.45:
                nm = rng.choice(junk_names)
                return c.junk(chn, nm, tokens[nm])
            if r < 0.92:
                nm = rng.choice(junk_names)
                other = tokens[rng.choice([x for x in junk_names if x != nm])]
                return c.preauth(chn, nm, tokens[nm], other, throttle)
            return c.unary(chn, rng.choice(("", "x" * 30, serve.admin_token[:-1] + "x")))

        async def quiet() -> list[str]:
            """Wait until only the honest bots are connected, play one honest match of each
            game, let the arbiter settle; the sessions then."""
            sessions: list[str] = []
            t_end = time.monotonic() + 30 * args.slack
            while time.monotonic() < t_end and serve.alive():
                sessions = await list_sessions(ch, serve.admin_token)
                if sorted(sessions) == sorted(HONEST):
                    break
                await asyncio.sleep(0.2)
            for game_name, options, n in GAMES:
                if not serve.alive():
                    break
                req = pb.RunMatchRequest(game=game_name, options=options, seed=rng.randrange(2**48),
                                         seats=honest_seats(game_name, n, rng), clock=pb.Clock(decision_ms=10_000, bank_ms=30_000),
                                         admin_token=serve.admin_token)
                s = await c.run_match(ch, req, "honest", 120 * args.slack)
                if s is not None:
                    c.check_summary(req, s, "honest", set())
            await asyncio.sleep(2.0)
            return sessions

        async def fuzz_to(target: int) -> None:
            """Hostile matches and other streams, with honest matches alongside, until ``target``
            messages have been fuzzed in all (or the time is up, or the arbiter died)."""
            stop = asyncio.Event()
            reached = lambda: stats.fuzzed_total >= target or not serve.alive()  # noqa: E731
            honest = [asyncio.ensure_future(c.honest_loop(channels[i % 4], serve.admin_token, stop)) for i in range(2)]
            progress = asyncio.ensure_future(_progress(stats, args.messages, t0, stop))
            hostile = asyncio.ensure_future(gather_bounded(
                lambda: c.hostile_match(rng.choice(channels), serve.admin_token, names_q, tokens),
                10**9, args.matches_at_once, until, reached))
            others = asyncio.ensure_future(gather_bounded(other_stream, 10**9, args.streams_at_once, until, reached))
            await asyncio.gather(hostile, others)
            stop.set()
            await asyncio.gather(*honest, progress)

        # Rounds of equal size, the arbiter's RSS read at a quiet moment after each: memory
        # the allocator keeps after the first round is a high-water mark; a leak keeps growing.
        # The baseline is read after a short burst of every kind of stream (counted in the first
        # round): `arbiter serve` imports what an error path needs when it first takes it, and a
        # baseline read before those imports put them (9 MiB: 51.8 -> 60.9) in the campaign's growth.
        t0 = time.monotonic()
        await fuzz_to(min(2000, args.messages // 50))
        await quiet()
        baseline = rss_bytes(serve.proc.pid)
        print(f"  baseline RSS {baseline / MIB:.1f} MiB after a burst of {stats.fuzzed_total} hostile messages; "
              f"fuzzing {args.messages} in all (at most {args.seconds * args.slack:.0f} s)", flush=True)
        round_rss: list[int] = []
        sessions: list[str] = []
        for rnd in range(args.rounds):
            target = args.messages * (rnd + 1) // args.rounds
            await fuzz_to(target)
            if not serve.alive():
                break
            sessions = await quiet()
            round_rss.append(rss_bytes(serve.proc.pid))
            print(f"  round {rnd + 1} of {args.rounds}: {stats.fuzzed_total} fuzzed; arbiter RSS at rest "
                  f"{round_rss[-1] / MIB:.1f} MiB", flush=True)
            if time.monotonic() >= until:
                break
        elapsed = time.monotonic() - t0
        all_done.set()
        await sampler
        if stats.fuzzed_total < args.messages:
            c.deadline_hit = True
        crashed = not serve.alive()
        final = rss_bytes(serve.proc.pid)
        for chn in channels:
            await chn.close()
        log = serve.log_text()
        unexpected, grpc_decode_errors = log_records(log)
        if crashed:
            stats.fail(f"arbiter serve died (exit code {serve.proc.returncode}): {log[-2000:]}")
        if sorted(sessions) != sorted(HONEST) and not crashed:
            stats.fail(f"sessions left after the campaign: {sorted(sessions)} (expected the honest {sorted(HONEST)})")
        slack = max(args.rss_slack_mib * MIB, baseline // 2)
        if final > baseline + slack:
            stats.fail(f"arbiter RSS {final / MIB:.1f} MiB after the campaign, baseline {baseline / MIB:.1f} MiB "
                       f"(allowed {slack / MIB:.0f} MiB more)")
        # a leak: the last round grew the resting RSS as much as the first did
        if len(round_rss) >= 2:
            first_growth, last_growth = round_rss[0] - baseline, round_rss[-1] - round_rss[-2]
            if last_growth > max(args.rss_round_mib * MIB, first_growth // 2):
                stats.fail(f"arbiter RSS still growing: +{last_growth / MIB:.1f} MiB in the last round "
                           f"(+{first_growth / MIB:.1f} MiB in the first): a leak?")
        if unexpected:
            stats.fail(f"the arbiter logged {len(unexpected)} unexpected errors, first: {unexpected[0][:1500]}")
        report["serve"] = {
            "fuzzed": stats.fuzzed_total, "valid": stats.valid, "replies": stats.replies, "seconds": round(elapsed, 1),
            "streams": dict(stats.streams), "max_streams_at_once": stats.max_streams,
            "matches": dict(stats.matches), "verified": stats.verified, "reasons": dict(stats.reasons),
            "rss_mib": {"baseline": round(baseline / MIB, 1), "peak": round(rss_box.get("peak", 0) / MIB, 1),
                        "final": round(final / MIB, 1), "after_each_round": [round(r / MIB, 1) for r in round_rss]},
            "campaign_loop_lag_s": round(rss_box.get("lag", 0.0), 2), "slack": args.slack,
            "statuses": dict(stats.statuses), "error_codes": dict(stats.error_codes),
            "by_kind": dict(sorted(stats.fuzzed.items())), "crashed": crashed, "deadline_hit": c.deadline_hit,
            "log_warnings": sum(1 for ln in log.splitlines() if "WARNING" in ln),
            "grpc_unary_decode_errors_logged": grpc_decode_errors,
        }
    finally:
        stop_processes(bots, 10)  # 10 s for them all, not each
        serve.stop()
        if not stats.failures:
            import shutil

            shutil.rmtree(serve.dir, ignore_errors=True)  # its log is kept on a failure
    return c


async def _progress(stats: Stats, target: int, t0: float, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), 10)
        except asyncio.TimeoutError:
            pass
        dt = time.monotonic() - t0
        print(f"  {dt:5.0f} s: {stats.fuzzed_total:>7} fuzzed of {target}, {stats.valid} valid, "
              f"{stats.matches['hostile']} hostile + {stats.matches['honest']} honest matches, "
              f"{stats.open_streams} streams open, {len(stats.failures)} failures", flush=True)


# --------------------------------------------------------------------------------------
# Phase 2: a running tournament's arbiter.

TOURNAMENT = ["--game", "spades", "--bots", "random,greedy,heuristic", "-o", "deals=1", "--seed", "20",
              "--name", "fuzz-t", "--concurrency", "2"]


def _tournament_rows(db: Path) -> list[tuple]:
    """(idx, seats, scores, ranks, reason, actions without their timings, record JSON) per stored match."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT idx, seats, scores, ranks, reason, json_extract(record, '$.actions'), record "
                           "FROM matches ORDER BY idx").fetchall()
    return [(*r[:5], [(a["seat"], a["action"], a["forced"]) for a in json.loads(r[5])], r[6]) for r in rows]


#: What grpc itself logs (with a traceback) when a unary request does not decode: the
#: generated servicer's deserializer raises before any arbiter code runs. Expected here.
GRPC_UNARY_DECODE = re.compile(r"ERROR grpc\._cython\.cygrpc: Unexpected \[DecodeError\] raised by servicer method "
                               r"\[/cardarena\.v1\.Matches/")
_LOG_HEAD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ ")


def log_records(text: str) -> tuple[list[str], int]:
    """The log's records at ERROR or above, or with a traceback, that are not grpc's own
    unary decode errors; and how many of those there were."""
    records: list[list[str]] = []
    for line in text.splitlines():
        if _LOG_HEAD.match(line) or not records:
            records.append([line])
        else:
            records[-1].append(line)
    bad, known = [], 0
    for rec in records:
        body = "\n".join(rec)
        if not re.search(r" (ERROR|CRITICAL) |Traceback|Exception", body):
            continue
        if GRPC_UNARY_DECODE.search(rec[0]):
            known += 1
            continue
        bad.append(body)
    return bad, known


async def phase_tournament(args, rng: random.Random, report: dict) -> Campaign:
    c = Campaign(args, rng)
    stats = c.stats
    tmp = Path(tempfile.mkdtemp(prefix="arena-fuzz-tour-"))
    db, ref_db = tmp / "fuzzed.sqlite", tmp / "reference.sqlite"
    deals = args.tournament_deals
    env = dict(os.environ, COLUMNS="400", TERM="dumb")
    err_path = tmp / "tournament.stderr"
    with open(err_path, "wb") as err_f:
        proc = subprocess.Popen([sys.executable, "-m", "arbiter", "tournament", "run", *TOURNAMENT, "--deals", str(deals),
                                 "--db", str(db)], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err_f)
        print(f"phase 2: arbiter tournament run pid {proc.pid} ({3 * deals * 2} matches)", flush=True)
        address = None
        t_end = time.monotonic() + 60
        while address is None and time.monotonic() < t_end and proc.poll() is None:
            m = re.search(r"--server (127\.0\.0\.1:\d+)", err_path.read_text(errors="replace"))
            address = m.group(1) if m else None
            await asyncio.sleep(0.05)
        if address is None:
            proc.kill()
            stats.fail(f"the tournament did not announce its arbiter: {err_path.read_text()[-2000:]}")
            return c
        baseline = rss_bytes(proc.pid)
        kids = {p: start_time(p) for p in descendants(proc.pid)}
        print(f"  its arbiter is on {address}; fuzzing {args.tournament_messages} messages while it plays", flush=True)
        channels = [grpc.aio.insecure_channel(address, options=[("grpc.max_send_message_length", 4 * MIB)]) for _ in range(2)]
        stop = asyncio.Event()
        rss_box: dict = {}
        sampler = sample_rss(proc.pid, rss_box, stop)
        throttle = asyncio.Semaphore(3)
        until = time.monotonic() + args.seconds * args.slack
        names = ("random", "greedy", "heuristic")

        def one():
            r = rng.random()
            chn = rng.choice(channels)
            if r < 0.9:
                nm = rng.choice(names)
                return c.preauth(chn, nm, mz.Mutator(rng).string()[:5] + "x" * 27, "y" * 32, throttle)
            return c.unary(chn, rng.choice(("", "z" * 24)))

        planned = 3 * deals * 2

        def all_stored() -> bool:  # then the run closes its arbiter: aim at it no more
            try:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as con:
                    return con.execute("SELECT count(*) FROM matches").fetchone()[0] >= planned
            except sqlite3.Error:
                return False

        async def closed() -> bool:
            # closed, not refusing: unreachable now, and only because the run is over
            return await health_unreachable(address) and (proc.poll() is not None or all_stored())

        stats.closed_server = closed
        t0 = time.monotonic()
        progress = asyncio.ensure_future(_progress(stats, args.tournament_messages, t0, stop))
        checked = {"at": 0.0, "over": False}

        def over() -> bool:
            if proc.poll() is not None:
                return True
            if time.monotonic() - checked["at"] > 0.5:  # (a look at the store twice a second)
                checked["at"], checked["over"] = time.monotonic(), all_stored()
            return checked["over"]

        await gather_bounded(one, 10**9, args.streams_at_once, until,
                             lambda: stats.fuzzed_total >= args.tournament_messages or over())
        elapsed = time.monotonic() - t0
        still_running = proc.poll() is None
        for kid in descendants(proc.pid):
            kids.setdefault(kid, start_time(kid))
        stop.set()
        await asyncio.gather(sampler, progress)
        for chn in channels:
            await chn.close()
        # no signal (first=None): it is to finish by itself; killed, it hung
        hung = await asyncio.to_thread(stop_processes, proc, args.seconds * args.slack, first=None)
        rc = None if hung else proc.returncode
        if hung:
            stats.fail("the fuzzed tournament did not finish in time (a hang)")
    err_text = err_path.read_text(errors="replace")
    if not still_running:
        print("  note: the tournament ended before the message budget was spent", flush=True)
    if rc != 0:
        stats.fail(f"the fuzzed tournament exited with {rc}: {err_text[-2000:]}")
    left = wait_gone(kids, 20)
    if left:
        stats.fail(f"{len(left)} processes of the tournament outlived it: {sorted(left)}")
    # the reference: the same tournament with nobody fuzzing it
    ref = subprocess.run([sys.executable, "-m", "arbiter", "tournament", "run", *TOURNAMENT, "--deals", str(deals),
                          "--db", str(ref_db), "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    if ref.returncode != 0:
        stats.fail(f"the reference tournament failed: {ref.stderr[-2000:]}")
    rows = _tournament_rows(db) if db.exists() else []
    ref_rows = _tournament_rows(ref_db) if ref_db.exists() else []
    planned = 3 * deals * 2
    if len(rows) != planned:
        stats.fail(f"the fuzzed tournament stored {len(rows)} of {planned} matches")
    for r in rows:
        record = MatchRecord.from_json(r[6])
        stats.reasons[record.outcome.reason.value] += 1
        if record.outcome.reason.is_forfeit:
            stats.fail(f"tournament match {r[0]}: {record.outcome.reason.value}: {record.outcome.detail}")
        try:
            verify_record(record)
            stats.verified += 1
        except ReplayError as exc:
            stats.fail(f"tournament match {r[0]} does not replay: {exc}")
    stats.matches["tournament"] = len(rows)
    if [r[:6] for r in rows] != [r[:6] for r in ref_rows]:
        stats.fail("the fuzzed tournament's matches differ from the same tournament run without fuzz")
    unexpected, _ = log_records(err_text)
    if unexpected:
        stats.fail(f"the tournament logged {len(unexpected)} unexpected errors, first: {unexpected[0][:1500]}")
    if not stats.failures:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)  # kept on a failure, for a look
    report["tournament"] = {
        "fuzzed": stats.fuzzed_total, "replies": stats.replies, "seconds": round(elapsed, 1),
        "streams": dict(stats.streams), "max_streams_at_once": stats.max_streams, "matches": len(rows),
        "verified": stats.verified, "same_as_unfuzzed_run": [r[:6] for r in rows] == [r[:6] for r in ref_rows],
        "rss_mib": {"baseline": round(baseline / MIB, 1), "peak": round(rss_box.get("peak", 0) / MIB, 1)},
        "statuses": dict(stats.statuses), "error_codes": dict(stats.error_codes), "reasons": dict(stats.reasons),
        "by_kind": dict(sorted(stats.fuzzed.items())), "exit_code": rc,
        "closed_server_calls": stats.statuses["UNAVAILABLE (arbiter closed)"],
    }
    return c


# --------------------------------------------------------------------------------------


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--messages", type=int, default=100_000, help="hostile messages against arbiter serve (default 100000)")
    p.add_argument("--tournament-messages", type=int, default=10_000,
                   help="hostile messages against the running tournament's arbiter (default 10000)")
    p.add_argument("--tournament-deals", type=int, default=12, help="deals of the fuzzed tournament (3 x deals x 2 matches)")
    p.add_argument("--seconds", type=float, default=300.0, help="wall-time limit of each phase, times --slack (default 300)")
    p.add_argument("--matches-at-once", type=int, default=8, help="hostile matches at once (default 8)")
    p.add_argument("--streams-at-once", type=int, default=24, help="junk and pre-Hello streams at once (default 24)")
    p.add_argument("--seed", type=int, default=20, help="the campaign's seed (default 20)")
    p.add_argument("--slack", type=float, default=3.0,
                   help="every deadline and the hostile matches' clock, times this (default 3: what an idle machine "
                        "needs, three times, so that a loaded one is not taken for a hang; a hang never ends)")
    p.add_argument("--rss-slack-mib", type=int, default=48, help="RSS allowed above the baseline afterwards (default 48 MiB)")
    p.add_argument("--rounds", type=int, default=4, help="phase 1 in this many equal rounds, RSS read after each (default 4)")
    p.add_argument("--rss-round-mib", type=int, default=6,
                   help="RSS growth allowed in the last round, beyond half the first round's (default 6 MiB)")
    p.add_argument("--big", action="store_true", help="10x the messages, a longer tournament and time limit")
    p.add_argument("--json", type=Path, help="also write the report here")
    p.add_argument("--skip-tournament", action="store_true", help="phase 1 only")
    args = p.parse_args(argv)
    if args.big:
        args.messages *= 10
        args.tournament_messages *= 10
        args.tournament_deals *= 5
        args.seconds *= 8
    rng = random.Random(args.seed)
    report: dict = {"seed": args.seed}
    t0 = time.monotonic()
    serve = asyncio.run(phase_serve(args, random.Random(rng.randrange(2**32)), report))
    failures = list(serve.stats.failures)
    tour = None
    if not args.skip_tournament:
        tour = asyncio.run(phase_tournament(args, random.Random(rng.randrange(2**32)), report))
        failures += tour.stats.failures
    total = time.monotonic() - t0
    s = report["serve"]
    print("\n== fuzz campaign ==")
    print(f"arbiter serve: {s['fuzzed']} hostile messages ({s['valid']} valid alongside, {s['replies']} replies) on "
          f"{sum(s['streams'].values())} streams, at most {s['max_streams_at_once']} at once, in {s['seconds']} s")
    print(f"  matches: {s['matches'].get('hostile', 0)} hostile, {s['matches'].get('honest', 0)} honest; "
          f"{s['verified']} outcomes verified by replay; reasons {s['reasons']}")
    print(f"  RSS baseline {s['rss_mib']['baseline']} MiB, peak {s['rss_mib']['peak']} MiB, after {s['rss_mib']['final']} MiB "
          f"(at rest after each round: {s['rss_mib']['after_each_round']})")
    print(f"  stream endings {s['statuses']}")
    print(f"  deadlines and the hostile clock x{s['slack']:g}; this campaign's loop woke at most "
          f"{s['campaign_loop_lag_s']} s late")
    print(f"  arbiter errors sent {s['error_codes']}")
    if tour is not None and "tournament" in report:
        t = report["tournament"]
        print(f"tournament's arbiter: {t['fuzzed']} hostile messages ({t['replies']} replies) on "
              f"{sum(t['streams'].values())} streams in {t['seconds']} s; {t['matches']} matches stored, "
              f"{t['verified']} verified by replay, identical to the unfuzzed run: {t['same_as_unfuzzed_run']}")
    total_fuzzed = s["fuzzed"] + report.get("tournament", {}).get("fuzzed", 0)
    report["total_fuzzed"] = total_fuzzed
    report["failures"] = failures
    report["seconds"] = round(total, 1)
    if s.get("deadline_hit"):
        failures.append(f"the time limit came before {args.messages} messages (sent {s['fuzzed']})")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
    verdict = "PASS" if not failures else "FAIL"
    print(f"{verdict}: {total_fuzzed} hostile messages in {total:.0f} s; 0 crashes, 0 hangs, 0 matches without a "
          f"sensible outcome" if not failures else f"{verdict}: {len(failures)} failures in {total:.0f} s:")
    for f in failures[:30]:
        print(f"  - {f}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
