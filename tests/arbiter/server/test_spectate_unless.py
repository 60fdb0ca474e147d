"""The Watch call's one step (``SpectateServicer._unless``) when the watcher leaves."""

from __future__ import annotations

import asyncio
import gc

from arbiter.server.spectate import SpectateServicer


def test_a_watcher_leaving_as_the_match_ends_logs_nothing():
    """``arbiter play --server`` stops watching when its match ends; when the match's last
    step (the frames ending: StopAsyncIteration) and the cancel of the Watch crossed, the
    arbiter's stderr read "ERROR asyncio: Task exception was never retrieved ...
    StopAsyncIteration": the finished step was left unread by the cancelled call."""
    logged: list[str] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _loop, context: logged.append(context.get("message", "")))
        revoked, stopping = loop.create_future(), loop.create_future()

        async def frames():
            return
            yield

        call = asyncio.ensure_future(SpectateServicer._unless(revoked, stopping, frames().__anext__(), None))
        await asyncio.sleep(0)  # the step ends (StopAsyncIteration) ...
        call.cancel()  # ... as the watcher leaves
        try:
            await call
        except asyncio.CancelledError:
            pass
        revoked.cancel()
        stopping.cancel()
        gc.collect()  # the unread task is reported when it is collected

    asyncio.run(main())
    gc.collect()
    assert logged == []
