"""Remote bots at /play (issue 31 item 5): a bot connected to a standing arbiter is an opponent.

A real `arbiter serve` (its own credentials file), a bot process connected to it with its
own token (as an author's bot on their own machine connects), and `arbiter web --arbiter
ADDR --arbiter-credentials FILE` over a fresh store. A plain HTTP client finds the bot on
the /play form as `remote:NAME`, marked not hosted, starts matches against it and plays
them to the end over HTTP; the matches are refereed by the standing arbiter (the person's
seat joins it as bot `browser`), recorded in the web's store, and replay and verify. Every
page of the match is scanned for a card the seat had not been shown by then. Two tables at
once each get their own seat (RunMatch's seat_sessions), and what cannot be played (a
remote bot beside a hosted one, a bot not connected, missing credentials) is refused by
name.
"""

from __future__ import annotations

import re
import textwrap
import shutil
import tempfile
from pathlib import Path

import pytest

from arbiter.server import auth
from cardarena.games import EndReason
from cardarena.replay import verify_record
from tests.cli.badinput import invoke
from tests.cli.test_new_user import HANG
from tests.conftest import ROOT, start_serve, stop_serve, tls_certificate
from tests.e2e.browser import serve_web
from tests.e2e.test_human_seat import (
    SPITE, Client, _error, _new_store, _play_out, _start, _start_form, _stored, _verifies, card_tokens, deal_cards, seen_by,
)

REMOTE_BOT = "faraway"


#: The tests that share the module's `standing` fixture: one xdist group (--dist loadgroup,
#: tests/conftest.py), so it is made once in a run.
SHARED = pytest.mark.xdist_group("remote_play")


@pytest.fixture(scope="module")
def standing():
    serve = start_serve()
    tmp = Path(tempfile.mkdtemp(prefix="arena-remote-play-"))
    try:
        serve.bot_token("browser")  # the person's seat on that arbiter: `arbiter credentials add-bot browser`
        serve.start_bot("random", REMOTE_BOT)
        serve.wait_sessions([REMOTE_BOT])
        db = _new_store(tmp)
        with serve_web(db, "--arbiter", serve.address, "--arbiter-credentials", str(serve.credentials),
                       "--play-clock", "900") as url:
            yield url, db, serve
    finally:
        stop_serve(serve)
        shutil.rmtree(tmp, ignore_errors=True)


def _scan_by_decisions(client: Client, record, seat: int, match_id: str) -> int:
    """Fail if a page of the match showed a card the seat had not been shown by then.

    A seat on a standing arbiter learns of the game only in its own messages (each Turn
    brings the events since its last one; then its MatchEnd): so a page shown before the
    seat's k-th answer may show at most what the seat had seen at its k-th decision, and
    everything the end discloses once the match is over."""
    seen = seen_by(record, seat)
    deal = deal_cards(record)
    mine = [i for i, a in enumerate(record.actions) if a.seat == seat]
    assert len(deal - seen[0]) > 10, "the scan must have hidden cards to look for"
    answered = checked = 0
    prefix = f"/play/{match_id}"
    for r in client.log:
        if not (r.path == prefix or r.path.startswith((prefix + "/", prefix + "?"))):  # pages, fragments, acts
            continue
        if r.method == "POST" and r.path.endswith("/act") and r.status == 303:
            answered += 1
            continue
        if not r.body:
            continue
        checked += 1
        assert str(record.seed) not in r.body, f"{r.method} {r.path}: the seed is in the response"
        if 'data-over="1"' in r.body:
            allowed = seen[-1]
        else:
            allowed = seen[mine[min(answered, len(mine) - 1)]]
        leaked = (card_tokens(r.body) & deal) - allowed
        assert not leaked, (f"{r.method} {r.path} (after {answered} answers) shows {sorted(leaked)}, which seat {seat} had "
                            f"not been shown")
    return checked


@SHARED
def test_a_remote_bot_is_listed_chosen_and_played_to_the_end(standing):
    url, db, serve = standing
    client = Client(url)
    form = client.get("/play?game=spite-and-malice")
    assert form.status == 200
    assert f'value="remote:{REMOTE_BOT}"' in form.body
    assert f"remote:{REMOTE_BOT} (remote: connected to {serve.address}, not hosted here)" in form.body
    assert 'value="remote:browser"' not in form.body  # the person's own seat is no opponent
    assert 'value="random"' in form.body  # the hosted bots are still offered

    # A person's table deals from a secret seed, and with two pay-off cards the person's seat
    # (playing its first legal action) pays both off in its first turn on about 1 deal in 200
    # (2 of 400 seeds, in process): the remote bot never gets a turn. Such a match is checked
    # like any other, and another is played, until the remote bot has played its seat.
    for _ in range(4):
        match_id = _start(client, "spite-and-malice", 0, [f"remote:{REMOTE_BOT}"], SPITE)
        decisions = _play_out(client, match_id)
        assert decisions > 0
        record = _stored(db, match_id)
        assert record.seat_names == ("browser", REMOTE_BOT)
        assert not record.outcome.reason.is_forfeit and not record.incidents, (record.outcome, record.incidents)
        assert sum(1 for a in record.actions if a.seat == 0) == decisions
        if any(a.seat == 1 for a in record.actions):  # the remote bot played its seat
            break
        assert record.outcome.ranks[0] < record.outcome.ranks[1], record.outcome  # the person's seat went out first
    else:
        raise AssertionError("the remote bot never got a turn in four matches")
    _verifies(db, match_id, 0)  # replays and verifies, as `arbiter replay` shows
    page = client.get(f"/play/{match_id}")
    assert 'data-over="1"' in page.body  # once the record gives the count:
    assert f'data-step="{len(record.actions)}"' in page.body
    assert _scan_by_decisions(client, record, 0, match_id) > 5
    assert serve.alive()


@SHARED
def test_two_tables_at_once_each_get_their_own_seat(standing):
    url, db, _ = standing
    a, b = Client(url), Client(url)
    first = _start(a, "spite-and-malice", 0, [f"remote:{REMOTE_BOT}"], SPITE)
    second = _start(b, "spite-and-malice", 1, [f"remote:{REMOTE_BOT}"], SPITE)
    _play_out(b, second)
    _play_out(a, first)
    for client, match_id, seat in ((a, first, 0), (b, second, 1)):
        record = _stored(db, match_id)
        assert record.seat_names[seat] == "browser" and REMOTE_BOT in record.seat_names
        assert not record.incidents, record.incidents
        _verifies(db, match_id, seat)
        _scan_by_decisions(client, record, seat, match_id)


@SHARED
def test_what_cannot_be_played_on_the_arbiter_is_refused_by_name(standing):
    url, _, serve = standing
    client = Client(url)
    mixed = client.post("/play/new", _start_form("spot", 0, [f"remote:{REMOTE_BOT}", "random"], {"players": "3"}))
    assert mixed.status == 400 and "choose remote bots for every other seat" in _error(mixed)
    absent = client.post("/play/new", _start_form("spite-and-malice", 0, ["remote:nobody"], SPITE))
    assert absent.status == 400 and "unknown bot 'remote:nobody'" in _error(absent)
    # a bot connected twice is needed for two seats: the arbiter says so, the page says it
    two = client.post("/play/new", _start_form("spot", 0, [f"remote:{REMOTE_BOT}"] * 2, {"players": "3"}))
    assert two.status == 409 and "connections of bot" in _error(two), _error(two)


def _web_fails(*flags: str) -> str:
    """`arbiter web FLAGS` refused before it serves (run in this process; were it to
    start serving, it would stop at once and exit 0, which fails here)."""
    done = invoke(["web", "--port", "0", *flags], serving=True)
    assert done.exit_code not in (0, None) and not done.hung, done.describe()
    assert not done.crash and "Traceback" not in done.output, done.describe()
    return re.sub(r"\s+", " ", done.output)


def test_missing_or_unfit_credentials_are_named(tmp_path):
    db = _new_store(tmp_path)
    assert "--arbiter needs --arbiter-credentials" in _web_fails("--db", str(db), "--arbiter", "127.0.0.1:50051")
    creds = tmp_path / "creds.json"
    auth.ensure(creds)  # an arbiter's file with no token for the person's seat
    said = _web_fails("--db", str(db), "--arbiter", "127.0.0.1:50051", "--arbiter-credentials", str(creds))
    assert "no bot token for 'browser'" in said and "arbiter credentials add-bot browser" in said


@SHARED
def test_run_match_seats_the_session_it_names_and_no_other(standing):
    """RunMatch's seat_sessions: a named session must be connected and be that seat's bot."""
    import grpc

    from cardarena.v1 import arena_pb2 as pb, arena_pb2_grpc as pb_grpc

    _, _, serve = standing
    with grpc.insecure_channel(serve.address) as ch:
        stub = pb_grpc.MatchesStub(ch)
        sid = next(s.session_id for s in stub.ListSessions(pb.ListSessionsRequest(admin_token=serve.admin_token)).sessions
                   if s.bot_name == REMOTE_BOT)

        def refused(seats: list[str], sessions: list[str]) -> tuple[grpc.StatusCode, str]:
            request = pb.RunMatchRequest(game="spite-and-malice", seats=seats, seat_sessions=sessions, seed=1,
                                         admin_token=serve.admin_token)
            with pytest.raises(grpc.RpcError) as caught:
                stub.RunMatch(request, timeout=30)
            return caught.value.code(), caught.value.details()

        assert refused([REMOTE_BOT, REMOTE_BOT], [sid, sid]) == (
            grpc.StatusCode.FAILED_PRECONDITION, f"session {sid!r} is not connected (or holds another seat of this match)")
        assert refused(["browser", REMOTE_BOT], [sid, ""]) == (
            grpc.StatusCode.FAILED_PRECONDITION, f"session {sid!r} is bot {REMOTE_BOT!r}, not 'browser'")
        assert refused([REMOTE_BOT, REMOTE_BOT], ["s999-nope"])[1] == \
            "session 's999-nope' is not connected (or holds another seat of this match)"
        assert refused([REMOTE_BOT, REMOTE_BOT], ["", "", ""]) == (
            grpc.StatusCode.INVALID_ARGUMENT, "seat_sessions: 3 entries for 2 seats")


@SHARED
def test_a_person_past_the_arbiters_clock_forfeits_and_the_match_is_recorded(standing):
    """The clock is the standing arbiter's: past it the person's side forfeits there; the
    decision the page still offered is called off, and the record is stored."""
    _, _, serve = standing
    tmp = Path(tempfile.mkdtemp(prefix="arena-remote-clock-"))
    try:
        db = _new_store(tmp)
        with serve_web(db, "--arbiter", serve.address, "--arbiter-credentials", str(serve.credentials),
                       "--play-clock", "1") as url:
            client = Client(url)
            match_id = _start(client, "spite-and-malice", 0, [f"remote:{REMOTE_BOT}"], SPITE)
            for _ in range(60):  # the page's own live stream, until the match is over and stored
                page = client.get(f"/play/{match_id}")
                if 'data-over="1"' in page.body and 'id="replay-link"' in page.body:
                    break
                client.changed(f"/play/{match_id}", page)
            else:
                raise AssertionError(f"the match did not end: {page.body[:500]}")
            assert 'name="request"' not in page.body  # no decision is offered any more
            record = _stored(db, match_id)
            assert record.outcome.reason is EndReason.FORFEIT_TIMEOUT
            assert [i.seat for i in record.incidents] == [0] and record.incidents[0].kind == "timeout"
            assert not any(a.seat == 0 for a in record.actions)  # nothing was played for the person
            assert record.seat_names == ("browser", REMOTE_BOT) and verify_record(record) == record.outcome
        serve.wait_sessions([REMOTE_BOT])  # the remote bot played on, connected
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@SHARED
def test_tokens_rotated_or_revoked_on_the_arbiter_count_at_once(standing):
    """The web reads the arbiter's credentials file as it is now: a rotated admin token is
    the one it uses; with the seat's token revoked, no person's seat joins that arbiter."""
    url, _, serve = standing
    client = Client(url)
    auth.revoke(serve.credentials, rotate=("admin",))  # `arbiter credentials revoke admin`
    assert f'value="remote:{REMOTE_BOT}"' in client.get("/play?game=spite-and-malice").body
    auth.revoke(serve.credentials, bots=("browser",))  # `arbiter credentials revoke browser`
    try:
        r = client.post("/play/new", _start_form("spite-and-malice", 0, [f"remote:{REMOTE_BOT}"], SPITE))
        assert r.status == 503 and "no bot token for 'browser'" in _error(r), (r.status, _error(r))
    finally:
        serve.bot_token("browser")  # a new one: the next table joins with it
    match_id = _start(client, "spite-and-malice", 1, [f"remote:{REMOTE_BOT}"], SPITE)
    _play_out(client, match_id)


@SHARED
def test_a_person_who_leaves_a_remote_table_disconnects_there(standing, tmp_path):
    """A closed tab at the person's turn (``Tables.gone_seconds``, a minute on a real server)
    closes the seat's stream: the arbiter records a disconnection, as at a hosted table."""
    from arbiter.person.tables import StandingArbiter, Tables

    _, _, serve = standing
    tables = Tables(_new_store(tmp_path), gone_seconds=0.5,
                    arbiter=StandingArbiter.from_credentials(serve.address, serve.credentials))
    try:
        table = tables.start("spite-and-malice", "0", [f"remote:{REMOTE_BOT}"], SPITE)
        table.done.result(60)  # no page asks anything: the person has left
        record = _stored(tables.db, table.match_id)
        assert record.outcome.reason is EndReason.FORFEIT_DISCONNECT, record.outcome
        assert [(i.seat, i.kind) for i in record.incidents] == [(0, "disconnect")]
        assert table.snapshot().stored == "stored" and table.snapshot().outcome == record.outcome
        assert table.snapshot().seat_versions == ("", "1.0")  # what the remote bot said it is (random 1.0)
    finally:
        tables.close()
    serve.wait_sessions([REMOTE_BOT])


@SHARED
def test_play_on_a_server_says_whose_turn_it_waits_on_and_the_clock(standing, tmp_path):
    """`arbiter play --server` printed nothing while a connected bot hung until its clock ran
    out: a frozen terminal. It follows the match on the arbiter (Spectate, with the admin
    token, from the id RunMatch sends once the match starts) and says what the local
    `arbiter play` says (tests/cli/test_new_user.py): past the decision limit, whose turn
    it waits on and the bank left."""
    _, _, serve = standing
    hang = tmp_path / "hang.py"
    hang.write_text(textwrap.dedent(HANG))
    serve.start_bot(str(hang), "hang")
    serve.wait_sessions(["hang"])
    done = invoke(["play", "spite-and-malice", "hang", REMOTE_BOT, "--server", serve.address, "--admin-token",
                   serve.admin_token, "--seed", "2", "-o", "payoff_size=5", "--decision-ms", "1000", "--bank-ms", "1500",
                   "--db", str(tmp_path / "a.sqlite")])
    assert done.exit_code == 0 and not done.crash, done.describe()
    waits = [line for line in done.stderr.splitlines() if line.startswith("waiting for seat 0")]
    assert waits == ["waiting for seat 0 (hang): past its decision limit (1 s), now on its bank (about 1.5 s of "
                     "1.5 s left); when that is used up, its side forfeits the match"], done.stderr
    assert "forfeit_timeout" in done.stdout, done.stdout


@SHARED
def test_a_ca_given_for_an_arbiter_without_tls_is_named(standing, tmp_path):
    """--tls-ca for an arbiter that serves no TLS ended in OpenSSL's "WRONG_VERSION_NUMBER":
    the commands say what to change, as the SDK does (cardarena.wire.tls)."""
    _, _, serve = standing
    cert, _ = tls_certificate(tmp_path)
    for args in (["bots", "list", "--token", "t"], ["watch", "--list"],
                 ["play", "spite-and-malice", REMOTE_BOT, REMOTE_BOT, "--admin-token", serve.admin_token,
                  "--db", str(tmp_path / "a.sqlite")]):
        done = invoke([*args, "--server", serve.address, "--tls-ca", str(cert)])
        said = " ".join(done.output.split())
        assert done.exit_code == 2 and not done.crash, done.describe()
        assert "(the arbiter does not serve TLS: connect without --tls-ca)" in said, said


@SHARED
def test_play_on_a_server_keeps_its_max_strikes(standing, tmp_path):
    """`arbiter play --server --policy default --max-strikes N` played under the arbiter's
    default of 3 strikes, whatever N: the option never reached RunMatch. With 1, a bot whose
    every answer is illegal has one played for it, then its side forfeits."""
    _, _, serve = standing
    serve.start_bot(str(ROOT / "tests" / "e2e" / "zoo.py") + ":ReturnIllegal", "illegal")
    serve.wait_sessions(["illegal"])
    for strikes in (1, 0):  # 0 too: none, as `arbiter play` here reads it (not "unset": the arbiter's 3)
        done = invoke(["play", "spite-and-malice", "illegal", REMOTE_BOT, "--server", serve.address, "--admin-token",
                       serve.admin_token, "--seed", "2", "--policy", "default", "--max-strikes", str(strikes),
                       "--db", str(tmp_path / "a.sqlite")])
        assert done.exit_code == 0 and not done.crash, done.describe()
        incidents = [line for line in done.stdout.splitlines() if line.startswith("incident: seat 0")]
        assert len(incidents) == strikes + 1, done.stdout  # the strikes, then the forfeit (3 strikes: 4 incidents)


#: The tests of an arbiter that serves TLS (as one other machines reach must) share one
#: (``tls_standing``): one xdist group, so it is made once in a run.
TLS = pytest.mark.xdist_group("remote_tls")


@pytest.fixture(scope="module")
def tls_standing():
    """`arbiter serve --tls-cert` with the Bots service (author ``alice``), the person's seat
    ``browser`` and two connections of REMOTE_BOT over TLS; (server, CA file)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-remote-tls-"))  # a short path: `arbiter web` says it on one line
    cert, key = tls_certificate(folder)
    serve = start_serve("--tls-cert", str(cert), "--tls-key", str(key), "--bots-db", str(folder / "bots.sqlite"),
                        "--author", "alice")
    try:
        serve.bot_token("browser")
        for _ in range(2):
            serve.start_bot("random", REMOTE_BOT, extra_env={"ARENA_TLS_CA": str(cert)})
        yield serve, cert
    finally:
        stop_serve(serve)
        shutil.rmtree(folder, ignore_errors=True)


def _play_over_tls(serve, cert: Path, db: Path) -> str:
    """`arbiter play --server --tls-ca` between the two connections of REMOTE_BOT, once both
    are in (a match asked sooner is told who is missing); what it printed."""
    args = ["play", "spite-and-malice", REMOTE_BOT, REMOTE_BOT, "--server", serve.address, "--tls-ca", str(cert),
            "--admin-token", serve.admin_token, "--db", str(db), "--seed", "3"]
    for _ in range(100):
        done = invoke(args)
        if "connected" not in done.output:
            break
    assert done.exit_code == 0 and not done.crash, done.describe()
    assert "kept in" in done.output, done.output
    return done.output


@TLS
def test_a_remote_table_over_tls(tls_standing):
    """An arbiter that serves TLS: the web checks its certificate against --arbiter-tls-ca,
    for the listing, RunMatch and the seat's stream."""
    serve, cert = tls_standing
    folder = Path(tempfile.mkdtemp(prefix="arena-remote-tls-"))
    try:
        db = _new_store(folder)
        flags = ("--arbiter", serve.address, "--arbiter-credentials", str(serve.credentials))
        with serve_web(db, *flags, "--arbiter-tls-ca", str(cert)) as url:
            client = Client(url)
            for _ in range(300):  # until the bot has connected (each look is one ListSessions, over TLS)
                if f'value="remote:{REMOTE_BOT}"' in client.get("/play?game=spite-and-malice").body:
                    break
            else:
                raise AssertionError("the remote bot was never offered")
            match_id = _start(client, "spite-and-malice", 0, [f"remote:{REMOTE_BOT}"], SPITE)
            assert _play_out(client, match_id) > 0
            record = _stored(db, match_id)
            assert record.seat_names == ("browser", REMOTE_BOT) and verify_record(record) == record.outcome
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@TLS
def test_arbiter_play_reaches_an_arbiter_that_serves_tls(tls_standing, tmp_path):
    """`arbiter serve --tls-cert` (what any interface but loopback needs) could not be
    played on from the command line: `arbiter play --server` had no --tls-ca, and its plain
    channel ended in "UNAVAILABLE: ... Socket closed". With --tls-ca the match is played and
    kept; a --tls-ca without --server is refused, not ignored."""
    serve, cert = tls_standing
    db = tmp_path / "arena.sqlite"
    _play_over_tls(serve, cert, db)
    done = invoke(["play", "spades", "random", "random", "random", "random", "--tls-ca", str(cert), "--db", str(db)])
    assert done.exit_code != 0 and "--tls-ca" in done.output and "--server" in done.output, done.describe()


@TLS
def test_bots_and_watch_reach_an_arbiter_that_serves_tls(tls_standing, tmp_path):
    """`arbiter bots ... --server` and `arbiter watch --server` had no --tls-ca: an arbiter
    started with --tls-cert could not be reached by them at all (their plain channel ends
    in UNAVAILABLE). With it, the Bots service answers and a match played there is listed
    and watched to its result."""
    serve, cert = tls_standing
    reach = ("--server", serve.address, "--tls-ca", str(cert))
    alice = auth.read(serve.credentials).authors["alice"]
    listed = invoke(["bots", "list", *reach, "--token", alice])
    assert listed.exit_code == 0 and "no bots registered" in listed.output, listed.describe()
    shown = invoke(["bots", "show", "nobody", *reach, "--token", alice])  # the server's own answer, over TLS
    assert shown.exit_code == 2 and "no bot" in shown.output and "UNAVAILABLE" not in shown.output, shown.describe()
    for args in (["bots", "list", "--token", alice], ["watch", "--list"],  # without it: what to do, not just
                 ["play", "spite-and-malice", REMOTE_BOT, REMOTE_BOT, "--admin-token", serve.admin_token,  # "Socket closed"
                  "--db", str(tmp_path / "plain.sqlite")]):
        plain = invoke([*args, "--server", serve.address])
        said = " ".join(plain.output.split())
        assert plain.exit_code == 2 and not plain.crash, plain.describe()
        assert "an arbiter that serves TLS closes a plain connection so" in said and "--tls-ca CA.pem" in said, said

    match_id = re.search(r"match (\w+) \(kept", _play_over_tls(serve, cert, tmp_path / "arena.sqlite")).group(1)
    spectator = ("--token", serve.spectator_token)
    matches = invoke(["watch", "--list", *reach, *spectator])
    assert matches.exit_code == 0 and match_id in matches.output, matches.describe()
    watched = invoke(["watch", match_id, *reach, *spectator])
    assert watched.exit_code == 0 and "result (" in watched.output, watched.describe()
