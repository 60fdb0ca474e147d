"""Duplicate-match evaluation of two bots, in process: the margin with its standard error.

    from arbiter.tournament.evaluate import evaluate
    result = evaluate("spades", "search", "heuristic", deals=20, seed=1, options={"deals": 1})
    print(result.summary())

Every deal is played twice with the same cards, the bots swapping seats (bot A takes the
even-numbered sides, bot B the odd ones, then the reverse, as in tournaments), so the
luck of the cards cancels. A match's margin is bot A's mean score minus bot B's mean
score (the games' own numbers: Spades points, Spot units, Spite and Malice 1/0.5/0 or
series points); a deal's margin is the mean over its two seatings. The reported
margin is the mean over deals with its standard error (sample standard deviation of the
deal margins / √deals), and the win rate counts a match won when its margin is
positive (draws half).

Matches run in this process with the arbiter's own match runner (bots as ``LocalSeat``), or
in ``jobs`` worker processes; the result is the same for the same seed either way.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from cardarena.games import ConfigError, get_game
from arbiter.hosting.loading import load_bot
from arbiter.hosting.local import LocalSeat
from arbiter.match import run_match
from arbiter.tournament.stats import mean_se
from cardarena.records import Clock, FailurePolicy, MatchConfig

log = logging.getLogger(__name__)


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal ``deal`` of an evaluation (stable across Python versions)."""
    digest = hashlib.sha256(f"{seed}:evaluate:deal:{deal}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


@dataclass(frozen=True)
class MatchMargin:
    deal: int
    rotation: int  # 0: bot A on the even sides; 1: swapped
    seed: int
    margin: float  # bot A's mean score minus bot B's
    reason: str  # the outcome's end reason


@dataclass
class EvalResult:
    """The outcome of a duplicate evaluation."""

    game: str
    bot_a: str
    bot_b: str
    deals: int
    seed: int
    options: dict[str, Any]
    matches: list[MatchMargin] = field(default_factory=list)

    def deal_margins(self) -> list[float]:
        by_deal: dict[int, list[float]] = {}
        for m in self.matches:
            by_deal.setdefault(m.deal, []).append(m.margin)
        return [sum(v) / len(v) for _, v in sorted(by_deal.items())]

    @property
    def mean_margin(self) -> float:
        return mean_se(self.deal_margins()).mean

    @property
    def stderr(self) -> float:
        """Standard error of the mean deal margin (0 with fewer than two deals)."""
        return mean_se(self.deal_margins()).se or 0.0

    @property
    def wins(self) -> int:
        return sum(1 for m in self.matches if m.margin > 0)

    @property
    def draws(self) -> int:
        return sum(1 for m in self.matches if m.margin == 0)

    @property
    def losses(self) -> int:
        return sum(1 for m in self.matches if m.margin < 0)

    @property
    def win_rate(self) -> float:
        """Bot A's share of the matches won (draws count half)."""
        n = len(self.matches)
        return (self.wins + 0.5 * self.draws) / n if n else 0.0

    def summary(self) -> str:
        return (
            f"{self.game}: {self.bot_a} vs {self.bot_b}, {self.deals} deals x 2 seatings (seed {self.seed}): "
            f"margin {self.mean_margin:+.2f} ± {self.stderr:.2f} (s.e.), "
            f"win rate {100 * self.win_rate:.1f}% ({self.wins}-{self.draws}-{self.losses})"
        )


def _seating(num_seats: int, teams: tuple[tuple[int, ...], ...], rotation: int) -> list[int]:
    """Per seat: 0 for bot A, 1 for bot B (A on the even sides in rotation 0)."""
    who = [0] * num_seats
    for t, team in enumerate(teams):
        for s in team:
            who[s] = (t % 2) ^ rotation
    return who


def play_one(
    game_name: str, bot_a: str, bot_b: str, deal: int, rotation: int, seed: int,
    options: Mapping[str, Any], preset: str | None, clock_ms: tuple[int, int],
) -> MatchMargin:
    """Play one seating of one deal; bots are named by spec (picklable for workers)."""
    game = get_game(game_name, options, preset)
    who = _seating(game.num_seats, game.teams, rotation)
    specs = (bot_a, bot_b)
    bots = [load_bot(specs[w]) for w in who]
    config = MatchConfig(game=game_name, seed=seed, options=dict(options), preset=preset, clock=Clock(*clock_ms),
                         policy=FailurePolicy())
    record = asyncio.run(run_match(config, [LocalSeat(b) for b in bots]))
    out = record.outcome
    assert out is not None
    a = [out.scores[s] for s in range(game.num_seats) if who[s] == 0]
    b = [out.scores[s] for s in range(game.num_seats) if who[s] == 1]
    if out.reason.is_forfeit:
        # A forfeit has all-zero scores; count it by rank instead (loser's side -1, winner +1).
        ra = min(out.ranks[s] for s in range(game.num_seats) if who[s] == 0)
        rb = min(out.ranks[s] for s in range(game.num_seats) if who[s] == 1)
        margin = float((ra < rb) - (rb < ra))
    else:
        margin = sum(a) / len(a) - sum(b) / len(b)
    return MatchMargin(deal, rotation, seed, margin, out.reason.value)


def evaluate(
    game: str,
    bot_a: str,
    bot_b: str,
    deals: int = 10,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    preset: str | None = None,
    jobs: int = 1,
    decision_ms: int = 0,
    bank_ms: int = 0,
    progress: Callable[[MatchMargin], None] | None = None,
) -> EvalResult:
    """Play ``deals`` duplicate deals of ``game`` between two bot specs; see the module docstring.

    Raises ConfigError for a bad game, option or count, BotLoadError for an unknown bot.
    """
    if deals < 1:
        raise ConfigError(f"deals: must be at least 1, got {deals}")
    if jobs < 1:
        raise ConfigError(f"jobs: must be at least 1, got {jobs}")
    opts = dict(options or {})
    get_game(game, opts, preset)  # validate before starting anything

    for spec in (bot_a, bot_b):
        bot = load_bot(spec)
        if not bot.plays(game):
            raise ConfigError(f"bot {spec!r} does not play {game} (it plays: {', '.join(bot.games)})")
    tasks = [(game, bot_a, bot_b, d, r, deal_seed(seed, d), opts, preset, (decision_ms, bank_ms))
             for d in range(deals) for r in (0, 1)]
    result = EvalResult(game, bot_a, bot_b, deals, seed, opts)
    if jobs == 1:
        for t in tasks:
            m = play_one(*t)
            result.matches.append(m)
            if progress:
                progress(m)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for m in pool.map(_play_packed, tasks):
                result.matches.append(m)
                if progress:
                    progress(m)
    result.matches.sort(key=lambda m: (m.deal, m.rotation))
    log.info("%s", result.summary())
    return result


def _play_packed(args: tuple) -> MatchMargin:
    return play_one(*args)
