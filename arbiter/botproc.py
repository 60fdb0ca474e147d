"""Bot processes the arbiter starts itself: one sandboxed subprocess per bot, over gRPC.

Each process runs ``python -m sdk --bot SPEC`` inside a ``sandbox.Sandbox`` (resource
limits everywhere; network and file system cut off where bubblewrap or unshare exist),
with a fresh launch token that only it may use. Where the sandbox cuts the network the
bot dials the arbiter's Unix socket (``Hub.unix_path``), else its TCP address. Its stderr
goes to a file; the tail of it is attached to the session so that a crash, timeout or
disconnect is recorded in the match record with the bot's own last words.
"""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from arbiter import sandbox as sb
from arbiter.server import Hub, Session

log = logging.getLogger(__name__)

#: How much of a bot's stderr goes into a match record.
STDERR_TAIL_BYTES = 4096


class BotStartError(Exception):
    """A bot process did not connect; the message has the tail of its stderr."""


def read_tail(path: Path, max_bytes: int = STDERR_TAIL_BYTES) -> str:
    """The last ``max_bytes`` of a file, decoded leniently ('' if unreadable)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            data = f.read(max_bytes)
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    if size > max_bytes:
        text = "[...]" + text[text.find("\n") + 1:] if "\n" in text else "[...]" + text
    return text.strip()


@dataclass
class BotProcess:
    name: str
    spec: str
    proc: subprocess.Popen
    log_path: Path
    workdir: Path
    session: Session | None = None
    token: str = ""  # its launch token: identifies its session among processes of the same bot

    def stderr_tail(self, lines: int = 15) -> str:
        text = read_tail(self.log_path).splitlines()
        return "\n".join(text[-lines:])

    def record_tail(self) -> str:
        """What goes into a match record: the tail of stderr and, if it died, how."""
        # A bot that just closed its stream is usually still writing its traceback, and
        # then exiting. It runs niced (sandbox), so on a busy machine that can take seconds;
        # this waits in a worker thread, and only after a seat failed.
        deadline = time.monotonic() + 5.0
        while self.proc.poll() is None and self.session is not None and self.session.closed and time.monotonic() < deadline:
            time.sleep(0.02)
        tail = read_tail(self.log_path)
        rc = self.proc.poll()
        if rc is not None:
            how = f"killed by signal {-rc}" if rc < 0 else f"exit code {rc}"
            tail = f"{tail}\n[bot process ended: {how}]".strip()
        return tail

    def stop(self, timeout: float = 3.0) -> None:
        sb.kill_tree(self.proc, timeout)
        sb.cleanup(self.workdir)


@dataclass
class BotPool:
    """The bot processes of one run, by bot name, each in its own sandbox."""

    hub: Hub
    address: str
    log_dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="arena-bots-")))
    procs: dict[str, BotProcess] = field(default_factory=dict)
    sandbox: sb.Sandbox | None = None  # None: sandbox.Sandbox() (the strongest available)

    def __post_init__(self) -> None:
        if self.sandbox is None:
            self.sandbox = sb.Sandbox()
        if self.sandbox.blocks_network and not getattr(self.hub, "unix_path", None):
            log.warning("the arbiter has no Unix socket: bots run without a network namespace")
            self.sandbox = sb.Sandbox(self.sandbox.limits, "rlimit")

    def launch(self, name: str, spec: str) -> BotProcess:
        """Start bot ``spec`` (bundled name, FILE.py[:Class], folder, module:Class) as ``name``."""
        box = self.sandbox
        assert box is not None
        token = self.hub.expect(name)
        log_path = self.log_dir / f"{name}.stderr.log"
        path_part, sep, cls = spec.partition(":")
        code: list[Path] = []
        env = {"ARENA_TOKEN": token}
        bot_arg = spec
        if Path(spec).exists() or (sep and Path(path_part).exists()):
            host = Path(spec if Path(spec).exists() else path_part).resolve()
            code.append(host)
            bot_arg = box.code_path(host) + (f":{cls}" if sep and not Path(spec).exists() else "")
            if host.is_dir():
                env["PYTHONPATH"] = box.code_path(host)  # a folder bot imports its own modules
        argv = [sys.executable, "-m", "sdk", "--bot", bot_arg, "--name", name]
        launch = box.prepare(argv, code=code, env=env, tcp_address=self.address, unix_socket=getattr(self.hub, "unix_path", None))
        argv_with_address = launch.argv + ["--address", launch.address]
        launch.argv = argv_with_address
        proc = sb.start(launch, log_path)
        bp = BotProcess(name, spec, proc, log_path, launch.workdir, token=token)
        self.procs[name] = bp
        log.info("started bot %s (%s) in sandbox %s, pid %d", name, spec, box.mode, proc.pid)
        return bp

    async def wait_connected(self, timeout: float = 60.0) -> None:
        """Wait until every launched bot has a session; BotStartError if one dies or is late."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for bp in self.procs.values():
            while bp.session is None:
                session = self.hub.session_for(bp.token)
                if session is not None:
                    bp.session = session
                    session.stderr_source = bp.record_tail
                    break
                if bp.proc.poll() is not None:
                    raise BotStartError(f"bot {bp.name!r} ({bp.spec}) exited with code {bp.proc.returncode}:\n{bp.stderr_tail()}")
                if loop.time() > deadline:
                    raise BotStartError(f"bot {bp.name!r} ({bp.spec}) did not connect within {timeout:.0f} s:\n{bp.stderr_tail()}")
                await asyncio.sleep(0.05)

    def session(self, name: str) -> Session | None:
        """The live session of this pool's process of ``name`` (None if it died)."""
        bp = self.procs.get(name)
        return self.hub.session_for(bp.token) if bp is not None else None

    def stop(self) -> None:
        for bp in self.procs.values():
            bp.stop()
