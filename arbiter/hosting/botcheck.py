"""A bot's self-test: the checks that run INSIDE the sandbox, on the untrusted code.

``python -m arbiter.hosting.botcheck SPEC [--positions N] [--decision-ms MS] [--games G,...]``
prints one JSON report on stdout. The arbiter runs it confined (``arbiter.hosting.vetting.self_test``)
and adds the smoke match it plays against the random bot over gRPC. Checks:

- ``import``: the spec loads and holds exactly one ``sdk.Bot`` subclass;
- ``contract``: a valid name, a version, games it claims that exist, ``choose`` overridden;
- ``legal:<game>``: over N random positions of each claimed game, every answer is one of
  the legal actions (a typed action or its notation), and nothing raises (no crash);
- ``deterministic:<game>`` (only if the bot says ``deterministic = True``): two fresh
  copies given the same match seed answer the same positions identically, even with the
  global RNG disturbed in between;
- ``time:<game>``: the slowest decision is within the per-decision limit.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from cardarena import names
from cardarena.games import GAMES, events_for, facts, get_game
from cardarena.games.base import options_to_dict
from cardarena.records import MatchInfo, bot_seed_for
from sdk.bot import Bot, game_names
from sdk.driver import SeatDriver
from arbiter.hosting.loading import BotLoadError, did_you_mean, load_bot

#: game -> the shortest option set a check plays (each game's ``platform.smoke_options``).
SMOKE_OPTIONS: Mapping[str, Mapping[str, str]] = facts("smoke_options")


@dataclass
class Check:
    name: str
    ok: bool
    detail: str = ""


@dataclass
class Report:
    spec: str
    bot: dict[str, Any] = field(default_factory=dict)  # name, version, games, deterministic
    checks: list[Check] = field(default_factory=list)
    reused_from: str = ""  # when the passing check this report repeats was made (arbiter.batch.vetcache)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    def add(self, name: str, ok: bool, detail: str = "") -> bool:
        self.checks.append(Check(name, ok, detail))
        return ok

    def to_dict(self) -> dict[str, Any]:
        d = {"spec": self.spec, "ok": self.ok, "bot": self.bot,
             "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in self.checks]}
        if self.reused_from:
            d["reused_from"] = self.reused_from
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Report":
        r = cls(str(d.get("spec", "")), dict(d.get("bot", {})))
        r.checks = [Check(str(c["name"]), bool(c["ok"]), str(c.get("detail", ""))) for c in d.get("checks", [])]
        r.reused_from = str(d.get("reused_from", ""))
        return r


#: What a bot declared deterministic that answered differently does about it: the one
#: wording of both determinism checks (this self-test's and the submission's fresh process).
NOT_DETERMINISTIC_FIX = ("draw every random choice from self.rng (seeded per match), not the random module or the "
                         "clock, and keep no state from match to match; or declare deterministic = False")


def _short_exc(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
    return f"{exc!r}{where}"


def _as_action(game: Any, answer: Any) -> Any:
    return game.parse_action(answer) if isinstance(answer, str) else answer


def _info(game: Any, seat: int, seed: int, decision_ms: int, match_id: str) -> Any:
    return MatchInfo(match_id=match_id, game=game.name, options=options_to_dict(game.options), seat=seat,
                     num_seats=game.num_seats, teams=game.teams, seat_names=tuple(f"seat{i}" for i in range(game.num_seats)),
                     decision_ms=decision_ms, bank_ms=0, seed=seed)


def _playout(template: Any, game_name: str, seed: int, decisions: int, decision_ms: int,
             disturb: bool = False, stop_late: bool = False) -> tuple[list[str], list[float]]:
    """The bot plays every seat of one seeded game for up to ``decisions`` decisions;
    returns its answers (notation) and decision times in ms. Each seat is driven as in
    every match, by the one bot driver (``sdk.driver.SeatDriver``: a fresh copy, its
    ``MatchInfo`` with the seat's bot seed ``bot_seed_for``, the events it may see before
    each decision), so what it is checked on is what a match does: a seat's set-up (the
    copy, ``on_match_start``) is timed with its first decision, whose clock it runs on in a
    match (it was not, and a bot whose set-up took seconds passed here and timed out at
    the first decision of every match). Raises AssertionError on an illegal answer,
    ``_Crashed`` when its code fails. ``stop_late``: stop after a decision over
    ``decision_ms`` (the time check fails on it already; a bot 2.5 s a decision took its
    200 positions past the self-test's whole time and was told it never returned)."""

    game = get_game(game_name, SMOKE_OPTIONS.get(game_name, {}))
    state = game.new_initial_state(seed)
    seats: list[SeatDriver] = []
    setup: list[float] = []  # each seat's set-up in ms, until its first decision is timed
    for seat in range(game.num_seats):
        t0 = time.perf_counter()
        seats.append(SeatDriver(template, _info(game, seat, bot_seed_for(seed, seat), decision_ms, f"check-{seed}")))
        setup.append((time.perf_counter() - t0) * 1000)
    for seat, driver in enumerate(seats):
        driver.push(events_for(state.log, seat))
    answers: list[str] = []
    times: list[float] = []
    while not state.is_terminal and len(answers) < decisions:
        seat = state.current_seat
        legal = state.legal_actions()
        view = state.view(seat)
        if disturb:
            random.random()  # a bot that uses the global RNG is not deterministic
        t0 = time.perf_counter()
        decision = seats[seat].decide(view, legal)
        times.append((time.perf_counter() - t0) * 1000 + setup[seat])
        setup[seat] = 0.0
        if decision.failure:
            raise _Crashed(decision.failure)
        if decision.malformed:
            raise AssertionError(f"answer {decision.notation!r} does not parse: {decision.malformed}")
        action = decision.action
        if action not in legal:
            answer = decision.notation or str(action)
            why = state.illegal_reason(action).removeprefix(f"{action}: ")  # the engine's, shown to the author only
            raise AssertionError(f"answer {answer!r} is not legal at decision {len(answers) + 1} "
                                 f"(seat {seat}, {len(legal)} legal actions): {why or 'not a legal action now'}")
        answers.append(str(action))
        if stop_late and times[-1] > decision_ms:
            break
        events = state.apply(action)
        for s, driver in enumerate(seats):
            mine = events_for(events, s)
            if mine:
                driver.push(mine)
    return answers, times


class _Crashed(Exception):
    """The bot's code failed (the driver's words: which hook raised what, at which line)."""


def contract_problems(name: str, version: str, claimed: Sequence[str], plays: Sequence[str]) -> list[str]:
    """What is wrong with what a bot says of itself (its name, version and the games it
    claims; ``plays``: those this arbiter hosts), in words; [] if nothing. The ``contract``
    check of every runtime (a bot of another one says it in its Hello)."""
    problems = []
    if not names.is_name(name):
        problems.append(f"name {name[:80]!r} is not {names.NAME_RULE}")
    if not names.VERSION_RE.match(version):
        problems.append(f"version {version[:40]!r} is not {names.VERSION_RULE}")
    for g in claimed:
        if g != "*" and g not in GAMES:
            problems.append(f"unknown game {g!r}" + (did_you_mean(g, list(GAMES)) or f" (known: {', '.join(GAMES)})"))
    if not plays:
        problems.append("claims no game this arbiter hosts")
    return problems


def _where(cls: type) -> str:
    """Where a loaded bot's class comes from, as a bot is named: the file's name for one read
    from a file (``mybot.py``; a folder's ``bot.py``), else its module (``bots.random_bot``)."""
    module = cls.__module__
    if not module.startswith("_arena_bot_"):  # the name sdk.loading gives a file's module
        return module
    file = getattr(sys.modules.get(module), "__file__", None)
    return Path(file).name if file else "bot.py"


def run_checks(spec: str, positions: int = 200, decision_ms: int = 2000, games: list[str] | None = None) -> Report:
    """Every check of the module docstring; never raises for the bot's faults."""
    report = Report(spec)
    try:
        bot = load_bot(spec)
    except BotLoadError as exc:  # in words already: FILE:LINE: what, and the line
        report.add("import", False, str(exc))
        return report
    except BaseException as exc:  # noqa: BLE001 - SystemExit too: user code at import
        report.add("import", False, _short_exc(exc))
        return report
    report.add("import", True, f"{_where(type(bot))}:{type(bot).__name__}")
    games_attr = getattr(bot, "games", ()) or ()
    claimed = game_names(games_attr)  # ("spades") is the string "spades": one name, told below
    plays = list(GAMES) if "*" in claimed else [g for g in claimed if g in GAMES]
    report.bot = {"name": str(getattr(bot, "name", "")), "version": str(getattr(bot, "version", "")),
                  "games": list(claimed), "deterministic": bool(getattr(bot, "deterministic", False))}
    problems = []
    if isinstance(games_attr, str):
        problems.append(f'games is the string {games_attr!r}, not a tuple of names: write games = ("{games_attr}",) '
                        "(a tuple of one needs its comma)")
    if not isinstance(bot, Bot):
        problems.append("not an sdk.Bot")
    if type(bot).choose is Bot.choose:
        problems.append("choose(view, legal_actions) is not implemented")
    problems += contract_problems(report.bot["name"], report.bot["version"], claimed, plays)
    report.add("contract", not problems, "; ".join(problems) or f"plays {', '.join(plays)}")
    if problems:
        return report
    if games:
        plays = [g for g in plays if g in games]
    for game in plays:
        answers: list[str] = []
        times: list[float] = []
        seed = 0
        try:
            while len(answers) < positions and max(times, default=0.0) <= decision_ms:
                a, t = _playout(bot, game, seed, positions - len(answers), decision_ms, stop_late=True)
                answers += a
                times += t
                seed += 1
            late = "" if max(times, default=0.0) <= decision_ms else " (stopped at a decision over the time limit)"
            report.add(f"legal:{game}", True,
                       f"{len(answers)} legal answers over {seed} random game{'' if seed == 1 else 's'}{late}")
        except AssertionError as exc:
            report.add(f"legal:{game}", False, str(exc))
            continue
        except _Crashed as exc:
            report.add(f"legal:{game}", False, f"crashed: {exc}")
            continue
        except BaseException as exc:  # noqa: BLE001 - the bot crashed
            report.add(f"legal:{game}", False, f"crashed: {_short_exc(exc)}")
            continue
        worst = max(times) if times else 0.0
        report.add(f"time:{game}", worst <= decision_ms,
                   f"slowest decision {worst:.1f} ms, mean {sum(times) / max(1, len(times)):.2f} ms (limit {decision_ms} ms)"
                   + ("" if worst <= decision_ms else "; a seat's first decision counts its set-up (the bot's per-match "
                      "copy, on_match_start), as in a match"))
        if report.bot["deterministic"] and worst <= decision_ms:  # (a late bot's 200 more decisions: time it has not)
            try:
                n = min(positions, 100)
                first, _ = _playout(bot, game, 12345, n, decision_ms)
                second, _ = _playout(bot, game, 12345, n, decision_ms, disturb=True)
                same = first == second
                where = next((i for i, (x, y) in enumerate(zip(first, second)) if x != y), min(len(first), len(second)))
                shown = lambda a: repr(a[where]) if where < len(a) else "no answer"  # noqa: E731
                report.add(f"deterministic:{game}", same, f"{len(first)} answers identical under the same seed" if same
                           else f"answers differ at decision {where + 1} under the same seed: {shown(first)} vs "
                                f"{shown(second)}: {NOT_DETERMINISTIC_FIX}")
            except _Crashed as exc:
                report.add(f"deterministic:{game}", False, f"crashed: {exc}")
            except BaseException as exc:  # noqa: BLE001
                report.add(f"deterministic:{game}", False, f"crashed: {_short_exc(exc)}")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arbiter.hosting.botcheck", description=__doc__.split("\n")[0])
    parser.add_argument("spec")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--decision-ms", type=int, default=2000)
    parser.add_argument("--games", default="")
    args = parser.parse_args(argv)
    report = run_checks(args.spec, args.positions, args.decision_ms, [g for g in args.games.split(",") if g] or None)
    # The bot may have printed to stdout itself: the report is the last line.
    sys.stdout.write("\n" + json.dumps(report.to_dict()) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
