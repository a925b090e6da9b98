#!/usr/bin/env node
// A stdio test bot in Node that says in its hello's name what it sees of its limits: V8's heap limit (MiB), its
// processors (os.availableParallelism) and whether a runtime flag reached it (--expose-gc: global.gc is defined);
// then plays the first legal action.
"use strict";
const os = require("os");
const readline = require("readline");
const v8 = require("v8");
const heap = Math.round(v8.getHeapStatistics().heap_size_limit / 1048576);
const cpus = os.availableParallelism ? os.availableParallelism() : os.cpus().length;
const name = `heap=${heap} cpus=${cpus} gc=${typeof global.gc} args=${process.argv.length - 2}`;
const say = (m) => process.stdout.write(JSON.stringify(m) + "\n");
say({ type: "hello", protocol: 1, token: process.env.ARENA_TOKEN, name });
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.type === "match_end") process.exit(0);
  if (m.type !== "act") return;
  say({ type: "action", request_id: m.request_id, action: m.legal[0] });
});
