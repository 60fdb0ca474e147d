"""`sdk.run(MyBot())` in a bot's own script takes --address/--token/--name from its command line."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import grpc
import pytest

from cardarena.wire import codec as convert
from cardarena.games import EndReason
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e  # a real `arbiter serve` and bot script processes


def test_a_bot_script_run_with_flags_joins_and_plays(serve, tmp_path):
    script = tmp_path / "mybot.py"
    script.write_text(textwrap.dedent("""
        from sdk import Bot, run

        class MyBot(Bot):
            name = "mybot"
            def choose(self, view, legal_actions):
                return str(legal_actions[0])   # notation strings are accepted too

        if __name__ == "__main__":
            run(MyBot())
    """))
    tokens = [serve.bot_token(f"flagged{i}") for i in range(2)]
    logs = [tmp_path / f"flagged{i}.stderr" for i in range(2)]
    procs = [
        subprocess.Popen([sys.executable, str(script), "--address", serve.address, "--token", tokens[i],
                          "--name", f"flagged{i}"], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=logs[i].open("wb"))
        for i in range(2)
    ]
    serve.bots.extend(procs)
    try:
        serve.wait_sessions(["flagged0", "flagged1"])
    except TimeoutError as exc:  # say why: what each bot printed, and whether it is still running
        said = {f"flagged{i}": (p.poll(), logs[i].read_text(errors="replace")[-2000:]) for i, p in enumerate(procs)}
        raise AssertionError(f"{exc}; the bots (exit code, stderr): {said}") from None
    with grpc.insecure_channel(serve.address) as ch:
        summary = pb_grpc.MatchesStub(ch).RunMatch(pb.RunMatchRequest(
            game="spite-and-malice", seats=["flagged0", "flagged1"], seed=2, options={"payoff_size": "5"},
            admin_token=serve.admin_token), timeout=60)
    assert convert.outcome_from_proto(summary.outcome).reason is EndReason.COMPLETED
    assert not summary.incidents
