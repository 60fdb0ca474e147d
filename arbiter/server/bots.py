"""The Bots gRPC service: remote bot submission, listing and removal, behind tokens.

The servicer only translates: it authenticates the token, reassembles the uploaded files
into a ``registry.Submission`` and hands it to the registry, whose checks run the bot in
its sandbox. An author token acts as its author (their own bots only); the admin token
acts as ``admin`` (everything). With no token configured at all the service is open, as
the Matches service is (a local arbiter); ``arbiter serve`` warns about it.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from pathlib import Path
from typing import AsyncIterator, Callable

import grpc

from arbiter.store import registry as reg
from arbiter.hosting.botcheck import Report
from cardarena.v1 import bots_pb2 as bpb
from cardarena.v1 import bots_pb2_grpc as bpb_grpc

log = logging.getLogger(__name__)


def version_to_proto(v: reg.BotVersion) -> bpb.BotVersionInfo:
    import json

    return bpb.BotVersionInfo(
        name=v.name, version=v.version, content_hash=v.content_hash, games=list(v.games), deterministic=v.deterministic,
        author=v.author, submitted=v.submitted, report_json=json.dumps(v.report), entry=v.entry,
    )


class BotsServicer(bpb_grpc.BotsServicer):
    """Submit / List / Show / Remove over one ``registry.Registry``."""

    def __init__(self, registry: reg.Registry, admin_token: str | None = None, author_tokens: dict[str, str] | None = None,
                 check: Callable[[Path], Report] | None = None):
        self.registry = registry
        self.admin_token = admin_token
        self.author_tokens = dict(author_tokens or {})  # token -> author name
        self.check = check
        self._db = asyncio.Lock()  # one registry connection: one user at a time
        self._checks = asyncio.Semaphore(1)  # a check starts processes: one at a time

    async def _author(self, token: str, context: grpc.aio.ServicerContext) -> str:
        """The caller's identity; aborts UNAUTHENTICATED on a bad token."""
        if self.admin_token is None and not self.author_tokens:
            return "admin"
        if self.admin_token is not None and hmac.compare_digest(self.admin_token.encode(), token.encode()):
            return "admin"
        for known, author in self.author_tokens.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                return author
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "an author or admin token is required")
        raise AssertionError("unreachable")

    async def _fail(self, exc: reg.RegistryError, context: grpc.aio.ServicerContext) -> None:
        text = str(exc)
        if isinstance(exc, reg.SubmissionRejected):
            lines = [f"{c.name}: {'ok' if c.ok else 'FAILED'}: {c.detail}" for c in exc.report.checks]
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, (text + "\n" + "\n".join(lines))[:8000])
        code = grpc.StatusCode.INVALID_ARGUMENT
        if "another author" in text:
            code = grpc.StatusCode.PERMISSION_DENIED
        elif text.startswith("no bot"):
            code = grpc.StatusCode.NOT_FOUND
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
        files: dict[str, bytearray] = {}
        total = 0
        async for chunk in request_iterator:
            if chunk.WhichOneof("chunk") != "data":
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "only one header per submission")
            total += len(chunk.data.content)
            if total > reg.MAX_BYTES or (chunk.data.path not in files and len(files) >= reg.MAX_FILES):
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                    f"submission too big (at most {reg.MAX_FILES} files and {reg.MAX_BYTES // 1024} KiB)")
            files.setdefault(chunk.data.path, bytearray()).extend(chunk.data.content)
        try:
            reg.check_name(header.name)
            sub = reg.validate(reg.Submission({p: bytes(d) for p, d in files.items()}, header.entry or reg.ENTRY))
            async with self._db:
                owner = self.registry.owner(header.name)
            if owner is not None and owner != author and author != "admin":
                raise reg.RegistryError(f"bot {header.name!r} belongs to another author")
            async with self._checks:
                log.info("checking submission %s from %s (%d files, %d bytes)", header.name, author, len(sub.files), sub.size)
                report = await asyncio.to_thread(reg.check_submission, sub, self.check)
            if not report.ok:
                failed = [c for c in report.checks if not c.ok]
                raise reg.SubmissionRejected(f"{header.name}: failed {', '.join(c.name for c in failed)}: {failed[0].detail}", report)
            version = header.version or str(report.bot.get("version") or "0")
            async with self._db:
                v = self.registry.add(header.name, version, sub, report, author)
        except reg.RegistryError as exc:
            await self._fail(exc, context)
            raise
        log.info("registered %s %s (%s) for %s", v.name, v.version, v.content_hash[:12], author)
        return version_to_proto(v)

    async def List(self, request: bpb.ListBotsRequest, context: grpc.aio.ServicerContext):
        author = await self._author(request.token, context)
        async with self._db:
            versions = self.registry.versions(author=None if author == "admin" else author)
        return bpb.ListBotsResponse(versions=[version_to_proto(v) for v in versions])

    async def Show(self, request: bpb.ShowBotRequest, context: grpc.aio.ServicerContext):
        author = await self._author(request.token, context)
        async with self._db:
            owner = self.registry.owner(request.name)
            versions = self.registry.versions(request.name)
        if owner is None or (author != "admin" and owner != author):
            # Someone else's bot looks like no bot at all: names are not an oracle.
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no bot {request.name[:80]!r} of yours")
        return bpb.ShowBotResponse(versions=[version_to_proto(v) for v in versions])

    async def Remove(self, request: bpb.RemoveBotRequest, context: grpc.aio.ServicerContext):
        author = await self._author(request.token, context)
        try:
            async with self._db:
                n = self.registry.remove(request.name, request.version or None, author)
        except reg.RegistryError as exc:
            await self._fail(exc, context)
            raise
        return bpb.RemoveBotResponse(removed=n)


def add_bots_service(server: grpc.aio.Server, registry: reg.Registry | str, admin_token: str | None,
                     author_tokens: dict[str, str]) -> str:
    """Register the Bots service on ``server``; returns its full name (for reflection)."""
    if not isinstance(registry, reg.Registry):
        registry = reg.Registry(registry)
    bpb_grpc.add_BotsServicer_to_server(BotsServicer(registry, admin_token, author_tokens), server)
    return bpb.DESCRIPTOR.services_by_name["Bots"].full_name


# --------------------------------------------------------------------------------------
# The client side (`arbiter bots submit --server`).


def submission_chunks(sub: reg.Submission, token: str, name: str, version: str = "", piece: int = 32 * 1024):
    """The request stream of a Submit call."""
    yield bpb.SubmitChunk(header=bpb.SubmitHeader(token=token, name=name, version=version, entry=sub.entry))
    for path in sorted(sub.files):
        data = sub.files[path]
        for i in range(0, max(1, len(data)), piece):
            yield bpb.SubmitChunk(data=bpb.FileChunk(path=path, content=data[i:i + piece]))
