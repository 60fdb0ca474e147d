#!/usr/bin/env node
// A Card Arena bot in JavaScript, written from protos/cardarena/v1/*.proto alone (the
// protocol is in arena.js beside it). It plays all three games: every Turn carries the
// legal actions, and it answers with one of them, chosen by the seat's generator (seeded
// by MatchStart.bot_seed, so a match replays exactly). See docs/other-languages.md.
//
//   npm ci                                             # once, in this folder
//   ARENA_TOKEN=T node bot.js --address HOST:PORT [--name NAME]
"use strict";

const { play } = require("./arena");

play({
  name: "node-example",
  version: "1.0",
  games: ["spades", "spite-and-malice", "spot"],
  // Any legal action. (legal_actions[0] would do too; a random pick keeps Spite and
  // Malice from circling until its turn limit.) turn.view holds what the seat may see:
  // turn.view.spades, turn.view.spite_and_malice or turn.view.spot, as in the .proto.
  choose(turn, seat) {
    const legal = turn.legal_actions;
    return legal[Math.floor(seat.random() * legal.length)];
  },
});
