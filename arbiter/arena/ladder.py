"""`arbiter arena`: a continuous rated ladder over one store, for one game.

One long-running process per ladder. It serves the Bots service (``serve_submissions``:
authors submit with their tokens; ``RegistryCatalog`` runs the sandboxed self-test and
refereed matches before anything is registered), and ``Arena.run`` keeps the ladder
going:

* **Entrants** come from the store's bot registry: the latest registered version of each
  bot that plays the game enters (as ``name@version``, its seat name); a newer version
  replaces it in matchmaking (its history stays); a version removed from the registry is
  withdrawn. ``house`` bots (bundled names, files: the operator's baselines) play too.
* **Encounters**: ``matchmaking.pick`` chooses the next table; the table plays ``deals`` deals,
  each in every seating (``run.seatings_of``, as a duplicate tournament does), from a
  seed drawn for this encounter alone (``secrets``; or derived from ``seed`` to
  reproduce a run) and stored before the first card is dealt. Bots are launched from the
  registry by ``name@version`` (the stored copy, its hash checked) by a ``BotHost`` of
  the encounter's own, under the ladder's isolation (``deal`` by default: no process ever
  plays two matches of one deal; with one deal per encounter that is ``match``, a fresh
  process for every seat of every match), and the private arbiter referees.
* **Commit**: the encounter, all its matches and its players' new ratings in one
  transaction (``arbiter.store.arenas``); ratings update after each encounter in the
  order they finish (``matchmaking.rate_encounter``). An encounter cut off (a stop, a crash,
  SIGKILL) is ``abandoned`` on the next start and never counted; a fresh one replaces it.
* **The gate** (``gate = "M0,M1"``, optional): a new version of a bot enters as a
  ``candidate`` and plays only its predecessor, encounter after encounter, until the
  sequential test ``arbiter evaluate --sprt`` would run (``arbiter.rating.betting.sequential_test``:
  by default the betting test, valid on any shape of deals; on the per-deal duplicate margin) decides:
  H1, it replaces it; H0, or no decision by ``gate_max_deals``, it is ``rejected`` and the
  old version plays on. The test is recomputed from the stored encounters, so a restart
  resumes a trial where it was; the trial's encounters are rated like any other.
* **Failures**: a bot that forfeits a match in ``suspend_after`` encounters in a row is
  suspended, with the reason, until a new version of it is registered (a house bot, which
  has none: until the arena restarts, its operator having mended what made it forfeit).
* **Disclosure** (``cardarena.disclosure.of_encounter``, ``EncounterRow.disclosure``): an
  encounter's deals come from its own seed, so once all of its seatings are played
  nothing of it can come back: a stored encounter (always complete) is open: its replays,
  results and seed may be shown. While it is played it is closed, and each seat's final
  view at the end of a match is its own.

* **The remote division** (``division = "remote"``): the entrants are the bots connected
  to the arena's own server (``serve_submissions``; ``Arena.hub``) with a bot token of
  its credentials file, each by its token's name (never the name its Hello claims): bots
  on their authors' machines, in any language. A bot enters when it first connects and is
  matched only while it is connected (once per seat of a side); they play only each other
  (no house bots, no registry versions, no gate). A suspended one comes back with a new
  connection (it has no new version to come back with). They do not compete on equal hardware,
  and they keep their memory: so every seating of an encounter is played on a deal of its
  own, never on a deal the bot saw before (the seatings still even out the seats, not the
  cards). The leaderboard says they are not hosted, and why.

``recompute`` replays the stored encounters through the rating model; ``verify`` says
where that disagrees with what is stored (nothing, unless the store was tampered with).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import secrets
import shutil
import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping, Sequence

from arbiter import metrics
from arbiter import scratch
from arbiter.batch.engine import BotsDoNotPlay, play_batch
from arbiter.batch.plan import Entry, PlannedMatch, Seatings, deal_seed, derive_seed, seatings_of
from arbiter.batch.settings import CONTENT_KEY, SpecError, bot_contents, bot_names, bot_sources, check_bot_spec, check_kind, check_registered, check_table, from_folder, keyed_spec, path_from_folder, read_toml
from arbiter.batch.submissions import RegistryCatalog, SubmissionCheck, check_bot
from arbiter.batch.venue import Kind, Where, open_venue, parse_where
from arbiter.hosting import sandbox as sb
from arbiter.hosting.botproc import DEFAULT_TRANSPORT, TRANSPORTS, BotStartError
from arbiter.hosting.loading import load_bot
from arbiter.server import auth
from arbiter.server import is_loopback
from arbiter.server.app import RunningServer, start_server
from arbiter.server.botstream import Hub
from arbiter.spectating.hub import SpectatorHub
from arbiter.store.arenas import STATUSES, ArenaMatch, ArenaRow, Arenas, EncounterRow, EntrantRow, PlayedMatch, PlayerUpdate
from arbiter.store.db import Store, StoreError
from arbiter.store.registry import Registry, RegistryError, is_registered_ref, lookup, registry_dir
from arbiter.arena import matchmaking
from arbiter.rating.betting import BettingTest, known_bounds, parse_bounds, sequential_test
from arbiter.rating.catoni import SWITCH_AFTER, AutoVarianceTest, BettingThenVariance, VarianceTest, stored_form
from arbiter.rating.sprt import H0, H1, MIN_DEALS, Sprt
from arbiter.rating.ratings import forfeit_stake, forfeits_line
from arbiter.rating.stats import MeanSE, pooled_sd, t_quantile
from cardarena.games import ConfigError, EndReason, Game, facts, get_game
from cardarena.games.options import check_settings, from_toml_tables, option, toml_tables, with_attributes
from cardarena.names import NAME_RULE, does_not_play, is_name
from cardarena.disclosure import of_encounter
from cardarena.records import MATCH_SETTINGS, MAX_CLOCK_MS, MAX_SEED, MAX_STRIKES, Clock, FailurePolicy, MatchConfig, MatchRecord, Policy

log = logging.getLogger(__name__)

HOUSE = "house"  # the author (and version) of a house bot
REMOTE = "remote"  # the author (and version) of a bot of the remote division: it runs on its author's machine

#: Why a registered version left the ladder, and what it is told if the same name@version is
#: registered again (the registry takes only the same files under a removed version's number).
REMOVED = "removed from the registry"
RETURNED = (", then registered again: a version that left the ladder does not come back under its old rating: "
            "submit it as a new version")

NOT_HOUSE = "no longer one of the arena's house bots"

#: The divisions: ``hosted`` (bots the arena runs, in its sandbox, on equal hardware) and
#: ``remote`` (bots that connect to the arena with their tokens, from their own machines).
DIVISIONS = ("hosted", REMOTE)

#: The gate's tests (``[gate] test``): ``arbiter evaluate --sequential``'s that test the
#: margin (``score`` asks another question).
GATE_TESTS = ("betting", "variance", "normal")
#: ``sequential_test``'s ValueError prefixes -> the ``[gate]`` setting each names.
_GATE_KEYS = {"sprt": "gate", "sd-bound": "gate.sd_bound", "bounds": "gate.bounds", "sequential": "gate.test",
              "alpha": "gate.alpha", "beta": "gate.beta", "min-deals": "gate.min_deals"}
#: How a candidate's reason names its gate's test.
_GATE_NAMES = {"betting": "the betting test", "variance": "the variance-bounded test", "normal": "the normal SPRT",
               "switch": "the betting test then the variance-bounded test"}


def gate_estimate(margin: MeanSE) -> str:
    """A gate trial's margin in its reasons: per deal, ± its 95% interval's half-width (Student's t
    with n - 1 degrees of freedom: the normal's 1.96 s.e. covered far less over a trial's first few
    deals), or, with no spread to give one from (one deal, or every deal alike), why not (it said
    "± 0": a certainty)."""
    over = f"per deal over {margin.n} deal{'s' if margin.n != 1 else ''}"
    why = margin.no_spread
    if why is not None or margin.se is None:
        return f"margin {margin.mean:+.3g} {over} ({why})"
    return f"margin {margin.mean:+.3g} ± {t_quantile(0.975, margin.n - 1) * margin.se:.3g} (95%) {over}"


def gate_forfeits(matches: Sequence[Any], candidate: str, old: str, stake: float) -> str:
    """What a trial's forfeits did to its margin, for its reasons ("" with none): each counts as a
    loss by the widest margin the rules allow (``ratings.forfeit_stake``), so a margin of -900 per
    deal would otherwise read as play: ``arbiter evaluate``'s forfeits line
    (``ratings.forfeits_line``). ``matches``: the trial's (``seats``, ``outcome``)."""
    total, by, kinds = 0, {}, {}
    for m in matches:
        if candidate not in m.seats or old not in m.seats:
            continue
        total += 1
        o = m.outcome
        if not o.reason.is_forfeit:
            continue
        last = max(o.ranks)  # the failing side ranks last (and only it: two sides)
        who = next(m.seats[s] for s, r in enumerate(o.ranks) if r == last)
        by[who] = by.get(who, 0) + 1
        kind = o.reason.value.removeprefix("forfeit_")
        kinds[kind] = kinds.get(kind, 0) + 1
    if not by:
        return ""
    return "; " + forfeits_line(by, kinds, f"the trial's {total} matches", stake)


def _gate_error(exc: ValueError) -> SpecError:
    """``sequential_test``'s error ("sd-bound: ...") as the ``[gate]`` setting it is about."""
    key, _, why = str(exc).partition(": ")
    return SpecError(f"{_GATE_KEYS.get(key, 'gate')}: {why or exc}")


# --------------------------------------------------------------------------------------
# The ladder's settings.


@with_attributes(MATCH_SETTINGS)  # decision_ms, bank_ms, policy, max_strikes
@dataclass(frozen=True)
class ArenaSpec:
    """One ladder. Its ``identity`` (game, options, deals, seatings, clock, failure policy,
    suspension rule, seed) is fixed when it is created: restarting with other rules is
    refused. ``house``, ``isolation``, ``concurrency`` and ``transport`` may change.

    Every setting is declared once, here (``cardarena.games.options``): its type, range or
    choices and default in the field, its meaning below; ``validate``, the ladder file's
    tables (``arena_from_dict``) and ``arbiter arena --help`` are read from it.

    Attributes:
        game: The ladder's game (arbiter rules GAME).
        name: The ladder's name in the store (default: the game).
        options: The game's options (arbiter rules GAME).
        preset: A named option preset of the game.
        deals: Deals per encounter, each played in every seating.
        seatings: The seatings of an encounter's deal: each side's bot at each side once
            (rotations) or every order (permutations).
        suspend_after: Suspend a bot after this many encounters in a row with a forfeit of
            its own (0: never).
        house: House bots that always play (bundled names, FILE.py, NAME=SPEC).
        isolation: Bot processes: deal (never two matches of one deal) or match (a fresh
            process per seat per match); an arena plays duplicate deals, so never shared.
        concurrency: Encounters at once.
        seed: Only to reproduce a run: encounter seeds derive from it (default: a secret
            seed per encounter).
        transport: How the house bots are reached: grpc, local, or inproc (in this
            process: trusted code; the bench).
        cluster: A Dask scheduler's address (tcp://HOST:8786): the encounters' matches run
            on its workers (docs/cluster.md).
        gate: M0,M1: a new version replaces its predecessor only once a sequential test
            on their duplicate deals accepts H1, its margin per deal >= M1 (H0: <= M0;
            game units): by default the betting test, valid on any shape of deals (a ladder
            file's gate table: test, bounds or sd_bound choose another). Default: at once.
        gate_alpha: The gate's test: the chance of accepting H1 when H0 holds.
        gate_beta: The gate's test: the chance of accepting H0 when H1 holds.
        gate_min_deals: The gate's test decides nothing before this many deals.
        gate_max_deals: No decision by this many deals: the candidate is rejected.
        gate_kind: The gate's test, as ``arbiter evaluate --sequential`` names it: betting
            (the default: anytime-valid on any shape of deals within the margin's bounds,
            the game's or ``gate_bounds``), variance (the variance-bounded test, with
            ``gate_sd_bound``; given a bound, the default) or normal (the normal-approximation
            SPRT, quicker on near-normal margins and erring up to 8x more often on skewed
            ones: docs/strength.md). A gate started before the betting test was the default
            keeps the normal SPRT it began with.
        gate_bounds: LO,HI: the least and most a deal's margin can be, for the betting test
            where the game's are not known (Spot); a deal outside is clipped.
        gate_sd_bound: The most a deal margin's s.d. can be between two versions (game
            units): the gate's test is then the variance-bounded one, whose error rates hold
            on any shape of deals within it, checked as they come (deals that contradict it
            reject the candidate). "auto": 1.2x the s.d. of the deals of the bot's earlier
            trials (as ``arbiter evaluate --sd-bound auto`` reads its store: 1 + 2/√N over
            N deals, less room with more), once they hold 100 deals; until then the betting test
            until the trial's own first 50 deals, then the variance-bounded test at 1.42x their s.d.
        division: hosted (submitted bots, run here in the sandbox) or remote: the bots
            connected to this arena's server with their bot tokens, from their own
            machines, matched only among themselves and shown as not hosted.
        kept_gate_form: Not a setting (no flag, no key in a file): the form of the
            variance-bounded gate's wealth a ladder stored before its forms were named began
            with ("catoni"), kept when it resumes; None: today's.
    """

    SettingsError: ClassVar[type] = SpecError

    game: str
    name: str = ""  # default: the game's name
    options: Mapping[str, Any] = option(factory=dict)
    preset: str | None = None
    # deals per encounter, each played in every seating; an encounter's matches are planned
    # at once (a typo of a few zeros would fill the memory) and stored in one transaction
    deals: int = option(1, min=1, max=10_000)
    seatings: str = option(Seatings.ROTATIONS.value, choices=tuple(s.value for s in Seatings))
    decision_ms: int = option(10_000, min=0, max=MAX_CLOCK_MS, table="clock")
    bank_ms: int = option(60_000, min=0, max=MAX_CLOCK_MS, table="clock")
    policy: str = option("forfeit", choices=tuple(p.value for p in Policy), table="failure")
    max_strikes: int = option(3, min=0, max=MAX_STRIKES, table="failure")
    suspend_after: int = option(3, min=0, max=MAX_STRIKES, also=("failure",))  # encounters in a row with a forfeit of its own (0: never suspend)
    house: tuple[str, ...] = ()  # bots that always play: bundled names, FILE.py, NAME=SPEC
    isolation: str = option("deal", choices=("deal", "match"))  # duplicate deals: never shared
    concurrency: int = option(1, min=1, max=64)  # encounters at once (each with its bot processes)
    seed: int | None = option(None, min=0, max=MAX_SEED)  # only to reproduce a run (tests, the bench): encounter seeds derive from it
    transport: str = option(DEFAULT_TRANSPORT, in_files=False)  # or grpc; or inproc: house bots in this process (trusted; the bench)
    cluster: str | None = None  # a Dask scheduler's address: encounters' matches run on its workers
    # The gate (``arbiter.rating.sprt``): a new version of a bot replaces the active one
    # only once a sequential test on their duplicate deals says it is better. "M0,M1":
    # H0 its margin per deal <= M0, H1 >= M1 (game units); None: new versions replace at once.
    gate: str | None = option(None, table="gate", key="sprt")
    gate_alpha: float = option(0.05, table="gate", key="alpha")
    gate_beta: float = option(0.05, table="gate", key="beta")
    gate_min_deals: int = option(MIN_DEALS, min=1, table="gate", key="min_deals")
    gate_max_deals: int = option(400, min=1, table="gate", key="max_deals")  # no decision by then: the candidate is rejected
    gate_sd_bound: float | None = option(None, table="gate", key="sd_bound", words=("auto",))  # the variance-bounded test (catoni)
    gate_kind: str | None = option(None, choices=GATE_TESTS, table="gate", key="test")  # default: betting (variance with an sd_bound)
    gate_bounds: str | None = option(None, table="gate", key="bounds")  # "LO,HI": the betting test's, where the game's are unknown
    # "remote": the entrants are the bots connected to the arena's server with their bot
    # tokens (their own machines), matched only among themselves; see ``Arena``.
    division: str = option("hosted", choices=DIVISIONS)
    # not a setting: the variance-bounded gate's form as a ladder stored before the forms were
    # named began it ("catoni"; ``resumed_as``), so that it resumes on its rules (None: today's)
    kept_gate_form: str | None = field(default=None, metadata={"in_files": False})

    @property
    def display_name(self) -> str:
        return self.name or self.game

    @property
    def remote(self) -> bool:
        return self.division == REMOTE

    @property
    def submissions_closed(self) -> str:
        """Why its server's Bots service takes no submission ("": it takes them): the remote
        division plays the bots connected to it, never a registered version."""
        if not self.remote:
            return ""
        return (f"arena {self.display_name!r} is a remote division: it plays the bots connected to it, never submitted "
                "ones, so nothing was registered. Ask its operator for a bot token (arbiter credentials add-bot NAME) "
                "and run your bot on your machine with it: ARENA_TOKEN=TOKEN python -m sdk --bot BOT --name NAME "
                "--address HOST:PORT (this arbiter's address)")

    def submission_check(self) -> SubmissionCheck:
        """How a version submitted to it is checked: ``check_bot`` on this ladder's clock. The
        check's own default (2000 ms a decision) refused, at a ladder of 10 s a decision, a bot
        3 s a decision that every match here would have let play, and let one of 1.5 s into a
        ladder of 500 ms, where it then forfeited until suspended."""
        return partial(check_bot, decision_ms=self.decision_ms, bank_ms=self.bank_ms)

    @property
    def where(self) -> Where:
        """Where its encounters are played (``arbiter.batch.venue``): the remote division's
        bots connect on their own; else ``transport`` and ``cluster``. VenueError (a
        SpecError) naming the field if they cannot be read."""
        if self.remote:
            return Where(Kind.REMOTE)
        return parse_where(self.transport, cluster=self.cluster,
                           allowed=(Kind.INPROC, Kind.GRPC, Kind.LOCAL, Kind.CLUSTER))

    def identity(self) -> dict[str, Any]:
        return {"game": self.game, "options": dict(self.options), "preset": self.preset, "deals": self.deals,
                "seatings": self.seatings, "decision_ms": self.decision_ms, "bank_ms": self.bank_ms,
                "policy": self.policy, "max_strikes": self.max_strikes, "suspend_after": self.suspend_after,
                "seed": self.seed, "gate": self.gate_test().to_json() | {"max_deals": self.gate_max_deals} if self.gate else None} \
            | ({"division": REMOTE} if self.remote else {})  # (absent: hosted, as every ladder made before divisions)

    def gate_test(self) -> BettingTest | VarianceTest | AutoVarianceTest | Sprt:
        """The gate's sequential test, picked as ``arbiter evaluate --sprt`` picks its own
        (``arbiter.rating.betting.sequential_test``): the betting test on the margin's bounds
        (the game's, or ``gate_bounds``), the variance-bounded one with ``gate_sd_bound`` (with
        "auto", its bound still to be read: ``Arena.gate_test_of``), or the normal SPRT
        (``gate_kind = "normal"``); SpecError naming the setting otherwise."""
        kind = self.gate_kind or ("variance" if self.gate_sd_bound is not None else "betting")
        auto = self.gate_sd_bound == "auto"
        if self.gate_sd_bound is not None and kind != "variance":
            raise SpecError(f"gate.sd_bound: only the variance-bounded test uses an s.d. bound (gate.test = {kind!r} "
                            "does not)")
        if self.gate_sd_bound is None and kind == "variance":
            raise SpecError("gate.test: the variance-bounded test needs gate.sd_bound = S (at most what a deal margin's "
                            "s.d. can be between two versions, with room) or \"auto\" (read from earlier trials)")
        if self.gate_bounds is not None and kind != "betting" and not auto:
            raise SpecError(f"gate.bounds: only the betting test uses bounds (gate.test = {kind!r} does not)")
        if kind == "betting":
            return self.gate_betting()
        if auto:
            self.gate_betting()  # a trial with too short a history runs it: its bounds must be known
        try:
            test = sequential_test(kind, str(self.gate), self.gate_alpha, self.gate_beta, min_deals=self.gate_min_deals,
                                   sd_bound=self.gate_sd_bound)
        except ValueError as exc:
            raise _gate_error(exc) from None
        return test if self.kept_gate_form is None else replace(test, form=self.kept_gate_form)

    def gate_betting(self) -> BettingTest:
        """The gate's betting test: by default its test, and with ``gate_sd_bound = "auto"`` the
        test of a trial that has too few deals of earlier trials to read a bound from."""
        which = ("sd_bound = \"auto\" runs the betting test until the bot's earlier trials hold enough deals, "
                 "and it" if self.gate_sd_bound == "auto" else "the betting test (the gate's default, valid on any "
                 "shape of deals)")
        try:
            bounds = parse_bounds(str(self.gate_bounds)) if self.gate_bounds is not None else \
                known_bounds(self.game, self.options, self.preset)
            if bounds is None:
                raise SpecError(f"gate: {which} needs the margin's bounds, not known for {self.game} under these "
                                f"options: in the ladder file's [gate] table give bounds = \"LO,HI\" (the least and "
                                f"most a deal's margin can be), sd_bound = S (the variance-bounded test) or test = "
                                f"\"normal\" (the normal SPRT: its error rates hold on near-normal margins only)")
            return sequential_test("betting", str(self.gate), self.gate_alpha, self.gate_beta, bounds=bounds,
                                   min_deals=self.gate_min_deals)
        except ValueError as exc:
            raise _gate_error(exc) from None

    def resumed_as(self, stored: Mapping[str, Any] | None) -> "ArenaSpec":
        """These settings as the arena stored under the same name began (``stored``: its stored
        spec; None: a new arena): a gate begun before the betting test was the default stored
        the normal SPRT (a test without a "test" key) and, while the settings name no test,
        keeps it, so that the ladder resumes on its rules."""
        gate = (stored or {}).get("gate")
        if self.gate is not None and self.gate_kind is None and self.gate_sd_bound is None \
                and isinstance(gate, dict) and "test" not in gate:
            return replace(self, gate_kind="normal")
        if self.gate is not None and self.gate_sd_bound is not None and (form := stored_form(gate)) is not None:
            return replace(self, kept_gate_form=form)  # the variance-bounded gate's form as it began
        return self

    def match_config(self, seed: int, match_id: str) -> MatchConfig:
        """One match of an encounter being played: closed (its deal comes back in the
        encounter's other seatings), so each seat's final view is its own."""
        return MatchConfig(game=self.game, seed=seed, options=dict(self.options), preset=self.preset,
                           clock=Clock(self.decision_ms, self.bank_ms),
                           policy=FailurePolicy.uniform(self.policy, self.max_strikes), match_id=match_id,
                           disclosure=of_encounter(self.name, None, "playing"))

    def validate(self) -> Game:
        """The configured game; SpecError naming the field otherwise."""
        try:
            game = get_game(self.game, self.options, self.preset)
        except ConfigError as exc:
            raise SpecError(f"game/options: {exc}") from None
        if len({len(t) for t in game.teams}) != 1:
            raise SpecError(f"game: {self.game} with these options has sides of different sizes; not supported")
        check_settings(self)  # every declared type, range and choice (deals, isolation, clock, failure...)
        if not self.decision_ms:
            raise SpecError("clock.decision_ms: a ladder needs a per-decision limit (0: none): without one a bot "
                            "losing an encounter could think forever, and the encounter, cut off when the arena "
                            "stops, would be abandoned, never counted (give milliseconds, e.g. 10000, the default)")
        self.where  # the transport and the cluster, read once (arbiter.batch.venue)
        if self.gate is None and (orphans := self._gate_settings_given()):
            raise SpecError(f"{', '.join(orphans)}: set, but there is no gate: the gate is on only with "
                            f"[gate] sprt = \"M0,M1\" (or --gate M0,M1); without it a new version replaces "
                            f"its predecessor at once")
        if self.gate is not None:
            self.gate_test()
            if len(game.teams) != 2:
                raise SpecError(f"gate: a version is tested against its predecessor head to head; {self.game} with "
                                f"these options has {len(game.teams)} sides, not 2")
            if self.gate_max_deals < self.gate_min_deals:
                raise SpecError(f"gate.max_deals: must be at least gate.min_deals ({self.gate_min_deals}), "
                                f"got {self.gate_max_deals!r}")
        if self.remote:
            for key, why in (("house", "house bots are hosted"), ("gate", "a connected bot has no versions to gate"),
                             ("cluster", "connected bots play on the arena's own server")):
                if getattr(self, key):
                    raise SpecError(f"{key}: not in the remote division ({why}): its bots only play each other")
            if self.transport not in TRANSPORTS:  # its own house bots have none: only the wire's default
                raise SpecError("transport: the remote division's bots connect over gRPC")
        if self.name and not is_name(self.name):
            raise SpecError(f"name: bad arena name {self.name[:80]!r}: {NAME_RULE}")
        if self.name.isdigit():
            raise SpecError(f"name: {self.name!r}: a name of digits alone reads as another arena's id: add a letter")
        names = bot_names(self.house)
        if len(set(names)) != len(names):
            raise SpecError(f"house: two house bots are called the same: {list(names)}")
        for spec, source in zip(self.house, bot_sources(self.house)):  # before the first encounter, not in each
            check_bot_spec(spec, source, self.game, "house")
        return game

    def gate_powerless(self) -> str:
        """Why the gate's betting test could not accept H1 within ``gate_max_deals`` even were
        every deal's margin twice what H1 asks, with no spread at all: its bounds (the game's:
        a whole Spades game's are +-186000) are so wide that it bets next to nothing, and every
        new version, however much better, would be rejected with "no decision" after
        ``gate_max_deals`` deals of its authors' waiting ("" if it could, or is another test)."""
        test = self.gate_test() if self.gate is not None else None
        if not isinstance(test, BettingTest):
            return ""
        best = test.m1 + (test.m1 - test.m0)
        if test.run([best] * self.gate_max_deals, max_deals=self.gate_max_deals).decision == H1:
            return ""
        # bounds given are the ones to narrow: the game's options no longer set them
        given = self.gate_bounds is not None
        where = "gate.bounds" if given else f"{self.game}'s bounds under these options"
        bounds = "narrower bounds" if given else "bounds = \"LO,HI\""
        shortest = " ".join(f"-o {k}={v}" for k, v in facts("smoke_options")[self.game].items())  # the game's own
        shorter = "" if given else f", or shorter matches (the game's options, e.g. {shortest})"
        return (f"gate: the betting test on a deal margin between {test.lo:g} and {test.hi:g} ({where}) "
                f"cannot accept H1 within gate.max_deals = {self.gate_max_deals} deals even if every deal's "
                f"margin were {best:g} with no spread (H1 asks {test.m1:g}): bounds that wide leave it no "
                f"power, and every new version would be rejected. In the ladder file's [gate] table give {bounds} "
                f"(the margins that really occur), a larger max_deals, sd_bound = S (the variance-bounded test) or "
                f"test = \"normal\"; or a larger M1{shorter}")

    def _gate_settings_given(self) -> list[str]:
        """The ``[gate]`` settings given other than their defaults (as the file names them)."""
        out = []
        for f in dataclasses.fields(self):
            if f.name.startswith("gate_") and getattr(self, f.name) != f.default:
                out.append(f"gate.{f.metadata.get('key') or f.name}")
        return out

    @property
    def host_isolation(self) -> str:
        """The ``BotHost`` isolation: with one deal per encounter, ``deal`` guarantees
        exactly what ``match`` does (every match of the encounter is of that one deal), and
        ``match`` starts the next match's processes while one plays."""
        return "match" if self.isolation == "deal" and self.deals == 1 else self.isolation


@dataclass(frozen=True)
class ServiceConfig:
    """Where the arena listens (the ``[server]`` table of its file, or flags).

    Attributes:
        host: Interface of the Bots service and the web page (anything but loopback
            needs TLS).
        port: Port of the Bots service (0: any free port).
        web_port: Port of the leaderboard page (0: any free port; -1: none).
        credentials: The credentials file (author and admin tokens; mode 0600); one a ladder file
            names by a relative path is in the file's folder.
        authors: Author tokens to issue (kept in the credentials file).
        db: SQLite store file; one a ladder file names by a relative path is in the file's folder.
    """

    host: str = option("127.0.0.1", table="server")
    port: int = option(50051, min=0, max=65535, table="server")  # the Bots service (submissions)
    web_port: int = option(8080, min=-1, max=65535, table="server")  # the leaderboard (arbiter.present.web); -1: no web page
    credentials: str = option(auth.DEFAULT_FILE, table="server")
    authors: tuple[str, ...] = option((), table="server")  # author tokens to issue (kept in the credentials file)
    db: str = option("arena.sqlite", table="server")

    def check(self, tls: tuple[bytes, bytes] | None = None, insecure: bool = False) -> None:
        """SpecError naming what cannot be served as set: a host that reaches other machines
        without TLS, an author name no token can be issued for; CredentialsError for a
        credentials file that cannot be read. Checked before the ladder's store is opened, not
        after it was created in it."""
        if not is_loopback(self.host) and tls is None and not insecure:
            raise SpecError(f"host {self.host} reaches other machines: give a TLS certificate and key (or --insecure)")
        for name in self.authors:
            if fault := auth.author_name_fault(name):
                raise SpecError(f"server.authors: {fault}")
        if os.path.lexists(self.credentials):  # (a missing one is made when the service starts)
            auth.read(self.credentials)
        elif not Path(self.credentials).parent.is_dir():  # (nor is its folder: said now, not once the store is made)
            raise auth.CredentialsError(f"{self.credentials}: no folder {Path(self.credentials).parent} (create it first)")


#: The ladder file's tables and their keys, from the declarations (``toml_tables``).
TABLES = toml_tables(ArenaSpec, ServiceConfig)


def arena_from_dict(data: Mapping[str, Any], overrides: Mapping[str, Any] | None = None,
                    source: str = "arena", folder: str | os.PathLike | None = None) -> tuple[ArenaSpec, ServiceConfig]:
    """The ladder and service settings from TOML-shaped data; ``overrides`` (flags; None
    values ignored) win. Keys of the service go to ServiceConfig, the rest to ArenaSpec.
    ``folder``: the one ``data``'s relative house-bot paths, store (``db``) and credentials file
    are relative to (``from_folder``, ``path_from_folder``), a file's; the flags' (``--house``,
    ``--db``, ``--credentials``) and the defaults are the current directory's."""

    if folder is not None:  # a file's
        check_kind(data, ("bots", "format", "challenger", "teams"), source, "a tournament spec", "a ladder file",
                   "arbiter tournament run")
    for table, keys in TABLES.items():
        check_table(data if not table else data.get(table, {}), keys, f"{table}." if table else "", source)
    try:
        given = from_toml_tables(data, ArenaSpec, ServiceConfig)
    except ConfigError as exc:
        raise SpecError(f"{source}: {exc}") from None
    kw: dict[str, Any] = given["ArenaSpec"]
    server: dict[str, Any] = given["ServiceConfig"]
    if folder is not None and isinstance(kw.get("house"), (list, tuple)):  # (not strings: refused below)
        kw["house"] = [from_folder(b, folder) if isinstance(b, str) else b for b in kw["house"]]
    for key in ("db", "credentials") if folder is not None else ():
        if isinstance(server.get(key), str):
            server[key] = path_from_folder(server[key], folder)
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key == "options":
            kw["options"] = {**kw.get("options", {}), **value}
        elif key in ServiceConfig.__dataclass_fields__:
            server[key] = value
        else:
            kw[key] = value
    for key in ("house",):
        if key in kw:
            if not all(isinstance(x, str) for x in kw[key]):
                raise SpecError(f"{source}: field {key}: expected a list of bot specs (strings)")
            kw[key] = tuple(kw[key])
    if "authors" in server:
        server["authors"] = tuple(server["authors"])
    if "game" not in kw:
        raise SpecError(f"{source}: missing field 'game'")
    service = ServiceConfig(**server)
    try:
        check_settings(service)  # its ports' range: refused here, not by the socket's bind
    except ConfigError as exc:
        raise SpecError(f"{source}: {exc}") from None
    return ArenaSpec(**kw), service


def arena_from_toml(path: str | os.PathLike, overrides: Mapping[str, Any] | None = None) -> tuple[ArenaSpec, ServiceConfig]:
    """Read a ladder file; ``overrides`` (flags) win. A house bot given by a relative path is
    relative to the file's folder (``from_folder``: its absolute path), as a tournament spec
    file's bots are, and so are its ``[server] db`` and ``credentials``; ``--house``'s,
    ``--db``'s and ``--credentials``' to the current directory."""
    return arena_from_dict(read_toml(path), overrides, source=str(path), folder=Path(path).parent)


# --------------------------------------------------------------------------------------
# What may be shown, and what can be recomputed.


def open_arena_tables(store: Store) -> Arenas:
    return Arenas(store)


def _by_encounter(tables: Arenas, arena: ArenaRow) -> dict[int, list[ArenaMatch]]:
    by_enc: dict[int, list[ArenaMatch]] = {}
    for m in tables.matches(arena.id, records=False):
        by_enc.setdefault(m.encounter, []).append(m)
    return by_enc


def replayed(tables: Arenas, arena: ArenaRow, legacy: bool = False) -> tuple[dict[int, matchmaking.Rated], matchmaking.Rated]:
    """Every rating replayed from the stored encounters and matches alone: each finished
    encounter's players' ratings after it (by encounter index), and every entrant's current
    rating. A forfeit costs its failing side the game's widest margin (``ratings.forfeit_stake``);
    ``legacy``: its stored all-zero scores, as ladders counted it before 7 December 2026."""
    game = arena.rules()
    stake = None if legacy else forfeit_stake(game)
    by_enc = _by_encounter(tables, arena)
    state: matchmaking.Rated = {}
    after: dict[int, matchmaking.Rated] = {}
    for e in tables.encounters(arena.id, "done"):
        new = matchmaking.rate_encounter(state, e.players, matchmaking.deal_points(by_enc.get(e.idx, []), game.teams,
                                                                                   e.players, stake))
        state.update(new)
        after[e.idx] = {p: new[p] for p in e.players}
    current = {ent.player: state.get(ent.player, (matchmaking.MU, matchmaking.SIGMA)) for ent in tables.entrants(arena.id)}
    return after, current


def recompute(tables: Arenas, arena: ArenaRow) -> matchmaking.Rated:
    """Every entrant's rating replayed from the stored encounters and matches alone."""
    return replayed(tables, arena)[1]


def verify(tables: Arenas, arena: ArenaRow, legacy: bool = False) -> list[str]:
    """Where the ratings replayed from the stored results differ from the stored ones
    (each encounter's ``ratings`` after it, and every entrant's current rating): empty
    when the store is consistent. Compared exactly (floats round-trip through SQLite).
    ``legacy``: as ``replayed``'s (were they stored by the rule before 7 December 2026?)."""
    after, current = replayed(tables, arena, legacy)
    problems = []
    for e in tables.encounters(arena.id, "done"):
        if after[e.idx] != {p: tuple(e.ratings.get(p, ())) for p in e.players}:
            problems.append(f"encounter {e.idx} (seq {e.seq}): stored {e.ratings}, recomputed {after[e.idx]}")
    for ent in tables.entrants(arena.id):
        want = current[ent.player]
        if (ent.mu, ent.sigma) != want:
            problems.append(f"{ent.player}: stored {ent.mu!r} ± {ent.sigma!r}, recomputed {want[0]!r} ± {want[1]!r}")
    return problems


def rating_history(tables: Arenas, arena: ArenaRow, player: str) -> list[tuple[int, float, float]]:
    """(seq, mu, sigma) after each of ``player``'s encounters, in order."""
    return [(e.seq or 0, *e.ratings[player]) for e in tables.encounters(arena.id, "done", player) if player in e.ratings]


# --------------------------------------------------------------------------------------
# Running a ladder.


@dataclass(frozen=True)
class EncounterDone:
    """Reported after every stored encounter."""

    arena: str
    idx: int
    seq: int
    players: tuple[str, ...]
    points: dict[str, float]  # mean points per deal
    ratings: dict[str, tuple[float, float]]
    failures: dict[str, str]
    suspended: tuple[str, ...]
    matches: int
    #: per player who forfeited in it: (forfeits in this encounter, encounters in a row with one)
    forfeits: dict[str, tuple[int, int]] = field(default_factory=dict)
    suspend_after: int = 0  # the spec's: encounters in a row with a forfeit before a suspension (0: never)
    #: candidate -> the gate's verdict on it after this encounter ("active: ..." or "rejected: ...")
    verdicts: dict[str, str] = field(default_factory=dict)


class Arena:
    """One ladder's matchmaking loop over a store (``run``). The store's run lock is held
    while it runs: one arena process per store file."""

    def __init__(self, spec: ArenaSpec, db_path: str | os.PathLike, *, sandbox: sb.Sandbox | None = None,
                 on_encounter: Callable[[EncounterDone], None] | None = None, poll: float = 0.5,
                 matchmaker: Callable[["Arena", list[matchmaking.Candidate], set[str]], tuple[str, ...] | None] | None = None):
        self.spec = spec
        self.game = spec.validate()
        self.db_path = Path(db_path)
        self.sandbox = sandbox
        self.on_encounter = on_encounter
        self.poll = poll
        self.matchmaker = matchmaker
        self.store: Store | None = None
        self.tables: Arenas | None = None
        self.row: ArenaRow | None = None
        self.entrants: dict[str, EntrantRow] = {}
        self.ratings: matchmaking.Rated = {}
        self.busy: dict[str, int] = {}  # player -> encounters it is playing now
        self.finished = 0  # encounters stored by this run
        self.matches_played = 0  # matches stored by this run
        self.abandoned = 0  # found unfinished on start
        self.cut_off = 0  # encounters under way when this run stopped: abandoned, never counted
        self._tick = 0  # encounters started (all runs)
        self._last_start: dict[str, int] = {}
        self._registry: Registry | None = None
        self._house = dict(zip(bot_names(spec.house), bot_sources(spec.house)))
        self._local: dict[str, Any] = {}
        #: the sessions of the arena's own server (``serve_submissions``): where the remote
        #: division's bots connect with their tokens (set before ``run``)
        self.hub: Hub | None = None
        #: where the encounters' matches are watched live (a SpectatorHub: the arena's own
        #: server's, ``serve_submissions``), as a tournament's are: the same frames, and each
        #: match's disclosure (of_encounter) decides its end; None: not watchable
        self.spectators: Any = None
        #: remote bot -> its sessions live when it was suspended: a new one brings it back
        self._suspended_on: dict[str, set[str]] = {}
        #: remote bot -> encounters started (``_tick``) when a new connection brought it back
        #: from its suspension: one begun before was its old connection's (``_commit``)
        self._back: dict[str, int] = {}
        #: candidate -> its trial's test and where an "auto" bound came from (``_trial_test``)
        self._trial_tests: dict[str, tuple[Any, str]] = {}

    # -- set up ------------------------------------------------------------------------

    def open(self) -> None:
        """Open and lock the store, create or resume the ladder, abandon what was cut off,
        and check the stored ratings against the stored results. A registered house bot
        (``name@version``) the store does not hold is refused first, before a store is made."""
        check_registered(self.spec.house, self.db_path, "house")
        self.store = Store(self.db_path)
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    def _open(self) -> None:
        assert self.store is not None
        self.store.lock(arena=self.spec.display_name)
        self.tables = Arenas(self.store)
        self._registry = Registry(self.db_path)
        copies = registry_dir(self.db_path)
        if not copies.is_dir() and self._registry.versions():
            # each registered version's launch would fail for want of its copy, and withdraw it
            # for good: the store was moved or copied without the folder beside it
            raise StoreError(f"{self.db_path}: the registered bots' stored copies are missing: no folder {copies} "
                             f"(a store's bot copies live beside it, in {copies.name}/): put that folder back beside "
                             f"the store, or every registered version would be withdrawn, unable to launch")
        row = self.tables.find(self.spec.display_name)  # (a corrupt one is a StoreError, never a new ladder)
        stored = row.spec if row is not None else None
        entered = {e.player: e.source for e in self.tables.entrants(row.id) if e.author == HOUSE} if row is not None else {}
        gate = (stored or {}).get("gate")
        if isinstance(gate, dict) and self.spec.gate is None and {"m0", "m1"} <= gate.keys():
            # (a gate given by --gate alone, left out of the restart: its stored form is no setting to type)
            raise StoreError(f"arena {self.spec.display_name!r} in {self.store.path} began with a gate: give it again "
                             f"(--gate {gate['m0']:g},{gate['m1']:g}, or [gate] sprt = \"{gate['m0']:g},{gate['m1']:g}\" "
                             f"in its file, with the gate's other settings as they were), or give the ladder another name")
        self.spec = self.spec.resumed_as(stored)
        if why := self.spec.gate_powerless():
            if stored is None:  # a new ladder: refused before any author waits on it
                raise SpecError(why)
            log.warning("arena %s: %s", self.spec.display_name, why)  # one begun so: its rules are kept
        # A house bot given as a file keeps its contents: edited, it would be another bot under the
        # same rating. House bots may come and go, and a file's path be spelt otherwise (another
        # folder, ./): it is the same bot as long as its contents are (``earlier``: its first spelling)
        earlier = {source: entered[name] for name, source in self._house.items() if name in entered}
        key = keyed_spec(self.spec.identity(), bot_contents(self.spec.house), stored, self.spec.display_name,
                         str(self.store.path),
                         way_on="a ladder keeps its rules and its house bots (a version never changes): put the "
                                "file back as it was, or give the arena another name (--name)", earlier=earlier)
        self.row = self.tables.open_arena(self.spec.display_name, self.spec.game, key, grows=CONTENT_KEY)
        self._house = self._house_as_entered()
        self.abandoned = self.tables.abandon_unfinished(self.row.id)
        if self.abandoned:  # (info: arbiter arena says it to its operator, once)
            log.info("arena %s: %d encounter(s) cut off by the last stop were abandoned (never counted)",
                     self.row.name, self.abandoned)
        problems = verify(self.tables, self.row)
        if problems:  # the results are the truth
            if not verify(self.tables, self.row, legacy=True):  # rated before forfeits counted at the widest margin
                log.warning("arena %s: ratings recomputed: since 7 December 2026 a forfeit counts in a deal's "
                            "margin as the widest loss the rules allow (%g), so that no bot gains by forfeiting; "
                            "the stored ratings read a forfeit by its stored all-zero scores, as no margin at all", self.row.name, forfeit_stake(self.game))
            else:  # only a store edited by hand gets here
                log.error("arena %s: stored ratings differ from the stored results; recomputed: %s", self.row.name,
                          problems[:3])
            after, current = replayed(self.tables, self.row)
            self.tables.set_rating(self.row.id, current, after)
        self._refresh()
        self._house_back()
        encs = self.tables.encounters(self.row.id, None)
        self._tick = len(encs)
        for e in sorted(encs, key=lambda e: e.idx):
            for p in e.players:
                self._last_start[p] = e.idx + 1

    def close(self) -> None:
        if self._registry is not None:
            self._registry.close()
            self._registry = None
        if self.store is not None:
            self.store.close()
            self.store = None

    def _house_back(self) -> None:
        """A suspended house bot plays again when the arena starts: it has no new version to
        come back with (a submitted bot's way back), and what made it forfeit is the operator's
        to mend (its file, the sandbox, the machine) before the restart that brings it back."""
        assert self.tables is not None and self.row is not None
        back = [e.player for e in self.entrants.values()
                if e.author == HOUSE and e.status == "suspended" and e.player in self._house]
        for player in back:
            self.tables.reinstate(self.row.id, player, "back: the arena restarted after its suspension")
            log.info("arena %s: house bot %s plays again after its suspension (the arena restarted)", self.row.name, player)
        if back:
            self._refresh()

    def _house_as_entered(self) -> dict[str, str]:
        """The house bots (name -> source) by the names this arena entered them under: an older
        arbiter named a ``module:Class`` one by its module's stem (``bot_names``), and under
        another name now it would be a new player, its rating and history left behind."""
        assert self.tables is not None and self.row is not None
        entered = {e.source: e.player for e in self.tables.entrants(self.row.id) if e.author == HOUSE}
        out = {}
        for name, source in self._house.items():
            old = entered.get(source)
            out[old if old is not None and old not in self._house else name] = source
        return out

    def _refresh(self) -> None:
        assert self.tables is not None and self.row is not None
        self.entrants = {e.player: e for e in self.tables.entrants(self.row.id)}
        self.ratings = {p: (e.mu, e.sigma) for p, e in self.entrants.items()}

    # -- entrants ----------------------------------------------------------------------

    def sync_entrants(self) -> None:
        """Bring the entrants in line with the registry and the house bots (the remote
        division: with the bots connected now)."""
        assert self.tables is not None and self.row is not None and self._registry is not None
        arena_id = self.row.id
        if self.spec.remote:
            self._sync_connected()
            return
        changed = False
        latest: dict[str, Any] = {}
        registered: set[str] = set()
        for v in self._registry.versions():
            registered.add(f"{v.name}@{v.version}")
            if not v.games or "*" in v.games or self.spec.game in v.games:
                latest[v.name] = v  # versions come in submission order: the last one wins
        for e in list(self.entrants.values()):
            if e.author != HOUSE and e.status in ("active", "candidate") and e.player not in registered:
                self.tables.set_status(arena_id, e.player, "withdrawn", REMOVED)
                changed = True
            elif e.author != HOUSE and e.status in ("active", "candidate") and e.name in self._house:
                self.tables.set_status(arena_id, e.player, "withdrawn", self._house_name(e.name))  # a house bot came since
                changed = True
        if changed:  # (first: a version withdrawn now may bring back the one it replaced)
            self._refresh()
        for name, v in sorted(latest.items()):
            player = f"{v.name}@{v.version}"
            if player in self._house:  # this very version is a house bot (house = ["mine@2"]): it plays as one, once
                continue
            if name in self._house:  # one name, two bots: its rating, page and `bots show` would mix them
                if player not in self.entrants:
                    self.tables.add_entrant(arena_id, player, v.name, v.version, v.author, "", matchmaking.MU,
                                            matchmaking.SIGMA, status="withdrawn", reason=self._house_name(name))
                    log.warning("arena %s: %s not entered: %s is a house bot's name", self.row.name, player, name)
                    changed = True
                continue
            if player in self.entrants:
                e = self.entrants[player]
                # it left (between encounters, or during one: "removed from the registry while it
                # played ..."): it stays out (RETURNED), said once
                if e.status == "withdrawn" and e.reason.startswith(REMOVED) and not e.reason.endswith(RETURNED):
                    self.tables.set_status(arena_id, player, "withdrawn", e.reason + RETURNED)
                    changed = True
                elif e.status == "replaced" and not any(x.status in ("active", "candidate") for x in self.entrants.values()
                                                        if x.name == name and x.author != HOUSE):
                    gone = [x.player for x in self.entrants.values() if x.name == name and x.joined > e.joined
                            and x.status == "withdrawn"]  # the latest registered version again: it plays on
                    self.tables.set_status(arena_id, player, "active", f"back: the latest registered version again "
                                           f"({', '.join(gone) or 'its successors'} withdrawn)")
                    log.info("arena %s: %s plays again", self.row.name, player)
                    changed = True
                continue
            mine = [e for e in self.entrants.values() if e.name == name and e.author != HOUSE]
            earlier = [e.player for e in mine if e.status == "active"]
            on_trial = [e.player for e in mine if e.status == "candidate"]  # superseded before its trial ended
            if self.spec.gate and earlier:
                why = self._on_trial(", ".join(earlier), *self.gate_test_of(v.name, time.time()))
                self.tables.add_entrant(arena_id, player, v.name, v.version, v.author, "", matchmaking.MU, matchmaking.SIGMA,
                                        on_trial, status="candidate", reason=why)
                log.info("arena %s: %s entered on trial against %s", self.row.name, player, ", ".join(earlier))
            else:
                # with a gate, a predecessor suspended has no trial to play: said, not left blank
                held = [e.player for e in mine if e.status == "suspended"] if self.spec.gate and not earlier else []
                why = (f"entered with no gate trial: its predecessor{'s' * (len(held) > 1)} {', '.join(held)} "
                       f"{'are' if len(held) > 1 else 'is'} suspended") if held else ""
                self.tables.add_entrant(arena_id, player, v.name, v.version, v.author, "", matchmaking.MU, matchmaking.SIGMA,
                                        earlier + on_trial, reason=why)
                log.info("arena %s: %s entered%s", self.row.name, player, f" (replacing {', '.join(earlier)})" if earlier else "")
            changed = True
        for name, source in self._house.items():
            if name not in self.entrants:
                self.tables.add_entrant(arena_id, name, name, HOUSE, HOUSE, source, matchmaking.MU, matchmaking.SIGMA)
                changed = True
            elif self.entrants[name].status == "withdrawn" and self.entrants[name].author == HOUSE \
                    and self.entrants[name].reason == NOT_HOUSE:  # back in the house (not one that cannot play)
                self.tables.set_status(arena_id, name, "active")
                changed = True
        for e in list(self.entrants.values()):
            if e.author == HOUSE and e.status == "active" and e.player not in self._house:
                self.tables.set_status(arena_id, e.player, "withdrawn", NOT_HOUSE)
                changed = True
        if changed:
            self._refresh()
        for e in list(self.entrants.values()):  # a verdict a crash may have left unwritten
            if e.status == "candidate":
                self.judge(e.player)

    @staticmethod
    def _house_name(name: str) -> str:
        return (f"{name} is the name of one of this arena's house bots: it does not play here under it "
                f"(submit it under another name)")

    def _live_sessions(self, player: str) -> set[str]:
        return {s.session_id for s in list(self.hub.sessions.values()) if s.bot_name == player and not s.closed} \
            if self.hub is not None else set()

    def _connections(self) -> dict[str, int]:
        """Bot -> its live sessions that play the game, on the arena's server. A session's
        name is its token's bot: who it is, never what its Hello claims."""
        out: dict[str, int] = {}
        for session in list(self.hub.sessions.values()) if self.hub is not None else ():
            if not session.closed and session.plays(self.spec.game):
                out[session.bot_name] = out.get(session.bot_name, 0) + 1
        return out

    def _sync_connected(self) -> None:
        """The remote division: a bot enters when it first connects (by its token's name);
        one that is not connected stays on the ladder, but is not matched until it is back."""
        assert self.tables is not None and self.row is not None
        new = [name for name in sorted(self._connections()) if name not in self.entrants]
        for name in new:
            self.tables.add_entrant(self.row.id, name, name, REMOTE, REMOTE, "", matchmaking.MU, matchmaking.SIGMA)
            log.info("arena %s: remote bot %s entered", self.row.name, name)
        # A suspended remote bot has no new version to come back with: a new connection
        # (its author restarted it, or this arena restarted) is its way back.
        back = [e.player for e in self.entrants.values() if e.author == REMOTE and e.status == "suspended"
                and self._live_sessions(e.player) - self._suspended_on.get(e.player, set())]
        for player in back:
            self.tables.reinstate(self.row.id, player, "back: a new connection after its suspension")
            self._suspended_on.pop(player, None)
            self._back[player] = self._tick
            log.info("arena %s: remote bot %s reconnected after its suspension: it plays again", self.row.name, player)
        if new or back:
            self._refresh()

    # -- the gate ------------------------------------------------------------------------

    def predecessor(self, candidate: str) -> str | None:
        """The active version a candidate is on trial against."""
        name = self.entrants[candidate].name
        active = [e.player for e in self.entrants.values() if e.name == name and e.author != HOUSE and e.status == "active"]
        return active[-1] if active else None

    def gate_test_of(self, name: str, before: float) -> tuple[Any, str]:
        """The gate's test for a version of the bot ``name`` that entered the ladder at ``before``,
        and where an "auto" s.d. bound came from ("" for any other test). With ``gate_sd_bound =
        "auto"``: ``room`` x the s.d. of the deal margins of the bot's earlier trials (encounters
        of two of its versions finished before ``before``, pooled about each pair's own mean, as
        ``arbiter evaluate --sd-bound auto`` pools its evaluations), once they hold ``history``
        deals; until then the betting test until the trial's own ``history`` deals, then the
        variance-bounded test on their s.d. (``BettingThenVariance``; a ladder begun in the Catoni
        form, before it, the betting test throughout). Read from the stored encounters alone, so a restarted
        arena goes on testing a trial at the bound it began with."""
        test = self.spec.gate_test()
        if not isinstance(test, AutoVarianceTest):
            return test, ""
        assert self.tables is not None and self.row is not None
        versions = {e.player for e in self.entrants.values() if e.name == name and e.author not in (HOUSE, REMOTE)}
        trials: dict[tuple[str, ...], list[float]] = {}
        for e in self.tables.encounters(self.row.id, "done"):
            if len(e.players) == 2 and set(e.players) <= versions and e.finished is not None and e.finished < before:
                a, b = sorted(e.players)
                matches = self.tables.matches(self.row.id, e.idx, records=False)
                trials.setdefault((a, b), []).extend(matchmaking.deal_margins(matches, a, b, forfeit_stake(self.game)))
        deals = sum(map(len, trials.values()))
        sd = pooled_sd(trials.values())
        if deals < test.history or sd is None:
            why = f"sd_bound = \"auto\" with {deals} deals of {name}'s earlier trials, fewer than the {test.history} it reads"
            if test.form == "catoni":  # a ladder begun before the switch: the betting test, as it began
                return self.spec.gate_betting(), why
            # the trial's own first deals serve as they come, as evaluate's default does (BettingThenVariance)
            switch = BettingThenVariance(self.spec.gate_betting(), min(test.history, SWITCH_AFTER), test.form)
            return switch, (f"{why}: the betting test until this trial's own {switch.after} deals, then the "
                            f"variance-bounded test at {switch.room:.3g}x their s.d.")
        room = test.room_for(deals)
        bounded = test.resolve(sd, room)
        return bounded, (f"s.d. bound {bounded.sd_bound:g}: {room:.3g}x the s.d. {sd:.3g} of {deals} deals of "
                         f"{name}'s earlier trials")

    def _trial_test(self, candidate: str) -> tuple[Any, str]:
        """``gate_test_of`` for a candidate, read once: it depends on nothing stored after the
        candidate entered (an "auto" bound reads every earlier trial's deals)."""
        if candidate not in self._trial_tests:
            e = self.entrants[candidate]
            self._trial_tests[candidate] = self.gate_test_of(e.name, e.joined)
        return self._trial_tests[candidate]

    def _on_trial(self, old: str, test: Any, source: str) -> str:
        """A candidate's reason while its trial goes on (the progress is added as it plays)."""
        how = _GATE_NAMES[test.name] + (f" ({source})" if source else "")
        return (f"on trial against {old}: it replaces it once {how} on their duplicate deals accepts H1 (margin per "
                f"deal >= {test.m1:g}; H0: <= {test.m0:g})")

    def gate_state(self, candidate: str, old: str, test: Any = None, trial: list[list[ArenaMatch]] | None = None) -> Any:
        """The gate's sequential test (``test``; default the candidate's, ``gate_test_of``) over
        every deal the two have played head to head, in the order the encounters finished:
        recomputed from the store, so a restarted arena goes on where it was (``trial``: their
        matches, ``_trial_matches``, if the caller has read them)."""
        margins: list[float] = []
        for matches in self._trial_matches(candidate, old) if trial is None else trial:
            margins += matchmaking.deal_margins(matches, candidate, old, forfeit_stake(self.game))
        test = self._trial_test(candidate)[0] if test is None else test
        return test.run(margins, max_deals=self.spec.gate_max_deals)

    def _trial_matches(self, candidate: str, old: str) -> list[list[ArenaMatch]]:
        """The matches of each encounter the two have played head to head, in the order the
        encounters finished."""
        assert self.tables is not None and self.row is not None
        return [self.tables.matches(self.row.id, e.idx, records=False)
                for e in self.tables.encounters(self.row.id, "done", candidate) if set(e.players) == {candidate, old}]

    def judge(self, candidate: str) -> str | None:
        """Apply the gate's verdict on ``candidate``, if there is one: "H1" (it replaces its
        predecessor), "H0", "cap" or "contradicted" (the deals contradict ``gate_sd_bound``: it is
        rejected); None while the trial goes on."""
        assert self.tables is not None and self.row is not None
        old = self.predecessor(candidate)
        if old is None:  # its predecessor left the ladder (withdrawn, suspended): nothing to beat
            self.tables.promote(self.row.id, candidate, (), "its predecessor left the ladder before the trial ended")
            self._refresh()
            return H1
        test, source = self._trial_test(candidate)
        trial = self._trial_matches(candidate, old)
        st = self.gate_state(candidate, old, test, trial)
        named = _GATE_NAMES[test.name]
        est = gate_estimate(st.margin)  # with what forfeits made of it: a margin of -900 reads as play
        forfeits = gate_forfeits([m for ms in trial for m in ms], candidate, old, forfeit_stake(self.game))
        version = self.entrants[candidate].version
        if st.decision == H1:
            self.tables.promote(self.row.id, candidate, (old,),
                                f"version {version} passed the gate against {old}: {est} (H1 accepted by {named}){forfeits}")
            verdict = H1
        elif st.decision == H0:
            self.tables.set_status(self.row.id, candidate, "rejected",
                                   f"did not pass the gate against {old}: {est} (H0 accepted by {named}: not "
                                   f"better by {test.m1:g}){forfeits}")
            verdict = H0
        elif getattr(st, "contradicted", False):
            self.tables.set_status(self.row.id, candidate, "rejected",
                                   f"did not pass the gate against {old}: the deals contradict the gate's s.d. bound "
                                   f"{st.sd_bound:g} after {st.deals} deals ({est}), so its test takes no verdict; "
                                   + ("the next version's trial reads its bound again, these deals among them"
                                      if source else "a larger gate.sd_bound tests it again with the next version")
                                   + forfeits)
            verdict = "contradicted"
        elif st.deals >= self.spec.gate_max_deals:
            self.tables.set_status(self.row.id, candidate, "rejected",
                                   f"did not pass the gate against {old}: no decision after {st.deals} deals ({est}){forfeits}")
            verdict = "cap"
        else:  # on trial still: where it stands, for its author (arbiter bots show, the leaderboard)
            if st.deals:
                early = self.spec.gate_min_deals
                wait = f"; no verdict before {early} deals (gate.min_deals)" if st.deals < early else ""  # past a threshold, yet on
                self.tables.set_status(self.row.id, candidate, "candidate",
                                       f"{self._on_trial(old, test, source)}; so far {est}: {st.evidence()}{wait} (rejected "
                                       f"with no decision by {self.spec.gate_max_deals} deals){forfeits}")
                self._refresh()
            return None
        log.info("arena %s: gate for %s: %s", self.row.name, candidate, verdict)
        self._refresh()
        return verdict

    def trials(self, busy: set[str]) -> list[tuple[str, ...]]:
        """Gate encounters to start now: each candidate whose predecessor is free. They go
        before the ladder's own tables: a trial is short, and the author waits for it."""
        out = []
        for e in self.entrants.values():
            if e.status != "candidate" or e.player in busy:
                continue
            old = self.predecessor(e.player)
            if old is not None and old not in busy:
                out.append((e.player, old))
                busy = busy | {e.player, old}
        return out

    # -- matchmaking -------------------------------------------------------------------

    def candidates(self) -> list[matchmaking.Candidate]:
        out = []
        # the remote division: only bots connected now, once for each seat of a side
        connected = self._connections() if self.spec.remote else None
        for e in self.entrants.values():
            if e.status != "active":
                continue
            if connected is not None and connected.get(e.player, 0) < len(self.game.teams[0]):
                continue
            mu, sigma = self.ratings.get(e.player, (e.mu, e.sigma))
            if e.player not in self._last_start:  # it has waited since it was first seen
                self._last_start[e.player] = self._tick
            waited = self._tick - self._last_start[e.player]
            out.append(matchmaking.Candidate(e.player, mu, sigma, e.encounters + self.busy.get(e.player, 0), waited, e.joined))
        return out

    def next_table(self) -> tuple[str, ...] | None:
        cands = self.candidates()
        busy = {p for p, n in self.busy.items() if n}
        if self.matchmaker is not None:
            return self.matchmaker(self, cands, busy)
        return matchmaking.pick(cands, len(self.game.teams), busy)

    # -- encounters --------------------------------------------------------------------

    def _source(self, player: str) -> str:
        e = self.entrants[player]
        if e.author == HOUSE:  # as the settings give it now (checked: the same contents as it entered with)
            source = self._house.get(player, e.source)
            return lookup(self.db_path, source)[0].spec if is_registered_ref(source) else source  # (house = ["mine@2"])
        if e.author == REMOTE:
            return e.source  # "": it is not started here
        return lookup(self.db_path, player)[0].spec  # the stored copy, its hash checked

    def _reserve(self, players: Sequence[str]) -> None:
        for p in players:  # busy from the moment it is chosen: the next pick must not take it
            self.busy[p] = self.busy.get(p, 0) + 1

    async def encounter(self, players: tuple[str, ...]) -> EncounterDone | None:
        """Play one encounter and store it; None if it could not be played."""
        self._reserve(players)
        return await self._reserved_encounter(players)

    async def _reserved_encounter(self, players: tuple[str, ...]) -> EncounterDone | None:
        assert self.tables is not None and self.row is not None
        try:
            sources: dict[str, str] = {}
            for p in players:
                try:
                    sources[p] = self._source(p)
                except RegistryError as exc:  # removed (another process: arbiter bots remove) or its copy damaged
                    log.warning("arena %s: %s cannot be launched: %s", self.row.name, p, exc)
                    self.tables.set_status(self.row.id, p, "withdrawn", f"its stored copy cannot be used: {exc}")
                    self._refresh()
                    return None
            seed = secrets.randbits(62) if self.spec.seed is None else derive_seed(self.spec.seed, "encounter", self._tick)
            idx = self.tables.begin_encounter(self.row.id, players, seed)
            started = self._tick
            self._tick += 1
            for p in players:
                self._last_start[p] = self._tick
            try:
                played = await self._play(idx, players, seed, sources)
            except BotsDoNotPlay as exc:  # its Hello says so (a house file, a bot claiming other games)
                self.tables.abandon(self.row.id, idx)
                if exc.bot not in players:
                    raise
                log.warning("arena %s: %s withdrawn: %s", self.row.name, exc.bot, exc)
                # named by its seat: its file's path stays here
                self.tables.set_status(self.row.id, exc.bot, "withdrawn",
                                       f"it cannot play here: {does_not_play(exc.bot, exc.game, exc.plays)}")
                self._refresh()  # not tried again and again until the ladder stops on 20 failures in a row
                return None
            except BaseException as exc:
                self.tables.abandon(self.row.id, idx)
                if isinstance(exc, asyncio.CancelledError):  # the run stopped while it played
                    self.cut_off += 1
                raise
        finally:
            for p in players:
                self.busy[p] -= 1
        if self.spec.where.hosted and (why := _none_started(played, players)):
            # the arena's own failure (its sandbox, its machine), not the bots': counted, it would
            # rate them on no play and suspend every bot of the ladder, for good if registered
            self.tables.abandon(self.row.id, idx)
            raise BotStartError(f"arena {self.row.name}, encounter {idx}: no bot of {', '.join(players)} started "
                                f"(abandoned, never counted; no forfeit is theirs): check the sandbox (ARENA_SANDBOX) "
                                f"and its limits; {why}")
        if gone := self._unregistered(players):
            # removed from the registry while it played (arbiter bots remove, another process):
            # its seats since were forfeits of a copy that was no longer there, not of its
            # play; cut off, the encounter is never counted, as one a stop cuts off
            # named by whom it played, not by its number: an abandoned encounter has none of
            # those shown (stdout, the pages: the finishing order), and its start number is
            # another encounter's there
            self.tables.abandon(self.row.id, idx)
            for p in gone:
                others = ", ".join(q for q in players if q != p) or "its own copies"
                self.tables.set_status(self.row.id, p, "withdrawn", "removed from the registry while it played "
                                       f"{others} (that encounter abandoned, never counted)")
            log.warning("arena %s: %s removed from the registry during an encounter of %s: abandoned",
                        self.row.name, ", ".join(gone), " vs ".join(players))
            self._refresh()
            return None
        return self._commit(idx, players, played, started)

    def _unregistered(self, players: Sequence[str]) -> list[str]:
        """The registered players of ``players`` that the registry no longer has."""
        assert self._registry is not None
        out = []
        for p in players:
            if self.entrants[p].author in (HOUSE, REMOTE):
                continue
            e = self.entrants[p]
            if not any(v.version == e.version for v in self._registry.versions(e.name)):
                out.append(p)
        return out

    def _plan(self, players: Sequence[str], seed: int) -> list[tuple[int, int, tuple[str, ...], tuple[str, ...], int]]:
        per_side = len(self.game.teams[0])
        entries = [Entry(p, (p,) * per_side) for p in players]
        seatings = seatings_of(entries, self.game, Seatings(self.spec.seatings))
        if self.spec.remote:
            # A remote bot keeps its memory (its own process, on its own machine): a deal it
            # played in one seating it would know in the next. So every seating gets a deal
            # of its own, never played again; the seatings still even out the seats.
            n = len(seatings)
            return [(d * n + r, r, seats, sides, deal_seed(seed, d * n + r))
                    for d in range(self.spec.deals) for r, (seats, sides) in enumerate(seatings)]
        return [(d, r, seats, sides, deal_seed(seed, d))
                for d in range(self.spec.deals) for r, (seats, sides) in enumerate(seatings)]

    async def _play(self, idx: int, players: Sequence[str], seed: int, sources: Mapping[str, str]) -> list[PlayedMatch]:
        """The encounter's matches, by the batch engine (``arbiter.batch``), in plan order:
        in process, as bot processes of a host of the encounter's own, or on the cluster."""
        assert self.row is not None
        match_id = lambda k: f"a{self.row.id}-e{idx}-{k}"  # noqa: E731 - carries no seed
        plan = [PlannedMatch(k, self.spec.match_config(seed_of_deal, match_id(k)), seats, (d, r, sides))
                for k, (d, r, seats, sides, seed_of_deal) in enumerate(self._plan(players, seed))]

        async def play(venue: Any, at_once: int | None) -> list[PlayedMatch]:
            async with contextlib.aclosing(play_batch(plan, venue, concurrency=at_once, ordered=True)) as played:
                return [PlayedMatch(p.match.key, *p.match.item, p.record) async for p in played]

        where = self.spec.where
        if where.kind is Kind.REMOTE and self.hub is None:
            raise RuntimeError("the remote division needs the arena's server (Arena.hub) for its bots to connect to")
        if where.kind is Kind.CLUSTER:
            # registered bots go as their stored files, checked by hash on the worker; house
            # bots by name or files. A worker plays ``deal`` isolation as ``match`` (a fresh
            # process per seat per match). A worker lost mid-match costs that match only.
            bots = {p: self._source(p) if self.entrants[p].author == HOUSE else p for p in players}
        else:
            bots = {p: sources[p] for p in players}

        def start_failed(exc: BotStartError) -> None:  # its seats record the disconnect (with its stderr): a forfeit
            log.warning("arena %s, encounter %d: %s", self.row.name, idx, exc)

        log_dir = scratch.make("arena-encounter-") if where.hosted else None
        try:
            async with open_venue(
                    where, bots, self.spec.game, db_path=self.db_path, hub=self.hub, isolation=self.spec.host_isolation,
                    copies=max(m.seats.count(p) for m in plan for p in set(m.seats)), warm=1,
                    max_restarts=0 if where.kind is Kind.CLUSTER else 2, sandbox=self.sandbox, log_dir=log_dir,
                    on_start_error=start_failed, batch=f"a{self.row.id}-e{idx}", observers=self._observers,
                    loaded={p: self._local_bot(p, sources[p]) for p in players} if where.kind is Kind.INPROC else None,
            ) as venue:
                return await play(venue, None if where.kind is Kind.CLUSTER else 1)
        finally:
            if log_dir is not None:
                shutil.rmtree(log_dir, ignore_errors=True)

    def _observers(self, config: MatchConfig) -> Sequence[Any]:
        return self.spectators.observers(config) if self.spectators is not None else ()

    def _local_bot(self, player: str, source: str) -> Any:
        if player not in self._local:
            self._local[player] = load_bot(source)
        return self._local[player]

    def _commit(self, idx: int, players: tuple[str, ...], played: list[PlayedMatch], started: int) -> EncounterDone:
        """Store and rate encounter ``idx``, the ``started``-th begun (``_tick``), and suspend
        who forfeited in ``suspend_after`` encounters in a row."""
        assert self.tables is not None and self.row is not None
        views = [_View(m.deal, m.record) for m in played]
        deals = matchmaking.deal_points(views, self.game.teams, players, forfeit_stake(self.game))
        new = matchmaking.rate_encounter(self.ratings, players, deals)
        fails = matchmaking.encounter_failures(views, players)
        updates: dict[str, PlayerUpdate] = {}
        suspended = []
        for p in players:
            e = self.entrants[p]
            n_fail, why = fails.get(p, (0, ""))
            if n_fail and self._back.get(p, -1) > started:
                # a remote bot suspended, then back with a new connection while this encounter
                # played on its old one: those forfeits are counted, but they were the old
                # connection's, already suspended for; the new one starts with none in a row
                why = f"{why} (by its connection from before it came back: not counted toward a suspension)"
                fails[p] = (n_fail, why)
                streak = 0
            else:
                streak = e.streak + 1 if n_fail else 0
            suspend = ""
            # a candidate too: its trial ends there (its predecessor plays on), as its line announced
            if n_fail and self.spec.suspend_after and streak >= self.spec.suspend_after and e.status in ("active", "candidate"):
                suspend = f"suspended after {streak} encounters in a row with a forfeit; the last: {why}"
                suspended.append(p)
            updates[p] = PlayerUpdate(new[p][0], new[p][1], sum(1 for v in views if p in v.seats), n_fail, streak, suspend)
        detail = {p: why for p, (_, why) in fails.items()}
        seq = self.tables.finish_encounter(self.row.id, idx, played, updates, detail)
        self.finished += 1
        self.matches_played += len(played)
        self._refresh()
        if suspended:
            log.warning("arena %s: suspended %s", self.row.name, ", ".join(suspended))
            if (m := metrics.active()) is not None:
                m.arena_suspensions.labels(self.row.name).inc(len(suspended))
        for p in suspended:
            if self.entrants[p].author == REMOTE:
                self._suspended_on[p] = self._live_sessions(p)
        verdicts = {}
        for p in players:  # a trial's encounter: the gate may have its verdict now
            if self.entrants[p].status == "candidate" and self.judge(p) is not None:
                verdicts[p] = f"{self.entrants[p].status}: {self.entrants[p].reason}"
        points = {p: sum(d[p][0] for d in deals if p in d) / max(1, len(deals)) for p in players}
        done = EncounterDone(self.row.name, idx, seq, players, points, {p: new[p] for p in players}, detail,
                             tuple(suspended), len(played),
                             {p: (updates[p].failures, updates[p].streak) for p in players if updates[p].failures},
                             self.spec.suspend_after, verdicts)
        if self.on_encounter:
            self.on_encounter(done)
        return done

    # -- the loop ----------------------------------------------------------------------

    def _report(self, playing: int) -> None:
        """The ladder's queue as metrics (``arbiter.metrics``), when they are on."""
        m = metrics.active()
        if m is None or self.row is None:
            return
        name = self.row.name
        statuses: dict[str, int] = dict.fromkeys(STATUSES, 0)
        waiting = 0
        for e in self.entrants.values():
            statuses[e.status] = statuses.get(e.status, 0) + 1
            waiting += e.status in ("active", "candidate") and not self.busy.get(e.player)
        for status, n in statuses.items():
            m.arena_entrants.labels(name, status).set(n)
        m.arena_waiting.labels(name).set(waiting)
        m.arena_playing.labels(name).set(playing)

    def waiting(self) -> str:
        """Why no encounter can start now, in words for the operator ("" if one can): too few
        bots that may play, and what became of the others, so that a ladder that sits idle (its
        house bots suspended, its entrants gone) says so instead of nothing at all."""
        need = len(self.game.teams)
        playing = [c.player for c in self.candidates()]
        if len(playing) >= need or any(e.status == "candidate" for e in self.entrants.values()):
            return ""
        out = [f"waiting: {len(playing)} bot{'s' if len(playing) != 1 else ''} can play ({', '.join(playing) or 'none'}), "
               f"an encounter needs {need}"]
        for status in ("suspended", "withdrawn"):
            them = [e.player for e in self.entrants.values() if e.status == status]
            if them:
                out.append(f"{status}: {', '.join(them)}")
        if self.spec.remote:
            out.append("the remote division plays the bots connected to it now")
        elif not any(e.status == "suspended" and e.author == HOUSE for e in self.entrants.values()):
            out.append("a submitted bot enters when it is registered")
        else:
            out.append("a suspended house bot plays again when the arena restarts")
        return "; ".join(out)

    async def run(self, stop: asyncio.Event | None = None, max_encounters: int | None = None,
                  until: Callable[["Arena"], bool] | None = None) -> None:
        """Keep the ladder playing until ``stop`` is set, ``max_encounters`` have been
        stored by this run, or ``until(self)`` says so (asked after each one). Encounters
        under way when it stops are abandoned (their matches are not stored)."""
        if self.store is None:
            self.open()
        stop = stop or asyncio.Event()
        tasks: set[asyncio.Task] = set()
        stopper = asyncio.ensure_future(stop.wait())
        failures_in_a_row = 0
        waiting = ""  # why no encounter can start, as last said
        try:
            while not stop.is_set():
                if max_encounters is not None and self.finished >= max_encounters:
                    break
                if until is not None and until(self):
                    break
                self.sync_entrants()
                room = self.spec.concurrency - len(tasks)
                if max_encounters is not None:
                    room = min(room, max_encounters - self.finished - len(tasks))
                trials = self.trials({p for p, n in self.busy.items() if n}) if self.spec.gate else []
                while room > 0:
                    players = trials.pop(0) if trials else self.next_table()
                    if players is None:
                        break
                    self._reserve(players)
                    tasks.add(asyncio.ensure_future(self._reserved_encounter(players)))
                    room -= 1
                self._report(len(tasks))
                if not tasks:
                    if (why := self.waiting()) != waiting and why:  # said once, when it begins
                        log.warning("arena %s: %s", self.row.name if self.row else "", why)
                    waiting = why
                    await asyncio.wait({stopper}, timeout=self.poll)
                    continue
                waiting = ""
                done, _ = await asyncio.wait(tasks | {stopper}, timeout=self.poll, return_when=asyncio.FIRST_COMPLETED)
                for t in done - {stopper}:
                    tasks.discard(t)
                    exc = t.exception()
                    if exc is not None:
                        failures_in_a_row += 1
                        said = isinstance(exc, (BotStartError, ConfigError, RegistryError))  # a bot that
                        if said:  # cannot start or be found (removed from the registry): in words, no traceback
                            log.error("%s", exc)
                        else:
                            log.error("arena: an encounter failed: %r", exc, exc_info=exc)
                        if failures_in_a_row >= 20:
                            if isinstance(exc, BotStartError):
                                raise BotStartError(f"arena: 20 encounters in a row failed; stopping. The last: {exc}") from exc
                            if said:
                                raise SpecError(f"arena: 20 encounters in a row failed; stopping. The last: {exc}") from exc
                            raise RuntimeError("arena: 20 encounters in a row failed; stopping") from exc
                        await asyncio.sleep(min(5.0, 0.1 * failures_in_a_row))
                    else:
                        failures_in_a_row = 0
        finally:
            stopper.cancel()
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._report(0)


def _none_started(played: Sequence[PlayedMatch], players: Sequence[str]) -> str:
    """Why no bot of an encounter started (the first one's stderr), or "" if one did: no match
    saw a decision, each ended at its start on a seat whose bot never connected, and between
    them every player's bot was such a seat (one broken bot against a sound one is that bot's
    forfeit, counted as any other)."""
    failed: dict[str, str] = {}
    for m in played:
        o = m.record.outcome
        if m.record.actions or o is None or o.reason is not EndReason.FORFEIT_DISCONNECT or not m.record.incidents:
            return ""
        for i in m.record.incidents:
            if i.kind != "disconnect" or not i.detail.endswith("is not connected"):
                return ""
            failed.setdefault(m.record.seat_names[i.seat], i.stderr or i.detail)
    if not played or set(failed) != set(players):
        return ""
    first = next(iter(failed.values())).strip().splitlines()
    return f"{next(iter(failed))}: {' '.join(first[-2:])[-300:]}"


@dataclass(frozen=True)
class _View:
    """A played match as the ladder's functions read it."""

    deal: int
    record: MatchRecord

    @property
    def seats(self) -> tuple[str, ...]:
        return tuple(self.record.seat_names)

    @property
    def outcome(self):
        return self.record.outcome

    @property
    def incidents(self):
        return self.record.incidents


# --------------------------------------------------------------------------------------
# The service: submissions.


async def serve_submissions(db_path: str | os.PathLike, service: ServiceConfig,
                            tls: tuple[bytes, bytes] | None = None, insecure: bool = False,
                            check: SubmissionCheck | None = None,
                            closed: str = "") -> tuple[RunningServer, auth.Credentials]:
    """The Bots service over the store's registry, behind the author tokens of the
    credentials file (issued for ``service.authors`` if missing), as ``arbiter serve``
    serves it, and Spectate behind its spectator token (``RunningServer.spectators``: hand
    them to ``Arena.spectators``). Loopback only, unless TLS (or ``insecure``). ``closed``:
    why it takes no submissions (``ArenaSpec.submissions_closed``), "" to take them."""
    service.check(tls, insecure)
    creds = auth.ensure(service.credentials, (), tuple(service.authors))
    live = auth.LiveCredentials(service.credentials, creds)
    running = await start_server(service.port, service.host, hub=Hub(credentials=live), admin_token=lambda: live.get().admin,
                                 bots_catalog=RegistryCatalog(db_path, check, closed),
                                 author_tokens=lambda: live.get().author_tokens(), tls=tls,
                                 spectators=SpectatorHub(token=lambda: live.get().spectator))
    return running, creds
