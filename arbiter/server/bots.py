"""The Bots gRPC service: remote bot submission, listing and removal, behind tokens.

The servicer only translates: it authenticates the token, reassembles the uploaded files
and hands them to a ``BotCatalog`` (``arbiter.batch.submissions.RegistryCatalog``:
the registry of the store, whose checks run the bot in its sandbox). An author token acts as its author (their own bots only); the admin token
acts as ``admin`` (everything). With no token configured at all the service is open, as
the Matches service is (a local arbiter); ``arbiter serve`` warns about it.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import threading
from typing import Any, AsyncIterator, Callable, Protocol

import grpc

from arbiter.server.auth import REFUSALS, busy_text, current, refusal
from cardarena.names import did_you_mean
from cardarena.v1 import bots_pb2 as bpb
from cardarena.v1 import bots_pb2_grpc as bpb_grpc

log = logging.getLogger(__name__)

ENTRY = "bot.py"  # the entry file of a folder submission when the header names none


class CatalogError(Exception):
    """A catalog's refusal. ``kind``: ``invalid`` (bad input), ``denied`` (not the caller's),
    ``missing`` (no such bot), ``rejected`` (failed checks; ``lines`` lists them) or ``closed``
    (this catalog takes no submissions)."""

    def __init__(self, message: str, kind: str = "invalid", lines: tuple[str, ...] = ()):
        super().__init__(message)
        self.kind = kind
        self.lines = lines


def not_yours(name: str, own: list[str]) -> str:
    """The refusal of a bot that is none of the caller's (Show, Remove), with the closest of
    the caller's own names: a misspelt name of one's own bot was told only "no bot 'goood' of
    yours", where the local registry suggests 'good'. Only the caller's names are offered:
    others' versions are theirs."""
    return f"no bot {name[:80]!r} of yours" + did_you_mean(name, own)


class Abandoned(threading.Event):
    """A submission's ``abandoned``: set (by the Bots service, in its event loop's thread)
    once the submission's call has ended. A ``threading.Event`` that also tells whoever asked
    (``when_set``) in the thread that sets it, so a check running its own event loop in
    another thread stops at once (its task cancelled through ``call_soon_threadsafe``)
    where it looked at the event every 0.1 s, waking its loop ten times a second for a
    check's whole minute."""

    def __init__(self) -> None:
        super().__init__()
        self._hold = threading.Lock()
        self._tell: list[Callable[[], None]] = []

    def set(self) -> None:
        super().set()
        with self._hold:
            tell, self._tell = self._tell, []
        for f in tell:
            f()

    def when_set(self, tell: Callable[[], None]) -> Callable[[], None]:
        """Call ``tell`` once this is set (at once, here, if it is set already), in the
        thread that sets it; what is returned forgets it (once what it stops is over)."""
        with self._hold:
            if not self.is_set():
                self._tell.append(tell)
                return lambda: self._forget(tell)
        tell()
        return lambda: None

    def _forget(self, tell: Callable[[], None]) -> None:
        with self._hold:
            if tell in self._tell:
                self._tell.remove(tell)


class BotCatalog(Protocol):
    """What the Bots service serves: registered bots, by author. Versions it returns have
    the fields of ``arbiter.store.registry.BotVersion``."""

    max_files: int
    max_bytes: int

    def owner(self, name: str) -> str | None: ...

    def versions(self, name: str | None = None, author: str | None = None) -> list[Any]: ...

    def submit(self, files: dict[str, bytes], entry: str, name: str, version: str, author: str,
               abandoned: Abandoned | None = None) -> Any:
        """Check and register; CatalogError if refused. Run in a thread, which the call's end
        does not stop: ``abandoned`` is set when it ends, and then the check stops and nothing
        is registered (the service waits for it to stop)."""

    def remove(self, name: str, version: str | None, author: str) -> int: ...

    def standings(self, name: str) -> list[Any]:
        """Where the bot's versions stand in the store's arenas (fields of
        ``arbiter.store.arenas.Standing``), their reasons fit for a remote caller."""

    def notices(self, version: Any) -> list[str]:
        """What the author of a version just registered should know of it here, in words
        (``arbiter.batch.submissions.notices``)."""


def version_to_proto(v: Any) -> bpb.BotVersionInfo:
    return bpb.BotVersionInfo(
        name=v.name, version=v.version, content_hash=v.content_hash, games=list(v.games), deterministic=v.deterministic,
        author=v.author, submitted=v.submitted, report_json=json.dumps(v.report), entry=v.entry,
    )


def standing_to_proto(s: Any) -> bpb.LadderStanding:
    """A ladder row (the store's ``Standing``) on the wire: the message's fields are the row's
    (tests/test_protos.py holds the two to one list)."""
    return bpb.LadderStanding(**{f.name: getattr(s, f.name) for f in bpb.LadderStanding.DESCRIPTOR.fields})


class BotsServicer(bpb_grpc.BotsServicer):
    """Submit / List / Show / Remove over one ``BotCatalog``."""

    def __init__(self, catalog: BotCatalog, admin_token: str | None = None, author_tokens: Any = None):
        self.catalog = catalog
        self.admin_token = admin_token  # a token, or an auth.Live reader of the current one
        #: token -> author name, or an auth.Live reader of the current map (a running
        #: server sees an author added or revoked at once)
        self.author_tokens = author_tokens if callable(author_tokens) else dict(author_tokens or {})
        self._db = asyncio.Lock()  # one registry connection: one user at a time
        self._checks = asyncio.Semaphore(1)  # a check starts processes: one at a time

    def _identity(self, token: str) -> str | None:
        """Whom ``token`` stands for now ("admin", an author), or None."""
        admin, authors = current(self.admin_token), current(self.author_tokens)
        if admin is None and not authors:
            return "admin"
        if admin is not None and hmac.compare_digest(admin.encode(), token.encode()):
            return "admin"
        found = None
        for known, author in authors.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                found = author
        return found

    async def _author(self, token: str, context: grpc.aio.ServicerContext) -> str:
        """The caller's identity; aborts UNAUTHENTICATED on a bad token, RESOURCE_EXHAUSTED for
        a peer with the most refused calls waiting (``auth.REFUSALS``, its token unchecked)."""
        peer = context.peer() or "?"
        if REFUSALS.busy(peer):
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, busy_text(REFUSALS.per_peer))
        who = self._identity(token)
        if who is not None:
            return who
        await REFUSALS.turn(peer, "author")  # answered in its turn of the one limit on wrong credentials
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, refusal(
            "author", token, "an author or admin token is required: pass --token (or set ARENA_AUTHOR_TOKEN); "
            "the arbiter's operator issues one: `arbiter credentials add-author NAME`"))
        raise AssertionError("unreachable")

    async def _fail(self, exc: CatalogError, context: grpc.aio.ServicerContext) -> None:
        text = str(exc)
        if exc.kind == "rejected":
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, (text + "\n" + "\n".join(exc.lines))[:8000])
        code = {"denied": grpc.StatusCode.PERMISSION_DENIED, "missing": grpc.StatusCode.NOT_FOUND,
                "closed": grpc.StatusCode.FAILED_PRECONDITION}.get(
            exc.kind, grpc.StatusCode.INVALID_ARGUMENT)
        await context.abort(code, text)

    async def Submit(self, request_iterator: AsyncIterator[bpb.SubmitChunk], context: grpc.aio.ServicerContext):
        try:
            first = await request_iterator.__anext__()
        except StopAsyncIteration:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "empty submission stream")
        if first.WhichOneof("chunk") != "header":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first chunk must be the header")
        header = first.header
        author = await self._author(header.token, context)
        cat = self.catalog
        files: dict[str, bytearray] = {}
        total = 0
        async for chunk in request_iterator:
            if chunk.WhichOneof("chunk") != "data":
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "only one header per submission")
            total += len(chunk.data.content)
            if total > cat.max_bytes or (chunk.data.path not in files and len(files) >= cat.max_files):
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                    f"submission too big (at most {cat.max_files} files and {cat.max_bytes // 1024} KiB)")
            files.setdefault(chunk.data.path, bytearray()).extend(chunk.data.content)
        if self._identity(header.token) != author:  # revoked while it uploaded: the stream ends here
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "this token was revoked during the upload "
                                "(arbiter credentials revoke); nothing was registered")
        try:
            async with self._checks:
                if self._identity(header.token) != author:  # revoked while it waited for its turn
                    await context.abort(grpc.StatusCode.UNAUTHENTICATED, "this token was revoked before the check "
                                        "(arbiter credentials revoke); nothing was registered")
                log.info("checking submission %s from %s (%d files, %d bytes)", header.name[:80], author, len(files), total)
                abandoned = Abandoned()
                check = asyncio.ensure_future(asyncio.to_thread(
                    cat.submit, {p: bytes(d) for p, d in files.items()}, header.entry or ENTRY, header.name,
                    header.version, author, abandoned))
                try:
                    v = await asyncio.shield(check)
                except asyncio.CancelledError:
                    # This call ended (its caller hung up, the arbiter stopped) during the check:
                    # the check stops (its processes killed) and registers nothing. Its turn is
                    # held until it has stopped: one check at a time, an abandoned one too.
                    abandoned.set()
                    (ended,) = await asyncio.gather(check, return_exceptions=True)
                    if isinstance(ended, BaseException):
                        log.info("the call of submission %s from %s ended during its check: the check stopped, "
                                 "nothing was registered", header.name[:80], author)
                    else:  # registered in the moment before its call ended
                        log.info("registered %s %s for %s, whose call ended as it was", ended.name, ended.version, author)
                    raise
                finally:  # a check that outlives this call registers nothing
                    abandoned.set()
        except CatalogError as exc:
            await self._fail(exc, context)
            raise
        log.info("registered %s %s (%s) for %s", v.name, v.version, v.content_hash[:12], author)
        async with self._db:
            notices = self.catalog.notices(v)
        reply = version_to_proto(v)
        reply.notices.extend(notices)
        return reply

    async def List(self, request: bpb.ListBotsRequest, context: grpc.aio.ServicerContext):
        author = await self._author(request.token, context)
        async with self._db:
            versions = self.catalog.versions(author=None if author == "admin" else author)
        return bpb.ListBotsResponse(versions=[version_to_proto(v) for v in versions])

    async def Show(self, request: bpb.ShowBotRequest, context: grpc.aio.ServicerContext):
        author = await self._author(request.token, context)
        async with self._db:
            owner = self.catalog.owner(request.name)
            versions = self.catalog.versions(request.name)
            ladders = self.catalog.standings(request.name) if owner is not None else []
            if owner is None or (author != "admin" and owner != author):
                own = sorted({v.name for v in self.catalog.versions(author=None if author == "admin" else author)})
        if owner is None or (author != "admin" and owner != author):
            # A bot's name is public (it is on every leaderboard; Submit says a name is
            # taken), its versions, files and ladders are its author's: Show lists only yours.
            await context.abort(grpc.StatusCode.NOT_FOUND, not_yours(request.name, own))
        return bpb.ShowBotResponse(versions=[version_to_proto(v) for v in versions],
                                   ladders=[standing_to_proto(s) for s in ladders])

    async def Remove(self, request: bpb.RemoveBotRequest, context: grpc.aio.ServicerContext):
        author = await self._author(request.token, context)
        try:
            async with self._db:
                n = self.catalog.remove(request.name, request.version or None, author)
        except CatalogError as exc:
            await self._fail(exc, context)
            raise
        return bpb.RemoveBotResponse(removed=n)


def add_bots_service(server: grpc.aio.Server, catalog: BotCatalog, admin_token: Any,
                     author_tokens: Any) -> str:
    """Register the Bots service on ``server``; returns its full name (for reflection)."""
    bpb_grpc.add_BotsServicer_to_server(BotsServicer(catalog, admin_token, author_tokens), server)
    return bpb.DESCRIPTOR.services_by_name["Bots"].full_name
