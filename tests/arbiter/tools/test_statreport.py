"""The statistics tools' recorded deals ship inside the package, so an installed wheel
reads them as a checkout does."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

from arbiter.tools import statreport
from tests.conftest import ROOT


def test_the_recorded_deals_are_package_data_read_from_the_package():
    # the platform's package data is given for the whole arbiter package (tests/e2e/test_wheels.py
    # checks the built wheel holds every tracked file)
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["arbiter"]
    tools = Path(statreport.__file__).parent
    files = sorted(p.relative_to(tools.parent).as_posix() for p in (tools / "data").iterdir())
    assert files and all(any(fnmatch.fnmatch(f, pat) for pat in patterns) for f in files), (files, patterns)
    assert Path(str(statreport.DATA)) == tools / "data"
    for name in statreport.SPRT_CASES:
        assert statreport.recorded(name).matches


def test_an_unknown_part_is_named_and_every_part_main_prints_is_known() -> None:
    """``python -m arbiter.tools.statreport PART``: a misspelt part printed nothing and exited 0."""
    import inspect
    import re

    import pytest

    with pytest.raises(SystemExit, match="no part 'spurt'; the parts: sprt, live"):
        statreport.main(["spurt"])
    read = set(re.findall(r'"(\w+)" in parts', inspect.getsource(statreport.main)))
    assert read == set(statreport.PARTS)
