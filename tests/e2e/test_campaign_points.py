"""The campaigns' own instruments (issue #41 item 8), from outside the process.

The chaos campaign's bot-start stop point is reached on every path a bot starts: a child
of its fork server (where this machine has them) and a fresh sandboxed process
(ARENA_FORKSERVER=0); the marker names the path. The fuzz campaign tells an arbiter that
has closed (nothing answers its health check) from one that refuses (it answers).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arbiter.hosting import sandbox
from arbiter.server.app import start_server
from tests.campaigns.procs import bot_name, descendants, is_bot
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

sys.path.insert(0, str(ROOT / "scripts"))
from fuzz_campaign import health_unreachable  # noqa: E402


def _stopped_at_bot_start(tmp_path: Path, env_extra: dict[str, str]) -> tuple[list[str], set[str]]:
    """The marker of a tournament run stopped at its second bot start (then killed), and
    the names of the bot processes the campaign finds under it then (``is_bot``)."""
    marker = tmp_path / f"marker-{len(env_extra)}"
    env = {**os.environ, "CHAOS_FAILPOINT": "bot-start:2", "CHAOS_MARKER": str(marker), **env_extra}
    proc = subprocess.Popen([sys.executable, "-m", "tests.campaigns.failpoints", "tournament", "run", "--game", "spades",
                             "--bots", "random,greedy", "-o", "deals=1", "--deals", "1", "--seed", "3", "--quiet",
                             "--db", str(tmp_path / f"t{len(env_extra)}.sqlite")],
                            cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), f"the run never reached a bot start (exit {proc.poll()})"
        bots: set[str] = set()
        deadline = time.monotonic() + 20  # the bot being started gets there on its own (its parent is stopped)
        while not bots and time.monotonic() < deadline:
            bots = {bot_name(p) for p in descendants(proc.pid) if is_bot(p)}
            time.sleep(0.05)
        return marker.read_text().split(), bots
    finally:
        proc.send_signal(signal.SIGKILL)  # stopped (SIGSTOP) at the point: as the campaign kills it
        proc.wait(30)


def test_the_bot_start_point_is_reached_on_the_fork_server_path_and_the_fresh_one(tmp_path):
    forks, why_not = sandbox.fork_support(sandbox.Sandbox())
    default, bots = _stopped_at_bot_start(tmp_path, {})
    assert default[0] == "bot-start" and default[1] == "2"
    assert default[4] == ("fork" if forks else "fresh"), (default, why_not)
    assert bots and bots <= {"random", "greedy"}, bots  # the campaign's bot kills find forked bots too
    fresh, bots = _stopped_at_bot_start(tmp_path, {"ARENA_FORKSERVER": "0"})
    assert fresh[4] == "fresh", fresh
    assert bots and bots <= {"random", "greedy"}, bots


def test_a_closed_arbiter_is_told_apart_from_a_serving_one():
    async def main() -> tuple[bool, bool]:
        running = await start_server(0)
        serving = await health_unreachable(running.address)
        await running.stop(0.2)
        return serving, await health_unreachable(running.address)

    while_serving, after_stop = asyncio.run(main())
    assert while_serving is False and after_stop is True


def test_the_fuzz_campaign_replays_a_forfeit_from_its_summary_with_the_failure_that_ended_it():
    """The campaign rebuilt a RunMatch summary into a record without its incidents, and every
    hostile match that ended in a forfeit failed as "records no incident" once the verifier
    required the failure that ended it (a campaign fault, not the arbiter's): the summary's
    incidents are read back (codec.incident_from_text), and a summary without them still fails."""
    from fuzz_campaign import verify_summary

    from arbiter.hosting.inprocess import InProcessSeat
    from arbiter.match import run_match
    from bots.random_bot import RandomBot
    from cardarena.records import MatchConfig
    from cardarena.replay import ReplayError
    from cardarena.v1 import arena_pb2 as pb
    from cardarena.wire import codec

    class Crasher(RandomBot):
        def choose(self, view, legal_actions):
            raise RuntimeError("boom: a detail with: colons\nand a second line")

    seats = [InProcessSeat(b) for b in (RandomBot(), Crasher(), RandomBot(), RandomBot())]
    config = MatchConfig(game="spades", seed=5, options={"deals": 1})
    record = asyncio.run(run_match(config, seats))
    assert record.outcome.reason.is_forfeit and record.incidents
    req = pb.RunMatchRequest(game="spades", options={"deals": "1"}, seed=5, seats=list(record.seat_names))
    summary = pb.MatchSummary(match_id=record.match_id, outcome=codec.outcome_to_proto(record.outcome),
                              actions=[a.action for a in record.actions],
                              incidents=[codec.incident_text(i) for i in record.incidents], seed=5)
    verify_summary(req, summary, record.outcome)
    assert [codec.incident_from_text(t) for t in summary.incidents] == [(i.seat, i.kind, i.detail) for i in record.incidents]
    del summary.incidents[:]
    with pytest.raises(ReplayError, match="records no incident"):
        verify_summary(req, summary, record.outcome)
    with pytest.raises(codec.WireError, match="expected 'seat N: KIND: DETAIL'"):
        codec.incident_from_text("seat one: crash")
