"""Brings the author's packages into this distribution: from the repository's top folder
(two levels up) when built from a checkout, from the unpacked sdist itself when a wheel is
built from the sdist (where they sit beside this file). Python sources and stubs only, so a
checkout's caches and scratch files never ship."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # run as a script (``make wirec``): only ``build_wirec`` is used
    if __name__ != "__main__":
        raise
    BuildHookInterface = object  # type: ignore[assignment,misc]

PACKAGES = ("cardarena", "sdk", "cardarena_envs")
SUFFIXES = (".py", ".pyi")


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict) -> None:
        if version == "editable":  # dev-mode-dirs: the checkout itself is on sys.path
            build_wirec(Path(self.root).parents[1])
            return
        here = Path(self.root)
        base = here if (here / PACKAGES[0]).is_dir() else here.parents[1]
        for package in PACKAGES:
            source = base / package
            if not (source / "__init__.py").is_file():
                raise FileNotFoundError(f"card-arena-sdk: package {package!r} not found in {base}")
            for path in sorted(source.rglob("*")):
                if path.suffix in SUFFIXES and "__pycache__" not in path.parts and path.is_file():
                    build_data["force_include"][str(path)] = path.relative_to(base).as_posix()


#: The checkout's optional C extensions: (source, what it is, in words).
C_EXTENSIONS = (
    ("cardarena/wire/_wirec.c", "the C wire encoder"),
    ("arbiter/hosting/_copyc.c", "the C copier of an in-process bot's values"),
)


def build_wirec(top: Path) -> None:
    """Compile cardarena/wire/_wirec.c (the wire encoder's inner loops, issue 42) and
    arbiter/hosting/_copyc.c (an in-process seat's copies) next to their sources, for the
    checkout an editable install runs from (``make venv``): each that is there (the
    author's package is built from a checkout holding the arbiter's too). Optional: without
    a C compiler or Python's headers it says so and the Python code serves (the same
    results, slower). Written to a temporary file and moved into place, so a process that
    has the old one loaded keeps it."""
    for path, what in C_EXTENSIONS:
        _build(top / path, what)


def _build(source: Path, what: str) -> None:
    target = source.with_name(source.stem + (sysconfig.get_config_var("EXT_SUFFIX") or ".so"))
    if not source.is_file():
        return
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    include = sysconfig.get_paths()["include"]
    fd, tmp = tempfile.mkstemp(suffix=target.suffix, dir=target.parent)
    os.close(fd)
    cmd = [*cc, "-O2", "-shared", "-fPIC", "-Wall", f"-I{include}", str(source), "-o", tmp]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        done = None
        why = str(exc)
    else:
        why = done.stderr.strip()[-400:]
    if done is not None and done.returncode == 0:
        os.replace(tmp, target)
        return
    os.unlink(tmp)
    print(f"card-arena-sdk: {what} was not built ({why}); the Python one serves", file=sys.stderr)


if __name__ == "__main__":  # make wirec: the extensions for a checkout whose venv is already installed
    build_wirec(Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve())
