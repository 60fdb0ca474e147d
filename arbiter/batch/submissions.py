"""Submitting a bot: check it (the sandboxed self-test, then a smoke match refereed by a
private arbiter), then register it in the store. Also the store's registry as the
catalog the Bots gRPC service serves.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import tempfile
from pathlib import Path
from typing import Callable

from arbiter import metrics
from arbiter.batch import vetcache
from arbiter.hosting import sandbox as sb
from arbiter.hosting.botcheck import SMOKE_OPTIONS, Check, Report, contract_problems
from arbiter.hosting.botproc import BotPool, BotStartError
from arbiter.hosting.vetting import self_test
from arbiter.match import run_match
from arbiter.server.app import start_private_server
from arbiter.server.botstream import RemoteSeat
from arbiter.server.bots import CatalogError
from arbiter.store.arenas import Standing, standings_of
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
from cardarena.games import GAMES, get_game
from cardarena.records import Clock, FailurePolicy, MatchConfig, MatchRecord
from cardarena.runtimes import PYTHON, RUNTIMES, Manifest, ManifestError, manifest_of


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
    fresh: bool = False,
) -> Report:
    """Check a bot without registering it: the sandboxed self-test, then matches refereed
    by this process.

    The self-test (``arbiter.hosting.vetting``) runs the untrusted code confined and says
    in detail what is wrong, but its report comes from a process that runs the bot's code,
    so the bot could write it: it decides nothing alone. What is registered comes from
    what this process sees itself (``smoke``, on by default): an arbiter on a free port
    hosts the bot in its sandbox and plays one match in every game the bot's own Hello
    claims (``verify:GAME``: against the random bot, forfeit on any failure, within the
    clock); a bot that says it is deterministic plays the first of them again in a fresh
    process and must repeat itself (``deterministic``). The bot's name, version and games
    in the report are the ones its Hello gave this arbiter.

    A passing report of the same content, parameters and checking code is reused
    (``arbiter.batch.vetcache``; its ``reused_from`` says when it was made); ``fresh``
    runs the checks again.
    """
    with metrics.unmetered():  # its seats (candidate, random-1...) are no bots of the service's metrics
        def run() -> Report:
            return _check_bot(path, positions, decision_ms, bank_ms, smoke, seed, sandbox, timeout)

        if sandbox is not None:  # a caller's own confinement: checked as asked, never reused
            return run()
        # a passing report of the same content, parameters and code is reused (``fresh``: not)
        params = dict(positions=positions, decision_ms=decision_ms, bank_ms=bank_ms, smoke=smoke, seed=seed,
                      timeout=timeout, sandbox=sb.Sandbox().mode)
        return vetcache.checked(path, params, run, fresh)


def _check_bot(path: str | os.PathLike, positions: int, decision_ms: int, bank_ms: int, smoke: bool, seed: int,
               sandbox: sb.Sandbox | None, timeout: float) -> Report:
    box = sandbox or sb.Sandbox()
    path = Path(path).resolve()
    try:
        manifest = manifest_of(path)
    except ManifestError as exc:
        report = Report(str(path))
        report.add("contract", False, str(exc))
        return report
    if manifest is not None and manifest.runtime is not PYTHON:
        try:
            report = asyncio.run(asyncio.wait_for(
                _self_test_over_the_wire(path, manifest, positions, decision_ms, bank_ms, box), timeout))
        except TimeoutError:
            report = Report(str(path))
            report.add("self-test", False, f"did not finish within {timeout:.0f} s (a decision that never returns?)")
    else:
        report = self_test(path, positions=positions, decision_ms=decision_ms, sandbox=box, timeout=timeout)
    if report.ok and smoke:
        asyncio.run(_verify(path, report, decision_ms, bank_ms, seed, box))
    return report


async def _self_test_over_the_wire(path: Path, manifest: Manifest, positions: int, decision_ms: int, bank_ms: int,
                                   box: sb.Sandbox) -> Report:
    """The self-test of a bot of another runtime (``bot.toml``: a Node.js bot), whose code
    this process cannot load: the same checks (``import``, ``contract``, ``legal:GAME``,
    ``time:GAME`` over ``positions`` decisions of random games in which the bot holds
    every seat), played by this arbiter against the bot's processes in their sandbox,
    through the one launcher (``BotPool``). ``import``: the process started and said
    Hello; ``contract``: what its Hello claims; the rest: what the referee saw."""
    report = Report(str(path))
    server = await start_private_server()
    pool = BotPool(server.hub, server.address, sandbox=box)
    try:
        sessions = []

        async def seat_sessions(n: int) -> list:
            # the processes start side by side, each in its own sandbox
            started = [pool.launch("candidate", str(path), key=f"self-test.{k}", own_name=True)
                       for k in range(len(sessions), n)]
            sessions.extend(await asyncio.gather(*(bp.connect(server.hub, 30) for bp in started)))
            return sessions[:n]

        try:
            first = (await seat_sessions(1))[0]
        except BotStartError as exc:
            bp = pool.procs.get("self-test.0")
            report.add("import", False, f"the {manifest.runtime.name} bot ({manifest.entry}) did not connect: "
                       + (_start_failure(bp.record_tail()) if bp is not None else str(exc)))
            return report
        report.add("import", True, f"{manifest.runtime.name} {manifest.entry}: connected and said Hello")
        claimed = list(first.games)
        plays = [g for g in claimed if g in GAMES] if claimed else list(GAMES)
        report.bot = {"name": first.claimed_name, "version": first.bot_version, "games": claimed or ["*"],
                      "deterministic": manifest.deterministic}
        problems = contract_problems(first.claimed_name, first.bot_version, claimed, plays)
        report.add("contract", not problems, "; ".join(problems) or f"plays {', '.join(plays)}")
        if problems:
            return report
        for game_name in plays:
            options = SMOKE_OPTIONS.get(game_name, {})
            game = get_game(game_name, options)
            try:
                seats = await seat_sessions(game.num_seats)
            except BotStartError as exc:
                report.add(f"legal:{game_name}", False, f"a process for another seat did not connect: {exc}")
                continue
            times: list[int] = []
            seed, failed = 0, None
            while len(times) < positions and failed is None:
                config = MatchConfig(game=game_name, seed=seed, options=options, clock=Clock(decision_ms, bank_ms),
                                     policy=FailurePolicy.uniform("forfeit"))
                record = await run_match(config, [RemoteSeat(s, game_name) for s in seats])
                times += [a.ms for a in record.actions]
                if record.incidents or record.outcome is None:
                    inc = record.incidents[0] if record.incidents else None
                    failed = (f"{inc.kind} at decision {len(times) + 1} (seat {inc.seat}, seed {seed}): {inc.detail}"
                              + (f"; stderr: {inc.stderr[-600:]}" if inc.stderr else "")) if inc else "no outcome"
                seed += 1
            if failed is not None:
                report.add(f"legal:{game_name}", False, failed)
                continue
            report.add(f"legal:{game_name}", True, f"{len(times)} legal answers over {seed} random games")
            worst = max(times, default=0)
            report.add(f"time:{game_name}", worst <= decision_ms,
                       f"slowest decision {worst} ms, mean {sum(times) / max(1, len(times)):.2f} ms, as the arbiter "
                       f"measured them (limit {decision_ms} ms)")
        return report
    finally:
        await server.stop(0.2)
        await asyncio.to_thread(pool.stop)


def _start_failure(stderr: str) -> str:
    """Why a bot process ended before its Hello, in one line first (its stderr's first
    ``...Error: ...`` line), then the tail of what it wrote."""
    lines = stderr.splitlines()
    cause = next((ln.strip() for ln in lines if re.match(r"\s*(\w+\.)*\w*Error\b", ln)), "")
    if "Cannot find module" in stderr or "MODULE_NOT_FOUND" in stderr:
        cause += " (everything it needs must be inside the submitted folder, node_modules too: a hosted bot has no network)"
    return "; ".join(x for x in (cause, " | ".join(ln.strip() for ln in lines[-6:] if ln.strip())) if x)


async def _verify(path: Path, report: Report, decision_ms: int, bank_ms: int, seed: int, box: sb.Sandbox) -> None:
    """Append the arbiter's own checks to ``report`` and put the facts it saw in ``report.bot``."""
    server = await start_private_server()
    pool = BotPool(server.hub, server.address, sandbox=box)
    try:
        first = pool.launch("candidate", str(path), key="candidate.0", own_name=True)
        try:
            session = await first.connect(server.hub, 30)
        except BotStartError as exc:
            report.add("verify", False, f"did not connect to the arbiter: {exc}")
            return
        games = list(session.games) or sorted(GAMES)
        unknown = [g for g in games if g not in GAMES]
        if unknown:
            report.add("verify", False, f"its Hello claims unknown games {unknown} (known: {', '.join(GAMES)})")
            return
        claimed = {"name": session.claimed_name, "version": session.bot_version, "games": list(session.games) or ["*"]}
        deterministic = bool(report.bot.get("deterministic"))
        report.bot = {**claimed, "deterministic": deterministic}
        records = {}
        for game in games:
            check, record = await _refereed_match(server, pool, session, game, decision_ms, bank_ms, seed)
            report.checks.append(check)
            if not check.ok:
                return
            records[game] = record
        if deterministic:
            again = pool.launch("candidate", str(path), key="candidate.again")
            try:
                fresh = await again.connect(server.hub, 30)
            except BotStartError as exc:
                report.add("deterministic", False, f"a second process did not connect: {exc}")
                return
            game = games[0]
            check, record = await _refereed_match(server, pool, fresh, game, decision_ms, bank_ms, seed)
            mine = [[a.action for a in r.actions if a.seat == 0] for r in (records[game], record)]
            differ = next((k for k, (x, y) in enumerate(zip(*mine)) if x != y), None)
            if not check.ok or differ is not None or len(mine[0]) != len(mine[1]):
                at = "" if differ is None else f" (first difference at its decision {differ + 1}: {mine[0][differ]} then {mine[1][differ]})"
                report.add("deterministic", False, f"declared deterministic, but a fresh process played the same "
                           f"{game} match (seed {seed}) differently{at}")
            else:
                report.add("deterministic", True, f"a fresh process replayed its {len(mine[0])} decisions of the {game} match")
    finally:
        await server.stop(0.2)
        pool.stop()


async def _refereed_match(server, pool: BotPool, candidate, game_name: str, decision_ms: int, bank_ms: int,
                          seed: int) -> tuple[Check, MatchRecord]:
    """One match of ``game_name``: the candidate at seat 0, a random bot process at every
    other seat (one stream per seat), refereed under the forfeit policy."""
    options = SMOKE_OPTIONS.get(game_name, {})
    game = get_game(game_name, options)
    others = []
    for k in range(1, game.num_seats):
        bp = pool.procs.get(f"random.{k}") or pool.launch(f"random-{k}", "random", key=f"random.{k}")
        others.append(await bp.connect(server.hub, 30) if bp.session is None or bp.session.closed else bp.session)
    seats = [RemoteSeat(s, game_name) for s in [candidate, *others]]
    config = MatchConfig(game=game_name, seed=seed, options=options, clock=Clock(decision_ms, bank_ms),
                         policy=FailurePolicy.uniform("forfeit"))
    record = await run_match(config, seats)
    mine = [i for i in record.incidents if i.seat == 0]
    name = f"verify:{game_name}"
    if mine or record.outcome is None:
        inc = mine[0] if mine else None
        detail = (f"{inc.kind}: {inc.detail}" + (f"; stderr: {inc.stderr[-600:]}" if inc.stderr else "")) if inc else "no outcome"
        return Check(name, False, f"a {game_name} match refereed by the arbiter (seed {seed}): {detail}"), record
    times = [a.ms for a in record.actions if a.seat == 0]
    return Check(name, True, f"{game_name} vs random (seed {seed}): {record.outcome.reason.value}, {len(times)} decisions, "
                 f"at most {max(times, default=0)} ms"), record


def check_submission(sub: Submission, check: Callable[[Path], Report] | None = None) -> Report:
    """Write ``sub`` to a temporary folder and check it there (``check_bot`` by default)."""
    with tempfile.TemporaryDirectory(prefix="arena-submit-") as tmp:
        staged = materialize(sub, Path(tmp) / "bot")
        # the sandboxed bot (its own uid) must read its code
        for p in [Path(tmp), *Path(tmp).rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        report = (check or check_bot)(staged)
        # the staged copy's folder is this machine's, not the author's: name the files as
        # the submission does (``bot.py:3: SyntaxError ...``)
        for c in report.checks:
            for folder in {str(staged.resolve()), str(staged)}:
                c.detail = c.detail.replace(folder + os.sep, "")
        return report


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

    # what the Bots service accepts on the wire: the largest of any runtime's limits
    # (a Node bot carries node_modules); ``validate`` then holds each to its runtime's own
    max_files = max(MAX_FILES, *(r.max_files for r in RUNTIMES.values()))
    max_bytes = max(MAX_BYTES, *(r.max_bytes for r in RUNTIMES.values()))

    def __init__(self, registry: Registry | str | os.PathLike, check: Callable[[Path], Report] | None = None):
        self.registry = registry if isinstance(registry, Registry) else Registry(registry)
        self.check = check

    def owner(self, name: str) -> str | None:
        return self.registry.owner(name)

    def versions(self, name: str | None = None, author: str | None = None) -> list[BotVersion]:
        return self.registry.versions(name, author=author)

    def standings(self, name: str) -> list[Standing]:
        return [dataclasses.replace(s, reason=self._scrub(s.reason)) for s in standings_of(self.registry.db, name)]

    def _scrub(self, text: str) -> str:
        """A message for a remote caller: no path of this machine in it."""
        for path in sorted({str(self.registry.root), str(self.registry.db_path), str(Path(self.registry.db_path).resolve())},
                           key=len, reverse=True):
            text = text.replace(path, "<store>")
        return text

    def submit(self, files: dict[str, bytes], entry: str, name: str, version: str, author: str) -> BotVersion:
        try:
            v, _ = submit(self.registry, Submission(files, entry), name, version or None, author, self.check)
            return v
        except SubmissionRejected as exc:
            lines = tuple(self._scrub(f"{c.name}: {'ok' if c.ok else 'FAILED'}: {c.detail}") for c in exc.report.checks)
            raise CatalogError(self._scrub(str(exc)), "rejected", lines) from None
        except RegistryError as exc:
            text = self._scrub(str(exc))
            if "another author" in text:  # the name is taken (bot names are public: README, Security)
                raise CatalogError(f"the bot name {name[:64]!r} is taken by another author (bot names are public, "
                                   "as on every leaderboard): submit under another name", "denied") from None
            raise CatalogError(text, "invalid") from None

    def remove(self, name: str, version: str | None, author: str) -> int:
        # Only your own bots are yours to remove: another's reads as none of yours (its
        # name is public all the same: leaderboards show it, Submit says it is taken).
        owner = self.registry.owner(name)
        if owner is None or (author != "admin" and owner != author):
            raise CatalogError(f"no bot {name[:64]!r} of yours", "missing")
        try:
            return self.registry.remove(name, version, author)
        except RegistryError as exc:
            raise CatalogError(self._scrub(str(exc)), "missing" if str(exc).startswith("bot ") else "invalid") from None
