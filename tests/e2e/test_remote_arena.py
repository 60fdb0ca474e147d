"""The remote division of `arbiter arena` (issue 31 item 5): connected bots, not hosted.

`arbiter arena` runs as a user runs it, with `division = "remote"`, over a temporary
store and credentials file. Two bot processes connect to its server with bot tokens of
that file, as authors' bots on their own machines connect; a third presents one of those
tokens under another name and is refused. The connected bots enter under their tokens'
names, play encounters against each other, and are rated; every match is of a deal of
its own (a remote bot keeps its memory, so no deal comes back), replays and verifies; the
leaderboard page lists them marked not hosted and says why.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path

from arbiter.arena.ladder import verify
from arbiter.hosting.stop import stop_processes
from arbiter.server import auth
from arbiter.store.arenas import Arenas
from arbiter.store.db import Store
from cardarena.replay import verify_record
from arbiter.store.registry import Registry
from tests.arbiter.store.test_registry import GOOD, HELPER, write_bot
from tests.cli.badinput import run_in_process
from tests.conftest import ROOT
from tests.e2e.test_arena import CONFIG as ARENA_CONFIG, _start, _wait

# the hosted ladder's file of tests/e2e/test_arena.py, in the remote division
CONFIG = ARENA_CONFIG.replace('game = "spite-and-malice"\n', 'game = "spite-and-malice"\ndivision = "remote"\n', 1)
assert 'division = "remote"' in CONFIG

WANTED = 3  # encounters to wait for


def _bot(address: str, token: str, name: str, spec: str = "random") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sdk", "--bot", spec, "--address", address, "--name", name], cwd=ROOT,
                            env=dict(os.environ, ARENA_TOKEN=token), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def test_connected_bots_play_a_remote_division_shown_as_not_hosted(tmp_path: Path):
    db, creds, log = tmp_path / "remote.sqlite", tmp_path / "creds.json", tmp_path / "arena.log"
    tokens = auth.ensure(creds, ("alpha", "beta")).bots  # `arbiter credentials add-bot NAME`
    config = tmp_path / "arena.toml"
    config.write_text(textwrap.dedent(CONFIG.format(creds=creds, db=db)))
    proc, address, url = _start(config, log)
    bots: list[subprocess.Popen] = []
    try:
        bots = [_bot(address, tokens["alpha"], "alpha"), _bot(address, tokens["beta"], "beta", "heuristic")]
        impostor = _bot(address, tokens["alpha"], "gamma")  # a name its token is not for
        assert impostor.wait(60) != 0
        assert "this token is the identity of bot 'alpha'" in impostor.stderr.read()
        # an author who submits here (the file has authors) is told how this division is entered,
        # before any self-test, and nothing is registered: a version here would never play
        folder = write_bot(tmp_path / "good", GOOD, HELPER)
        submitted = run_in_process("bots", "submit", str(folder), "--name", "good", "--server", address,
                                   "--token", auth.read(creds).authors["alice"])
        said = " ".join(submitted.stderr.split())
        assert submitted.returncode == 2 and "FAILED_PRECONDITION" in said, said
        assert "arena 'e2e' is a remote division" in said and "arbiter credentials add-bot NAME" in said, said
        _wait(db, lambda done, matches, entrants: len(done) >= WANTED, 120, proc, log)
        # a match watched to its end: what is withheld, and why, in the arena's words (it said
        # "while the tournament runs (its deals come back in other seatings)")
        watched = run_in_process("watch", "--db", str(db))
        said = " ".join(watched.stdout.split())
        assert watched.returncode == 0 and "arena e2e, running from" in said, said
        assert "withheld until the tournament or arena encounter it is part of is over" in said and "tournament runs" not in said

        page = urllib.request.urlopen(f"{url}", timeout=30).read().decode()
        assert 'id="not-hosted"' in page and "remote division: not hosted" in page
        assert "do not compete on equal hardware" in page and "no deal is played twice here" in page
        for name in ("alpha", "beta"):
            row = page[page.index(f'data-player="{name}"'):]
            row = row[:row.index("</tr>")]
            assert '<span class="pill not-hosted">not hosted</span>' in row
        proc.terminate()  # stopped before the store is read: what it holds is then settled
        assert proc.wait(30) == 0

        with Store(db, read_only=True) as store:
            tables = Arenas(store)
            a = tables.arena("e2e")
            assert a.spec["division"] == "remote"
            entrants = {e.player: e for e in tables.entrants(a.id)}
            assert set(entrants) == {"alpha", "beta"}  # who the tokens say, never "gamma"
            with Registry(db, read_only=True) as registry:
                assert registry.versions() == []  # the submission registered nothing
            assert all(e.version == "remote" and e.author == "remote" and e.status == "active" for e in entrants.values())
            assert all(e.encounters >= WANTED for e in entrants.values()), entrants
            encounters = tables.encounters(a.id)
            assert len(encounters) >= WANTED and all(set(e.players) == {"alpha", "beta"} for e in encounters)
            matches = tables.matches(a.id)
            records = [m.record() for m in matches]
            assert sorted(m.encounter for m in matches) == sorted([e.idx for e in encounters] * 2)  # both seatings each
            assert len({r.seed for r in records}) == len(records)  # no deal is ever played twice
            assert len({(m.encounter, m.deal) for m in matches}) == len(matches)
            for r in records:
                assert set(r.seat_names) == {"alpha", "beta"}
                assert not r.outcome.reason.is_forfeit, (r.outcome, r.incidents)
                assert verify_record(r) == r.outcome
            assert verify(tables, a) == []  # the ratings are those the stored results give
    finally:
        stop_processes(proc, 30)
        stop_processes(bots, 10)


def test_a_suspended_remote_bot_plays_again_once_it_connects_anew(tmp_path: Path):
    """Its author fixes it and connects it again: that new connection is its way back (it
    has no new version to come back with, as a hosted bot has)."""
    db, creds, log = tmp_path / "remote.sqlite", tmp_path / "creds.json", tmp_path / "arena.log"
    tokens = auth.ensure(creds, ("alpha", "beta")).bots
    config = tmp_path / "arena.toml"
    config.write_text(textwrap.dedent(CONFIG.format(creds=creds, db=db)).replace("[server]", "[failure]\nsuspend_after = 1\n[server]"))
    proc, address, _ = _start(config, log)
    bots: list[subprocess.Popen] = []
    try:
        broken = _bot(address, tokens["alpha"], "alpha", str(ROOT / "tests" / "e2e" / "zoo.py") + ":RaiseInChoose")
        bots = [broken, _bot(address, tokens["beta"], "beta")]

        def status(entrants, player: str) -> str:
            return next((e.status for e in entrants if e.player == player), "")

        done, _, entrants = _wait(db, lambda done, m, entrants: status(entrants, "alpha") == "suspended", 120, proc, log)
        before = len(done)
        assert "suspended after 1 encounters in a row with a forfeit" in next(e.reason for e in entrants if e.player == "alpha")
        stop_processes(broken, 10)
        bots.append(_bot(address, tokens["alpha"], "alpha"))  # fixed: the bundled random bot
        done, _, entrants = _wait(db, lambda done, m, entrants: status(entrants, "alpha") == "active" and any(
            "alpha" in players for _, _, players in done[before:]), 120, proc, log)
        assert status(entrants, "alpha") == "active"
    finally:
        stop_processes(proc, 30)
        stop_processes(bots, 10)
