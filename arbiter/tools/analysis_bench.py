"""Does the analysis tell good play from bad? The bench's ``analysis`` section, as measurements.

Three figures per game (docs/analysis.md has the measured numbers and their commands):

* **separation**: ``matches`` matches with one ``random`` seat among ``heuristic`` seats
  (the random seat moves round with the seed); the random seat's and the next (heuristic)
  seat's decisions with a choice are analysed; the figure is the random seat's mistake
  rate over the heuristic's (target ``SEPARATION`` = 3); a heuristic rate of 0 counts as
  one mistake, so the ratio is never infinite;
* **blunder**: matches with a planted blunder (``bots.blunders``: the heuristic but one
  known bad move) at seat 0, until ``matches`` of them made it; the share whose blunder
  decision is marked a mistake (target ``BLUNDER`` = 0.9);
* **stability**: every decision of the separation matches analysed again with another
  sampling seed: the share with the same verdict (target ``STABILITY`` = 0.95).

Seeded: the same arguments give the same figures, whatever the machine's load (the
analysis has no wall clock). Run one game: ``python -m arbiter.tools.analysis_bench spades``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from arbiter.analysis.reask import decisions, match_info
from arbiter.analysis.values import DEFAULT_SAMPLES, DecisionValue, analyse
from arbiter.hosting.loading import load_bot
from arbiter.hosting.inprocess import SeatDriver
from arbiter.tournament.play import play_local
from cardarena.records import MatchRecord

SEPARATION = 3.0
BLUNDER = 0.9
STABILITY = 0.95

#: Per game: (options, seats, planted blunder ``module:Class``).
GAMES: dict[str, tuple[dict[str, Any], int, str]] = {
    "spades": ({"deals": 1}, 4, "bots.blunders:SpadesBidThirteen"),
    "spot": ({"hands": 1, "players": 3}, 3, "bots.blunders:SpotStayIn"),
    "spite-and-malice": ({"max_turns": 30}, 2, "bots.blunders:SpiteMaliceHoldPayoff"),
}
#: The blunder's own options where the situation needs longer matches (Spot: going out).
BLUNDER_OPTIONS = {"spot": {"hands": 3, "players": 3}, "spite-and-malice": {"max_turns": 30}}


@dataclass
class GameFigures:
    """One game's measurements (counts, so a reader can recompute every rate)."""

    game: str
    verdicts: dict[str, Counter] = field(default_factory=lambda: {"random": Counter(), "heuristic": Counter()})
    blunders: int = 0
    blunders_marked: int = 0
    compared: int = 0
    same: int = 0
    same_flag: int = 0  # the same answer to "a mistake?" (mistake against fine or unsure)
    #: The same verdict had no run finished past the budget (``values.FINISH`` off for the game): a
    #: decision that took more states than the budget is then "unsure"; the others are the
    #: same either way, so this is read off the same two runs.
    same_unfinished: int = 0
    #: The mistakes per side had no run finished past the budget (sampling seed 1).
    mistakes_unfinished: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    #: The decisions whose verdict moved with the sampling seed: (match seed, who, seat,
    #: decision number, verdict under seed 1, under seed 2, seed 1's loss and its s.e.,
    #: the states each seed took: past the budget, a run finished).
    moved: list = field(default_factory=list)

    def rate(self, who: str) -> float:
        c = self.verdicts[who]
        return c["mistake"] / max(1, sum(c.values()))

    @property
    def separation(self) -> float:
        c = self.verdicts["heuristic"]
        return self.rate("random") / (max(1, c["mistake"]) / max(1, sum(c.values())))

    @property
    def blunder_share(self) -> float:
        return self.blunders_marked / max(1, self.blunders)

    @property
    def stability(self) -> float:
        return self.same / max(1, self.compared)

    def line(self) -> str:
        r, h = self.verdicts["random"], self.verdicts["heuristic"]
        return (f"{self.game}: random {r['mistake']}/{sum(r.values())} mistakes ({self.rate('random'):.3f}; "
                f"unsure {r['unsure']}), heuristic {h['mistake']}/{sum(h.values())} ({self.rate('heuristic'):.3f}; "
                f"unsure {h['unsure']}): separation {self.separation:.1f}x; blunder marked {self.blunders_marked}/"
                f"{self.blunders}; same verdict under two seeds {self.same}/{self.compared} ({self.stability:.3f}; "
                f"the same mistake flag {self.same_flag}/{self.compared}; no run finished past the budget "
                f"{self.same_unfinished}/{self.compared}, mistakes {self.mistakes_unfinished['random']} and "
                f"{self.mistakes_unfinished['heuristic']}); "
                f"{self.seconds:.0f} s")


def _valued(rows: Iterator[DecisionValue], n: int | None = None) -> list[DecisionValue]:
    """The first ``n`` valued rows (all with ``None``), analysing no decision past them."""
    out: list[DecisionValue] = []
    if n is not None and n <= 0:
        return out
    for r in rows:
        if r.verdict:
            out.append(r)
            if n is not None and len(out) >= n:
                break
    return out


def _unfinished(row: DecisionValue, budget: int) -> str:
    """``row``'s verdict had no run finished past the ``budget`` (``values.FINISH`` off for the game)."""
    return row.verdict if row.samples <= budget else "unsure"


def _moved(mv: tuple) -> str:
    seed, who, seat, number, one, two, loss, se, n1, n2 = mv
    return (f"moved: match seed {seed} {who} seat {seat} decision {number}: {one} -> {two} "
            f"(seed 1's loss {loss:.2f} ± {se:.2f}; {n1} and {n2} states)")


def blunder_decision(record: MatchRecord, seat: int, bot: str) -> int:
    """The decision (from 1) where the planted-blunder ``bot`` at ``seat`` blundered, 0 if
    it never did: the bot asked again, decision by decision, as it was (it is seeded)."""
    driver = SeatDriver(load_bot(bot), match_info(record, seat, 0, 0))
    for point in decisions(record, seat):
        driver.decide(point.view, point.legal)
        if getattr(driver.bot, "blundered", 0):
            return point.number
    return 0


def separation_matches(game: str, matches: int, seed: int = 0,
                       options: dict[str, Any] | None = None) -> Iterator[tuple[Any, list[str], int]]:
    """The separation matches, played in process: (record, bots, the random seat) for match
    seeds ``seed``, ``seed + 1``...: one ``random`` seat (moving with the seed) among
    ``heuristic`` ones, on the game's bench options plus ``options``."""
    base, seats, _ = GAMES[game]
    options = {**base, **(options or {})}
    for m in range(matches):
        s = seed + m
        rnd = s % seats
        bots = ["heuristic"] * seats
        bots[rnd] = "random"
        yield play_local(game, bots, seed=s, options=options, transport="inproc"), bots, rnd


def measure(game: str, matches: int = 10, seed: int = 0, samples: int = DEFAULT_SAMPLES,
            progress: Callable[[str], None] = lambda msg: None, stability: bool = True,
            blunders: int | None = None, options: dict[str, Any] | None = None,
            decisions: int | None = None) -> GameFigures:
    """The three measurements of one game (module docstring); ``blunders``: how many
    blunder matches (default ``matches``); ``options``: added to the game's own for the
    separation matches (the bench's smoke run shortens them); ``decisions``: at most this
    many valued decisions per analysed seat (default all; the bench's smoke run checks only
    that the section runs, and each decision is a full sampling of its actions)."""
    base, seats, blunder = GAMES[game]
    options = {**base, **(options or {})}
    fig = GameFigures(game)
    t0 = time.perf_counter()
    for m, (record, bots, rnd) in enumerate(separation_matches(game, matches, seed, options)):
        for seat in (rnd, (rnd + 1) % seats):
            rows = _valued(analyse(record, seat, samples=samples, seed=1), decisions)
            fig.verdicts[bots[seat]].update(r.verdict for r in rows)
            fig.mistakes_unfinished[bots[seat]] += sum(_unfinished(r, samples) == "mistake" for r in rows)
            if stability:
                again = {r.point.number: r for r in _valued(analyse(record, seat, samples=samples, seed=2), decisions)}
                moved = [(record.seed, bots[seat], seat, r.point.number, r.verdict, two.verdict if two else None,
                          r.loss, r.loss_se, r.samples, two.samples if two else 0)
                         for r in rows if (two := again.get(r.point.number)) is None or two.verdict != r.verdict]
                fig.moved += moved
                for mv in moved:
                    progress(f"analysis {game}: {_moved(mv)}")
                fig.compared += len(rows)
                for r in rows:
                    two = again.get(r.point.number)
                    fig.same += two is not None and two.verdict == r.verdict
                    fig.same_flag += (two is not None and two.verdict == "mistake") == (r.verdict == "mistake")
                    fig.same_unfinished += two is not None and \
                        _unfinished(two, samples) == _unfinished(r, samples)
        progress(f"analysis {game}: match {m + 1} of {matches}: {fig.line()}")
    s = seed
    tried = 0
    blunders = matches if blunders is None else blunders
    while fig.blunders < blunders and tried < 5 * blunders:
        tried += 1
        bots = [blunder] + ["heuristic"] * (seats - 1)
        record = play_local(game, bots, seed=s, options=BLUNDER_OPTIONS.get(game, options), transport="inproc")
        s += 1
        at = blunder_decision(record, 0, blunder)
        if not at:
            continue
        row = next(analyse(record, 0, samples=samples, seed=1, first=at, last=at))
        fig.blunders += 1
        fig.blunders_marked += row.verdict == "mistake"
        progress(f"analysis {game}: blunder {fig.blunders} of {blunders} (seed {s - 1}, decision {at}): {row.chosen} "
                 f"{row.verdict}, loss {row.loss:.2f} ± {row.loss_se:.2f} against {row.best}, {row.samples} states")
    fig.seconds = time.perf_counter() - t0
    return fig


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("games", nargs="*", default=list(GAMES), help="games to measure (default: all three)")
    p.add_argument("--matches", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    p.add_argument("--blunders", type=int, default=None, help="planted-blunder matches (default: --matches)")
    p.add_argument("--no-stability", action="store_true", help="skip the second seed (half the time)")
    p.add_argument("--flips", action="store_true", help="list the decisions whose verdict moved with the seed")
    a = p.parse_args(argv)
    for g in a.games:
        if g not in GAMES:
            p.error(f"unknown game {g!r} (known: {', '.join(GAMES)})")
    ok = True
    for g in a.games:
        fig = measure(g, a.matches, a.seed, a.samples, lambda msg: print(msg, file=sys.stderr, flush=True),
                      not a.no_stability, a.blunders)
        print(fig.line(), flush=True)
        if a.flips:
            for mv in fig.moved:
                print(f"  {_moved(mv)}", flush=True)
        ok &= (not a.matches or fig.separation >= SEPARATION) and (fig.blunders == 0 or fig.blunder_share >= BLUNDER) \
            and (a.no_stability or not fig.compared or fig.stability >= STABILITY)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
