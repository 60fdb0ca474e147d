"""The credentials file: what `arbiter serve` makes and reads, and the clear refusals of a bad one."""

from __future__ import annotations

import json
import stat

import pytest

from arbiter.server import auth
from arbiter.server.auth import CredentialsError


def test_ensure_makes_a_private_file_with_a_distinct_token_per_role(tmp_path):
    path = tmp_path / "creds.json"
    creds = auth.ensure(path, ("alpha",), ("ann",))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    tokens = [creds.admin, creds.spectator, creds.bots["alpha"], creds.authors["ann"]]
    assert len(set(tokens)) == 4 and all(len(t) >= 16 for t in tokens)
    again = auth.ensure(path, ("alpha", "beta"))
    assert again.bots["alpha"] == creds.bots["alpha"] and again.admin == creds.admin  # kept, not regenerated
    assert "beta" in auth.read(path).bots


@pytest.mark.parametrize("content, says", [
    (b"\xff\xfe\x00garbage", "not UTF-8"),
    (b"{not json", "not a credentials file"),
    (b'{"admin": "short", "spectator": "also-short-token"}', "at least 16"),
    (json.dumps({"admin": "a" * 20, "spectator": "a" * 20}).encode(), "share a token"),
    (json.dumps({"admin": "a" * 20, "spectator": "b" * 20, "bots": {"bad name!": "c" * 20}}).encode(), "bad bot name"),
    (json.dumps({"admin": "a" * 20, "spectator": "b" * 20, "authors": {"../x": "c" * 20}}).encode(), "bad author name"),
])
def test_a_bad_file_is_refused_naming_what_is_wrong(tmp_path, content, says):
    path = tmp_path / "creds.json"
    path.write_bytes(content)
    with pytest.raises(CredentialsError, match=says) as info:
        auth.read(path)
    assert str(path) in str(info.value)
    with pytest.raises(CredentialsError, match=says):  # ensure() reads it first and changes nothing
        auth.ensure(path, ("alpha",))
    assert path.read_bytes() == content


@pytest.mark.parametrize("kind, args", [("bot", (("no spaces",), ())), ("author", ((), ("no/slash",)))])
def test_a_bad_name_is_refused_before_anything_is_written(tmp_path, kind, args):
    path = tmp_path / "creds.json"
    with pytest.raises(CredentialsError, match=f"bad {kind} name"):
        auth.ensure(path, *args)
    assert not path.exists()


def test_no_token_reads_as_a_command_line_option():
    # a token is given to bots as `--token TOKEN`: one starting with "-" is refused by
    # argparse (one in 64 did, and a bot launched with it never connected)
    import argparse

    tokens = [auth.new_token() for _ in range(3000)] + [auth.new_token(16) for _ in range(3000)]
    assert not [t for t in tokens if t.startswith("-")]
    assert len(set(tokens)) == len(tokens) and {len(t) for t in tokens} == {32, 22}
    parser = argparse.ArgumentParser()
    parser.add_argument("--token")
    assert all(parser.parse_args(["--token", t]).token == t for t in tokens[:500])


@pytest.mark.parametrize("author", ["admin", "local"])
def test_an_author_cannot_be_named_as_an_identity_the_bots_service_gives_more(tmp_path, author):
    """The Bots service and the registry know two identities besides authors by name: the
    admin token acts as "admin" (every author's bots), and a bot submitted on this machine
    (``arbiter bots submit`` without --server) is owned by "local". An author token issued
    under either name acted as that identity: the author "admin" listed, showed and removed
    every other author's bots (and could add versions to them), the author "local" every
    bot the operator had registered. Neither name is issued, nor read from a file."""
    path = tmp_path / "creds.json"
    with pytest.raises(CredentialsError, match=f"author name {author!r} is reserved"):
        auth.ensure(path, (), ("alice", author))
    assert not path.exists() or author not in auth.read(path).authors
    auth.ensure(path, (), ("alice",))
    edited = json.loads(path.read_text())
    edited["authors"][author] = "z" * 24  # a file edited by hand
    path.write_text(json.dumps(edited))
    with pytest.raises(CredentialsError, match=f"author name {author!r} is reserved") as info:
        auth.read(path)
    assert str(path) in str(info.value)


def test_the_cli_refuses_to_issue_a_reserved_author_name(tmp_path):
    from tests.cli.badinput import run_in_process

    path = tmp_path / "creds.json"
    got = run_in_process("credentials", "add-author", "admin", "--credentials", str(path))
    assert got.returncode != 0 and "reserved" in " ".join(got.stderr.split()), got
    assert not path.exists() or "admin" not in auth.read(path).authors


@pytest.mark.parametrize("bot", ["admin", "spectator"])
def test_a_bot_cannot_be_named_as_a_role_the_credentials_commands_take(tmp_path, bot):
    """`arbiter credentials token admin` prints the admin token and `revoke spectator` rotates
    the spectator token: a bot issued a token as "admin" or "spectator" could have neither
    printed nor revoked (the operator who revoked it rotated a role's token instead, and the
    bot played on). Neither name is issued, nor read from a file edited by hand."""
    from tests.cli.badinput import run_in_process

    path = tmp_path / "creds.json"
    got = run_in_process("credentials", "add-bot", bot, "--credentials", str(path))
    assert got.returncode == 2 and f"bot name {bot!r} is reserved" in " ".join(got.stderr.split()), got
    assert not path.exists() or bot not in auth.read(path).bots
    auth.ensure(path, ("north",))
    edited = json.loads(path.read_text())
    edited["bots"][bot] = "z" * 24
    path.write_text(json.dumps(edited))
    with pytest.raises(CredentialsError, match=f"bot name {bot!r} is reserved") as info:
        auth.read(path)
    assert str(path) in str(info.value)


def test_a_missing_author_token_suggests_issuing_an_author_token(tmp_path):
    """`arbiter credentials token author:carol` with no such author said to run `arbiter
    credentials add-bot NAME`: that issues a bot token, which the Bots service refuses."""
    from tests.cli.badinput import run_in_process

    path = tmp_path / "creds.json"
    auth.ensure(path, ("north",))
    said = " ".join(run_in_process("credentials", "token", "author:carol", "--credentials", str(path)).stderr.split())
    assert f"arbiter credentials add-author NAME --credentials {path}" in said and "add-bot" not in said, said
    said = " ".join(run_in_process("credentials", "token", "south", "--credentials", str(path)).stderr.split())
    assert f"arbiter credentials add-bot NAME --credentials {path}" in said, said


@pytest.mark.parametrize("content, says", [
    ("[]", "a JSON object with admin, spectator, bots and authors, not an array"),
    ('{"admin": "%s"}' % ("a" * 20), 'no spectator token'),
    ('{"admin": "%s", "spectator": "%s", "bots": []}' % ("a" * 20, "b" * 20), "bots must be an object of name: token, not an array"),
    ('{"admin": "%s", "spectator": "%s", "authors": null}' % ("a" * 20, "b" * 20), "authors must be an object of name: token, not null"),
    ('{"admin": 12345678901234567890, "spectator": "%s"}' % ("b" * 20), "the admin token must be a string, not a number"),
    ('{"admin": "%s", "spectator": "%s", "bots": {"north": null}}' % ("a" * 20, "b" * 20), "the token of bot 'north' must be a string, not null"),
    ('{"admin": "%s", "spectator": "%s", "bots": {"north": "short"}}' % ("a" * 20, "b" * 20), "the token of bot 'north' is shorter than 16"),
])
def test_a_file_edited_by_hand_is_refused_naming_the_field_at_fault(tmp_path, content, says):
    """A credentials file edited by hand was refused in Python's words ("AttributeError: 'list'
    object has no attribute 'items'", "KeyError: 'spectator'"), a token of null as "every
    token must be at least 16 characters" (which one?), and a number was taken as a token.
    Each fault now names its field, in JSON's words, and never shows a token."""
    path = tmp_path / "creds.json"
    path.write_text(content)
    with pytest.raises(CredentialsError) as info:
        auth.read(path)
    said = str(info.value)
    assert said.startswith(f"{path}: ") and says in said and "Error" not in said, said
    assert "12345678901234567890" not in said


def test_a_running_server_says_once_that_a_broken_file_leaves_its_last_tokens_in_force(tmp_path, caplog):
    """A server reads its credentials file again when it changes; a file edited by hand into
    bad JSON (say, to take a bot out of it) kept the last good tokens in force in silence:
    the bot played on and nothing told the operator. It is said in the log, once for each
    state of the file, and a mended file counts at once."""
    path = tmp_path / "creds.json"
    auth.ensure(path, ("north", "east"))
    live = auth.LiveCredentials(path)
    assert "east" in live.get().bots
    edited = json.loads(path.read_text())
    del edited["bots"]["east"]
    path.write_text(json.dumps(edited) + ",")  # a stray comma
    with caplog.at_level("WARNING", logger="arbiter.server.auth"):
        assert "east" in live.get().bots and "east" in live.get().bots  # the last good ones
        path.unlink()
        assert "east" in live.get().bots and "east" in live.get().bots
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2, said
    assert said[0].startswith(f"{path}: not a credentials file") and "stay in force" in said[0], said
    assert said[1].startswith(f"{path}: No such file") and "stay in force" in said[1], said
    path.write_text(json.dumps(edited))
    assert "east" not in live.get().bots


@pytest.mark.parametrize("args, says", [
    (["--admin-token", "short"], "--admin-token (ARENA_ADMIN_TOKEN): a token must be at least 16 characters, got 5"),
    (["--spectator-token", "s" * 15], "--spectator-token (ARENA_SPECTATOR_TOKEN): a token must be at least 16 characters"),
    (["--admin-token", "t" * 20, "--spectator-token", "t" * 20], "--admin-token and --spectator-token are the same token"),
])
def test_serve_names_the_flag_of_a_token_it_cannot_take(tmp_path, args, says):
    """`arbiter serve --admin-token short` said "FILE: every token must be at least 16
    characters": a fault of the credentials file, which held none. The flag is named, and
    nothing is written."""
    from tests.cli.badinput import run_in_process

    path = tmp_path / "creds.json"
    got = run_in_process("serve", "--port", "0", "--credentials", str(path), *args, serving=True)
    said = " ".join(got.stderr.split())
    assert got.returncode == 2 and says in said and str(path) not in said, got
    assert not path.exists()


@pytest.mark.parametrize("command", [["credentials", "show"], ["credentials", "token", "north"],
                                     ["credentials", "add-bot", "south"]])
def test_a_file_open_to_other_users_is_made_private_and_said_so(tmp_path, command):
    """A credentials file copied or restored as 0644 was read as it was by `arbiter
    credentials show` and `token` (and made 0600 in silence by `serve` and `add-bot`): its
    operator never learnt that every token in it may have been read. Each command makes it
    private and says so, and that its tokens stay valid until revoked."""
    from tests.cli.badinput import run_in_process

    path = tmp_path / "creds.json"
    auth.ensure(path, ("north",))
    path.chmod(0o644)
    got = run_in_process(*command, "--credentials", str(path))
    said = " ".join(got.stderr.split())
    assert got.returncode == 0 and f"warning: {path} was open to other users of this machine (mode 0644)" in said, got
    assert "stays valid until it is revoked" in said, said
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = run_in_process(*command, "--credentials", str(path))
    assert "warning" not in again.stderr, again


@pytest.mark.parametrize("command", [["credentials", "show"], ["credentials", "token", "north"],
                                     ["credentials", "add-bot", "south"]])
def test_a_file_that_is_no_credentials_file_keeps_its_mode(tmp_path, command):
    """`arbiter credentials show --credentials x.toml` (any file, by mistake) made the file
    0600, said it was "its owner's alone now", and only then refused it as no credentials
    file. A file that is not a credentials file is refused with its mode as it was."""
    from tests.cli.badinput import run_in_process

    path = tmp_path / "x.toml"
    path.write_text('name = "mybot"\n')
    path.chmod(0o644)
    got = run_in_process(*command, "--credentials", str(path))
    said = " ".join(got.stderr.split())
    assert got.returncode == 2 and f"error: {path}: not a credentials file" in said, got
    assert "warning" not in said and "0600" not in said, said
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.mark.e2e  # the server starts (and stops at once)
def test_serve_with_a_bots_service_and_no_author_says_how_to_issue_one(tmp_path):
    """`arbiter serve --bots-db STORE` with no author token served a Bots service nobody could
    submit to, and said only how to issue bot tokens (arbiter arena says it of authors)."""
    from tests.cli.badinput import run_in_process

    path = tmp_path / "creds.json"
    args = ("serve", "--port", "0", "--credentials", str(path), "--bots-db", str(tmp_path / "arena.sqlite"))
    said = " ".join(run_in_process(*args, serving=True).stderr.split())
    assert f"no author tokens yet: nobody can submit a bot; `arbiter credentials add-author NAME --credentials {path}`" \
        in said, said
    said = " ".join(run_in_process(*args, "--author", "alice", serving=True).stderr.split())
    assert "no author tokens yet" not in said, said


def test_issuing_into_a_file_that_was_not_there_says_it_was_made(tmp_path):
    """`arbiter credentials add-bot NAME` run from another folder than the server's made a
    second credentials file there in silence and printed a token the running server refused
    ("token not accepted"). It says, on stderr, that it made a new file and which server reads
    it; the token alone stays on stdout (ARENA_TOKEN="$(arbiter credentials token ...)")."""
    from tests.cli.badinput import run_in_process

    path = tmp_path / "elsewhere.json"
    got = run_in_process("credentials", "add-bot", "north", "--credentials", str(path))
    said = " ".join(got.stderr.split())
    assert got.returncode == 0 and got.stdout.strip() == auth.read(path).bots["north"], got
    assert f"note: made {path}, new" in said and f"arbiter serve --credentials {path}" in said, said
    again = run_in_process("credentials", "add-author", "carol", "--credentials", str(path))
    assert again.returncode == 0 and "made" not in again.stderr, again


@pytest.mark.e2e  # the server starts (and stops at once)
def test_serve_says_when_a_token_given_replaces_the_stored_one(tmp_path):
    """`arbiter credentials revoke admin` rotates the admin token in the file; a server started
    again from an environment that still held the old one (ARENA_ADMIN_TOKEN) put it back in
    the file, in force, without a word. It says so when a token given replaces another."""
    from tests.cli.badinput import run_in_process

    path = tmp_path / "creds.json"
    old = auth.ensure(path).admin
    auth.revoke(path, rotate=("admin",))
    args = ("serve", "--port", "0", "--credentials", str(path), "--admin-token", old)
    said = " ".join(run_in_process(*args, serving=True).stderr.split())
    assert f"note: --admin-token (ARENA_ADMIN_TOKEN) replaces the admin token {path} held" in said, said
    assert auth.read(path).admin == old  # as --help says: the token given is used
    said = " ".join(run_in_process(*args, serving=True).stderr.split())
    assert "replaces" not in said, said  # the same token again: nothing to tell


def test_a_folder_given_as_the_credentials_file_keeps_its_mode(tmp_path):
    """`arbiter serve --credentials mybot` (a folder, by mistake) made the folder 0600: the
    privacy check chmodded whatever the path named, and the bot folder was then closed to
    its sandboxed bot and to every other user (found as a later test's "Permission denied").
    Reading it says it is a folder; its mode stays."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    folder.chmod(0o755)
    assert auth.tighten(folder) == ""
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755
    with pytest.raises(CredentialsError):
        auth.read(folder)


def test_a_credentials_file_in_a_folder_not_there_is_refused_and_no_folder_made(tmp_path):
    """`arbiter serve --credentials /nonexistent/c.json` (a typo of the folder meant) made
    /nonexistent, wherever the typo put it, as no store file's opening does: refused."""
    from arbiter.server import auth

    with pytest.raises(auth.CredentialsError, match=r"c.json: no folder .*typo \(create it first\)"):
        auth.ensure(tmp_path / "typo" / "c.json", bots=("north",))
    assert not (tmp_path / "typo").exists()
