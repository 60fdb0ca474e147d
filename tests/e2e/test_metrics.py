"""`arbiter serve --metrics` (issue #31 item 3): a real server, real bot processes, a real
HTTP scrape of the exposition, parsed by prometheus_client's own parser; the counts are
those of the matches played, and no label (nor any byte of the page) carries a token, a
seed or a card."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from arbiter.hosting.stop import stop_processes
from arbiter.server import auth, client
from tests.conftest import ROOT, start_serve, stop_serve

pytestmark = pytest.mark.e2e

ZOO = Path(__file__).with_name("zoo.py")
SEED = 48213  # no label may be it
CARD = re.compile(r"^(10|[2-9TJQKA])[SHDC]$|^[2-9TJQKA]?(10)?[♠♥♦♣]$")


def _scrape(url: str) -> tuple[str, dict[str, dict[tuple, float]]]:
    """The page, and every sample: name -> {sorted labels: value}."""
    with urllib.request.urlopen(url, timeout=10) as resp:
        assert resp.status == 200
        text = resp.read().decode()
    samples: dict[str, dict[tuple, float]] = defaultdict(dict)
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            samples[s.name][tuple(sorted(s.labels.items()))] = s.value
    return text, samples


def _value(samples, name: str, **labels: str) -> float:
    """The sample ``name`` with exactly ``labels`` (0 if it is not there)."""
    return samples.get(name, {}).get(tuple(sorted(labels.items())), 0.0)


def _total(samples, name: str, **labels: str) -> float:
    """The sum of the samples ``name`` whose labels include ``labels``."""
    return sum(v for k, v in samples.get(name, {}).items() if set(labels.items()) <= set(k))


def test_a_scrape_counts_what_was_played_and_names_no_secret():
    s = start_serve("--metrics", "127.0.0.1:0")
    try:
        line = s.proc.stdout.readline()  # said right after the address (`arbiter serve` prints both)
        m = re.search(r"metrics on (http://127\.0\.0\.1:\d+/metrics)", line)
        assert m, line
        url = m.group(1)
        _, before = _scrape(url)
        assert _total(before, "arbiter_matches_started_total") == 0

        for name, spec in (("alpha", "random"), ("alpha", "random"), ("beta", "greedy"), ("beta", "greedy"),
                           ("boom", f"{ZOO}:RaiseInChoose")):
            s.start_bot(spec, name)
        s.wait_sessions(["alpha", "alpha", "beta", "beta", "boom"])
        _, connected = _scrape(url)
        assert _value(connected, "arbiter_connected_bots", bot="alpha") == 2
        assert _value(connected, "arbiter_connected_bots", bot="beta") == 2
        assert _value(connected, "arbiter_connected_bots", bot="boom") == 1

        honest = client.run_match(s.address, "spades", ["alpha", "beta", "alpha", "beta"], admin_token=s.admin_token,
                                  seed=SEED, options={"deals": 1}, timeout=60)
        # RaiseInChoose raises at its third decision: under the forfeit policy its side forfeits
        bad = client.run_match(s.address, "spite-and-malice", ["boom", "alpha"], admin_token=s.admin_token,
                               seed=SEED + 1, timeout=60)
        assert not honest.incidents and honest.outcome.reason.value == "completed", honest
        assert bad.outcome.reason.value == "forfeit_crash" and len(bad.incidents) == 1, bad

        text, after = _scrape(url)
        for game in ("spades", "spite-and-malice"):
            assert _value(after, "arbiter_matches_started_total", game=game) == 1
            assert _total(after, "arbiter_matches_finished_total", game=game) == 1
            assert _value(after, "arbiter_live_matches", game=game) == 0
        assert _value(after, "arbiter_matches_finished_total", game="spades", reason="completed") == 1
        assert _value(after, "arbiter_matches_finished_total", game="spite-and-malice", reason="forfeit_crash") == 1

        # every decision of the record is counted once, by its bot; each asked one is timed
        assert _total(after, "arbiter_decisions_total", game="spades") == len(honest.actions)
        assert _total(after, "arbiter_decisions_total", game="spite-and-malice") == len(bad.actions)
        for game, played in (("spades", honest), ("spite-and-malice", bad)):
            for bot in ("alpha", "beta", "boom"):
                n = _value(after, "arbiter_decisions_total", game=game, bot=bot)
                assert _value(after, "arbiter_decision_seconds_count", game=game, bot=bot) == n
                if n:
                    assert _value(after, "arbiter_decision_seconds_bucket", game=game, bot=bot, le="+Inf") == n
                    assert _value(after, "arbiter_decision_seconds_sum", game=game, bot=bot) > 0
            assert _value(after, "arbiter_overhead_seconds_count", game=game) == len(played.actions)
        assert _value(after, "arbiter_decisions_total", game="spades", bot="boom") == 0
        assert _value(after, "arbiter_decisions_total", game="spite-and-malice", bot="boom") == 2  # the third raised: the match ended there

        assert _value(after, "arbiter_forfeits_total", game="spite-and-malice", bot="boom", kind="crash") == 1
        assert _value(after, "arbiter_seat_failures_total", game="spite-and-malice", bot="boom", kind="crash") == 1
        assert _total(after, "arbiter_forfeits_total") == 1 and _total(after, "arbiter_seat_failures_total") == 1

        # No secret, no hidden card, no seed: not in a label, not anywhere on the page.
        creds = auth.read(s.credentials)
        for token in (creds.admin, creds.spectator, *creds.bots.values()):
            assert token not in text
        values = {v for name, rows in after.items() if name.startswith("arbiter_") for k in rows for _, v in k}
        keys = {k for name, rows in after.items() if name.startswith("arbiter_") for row in rows for k, _ in row}
        assert keys <= {"game", "bot", "reason", "kind", "arena", "status", "le"}, keys
        assert not {str(SEED), str(SEED + 1)} & values
        assert not [v for v in values if CARD.match(v)], values
        assert not set(honest.actions + bad.actions) & values
        assert {"alpha", "beta", "boom", "spades", "spite-and-malice"} <= values
    finally:
        stop_serve(s)


def test_metrics_are_off_unless_asked():
    s = start_serve()
    stop_serve(s)
    rest = s.proc.stdout.read()  # all it printed after its address (with --metrics: where they are)
    assert "metrics" not in rest


def test_a_hosted_bot_that_never_connects_is_counted(tmp_path):
    from arbiter import metrics
    from arbiter.hosting.botproc import BotStartError
    from arbiter.tournament.play import play_local

    broken = tmp_path / "broken.py"
    broken.write_text("import does_not_exist\n")
    m = metrics.enable(metrics.Metrics(process=False))
    try:
        with pytest.raises(BotStartError, match="exited with code"):
            play_local("spite-and-malice", [str(broken), "random"])
    finally:
        metrics.disable()
    get = m.registry.get_sample_value
    assert get("arbiter_bot_start_failures_total", {"bot": "broken", "reason": "exited"}) == 1
    # none is left counted as connected (the random bot may or may not have connected before the broken one exited)
    assert not get("arbiter_connected_bots", {"bot": "random"})
    assert get("arbiter_matches_started_total", {"game": "spite-and-malice"}) is None  # none was dealt


def _lines(proc: subprocess.Popen) -> "queue.Queue[str]":
    """``proc``'s stdout, line by line, read by a thread (a wait on it has a timeout)."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def _until(lines: "queue.Queue[str]", pattern: str, timeout: float = 60) -> re.Match:
    deadline = time.monotonic() + timeout
    while True:
        line = lines.get(timeout=max(0.01, deadline - time.monotonic()))  # queue.Empty past the deadline
        m = re.search(pattern, line)
        if m:
            return m


def test_an_arena_and_the_web_page_serve_their_metrics_when_asked(tmp_path):
    db, creds = tmp_path / "arena.sqlite", tmp_path / "creds.json"
    arena = subprocess.Popen(
        [sys.executable, "-m", "arbiter", "arena", "--game", "spades", "-o", "deals=1", "--house", "random,greedy",
         "--db", str(db), "--credentials", str(creds), "--port", "0", "--web-port", "-1", "--metrics", "127.0.0.1:0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=open(tmp_path / "arena.log", "w"), text=True, stdin=subprocess.DEVNULL)
    try:
        lines = _lines(arena)
        url = _until(lines, r"metrics on (http://127\.0\.0\.1:\d+/metrics)").group(1)
        _until(lines, r"encounter 0 \((\d+) matches\)")  # stored: its matches are over
        text, got = _scrape(url)
        assert _total(got, "arbiter_matches_finished_total", game="spades") >= 2  # one deal, both seatings
        assert _total(got, "arbiter_decisions_total", game="spades", bot="random") > 0
        assert _value(got, "arbiter_arena_entrants", arena="spades", status="active") == 2
        assert _total(got, "arbiter_store_write_seconds_count") >= 1
        assert "arbiter_arena_waiting" in text and "process_resident_memory_bytes" in text
        stored = auth.read(creds)
        assert stored.admin and stored.admin not in text
    finally:
        stop_processes(arena, 15)
    web = subprocess.Popen([sys.executable, "-m", "arbiter", "web", "--db", str(db), "--port", "0",
                            "--metrics", "127.0.0.1:0"], cwd=ROOT, stdout=subprocess.PIPE,
                           env={**os.environ, "COLUMNS": "1000"},  # the store's long path on one line
                           stderr=open(tmp_path / "web.log", "w"), text=True, stdin=subprocess.DEVNULL)
    try:
        lines = _lines(web)
        page = _until(lines, r"serving .* on (http://\S+)").group(1)
        url = _until(lines, r"metrics on (http://127\.0\.0\.1:\d+/metrics)").group(1)
        with urllib.request.urlopen(page + "a/spades", timeout=10) as resp:  # the leaderboard, read from the store
            assert resp.status == 200
        text, got = _scrape(url)
        assert "arbiter_matches_started_total" in text and _total(got, "arbiter_matches_started_total") == 0
    finally:
        stop_processes(web, 15)


def test_a_bot_self_test_counts_nothing(tmp_path):
    """Issue 44 (item 14): /metrics listed a self-test's seats (``candidate``, ``random-1``)
    beside the service's bots."""
    from arbiter import metrics
    from arbiter.batch.submissions import check_bot

    m = metrics.enable(metrics.Metrics(process=False))
    try:
        report = check_bot(ROOT / "bots" / "random_bot.py", positions=10, fresh=True)  # run, not reused
    finally:
        metrics.disable()
    assert report.ok, report.to_dict()
    text = generate_latest(m.registry).decode()
    assert 'bot="candidate"' not in text and 'bot="random-1"' not in text, text
    assert m.registry.get_sample_value("arbiter_matches_started_total", {"game": "spades"}) is None
