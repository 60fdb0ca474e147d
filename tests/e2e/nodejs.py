"""Node.js for the tests of bots in JavaScript (examples/node-bot, tests/e2e/hostile/*.js).

``node_modules()`` installs the example's packages once per lock file (``npm ci`` from
its package-lock.json) into a cache folder and returns that ``node_modules``; a test is
skipped only when ``node`` itself is missing, and an install that fails fails the test.
``node_folder(...)`` stages a submittable Node bot: its files, a ``bot.toml`` naming the
runtime, the installed packages and the .proto files, all inside the folder (a hosted bot
has no network to install from and sees nothing outside its folder).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLE = ROOT / "examples" / "node-bot"
NODE = shutil.which("node")


def need_node() -> str:
    if NODE is None:
        pytest.skip("Node.js is not installed (no `node` on PATH): the JavaScript bot tests need it")
    return NODE


def _cache_root() -> Path:
    base = os.environ.get("ARENA_NODE_CACHE") or os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cardarena"


def node_modules() -> Path:
    """The example's installed packages: its own ``node_modules`` if someone ran ``npm ci``
    there, else a cache folder keyed by the lock file, installed now if missing."""
    need_node()
    own = EXAMPLE / "node_modules"
    if (own / "@grpc" / "grpc-js").is_dir() and (own / "@grpc" / "proto-loader").is_dir():
        return own
    return npm_installed(EXAMPLE, "node-bot")


def npm_installed(folder: Path, name: str) -> Path:
    """``folder``'s packages (its package.json and package-lock.json), ``npm ci``-installed
    once per lock file into a cache folder; that ``node_modules``."""
    lock = (folder / "package-lock.json").read_bytes()
    cache = _cache_root() / f"{name}-{hashlib.sha256(lock).hexdigest()[:16]}"
    done = cache / "node_modules" / ".cardarena-installed"
    cache.mkdir(parents=True, exist_ok=True)
    # one install for every test worker: the others wait on the lock, then find it done
    with open(cache / ".lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not done.exists():
            npm = shutil.which("npm")
            if npm is None:
                pytest.fail(f"node is installed but npm is not: cannot install {folder.relative_to(ROOT)}'s packages")
            for f in ("package.json", "package-lock.json"):
                shutil.copy(folder / f, cache / f)
            shutil.rmtree(cache / "node_modules", ignore_errors=True)
            proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--cache", str(cache / "npm-cache")],
                                  cwd=cache, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
            if proc.returncode != 0:
                pytest.fail(f"npm ci of {folder.relative_to(ROOT)} failed (code {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
            done.write_text("ok\n")
    return cache / "node_modules"


def node_env(**extra: str) -> dict[str, str]:
    """The environment of a Node bot run from the repository (its packages from the cache)."""
    return dict(os.environ, NODE_PATH=str(node_modules()), **extra)


def node_folder(tmp: Path, name: str, entry: Path, extra: dict[str, str] | None = None) -> Path:
    """A Node bot folder to submit or host: ``entry`` as bot.js beside the example's
    arena.js (the protocol), a bot.toml naming the runtime, node_modules and the .proto
    files inside it, readable by a bot's own uid.
    ``extra``: more files (relative path -> text), such as a hostile bot's params.json."""
    modules = node_modules()
    folder = tmp / name
    folder.mkdir()
    shutil.copy(entry, folder / "bot.js")
    for f in ("arena.js", "package.json", "package-lock.json", "bot.toml"):  # bot.toml: runtime node, entry bot.js
        shutil.copy(EXAMPLE / f, folder / f)
    shutil.copytree(modules, folder / "node_modules", ignore=shutil.ignore_patterns(".cardarena-installed"))
    shutil.copytree(ROOT / "protos", folder / "protos")
    for rel, text in (extra or {}).items():
        (folder / rel).write_text(text)
    with contextlib.suppress(OSError):
        tmp.chmod(0o755)
    for p in [folder, *folder.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    return folder
