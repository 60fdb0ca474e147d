"""One seating of a Spades deal played by two bots in this process, outside the match runner:
the bidding-only probes of ``arbiter evaluate --luck-adjusted`` (docs/strength.md, "Luck-adjusted
margins") and the variance tools' deals with the hands moved round the table, neither of which is
a match the runner plays. A full seating of a deal as dealt is played by the runner (the batch
engine's in-process venue); ``seating_of_record`` reads one back as the same ``Replayed``.

A probe is a match up to the end of the bidding: the seats get the ``MatchInfo`` a match would
give (the bot seed of ``bot_seed_for``, a match id shaped like the runner's), see the events the
runner's rule (``events_for``) lets them see, and are asked the same decisions; then they are
asked nothing more. So a bot whose bids depend only on what it is shown bids in a probe exactly as
in the match of the same deal and seating (``tests/arbiter/tools/test_variance.py`` checks it).
"""

from __future__ import annotations

import collections
import hashlib
import json
import random
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from cardarena.games import ConfigError, events_for, get_game
from cardarena.games.base import options_to_dict
from cardarena.records import MatchInfo, MatchRecord, bot_seed_for
from cardarena.replay import step_record
from arbiter.batch.settings import bot_names
from arbiter.hosting.inprocess import InProcessSeat
from arbiter.hosting.loading import load_bot
from arbiter.match import TurnRequest
from arbiter.rating.luck import ExpectedFeatures, recorded_features
from arbiter.tournament.evaluate import margin_of, seating_who


def probe_seeds(seed: str, deals: int) -> list[int]:
    """``deals`` deal seeds drawn from the string ``seed``: 48-bit numbers like ``deal_seed``'s,
    so the deals are dealt alike, but never an evaluation's (those come from an integer)."""
    return [int.from_bytes(random.Random(f"{seed}:{i}").randbytes(6), "big") for i in range(deals)]



@dataclass(frozen=True)
class Replayed:
    """One seating of one deal, played in process (``SeatingPlayer``, or the runner's record read by
    ``seating_of_record``).

    ``hands_from``: seat s played the hand seat ``hands_from[s]`` was dealt (the dealer
    unchanged); None for the deal as dealt, the evaluation's. ``margin`` and ``summary`` are
    None for a bidding-only probe, which stops when the bidding does."""

    seed: int
    rotation: int
    hands_from: tuple[int, ...] | None
    who: tuple[int, ...]  # per seat: 0 for bot A, 1 for bot B
    bids: tuple[int | None, ...]  # Spades, per seat, as the public view shows them (0: nil or blind nil)
    margin: float | None  # bot A's mean score minus bot B's
    summary: Any = None  # Spades: the deal's SpadesDealResult (contracts, tricks, points per side)
    hands: tuple[tuple[Any, ...], ...] = field(default=(), repr=False)  # Spades: per seat, the cards it played with
    decisions: int = 0  # decisions the bots made (what a replay costs, in the bots' time)

    def side_of(self, bot: int) -> list[int]:
        """The seats of ``bot`` (0 for A, 1 for B)."""
        return [s for s, w in enumerate(self.who) if w == bot]

    def set_bots(self) -> list[int]:
        """The bots whose side was set: a contract above 0 and fewer tricks towards it."""
        bot_of_side = {s % 2: w for s, w in enumerate(self.who)}
        return [bot_of_side[r.side] for r in self.summary.sides if r.contract > 0 and r.contract_tricks < r.contract]


def _now(coro):
    """The value of a coroutine that never suspends (an in-process seat's calls)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("replay: an in-process seat suspended; only bots that answer at once replay")


class SeatingPlayer:
    """What every replay of one pair of bots shares: the game, the bots as loaded, names."""

    def __init__(self, game_name: str, bot_a: str, bot_b: str, options: Mapping[str, Any] | None, preset: str | None):
        self.game_name = game_name
        self.game = get_game(game_name, dict(options or {}), preset)
        self.bots = (load_bot(bot_a), load_bot(bot_b))
        self.names = bot_names((bot_a, bot_b))
        self.options = options_to_dict(self.game.options)

    def __call__(self, seed: int, rotation: int, hands_from: Sequence[int] | None = None,
                 bidding_only: bool = False) -> Replayed:
        game, spades = self.game, self.game_name == "spades"
        if (hands_from is not None or bidding_only) and not spades:
            raise ValueError(f"replay: hands_from and bidding_only are defined for spades, not {self.game_name}")
        state = game.new_initial_state(seed)
        moved = None
        if hands_from is not None:
            moved = tuple(hands_from)
            if sorted(moved) != list(range(game.num_seats)):
                raise ValueError(f"replay: hands_from must order the seats 0..{game.num_seats - 1}, got {moved}")
            state = game.state_from_deal([state.hands[k] for k in moved], dealer=state.dealer, seed=seed)
        hands = tuple(tuple(h) for h in state.hands) if spades else ()
        who = tuple(seating_who(game, rotation))
        seats = [InProcessSeat(self.bots[w], self.names[w]) for w in who]
        seat_names = tuple(self.names[w] for w in who)
        # shaped like the runner's match ids (12 hex digits), so a probe does not announce itself
        match_id = hashlib.sha256(f"replay:{seed}:{rotation}:{moved}".encode()).hexdigest()[:12]
        for s, client in enumerate(seats):
            _now(client.start(MatchInfo(match_id, game.name, dict(self.options), s, game.num_seats, game.teams,
                                        seat_names, 0, 0, bot_seed_for(seed, s))))

        def notify(events) -> None:
            for s, client in enumerate(seats):
                mine = events_for(events, s)  # the runner's rule (what a seat may see)
                if mine:
                    _now(client.notify(match_id, s, mine))

        notify(state.log)
        decisions = 0
        while not state.is_terminal:
            if bidding_only and state.spectator_view().phase.name != "BIDDING":
                break
            s = state.current_seat
            legal = state.legal_actions()
            decisions += 1
            action = _now(seats[s].decide(TurnRequest(match_id, decisions, s, state.view(s), legal, 0, 0)))
            if action not in legal:
                raise RuntimeError(f"replay: seat {s} ({seat_names[s]}) answered {action}, not a legal action")
            notify(state.apply(action))
        view = state.spectator_view()
        bids = tuple(x.bid for x in view.seats) if spades else ()
        if not state.is_terminal:
            return Replayed(seed, rotation, moved, who, bids, None, None, hands, decisions)
        out = state.outcome()
        for s, client in enumerate(seats):
            _now(client.finish(match_id, s, out, view))
        summary = view.history[-1] if spades else None
        if summary is not None:
            bids = summary.bids
        return Replayed(seed, rotation, moved, who, bids, margin_of(out, who), summary, hands, decisions)


def seating_of_record(game: Any, record: MatchRecord, rotation: int, who: Sequence[int]) -> Replayed:
    """A runner's record of one seating as ``Replayed``: its margin, and for Spades the bids
    and the deal's summary from the final spectator view of the verified replay, the hands
    as dealt."""
    out = record.outcome
    if out is None or out.reason.is_forfeit:
        why = "no result" if out is None else out.reason.value
        raise RuntimeError(f"replay: deal {record.seed} in seating {rotation} did not finish ({why}); "
                           "only bots that play every decision replay")
    summary, bids, hands = None, (), ()
    if game.name == "spades":
        (last,) = collections.deque(step_record(record), maxlen=1)
        summary = last.view.history[-1]
        bids = summary.bids
        hands = tuple(tuple(h) for h in game.new_initial_state(record.seed).hands)
    return Replayed(record.seed, rotation, None, tuple(who), bids, margin_of(out, who), summary, hands, len(record.actions))


# --------------------------------------------------------------------------------------
# The probes of ``arbiter evaluate --luck-adjusted`` (``arbiter.rating.luck``).

#: Probe deals when not said: about as many decisions as 270 deals of the evaluation (a probe
#: seating is 8 decisions, a match about 60).
LUCK_PROBES = 2000
#: The probes' seeds come from this string (never an evaluation's: those come from an integer).
LUCK_PROBE_SEED = "bid-probes"


def luck_game_error(game_name: str, options: Mapping[str, Any] | None, preset: str | None) -> str | None:
    """Why ``--luck-adjusted`` cannot correct this game's deals (None if it can): the features
    are a Spades hand's bids and cards, one hand a match."""
    if game_name != "spades":
        return (f"--luck-adjusted: defined for Spades only (the deal's bids and cards); {game_name} has no value "
                "of its deal to correct by")
    game = get_game(game_name, dict(options or {}), preset)
    if getattr(game.options, "deals", None) != 1:
        return "--luck-adjusted: defined for Spades played one hand a match: add -o deals=1"
    if game.num_seats != 4:
        return f"--luck-adjusted: defined for four seats, these options give {game.num_seats}"
    return None


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

    def probe(self, seed: int) -> dict[str, float]:
        """``recorded_features`` of deal ``seed`` played as a probe (bidding only), to check that an
        evaluation's matches bid as the probes do (``evaluate`` does, on its first deals)."""
        play = SeatingPlayer(self.game_name, *self.bots, self.options, self.preset)
        return recorded_features([play(seed, 0, None, True), play(seed, 1, None, True)])

    def features(self, records: Sequence[tuple[MatchRecord, int, Sequence[int]]]) -> dict[str, float]:
        """``recorded_features`` of one deal from its two matches ((record, rotation, who), rotation 0 first)."""
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


def luck_probes(game_name: str, bot_a: str, bot_b: str, options: Mapping[str, Any] | None = None,
                preset: str | None = None, deals: int = LUCK_PROBES, seed: str = LUCK_PROBE_SEED,
                progress: Callable[[int], None] | None = None, file: str | Path | None = None) -> LuckProbes:
    """Both seatings of ``deals`` probe deals (``probe_seeds(seed, deals)``), each played in this
    process only until the bidding ends, and the mean of their ``recorded_features``. ``progress``
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
    if deals < 2:
        raise ConfigError(f"--probes: at least 2 probe deals, got {deals}")
    game = get_game(game_name, dict(options or {}), preset)
    key = {"format": PROBES_FORMAT, "game": game_name, "options": options_to_dict(game.options), "preset": preset,
           "bots": [bot_a, bot_b], "seed": seed}
    rows: list[dict[str, float]] = []
    fit: list[Any] = []
    path = Path(file) if file is not None else None
    if path is not None and path.exists():
        rows, fit = _read_probes(path, key)
    play = SeatingPlayer(game_name, bot_a, bot_b, options, preset)
    seeds = probe_seeds(seed, max(deals, len(rows)))
    decisions, reused = 0, len(rows)
    if reused:
        for i in sorted(random.Random(f"recheck:{len(rows)}").sample(range(len(rows)), min(PROBES_RECHECKED, len(rows)))):
            pair = [play(seeds[i], 0, None, True), play(seeds[i], 1, None, True)]
            decisions += sum(r.decisions for r in pair)
            if recorded_features(pair) != rows[i]:
                raise ConfigError(f"--probes-file {path}: probe deal {i} bids differently now than when the file was "
                                  "written (a bot changed?): its probes would centre the correction wrongly; delete "
                                  "it or give another file")
    for i in range(len(rows), len(seeds)):
        pair = [play(seeds[i], 0, None, True), play(seeds[i], 1, None, True)]
        rows.append(recorded_features(pair))
        decisions += sum(r.decisions for r in pair)
        if progress is not None:
            progress(i + 1 - reused)
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
