"""Submitting a bot: check it (the sandboxed self-test, then smoke matches refereed by this
process, a batch played by the one engine at the one venue factory's hosted venue), then
register it in the store. Also the store's registry as the
catalog the Bots gRPC service serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Callable, Coroutine

from arbiter import metrics
from arbiter.batch import vetcache
from arbiter.hosting import botenv
from arbiter.hosting import sandbox as sb
from arbiter.hosting.botcheck import NOT_DETERMINISTIC_FIX, SMOKE_OPTIONS, Check, Report, contract_problems
from arbiter.batch.engine import play_batch
from arbiter.batch.plan import PlannedMatch
from arbiter.batch.venue import HOSTED, open_venue
from arbiter.hosting.botproc import BotStartError
from arbiter.hosting.loading import BUNDLED, UNDECLARED_NAME
from arbiter.hosting.vetting import overran, self_test
from arbiter.server.bots import Abandoned, CatalogError, not_yours
from arbiter.store.arenas import Standing, standings_of, unplayed_arenas
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
from cardarena.runtimes import MANIFEST, PYTHON, RUNTIMES, Manifest, ManifestError, manifest_of, parse_manifest


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
    abandoned: Abandoned | None = None,
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

    ``abandoned`` (a remote submission's: set once its call has ended) stops the check where
    it stands, as any run stops: cancelled (``_until_abandoned``), its processes killed, and
    SubmissionAbandoned raised instead of a report.
    """
    with metrics.unmetered():  # its seats (candidate, random-1...) are no bots of the service's metrics
        def run() -> Report:
            return _check_bot(path, positions, decision_ms, bank_ms, smoke, seed, sandbox, timeout, abandoned)

        if sandbox is not None:  # a caller's own confinement: checked as asked, never reused
            return run()
        # a passing report of the same content, parameters and code is reused (``fresh``: not)
        params = dict(positions=positions, decision_ms=decision_ms, bank_ms=bank_ms, smoke=smoke, seed=seed,
                      timeout=timeout, sandbox=sb.Sandbox().mode)
        return vetcache.checked(path, params, run, fresh)


def _check_bot(path: str | os.PathLike, positions: int, decision_ms: int, bank_ms: int, smoke: bool, seed: int,
               sandbox: sb.Sandbox | None, timeout: float, abandoned: Abandoned | None) -> Report:
    box = sandbox or sb.Sandbox()
    path = Path(path).resolve()
    try:
        manifest = manifest_of(path)
    except ManifestError as exc:
        report = Report(str(path))
        report.add("contract", False, str(exc))
        return report
    return _until_abandoned(_checked(path, manifest, positions, decision_ms, bank_ms, smoke, seed, box, timeout),
                            abandoned)


async def _checked(path: Path, manifest: Manifest | None, positions: int, decision_ms: int, bank_ms: int, smoke: bool,
                   seed: int, box: sb.Sandbox, timeout: float) -> Report:
    """The check as one run: the self-test, then (``smoke``) the arbiter's own matches."""
    if manifest is not None and manifest.runtime is not PYTHON:
        try:
            async with asyncio.timeout(timeout):
                report = await _self_test_over_the_wire(path, manifest, positions, decision_ms, bank_ms, box)
        except TimeoutError:
            report = Report(str(path))
            report.add("self-test", False, overran(timeout, positions))
    else:
        report = await self_test(path, positions=positions, decision_ms=decision_ms, sandbox=box, timeout=timeout)
    if report.ok and smoke:
        await _verify(path, report, decision_ms, bank_ms, seed, box)
    return report


def _until_abandoned(check: Coroutine[Any, Any, Report], abandoned: Abandoned | None) -> Report:
    """Run ``check`` to its report, unless ``abandoned`` is set first: then it is cancelled,
    the one way a run stops (the self-test's process killed; the batch engine's matches
    cancelled and their venue closed, its bot processes with it), and SubmissionAbandoned
    is raised once it has stopped. The check ran on in its thread after its caller had gone,
    to its end (a minute and more of bot processes), before the bot was left unregistered.

    The thread that sets ``abandoned`` cancels the check's task itself (``Abandoned.when_set``,
    through ``call_soon_threadsafe``): nothing here looks at the event, so the stop is seen
    at once and the check's loop sleeps while its processes work (a watcher woke it every
    0.1 s to look)."""

    async def run() -> Report:
        task = asyncio.ensure_future(check)
        if abandoned is None:
            return await task
        loop = asyncio.get_running_loop()

        def stop() -> None:  # in the thread that set ``abandoned``
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:  # the loop has closed: the check is over already
                pass

        forget = abandoned.when_set(stop)
        try:
            return await task
        except asyncio.CancelledError:
            if task.cancelled() and abandoned.is_set():
                raise SubmissionAbandoned("the check was stopped: its caller is gone") from None
            raise
        finally:
            forget()

    return asyncio.run(run())


#: The seats of a bot's vetting matches: the candidate, then random bots.
CANDIDATE = "candidate"


def _most_seats() -> int:
    return max(get_game(g, SMOKE_OPTIONS.get(g, {})).num_seats for g in GAMES)


def _config(game_name: str, seed: int, decision_ms: int, bank_ms: int) -> MatchConfig:
    """A vetting match: the game's smoke options, the bot's clock, forfeit on any failure."""
    return MatchConfig(game=game_name, seed=seed, options=SMOKE_OPTIONS.get(game_name, {}),
                       clock=Clock(decision_ms, bank_ms), policy=FailurePolicy.uniform("forfeit"))


async def _self_test_over_the_wire(path: Path, manifest: Manifest, positions: int, decision_ms: int, bank_ms: int,
                                   box: sb.Sandbox) -> Report:
    """The self-test of a bot of another runtime (``bot.toml``: a Node.js bot), whose code
    this process cannot load: the same checks (``import``, ``contract``, ``legal:GAME``,
    ``time:GAME`` over ``positions`` decisions of random games in which the bot holds
    every seat), played by this arbiter as one batch (``play_batch`` over ``open_venue``:
    the bot's processes in their sandbox, one long-lived process per seat). ``import``:
    the processes started and said Hello; ``contract``: what its Hello claims; the rest:
    what the referee saw."""
    report = Report(str(path))
    most = _most_seats()
    try:
        async with open_venue(HOSTED, {CANDIDATE: str(path)}, None, isolation="shared", copies=most, processes=most,
                              max_restarts=0, sandbox=box, own_names=(CANDIDATE,)) as venue:
            first = venue.hello[CANDIDATE]
            report.add("import", True, f"{manifest.runtime.name} {manifest.entry}: connected and said Hello")
            claimed = list(first.games)
            plays = [g for g in claimed if g in GAMES] if claimed else list(GAMES)
            report.bot = {"name": first.claimed_name, "version": first.bot_version, "games": claimed or ["*"],
                          "deterministic": manifest.deterministic}
            problems = contract_problems(first.claimed_name, first.bot_version, claimed, plays)
            report.add("contract", not problems, "; ".join(problems) or f"plays {', '.join(plays)}")
            if problems:
                return report
            await _legal_answers(venue, plays, report, positions, decision_ms, bank_ms)
    except BotStartError as exc:
        report.add("import", False, f"the {manifest.runtime.name} bot ({manifest.entry}) did not connect: "
                   + _start_failure(exc.stderr or str(exc).split("\n", 1)[-1]))
    return report


async def _legal_answers(venue, plays: list[str], report: Report, positions: int, decision_ms: int,
                         bank_ms: int) -> None:
    """``legal:GAME`` and ``time:GAME`` of each game: random games (seeds 0, 1, ...) in which
    the candidate holds every seat, until ``positions`` decisions or its first failure.
    One batch, read as it is played: each next match is planned once the last is judged."""
    state = {"times": [], "seed": 0, "failed": None}

    def plan():
        key = 0
        for game_name in plays:
            state.update(times=[], seed=0, failed=None)
            n = get_game(game_name, SMOKE_OPTIONS.get(game_name, {})).num_seats
            while len(state["times"]) < positions and state["failed"] is None:
                yield PlannedMatch(key, _config(game_name, state["seed"], decision_ms, bank_ms), (CANDIDATE,) * n,
                                   item=game_name)
                key += 1
            _judge(game_name)

    def _judge(game_name: str) -> None:
        times, seed, failed = state["times"], state["seed"], state["failed"]
        if failed is not None:
            report.add(f"legal:{game_name}", False, failed)
            return
        report.add(f"legal:{game_name}", True, f"{len(times)} legal answers over {seed} random game{'' if seed == 1 else 's'}")
        worst = max(times, default=0)
        report.add(f"time:{game_name}", worst <= decision_ms,
                   f"slowest decision {worst} ms, mean {sum(times) / max(1, len(times)):.2f} ms, as the arbiter "
                   f"measured them (limit {decision_ms} ms)")

    async with contextlib.aclosing(play_batch(plan(), venue, ordered=True)) as played:
        async for p in played:
            record, seed = p.record, p.match.config.seed
            state["times"] += [a.ms for a in record.actions]
            if record.incidents or record.outcome is None:
                inc = record.incidents[0] if record.incidents else None
                state["failed"] = (f"{inc.kind} at decision {len(state['times']) + 1} (seat {inc.seat}, seed {seed}): "
                                   f"{inc.detail}" + (f"; stderr: {inc.stderr[-600:]}" if inc.stderr else "")
                                   ) if inc else "no outcome"
            state["seed"] = seed + 1


def _start_failure(stderr: str) -> str:
    """Why a bot process ended before its Hello, in one line first (its stderr's first
    ``...Error: ...`` line), then the tail of what it wrote."""
    lines = stderr.splitlines()
    cause = next((ln.strip() for ln in lines if re.match(r"\s*(\w+\.)*\w*Error\b", ln)), "")
    if "Cannot find module" in stderr or "MODULE_NOT_FOUND" in stderr:
        cause += " (everything it needs must be inside the submitted folder, node_modules too: a hosted bot has no network)"
    return "; ".join(x for x in (cause, " | ".join(ln.strip() for ln in lines[-6:] if ln.strip())) if x)


async def _verify(path: Path, report: Report, decision_ms: int, bank_ms: int, seed: int, box: sb.Sandbox) -> None:
    """Append the arbiter's own checks to ``report`` and put the facts it saw in ``report.bot``.

    One batch (``play_batch`` over ``open_venue``, a fresh sandboxed process per seat and
    match): a match of each game the bot's Hello claims, the candidate at seat 0 and a
    random bot at every other seat (``verify:GAME``), and for a bot that says it is
    deterministic the first of them again (``deterministic``: a fresh process must repeat
    its decisions)."""
    bots = {CANDIDATE: str(path), **{f"random-{k}": "random" for k in range(1, _most_seats())}}
    try:
        async with open_venue(HOSTED, bots, None, isolation="match", max_restarts=0, sandbox=box,
                              own_names=(CANDIDATE,)) as venue:
            session = venue.hello[CANDIDATE]
            games = list(session.games) or sorted(GAMES)
            unknown = [g for g in games if g not in GAMES]
            if unknown:
                report.add("verify", False, f"its Hello claims unknown games {unknown} (known: {', '.join(GAMES)})")
                return
            claimed = {"name": session.claimed_name, "version": session.bot_version, "games": list(session.games) or ["*"]}
            deterministic = bool(report.bot.get("deterministic"))
            report.bot = {**claimed, "deterministic": deterministic}
            plan = [PlannedMatch(k, _config(g, seed, decision_ms, bank_ms), _seats(g), item=g) for k, g in enumerate(games)]
            if deterministic:
                plan.append(PlannedMatch(len(games), _config(games[0], seed, decision_ms, bank_ms), _seats(games[0]),
                                         item="again"))
            records: dict[str, MatchRecord] = {}
            async with contextlib.aclosing(play_batch(plan, venue, ordered=True)) as played:
                async for p in played:
                    game = p.match.config.game
                    check = _judged(game, seed, p.record)
                    if p.match.item != "again":
                        report.checks.append(check)
                        if not check.ok:
                            return
                        records[game] = p.record
                        continue
                    mine = [[a.action for a in r.actions if a.seat == 0] for r in (records[game], p.record)]
                    differ = next((k for k, (x, y) in enumerate(zip(*mine)) if x != y), None)
                    if not check.ok:
                        report.add("deterministic", False, f"a fresh process could not replay the {game} match: "
                                   + check.detail.split(": ", 1)[-1])
                    elif differ is not None or len(mine[0]) != len(mine[1]):
                        at = "" if differ is None else f" (first difference at its decision {differ + 1}: {mine[0][differ]} then {mine[1][differ]})"
                        report.add("deterministic", False, f"declared deterministic, but a fresh process played the same "
                                   f"{game} match (seed {seed}) differently{at}: {NOT_DETERMINISTIC_FIX}")
                    else:
                        report.add("deterministic", True,
                                   f"a fresh process replayed its {len(mine[0])} decisions of the {game} match")
    except BotStartError as exc:
        report.add("verify", False, f"did not connect to the arbiter: {exc}")


def _seats(game_name: str) -> tuple[str, ...]:
    """The candidate at seat 0, a random bot at every other seat."""
    n = get_game(game_name, SMOKE_OPTIONS.get(game_name, {})).num_seats
    return (CANDIDATE, *(f"random-{k}" for k in range(1, n)))


def _judged(game_name: str, seed: int, record: MatchRecord) -> Check:
    """``verify:GAME``: the candidate (seat 0) played the match without an incident."""
    mine = [i for i in record.incidents if i.seat == 0]
    name = f"verify:{game_name}"
    if mine or record.outcome is None:
        inc = mine[0] if mine else None
        detail = (f"{inc.kind}: {inc.detail}" + (f"; stderr: {inc.stderr[-600:]}" if inc.stderr else "")) if inc else "no outcome"
        return Check(name, False, f"a {game_name} match refereed by the arbiter (seed {seed}): {detail}")
    times = [a.ms for a in record.actions if a.seat == 0]
    return Check(name, True, f"{game_name} vs random (seed {seed}): {record.outcome.reason.value}, {len(times)} decisions, "
                 f"at most {max(times, default=0)} ms")


#: How a submission is checked: ``check(path, abandoned=EVENT)``, a report of the bot at
#: ``path``; ``abandoned`` (None, or set once the submission's caller is gone) stops it
#: (``check_bot``'s; a check of its own may ignore it).
SubmissionCheck = Callable[..., Report]


def check_submission(sub: Submission, check: SubmissionCheck | None = None,
                     abandoned: Abandoned | None = None) -> Report:
    """Write ``sub`` to a temporary folder and check it there (``check_bot`` by default;
    ``abandoned`` handed to it)."""
    with tempfile.TemporaryDirectory(prefix="arena-submit-") as tmp:
        staged = materialize(sub, Path(tmp) / "bot")
        # the sandboxed bot (its own uid) must read its code
        for p in [Path(tmp), *Path(tmp).rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        report = (check or check_bot)(staged, abandoned=abandoned)
        # the staged copy's folder is this machine's, not the author's: name the files as
        # the submission does (``bot.py:3: SyntaxError ...``). The folder the files were
        # written to, not ``staged``: a single file's is that file, not a folder its
        # paths begin with (a syntax error read /tmp/arena-submit-.../bot/mybot.py:3)
        folder = Path(tmp) / "bot"
        for c in report.checks:
            for shown in {str(folder.resolve()), str(folder)}:
                c.detail = c.detail.replace(shown + os.sep, "")
        report.spec = sub.entry  # what `bots show` and the report's title say was checked
        return report


def check_submitted_name(name: str) -> str:
    """``name`` if a bot may be registered under it, else RegistryError saying why: the one
    rule for names (``check_name``), and not a bundled bot's name. Where a bot is named
    (``arbiter play``, a tournament's bots, an arena's house bots) a bundled name is the
    bundled bot, so a registered ``random`` would be a second bot called random, reachable
    only as ``random@VERSION``, beside the one every standings table shows as random.
    ``arbiter bots new`` holds a new folder's name to it too: that is the name its class
    declares, the one ``bots submit`` registers it under."""
    check_name(name)
    if name in BUNDLED:
        raise RegistryError(f"{name!r} is a bundled bot's name: where a bot is named (arbiter play, tournaments, "
                            f"an arena's house bots) {name} is that bot, and a registered one would be reached "
                            f"only as {name}@VERSION; choose another name")
    return name


class SubmissionAbandoned(RegistryError):
    """The submission's caller is gone (``submit``'s ``abandoned``): its bot is not registered."""


class NameTaken(RegistryError):
    """The name is registered to another author (``name``: the one asked for or declared)."""

    def __init__(self, name: str):
        super().__init__(f"bot {name!r} belongs to another author")
        self.name = name


def declared_name(bot: dict) -> str:
    """The name a checked bot declares (``name = "..."`` in its class: what its Hello said to
    the arbiter that checked it; ``bot``: its report's ``bot``), for a submission without
    one; RegistryError naming both ways to give one if it declares none (it has
    ``sdk.Bot``'s default)."""
    said = str(bot.get("name") or "")
    if not said or said == UNDECLARED_NAME:
        raise RegistryError(f"no name to register the bot under: its class declares none of its own (it has "
                            f"sdk.Bot's default {UNDECLARED_NAME!r}): give it one, name = \"mybot\" in the class, or "
                            "submit it with --name NAME")
    return said


def submit(
    registry: Registry,
    source: str | os.PathLike | Submission,
    name: str | None = None,
    version: str | None = None,
    author: str = "local",
    check: SubmissionCheck | None = None,
    public: bool = False,
    abandoned: Abandoned | None = None,
) -> tuple[BotVersion, Report]:
    """Check and register a bot; SubmissionRejected (with the report) if a check fails.

    ``abandoned``, once set, stops the check (``check_bot``'s: its processes killed) and
    leaves the bot unregistered (SubmissionAbandoned): a check runs in a thread of its own,
    which a remote submission's call does not stop when it ends (its author hung up, the
    arbiter stopped); it ran on to its end and registered the bot all the same.

    ``name``: the registry name (``check_submitted_name``); None: the one the bot declares
    (``declared_name``), known once it is checked, as its version is.
    ``public``: submitted by another through the arena's Bots service, where installing
    the packages a bot declares needs the operator's ``ARENA_INSTALL_BOT_ENVS=all``
    (``botenv.allowed_for_submissions``); refused before anything of it runs otherwise."""
    sub = source if isinstance(source, Submission) else collect(source)
    sub = validate(sub)
    if public and MANIFEST in sub.files and not botenv.allowed_for_submissions():
        try:
            declared = parse_manifest(sub.files[MANIFEST]).requirements
        except ManifestError:
            declared = None  # the check says what is wrong with it
        if declared:
            report = Report(name or sub.entry)
            report.add("environment", False, botenv.submission_refusal(declared))
            raise SubmissionRejected(f"{name or sub.entry}: failed environment: {report.checks[0].detail}", report)

    def may_take(name: str) -> None:
        check_submitted_name(name)
        owner = registry.owner(name)
        if owner is not None and owner != author and author != "admin":
            raise NameTaken(name)

    if name is not None:  # before the self-test, not after it
        may_take(name)
    if version:
        check_version(version)
    try:
        report = check_submission(sub, check, abandoned)
    except SubmissionAbandoned:
        raise SubmissionAbandoned(f"{name or sub.entry}: the submission's call ended during its check, which was "
                                  "stopped; nothing was registered") from None
    if not report.ok:
        failed = [c for c in report.checks if not c.ok]
        shown = name or str(report.bot.get("name") or sub.entry)
        raise SubmissionRejected(f"{shown}: failed {', '.join(c.name for c in failed)}: {failed[0].detail}", report)
    if name is None:
        name = declared_name(report.bot)
        try:
            may_take(name)
        except NameTaken:
            raise
        except RegistryError as exc:  # the author typed no name: say where this one came from
            raise RegistryError(f"{exc} (it is the name the bot's class declares: --name NAME registers it under "
                                "another)") from None
    version = version or str(report.bot.get("version") or "0")
    if abandoned is not None and abandoned.is_set():
        raise SubmissionAbandoned(f"{name}: the submission's call ended during its check; nothing was registered")
    return registry.add(name, version, sub, report, author), report


def notices(registry: Registry, version: BotVersion) -> list[str]:
    """What the author of ``version``, just registered, should know of it in this store, in
    words: each arena here (its entrants the registered bots) whose game it does not play,
    where it is not entered (the arena enters every registered bot that plays its game), and
    each arena this very version left (withdrawn), which it does not enter again."""
    plays = ", ".join(version.games)
    said = [f"arena {name!r} here plays {game}; {version.name} {version.version} plays {plays}: it is not entered "
            "there" for name, game in unplayed_arenas(registry.db, version.games)]
    # a version removed and registered again (the same files: the registry allows it) stays
    # out of the ladders it left, which its author was not told at submission
    player = f"{version.name}@{version.version}"
    for s in standings_of(registry.db, version.name):
        # (the ladder's REMOVED: a version withdrawn for another reason, a house bot's name,
        # is told by the ladder itself, and a new version would not mend it)
        if s.player == player and s.status == "withdrawn" and s.reason.startswith("removed from the registry"):
            why = s.reason.split(", then registered again")[0]
            said.append(f"arena {s.arena!r} here: {player} left it ({why}) and does not come back under its old "
                        "rating: submit it as a new version to play there")
    return said


class RegistryCatalog:
    """The store's registry as the Bots service's ``BotCatalog``: submissions are checked
    (``check`` or ``check_bot``) before they are registered."""

    # what the Bots service accepts on the wire: the largest of any runtime's limits
    # (a Node bot carries node_modules); ``validate`` then holds each to its runtime's own
    max_files = max(MAX_FILES, *(r.max_files for r in RUNTIMES.values()))
    max_bytes = max(MAX_BYTES, *(r.max_bytes for r in RUNTIMES.values()))

    def __init__(self, registry: Registry | str | os.PathLike, check: SubmissionCheck | None = None,
                 closed: str = ""):
        """``closed``: why submissions are refused here (a remote division's arena: its bots
        connect, none is submitted), "" to take them."""
        self.registry = registry if isinstance(registry, Registry) else Registry(registry)
        self.check = check
        self.closed = closed

    def owner(self, name: str) -> str | None:
        return self.registry.owner(name)

    def versions(self, name: str | None = None, author: str | None = None) -> list[BotVersion]:
        return self.registry.versions(name, author=author)

    def standings(self, name: str) -> list[Standing]:
        return [dataclasses.replace(s, reason=self._scrub(s.reason)) for s in standings_of(self.registry.db, name)]

    def notices(self, version: BotVersion) -> list[str]:
        return notices(self.registry, version)

    def _scrub(self, text: str) -> str:
        """A message for a remote caller: no path of this machine in it."""
        for path in sorted({str(self.registry.root), str(self.registry.db_path), str(Path(self.registry.db_path).resolve())},
                           key=len, reverse=True):
            text = text.replace(path, "<store>")
        return text

    def submit(self, files: dict[str, bytes], entry: str, name: str, version: str, author: str,
               abandoned: Abandoned | None = None) -> BotVersion:
        """``name``: "" registers the bot under the name it declares; ``abandoned``: set once
        its caller is gone, nothing is registered (``submit``)."""
        if self.closed:  # before the self-test: nothing registered would ever play
            raise CatalogError(self.closed, "closed")
        try:
            v, _ = submit(self.registry, Submission(files, entry), name or None, version or None, author, self.check,
                          public=True, abandoned=abandoned)
            return v
        except SubmissionRejected as exc:
            lines = tuple(self._scrub(f"{c.name}: {'ok' if c.ok else 'FAILED'}: {c.detail}") for c in exc.report.checks)
            raise CatalogError(self._scrub(str(exc)), "rejected", lines) from None
        except NameTaken as exc:  # bot names are public: README, Security
            raise CatalogError(f"the bot name {exc.name[:64]!r} is taken by another author (bot names are public, "
                               "as on every leaderboard): submit under another name", "denied") from None
        except RegistryError as exc:  # taken meanwhile (``Registry.add`` says so in the same words), or invalid
            text = self._scrub(str(exc))
            raise CatalogError(text, "denied" if "another author" in text else "invalid") from None

    def remove(self, name: str, version: str | None, author: str) -> int:
        # Only your own bots are yours to remove: another's reads as none of yours (its
        # name is public all the same: leaderboards show it, Submit says it is taken).
        owner = self.registry.owner(name)
        if owner is None or (author != "admin" and owner != author):
            own = sorted({v.name for v in self.registry.versions(author=None if author == "admin" else author)})
            raise CatalogError(not_yours(name, own), "missing")
        try:
            return self.registry.remove(name, version, author)
        except RegistryError as exc:
            raise CatalogError(self._scrub(str(exc)), "missing" if str(exc).startswith("bot ") else "invalid") from None
