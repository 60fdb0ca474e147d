// A hostile bot in JavaScript (tests/e2e/test_hostile_node.py): hosted by the arbiter as
// any Node bot, through examples/node-bot/arena.js beside it. params.json beside it says
// which attack (`mode`) and where its targets are; it prints `HOSTILE {json}` lines to
// stderr saying what it tried and what came back, as the Python hostile bots do.
//
//   illegal   answers its first turn with an action that is not legal (a bid of 14)
//   garbage   before every real answer: an Act for a request that is not pending, one
//             for another match, one with a seat token that is not its own
//   flood     on its first turn, 20000 Acts that answer nothing
//   files     reads a secret of the test, the store, the source tree, /etc/passwd; writes
//             into the store, its own code and its working directory
//   network   connects to a listener of the test and the arbiter's TCP port
//   stall     never answers
//   memory    allocates 16 MiB buffers, touching every page, until the allocation fails
"use strict";

const fs = require("fs");
const net = require("net");
const path = require("path");
const { play } = require("./arena");

const params = JSON.parse(fs.readFileSync(path.join(__dirname, "params.json"), "utf8"));
const report = (kind, fields) => process.stderr.write(`HOSTILE ${JSON.stringify({ kind, ...fields })}\n`);
const errors = [];
let done = false;

function read(file) {
  try {
    return `READ ${fs.readFileSync(file).subarray(0, 4096).length} bytes`;
  } catch (err) {
    return `blocked: ${err.code || err.message}`;
  }
}

function write(file) {
  try {
    fs.appendFileSync(file, "hostile");
    return "WROTE";
  } catch (err) {
    return `blocked: ${err.code || err.message}`;
  }
}

function attempt(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 });
    socket.on("connect", () => { socket.end("hostile bot was here\n"); resolve("CONNECTED"); });
    socket.on("timeout", () => { socket.destroy(); resolve("blocked: timeout"); });
    socket.on("error", (err) => resolve(`blocked: ${err.code || err.message}`));
  });
}

async function choose(turn, seat) {
  const legal = turn.legal_actions;
  const first = !done;
  done = true;
  switch (params.mode) {
    case "illegal":
      if (first) return { spades: { bid: { tricks: 14 } } };
      break;
    case "stall":
      return new Promise(() => {}); // never settles
    case "memory": {
      const held = [];
      try {
        for (;;) {
          held.push(Buffer.alloc(16 * 1024 * 1024, 1)); // filled: every page is really used
          report("memory", { mb: held.length * 16 });
        }
      } catch (err) {
        report("memory", { mb: held.length * 16, error: String(err) });
        throw err; // answered as Act.failure: the arbiter applies the policy
      }
    }
    case "files":
      if (first) {
        report("files", {
          secret: read(params.secret), store: read(params.store), source: read(params.source), passwd: read("/etc/passwd"),
          write_store: write(params.store), write_own_code: write(__filename),
          write_workdir: write(path.join(process.cwd(), "scratch.txt")), listdir_root: fs.readdirSync("/").sort(),
        });
      }
      break;
    case "network":
      if (first) {
        report("network", {
          canary: await attempt("127.0.0.1", params.canary_port),
          canary_v6: await attempt("::1", params.canary_port),
          arbiter_tcp: params.arbiter_port ? await attempt("127.0.0.1", params.arbiter_port) : "n/a",
        });
      }
      break;
    default:
      break;
  }
  return legal[0];
}

function onMessage(msg, stream) {
  if (msg.msg === "error") {
    errors.push(msg.error.code);
    report("errors", { codes: [...new Set(errors)].sort(), count: errors.length });
    return;
  }
  if (msg.msg !== "turn") return;
  const t = msg.turn;
  const act = (fields) => stream.write({ act: { match_id: t.match_id, request_id: t.request_id, ...fields } });
  if (params.mode === "flood" && !done) {
    for (let i = 0; i < 20000; i++) act({ request_id: "1000000000", action: t.legal_actions[0] });
  }
  if (params.mode === "garbage") {
    act({ request_id: "1000000000", action: t.legal_actions[0] }); // a request that is not pending
    act({ match_id: "honest-match", action: t.legal_actions[0] }); // another match's
    act({ seat_token: "not-my-token", action: t.legal_actions[0] }); // a seat that is not its own
  }
}

play({ name: "hostile-node", version: "1", games: ["spades"], choose, onMessage });
