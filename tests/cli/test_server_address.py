"""The address of a remote arbiter (`--server HOST:PORT`), checked before anything is
dialled: gRPC reads a host without a port, a port past 65535, a scheme or an IPv6 host
without brackets otherwise than a person means them, and says so in its own words if at
all; and the ports a command listens on. Nothing here connects."""

from __future__ import annotations

import pytest

from tests.cli.badinput import run_in_process

BAD = [
    ("localhost", "expected HOST:PORT"),
    ("127.0.0.1:99999", "expected HOST:PORT"),
    ("::1:50051", "an IPv6 address goes in brackets, [HOST]:PORT"),
    ("http://127.0.0.1:50051", "expected HOST:PORT without a scheme"),
]


@pytest.mark.parametrize("server, says", BAD + [("", "expected HOST:PORT")])
def test_play_refuses_a_server_address_grpc_would_misread(tmp_path, server, says):
    """`arbiter play --server` took any text: "localhost" dialled port 443, "127.0.0.1:99999"
    port 34463 (99999 wrapped), "::1:50051" and "http://..." failed as gRPC's "Misformatted
    domain name", and "" played the match here instead."""
    got = run_in_process("play", "spades", "north", "south", "east", "west", "--server", server,
                         "--db", str(tmp_path / "a.sqlite"))
    said = " ".join(got.stderr.split())
    assert got.returncode == 2 and f"--server: {says}" in said, got
    assert not (tmp_path / "a.sqlite").exists()


@pytest.mark.parametrize("server, says", BAD[2:])
def test_watch_refuses_an_ipv6_host_without_brackets_and_a_scheme(server, says):
    """`arbiter watch --server` checked HOST:PORT but let "::1:50051" and "http://..." through
    to gRPC's "Misformatted domain name"."""
    got = run_in_process("watch", "--list", "--server", server)
    said = " ".join(got.stderr.split())
    assert got.returncode == 2 and f"--server: {says}" in said, got


def test_watch_refuses_db_and_server_together(tmp_path):
    """`arbiter watch --db STORE --server HOST:PORT` ignored --db without a word (the run's
    spectator token it would read was not read, and the watch was refused for want of it)."""
    got = run_in_process("watch", "--db", str(tmp_path / "arena.sqlite"), "--server", "127.0.0.1:9")
    said = " ".join(got.stderr.split())
    assert got.returncode == 2 and "--db finds the arbiter of the run writing that store, --server names one" in said, got


def test_watch_db_gives_way_to_no_server_from_the_environment(tmp_path, monkeypatch):
    """ARENA_SERVER, set once for remote use, does not make --db a conflict: --db is asked."""
    monkeypatch.setenv("ARENA_SERVER", "127.0.0.1:9")
    got = run_in_process("watch", "--db", str(tmp_path / "arena.sqlite"))
    assert got.returncode == 2 and "--server names one" not in got.stderr and "arena.sqlite" in got.stderr, got


@pytest.mark.parametrize("command", [("bots", "submit", "mybot"), ("bots", "list"), ("bots", "show", "mybot"),
                                     ("bots", "remove", "mybot")])
def test_bots_refuse_db_and_server_together_as_watch_does(tmp_path, command):
    """`arbiter bots submit|list|show --server HOST:PORT --db STORE` used the arbiter's registry
    and ignored --db without a word (a bot submitted there, the store's own never listed),
    where watch refused the pair: refused alike, naming what each flag does, before the
    arbiter is asked or the store made."""
    store = tmp_path / "arena.sqlite"
    got = run_in_process(*command, "--db", str(store), "--server", "127.0.0.1:9")
    said = " ".join(got.stderr.split())
    assert got.returncode == 2, got
    assert "--db uses the registry of a local store, --server that of a running arbiter: give one of them" in said, got
    assert "UNAVAILABLE" not in said and not store.exists(), got


def test_bots_server_is_not_refused_for_a_db_from_the_environment(tmp_path, monkeypatch):
    """ARENA_DB, set once for local use, gives way to --server unsaid (as ARENA_SERVER to watch's --db)."""
    monkeypatch.setenv("ARENA_DB", str(tmp_path / "arena.sqlite"))
    got = run_in_process("bots", "list", "--server", "localhost")  # refused for itself, before it is dialled
    said = " ".join(got.stderr.split())
    assert got.returncode == 2 and "give one of them" not in said and "--server: expected HOST:PORT" in said, got


def test_serve_refuses_metrics_on_its_own_port(tmp_path):
    """`arbiter serve --port P --metrics P`: the metrics took the port first, and the server
    then failed with gRPC's log line and "cannot listen on 127.0.0.1:P: the port is taken",
    as if another process held it."""
    import socket

    with socket.socket() as s:  # a port free now (the check comes after serve's own "port taken" one)
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    got = run_in_process("serve", "--port", port, "--metrics", port, "--credentials", str(tmp_path / "c.json"),
                         serving=True)
    said = " ".join(got.stderr.split())
    assert got.returncode == 2 and f"--metrics {port}: port {port} is --port's; the metrics need a port of their own" \
        in said, got


def test_web_on_a_taken_port_says_it_as_serve_does_and_makes_no_store(tmp_path):
    """`arbiter web --port P` with P taken said the web server's own words, "Address already in
    use (while attempting to bind on address ('127.0.0.1', P))", where `serve` and `arena` say
    "the port is taken", and had already created the new store it was given."""
    import socket

    db = tmp_path / "new.sqlite"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        got = run_in_process("web", "--db", str(db), "--port", str(port), serving=True)
    assert got.returncode == 2, got
    assert got.stderr.strip() == f"error: cannot listen on 127.0.0.1:{port}: the port is taken (another process listens on it)"
    assert not db.exists()


def test_watch_db_refuses_hidden_cards_which_no_run_of_a_store_shows(tmp_path):
    """`arbiter watch --db STORE --hidden-cards` printed "every hand is shown deal by deal ...",
    then the run's arbiter refused it ("this arbiter shows hidden cards only after a match
    ends (no --spectator-delay)"), an option neither a tournament run nor an arena has. Refused
    at once, saying what to do instead."""
    got = run_in_process("watch", "--db", str(tmp_path / "arena.sqlite"), "--hidden-cards")
    said = " ".join(got.stderr.split())
    assert got.returncode == 2 and got.stdout == "" and said == (
        "error: --hidden-cards: a tournament run or an arena shows no hand while its matches are played (only arbiter "
        "serve --spectator-delay does); watch without it: each match's full deal is shown as it ends"), got
