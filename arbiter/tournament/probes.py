"""Seatings of deals played between two bots by the one batch engine, read back as ``Replayed``:
the bidding-only probes of ``arbiter evaluate --luck-adjusted`` (docs/strength.md, "Luck-adjusted
margins") and the variance tools' replays of an evaluation's deals.

Every one is a match of the runner (``arbiter.match.run_match``) played by ``play_batch`` in
process, planned as ``evaluate`` plans its matches (``evaluation_plan``'s configuration, seatings,
seat names and bot seeds). A probe is the same match with ``MatchConfig.stop_after = "BIDDING"``:
the runner plays it while the game is in its bidding and stops it there, without a result. So a
bot whose bids depend only on what it is shown and its seed bids in a probe exactly as in the
match of the same deal and seating (``tests/arbiter/tools/test_variance.py`` checks it, and
``tests/arbiter/rating/test_luck.py`` that the probes bid as the earlier, separate player did).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import json
import random
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from cardarena.games import ConfigError, get_game
from cardarena.games.base import options_to_dict
from cardarena.records import MatchRecord
from cardarena.replay import step_record
from arbiter.batch.engine import InProcess, play_batch
from arbiter.batch.plan import PlannedMatch, pair_seatings
from arbiter.batch.settings import bot_names, bot_sources, entrant_names, is_trusted
from arbiter.rating.draws import DRAW_GAMES, deal_features, draw_luck, draw_names
from arbiter.rating.luck import LUCK_FEATURES, ExpectedFeatures, recorded_features
from arbiter.store.db import Store
from arbiter.tournament.evaluate import LUCK_CHECKED, EvalResult, MatchMargin, _config, margin_of, seating_who, who_of


def probe_seeds(seed: str, deals: int) -> list[int]:
    """``deals`` deal seeds drawn from the string ``seed``: 48-bit numbers like ``deal_seed``'s,
    so the deals are dealt alike, but never an evaluation's (those come from an integer)."""
    return [int.from_bytes(random.Random(f"{seed}:{i}").randbytes(6), "big") for i in range(deals)]


#: The phase a bidding-only probe is played in (``MatchConfig.stop_after``).
PROBE_PHASE = "BIDDING"


@dataclass(frozen=True)
class Replayed:
    """One seating of one deal as the runner played it (``seating_of_record``).

    ``margin`` and ``summary`` are None for a bidding-only probe, which stops when the bidding
    does."""

    seed: int
    rotation: int
    who: tuple[int, ...]  # per seat: 0 for bot A, 1 for bot B
    bids: tuple[int | None, ...]  # Spades, per seat, as the public view shows them (0: nil or blind nil)
    margin: float | None  # bot A's mean score minus bot B's
    summary: Any = None  # Spades: the deal's SpadesDealResult (contracts, tricks, points per side)
    hands: tuple[tuple[Any, ...], ...] = field(default=(), repr=False)  # Spades: per seat, the cards it played with
    decisions: int = 0  # decisions the bots made (what a replay costs, in the bots' time)
    actions: tuple[str, ...] = field(default=(), repr=False)  # the decisions, as recorded (notation)

    def side_of(self, bot: int) -> list[int]:
        """The seats of ``bot`` (0 for A, 1 for B)."""
        return [s for s, w in enumerate(self.who) if w == bot]

    def set_bots(self) -> list[int]:
        """The bots whose side was set: a contract above 0 and fewer tricks towards it."""
        bot_of_side = {s % 2: w for s, w in enumerate(self.who)}
        return [bot_of_side[r.side] for r in self.summary.sides if r.contract > 0 and r.contract_tricks < r.contract]


def seating_of_record(game: Any, record: MatchRecord, rotation: int, who: Sequence[int]) -> Replayed:
    """A runner's record of one seating as ``Replayed``: its margin, and for Spades the bids
    and the deal's summary from the final spectator view of the verified replay, the hands
    as dealt. A probe's record (stopped after the bidding, no result): the bids its actions
    leave on the table, no margin."""
    spades = game.name == "spades"
    state = game.new_initial_state(record.seed) if spades else None
    hands = tuple(tuple(h) for h in state.hands) if state is not None else ()
    out = record.outcome
    if out is None and not record.incidents and state is not None:  # stopped where its config said
        for a in record.actions:
            state.apply(game.parse_action(a.action))
        bids = tuple(x.bid for x in state.spectator_view().seats)
        return Replayed(record.seed, rotation, tuple(who), bids, None, None, hands, len(record.actions),
                        tuple(a.action for a in record.actions))
    if out is None or out.reason.is_forfeit:
        why = "no result" if out is None else out.reason.value
        raise RuntimeError(f"replay: deal {record.seed} in seating {rotation} did not finish ({why}); "
                           "only bots that play every decision replay")
    summary, bids = None, ()
    if spades:
        (last,) = collections.deque(step_record(record), maxlen=1)
        summary = last.view.history[-1]
        bids = summary.bids
    return Replayed(record.seed, rotation, tuple(who), bids, margin_of(out, who), summary, hands, len(record.actions),
                    tuple(a.action for a in record.actions))


async def play_seatings(game_name: str, bot_a: str, bot_b: str, seeds: Sequence[int], rotations: Sequence[int] = (0, 1),
                        options: Mapping[str, Any] | None = None, preset: str | None = None, *,
                        bidding_only: bool = False, jobs: int = 1,
                        progress: Callable[[int], None] | None = None) -> list[list[Replayed]]:
    """The deals of ``seeds`` in the seatings ``rotations`` of an evaluation, played by the batch
    engine in process (``jobs`` worker processes; the same records for any number), each to its
    end or (``bidding_only``, Spades) to the end of its bidding: per deal, its seatings in order.
    ``progress`` is called with the deals done so far."""
    opts = dict(options or {})
    game = get_game(game_name, opts, preset)
    if bidding_only and game_name != "spades":
        raise ValueError(f"replay: bidding_only is defined for spades, not {game_name}")
    names = bot_names((bot_a, bot_b))
    seatings = pair_seatings(game, *names)
    k = len(rotations)
    plan = [PlannedMatch(i * k + j, dataclasses.replace(_config(game_name, s, opts, preset, (0, 0)),
                                                        stop_after=PROBE_PHASE if bidding_only else ""),
                         seatings[r], (i, j))
            for i, s in enumerate(seeds) for j, r in enumerate(rotations)]
    records: dict[tuple[int, int], MatchRecord] = {}
    seen: collections.Counter[int] = collections.Counter()
    done = 0
    venue = InProcess(dict(zip(names, bot_sources((bot_a, bot_b)))), processes=max(1, jobs))
    async with contextlib.aclosing(play_batch(plan, venue)) as played:
        async for p in played:
            records[p.match.item] = p.record
            seen[p.match.item[0]] += 1
            if seen[p.match.item[0]] == k:
                done += 1
                if progress is not None:
                    progress(done)
    who = {r: seating_who(game, r) for r in rotations}
    return [[seating_of_record(game, records[(i, j)], r, who[r]) for j, r in enumerate(rotations)]
            for i in range(len(seeds))]


def replay_seatings(*args: Any, **kwargs: Any) -> list[list[Replayed]]:
    """``play_seatings``, from code that runs no event loop."""
    return asyncio.run(play_seatings(*args, **kwargs))


# --------------------------------------------------------------------------------------
# The probes of ``arbiter evaluate --luck-adjusted`` (``arbiter.rating.luck``).

#: Probe deals when not said: about as many decisions as 270 deals of the evaluation (a probe
#: seating is 8 decisions, a match about 60).
LUCK_PROBES = 2000
#: Probe deals at most: 50 times the default, kept in memory while they are played; a typo
#: of a few zeros would play them without end.
MAX_PROBES = 100_000
#: The probes' seeds come from this string (never an evaluation's: those come from an integer).
LUCK_PROBE_SEED = "bid-probes"


def luck_game_error(game_name: str, options: Mapping[str, Any] | None, preset: str | None) -> str | None:
    """Why ``--luck-adjusted`` cannot correct this game (None if it can). Spades: the deal's bids
    against its cards, one hand a match, four seats. Spot and Spite and Malice: the cards drawn
    from the stock during play (``arbiter.rating.draws``), any options."""
    if game_name in DRAW_GAMES:
        get_game(game_name, dict(options or {}), preset)  # a ConfigError for bad options
        return None
    if game_name != "spades":
        return (f"--luck-adjusted: defined for Spades (the deal's bids and cards), Spot and Spite and Malice (the "
                f"cards drawn from the stock), not {game_name}: run without --luck-adjusted")
    game = get_game(game_name, dict(options or {}), preset)
    if getattr(game.options, "deals", None) != 1:
        return "--luck-adjusted: defined for Spades played one hand a match: add -o deals=1"
    if game.num_seats != 4:
        return f"--luck-adjusted: defined for four seats, these options give {game.num_seats}"
    return None


def draw_luck_features(game_name: str, options: Mapping[str, Any] | None, preset: str | None,
                       records: Sequence[tuple[MatchRecord, int, Sequence[int]]]) -> dict[str, float]:
    """A deal's draws' features (``arbiter.rating.draws.deal_features``) from its matches' records
    ((record, rotation, who) per seating), each replayed by the engine from its seed and actions."""
    return deal_features([(draw_luck(game_name, options, record.seed, [a.action for a in record.actions], preset), who)
                          for record, _, who in records])


@dataclass(frozen=True)
class LuckProbes:
    """What ``evaluate(..., luck=)`` needs: the features' expectation over the probes, and how to
    read a deal's features from its two matches' records."""

    game_name: str
    options: Mapping[str, Any]
    preset: str | None
    expected: ExpectedFeatures
    decisions: int = 0  # the bots' decisions the probes took here (a match's are its actions); reused ones cost none
    reused: int = 0  # probe deals read from a probes file (``luck_probes(..., file=)``)
    #: deals of earlier evaluations kept in the probes file (``keep_fit``): (deal seed, margin, features)
    fit: tuple[tuple[int, float, dict[str, float]], ...] = ()
    bots: tuple[str, str] = ("", "")  # the two bot specs the probes played

    @property
    def draws(self) -> bool:
        """Whether this corrects the draws (Spot, Spite and Malice: exact expectations, no probes, no
        bids to check) rather than the deal (Spades' bids, centred on probes)."""
        return self.expected.exact

    @property
    def test_names(self) -> tuple[str, ...]:
        """The features a sequential test corrects by (``OnlineCorrection``)."""
        return self.expected.names if self.draws else tuple(sorted(LUCK_FEATURES))

    @property
    def what(self) -> str:
        """The luck taken out, in words."""
        return "the luck of the draws" if self.draws else "the luck of the deal"

    async def probe(self, seed: int) -> dict[str, float]:
        """``recorded_features`` of deal ``seed`` played as a probe (bidding only), to check that an
        evaluation's matches bid as the probes do (``evaluate`` does, on its first deals)."""
        (pair,) = await play_seatings(self.game_name, *self.bots, [seed], (0, 1), self.options, self.preset,
                                      bidding_only=True)
        return recorded_features(pair)

    def features(self, records: Sequence[tuple[MatchRecord, int, Sequence[int]]]) -> dict[str, float]:
        """``recorded_features`` of one deal from its two matches ((record, rotation, who), rotation 0 first);
        for the draws, ``draw_luck_features``."""
        if self.draws:
            return draw_luck_features(self.game_name, self.options, self.preset, records)
        game = get_game(self.game_name, dict(self.options), self.preset)
        pair = []
        for record, rotation, who in records:
            try:
                pair.append(seating_of_record(game, record, rotation, who))
            except RuntimeError:
                raise ConfigError(f"--luck-adjusted: the match of deal seed {record.seed} in seating {rotation} did not "
                                  "finish (a forfeit): its bids are not all known, so the deal cannot be corrected; "
                                  "run without --luck-adjusted") from None
        return recorded_features(pair)


#: Format of a probes file (``luck_probes(..., file=)``).
PROBES_FORMAT = 2  # 2: every deal's features are all of ``value_features``
#: Probe deals of a probes file played again, each time it is read, to check the bots still bid so.
PROBES_RECHECKED = 20


def check_probes(deals: int) -> None:
    """ConfigError unless ``deals`` is a count of probes ``luck_probes`` plays (``--probes``): checked
    by the command too, before it plays anything."""
    if not 2 <= deals <= MAX_PROBES:
        raise ConfigError(f"--probes: from 2 to {MAX_PROBES} probe deals, got {deals}")


def luck_probes(game_name: str, bot_a: str, bot_b: str, options: Mapping[str, Any] | None = None,
                preset: str | None = None, deals: int = LUCK_PROBES, seed: str = LUCK_PROBE_SEED,
                progress: Callable[[int], None] | None = None, file: str | Path | None = None) -> LuckProbes:
    """Both seatings of ``deals`` probe deals (``probe_seeds(seed, deals)``), each played by the
    batch engine in this process only until the bidding ends (``play_seatings``), and the mean of their ``recorded_features``. ``progress``
    is called with the probe deals done so far. ConfigError for a game it cannot correct.

    With ``file`` (JSON), probes are kept for the next evaluation of the same pair, game and
    options: the probe deals it holds are read instead of played (all of them, if more than
    ``deals``), missing ones played and added, and the file written back. Each time it is read,
    ``PROBES_RECHECKED`` of its deals are played again and must bid exactly as stored: a bot that
    changed since would centre the correction wrongly (bias), so a file that fails the check is
    an error, never used. A file of another pair, game, options or seed is an error too."""
    why = luck_game_error(game_name, options, preset)
    if why:
        raise ConfigError(why)
    if game_name in DRAW_GAMES:  # the draws' expectations are exact: nothing to play
        if file is not None:
            raise ConfigError(f"--probes-file: {game_name}'s draws are corrected by expectations known exactly, with no "
                              "probes to keep: leave it out")
        return LuckProbes(game_name, dict(options or {}), preset, ExpectedFeatures.zero(draw_names(game_name)),
                          bots=(bot_a, bot_b))
    check_probes(deals)
    game = get_game(game_name, dict(options or {}), preset)
    key = {"format": PROBES_FORMAT, "game": game_name, "options": options_to_dict(game.options), "preset": preset,
           "bots": [bot_a, bot_b], "seed": seed}
    rows: list[dict[str, float]] = []
    fit: list[Any] = []
    path = Path(file) if file is not None else None
    if path is not None and path.exists():
        rows, fit = _read_probes(path, key)
    seeds = probe_seeds(seed, max(deals, len(rows)))
    reused = len(rows)
    # the stored deals played again, then the missing ones: one batch, all through the runner
    rechecked = sorted(random.Random(f"recheck:{reused}").sample(range(reused), min(PROBES_RECHECKED, reused)))
    try:
        played = replay_seatings(game_name, bot_a, bot_b, [seeds[i] for i in rechecked] + seeds[reused:], (0, 1), options,
                                 preset, bidding_only=True,
                                 progress=None if progress is None else lambda k: progress(max(0, k - len(rechecked))))
    except RuntimeError as exc:  # a bot that failed in a probe's bidding (its side forfeited)
        raise ConfigError(f"--luck-adjusted: a probe's bidding did not finish ({exc}): the probes need bots that bid "
                          "every time; run without --luck-adjusted") from None
    decisions = sum(r.decisions for pair in played for r in pair)
    for i, pair in zip(rechecked, played):
        if recorded_features(pair) != rows[i]:
            raise ConfigError(f"--probes-file {path}: probe deal {i} bids differently now than when the file was "
                              "written (a bot changed?): its probes would centre the correction wrongly; delete "
                              "it or give another file")
    rows += [recorded_features(pair) for pair in played[len(rechecked):]]
    if path is not None and len(rows) > reused:
        try:
            path.write_text(json.dumps({"key": key, "rows": rows, "fit": fit}, separators=(",", ":")) + "\n")
        except OSError as exc:
            raise ConfigError(f"--probes-file {path}: cannot write it ({exc.strerror or exc})") from None
    return LuckProbes(game_name, dict(options or {}), preset, ExpectedFeatures.of(rows), decisions, reused,
                      tuple((int(s), float(m), f) for s, m, f in fit), (bot_a, bot_b))


def keep_fit(file: str | Path, seeds: Sequence[int], margins: Sequence[float],
             features: Sequence[Mapping[str, float]]) -> int:
    """Add an evaluation's deals (deal seed, margin, ``recorded_features``) to the probes file its
    probes came from, those it does not hold yet: the next evaluation's sequential test starts
    from slopes fitted on them (``OnlineCorrection(prior=)``). The deals added."""
    path = Path(file)
    try:
        data = json.loads(path.read_text())
        have = {int(s) for s, _, _ in data.get("fit", [])}
        new = [[int(s), float(m), dict(f)] for s, m, f in zip(seeds, margins, features, strict=True) if int(s) not in have]
        data["fit"] = data.get("fit", []) + new
        path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"--probes-file {path}: cannot keep the deals' fit in it ({type(exc).__name__})") from None
    return len(new)


def _read_probes(path: Path, key: Mapping[str, Any]) -> tuple[list[dict[str, float]], list[Any]]:
    try:
        data = json.loads(path.read_text())
        stored, rows = data["key"], [{str(k): float(v) for k, v in r.items()} for r in data["rows"]]
        fit = [[int(s), float(m), {str(k): float(v) for k, v in f.items()}] for s, m, f in data.get("fit", [])]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"--probes-file {path}: not a probes file this arbiter wrote ({type(exc).__name__})") from None
    if stored != dict(key):
        what = ", ".join(k for k in key if stored.get(k) != key[k]) if isinstance(stored, dict) else "everything"
        raise ConfigError(f"--probes-file {path}: holds the probes of another evaluation (its {what} differ); give "
                          "another file")
    return rows, fit


def stored_luck(store: Store, tournament: str | int | None,
                probes: Callable[[str, str, str, Mapping[str, Any], str | None], LuckProbes]) -> EvalResult:
    """``stored_luck_pairs`` of a tournament of one pair (a stored evaluation, a round robin of two
    bots): its one result. ConfigError for a tournament of more pairs."""
    results = stored_luck_pairs(store, tournament, probes)
    if len(results) != 1:
        raise ConfigError(f"--luck-adjusted: {len(results)} pairs of bots met in this tournament; stored_luck_pairs "
                          "gives each one's")
    return results[0]


@dataclass(frozen=True)
class LuckPairs:
    """What ``stored_luck_pairs`` will correct (``luck_pairs``): every condition checked and
    nothing played, so that a command says why it cannot before it prints anything."""

    tour: Any
    game: str
    options: dict[str, Any]
    preset: str | None
    #: per pair: (bot A's source, bot B's, its deals' rows in seating order, bot A's name)
    pairs: list[tuple[str, str, list[list[Any]], str]]

    @property
    def draws(self) -> bool:
        """Corrected by the draws' exact expectations (Spot, Spite and Malice): no probes."""
        return self.game in DRAW_GAMES


def luck_pairs(store: Store, tournament: str | int | None) -> LuckPairs:
    """The pairs ``stored_luck_pairs`` corrects in a stored evaluation or round robin (or
    gauntlet) with duplicate deals: for every table where exactly two bots met (each with its
    copies), its deals played in all of the table's seatings, in table order. Every condition
    is checked here, nothing is played; ConfigError, naming why, for what it cannot correct: a
    tournament still running or interrupted with duplicate deals (its records are withheld,
    ``cardarena.disclosure``), teams, no duplicate deals, a game or options the correction is
    not defined for (``luck_game_error``), no table of two bots, a forfeit, and (Spades, whose
    probes play the bots in this process) a bot of a pair not installed with the arbiter;
    StoreError for a store or tournament that is not there."""
    tour = store.tournament(tournament)
    spec = tour.spec
    shown = store.tournament_disclosure(tour)
    if not shown.matches:
        raise ConfigError(f"--luck-adjusted: the correction reads the matches' records (the cards drawn, the bids), and "
                          f"{tour.name!r} {shown.closed_text()}")
    evaluation = "evaluate" in spec
    if not evaluation and (spec.get("teams") or not spec.get("duplicate", True)):
        what = "of named teams" if spec.get("teams") else "without duplicate deals"
        raise ConfigError(f"--luck-adjusted: defined for a stored evaluation (arbiter evaluate --db) or a round robin "
                          f"with duplicate deals; {tour.name!r} is a tournament {what}: its deals are not played by the "
                          "same bots on the same cards in every seating, so there is no luck to take out")
    game_name = spec["game"]
    opts, preset = dict(spec.get("options") or {}), spec.get("preset")
    why = luck_game_error(game_name, opts, preset)
    if why:
        raise ConfigError(f"--luck-adjusted: {tour.name!r} cannot be corrected: {why.removeprefix('--luck-adjusted: ')}")
    specs = list(spec.get("bots") or [])
    source = dict(zip(entrant_names(store, tour.id, specs), specs))  # by the names its records carry
    rows = store.matches(tour.id)
    tables: dict[int, dict[tuple[int, int], dict[int, Any]]] = {}
    for row in rows:
        tables.setdefault(row.table, {}).setdefault((row.round, row.deal), {})[row.rotation] = row
    pairs: list[tuple[str, str, list[list[Any]], str]] = []
    for t, deals in sorted(tables.items()):
        seatings = max(len(v) for v in deals.values())
        complete = [k for k in sorted(deals) if len(deals[k]) == seatings and set(deals[k]) == set(range(seatings))]
        if not complete:
            continue
        first = deals[complete[0]][0]
        names = list(dict.fromkeys(first.seats))
        if len(names) != 2 or len(set(first.sides)) != 2:
            continue  # a free for all's table: no two-bot margin
        a, b = first.sides[0], next(n for n in first.sides if n != first.sides[0])
        pairs.append((source.get(a, a), source.get(b, b), [[deals[k][r] for r in range(seatings)] for k in complete], a))
    if not pairs:
        raise ConfigError(f"--luck-adjusted: {tour.name!r} has no table where two bots met in every seating of a deal "
                          "(a free for all's tables hold more): its standings have no luck-adjusted margin")
    for _, _, deals_rows, _ in pairs:
        for row in (r for per in deals_rows for r in per):
            if row.outcome.reason.is_forfeit:
                raise ConfigError(f"--luck-adjusted: the match of deal seed {row.seed} in seating {row.rotation} ended "
                                  f"by a forfeit ({row.outcome.reason.value}): its deal cannot be corrected")
    if game_name not in DRAW_GAMES:
        # (the bots of the pairs corrected: a tournament's are its every bot that met another head to head)
        untrusted = list(dict.fromkeys(b for a_src, b_src, _, _ in pairs for b in bot_sources((a_src, b_src))
                                       if not is_trusted(b)))
        if untrusted:
            them = ", ".join(untrusted)
            verb = "is" if len(untrusted) == 1 else "are"
            if evaluation:
                raise ConfigError(f"--luck-adjusted: the probes play the bots in this process, and {them} {verb} "
                                  "not installed with the arbiter: run arbiter evaluate --luck-adjusted --transport inproc "
                                  "instead")
            raise ConfigError(
                f"--luck-adjusted: Spades' correction plays bidding-only probe deals of each pair's two bots in this "
                f"process, and {them} {verb} not installed with the arbiter (a file, a folder or a registered bot plays "
                f"only in a process of its own), so the pairs {'it' if len(untrusted) == 1 else 'they'} met in cannot "
                "be corrected here: arbiter evaluate spades BOT OTHER -o deals=1 --luck-adjusted --transport inproc "
                "corrects one pair, playing both in process as asked")
    return LuckPairs(tour, game_name, opts, preset, pairs)


def stored_luck_pairs(store: Store, tournament: str | int | None,
                      probes: Callable[[str, str, str, Mapping[str, Any], str | None], LuckProbes],
                      planned: LuckPairs | None = None) -> list[EvalResult]:
    """A stored evaluation (``evaluate(..., store=)``; ``arbiter standings NAME --luck-adjusted``) or
    a round robin (or gauntlet) with duplicate deals, read back pair by pair (``luck_pairs``, or
    ``planned``, what it returned): each pair's deals as an evaluation of the two (``EvalResult``,
    bot A the one on the first side of the table's first seating; a deal's margin A's mean score
    minus B's, averaged over the seatings) with its luck-adjusted margin beside the raw one
    (``EvalResult.luck_summary``): the features read from the records, centred on ``probes(game,
    bot_a, bot_b, options, preset)`` (``luck_probes``: for Spades, probes of that pair; for the
    draws, the exact expectations), the first deals' bids checked against probes of the same deals
    as ``evaluate`` checks them. Tables of more than two bots (a free for all's) have no two-bot
    margin and are left out. Nothing is written to the store. In table order.

    ConfigError for what it cannot correct (``luck_pairs`` says which); StoreError for a store or
    tournament that is not there."""
    plan = planned if planned is not None else luck_pairs(store, tournament)
    tour = plan.tour
    return [_pair_result(store, tour, tour.spec, plan.game, plan.options, plan.preset, a, b, deals, name_a, probes)
            for a, b, deals, name_a in plan.pairs]


def _pair_result(store: Store, tour: Any, spec: Mapping[str, Any], game_name: str, opts: dict[str, Any],
                 preset: str | None, bot_a: str, bot_b: str, deals: Sequence[Sequence[Any]], name_a: str,
                 probes: Callable[[str, str, str, Mapping[str, Any], str | None], LuckProbes]) -> EvalResult:
    """One pair's deals (per deal, its rows in seating order) as an ``EvalResult`` with its luck."""
    matches, records = [], []
    for d, rows in enumerate(deals):
        per = []
        for row in rows:
            who = who_of(row.seats, name_a)
            o = row.outcome  # (no forfeit: luck_pairs refused it)
            matches.append(MatchMargin(d, row.rotation, row.seed, margin_of(o, who), o.reason.value, tuple(o.scores),
                                       tuple(o.ranks)))
            per.append((row.record(), row.rotation, who))
        records.append(per)
    result = EvalResult(game_name, bot_a, bot_b, len(deals), int(spec.get("seed") or 0), opts, matches=matches,
                        max_deals=int(spec.get("deals", 0)), stored_as=tour.name, preset=preset)
    luck = probes(game_name, bot_a, bot_b, opts, preset)
    result.luck_features = [luck.features(per) for per in records]

    async def check() -> None:
        for d, per in enumerate(records[:0 if luck.draws else LUCK_CHECKED]):
            if await luck.probe(per[0][0].seed) != result.luck_features[d]:
                raise ConfigError(
                    f"--luck-adjusted: deal {d} of {tour.name!r} ({bot_a} vs {bot_b}) bid otherwise in its matches than "
                    "in a probe of the same deal (a bot changed since, or bids by anything but what it is shown and its "
                    "seed?): the probes would centre the correction wrongly")

    asyncio.run(check())
    result.luck_expected, result.luck_reused = luck.expected, luck.reused
    result.luck_decisions = (luck.decisions, sum(len(rec.actions) for per in records for rec, _, _ in per))
    return result
