"""Stopping the arbiter's server leaves nothing running and prints nothing: grpc.aio's
``server.stop`` returns before the streams it cancelled have finished (grpc/grpc#37239),
and a loop closed under them printed their CancelledError's traceback (arbiter.server.arena.Streams)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import ROOT

#: A server with a bot stream that has not said Hello and a spectator waiting for a match,
#: stopped, and the loop closed at once, as asyncio.run does at the end of a command.
SCRIPT = textwrap.dedent("""
    import asyncio, grpc
    from arbiter.server.app import start_server
    from arbiter.spectating.hub import SpectatorHub
    from cardarena.v1 import arena_pb2_grpc as pb_grpc
    from cardarena.v1 import spectate_pb2 as spb, spectate_pb2_grpc as spb_grpc

    async def main():
        spectators = SpectatorHub(token="t")
        server = await start_server(spectators=spectators)
        channel = grpc.aio.insecure_channel(server.address)
        silent = pb_grpc.ArenaStub(channel).Play()  # never says Hello
        watcher = spb_grpc.SpectateStub(channel).Watch(spb.WatchRequest(token="t"))  # waits for a match
        reading = asyncio.ensure_future(watcher.read())
        await asyncio.sleep(0.3)
        streams = len(server.streams._tasks)
        await server.stop(0.1)
        print("streams", streams, "left", sum(not t.done() for t in server.streams._tasks), flush=True)
        await asyncio.gather(reading, return_exceptions=True)  # the client's side: its call ended
        silent.cancel()
        await channel.close()

    asyncio.run(main())
""")


def test_a_stopped_server_waits_for_its_streams_and_prints_no_traceback():
    for _ in range(4):  # it printed one about half the time
        run = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        assert "streams 2 left 0" in run.stdout, (run.stdout, run.stderr)
        assert "Traceback" not in run.stderr and "CancelledError" not in run.stderr, run.stderr
