"""The languages a hosted bot may be written in, and the manifest that names one.

A bot folder is a Python bot (its entry point ``bot.py``) unless it holds a manifest,
``bot.toml``, naming another runtime and the file it starts::

    runtime = "node"     # Node.js: the arbiter runs `node ENTRY --address ADDRESS`
    entry = "bot.js"     # relative to the folder
    deterministic = false  # optional: say true and the check replays a match to prove it

A Python bot may declare the packages it needs beyond the SDK::

    requirements = "requirements.txt"   # pinned packages (a lock file), inside the folder

The arbiter installs them once into a cached environment of its own interpreter (with
the SDK on its path), which the sandbox shows read-only, and runs the bot with that
environment's Python (``arbiter.hosting.botenv``). Installing what a bot declares is the
operator's choice, off by default (``ARENA_INSTALL_BOT_ENVS=1`` allows it).

A bot in another runtime speaks the wire contract itself (protos/cardarena/v1; see
docs/other-languages.md and examples/node-bot). Everything it needs must be inside its
folder (``node_modules`` too): a hosted bot has no network and sees nothing else of the
host. Its folder may therefore be bigger than a Python bot's (``Runtime.max_files``,
``max_bytes``). The registry, the launcher and the check read the runtime from here.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MANIFEST = "bot.toml"


@dataclass(frozen=True)
class Runtime:
    name: str
    entry: str  # the entry file a folder has by default
    suffixes: tuple[str, ...]  # what an entry file's name may end with
    executable: str  # the program that runs the entry file (found on PATH by the host)
    max_files: int  # a submission's size limits
    max_bytes: int


PYTHON = Runtime("python", "bot.py", (".py",), "python", 200, 5 * 1024 * 1024)
# node_modules of @grpc/grpc-js and @grpc/proto-loader alone: ~1200 files, ~14 MiB
NODE = Runtime("node", "bot.js", (".js", ".cjs", ".mjs"), "node", 3000, 40 * 1024 * 1024)
RUNTIMES = {r.name: r for r in (PYTHON, NODE)}


class ManifestError(ValueError):
    """A bot.toml that does not say a runtime, an entry file of it, and nothing else."""


@dataclass(frozen=True)
class Manifest:
    runtime: Runtime
    entry: str
    deterministic: bool = False
    requirements: str | None = None  # a Python bot's lock file of packages, inside its folder


def parse_manifest(data: bytes) -> Manifest:
    """The manifest in ``data`` (a bot.toml's bytes); ManifestError naming what is wrong."""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"{MANIFEST}: not TOML: {exc}") from None
    unknown = sorted(set(doc) - {"runtime", "entry", "deterministic", "requirements"})
    if unknown:
        raise ManifestError(f"{MANIFEST}: unknown keys {unknown} (known: runtime, entry, deterministic, requirements)")
    name = doc.get("runtime", "python")
    if not isinstance(name, str) or name not in RUNTIMES:
        raise ManifestError(f"{MANIFEST}: runtime {str(name)[:40]!r} is not one of {', '.join(RUNTIMES)}")
    runtime = RUNTIMES[name]
    entry = doc.get("entry", runtime.entry)
    p = PurePosixPath(entry) if isinstance(entry, str) else None
    if p is None or p.is_absolute() or not p.parts or ".." in p.parts or "\\" in entry:
        raise ManifestError(f"{MANIFEST}: entry {str(entry)[:80]!r} must be a relative path inside the folder")
    if not entry.endswith(runtime.suffixes):
        raise ManifestError(f"{MANIFEST}: entry {entry[:80]!r} of runtime {name} must end with {' or '.join(runtime.suffixes)}")
    deterministic = doc.get("deterministic", False)
    if not isinstance(deterministic, bool):
        raise ManifestError(f"{MANIFEST}: deterministic must be true or false")
    requirements = doc.get("requirements")
    if requirements is not None:
        r = PurePosixPath(requirements) if isinstance(requirements, str) else None
        if r is None or r.is_absolute() or not r.parts or ".." in r.parts or "\\" in requirements:
            raise ManifestError(f"{MANIFEST}: requirements {str(requirements)[:80]!r} must be a relative path inside the folder")
        if runtime is not PYTHON:
            raise ManifestError(f"{MANIFEST}: requirements are for Python bots; a {name} bot brings its own files")
        requirements = r.as_posix()
    return Manifest(runtime, p.as_posix(), deterministic, requirements)


def manifest_of(folder: str | Path) -> Manifest | None:
    """The manifest of a bot folder, or None (a Python bot: a file, or a folder without one)."""
    path = Path(folder) / MANIFEST
    return parse_manifest(path.read_bytes()) if Path(folder).is_dir() and path.is_file() else None
