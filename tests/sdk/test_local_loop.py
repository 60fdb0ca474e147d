"""The SDK's blocking loop on the local channel (no event loop in the bot): a ``stop`` set
from another thread ends it (as a TERM or Ctrl-C does in ``python -m sdk``), and when the
arbiter closes the stream the loop returns what it played and says so."""

from __future__ import annotations

import asyncio
import threading

import pytest

from arbiter.server.app import start_server
from cardarena.wire import framing
from sdk.bot import Bot
from sdk.runner import Stop, run

pytestmark = pytest.mark.e2e  # a real arbiter's local channel, in this process


class _First(Bot):
    name = "first"

    def choose(self, view, legal_actions):
        return legal_actions[0]


def _play_in_thread(address: str, token: str, stop: threading.Event | None, said: list[str]) -> tuple[threading.Thread, list]:
    result: list = []

    def target() -> None:
        try:
            result.append(run(_First(), address=address, token=token, stop=stop, report=said.append))
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            result.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, result


async def _connected(hub, token: str) -> None:
    for _ in range(500):
        if hub.session_for(token) is not None:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the bot never connected")


def test_stop_ends_a_blocked_local_loop_and_the_arbiter_closing_is_reported():
    async def main() -> None:
        server = await start_server(0)
        try:
            hub = server.hub
            address = framing.SCHEME + hub.local_path
            # 1. stop, from another thread, while the loop is blocked reading
            stop, said = threading.Event(), []
            token = hub.expect("first")
            thread, result = _play_in_thread(address, token, stop, said)
            await _connected(hub, token)
            stop.set()
            await asyncio.to_thread(thread.join, 10)
            assert not thread.is_alive() and result == [0]
            assert said and said[0].startswith(f"connected to {address} as first")
            for _ in range(500):  # the arbiter sees the stream end: the session is gone
                if hub.session_for(token) is None:
                    break
                await asyncio.sleep(0.01)
            assert hub.session_for(token) is None
            # 2. the arbiter closes the stream: the loop returns and says so
            said2: list[str] = []
            token2 = hub.expect("first")
            thread2, result2 = _play_in_thread(address, token2, None, said2)
            await _connected(hub, token2)
            hub.session_for(token2).close()
            await asyncio.to_thread(thread2.join, 10)
            assert not thread2.is_alive() and result2 == [0]
            assert said2[-1] == "the arbiter closed the connection (0 matches played)"
        finally:
            await server.stop(0.5)

    asyncio.run(main())


def test_the_sdks_own_stop_ends_a_blocked_local_loop_without_a_thread_to_watch_it():
    """``sdk.runner.Stop`` (what ``python -m sdk`` sets on a TERM or Ctrl-C) shuts the
    socket down itself: no watcher thread is started, a set ends the blocked read, and a
    stop set before the connection is made ends it as soon as it is made."""
    async def main() -> None:
        server = await start_server(0)
        try:
            hub = server.hub
            address = framing.SCHEME + hub.local_path
            stop, said = Stop(), []
            token = hub.expect("first")
            before = set(threading.enumerate())
            thread, result = _play_in_thread(address, token, stop, said)
            await _connected(hub, token)
            assert set(threading.enumerate()) - before == {thread}  # the loop's own thread, no watcher
            stop.set()
            await asyncio.to_thread(thread.join, 10)
            assert not thread.is_alive() and result == [0]
            assert said and said[0].startswith(f"connected to {address} as first")
            assert stop._sock is None  # the loop let go of its socket
            # set before the loop starts: it ends without playing
            early = Stop()
            early.set()
            thread2, result2 = _play_in_thread(address, hub.expect("first"), early, [])
            await asyncio.to_thread(thread2.join, 10)
            assert not thread2.is_alive() and result2 == [0]
        finally:
            await server.stop(0.5)

    asyncio.run(main())
