"""The ``arbiter`` commands as one tool: what a person who uses several of them expects to
hold in each (every option explained in its --help, Ctrl-C said in one line, ``-`` for
stdout wherever an output file is named)."""

from __future__ import annotations

from tests.cli.badinput import command_tree


def test_every_option_of_every_command_says_what_it_does() -> None:
    """`arbiter serve --help` and `arbiter arena --help` listed ``--verbose -v`` with no word
    on what it logs, beside `arbiter web`'s, which says."""
    silent = [f"arbiter {' '.join(path)} {p.opts[0]}" for path, cmd in command_tree().items()
              for p in cmd.params if p.param_type_name == "option" and not (p.help or "").strip()]
    assert not silent, silent
