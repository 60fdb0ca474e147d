"""The CA file of every command that reaches a remote arbiter: `arbiter play --server`,
`arbiter bots submit|list|show|remove --server`, `arbiter watch` (--tls-ca) and `arbiter
web --arbiter` (--arbiter-tls-ca). One reader checks it before anything connects, so a
missing file or one that is no PEM certificate is one ``error:`` line naming the flag as
typed, the file and what is wrong, the same in every command (not gRPC's "Failed to create
security handshaker", nor an option the command does not have). Nothing here connects:
the address is never reached."""

from __future__ import annotations

import re

import pytest

from arbiter.server import auth
from arbiter.store.db import Store
from tests.cli.badinput import invoke

NOWHERE = "127.0.0.1:9"


def _commands(tmp_path) -> dict[str, tuple[list[str], str]]:
    """Each command reaching NOWHERE, with the flag that takes its CA file."""
    creds = tmp_path / "creds.json"
    auth.ensure(creds, ("browser",))
    bot = tmp_path / "b.py"
    bot.write_text("from sdk import Bot\n")
    return {
        "play": (["play", "spite-and-malice", "a", "b", "--server", NOWHERE, "--admin-token", "t",
                  "--db", str(tmp_path / "a.sqlite")], "--tls-ca"),
        "bots submit": (["bots", "submit", str(bot), "--name", "b", "--server", NOWHERE, "--token", "t"], "--tls-ca"),
        "bots list": (["bots", "list", "--server", NOWHERE, "--token", "t"], "--tls-ca"),
        "bots show": (["bots", "show", "b", "--server", NOWHERE, "--token", "t"], "--tls-ca"),
        "bots remove": (["bots", "remove", "b", "--server", NOWHERE, "--token", "t"], "--tls-ca"),
        "watch": (["watch", "--list", "--server", NOWHERE], "--tls-ca"),
        "web": (["web", "--port", "0", "--db", str(tmp_path / "w.sqlite"), "--arbiter", NOWHERE,
                 "--arbiter-credentials", str(creds)], "--arbiter-tls-ca"),
    }


def _refused(args: list[str]) -> str:
    done = invoke(args, serving=args[0] == "web")
    assert done.exit_code == 2 and not done.crash and not done.hung, done.describe()
    errors = [line for line in done.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, done.describe()
    return re.sub(r"\s+", " ", errors[0])


@pytest.mark.parametrize("command", ["play", "bots submit", "bots list", "bots show", "bots remove", "watch", "web"])
def test_a_ca_file_missing_or_not_pem_is_named_by_every_command(tmp_path, command):
    args, flag = _commands(tmp_path)[command]
    missing = tmp_path / "absent.pem"
    assert _refused([*args, flag, str(missing)]) == f"error: {flag} {missing}: No such file or directory"
    bad = tmp_path / "ca.pem"
    bad.write_text("not a certificate\n")
    assert _refused([*args, flag, str(bad)]) == (
        f"error: {flag} {bad}: not a PEM certificate (no -----BEGIN CERTIFICATE----- line)")


@pytest.mark.parametrize("command", ["list", "show", "remove"])
def test_bots_tls_ca_without_server_is_refused_not_ignored(tmp_path, command):
    """As `arbiter play` refuses it: a local --db command has no server to trust a CA for."""
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    args = ["bots", command] + ([] if command == "list" else ["b"]) + ["--db", str(tmp_path / "a.sqlite")]
    said = _refused([*args, "--tls-ca", str(ca)])
    assert said == ("error: --tls-ca is the CA of a --server's certificate: add --server HOST:PORT, "
                    "or leave --tls-ca out"), said


def test_web_arbiter_tls_ca_without_arbiter_is_refused_not_ignored(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    Store(tmp_path / "w.sqlite").close()
    said = _refused(["web", "--port", "0", "--db", str(tmp_path / "w.sqlite"), "--arbiter-tls-ca", str(ca)])
    assert said == "error: --arbiter-tls-ca needs --arbiter HOST:PORT (the standing arbiter it is the CA of)", said


def test_play_admin_token_without_server_is_refused_not_ignored(tmp_path, monkeypatch):
    """As bots refuse --token without --server: a local match has no arbiter to show it to.
    ARENA_ADMIN_TOKEN in the environment does not count (set once for remote use)."""
    args = ["play", "spite-and-malice", "random", "random", "--transport", "inproc", "--db", str(tmp_path / "a.sqlite")]
    said = _refused([*args, "--admin-token", "t"])
    assert said == ("error: --admin-token is the token of a --server: add --server HOST:PORT, or leave --admin-token "
                    "out to play here"), said
    done = invoke(args, env={"ARENA_ADMIN_TOKEN": "t"})
    assert done.exit_code == 0, done.describe()
