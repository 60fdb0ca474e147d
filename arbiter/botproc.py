"""Bot processes the arbiter starts itself: one subprocess per bot, connected over gRPC.

Each process runs ``python -m sdk --bot SPEC`` with a fresh token that only it may use;
its stderr goes to a log file so a crash can be reported with its traceback.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from arbiter.server import Hub, Session


class BotStartError(Exception):
    """A bot process did not connect; the message has the tail of its stderr."""


@dataclass
class BotProcess:
    name: str
    spec: str
    proc: subprocess.Popen
    log_path: Path
    session: Session | None = None

    def stderr_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return "\n".join(text[-lines:])

    def stop(self, timeout: float = 3.0) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@dataclass
class BotPool:
    """The bot processes of one run, by bot name."""

    hub: Hub
    address: str
    log_dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="arena-bots-")))
    procs: dict[str, BotProcess] = field(default_factory=dict)

    def launch(self, name: str, spec: str) -> BotProcess:
        token = self.hub.expect(name)
        log_path = self.log_dir / f"{name}.stderr.log"
        env = dict(os.environ, ARENA_TOKEN=token, PYTHONUNBUFFERED="1")
        cmd = [sys.executable, "-m", "sdk", "--bot", spec, "--address", self.address, "--name", name]
        with open(log_path, "wb") as err:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env)
        bp = BotProcess(name, spec, proc, log_path)
        self.procs[name] = bp
        return bp

    async def wait_connected(self, timeout: float = 60.0) -> None:
        """Wait until every launched bot has a session; BotStartError if one dies or is late."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for bp in self.procs.values():
            while bp.session is None:
                bp.session = self.hub.find(bp.name)
                if bp.session is not None:
                    break
                if bp.proc.poll() is not None:
                    raise BotStartError(f"bot {bp.name!r} ({bp.spec}) exited with code {bp.proc.returncode}:\n{bp.stderr_tail()}")
                if loop.time() > deadline:
                    raise BotStartError(f"bot {bp.name!r} ({bp.spec}) did not connect within {timeout:.0f} s:\n{bp.stderr_tail()}")
                await asyncio.sleep(0.05)

    def session(self, name: str) -> Session | None:
        """The live session of ``name`` (None if its process died)."""
        return self.hub.find(name)

    def stop(self) -> None:
        for bp in self.procs.values():
            bp.stop()
