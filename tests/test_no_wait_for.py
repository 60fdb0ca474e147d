"""No ``asyncio.wait_for`` in the project's code: Python 3.11's (the oldest we support) drops a
cancel that arrives in the loop iteration where the awaited work finishes (it returns the
work's result; python/cpython#86296, fixed in 3.12 by building it on ``asyncio.timeout``).
A ``tournament run`` stopped by SIGTERM as a bot process connected for its next match went
on playing until its 60 s grace killed it (tests/arbiter/server/test_hub_changed.py).
``async with asyncio.timeout(s)`` keeps the cancel; use it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arbiter", "sdk", "bots", "cardarena", "cardarena_envs")


def wait_for_calls(source: str, name: str = "<source>") -> list[str]:
    """Where ``source`` uses asyncio's ``wait_for``: ``asyncio.wait_for(...)`` or a name
    imported from asyncio, as ``file:line``."""
    tree = ast.parse(source, name)
    imported = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "asyncio"
                for a in n.names if a.name == "wait_for"}
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and n.attr == "wait_for" and isinstance(n.value, ast.Name) \
                and n.value.id == "asyncio":
            out.append(f"{name}:{n.lineno}")
        elif isinstance(n, ast.Name) and n.id in imported:
            out.append(f"{name}:{n.lineno}")
    return out


def test_the_check_finds_both_spellings():
    assert wait_for_calls("import asyncio\nasync def f(x):\n    return await asyncio.wait_for(x, 1)\n") == ["<source>:3"]
    assert wait_for_calls("from asyncio import wait_for as w\nasync def f(x):\n    return await w(x, 1)\n") == [
        "<source>:3"]
    assert wait_for_calls("import asyncio\nasync def f(hub):\n    return await hub.wait_for('bot', 1)\n") == []


def test_no_code_of_ours_calls_asyncio_wait_for():
    texts = {path: path.read_text(encoding="utf-8") for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}
    # parsed only where the name occurs at all (every spelling holds it): 0.7 CPU-s for the tree
    found = [hit for path, text in texts.items() if "wait_for" in text
             for hit in wait_for_calls(text, str(path.relative_to(ROOT)))]
    assert found == [], "use `async with asyncio.timeout(s)` (this file's docstring says why): " + ", ".join(found)
