"""Who may call what: credentials, token checks, and the slowdown after failed attempts.

A standing arbiter (``arbiter serve``) keeps its credentials in one JSON file that only
its user may read (mode 0600), made on first start:

    {"admin": "...",                      # Matches (start matches, list sessions), Bots (everything)
     "spectator": "...",                  # Spectate
     "bots": {"north": "...", ...},       # one token per bot name: the bot's identity
     "authors": {"alice": "...", ...}}    # the Bots service, each author's own bots only

A bot token is an identity: a bot that presents it *is* that bot, whatever name its Hello
claims (a Hello naming another bot is refused), and no other token lets anyone play under
that name. No bot token allows starting a match or choosing a seed: only the admin token
does. The file is read again when it changes, so ``arbiter credentials add-bot NAME``
works on a running server.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hmac
import json
import logging
import os
import secrets
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator


from cardarena import names

log = logging.getLogger(__name__)

TOKEN_BYTES = 24
#: The shortest token a credentials file may hold (every token the arbiter makes is longer).
MIN_TOKEN_CHARS = 16
#: Where `arbiter serve` keeps them unless told (--credentials, ARENA_CREDENTIALS).
DEFAULT_FILE = "arbiter-credentials.json"


#: Author names that are identities of their own, with more than an author's rights: the
#: Bots service acts as "admin" for the admin token (every author's bots), and the registry
#: gives a bot submitted on this machine (``arbiter bots submit`` without --server) the
#: author "local". An author token issued under either name would act as that identity, so
#: neither is issued nor read from a file.
RESERVED_AUTHORS = {
    "admin": "the admin token acts as 'admin' on the Bots service (every author's bots)",
    "local": "'local' owns the bots registered on this machine (arbiter bots submit without --server)",
}


#: Bot names that `arbiter credentials token` and `revoke` read as a role: a bot issued a
#: token under either could not have it printed (``token admin`` printed the admin token)
#: nor revoked (``revoke spectator`` rotated the spectator token, and the bot played on), so
#: neither is issued nor read from a file.
RESERVED_BOTS = {
    "admin": "`arbiter credentials token admin` and `revoke admin` mean the admin token",
    "spectator": "`arbiter credentials token spectator` and `revoke spectator` mean the spectator token",
}


def _name_fault(who: str, name: str, reserved: dict[str, str]) -> str:
    """Why ``name`` cannot be a ``who``'s name (bot, author) in a credentials file ("" if it
    can): not a name, or one of ``reserved`` (the reason each is)."""
    if not names.is_name(name):
        return f"bad {who} name {name[:80]!r}: {names.NAME_RULE}"
    if name in reserved:
        return f"{who} name {name!r} is reserved: {reserved[name]}; choose another name"
    return ""


def bot_name_fault(name: str) -> str:
    """Why ``name`` cannot be a bot's name in a credentials file ("" if it can)."""
    return _name_fault("bot", name, RESERVED_BOTS)


def author_name_fault(name: str) -> str:
    """Why ``name`` cannot be an author's name ("" if it can)."""
    return _name_fault("author", name, RESERVED_AUTHORS)


class CredentialsError(Exception):
    """A credentials file that cannot be used; the message names the file and the fault."""


def new_token(nbytes: int = TOKEN_BYTES) -> str:
    """A fresh secret token (URL-safe base64 of ``nbytes`` random bytes), never one that
    starts with "-": a token is passed as a command-line value (``--token TOKEN``), and a
    value that looks like an option is refused by argparse and most other parsers (one
    token in 64 did, at random). Every token the arbiter issues comes from here."""
    while True:
        token = secrets.token_urlsafe(nbytes)
        if not token.startswith("-"):
            return token


def same(a: str, b: str) -> bool:
    """Constant-time comparison of two tokens."""
    return hmac.compare_digest(a.encode(), b.encode())


@dataclass
class Credentials:
    admin: str
    spectator: str
    bots: dict[str, str] = field(default_factory=dict)  # bot name -> token
    authors: dict[str, str] = field(default_factory=dict)  # author -> token

    def bot_for(self, token: str) -> str | None:
        """The bot name ``token`` is the identity of, or None (every entry is compared)."""
        found = None
        for name, known in self.bots.items():
            if same(known, token):
                found = name
        return found

    def author_tokens(self) -> dict[str, str]:
        """token -> author, as the Bots service takes them."""
        return {t: a for a, t in self.authors.items()}

    def to_json(self) -> str:
        return json.dumps({"admin": self.admin, "spectator": self.spectator, "bots": self.bots,
                           "authors": self.authors}, indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str) -> "Credentials":
        """The credentials ``text`` holds; CredentialsError naming the field at fault (a file
        edited by hand), never a token. A token must be a string as written: a number or null
        was read as its text ("None"), a list of bots as Python's words for the failure."""
        try:
            d = json.loads(text)
        except ValueError as exc:
            raise CredentialsError(f"{where}: not a credentials file (not JSON: {str(exc)[:120]})") from None
        if not isinstance(d, dict):
            raise CredentialsError(f"{where}: not a credentials file (a JSON object with admin, spectator, bots "
                                   f"and authors, not {_json_kind(d)})")
        roles: dict[str, Any] = {}
        for key in ("admin", "spectator"):
            if key not in d:
                raise CredentialsError(f"{where}: no {key} token (\"{key}\": \"TOKEN\")")
            roles[key] = d[key]
        for key in ("bots", "authors"):
            if not isinstance(d.get(key, {}), dict):
                raise CredentialsError(f"{where}: {key} must be an object of name: token, not {_json_kind(d[key])}")
        tokens = {f"the {k} token": v for k, v in roles.items()}
        tokens |= {f"the token of bot {k[:80]!r}": v for k, v in d.get("bots", {}).items()}
        tokens |= {f"the token of author {k[:80]!r}": v for k, v in d.get("authors", {}).items()}
        for whose, t in tokens.items():
            if not isinstance(t, str):
                raise CredentialsError(f"{where}: {whose} must be a string, not {_json_kind(t)}")
            if len(t) < MIN_TOKEN_CHARS:
                raise CredentialsError(f"{where}: {whose} is shorter than {MIN_TOKEN_CHARS} characters; every token "
                                       f"must be at least {MIN_TOKEN_CHARS}")
        creds = cls(roles["admin"], roles["spectator"], dict(d.get("bots", {})), dict(d.get("authors", {})))
        tokens = [creds.admin, creds.spectator, *creds.bots.values(), *creds.authors.values()]
        if len(set(tokens)) != len(tokens):
            raise CredentialsError(f"{where}: two roles share a token; each token must be different")
        for name in creds.bots:
            if fault := bot_name_fault(name):
                raise CredentialsError(f"{where}: {fault}")
        for name in creds.authors:
            if fault := author_name_fault(name):
                raise CredentialsError(f"{where}: {fault}")
        return creds


def credentials_among(files: "dict[str, bytes]") -> list[str]:
    """The paths of ``files`` (a bot folder's, as a submission collects them) that are a
    standing arbiter's credentials file, read as ``Credentials.from_json`` reads one.
    `arbiter serve` makes its file in the folder it runs in (``DEFAULT_FILE``): started in a
    bot's folder, as a bot author trying their bot does, the file would be submitted with
    the bot and its admin and bot tokens stored readable by all in the registry's copy (or
    sent to another arbiter's operator)."""
    found = []
    for rel, data in files.items():
        if not rel.endswith(".json") or len(data) > 1 << 20:
            continue
        try:
            Credentials.from_json(data.decode("utf-8"), rel)
        except (CredentialsError, UnicodeDecodeError):
            continue
        found.append(rel)
    return found


def _json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words (never the value: it may be a token)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    return {dict: "an object", list: "an array", str: "a string"}.get(type(value), "a number")


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    lock = path.with_name(path.name + ".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _write(path: Path, creds: Credentials) -> None:
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(creds.to_json())
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def tighten(path: str | os.PathLike) -> str:
    """Make the credentials file ``path`` its owner's alone if other users may read or write
    it; what was wrong, in words for its operator ("" if nothing was: private already, or no
    file). Every command that reads the file says it: a file copied or restored with the
    usual 0644 was read as it was, and the tokens in it stay valid once it is private.

    Only a credentials file is touched: any other file (a bot's settings given as
    --credentials by mistake) keeps its mode, and reading it says what it is not."""
    p = Path(path)
    try:
        st = p.stat()
    except OSError:
        return ""  # no file yet (or none to read: reading it says why)
    mode = stat.S_IMODE(st.st_mode)
    if not mode & 0o077 or not stat.S_ISREG(st.st_mode):
        # a folder (or a device) given as the file is refused by reading it, left as it is: a
        # bot's folder given as --credentials by mistake was made 0600, its files then
        # unreadable by the sandboxed bot and by every other user
        return ""
    try:
        read(p)
    except CredentialsError:
        # not a credentials file (or not readable): `credentials show --credentials x.toml`
        # made x.toml 0600, said so, and only then refused it as no credentials file
        return ""
    try:
        os.chmod(p, 0o600)
    except OSError as exc:
        raise CredentialsError(f"{p}: other users of this machine may read it (mode {mode:04o}), and it cannot be "
                               f"made private: {exc.strerror or exc}") from None
    return (f"{p} was open to other users of this machine (mode {mode:04o}); it is its owner's alone now (0600), "
            "but a token read from it meanwhile stays valid until it is revoked (arbiter credentials revoke NAME, "
            "author:NAME, admin or spectator)")


def read(path: str | os.PathLike) -> Credentials:
    p = Path(path)
    try:
        return Credentials.from_json(p.read_text(), str(p))
    except UnicodeDecodeError:
        raise CredentialsError(f"{p}: not a credentials file (not UTF-8 text)") from None
    except OSError as exc:
        raise CredentialsError(f"{p}: cannot be read: {exc.strerror or exc}") from None


def revoke(path: str | os.PathLike, bots: tuple[str, ...] = (), authors: tuple[str, ...] = (),
           rotate: tuple[str, ...] = ()) -> Credentials:
    """Take the tokens of ``bots`` and ``authors`` out of ``path``, and give ``rotate``
    (``admin``, ``spectator``) new ones; a running server sees it at once (the bot's open
    streams are closed). CredentialsError naming what is not there."""
    p = Path(path)
    try:
        with _locked(p):
            creds = read(p)
            for name in bots:
                if creds.bots.pop(name, None) is None:
                    raise CredentialsError(f"{p}: no bot {name[:80]!r} has a token (arbiter credentials show)")
            for name in authors:
                if creds.authors.pop(name, None) is None:
                    raise CredentialsError(f"{p}: no author {name[:80]!r} has a token (arbiter credentials show)")
            for role in rotate:
                if role not in ("admin", "spectator"):
                    raise CredentialsError(f"only the admin and spectator tokens are rotated, not {role[:80]!r}")
                setattr(creds, role, new_token())
            checked = Credentials.from_json(creds.to_json(), str(p))
            _write(p, checked)
            return checked
    except OSError as exc:
        raise CredentialsError(f"{p}: cannot be written: {exc.strerror or exc}") from None


def ensure(path: str | os.PathLike, bots: tuple[str, ...] = (), authors: tuple[str, ...] = (),
           admin: str | None = None, spectator: str | None = None) -> Credentials:
    """The credentials in ``path``, made (mode 0600) if missing, with a token for every
    bot and author named (new ones generated; existing ones kept). ``admin`` and
    ``spectator``, if given, replace the stored ones."""
    p = Path(path)
    for name in bots:
        if fault := bot_name_fault(name):
            raise CredentialsError(fault)
    for name in authors:
        if fault := author_name_fault(name):
            raise CredentialsError(fault)
    if not p.parent.is_dir():  # a typo's folder is not made (as a store's is not): "/nonexistent/c.json" made /nonexistent
        raise CredentialsError(f"{p}: no folder {p.parent} (create it first)")
    try:
        with _locked(p):
            creds = read(p) if p.exists() else Credentials(new_token(), new_token())
            before = creds.to_json()
            for name in bots:
                creds.bots.setdefault(name, new_token())
            for author in authors:
                creds.authors.setdefault(author, new_token())
            if admin is not None:
                creds.admin = admin
            if spectator is not None:
                creds.spectator = spectator
            checked = Credentials.from_json(creds.to_json(), str(p))  # the same checks as on reading
            if not p.exists() or checked.to_json() != before:
                _write(p, checked)
            tighten(p)  # only the arbiter's user may read it
            return checked
    except OSError as exc:
        raise CredentialsError(f"{p}: cannot be written: {exc.strerror or exc}") from None


class LiveCredentials:
    """The credentials file, read again whenever it changes (its inode, mtime or size: every
    write replaces the file).

    A file that cannot be read (edited by hand into bad JSON, removed) leaves the last good
    credentials in force, and says so once in the log: the operator who took a bot out of
    the file by hand, and broke it doing so, was told nothing while that bot played on."""

    def __init__(self, path: str | os.PathLike, fixed: Credentials | None = None):
        self.path = Path(path)
        self._stamp: tuple[int, int, int] | None = None
        self._creds = fixed or read(self.path)
        self._refused: tuple[int, int, int] | None = None  # the stamp of the bad file last warned of

    def get(self) -> Credentials:
        try:
            st = self.path.stat()
        except OSError as exc:  # gone: keep the last good credentials
            self._keep((0, 0, -1), f"{self.path}: {exc.strerror or exc}")
            return self._creds
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        if stamp not in (self._stamp, self._refused):  # (a broken file is read again once it changes)
            try:
                self._creds = read(self.path)
            except CredentialsError as exc:  # broken (or caught mid-edit): keep the last good credentials
                self._keep(stamp, str(exc))
            else:
                self._stamp, self._refused = stamp, None
        return self._creds

    def _keep(self, stamp: tuple[int, int, int], fault: str) -> None:
        """Warn, once for each state of the file, that its last good credentials stay in force."""
        if stamp != self._refused:
            self._refused = stamp
            log.warning("%s; the tokens read from it last stay in force (a token revoked since still counts) "
                        "until it is mended", fault)


#: A credential a service checks: a fixed value, or a function that reads the current one
#: (``LiveCredentials``: a running server sees a token added, rotated or revoked at once).
Live = Callable[[], Any]


def current(value: Any) -> Any:
    """``value`` now: called if it is a ``Live`` reader, else as it is."""
    return value() if callable(value) else value


#: How often a running server checks that the token of an open stream still holds (a
#: revoked bot's Play, a spectator's Watch, an admin's RunMatch end within this).
REVOKE_CHECK_S = 0.5


async def until_revoked(expected: Any, given: str) -> None:
    """Return once ``given`` is no longer the token ``expected`` (a ``Live`` reader, or a
    fixed value) says: revoked or rotated. Never, for a fixed token or an open service."""
    if not callable(expected):
        await asyncio.Event().wait()  # nothing can change it: no need to look
    while True:
        now = current(expected)
        if now is not None and not same(now, given):
            return
        await asyncio.sleep(REVOKE_CHECK_S)


#: Wrong credentials answered per second, per kind of credential (a bot's Hello token,
#: the admin, spectator and author tokens), however many streams or peers ask, after a
#: first burst: a guesser's answers queue behind one another. Right tokens never wait.
GUESS_RATE = 20.0
GUESS_BURST = 20


class GuessLimiter:
    """One limit on wrong credentials for the whole arbiter (``GUESSES``), per kind: at
    most ``burst`` answered at once, then ``rate`` a second. Nothing resets it (a right
    token does not), and it is not split by peer or stream, so parallel guessing gains
    nothing. A wrong answer waits for its turn (``wrong``) before it is given."""

    def __init__(self, rate: float = GUESS_RATE, burst: int = GUESS_BURST):
        self.rate, self.burst = rate, burst
        self._next: dict[str, float] = {}

    def delay(self, kind: str) -> float:
        """Take the next turn for a wrong ``kind`` credential: seconds until it may be answered."""
        now = time.monotonic()
        slot = max(self._next.get(kind, 0.0), now - self.burst / self.rate) + 1 / self.rate
        self._next[kind] = slot
        return max(0.0, slot - now)

    async def wrong(self, kind: str) -> None:
        """Wait for the turn of a wrong ``kind`` credential."""
        await asyncio.sleep(self.delay(kind))


#: The arbiter's one limiter of wrong credentials (every service of this process asks it).
GUESSES = GuessLimiter()


#: Calls (or bot streams) whose credential was refused and that wait for their answer (its
#: turn of ``GUESSES``), at most, from one peer (its address without the port; the local
#: channel's peer is its uid) and in all. A peer with the most waiting is told it is busy
#: at any further call, its token unchecked (so the answer says nothing of it); past the
#: bound in all, a wrong token is answered at once. Refused calls cannot pile up: 5,000
#: wrong spectator tokens from one client held 5,000 calls (70 MB) for four minutes.
MAX_REFUSING_PER_PEER = 32
MAX_REFUSING = 256


def peer_host(peer: str) -> str:
    """Who a gRPC peer string is, without its port ("ipv4:127.0.0.1:5000" -> "ipv4:127.0.0.1",
    "ipv6:[::1]:5000" -> "ipv6:[::1]"); a Unix socket's peer as it is."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6") and ":" in rest:
        return f"{kind}:{rest.rsplit(':', 1)[0]}"
    return peer


class Refusals:
    """The refused calls waiting for their answer, by peer (``MAX_REFUSING_PER_PEER``,
    ``MAX_REFUSING``)."""

    def __init__(self, in_all: int = MAX_REFUSING, per_peer: int = MAX_REFUSING_PER_PEER):
        self.in_all, self.per_peer = in_all, per_peer
        self._waiting: dict[str, int] = {}

    def busy(self, peer: str) -> bool:
        """True if ``peer`` has the most refused calls waiting: its next call is told so,
        before its token is checked."""
        return self._waiting.get(peer_host(peer), 0) >= self.per_peer

    async def turn(self, peer: str, kind: str) -> None:
        """Wait for a wrong ``kind`` credential's turn (``GUESSES``), unless the most refused
        calls are waiting already: then it is answered at once."""
        key = peer_host(peer)
        if sum(self._waiting.values()) >= self.in_all:
            return
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            await GUESSES.wrong(kind)
        finally:
            self._waiting[key] -= 1
            if not self._waiting[key]:
                del self._waiting[key]


#: The refused calls of the services a token unlocks (Matches, Spectate, Bots); the bot
#: stream keeps its own (``BotStreamServicer``).
REFUSALS = Refusals()


def busy_text(per_peer: int, what: str = "calls") -> str:
    """What a busy peer is told (``Refusals.busy``)."""
    return (f"{per_peer} {what} from your address are waiting for the answer to a wrong token; this one's token "
            "was not checked: try again later")


async def require_token(expected: str | None | Live, given: str, context, message: str, kind: str) -> None:
    """Abort the call with PERMISSION_DENIED and ``message`` unless no token is configured
    (``expected`` None: the service is open) or ``given`` is it (compared in constant time),
    a wrong one only once the limiter of ``kind`` (``GUESSES``) gives it its turn, and at most
    ``MAX_REFUSING_PER_PEER`` of a peer waiting for it (``REFUSALS``: RESOURCE_EXHAUSTED past them).
    ``expected`` may be a ``Live`` reader: the token as it is now. A token given but wrong is
    said to be so: "admin token required" answered a token revoked a minute before, as if
    none had been passed."""
    expected = current(expected)
    if expected is None:
        return
    import grpc  # (loaded: a servicer asks; this module is imported by what never serves, `arbiter web`)

    peer = context.peer() or "?"
    if REFUSALS.busy(peer):  # before the token is checked: the answer says nothing of it
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, busy_text(REFUSALS.per_peer))
    if not same(expected, given):
        await REFUSALS.turn(peer, kind)
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, refusal(kind, given, message))


def refusal(kind: str, given: str, message: str) -> str:
    """What a refused ``kind`` token is told: ``message`` (how to get one), after "the token
    given is not this arbiter's" if one was given (a token revoked a minute before was
    answered as if none had been passed)."""
    return f"the {kind} token given is not this arbiter's (revoked and replaced, or another's): {message}" if given \
        else message
