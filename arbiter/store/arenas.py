"""The arenas' tables of the store (schema 4, created in ``arbiter.store.db``): ladders,
their entrants, encounters and the encounters' matches.

Crash safety is in the shape of the writes:

* ``begin_encounter`` records an encounter as ``playing`` (its pairing and its freshly
  drawn seed) before any of it is played;
* ``finish_encounter`` stores all of its matches, marks it ``done`` with the next ``seq``
  (the order the ratings are updated in) and writes every player's new rating and counts,
  in ONE transaction: a SIGKILL leaves either all of it or none;
* ``abandon_unfinished`` (on start) turns whatever was still ``playing`` into
  ``abandoned``: never counted, never resumed (its deals were partly seen, so a fresh
  encounter with a fresh seed takes its place).

So a finished encounter is never lost and never counted twice (``(arena_id, seq)`` and
``(arena_id, encounter, k)`` are unique), whatever moment the process died at.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from arbiter.store.db import differences_text, index_bots, Store, StoreError, ThinkTimes, incidents_from_json, incidents_json, think_times
from cardarena import disclosure
from cardarena.disclosure import Disclosure
from cardarena.games import EndReason, Game, Outcome, get_game
from cardarena.records import Incident, MatchRecord, number

#: What an entrant can be: only ``active`` ones are matched.
#: candidate: a new version on trial against the active one (the arena's gate); rejected:
#: a candidate that did not pass it.
STATUSES = ("active", "replaced", "suspended", "withdrawn", "candidate", "rejected")


@dataclass(frozen=True)
class ArenaRow:
    id: int
    name: str
    game: str
    spec: dict[str, Any]
    created: float

    def rules(self) -> Game:
        """The game its spec configures (its options and preset): the ladder's replay, its pages."""
        return get_game(self.game, self.spec.get("options") or {}, self.spec.get("preset"))


@dataclass(frozen=True)
class EntrantRow:
    player: str  # name@version, or a house bot's name: its seat name in every match
    name: str
    version: str
    author: str
    source: str
    joined: float
    status: str
    reason: str
    changed: float
    mu: float
    sigma: float
    encounters: int = 0
    matches: int = 0
    failures: int = 0
    streak: int = 0


@dataclass(frozen=True)
class EncounterRow:
    idx: int
    seq: int | None
    players: tuple[str, ...]
    seed: int
    status: str
    started: float
    finished: float | None
    ratings: dict[str, tuple[float, float]] = field(default_factory=dict)  # after it
    failures: dict[str, str] = field(default_factory=dict)

    def disclosure(self, arena: str) -> Disclosure:
        """What of it may be shown (``cardarena.disclosure.of_encounter``): its replays,
        results and seed once it is stored whole (``done``), never while ``playing`` nor
        once ``abandoned``."""
        return disclosure.of_encounter(arena, self.idx, self.status)


@dataclass(frozen=True)
class ArenaMatch:
    """One stored match of an encounter."""

    arena_id: int
    encounter: int
    k: int
    match_id: str
    deal: int
    seating: int
    seed: int
    seats: tuple[str, ...]
    sides: tuple[str, ...]
    outcome: Outcome
    incidents: tuple[Incident, ...]
    record_json: str = field(repr=False)
    decisions: int = 0
    seconds: float = 0.0

    def record(self) -> MatchRecord:
        return MatchRecord.from_json(self.record_json)


@dataclass(frozen=True)
class PlayedMatch:
    """What ``finish_encounter`` stores of one match."""

    k: int
    deal: int
    seating: int
    sides: tuple[str, ...]
    record: MatchRecord


@dataclass(frozen=True)
class PlayerUpdate:
    """A player's state after an encounter (written with it)."""

    mu: float
    sigma: float
    matches: int  # matches it played in the encounter
    failures: int  # of them, forfeited by it
    streak: int  # its encounters in a row with a forfeit, this one included
    suspend: str = ""  # non-empty: it is suspended now, and this says why


_ENTRANT_COLUMNS = ("player, name, version, author, source, joined, status, reason, changed, mu, sigma, "
                    "encounters, matches, failures, streak")
_ENC_COLUMNS = "idx, seq, players, seed, status, started, finished, ratings, failures"
#: An encounter's match as a row of the one matches table (``arbiter.store.db``): its
#: position in the encounter is ``idx``, its seating ``rotation``.
_MATCH_COLUMNS = ("arena_id, encounter, idx, match_id, deal, rotation, seed, seats, sides, scores, ranks, reason, detail, "
                  "incidents, record, decisions, seconds")


def _grown(stored: Mapping[str, Any], spec: Mapping[str, Any], key: str) -> bool:
    """Whether ``spec`` is ``stored`` with entries added to the mapping under ``key`` (none
    changed or taken away), all else the same."""
    old, new = stored.get(key) or {}, spec.get(key) or {}
    rest = lambda d: {k: v for k, v in d.items() if k != key}  # noqa: E731
    return (isinstance(old, dict) and isinstance(new, dict) and rest(stored) == rest(json.loads(json.dumps(spec)))
            and all(new.get(k) == v for k, v in old.items()))


class Arenas:
    """The arenas' tables of one store (through its connection)."""

    def __init__(self, store: Store):
        self.store = store
        self.db: sqlite3.Connection = store.db

    # -- ladders ---------------------------------------------------------------------------

    def open_arena(self, name: str, game: str, spec: Mapping[str, Any], grows: str | None = None) -> ArenaRow:
        """The arena ``name``: created, or resumed if its spec is the same (StoreError if not).
        ``grows``: a key of the spec whose mapping may gain entries (a ladder's house bots'
        contents, as bots are added); the stored spec is updated to it then."""
        spec_json = json.dumps(spec, sort_keys=True)
        with self.store._tx() as db:  # the store's: its errors name the file
            row = db.execute("SELECT spec FROM arenas WHERE name = ?", (name,)).fetchone()
            if row is not None and row[0] != spec_json and grows is not None and _grown(self._spec(name, row[0]), spec, grows):
                db.execute("UPDATE arenas SET spec = ? WHERE name = ?", (spec_json, name))
            elif row is not None and row[0] != spec_json:
                raise StoreError(f"arena {name!r} already exists in {self.store.path} with other settings "
                                 f"({differences_text(self._spec(name, row[0]), dict(spec))}); a ladder keeps its rules: run it with the "
                                 f"settings it began with (its file as it was, the same flags), or give the ladder another "
                                 f"name")
            if row is None:
                db.execute("INSERT INTO arenas (name, game, spec, created) VALUES (?, ?, ?, ?)",
                           (name, game, spec_json, time.time()))
        return self.arena(name)

    def arena(self, name_or_id: str | int) -> ArenaRow:
        key = str(name_or_id)
        as_id = number(key)
        try:
            row = self.db.execute("SELECT id, name, game, spec, created FROM arenas WHERE name = ? OR id = ? "
                                  "ORDER BY name = ? DESC LIMIT 1", (key, -1 if as_id is None else as_id, key)).fetchone()
        except sqlite3.OperationalError as exc:  # a store made before arenas (as standings_of reads it)
            if "no such table" in str(exc):
                raise StoreError(f"no arena {key[:80]!r} in {self.store.path}: it holds no arena") from None
            raise
        if row is None:
            raise StoreError(f"no arena {key[:80]!r} in {self.store.path}")
        return ArenaRow(row[0], row[1], row[2], self._spec(row[1], row[3]), row[4])

    def find(self, name: str) -> ArenaRow | None:
        """The arena ``name``, or None if the store has none of that name (a corrupt one is a
        StoreError, never taken for a new one)."""
        try:
            found = self.db.execute("SELECT 1 FROM arenas WHERE name = ?", (name,)).fetchone()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return None
            raise
        return self.arena(name) if found else None

    def _spec(self, name: str, text: str) -> dict[str, Any]:
        """An arena's stored settings; StoreError naming it if they cannot be read."""
        try:
            spec = json.loads(text)
        except ValueError as exc:
            raise StoreError(f"arena {name!r} in {self.store.path} is corrupt: its stored settings cannot be read "
                             f"({exc})") from None
        if not isinstance(spec, dict):
            raise StoreError(f"arena {name!r} in {self.store.path} is corrupt: its stored settings are not a table")
        return spec

    def arenas(self) -> list[ArenaRow]:
        return [self.arena(r[0]) for r in self.db.execute("SELECT id FROM arenas ORDER BY id")]

    # -- entrants --------------------------------------------------------------------------

    def entrants(self, arena_id: int) -> list[EntrantRow]:
        rows = self.db.execute(f"SELECT {_ENTRANT_COLUMNS} FROM arena_entrants WHERE arena_id = ? ORDER BY joined, player",
                               (arena_id,))
        return [EntrantRow(*r) for r in rows]

    def add_entrant(self, arena_id: int, player: str, name: str, version: str, author: str, source: str,
                    mu: float, sigma: float, replaces: Iterable[str] = (), status: str = "active",
                    reason: str = "") -> None:
        """Enter ``player`` (``status``: active, or candidate on trial); the players it
        ``replaces`` (earlier versions) stop being matched, their history kept. One transaction."""
        if status not in STATUSES:
            raise ValueError(f"status: expected one of {STATUSES}, got {status!r}")
        now = time.time()
        with self.store._tx() as db:  # the store's: its errors name the file
            db.execute(f"INSERT INTO arena_entrants (arena_id, {_ENTRANT_COLUMNS}) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0)",
                       (arena_id, player, name, version, author, source, now, status, reason, now, mu, sigma))
            for old in replaces:
                db.execute("UPDATE arena_entrants SET status = 'replaced', reason = ?, changed = ? "
                           "WHERE arena_id = ? AND player = ? AND status IN ('active', 'suspended', 'candidate')",
                           (f"replaced by version {version}", now, arena_id, old))

    def promote(self, arena_id: int, player: str, replaces: Iterable[str], reason: str) -> None:
        """A candidate passed its trial: it is active, the versions it ``replaces`` are
        replaced (``reason`` says why, on both). One transaction."""
        now = time.time()
        with self.store._tx() as db:  # the store's: its errors name the file
            db.execute("UPDATE arena_entrants SET status = 'active', reason = ?, changed = ? "
                       "WHERE arena_id = ? AND player = ? AND status = 'candidate'", (reason, now, arena_id, player))
            for old in replaces:
                db.execute("UPDATE arena_entrants SET status = 'replaced', reason = ?, changed = ? "
                           "WHERE arena_id = ? AND player = ? AND status IN ('active', 'suspended')",
                           (reason, now, arena_id, old))

    def set_status(self, arena_id: int, player: str, status: str, reason: str = "") -> None:
        if status not in STATUSES:
            raise ValueError(f"status: expected one of {STATUSES}, got {status!r}")
        with self.store._tx() as db:  # the store's: its errors name the file
            db.execute("UPDATE arena_entrants SET status = ?, reason = ?, changed = ? WHERE arena_id = ? AND player = ?",
                       (status, reason, time.time(), arena_id, player))

    def reinstate(self, arena_id: int, player: str, reason: str) -> None:
        """A suspended bot plays again (``reason`` says why): with no forfeit in a row, as a new
        version starts, so that it is suspended again only after ``suspend_after`` encounters of
        its own with one, not at its first."""
        with self.store._tx() as db:  # the store's: its errors name the file
            db.execute("UPDATE arena_entrants SET status = 'active', reason = ?, streak = 0, changed = ? "
                       "WHERE arena_id = ? AND player = ? AND status = 'suspended'", (reason, time.time(), arena_id, player))

    def set_rating(self, arena_id: int, ratings: Mapping[str, tuple[float, float]],
                   after: Mapping[int, Mapping[str, tuple[float, float]]] | None = None) -> None:
        """Overwrite stored ratings (a repair, when recomputing disagrees with them): every
        entrant's current one, and (``after``) each finished encounter's ratings after it, by
        encounter index; in one transaction."""
        with self.store._tx() as db:  # the store's: its errors name the file
            for player, (mu, sigma) in ratings.items():
                db.execute("UPDATE arena_entrants SET mu = ?, sigma = ? WHERE arena_id = ? AND player = ?",
                           (mu, sigma, arena_id, player))
            for idx, rated in (after or {}).items():
                db.execute("UPDATE arena_encounters SET ratings = ? WHERE arena_id = ? AND idx = ?",
                           (json.dumps({p: list(r) for p, r in rated.items()}, sort_keys=True), arena_id, idx))

    # -- encounters ------------------------------------------------------------------------

    def begin_encounter(self, arena_id: int, players: Sequence[str], seed: int) -> int:
        """Record an encounter about to be played; its index."""
        with self.store._tx() as db:  # the store's: its errors name the file
            (idx,) = db.execute("SELECT COALESCE(MAX(idx), -1) + 1 FROM arena_encounters WHERE arena_id = ?",
                                (arena_id,)).fetchone()
            db.execute("INSERT INTO arena_encounters (arena_id, idx, players, seed, status, started) "
                       "VALUES (?, ?, ?, ?, 'playing', ?)", (arena_id, idx, json.dumps(list(players)), seed, time.time()))
        return idx

    def abandon_unfinished(self, arena_id: int) -> int:
        """Every encounter still ``playing`` (its process died or stopped) becomes ``abandoned``."""
        with self.store._tx() as db:  # the store's: its errors name the file
            cur = db.execute("UPDATE arena_encounters SET status = 'abandoned', finished = ? "
                             "WHERE arena_id = ? AND status = 'playing'", (time.time(), arena_id))
            return cur.rowcount

    def abandon(self, arena_id: int, idx: int) -> None:
        with self.store._tx() as db:  # the store's: its errors name the file
            db.execute("UPDATE arena_encounters SET status = 'abandoned', finished = ? "
                       "WHERE arena_id = ? AND idx = ? AND status = 'playing'", (time.time(), arena_id, idx))

    def finish_encounter(self, arena_id: int, idx: int, matches: Sequence[PlayedMatch],
                         updates: Mapping[str, PlayerUpdate], failures: Mapping[str, str]) -> int:
        """Store the encounter's matches, mark it done and update its players, atomically;
        its ``seq``. StoreError if it is not ``playing`` (it was stored already, or abandoned)."""
        now = time.time()
        with self.store._tx() as db:  # the store's: its errors name the file
            row = db.execute("SELECT status FROM arena_encounters WHERE arena_id = ? AND idx = ?", (arena_id, idx)).fetchone()
            if row is None or row[0] != "playing":
                raise StoreError(f"encounter {idx} of arena {arena_id} is {row[0] if row else 'unknown'}, not playing")
            (seq,) = db.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM arena_encounters WHERE arena_id = ?",
                                (arena_id,)).fetchone()
            for m in matches:
                r, o = m.record, m.record.outcome
                if o is None:
                    raise ValueError(f"match {r.match_id}: no outcome (it did not finish)")
                db.execute(
                    f"INSERT INTO matches (batch, {_MATCH_COLUMNS}, finished) VALUES ('arena', {', '.join('?' * 18)})",
                    (arena_id, idx, m.k, r.match_id, m.deal, m.seating, r.seed, json.dumps(list(r.seat_names)),
                     json.dumps(list(m.sides)), json.dumps(list(o.scores)), json.dumps(list(o.ranks)), o.reason.value,
                     o.detail, incidents_json(r.incidents), r.to_json(), len(r.actions), r.seconds, now),
                )
                index_bots(db, "m.id = last_insert_rowid()")
            for player, u in updates.items():
                db.execute(
                    "UPDATE arena_entrants SET mu = ?, sigma = ?, encounters = encounters + 1, matches = matches + ?, "
                    "failures = failures + ?, streak = ? WHERE arena_id = ? AND player = ?",
                    (u.mu, u.sigma, u.matches, u.failures, u.streak, arena_id, player),
                )
                if u.suspend:
                    db.execute("UPDATE arena_entrants SET status = 'suspended', reason = ?, changed = ? "
                               "WHERE arena_id = ? AND player = ? AND status IN ('active', 'candidate')", (u.suspend, now, arena_id, player))
            ratings = {p: [u.mu, u.sigma] for p, u in updates.items()}
            db.execute("UPDATE arena_encounters SET status = 'done', seq = ?, finished = ?, ratings = ?, failures = ? "
                       "WHERE arena_id = ? AND idx = ?",
                       (seq, now, json.dumps(ratings, sort_keys=True), json.dumps(dict(failures), sort_keys=True), arena_id, idx))
        return seq

    def encounters(self, arena_id: int, status: str | None = "done", player: str | None = None) -> list[EncounterRow]:
        """Encounters (``status``; None: all), done ones in ``seq`` order, then the rest by index."""
        sql, args = f"SELECT {_ENC_COLUMNS} FROM arena_encounters WHERE arena_id = ?", [arena_id]
        if status is not None:
            sql += " AND status = ?"
            args.append(status)
        rows = [self._enc(r) for r in self.db.execute(sql + " ORDER BY seq IS NULL, seq, idx", args)]
        return [r for r in rows if player is None or player in r.players]

    def encounter(self, arena_id: int, idx: int) -> EncounterRow:
        r = self.db.execute(f"SELECT {_ENC_COLUMNS} FROM arena_encounters WHERE arena_id = ? AND idx = ?", (arena_id, idx)).fetchone()
        if r is None:
            raise StoreError(f"no encounter {idx} in arena {arena_id}")
        return self._enc(r)

    def _enc(self, r: tuple) -> EncounterRow:
        try:
            ratings = {p: (float(v[0]), float(v[1])) for p, v in json.loads(r[7]).items()}
            return EncounterRow(r[0], r[1], tuple(json.loads(r[2])), r[3], r[4], r[5], r[6], ratings, dict(json.loads(r[8])))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            raise StoreError(f"arena encounter {r[0]} in {self.store.path} is corrupt: {exc}") from None

    # -- matches ---------------------------------------------------------------------------

    def matches(self, arena_id: int, encounter: int | None = None, records: bool = True) -> list[ArenaMatch]:
        """Stored matches (of one encounter), by encounter index then position; without
        ``records`` their records are left out (``record_json`` empty): the results alone."""
        columns = _MATCH_COLUMNS if records else _MATCH_COLUMNS.replace("incidents, record,", "incidents, '',")
        sql, args = f"SELECT {columns} FROM matches WHERE arena_id = ?", [arena_id]
        if encounter is not None:
            sql += " AND encounter = ?"
            args.append(encounter)
        return [self._match(r) for r in self.db.execute(sql + " ORDER BY encounter, idx", args)]

    def think_times(self, arena_id: int) -> dict[str, ThinkTimes]:
        """Each player's think time and the arbiter's own time per decision over the
        arena's stored matches (``ThinkTimes``; a player by name@version, as in the seats)."""
        return think_times(self.db, "matches", "m.arena_id = ?", (arena_id,))

    def match(self, match_id: str) -> ArenaMatch:
        r = self.db.execute(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE match_id = ? AND arena_id IS NOT NULL",
                            (match_id,)).fetchone()
        if r is None:
            raise StoreError(f"no arena match {match_id[:80]!r} in {self.store.path}")
        return self._match(r)

    def _match(self, r: tuple) -> ArenaMatch:
        try:
            outcome = Outcome(tuple(json.loads(r[9])), tuple(json.loads(r[10])), EndReason(r[11]), r[12])
            incidents = incidents_from_json(r[13])
            return ArenaMatch(r[0], r[1], r[2], r[3], r[4], r[5], r[6], tuple(json.loads(r[7])), tuple(json.loads(r[8])),
                              outcome, incidents, r[14], r[15], r[16])
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreError(f"arena match {r[3]!r} in {self.store.path} is corrupt: {exc}") from None


@dataclass(frozen=True)
class Standing:
    """One version of a bot in one arena (``standings_of``)."""

    arena: str
    player: str
    status: str
    reason: str
    mu: float
    sigma: float
    encounters: int
    matches: int
    failures: int


def standings_of(db: sqlite3.Connection, name: str, remote: bool = False, house: bool = False) -> list[Standing]:
    """Every version of the bot ``name`` in every arena of the store behind ``db``, by arena
    then joining order; empty for a store with no arenas (or an older one without their tables).
    ``remote``: instead, the bot of that name in the remote divisions (connected, never
    registered: one entrant per arena, version ``remote``); ``house``: the house bot of that
    name in each arena that has one (the operator's, never registered either)."""
    unregistered = "remote" if remote else "house" if house else None
    which = ("AND e.author = ? AND e.player = e.name " if unregistered
             else "AND e.player = e.name || '@' || e.version ")  # its registered versions: not a house bot of its name
    try:
        rows = db.execute(
            "SELECT a.name, e.player, e.status, e.reason, e.mu, e.sigma, e.encounters, e.matches, e.failures "
            "FROM arena_entrants e JOIN arenas a ON a.id = e.arena_id WHERE e.name = ? " + which +
            "ORDER BY a.name, e.joined, e.player",
            (name, unregistered) if unregistered else (name,)).fetchall()
    except sqlite3.OperationalError as exc:  # no arena tables in this file
        if "no such table" in str(exc):
            return []
        raise
    return [Standing(*r) for r in rows]


def unplayed_arenas(db: sqlite3.Connection, games: Sequence[str]) -> list[tuple[str, str]]:
    """(name, game) of each arena of the store behind ``db`` whose entrants are registered bots
    (not the remote division) and whose game a bot playing ``games`` does not play (none for
    "*" or no games said: it plays any), by name; empty for a store without arena tables."""
    if not games or "*" in games:
        return []
    try:
        rows = db.execute("SELECT name, game, spec FROM arenas ORDER BY name").fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return []
        raise
    return [(name, game) for name, game, spec in rows
            if game not in games and json.loads(spec).get("division", "hosted") != "remote"]


def arena_matches(db: sqlite3.Connection) -> int:
    """How many matches of arenas the store behind ``db`` holds (0 for a store made before arenas)."""
    try:
        return db.execute("SELECT COUNT(*) FROM matches WHERE arena_id IS NOT NULL").fetchone()[0]
    except sqlite3.OperationalError as exc:
        if "no such" in str(exc):
            return 0
        raise
