"""The SDK documents itself: the harness's example runs as written, and ``Bot`` documents
``rng`` and every hook."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import sdk.bot
import sdk.harness
from tests.conftest import ROOT


def harness_example() -> str:
    doc = sdk.harness.__doc__
    start = doc.index("::\n") + 3
    lines = []
    for line in doc[start:].splitlines():
        if line and not line.startswith("    "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines)).strip() + "\n"


@pytest.mark.e2e
def test_the_harness_example_is_complete_and_runs(tmp_path):
    code = harness_example()
    assert "import" in code and "play_match(" in code and "class MyBot(Bot)" in code
    script = tmp_path / "try_mybot.py"
    script.write_text(code)
    # a fresh interpreter in an empty folder: nothing but what the example imports
    r = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Outcome(" in r.stdout and "decisions" in r.stdout


def test_bot_documents_rng_and_every_hook():
    doc = sdk.bot.Bot.__doc__
    for word in ("rng", "info", "on_match_start", "on_events", "choose", "on_match_end", "name", "version", "games"):
        assert f"{word}:" in doc or f"{word}(" in doc, word
    for hook in ("choose", "on_match_start", "on_events", "on_match_end"):
        assert getattr(sdk.bot.Bot, hook).__doc__, hook


def test_sdk_modules_point_to_the_rules_in_the_project():
    import sdk.spades
    import sdk.spite_and_malice
    import sdk.spot

    for mod, game in ((sdk.spades, "spades"), (sdk.spot, "spot"), (sdk.spite_and_malice, "spite-and-malice")):
        assert f"docs/rules/{game}.md" in mod.__doc__ and f"arbiter rules {game}" in mod.__doc__
        assert (ROOT / "docs" / "rules" / f"{game}.md").is_file()
