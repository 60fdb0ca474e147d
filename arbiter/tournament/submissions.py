"""Submitting a bot: check it (the sandboxed self-test, then a smoke match refereed by a
private arbiter), then register it in the store. Also the store's registry as the
catalog the Bots gRPC service serves.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import Callable

from arbiter.hosting import sandbox as sb
from arbiter.hosting.botcheck import SMOKE_OPTIONS, Check, Report
from arbiter.hosting.botproc import BotPool, BotStartError
from arbiter.hosting.vetting import self_test
from arbiter.match import run_match
from arbiter.server.app import start_private_server
from arbiter.server.arena import RemoteSeat
from arbiter.server.bots import CatalogError
from arbiter.store.registry import (
    MAX_BYTES,
    MAX_FILES,
    BotVersion,
    Registry,
    RegistryError,
    Submission,
    SubmissionRejected,
    check_name,
    check_version,
    collect,
    materialize,
    validate,
)
from cardarena.games import get_game
from cardarena.records import Clock, FailurePolicy, MatchConfig


def check_bot(
    path: str | os.PathLike,
    *,
    positions: int = 200,
    decision_ms: int = 2000,
    bank_ms: int = 10_000,
    smoke: bool = True,
    seed: int = 1,
    sandbox: sb.Sandbox | None = None,
    timeout: float = 120.0,
) -> Report:
    """Check a bot without registering it: the sandboxed self-test, then a smoke match.

    The self-test runs the untrusted code confined (``arbiter.hosting.vetting``); the smoke
    match is refereed by this process (an arbiter on a free port, the bot in its sandbox
    against the random bot, forfeit on any failure), so a bot cannot talk its way past it.
    """
    box = sandbox or sb.Sandbox()
    path = Path(path).resolve()
    report = self_test(path, positions=positions, decision_ms=decision_ms, sandbox=box, timeout=timeout)
    if report.ok and smoke:
        games = report.bot.get("games") or ["*"]
        game = "spades" if "*" in games else games[0]
        report.checks.append(asyncio.run(_smoke(path, game, decision_ms, bank_ms, seed, box)))
    return report


async def _smoke(path: Path, game_name: str, decision_ms: int, bank_ms: int, seed: int, box: sb.Sandbox) -> Check:
    options = SMOKE_OPTIONS.get(game_name, {})
    game = get_game(game_name, options)
    server = await start_private_server()
    pool = BotPool(server.hub, server.address, sandbox=box)
    try:
        pool.launch("candidate", str(path))
        pool.launch("random", "random")
        try:
            await pool.wait_connected(30)
        except BotStartError as exc:
            return Check("smoke", False, f"did not connect: {exc}")
        seats = [RemoteSeat(pool.procs["candidate" if s % 2 == 0 else "random"].session, game_name) for s in range(game.num_seats)]
        config = MatchConfig(game=game_name, seed=seed, options=options, clock=Clock(decision_ms, bank_ms),
                             policy=FailurePolicy.uniform("forfeit"))
        record = await run_match(config, seats)
    finally:
        await server.stop(0.2)
        pool.stop()
    mine = [i for i in record.incidents if i.seat % 2 == 0]
    if mine or record.outcome is None:
        inc = mine[0] if mine else None
        detail = f"{inc.kind}: {inc.detail}" + (f"; stderr: {inc.stderr[-600:]}" if inc.stderr else "") if inc else "no outcome"
        return Check("smoke", False, f"{game_name} vs random: {detail}")
    return Check("smoke", True, f"{game_name} vs random (seed {seed}): {record.outcome.reason.value}, "
                 f"{len(record.actions)} decisions in {record.seconds:.2f} s, ranks {list(record.outcome.ranks)}")


def check_submission(sub: Submission, check: Callable[[Path], Report] | None = None) -> Report:
    """Write ``sub`` to a temporary folder and check it there (``check_bot`` by default)."""
    with tempfile.TemporaryDirectory(prefix="arena-submit-") as tmp:
        staged = materialize(sub, Path(tmp) / "bot")
        # the sandboxed bot (its own uid) must read its code
        for p in [Path(tmp), *Path(tmp).rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        return (check or check_bot)(staged)


def submit(
    registry: Registry,
    source: str | os.PathLike | Submission,
    name: str,
    version: str | None = None,
    author: str = "local",
    check: Callable[[Path], Report] | None = None,
) -> tuple[BotVersion, Report]:
    """Check and register a bot; SubmissionRejected (with the report) if a check fails."""
    sub = source if isinstance(source, Submission) else collect(source)
    sub = validate(sub)
    check_name(name)
    if version:
        check_version(version)
    owner = registry.owner(name)
    if owner is not None and owner != author and author != "admin":
        raise RegistryError(f"bot {name!r} belongs to another author")
    report = check_submission(sub, check)
    if not report.ok:
        failed = [c for c in report.checks if not c.ok]
        raise SubmissionRejected(f"{name}: failed {', '.join(c.name for c in failed)}: {failed[0].detail}", report)
    version = version or str(report.bot.get("version") or "0")
    return registry.add(name, version, sub, report, author), report


class RegistryCatalog:
    """The store's registry as the Bots service's ``BotCatalog``: submissions are checked
    (``check`` or ``check_bot``) before they are registered."""

    max_files = MAX_FILES
    max_bytes = MAX_BYTES

    def __init__(self, registry: Registry | str | os.PathLike, check: Callable[[Path], Report] | None = None):
        self.registry = registry if isinstance(registry, Registry) else Registry(registry)
        self.check = check

    def owner(self, name: str) -> str | None:
        return self.registry.owner(name)

    def versions(self, name: str | None = None, author: str | None = None) -> list[BotVersion]:
        return self.registry.versions(name, author=author)

    def submit(self, files: dict[str, bytes], entry: str, name: str, version: str, author: str) -> BotVersion:
        try:
            v, _ = submit(self.registry, Submission(files, entry), name, version or None, author, self.check)
            return v
        except SubmissionRejected as exc:
            lines = tuple(f"{c.name}: {'ok' if c.ok else 'FAILED'}: {c.detail}" for c in exc.report.checks)
            raise CatalogError(str(exc), "rejected", lines) from None
        except RegistryError as exc:
            raise CatalogError(str(exc), "denied" if "another author" in str(exc) else "invalid") from None

    def remove(self, name: str, version: str | None, author: str) -> int:
        try:
            return self.registry.remove(name, version, author)
        except RegistryError as exc:
            text = str(exc)
            kind = "denied" if "another author" in text else "missing" if text.startswith("no bot") else "invalid"
            raise CatalogError(text, kind) from None
