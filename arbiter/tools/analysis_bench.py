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

Each figure is also given under method 8's stopping rule, read off the same runs
(``DecisionValue.unextended``: no edge extension), so a held-out run compares the two
rules on the same decisions; ``--flips`` lists the decisions whose verdict moved under
either, ``--rows PATH`` keeps every analysed separation decision as a JSON line (which
kinds of decision are marked; docs/analysis.md reads them).

Seeded: the same arguments give the same figures, whatever the machine's load (the
analysis has no wall clock). Run one game: ``python -m arbiter.tools.analysis_bench spades``.
"""

from __future__ import annotations

import argparse
import json
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
    #: The same verdict under method 8's rule (no edge extension, ``values.EDGE``), read off
    #: the same two runs (``DecisionValue.unextended``: the same states, the other rule).
    same_unextended: int = 0
    #: The verdicts per side under method 8's rule (sampling seed 1).
    unextended: dict[str, Counter] = field(default_factory=lambda: {"random": Counter(), "heuristic": Counter()})
    seconds: float = 0.0
    #: The decisions whose verdict moved with the sampling seed, under method 9 or method 8's
    #: rule: (match seed, who, seat, decision number, verdict under seed 1, under seed 2,
    #: seed 1's loss and its s.e., the states each seed took: past the budget, extended;
    #: method 8's verdicts under seeds 1 and 2).
    moved: list = field(default_factory=list)

    def rate(self, who: str, verdicts: dict[str, Counter] | None = None) -> float:
        c = (verdicts or self.verdicts)[who]
        return c["mistake"] / max(1, sum(c.values()))

    def ratio(self, verdicts: dict[str, Counter] | None = None) -> float:
        """The random seat's mistake rate over the heuristic's (a heuristic with none counts one)."""
        c = (verdicts or self.verdicts)["heuristic"]
        return self.rate("random", verdicts) / (max(1, c["mistake"]) / max(1, sum(c.values())))

    @property
    def separation(self) -> float:
        return self.ratio()

    @property
    def blunder_share(self) -> float:
        return self.blunders_marked / max(1, self.blunders)

    @property
    def stability(self) -> float:
        return self.same / max(1, self.compared)

    def line(self) -> str:
        """The measurements in one line; a part not measured (``--matches 0``, ``--blunders 0``,
        ``--no-stability``) says so: "0/0 (0.000)" read as a stability of nothing, "random
        0/0 mistakes ... separation 0.0x" as a separation failed."""
        r, h = self.verdicts["random"], self.verdicts["heuristic"]
        blunders = f"blunder marked {self.blunders_marked}/{self.blunders}" if self.blunders else "blunders not played"
        if self.compared:
            stable = (f"same verdict under two seeds {self.same}/{self.compared} ({self.stability:.3f}; "
                      f"the same mistake flag {self.same_flag}/{self.compared}; method 8 (no edge extension) "
                      f"{self.same_unextended}/{self.compared}, ")
        else:
            stable = "same verdict under two seeds not measured (method 8 (no edge extension): "
        if not (sum(r.values()) or sum(h.values())):  # --matches 0: the planted blunders alone
            return f"{self.game}: separation not measured; {blunders}; {self.seconds:.0f} s"
        return (f"{self.game}: random {r['mistake']}/{sum(r.values())} mistakes ({self.rate('random'):.3f}; "
                f"unsure {r['unsure']}), heuristic {h['mistake']}/{sum(h.values())} ({self.rate('heuristic'):.3f}; "
                f"unsure {h['unsure']}): separation {self.separation:.1f}x; {blunders}; {stable}"
                f"mistakes {self.unextended['random']['mistake']} and "
                f"{self.unextended['heuristic']['mistake']}, {self.ratio(self.unextended):.1f}x); "
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


def moved_line(mv: tuple) -> str:
    """A decision whose verdict moved with the sampling seed (one of ``GameFigures.moved``), in words."""
    seed, who, seat, number, one, two, loss, se, n1, n2, *before = mv
    was = f"; method 8: {before[0]} -> {before[1]}" if before else ""
    return (f"moved: match seed {seed} {who} seat {seat} decision {number}: {one} -> {two} "
            f"(seed 1's loss {loss:.2f} ± {se:.2f}; {n1} and {n2} states{was})")


def _row(seed: int, who: str, seat: int, r: DecisionValue, two: DecisionValue | None) -> dict:
    """One analysed decision as the bench keeps it (``--rows``)."""
    return {"seed": seed, "who": who, "seat": seat, "decision": r.point.number, "chosen": r.chosen, "best": r.best,
            "legal": r.legal_count, "loss": round(r.loss, 3), "se": round(r.loss_se, 3), "verdict": r.verdict,
            "unextended": r.unextended, "samples": r.samples, "verdict2": two.verdict if two else None,
            "unextended2": two.unextended if two else None, "samples2": two.samples if two else None}


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
            decisions: int | None = None, keep: Callable[[dict], None] | None = None) -> GameFigures:
    """The three measurements of one game (module docstring); ``blunders``: how many
    blunder matches (default ``matches``); ``options``: added to the game's own for the
    separation matches (the bench's smoke run shortens them); ``decisions``: at most this
    many valued decisions per analysed seat (default all; the bench's smoke run checks only
    that the section runs, and each decision is a full sampling of its actions); ``keep``:
    called with each separation decision's row (``_row``: what was played, the best
    action, the loss, each seed's verdict and states), to read which decisions are marked."""
    base, seats, blunder = GAMES[game]
    options = {**base, **(options or {})}
    fig = GameFigures(game)
    t0 = time.perf_counter()
    for m, (record, bots, rnd) in enumerate(separation_matches(game, matches, seed, options)):
        for seat in (rnd, (rnd + 1) % seats):
            rows = _valued(analyse(record, seat, samples=samples, seed=1), decisions)
            fig.verdicts[bots[seat]].update(r.verdict for r in rows)
            fig.unextended[bots[seat]].update(r.unextended for r in rows)
            if stability:
                again = {r.point.number: r for r in _valued(analyse(record, seat, samples=samples, seed=2), decisions)}
                moved = [(record.seed, bots[seat], seat, r.point.number, r.verdict, two.verdict if two else None,
                          r.loss, r.loss_se, r.samples, two.samples if two else 0, r.unextended,
                          two.unextended if two else None)
                         for r in rows if (two := again.get(r.point.number)) is None or two.verdict != r.verdict
                         or two.unextended != r.unextended]
                fig.moved += moved
                for mv in moved:
                    progress(f"analysis {game}: {moved_line(mv)}")
                fig.compared += len(rows)
                for r in rows:
                    two = again.get(r.point.number)
                    fig.same += two is not None and two.verdict == r.verdict
                    fig.same_flag += (two is not None and two.verdict == "mistake") == (r.verdict == "mistake")
                    fig.same_unextended += two is not None and two.unextended == r.unextended
            if keep:
                for r in rows:
                    keep(_row(record.seed, bots[seat], seat, r, again.get(r.point.number) if stability else None))
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
                 f"{row.verdict} (method 8: {row.unextended}), loss {row.loss:.2f} ± {row.loss_se:.2f} against {row.best}, "
                 f"{row.samples} states")
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
    p.add_argument("--rows", metavar="PATH", help="append each separation decision as a JSON line (kept as measured)")
    a = p.parse_args(argv)
    for g in a.games:
        if g not in GAMES:
            p.error(f"unknown game {g!r} (known: {', '.join(GAMES)})")
    ok = True
    for g in a.games:
        out = open(a.rows, "a") if a.rows else None
        keep = (lambda row: (out.write(json.dumps({"game": g, **row}) + "\n"), out.flush())) if out else None
        fig = measure(g, a.matches, a.seed, a.samples, lambda msg: print(msg, file=sys.stderr, flush=True),
                      not a.no_stability, a.blunders, keep=keep)
        if out:
            out.close()
        print(fig.line(), flush=True)
        if a.flips:
            for mv in fig.moved:
                print(f"  {moved_line(mv)}", flush=True)
        ok &= (not a.matches or fig.separation >= SEPARATION) and (fig.blunders == 0 or fig.blunder_share >= BLUNDER) \
            and (a.no_stability or not fig.compared or fig.stability >= STABILITY)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
