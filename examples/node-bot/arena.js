// The Card Arena wire protocol in JavaScript, from protos/cardarena/v1/arena.proto alone:
// one bidirectional stream (Arena.Play), Hello first, then an Act for every Turn. bot.js is
// a bot on top of it; a bot is `play({name, version, games, choose})`.
//
// choose(turn, seat) gets the Turn message as decoded (turn.view, turn.legal_actions,
// turn.clock, turn.events) and the seat's own state (seat.start: its MatchStart,
// seat.random: a generator seeded by MatchStart.bot_seed); it returns one of
// turn.legal_actions (or a Promise of one). This file echoes match_id, request_id and
// the seat's token. onMessage(msg, stream), if given, sees every ArbiterMessage first (and
// may write on the stream itself: a test's hostile bot does).
"use strict";

const fs = require("fs");
const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTOCOL_VERSION = 1;
// Codes after which the arbiter closes the stream (arena.proto, message Error).
const FATAL = new Set(["auth", "protocol", "version", "busy", "flood"]);

// --address/--token/--name/--tls-ca, else ARENA_ADDRESS, ARENA_TOKEN, ARENA_TLS_CA (as a
// Python bot: sdk/runner.py). Prefer ARENA_TOKEN: `ps` shows arguments to every user.
function parseArgs(argv, defaults) {
  const args = {
    address: process.env.ARENA_ADDRESS || "127.0.0.1:50051",
    token: process.env.ARENA_TOKEN || "",
    name: defaults.name,
    tlsCa: process.env.ARENA_TLS_CA || "",
    protos: process.env.ARENA_PROTOS || "",
  };
  const known = { "--address": "address", "--token": "token", "--name": "name", "--tls-ca": "tlsCa", "--protos": "protos" };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    if (flag === "--help" || flag === "-h") {
      process.stdout.write("usage: node bot.js [--address HOST:PORT] [--name NAME] [--token T] [--tls-ca CA.pem] [--protos DIR]\n" +
        "  (env ARENA_ADDRESS, ARENA_TOKEN, ARENA_TLS_CA, ARENA_PROTOS: the folder holding cardarena/v1/*.proto)\n");
      process.exit(0);
    }
    if (!(flag in known) || argv[i + 1] === undefined) {
      process.stderr.write(`error: unknown option or missing value: ${flag}\n`);
      process.exit(2);
    }
    args[known[flag]] = argv[i + 1];
  }
  return args;
}

// The .proto files: --protos DIR or ARENA_PROTOS, else ./protos beside this file (a hosted
// bot carries its own copy: it sees nothing outside its folder), else a protos/ folder in
// this file's folder or any folder above it (the repository's, for a copy inside a
// checkout). None: one line saying how to give them, and exit code 2.
function protoDir(given) {
  const has = (dir) => dir && fs.existsSync(path.join(dir, "cardarena", "v1", "arena.proto"));
  if (given) {
    if (has(given)) return given;
    process.stderr.write(`error: --protos/ARENA_PROTOS ${given}: no cardarena/v1/arena.proto in it (give the folder holding cardarena/)\n`);
    process.exit(2);
  }
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (has(path.join(dir, "protos"))) return path.join(dir, "protos");
    if (path.dirname(dir) === dir) break;
  }
  process.stderr.write("error: cannot find the .proto files (cardarena/v1/arena.proto): copy the repository's protos/ " +
    "folder beside bot.js (cp -r CHECKOUT/protos .), or give --protos DIR or ARENA_PROTOS=DIR\n");
  process.exit(2);
}

// mulberry32: a small seeded generator, so a bot's choices replay from MatchStart.bot_seed.
function seeded(seed) {
  let a = Number(BigInt.asUintN(32, BigInt(seed))) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function play({ name, version, games, choose, onMessage }) {
  const args = parseArgs(process.argv.slice(2), { name });
  const definition = protoLoader.loadSync("cardarena/v1/arena.proto", {
    includeDirs: [protoDir(args.protos)],
    keepCase: true, // field names as in the .proto: match_id, request_id, legal_actions
    longs: String, // uint64 request_id and bot_seed as decimal strings, echoed unchanged
    enums: String,
    defaults: false,
    oneofs: true, // msg.msg names the field of a oneof that is set ("turn", "match_start")
  });
  const v1 = grpc.loadPackageDefinition(definition).cardarena.v1;
  const credentials = args.tlsCa ? grpc.credentials.createSsl(fs.readFileSync(args.tlsCa)) : grpc.credentials.createInsecure();
  const client = new v1.Arena(args.address, credentials);
  const log = (text) => process.stderr.write(`${args.name}: ${text}\n`);

  const seats = new Map(); // "match_id/seat" -> {start, token, random}
  let matches = 0;
  let welcomed = false; // the arbiter answered the Hello: an error before it means it was never reached
  const stream = client.Play();

  async function answer(turn) {
    const key = `${turn.match_id}/${turn.seat || 0}`;
    const seat = seats.get(key);
    if (seat === undefined) return log(`a Turn for a seat it never started: ${key}`);
    let action;
    const began = process.hrtime.bigint();
    try {
      action = await choose(turn, seat);
      if (action === undefined || action === null) throw new Error(`choose returned ${action}, not one of turn.legal_actions`);
    } catch (err) {
      // the bot's own code failed (it threw, or returned no action): say so (Act.failure,
      // arena.proto); the arbiter applies the match's policy and records what it said
      log(`choose failed: ${err && err.stack ? err.stack : err}`);
      stream.write({ act: { match_id: turn.match_id, request_id: turn.request_id, seat_token: seat.token,
                            failure: String(err).slice(0, 200) } });
      return;
    }
    // Act.think_us: this bot's own time for the decision (optional; the arbiter shows its author
    // how much of the time it charged was the transport's, docs/latency.md)
    const think_us = Math.max(1, Math.round(Number(process.hrtime.bigint() - began) / 1000));
    stream.write({ act: { match_id: turn.match_id, request_id: turn.request_id, seat_token: seat.token, action, think_us } });
  }

  stream.on("data", (msg) => {
    if (onMessage) onMessage(msg, stream);
    switch (msg.msg) {
      case "welcome":
        welcomed = true;
        log(`session ${msg.welcome.session_id} open on ${args.address}`);
        break;
      case "match_start": {
        const s = msg.match_start;
        seats.set(`${s.match_id}/${s.seat || 0}`, { start: s, token: s.seat_token || "", random: seeded(s.bot_seed || "0") });
        break;
      }
      case "turn":
        answer(msg.turn);
        break;
      case "update": // not sent by this arbiter (events come with Turn and MatchEnd)
        break;
      case "match_end": {
        const e = msg.match_end;
        seats.delete(`${e.match_id}/${e.seat || 0}`);
        matches++;
        break;
      }
      case "error": {
        const err = msg.error;
        log(`arbiter says ${err.code}: ${err.message}`);
        if (FATAL.has(err.code)) process.exitCode = 1;
        if (err.code === "stopped") {
          // the match ended without a MatchEnd: forget its seats as MatchEnd would (their
          // tokens and requests are dead), or a long-running bot keeps every one
          let gone = 0;
          for (const key of [...seats.keys()]) if (key.startsWith(`${err.match_id}/`) && seats.delete(key)) gone++;
          log(`match ${err.match_id} stopped: ${gone} seat(s) forgotten`);
        }
        break;
      }
      default:
        break;
    }
  });
  stream.on("error", (err) => {
    if (!welcomed) {
      // never connected (nothing listens there, TLS on one side only, a wrong host): a failure
      // to start, not the end of a session (exit code 1, as a Python bot's `python -m sdk`)
      log(err.code === grpc.status.UNAVAILABLE
        ? `cannot reach the arbiter at ${args.address}: ${err.details || err.message} (is it running, and on the ` +
          "address its 'arbiter listening on' line says? with TLS, give --tls-ca)"
        : `the stream ended before the arbiter's Welcome: ${err.code} ${err.details || err.message}`);
      process.exitCode = 1;
      return;
    }
    // the arbiter closing the stream when it stops is CANCELLED or UNAVAILABLE
    log(`stream ended: ${err.code} ${err.details || err.message}`);
    if (!process.exitCode && ![grpc.status.CANCELLED, grpc.status.UNAVAILABLE].includes(err.code)) process.exitCode = 1;
  });
  stream.on("end", () => {
    if (welcomed) log(`the arbiter closed the stream after ${matches} matches`);
    client.close();
  });

  stream.write({ hello: { bot_name: args.name, bot_version: version, token: args.token, games, protocol_version: PROTOCOL_VERSION } });
  return stream;
}

module.exports = { play, seeded };
