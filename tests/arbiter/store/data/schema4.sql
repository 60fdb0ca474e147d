CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    spec TEXT NOT NULL,          -- JSON: everything that defines the schedule and matches
    created REAL NOT NULL,
    finished REAL,               -- NULL while matches are missing
    planned INTEGER NOT NULL DEFAULT 0,  -- matches in the schedule
    secret_seed INTEGER          -- the seed drawn for a spec without one (never shown while it runs)
);
CREATE TABLE IF NOT EXISTS entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
    name TEXT NOT NULL,          -- display name, as in matches.seats
    spec TEXT NOT NULL,          -- as written in the tournament spec
    launched TEXT NOT NULL,      -- what was launched (a registered name@version resolved)
    version TEXT NOT NULL DEFAULT '',  -- the version the bot reported when it connected
    PRIMARY KEY (tournament_id, name)
);
CREATE TABLE IF NOT EXISTS matches (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,        -- position in the schedule
    match_id TEXT NOT NULL,
    deal INTEGER NOT NULL,       -- which deal seed of the tournament
    rotation INTEGER NOT NULL,   -- which seating of that deal
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,         -- JSON list: bot name per seat
    scores TEXT NOT NULL,        -- JSON list per seat
    ranks TEXT NOT NULL,         -- JSON list per seat
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,        -- why it ended, in words
    record TEXT NOT NULL,        -- JSON MatchRecord: replays the match
    finished REAL NOT NULL,
    round INTEGER NOT NULL DEFAULT 0,
    table_no INTEGER NOT NULL DEFAULT 0,  -- which combination of entries
    sides TEXT NOT NULL DEFAULT '[]',     -- JSON list: entry (bot or team) per side
    incidents TEXT NOT NULL DEFAULT '[]', -- JSON list of {seat, kind, detail[, stderr]}
    decisions INTEGER NOT NULL DEFAULT 0,
    seconds REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (tournament_id, idx)
);
CREATE INDEX IF NOT EXISTS matches_by_id ON matches(match_id);
-- Schema 4: arenas (continuous rated ladders, `arbiter arena`, read and written by
-- arbiter.store.arenas). An encounter is a pairing (or table) playing a set of fresh deals in
-- every seating: it is stored whole, with its matches, in one transaction, or not at all.
CREATE TABLE IF NOT EXISTS arenas (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    spec TEXT NOT NULL,          -- JSON: what defines the ladder's encounters (game, options, deals, clock, policy)
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS arena_entrants (
    arena_id INTEGER NOT NULL REFERENCES arenas(id) ON DELETE CASCADE,
    player TEXT NOT NULL,        -- name@version (as in its matches' seats), or a house bot's name
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    author TEXT NOT NULL,
    source TEXT NOT NULL,        -- how it is launched (a house bot's spec, '' for registered bots)
    joined REAL NOT NULL,
    status TEXT NOT NULL,        -- active | replaced | suspended | withdrawn
    reason TEXT NOT NULL DEFAULT '',  -- why it is not active, in words
    changed REAL NOT NULL,
    mu REAL NOT NULL,            -- the rating after its last encounter (recomputable from encounters)
    sigma REAL NOT NULL,
    encounters INTEGER NOT NULL DEFAULT 0,
    matches INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,  -- matches it forfeited
    streak INTEGER NOT NULL DEFAULT 0,    -- encounters in a row with a forfeit of its own
    PRIMARY KEY (arena_id, player)
);
CREATE TABLE IF NOT EXISTS arena_encounters (
    arena_id INTEGER NOT NULL REFERENCES arenas(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,        -- in order of starting
    seq INTEGER,                 -- in order of finishing (the rating order), NULL until done
    players TEXT NOT NULL,       -- JSON list: the table's entries
    seed INTEGER NOT NULL,       -- drawn for this encounter alone, its deals never come back elsewhere
    status TEXT NOT NULL,        -- playing | done | abandoned (cut off by a stop or a crash: never counted)
    started REAL NOT NULL,
    finished REAL,
    ratings TEXT NOT NULL DEFAULT '{}',   -- JSON: player -> [mu, sigma] after this encounter
    failures TEXT NOT NULL DEFAULT '{}',  -- JSON: player -> what went wrong (its forfeits)
    PRIMARY KEY (arena_id, idx)
);
CREATE UNIQUE INDEX IF NOT EXISTS arena_encounters_by_seq ON arena_encounters(arena_id, seq);
CREATE TABLE IF NOT EXISTS arena_matches (
    arena_id INTEGER NOT NULL,
    encounter INTEGER NOT NULL,
    k INTEGER NOT NULL,          -- position in the encounter
    match_id TEXT NOT NULL UNIQUE,
    deal INTEGER NOT NULL,
    seating INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,         -- JSON list: player per seat
    sides TEXT NOT NULL,         -- JSON list: player per side
    scores TEXT NOT NULL,
    ranks TEXT NOT NULL,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,
    incidents TEXT NOT NULL,     -- JSON list of {seat, kind, detail}
    record TEXT NOT NULL,        -- JSON MatchRecord
    decisions INTEGER NOT NULL,
    seconds REAL NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (arena_id, encounter, k),
    FOREIGN KEY (arena_id, encounter) REFERENCES arena_encounters(arena_id, idx) ON DELETE CASCADE
);
