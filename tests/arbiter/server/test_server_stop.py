"""Stopping the arbiter's server leaves no RPC task running and prints nothing: grpc.aio's
``server.stop`` returns before the tasks of the RPCs it cancelled have finished
(grpc/grpc#37239), and a loop closed under them printed their CancelledError's traceback
(arbiter.server.app.rpcs_ended)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e  # a server in a process of its own

#: A server with bot streams that have not said Hello (some opened just before the stop,
#: so that they are still being accepted) and a spectator waiting for a match, stopped,
#: and the loop closed at once, as asyncio.run does at the end of a command.
SCRIPT = textwrap.dedent("""
    import asyncio, grpc
    from arbiter.server.app import _RPC_COROUTINES, start_server
    from arbiter.spectating.hub import SpectatorHub
    from cardarena.v1 import arena_pb2_grpc as pb_grpc
    from cardarena.v1 import spectate_pb2 as spb, spectate_pb2_grpc as spb_grpc

    def rpc_tasks():
        return [t for t in asyncio.all_tasks() if not t.done() and t.get_coro().__qualname__ in _RPC_COROUTINES]

    async def main():
        spectators = SpectatorHub(token="t")
        server = await start_server(spectators=spectators)
        channel = grpc.aio.insecure_channel(server.address)
        silent = [pb_grpc.ArenaStub(channel).Play()]  # never says Hello
        watcher = spb_grpc.SpectateStub(channel).Watch(spb.WatchRequest(token="t"))  # waits for a match
        reading = asyncio.ensure_future(watcher.read())
        # until both calls are served: no event says so (a handler's start is only its
        # task), so the loop looks at its tasks, a short while apart, for 10 s at most
        deadline = asyncio.get_running_loop().time() + 10
        while len(rpc_tasks()) < 2 and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        serving = len(rpc_tasks())
        silent += [pb_grpc.ArenaStub(channel).Play() for _ in range(8)]
        await asyncio.sleep(0)  # one turn of the loop: these calls are opened, not yet served
        await server.stop(0.1)
        print("serving", serving >= 2, "left", len(rpc_tasks()), flush=True)
        await asyncio.gather(reading, return_exceptions=True)  # the client's side: its call ended
        for call in silent:
            call.cancel()
        await channel.close()

    asyncio.run(main())
""")


def test_a_stopped_server_leaves_no_rpc_task_and_prints_no_traceback():
    for _ in range(4):  # it printed one about half the time
        run = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        assert "serving True left 0" in run.stdout, (run.stdout, run.stderr)
        assert "Traceback" not in run.stderr and "CancelledError" not in run.stderr, run.stderr
