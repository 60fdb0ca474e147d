"""`arbiter bots submit|list|show|remove --server`: the Bots service of a real `arbiter
serve`, through the CLI's client (arbiter.server.client), with author tokens. The server
is a process; the client commands run in this process (typer's runner, on the click tree
built once: tests/clicache.py), each over the network to the server as from a terminal:
a process of its own was most of the test's CPU, and all of the client's start."""

from __future__ import annotations

import pytest

from arbiter.server import auth
from tests.arbiter.store.test_registry import GOOD, HELPER, write_bot
from tests.cli.badinput import run_in_process as _arbiter
from tests.conftest import start_serve, stop_serve

pytestmark = pytest.mark.e2e  # a real `arbiter serve` and the Bots service


def test_authors_submit_list_and_remove_their_own_bots_remotely(tmp_path):
    s = start_serve("--bots-db", str(tmp_path / "arena.sqlite"), "--author", "alice", "--author", "bob")
    try:
        # submissions run here: the server said at its start whether its sandbox isolates them
        from arbiter.hosting.sandbox import Sandbox

        weak, said = Sandbox().untrusted_warning(), " ".join(s.log.read_text().split())
        assert (f"warning: {weak}" in said) if weak else "sandbox mode" not in said, said
        creds = auth.read(s.credentials)
        alice, bob = creds.authors["alice"], creds.authors["bob"]
        folder = write_bot(tmp_path / "good", GOOD, HELPER)
        done = _arbiter("bots", "submit", str(folder), "--name", "good", "--server", s.address, "--token", alice)
        assert done.returncode == 0, done.stderr
        assert "registered good 2.1" in " ".join(done.stdout.split()) and f"on {s.address}" in done.stdout
        listed = _arbiter("bots", "list", "--server", s.address, "--token", alice)
        assert listed.returncode == 0 and "good" in listed.stdout
        assert "good" not in _arbiter("bots", "list", "--server", s.address, "--token", bob).stdout
        # A bot's name is public (it is on every leaderboard): Submit says it is taken,
        # and nothing more of the bot (README, Security)
        taken = _arbiter("bots", "submit", str(folder), "--name", "good", "--version", "9", "--server", s.address,
                         "--token", bob)
        said = " ".join(taken.stderr.split())
        assert taken.returncode == 2 and "'good' is taken by another author" in said and "names are public" in said, said
        assert "alice" not in said and "2.1" not in said
        theirs = _arbiter("bots", "remove", "good", "--server", s.address, "--token", bob)
        nobody = _arbiter("bots", "remove", "nobody", "--server", s.address, "--token", bob)
        assert theirs.returncode == nobody.returncode == 2 and "Traceback" not in theirs.stderr
        assert theirs.stderr.replace("good", "NAME") == nobody.stderr.replace("nobody", "NAME")  # no oracle
        wrong = _arbiter("bots", "list", "--server", s.address, "--token", "not-a-token-at-all")
        assert wrong.returncode == 2 and "UNAUTHENTICATED" in wrong.stderr
        # a wrong token is told from a missing one (a revoked one read as if none was passed)
        assert "the author token given is not this arbiter's" in " ".join(wrong.stderr.split()), wrong.stderr
        gone = _arbiter("bots", "remove", "good", "--server", s.address, "--token", alice)
        assert gone.returncode == 0 and "removed 1 version of good" in gone.stdout
    finally:
        stop_serve(s)


def test_an_arbiter_without_the_bots_service_says_how_to_serve_it():
    """`arbiter bots list --server` (or submit, show, remove) against an `arbiter serve`
    started without --bots-db answered "UNIMPLEMENTED: Method not found!": gRPC's words
    for a service the server lacks. It says which service is missing and how it is served."""
    s = start_serve()
    try:
        done = _arbiter("bots", "list", "--server", s.address, "--token", auth.read(s.credentials).admin)
    finally:
        stop_serve(s)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2 and "Method not found" not in said, said
    assert f"{s.address}: this arbiter serves no Bots service" in said and "arbiter serve --bots-db" in said, said
