"""The project points at nothing outside itself: its rules are docs/rules/ and `arbiter rules`."""

from __future__ import annotations

from tests.conftest import ROOT

#: What a fresh clone does not have (spelled in pieces so that this file does not match).
OUTSIDE = ("shared" + "/rules", "../" + "shared", "/work/" + "shared", "STYLE" + ".md")
TREES = ("cardarena", "cardarena_envs", "sdk", "bots", "arbiter", "protos", "docs", "tests", "packages")
SUFFIXES = (".py", ".md", ".proto", ".toml", ".txt", ".cfg")


def test_no_file_points_outside_the_project():
    files = [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml"]
    for tree in TREES:
        files += [p for p in (ROOT / tree).rglob("*") if p.is_file() and p.suffix in SUFFIXES]
    hits = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for needle in OUTSIDE:
            if needle in text:
                hits.append(f"{path.relative_to(ROOT)}: {needle}")
    assert not hits, "pointers outside the project: " + "; ".join(hits)


def test_the_rules_documents_exist_and_link_each_other():
    rules = ROOT / "docs" / "rules"
    for name in ("README.md", "spades.md", "spite-and-malice.md", "spot.md"):
        assert (rules / name).is_file(), name
    index = (rules / "README.md").read_text()
    assert all(f"({g}.md)" in index for g in ("spades", "spite-and-malice", "spot"))
    assert "docs/rules/" in (ROOT / "README.md").read_text()
