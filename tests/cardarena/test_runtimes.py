"""The manifest that names a bot's runtime (cardarena.runtimes): each bad manifest is
refused naming what is wrong."""

from __future__ import annotations

import pytest

from cardarena.runtimes import NODE, PYTHON, ManifestError, parse_manifest


def test_a_manifest_names_a_runtime_and_an_entry_of_it():
    m = parse_manifest(b'runtime = "node"\nentry = "src/main.js"\ndeterministic = true\n')
    assert (m.runtime, m.entry, m.deterministic) == (NODE, "src/main.js", True)
    assert parse_manifest(b'runtime = "node"\n').entry == "bot.js"  # the runtime's default entry
    assert parse_manifest(b"").runtime is PYTHON


@pytest.mark.parametrize("text, says", [
    (b'runtime = "ruby"', "runtime 'ruby' is not one of python, node"),
    (b'runtime = node', "not TOML"),
    (b'runtime = "node"\nentry = "../outside.js"', "must be a relative path inside the folder"),
    (b'runtime = "node"\nentry = "/etc/passwd.js"', "must be a relative path inside the folder"),
    (b'runtime = "node"\nentry = "bot.py"', "must end with .js or .cjs or .mjs"),
    (b'runtime = "node"\nnetwork = true', "unknown keys ['network']"),
    (b'runtime = "node"\ndeterministic = "yes"', "deterministic must be true or false"),
    (b"\xff\xfe", "not TOML"),
])
def test_a_bad_manifest_says_what_is_wrong(text, says):
    with pytest.raises(ManifestError, match="bot.toml") as exc:
        parse_manifest(text)
    assert says in str(exc.value)
