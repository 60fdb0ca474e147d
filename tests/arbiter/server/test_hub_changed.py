"""``Hub.changed``: a bot process's ``connect`` wakes when a session opens, not at its next
poll (docs/performance.md, "Isolation")."""

from __future__ import annotations

import asyncio

import pytest

from arbiter.server.botstream import Hub
from cardarena.v1 import arena_pb2 as pb


def test_changed_returns_when_a_session_opens_else_after_its_timeout():
    async def main() -> tuple[float, bool]:
        loop = asyncio.get_running_loop()
        hub = Hub()
        token = hub.expect("bot")
        t0 = loop.time()
        await hub.changed(0.05)  # nothing happens: its timeout
        waited = loop.time() - t0
        waiter = asyncio.ensure_future(hub.changed(30))
        await asyncio.sleep(0)
        hub.add(pb.Hello(bot_name="bot", token=token))
        await asyncio.wait_for(waiter, 5)  # woken by the session, long before its 30 s
        return waited, hub.session_for(token) is not None

    waited, opened = asyncio.run(main())
    assert 0.04 <= waited < 5 and opened


def test_a_stop_that_meets_a_session_opening_is_not_lost():
    """A caller cancelled (Ctrl-C, SIGTERM) in the loop iteration where the session it waits
    for opens is cancelled, not handed the session: with ``asyncio.wait_for`` (Python 3.11's)
    the cancel was dropped there (the inner wait had finished: its result was returned), so a
    bot process starting for the next match as ``tournament run`` was stopped went on to play
    it and every later one until the 60 s grace killed the run, with no word of what was
    stored (tests/e2e/test_terminate.py, 1 run in 6)."""
    async def main() -> None:
        hub = Hub()
        token = hub.expect("bot")
        waiter = asyncio.ensure_future(hub.changed(30))
        await asyncio.sleep(0)  # waiting for a session
        hub.add(pb.Hello(bot_name="bot", token=token))  # one opens: the wait ends in the next iteration
        waiter.cancel()  # and the caller is stopped in this one
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert waiter.cancelled()

    asyncio.run(main())


def test_wait_for_a_bot_that_is_stopped_as_it_connects_is_cancelled():
    """The same for ``Hub.wait_for`` (the arena and the cluster wait so for a named bot)."""
    async def main() -> None:
        hub = Hub()
        token = hub.expect("bot")
        waiter = asyncio.ensure_future(hub.wait_for("bot", 30))
        await asyncio.sleep(0)
        hub.add(pb.Hello(bot_name="bot", token=token))
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter

    asyncio.run(main())
