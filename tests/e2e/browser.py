"""What the browser tests share: `arbiter web` as a subprocess, and a headless Chromium
(Debian's chromium and chromedriver; `make browser` installs them)."""

from __future__ import annotations

import base64
import contextlib
import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from arbiter.hosting.stop import stop_processes
from tests.conftest import ROOT

#: Where the browser tests' screenshots of every page go: tests/artifacts/screenshots (not
#: tracked) in every run, so a test run never rewrites the tree; ``make screenshots``
#: (ARENA_SCREENSHOTS=docs/screenshots) refreshes the copies the README shows.
SHOTS = ROOT / os.environ.get("ARENA_SCREENSHOTS", "tests/artifacts/screenshots")
#: A laptop's window and a phone's.
SIZES = {"wide": (1280, 800), "phone": (390, 844)}


@contextlib.contextmanager
def serve_web(db: Path, *flags: str, **popen: Any) -> Iterator[str]:
    """`arbiter web --db DB --port 0 FLAGS` running; its base URL (``stderr=FILE``: what
    it logs goes there, for a test to read afterwards)."""
    popen.setdefault("stderr", subprocess.PIPE)
    proc = subprocess.Popen([sys.executable, "-m", "arbiter", "web", "--db", str(db), "--port", "0", *flags],
                            cwd=ROOT, stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL, **popen)
    line = proc.stdout.readline()
    m = re.search(r"on (http://[\d.]+:\d+/)", line)
    if not m:
        proc.kill()
        raise RuntimeError(f"arbiter web did not start: {line!r} {proc.stderr.read() if proc.stderr else ''}")
    try:
        yield m.group(1)
    finally:
        stop_processes(proc, 20)


@contextlib.contextmanager
def chromium(page_load_timeout: float = 60) -> Iterator[webdriver.Chrome]:
    """A headless Chromium with a profile of its own, removed afterwards."""
    binary = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    assert binary and driver_path, "install Debian's chromium and chromium-driver (`make browser` does)"
    profile = tempfile.mkdtemp(prefix="arena-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}", "--window-size=1280,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(page_load_timeout)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


#: axe-core (tests/e2e/axe: its package.json and lock file), installed from the npm
#: registry once per lock file into the cache the Node tests use (tests/e2e/nodejs.py).
AXE = Path(__file__).with_name("axe")
#: The impacts that fail a page.
SERIOUS = ("serious", "critical")


@functools.lru_cache(maxsize=1)
def _axe_source() -> str:
    from tests.e2e.nodejs import need_node, npm_installed

    need_node()
    return (npm_installed(AXE, "axe") / "axe-core" / "axe.min.js").read_text()


def script_timeout(browser, seconds: float) -> None:
    """The bound on a script's wait (``execute_async_script``), set where it is not already:
    a wait for the page set it before each of a match's hundreds of waits, one WebDriver
    call each."""
    if getattr(browser, "_arena_script_timeout", None) != seconds:
        browser.set_script_timeout(seconds)
        browser._arena_script_timeout = seconds


def accessibility_problems(browser, impacts: tuple[str, ...] = SERIOUS) -> list[str]:
    """axe-core's violations of ``impacts`` on the page as it settles: one line each (the
    rule, what it means, the first elements at fault); [] for none.

    The page's animations (a card flying into the trick from 0.2 opacity, a trick fading to
    its winner) are first run to their end: a card caught halfway through its fade-in has the
    contrast of a fifth of its ink, which no reader sees for longer than a blink (CI once
    caught the 10 of hearts so)."""
    script_timeout(browser, 60)
    if not browser.execute_script("return !!window.axe"):
        browser.execute_script(_axe_source())
    browser.execute_script("document.getAnimations().forEach(function (a) { try { a.finish(); } catch (e) {} });")
    found = browser.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']}).then(function (r) { done(r.violations.map(function (v) {"
        "  return {id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map(function (n) { return n.target.join(' '); })};"
        "})); }, function (e) { done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]); });")
    return [f"{v['id']} ({v['impact']}): {v['help']} at {', '.join(v['nodes'])}" for v in found if v["impact"] in impacts]


def set_size(browser, which: str) -> None:
    w, h = SIZES[which]
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": which == "phone"})


@contextlib.contextmanager
def on_a_phone(browser) -> Iterator[None]:
    """The current page reloaded at the phone's size, which it must keep: no wider than the
    screen (a wide table scrolling the whole page sideways); back to the wide size after."""
    set_size(browser, "phone")
    try:
        browser.refresh()
        width = browser.execute_script("return document.documentElement.scrollWidth")
        screen = SIZES["phone"][0]
        assert width <= screen, f"the page is {width} px wide on a {screen} px screen"
        yield
    finally:
        set_size(browser, "wide")


def shoot(browser, name: str) -> None:
    """The page at both sizes (SIZES) into SHOTS as NAME-wide.png and NAME-phone.png; for
    the docs (``make screenshots``), small PNGs (a palette of 128 colours when Pillow is
    there: about 0.1 s of CPU a picture, which a test run's own copies go without).

    The browser encodes each picture for speed, not size (``optimizeForSpeed``: the same
    pixels in a larger PNG): 32 ms of Chromium's CPU a picture where WebDriver's screenshot
    took 110 (a Spite and Malice table, ten of each)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for which in SIZES:
        set_size(browser, which)
        path = SHOTS / f"{name}-{which}.png"
        shot = browser.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
        path.write_bytes(base64.b64decode(shot["data"]))
        if "ARENA_SCREENSHOTS" not in os.environ:
            continue
        try:
            from PIL import Image
        except ImportError:  # pragma: no cover - the screenshot stays as the browser wrote it
            continue
        with Image.open(path) as im:
            im.convert("RGB").quantize(128).save(path, optimize=True)
    set_size(browser, "wide")
