"""A running `arbiter serve` sees every change to its credentials file at once (#32 item 1):
an author added with `arbiter credentials add-author` is admitted, a revoked author is
refused, a revoked bot's open stream is closed (its next message is Error(auth)), and a
rotated spectator or admin token replaces the old one. Everything from outside the
process: the CLI, and clients written from the .proto alone."""

from __future__ import annotations

import queue
import threading

import grpc
import pytest

from arbiter.server import auth
from cardarena.v1 import arena_pb2 as pb
from cardarena.v1 import arena_pb2_grpc as pb_grpc
from cardarena.v1 import bots_pb2 as bpb
from cardarena.v1 import bots_pb2_grpc as bpb_grpc
from cardarena.v1 import spectate_pb2 as spb
from cardarena.v1 import spectate_pb2_grpc as spb_grpc
from tests.cli.badinput import invoke, problems
from tests.conftest import start_serve, stop_serve

pytestmark = pytest.mark.e2e


def _credentials(s, *args: str) -> str:
    """`arbiter credentials ARGS` on the server's file, run in this process: the server (its
    own process) sees the change from outside it all the same."""
    done = invoke(["credentials", *args, "--credentials", str(s.credentials)])
    assert done.exit_code == 0 and not done.crash, done.describe()
    return done.output.strip()


def _list_bots(address: str, token: str) -> grpc.StatusCode:
    with grpc.insecure_channel(address) as channel:
        try:
            bpb_grpc.BotsStub(channel).List(bpb.ListBotsRequest(token=token), timeout=30)
        except grpc.RpcError as exc:
            return exc.code()
    return grpc.StatusCode.OK


def test_authors_added_and_revoked_on_a_running_server_count_at_once(tmp_path):
    s = start_serve("--bots-db", str(tmp_path / "arena.sqlite"))
    try:
        carol = _credentials(s, "add-author", "carol")
        assert _list_bots(s.address, carol) == grpc.StatusCode.OK  # no restart
        assert _credentials(s, "revoke", "author:carol") == "revoked author:carol"
        assert _list_bots(s.address, carol) == grpc.StatusCode.UNAUTHENTICATED
    finally:
        stop_serve(s)


def test_a_revoked_bot_is_cut_off_and_cannot_come_back(tmp_path):
    s = start_serve("--bot", "north")
    try:
        token = auth.read(s.credentials).bots["north"]
        inbox: queue.Queue = queue.Queue()
        outbox: queue.Queue = queue.Queue()
        outbox.put(pb.BotMessage(hello=pb.Hello(bot_name="north", token=token, protocol_version=1)))

        def requests():
            while (msg := outbox.get()) is not None:
                yield msg

        def read(channel):
            try:
                for msg in pb_grpc.ArenaStub(channel).Play(requests(), timeout=60):
                    inbox.put(msg)
            except grpc.RpcError as exc:
                inbox.put(exc.code())
            inbox.put(None)

        with grpc.insecure_channel(s.address) as channel:
            reader = threading.Thread(target=read, args=(channel,), daemon=True)
            reader.start()
            assert inbox.get(timeout=30).WhichOneof("msg") == "welcome"
            _credentials(s, "revoke", "north")
            last = inbox.get(timeout=30)  # the server closes the stream by itself
            assert last.WhichOneof("msg") == "error" and last.error.code == "auth" and "revoked" in last.error.message
            assert inbox.get(timeout=30) in (None, grpc.StatusCode.OK)
            outbox.put(None)
            reader.join(30)
        with grpc.insecure_channel(s.address) as channel:  # and the old token no longer opens a session
            again = next(iter(pb_grpc.ArenaStub(channel).Play(
                iter([pb.BotMessage(hello=pb.Hello(bot_name="north", token=token, protocol_version=1))]), timeout=30)))
        assert again.WhichOneof("msg") == "error" and again.error.code == "auth"
    finally:
        stop_serve(s)


def test_rotated_spectator_and_admin_tokens_replace_the_old_ones():
    s = start_serve()
    try:
        creds = auth.read(s.credentials)
        old_spectator, old_admin = creds.spectator, creds.admin
        new_spectator = _credentials(s, "revoke", "spectator")
        new_admin = _credentials(s, "revoke", "admin")
        assert new_spectator != old_spectator and new_admin != old_admin
        with grpc.insecure_channel(s.address) as channel:
            spectate = spb_grpc.SpectateStub(channel)
            matches = pb_grpc.MatchesStub(channel)

            def code(call) -> grpc.StatusCode:
                try:
                    call()
                except grpc.RpcError as exc:
                    return exc.code()
                return grpc.StatusCode.OK

            assert code(lambda: spectate.ListMatches(spb.ListMatchesRequest(token=old_spectator), timeout=30)) \
                == grpc.StatusCode.PERMISSION_DENIED
            assert code(lambda: spectate.ListMatches(spb.ListMatchesRequest(token=new_spectator), timeout=30)) \
                == grpc.StatusCode.OK
            assert code(lambda: matches.ListSessions(pb.ListSessionsRequest(admin_token=old_admin), timeout=30)) \
                == grpc.StatusCode.PERMISSION_DENIED
            # the admin may watch too (`arbiter play --server` follows its match): as it is now
            assert code(lambda: spectate.ListMatches(spb.ListMatchesRequest(token=new_admin), timeout=30)) \
                == grpc.StatusCode.OK
            assert code(lambda: spectate.ListMatches(spb.ListMatchesRequest(token=old_admin), timeout=30)) \
                == grpc.StatusCode.PERMISSION_DENIED
            assert code(lambda: matches.ListSessions(pb.ListSessionsRequest(admin_token=new_admin), timeout=30)) \
                == grpc.StatusCode.OK
    finally:
        stop_serve(s)


def test_revoking_the_spectator_token_ends_the_watches_opened_with_it():
    """A Watch opened before `arbiter credentials revoke spectator` (here: waiting for the
    next match to start, which would otherwise end it with NOT_FOUND after a minute) ends
    with PERMISSION_DENIED and no frame; the new token opens a Watch."""
    s = start_serve()
    try:
        old = auth.read(s.credentials).spectator
        got: queue.Queue = queue.Queue()
        accepted: queue.Queue = queue.Queue()

        def watch(token: str) -> None:
            with grpc.insecure_channel(s.address) as channel:
                frames = 0
                try:
                    call = spb_grpc.SpectateStub(channel).Watch(spb.WatchRequest(token=token), timeout=40)
                    call.initial_metadata()  # the server accepted the Watch
                    accepted.put(token)
                    for _ in call:
                        frames += 1
                except grpc.RpcError as exc:
                    got.put((exc.code(), exc.details(), frames))
                    return
                got.put((grpc.StatusCode.OK, "", frames))

        watchers = [threading.Thread(target=watch, args=(old,), daemon=True) for _ in range(3)]
        for w in watchers:
            w.start()
        for _ in watchers:
            assert accepted.get(timeout=30) == old
        new = _credentials(s, "revoke", "spectator")
        for _ in watchers:
            code, details, frames = got.get(timeout=30)
            assert code == grpc.StatusCode.PERMISSION_DENIED and "revoked" in details and frames == 0, (code, details)
        threading.Thread(target=watch, args=(new,), daemon=True).start()  # the new token's Watch waits on
        with pytest.raises(queue.Empty):
            got.get(timeout=2)
    finally:
        stop_serve(s)


def test_revoking_what_is_not_there_says_so(tmp_path):
    """The command reads the file alone (no server needed): one with a bot, not nobody."""
    credentials = str(tmp_path / "credentials.json")
    assert invoke(["credentials", "add-bot", "north", "--credentials", credentials]).exit_code == 0
    done = invoke(["credentials", "revoke", "nobody", "--credentials", credentials])
    assert not problems(done, ("credentials", "revoke"), expect_error=True), done.describe()
    assert done.exit_code != 0 and "no bot 'nobody' has a token" in done.output and "Traceback" not in done.output
    assert "north" in invoke(["credentials", "show", "--credentials", credentials]).output  # and nothing was revoked


def test_revoking_the_admin_token_stops_the_matches_started_with_it():
    """A RunMatch started with the admin token holds it while its match plays: `arbiter
    credentials revoke admin` stops the match (here: waiting on a bot that never answers,
    with a ten-minute clock) and the call ends with PERMISSION_DENIED; each seat's bot is
    told the match stopped (Error "stopped" naming it) and stays connected; a Watch of the
    match ends without its last frame (no deal shown); the new token starts matches."""
    s = start_serve("--bot", "north")
    try:
        creds = auth.read(s.credentials)
        token, old_admin = creds.bots["north"], creds.admin
        bots: list[tuple[queue.Queue, queue.Queue]] = []

        def bot(inbox: queue.Queue, outbox: queue.Queue) -> None:
            def requests():
                while (msg := outbox.get()) is not None:
                    yield msg
            with grpc.insecure_channel(s.address) as channel:
                try:
                    for msg in pb_grpc.ArenaStub(channel).Play(requests(), timeout=90):
                        inbox.put(msg)
                except grpc.RpcError as exc:
                    inbox.put(exc.code())

        for _ in range(2):  # one connection per seat; neither ever answers a Turn
            inbox, outbox = queue.Queue(), queue.Queue()
            outbox.put(pb.BotMessage(hello=pb.Hello(bot_name="north", token=token, protocol_version=1,
                                                    games=["spite-and-malice"])))
            threading.Thread(target=bot, args=(inbox, outbox), daemon=True).start()
            assert inbox.get(timeout=30).WhichOneof("msg") == "welcome"
            bots.append((inbox, outbox))

        result: queue.Queue = queue.Queue()

        def run_match() -> None:
            with grpc.insecure_channel(s.address) as channel:
                try:
                    pb_grpc.MatchesStub(channel).RunMatch(pb.RunMatchRequest(
                        game="spite-and-malice", seats=["north", "north"], seed=1, admin_token=old_admin,
                        clock=pb.Clock(decision_ms=600_000, bank_ms=0)), timeout=90)
                except grpc.RpcError as exc:
                    result.put((exc.code(), exc.details()))
                    return
            result.put((grpc.StatusCode.OK, ""))

        threading.Thread(target=run_match, daemon=True).start()
        seen: list[list] = [[], []]

        def until(i: int, which: str) -> pb.ArbiterMessage:
            while True:
                msg = bots[i][0].get(timeout=30)
                assert not isinstance(msg, grpc.StatusCode), f"bot {i}'s stream ended: {msg}"
                seen[i].append(msg)
                if msg.WhichOneof("msg") == which:
                    return msg

        match_id = until(0, "match_start").match_start.match_id
        until(1, "match_start")
        frames: queue.Queue = queue.Queue()

        def watch() -> None:
            with grpc.insecure_channel(s.address) as channel:
                try:
                    for frame in spb_grpc.SpectateStub(channel).Watch(
                            spb.WatchRequest(token=creds.spectator, match_id=match_id), timeout=60):
                        frames.put(frame.WhichOneof("frame"))
                except grpc.RpcError as exc:
                    frames.put(exc.code())
                frames.put(None)

        threading.Thread(target=watch, daemon=True).start()
        assert frames.get(timeout=30) == "header"  # the match is being watched
        assert result.empty()  # and plays on: nobody answers its first Turn

        new_admin = _credentials(s, "revoke", "admin")
        code, details = result.get(timeout=30)
        assert code == grpc.StatusCode.PERMISSION_DENIED and "revoked" in details and "stopped" in details, (code, details)
        for i in range(2):
            stopped = until(i, "error").error
            assert stopped.code == "stopped" and stopped.match_id == match_id, stopped
            assert not any(m.WhichOneof("msg") == "match_end" for m in seen[i])  # no result was made up
        rest = []
        while (frame := frames.get(timeout=30)) is not None:
            rest.append(frame)
        assert "over" not in rest and all(not isinstance(f, grpc.StatusCode) for f in rest), rest
        with grpc.insecure_channel(s.address) as channel:  # the bots are still there, for the new token
            sessions = pb_grpc.MatchesStub(channel).ListSessions(pb.ListSessionsRequest(admin_token=new_admin), timeout=30)
        assert [x.bot_name for x in sessions.sessions] == ["north", "north"]
        for _, outbox in bots:
            outbox.put(None)
    finally:
        stop_serve(s)


def test_the_commands_the_server_suggests_name_its_credentials_file(tmp_path):
    """`arbiter serve --credentials FILE` said "A bot's token: arbiter credentials token NAME"
    and "`arbiter credentials add-bot NAME` issues one": run as said, both read or wrote
    arbiter-credentials.json, not FILE ("no credentials file", or a token this server never
    reads). Each suggestion names FILE, on one line (it was wrapped at 80 columns)."""
    s = start_serve()
    try:
        said = s.log.read_text()
    finally:
        stop_serve(s)
    lines = said.splitlines()
    assert any(f"arbiter credentials token NAME --credentials {s.credentials}" in line for line in lines), said
    assert any(f"arbiter credentials add-bot NAME --credentials {s.credentials}" in line for line in lines), said
    credentials = str(tmp_path / "credentials.json")
    assert invoke(["credentials", "add-bot", "north", "--credentials", credentials]).exit_code == 0
    done = invoke(["credentials", "token", "south", "--credentials", credentials])
    assert f"arbiter credentials add-bot NAME --credentials {credentials}" in done.output, done.describe()
