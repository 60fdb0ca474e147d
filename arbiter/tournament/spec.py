"""Tournament specs: what an organiser writes (a TOML file or command-line flags).

A spec names the game and its variant, the bots, the format, deals per table, duplicate
on/off, concurrency, clocks, the failure policy and the seed. ``TournamentSpec.validate``
checks everything before anything runs and raises ``SpecError`` naming the field and the
reason. Example (``arbiter tournament run club.toml``)::
    name = "club-night"
    game = "spades"
    format = "round-robin"        # round-robin | double-round-robin | gauntlet
    bots = ["random", "greedy", "heuristic", "h2=bots/heuristic.py"]
    deals = 4                     # deals per table (each played in every seating if duplicate)
    duplicate = true
    # seed = 7                    # absent: a secret random seed, drawn once and kept in the store
    concurrency = 4               # matches at once (default: 3 x the cores, bounded by memory)
    # isolation = "match"         # a fresh process per seat per match (default "deal":
                                  # never two matches of one deal; "shared", processes
                                  # serving many matches at once, only without duplicate deals)
    # cluster = "tcp://10.0.0.5:8786"  # run the matches on a Dask cluster (docs/cluster.md)

    [options]                     # the game's options (`arbiter rules GAME`, docs/rules/)
    deals = 1

    [clock]
    decision_ms = 5000
    bank_ms = 30000

    [failure]
    policy = "forfeit"            # forfeit | default
    max_strikes = 3

A bot is ``"SPEC"`` (a bundled name, ``FILE.py[:Class]``, ``module:Class`` or a registered
``name@version``) or ``"NAME=SPEC"`` to choose its display name. Partnership games take
``teams = [["a", "b"], ["c", "d"]]`` (named pairs, by bot name); without it every team is a
bot and its copy.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from arbiter.batch.cluster import bad_scheduler_address
from arbiter.batch.plan import Seatings
from arbiter.batch.settings import SpecError, bot_names, bot_sources, check_table, read_toml  # noqa: F401 (the spec's API)
from arbiter.hosting.botproc import ISOLATIONS
from arbiter.store.registry import is_registered_ref
from cardarena.disclosure import Disclosure, of_tournament
from cardarena.names import NAME_RULE, is_seat_name
from cardarena.games import ConfigError, Game, get_game
from cardarena.records import Clock, FailurePolicy, MatchConfig, Policy
from cardarena.runtimes import MANIFEST
from arbiter.hosting.loading import BUNDLED, did_you_mean, load_bot


class Format(enum.Enum):
    """Which tables are played."""

    ROUND_ROBIN = "round-robin"  # every combination of entries, once
    DOUBLE_ROUND_ROBIN = "double-round-robin"  # every combination, in two rounds of fresh deals
    GAUNTLET = "gauntlet"  # only the tables that include the challenger


#: Why ``isolation = "shared"`` is refused with duplicate deals (``TournamentSpec.validate``).
SHARED_WITH_DUPLICATE = (
    'isolation: "shared" (--isolation shared) cannot be used with duplicate deals: one bot process serving '
    "many matches would carry a deal from one seating to its twin and know every hand of it there; use "
    '"deal" (the default: a process never plays two matches of one deal) or "match" (a fresh process per '
    "seat per match), or turn duplicate deals off (duplicate = false, --no-duplicate)"
)


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that defines a tournament. The same spec gives the same schedule and seeds.

    ``concurrency``, ``bot_processes`` and ``cluster`` only change how fast (and where) it
    runs, never its results, so they are not part of the identity a stored tournament is
    resumed by (``identity``).
    """

    game: str
    bots: tuple[str, ...]
    name: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    preset: str | None = None
    format: str = Format.ROUND_ROBIN.value
    challenger: str | None = None  # gauntlet: the challenger's name (default: the first bot)
    teams: tuple[tuple[str, ...], ...] = ()  # named partnerships; () = a bot and its copy
    deals: int = 2
    duplicate: bool = True
    seatings: str = Seatings.ROTATIONS.value
    seed: int | None = None  # None: a secret seed drawn when the tournament is created (kept in the store)
    decision_ms: int = 10_000
    bank_ms: int = 60_000
    policy: str = "forfeit"
    max_strikes: int = 3
    concurrency: int | None = None  # matches at once; None: run.default_concurrency
    bot_processes: int = 1  # with shared isolation: processes per bot, each serving many matches at once
    isolation: str | None = None  # "match" | "deal" | "shared"; None: deal with duplicate deals, else shared
    cluster: str | None = None  # a Dask scheduler address (tcp://host:8786): run the matches there

    # -- derived ---------------------------------------------------------------------

    @property
    def bot_names(self) -> tuple[str, ...]:
        return bot_names(self.bots)

    @property
    def bot_sources(self) -> tuple[str, ...]:
        return bot_sources(self.bots)

    @property
    def effective_isolation(self) -> str:
        """How bot processes are shared between matches (``arbiter.hosting.botproc.BotHost``).

        With duplicate deals every deal comes back in later matches, and a bot process that
        lived on could remember a deal's cards and recognise it. ``deal`` (the default with
        duplicate deals): a process plays one match at a time and never two matches of the
        same deal. ``match``: a fresh process for every seat of every match (nothing at all
        carries over; slower). ``shared``: long-lived processes, each serving many matches
        at once (fastest; for trusted bots). Without duplicate deals no deal is played
        twice, and ``shared`` is the default; with them ``shared`` is refused
        (``SHARED_WITH_DUPLICATE``): a process would carry a deal to its twin seating.
        """
        if self.isolation is not None:
            return self.isolation
        return "deal" if self.duplicate else "shared"

    @property
    def display_name(self) -> str:
        """The name given, else GAME-SEED, else (a secret seed) GAME-<hash of the spec>, so
        that running the same spec again resumes it and another spec gets another name."""
        if self.name:
            return self.name
        if self.seed is not None:
            return f"{self.game}-{self.seed}"
        digest = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()
        return f"{self.game}-{digest[:6]}"

    @property
    def rounds(self) -> int:
        return 2 if self.format == Format.DOUBLE_ROUND_ROBIN.value else 1

    def identity(self) -> dict[str, Any]:
        """The JSON-able fields that define the schedule and every match (resume key)."""
        d = self.to_json()
        d.pop("concurrency", None)
        d.pop("bot_processes", None)
        d.pop("isolation", None)
        d.pop("cluster", None)
        return d

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["bots"] = list(self.bots)
        d["options"] = dict(self.options)
        d["teams"] = [list(t) for t in self.teams]
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "TournamentSpec":
        """Inverse of ``to_json`` (also reads specs stored by older versions)."""
        known = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in d.items() if k in known}
        kw["bots"] = tuple(kw.get("bots", ()))
        kw["teams"] = tuple(tuple(t) for t in kw.get("teams", ()))
        kw["options"] = dict(kw.get("options", {}))
        return cls(**kw)

    def match_config(self, seed: int, match_id: str = "") -> MatchConfig:
        """The config of one of its matches; played while the tournament runs, so with the
        disclosure of a running tournament (closed with duplicate deals: each seat's final
        view is its own, and spectators see the outcome only)."""
        return MatchConfig(
            game=self.game, seed=seed, options=dict(self.options), preset=self.preset,
            clock=Clock(self.decision_ms, self.bank_ms),
            policy=FailurePolicy.uniform(self.policy, self.max_strikes), match_id=match_id,
            disclosure=self.disclosure,
        )

    @property
    def disclosure(self) -> Disclosure:
        """What may be shown of it while it runs (``cardarena.disclosure``)."""
        return of_tournament(self.display_name, finished=False, duplicate=self.duplicate)

    # -- validation ------------------------------------------------------------------

    def validate_game(self) -> Game:
        """Only the game part (for reading stored tournaments: bots need not exist here)."""
        try:
            return get_game(self.game, self.options, self.preset)
        except ConfigError as exc:
            raise SpecError(f"game/options: {exc}") from None

    def validate(self) -> Game:
        """The configured game; SpecError naming the field and the reason otherwise."""
        try:
            game = get_game(self.game, self.options, self.preset)
        except ConfigError as exc:
            where = "game" if "unknown game" in str(exc) else ("preset" if "preset" in str(exc) else "options")
            raise SpecError(f"{where}: {exc}") from None
        names = self.bot_names
        if len(self.bots) < 1 or (len(self.bots) < 2 and not self.teams):
            raise SpecError(f"bots: a tournament needs at least 2 bots, got {len(self.bots)}")
        for spec, name in zip(self.bots, names):
            if not is_seat_name(name):
                raise SpecError(f"bots: bad bot name {name[:80]!r}: {NAME_RULE}, or name@version")
            _check_bot(spec, bot_sources([spec])[0], self.game)
        try:
            fmt = Format(self.format)
        except ValueError:
            raise SpecError(f"format: expected one of {', '.join(f.value for f in Format)}, got {self.format!r}") from None
        try:
            Seatings(self.seatings)
        except ValueError:
            raise SpecError(f"seatings: expected rotations or permutations, got {self.seatings!r}") from None
        for key in ("deals", "bot_processes"):
            if not isinstance(getattr(self, key), int) or getattr(self, key) < 1:
                raise SpecError(f"{key}: must be a whole number of at least 1, got {getattr(self, key)!r}")
        if self.isolation is not None and self.isolation not in ISOLATIONS:
            raise SpecError(f"isolation: expected {', '.join(ISOLATIONS)}, got {self.isolation!r}")
        if self.isolation == "shared" and self.duplicate:
            raise SpecError(SHARED_WITH_DUPLICATE)
        if self.concurrency is not None and (not isinstance(self.concurrency, int) or self.concurrency < 1):
            raise SpecError(f"concurrency: must be at least 1, got {self.concurrency!r}")
        if self.cluster is not None and (why := bad_scheduler_address(self.cluster)):
            raise SpecError(f"cluster: {why}")
        if self.policy not in {p.value for p in Policy}:
            raise SpecError(f"failure.policy: expected forfeit or default, got {self.policy!r}")
        if self.max_strikes < 0:
            raise SpecError(f"failure.max_strikes: must not be negative, got {self.max_strikes}")
        if self.decision_ms < 0 or self.bank_ms < 0:
            raise SpecError(f"clock: decision_ms and bank_ms must not be negative, got {self.decision_ms}, {self.bank_ms}")
        if self.seed is not None and (not isinstance(self.seed, int) or isinstance(self.seed, bool) or self.seed < 0):
            raise SpecError(f"seed: must be a non-negative whole number (or absent: a secret one is drawn), got {self.seed!r}")
        sizes = {len(t) for t in game.teams}
        if len(sizes) != 1:
            raise SpecError(f"game: {self.game} with these options has sides of different sizes {game.teams}; not supported")
        per_side = sizes.pop()
        entries = self.entry_labels(per_side)
        if self.teams:
            if per_side == 1:
                raise SpecError(f"teams: {self.game} with these options has no partnerships (every seat plays for itself)")
            used = set()
            for team in self.teams:
                if len(team) != per_side:
                    raise SpecError(f"teams: {list(team)} has {len(team)} bots; a side of {self.game} has {per_side} seats")
                for member in team:
                    if member not in names:
                        raise SpecError(f"teams: {member!r} is not one of the bots ({', '.join(names)})")
                    used.add(member)
            unused = [n for n in names if n not in used]
            if unused:
                raise SpecError(f"teams: bots {', '.join(unused)} are in no team")
            if len(set(entries)) != len(entries):
                raise SpecError("teams: a team is listed twice")
            if len(entries) < 2:
                raise SpecError(f"teams: a tournament needs at least 2 teams, got {len(entries)}")
        if fmt is Format.GAUNTLET:
            challenger = self.challenger or entries[0]
            if challenger not in entries:
                raise SpecError(f"challenger: {challenger!r} is not one of the entries ({', '.join(entries)})")
        elif self.challenger:
            raise SpecError(f"challenger: only a gauntlet has a challenger (format is {self.format})")
        return game

    def entry_labels(self, per_side: int) -> list[str]:
        """The names of what occupies one side: a bot (or a bot and its copies), or a team."""
        if self.teams:
            return ["+".join(t) for t in self.teams]
        return list(self.bot_names)


def _check_bot(spec: str, source: str, game: str) -> None:
    """A bot spec that can be launched, as far as can be told without running its code."""

    if source in BUNDLED:
        bot = load_bot(source)
        if not bot.plays(game):
            raise SpecError(f"bots: {spec!r} does not play {game} (it plays {', '.join(bot.games)})")
        return
    if is_registered_ref(source):
        return  # resolved against the bot registry when the run starts
    path = Path(source.split(":")[0]) if not Path(source).exists() else Path(source)
    if path.suffix == ".py" or path.exists():
        if not (path.is_file() or (path.is_dir() and ((path / "bot.py").is_file() or (path / MANIFEST).is_file()))):
            raise SpecError(f"bots: {spec!r}: file not found: {path}")
        return
    if ":" in source:
        return  # module:Class, imported by the bot process
    hint = did_you_mean(source, sorted(BUNDLED))
    if hint:
        raise SpecError(f"bots: unknown bot {spec!r}{hint}")
    raise SpecError(f"bots: unknown bot {spec!r}: not a bundled bot ({', '.join(BUNDLED)}), a .py file, module:Class or name@version")


# --------------------------------------------------------------------------------------
# TOML.

_TOP = {
    "name": str, "game": str, "preset": str, "format": str, "challenger": str, "deals": int, "duplicate": bool,
    "seatings": str, "seed": int, "concurrency": int, "bot_processes": int, "isolation": str, "cluster": str, "bots": list, "teams": list,
    "options": dict, "clock": dict, "failure": dict,
}
_CLOCK = {"decision_ms": int, "bank_ms": int}
_FAILURE = {"policy": str, "max_strikes": int}


def spec_from_toml(path: str | os.PathLike, overrides: Mapping[str, Any] | None = None) -> TournamentSpec:
    """Read a spec file; ``overrides`` (from command-line flags) replace its fields.

    SpecError naming the file, the field and the reason for anything malformed.
    """
    return spec_from_dict(read_toml(path), overrides, source=str(path))


def spec_from_dict(data: Mapping[str, Any], overrides: Mapping[str, Any] | None = None, source: str = "spec") -> TournamentSpec:
    """Build a spec from parsed TOML-shaped data (see the module docstring)."""

    check_table(data, _TOP, "", source)
    for key, schema in (("clock", _CLOCK), ("failure", _FAILURE)):
        check_table(data.get(key, {}), schema, f"{key}.", source)
    kw: dict[str, Any] = {k: v for k, v in data.items() if k not in ("clock", "failure", "bots", "teams")}
    kw.update(data.get("clock", {}))
    kw.update(data.get("failure", {}))
    bots: list[str] = []
    for i, b in enumerate(data.get("bots", [])):
        if isinstance(b, str):
            bots.append(b)
        elif isinstance(b, dict) and set(b) <= {"name", "bot"} and isinstance(b.get("bot"), str):
            bots.append(f"{b['name']}={b['bot']}" if b.get("name") else b["bot"])
        else:
            raise SpecError(f"{source}: field bots[{i}]: expected \"SPEC\", \"NAME=SPEC\" or {{name=..., bot=...}}, got {b!r}")
    teams = []
    for i, t in enumerate(data.get("teams", [])):
        if not (isinstance(t, list) and all(isinstance(x, str) for x in t)):
            raise SpecError(f"{source}: field teams[{i}]: expected a list of bot names, got {t!r}")
        teams.append(tuple(t))
    kw["bots"] = tuple(bots)
    kw["teams"] = tuple(teams)
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key == "options":  # command-line options add to the file's
            kw["options"] = {**kw.get("options", {}), **value}
        else:
            kw[key] = value
    kw["teams"] = tuple(tuple(t) for t in kw.get("teams", ()))
    if "game" not in kw:
        raise SpecError(f"{source}: missing field 'game'")
    if not kw["bots"]:
        raise SpecError(f"{source}: missing field 'bots'")
    kw["bots"] = tuple(kw["bots"])
    return TournamentSpec(**kw)
