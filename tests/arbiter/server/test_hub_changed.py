"""``Hub.changed``: a bot process's ``connect`` wakes when a session opens, not at its next
poll (docs/performance.md, "Isolation")."""

from __future__ import annotations

import asyncio

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
