"""A submission's check stopped by its ``abandoned`` (set once the submission's call has
ended, ``arbiter.server.bots.Abandoned``). The check looked at the event every 0.1 s from a
watcher in its own event loop, which woke ten times a second for the check's whole run;
the thread that sets it now cancels the check itself."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import textwrap
import threading

import pytest

from arbiter.batch.submissions import SubmissionAbandoned, _until_abandoned, check_bot
from arbiter.hosting import sandbox as sb
from arbiter.server.bots import Abandoned


@pytest.mark.e2e  # the self-test's bot process
def test_a_stop_during_a_check_ends_it_and_its_bot_process(tmp_path):
    """The bot's process (the self-test's, under rlimits) says it has started by connecting
    to the test, and its socket closes once the process is gone: a stop set from this thread
    ends the check (SubmissionAbandoned, no report) and the process with it."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(60)  # a failure's bound, never reached by a passing run
        port = server.getsockname()[1]
        (tmp_path / "stuck").mkdir()
        (tmp_path / "stuck" / "bot.py").write_text(textwrap.dedent(f"""
            import socket, threading
            from sdk import Bot

            HERE = socket.create_connection(("127.0.0.1", {port}))  # closed only by the process's end

            class Stuck(Bot):
                name = "stuck"
                games = ("spades",)

                def choose(self, view, legal_actions):
                    threading.Event().wait()  # its first decision never comes
        """))
        abandoned = Abandoned()
        ended: list[BaseException | object] = []

        def run() -> None:
            try:
                ended.append(check_bot(tmp_path / "stuck", sandbox=sb.Sandbox(mode="rlimit"), timeout=60, abandoned=abandoned))
            except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
                ended.append(exc)
            finally:  # a check that ended before its bot connected wakes the accept below
                with contextlib.suppress(OSError):
                    server.shutdown(socket.SHUT_RDWR)

        checking = threading.Thread(target=run)
        checking.start()
        try:
            bot, _ = server.accept()  # the check's bot process is running
        except OSError:
            abandoned.set()
            checking.join()
            pytest.fail(f"the bot's process never connected: {ended}")
        with bot:
            abandoned.set()
            checking.join(60)
            assert not checking.is_alive(), "the stop did not end the check"
            assert len(ended) == 1 and isinstance(ended[0], SubmissionAbandoned), ended
            bot.settimeout(60)
            assert bot.recv(1) == b"", "the check's bot process outlived it"


def test_a_waiting_check_keeps_no_timer_in_its_loop():
    """Nothing wakes the check's loop while it waits (its only timers are its own): the
    watcher's 0.1 s sleep was always one."""
    waiting, abandoned = threading.Event(), Abandoned()
    seen: list[int] = []

    async def check():
        await asyncio.sleep(0)  # the watcher, if any, has begun
        seen.append(len(asyncio.get_running_loop()._scheduled))  # (CPython's pending timers)
        waiting.set()
        await asyncio.Event().wait()

    stopped: list[BaseException] = []

    def run() -> None:
        try:
            _until_abandoned(check(), abandoned)
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            stopped.append(exc)

    checking = threading.Thread(target=run)
    checking.start()
    waiting.wait()
    abandoned.set()
    checking.join()
    assert seen == [0]
    assert len(stopped) == 1 and isinstance(stopped[0], SubmissionAbandoned), stopped
