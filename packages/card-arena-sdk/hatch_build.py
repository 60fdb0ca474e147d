"""Brings the author's packages into this distribution: from the repository's top folder
(two levels up) when built from a checkout, from the unpacked sdist itself when a wheel is
built from the sdist (where they sit beside this file). Python sources and stubs only, so a
checkout's caches and scratch files never ship."""

from __future__ import annotations

from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGES = ("cardarena", "sdk", "cardarena_envs")
SUFFIXES = (".py", ".pyi")


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict) -> None:
        if version == "editable":  # dev-mode-dirs: the checkout itself is on sys.path
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
