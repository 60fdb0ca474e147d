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
``name@version``; named by its file's or folder's stem, or its class if one is given; a
relative path in a file is relative to the file's folder: ``from_folder``) or
``"NAME=SPEC"`` to choose its display name (bots left unnamed that share a name are numbered,
``random-2``; a name chosen for two bots is a SpecError). Partnership games take
``teams = [["a", "b"], ["c", "d"]]`` (named pairs, by bot name); without it every team is a
bot and its copy.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Mapping

from arbiter.batch.plan import Seatings
from arbiter.batch.settings import SpecError, bad_scheduler_address, bot_names, bot_sources, check_bot_spec, check_kind, check_table, entrant_names, from_folder, name_clash, read_toml  # noqa: F401 (the spec's API)
from arbiter.batch.single import name_taken
from arbiter.hosting.botproc import ISOLATIONS
from arbiter.store.registry import is_registered_ref
from arbiter.rating.catoni import without_form
from cardarena.disclosure import Disclosure, of_tournament
from cardarena.names import NAME_RULE, is_seat_name
from cardarena.games import ConfigError, Game, get_game, typed_options
from cardarena.games.options import check_settings, from_toml_tables, option, toml_tables, with_attributes
from cardarena.records import MATCH_SETTINGS, MAX_CLOCK_MS, MAX_SEED, MAX_STRIKES, Clock, FailurePolicy, MatchConfig, Policy


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


def _values(e: type[enum.Enum]) -> tuple[str, ...]:
    """An enum's values, as a setting's choices."""
    return tuple(m.value for m in e)


#: A tournament's deals per table at most. Its whole schedule is built before the first
#: match (about 1 KB a match, deals x seatings x tables of them): a typo of a few zeros
#: would fill the memory, where this bound answers at once. 100 000 deals of three bots'
#: round robin are 600 000 matches.
MAX_DEALS = 100_000
#: Matches at once, and processes per bot with shared isolation: a typo of a few zeros would
#: start that many bot processes (each match's seats are processes), not a run.
MAX_CONCURRENCY = 1024
MAX_BOT_PROCESSES = 64


@with_attributes(MATCH_SETTINGS)  # decision_ms, bank_ms, policy, max_strikes
@dataclass(frozen=True)
class TournamentSpec:
    """Everything that defines a tournament. The same spec gives the same schedule and seeds.

    ``concurrency``, ``bot_processes`` and ``cluster`` only change how fast (and where) it
    runs, never its results, so they are not part of the identity a stored tournament is
    resumed by (``identity``). Every setting is declared once, here: its type, its range
    or choices and its default in the field, its meaning below; ``validate``, the file's
    tables (``spec_from_dict``) and the command line's help (``arbiter tournament run
    --help``) are read from it (``cardarena.games.options``).

    Attributes:
        game: The game (arbiter rules GAME).
        bots: The bots: bundled names, FILE.py, name@version, NAME=SPEC (a name chosen for one bot only).
        name: The tournament's name in the store (default GAME-SEED); the same name and
            spec resumes it.
        options: The game's options (arbiter rules GAME).
        preset: A named option preset of the game.
        format: Which tables are played: every combination of entries once
            (round-robin), twice on fresh deals (double-round-robin), or only those of
            the challenger (gauntlet).
        challenger: Gauntlet: the challenger (default: the first bot).
        teams: Named partnerships (default: each bot with its copy).
        deals: Deals per table, each played in every seating when duplicate.
        duplicate: Play each deal in every seating, so the luck of the cards cancels out.
        seatings: The seatings of a duplicate deal: each entry at each side once
            (rotations) or every order of the entries (permutations).
        seed: The tournament's seed: the same seed gives the same deals (default: a secret
            random seed, drawn once and kept in the store).
        concurrency: Matches at once (default: 3 x the cores, fewer if memory is short for
            fresh bot processes).
        bot_processes: With shared isolation: processes per bot, each serving many matches
            at once.
        isolation: How bot processes are shared: deal (one match at a time, never two
            matches of one deal; the default with duplicate deals), match (a fresh process
            per seat per match) or shared (long-lived, serving many matches at once:
            fastest, for trusted bots; only without duplicate deals, since a process would
            carry a deal to its twin seating).
        cluster: Run the matches on the Dask scheduler at this address (tcp://HOST:PORT;
            docs/cluster.md).
    """

    SettingsError: ClassVar[type] = SpecError

    game: str
    bots: tuple[str, ...]
    name: str = ""
    options: Mapping[str, Any] = option(factory=dict)
    preset: str | None = None
    format: str = option(Format.ROUND_ROBIN.value, choices=_values(Format))
    challenger: str | None = None  # gauntlet: the challenger's name (default: the first bot)
    teams: tuple[tuple[str, ...], ...] = ()  # named partnerships; () = a bot and its copy
    deals: int = option(2, min=1, max=MAX_DEALS)
    duplicate: bool = True
    seatings: str = option(Seatings.ROTATIONS.value, choices=_values(Seatings))
    seed: int | None = option(None, min=0, max=MAX_SEED)  # None: a secret seed drawn when the tournament is created (kept in the store)
    decision_ms: int = option(10_000, min=0, max=MAX_CLOCK_MS, table="clock")
    bank_ms: int = option(60_000, min=0, max=MAX_CLOCK_MS, table="clock")
    policy: str = option("forfeit", choices=_values(Policy), table="failure")
    max_strikes: int = option(3, min=0, max=MAX_STRIKES, table="failure")
    concurrency: int | None = option(None, min=1, max=MAX_CONCURRENCY)  # matches at once; None: run.default_concurrency
    bot_processes: int = option(1, min=1, max=MAX_BOT_PROCESSES)  # with shared isolation: processes per bot, each serving many matches at once
    isolation: str | None = option(None, choices=ISOLATIONS)  # None: deal with duplicate deals, else shared
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
        if taken := name_taken(self.display_name):
            raise SpecError(f"name: {self.display_name[:80]!r}: {taken}")
        names = self.bot_names
        if len(self.bots) < 1 or (len(self.bots) < 2 and not self.teams):
            raise SpecError(f"bots: a tournament needs at least 2 bots, got {len(self.bots)}")
        for spec, name in zip(self.bots, names):
            if not is_seat_name(name):
                raise SpecError(f"bots: bad bot name {name[:80]!r}: {NAME_RULE}, or name@version")
            check_bot_spec(spec, bot_sources([spec])[0], self.game)
        check_settings(self)  # every declared type, range and choice (format, deals, clock, failure...)
        fmt = Format(self.format)
        if self.isolation == "shared" and self.duplicate:
            raise SpecError(SHARED_WITH_DUPLICATE)
        if self.bot_processes != 1 and self.effective_isolation != "shared":  # taken, and nothing done with it
            raise SpecError(f"bot_processes: {self.bot_processes} processes per bot are for shared isolation (isolation = "
                            f"\"shared\", --isolation shared, without duplicate deals); with {self.effective_isolation} "
                            "isolation each match's seats have processes of their own: leave it out")
        if self.cluster is not None and (why := bad_scheduler_address(self.cluster)):
            raise SpecError(f"cluster: {why}")
        sizes = {len(t) for t in game.teams}
        if len(sizes) != 1:
            raise SpecError(f"game: {self.game} with these options has sides of different sizes {game.teams}; not supported")
        per_side = sizes.pop()
        entries = self.entry_labels(per_side)
        if self.teams:
            self._check_teams(per_side, names, entries)
        if fmt is Format.GAUNTLET:
            challenger = self.challenger or entries[0]
            if challenger not in entries:
                raise SpecError(f"challenger: {challenger!r} is not one of the entries ({', '.join(entries)})")
        elif self.challenger:
            raise SpecError(f"challenger: only a gauntlet has a challenger (format is {self.format})")
        return game

    def _check_teams(self, per_side: int, names: tuple[str, ...], entries: list[str]) -> None:
        """Named partnerships: each of a side's size, of the bots given, every bot in one."""
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

    def entry_labels(self, per_side: int) -> list[str]:
        """The names of what occupies one side: a bot (or a bot and its copies), or a team."""
        if self.teams:
            return ["+".join(t) for t in self.teams]
        return list(self.bot_names)


# --------------------------------------------------------------------------------------
# TOML.

#: The file's tables and their keys, from the declaration (``toml_tables``).
TABLES = toml_tables(TournamentSpec)


def spec_from_toml(path: str | os.PathLike, overrides: Mapping[str, Any] | None = None) -> TournamentSpec:
    """Read a spec file; ``overrides`` (from command-line flags) replace its fields.

    SpecError naming the file, the field and the reason for anything malformed. A bot given
    by a relative path is relative to the file's folder (``from_folder``: stored as its
    absolute path); the command line's (``--bots``) to the current directory.
    """
    return spec_from_dict(read_toml(path), overrides, source=str(path), folder=Path(path).parent)


def spec_from_dict(data: Mapping[str, Any], overrides: Mapping[str, Any] | None = None, source: str = "spec",
                   folder: str | os.PathLike | None = None) -> TournamentSpec:
    """Build a spec from parsed TOML-shaped data (see the module docstring); ``folder``: the
    one ``data``'s relative bot paths are relative to (``from_folder``), a file's."""

    if folder is not None:  # a file's
        check_kind(data, ("house", "server", "suspend_after", "gate", "division"), source, "a ladder file",
                   "a tournament spec", "arbiter arena")
    for table, keys in TABLES.items():
        check_table(data if not table else data.get(table, {}), keys, f"{table}." if table else "", source)
    kw: dict[str, Any] = {k: v for k, v in from_toml_tables(data, TournamentSpec)["TournamentSpec"].items()
                          if k not in ("bots", "teams")}
    bots: list[str] = []
    for i, b in enumerate(data.get("bots", [])):
        if isinstance(b, str):
            bots.append(b)
        elif isinstance(b, dict) and set(b) <= {"name", "bot"} and isinstance(b.get("bot"), str):
            bots.append(f"{b['name']}={b['bot']}" if b.get("name") else b["bot"])
        else:
            raise SpecError(f"{source}: field bots[{i}]: expected \"SPEC\", \"NAME=SPEC\" or {{name=..., bot=...}}, got {b!r}")
    if folder is not None:
        bots = [from_folder(b, folder) for b in bots]
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
    if clash := name_clash(kw["bots"]):  # (a stored spec is not asked again: it resumes under the names it has)
        raise SpecError(f"{source}: field bots: {clash}")
    try:  # a file's options and the command line's text stored alike (typed_options)
        kw["options"] = typed_options(kw["game"], kw.get("options", {}), kw.get("preset"))
    except (ConfigError, TypeError):
        pass  # validate names the field and the reason
    return TournamentSpec(**kw)


def in_stored_form(key: dict[str, Any], stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """``key`` (the spec a run is stored under) with its options written as ``stored`` writes
    them where they mean the same: a tournament stored before options were typed
    (``spec_from_dict``) keeps ``-o deals=1`` as the text "1", and the same command resumes it
    rather than be refused as another spec. Likewise a variance-bounded test stored before its
    forms were named (its JSON names none: the Catoni form, ``arbiter.rating.catoni.FORMS``) is
    the same test in that form, which the run then keeps (``catoni.as_stored``). Other values
    stay another spec."""
    if stored is not None and (old_test := without_form(key.get("sprt"))) is not None and old_test == stored.get("sprt"):
        key = {**key, "sprt": old_test}
    old = stored.get("options") if stored is not None else None
    if not isinstance(old, dict) or old == key.get("options"):
        return key
    try:
        same = typed_options(key["game"], old, key.get("preset")) == key.get("options")
    except (ConfigError, TypeError):
        return key
    return {**key, "options": dict(old)} if same else key
