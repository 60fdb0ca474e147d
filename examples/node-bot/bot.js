#!/usr/bin/env node
// A Card Arena bot in JavaScript, written from protos/cardarena/v1/*.proto alone.
//
// It plays all three games (spades, spite-and-malice, spot): every Turn carries the legal
// actions, and it answers with one of them, chosen by a generator seeded from the match's
// MatchStart.bot_seed, so a match replays exactly. It needs nothing of the Python SDK:
// @grpc/grpc-js speaks gRPC, @grpc/proto-loader reads the .proto files at start-up.
//
//   npm ci                                   # once, in this folder
//   ARENA_TOKEN=T node bot.js --address HOST:PORT [--name NAME]
//
// The address and token come from --address/--token or, as for a Python bot, from the
// environment: ARENA_ADDRESS, ARENA_TOKEN (prefer it: `ps` shows arguments to everyone),
// ARENA_TLS_CA (a CA certificate file: connect with TLS). The .proto files are looked for
// in ARENA_PROTOS, then ./protos beside this file (a hosted bot carries its own copy), then
// the repository's protos/ two folders up. See docs/other-languages.md.
"use strict";

const fs = require("fs");
const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const NAME = "node-example";
const VERSION = "1.0";
const GAMES = ["spades", "spite-and-malice", "spot"];
const PROTOCOL_VERSION = 1;
// Codes after which the arbiter closes the stream (arena.proto, message Error).
const FATAL = new Set(["auth", "protocol", "version"]);

function parseArgs(argv) {
  const args = {
    address: process.env.ARENA_ADDRESS || "127.0.0.1:50051",
    token: process.env.ARENA_TOKEN || "",
    name: NAME,
    tlsCa: process.env.ARENA_TLS_CA || "",
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    const known = { "--address": "address", "--token": "token", "--name": "name", "--tls-ca": "tlsCa" };
    if (flag === "--help" || flag === "-h") {
      process.stdout.write("usage: node bot.js [--address HOST:PORT] [--name NAME] [--token T] [--tls-ca CA.pem]\n" +
        "  (env ARENA_ADDRESS, ARENA_TOKEN, ARENA_TLS_CA)\n");
      process.exit(0);
    }
    if (!(flag in known) || value === undefined) {
      process.stderr.write(`error: unknown option or missing value: ${flag}\n`);
      process.exit(2);
    }
    args[known[flag]] = value;
    i++;
  }
  return args;
}

function protoDir() {
  const candidates = [process.env.ARENA_PROTOS, path.join(__dirname, "protos"), path.join(__dirname, "..", "..", "protos")];
  for (const dir of candidates) {
    if (dir && fs.existsSync(path.join(dir, "cardarena", "v1", "arena.proto"))) return dir;
  }
  throw new Error("cannot find cardarena/v1/arena.proto: set ARENA_PROTOS to the folder holding cardarena/");
}

// mulberry32: a small seeded generator, so the bot's choices replay from MatchStart.bot_seed.
function rng(seed) {
  let a = Number(BigInt.asUintN(32, BigInt(seed))) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The decision rule: any legal action, picked at random with the seat's own generator.
// (legal_actions[0] would do too; a random choice keeps Spite and Malice from circling.)
function choose(seat, turn) {
  const legal = turn.legal_actions;
  return legal[Math.floor(seat.random() * legal.length)];
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const definition = protoLoader.loadSync("cardarena/v1/arena.proto", {
    includeDirs: [protoDir()],
    keepCase: true, // field names as in the .proto: match_id, request_id, legal_actions
    longs: String, // uint64 request_id and bot_seed as decimal strings, echoed unchanged
    enums: String,
    defaults: false,
    oneofs: true, // msg.msg names the field of a oneof that is set ("turn", "match_start")
  });
  const v1 = grpc.loadPackageDefinition(definition).cardarena.v1;
  const credentials = args.tlsCa ? grpc.credentials.createSsl(fs.readFileSync(args.tlsCa)) : grpc.credentials.createInsecure();
  const client = new v1.Arena(args.address, credentials, { "grpc.max_receive_message_length": 4 * 1024 * 1024 });

  const seats = new Map(); // "match_id/seat" -> {token, random}
  let matches = 0;
  const stream = client.Play();

  stream.on("data", (msg) => {
    switch (msg.msg) {
      case "welcome":
        process.stderr.write(`${args.name}: session ${msg.welcome.session_id} open on ${args.address}\n`);
        break;
      case "match_start": {
        const s = msg.match_start;
        seats.set(`${s.match_id}/${s.seat || 0}`, { token: s.seat_token || "", random: rng(s.bot_seed || "0") });
        break;
      }
      case "turn": {
        const t = msg.turn;
        const seat = seats.get(`${t.match_id}/${t.seat || 0}`);
        if (seat === undefined) {
          process.stderr.write(`${args.name}: a Turn for a seat it never started: ${t.match_id}/${t.seat || 0}\n`);
          break;
        }
        // Echo match_id, request_id and the seat's token; the action is one of legal_actions as sent.
        stream.write({ act: { match_id: t.match_id, request_id: t.request_id, seat_token: seat.token, action: choose(seat, t) } });
        break;
      }
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
        process.stderr.write(`${args.name}: arbiter says ${err.code}: ${err.message}\n`);
        if (FATAL.has(err.code)) process.exitCode = 1;
        break;
      }
      default:
        break;
    }
  });
  stream.on("error", (err) => {
    // The arbiter closing the stream at the end of a session is a CANCELLED or UNAVAILABLE.
    process.stderr.write(`${args.name}: stream ended: ${err.code} ${err.details || err.message}\n`);
    if (!process.exitCode && ![grpc.status.CANCELLED, grpc.status.UNAVAILABLE].includes(err.code)) process.exitCode = 1;
  });
  stream.on("end", () => {
    process.stderr.write(`${args.name}: the arbiter closed the stream after ${matches} matches\n`);
    client.close();
  });

  stream.write({
    hello: { bot_name: args.name, bot_version: VERSION, token: args.token, games: GAMES, protocol_version: PROTOCOL_VERSION },
  });
}

main();
