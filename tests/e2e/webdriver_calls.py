"""A pytest plugin that counts the WebDriver calls of each browser test, by command: what a
browser test costs is mostly its round trips to chromedriver, and a count, unlike a time,
does not depend on the machine's load. Not loaded by default:

    .venv/bin/python -m pytest -n 0 -s -p tests.e2e.webdriver_calls tests/e2e/test_table.py

prints, after each test, ``webdriver calls: TOTAL in N waits for the page`` and the commands
most called (a wait for the page is one ``executeAsyncScript``; a test's total over its
waits is the figure to compare, as the matches' lengths vary between runs)."""

from __future__ import annotations

import collections

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

_COUNT: collections.Counter[str] = collections.Counter()
_execute = WebDriver.execute


def _counted(self, command, params=None):
    _COUNT[command] += 1
    return _execute(self, command, params)


WebDriver.execute = _counted  # type: ignore[method-assign]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    _COUNT.clear()
    yield
    waits = _COUNT["w3cExecuteScriptAsync"]
    total = sum(_COUNT.values())
    print(f"\n{item.nodeid}: webdriver calls: {total} in {waits} waits for the page"
          f" ({total / waits:.1f} a wait)" if waits else f"\n{item.nodeid}: webdriver calls: {total}",
          dict(_COUNT.most_common(6)))
