"""What the registry makes of a bot.toml (cardarena.runtimes): a Node bot's folder is
collected with its packages under its own limits; a Python bot's layout and limits are
unchanged."""

from __future__ import annotations

import pytest

from arbiter.store import registry as reg
from cardarena.runtimes import MANIFEST, NODE, PYTHON, manifest_of


def _node_folder(tmp_path, files: int):
    folder = tmp_path / "nodebot"
    (folder / "node_modules" / "pkg").mkdir(parents=True)
    (folder / MANIFEST).write_text('runtime = "node"\nentry = "bot.js"\n')
    (folder / "bot.js").write_text("require('pkg');\n")
    for k in range(files):
        (folder / "node_modules" / "pkg" / f"f{k}.js").write_text("module.exports = 1;\n")
    (folder / "node_modules" / ".bin").mkdir()
    (folder / "node_modules" / ".bin" / "tool").symlink_to("../pkg/f0.js")  # npm's links: left out, as dot files are
    return folder


def test_a_node_folder_is_collected_with_its_packages_under_its_own_limits(tmp_path):
    sub = reg.collect(_node_folder(tmp_path, PYTHON.max_files + 50))  # more files than a Python bot may have
    assert sub.entry == MANIFEST and "bot.js" in sub.files and "node_modules/.bin/tool" not in sub.files
    assert len(sub.files) == PYTHON.max_files + 52
    assert manifest_of(tmp_path / "nodebot").runtime is NODE
    staged = reg.materialize(sub, tmp_path / "copy")
    assert staged == tmp_path / "copy" and (staged / "node_modules" / "pkg" / "f0.js").is_file()
    # the manifest's entry must be there
    files = dict(sub.files)
    del files["bot.js"]
    with pytest.raises(reg.RegistryError, match="the entry file 'bot.js' that bot.toml names is missing"):
        reg.validate(reg.Submission(files, MANIFEST))


def test_limits_stay_a_python_bots_without_a_manifest(tmp_path):
    folder = tmp_path / "pybot"
    folder.mkdir()
    (folder / "bot.py").write_text("from sdk import Bot\n")
    for k in range(PYTHON.max_files):
        (folder / f"m{k}.py").write_text("x = 1\n")
    with pytest.raises(reg.RegistryError, match=r"too big \(at most 200 files and 5120 KiB\)"):
        reg.collect(folder)
    many = {f"m{k}.py": b"" for k in range(PYTHON.max_files)} | {"bot.py": b""}
    with pytest.raises(reg.RegistryError, match=r"at most 200 files and 5120 KiB\)$"):
        reg.validate(reg.Submission(many, "bot.py"))
    with pytest.raises(reg.RegistryError, match="too big .* for a node bot"):
        reg.collect(_node_folder(tmp_path, NODE.max_files))
