#!/usr/bin/env node
// A stdio test bot in Node: holds ALLOCATE MiB (argv[2], touched, off the JS heap) from the start, or, with "grow",
// allocates 32 MiB more at every decision until something gives; plays the first legal action.
"use strict";
const readline = require("readline");
const mib = Number(process.argv[2] || 0);
const grow = process.argv[3] === "grow";
const held = [];
const take = (n) => { for (let i = 0; i < n; i++) held.push(Buffer.alloc(1 << 20, 1)); };
take(mib);
const say = (m) => process.stdout.write(JSON.stringify(m) + "\n");
say({ type: "hello", protocol: 1, token: process.env.ARENA_TOKEN, name: "hog-js" });
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.type === "match_end") process.exit(0);
  if (m.type !== "act") return;
  if (grow) take(32);
  say({ type: "action", request_id: m.request_id, action: m.legal[0] });
});
