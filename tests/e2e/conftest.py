"""What consecutive browser tests share across their modules: one headless Chromium
(``browser``) and, for the tests that play at ``/play`` (tests/e2e/test_table.py and
test_accessibility.py, one xdist group), one `arbiter web` (``play_site``).

Each is made when a test first asks for it and stopped after the last test of a run of
tests that use it (the next test on this process does not ask for it, or there is none),
so a worker that runs the browser modules of a group one after the other starts one
Chromium for all of them (a start and stop is about 1.3 CPU-s of Chromium and 0.3 of
chromedriver), and no browser is left idling beside the worker's other tests."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from arbiter.store.db import Store
from tests.e2e.browser import chromium, serve_web

_KEPT: dict[str, tuple[contextlib.ExitStack, Any]] = {}


def _kept(name: str, make: Callable[[], contextlib.AbstractContextManager]) -> Any:
    if name not in _KEPT:
        stack = contextlib.ExitStack()
        try:
            _KEPT[name] = (stack, stack.enter_context(make()))
        except BaseException:
            stack.close()
            raise
    return _KEPT[name][1]


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Stop what the next test does not use (in the order made, the last first)."""
    errors = []
    for name in reversed(list(_KEPT)):
        if nextitem is None or name not in getattr(nextitem, "fixturenames", ()):
            stack, _ = _KEPT.pop(name)
            try:
                stack.close()
            except Exception as exc:  # noqa: BLE001 - the others are still stopped; then it is raised
                errors.append(exc)
    if errors:
        raise errors[0]


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Whatever a failed teardown before ours left running is stopped at the end."""
    while _KEPT:
        stack, _ = _KEPT.popitem()
        with contextlib.suppress(Exception):
            stack.close()


@pytest.fixture
def browser():
    """A headless Chromium (tests/e2e/browser.py), kept for the next test that asks for it."""
    return _kept("browser", lambda: chromium(60))


@contextlib.contextmanager
def _play_site() -> Iterator[tuple[str, Path]]:
    tmp = Path(tempfile.mkdtemp(prefix="arena-table-"))
    db = tmp / "arena.sqlite"
    Store(db).close()
    log = tmp / "web.log"
    with open(log, "w") as err:
        with serve_web(db, "--play-limit", "4", "--play-clock", "900", stderr=err) as url:
            yield url, db
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def play_site():
    """`arbiter web` over a fresh store, playing at /play (up to 4 matches at once, a
    900 s clock), kept for the next test that asks for it; its base URL and store. At its
    stop, what it printed has no traceback."""
    return _kept("play_site", _play_site)
