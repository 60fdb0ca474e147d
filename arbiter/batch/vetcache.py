"""Reusing a passing check report (``check_bot``'s) for a bot whose content was checked already.

Checking a bot runs its sandboxed self-test and refereed matches: seconds to a minute.
Submitting the same content again (another name, a new version label, the same bot to
another store) need not wait for that again. A report is reused only when all of these are
the same as when it was made:

- the bot's content (the submission's content hash: every file, by path);
- the check's parameters (positions, clocks, smoke matches, seed, timeout), the sandbox
  mode this machine would confine it in, and whether bots' declared packages may be
  installed here (``ARENA_INSTALL_BOT_ENVS``);
- the code that checks and plays it: a fingerprint of every source file of the arbiter,
  the SDK, the games and the house bots, the Python version, and the Node.js binary this
  machine would run a Node bot with (its path, size and modification time).

Only passing reports are kept (a failure may be the machine's load: it is checked again
each time). A reused report says so and when it was made (``reused_from``); ``--fresh``
(``check_bot(..., fresh=True)``) runs the checks again and replaces it.

The reports live in ``$ARENA_VETTING_CACHE`` (a folder; ``off`` turns reuse off), by
default ``~/.cache/cardarena/vetting``. A folder that cannot be
read or written only means nothing is reused: a check never fails because of it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from arbiter.hosting.botcheck import Report

_PATH = "\0path\0"  # the checked path, wherever it is this time


def cache_dir() -> Path | None:
    """Where reports are kept (None: reuse is off)."""
    env = os.environ.get("ARENA_VETTING_CACHE", "")
    if env.lower() == "off":
        return None
    if env:
        return Path(env)
    return Path.home() / ".cache" / "cardarena" / "vetting"  # beside the bot environments' cache


@functools.cache
def code_fingerprint() -> str:
    """A hash of every source file of the code that checks and plays a bot."""
    import importlib.util

    h = hashlib.sha256(sys.version.encode())
    for name in ("arbiter", "sdk", "cardarena", "bots"):  # found, not imported: read as files
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        root = Path(list(spec.submodule_search_locations)[0])
        for f in sorted(root.rglob("*")):
            if f.suffix in (".py", ".js", ".json", ".toml") and "__pycache__" not in f.parts and f.is_file():
                h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def _key(path: Path, params: dict[str, Any]) -> str | None:
    from arbiter.store.registry import collect

    try:
        content = collect(path).content_hash
    except Exception:  # not a submission's layout: checked, never reused
        return None
    from arbiter.hosting.botenv import ALLOW_VAR

    # whether a bot's declared packages may be installed decides whether such a bot starts
    machine = {"install_bot_envs": os.environ.get(ALLOW_VAR, ""), "node": _runtime_stamp("node")}
    blob = json.dumps({"content": content, "params": params, "machine": machine, "code": code_fingerprint()},
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _runtime_stamp(program: str) -> str:
    """Which ``program`` (a bot runtime other than this Python: Node.js) this machine would
    start, as its resolved path, size and modification time: a runtime upgraded since a
    report was made means the bot is checked again."""
    import shutil

    found = shutil.which(program)
    if not found:
        return ""
    try:
        real = Path(found).resolve()
        st = real.stat()
    except OSError:
        return found
    return f"{real}:{st.st_size}:{st.st_mtime_ns}"


def _spellings(path: Path) -> list[str]:
    return sorted({str(path), str(path.resolve())}, key=len, reverse=True)


def _swap(report: dict[str, Any], old: list[str], new: str) -> dict[str, Any]:
    text = json.dumps(report)
    for o in old:
        text = text.replace(json.dumps(o)[1:-1], json.dumps(new)[1:-1])
    return json.loads(text)


def checked(path: str | os.PathLike, params: dict[str, Any], check: Callable[[], Report], fresh: bool = False) -> Report:
    """``check()``'s report for the bot at ``path``, or a passing one kept from an earlier
    check of the same content, parameters and code (``reused_from`` says when)."""
    folder = cache_dir()
    path = Path(path)
    key = _key(path, params) if folder is not None else None
    if key is None:
        return check()
    entry = folder / f"{key}.json"
    if not fresh:
        try:
            kept = json.loads(entry.read_text())
            report = Report.from_dict(_swap(kept["report"], [_PATH], str(path)))
            report.reused_from = str(kept["at"])
            return report
        except (OSError, ValueError, KeyError, TypeError):
            pass  # none kept, or unreadable: check
    report = check()
    if report.ok:
        at = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        data = json.dumps({"at": at, "report": _swap(report.to_dict(), _spellings(path), _PATH)})
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=folder, suffix=".tmp", delete=False) as tmp:
                tmp.write(data)
            os.replace(tmp.name, entry)  # whole or not at all: a reader never sees half a report
        except OSError:
            pass
    return report
