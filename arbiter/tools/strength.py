"""The strength table: every bundled bot against the heuristic, each game, with intervals.

    python -m arbiter.tools.strength                       # print the table (Markdown)
    python -m arbiter.tools.strength --deals 8 --write docs/strength.md

For each game (its option set below: one Spades deal, one Spot hand, one Spite and Malice
game) every bundled bot that plays it meets the anchor, ``heuristic``, in duplicate deals
(``arbiter.tournament.evaluate``: each deal twice, the seats swapped, in this process; the
same seed gives the same matches). A row is the bot's margin per deal over the anchor,
the mean over deals with its 95% interval (± 1.96 standard errors over deals), and its
win-draw-loss count over the matches. ``--write FILE`` replaces the table between the
markers ``<!-- strength:begin -->`` and ``<!-- strength:end -->`` of FILE.

A bot folder named with ``--bot`` is measured too, hosted as sandboxed processes over
gRPC: the reference bots that are not bundled, such as OpenSpiel's IS-MCTS in its own
environment (``examples/openspiel-ismcts``), are added that way.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from arbiter.batch.engine import BotsDoNotPlay
from arbiter.hosting.loading import BUNDLED, load_bot
from arbiter.rating.ratings import forfeit_stake
from arbiter.tournament.evaluate import EvalResult, MatchMargin, evaluate, evaluation_plan, margin_of, seating_who
from arbiter.tournament.play import play_local
from cardarena.games import get_game

ANCHOR = "heuristic"
#: (game, options, what a deal is, unit of the margin)
GAMES = (
    ("spades", {"deals": 1}, "one deal", "points"),
    ("spot", {"hands": 1}, "one hand", "units"),
    ("spite-and-malice", {"stalemate_rule": "fewer_payoff_wins"}, "one game", "games (1 win, ½ draw)"),
)
BEGIN, END = "<!-- strength:begin -->", "<!-- strength:end -->"
Z95 = 1.96


def plays(bot: str, game: str) -> bool:
    """Whether ``bot`` says it plays ``game`` (its ``games``: ``*`` for any)."""
    games = getattr(load_bot(bot), "games", ("*",))
    return "*" in games or game in games


def measure(bots: list[str], deals: int, seed: int, jobs: int, say=lambda s: None,
            games: tuple[str, ...] = (), hosted: frozenset[str] = frozenset()) -> list[tuple[str, str, EvalResult, float]]:
    """(game, bot, result, seconds) for every bot but the anchor in every game it plays
    (of ``games``; none: all three). A bot in ``hosted`` plays as sandboxed processes over
    gRPC (a folder with packages of its own: ``arbiter.hosting.botenv``), the rest in this
    process; a hosted bot's games are read from its first match's Hello, a game it does
    not play left out with ``say``."""
    rows = []
    for game, options, _, _ in GAMES:
        if games and game not in games:
            continue
        for bot in bots:
            if bot == ANCHOR or (bot not in hosted and not plays(bot, game)):
                continue
            say(f"{game}: {bot} vs {ANCHOR}, {deals} deals")
            t0 = time.monotonic()
            if bot in hosted:
                try:
                    result = hosted_evaluate(game, bot, options, deals, seed)
                except BotsDoNotPlay as exc:  # a folder's games are known from its Hello only
                    say(f"{game}: {bot} left out: {exc}")
                    continue
            else:
                result = evaluate(game, bot, ANCHOR, deals=deals, seed=seed, options=options, jobs=jobs)
            rows.append((game, Path(bot).name if bot in hosted else bot, result, time.monotonic() - t0))
    return rows


def hosted_evaluate(game: str, bot: str, options: dict, deals: int, seed: int) -> EvalResult:
    """``evaluate``'s matches (the same plan: deals, seeds, seatings) with both bots hosted
    as sandboxed processes, one match at a time (``play_local``): a bot folder with
    packages of its own never loads in this process, which lacks them."""
    g = get_game(game, options)
    result = EvalResult(game, bot, ANCHOR, deals, seed, dict(options), max_deals=deals)
    for pm in evaluation_plan(game, bot, ANCHOR, deals, seed, options, None):
        d, r = pm.item
        who = seating_who(g, r)
        seats = [bot if w == 0 else ANCHOR for w in who]
        record = play_local(game, seats, seed=pm.config.seed, options=options, decision_ms=0, bank_ms=0)
        out = record.outcome
        result.matches.append(MatchMargin(d, r, pm.config.seed, margin_of(out, who, forfeit_stake(g)), out.reason.value,
                                          tuple(out.scores), tuple(out.ranks)))
    return result


def command(deals: int, seed: int, jobs: int, bots: tuple[str, ...] = (), games: tuple[str, ...] = (),
            only: tuple[str, ...] | None = None, write_to: str = "docs/strength.md") -> str:
    """The command that regenerates a table measured with these arguments (``--bot``
    folders need their packages installed: ``ARENA_INSTALL_BOT_ENVS=1`` in front)."""
    parts = ["python -m arbiter.tools.strength"]
    parts += [f"--only {b}" for b in (only or ())]
    parts += [f"--bot {b}" for b in bots] + [f"--game {g}" for g in games]
    parts += [f"--deals {deals} --seed {seed} -j {jobs}", f"--write {write_to}"]
    return ("ARENA_INSTALL_BOT_ENVS=1 " if bots else "") + " ".join(parts)


def table(rows, deals: int, seed: int, jobs: int, regenerate: str | None = None) -> str:
    units = {g: (what, unit) for g, _, what, unit in GAMES}
    out = [f"Every bot against `{ANCHOR}` in {deals} duplicate deals a row (× 2 seatings), seed {seed}: "
           "the margin per deal, the mean over deals with its 95% interval (± 1.96 s.e.).", "",
           "| game (a deal is) | bot | margin per deal [95% interval] | W-D-L (matches) | seconds |",
           "|---|---|---:|---:|---:|"]
    for game, bot, r, seconds in rows:
        m = r.margin
        if m.se is None:
            interval = ""
        elif m.se == 0:  # every deal alike: no spread to estimate an interval from (not "certain")
            interval = " (every deal alike: no interval)"
        else:
            interval = f" [{m.mean - Z95 * m.se:+.2f}, {m.mean + Z95 * m.se:+.2f}]"
        what, unit = units[game]
        out.append(f"| {game} ({what}) | {bot} | **{m.mean:+.2f}**{interval} {unit} | {r.wins}-{r.draws}-{r.losses} | "
                   f"{seconds:.0f} |")
    out += ["", f"Regenerate: `{regenerate or command(deals, seed, jobs)}`."]
    return "\n".join(out) + "\n"


def write(path: Path, text: str) -> None:
    doc = path.read_text()
    if BEGIN not in doc or END not in doc:
        raise ValueError(f"{path}: no {BEGIN} ... {END} markers to replace")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(f"{head}{BEGIN}\n{text}{END}{tail}")


def main(
    deals: Annotated[int, typer.Option("--deals", help="Duplicate deals per row (each played twice).")] = 8,
    seed: Annotated[int, typer.Option("--seed", help="Deal seed of every row.")] = 1,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Matches at once (the result does not depend on it).")] = 1,
    bot: Annotated[Optional[list[str]], typer.Option("--bot", help="Measure this bot folder too, hosted as sandboxed processes (repeatable): e.g. examples/openspiel-ismcts (its packages: ARENA_INSTALL_BOT_ENVS=1 the first time).")] = None,
    game: Annotated[Optional[list[str]], typer.Option("--game", help="Only these games (repeatable; default: all three).")] = None,
    only: Annotated[Optional[list[str]], typer.Option("--only", help="Only these bundled bots (repeatable; default: all of them; none: only the --bot ones).")] = None,
    write_to: Annotated[Optional[Path], typer.Option("--write", help="Replace the table between the strength markers of this file.")] = None,
) -> None:
    """Measure every bundled bot (and --bot) against the heuristic in each game; print the table."""
    if deals < 2:
        print("error: --deals must be at least 2 (an interval needs two deals)", file=sys.stderr)
        raise typer.Exit(2)
    bundled = [b for b in only if b != "none"] if only is not None else sorted(n for n in BUNDLED if n != ANCHOR)
    bots = bundled + list(bot or [])
    rows = measure(bots, deals, seed, jobs, say=lambda s: print(s, file=sys.stderr, flush=True),
                   games=tuple(game or ()), hosted=frozenset(bot or ()))
    text = table(rows, deals, seed, jobs, command(deals, seed, jobs, tuple(bot or ()), tuple(game or ()),
                                                  tuple(only) if only is not None else None,
                                                  str(write_to) if write_to is not None else "docs/strength.md"))
    sys.stdout.write(text)
    if write_to is not None:
        try:
            write(write_to, text)
        except (OSError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise typer.Exit(2) from None
        print(f"wrote the table into {write_to}", file=sys.stderr)


if __name__ == "__main__":
    typer.run(main)
